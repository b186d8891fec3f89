"""Chat sentences: splitting a turn, dropping bare acknowledgements, and rewriting first- and
second-person pronouns as names ("I adopted a dog", said by Caroline -> "Caroline adopted a
dog"), verbs agreeing."""

from __future__ import annotations

import re

from .text import STOPWORDS

__all__ = [
    "ADVERBS",
    "IRREGULAR_PAST",
    "is_acknowledgement",
    "is_past",
    "rewrite_pronouns",
    "split_sentences",
    "word_set",
]


def word_set(text: str) -> frozenset[str]:
    """The words of a space-separated list, for the word tables here and in `extract`."""
    return frozenset(text.split())


# After . ! ? … a space ends a sentence; after the full-width 。！？ (CJK) none is written.
_BREAK = re.compile(r"(?<=[.!?…])[\"'”’)\]]*\s+|(?<=[。！？])[」』”）]*\s*|\s*\n+\s*")
_ABBREVIATIONS = word_set(
    "mr mrs ms dr prof st vs etc e.g i.e jr sr approx no fig mt inc ltd co p.s a.m p.m"
)
# "at 3 a.m. I restarted it": a pronoun or a determiner after the time starts a sentence; a
# weekday, a month, a time zone or a name goes with it ("at 9 a.m. Monday", "3 p.m. EST").
_CLOCK_ABBREVIATIONS = word_set("a.m p.m")
_CLAUSE_START = re.compile(
    r"(?:I|We|You|He|She|They|It|There|The|A|An|My|Our|Your|His|Her|Their|This|That|These|"
    r"Those|Then|So|But|And|After|Before|When|Luckily|Sadly|Everything|Nothing)\b"
)
# A list item's number or bullet ("1.", "b)", "-") opens its line; it is no sentence.
_LIST_MARKER = re.compile(r"\(?(?:\d{1,3}|[a-z])[.)]|[-*•]")
_OPENING_MARKER = re.compile(r"^(?:\(?(?:\d{1,3}|[a-z])\)|[-*•])\s+")


def split_sentences(text: str) -> list[str]:
    """Sentences of a chat turn; an abbreviation ("Dr.", "e.g.") does not end one."""
    out: list[str] = []
    pos = 0
    for m in _BREAK.finditer(text):
        piece = text[pos : m.start()].strip()
        last = piece.rsplit(None, 1)[-1].lower().rstrip(".") if piece else ""
        if (
            last in _ABBREVIATIONS
            and "\n" not in m.group()
            and not (last in _CLOCK_ABBREVIATIONS and _CLAUSE_START.match(text, m.end()))
        ):
            continue  # the period belongs to the abbreviation: keep reading
        if _LIST_MARKER.fullmatch(piece):
            # A list item's number opens its line in a list ("1." before "Add alerts"): it is
            # dropped. Elsewhere it is part of what follows ("10. Best trip ever.").
            if "\n" in text and (pos == 0 or text[pos - 1] == "\n"):
                pos = m.end()
            continue
        if piece:
            out.append(_OPENING_MARKER.sub("", piece))
        pos = m.end()
    if text[pos:].strip():
        out.append(_OPENING_MARKER.sub("", text[pos:].strip()))
    return out


_ACK_TOKEN = re.compile(r"[a-z0-9]+")
# Words that carry no knowledge in a chat turn: backchannel, greetings, praise, dismay,
# filler. Contractions are split, so "that's" leaves "that" and "s".
_ACK_WORDS = word_set(
    """haha hahaha hehe lol lmao rofl omg wow woah whoa yay yeah yes yep yup ya no nope nah ok
    ugh argh oops whoops yikes oof ouch meh sigh phew whew damn dang geez jeez gosh
    okay k sure cool nice great awesome amazing wonderful fantastic incredible lovely sweet neat
    thanks thank thx ty congrats congratulations hey hi hello hiya bye goodbye cheers totally
    definitely absolutely exactly indeed true agreed right alright glad good hear see soon later
    take care welcome anytime really super pretty quite sounds sound seems anything something new
    up going doing been now oh ah aw aww ooh hmm um uh well s re ve ll d m t much lot same here
    back let know talk fun luck happy hope agree looks look thing lgtm sgtm np makes sense catch
    course ahead else sec check one"""
)


_FILLER = STOPWORDS | _ACK_WORDS


def is_acknowledgement(sentence: str, names: frozenset[str], *, answer: bool = False) -> bool:
    """Nothing but backchannel, greeting or praise ("Thanks, Mel!", "Sounds good"). An `answer`
    to a question keeps a name it gives: "Nope, Redis." tells which."""
    words = list(_ACK_TOKEN.finditer(sentence.lower().replace("’", "'")))
    if len(words) > 12:
        return False
    rest = [m for m in words if m.group() not in _FILLER and m.group() not in names]
    answered = answer and sentence.rstrip().endswith(".")
    if answered and _counts(words):
        return False  # "We have one." to "How many kids do you have?"
    if not rest:
        return True
    if _STATUS.search(sentence) or (answered and _names(sentence, rest)):
        return False  # "Prod is back up.", and "Nope, Redis." to a question: not a nickname
    # A lone leftover capitalised word next to a comma or an end is a nickname: "Thanks, Mel!";
    # unless it is what one is on or uses: "I'm on Arch."
    if len(rest) == 1 and len(words) <= 6 and sentence[rest[0].start()].isupper():
        before = sentence[: rest[0].start()].rstrip().lower().replace("’", "'")
        if _ON_OR_USING.search(before):
            return False
        after = sentence[rest[0].end() :].lstrip()
        return (
            not before
            or before.endswith((",", "hey", "hi", "bye", "thanks"))
            or not after
            or after[0] in ",!?."
        )
    return False


# What one is on or uses, told before the name of it: "I'm on", "we use", "I'm now using".
_ON_OR_USING = re.compile(
    r"(?:^|\s)(?:i'm|i\s+am|we're|we\s+are|i|we)\s+(?:now\s+|still\s+|also\s+)?"
    r"(?:on|use|using|run|running)$"
)


def _names(sentence: str, rest: list[re.Match[str]]) -> bool:
    """Whether a leftover word is a capitalised name, not one after a greeting ("Nope,
    Redis." and "Lisbon." name something; "Yes, thanks Caro." names a person)."""
    return any(
        sentence[m.start()].isupper()
        and not sentence[: m.start()].rstrip(" ,").lower().endswith(("hey", "hi", "bye", "thanks"))
        for m in rest
    )


def _counts(words: list[re.Match[str]]) -> bool:
    """An answer that is a number: "We have one.", "Two."."""
    return any(m.group() in _NUMBER_WORDS or m.group().isdigit() for m in words)


_NUMBER_WORDS = word_set("one two three four five six seven eight nine ten none zero")


# A system's state, told in a few words: "Prod is back up.", "Staging is down", "CI is green".
_STATUS = re.compile(
    r"\b(?:is|are|was|were|looks?|seems?)\s+(?:back\s+)?(?:up|down|online|offline|live|green|red|"
    r"fixed|broken|stable|healthy|back)\b",
    re.IGNORECASE,
)


# ---------------------------------------------------------------------------------------------
# Pronouns
# ---------------------------------------------------------------------------------------------

_WORD = re.compile(r"[A-Za-z]+(?:['’][A-Za-z]+)*")
# pronoun -> (replacement, the pronoun is a singular subject whose verb must agree)
_FIRST = {
    "i": ("{p}", True), "i'm": ("{p} is", False), "i've": ("{p} has", False),
    "i'll": ("{p} will", False), "i'd": ("{p} {would}", False), "me": ("{p}", False),
    "my": ("{p}'s", False), "mine": ("{p}'s", False), "myself": ("themself", False),
    "we": ("{p} and others", False), "we're": ("{p} and others are", False),
    "we've": ("{p} and others have", False), "we'll": ("{p} and others will", False),
    "we'd": ("{p} and others {would}", False), "us": ("{p} and others", False),
    "our": ("{p} and others'", False), "ours": ("{p} and others'", False),
    "ourselves": ("themselves", False),
}  # fmt: skip
_SECOND = {
    "you": ("{p}", True), "you're": ("{p} is", False), "you've": ("{p} has", False),
    "you'll": ("{p} will", False), "you'd": ("{p} {would}", False), "your": ("{p}'s", False),
    "yours": ("{p}'s", False), "yourself": ("themself", False),
}  # fmt: skip
# "you" that is no one in particular, or several people: left alone.
_GENERIC_YOU_BEFORE = frozenset({"thank", "see", "bless", "mind"})
_GENERIC_YOU_AFTER = frozenset({"know", "guys", "all", "two", "both", "see", "never"})
_AGREE = {
    "am": "is", "are": "is", "were": "was", "have": "has", "do": "does", "don't": "doesn't",
    "haven't": "hasn't", "aren't": "isn't", "weren't": "wasn't", "go": "goes",
    "wanna": "wants to", "gotta": "has to",
}  # fmt: skip
# "do you" -> "does Melanie", "am I" -> "is Caroline"
_INVERTED = {
    "am": "is", "are": "is", "were": "was", "have": "has", "do": "does", "don't": "doesn't",
    "haven't": "hasn't", "aren't": "isn't", "weren't": "wasn't",
}  # fmt: skip
ADVERBS = word_set(
    """just really also always never still even often sometimes usually actually totally finally
    recently definitely certainly probably already kinda sorta truly honestly absolutely only
    mostly generally seriously literally basically simply personally rarely hardly barely
    especially now then too both all def legit so"""
)
# "you" is the subject of the next verb only at the start of a clause: after these words, or
# after punctuation. Elsewhere it is an object: "let you know", "taken you ages".
_CLAUSE_OPENERS = word_set(
    """and but so if when because that as since or while until unless cause what how where why
    who which whether then though although hope think guess bet know glad sure wish once before
    after whenever wherever believe feel maybe hopefully probably whatever like"""
)
IRREGULAR_PAST = word_set(
    """went got made took saw came felt found gave told thought knew left met ran bought brought
    began became built caught chose did drew drank drove ate fell fought flew forgot forgave
    froze grew had heard held hid hit hurt kept laid led lent let lost meant paid put quit read
    rode rang rose said sang sat sent set shot shut slept sold spent spoke stood stole struck
    swam taught tore threw understood woke won wore wrote was were been done gone seen taken
    given known shown written cut cost broke broken spun dug fed bent bet blew bit bound bred
    burnt learnt dreamt sought swore wept"""
)
_NOT_VERBS = word_set(
    """guys all both two too later soon again here there today tomorrow yesterday tonight now
    then back home alone ok okay so very much once twice lol haha out up
    must can could should would will shall may might ought cannot can't won't"""
)
# Words between a subject and its verb that are no verb themselves: "I no longer use",
# "I kind of like", "I almost deleted", "I first met".
_BEFORE_VERB = ADVERBS | word_set("no longer almost nearly first once barely")
_HEDGES = word_set("kind sort")  # "I kind of like Go", "I sort of agree": before "of" only
# After these the verb keeps its base form: "Should I use …?", "Did you break it?".
_BASE_AFTER = word_set(
    "must can could should would will shall may might did didn't does doesn't let make help"
)
# A past form with a prefix: "rewrote", "overslept", "misread".
_PAST_PREFIXES = ("re", "over", "under", "out", "mis", "un", "with", "fore", "up")


def _past_form(word: str) -> bool:
    return word in IRREGULAR_PAST or any(
        word.startswith(p) and word[len(p) :] in IRREGULAR_PAST for p in _PAST_PREFIXES
    )


def _conjugate(verb: str) -> str:
    """Third person singular of a base-form verb: 'love' -> 'loves', 'try' -> 'tries'."""
    if verb in ("have", "be"):
        return "has" if verb == "have" else "is"
    if verb.endswith(("s", "sh", "ch", "x", "z", "o")):
        return verb + "es"
    if len(verb) > 2 and verb.endswith("y") and verb[-2] not in "aeiou":
        return verb[:-1] + "ies"
    return verb + "s"


def _is_base_verb(word: str) -> bool:
    return (
        word.isalpha()
        and word not in STOPWORDS
        and not _past_form(word)
        and word not in _NOT_VERBS
        and not (word.endswith("ed") and not word.endswith("eed"))
        and not word.endswith(("ing", "ly"))
    )


def is_past(word: str) -> bool:
    return word in IRREGULAR_PAST or (word.endswith("ed") and not word.endswith("eed"))


def rewrite_pronouns(sentence: str, speaker: str, addressee: str | None = None) -> str:
    """First person -> the speaker, second person -> the addressee (when known), verbs agreeing.

    "I love my dog" by Caroline -> "Caroline loves Caroline's dog"; "Did you go?" to Melanie ->
    "Did Melanie go?"; "we" -> "Caroline and others", "our" -> "Caroline and others'" (a
    group's, as "we" is, not the speaker's own).
    """
    words = list(_WORD.finditer(sentence))
    low = [w.group().lower().replace("’", "'") for w in words]
    quotes = _quoted(sentence, speaker)
    out: dict[int, str] = {}
    for i, w in enumerate(low):
        prev = low[i - 1] if i and _adjacent(sentence, words[i - 1], words[i]) else None
        quoted = next((q for q in quotes if q[0] <= words[i].start() < q[1]), None)
        if quoted is not None:
            # Reported speech: its "I" is who said it ('Ben said "I hate YAML"'), if named.
            if w not in _FIRST or quoted[2] is None or words[i].group() == "US":
                continue
            person, (template, agrees) = quoted[2], _FIRST[w]
        elif w in _FIRST and words[i].group() != "US":
            person, (template, agrees) = speaker, _FIRST[w]
        elif w in _SECOND and addressee is not None:
            if w == "you" and (
                prev in _GENERIC_YOU_BEFORE
                or (i + 1 < len(low) and low[i + 1] in _GENERIC_YOU_AFTER)
            ):
                continue
            person, (template, agrees) = addressee, _SECOND[w]
        else:
            continue
        nxt = low[i + 1] if i + 1 < len(low) else ""
        would = "had" if nxt == "been" or (is_past(nxt) and nxt not in ("let", "put")) else "would"
        out[i] = template.format(p=person, would=would)
        if prev in _INVERTED and agrees:
            out[i - 1] = _case_like(words[i - 1].group(), _INVERTED[prev])
        elif (
            agrees
            and prev not in _BASE_AFTER
            and (w != "you" or prev is None or prev in _CLAUSE_OPENERS)
        ):
            j = i + 1
            while j < len(low) and j < i + 4:
                if low[j] in _HEDGES and j + 1 < len(low) and low[j + 1] == "of":
                    j += 2
                elif low[j] in _BEFORE_VERB or low[j].endswith("ly"):
                    j += 1
                else:
                    break
            if j < len(low) and _adjacent(sentence, words[j - 1], words[j]):
                if low[j] in _AGREE:
                    out[j] = _AGREE[low[j]]
                elif _is_base_verb(low[j]):
                    out[j] = _conjugate(low[j])
    if not out:
        return sentence
    parts, pos = [], 0
    for i, w in enumerate(words):
        if i in out:
            parts += [sentence[pos : w.start()], out[i]]
            pos = w.end()
    parts.append(sentence[pos:])
    return "".join(parts)


_SPEECH_END = re.compile(r"[,;]\s*(?:so|and|but|then)\b|;", re.IGNORECASE)
_OTHER_SUBJECTS = word_set("he she they it you someone everyone nobody somebody")
# A quote is closed: an unmatched mark is no quote ('a 65" TV').
_QUOTE = re.compile(r"\"[^\"]+\"|“[^”]+”")
_REPORTED = re.compile(
    r"\b([A-Z][a-z]+|I)\s+(?:said|says|told\s+\w+|asked|wrote|replied|texted)\s*[,:]?\s*$"
)
_REPORTED_COLON = re.compile(
    r"\b([A-Z][a-z]+|I)\s+(?:said|says|told\s+\w+|asked|wrote|replied|texted)\s*:\s*"
)


def _quoted(sentence: str, speaker: str) -> list[tuple[int, int, str | None]]:
    """Spans of reported speech and who said them (None when no one is named): quoted text,
    and what follows "Ben said:" or "Ben told me:"."""

    def who(m: re.Match[str] | None) -> str | None:
        if m is None or m[1].lower() in _FIRST or m[1].lower() in _OTHER_SUBJECTS:
            return speaker if m is not None and m[1] == "I" else None
        return m[1]

    spans: list[tuple[int, int, str | None]] = []
    for q in _QUOTE.finditer(sentence):
        spans.append((q.start(), q.end(), who(_REPORTED.search(sentence, 0, q.start()))))
    colon = _REPORTED_COLON.search(sentence)
    if colon and not any(a <= colon.start() < b or a == colon.end() for a, b, _ in spans):
        # Said after "Dan told me:" until the clause that tells what came of it: "…, so I
        # switched", "… and I cried".
        end = _SPEECH_END.search(sentence, colon.end())
        spans.append((colon.end(), end.start() if end else len(sentence), who(colon)))
    return spans


def _adjacent(sentence: str, a: re.Match[str], b: re.Match[str]) -> bool:
    """Only spaces between two words: no punctuation ends a clause between them."""
    return not sentence[a.end() : b.start()].strip()


def _case_like(original: str, word: str) -> str:
    return word[:1].upper() + word[1:] if original[:1].isupper() else word

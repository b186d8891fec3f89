"""Text helpers shared by behaviour and stores: normalisation, tokens, full-text queries."""

from __future__ import annotations

import functools
import importlib.resources
import re
import unicodedata
from collections.abc import Sequence

_WORD = re.compile(r"[^\W_]+(?:['’][^\W_]+)?", re.UNICODE)

_STOPWORDS_TEXT = """
a an and are as at be been but by can could did do does for from had has have he her hers
him his how i if in into is it its me my of on or our ours she so than that the their them
then there these they this those to too us was we were what when where which who whom why
will with would you your yours about after again all am any because before being between
both during each few more most other over own same should some such through under until up
very just also ever
"""
STOPWORDS: frozenset[str] = frozenset(_STOPWORDS_TEXT.split())

# Spelt as no person is: "DNS", "PgBouncer", "S3", "Node.js"; not "TJ", "LeBron", "McDonald".
PRODUCT_NAME = re.compile(
    r"[A-Z]{3,}\w*|(?!(?:Mc|Mac|De|Di|Da|Du|La|Le|Van|Von)[A-Z])[A-Z]?[a-z]+[A-Z]\w*|"
    r"\w*\d\w*|\w+(?:[.+#]\w*)+|"
    # two letters are initials ("TJ") unless they are what engineers abbreviate
    r"(?:CI|CD|QA|DB|UI|UX|OS|VM|IP|PR|AI|HA|LB|IO|MQ|GC)s?"
)
# What was done, named by what it was: "that decision", "the switch", "that migration". The
# first are no more than "it" ("the change" is what was just told); the others name a kind of
# work ("The migration broke the login page" may be news). Extraction writes what such a name
# stood for after it: "That migration (we moved to Kubernetes) broke …".
DOINGS = ("decision", "choice", "change", "move", "call", "switch", "bet", "approach", "plan",
          "fix", "idea")  # fmt: skip
WORKS = ("migration", "rewrite", "upgrade", "refactor", "rollout", "rollback", "redesign", "hire",
         "purchase")  # fmt: skip
THINGS_DONE = DOINGS + WORKS


@functools.cache
def _vocabulary() -> frozenset[str]:
    # The embedder's WordPiece vocabulary: its whole words, not its "##" word pieces.
    from .embed.local import VOCAB_FILE  # numpy and all, only when a word is asked about

    lines = importlib.resources.files("ebbtide.embed").joinpath(VOCAB_FILE).read_text("utf-8")
    return frozenset(w for w in lines.split() if w.isalpha())


def is_word(word: str) -> bool:
    """Whether `word` (any case) is a whole word of the embedder's vocabulary, some 30,000
    common English words and names: "backup", "alert", "index" are; "retries", "kafka" are
    not."""
    return word.casefold() in _vocabulary()


def paragraphs(text: str) -> list[str]:
    """The paragraphs of a text (apart by blank lines), each on one line."""
    return [" ".join(p.split()) for p in re.split(r"\n\s*\n", text) if p.strip()]


def normalize(text: str) -> str:
    """Canonical form for equality checks: NFKC, casefolded, single-spaced."""
    return " ".join(unicodedata.normalize("NFKC", text).casefold().split())


def tokens(text: str) -> list[str]:
    return [t.casefold() for t in _WORD.findall(unicodedata.normalize("NFKC", text))]


def content_tokens(text: str) -> list[str]:
    return [t for t in tokens(text) if t not in STOPWORDS]


def stem(word: str) -> str:
    """A light English suffix stripper ("skipped" -> "skip", "outages" -> "outage"), enough to
    match the same words in another inflection; not a linguistic stemmer."""
    if word.endswith("es") and word[:-2].endswith(("x", "sh", "ch", "ss", "z")):
        return word[:-2]
    for suffix, keep in (("ies", "y"), ("ing", ""), ("ed", ""), ("s", "")):
        if word.endswith(suffix) and len(word) - len(suffix) >= 3 and not word.endswith("ss"):
            word = word[: -len(suffix)] + keep
            if keep == "" and len(word) > 3 and word[-1] == word[-2] and word[-1] not in "lsz":
                word = word[:-1]
            break
    return word


@functools.lru_cache(maxsize=1 << 16)  # called for every word of every candidate compared
def root(word: str) -> str:
    """`stem`, then a final silent e dropped ("cache" and "caching" -> "cach", "expire" and
    "expired" -> "expir"), so a verb meets its -ing and -ed forms. For comparing two texts;
    indexes keep `stem`, which stored data was built with."""
    word = stem(word)
    return word[:-1] if len(word) > 3 and word.endswith("e") and not word.endswith("ee") else word


def terms(text: str) -> set[str]:
    """Stemmed content words: what two texts must share to be about the same thing."""
    return {root(t) for t in (content_tokens(text) or tokens(text))}


def names(text: str) -> set[str]:
    """Stemmed capitalised words that are not function words ("Why did Acme escalate the
    Orion outage?" -> acme, orion): the names a text mentions, roughly; a capitalised first
    word that is no name ("Restarting ...") comes back too, as one more word to match."""
    return {
        root(t.casefold())
        for t in _WORD.findall(unicodedata.normalize("NFKC", text))
        if t[0].isupper() and t[1:].islower() and t.casefold() not in STOPWORDS
    }


_NAME_WORD = re.compile(r"[^\W_]+", re.UNICODE)


def named(query: str, people: Sequence[str], *, any_case: bool = True) -> list[str]:
    """The people whose whole name the query says, or the possessive ("Melanie's kids" ->
    Melanie); in any case ("what does melanie like?") unless `any_case` is off, when "will"
    is no Will."""
    fold = str.casefold if any_case else str
    said = {fold(w) for w in _NAME_WORD.findall(unicodedata.normalize("NFKC", query))}
    return [
        p
        for p in people
        if (ws := _NAME_WORD.findall(unicodedata.normalize("NFKC", p)))
        and all(fold(w) in said for w in ws)
    ]


def without_name(query: str, name: str) -> str:
    """The query with a name (and its possessive) taken out; the query itself when nothing
    but function words would be left."""
    pattern = r"\b" + r"\W+".join(map(re.escape, _NAME_WORD.findall(name))) + r"(?:['’]s)?\b"
    rest = re.sub(pattern, " ", query, flags=re.IGNORECASE)
    return " ".join(rest.split()) if content_tokens(rest) else query


def similarity(a: str, b: str) -> float:
    """Overlap of terms, |A ∩ B| / |A ∪ B|: 1.0 for the same words in any case, order or
    inflection, robust to punctuation and trailing spaces."""
    sa, sb = terms(a), terms(b)
    if not sa or not sb:
        return 0.0
    return len(sa & sb) / len(sa | sb)


def containment(query: str, text: str) -> float:
    """Share of the query's terms found in text."""
    q = terms(query)
    return len(q & {root(t) for t in tokens(text)}) / len(q) if q else 0.0


_POSSESSIVE = re.compile(r"['’]s$")


def indexed_words(text: str) -> list[str]:
    """The words a text is searched by: a possessive stands for its noun ("Ana's title" is
    about Ana, and the "s" left of "O'Brien's" is no word), and Latin letters lose their
    accents ("café" is found by "cafe"), as SQLite's full-text index reads them."""
    return [_unaccented(w) for t in tokens(text) if (w := _POSSESSIVE.sub("", t)) and w != "s"]


def _unaccented(word: str) -> str:
    if word.isascii():
        return word
    kept: list[str] = []
    for ch in unicodedata.normalize("NFKD", word):
        if unicodedata.combining(ch) and kept and kept[-1].isascii():
            continue  # an accent on a Latin letter; other scripts keep their marks
        kept.append(ch)
    return unicodedata.normalize("NFC", "".join(kept))


def search_words(text: str) -> list[str]:
    """The words a search looks for: content words if there are any."""
    words = indexed_words(text)
    return [w for w in words if w not in STOPWORDS] or words


def query_terms(text: str) -> list[str]:
    """The distinct words a full-text query searches for."""
    return list(dict.fromkeys(t.replace('"', "") for t in search_words(text) if t))


def fts_query(terms: list[str], op: str = "OR") -> str | None:
    """An FTS5 MATCH expression over `terms`. Each term is quoted, so user text can never be
    parsed as FTS5 syntax."""
    return f" {op} ".join(f'"{t}"' for t in terms) or None


def shorten(text: str, width: int = 80) -> str:
    text = " ".join(text.split())
    return text if len(text) <= width else text[: width - 1] + "…"


def link_line(cause: str, relation: str, effect: str, width: int | None = 80) -> str:
    """A lesson as every answer writes it, "cause -relation-> effect", each end shortened to
    `width` (None: whole); an effect that tells its cause (`tells_cause`) stands alone."""
    if tells_cause(cause, effect):
        return _cut(effect, width)
    return f"{_cut(cause, width)} -{relation}-> {_cut(effect, width)}"


def tells_cause(cause: str, effect: str) -> bool:
    """Whether `effect` is a sentence whose subject is `cause`, as extraction stores "The
    nightly deploy broke the login page": the deploy caused what the whole sentence tells, and
    the sentence says so by itself. A cause named later in the sentence is no subject ("We
    moved off Redis" is not what Redis did), so that lesson keeps its arrow."""
    said = cause.strip().rstrip(".!?;:").strip()
    return bool(said) and re.match(rf"{re.escape(said)}(?!\w)", effect.strip(), re.I) is not None


def chain_line(links: Sequence[tuple[str, str, str]], width: int | None = 80) -> str:
    """Lessons that follow one another (each effect the next one's cause) in one line:
    "cause -relation-> effect -relation-> effect"."""
    first, *rest = links
    return link_line(*first, width) + "".join(f" -{r}-> {_cut(e, width)}" for _, r, e in rest)


def _cut(text: str, width: int | None) -> str:
    return text if width is None else shorten(text, width)

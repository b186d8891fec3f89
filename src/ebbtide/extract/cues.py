"""Causal cues: the words that make a sentence claim a cause ("because", "led to", "which
prevented"), when they do, and the time words that only look like them ("after lunch",
"since Monday")."""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Literal

from ..polarity import BAD_JUDGEMENTS, GOOD_JUDGEMENTS, VERDICT_NOUNS
from ..sentences import ADVERBS, IRREGULAR_PAST, is_past, word_set
from ..text import DOINGS, STOPWORDS, THINGS_DONE, WORKS
from ..timeparse import MONTHS, NUMBERS, SEASONS, WEEKDAYS
from .items import EXPLICIT, HYPOTHETICAL, WEAK, Relation
from .people import _REL_NOUN, _ROLE_NOUN

_LEAD_FILLER = word_set(
    """so well oh and but also then actually honestly yeah yes yep yup no nope ugh welp hmm oof
    haha lol just later finally
    recently yesterday today tonight now anyway btw plus ok okay wow hey eventually lately
    sometimes still um"""
)


_NEG = r"(?:(?:did|does|do|had|has|have|would|could|will|was|is)(?:n't|\s+not)|n't|not|never)"
_AUX = (
    r"(?:(?:has|have|had|will|would|could|might|may|can|should|is|was|are|were|also|then|help|"
    r"helps|helped|\w+ly|in\s+turn)\s+)"
)
_MODAL = re.compile(r"\b(?:will|would|could|might|may|can|should)\b")
# The start of a clause: a pronoun, a determiner or a name (capitalised even under IGNORECASE).
_SUBJ = (
    r"(?:i|we|you|he|she|they|it|there|the|a|an|our|my|his|her|their|its|your|this|that|these|"
    r"those|every|each|all|no|some|any|both|most|(?-i:[A-Z])\w*)\b"
)
# Words that tell a time: "since lunch we …", "since last week", "once again", "after the
# weekend", "after Monday".
_CLOCK_WORDS = (
    word_set(
        """now then again ever today tonight yesterday tomorrow ago forever earlier later early
        late soon last next past first lately recently time times while moment ages morning
        afternoon evening night noon midnight day days week weeks weekend weekends month months
        year years decade decades hour hours minute minutes second seconds"""
    )
    | frozenset(WEEKDAYS)
    | frozenset(MONTHS)
    | frozenset(SEASONS)
)
# ... and occasions, a time only after a word like "since" or "after" ("Lunch fixed my mood").
_OCCASIONS = word_set(
    """lunch dinner breakfast brunch supper work school class college practice church bedtime
    graduation childhood birth retirement vacation holidays christmas"""
)
_TIME_WORDS = _CLOCK_WORDS | _OCCASIONS
# "this morning", "the weekend", "a few days", "early May", "2019": a time told alone.
_A_TIME = re.compile(
    r"(?:(?:the|this|that|these|those|a|an|one|two|three|few|couple|of|every|each|all|whole|"
    r"mid|end|start|\d+(?:st|nd|rd|th)?)[\s-]+)*"
    rf"(?:{'|'.join(sorted(_TIME_WORDS))}|\d+)(?:\s+(?:{'|'.join(sorted(_TIME_WORDS))}|\d+))*",
    re.IGNORECASE,
)
# "a week of retries", "two hours of debugging": a span of time, however it was spent
_A_SPAN_OF = re.compile(
    rf"(?:(?:a|an|the|few|couple|of|several|many|long|whole|first|last|{'|'.join(NUMBERS)}|\d+)"
    r"[\s-]+)*(?:seconds?|minutes?|hours?|days?|nights?|weeks?|weekends?|months?|years?|"
    r"decades?|ages)\s+of\s+\S",
    re.IGNORECASE,
)
# A time a sentence opens with, before who acted: "Yesterday (28 February 2026)", "Last night",
# "On Monday", "Earlier today", "Two days ago,", "After lunch". Its date, written after it by
# `_annotate`, goes with it. A number or an occasion tells a time only after a preposition.
_TIME_LEAD = r"(?:the|this|that|these|those|a|an|few|couple|of|every|each|all|whole|mid|end|start|"
_TIME_LEAD += rf"other|little|long|several|{'|'.join(NUMBERS)})[\s-]+"
_CLOCK = rf"(?:{'|'.join(sorted(_CLOCK_WORDS))})"
_ANY_TIME = rf"(?:{'|'.join(sorted(_TIME_WORDS))}|\d+(?:st|nd|rd|th)?)"
_LEADING_TIME = re.compile(
    rf"(?:(?P<prep>on|in|at|over|during|since|after|before|until|around|about|just)\s+"
    rf"(?:{_TIME_LEAD})*{_ANY_TIME}|(?:{_TIME_LEAD})*(?P<word>{_CLOCK}))"
    rf"(?:,?\s+(?:{_TIME_LEAD})*{_ANY_TIME})*(?:\s+back)?(?P<date>\s*\([^()]*\))?,?\s+(?=\S)",
    re.IGNORECASE,
)


def _after_time(text: str) -> str:
    """A clause without the time it opens with: "Yesterday (28 February 2026) Ben and Ana" ->
    Ben and Ana. A month or a season alone may be a name ("May and I"), and stays."""
    m = _LEADING_TIME.match(text)
    if m is None:
        return text
    said = m.group().strip(" ,")
    if m["date"] is None and said.lower() in (*MONTHS, *SEASONS) and said[0].isupper():
        return text
    return text[m.end() :]


# Words a subject with no article ("traffic", "disk usage", "rate limiting") is never made of:
# a time, a word that is or opens a subject of its own ("we", "the", "everyone"), or a manner
# ("as usual").
_NOT_IN_A_BARE_SUBJECT = (
    STOPWORDS
    | ADVERBS
    | _TIME_WORDS
    | word_set(
        """everyone everybody someone somebody anyone anybody nobody nothing something everything
        anything here usual well long far much many less several upon per though like not no
        yes once since as"""
    )
)
# One word of it, lowercase (a capitalised one is a name, read by `_SUBJ`): no past form
# ("as expected latency rose") and no adverb, but "supply" and "family" are nouns.
_BARE_WORD = (
    r"(?-i:(?:supply|family|assembly|anomaly|reply|monopoly)\b|"
    rf"(?!(?:{'|'.join(sorted(_NOT_IN_A_BARE_SUBJECT))})\b)[a-z][a-z-]*\b(?<![^e]ed)(?<!ly))"
)
# "traffic", "disk usage alerts", "rate limiting": up to three words, a gerund only as the last
# ("since starting therapy things improved" is a time).
_BARE_SUBJ = rf"(?:{_BARE_WORD}(?<!ing)\s+){{0,2}}{_BARE_WORD}"


@dataclass(frozen=True)
class _Cue:
    pattern: str
    relation: Relation
    direction: Literal["forward", "backward"]  # forward: the cause comes first
    # np: the effect is the noun phrase after the cue; clause: the words after the cue are a
    # predicate, so the effect is the whole local sentence; full: the words after are a clause;
    # sentence: like clause, through the end of the sentence (past ':' and ';').
    effect: Literal["np", "clause", "full", "sentence"]
    weight: float = EXPLICIT
    verb: bool = True  # a verb cue can be negated and needs a cause that is not just a person
    # The cause is a measure someone tried ("the restart did not fix it"): a decision, even
    # when told as a noun phrase ("the nightly restarts").
    tried: bool = False
    passive: bool = False  # "was caused by X": the cause is the noun phrase after "by"
    # People are the subject of "helped" or "prevented"; of "caused" or "led to", a name no one
    # here bears is more often a thing ("Kafka caused the outage").
    agentive: bool = True


# "by default", "by hand", "by 5 pm", "by Friday": how or when, not who or what did it.
_NOT_AGENT = (
    r"(?!\s+(?:default|hand|mistake|accident|design|chance|now|then|noon|midnight|tonight|"
    r"tomorrow|the\s+(?:time|end|way)|next|last|end|early|late|\d|(?:mon|tues|wednes|thurs|fri|"
    r"satur|sun)day)\b)"
)
_BEEN = (
    r"\b(?:(?:could|would|might|may|must|should)(?:\s+have|['’]ve)\s+been|(?:had|has|have)\s+been|was|"
    r"were|is|are|been|being|got)"
)

# "the root cause", "the main reasons", "one of the triggers"
_A_CAUSE = (
    r"(?:the|a|an|one\s+of\s+the)\s+(?:(?:root|main|real|underlying|primary|direct|likely|"
    r"probable|biggest|major|actual|true|key|ultimate|immediate|contributing)\s+)?"
    r"(?:cause|reason|trigger|culprit)s?"
)
_THE_CAUSE_OF = _A_CAUSE + r"\s+(?:of|for|behind)"
# A hedge before it: "was probably the root cause of"
_HEDGED = r"(?:likely|probably|possibly|perhaps|apparently|ultimately)"
# What a verb of doing acts on: "broke the login page", not "broke down", "fixed up" or "broke
# as a result".
_AN_OBJECT = (
    r"(?=\s+(?:the|a|an|our|their|its|his|her|my|your|this|that|these|those|every|all|both|it|"
    r"them|everything|(?-i:[A-Z])[\w.+#-]*|(?!(?:up|down|out|off|in|on|back|again|away|over|"
    r"apart|yesterday|today|tonight|tomorrow|now|then|last|next|early|late|too|so|very|for|with|"
    r"at|by|to|as|and|but|or|because|when|while|after|before|since|until|me|him|us|you|nothing|"
    r"anything|something|twice|once)\b)(?-i:[a-z])[\w-]*(?<!ly))\b)"
)
# ... nor an idiom: "broke the ice", "broke all the records", "broke my heart".
_NOT_BROKEN = (
    r"(?!\s+(?:[\w'’]+\s+){0,2}?(?:ice|news|records?|internet|bank|silence|rules?|spell|mou?ld|"
    r"hearts?|spirits?|promises?|habits?|streaks?|cycle|tie|piggy|leg|arm|wrist|ankle|nose)\b)"
)
# ... nor a time or an amount: "broke this morning", "broke all week", "slowed down a little".
_NOT_A_TIME = (
    r"(?!\s+(?:(?:this|that|every|each|last|next|all|the\s+other|the\s+next|a\s+few|a\s+"
    r"couple\s+of|several|many)\s+(?:\w+\s+)?(?:morning|afternoon|evening|night|day|week|weekend|"
    r"month|year|time|sprint|release)s?|a\s+(?:little|lot|bit|few\s+times)(?!\s+of))\b)"
)
# "The migration broke the login page": what the change did is the outcome, told whole.
_DID = _Cue(
    r"(?:(?:broke|breaks)" + _NOT_BROKEN + r"|fixed|fixes|resolved|resolves|solved|solves|"
    r"(?:slowed|slows|slow)\s+down|(?:sped|speeds|speed)\s+up|(?:took|takes|take)\s+down)"
    + _NOT_A_TIME
    + _AN_OBJECT,
    "caused",
    "forward",
    "clause",
)
# A verdict on something done: "a mistake", "a huge win", "the right call" (not "a big decision").
_A_VERDICT = (
    r"(?:(?:a|an|the|definitely|clearly|really|probably|honestly|such\s+a|in\s+hindsight)\s+)+"
    r"(?:(?:[\w-]+\s+)?(?:mistake|blunder|win|success|failure|disaster)|(?:\w+\s+)?"
    rf"(?:{'|'.join(GOOD_JUDGEMENTS + BAD_JUDGEMENTS)})\s+(?:{'|'.join(VERDICT_NOUNS)}))\b"
    r"(?!\s+to\b)"
)  # not "It was a mistake to trust the vendor": that "it" is what follows
# "Adding an index paid off: the query went from 2 s to 20 ms", "Switching to write-through was
# a mistake": a verdict on something done, whose outcome is the sentence as told. Only a doing
# is judged so (`_gate_passes`); "it paid off" is read as what was said before did.
_JUDGED = _Cue(
    r"(?:(?:really|definitely|clearly|ultimately|honestly|totally|probably|finally|eventually)\s+)?"
    r"(?:(?:paid|pays)\s+off|backfired|backfires|(?:was|has\s+been|turned\s+out\s+to\s+be|proved\s+"
    r"to\s+be|ended\s+up\s+being)\s+" + _A_VERDICT + ")",
    "caused",
    "forward",
    "sentence",
    verb=False,
)
# "The outage stemmed from a bad push"; "did not stem from", "may have stemmed from"
_STEMMED = _Cue(
    r"(?:stemmed|stems|stem|stemming)\s+from", "caused", "backward", "full", agentive=False
)
# ... but "the tradition stems from the 1800s" tells when, not why
_A_TIME_AGO = re.compile(
    r"\s*(?:the\s+)?(?:\d{2,4}s\b|\d{4}\b(?!\s+[a-z])|(?:early|late|mid)[\s-]+\d|\w+\s+century|"
    r"ancient|medieval|latin|greek)\b",
    re.IGNORECASE,
)
# "The outage was traced back to a missing index": a cause only of something that went wrong
# (a call is traced to a payphone, a family tree to the 1600s).
_TRACED = _Cue(
    r"(?:(?:has|have|had)\s+been|was|were|is|are)\s+(?:\w+ly\s+)?traced\s+(?:back\s+)?to",
    "caused",
    "backward",
    "full",
    verb=False,
    agentive=False,
)
# "The limiter prevented the clients from overloading the API": what did not happen is "the
# clients overloading the API", as "the outage" is in "prevented the outage".
_PREVENTED_FROM = _Cue(
    r"(?:prevented|prevents|prevent|blocked|blocks)(?=\s+(?:\w+\s+){1,4}?from\s+\w+ing)",
    "prevented",
    "forward",
    "np",
)

# "Disk usage alerts would have caught it earlier": what was missing would have stopped it
# sooner; only as what would have been (an alert that caught the outage prevented nothing).
_CAUGHT = _Cue(
    r"(?:(?<=\bhave\s)|(?<=['’]ve\s))(?:caught|detected|spotted|flagged)",
    "prevented",
    "forward",
    "np",
)
# ... and when: what was caught is "it", not "it earlier"
_SOONER = re.compile(
    r"\s+(?:(?:much|a\s+lot|way|far)\s+)?(?:earlier|sooner|faster|quicker|in\s+time|right\s+away|"
    r"immediately|before\s+.+)$",
    re.IGNORECASE,
)

# A verb in the simple past: "raised", "ran", "broke"
_SIMPLE_PAST = r"(?:\w+ed|" + "|".join(sorted(IRREGULAR_PAST)) + ")"

# "The pool ran dry after we raised the limit", "… after traffic doubled": told in order, so
# only weakly a cause
_AFTER = _Cue(
    rf"after(?=\s+(?:{_SUBJ}(?:\s+(?!because|so|and|but|which)\w+){{0,2}}?|{_BARE_SUBJ})\s+{_SIMPLE_PAST}\b)",
    "caused",
    "backward",
    "full",
    WEAK,
    False,
)
# "Checkout broke because the deploy shipped a bad config"
_BECAUSE = _Cue(
    r"(?<!\bnot\s)\b(?:(?:all|partly|mostly|mainly|largely|simply|only|just)\s+)?(?:because|"
    r"['’]cause|cuz|coz)(?:\s+of)?|(?:due|owing)\s+to|as\s+a\s+(?:result|consequence)\s+of",
    "caused",
    "backward",
    "full",
    verb=False,
)
# Verbs a note tells its reader to do: "(After the deploy,) check the dashboard".
_INSTRUCTION_VERBS = word_set(
    """see check run rerun follow note read make ensure verify confirm restart reboot call ping
    page open go use try add remove update ask wait look refer consult contact review revert
    roll file create set tell remember avoid start stop watch monitor test bump raise lower clear
    delete drop send post write let expect escalate notify email rotate redeploy deploy scale
    disable enable flush purge kill retry reset reopen close merge announce document double"""
)
# Where a subject that opens a clause would have ended before its verb: "check the dashboard",
# "note that …", "make sure …", not "test runs failed".
_NO_SUBJECT_ON = word_set(
    """the a an this that these those my your our their his her its some any all every each no
    to in on at for with from of by into about it them him me us if whether when where what why
    how which who once before after until because so and but or then sure"""
)
_FINITE = word_set(
    "is are was were has have had will would can could should may might must do does did am"
)
_TO_THE_READER = word_set("please then just also first now")


def _is_instruction(clause: str) -> bool:
    """'Check the dashboard', 'please see [[runbook]]', 'don't touch it': a bare verb opens the
    clause, with no subject, so it tells the reader what to do and is no event. 'Test runs
    failed' opens on its subject."""
    words = re.findall(r"[a-z]+(?:['’][a-z]+)?", clause.lower())
    while words and words[0] in _TO_THE_READER:
        words = words[1:]
    if words[:1] in (["don't"], ["don’t"]) or words[:2] == ["do", "not"]:
        return True
    if words[:1] == ["never"]:
        words = words[1:]
    if not words or words[0] not in _INSTRUCTION_VERBS:
        return False
    for word in words[1:]:
        if word in _NO_SUBJECT_ON:
            return True
        if is_past(word) or word in _FINITE:
            return False
    return True


# "Since the cache was cold", "as the disk filled up", "once we added the index": a cue that
# opens a clause, a subject and its verb, tells why; before a time ("since Monday"), a manner
# ("as expected") or how often ("once a week") it tells none.
_PAST_VERB = rf"(?:{_SIMPLE_PAST}|(?:did|was|were|had|could)n['’]t)"
# What someone said or knew: "as I said", "as we feared", "as it turned out" (an aside).
_SAYING = (
    r"(?:said|mentioned|discussed|noted|expected|suspected|feared|predicted|planned|promised|"
    r"agreed|thought|guessed|knew|told|explained|suggested|requested|asked|described|reported|"
    r"warned|hoped|wanted|intended|advertised|documented|pointed|saw|learned|learnt|noticed|"
    r"figured|imagined|assumed|announced|proposed|recommended|designed|wrote|showed|shown|put|"
    r"turned|instructed|specified)\b"
)


def _opens_a_clause(verb: str, between: str = "") -> str:
    """A subject, up to three words, then `verb`; no clause of its own ("when …") in between.
    A subject with no article ("as traffic grew") is followed by its verb right away."""
    words = rf"(?:\s+(?!(?:because|so|but|which|when|while|where{between})\b)[\w'’]+){{0,3}}?"
    return rf"(?=\s+(?:{_SUBJ}{words}|{_BARE_SUBJ})\s+{verb}\b)"


_SINCE = _Cue(
    r"\b(?<!\bever\s)since"
    + _opens_a_clause(rf"(?:{_PAST_VERB}|is|are|has|have|(?:is|are|does|do|can)n['’]t)"),
    "caused",
    "backward",
    "full",
    WEAK + 0.1,
    False,
)
# Not a role ("as a kid"), an aside ("as I said"), nor what went on meanwhile ("as we were
# leaving"); comparisons ("as fast as the reads were") are read before it (`_gate_passes`).
_AS = _Cue(
    r"\bas(?!\s+(?:a|an)\b|\s+it\s+were\b)"
    + _opens_a_clause(rf"(?!{_SAYING}|(?:was|were)\s+\w+ing\b){_PAST_VERB}", "|" + _SAYING),
    "caused",
    "backward",
    "full",
    WEAK,
    False,
)
# After a choice, "as" opening a clause with an object or a complement is its reason ("We
# picked Redis as the team already knew it", "We went with Go as it compiles fast"); a choice
# is asked for in `_gate_passes`. Told with no object it is an aside ("… as we planned"), and
# a word ending in "s" is a verb only before what is not one ("as Ana and others planned").
_AS_CHOSEN = _Cue(
    r"\bas(?!\s+(?:a|an)\b|\s+it\s+were\b)"
    + _opens_a_clause(
        rf"(?:{_PAST_VERB}|(?:is|are|does|do|can)(?:n['’]t)?|\w+s)"
        rf"(?=\s+(?!(?:out|up|before|earlier|then|so|{_PAST_VERB})\b)[\w'’])"
    ),
    "caused",
    "backward",
    "full",
    WEAK,
    False,
)
_ONCE = _Cue(
    r"\b(?<!\bat\s)(?<!\bfor\s)(?<!\bthan\s)once(?!\s+(?:a|an)\b)" + _opens_a_clause(_PAST_VERB),
    "enabled",
    "backward",
    "full",
    WEAK,
    False,
)
_CLAUSE_CUES = {"since": _SINCE, "as": _AS, "once": _ONCE}
# "Since the cache was cold, latency spiked": the clause opened comes first (its verb is checked
# by the cue's own pattern).
_CLAUSE_LEAD = re.compile(
    r"^(?P<cue>since|as|once)\s+(?P<x>[^,;]{2,200}?),\s*(?P<y>\S.*)$", re.IGNORECASE
)
# Participles not spelt as a past tense ("how far I've come since …")
_PARTICIPLES = word_set(
    """come become run grown gotten begun fallen risen driven flown eaten forgotten hidden ridden
    spoken stolen chosen frozen torn worn woken"""
)
# A span up to now ("errors have dropped since …", "a lot's happened since …", "(it's) been a
# while since …"): since when.
_PERFECT = re.compile(
    rf"\b(?:(?:has|have|had)(?:n['’]t)?|['’]ve|['’]d|['’]s)\s+(?:(?:not|never|\w+ly|also|just|"
    rf"still)\s+)*?(?:\w+ed|{'|'.join(sorted(IRREGULAR_PAST | _PARTICIPLES))})\b|\bbeen\b",
    re.IGNORECASE,
)
# "It was two years since …", "the worst outage since …": how long, or how it ranks, since when.
_SINCE_WHEN = re.compile(
    r"(?:^(?:it|that|this)\s+(?:was|is)\s+(?:[\w-]+\s+){0,2}(?:years?|months?|weeks?|days?|hours?|"
    r"minutes?|decades?|while|ages|forever|time)|\b(?:first|last|best|worst|biggest|longest|most|"
    r"only)(?:\s+[\w'’-]+){0,2}|\b(?:passed|elapsed))$",
    re.IGNORECASE,
)
# "Since I was a kid", "since we (last) talked": an age, or the last time people talked
_SINCE_YOUNG = re.compile(
    r"^\S+(?:\s+and\s+others)?\s+(?:(?:was|were)\s+(?:(?:a|an)\s+)?(?:kid|child|baby|boy|girl|"
    r"teen|teenager|little|young|small|born|student|in\s+(?:high\s+)?school|in\s+college)|"
    r"(?:last\s+)?(?:talked|spoke|chatted|met|caught\s+up|hung\s+out|saw\s+each\s+other)|"
    r"last\s+\w+)\b",
    re.IGNORECASE,
)
# "I'll let you know once I'm done": a plan, told in order, not what came of it
_FUTURE = re.compile(r"\b(?:will|would|shall|going\s+to|gonna)\b|['’]ll\b", re.IGNORECASE)
# "as fast as …", "the same time as …", "such as …", "as well as …": a comparison or a list
_COMPARED = re.compile(
    r"(?:\b(?:as|same|such|twice|half)\s+(?:[\w'’-]+\s+){0,2}|\b(?:well|just|soon|long|far|much|"
    r"many|more|less)\s+)$",
    re.IGNORECASE,
)


def _clause_cue_holds(cue: _Cue, cause: str, effect: str) -> bool:
    """Whether 'since', 'as' or 'once' before `cause` tells why `effect` happened: the effect
    is a clause that says what happened, not what to do ("check the dashboard"); after 'as' or
    'once' not what will be done then ("I'll tell you once I'm done"); after 'since' no span up
    to now ("errors have dropped"), no span of time ("it was a while"), no age ("since I was a
    kid") and not the last time people talked."""
    words = re.findall(r"[a-z]+(?:['’][a-z]+)?", effect.lower())
    if _is_instruction(effect) or not any(is_past(w) or w in _FINITE for w in words[1:]):
        return False
    if cue is not _SINCE:
        return not _FUTURE.search(effect)
    return not (_PERFECT.search(effect) or _SINCE_WHEN.search(effect) or _SINCE_YOUNG.match(cause))


# "We should add a breaker so that on-call can sleep": a purpose, whose cause is often a plan
_SO_THAT = _Cue(
    r"so\s+that(?=(?:\s+\w+){1,4}?\s+(?:can|could|would|will|might)\b)",
    "enabled",
    "forward",
    "full",
    WEAK + 0.1,
    False,
)

# "X, which meant (that) the pool ran dry", "That meant we missed the train": what a thing
# meant is a clause that came of it, its subject bare or not ("Using SQLite meant onboarding
# took minutes"); not "it meant a lot", nor what someone meant to say
# ("By Tuesday I meant that the deploy was postponed": `_MEANT_BY_SOMEONE`)
_MEANT = _Cue(
    rf"meant(?:\s+that)?(?=\s+(?:{_SUBJ}(?:\s+[\w'’-]+){{0,3}}?|{_BARE_SUBJ})\s+"
    rf"(?:{_SIMPLE_PAST}|\w+n['’]t|is|was|are|were|had|has|have|would|could|can|will|must)\b)",
    "caused",
    "forward",
    "full",
)
# Who is right before "meant" (a speaker's "I" and "we" read as "Ana", "Ana and others")
_MEANT_BY_SOMEONE = re.compile(
    r"(?:\b(?i:i|we|you|he|she|they)|\b(?P<name>(?-i:[A-Z])[\w'’-]*)(?:\s+and\s+others)?)"
    r"(?:\s+(?i:just|only|really|actually|simply|also))?$"
)

# ", which fixed it": the relative clause says what the main clause brought about
_WHICH_DID = _Cue(
    rf"(?<=,)\s*which(?=\s+(?:\w+ly\s+)?(?!was\b|were\b|had\b|is\b){_SIMPLE_PAST}\b)",
    "caused",
    "forward",
    "clause",
    WEAK + 0.1,
    False,
)

_CUES = [
    # "The outage was caused by the backup job": the effect first, its cause after "by".
    _Cue(
        _BEEN
        + r"\s+(?:not|never)\s+(?:caused|triggered|prevented|averted|enabled)\s+by"
        + _NOT_AGENT
        + r"|\b(?:(?:was|were|is|are)n['’]t|(?:had|has|have)(?:\s+(?:not|never)|n['’]t)\s+been)"
        r"\s+(?:caused|triggered|prevented|averted|enabled)\s+by" + _NOT_AGENT,
        "no_effect",
        "backward",
        "full",
        verb=False,
        passive=True,
    ),
    _Cue(
        _BEEN + r"\s+(?:\w+ly\s+)?(?:caused|triggered|brought\s+about)\s+by" + _NOT_AGENT,
        "caused",
        "backward",
        "full",
        verb=False,
        passive=True,
        agentive=False,
    ),
    _Cue(
        _BEEN + r"\s+(?:\w+ly\s+)?(?:prevented|averted|avoided)\s+by" + _NOT_AGENT,
        "prevented",
        "backward",
        "full",
        verb=False,
        passive=True,
    ),
    # "That would have been caught by a canary deploy": as "would have caught it", only what
    # would have been (the canary that caught the bug prevented nothing).
    _Cue(
        r"\b(?:could|would|might)(?:\s+have|['’]ve)\s+been\s+(?:(?:\w+ly|earlier|sooner)\s+)?"
        r"(?:caught|detected|spotted|flagged|stopped)\s+(?:(?:earlier|sooner|in\s+time)\s+)?by"
        + _NOT_AGENT,
        "prevented",
        "backward",
        "full",
        verb=False,
        passive=True,
    ),
    _Cue(
        _BEEN + r"\s+(?:\w+ly\s+)?enabled\s+by" + _NOT_AGENT,
        "enabled",
        "backward",
        "full",
        verb=False,
        passive=True,
    ),
    # "The retry storm was (not) the root cause of the outage"
    _Cue(
        rf"(?:(?:was|were|is|are)\s+not|(?:was|were|is|are)n['’]t)\s+{_THE_CAUSE_OF}",
        "no_effect",
        "forward",
        "np",
        verb=False,
        agentive=False,
    ),
    _Cue(
        rf"(?:(?:was|were|is|are)(?:\s+also)?|turned\s+out\s+to\s+be)\s+{_THE_CAUSE_OF}",
        "caused",
        "forward",
        "np",
        verb=False,
        agentive=False,
    ),
    _Cue(
        rf"(?:(?:was|were|is|are)\s+{_HEDGED}|(?:may|might|could|must)\s+(?:have\s+been|be))\s+"
        rf"{_THE_CAUSE_OF}",
        "caused",
        "forward",
        "np",
        EXPLICIT * HYPOTHETICAL,
        verb=False,
        agentive=False,
    ),
    _STEMMED,
    _TRACED,
    _Cue(r"(?:caused|causes|(?<!['’])cause|causing)", "caused", "forward", "np", agentive=False),
    _Cue(r"(?:led|leads|lead|leading)\s+to", "caused", "forward", "np", agentive=False),
    _Cue(r"(?:resulted|results|result|resulting)\s+in", "caused", "forward", "np", agentive=False),
    _Cue(r"(?:triggered|triggers|trigger|triggering)", "caused", "forward", "np", agentive=False),
    _Cue(r"(?:brought|brings|bring)\s+about", "caused", "forward", "np", agentive=False),
    _MEANT,
    _Cue(r"(?:gave|gives|give)\s+rise\s+to", "caused", "forward", "np", agentive=False),
    _Cue(r"(?:contributed|contributes|contribute)\s+to", "caused", "forward", "np", agentive=False),
    _PREVENTED_FROM,
    _Cue(r"(?:prevented|prevents|prevent|preventing)", "prevented", "forward", "np"),
    _Cue(r"(?:averted|averts|avert|avoided|avoids|avoid)", "prevented", "forward", "np"),
    _CAUGHT,
    _Cue(
        r"(?:saved|saves|save|spared|spares)\s+(?:\w+\s+){0,3}?from", "prevented", "forward", "np"
    ),
    _Cue(
        r"(?:protected|protects)\s+(?:\w+\s+){0,3}?(?:from|against)", "prevented", "forward", "np"
    ),
    _Cue(
        r"(?:stopped|stops|kept|keeps)(?=\s+(?:\w+\s+){1,4}?from\s+\w+ing)",
        "prevented",
        "forward",
        "clause",
    ),
    # "stopped the stampede before it started"; not "stopped working" (ceased)
    _Cue(r"(?:stopped|stops|stop)(?!\s+\w+ing\b)", "prevented", "forward", "np"),
    _DID,
    _JUDGED,
    _Cue(r"(?:enabled|enables|enable)", "enabled", "forward", "np"),
    _Cue(r"made\s+(?:it\s+)?possible(?:\s+for)?", "enabled", "forward", "np"),
    _Cue(r"paved\s+the\s+way\s+for", "enabled", "forward", "np"),
    # "helped Caroline relax", "allowed Ana and others to ship": someone, and what they could do
    _Cue(
        r"(?:allowed|allows|allow|helped|helps|help)(?=\s+(?:(?-i:[A-Z])\w*(?:\s+and\s+"
        r"others)?|him|her|them|it|people|everyone)\s+(?:to\s+)?[a-z]+)",
        "enabled",
        "forward",
        "clause",
    ),
    # "The restart did not fix it after all: the pool ran dry again": the fix failed, and what
    # happened next (after the colon) is its outcome
    _Cue(
        r"(?:did\s+not|didn't|never)\s+(?:really\s+)?(?:fix|solve|resolve)\s+(?:it|this|that|"
        r"the\s+(?:problem|issue))|(?:did\s+not|didn't)\s+(?:hold\s+up|last|stick)|"
        r"(?:was|were)(?:\s+not|n't)\s+(?:a\s+)?(?:real|lasting|proper)\s+fix",
        "caused",
        "forward",
        "sentence",
        verb=False,
        tried=True,
    ),
    # "It didn't help.": what was tried changed nothing
    _Cue(
        r"(?:didn't|did\s+not|doesn't|does\s+not|never)\s+(?:really\s+)?(?:help|work|matter|"
        r"change\s+(?:anything|much|a\s+thing)|make\s+(?:a|any|much\s+of\s+a)\s+difference)",
        "no_effect",
        "forward",
        "clause",
        verb=False,
        tried=True,
    ),
    _Cue(
        r"(?:had|has|have)\s+no\s+(?:real\s+)?(?:effect|impact)(?:\s+on)?",
        "no_effect",
        "forward",
        "np",
    ),
    _Cue(
        r"(?:made|makes|make)\s+no\s+(?:real\s+)?difference(?:\s+(?:to|for))?",
        "no_effect",
        "forward",
        "np",
    ),
    _WHICH_DID,
    # "X, and because of that Y", "X, thanks to which Y": what the pronoun stands for, the
    # clause before, is the cause
    _Cue(
        r"(?:,|;|[—–]|\s-)\s*(?:and\s+|so\s+)?(?:because\s+of|(?:due|owing)\s+to|as\s+a\s+"
        r"(?:direct\s+)?(?:result|consequence)\s+of)\s+(?:which|(?:this|that|it)"
        rf"(?=\s*,|\s+{_SUBJ}))",
        "caused",
        "forward",
        "full",
        verb=False,
    ),
    _Cue(
        rf"(?:,|;|[—–]|\s-)\s*(?:and\s+)?thanks\s+to\s+(?:which|(?:this|that|it)(?=\s*,|\s+{_SUBJ}))",
        "enabled",
        "forward",
        "full",
        verb=False,
    ),
    _BECAUSE,
    _Cue(r"thanks\s+to", "enabled", "backward", "full", verb=False),
    _AFTER,
    _SINCE,
    _AS,
    _AS_CHOSEN,
    _ONCE,
    # ", so onboarding took minutes": a past tense of any form; "so as a result", "so therefore"
    # are read whole by the cue after
    _Cue(
        r"(?:,|;|\band)\s*so(?!\s+(?:that|therefore|thus|hence|consequently|as\s+a)\b)"
        rf"(?=\s+(?:{_SUBJ}|(?:\w+\s+){{0,5}}?(?:{_SIMPLE_PAST}|is|was|are|were|has|had|will|"
        r"would|can|could)\b))",
        "caused",
        "forward",
        "full",
        WEAK + 0.1,
        False,
    ),
    _SO_THAT,
    _Cue(
        r"(?:,|;|[—–]|\s-)\s*(?:and\s+|so\s+)?(?:therefore|thus|hence|consequently|as\s+a\s+"
        r"(?:direct\s+)?(?:result|consequence)|with\s+the\s+result\s+that)\b,?",
        "caused",
        "forward",
        "full",
        verb=False,
    ),
    # "X, thereby exhausting the connections": what X did, told as a gerund
    _Cue(r"(?:,|;)\s*thereby(?=\s+\w+ing\b)", "caused", "forward", "full", verb=False),
    _Cue(
        r"(?:(?:,|;)?\s*(?:which|and\s+(?:so\s+)?(?:that|this))|(?:,|;|[—–]|\s-)\s*(?:so\s+)?"
        r"(?:that|this))(?:\s+is|\s+was|['’]s)\s+(?:exactly\s+|precisely\s+|partly\s+|also\s+)?"
        r"why",
        "caused",
        "forward",
        "full",
        verb=False,
    ),
    _Cue(r"(?:,|;)\s*(?:or\s+)?otherwise,?", "prevented", "forward", "full", WEAK + 0.1, False),
]
_STARTS_WITH_WORD = re.compile(r"\(\?:[a-z]|[a-z]")


def _cue_group(i: int, cue: _Cue) -> str:
    word_start = r"\b" if _STARTS_WITH_WORD.match(cue.pattern) else ""
    return rf"(?P<c{i}>{word_start}{cue.pattern})\b"


# One pass finds every cue (group c<i> is _CUES[i]); negation and auxiliaries before a verb cue
# are read backwards from it.
_CUE_RE = re.compile("|".join(_cue_group(i, c) for i, c in enumerate(_CUES)), re.IGNORECASE)
# A sentence holding none of these words has no cue: the cue pattern is not run on it.
_CUE_WORDS = word_set(
    """caused causes cause causing led leads lead leading resulted results result resulting
    triggered triggers trigger triggering brought brings bring gave gives give contributed
    contributes contribute prevented prevents prevent preventing averted averts avert avoided
    avoids avoid saved saves save spared spares protected protects stopped stops kept keeps
    enabled enables enable made makes make possible paved allowed allows allow helped helps help
    didn did doesn does never had has have which because cuz coz due owing as thanks after so
    therefore thus thereby hence consequently otherwise why meant fix solve resolve hold last
    stick real work matter difference effect impact stop reason reasons culprit culprits causes
    triggers stemmed stems stem stemming traced blocked blocks broke breaks fixed fixes resolved
    resolves solved solves slowed slows slow sped speeds speed took takes take paid pays backfired
    backfires mistake call choice decision move blunder bet win success failure disaster idea
    approach since once caught detected spotted flagged"""
)
_BEFORE_VERB_CUE = re.compile(
    rf"(?P<neg>\b{_NEG}\s+(?:\w+\s+)?)?(?P<aux>\b{_AUX}{{0,2}})?$", re.IGNORECASE
)
# Sentence openers: "Because X, Y" (X is given) and "As a result, Y" (X was said before).
_LEAD_CLAUSE = re.compile(
    r"^(?P<cue>because(?:\s+of)?|(?:due|owing)\s+to|as\s+a\s+(?:result|consequence)\s+of|"
    r"thanks\s+to|after|without)\s+(?P<x>[^,;]{2,200}?),\s*(?P<y>\S.*)$",
    re.IGNORECASE,
)
_WEAK_LEADS = frozenset({"after", "without"})
# "The root cause of the outage was X", "What caused the outage was X"; "The root cause was X"
# is of what was just told.
_ROOT_CAUSE = re.compile(
    rf"^(?:(?:{_A_CAUSE}|(?:root\s+)?causes?|rca)(?:\s+(?:of|for|behind)\s+"
    r"(?P<y>[^,;:]{2,200}?))?|what\s+(?:really\s+|actually\s+)?(?:caused|triggered|led\s+to)"
    r"\s+(?P<y2>[^,;:]{2,200}?))(?:\s+(?P<hedge>(?:was|were|is|are)(?:n['’]t)?|turned\s+out\s+to\s+be|"
    r"seems\s+to\s+(?:be|have\s+been)|(?:must|may|might|could)\s+(?:be|have\s+been))[\s:]+|"
    r"\s*:\s*)(?P<x>\S.*)$",
    re.IGNORECASE,
)
# What "the root cause was …" names must be a thing or an event ("a bad deploy", "Kafka",
# "running out of disk", "that the disk filled up"), not how it was ("fixed yesterday",
# "complicated", "found by Priya", "unknown").
_NAMES_A_CAUSE = re.compile(
    rf"(?:not\s+|{_HEDGED}\s+)?(?:that\s+)?(?:(?:a|an|the|our|their|his|her|my|your|its|this|"
    r"these|those|some|one|two|three|several|many|too\s+many|no)\s+\S|(?-i:[A-Z])|"
    r"(?!being\b|confusing\b|embarrassing\b|frustrating\b|annoying\b|surprising\b|"
    r"interesting\b|puzzling\b|worrying\b|amazing\b)\w+ing\s+\w)",
    re.IGNORECASE,
)
# Where the cause named after "the root cause was" ends: "a bad deploy, which …", "…; we …"
_AFTER_THE_CAUSE = re.compile(
    r"\s*(?:;|(?<!\d):(?!\d)|,\s*(?:and|but|which|so|then)\b|\s[-—–]\s|,\s*(?:it|we|i|they)\s|"
    r"\s+and\s+what\b)",
    re.IGNORECASE,
)
_SURE = frozenset({"was", "were", "is", "are", "turned"})  # "turned out to be" is no hedge
# A heading written in Markdown: "- **Root cause**: …"
_MARKUP = re.compile(r"^(?:[-*•]\s+)?|\*\*|__|\*(?=:)|(?<=:)\*|^\*(?=\w)")
_NOT_KNOWN = re.compile(
    r"(?:still\s+|yet\s+)?(?:unclear|unknown|a\s+mystery|a\s+secret|the\s+same|something|"
    r"a\s+long\s+(?:story|one)|tbd|n/a|none|nothing)\b|^\S+\s+(?:is|are)\s+(?:looking|checking|"
    r"investigating|working|digging)\b",
    re.I,
)
_LEAD_ALONE = re.compile(
    r"^(?:(?P<so>so)|(?P<other>otherwise)|(?:as\s+a\s+(?:result|consequence)|"
    r"consequently|therefore|thus|hence|(?:that|this|which)(?:'s|\s+is|\s+was)\s+(?:why|how)|"
    r"and\s+so))\b,?\s*(?P<y>\S.*)$",
    re.IGNORECASE,
)
# "We raised the pool size and the database ran out of connections as a result": the clause
# after the last "and" is the effect of the one before it (or, with no "and", of what was said
# before).
_RESULT_LAST = re.compile(
    r"^(?P<y>\S.*?(?<!\bnot)(?<!\bnever)(?<!n['’]t)),?\s+as\s+a\s+(?:direct\s+)?(?:result|"
    r"consequence)(?:\s+of\s+(?:this|that|it))?[.!]*$",
    re.IGNORECASE,
)
# "We deployed without a canary and the outage followed", "Then an outage followed": what was
# done (here, or just before) led to the failure after it; only a weak cue, and not "followed
# by", "I followed my dreams" or "a movie followed".
_FOLLOWED_LAST = re.compile(
    r"^(?:(?P<x>\S.*?),?\s+and\s+|then,?\s+)?(?:then\s+)?(?P<y>(?:the|an?)\s+[^\W\d_]+"
    r"(?:[\s-]+[^\W\d_]+){0,3}?)\s+(?:soon\s+|quickly\s+|shortly\s+)?followed[.!]*$",
    re.IGNORECASE,
)
# "Checkout broke after the deploy": what went wrong, told after a thing done, named by its
# noun ("the deploy", "our migration"); only weakly a cause, as "and the outage followed".
_AFTER_THE_DOING = re.compile(
    r"^(?P<y>\S.*?)\s+(?:right\s+|just\s+|shortly\s+|soon\s+)?after\s+(?:the|that|this|our|"
    r"their|your|my)\s+(?P<x>(?:[\w-]+\s+){0,2}?(?P<head>[a-z][\w-]*))[.!]*$",
    re.IGNORECASE,
)
# ... the clause after the last "and" opening with its subject: "the database ran out", or one
# with no article that did something ("checkout broke"; not "Ana and others got", one subject).
_AND_THEN_A_CLAUSE = re.compile(
    rf",?\s+and\s+(?:then\s+)?(?={_SUBJ}\s|(?!others\b){_BARE_SUBJ}\s+{_SIMPLE_PAST}\b)",
    re.IGNORECASE,
)
# A cause told as what may or will be ("We might raise the pool size, and as a result …"): a
# supposed link, not one seen.
_SUPPOSED = re.compile(r"\b(?:might|may|will|would|should|shall)\b|['’]ll\b")
_LEAD_RELATION = {
    "because": "caused", "because of": "caused", "due to": "caused",
    "owing to": "caused", "as a result of": "caused", "as a consequence of": "caused",
    "thanks to": "enabled", "after": "caused",
}  # fmt: skip
# What "that" can be when it stands for something said before.
_ANAPHORS = frozenset(
    {
        "that", "this", "it", "which", "these", "those", "doing that", "doing this", "doing so",
        "all that", "all this", "that one", "this one",
        "that's what", "that is what", "this is what", "it's what", "what",
        *(f"{the} {thing}" for the in ("the", "that", "this") for thing in DOINGS),
        *(f"{the} {work}" for the in ("that", "this") for work in WORKS),
    }
)  # fmt: skip
_COUNTERFACTUAL = re.compile(
    r"\b(?:would|could|might)(?:n['’]t|\s+not)?(?:\s+have|\s*['’]ve)\b|\b\w+['’]d\s+have\b",
    re.IGNORECASE,
)
_NEGATED_COUNTERFACTUAL = re.compile(
    r"\b(?:would|could|might)(?:n['’]t|\s+not)(?:\s+have|\s*['’]ve)\b|\bnever\b", re.IGNORECASE
)
# "If we had had a disk usage alert, the outage would not have happened": the outage happened
# for want of the alert, which would have prevented it.
_HAD_IT = re.compile(
    r"^if\s+(?:there\s+(?:had|['’]d)\s+been|(?:[\w'’]+\s+){1,4}?(?:had|['’]d)\s+had)\s+"
    r"(?P<x>(?:a|an|the|any|some)\s+[^,;]{2,120}?),\s*(?:then\s+)?(?P<y>[^,;]{2,200}?)\s+"
    r"(?:would|could|might)(?:n['’]t|\s+not|\s+never)\s+have\s+(?P<v>[^,;]*?)[.!]*$",
    re.IGNORECASE,
)
_JUST_HAPPENED = re.compile(r"(?:happened|occurred|taken\s+place)", re.IGNORECASE)
# A measure as a thing ("A disk usage alert") or as a doing ("Running a canary"): what was
# missing when it would have prevented something.
_A_MEASURE = re.compile(
    r"^(?:(?:a|an|the|any|some)\s+(?P<thing>\w.*)|(?P<doing>[a-z]+ing\s+\w.*))$", re.I
)
# "Without a disk usage alert, the outage went unnoticed for an hour" / "The outage went
# unnoticed without a disk usage alert": the alert was missing, and its lack let that happen.
_WITHOUT_LAST = re.compile(
    r"^(?P<y>\S[^,;]*?),?\s+without\s+(?P<x>[^,;]{2,80}?)[.!]*$", re.IGNORECASE
)
_MISSING = re.compile(
    rf"(?:(?:a|an|any|the|some|proper|enough)\s+)?(?P<thing>{_BARE_SUBJ})", re.IGNORECASE
)
# ... but not a manner ("without warning", "without a hitch", "without delay") nor a person
# ("without the kids"), whose absence lets nothing happen
_MANNERS = word_set(
    """warning warnings doubt doubts delay delays question questions hesitation fail notice word
    words hitch hitches trace fight fuss problem problems issue issues incident incidents error
    errors success luck end permission break breaks pause stop complaint complaints exception
    exceptions thinking asking saying telling looking knowing realizing realising stopping"""
)


def _a_measure(x: str) -> bool:
    """Whether what something went without is a measure ("a disk usage alert", "tests"), not a
    manner or a person ("warning", "the kids")."""
    thing = _MISSING.fullmatch(x)
    if thing is None:
        return False
    head = thing["thing"].split()[-1]
    return not (head in _MANNERS or re.fullmatch(rf"(?:{_REL_NOUN}|{_ROLE_NOUN}|children)s?", head))


_EDGE_WORDS = re.compile(
    r"^(?:(?:and|but|then|which|also|and\s+then|or)\b[\s,]*)+|"
    r"(?:[\s,]+\b(?:and|but|which|that|so|or|since))+$",
    re.IGNORECASE,
)
# A verb cue after these is a noun ("for the cause", "a good result") or an infinitive of purpose
# ("things to help her"): no causal claim.
_NOT_A_CLAIM_BEFORE = word_set("the a an my your his her our their its good great no any to shared")
# ... and so is one followed by these ("a shared cause must have been ...", and "caused by",
# which the passive cues read, the cause after "by").
_NOT_A_CLAIM_AFTER = word_set("must is was are were like and or has have by of for")
# A verb of doing after these is an adjective ("one fixed TTL") or passive ("was fixed the next
# day"): who or what did it is not said.
_NOT_DID_BEFORE = word_set(
    """one two three four five some every each no any its their our was were is are be been
    being get gets got getting"""
)
_WHEN_CLAUSE = re.compile(
    r"^(?:when|once|while|as\s+soon\s+as)\s+(?P<x>[^,;]{3,200}),\s*\S", re.IGNORECASE
)
# "When I was a kid, my dad helped me": the time, not who or what acted
_TIME_CLAUSE = re.compile(
    r"^(?:when|once|while|as\s+soon\s+as|after|before|since)\b[^,]{2,120},\s*(?=\w)",
    re.IGNORECASE,
)
# "Priya said (that) the migration …": who told it is not the cause
_REPORTED = re.compile(
    r"^(?!(?:You|We|They|Nobody|No\s+one|None|Nothing)\b)(?:[A-Z]\w+(?:\s+and\s+others)?|"
    r"he|she|someone|everyone)\s+(?:said|says|told\s+"
    r"\w+(?:\s+and\s+others)?|tells\s+\w+|mentioned|reported|noted|explained|wrote)\s+"
    r"(?:that\s+)?(?=\w)"
)
# "Melanie's talk", not "that's" or "it's"
_POSSESSIVE = (
    r"(?i)\b(?!(?:that|it|what|there|here|he|she|who|let|how|where)['’]s)\w+['’]s\s+\w"
    r"|\band\s+others['’]\s+\w"  # "our talk", as rewritten
)
# Between two verbs of one subject: "fixed the leak but slowed down the startup"
_CONJOINED = re.compile(r"[\s,]*(?:and|but|yet|then|and\s+then|but\s+also)\s*", re.IGNORECASE)
# "If the migration breaks the login page, …": a condition, not a claim
_CONDITION = re.compile(r"(?:if|unless|whenever|in\s+case)\b", re.IGNORECASE)
# ... and so, before any cue, "(we don't know) if X", "whether X", "neither X nor Y"
_NO_CLAIM_SUBJECT = re.compile(
    r"^(?:if|unless|whether|whenever)\s|\b(?:know|sure|ask|asked|wonder|wondering|unclear|check)"
    r"\s+(?:if|whether)\s|^(?:neither|none\s+of)\b|\b(?:do|does|did)(?:n['’]t|\s+not)\s+(?:think|"
    r"believe|know)\b|^(?:nobody|no\s+one)\s+(?:thinks|believes|said|says|knows)\b|"
    r"(?<!\bno\s)(?<!\ba\s)\bdoubts?\b",
    re.IGNORECASE,
)
# "If you ask me, the deploy …", "The rain, if I remember right, …": an aside, not the cause;
# any other "if …," is a condition.
_AN_ASIDE = (
    r"(?:if\s+(?:you\s+ask\s+\w+|\w+\s+(?:remembers?|recalls?)(?:\s+(?:right|correctly))?|"
    r"\w+\s+(?:is|am|are)\s+honest|anything)|even\s+if\s+it\s+(?:sounds|seems)\s+\w+)"
)
_ASIDE = re.compile(
    rf"^{_AN_ASIDE},\s*(?=\w)|,\s*{_AN_ASIDE}$",
    re.IGNORECASE,
)
# "the script that Joanna contributed to": a relative clause, not a cause
_RELATIVE_END = re.compile(r"\b(?:that|who|whom|which)\s+\w+(?:\s+and\s+others)?$", re.IGNORECASE)
_CLAUSE_BREAK = re.compile(
    r"\s*(?:;|(?<!\d):|:(?!\d)|[—–]|\s-\s|,\s*(?=(?:but|and|although|though|while|yet)\b)|"
    r"\bbut\b)\s*",
    re.IGNORECASE,
)
# "since" before a clause that tells what happened starts the subject of its verb: in "Roll
# back since the deploy broke checkout" it is the deploy that broke checkout.
_SINCE_CLAUSE = re.compile(
    rf"\bsince\s+(?=(?:{_SUBJ}(?:\s+\w+){{0,3}}?|{_BARE_SUBJ})\s+{_SIMPLE_PAST}\b)",
    re.IGNORECASE,
)
# "It", "that", or what the thing was: "that decision", "the switch", "this fix".
_IT = (
    rf"(?P<it>(?:this|that|the)\s+(?:{'|'.join(DOINGS)})|(?:this|that)\s+(?:{'|'.join(WORKS)})|"
    r"it|this|that)"
)
_ANAPHOR_ACTS = re.compile(_IT + r"\s+(?:\w+ly\s+)?(?P<verb>[a-z]+)\b", re.IGNORECASE)
# ... or a verdict on it: "That was a mistake", "it has been the best call". Not "that's a
# great idea", said of a plan.
_VERDICT = re.compile(
    _IT + r"\s+(?:was|has\s+been|ended\s+up\s+being|proved\s+to\s+be)\s+" + _A_VERDICT,
    re.IGNORECASE,
)
_NOT_ACTS = word_set("was were had did said meant been seemed sounded looked")
_COMMENT = re.compile(r"(?:\w+,\s+)?(?:it|that|this)(?:'s|\s+is|\s+was|\s+\()", re.IGNORECASE)
# "It happened", "It all started", "That began": the event told just before, as having come
# about (`_Extractor._event_before`).
_IT_CAME_ABOUT = re.compile(
    r"(?:it|this|that)\s+(?:(?:all|first|only|really|actually)\s+)?(?:happened|started|began|"
    r"occurred|took\s+place|came\s+about)",
    re.IGNORECASE,
)
# ... not "It started a fire", which the earlier thing did
_AN_OBJECT = re.compile(r"\s+(?:the|a|an|this|that|these|those|our|their|his|her|its|my|your)\b")
_BY_GERUND = re.compile(r"\bby\s+(\w+ing\b.*)$")
# "we avoided a weekend outage": the effect of a cause is that something did not happen
_AVOIDED = re.compile(
    r"^(?P<who>(?:[\w']+\s+){0,4}?)(?:\w+ly\s+)?(?:avoided|averted|dodged|escaped|prevented|"
    r"(?:was|were)\s+spared)\s+(?P<what>\S.*)$",
    re.IGNORECASE,
)
_STOPPED_EARLY = re.compile(
    r"\s+(?:before\s+it\s+(?:even\s+)?(?:started|began|happened|could\s+\w+)|in\s+its\s+tracks)"
    r"(?=[.!]*$)",
    re.IGNORECASE,
)
# ... not one denied, supposed or of a habit: "hasn't paid off", "would have paid off",
# "always pays off".
_NO_VERDICT_BEFORE = re.compile(
    r"(?i)(?:n't|\b(?:not|never|hardly|barely|rarely|would|could|should|might|may|must|will|'ll|"
    r"always|usually|often|sometimes|can|if|whether))\s+(?:\w+\s+){0,2}$"
)
_GERUND_STOP = word_set(
    "nothing something everything anything morning evening during thing king spring ring "
    "ceiling building wedding meeting feeling darling"
)
# Being, wishing or not doing, after who it is: "(Ben) was asleep", "could migrate", "didn't".
_NOT_DOING = re.compile(
    r"(?:and\s+others\s+)?(?:\w+ly\s+)?(?:was|were|is|are|am|has|have|had|could|would|should|"
    r"might|may|must|can|will|need|needs|wants?|wanted|thinks?|thought|hopes?|didn't|did\s+not|"
    r"don't|do\s+not|doesn't|never|'s|'re|'d|'ll)\b",
    re.IGNORECASE,
)
# Doing something to something, after who did it: "(Carol) rolled back the deploy".
_DID_TO = re.compile(
    r"(?:\w+ly\s+)?(?P<verb>[a-z]+)(?:\s+(?:back|out|up|down|off|over|in))?\s+(?:the|a|an|our|"
    r"their|its|his|her|my|this|that|(?-i:[A-Z])\w*)\b"
)
# What befell someone, after who it is: "(Ben) got sick", "became the owner", "fell ill".
_BEFELL = re.compile(
    r"(?:\w+ly\s+)?(?:got|gets|get|getting|became|becomes|fell|falls|felt|feels)\b", re.IGNORECASE
)
# ... but what they had done is a doing: "(Ben) had restarted the workers"
_HAD_DONE = re.compile(r"(?:had|has|have)\s+(?:\w+ly\s+)?(?!been\b)(?P<verb>[a-z]+)")
# ... as is getting something done: "(Ben) got the release out", "got the fix merged", "got it
# working"; not "got paged out of bed" (no object) nor "got his laptop stolen".
_GOT_IT_DONE = re.compile(
    r"(?:and\s+others\s+)?(?:\w+ly\s+)?(?:got|gets|get|getting)\s+(?:it|them|everything|"
    r"(?:the|a|an|our|their|its|his|her|my|your|this|that|these|those)(?:\s+[\w-]+){1,3}?)\s+"
    r"(?:out|done|fixed|working|running|shipped|merged|deployed|released|finished|live)\b",
    re.IGNORECASE,
)


def _did_as_a_person(rest: str) -> bool:
    """What follows a person's name tells them doing something, with or without what it was
    done to ("restarted the workers", "rolled back", "got it working"); not what befell them ("was
    paged", "got sick", "was on call") nor being, wishing or not doing ("didn't migrate")."""
    if ((done := _HAD_DONE.match(rest)) and is_past(done["verb"])) or _GOT_IT_DONE.match(rest):
        return True
    return not _NOT_DOING.match(rest) and not _BEFELL.match(rest)


# Someone doing something to something: "Carol rolled back the deploy", "They applied a fix".
_SOMEONE_DID = re.compile(
    r"(?P<who>[A-Z][a-z]+|They|Someone|Somebody|(?:The|Our|My)\s+(?:team|ops|sre|oncall|"
    r"on-call|lead|manager|colleague)(?:\s+[A-Z][a-z]+)?)\s+" + _DID_TO.pattern
)
# What is said in brackets: what a pronoun stood for ("It (we rolled back) …"), or an aside of
# the teller's ("Ben (on-call) rolled back the deploy"); neither says who did what.
_ASIDES = re.compile(r"\s*\((?:[^()]|\([^()]*\))*\)")
# What a verdict judges: "Adding an index", "Hiring her", "Our switch to gRPC" (as rewritten,
# "Ana and others' switch to gRPC"), "The rewrite".
_A_DOING = re.compile(
    rf"(?i)(?:(?!(?:{'|'.join(sorted(_GERUND_STOP))})\b)[a-z]+ing\b.*|(?:the|that|this|our|"
    r"their|my|your|his|her|its|(?-i:[A-Z])[\w-]*(?:['’]s|\s+and\s+others['’]))\s+"
    r"(?:(?:[\w-]+\s+){0,2})?"
    rf"(?:{'|'.join(THINGS_DONE)})(?:\s+(?:to|of|on|for|from|in|at)\b.*)?)"
)
# ... and one named only by what it was: "The migration was a mistake" judges the migration told
# before it.
_BARE_DOING = re.compile(rf"(?i)(?:the|that|this)\s+(?:{'|'.join(THINGS_DONE)})")


# "I think the cache caused it", "we suspect that caused it": the writer's own hedge before a
# causal claim, not its cause (dropped before "I" becomes a name). Not what someone else holds
# ("Dana thinks …", "Users believe …"), "I guess not", nor "I believe in code review".
_HEDGE = re.compile(
    r"^(?:i|we)\s+(?:really\s+)?(?:think|believe|suspect|reckon|guess)\s+"
    r"(?:that\s+(?=(?:the|a|an|our|my|their|its)\b))?(?!(?:in|on|at|of|for|with|about|so|not)\b)"
    r"(?=\w)",
    re.IGNORECASE,
)
_OPENER = re.compile(
    r"^(?:(?:it\s+)?turns?\s+out(?:\s+that)?|(?:bad|good|great|sad)\s+news|in\s+the\s+end|"
    r"as\s+it\s+turned\s+out|sadly|unfortunately|fortunately|luckily|(?:no|without\s+a)\s+doubt|"
    r"in\s+(?:hindsight|retrospect)|looking\s+back|"
    r"of\s+course|"
    r"clearly|obviously)\b[,:]?\s*",
    re.IGNORECASE,
)

# "So the deploy caused it", "Basically the cron job …": a word that only carries the talk on
# ("so many people", "well-tested code" are no such word).
_DISCOURSE = re.compile(
    r"^(?:(?:and\s+)?so\s+(?=(?:the|a|an|this|that|these|those|our|my|your|his|her|their|its|we|i|"
    r"you|he|she|they|it|yeah|well|anyway|ok|okay|um|basically|actually|apparently|honestly)\b|"
    r"(?-i:[A-Z]))|(?:basically|apparently|anyway|honestly|actually)\s+"
    r"(?=\w))",
    re.IGNORECASE,
)


# A nod or a sigh before 'that', 'this' or 'it' ("Yeah that caused …", "agreed, this led to
# …"): 'that' points back to what was told before, and the nod is no thing that caused it,
# comma or not ("Kafka that caused" would be a relative clause, read for a name).
_NODS = word_set(
    """yeah yea yes yep yup ya agreed right true exactly totally ok okay sure indeed absolutely
    definitely ugh argh oops whoops yikes oof damn welp hmm wow"""
)
_NOD_BEFORE_IT = re.compile(
    rf"^(?:{'|'.join(sorted(_NODS))})\b[,!.]*\s+(?=(?:that|this|it)$)", re.IGNORECASE
)


def _clean(segment: str) -> str:
    """A clause without its edges: punctuation, conjunctions, a leading 'Luckily,'."""
    segment = segment.strip(" \t\n,;:—–-")
    segment = _NOD_BEFORE_IT.sub("", segment)
    segment = _EDGE_WORDS.sub("", segment).strip(" \t\n,;:—–-")
    opener = re.match(r"([A-Za-z]+),\s+", segment)
    if opener and (opener.group(1).lower() in _LEAD_FILLER or opener.group(1).endswith("ly")):
        segment = segment[opener.end() :]
    return _OPENER.sub("", segment)


_MENTION = re.compile(r"^(?:@[\w.-]+[,:]?\s+)+|^(?:ok|okay|lol|um|uh)\s+(?=so\b)", re.I)


def _without_asides(subject: str) -> str:
    """A subject without the time or the aside told before it: "When I was a kid, my dad",
    "If you ask me, the deploy", "The rain, if I remember right". A time alone ("After Monday,")
    stays: it is when the subject acted."""
    told = _TIME_CLAUSE.match(subject)
    if told is not None and len(_after_time(subject)) > len(subject) - told.end():
        subject = subject[told.end() :]
    return _ASIDE.sub("", subject)


def _unopened(sentence: str) -> str:
    """A sentence without the words that only carry the talk on: "So", "Well, basically",
    "Turns out"."""
    while True:
        shorter = _OPENER.sub("", _DISCOURSE.sub("", _MENTION.sub("", sentence)))
        opener = re.match(r"([A-Za-z]+),\s+", shorter)
        if opener and opener.group(1).lower() in _LEAD_FILLER:
            shorter = shorter[opener.end() :]
        if shorter == sentence:
            return sentence
        sentence = shorter


def _is_list_head(head: str, last: str) -> bool:
    """'Good food, laughs' before 'and chats': the first items of a list of short names, no
    clause among them ('I went home, ate' before 'and the rain' is two things done)."""
    if not re.match(r"(?i)(?:and|or)\s+\w", last) or re.search(r"[;:.!?]", head):
        return False  # "…, and prevents injuries": verbs in a row, not names
    parts = [p.split() for p in head.split(",") if p.strip()]
    return (
        len(parts) >= 2
        and all(  # "Sure, and the rain …" is a nod, not a list
            len(p) <= 3
            and not any(is_past(w.lower()) or w.lower() in STOPWORDS for w in p[1:])
            and not is_past(p[0].lower())
            for p in parts
        )
    )


def _says_what_it_did(text: str) -> bool:
    """'It kept the builds reproducible': an earlier thing, acting; 'That was a mistake': a
    verdict on it. 'It was fun' is neither."""
    if _VERDICT.match(text):
        return True
    m = _ANAPHOR_ACTS.match(text)
    return m is not None and is_past(m["verb"].lower()) and m["verb"].lower() not in _NOT_ACTS


def _capitalise(text: str) -> str:
    return text[:1].upper() + text[1:]


def _decapitalise(text: str) -> str:
    return text[:1].lower() + text[1:]

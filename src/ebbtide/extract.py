"""Rule-based extraction from chat transcripts: no model, no network, deterministic.

A transcript becomes typed items (each a self-contained sentence) and links between them:

1. turns (`transcript.Message`) are split into sentences; bare acknowledgements ("haha",
   "thanks!") are dropped, and everything else is kept (as a `note` when no other kind fits):
   recall needs it;
2. first- and second-person pronouns become names ("I adopted a dog", said by Caroline ->
   "Caroline adopted a dog"), verbs agreeing (both in `sentences.py`); a message no one is
   named as saying (a paragraph of a note, speaker "") keeps its pronouns;
3. time phrases are resolved against the message time (or the session date) and the absolute
   date is written next to them ("yesterday (7 May 2023)"); the item's `when` is that date;
4. causal cues split a sentence into cause and effect clauses linked `caused`, `enabled`,
   `prevented` or `no_effect` (a negated cue). Anaphors link to what was said before, across
   turns: "That caused ..." to the previous sentence, "The outage led to ..." to the item that
   mentioned an outage. Causes done by someone become decisions, effects become outcomes
   (with polarity from `polarity.py`);
5. other sentences are typed by cue: lesson, preference, decision, event, fact, note;
6. speakers and named people become person items, linked `about` from the items naming them.
"""

from __future__ import annotations

import itertools
import re
from collections.abc import Sequence
from dataclasses import dataclass, field, replace
from datetime import datetime
from typing import Any, Literal

from . import sameness
from .polarity import BAD_JUDGEMENTS, GOOD_JUDGEMENTS, VERDICT_NOUNS, outcome_polarity
from .sentences import (
    ADVERBS,
    IRREGULAR_PAST,
    is_acknowledgement,
    is_past,
    rewrite_pronouns,
    split_sentences,
    word_set,
)
from .settings import is_tool
from .text import (
    DOINGS,
    STOPWORDS,
    THINGS_DONE,
    WORKS,
    is_word,
    normalize,
    shorten,
    similarity,
    stem,
    tokens,
)
from .timeparse import MONTHS, NUMBERS, SEASONS, WEEKDAYS, TimeSpan, describe, resolve
from .transcript import Message

__all__ = ["CAUSAL", "Extraction", "Item", "ItemLink", "actor", "causal_only", "extract"]

Kind = Literal["fact", "preference", "event", "lesson", "decision", "outcome", "note", "person"]
Relation = Literal["caused", "enabled", "prevented", "no_effect", "related", "about"]
CAUSAL = frozenset({"caused", "enabled", "prevented", "no_effect"})

# Link weights: how sure a rule is. An explicit cue inside one sentence is surer than an
# anaphor across sentences, which is surer than a cue that is often only temporal ("after").
EXPLICIT = 0.8
ANAPHORIC = 0.7
WEAK = 0.5
HYPOTHETICAL = 0.6  # factor for "would cause", "could prevent"
RELATED = 0.5  # consecutive items of one turn, a question and its answer
REPLY = 0.4  # an item of a turn and the opening item of the reply to it
MENTION = 0.6  # `about` weight when a person is named but is not the subject
ANTECEDENT_TURNS = 3  # "That caused ..." looks back at most this many turns
NP_LOOKBACK = 8  # "The outage led to ..." searches this many recent items
# A note's paragraphs are one writer's: "the outage" in its action items is the one its
# summary told of, paragraphs earlier.
NOTE_REACH = (30, 60)  # (turns, items) a note's "the outage" looks back; "that" is as close
UNTOLD_WORDS = 2  # words a clause beside a causal claim needs to be an item of its own
MAX_CUES = 8  # causal cues read per sentence: real sentences have a few, run-ons are cut off
WINDOW = 300  # characters around a cue that decide whether it makes a claim
CONTEXT_CHARS = 400  # characters of its message, and of the one before, kept with each item


@dataclass
class Item:
    kind: Kind
    text: str
    sources: list[str]  # message ids
    when: datetime | None = None  # when the event happened, if the text said so
    attributes: dict[str, Any] = field(default_factory=dict)
    provenance: str = "transcript"  # "transcript:llm" when an LLM extractor found it


@dataclass(frozen=True)
class ItemLink:
    src: int  # index into Extraction.items
    dst: int
    relation: Relation
    weight: float
    confidence_source: str = "rule"  # who asserted it: "rule", or "llm_inferred"
    # The messages that told it (the one whose words link the two, each time they do): an
    # edit of one of them ends it only when no other tells it. Empty when not known (an LLM's).
    sources: tuple[str, ...] = ()


@dataclass
class Extraction:
    items: list[Item]
    links: list[ItemLink]


# ---------------------------------------------------------------------------------------------
# Kinds of sentence
# ---------------------------------------------------------------------------------------------

_LESSON = re.compile(
    r"\b(?:i|we)\s+(?:(?:have|'ve)\s+)?(?:learned|learnt|realized|realised)\b|\blessons?\s+"
    r"learn(?:ed|t)\b|\bthe\s+(?:lesson|takeaway|moral)\b|"
    # "Next time, check the cache first": a correction, not "Next time, bring the kids!" nor
    # "Next time you should come with us!"
    r"\bnext\s+time,?\s+(?:(?:i|we)\s+(?:should|must|need\s+to|have\s+to|will\s+make\s+sure|"
    r"will\s+(?:double-)?check|won't|will\s+not|shouldn't)|you\s+(?:should|must|need\s+to)\s+"
    r"(?!come\b|join\b|visit\b|bring\b|try\s+the\b))|"
    r"^next\s+time,?\s+(?:(?:let's\s+)?(?:make\s+sure|test|check|verify|run|start\s+with)|"
    r"remember\s+to|don't|do\s+not|always|never|check|test|verify|double-check|ask|wait\s+for|"
    r"read|run|start\s+with|use|add|pin|set|enable|disable|avoid|keep)\b|"
    r"\bin\s+(?:the\s+)?future,?\s+(?:(?:i|we|you)\s+)?(?:must|need\s+to|have\s+to)\b|"
    r"^(?:(?:the\s+)?(?:key\s+)?(?:lessons?|takeaways?)|note\s+to\s+self)\s*:|"
    r"\b(?:from\s+now\s+on|going\s+forward),?\s+(?:(?:i|we|you)\s+)?"
    r"(?:should|must|need\s+to|have\s+to|always|never)\b|"
    r"\bnever\s+again\b|\b(?:i|we|you)\s+should\s+(?:always|never)\b|\b(?:it|that|this)\s+"
    r"taught\s+(?:me|us)\b|\brule\s+of\s+thumb\b|^(?:always|never)\s+\w+",
    re.IGNORECASE,
)
_PREFERENCE = re.compile(
    r"\b(?:i|we)(?:'d|\s+would)?\s+(?:(?:really|absolutely|just|also|totally|truly|still|do|"
    r"genuinely|so|kinda|don't|do\s+not|never|didn't|did\s+not)\s+)*(?P<verb>love|like|enjoy|"
    r"adore|prefer|hate|dislike|detest|can't\s+stand|cannot\s+stand)\b|\bmy\s+(?:all[- ]time\s+)?"
    r"fav(?:ou?rite)?\b|\b(?:i'm|i\s+am|we're|we\s+are)\s+(?:(?:a|such\s+a|not\s+a|no)\s+)?"
    r"(?:big\s+|huge\s+)?(?:fan\s+of|into|obsessed\s+with|passionate\s+about|fond\s+of)\b|"
    r"\b(?:i'd|i\s+would)\s+rather\b",
    re.IGNORECASE,
)
# What makes a preference a dislike, read in the preference's own words (`_sentiment`): a
# "don't" elsewhere ("I like it when tests don't flake") says nothing of it.
_DISLIKE = re.compile(
    r"\b(?:hates?|dislikes?|detests?|can't\s+stand|cannot\s+stand|not|no|don't|do\s+not|"
    r"doesn't|never|didn't|did\s+not)\b",
    re.IGNORECASE,
)
# "I'd rather not", but "I love not having to commute"
_DENIED_AFTER = re.compile(
    r"\s+not\b(?!\s+(?:having|being|needing|worrying|dealing|commuting|waiting)\b)",
    re.IGNORECASE,
)
# "I can't think of anything I love more": a denial that praises
_MORE_THAN = re.compile(
    r"\b(?:can't|cannot|couldn't)\s+think\s+of\s+(?:anything|anyone|anywhere|anybody|a\s+\w+)\b",
    re.IGNORECASE,
)
_DENIED_BEFORE = re.compile(  # "I wouldn't say I love it", "I don't think I like it"
    r"\b(?:wouldn't|won't|don't|do\s+not|can't|couldn't|not)\s+(?:say|think|claim|pretend)\b[^,;]*$",
    re.IGNORECASE,
)
_DECISION = re.compile(
    r"\b(?:decided|decide|decision)\s+to\b|\bdecided\s+on\b|\b(?:chose|picked|selected)\b|"
    r"\b(?:choose|opted|opt)\s+(?:to|for)\b|\b(?:switched|switching|switch)\s+(?:over\s+)?to\b|"
    r"\bsettled\s+on\b|\b(?:went|going)\s+with\b|\b(?:i|we)(?:'m|'re|\s+am|\s+are)\s+(?:going\s+to|gonna)\b|^gonna\b|"
    r"\bplan(?:ning)?\s+to\b|\bmade\s+(?:the|a)\s+(?:call|decision)\b",
    re.IGNORECASE,
)
# ... and a change of what is used, told with its reason: "(We) moved to SQS because …",
# "migrated to Aurora", "adopted Terraform", "replaced Jenkins with …", "dropped Kafka"; not
# "dropped the ball" or "dropped packets", which went wrong.
_SWITCHED = re.compile(
    r"(?:\w+ly\s+)?(?:(?:moved|migrated)\s+(?:over\s+)?to\b|adopted\b|replaced\b|"
    r"dropped\s+(?:(?:the|our|their)\s+)?(?-i:[A-Z]))",
    re.IGNORECASE,
)
# People acting as one, who choose as a person does: "The team", "The platform team", "Ana's
# team" (chat's "our team"), "Ops", "Management", "The company"; and a note's own "We", its
# authors (chat names who "we" are).
_GROUP = re.compile(
    r"(?:(?:the|our|my|their|(?-i:[A-Z])[a-z]+'s)\s+)?(?:[\w-]+\s+){0,2}?(?:team|squad)s?|"
    r"(?:the\s+)?(?:ops|management|leadership)|the\s+(?:company|org|organi[sz]ation)|we",
    re.IGNORECASE,
)
# What a choice chose, when it names one thing: "went with SQLite", "picked Rust over Go"; or
# what was dropped, which a reason's "it" names as well ("dropped Kafka because it …").
_CHOSEN = re.compile(
    r"\b(?:chose|picked|selected|adopted|dropped(?=\s+(?-i:[A-Z]))|went\s+with|settled\s+on|"
    r"opted\s+for|decided\s+on|(?:decided|chose|opted)\s+to\s+(?:use|adopt|buy|hire))\s+"
    r"(?P<what>(?!(?:to|it|that|this|one|up|out|off|on|me|him|her|us|them|not|(?-i:[a-z]+ly))\b"
    r"(?!\.\w))"  # "Fly.io" is a name, "wisely" or "it." is none
    r"(?:[\w.+#-]+\s+){0,3}?[\w.+#-]+)(?=\s+(?:for|because|as)\b|[,;:.!]|$)",
    re.IGNORECASE,
)
# ... and a reason whose "it" may be it: not "it was raining", "it was late".
_BARE_IT = re.compile(
    r"It\s+(?!\()(?!(?:was|is|got|gets|had\s+been)\s+(?:(?:\w+ing|\w+day|late|early|cold|hot|warm|"
    r"dark|sunny|windy|time|too|so|obvious|clear|night|morning|evening|noon|midnight)\b|"
    # a time, not "3x cheaper": "10pm", "3 a.m.", "9:30", "3 in the morning", "2024"
    r"\d{1,2}(?::\d\d)?\s*(?:am\b|pm\b|a\.m\.|p\.m\.|o'clock)|\d{1,2}:\d\d\b|\d{1,2}\s+in\s+the\s+"
    r"(?:morning|afternoon|evening|night)\b|\d{4}\b))"
    r"(?!(?:turned|rained|snowed|seems|seemed|appears|appeared|looks|looked)\b)",
    re.IGNORECASE,
)
# A name said to someone: "@Dan", "Ana, you …", "Hey Ana", "… next time, Ana."
_VOCATIVE = re.compile(
    r"(?<![\w.@])@(?!(?:here|channel|all|everyone)\b)(?P<at>[A-Za-z][\w.-]*[A-Za-z0-9])|"
    r"(?:^|(?<=[.!?,]))\s*(?:(?:hey|hi|thanks|thank\s+you|ok|okay|so|sorry|sure|well|yes|no)"
    r",?\s+)?(?P<start>(?-i:[A-Z][a-z]+))\s*[,:!]|"
    r"\b(?:hey|hi)\s+(?P<greeted>(?-i:[A-Z][a-z]+))\s+(?=you\b)|"
    r"(?<=,)\s*(?P<end>(?-i:[A-Z][a-z]+))\s*[.!?]",
    re.IGNORECASE,
)
# How a thing is set up, told in the present: "The API server listens on port 8080", "Our CI
# runs on GitHub Actions", "The staging DB is Postgres 15".
_SYSTEM_FACT = re.compile(
    # the thing: up to three words, none a relative ("the guy who runs the bakery") nor a
    # remark's opening ("the best part is …", "the problem is …")
    r"(?:the|our|my|their|its|(?-i:[A-Z][a-z]+)['’]s)\s+"
    r"(?!(?:best|worst|real|only|main|funny|sad|hard)?\s*"
    r"(?:part|problem|question|thing|point|issue|reason|answer|truth|idea|plan)\b)"
    r"(?:(?!who\b|that\b|which\b|where\b)[\w.+#/-]+\s+){0,3}?(?:"
    # is/are a name or a number, not a remark: "is Postgres 15", not "is nice", "is OK",
    # "is AMAZING", "is Oscar-worthy", "is I …"
    r"(?:is|are)\s+(?:now\s+)?(?:(?:a|an|the|on|in|at|version|v)\s+)?"
    r"(?=(?-i:[A-Z][a-z]|\d))(?!(?-i:I\b)|\w+-|(?:so|very|really|too|fantastic|amazing|awesome|"
    r"great|good|bad|beautiful|breathtaking|incredible|perfect|terrible|pregnant|fine|ok|okay|"
    r"patience|gorgeous|stunning|lovely|wonderful)\b)|"
    r"(?:runs|uses|listens|lives|sits|points|connects|depends|stores|holds|belongs|"
    r"requires|expires|defaults)\b)",
    re.IGNORECASE,
)
# Someone else's taste, told by name: "Ben prefers async standups", "Laura hates seafood".
_THEIR_TASTE = re.compile(
    r"(?:(?:(?!(?:nobody|everybody|everyone|someone|somebody|anyone|anybody|no\s+one|honestly|"
    r"he|she|it|this|that|everything|nothing|something|sometimes)\b)(?-i:[A-Z][a-z]+)|"
    r"(?:my|our)\s+(?:son|daughter|kid|child|wife|husband|partner|mom|mum|dad|mother|father|"
    r"brother|sister|boss|friend|dog|cat|team|manager|grandma|grandpa|grandmother|grandfather|"
    r"neighbou?r|aunt|uncle|cousin|roommate|boyfriend|girlfriend))\s+"
    r"(?:(?:really|also|still|absolutely|totally)\s+)?(?:prefers|likes|loves|enjoys|hates|"
    r"dislikes|detests|can't\s+stand|cannot\s+stand|doesn't\s+like|does\s+not\s+like)|"
    r"(?:my|our)\s+(?:kids|children|parents|friends|dogs|cats|neighbou?rs)\s+"
    r"(?:(?:really|also|still|absolutely|totally)\s+)?(?:prefer|like|love|enjoy|hate|dislike|"
    r"can't\s+stand|don't\s+like|do\s+not\s+like))\b(?!\s+(?:me|us|you|it)\b)",
    re.IGNORECASE,
)
_FACT_VERB = re.compile(
    r"(?:'s\s+\w+(?:\s+\w+)?\s+)?(?:is|are|was|were|has|have|had|works|lives|studies|owns|"
    r"teaches|volunteers|plays|speaks|comes\s+from|grew\s+up|was\s+born)\b"
)
# Said for cheer or assent, not of something that happened: "You got this, John!", "I bet!".
_SET_PHRASE = re.compile(r"(?:got\s+(?:this|it|that)|bet)(?:,\s*[A-Z]\w*)?\W*$", re.IGNORECASE)
_LEAD_FILLER = word_set(
    """so well oh and but also then actually honestly yeah yes yep yup no nope ugh welp hmm oof
    haha lol just later finally
    recently yesterday today tonight now anyway btw plus ok okay wow hey eventually lately
    sometimes still um"""
)


def _subject(text: str, names: Sequence[str]) -> tuple[str | None, str]:
    """The person a sentence is about when it starts with their name, and the rest of it."""
    rest = text.lstrip(" \"'(")
    while True:
        head = re.match(r"([A-Za-z]+)[,!]?\s+", rest)
        if head is None or head.group(1).lower() not in _LEAD_FILLER:
            if (untimed := _after_time(rest)) == rest:
                break
            rest = untimed  # "Last night (28 February 2026) Ben …": when, then who
            continue
        rest = rest[head.end() :]
    for name in sorted(names, key=len, reverse=True):
        if rest.startswith(name) and not rest[len(name) : len(name) + 1].isalnum():
            tail = rest[len(name) :]
            tail = tail[len(" and others") :] if tail.startswith(" and others") else tail
            return name, tail.strip()
    return None, rest


def _group_subject(text: str) -> tuple[str, str] | None:
    """The group a sentence is about when it starts with one ("The platform team"), and the
    rest of it."""
    _, whole = _subject(text, ())
    if (group := _GROUP.match(whole)) and whole[group.end() :][:1] == " ":
        return group[0], whole[group.end() :].lstrip()
    return None


def _sentiment(sentence: str) -> str:
    m = _PREFERENCE.search(sentence) or _THEIR_TASTE.match(sentence)
    if m is None:
        return "negative" if _DISLIKE.search(sentence) else "positive"
    # "I can't think of anything I love more": a denial that praises
    praised = _MORE_THAN.search(sentence)
    denied = (
        _DISLIKE.search(m.group())
        or _DENIED_AFTER.match(sentence, m.end())
        or (_DENIED_BEFORE.search(sentence, 0, m.start()) and not praised)
    )
    return "negative" if denied else "positive"


def _classify(original: str, text: str, names: Sequence[str], dated: bool) -> Kind:
    if _LESSON.search(original):
        return "lesson"
    if _PREFERENCE.search(original):
        return "preference"
    if _DECISION.search(original):
        return "decision"
    if dated or sameness.failure_came_about(original):  # "The checkout outage started at 9"
        return "event"
    if _THEIR_TASTE.match(original):
        return "preference"
    if _SYSTEM_FACT.match(original) and not original.rstrip().endswith("?"):
        return "fact"
    who, rest = _subject(text, names)
    if who is not None and not _SET_PHRASE.match(rest):
        verbs = [w for w in re.findall(r"[a-z]+", rest.lower()) if w not in ADVERBS][:1]
        if _FACT_VERB.match(rest):
            return "fact"
        if verbs and is_past(verbs[0]):
            return "event"
    return "note"


# ---------------------------------------------------------------------------------------------
# Causal cues
# ---------------------------------------------------------------------------------------------

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
    r"\b(?:(?:could|would|might|may|must|should)\s+have\s+been|(?:had|has|have)\s+been|was|"
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
# What a verb of doing acts on: "broke the login page", not "broke down" or "fixed up".
_AN_OBJECT = (
    r"(?=\s+(?:the|a|an|our|their|its|his|her|my|your|this|that|these|those|every|all|both|it|"
    r"them|everything|(?-i:[A-Z])[\w.+#-]*|(?!(?:up|down|out|off|in|on|back|again|away|over|"
    r"apart|yesterday|today|tonight|tomorrow|now|then|last|next|early|late|too|so|very|for|with|"
    r"at|by|to|and|but|or|because|when|while|after|before|since|until|me|him|us|you|nothing|"
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

# "The pool ran dry after we raised the limit", "… after traffic doubled": told in order, so
# only weakly a cause
_AFTER = _Cue(
    rf"after(?=\s+(?:{_SUBJ}(?:\s+(?!because|so|and|but|which)\w+){{0,2}}?|{_BARE_SUBJ})\s+(?:\w+ed|"
    + "|".join(sorted(IRREGULAR_PAST))
    + r")\b)",
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
_PAST_VERB = rf"(?:\w+ed|(?:did|was|were|had|could)n['’]t|{'|'.join(sorted(IRREGULAR_PAST))})"
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
    rf"meant(?:\s+that)?(?=\s+(?:{_SUBJ}(?:\s+[\w'’-]+){{0,3}}?|{_BARE_SUBJ})\s+(?:\w+ed|\w+n['’]t|is|was|"
    r"are|were|had|has|have|would|could|can|will|must|"
    + "|".join(sorted(IRREGULAR_PAST))
    + r")\b)",
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
    r"(?<=,)\s*which(?=\s+(?:\w+ly\s+)?(?!was\b|were\b|had\b|is\b)(?:\w+ed|"
    + "|".join(sorted(IRREGULAR_PAST))
    + r")\b)",
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
        _BEEN + r"\s+(?:\w+ly\s+)?(?:prevented|averted)\s+by" + _NOT_AGENT,
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
        rf"(?=\s+(?:{_SUBJ}|(?:\w+\s+){{0,5}}?(?:\w+ed|is|was|are|were|has|had|will|would|can|"
        r"could|" + "|".join(sorted(IRREGULAR_PAST)) + r")\b))",
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
_AND_THEN_A_CLAUSE = re.compile(rf",?\s+and\s+(?:then\s+)?(?={_SUBJ}\s)", re.IGNORECASE)
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
    r"\b(?:would|could|might)(?:n't|\s+not)?\s+(?:have|'ve)\b|\b\w+'d\s+have\b", re.IGNORECASE
)
_NEGATED_COUNTERFACTUAL = re.compile(
    r"\b(?:would|could|might)(?:n't|\s+not)\s+(?:have|'ve)\b|\bnever\b", re.IGNORECASE
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
_POSSESSIVE = r"(?i)\b(?!(?:that|it|what|there|here|he|she|who|let|how|where)['’]s)\w+['’]s\s+\w"
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
    rf"\bsince\s+(?=(?:{_SUBJ}(?:\s+\w+){{0,3}}?|{_BARE_SUBJ})\s+(?:\w+ed|"
    + "|".join(sorted(IRREGULAR_PAST))
    + r")\b)",
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


def _did_as_a_person(rest: str) -> bool:
    """What follows a person's name tells them doing something, with or without what it was
    done to ("restarted the workers", "rolled back", "fixed it"); not what befell them ("was
    paged", "got sick", "was on call") nor being, wishing or not doing ("didn't migrate")."""
    if (done := _HAD_DONE.match(rest)) and is_past(done["verb"]):
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
# What a verdict judges: "Adding an index", "Hiring her", "Our switch to gRPC", "The rewrite".
_A_DOING = re.compile(
    rf"(?i)(?:(?!(?:{'|'.join(sorted(_GERUND_STOP))})\b)[a-z]+ing\b.*|(?:the|that|this|our|"
    r"their|my|your|his|her|its|(?-i:[A-Z])[\w-]*['’]s)\s+(?:(?:[\w-]+\s+){0,2})?"
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


def _clean(segment: str) -> str:
    """A clause without its edges: punctuation, conjunctions, a leading 'Luckily,'."""
    segment = segment.strip(" \t\n,;:—–-")
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


# Extraction
# ---------------------------------------------------------------------------------------------

_REL_NOUN = (
    r"(?:best\s+friend|friend|buddy|sister|brother|sis|bro|mom|mum|mother|dad|father|son|"
    r"daughter|husband|wife|partner|boyfriend|girlfriend|fianc[ée]e?|boss|manager|colleague|"
    r"co-?worker|teammate|neighbou?r|cousin|aunt|uncle|grandma|grandmother|grandpa|grandfather|"
    r"niece|nephew|kid|child|baby|teacher|mentor|coach|therapist|roommate|classmate)"
)
_NAME = r"[A-Z][a-z]+(?:\s+[A-Z][a-z]+)?"
# Who people are by what they do: "the mechanic fixed the brakes" is someone acting.
_ROLE_NOUN = (
    r"(?:mechanic|plumber|electrician|doctor|nurse|surgeon|vet|dentist|detective|police|officer|"
    r"cop|firefighter|chef|cook|waiter|pilot|band|singer|champion|referee|judge|lawyer|"
    r"landlord|neighbor|city|council|government|restaurant|shop|store|staff|guy|girl|man|woman|"
    r"lady|folks|people|engineer|developer|dev|admin|intern|contractor|vendor|customer|manager|"
    r"team|crew|boss)"
)
# "my mom", "Ana's brother", "the kids", "the mechanic": someone, by who they are
_KIN = re.compile(
    rf"(?:[Mm]y|[Oo]ur|[Yy]our|[Hh]is|[Hh]er|[Tt]heir|[Tt]he|[A-Z][a-z]+(?:\s+and\s+others)?"
    rf"['’]s)\s+(?:[\w-]+\s+)?(?:{_REL_NOUN}|{_ROLE_NOUN})(?:s|es)?"
)
_PERSON_PATTERNS = [
    re.compile(
        rf"\b(?:[Mm]y|[Oo]ur|[Yy]our|[Hh]is|[Hh]er|[Tt]heir)\s+(?:(?:best|old|good|close|new|little|big|older|"
        rf"younger)\s+)?(?P<rel>{_REL_NOUN})\s*,?\s+(?P<name>{_NAME})"
    ),
    # "Priya, my friend, …": an appositive ends where the relation does; "Thankfully, my son's
    # ok" and "Marrying my partner and …" put a word before the relation, not a name.
    re.compile(
        rf"\b(?P<name>{_NAME}),?\s+(?:my|our)\s+(?P<rel>{_REL_NOUN})\b"
        r"(?=\s*(?:[,.!?;:)—–]|-\s|$)|\s+who\b)"
    ),
    re.compile(rf"\b(?P<name>{_NAME})\s+and\s+(?:I|me)\b|\b(?:[Mm]e|I)\s+and\s+(?P<name2>{_NAME})"),
    re.compile(
        rf"\b(?P<name>{_NAME})\s+(?:said|says|told|tells|asked|asks|texted|invited|visited|"
        r"suggested|mentioned|recommended|called\s+me)\b"
    ),
    # Time spent with someone: "went hiking with Bo", "caught up with Bo"; not "went with
    # Postgres" (a choice) nor "dealing with Kafka".
    re.compile(
        r"\b(?:(?:hung|hang|hanging)\s+out|(?:met|meet|meeting|caught|catch|catching)\s+up|"
        r"(?:went|go|going|goes)\s+\w+ing|talked|spoke|chatted|had\s+(?:lunch|dinner|coffee|"
        rf"drinks|breakfast))\s+with\s+(?P<name>{_NAME})\b"
    ),
]
_DETERMINERS = word_set("The A An My Our Your His Her Their Its This That These Those")
# Shaped as an adverb or a gerund: "Thankfully", "Honestly", "Marrying". A shorter word may be a
# name ("Kelly", "King") and is left one.
_ADVERB_OR_GERUND = re.compile(r"[A-Z][a-z]{3,}ly|[A-Z][a-z]{2,}ing")
# Shaped as a gerund or an abstract noun, as no given name is: "Monitoring", "Alerting",
# "Automation", "Observability", "Redundancy".
_GERUND_OR_ABSTRACT = re.compile(r"[A-Z][a-z]{2,}(?:ing|tion|sion|ment|ness|bility|ancy|ency|ism)")


def _common_plural(word: str) -> bool:
    """A plural common noun: "Canaries", "Retries"; "Backups", "Alerts", "Caches", "Indexes",
    as the word without its ending is a word. Not "James", "Jules", "Lucas", "Doris", "Ross",
    "Marcus", which end as no such plural does or are no word without their "s"."""
    low = word.lower()
    if len(low) > 4 and low.endswith("ies"):
        return True
    if re.search(r"(?:ch|sh|x|z)es$", low) and is_word(low[:-2]):
        return True
    return len(low) > 3 and re.search(r"[^aiosu]s$", low) is not None and is_word(low[:-1])


# One or two capitalised words ("Redis and Kafka"), as a product may be spelt ("Node.js", "S3").
_BARE_NAME = re.compile(r"[A-Z][\w.+#-]*(?:\s+(?:and\s+)?[A-Z][\w.+#-]*)?")
# Spelt as no person is: "DNS", "PgBouncer", "S3", "Node.js"; not "TJ", "LeBron", "McDonald".
_PRODUCT_NAME = re.compile(
    r"[A-Z]{3,}\w*|(?!(?:Mc|Mac|De|Di|Da|Du|La|Le|Van|Von)[A-Z])[A-Z]?[a-z]+[A-Z]\w*|"
    r"\w*\d\w*|\w+(?:[.+#]\w*)+|"
    # two letters are initials ("TJ") unless they are what engineers abbreviate
    r"(?:CI|CD|QA|DB|UI|UX|OS|VM|IP|PR|AI|HA|LB|IO|MQ|GC)s?"
)
# Who or what no one in particular is: "Nothing caused the outage" claims no cause.
_NOBODY = STOPWORDS | word_set(
    """nothing nobody none neither either everything everybody everyone something somebody
    someone anything anybody anyone whatever whoever many several every another others"""
)
_NOT_NAMES = word_set(
    """I The A An My Our Your His Her Their It This That These Those We You They He She Me Us
    Them Mom Mum Dad God Hey Hi Oh Yes No So And But Then Well Also Just Lol Haha Wow Thanks Ok
    Okay Today Yesterday Tomorrow Monday Tuesday Wednesday Thursday Friday Saturday Sunday
    January February March April May June July August September October November December
    Christmas Easter There Here What When Where Why How Who Which Someone Everyone"""
)


_PICTURE = re.compile(r"an?\s+(?:photo|picture|image|screenshot|photograph)\b", re.IGNORECASE)


@dataclass
class _Found:
    """A cue found in a sentence."""

    start: int  # with the negation and auxiliaries before a verb cue
    end: int
    cue: _Cue
    negated: bool
    weight: float


@dataclass
class _Draft:
    item: Item
    msg: int  # index of the message it came from
    question: bool = False
    effect_text: str | None = None  # the clause read for polarity, when it is an effect
    # An outcome told whole, its cause's words and all ("Skipping the load test was a mistake"):
    # what happened, even when it goes on to cause something.
    whole: bool = False


class _Extractor:
    def __init__(
        self,
        messages: Sequence[Message],
        date: datetime | None,
        note: bool,
        known: Sequence[str] = (),
    ) -> None:
        self.messages = messages
        self.date = date
        self.turns, self.items = NOTE_REACH if note else (ANTECEDENT_TURNS, NP_LOOKBACK)
        self.speakers = list(dict.fromkeys(m.speaker for m in messages if m.speaker))
        self.drafts: list[_Draft] = []
        self.links: dict[tuple[int, int, str], float] = {}
        # the messages that told each causal link
        self.told: dict[tuple[int, int, str], list[str]] = {}
        self.telling = ""  # the message read now
        self.pairs: set[frozenset[int]] = set()  # linked items, either way
        self.by_text: dict[str, int] = {}
        self.focus: list[tuple[int, int]] = []  # (message, item) each statement ends on
        self.tried: set[int] = set()  # causes of a "did not fix it" claim: measures
        self.lacks: set[int] = set()  # "No disk usage alert": what was missing, no measure
        self.people: dict[str, dict[str, Any]] = {s: {"role": "speaker"} for s in self.speakers}
        self.name_words = frozenset(w for s in self.speakers for w in tokens(s))
        # People the memory already knows ("Rose" spoke last week): a person when named again.
        self.known = frozenset(w for name in known for w in tokens(name))
        # Capitalised where no sentence starts: a name (or a thing) by its spelling.
        self.mid_sentence = frozenset(
            w
            for m in messages
            for sentence in split_sentences(m.text)
            for w in re.findall(r"[A-Za-z]+", sentence)[1:]
            if w[0].isupper()
        )

    # -- per message ---------------------------------------------------------------------------

    def run(self) -> Extraction:
        for k, msg in enumerate(self.messages):
            first = len(self.drafts)
            self.telling = msg.id
            ref = msg.time or self.date
            addressee = self._addressee(k)
            answer = (
                k > 0
                and self.messages[k - 1].speaker != msg.speaker
                and (self.messages[k - 1].text.rstrip().endswith("?"))
            )
            for sentence in split_sentences(msg.text):
                if not is_acknowledgement(sentence, self.name_words, answer=answer):
                    to = addressee
                    if len(self.speakers) > 2 and msg.speaker:
                        to = self._addressee(k, sentence) or addressee
                    self._sentence(k, msg, sentence, ref, to)
            if msg.caption:
                caption = msg.caption.strip().rstrip(".")
                shared = "shared " if _PICTURE.match(caption) else "shared an image: "
                self._add("note", f"{msg.speaker} {shared}{caption}.", k, msg, {"image": True})
            self._link_turn(k, first)
        return self._finish()

    def _addressee(self, k: int, text: str | None = None) -> str | None:
        """Who "you" is: the other of two speakers; among more, the one `text` (a sentence of
        the message; the whole message when it names no one) names ("Ana, you own the
        checklist", "@Dan your laptop …", "Sorry, Ben, you were right"), else nobody (kept as
        "you")."""
        msg = self.messages[k]
        if not msg.speaker:
            return None
        if len(self.speakers) == 2:
            return next(s for s in self.speakers if s != msg.speaker)
        known = {n.split()[0].casefold(): n for n in self.people if n != msg.speaker}
        for m in _VOCATIVE.finditer(text if text is not None else msg.text):
            name = m["at"] or m["start"] or m["greeted"] or m["end"]
            if name.casefold() in known:  # a handle may be lowercase: "@ben"
                return known[name.casefold()]
            if m["at"] and name[:1].isupper():
                return name
        return None

    def _sentence(
        self, k: int, msg: Message, sentence: str, ref: datetime | None, addressee: str | None
    ) -> None:
        if _HEDGE.match(sentence):
            bare = _capitalise(_HEDGE.sub("", sentence))
            read = rewrite_pronouns(bare, msg.speaker, addressee) if msg.speaker else bare
            lead = _LEAD_CLAUSE.match(read)
            # A causal claim, hedged; "after dinner, …" and "without a doubt, …" tell no cause.
            if _CUE_RE.search(read) or (lead and lead["cue"].split()[0].lower() not in _WEAK_LEADS):
                sentence = bare
        spans = resolve(sentence, ref) if ref is not None else []
        said = rewrite_pronouns(sentence, msg.speaker, addressee) if msg.speaker else sentence
        text = _annotate(said, spans)
        self._find_people(sentence, msg.speaker)
        question = sentence.rstrip().endswith("?")
        names = [*self.people]
        if question:
            self._add("note", text, k, msg, {"question": True}, spans, question=True)
            return
        if not (_LESSON.search(sentence) or _PREFERENCE.search(sentence)):
            focus = self._causal(k, msg, text, spans)
            if focus is not None:
                self.focus.append((k, focus))
                return
        dated = any(s.precision != "vague" for s in spans)
        kind = _classify(sentence, text, names, dated)
        attrs: dict[str, Any] = {}
        if kind == "preference":
            attrs["sentiment"] = _sentiment(sentence)
        i = self._add(kind, text, k, msg, attrs, spans)
        self.focus.append((k, i))

    def _add(
        self,
        kind: Kind,
        text: str,
        k: int,
        msg: Message,
        attrs: dict[str, Any] | None = None,
        spans: Sequence[TimeSpan] = (),
        *,
        question: bool = False,
        effect_text: str | None = None,
    ) -> int:
        text = _capitalise(text.strip())
        key = normalize(text).rstrip(".!…。！ ")  # "I prefer tabs!" is "I prefer tabs."
        if key in self.by_text:  # said again: one item, several sources
            i = self.by_text[key]
            sources = self.drafts[i].item.sources
            if msg.id not in sources:
                sources.append(msg.id)
            return i
        attributes = {**said_in(self.messages, k, self.date), **(attrs or {})}
        when = None
        mine = [s for s in spans if s.phrase in text and s.precision != "vague"]
        if mine:
            when = mine[0].anchor
            attributes["when_phrase"] = mine[0].phrase
            attributes["when_end"] = mine[0].end.isoformat()
        self.drafts.append(
            _Draft(Item(kind, text, [msg.id], when, attributes), k, question, effect_text)
        )
        self.by_text[key] = len(self.drafts) - 1
        return len(self.drafts) - 1

    def _link(self, src: int, dst: int, relation: Relation, weight: float) -> None:
        if src != dst:
            key = (src, dst, relation)
            self.links[key] = max(weight, self.links.get(key, 0.0))
            if relation in CAUSAL:
                told = self.told.setdefault(key, [])
                if self.telling not in told:
                    told.append(self.telling)
            self.pairs.add(frozenset((src, dst)))

    def _linked(self, a: int, b: int) -> bool:
        return frozenset((a, b)) in self.pairs

    def _link_turn(self, k: int, first: int) -> None:
        """Consecutive items of one turn are related, and so is an answer to its question; a
        reply's opening item is related (more weakly) to each item of the turn it replies to."""
        mine = [i for i in range(first, len(self.drafts)) if self.drafts[i].msg == k]
        for a, b in itertools.pairwise(mine):
            if not self._linked(a, b):
                self._link(a, b, "related", RELATED)
        if mine and first > 0:
            prev = self.drafts[first - 1]
            if prev.question and prev.msg == k - 1 and not self._linked(first - 1, mine[0]):
                self._link(first - 1, mine[0], "related", RELATED)
            i = first - 1
            while i >= 0 and self.drafts[i].msg == k - 1:
                if not self._linked(i, mine[0]):
                    self._link(i, mine[0], "related", REPLY)
                i -= 1

    # -- causal --------------------------------------------------------------------------------

    def _causal(self, k: int, msg: Message, text: str, spans: Sequence[TimeSpan]) -> int | None:
        """Split a causal sentence into linked items; returns the item it ends on, or None."""
        opened = _unopened(text)  # "So", "Well, basically", "Turns out" left out
        root = _ROOT_CAUSE.match(_MARKUP.sub("", opened))
        if root is not None:
            return self._root_cause(k, msg, root, spans)
        lead = _LEAD_CLAUSE.match(_OPENER.sub("", text))  # "Without a doubt, …" is no lead
        if lead is not None and not _after_a_time(lead):
            return self._lead_clause(k, msg, text, lead, spans)
        opening = _CLAUSE_LEAD.match(_OPENER.sub("", text))
        if opening is not None and (focus := self._clause_lead(k, msg, opening, spans)) is not None:
            return focus
        alone = _LEAD_ALONE.match(text)
        if alone is not None and alone["so"] is not None and self._claims_from_start(alone["y"]):
            alone = None  # "So the deploy caused the outage": "so" only carries the talk on
        if alone is not None and (alone["so"] is None or re.match(_SUBJ, alone["y"], re.I)):
            cause = self._antecedent(k)
            if cause is not None:
                relation: Relation = "prevented" if alone["other"] else "caused"
                effect, relation = self._effect(alone["y"], k, msg, spans, relation)
                weight = WEAK if alone["so"] or alone["other"] else ANAPHORIC
                self._link(cause, effect, relation, weight)
                return effect
        text = opened
        last = _RESULT_LAST.match(text)
        if last is not None and not self._find_cues(text):
            return self._result_last(k, msg, last["y"], spans)
        had_it = _HAD_IT.match(text)
        if had_it is not None:
            return self._had_it(k, msg, had_it, spans)
        lacking = _WITHOUT_LAST.match(text)
        if lacking is not None and not self._find_cues(text):
            focus = self._went_without(k, msg, _clean(lacking["x"]), _clean(lacking["y"]), spans)
            if focus is not None:
                return focus
        when = _WHEN_CLAUSE.match(text)
        if when is not None and self._find_cues(when["x"]):
            # "When the migration caused the outage, we rolled back": the claim is the clause
            # "when" opens; what follows it happened then, and is an item of its own.
            focus = self._mid_cues(k, msg, when["x"], spans)
            self._untold(text, [(0, when.end("x"))], k, msg, spans)
            return focus
        focus = self._mid_cues(k, msg, text, spans)
        came = _IT_CAME_ABOUT.match(text)
        if came is not None and not _AN_OBJECT.match(text, came.end()):
            return focus  # "It happened (because …)": the earlier thing came about, did nothing
        if focus is None and _says_what_it_did(text) and self._judges_a_doing(text, k):
            focus = self._segment(text, k, msg, spans)
        return focus

    def _result_last(
        self, k: int, msg: Message, told: str, spans: Sequence[TimeSpan]
    ) -> int | None:
        """'X and Y as a result': X caused Y; 'Y as a result': what was said before did. Not
        'If X and Y as a result', nor 'When X, Y as a result', whose cause is its opening."""
        if _CONDITION.match(told) or _TIME_CLAUSE.match(told) or _NO_CLAIM_SUBJECT.search(told):
            return None
        joins = list(_AND_THEN_A_CLAUSE.finditer(told))
        if joins:
            x, y = _clean(told[: joins[-1].start()]), _clean(told[joins[-1].end() :])
            cause, weight = self._segment(x, k, msg, spans) if y else None, EXPLICIT
        else:
            x, y = "", _clean(told)
            cause, weight = self._antecedent(k), ANAPHORIC
        if cause is None:
            return None
        effect, relation = self._effect(y, k, msg, spans, "caused")
        if effect == cause:
            return None
        if _SUPPOSED.search(x or y):
            weight *= HYPOTHETICAL
        self._link(cause, effect, relation, weight)
        return effect

    def _had_it(
        self, k: int, msg: Message, m: re.Match[str], spans: Sequence[TimeSpan]
    ) -> int | None:
        """'If we had had X, Y would not have happened': X would have prevented Y, which
        happened for want of it."""
        measure = self._segment(_clean(m["x"]), k, msg, spans)
        if measure is None:
            return None
        told = _clean(m["y"]) if _JUST_HAPPENED.fullmatch(m["v"]) else f"{m['y']} had {m['v']}"
        effect, _ = self._effect(told, k, msg, spans, "prevented")
        weight = EXPLICIT * HYPOTHETICAL
        self._link(measure, effect, "prevented", weight)
        self._lacked(measure, effect, weight, k, msg, spans)
        return effect

    def _lacked(
        self,
        measure: int,
        effect: int,
        weight: float,
        k: int,
        msg: Message,
        spans: Sequence[TimeSpan],
    ) -> None:
        """What would have prevented `effect` was missing ("A disk usage alert would have
        prevented the outage"): its lack ("No disk usage alert") let the effect happen, and is
        what tracing the effect back finds."""
        lack = self._lack_of(self.drafts[measure].item.text.rstrip(".!?").strip())
        if lack is None:
            return
        item = self._add("event", lack, k, msg, {}, spans)
        self.lacks.add(item)
        self._link(item, effect, "enabled", weight)

    def _done_without(
        self,
        done: str,
        effect: int,
        weight: float,
        k: int,
        msg: Message,
        spans: Sequence[TimeSpan],
    ) -> None:
        """'We shipped the release without tests, which caused the outage': the tests were
        missing, and their lack ("No tests") let the outage happen, as 'Without a disk usage
        alert, the outage went unnoticed' tells (`_went_without`). Only for what went wrong."""
        without = _WITHOUT_LAST.match(done)
        told = self.drafts[effect]
        if (
            without is None
            or not _a_measure(x := _clean(without["x"]))
            or outcome_polarity(told.effect_text or told.item.text).label != "negative"
            or (lack := self._lack_of(x)) is None
        ):
            return
        item = self._add("event", lack, k, msg, {}, spans)
        self.lacks.add(item)
        self._link(item, effect, "enabled", weight * HYPOTHETICAL)

    def _went_without(
        self, k: int, msg: Message, x: str, y: str, spans: Sequence[TimeSpan]
    ) -> int | None:
        """'Without a disk usage alert, the outage went unnoticed': the alert, a thing that was
        missing, would have prevented what went wrong, and its lack let it happen. Not a
        manner or a person ("without warning", "without the kids"), nor what was not bad
        ("without the kids, we went to dinner"), nor what is to be done or will be."""
        if not _a_measure(x):
            return None
        words = re.findall(r"[a-z]+(?:['’][a-z]+)?", y.lower())
        if (
            _is_instruction(y)
            or _FUTURE.search(y)
            or not any(is_past(w) for w in words[1:])
            or outcome_polarity(y).label != "negative"
        ):
            return None
        measure = self._segment(x, k, msg, spans)
        if measure is None:
            return None
        effect, _ = self._effect(y, k, msg, spans, "prevented")
        if effect == measure:
            return None
        weight = EXPLICIT * HYPOTHETICAL
        self._link(measure, effect, "prevented", weight)
        self._lacked(measure, effect, weight, k, msg, spans)
        return effect

    def _lack_of(self, measure: str) -> str | None:
        """How a missing `measure` is told: "No disk usage alert", "No rate limiting", "Not
        running a canary"; none for what no measure is ("Nothing would have prevented it",
        "More testing …"). A person is no cause to begin with ("Ben would have caught it")."""
        m = _A_MEASURE.match(measure)
        if m is not None:
            return f"No {m['thing']}" if m["thing"] else f"Not {_decapitalise(m['doing'])}"
        # "Rate limiting", "Disk usage alerts": a thing with no article; a name keeps its case.
        first = measure.split()[0] if measure else ""
        named = first in self.mid_sentence or is_tool(first) or is_tool(measure)
        bare = measure if named else _decapitalise(measure)
        return f"No {bare}" if re.fullmatch(_BARE_SUBJ, _decapitalise(measure)) else None

    def _judges_a_doing(self, text: str, k: int) -> bool:
        """A verdict ("That was a mistake") judges something done: not "Bob is my brother" or
        "The server crashed"."""
        verdict = _VERDICT.match(text)
        if verdict is None:
            return True
        if _BARE_DOING.fullmatch(verdict["it"]):  # "That decision was a mistake": the latest doing
            return self._antecedent(k, done=True) is not None
        before = self._antecedent(k)
        return before is not None and self._agentive(self.drafts[before].item.text, [*self.people])

    def _lead_clause(
        self, k: int, msg: Message, text: str, m: re.Match[str], spans: Sequence[TimeSpan]
    ) -> int | None:
        cue = " ".join(m["cue"].lower().split())
        x, y = _clean(m["x"]), _clean(m["y"])
        if not re.search(r"\w", y):
            return None  # "after Ed, -": nothing follows to be the effect
        if cue != "without" and _is_instruction(y):
            return None  # "After the deploy, check the dashboard": told in order, not a cause;
            # "Because the deploy broke checkout, roll back": what to do, and why
        if cue == "without":
            if not _COUNTERFACTUAL.search(y):
                return self._went_without(k, msg, x, y, spans)
            relation: Relation = "enabled" if _NEGATED_COUNTERFACTUAL.search(y) else "prevented"
            weight = EXPLICIT
        else:
            relation = _LEAD_RELATION[cue]  # type: ignore[assignment]
            weight = WEAK if cue == "after" else EXPLICIT
        if cue == "after" and _tells_no_cause(x):
            return None  # decided before any item is made for it
        cause = self._segment(x, k, msg, spans)
        if cause is None:
            return None
        effect, relation = self._effect(y, k, msg, spans, relation)
        self._link(cause, effect, relation, weight)
        return effect

    def _clause_lead(
        self, k: int, msg: Message, m: re.Match[str], spans: Sequence[TimeSpan]
    ) -> int | None:
        """'Since the cache was cold, latency spiked', 'Once we added the index, latency
        dropped': the clause the cue opens caused (or enabled) the one after the comma."""
        cue = _CLAUSE_CUES[m["cue"].lower()]
        x, y = _clean(m["x"]), _clean(m["y"])
        if not re.match(cue.pattern, m.group(), re.IGNORECASE) or not _clause_cue_holds(cue, x, y):
            return None
        if cue is _ONCE and self._find_cues(x):
            return None  # "Once the migration caused the outage, …": as after "when", that claim
        cause = self._segment(x, k, msg, spans)
        if cause is None:
            return None
        effect, relation = self._effect(y, k, msg, spans, cue.relation)
        if effect == cause:
            return None
        self._link(cause, effect, relation, cue.weight)
        return effect

    def _claims_from_start(self, text: str) -> bool:
        """Whether `text` opens on a cause and its verb ("the deploy caused the outage"; not
        "the database crashed, which caused …", "the game was cancelled because …")."""
        found = self._find_cues(text)
        if not found or not found[0].cue.verb or found[0].cue.direction != "forward":
            return False
        cause = text[: found[0].start]  # a thing ("the deploy"), not a clause ("it crashed and")
        return not re.search(r"[,;:—–]|\s-\s", cause) and not any(
            is_past(w) for w in cause.lower().split()
        )

    def _root_cause(
        self, k: int, msg: Message, m: re.Match[str], spans: Sequence[TimeSpan]
    ) -> int | None:
        x, told = _clean(m["x"]), m["y"] or m["y2"]
        heading = m["hedge"] is None  # "Root cause: expired TLS cert."
        if (not heading and not _NAMES_A_CAUSE.match(x)) or _NOT_KNOWN.search(x):
            return None
        verb = "was" if heading else m["hedge"].split()[0].lower()
        if verb.endswith(("n't", "n’t")):
            x, verb = f"not {x}", verb[:-3]  # "… wasn't the database, it was the network"
        relation: Relation = "caused"
        weight = EXPLICIT if verb in _SURE else EXPLICIT * HYPOTHETICAL
        hedge = re.match(rf"(?i){_HEDGED}\s+", x)
        if hedge:
            x, weight = x[hedge.end() :], EXPLICIT * HYPOTHETICAL
        instead = None
        if re.match(r"(?i)not\s+", x):  # "… was not the load balancer (but DNS)"
            x, *but = re.split(r"(?i),?\s+but\s+|,\s*(?:it|that)\s+was\s+", x[4:], maxsplit=1)
            relation, instead = "no_effect", (but[0] if but else None)
        x = re.sub(r"(?i)^that\s+", "", x)
        # "… was a bad deploy, which caused the pods to crash" / "…; we fixed it in an hour": the
        # cause is the first clause, and the rest is read on its own.
        rest = _AFTER_THE_CAUSE.search(x)
        head = _clean(x[: rest.start()]) if rest else x
        if told:
            effect, relation = self._effect(_clean(told), k, msg, spans, relation)
        else:
            # "The root cause was X" is of what was just told, when that went wrong: not "the
            # cause" of a charity run, nor "the culprit" of a novel.
            found = self._antecedent(k)
            if found is None or outcome_polarity(self.drafts[found].item.text).label != (
                "negative"
            ):
                return None
            effect, weight = found, min(weight, ANAPHORIC)
        cause = self._segment(head, k, msg, spans)
        if cause is None or cause == effect:
            return None
        self._link(cause, effect, relation, weight)
        if instead and (end := _AFTER_THE_CAUSE.search(instead)):
            # "… but DNS; we rolled back": what follows the cause is read on its own
            self._untold(instead, [(0, end.start())], k, msg, spans)
            instead = instead[: end.start()]
        if instead and _NAMES_A_CAUSE.match(instead):
            other = self._segment(_clean(instead), k, msg, spans)
            if other is not None and other != effect:
                self._link(other, effect, "caused", weight)
        if rest and relation == "caused" and self._find_cues(x):
            self._mid_cues(k, msg, x, spans)
        elif rest and relation == "caused":
            self._untold(x, [(0, rest.start())], k, msg, spans)
        return effect

    def _find_cues(self, text: str) -> list[_Found]:
        """The causal cues of a sentence that make a claim, in order."""
        found: list[_Found] = []
        if _CUE_WORDS.isdisjoint(re.findall(r"[a-z]+", text.lower())):
            return found
        for m in _CUE_RE.finditer(text):
            if len(found) == MAX_CUES:
                break
            cue = _CUES[int(m.lastgroup[1:])]  # type: ignore[index]
            f = _Found(m.start(), m.end(), cue, False, cue.weight)
            if cue.verb:
                previous = text[max(0, f.start - 40) : f.start].split()[-1:]
                following = text[f.end : f.end + 40].split()[:1]
                if (
                    not previous
                    or previous[0].lower() in _NOT_A_CLAIM_BEFORE
                    or not following
                    or following[0].lower().strip(".,!?") in _NOT_A_CLAIM_AFTER
                    or _RELATIVE_END.search(text, max(0, f.start - 60), f.start)
                ):
                    continue  # "the cause", "to help", "that she contributed to": no claim
                before = _BEFORE_VERB_CUE.search(text, max(0, f.start - 60), f.start)
                if before is not None:
                    f.start, f.negated = before.start(), before["neg"] is not None
                    if before["aux"] and _MODAL.search(before["aux"].lower()):
                        f.weight *= HYPOTHETICAL
                lo = max(found[-1].end if found else 0, f.start - WINDOW)
                if cue is _DID and (
                    previous[0].lower() in _NOT_DID_BEFORE
                    or (found and _last_clause(text, lo, f.start) == found[-1].end)
                ):
                    continue  # "one fixed TTL", "was fixed the next day"; "… and as a result a
                    # retry storm took down X": the effect of the cue before, told whole
                subject = _clean(text[_last_clause(text, lo, f.start) : f.start])
                subject = _after_time(_without_asides(subject))  # "Yesterday Ben and I"
                if _CONDITION.match(subject) or (
                    cue.agentive and _KIN.fullmatch(subject) and not _BY_GERUND.search(text, f.end)
                ):
                    continue  # "If the migration breaks …"; "my mom helped me": a person
                if cue is _DID and re.search(r"(?i)\b(?:who|that|which)$|^no\b(?!-)", subject):
                    continue  # "the guy who fixed my bike": who it is, not what happened; "No
                    # deploy broke the login page": nothing did
                if (
                    self._is_agent(subject)
                    and not _BY_GERUND.search(text, f.end)
                    and not self._names_thing(subject, cue)
                ):
                    continue  # "Caroline helped Melanie move": a person acting, not a cause
                if cue is _MEANT and self._someone_meant(subject, cue):
                    continue  # "By Tuesday I meant that …": what someone meant to say
            if not self._gate_passes(text, f, found[-1].end if found else 0):
                continue
            if found and not re.search(r"\w", text[found[-1].end : f.start]):
                found.pop()  # ", which prevented": the verb cue is the one that says how
            found.append(f)
        if len(found) > 1:  # "was a good idea, but it didn't help": a verdict told whole, or none
            found = [f for f in found if f.cue is not _JUDGED]
        return found

    @staticmethod
    def _gate_passes(text: str, f: _Found, lo: int) -> bool:
        """'Traced to' names a cause only of what went wrong (not "the call was traced to a
        payphone"), and "stems from" not an origin in time ("the tradition stems from the
        1800s")."""
        if f.cue is _TRACED:
            told = text[_last_clause(text, lo, f.start) : f.start]
            return outcome_polarity(told).label == "negative"
        if f.cue is _STEMMED:
            origin = text[f.end : _first_clause(text, f.end, len(text))]
            return not _A_TIME_AGO.match(origin)
        if f.cue in (_SINCE, _AS, _AS_CHOSEN, _ONCE):
            told = _last_clause(text, max(0, f.start - WINDOW), f.start)
            cause = text[f.end : _first_clause(text, f.end, len(text))]
            if f.cue is _AS_CHOSEN and not (
                _DECISION.search(text, told, f.start) or _SWITCHED.search(text, told, f.start)
            ):
                return False
            return not (f.cue in (_AS, _AS_CHOSEN) and _COMPARED.search(text, 0, f.start)) and (
                _clause_cue_holds(f.cue, _clean(cause), _clean(text[told : f.start]))
            )
        if f.cue is _JUDGED:
            done = _clean(text[_last_clause(text, lo, f.start) : f.start])
            return not _NO_VERDICT_BEFORE.search(text, 0, f.start) and bool(
                _A_DOING.fullmatch(_after_time(_without_asides(_unopened(done))))
            )
        return True

    def _mid_cues(self, k: int, msg: Message, text: str, spans: Sequence[TimeSpan]) -> int | None:
        found = self._find_cues(text)
        focus = told = None  # told: what the cue before ended on, when it made a link
        doer: tuple[int, str, float] | None = None  # the link before: cause, words, weight
        used: list[tuple[int, int]] = []  # what the links were read from
        for n, f in enumerate(found):
            told_before, told = told, None
            lo = found[n - 1].end if n else 0
            forward = f.cue.direction == "forward"
            hi = found[n + 1].start if n + 1 < len(found) else len(text)
            # "A caused B because C": C explains all of "A caused B"
            left_lo = _last_clause(text, lo if forward else max(0, f.start - WINDOW), f.start)
            if (
                not n
                and forward
                and left_lo > lo
                and _is_list_head(text[lo:left_lo], text[left_lo : f.start])
            ):
                left_lo = lo  # "Good food, laughs, and chats help us stay close": one cause
            right_hi = hi if f.cue.effect == "sentence" else _first_clause(text, f.end, hi)
            if f.cue.passive or "," in text[f.end : right_hi]:
                # "caused by disk, memory, and network problems", "because it builds muscle,
                # increases power, and prevents injuries": one list
                tail = _LIST_END.match(text, right_hi)  # to the end: a cue in it claims nothing
                right_hi = tail.end() if tail else right_hi
            left, right = _clean(text[left_lo : f.start]), _clean(text[f.end : right_hi])
            relation: Relation = "no_effect" if f.negated else f.cue.relation
            cause_text, effect_text = (left, right) if forward else (right, left)
            if f.cue is _CAUGHT:
                effect_text = _SOONER.sub("", effect_text.rstrip(".!"))
            if f.cue is _PREVENTED_FROM:  # "from overloading", not "from Wyoming"
                effect_text = re.sub(r"\bfrom\s+(?=[a-z]\w*ing\b)", "", effect_text, count=1)
            if f.cue.passive:
                cause_text = _by_whom(cause_text)
            if forward:  # "When I was a kid, my dad …", "Priya said the migration …"
                cause_text = _REPORTED.sub("", _without_asides(cause_text))
            shared = (
                doer is not None
                and not cause_text
                and forward
                and _CONJOINED.fullmatch(text[used[-1][1] : f.start]) is not None
            )
            if shared and doer is not None:  # "The rollout fixed the leak but slowed down …"
                cause_text, f.weight = doer[1], min(f.weight, doer[2])
            if f.cue.verb and not cause_text:
                continue  # no subject: an imperative or a fragment
            if f.cue in (_AFTER, _BECAUSE) and _is_instruction(effect_text):
                continue  # "Check the dashboard after the deploy finished": what to do then;
                # "Roll back because the deploy broke checkout": what to do, and why
            if forward and _NO_CLAIM_SUBJECT.search(cause_text):
                continue  # "If the deploy was the root cause …", "Neither X nor Y caused …"
            if (
                forward
                and not f.cue.verb
                and f.cue is not _SO_THAT
                and _SUPPOSED.search(cause_text)
            ):
                f.weight *= HYPOTHETICAL
            acting = self._is_agent(cause_text) or _KIN.fullmatch(cause_text)
            by = _BY_GERUND.search(right) if acting else None
            if by is not None:  # "We avoided the outage by adding a breaker"
                cause_text, effect_text = by.group(1), _clean(right[: by.start()])
            if not re.search(r"\w", effect_text) and f.cue.effect in ("np", "full"):
                continue
            if (
                f.cue.effect in ("np", "full")
                and effect_text.lower().rstrip(".!?") in _ANAPHORS
                and self._antecedent(k) is None
            ):
                continue  # "Stress was the reason for it." with nothing told before
            if _IT_CAME_ABOUT.fullmatch(effect_text.rstrip(".!")) and self._event_before(k) is None:
                continue  # "It happened because …" after small talk, or with nothing before
            also = re.fullmatch(r"(?i)(.*\w)\s*,?\s+and\s+(?:it|this|that)", cause_text)
            if also and forward:  # "Priya merged the change and it broke the login page"
                cause_text = also.group(1)
            anaphoric = not cause_text or cause_text.lower() in _ANAPHORS
            judged = None  # "The migration was a mistake": the migration told before
            if f.cue is _JUDGED and _BARE_DOING.fullmatch(cause_text):
                judged = self._antecedent(k, done=True)
                if judged is None:
                    continue  # no stub "The migration" of its own
                anaphoric = True
            # "A retry storm took down X, so Y": what the cue before told caused Y
            chained = (
                told_before is not None
                and found[n - 1].cue.direction == "forward"
                and left_lo == lo
            )
            if (
                not anaphoric
                and not chained
                and not shared
                and not self._names_thing(cause_text, f.cue)
                # "Melanie's talk", "Rolling back": a thing or a doing, not a nod
                and not re.search(_POSSESSIVE + r"|^\w+ing\s+\w", cause_text)
                and is_acknowledgement(cause_text, self.name_words)
            ):
                continue  # "Wow, so happy you had fun": no cause in "Wow"
            cause_lo = left_lo  # where what the link was read from starts
            if anaphoric and forward and left_lo > lo and _clean(text[lo:left_lo]):
                # "X, and that stopped Y": 'that' is the clause before it
                cause_text, anaphoric, cause_lo = _clean(text[lo:left_lo]), False, lo
            if chained:
                cause, left_lo = told_before, used[-1][0]
            elif judged is not None:
                cause = judged
            elif shared and doer is not None:
                cause = doer[0]
            else:
                cause = self._segment(cause_text, k, msg, spans)
            if cause is None:
                continue
            if anaphoric:
                f.weight = min(f.weight, ANAPHORIC)  # the cause was said in an earlier sentence
            if f.cue.effect in ("clause", "sentence"):
                whole = _clean(text[left_lo:right_hi])
                if f.cue is _WHICH_DID:  # "It (Ben restarted the workers) cleared the queue."
                    what = _clean(text[left_lo : f.start]) or self.drafts[cause].item.text
                    what = shorten(what.rstrip("."), 70)
                    whole = f"It ({what}) {_clean(text[f.end : right_hi])}"
                elif shared:
                    whole = f"{cause_text} {whole}"
                if anaphoric and cause_text:  # "It didn't help" -> "It (adding caching) didn't"
                    antecedent = shorten(self.drafts[cause].item.text.rstrip("."), 70)
                    whole = whole.replace(cause_text, f"{cause_text} ({antecedent})", 1)
                polar = _demodalise(_clean(text[f.start : right_hi]))
                effect = self._add("outcome", whole, k, msg, {}, spans, effect_text=polar)
                self.drafts[effect].whole = True
            else:
                effect, relation = self._effect(effect_text, k, msg, spans, relation)
            if effect == cause:
                continue  # "That was the reason behind it": both ends are what was just told
            self._link(cause, effect, relation, f.weight)
            hypothetical = relation == "prevented" and bool(
                _COUNTERFACTUAL.search(text, f.start, f.end)
            )
            if hypothetical:
                self._lacked(cause, effect, f.weight, k, msg, spans)
            if relation == "caused":  # "We shipped without tests, which caused the outage"
                self._done_without(cause_text, effect, f.weight, k, msg, spans)
            if f.cue.tried:
                self.tried.add(cause)
            used.append((cause_lo, max(right_hi, f.end)))
            # "That" after a prevention means the measure, not what did not happen; so does
            # ", so …" ("The rain kept us from going out, so we played cards"). A measure that
            # only would have prevented it was never there to lead anywhere: "A canary would
            # have caught it. That led to 40 tickets" goes on with what happened.
            focus = told = cause if relation == "prevented" and not hypothetical else effect
            shown = cause_text  # the subject as the effect tells it: "It (we upgraded Redis)"
            if anaphoric and cause_text:
                shown = f"{cause_text} ({shorten(self.drafts[cause].item.text.rstrip('.'), 70)})"
            doer = (cause, shown, f.weight)
        self._untold(text, used, k, msg, spans)
        return focus

    def _untold(
        self,
        text: str,
        used: Sequence[tuple[int, int]],
        k: int,
        msg: Message,
        spans: Sequence[TimeSpan],
    ) -> None:
        """The clauses of a causal sentence that are neither cause nor effect ("We upgraded
        Postgres last week - the new planner caused a slowdown"; "…; we rolled back at noon")
        are items too: what was said is never only in the audit log."""
        at = 0
        for lo, hi in [*sorted(used), (len(text), len(text))] if used else ():
            rest = _unopened(_clean(text[at:lo])) if lo > at else ""
            words = re.findall(r"[a-z]+", rest.lower())  # "14:20" is a time, not a clause
            if (
                len(words) >= UNTOLD_WORDS
                and not set(words) <= STOPWORDS
                and not is_acknowledgement(rest, self.name_words)
            ):
                dated = any(s.precision != "vague" and s.phrase in rest for s in spans)
                self._add(_classify(rest, rest, [*self.people], dated), rest, k, msg, {}, spans)
            at = max(at, hi)

    def _effect(
        self, text: str, k: int, msg: Message, spans: Sequence[TimeSpan], relation: Relation
    ) -> tuple[int, Relation]:
        """The item for an effect clause. 'So we avoided the outage' is a prevention."""
        avoided = _AVOIDED.match(text) if relation == "caused" else None
        if avoided is not None and (not avoided["who"] or self._is_agent(avoided["who"].strip())):
            text, relation = avoided["what"], "prevented"
        text = _STOPPED_EARLY.sub("", text)
        if _IT_CAME_ABOUT.fullmatch(text.rstrip(".!")):
            event = self._event_before(k)
            if event is not None:  # "It happened because …": the outage told just before
                return event, relation
        # "It was caused by …": what was said; "Good, because MySQL kept deadlocking": the
        # assent is to what was said, and the cause is its reason
        if text.lower().rstrip(".!?") in _ANAPHORS or is_acknowledgement(text, self.name_words):
            ant = self._antecedent(k)
            if ant is not None:
                return ant, relation
        known = self._recent_np(text.rstrip(".!?"), k)
        if known is not None:
            return known, relation
        polar = _demodalise(text) if relation == "prevented" else text
        return self._add("outcome", text, k, msg, {}, spans, effect_text=polar), relation

    def _segment(self, text: str, k: int, msg: Message, spans: Sequence[TimeSpan]) -> int | None:
        """The item a cause (or effect) clause stands for: an earlier one, or a new one."""
        if not text or text.lower() in _ANAPHORS:
            # "that change": a doing; "that's what" or "all that": what was said
            return self._antecedent(k, done=bool(_BARE_DOING.fullmatch(text.strip())))
        known = self._recent_np(text, k)
        if known is not None:
            return known
        said = (
            (_VERDICT.match(text) or _ANAPHOR_ACTS.match(text)) if _says_what_it_did(text) else None
        )
        done = said is not None and bool(_BARE_DOING.fullmatch(said["it"]))
        antecedent = self._antecedent(k, done=done) if said is not None else None
        if said is None or antecedent is None:
            return self._add("event", text, k, msg, {}, spans)
        # "It kept the builds reproducible": what was said before did this
        it = said["it"]
        named = f"{it} ({shorten(self.drafts[antecedent].item.text.rstrip('.'), 70)})"
        item = self._add("event", named + text[len(it) :], k, msg, {}, spans)
        self._link(antecedent, item, "caused", WEAK)
        return item

    def _antecedent(self, k: int, done: bool = False) -> int | None:
        """What 'that' refers to: where the latest statement of the last few turns ended,
        passing over comments ("It was fun.") that are no event themselves. `done`: what was
        named by what it was ("that migration", "the change"), so the latest thing someone did
        ("We migrated the DB. Checkout went down. That migration caused the outage.")."""
        names = [*self.people]
        for msg, item in reversed(self.focus):
            if k - msg >= ANTECEDENT_TURNS:
                break
            text = self.drafts[item].item.text
            if done:
                if self._agentive(text, names, known=True):
                    return item
            # ... but a verdict is ("That was a mistake: checkout stalled. That led to …")
            elif not _COMMENT.match(text) or any(
                d == item and r in CAUSAL for _, d, r in self.links
            ):
                return item
        return None

    def _event_before(self, k: int) -> int | None:
        """What "It happened" stands for: the event the latest statement told, in this message
        or the one just before ("The checkout outage lasted an hour." / "It happened because
        …"). Not small talk ("Good morning team.", "Hope you had a nice weekend!"): the
        statement told something that went wrong, or something the transcript dated or gave a
        cause for."""
        if not self.focus or self.focus[-1][0] < k - 1:
            return None
        item = self.focus[-1][1]
        said = self.drafts[item].item
        if said.kind in ("preference", "lesson") or _COMMENT.match(said.text):
            return None
        if said.kind in ("event", "outcome") or any(
            d == item and r in CAUSAL for _, d, r in self.links
        ):
            return item
        return item if outcome_polarity(said.text).label == "negative" else None

    def _recent_np(self, text: str, k: int) -> int | None:
        """'The outage': a definite noun phrase naming a recent item's thing. The item names it
        with every word of it and ends on it, or, an outcome, ends on it before a phrase that
        follows ("the outage" is "The checkout outage on Saturday"; not "The outage backlog in
        support", "Our outage cost us $10k" or "The deploy on Friday went fine", and "the
        search outage" is not the checkout outage)."""
        words = _definite_np(text)
        if words is None:
            return None
        said = [stem(w) for w in words]
        for i in range(len(self.drafts) - 1, max(-1, len(self.drafts) - 1 - self.items), -1):
            d = self.drafts[i]
            if k - d.msg > self.turns:
                continue
            there = [stem(t) for t in tokens(d.item.text)]
            if d.item.kind == "outcome":  # an effect told with its time: "… outage on Saturday"
                there = _head_phrase(there)
            if there[-1:] == said[-1:] and set(said) <= set(there):
                return i
        return None

    def _someone_meant(self, subject: str, cue: _Cue) -> bool:
        """Whether who "meant" is a person, right before it ("By Tuesday I meant", "By soon
        Ana meant"), not a thing that came to pass ("The outage meant")."""
        who = _MEANT_BY_SOMEONE.search(subject)
        if who is None:
            return False
        name = who["name"]
        return name is None or (self._is_agent(name) and not self._names_thing(name, cue))

    def _is_agent(self, text: str) -> bool:
        """A bare person ('Ben and others', 'they'): someone acting, not a cause."""
        low = text.lower()
        if low in ("they", "he", "she", "someone", "somebody", "everyone", "people", "the team"):
            return True
        name = re.fullmatch(r"([A-Z][a-z]+)(?:\s+(?:and\s+)?[A-Z][a-z]+)?", text)
        if name and self._may_be_a_name(name.group(1)) and self._may_name_someone(text):
            return True  # a bare name, said by no one here: still a person
        who, rest = _subject(text, [*self.people])
        return who is not None and not rest

    def _names_thing(self, text: str, cue: _Cue) -> bool:
        """A bare name that is a thing, not a person or a nod: one spelt as no person is
        ("PgBouncer", "DNS", "S3", "Node.js"), a word no one is named ("Kafka", "Monitoring",
        "Canaries"; see `_may_name_someone`), or, before a cue people are seldom the subject
        of ("caused", "led to"), a name no one here bears ("Kafka caused the outage"; "Ben
        caused it" stays a person when Ben speaks or is named as someone)."""
        text = text.rstrip(".!?")
        if not _BARE_NAME.fullmatch(text) or text in self.people:
            return False
        words = [w for w in text.split() if w != "and"]
        if any(
            not self._may_be_a_name(w)
            or w.lower() in _NOBODY
            or (  # "Mel" is Melanie; "AI" is not Aiden, nor "Go" Gordon
                len(w) >= 3
                and w.istitle()
                and any(n.startswith(w.lower()) for n in self.name_words)
            )
            for w in words
        ):
            return False
        return (
            not cue.agentive
            or all(_PRODUCT_NAME.fullmatch(w) for w in words)
            or not self._may_name_someone(text)
        )

    # -- people --------------------------------------------------------------------------------

    def _find_people(self, sentence: str, speaker: str) -> None:
        start = len(sentence) - len(sentence.lstrip(" \"'“‘([*_"))
        for pattern in _PERSON_PATTERNS:
            for m in pattern.finditer(sentence):
                group = "name" if m["name"] else "name2"
                name = self._name(m[group], at_start=m.start(group) == start)
                if not name or name in self.people:
                    continue
                rel = m.groupdict().get("rel")
                self.people[name] = {"relation": rel, "of": speaker or None} if rel else {}

    def _name(self, found: str, *, at_start: bool) -> str | None:
        """The name in what a person cue found, without the words before it that are no name:
        "Yesterday Dana" -> Dana, "Honestly Priya" -> Priya, "Thankfully" -> none. A word only
        the sentence start capitalises, shaped as an adverb or a gerund, is no name either,
        unless the transcript also writes it capitalised mid-sentence ("… with Beverly").
        After a determiner it is a thing's name: "The Guardian said"."""
        words = found.split()
        if words[0] in _DETERMINERS:
            return None
        while words and (
            not self._may_be_a_name(words[0])
            or words[0].lower() in _LEAD_FILLER
            or (
                at_start
                and _ADVERB_OR_GERUND.fullmatch(words[0])
                and words[0] not in self.mid_sentence
                and not self._known(words[0])
            )
        ):
            words, at_start = words[1:], False
        name = " ".join(words)
        return name if name and self._may_name_someone(name) else None

    def _known(self, word: str) -> bool:
        """A word of the name of someone who speaks here or whom the memory knows."""
        low = word.lower()
        return word in self.people or low in self.name_words or low in self.known

    def _may_be_a_name(self, word: str) -> bool:
        """Not a word no one is named ("The", "Yesterday", "March"), except a month someone who
        speaks here or whom the memory knows is named: "May and I fixed the build"."""
        if word not in _NOT_NAMES:
            return True
        return word.lower() in MONTHS and self._known(word)

    def _may_name_someone(self, name: str) -> bool:
        """Whether a capitalised word or two ("Ben", "Kafka and Ben") may name a person: one who
        speaks here or is known, or any word shaped as a name; not a tool ("Jenkins", "New
        Relic"), even one the memory keeps as a person (an older misreading, unless they speak
        here), nor, where only a sentence's start capitalises it, a gerund, an abstract noun or
        a plural noun ("Monitoring", "Automation", "Canaries", "Backups")."""
        if name in self.people:
            return True
        if is_tool(name):
            return False
        return any(
            self._known(w)
            or not (
                is_tool(w)
                or (
                    w not in self.mid_sentence
                    and (_GERUND_OR_ABSTRACT.fullmatch(w) or _common_plural(w))
                )
            )
            for w in name.split()
            if w != "and"
        )

    # -- finishing -----------------------------------------------------------------------------

    def _finish(self) -> Extraction:
        causal_src = {s for s, _, r in self.links if r in CAUSAL}
        causal_dst = {d for _, d, r in self.links if r in CAUSAL}
        # What prevents or enables, unless itself bad, is a measure someone put in place.
        measures = {
            s
            for s, _, r in self.links
            if r in ("prevented", "enabled")
            and outcome_polarity(self.drafts[s].item.text).score >= 0
            and s not in self.lacks
        } | self.tried
        names = [*self.people]
        for i, d in enumerate(self.drafts):
            item = d.item
            if i not in causal_src and i not in causal_dst:
                continue
            if item.kind in ("preference", "lesson"):
                continue
            agent = self._agentive(item.text, names) or i in measures
            if i in causal_src and agent and not d.whole:
                item.kind = "decision"
                if i in self.tried:
                    item.attributes["tried"] = True  # a fix said not to have held
            elif i in causal_dst:
                # "We went with SQLite because it needs no server": a choice told with its
                # reason is still a choice, which its own outcomes can follow; a group's too.
                told = _ASIDES.sub("", d.effect_text or item.text)
                who, rest = _subject(told, names)
                if who is None or rest.startswith("'"):  # not a person, or "Ana's team"
                    who, rest = _group_subject(told) or (who, rest)
                chose = _DECISION.match(rest) or _SWITCHED.match(rest)
                item.kind = "decision" if who is not None and chose else "outcome"
            elif item.kind in ("note", "fact"):
                item.kind = "event"
            if item.kind == "outcome":
                p = outcome_polarity(d.effect_text or item.text)
                item.attributes.update(
                    polarity=p.score, polarity_label=p.label, polarity_cues=list(p.cues)
                )
        self._name_the_chosen()
        items = [d.item for d in self.drafts]
        self._people_items(items, names)
        links = []
        for (s, d, r), w in self.links.items():
            told = tuple(self.told.get((s, d, r), ()))
            links.append(ItemLink(s, d, r, round(w, 3), sources=told))  # type: ignore[arg-type]
        return Extraction(items=items, links=links)

    def _name_the_chosen(self) -> None:
        """In "We chose Postgres because it supports JSONB" the reason's "it" is the thing
        chosen, so the reason reads "It (Postgres) supports JSONB" and is found by that name.
        Not after "switched to", whose reason's "it" is as often what was left."""
        for s, d, relation in self.links:
            reason, choice = self.drafts[s], self.drafts[d]
            if relation != "caused" or choice.item.kind != "decision" or reason.msg != choice.msg:
                continue
            chosen = _CHOSEN.search(choice.item.text)
            if re.search(r"\b(?:over|instead|rather\s+than)\b", choice.item.text):
                continue  # "Postgres over Mongo because it kept losing data": "it" may be either
            if chosen is not None and _BARE_IT.match(reason.item.text):
                thing = chosen["what"].rstrip(".!")
                reason.item.text = f"It ({thing}){reason.item.text[2:]}"

    def _agentive(self, text: str, names: Sequence[str], *, known: bool = False) -> bool:
        """Done by someone: a person's action (not being, wishing, not doing or what befell
        them: "Ben was asleep", "We could migrate", "We didn't migrate", "Ben got paged"), a
        gerund ('Adding a cache'), or a decision. `known`: what someone surely did, for "that
        migration" to stand for: not any capitalised first word ("Checkout went down")."""
        # not what an "It (...)" stands for, nor "Ben (on-call)", nor when ("Yesterday Ben …")
        text = _after_time(_ASIDES.sub("", text))
        if _DECISION.search(text):
            return True
        who, rest = _subject(text, names)
        if who is not None and not rest.startswith("'"):  # "Caroline's empathy" acts not
            return _did_as_a_person(rest)
        if re.match(r"(?:I|We|we)\s+(?!(?:was|were|am|are|got|had)\b)[a-z]", text):
            return True  # a note's own "we rolled back", kept as written; "we were hit" is not
        group, rest = _group_subject(text) or (None, "")
        did = _DID_TO.match(rest)
        if (
            group
            and not _NOT_DOING.match(rest)
            and (_SWITCHED.match(rest) or (did and is_past(did["verb"])))
        ):
            return True  # "The team rolled back the deploy", not "The team grew" or "was paged"
        if known:  # "Carol rolled back the deploy": someone, a past verb, what it was done to
            named = _SOMEONE_DID.match(text)
            if (
                named
                and self._may_be_a_name(named["who"])
                and self._may_name_someone(named["who"])
                and is_past(named["verb"])
            ):
                return True
        named = None if known else re.match(r"([A-Z][a-z]+)\s+(?:\w+ly\s+)?([a-z]+)\b", text)
        if (
            named
            and self._may_be_a_name(named.group(1))
            and self._may_name_someone(named.group(1))
            and is_past(named.group(2))
        ):
            return True  # "Esme applied the migration": a name, then what they did; not "Kafka
            # dropped messages"
        first = re.match(r"\s*([A-Za-z]+)\s+\w", text)
        return bool(
            first and first.group(1).lower().endswith("ing")
            and first.group(1).lower() not in _GERUND_STOP
        )  # fmt: skip

    def _people_items(self, items: list[Item], names: list[str]) -> None:
        patterns = {n: re.compile(rf"\b{re.escape(n)}\b") for n in names}
        n_items = len(items)
        for name in names:
            about = [i for i in range(n_items) if patterns[name].search(items[i].text)]
            if not about:
                continue
            sources = list(dict.fromkeys(s for i in about for s in items[i].sources))
            attrs = {k: v for k, v in self.people[name].items() if v is not None}
            items.append(Item("person", name, sources, None, attrs))
            person = len(items) - 1
            for i in about:
                who, _ = _subject(items[i].text, [name])
                self._link(i, person, "about", 1.0 if who == name else MENTION)


# ", and network problems." ending a sentence: the last of a list, not another clause.
_LIST_END = re.compile(r",\s*(?:and|or)\s+(?:[\w'’-]+\s+){0,2}[\w'’-]+\s*[.!?]?\s*$")


def _by_whom(text: str) -> str:
    """What a passive names after "by", without a comment after a comma (", not the database",
    ", according to Dana", the rest of a sentence a relative clause interrupted) unless the
    commas list causes ("a bug, a missing index and a bad deploy")."""
    parts = re.split(r",\s+", text)
    listed = len(parts) > 1 and bool(
        re.search(r"\b(?:and|or)\s", parts[-1]) or re.match(r"(?i)as\s+well\s+as\b", parts[-1])
    )
    aside = any(
        re.match(
            r"(?i)(?:not|according|as\b(?!\s+well\s+as)|which|who|i|we|\w+\s+(?:said|says|thinks))\b",
            p,
        )
        for p in parts[1:]
    )
    return text if listed and not aside else _clean(parts[0])


_PHRASE_START = word_set(
    "on in at of for with during after before from to by over since about into under near"
)


def _head_phrase(words: list[str]) -> list[str]:
    """The words of a text up to the first phrase after its noun: "the checkout outage on
    Saturday" -> the checkout outage."""
    for i, w in enumerate(words[1:], 1):
        if w in _PHRASE_START:
            return words[:i]
    return words


def _last_clause(text: str, lo: int, hi: int) -> int:
    """Where the last clause of text[lo:hi] starts ("Sorry, but her positivity ..." -> "her")."""
    breaks = [m.end() for m in _CLAUSE_BREAK.finditer(text, lo, hi)]
    # what follows "since" is read to the end of the text: its verb may be the cue at `hi`
    breaks += [m.end() for m in _SINCE_CLAUSE.finditer(text, lo) if m.end() <= hi]
    return max(breaks) if breaks else lo


def _first_clause(text: str, lo: int, hi: int) -> int:
    """Where the first clause of text[lo:hi] ends."""
    m = _CLAUSE_BREAK.search(text, lo, hi)
    return m.start() if m else hi


def _definite_np(text: str) -> list[str] | None:
    """The words of a short definite noun phrase after its determiner ("the checkout outage" ->
    checkout, outage); None for a clause ("the deploy failed") or anything longer."""
    m = re.match(r"(?i)^(?:the|that|this|those|these|our|their)\s+((?:[\w-]+\s+){0,4}[\w-]+)$",
                 text.strip())  # fmt: skip
    if m is None:
        return None
    words = m.group(1).lower().split()
    return None if any(is_past(w) or w in STOPWORDS for w in words) else words


def _tells_no_cause(x: str) -> bool:
    """What follows "after" tells no cause, only what came first: not something done ("we
    migrated", "restarting the workers") nor a thing named as "the deploy" is ("After work",
    "After a deploy", "After the deploy on Friday")."""
    words = x.lower().split()
    return not any(is_past(w) or w.endswith("ing") for w in words) and _definite_np(x) is None


def _after_a_time(lead: re.Match[str]) -> bool:
    """'After the weekend, errors spiked', 'After lunch Ben and I fixed the build, which …': told
    in order, after a time, so no cause; not 'After the deploy, errors spiked'."""
    if lead["cue"].lower() != "after":
        return False
    x = _ASIDES.sub("", _clean(lead["x"]))
    if _A_TIME.fullmatch(x) or _A_SPAN_OF.match(x):
        return True
    rest = _after_time(f"After {x}")
    return rest != f"After {x}" and re.match(rf"{_SUBJ}\s", rest, re.IGNORECASE) is not None


def _demodalise(text: str) -> str:
    """'would have lost data' -> 'had lost data': what was prevented, read as if it happened."""
    return _COUNTERFACTUAL.sub("had", text)


_ACTOR = re.compile(
    r"([A-Z][a-z]+)\s+(?:(?:\w+ly|just|also|even|already|still|then|once|first|ever|never)\s+)?"
    r"([a-z]+)\b"
)


# What "It" stood for, written after it: "It (Ben restarted the workers) cleared the queue".
_IT_STOOD_FOR = re.compile(r"(?:It|That|This)\s+\(((?:[^()]|\([^()]*\))*)\)")


def actor(text: str) -> str | None:
    """Who did it, when a description opens with a name and a past-tense verb ("Ana restarted
    the workers", "Yesterday (28 February 2026) Ana restarted the workers"), or with what they
    did standing for "It" ("It (Ana restarted the workers) cleared the queue"); None for a
    gerund ("Restarting ...") or a noun phrase ("The restart ...")."""
    if stood_for := _IT_STOOD_FOR.match(text.strip()):
        return actor(stood_for[1])
    m = _ACTOR.match(_after_time(text.strip()))
    if m is None or m.group(1).lower() in STOPWORDS or m.group(1).lower().endswith("ing"):
        return None
    return m.group(1) if is_past(m.group(2)) else None


def _annotate(text: str, spans: Sequence[TimeSpan]) -> str:
    """Write the absolute date after each relative phrase: 'yesterday (7 May 2023)'."""
    for span in spans:
        label = describe(span)
        if label is None or re.search(r"\d{4}", span.phrase):
            continue
        at = text.find(span.phrase)
        if at >= 0:
            end = at + len(span.phrase)
            text = f"{text[:end]} ({label}){text[end:]}"
    return text


def extract(
    messages: Sequence[Message],
    date: datetime | None = None,
    *,
    note: bool = False,
    people: Sequence[str] = (),
) -> Extraction:
    """Items and links from a transcript; `date` stands in for messages without a time.
    `note`: the messages are a note's paragraphs, whose "that" and "the outage" reach further
    back (`NOTE_REACH`). `people`: whom the memory already knows, a person when named even by
    a word ("Rose", "Will", "Miles")."""
    return _Extractor(messages, date, note, people).run()


def causal_only(found: Extraction) -> Extraction:
    """Only the items that cause or are caused, and the causal links between them (what a note
    is read for)."""
    keep = sorted(
        {i for link in found.links if link.relation in CAUSAL for i in (link.src, link.dst)}
    )
    at = {old: new for new, old in enumerate(keep)}
    items = [found.items[i] for i in keep]
    links = [
        replace(link, src=at[link.src], dst=at[link.dst])
        for link in found.links
        if link.relation in CAUSAL
    ]
    return Extraction(items=items, links=links)


def said_in(messages: Sequence[Message], k: int, date: datetime | None) -> dict[str, Any]:
    """The attributes of an item said in message k: who said it, when, the whole message and
    the one before. What the item was said in, and what that answered: "It's a mix of drama
    and romance!" is about the screenplay the message before asked of (see embed/context.py)."""
    msg = messages[k]
    whole = msg.said()
    attributes: dict[str, Any] = {"message": whole[:CONTEXT_CHARS]}
    if msg.speaker:
        attributes["speaker"] = msg.speaker
    if "?" in whole:  # kept apart: the question may come after the part kept of the message
        attributes["asks"] = True
    if k > 0:
        attributes["in_reply_to"] = messages[k - 1].said()[:CONTEXT_CHARS]
    ref = msg.time or date
    if ref is not None:
        attributes["said_at"] = ref.isoformat()
    return attributes


# An item another extractor found is the rules' item when they share a message and this share
# of their words.
SAME_ITEM = 0.8


def merge(rules: Extraction, more: Extraction) -> Extraction:
    """The rules' extraction plus what `more` adds: its items that no rule item with a
    common message already says, and its links (between the merged items) not already there."""
    items = list(rules.items)
    where: list[int] = []  # more's item i is items[where[i]]
    for item in more.items:
        same = next(
            (
                j
                for j, known in enumerate(rules.items)
                if set(known.sources) & set(item.sources)
                and (
                    normalize(known.text) == normalize(item.text)
                    or similarity(known.text, item.text) >= SAME_ITEM
                )
            ),
            None,
        )
        if same is None:
            items.append(item)
            same = len(items) - 1
        where.append(same)
    links = list(rules.links)
    have = {(link.src, link.dst) for link in links}
    for link in more.links:
        pair = (where[link.src], where[link.dst])
        if pair[0] != pair[1] and pair not in have:
            have.add(pair)
            links.append(replace(link, src=pair[0], dst=pair[1]))
    return Extraction(items, links)

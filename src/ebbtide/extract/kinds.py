"""Kinds of sentence: lesson, preference, decision, event, fact or note, and who a sentence
is about."""

from __future__ import annotations

import re
from collections.abc import Sequence

from .. import sameness
from ..sentences import ADVERBS, is_past
from .cues import _LEAD_FILLER, _after_time
from .items import Kind

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
# team", "Ana and others' team" (chat's "our team"), "Ops", "Management", "The company"; and a
# note's own "We", its authors (chat names who "we" are).
_GROUP = re.compile(
    r"(?:(?:the|our|my|their|(?-i:[A-Z])[a-z]+(?:'s|\s+and\s+others'))\s+)?"
    r"(?:[\w-]+\s+){0,2}?(?:team|squad)s?|"
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

"""Settings and the changes that set them anew, as chat tells them.

A setting is what a named thing is: "Our staging DB is Postgres 15", "Ana's laptop is a
ThinkPad". It is told anew either as a setting ("The staging DB is now Postgres 16") or as a
change ("We upgraded the staging DB to Postgres 16", "I swapped my ThinkPad for a MacBook
Air", "Replaced Jenkins with GitHub Actions", "Jenkins was replaced with GitHub Actions").
Either way the older setting no longer holds; the memory keeps it for the record and stops
recalling it. A change another company or team made ("Acme replaced Jenkins with GitHub
Actions", "Priya's team moved the CI to GitHub Actions") is of their thing, not ours, unless
it says ours ("Priya moved our CI …", "… in our pipeline"). Pure text: no store, no clock.
"""

from __future__ import annotations

import re
from collections.abc import Collection
from dataclasses import dataclass

__all__ = ["Change", "Setting", "change", "changes", "setting"]

_OWNER = r"(?:the|our|my|their|its|(?P<owner>[\w]+)['’]s)"
_SETTING = re.compile(
    rf"(?P<subject>{_OWNER}\s+(?:[\w.+#/-]+\s+){{0,3}}?)"
    r"(?:is|are)\s+(?:now\s+)?(?:(?:a|an|on|at|version|v)\s+)?(?P<value>(?-i:[A-Z0-9])[^.!?]*)",
    re.IGNORECASE,
)
_DETERMINER = re.compile(r"^(?:the|our|my|their|its)\s+", re.IGNORECASE)
_ARTICLE = re.compile(r"^(?:a|an|the)\s+", re.IGNORECASE)
# "upgraded the staging DB (from Postgres 15) to Postgres 16"
_SET_TO = re.compile(
    r"\b(?:upgraded|downgraded|moved|migrated|switched|changed|bumped|updated|ported|converted)"
    rf"\s+(?P<subject>(?:{_OWNER}\s+)?(?:[\w.+#/-]+\s+){{0,3}}?[\w.+#/-]+)"
    r"\s+(?:from\s+(?P<old>[^.!?]+?)\s+)?to\s+(?P<value>(?-i:[A-Z0-9])[^.!?(]*)",
    re.IGNORECASE,
)
# "switched from Jenkins to GitHub Actions": the old value named, not the thing
_FROM_TO = re.compile(
    r"\b(?:moved|migrated|switched|changed|ported|converted)\s+(?:over\s+)?from\s+"
    r"(?P<old>[^.!?]+?)\s+to\s+(?P<value>(?-i:[A-Z0-9])[^.!?(]*)",
    re.IGNORECASE,
)
_SWAPPED = r"(?:swapped|replaced|traded|exchanged)"
# "swapped my ThinkPad for a MacBook Air", "replaced Jenkins with GitHub Actions"
_SWAP = re.compile(
    rf"\b{_SWAPPED}\s+(?P<old>[^.!?]+?)\s+(?:for|with)\s+"
    r"(?P<value>(?:(?:a|an|the)\s+)?(?-i:[A-Z0-9])[^.!?(]*)",
    re.IGNORECASE,
)
# "Jenkins was replaced with (or by) GitHub Actions", told at the start of its sentence
_SWAPPED_PASSIVE = re.compile(
    r"(?:^|(?<=[.!?;]\s))(?P<old>[^.!?;,]+?)\s+(?:was|were|got|has\s+been|have\s+been)\s+"
    rf"{_SWAPPED}\s+(?:for|with|by)\s+(?P<value>(?:(?:a|an|the)\s+)?(?-i:[A-Z0-9])[^.!?(]*)",
    re.IGNORECASE,
)
# Told before the verb in its sentence, the change was not made: "never upgraded", "didn't",
# "nobody", "almost", "should have upgraded", "if we upgraded", or asked about.
_NOT_DONE = re.compile(
    r"\b(?:never|not|no one|nobody|none|hardly|barely|almost|nearly|if|unless|whether|should|"
    r"would|could|might|must|may)\b|n['’]t\b",
    re.IGNORECASE,
)
# Told after it: undone since ("... but rolled it back", "then reverted").
_UNDONE = re.compile(
    r"\b(?:rolled\s+(?:\w+\s+)?back|reverted|undid|undone|went\s+back)\b", re.IGNORECASE
)
# Whose thing a change is of when a pronoun says it: the one who made it ("Bob upgraded his
# laptop"), else someone unnamed ("the infra team upgraded their staging DB").
_THEIRS = re.compile(r"^(?:his|her|their|its)\s+", re.IGNORECASE)
_SOMEONE = "?"
# Who made a change, told just before its verb: names ("Acme", "Ana and Ben", "Ana and others"
# as "we" is rewritten) or someone's team ("Priya's team"), then words like "just", "has".
_ACTOR = re.compile(
    r"(?:(?P<whose>(?-i:[A-Z])[\w&-]*)['’]s\s+[a-z]+"
    r"|(?P<names>(?-i:[A-Z])[\w&-]*(?:(?:\s+|\s*,\s*|\s+and\s+|\s*&\s*)(?-i:[A-Z])[\w&-]*)*)"
    r"(?:\s+and\s+others)?)"
    r"(?:\s+(?:has|have|had|just|finally|already|recently|also|then|\w+ly))*\s*$"
)
# Capitalised words that start a sentence without naming anyone.
_NOT_NAMES = frozenset(
    {
        "i", "we", "they", "he", "she", "it", "you", "this", "that", "these", "those", "then",
        "so", "and", "but", "also", "yesterday", "today", "last", "next", "the", "a", "an",
        "after", "before", "finally", "eventually", "recently",
    }
)  # fmt: skip


@dataclass(frozen=True)
class Setting:
    subject: str  # casefolded, without its determiner: "staging db", "ana's laptop"
    value: str  # casefolded: "postgres 15", "thinkpad x1"
    owner: str | None  # whose thing, when named ("ana"; "my laptop" is its speaker's)


@dataclass(frozen=True)
class Change:
    subject: str | None  # what was changed; None when only the old value is named (a swap)
    old: str | None  # the value it had, when told
    value: str  # the value it has now
    owner: str | None  # whose thing it is, when named ("Ana's", "Bob upgraded his"); "?": unnamed
    # told with a pronoun ("his", "their"): of that owner's own thing, and of no other
    theirs: bool = False


def _words(text: str) -> str:
    return " ".join(text.casefold().split())


def _subject(raw: str, speaker: str | None) -> str:
    """A thing's name as compared: what one says of "our" thing (its speaker's, once
    rewritten) is the team's, the same as "the" thing."""
    raw = raw.strip()
    owner, _, rest = raw.partition(" ")
    if (
        speaker
        and rest
        and owner.casefold() in (f"{speaker}'s".casefold(), f"{speaker}’s".casefold())
    ):
        raw = rest
    return _words(_DETERMINER.sub("", raw))


def _value(raw: str) -> str:
    return _words(_ARTICLE.sub("", raw.strip().rstrip(",;:")))


def setting(text: str, speaker: str | None) -> Setting | None:
    """(what, value) of a setting told as one, or None."""
    m = _SETTING.match(text)
    if m is None:
        return None
    owner = m["owner"].casefold() if m["owner"] else None
    return Setting(_subject(m["subject"], speaker), _value(m["value"]), owner)


def change(text: str, speaker: str | None, people: Collection[str] = ()) -> Change | None:
    """What a change told as something done sets anew, or None (a change denied, hedged,
    asked about or undone since: "We never upgraded …", "Should we migrate …?"). `people`:
    who is one of us (the conversation's speakers); a change anyone else named made is of
    their own thing unless it says ours."""
    m = _FROM_TO.search(text)
    if m is not None:
        return _swap(text, m, speaker, people) if _done(text, m) else None
    m = _SET_TO.search(text)
    if m is not None:
        if not _done(text, m):
            return None
        raw = m["subject"].strip()
        owner, theirs = _owner(raw, text, m.start(), speaker)
        if owner is None and not _possessed(raw):
            owner, theirs = _actor(text, m, speaker, people)
        raw = _THEIRS.sub("", raw)
        old = _value(m["old"]) if m["old"] else None
        return Change(_subject(raw, speaker), old, _value(m["value"]), owner, theirs)
    m = _SWAP.search(text) or _SWAPPED_PASSIVE.search(text)
    if m is None or not _done(text, m):
        return None
    return _swap(text, m, speaker, people)


def _swap(text: str, m: re.Match[str], speaker: str | None, people: Collection[str]) -> Change:
    """A change that names the old value and the new, not the thing that had it."""
    old = m["old"].strip()
    owner, theirs = _owner(old, text, m.start(), None)
    if owner is None and not _possessed(old) and m.re is not _SWAPPED_PASSIVE:
        owner, theirs = _actor(text, m, speaker, people)
    old = re.sub(r"^(?:(?:the|our|my|their|its|his|her|a|an)|[\w]+['’]s)\s+", "", old, flags=re.I)
    return Change(None, _value(old), _value(m["value"]), owner, theirs)


def _possessed(raw: str) -> bool:
    """Whether what was changed is told as someone's ("our CI", "their CI", "Acme's CI")."""
    return re.match(r"(?:(?:our|my|his|her|their|its)|[\w]+['’]s)\s", raw, re.I) is not None


def _actor(
    text: str, m: re.Match[str], speaker: str | None, people: Collection[str]
) -> tuple[str | None, bool]:
    """Whose thing a change of no one's named thing is: the one who made it, when named and
    not one of us ("Acme replaced Jenkins …", "Priya's team moved the CI …") and the sentence
    does not say it was ours ("… in our pipeline", rewritten as the speaker's); else the
    team's (None)."""
    before, after = _sentence(text, m.start(), m.end())
    us = {p.casefold() for p in people} | ({speaker.casefold()} if speaker else set())
    if speaker and re.search(rf"\b{re.escape(speaker)}(?:['’]s|\s+and\s+others)\b", m[0] + after):
        return None, False
    found = _ACTOR.search(re.split(r"[,:(]\s*|\)\s*", before)[-1])
    if found is None:
        return None, False
    if found["whose"]:
        whose = found["whose"].casefold()
        return (None, False) if whose in us else (whose, True)
    names = [n.casefold() for n in re.split(r"\s*(?:,|&|\band\b)\s*", found["names"]) if n.strip()]
    # "Yesterday Acme": what starts a sentence is no one
    names = [" ".join(w for w in n.split() if w not in _NOT_NAMES) for n in names]
    names = [n for n in names if n]
    if not names or any(n in us for n in names):
        return None, False
    return names[-1], True


def _sentence(text: str, start: int, end: int) -> tuple[str, str]:
    """What the sentence holding text[start:end] says before and after it."""
    before = re.split(r"[.!?;]\s", text[:start])[-1]
    after = re.split(r"[.!?;](?:\s|$)", text[end:])[0]
    return before, after


def _done(text: str, m: re.Match[str]) -> bool:
    before, after = _sentence(text, m.start(), m.end())
    asked = "?" in re.split(r"[.!;](?:\s|$)", text[m.start() :])[0]
    return not (asked or _NOT_DONE.search(before) or _UNDONE.search(m.group(0) + after))


def _owner(raw: str, text: str, verb: int, speaker: str | None) -> tuple[str | None, bool]:
    """Whose thing `raw` (what was changed, as told) is, if someone's other than the
    speaker's (team's), and whether a pronoun said so."""
    named = re.match(r"([\w]+)['’]s\s+", raw)
    if named is not None:
        owner = named[1].casefold()
        return (None if speaker and owner == speaker.casefold() else owner), False
    if not _THEIRS.match(raw):
        return None, False
    actor = _sentence(text, verb, verb)[0].strip()
    if re.fullmatch(r"(?-i:[A-Z])[\w'’-]*", actor) and actor.casefold() not in ("i", "we"):
        return actor.casefold(), True
    return _SOMEONE, True


def changes(done: Change, before: Setting) -> bool:
    """Whether `done` sets anew what `before` said: the same thing (or the thing holding the
    old value a swap names) now has another value."""
    if before.value == done.value or before.value.startswith(done.value + " "):
        return False  # told again, not changed
    if done.owner == _SOMEONE or (done.theirs and before.owner != done.owner):
        return False  # someone else's own thing: "Acme upgraded their staging DB"
    if done.owner is not None and before.owner not in (None, done.owner):
        return False  # someone else's ThinkPad
    if done.subject is None:  # a swap names the old value, not the thing
        return before.value == done.old or before.value.startswith(done.old + " ")
    if done.subject == before.subject:
        return True
    # "staging" of "the staging DB": one name inside the other, and the values alike
    inside = f" {done.subject} " in f" {before.subject} " or f" {before.subject} " in (
        f" {done.subject} "
    )
    if not inside:
        return False
    if done.old is not None:
        return before.value == done.old or before.value.startswith(done.old + " ")
    return before.value.split()[0] == done.value.split()[0]

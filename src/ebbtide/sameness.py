"""Whether two descriptions name the same event told in other words ("the checkout database ran
out of connections" / "connection exhaustion on the checkout database"), without an LLM or
embeddings: what the two share, weighted by how rare each word is, unless something in them
says they are different events. Pure functions; the caller supplies the word weights."""

from __future__ import annotations

import math
import re
from collections.abc import Callable, Collection, Mapping, Sequence
from dataclasses import dataclass, replace
from datetime import UTC, datetime
from difflib import SequenceMatcher
from functools import lru_cache

from . import nouns, verbs
from .sentences import ADVERBS, is_past, word_set
from .settings import is_tool
from .text import STOPWORDS, THINGS_DONE, content_tokens, named, root, similarity, tokens
from .timeparse import resolve

# Word overlap at which what two pronouns stood for is one thing ("… added a cache to the build
# server" / "… added the cache to the build server").
SAME_REFERENT = 0.5
# Share of the two descriptions' (rarity-weighted) words they must have in common. Distinct
# events of one incident share its product and component names but differ in what happened.
SAME_EVENT = 0.4
# Words two tellings of one event must share besides who did it: one word in common is a
# coincidence of short sayings ("They got the funding" / "John got this!"), not a retelling.
MIN_SHARED = 2
# The share for a measure said not to have fixed something ("the restarts did not fix it")
# and an earlier decision of its task that went well: that is what it speaks of, most likely.
TRIED_FIX = 0.2
# A recurrence is a new occurrence, never the first one told again.
RECURRENCE = re.compile(r"\b(?:again|another|once more|re-?occurr\w*|recurr\w*)\b", re.IGNORECASE)
# An action told as not done: a negation before its verb, after at most who did it and when
# ("Did not skip the canary", "Ana didn't skip the canary", "This time Ben and others did not
# skip the load test", "what if we don't skip it", "decided not to page"). Not doing something
# is another decision than doing it, however many words the two share. A negation after the
# verb ("Turned on debug logs and never turned them off") or of a thing ("deployed without a
# canary") is what was done, not a thing left undone.
_NEGATORS = word_set(
    "not never didn't don't doesn't won't wouldn't shouldn't cannot can't couldn't"
)
_BEFORE_VERB = word_set(
    """others time today yesterday tonight week morning afternoon evening again also still
    finally instead decided chose opted agreed team"""
)
_LEAD_MAX = 8  # words before the negation, at most
_DO = word_set("do does did")  # the verb before a determiner ("do the load test")
# Words after a verb that start no object of it: "deploy on Friday", "go with SQLite".
_PREPOSITIONS = word_set(
    """on in at to with for from into onto by via over under after before during without
    until off out back up down"""
)
# How many words after a phrasal verb its particle may come ("rolled the release back"), and
# the words that end the search.
_PARTICLE_REACH = 4
_CLAUSE_BREAK = word_set("and then but or so")
# A demonstrative and the word after it: "painted this", "took this pic", "this parade".
_DEMONSTRATIVE = re.compile(r"\b(?:this|these|those)\b(?:\W+([^\W_]+))?", re.IGNORECASE)
# What a pronoun or a thing done stood for, written after it by extraction: "It (adding
# caching) helped", "That migration (we moved the cluster (prod) to Kubernetes) broke …".
_REFERENT = re.compile(
    rf"\b(?:(?:this|that|the)\s+(?:{'|'.join(THINGS_DONE)})|it|that|this|they|these|those)\s+"
    r"\(((?:[^()]|\([^()]*\))*)\)",
    re.IGNORECASE,
)
# A question put around the action it asks about, as agents ask what an action leads to:
# "what will happen if I skip the canary?", "should we deploy on Friday?", "is it safe to turn
# off the rate limiter?", "did the team not skip the canary?", "how about we skip the canary?",
# "any risk in skipping the canary?", or an intention put to it: "let's skip the canary",
# "we're planning to skip the canary". Only these frames, and only at the start: what follows
# is the action, and a negation there is its own ("what if we didn't skip the canary" is not
# skipping it). One on the frame's verb is the asking's ("shouldn't we keep the canary?" asks
# about keeping it). "do" takes no "the team": "do the team retro" is an action. A passive
# ("can the canary be skipped?") or a statement ("we skipped the canary") has no frame.
_SUBJECT = r"(?:I|we|you|the\s+team)"
_ASKING = re.compile(
    rf"""^(?:
        what\s+(?:will|would)\s+happen\s+(?:if|when)(?:\s+{_SUBJECT})?
      | what\s+happens\s+(?:if|when)(?:\s+{_SUBJECT})?
      | what\s+if(?:\s+{_SUBJECT})?
      | (?:is\s+it|would\s+it\s+be)\s+(?:safe|ok|okay|wise|a\s+good\s+idea)
        \s+(?:to|if(?:\s+{_SUBJECT})?)
      | (?:should|shall|can|could|shouldn['’]t|can['’]t|couldn['’]t)\s+(?:I|we)
      | did\s+{_SUBJECT}
      | do\s+(?:I|we)
      | (?:how|what)\s+about(?:\s+{_SUBJECT})?
      | let['’]s
      | (?:I['’]m|I\s+am|we['’]re|we\s+are|the\s+team\s+is)
        \s+(?:thinking\s+(?:of|about)|planning\s+(?:to|on)|considering)
      | (?:(?:is|are)\s+there\s+)?any\s+risks?\s+(?:in|of|to|with)
    )(?![\w'’])""",
    re.IGNORECASE | re.VERBOSE,
)
# "Ana and others" is a first person plural: a teammate retelling it says "Bo and others".
_WORDS = re.compile(r"[^\W_]+(?:['’][^\W_]+)?", re.UNICODE)
_GROUP = re.compile(r"\b([^\W_]+)(?:['’]s)? and others\b", re.UNICODE)
_POSSESSIVE = re.compile(r"['’]s$")


# A thing told as not there: "No disk usage alert", "There was no alert", "Ana and others had no
# alert", "We didn't have a canary", "The lack of an alert", "A missing alert", "The alert was
# missing". Its being missing let happen what it is linked to, so putting the thing there
# undoes it and taking the thing away is that choice again.
_ABSENT = re.compile(
    r"""^(?:
        (?:(?:there|it)\s+(?:was|were|is|are|had\s+been)\s+|(?:[\w'’]+\s+){1,4}?(?:had|has|have)\s+)?no(?!\s+(?:one|longer|more|matter|doubt|way|idea)\b)
      | (?:[\w'’]+\s+){1,4}?(?:did|do|does)(?:n['’]t|\s+not)\s+have
      | (?:the\s+|a\s+)?(?:lack|absence)\s+of
      | not\s+having
      | (?:an?\s+|the\s+)?missing
    )\s+(?:(?:a|an|any)\s+)?(?P<thing>\w.*)$
    | ^(?:the|our|their|its|a|an)\s+(?P<named>.+?)\s+(?:was|were|is|are)\s+(?:missing|absent)\b
    """,
    re.IGNORECASE | re.VERBOSE,
)


# A measure told as not done or put there: "No canary was run", "No tests were written", "No
# alert had been set up", "No canary was in place". Only with a verb that does or puts a
# measure: "No data was lost" and "No customers were affected" tell what did not happen.
_BE = word_set("was were is are been")
_HAD = word_set("had has have")  # before "been"
_SET_UP = frozenset(
    verbs.key(*v.split())
    for v in ("set up", "written", "configured", "installed", "deployed", "scheduled", "in place")
)


def absent(text: str) -> list[str] | None:
    """The roots of the thing `text` tells as missing (`_ABSENT`), if it tells one."""
    m = _ABSENT.match(told(text).strip())
    if m is None:
        return None
    said = _WORDS.findall(m["named"]) if m["named"] else _not_done(_WORDS.findall(m["thing"]))
    # "No deploy broke it": a thing that did something, which is no lack.
    if any(is_past(w.casefold()) for w in said):
        return None
    return _object(said) or None


def _not_done(said: list[str]) -> list[str]:
    """The words of a missing thing before a passive that tells it was not done or put there
    (`_SET_UP`): "canary was run" -> canary. `said` as it is when none follows."""
    for i, word in enumerate(said[1:-1], start=1):
        if word.casefold() not in _BE:
            continue
        done = [w.casefold() for w in said[i + 1 : i + 3]]
        keys = {verbs.key(*done), verbs.key(done[0])}  # "set up" with its particle, "run" alone
        if not any(verbs.puts(k) or k in _SET_UP for k in keys):
            return said
        had = i > 1 and word.casefold() == "been" and said[i - 1].casefold() in _HAD
        return said[: i - 1 if had else i]
    return said


Span = tuple[float, float]  # epoch seconds [start, end)


@dataclass(frozen=True)
class Mention:
    """What decides sameness, read once from a description."""

    decision: bool  # someone's action, not something that happened
    polarity: float  # of an outcome: < 0 bad, > 0 good
    recurrence: bool
    actor: str | None  # who did it, when the text opens with a name and a past-tense verb
    task_tag: str | None
    identifiers: frozenset[str] = frozenset()  # "f1", "v2", "db3": names, never paraphrased
    outcome: bool = False  # told as what something led to
    when: Span | None = None  # the span it is told to have happened in


def told(text: str) -> str:
    """What a description tells, without what its pronouns stood for: "That (the worker count
    doubled) exhausted the pool" tells of the pool; the aside only says what "That" was."""
    return " ".join(_REFERENT.sub(lambda m: m.group(0).split("(", 1)[0], text).split())


@dataclass(frozen=True)
class Doing:
    """An action as told: its verb (`verbs.key`, None when no verb opens it) in the words it
    was said in, whether it is told as not done, and the words after the verb."""

    verb: str | None
    said: tuple[str, ...]
    undone: bool
    after: tuple[str, ...]


def doing(text: str) -> Doing:
    """The action `text` tells: the first word after who did it and when (and a negation, see
    `_NEGATORS`) is its verb; a phrasal verb takes its particle ("turned the flag off")."""
    said = _WORDS.findall(text)
    undone = False
    for i, word in enumerate(said[: _LEAD_MAX + 1]):
        low = word.casefold().replace("’", "'")
        after = said[i + 1].casefold() if i + 1 < len(said) else ""
        if low in _NEGATORS or (low == "no" and after == "longer"):
            undone = True
        elif (low in _DO and after in _DETERMINERS) or not (
            low in STOPWORDS
            or low in _BEFORE_VERB
            or (low == "longer" and undone)
            or _name(word, after, first=i == 0)
        ):
            return _verb(said, i, undone)
    return Doing(None, (), undone, ())


def _name(word: str, after: str, *, first: bool) -> bool:
    """Whether a capitalised word before the verb is who did it ("Kai", "Ben and others"), not a
    verb opening the sentence ("Deployed and …", "Keep the canary", "Deploy on Friday")."""
    low = word.casefold()
    if not word[0].isupper() or low.endswith(("ed", "ing")):
        return False
    return not (
        first and (after in _DETERMINERS or after in _PREPOSITIONS or verbs.known(verbs.key(low)))
    )


def _verb(said: list[str], i: int, undone: bool) -> Doing:
    head, rest = said[i], said[i + 1 :]
    if verbs.key(head) in verbs.PHRASAL:
        for j, word in enumerate(rest[:_PARTICLE_REACH]):
            low = word.casefold()
            if low in verbs.PARTICLES:
                after = tuple(rest[:j] + rest[j + 1 :])
                return Doing(verbs.key(head, low), (head, word), undone, after)
            if low in _CLAUSE_BREAK:
                break
    return Doing(verbs.key(head), (head,), undone, tuple(rest))


def asked_action(text: str) -> str:
    """The action a question asks about: `text` without a frame of `_ASKING` before it nor a
    question mark after it ("What will happen if I skip the canary?" -> "skip the canary").
    `text` as it is, but for the question mark, when it is not such a question or nothing
    follows the frame ("should I?")."""
    bare = text.strip().rstrip("?").rstrip()
    rest = _ASKING.sub("", bare, count=1).strip()
    return rest if _WORDS.search(rest) else bare or text


def same_choice(asked: str, recorded: str, people: Collection[str] = ()) -> bool:
    """Whether a recorded action is the choice asked about as far as doing it or not goes: both
    told as done, or both as not done, unless their verbs are opposites done to one thing
    ("keep the canary" is "Did not skip the canary", and not "Skipped the canary deploy"; "skip
    the dry run" may be "Ran the migration without a dry run", and "run a dry run" is not it:
    it puts there what that went without). One that undoes the other
    (`undoes`) is never the same choice; a measure told as a thing ("The disk usage alert") is
    the choice of any action that leaves it there ("keep the alert", "tune the alert"), and one
    told missing ("No rate limiting") that of the same lack told again or of taking it away.
    The same words are the same choice, however they read ("Jon won't give up!" is no measure
    left undone). Whether the two are one action is for their other words to say. `people`:
    the names of who speaks in the memory, who act rather than name a thing (see `_thing`)."""
    if tokens(asked) == tokens(recorded):
        return True
    if undoes(asked, recorded, people) or undoes(recorded, asked, people):
        return False
    a, r = doing(asked), doing(recorded)
    # "add a canary deploy" is not "Deployed without a canary": one puts there what the other
    # went without (which, missing, is a lack of its own: `absent`).
    if _puts_what_lacked(a, recorded) or _puts_what_lacked(r, asked):
        return False
    missing = absent(recorded)
    if missing is not None:
        # "No disk usage alert": told missing again ("not having the alert"), or taken away
        # ("remove the alert"), it is missing.
        lack = absent(asked)
        if lack is not None:
            return _heads_meet(lack, missing)
        return _heads_meet(_object(a.after), missing) and _takes(a)
    if _thing(recorded, people) is not None:
        # A measure told as a thing ("The disk usage alert") is there: an action on it that
        # does not take it away is that choice, and so is one not done that would have.
        return not a.undone or _keeps(a)
    flipped = (
        a.verb is not None
        and r.verb is not None
        and verbs.opposite(a.verb, r.verb)
        and _same_object(a, r)
    )
    return (a.undone == r.undone) != flipped


def undoes(asked: str, recorded: str, people: Collection[str] = ()) -> bool:
    """Whether the action asked about undoes a recorded one done to the same thing: the same
    verb told as not done ("don't add the alert" / "Added the alert"), the opposite verb
    ("remove the alert" / "Added the alert"), a verb that takes away what the other puts
    there ("disable the alert" / "Added the alert"), or one that takes away the thing a
    recorded measure is told as ("remove the alert", "don't keep the alert" / "The disk usage
    alert", "Rate limiting"; `people` as for `_thing`). The same words are the same choice
    (`same_choice`), never its undoing, however they read ("The stop button" is a button and
    stopping it)."""
    a = doing(asked)
    if a.verb is None or tokens(asked) == tokens(recorded):
        return False
    missing = absent(recorded)
    if missing is not None:
        # "add the alert", "keep the alert" / "No disk usage alert": the alert is there now.
        return _heads_meet(_object(a.after), missing) and _keeps(a)
    thing = _thing(recorded, people)
    if thing is not None:
        return _heads_meet(_object(a.after), thing) and _takes(a)
    r = doing(recorded)
    if r.verb is None or not _same_object(a, r):
        return False
    # One takes away what the other puts there or keeps: "disable the alert" / "Added the
    # alert", "don't remove the alert" / "Removed the alert".
    if (_takes(a) and _keeps(r)) or (_keeps(a) and _takes(r)):
        return True
    if a.undone != r.undone:
        return verbs.same(a.verb, r.verb)
    return verbs.opposite(a.verb, r.verb)


def _puts_what_lacked(a: Doing, other: str) -> bool:
    """Whether an action keeps or puts there what `other` tells was done without ("add a
    canary deploy" / "Deployed without a canary")."""
    said = _WORDS.findall(told(other))
    low = [w.casefold() for w in said]
    if "without" not in low or not _keeps(a):
        return False
    return _heads_meet(_object(a.after), _object(said[low.index("without") + 1 :]))


def _takes(a: Doing) -> bool:
    """Whether an action takes its object away: "remove the alert", "don't keep the alert"."""
    if a.verb is None:
        return False
    return verbs.puts(a.verb) if a.undone else verbs.takes_away(a.verb)


def _keeps(a: Doing) -> bool:
    """Whether an action keeps its object or puts it there: "keep the alert", "add an alert",
    "don't remove the alert"."""
    if a.verb is None:
        return False
    return verbs.takes_away(a.verb) if a.undone else verbs.puts(a.verb)


def _thing(text: str, people: Collection[str] = ()) -> list[str] | None:
    """The roots of the noun phrase a text is, when it names a thing rather than an action
    ("The disk usage alert", "A retry budget on the client", "Rate limiting": a measure whose
    being there did what it is linked to), and nothing but a preposition follows it ("the
    canary deploy was skipped" tells an action). After a determiner, no verb is found before
    the word after it; without one, see `_bare`. "Having a disk quota alarm" is the alarm."""
    said = _WORDS.findall(text)
    if said[:1] and said[0].casefold() == "having":
        said = said[1:]
    if len(said) < 2:
        return None
    if said[0].casefold() in _DETERMINERS:
        found = doing(" ".join(said))
        if found.undone or found.said[:1] != (said[1],):
            return None
        thing, lead = _object(said), 1
    elif _bare(said, people):
        thing, lead = _object(said), 0
    else:
        return None
    rest = said[lead + len(thing) :]
    return thing if not rest or rest[0].casefold() in _PREPOSITIONS else None


def _bare(said: Sequence[str], people: Collection[str]) -> bool:
    """Whether words told without a determiner are a thing's name ("Disk usage alerts",
    "Circuit breakers", "Rate limiting"), their first word capitalised only as a sentence's
    is: not a name of who speaks in the memory ("Dana monitoring" is Dana at work when Dana
    speaks), nor a person's full name ("Dana Scully"), nor a verb or gerund opening an action
    ("Restarting the workers", "Keep alerts"), nor a name and what they did ("Kai restarted
    workers", "Ana disables alerts")."""
    first = said[0].casefold()
    who = {w for name in people for w in _WORDS.findall(name)}
    if (
        _POSSESSIVE.sub("", said[0]) in who
        or first in STOPWORDS
        or first in _PREPOSITIONS
        or first in ADVERBS
        or (first.endswith("ing") and len(first) > 4)
        or is_past(first)
        or verbs.known(verbs.key(first))
    ):
        return False
    head = _object(said)
    return len(head) >= 2 and not any(
        w.istitle() or is_past(w.casefold()) or verbs.known(verbs.key(w))
        for w in said[1 : len(head)]
    )


def verb_told(asked: str, recorded: str, people: Collection[str] = ()) -> tuple[str, ...]:
    """The words of the verb asked about (as said) when a recorded action, done to the same
    thing, tells that verb in other words: another form ("kept" for "keep"), a synonym
    ("Skipped" for "bypass"), or its opposite left undone ("Did not skip" for "keep"); or a
    measure told as a thing, for a verb that keeps it there ("The alert" for "keep the
    alert"). Nothing when it does not."""
    a, r = doing(asked), doing(recorded)
    missing = absent(recorded)
    if missing is not None:
        # "No disk usage alert" tells what "remove the alert" leaves.
        return a.said if _heads_meet(_object(a.after), missing) and _takes(a) else ()
    thing = _thing(recorded, people)
    if thing is not None:
        # "The disk usage alert" is there: "keep the alert" and "add the alert" tell it.
        return a.said if _heads_meet(_object(a.after), thing) and _keeps(a) else ()
    if a.verb is None or r.verb is None or not _same_object(a, r):
        return ()
    if a.undone == r.undone and verbs.same(a.verb, r.verb):
        return a.said
    if a.undone != r.undone and verbs.opposite(a.verb, r.verb):
        return a.said
    return ()


def verb_undone(asked: str, recorded: str, people: Collection[str] = ()) -> tuple[str, ...]:
    """The words of the verb asked about (as said) when it undoes the recorded action
    (`undoes`): "Added the alert" and "The alert" tell what "remove the alert" takes away.
    Nothing when it does not."""
    return doing(asked).said if undoes(asked, recorded, people) else ()


def _same_object(a: Doing, r: Doing) -> bool:
    """Whether two actions are done to one thing: the head noun of one's object is in the
    other's ("the canary", "the canary deploy"; not "the load balancer", "the load test"), or
    neither has one."""
    x, y = _object(a.after), _object(r.after)
    if not (x and y):
        return not (x or y)
    return _heads_meet(x, y)


def _heads_meet(x: Sequence[str], y: Sequence[str]) -> bool:
    """Whether the head noun of one object is in the other ("the canary", "the canary
    deploy"), itself or told as a noun that names the same thing ("the deploy", "the
    release": `nouns.same`)."""
    if not (x and y):
        return False
    kx, ky = [nouns.key(w) for w in x], [nouns.key(w) for w in y]
    return kx[-1] in ky or ky[-1] in kx


def other_object(asked: str, recorded: str) -> bool:
    """An action asked about with no object ("deploy on Friday") and a recorded one that holds
    the words they share only as qualifiers of its object ("Deployed the Friday report"):
    when it is done, in one, is what it was done to in the other, another thing."""
    a, r = doing(asked), doing(recorded)
    if not (a.after and r.after) or a.after[0].casefold() not in _PREPOSITIONS:
        return False
    thing = _object(r.after)
    if len(thing) < 2:
        return False
    wanted = {root(t) for t in content_tokens(" ".join(a.after))}
    held = {root(t) for t in content_tokens(" ".join(r.after))}
    shared = wanted & held
    return bool(shared) and thing[-1] not in wanted and shared <= set(thing[:-1])


def _object(after: Sequence[str]) -> list[str]:
    """The roots of the noun phrase right after a verb ("the Friday report" -> friday,
    report), determiners left out; none when a preposition follows the verb."""
    low = [w.casefold() for w in after]
    i = 0
    while i < len(low) and low[i] in _DETERMINERS:
        i += 1
    if i == 0 and low and (low[0] in STOPWORDS or low[0] in _PREPOSITIONS):
        return []
    out = []
    for word in low[i:]:
        if word in STOPWORDS or word in _PREPOSITIONS or word in ADVERBS:
            break
        out.append(root(word))
    return out


def different_referents(a: str, b: str) -> bool:
    """Two tellings whose "it" or "that" stand for different things are two events: "It
    (the whiteboard) helps John stay motivated" / "It (visualising his goals) helps John stay
    motivated"."""
    ra, rb = _REFERENT.findall(a), _REFERENT.findall(b)
    return bool(ra and rb) and all(similarity(x, y) < SAME_REFERENT for x in ra for y in rb)


def identifiers(text: str) -> frozenset[str]:
    """Words mixing letters and digits ("flag f10", "node db3"): identifiers, which a
    paraphrase keeps as they are. Plain numbers ("100% disk") are quantities and may vary."""
    return frozenset(
        t for t in tokens(text) if any(c.isdigit() for c in t) and any(c.isalpha() for c in t)
    )


def people_named(text: str, people: Sequence[str]) -> frozenset[str]:
    """Which of `people` the text names as written, capitals and all ("Will", not "will"),
    other than as "X and others" (a group that may hold whoever retells it): "Tim snapped
    that pic on Tim's trip" names Tim."""
    return frozenset(named(_GROUP.sub(" ", text), people, any_case=False))


def words(text: str) -> list[str]:
    """The words of `text` that are weighed: its content words, or all when it has none."""
    return content_tokens(text) or tokens(text)


def weighted_terms(text: str, weight: Callable[[str], float]) -> dict[str, float]:
    """Stemmed content words of `text`, each with the weight of its surface form."""
    out: dict[str, float] = {}
    for tok in words(text):
        out.setdefault(root(tok), weight(tok))
    return out


def overlap(a: Mapping[str, float], b: Mapping[str, float]) -> float:
    """Weighted Jaccard: the weight of the shared words over the weight of all words."""
    # fsum: exact sums, so the same words in any order give the same share (1.0 for a text
    # against itself)
    shared = math.fsum(min(a[t], b[t]) for t in a.keys() & b.keys())
    total = math.fsum(max(a.get(t, 0.0), b.get(t, 0.0)) for t in a.keys() | b.keys())
    return shared / total if total > 0 else 0.0


def conflict(a: Mention, b: Mention) -> str | None:
    """Why two mentions cannot be one event, if anything says so."""
    if a.decision != b.decision:
        return "an action and an outcome"
    if a.task_tag != b.task_tag:
        return "different tasks"  # a look-alike in another task is a pattern, not the event
    if not a.decision and a.polarity * b.polarity < 0:
        return "a failure and a success"
    if a.recurrence != b.recurrence:
        return "a recurrence"
    if a.actor and b.actor and a.actor != b.actor:
        return "different people"
    if a.identifiers and b.identifiers and a.identifiers != b.identifiers:
        return "different identifiers"
    return None


# An event told as having come about, and when at most: "The outage happened", "That outage
# occurred yesterday", "The incident started at 3 pm". What it tells is the event itself, as a
# telling that names it ("the checkout outage") does.
_CAME_ABOUT = re.compile(
    r"""^(?P<event>(?:the|that|this|an?|our|their)\s+[^\W\d_]+(?:[\s-]+[^\W\d_]+){0,4}?)
    \s+(?:happened|occurred|took\s+place|started|began)
    (?:\s+(?:yesterday|today|tonight|overnight|earlier|(?:last|this)\s+\w+|on\s+\w+
        |at\s+[\d:.]+(?:\s*[ap]\.?\s?m\b\.?)?))?
    (?:\s*\([^()]*\))?[\s.!]*$""",
    re.IGNORECASE | re.VERBOSE,
)
# A definite noun phrase alone: "The outage.", "that checkout outage".
_DEFINITE = re.compile(
    r"^(?:the|that|this)\s+(?P<words>[^\W\d_]+(?:[\s-]+[^\W\d_]+){0,3})[\s.!]*$", re.I
)
# A name for whatever went wrong: "the incident" is the outage, when one outage is in play.
_ANY_INCIDENT = word_set("incident")
# Names of one failure: "the downtime" is the checkout outage, when one outage is in play.
_ONE_FAILURE = {root(w): w for w in ("outage", "downtime", "disruption")}
# How long something went on: "an hour", "for 40 minutes", "from 9 to 11", "all morning".
_SPAN = r"""(?:for\s+)?(?:(?:about|around|nearly|almost|over|under|roughly|just|more\s+than
    |less\s+than)\s+)?(?:[\w-]+\s+){1,2}?(?:seconds?|minutes?|mins?|hours?|hrs?|days?|weeks?)
    |(?:from|between)\s+[\w:.]+(?:\s*[ap]\.?m\.?)?\s+(?:to|until|till|and)\s+[\w:.]+
    (?:\s*[ap]\.?m\.?)?|until\s+[\w:.]+(?:\s*[ap]\.?m\.?)?
    |all\s+(?:morning|afternoon|evening|night|day|weekend)"""
# A failure told with its span: "The checkout outage lasted an hour", "Checkout was down from 9
# to 11", "went down for 40 minutes", "was offline for an hour" (`down`: what was down, when no
# failure is named).
_SPANNED = re.compile(
    rf"""^(?:(?P<event>(?:the|that|this|an?|our|their)\s+[^\W\d_]+(?:[\s-]+[^\W\d_]+){{0,4}}?)
        \s+(?:lasted|went\s+on)
    |(?!(?:i|we|you|he|she|they)\b)(?P<down>(?:(?:the|our|their)\s+)?[^\W\d_]+
        (?:[\s-]+[^\W\d_]+){{0,3}}?)\s+(?:was|were|went)\s+(?:down|offline))
    \s+(?:{_SPAN})(?:\s*\([^()]*\))?[\s.!]*$""",
    re.IGNORECASE | re.VERBOSE,
)
# Words after a noun that end its phrase: when it was ("another outage today (1 March 2026)").
_WHEN_WORDS = word_set("today yesterday tonight overnight earlier this last")


def event_named(text: str) -> str:
    """What a telling names as its event: the event alone when the telling only says it came
    about ("The outage happened" -> "The outage"); else the telling (`told`)."""
    said = told(text).strip()
    m = _CAME_ABOUT.match(said)
    return m["event"] if m else said


def description(text: str) -> str | None:
    """The definite description a telling is, alone or told as having come about ("The
    outage.", "That checkout outage happened"): a later name for an event told before.
    None for any other telling, and for a recurrence ("the outage happened again", "the
    other outage" are new). "It" is no description here: what it stood for is extraction's."""
    if RECURRENCE.search(text):
        return None
    m = _DEFINITE.match(event_named(text))
    if m is None:
        return None
    said = [w.casefold() for w in m["words"].split()]
    head = m["words"].split()[-1]
    # A verb among the words tells more than the event: "The outage took down checkout".
    if any(
        w in STOPWORDS or w in ADVERBS or w in _PREPOSITIONS or is_past(w) for w in said
    ) or not (head.islower() and head not in _ADJECTIVES):
        return None
    return m.group(0).rstrip(" .!")


def names_any(described: str) -> bool:
    """Whether a definite description names whatever went wrong ("the incident"), not a kind
    of event ("the outage")."""
    said = _WORDS.findall(described)
    return len(said) == 2 and said[-1].casefold() in _ANY_INCIDENT


def names_again(described: str, wording: str, before: Mention | None = None) -> bool:
    """Whether a definite description (`description`) can name the event a wording told: its
    head noun ends a noun phrase there ("the outage" / "The checkout outage", "We had another
    outage today"; not "the outage drill"), and no qualifier says it is another thing ("the
    checkout outage" / "The payments outage": `different_qualifiers`). "The incident" names
    any bad outcome (`before`: the mention of the event told)."""
    if names_any(described):
        return before is not None and before.outcome and before.polarity < 0
    said = _WORDS.findall(described)
    head, heads = root(said[-1].casefold()), _heads(wording)
    down = _SPANNED.match(told(wording).strip())
    if down is not None and down["down"] and head in _ONE_FAILURE:
        # "Checkout was down from 9 to 11" told the checkout outage
        wording, heads = f"{down['down']} {_ONE_FAILURE[head]}", {head}
    if head not in heads and head in _ONE_FAILURE:
        # "the payments downtime" is weighed as "the payments outage" would be
        other = next((h for h in heads if h in _ONE_FAILURE), None)
        if other is not None:
            described, head = " ".join([*said[:-1], _ONE_FAILURE[other]]), other
    return head in heads and not different_qualifiers(described, event_named(wording))


def failure_came_about(text: str) -> bool:
    """Whether a telling says a failure came about ("The checkout outage started at 9", "The
    incident happened") or how long it went on ("The checkout outage lasted an hour",
    "Checkout was down from 9 to 11"): an event, told with or without a date."""
    said = told(text).strip()
    spanned = _SPANNED.match(said)
    if spanned is not None and spanned["down"]:
        return True
    came = _CAME_ABOUT.match(said) if description(text) is not None else spanned
    if came is None:
        return False
    head = _WORDS.findall(came["event"])[-1].casefold()
    return root(head) in _ONE_FAILURE or head in _ANY_INCIDENT


def other_names(described: str) -> list[str]:
    """The other names a definite description's failure may have been told by ("the
    downtime": outage, disruption, or what was down or offline), for finding it among what was
    told."""
    head = root(_WORDS.findall(described)[-1].casefold())
    if head not in _ONE_FAILURE:
        return []
    return [*(w for h, w in _ONE_FAILURE.items() if h != head), "down", "offline"]


def _heads(text: str) -> set[str]:
    """The roots of the words of `text` that end a noun phrase: followed by nothing, a word
    that is no noun (a verb, a preposition, an adverb, when), or a name or number."""
    said = _WORDS.findall(re.sub(r"\([^()]*\)", " ", told(text)))
    low = [w.casefold() for w in said]
    out = set()
    for i, word in enumerate(low):
        if word in STOPWORDS or word in ADVERBS or is_past(word):
            continue
        after = said[i + 1] if i + 1 < len(said) else ""
        nxt = after.casefold()
        if (
            not after
            or nxt in STOPWORDS
            or nxt in _PREPOSITIONS
            or nxt in ADVERBS
            or nxt in _WHEN_WORDS
            or is_past(nxt)
            or verbs.known(verbs.key(nxt))
            or not after.islower()
        ):
            out.add(root(word))
    return out


def named_again(
    described: str, mention: Mention, told_before: Mapping[str, tuple[Sequence[str], Mention]]
) -> str | None:
    """Which event told before a definite description names, of those in play (`told_before`:
    each one's key, wordings and mention): the one that any wording of can be it
    (`names_again`) with nothing against it (`conflict`, where a recurrence told before is
    the event a later "the outage" names). None when none can, or when more than one can:
    "the outage" after a checkout and a payments outage may be either."""
    found = [
        key
        for key, (wordings, before) in told_before.items()
        if not conflict(replace(mention, recurrence=before.recurrence), before)
        and any(names_again(described, w, before) for w in wordings)
    ]
    return found[0] if len(found) == 1 else None


def different_times(a: Span | None, b: Span | None) -> bool:
    """Two tellings said to have happened in spans that do not overlap are two events ("see
    you tomorrow" said on two days), however alike their words; no span says nothing."""
    return a is not None and b is not None and (a[0] >= b[1] or b[0] >= a[1])


def points_elsewhere(text: str, told_as: Sequence[str]) -> bool:
    """Whether a telling, or one of the wordings an event was `told_as`, points at something in
    front of its speaker that the other side does not name: "Caroline painted this" (a
    picture shown then), "Tim took this pic". Such a telling names its event only where it
    was said. "This pride parade I went to" names the parade, so it may retell "Caroline went
    to a pride parade"."""
    return _points_past(text, " ".join(told_as)) or any(_points_past(w, text) for w in told_as)


def _points_past(text: str, other: str) -> bool:
    known = {root(t) for t in content_tokens(other)}
    for match in _DEMONSTRATIVE.finditer(text):
        word = (match.group(1) or "").casefold()
        if not word or word in STOPWORDS or root(word) not in known:
            return True
    return False


def different_people(a: frozenset[str], b: frozenset[str]) -> bool:
    """Two tellings that each name people, none in common, are two events ("Tim's trip to the
    Smoky Mountains" / "John's Rocky Mountains trip"); naming nobody says nothing."""
    return bool(a) and bool(b) and not a & b


_CLOCK_TIME = re.compile(
    r"\b\d{1,2}(?::\d\d)?\s*(?:[ap]\.m\.|[ap]m\b|o'clock)|\b\d{1,2}:\d\d\b", re.IGNORECASE
)
# The date extraction writes after a time: "(28 February 2026)", "(the week of 16 February
# 2026)", "(around 24 June 2023)", "(winter 2025/26)".
_DATE_ASIDE = re.compile(r"\s*\([^()]*\b\d{4}(?:/\d\d)?\)")
# Any day will do: only where the times are said is wanted, not when they fall.
_ANY_DAY = datetime(2000, 1, 1, tzinfo=UTC)


def _what_happened(text: str) -> str:
    """`text` without when it happened: its clock times, the times it tells ("last week", "a
    few weeks ago", "on Monday") and the dates written after them. When is compared by the
    spans the tellings are told of (`Mention.when`); in words, "last week (the week of 26
    June 2023)" is shared by a pride parade and a picnic, and told in other words ("a few
    weeks ago") of one parade."""
    text = _CLOCK_TIME.sub(" ", _DATE_ASIDE.sub("", text))
    for span in resolve(text, _ANY_DAY):
        text = text.replace(span.phrase, " ", 1)
    return text


def same_event(
    a: str,
    a_mention: Mention,
    b: str,
    b_mention: Mention,
    weight: Callable[[str], float],
    named: Callable[[str], bool] = lambda _: False,
) -> float:
    """How surely two descriptions name one event: 0 when something says they differ, else
    the overlap of their weighted words other than who did it (the actors are compared by
    `conflict`; what remains says whether the same thing happened: "Kai added a cron job"
    and "Kai added an index" share little once Kai is set aside). When it happened is no word
    either (`_what_happened`): told of overlapping spans, the time is one thing shared.
    `named`: whether a word is spelt as a name elsewhere (see `different_choices`)."""
    if conflict(a_mention, b_mention):
        return 0.0
    # When is not what: "at 3 a.m." and "at 3 p.m." share "3" and "m".
    a, b = _what_happened(event_named(a)), _what_happened(event_named(b))
    who = {root(x.casefold()) for x in (a_mention.actor, b_mention.actor) if x}
    # "Ana and others" (a "we") is who did it too, not what happened: "John and others even
    # won a trophy" and "John and others won!" share one word, not three.
    groups = [m.group(1) for text in (a, b) for m in _GROUP.finditer(text)]
    if groups:
        who.update(root(x.casefold()) for x in [*groups, "others"])
    wa = {t: w for t, w in weighted_terms(a, weight).items() if t not in who}
    wb = {t: w for t, w in weighted_terms(b, weight).items() if t not in who}
    if a_mention.when and b_mention.when and not different_times(a_mention.when, b_mention.when):
        # Told of one time, however it was put ("last week", "a few weeks ago"): that is
        # shared, as one word as rare as the rarest either holds.
        rarest = max([*wa.values(), *wb.values()], default=0.0)
        wa[_SAME_TIME] = wb[_SAME_TIME] = rarest
    if len(wa.keys() & wb.keys()) < MIN_SHARED or different_qualifiers(a, b):
        return 0.0
    if different_choices(a, b, named):
        return 0.0
    if not (a_mention.outcome or b_mention.outcome) and different_objects(a, b):
        return 0.0
    return overlap(wa, wb)


_SAME_TIME = " when"  # no word: a word has no space


def different_choices(a: str, b: str, named: Callable[[str], bool] = lambda _: False) -> bool:
    """Two tellings of one frame that name another thing in one place: "Use SQLite for the
    CLI" / "Use Postgres for the CLI", "We chose Redis" / "We chose Memcached", "Deploy on
    Fridays" / "Deploy on Mondays". What was chosen is the decision: the two are alternatives
    (and two events that befell differently named things are two events), however many other
    words they share. A name told longer or shorter ("Postgres" / "PostgreSQL") is one name; a
    name only one telling holds ("SQLite and Litestream") adds to the choice rather than
    replacing it; who did it is not what was chosen (`conflict` compares actors, and "Ana and
    others" is a "we"). A word opening a sentence is surely a name when it is a known tool
    ("Postgres ran out of connections" / "Redis ran out of connections") or `named` says it
    is spelt as one elsewhere (where no sentence starts: "We moved Pyxis to the new
    cluster"); asked only of the words the two tellings differ in."""
    wa, wb = _named_words(a), _named_words(b)
    matcher = SequenceMatcher(None, [w for w, *_ in wa], [w for w, *_ in wb], autojunk=False)
    # A name told elsewhere in the other telling was moved, not replaced: "put PgBouncer in
    # front of Pyxis" / "moved Pyxis behind a PgBouncer pooler".
    ka, kb = {w for w, *_ in wa}, {w for w, *_ in wb}
    return any(
        op == "replace"
        and _names_another(
            [x for x in wa[i1:i2] if x[0] not in kb],
            [y for y in wb[j1:j2] if y[0] not in ka],
            named,
        )
        for op, i1, i2, j1, j2 in matcher.get_opcodes()
    )


def different_objects(a: str, b: str) -> bool:
    """Two tellings of one action done to two things: "Cache the sessions in Redis" / "Cache
    the tokens in Redis". The same verb (or a synonym: `verbs.same`), done in both or left
    undone in both, whose objects have head nouns that are not in the other's object ("the
    checkout workers" holds "the workers") nor anywhere in the other telling (moved, not
    replaced), and are no other form or shortening of each other ("session", "prod" /
    "production") nor nouns for one thing ("the deploy" / "the release": `nouns.same`): what
    was done to is another thing, however many other words the two share, though no name
    tells it. "cache user sessions in Redis" caches the sessions. Only a
    telling that is plainly an action counts (`_action`): "Andromeda storefront broken over
    the weekend" is no "storefront" done to a thing."""
    da, db = _action(_plain(a)), _action(_plain(b))
    if da is None or db is None or da.undone != db.undone:
        return False
    if not verbs.same(da.verb or "", db.verb or ""):
        return False
    x, y = _object(da.after), _object(db.after)
    if not (x and y) or _heads_meet(x, y):
        return False
    hx, hy = x[-1], y[-1]
    if hx.startswith(hy) or hy.startswith(hx):
        return False
    ka = {nouns.key(root(t)) for t in content_tokens(_plain(a))}
    kb = {nouns.key(root(t)) for t in content_tokens(_plain(b))}
    return nouns.key(hx) not in kb and nouns.key(hy) not in ka


def _action(text: str) -> Doing | None:
    """The action a telling plainly is: its verb opens it ("Cache sessions in Redis", "did not
    skip the load test") or puts a determiner before its object ("We cached the sessions",
    "Ana restarted the workers"). Else the word `doing` takes for a verb may be a noun of a
    name ("Castor auth taken down", "The rolled back Corvus storefront release")."""
    found = doing(text)
    if found.verb is None:
        return None
    said = _WORDS.findall(text)
    lead = (w for w in said if w.casefold() not in _NEGATORS | _DO)
    opens = next(lead, None) == found.said[0]
    if opens or (found.after and found.after[0].casefold() in _DETERMINERS):
        return found
    return None


def _plain(text: str) -> str:
    """What a telling says happened, without what its pronouns stood for, the dates written
    after its times, or "X and others" as more than a "we"."""
    return _GROUP.sub("others", _DATE_ASIDE.sub("", told(text)))


# A word after which the next one is capitalised as a sentence's first word.
_SENTENCE_START = re.compile(r"(?:^|[.!?:;\"“(])\s*$")


# Ingest asks this of the same candidate texts over and over, one telling against each.
@lru_cache(maxsize=4096)
def _named_words(text: str) -> tuple[tuple[str, int, str], ...]:
    """The content words of `text` in order, each root with how surely it is a name and the
    word as written: 2 for a capital a sentence does not explain ("for the CLI", "on
    Fridays", "SQLite") and for a known tool opening one ("Postgres ran out"), 1 for another
    capitalised first word that is no verb ("Pyxis ran out"; "Kai" before what Kai did), 0
    for any other word. What pronouns stood for, dates written out and "X and others" are
    left out (see `_plain`)."""
    text = _plain(text)
    out = []
    for m in _WORDS.finditer(text):
        word = _POSSESSIVE.sub("", m.group(0))
        low = word.casefold()
        if low in STOPWORDS or low in _DETERMINERS:
            continue
        name = 0
        if any(c.isupper() for c in word[1:]):
            name = 2
        elif word[0].isupper():
            first = bool(_SENTENCE_START.search(text[: m.start()]))
            verb = is_past(low) or low.endswith("ing") or verbs.known(verbs.key(low))
            if not first:
                name = 2
            elif verb or low in ADVERBS:
                name = 0
            else:
                name = 2 if is_tool(word) else 1
        out.append((root(low), name, word))
    return tuple(out)


def _names_another(
    x: Sequence[tuple[str, int, str]],
    y: Sequence[tuple[str, int, str]],
    named: Callable[[str], bool],
) -> bool:
    """Whether two stretches told in one place each name something, at least one surely (or
    spelt as a name elsewhere: `named`), and no name of one is a name of the other told
    longer or shorter ("postgres", "postgresql")."""
    nx, ny = [w for w, n, _ in x if n], [w for w, n, _ in y if n]
    if not (nx and ny):
        return False
    if max(n for _, n, _ in (*x, *y)) < 2 and not any(
        named(said) for _, n, said in (*x, *y) if n == 1
    ):
        return False
    return not any(p.startswith(q) or q.startswith(p) for p in nx for q in ny)


def spelt_as_name(word: str, text: str) -> bool:
    """Whether `text` writes `word` capitalised where no sentence starts ("We moved Pyxis to
    the new cluster"): a name by its spelling, wherever else it opens a sentence."""
    for m in re.finditer(rf"(?<![\w'’]){re.escape(word)}(?![\w'’])", text):
        if not _SENTENCE_START.search(text[: m.start()]):
            return True
    return False


def different_qualifiers(a: str, b: str) -> bool:
    """One word told of two things: "the payments config" and "the search config", "the 2.4
    release" and "the 2.3 release". A shared common noun after which each telling puts a word
    the other lacks (neither a shortening of the other: "prod" is "production") names two
    things, however much else the tellings share. A name is not qualified so: "the stuck
    Mintaka migration" and "the blocking Mintaka migration" are one migration."""
    wa, wb = _VERSIONED.findall(a), _VERSIONED.findall(b)
    la, lb = {w.casefold() for w in wa}, {w.casefold() for w in wb}
    before_a = _qualifiers(wa)
    for head, mb in _qualifiers(wb).items():
        ma = before_a.get(head)
        if (
            ma is not None
            and root(ma) != root(mb)
            and ma not in lb
            and mb not in la
            and not (ma.startswith(mb) or mb.startswith(ma))
            and _names_one(ma)
            and _names_one(mb)
        ):
            return True
    return False


def _names_one(qualifier: str) -> bool:
    """Whether a qualifier picks one thing out ("payments", "2.4", "July", "weekly") rather
    than saying what it was like ("broken", "bad", "big"): a word with a digit, or none of the
    adjectives that describe (a suffix would take "July", "music" or "family" for one)."""
    return any(c.isdigit() for c in qualifier) or qualifier not in _ADJECTIVES


_ADJECTIVES = word_set(
    """bad good great big small little large huge tiny new old young long short quick slow
    fast hot cold full whole entire same other first last next main major minor real true
    false broken stuck wrong right nice fine fun busy hard easy early late recent latest
    previous current final initial whole nasty awful terrible horrible amazing awesome cool
    crazy wild weird strange usual normal regular special favorite favourite best worst
    rough tough sad happy quiet loud live dead open closed empty free safe"""
)


def _qualifiers(words: Sequence[str]) -> dict[str, str]:
    """The qualifier of each common noun named after a determiner: "the billing config" ->
    billing (lowercased)."""
    low = [w.casefold() for w in words]
    return {
        root(low[i + 2]): low[i + 1]
        for i in range(len(words) - 2)
        if low[i] in _DETERMINERS
        and low[i + 1] not in STOPWORDS
        and low[i + 2] not in STOPWORDS
        and words[i + 2] == low[i + 2]  # a common noun, not a name
    }


_VERSIONED = re.compile(r"[^\W\d_]*\d+(?:\.\d+)+|[^\W_]+")  # "2.4", "v2.4" are one word here
_DETERMINERS = frozenset(
    {"the", "a", "an", "our", "their", "his", "her", "its", "my", "your", "this", "that", "these",
     "those"}
)  # fmt: skip

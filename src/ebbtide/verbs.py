"""Verbs of what agents do that mean the same thing ("skip", "bypass") or its opposite ("skip",
"keep"), so that an action asked about is read as the recorded one, or as not doing it. Hand
lists, kept small and explicit: a verb of many senses ("cut", "hold", "set") is left out, as a
wrong opposite hides a recorded lesson. Pure functions over verb keys: a verb's root, with its
particle when it has one ("turn off")."""

from __future__ import annotations

from .text import root

# Verbs that name one action, whichever of them an agent says. Each stands on a side of
# `_OPPOSITES` too, written once here so that the two lists cannot drift apart.
_SKIP = "skip, bypass, omit, sidestep, circumvent"
_DISABLE = "disable, deactivate, turn off, switch off"
_ENABLE = "enable, activate, turn on, switch on"
_REMOVE = "remove, delete, drop"
_STOP = "stop, halt"
_PAUSE = "pause, suspend"
_REVERT = "revert, roll back"
_BLOCK = "block, deny, forbid"
_ALLOW = "allow, permit"
_REJECT = "reject, decline, refuse"
_ACCEPT = "accept, approve"
_LOWER = "lower, decrease, reduce"
_RAISE = "raise, increase, bump"
_SYNONYMS = (
    _SKIP, _DISABLE, _ENABLE, _REMOVE, _STOP, _PAUSE, _REVERT, _BLOCK, _ALLOW, _REJECT,
    _ACCEPT, _LOWER, _RAISE,
)  # fmt: skip
# Each pair: every verb of one side undoes, or leaves undone, what every verb of the other
# does. The verbs of a side are not synonyms ("keep" and "add" both oppose "remove"), so a
# side may hold more than a group of `_SYNONYMS` ("undo" beside the reverts, "halve" beside
# the lowerings).
_OPPOSITES = (
    (_SKIP, "keep, run, do, perform, follow, use"),
    (_DISABLE, _ENABLE),
    (_REMOVE, "add, keep"),
    (_STOP, "start"),
    (_PAUSE, "resume"),
    (f"{_REVERT}, undo", "apply, roll out"),
    (_BLOCK, _ALLOW),
    (_REJECT, _ACCEPT),
    (f"{_LOWER}, halve", f"{_RAISE}, double"),
    ("downgrade", "upgrade"),
    ("close", "open"),
    ("exclude", "include"),
    ("ignore, disregard", "follow, heed"),
    ("scale down, scale in", "scale up, scale out"),
)
# Verbs that end a thing's being there or being done ("remove the alert", "skip the canary"):
# done to a measure that prevented a failure, they bring the failure back.
_TAKE_AWAY = f"{_SKIP}, {_DISABLE}, {_REMOVE}, {_STOP}, {_PAUSE}, {_REVERT}, undo, exclude, ignore"
# Particles that make another verb of the one before them ("turn off", "roll back").
PARTICLES = frozenset({"off", "on", "out", "back", "up", "down", "in"})
# Past forms the stemmer does not take back to the verb's root.
_IRREGULAR = {"kept": "keep", "ran": "run", "did": "do", "done": "do", "doing": "do",
              "undid": "undo", "undone": "undo", "used": "use", "using": "use"}  # fmt: skip


def key(word: str, particle: str | None = None) -> str:
    """The key of a verb in any inflection ("Skipped" -> "skip", "kept" -> "keep", "applied"
    -> "apply"), with its particle if it has one ("Rolled", "back" -> "roll back")."""
    low = word.casefold()
    if low in _IRREGULAR:
        low = _IRREGULAR[low]
    elif low.endswith("ied") and len(low) > 4:
        low = low[:-3] + "y"
    return f"{root(low)} {particle.casefold()}" if particle else root(low)


def _keys(verbs: str) -> frozenset[str]:
    return frozenset(key(*v.split()) for v in verbs.split(","))


_OPPOSITE_KEYS = tuple((_keys(a), _keys(b)) for a, b in _OPPOSITES)
_SYNONYM_KEYS = tuple(_keys(group) for group in _SYNONYMS)
# Verbs that mean little without their particle, which may follow the object: "turned the
# flag off", "rolled the release back".
PHRASAL = frozenset(key(v) for v in ("turn", "switch", "roll", "scale", "shut", "spin", "opt"))
_KNOWN = frozenset().union(*(x | y for x, y in _OPPOSITE_KEYS))
_TAKE_AWAY_KEYS = _keys(_TAKE_AWAY)
# Their opposites: not doing one of these takes a thing away ("don't keep the alert").
_PUT_KEYS = frozenset().union(*(y for x, y in _OPPOSITE_KEYS if x & _TAKE_AWAY_KEYS))


def known(verb: str) -> bool:
    """Whether a verb key is one of the verbs listed here."""
    return verb in _KNOWN


def takes_away(verb: str) -> bool:
    """Whether a verb key ends a thing's being there or being done ("remove", "turn off")."""
    return verb in _TAKE_AWAY_KEYS


def puts(verb: str) -> bool:
    """Whether a verb key is the opposite of one that takes a thing away ("keep", "add",
    "enable"): left undone, it takes the thing away."""
    return verb in _PUT_KEYS


def opposite(a: str, b: str) -> bool:
    """Whether verb keys `a` and `b` do opposite things: a listed pair, or a verb and its
    "un-" form ("pin", "unpin")."""
    if a == f"un{b}" or b == f"un{a}":
        return True
    return any((a in x and b in y) or (b in x and a in y) for x, y in _OPPOSITE_KEYS)


def same(a: str, b: str) -> bool:
    """Whether verb keys `a` and `b` name one action ("skip", "bypass")."""
    return a == b or any(a in group and b in group for group in _SYNONYM_KEYS)

"""A note's causal claims, as links and nodes record them: which notes say a link (its
context's "said in a.md; b.md"), how a retraction is marked (so that a person's ending of a
link is told apart and kept), and which nodes only one note told. Pure functions over model
objects; `Memory.remember_causes` applies them.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

from .model import Edge, Node
from .text import normalize

# How a note's retraction is told: in the context of a link it ended, and on a claim it ended.
RETRACTED = "no longer said in"
RETRACTED_FROM = "retracted_from"
SAID_IN = "said in"  # the notes that make a link, in its context: "said in a.md; b.md"
WHERE_MAX = 500  # characters naming where in a note a claim was said
NAME_MAX = 4_096  # characters of a note's name where it is said (a file's absolute path)
AUTHOR_MAX = 60  # characters of a note's author (a speaker's name)
_PARTS = " | "  # between what a link's context says: "said in a.md | disproved by on-call"
# A note's name may hold the separators above ("/notes; old/a.md"): they are written escaped.
_ESCAPES = (("%", "%25"), (";", "%3B"), ("|", "%7C"))


def _escaped(name: str) -> str:
    for raw, code in _ESCAPES:
        name = name.replace(raw, code)
    return name


def _unescaped(name: str) -> str:
    for raw, code in reversed(_ESCAPES):
        name = name.replace(code, raw)
    return name


def retraction(name: str) -> str:
    """What a link's context says when the note `name` no longer says it."""
    return f"{RETRACTED} {_escaped(name)}"


def wording(text: str) -> str:
    """A text as compared with its earlier wording: case, spacing and final stops aside."""
    return normalize(text).rstrip(".!?。！？ ")


def where(note: Node) -> str:
    """How a note is named where it is said: its file (its first source) in the folder it was
    ingested from, so two folders' README.md are two sayers; or its id."""
    if not note.sources:
        return note.id
    folder, path = note.attributes.get("folder"), note.attributes.get("path")
    if isinstance(folder, str):
        return f"{folder}/{path if isinstance(path, str) else note.sources[0]}"
    return note.sources[0]


def names(note: Node, formerly: Sequence[str] = ()) -> frozenset[str]:
    """Every name a note's sayings are recorded under: `where`; its file alone, as links said
    before folders were recorded name it; and `formerly`, where its file was before its folder
    moved (told by the read that finds it moved, and only to that read: another file may take
    that path since). The file alone only while it is the path the note is recorded under."""
    folder, path = note.attributes.get("folder"), note.attributes.get("path")
    bare = note.sources[:1] if folder is None or note.sources[:1] == [path] else []
    return frozenset([where(note), *bare, *formerly])


def renamed_from(note: Node, formerly: Sequence[str]) -> tuple[str, ...]:
    """The paths in its own folder that a note's file had before (of `formerly`: renamed or
    moved within the folder), as its claims' sources name them ("old.md#fix")."""
    folder = note.attributes.get("folder")
    if not isinstance(folder, str):
        return ()
    return tuple(
        f.removeprefix(f"{folder}/")
        for f in formerly
        if f.startswith(f"{folder}/") and f != where(note)
    )


def said_in(note: Node) -> str:
    """The context of a link only `note` says."""
    return f"{SAID_IN} {_escaped(where(note))}"


def said_by(edge: Edge, note: Node, formerly: Sequence[str] = ()) -> Edge:
    """The link, listing `note` among the notes it is said in (once, under its current name)."""
    listed = sayers(edge)
    here = where(note)
    own = names(note, formerly)
    if here in listed and own.isdisjoint(set(listed) - {here}):
        return edge
    return with_sayers(edge, [*(w for w in listed if w not in own), here])


def sayers(edge: Edge) -> list[str]:
    """The notes a link is said in, from its context."""
    for part in (edge.context or "").split(_PARTS):
        if part.startswith(f"{SAID_IN} "):
            return [_unescaped(n) for n in part[len(SAID_IN) + 1 :].split("; ")]
    return []


def with_sayers(edge: Edge, notes: list[str]) -> Edge:
    """The link with `notes` as the notes it is said in (none: no such record)."""
    rest = [p for p in (edge.context or "").split(_PARTS) if p and not p.startswith(f"{SAID_IN} ")]
    said = [f"{SAID_IN} {'; '.join(_escaped(n) for n in notes)}"] if notes else []
    return edge.model_copy(update={"context": _PARTS.join([*said, *rest]) or None})


def retracted(edge: Edge) -> bool:
    """Whether a note's retraction ended the link (not a person)."""
    return any(p.startswith(RETRACTED) for p in (edge.context or "").split(_PARTS))


def restored(edge: Edge) -> Edge:
    """A link a note's retraction ended, current again, without the retraction's words and
    without the notes it was said in then (none says it now: the note saying it again lists
    itself)."""
    kept = [
        p
        for p in (edge.context or "").split(_PARTS)
        if p and not p.startswith((RETRACTED, f"{SAID_IN} "))
    ]
    return edge.model_copy(update={"valid_to": None, "context": _PARTS.join(kept) or None})


def from_note(
    note: Node | None, sources: Sequence[str], renamed: Sequence[str] = ()
) -> Callable[[str], bool]:
    """Whether a source is this note's: one of `sources` or within one of the note's own (its
    file, or a section of it: "pm.md", "pm.md#fix"), or of the paths it was `renamed` from."""
    roots = (*(note.sources if note is not None else ()), *renamed)
    told = frozenset(sources)

    def mine(source: str) -> bool:
        return source in told or any(source == r or source.startswith(f"{r}#") for r in roots)

    return mine


def owned_by(note: Node | None, sources: Sequence[str]) -> Callable[[Node], bool]:
    """Whether a node was told only by this note (`from_note`)."""
    mine = from_note(note, sources)

    def owned(node: Node) -> bool:
        return bool(node.sources) and all(mine(s) for s in node.sources)

    return owned

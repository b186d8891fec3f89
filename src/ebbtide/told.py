"""Which messages a memory was told, so that a conversation sent again teaches nothing twice.

Agents send overlapping windows of one conversation. A message remembered before is known by a
key kept in the store's meta table (`key`); read again, it is context for the new messages
beside it, and what only it told is the node stored then (`stored_for`), never a new one.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Iterable
from datetime import UTC, datetime

from .extract import Item
from .model import EPISODE_KINDS, Edge, Node
from .store import SearchFilter, Store
from .transcript import Message

__all__ = [
    "EDIT_ENDS",
    "EDIT_OPENS",
    "PLACE",
    "RECORDED",
    "TOLD",
    "at_place",
    "edited",
    "ended_by_edit",
    "held",
    "key",
    "link_key",
    "made",
    "made_key",
    "only_by",
    "place",
    "stored_for",
    "tellers",
    "told_again",
    "with_tellers",
]

TOLD = "told:"  # meta keys of the messages a memory was told
PLACE = TOLD + "at:"  # ... and of where each was said, holding its `key` (see `place`)
MADE = TOLD + "made:"  # ... of the nodes each message at a place told (see `made_key`)
LINK = TOLD + "link:"  # ... and of the messages that told each causal link (see `link_key`)
# How a link's context tells that an edit of the message that told it ended it (its last part,
# after " | "): "its message 'm3' was edited".
EDIT_OPENS, EDIT_ENDS = "its message ", " was edited"
SAME_TEXT = 20  # nodes of one text looked through for the one a message made
# The attribute marking an episode node `record_decision` recorded: a message that retells the
# lesson lists itself among its sources, but does not make it its own (see `only_by`).
RECORDED = "recorded"


def key(message: Message, session: datetime | None, scope: str) -> str | None:
    """What a message is known by once remembered: its id, speaker and text in its scope. A
    numbered one (no id given: "m1" starts every transcript) is known by when it was said
    instead: its own time (in UTC), else its place and the call's date: its place, not its
    conversation's name (`in_conversation`), so that the messages of a window sent again grown,
    named anew, are still known. One with none of these cannot be told from a new one that
    says the same ("The deploy failed again"): None, it is always news."""
    said: list[str] = [scope, message.speaker, message.text, message.caption or ""]
    if not message.numbered:
        # The id as its chat file gave it, not placed in the file (`in_file`): what stores
        # written before files placed their ids know a message by.
        said.insert(1, message.place)
    elif message.time is not None:
        said.append(message.time.astimezone(UTC).isoformat())
    elif session is not None:
        said.insert(1, message.place)
        said.append(session.astimezone(UTC).isoformat())
    else:
        return None
    digest = hashlib.sha256(json.dumps(said).encode()).hexdigest()[:32]
    return f"{TOLD}{digest}"


def place(message: Message, session: datetime | None, scope: str) -> str | None:
    """Where a message with an id of its own was said: its id and speaker in the scope, at its
    time (else the call's date). Told again at its place in other words, it was edited. With
    neither a time nor a date, an id may as well be another chat's (ids such as "1", "2" start
    every export), and a numbered message has no id of its own: None."""
    when = message.time or session
    if message.numbered or when is None:
        return None
    said = [scope, message.place, message.speaker, when.astimezone(UTC).isoformat()]
    return f"{PLACE}{hashlib.sha256(json.dumps(said).encode()).hexdigest()[:32]}"


def at_place(key: str, when: datetime | None) -> str:
    """What a message's place holds: the key of its words, and its time as written (what the
    items of those words carry as `said_at`, whatever offset an edit is sent in)."""
    return key if when is None else f"{key} {when.isoformat()}"


def held(value: str) -> tuple[str, str | None]:
    """The key and time `at_place` wrote."""
    key, _, when = value.partition(" ")
    return key, when or None


def made_key(place: str) -> str:
    """Where the ids of the nodes the message at `place` told are kept (a JSON list): its
    edit finds them there, though a later message told them again (their `said_at` is then
    that message's)."""
    return MADE + place.removeprefix(PLACE)


def made(value: str | None) -> list[str]:
    """The node ids a `made_key` record lists (none without one)."""
    return list(json.loads(value)) if value else []


def link_key(edge_id: str) -> str:
    """Where the messages that told a causal link are kept (a JSON list of each one's place,
    else its id): an edit of one of them ends the link only when no other tells it. A link
    with no such record (made before it was kept, or told by an LLM alone) is not known to be
    told by any message in particular."""
    return LINK + edge_id


def tellers(value: str | None) -> list[str]:
    """The messages a `link_key` record lists (none without one)."""
    return list(json.loads(value)) if value else []


def with_tellers(value: str | None, more: Iterable[str]) -> str:
    """A `link_key` record listing `more` too, each message once."""
    return json.dumps(list(dict.fromkeys([*tellers(value), *more])))


def edited(message_id: str) -> str:
    """What a link's context says when an edit of the message that told it ended it."""
    return f"{EDIT_OPENS}{message_id!r}{EDIT_ENDS}"


def ended_by_edit(edge: Edge) -> bool:
    """Whether the last thing that ended the link was an edit of a message that told it."""
    return edge.valid_to is not None and (edge.context or "").endswith(EDIT_ENDS)


def told_again(edge: Edge) -> Edge:
    """A link an edit ended, current again (told again by a message), without the edit's
    words."""
    before, sep, _ = (edge.context or "").rpartition(f" | {EDIT_OPENS}")
    return edge.model_copy(update={"valid_to": None, "context": before if sep else None})


def only_by(node: Node, message_id: str) -> bool:
    """Whether a message alone told the node: its only source, and no `record_decision` call
    recorded it (marked so, or, in a store from before the mark, made by one). An edit of that
    message takes the node with it; any other stays."""
    recorded = bool(node.attributes.get(RECORDED)) or node.provenance == "record_decision"
    return node.sources == [message_id] and not recorded


def stored_for(store: Store, item: Item, scope: str) -> Node | None:
    """The node stored for an item only known messages told: made by the same message (one of
    its ids among the node's sources, or the same message said at the same time, whatever its
    place in this window) with the same text; an episode may have been stored as another kind
    of episode (an event no verdict had judged yet is a decision now). Read again without the
    messages before it, a message may say otherwise ("It paid off" for "It (we went with
    SQLite) paid off", a note for an outcome): then the node its words find that the same
    message made. None when there is none."""
    kinds = EPISODE_KINDS if item.kind in EPISODE_KINDS else frozenset({item.kind})
    mine = set(item.sources)
    message, said_at = item.attributes.get("message"), item.attributes.get("said_at")

    def made_by_it(node: Node) -> bool:
        if node.attributes.get("message") != message:
            return False
        return bool(mine & set(node.sources)) or node.attributes.get("said_at") == said_at

    for kind in sorted(kinds, key=lambda k: k != item.kind):
        for node in store.find_nodes(kind=kind, text=item.text, scope=scope, limit=SAME_TEXT):
            if item.kind == "person" or made_by_it(node) or mine & set(node.sources):
                return node
    flt = SearchFilter(include_cold=True, scope=scope)  # any kind: it was read otherwise
    ids = [i for i, _ in store.text_search(item.text, SAME_TEXT, flt)]
    return next((n for n in store.get_nodes(ids).values() if made_by_it(n)), None)

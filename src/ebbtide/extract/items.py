"""What extraction yields: typed items, the links between them, and how sure each rule is."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any, Literal

from ..transcript import Message

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

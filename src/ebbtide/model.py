"""The data model and every typed result. Faces render these; nothing returns formatted text."""

from __future__ import annotations

import secrets
import threading
import time
from datetime import datetime
from typing import Any, Literal, Self

from pydantic import BaseModel, ConfigDict, Field

KINDS: frozenset[str] = frozenset(
    {
        "note",
        "fact",
        "decision",
        "outcome",
        "person",
        "project",
        "client",
        "meeting",
        "lesson",
        "event",
        "preference",
        "entity",
        "task",
        "document",
        "prediction",
    }
)

RELATIONS: frozenset[str] = frozenset(
    {
        "caused",
        "enabled",
        "prevented",
        "no_effect",
        "about",
        "fact",
        "related",
        "similar_to",
        "repeated",
        "contradicts",
        "refines",
        "co_occurrence",
        "supersedes",
    }
)
# Relations an agent records between a decision and what followed it.
CAUSAL_RELATIONS: frozenset[str] = frozenset({"caused", "enabled", "prevented", "no_effect"})
# The provenance of what reading a file made (a note, its sections, its [[links]]).
INGESTED = "ingest"
# Kinds that index the items naming them (a person, a client): no time, no sources of their own.
INDEX_KINDS: frozenset[str] = frozenset({"person", "entity", "project", "client"})
# What happened or was done: one event, whichever of these it was last told as.
EPISODE_KINDS: frozenset[str] = frozenset({"decision", "outcome", "event"})
CONFIDENCE_SOURCES: frozenset[str] = frozenset(
    {"temporal", "rule", "llm_inferred", "user_feedback"}
)

Tier = Literal["hot", "warm", "cold", "frozen"]
TIERS: tuple[Tier, ...] = ("hot", "warm", "cold", "frozen")
# archived: decayed to frozen; forgotten: an agent asked for deletion, a person decides.
Status = Literal["active", "archived", "forgotten"]


class _Model(BaseModel):
    model_config = ConfigDict(extra="forbid")

    @classmethod
    def from_row(cls, fields: dict[str, Any]) -> Self:
        """A model from what a store wrote: every field, each already of its type, so nothing is
        validated or defaulted. Recall reads dozens of nodes per query and `model_construct`'s
        per-field work was most of their cost; a row missing a field takes that path still."""
        if fields.keys() != cls.model_fields.keys():
            return cls.model_construct(**fields)
        obj = cls.__new__(cls)
        object.__setattr__(obj, "__dict__", fields)
        object.__setattr__(obj, "__pydantic_fields_set__", set(fields))
        object.__setattr__(obj, "__pydantic_extra__", None)
        object.__setattr__(obj, "__pydantic_private__", None)
        return obj


class Node(_Model):
    id: str
    kind: str
    text: str
    attributes: dict[str, Any] = Field(default_factory=dict)
    scope: str = "default"
    task_tag: str | None = None
    created_at: datetime
    updated_at: datetime
    last_read_at: datetime | None = None
    read_count: int = 0
    pinned: bool = False
    tier: Tier = "hot"
    status: Status = "active"
    activation: float = 0.0
    q_value: float | None = None
    polarity: float | None = None
    valid_from: datetime | None = None
    valid_to: datetime | None = None
    superseded_by: str | None = None
    sources: list[str] = Field(default_factory=list)
    provenance: str | None = None


class Edge(_Model):
    id: str
    src: str
    dst: str
    relation: str
    weight: float = 1.0
    created_at: datetime
    last_reinforced_at: datetime
    reinforce_count: int = 0
    access_count: int = 0
    valid_from: datetime | None = None
    valid_to: datetime | None = None
    task_tag: str | None = None
    context: str | None = None
    confidence_source: str | None = None
    provenance: str | None = None


_ID_LOCK = threading.Lock()
_last_id_us = 0


def new_id(prefix: str) -> str:
    """`prefix_`, 13 hex digits of microseconds since the epoch (within a process never
    repeated nor going back), and 6 random ones for ids made at the same moment elsewhere.
    After the prefix, ids sort by when they were made (`creation_key`)."""
    global _last_id_us
    with _ID_LOCK:
        _last_id_us = max(time.time_ns() // 1000, _last_id_us + 1)
        made = _last_id_us
    return f"{prefix}_{made:013x}{secrets.token_hex(3)}"


def creation_key(ident: str) -> str:
    """What orders ids `new_id` made by when they were made (other ids order arbitrarily but
    always the same way): ties broken by it come out the same in every run."""
    return ident.rpartition("_")[2]


def new_edge(src: str, dst: str, relation: str, weight: float, at: datetime, **extra: Any) -> Edge:
    """A fresh edge, valid from `at`, its decay clock starting at `at`."""
    return Edge(
        id=new_id("e"),
        src=src,
        dst=dst,
        relation=relation,
        weight=weight,
        created_at=at,
        last_reinforced_at=at,
        valid_from=at,
        **extra,
    )


class Link(_Model):
    """A link to make while remembering: to `target`, with `relation` and `weight`."""

    target: str
    relation: str = "related"
    weight: float = 1.0


class ViaEdge(_Model):
    edge_id: str
    src: str
    relation: str
    dst: str
    contribution: float


class Replaced(_Model):
    """An ended item a query matched, and what it said."""

    id: str
    text: str


class Why(_Model):
    """Why a hit surfaced: which ranked lists, seed or hop, via which edges, how fresh."""

    lists: dict[str, int] = Field(default_factory=dict, description="list name -> 1-based rank")
    text_match: float | None = None
    origin: Literal["seed", "hop"] = "seed"
    hops: int = 0
    via: list[ViaEdge] = Field(default_factory=list)
    activation: float = 0.0
    tier: Tier = "hot"
    recency_days: float | None = Field(
        None,
        description="days since it was last read, told again or reinforced, else since it was"
        " made (a note: since its date)",
    )
    repeats: str | None = Field(
        None, description="a better hit from the same messages; this one's score counts less"
    )
    replies_to: str | None = Field(
        None,
        description="a better hit whose message this one's message replies to; this one's "
        "score counts less",
    )
    replaces: Replaced | None = Field(
        None,
        description="an ended item the query matched that this one superseded (at the end of "
        "its chain of successors): this one stands in for it, ranked by the better match",
    )
    weights: dict[str, float] = Field(
        default_factory=dict,
        description="what multiplied the score, by reason: time (told of or said in the time "
        "asked about), question (it asks, it does not know), speaker (said by the one person "
        "asked about), index (a name, not an answer), repeats, reply",
    )


class RecallHit(_Model):
    node: Node
    score: float
    why: Why


class RecallResult(_Model):
    query: str
    hits: list[RecallHit]
    degraded: str | None = Field(
        default=None,
        description="set when the embedding model could not be reached: the hits come from "
        "words, time and links only, and this says why",
    )


class Neighbor(_Model):
    node: Node
    edge: Edge
    direction: Literal["out", "in"]
    strength: float = Field(description="weight x |coefficient| x recency decay, now")


class NeighborsResult(_Model):
    node: Node
    neighbors: list[Neighbor]


class ReviewItem(_Model):
    node: Node
    reason: str
    requested_at: datetime
    requested_by: str


class ReviewQueue(_Model):
    items: list[ReviewItem]


class ReviewDecision(_Model):
    node_id: str
    action: Literal["approved", "rejected", "not_deleted"]
    removed_edges: int = 0
    reason: str | None = None  # why an approved deletion was not made


class TierChange(_Model):
    node_id: str
    text: str
    before: Tier
    after: Tier


class MaintainReport(_Model):
    ran_at: datetime
    nodes: int
    tiers: dict[str, int]
    changed: list[TierChange]
    archived: list[str]
    queued_for_review: list[str]
    pending_review: int


class Stats(_Model):
    store: str
    nodes: int
    edges: int
    by_kind: dict[str, int]
    by_tier: dict[str, int]
    by_relation: dict[str, int]
    archived: int = Field(description="archived by maintain when they went frozen")
    forgotten: int = Field(
        default=0,
        description="hidden at an agent's request (forget) or because their file is gone, "
        "until a person approves or rejects the deletion",
    )
    pinned: int
    pending_review: int
    last_maintain: datetime | None
    vectors_missing: int | None = Field(
        default=None,
        description="nodes without a vector from the current embedding model (ebbtide reembed "
        "fills them in); None with embeddings off",
    )


class ReinforceResult(_Model):
    nodes: list[str]
    edges: list[Edge]


class ForgetResult(_Model):
    node_id: str
    queued: bool
    reason: str
    kept_until: str | None = Field(
        default=None,
        description="set when a person chose lately to keep the node: it is left as it is "
        "(not archived, not queued) until this date",
    )


class DecisionRecord(_Model):
    decision: Node
    outcome: Node
    edge: Edge
    polarity: float
    influenced_by: list[Edge] = Field(default_factory=list)


class FactRecord(_Model):
    fact: Node
    superseded: list[str] = Field(default_factory=list)


# causal layer --------------------------------------------------------------------------------

Verdict = Literal["SAFE", "WARNING", "DANGER", "UNKNOWN"]


class Lesson(_Model):
    """One recorded causal link: decision -relation-> outcome, with how much it counts now."""

    edge_id: str
    decision_id: str
    decision: str
    relation: str
    outcome_id: str
    outcome: str
    polarity: float | None
    confidence: float
    strength: float = Field(description="confidence x |coefficient| x recency decay, now")
    task_tag: str | None
    recorded_at: datetime


class LessonHit(_Model):
    lesson: Lesson
    score: float
    why: Why


class CausalSearchResult(_Model):
    query: str | None
    task_tag: str | None
    hits: list[LessonHit]


class MemorySearchResult(_Model):
    """search_memory: knowledge of every kind plus the lessons tied to it."""

    query: str
    hits: list[RecallHit]
    lessons: list[Lesson]
    degraded: str | None = Field(
        default=None,
        description="set when the embedding model could not be reached: the hits come from "
        "words, time and links only, and this says why",
    )


class FactSearchResult(_Model):
    query: str | None
    facts: list[Node]


class DirectoryEntry(_Model):
    edge_id: str
    line: str
    polarity: float | None
    task_tag: str | None
    strength: float


class CausalDirectory(_Model):
    entries: list[DirectoryEntry]
    text: str = Field(description="compact index, one lesson per line, for a system prompt")


class CauseStep(_Model):
    lesson: Lesson
    score: float


DEGRADED = (
    "set when a description matched nothing by its words and the embedding model, which "
    "would have matched it by meaning, could not be reached; says why"
)


class TraceResult(_Model):
    outcome_description: str
    matched: list[Node] = Field(description="outcome nodes the description matched")
    causes: list[CauseStep]
    degraded: str | None = Field(default=None, description=DEGRADED)


class Chain(_Model):
    steps: list[Lesson] = Field(description="from the root cause to the outcome")
    confidence: float
    score: float


class ChainResult(_Model):
    outcome_description: str
    matched: list[Node]
    chains: list[Chain]
    degraded: str | None = Field(default=None, description=DEGRADED)


class Consequence(_Model):
    node: Node
    activation: float = Field(description="signed: negative means inhibited / prevented")
    hops: int
    path: list[Lesson]


class InterventionResult(_Model):
    action: str = Field(description="the action as read, without a question put around it")
    matched: list[Node]
    verdict: Verdict
    risk: float = Field(description="0 = only good outcomes follow, 1 = only bad ones")
    consequences: list[Consequence]
    evidence: list[str]
    prediction_id: str | None
    degraded: str | None = Field(default=None, description=DEGRADED)


class OptionEvidence(_Model):
    option: str = Field(description="the option as read, without a question put around it")
    matched: list[Node]
    good: float
    bad: float
    protective: float = Field(description="bad outcomes this option prevented")
    episodes: int
    score: float
    lessons: list[Lesson]
    undoes: list[Node] = Field(
        default_factory=list,
        description="matched measures this option takes away: what they prevented follows it",
    )
    evidence: str | None = Field(
        default=None,
        description="the consequence that weighed most in the score, in a line (the lessons "
        "leading to it, followed or prevented, good or bad); none without a good or bad one",
    )


class CounterfactualResult(_Model):
    decision: OptionEvidence
    alternative: OptionEvidence
    preferred: Literal["decision", "alternative", "tie", "unknown"]
    margin: float = Field(
        description="the decision's score minus the alternative's: below 0 when the "
        "alternative does better"
    )
    prediction_id: str | None
    degraded: str | None = Field(default=None, description=DEGRADED)


class PredictionItem(_Model):
    prediction_id: str
    kind: Literal["intervention", "counterfactual"]
    subject: str
    predicted: str
    made_at: datetime
    status: Literal["open", "correct", "wrong"]
    observed: str | None = None
    resolved_at: datetime | None = None


class PredictionReport(_Model):
    total: int
    resolved: int
    correct: int
    accuracy: float | None
    items: list[PredictionItem]


class InvalidateResult(_Model):
    edge_id: str
    invalidated: bool
    reason: str


class Supersession(_Model):
    old: Lesson
    new: Lesson
    reason: str


class UpdatesResult(_Model):
    applied: bool
    updates: list[Supersession]


class Pattern(_Model):
    edge_id: str
    relation: Literal["similar_to", "repeated", "contradicts", "refines"]
    a: Lesson
    b: Lesson
    score: float


class PatternsResult(_Model):
    patterns: list[Pattern]


class LessonText(_Model):
    query: str
    lesson: str
    lessons: list[Lesson]
    confidence: float


class SleepReport(_Model):
    maintain: MaintainReport
    patterns_added: int
    updates_pending: int


class TranscriptResult(_Model):
    """What remembering a transcript stored or changed: the items extracted from its new
    messages, an item known messages told when a new link reaches it, and the links made (the
    new messages' raw turns go to the audit log only)."""

    messages: int
    nodes: list[Node]
    edges: list[Edge]
    known: int = Field(
        default=0,
        description="messages remembered before (same id, speaker and text in this scope; with "
        "no id, the same at the same time, or place and date): read again to understand the new "
        "ones, but nothing they say is stored or learned twice",
    )
    degraded: str | None = Field(
        default=None,
        description="set when the LLM extractor could not be used: what the rules found was "
        "stored, and this says why",
    )


class RememberResult(_Model):
    """The `remember` tool's result for both call shapes: text (node) or transcript (nodes)."""

    node: Node | None = None
    nodes: list[Node] = Field(default_factory=list)
    edges: list[Edge] = Field(default_factory=list)
    known: int = Field(
        default=0,
        description="a transcript's messages remembered before: context only, not stored again",
    )
    degraded: str | None = Field(
        default=None, description="a transcript stored without the LLM extractor, and why"
    )

    @classmethod
    def of_transcript(cls, got: TranscriptResult) -> RememberResult:
        """The result for a transcript `Memory.remember` stored as `got`."""
        return cls(nodes=got.nodes, edges=got.edges, known=got.known, degraded=got.degraded)

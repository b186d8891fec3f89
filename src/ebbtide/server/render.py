"""One short human line per result, shown next to the structured content."""

from __future__ import annotations

from functools import singledispatch

from pydantic import BaseModel

from ..model import (
    DecisionRecord,
    Edge,
    FactRecord,
    ForgetResult,
    MaintainReport,
    NeighborsResult,
    Node,
    RecallResult,
    ReinforceResult,
    ReviewQueue,
    Stats,
)
from ..text import shorten


@singledispatch
def summary(result: BaseModel) -> str:
    return type(result).__name__


@summary.register
def _(r: Node) -> str:
    return f"{r.kind} {r.id}: {shorten(r.text, 60)} [{r.tier}{', pinned' if r.pinned else ''}]"


@summary.register
def _(r: Edge) -> str:
    return f"{r.src} -{r.relation}-> {r.dst} (weight {r.weight:.2f})"


@summary.register
def _(r: RecallResult) -> str:
    if not r.hits:
        return f"nothing found for {shorten(r.query, 40)!r}"
    top = "; ".join(f"{h.node.id} {shorten(h.node.text, 40)}" for h in r.hits[:3])
    return f"{len(r.hits)} hits; top: {top}"


@summary.register
def _(r: NeighborsResult) -> str:
    return f"{len(r.neighbors)} neighbours of {r.node.id}"


@summary.register
def _(r: ReinforceResult) -> str:
    return f"reinforced {len(r.nodes)} node(s), {len(r.edges)} link(s)"


@summary.register
def _(r: ForgetResult) -> str:
    state = "queued for review" if r.queued else "already waiting for review"
    return f"{r.node_id} archived and {state}; a person approves deletions"


@summary.register
def _(r: MaintainReport) -> str:
    tiers = ", ".join(f"{k} {v}" for k, v in r.tiers.items())
    return (
        f"{r.nodes} nodes ({tiers}); {len(r.changed)} changed tier, {len(r.archived)} archived, "
        f"{r.pending_review} waiting for review"
    )


@summary.register
def _(r: ReviewQueue) -> str:
    return f"{len(r.items)} deletion(s) waiting for a person's approval"


@summary.register
def _(r: Stats) -> str:
    return f"{r.nodes} nodes, {r.edges} links, {r.pending_review} waiting for review"


@summary.register
def _(r: DecisionRecord) -> str:
    return (
        f"{r.decision.id} -{r.edge.relation}-> {r.outcome.id} "
        f"(outcome polarity {r.polarity:+.2f}, decision Q {r.decision.q_value or 0:+.2f})"
    )


@summary.register
def _(r: FactRecord) -> str:
    extra = f", superseded {', '.join(r.superseded)}" if r.superseded else ""
    return f"fact {r.fact.id}: {shorten(r.fact.text, 60)}{extra}"

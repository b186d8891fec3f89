"""One short human line per result, shown next to the structured content. Many clients show
the model only this text, so what a result is for comes after it, a line an item and bounded:
a recall's hits with why they surfaced, the items a conversation stored, the chains of causes,
the evidence behind a verdict, a node's neighbours, the causal directory, the lesson."""

from __future__ import annotations

from collections import Counter
from functools import singledispatch

from pydantic import BaseModel

from ..model import (
    CausalDirectory,
    CausalSearchResult,
    ChainResult,
    CounterfactualResult,
    DecisionRecord,
    Edge,
    FactRecord,
    FactSearchResult,
    ForgetResult,
    InterventionResult,
    InvalidateResult,
    Lesson,
    LessonText,
    MaintainReport,
    MemorySearchResult,
    NeighborsResult,
    Node,
    OptionEvidence,
    PatternsResult,
    PredictionReport,
    RecallHit,
    RecallResult,
    ReinforceResult,
    RememberResult,
    ReviewQueue,
    SleepReport,
    Stats,
    TraceResult,
    TranscriptResult,
    UpdatesResult,
)
from ..text import chain_line, link_line, shorten


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
    # Said with no hits too: "nothing found" by words alone may be found by meaning later.
    note = _without_meaning(r.degraded)
    if not r.hits:
        return f"nothing found for {shorten(r.query, 40)!r}{note}"
    return f"{len(r.hits)} hits{note}:" + _hit_lines(r.hits)


# A hit's text in its line; the whole text is in the structured content.
HIT_TEXT = 120
# Most item lines after a summary (a recall's hits are bounded by its k instead).
MAX_LINES = 20


def _lines(items: list[str], limit: int = MAX_LINES) -> str:
    """Each item on a line of its own, at most `limit`, then how many more there are."""
    out = "".join(f"\n{item}" for item in items[:limit])
    if len(items) > limit:
        out += f"\n… {len(items) - limit} more in the structured content"
    return out


# A hit's first source in its line (an ingested note's path and section, a message's id).
SOURCE_TEXT = 80


def _hit_lines(hits: list[RecallHit]) -> str:
    """A line per hit: rank, id, kind and (shortened) text, why it surfaced, and where it was
    said, so an agent can name the note it read."""
    return "".join(
        f"\n{i}. {h.node.id} {h.node.kind}: {shorten(h.node.text, HIT_TEXT)} ({explain(h)})"
        + _source(h.node)
        for i, h in enumerate(hits, 1)
    )


def _source(node: Node) -> str:
    if not node.sources:
        return ""
    more = f" (+{len(node.sources) - 1} more)" if len(node.sources) > 1 else ""
    return f" from {shorten(node.sources[0], SOURCE_TEXT)}{more}"


def explain(hit: RecallHit, *, ids: bool = True) -> str:
    """Why a hit surfaced, in a few words: the lists that found it and its rank in each, seed
    or hop (through which link, from which hit), what multiplied its score, the better hit it
    repeats or replies to, the ended item it stands in for, its tier, and how long since it
    was last used. Without `ids`, the other hits go unnamed (a narration that shows no
    ids)."""
    why = hit.why
    parts = [", ".join(f"{name} #{rank}" for name, rank in why.lists.items()) or "no list"]
    hop = why.origin
    if why.via:
        v = why.via[0]
        hop += f" via {v.relation}"
        if ids:
            hop += f" from {v.src if v.dst == hit.node.id else v.dst}"
    parts.append(hop)
    parts += [f"{reason} x{factor:g}" for reason, factor in why.weights.items()]
    if why.repeats and ids:
        parts.append(f"repeats {why.repeats}")
    if why.replies_to and ids:
        parts.append(f"replies to {why.replies_to}")
    if why.replaces is not None:
        was = shorten(why.replaces.text, HIT_TEXT)
        parts.append(f"replaces {why.replaces.id}: {was}" if ids else f"replaces {was!r}")
    parts.append(why.tier)
    if why.recency_days is not None:
        parts.append(f"last read or told {why.recency_days:g} d ago")
    return "; ".join(parts)


@summary.register
def _(r: NeighborsResult) -> str:
    return f"{len(r.neighbors)} neighbours of {r.node.id}" + _lines(
        [
            f"- {n.node.id} {n.node.kind}: {shorten(n.node.text, HIT_TEXT)} "
            f"({'out' if n.direction == 'out' else 'in'} {n.edge.relation}, "
            f"strength {n.strength:.2f})"
            for n in r.neighbors
        ]
    )


@summary.register
def _(r: ReinforceResult) -> str:
    return f"reinforced {len(r.nodes)} node(s), {len(r.edges)} link(s)"


@summary.register
def _(r: ForgetResult) -> str:
    if r.kept_until is not None:
        return (
            f"{r.node_id} left as it is, not archived: a person chose to keep it until "
            f"{r.kept_until}"
        )
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
    return f"{len(r.items)} deletion(s) waiting for a person's approval" + _lines(
        [
            f"- {i.node.id} {i.node.kind}: {shorten(i.node.text, HIT_TEXT)} "
            f"(asked by {i.requested_by}: {shorten(i.reason, 80)})"
            for i in r.items
        ]
    )


@summary.register
def _(r: Stats) -> str:
    owed = f", {r.vectors_missing} without a vector (ebbtide reembed)" if r.vectors_missing else ""
    return f"{r.nodes} nodes, {r.edges} links, {r.pending_review} waiting for review{owed}"


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


@summary.register
def _(r: RememberResult) -> str:
    if r.node is not None and len(r.nodes) <= 1:
        return summary(r.node)
    known = f"; {r.known} message(s) known already" if r.known else ""
    # The LLM extractor failed: an agent reading only this line must know the rules stood in.
    degraded = f" ({shorten(r.degraded, 200)})" if r.degraded else ""
    kinds = Counter(n.kind for n in r.nodes)
    by_kind = f" ({', '.join(f'{k} {n}' for k, n in kinds.most_common())})" if kinds else ""
    return (
        f"stored or changed {len(r.nodes)} item(s){by_kind} and {len(r.edges)} link(s) from"
        f" the conversation{known}{degraded}"
    ) + _lines([f"- {n.id} {n.kind}: {shorten(n.text, HIT_TEXT)}" for n in r.nodes])


@summary.register
def _(r: TranscriptResult) -> str:  # the CLI's `remember --chat`, as the tool says it
    return summary(RememberResult.of_transcript(r))


@summary.register
def _(r: MemorySearchResult) -> str:
    note = _without_meaning(r.degraded)
    return (
        f"{len(r.hits)} hits, {len(r.lessons)} lessons{note}"
        + (":" + _hit_lines(r.hits) if r.hits else "")
        + _lines([f"- lesson: {_lesson(x)}" for x in r.lessons])
    )


def _lesson(x: Lesson) -> str:
    return f"{link_line(x.decision, x.relation, x.outcome)} ({x.edge_id})"


def _without_meaning(degraded: str | None) -> str:
    """Hits found without the embedding model, said so."""
    return " (words, time and links only: the embedding model is unavailable)" if degraded else ""


@summary.register
def _(r: CausalSearchResult) -> str:
    return f"{len(r.hits)} lessons" + _lines([f"- {_lesson(h.lesson)}" for h in r.hits])


@summary.register
def _(r: FactSearchResult) -> str:
    return f"{len(r.facts)} facts" + _lines(
        [f"- {f.id}: {shorten(f.text, HIT_TEXT)}" for f in r.facts]
    )


@summary.register
def _(r: CausalDirectory) -> str:
    # The directory is its text (a line a lesson, as many as asked for).
    return f"{len(r.entries)} lessons" + (f":\n{r.text}" if r.entries else "")


@summary.register
def _(r: TraceResult) -> str:
    if not r.causes:
        return "no recorded cause" + _unmatched(r.degraded)
    return f"{len(r.causes)} cause(s){_unmatched(r.degraded)}" + _lines(
        [f"- {_lesson(c.lesson)}" for c in r.causes]
    )


@summary.register
def _(r: ChainResult) -> str:
    if not r.chains:
        return "no recorded chain" + _unmatched(r.degraded)
    return f"{len(r.chains)} chain(s), root first{_unmatched(r.degraded)}:" + _lines(
        [
            f"{i}. {chain_line([(s.decision, s.relation, s.outcome) for s in c.steps])}"
            f" (confidence {c.confidence:.2f})"
            for i, c in enumerate(r.chains, 1)
        ]
    )


@summary.register
def _(r: InterventionResult) -> str:
    return (
        f"{r.verdict} (risk {r.risk:.2f}); {len(r.consequences)} consequence(s)"
        + _unmatched(r.degraded)
        + _lines([f"- {shorten(e, 200)}" for e in r.evidence])
    )


@summary.register
def _(r: CounterfactualResult) -> str:
    a, b = r.decision, r.alternative
    if r.preferred in ("decision", "alternative"):
        win, lose = (a, b) if r.preferred == "decision" else (b, a)
        head = (
            f"prefer the {r.preferred}: {shorten(win.option, 80)} "
            f"(score {win.score:+.2f} vs {lose.score:+.2f})"
        )
    elif r.preferred == "tie":
        head = f"a tie: neither option does clearly better (scores {a.score:+.2f}, {b.score:+.2f})"
    else:
        head = "no preference: too little is recorded about the options to choose"
    return (
        head
        + _unmatched(r.degraded)
        + "".join(_option(label, o) for label, o in (("decision", a), ("alternative", b)))
    )


def _option(label: str, o: OptionEvidence) -> str:
    """An option's line: its score, and the consequence that weighed most in it."""
    said = o.evidence or "no recorded good or bad outcome"
    return f"\n- {label}, {shorten(o.option, 60)} (score {o.score:+.2f}): {said}"


def _unmatched(degraded: str | None) -> str:
    """A causal answer given without a match by meaning, said so."""
    return " (words only: the embedding model is unavailable)" if degraded else ""


@summary.register
def _(r: PredictionReport) -> str:
    acc = "n/a" if r.accuracy is None else f"{r.accuracy:.0%}"
    return f"{r.total} predictions, {r.resolved} resolved, accuracy {acc}"


@summary.register
def _(r: InvalidateResult) -> str:
    return f"{r.edge_id} {'invalidated' if r.invalidated else 'unchanged'}: {r.reason}"


@summary.register
def _(r: UpdatesResult) -> str:
    verb = "superseded" if r.applied else "would supersede"
    return f"{verb} {len(r.updates)} lesson(s)"


@summary.register
def _(r: PatternsResult) -> str:
    return f"{len(r.patterns)} pattern(s)"


@summary.register
def _(r: LessonText) -> str:
    return r.lesson  # the lesson is the result: a few lines, one an episode used


@summary.register
def _(r: SleepReport) -> str:
    return (
        f"{summary(r.maintain)}; {r.patterns_added} new pattern(s), "
        f"{r.updates_pending} contradicted lesson(s)"
    )

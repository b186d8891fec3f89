"""Cross-task patterns between lessons, mined without an LLM, and superseding old lessons by
newer contradicting ones."""

from __future__ import annotations

import json
from datetime import datetime

from .causal import PRODUCING, Ctx, lessons
from .model import CAUSAL_RELATIONS, Edge, Lesson, Pattern, Supersession, new_edge
from .sameness import RECURRENCE
from .scoring import decision_reward
from .store import SearchFilter
from .text import content_tokens, similarity

PATTERN_RELATIONS = frozenset({"similar_to", "repeated", "contradicts", "refines"})
SIMILAR = 0.5
REPEATED = 0.8


def _sign(x: float | None) -> int:
    return 0 if not x else (1 if x > 0 else -1)


def classify(a: Lesson, b: Lesson) -> tuple[str, float] | None:
    """How lesson b relates to lesson a, if at all."""
    sd = similarity(a.decision, b.decision)
    if sd < SIMILAR:
        return None
    sa, sb = _sign(a.polarity), _sign(b.polarity)
    if sa and sb and sa != sb:
        return "contradicts", sd
    if sd >= REPEATED and sa == sb:
        return "repeated", sd
    ta, tb = set(content_tokens(a.decision)), set(content_tokens(b.decision))
    if ta < tb and sa == sb:
        return "refines", sd
    return "similar_to", sd


def mine(ctx: Ctx, now: datetime, *, max_lessons: int = 20_000) -> list[str]:
    """Link decisions of lessons recorded in different tasks that look alike. Returns the ids
    of new pattern edges; a pattern that was invalidated is never proposed again."""
    found = lessons(ctx, ctx.store.find_edges(relations=CAUSAL_RELATIONS, limit=max_lessons))
    by_decision: dict[str, list[Lesson]] = {}
    for x in found:
        by_decision.setdefault(x.decision_id, []).append(x)
    flt = SearchFilter(include_cold=True, kinds=frozenset({"decision", "event", "outcome"}))
    created: list[str] = []
    with ctx.store.transaction():
        for a in found:
            for other_id, _ in ctx.store.text_search(a.decision, 10, flt):
                for b in by_decision.get(other_id, []):
                    if b.edge_id <= a.edge_id or b.decision_id == a.decision_id:
                        continue
                    if a.task_tag == b.task_tag:
                        continue
                    kind = classify(a, b)
                    if kind is None:
                        continue
                    relation, score = kind
                    src, dst = a.decision_id, b.decision_id
                    if ctx.store.get_edge(src, dst, relation) is not None:
                        continue
                    edge = new_edge(
                        src,
                        dst,
                        relation,
                        round(score, 3),
                        now,
                        context=json.dumps({"a": a.edge_id, "b": b.edge_id}),
                        provenance="patterns",
                    )
                    ctx.store.add_edge(edge)
                    created.append(edge.id)
    return created


def as_pattern(ctx: Ctx, edge: Edge) -> Pattern | None:
    ends = json.loads(edge.context or "{}")
    recorded = ctx.store.get_edges([ends.get("a", ""), ends.get("b", "")])
    pair = {x.edge_id: x for x in lessons(ctx, list(recorded.values()))}
    if ends.get("a") not in pair or ends.get("b") not in pair:
        return None
    return Pattern(
        edge_id=edge.id,
        relation=edge.relation,  # type: ignore[arg-type]
        a=pair[ends["a"]],
        b=pair[ends["b"]],
        score=edge.weight,
    )


def updates(ctx: Ctx, limit: int) -> list[Supersession]:
    """Older lessons of a decision contradicted by a newer one (opposite outcome)."""
    found = lessons(ctx, ctx.store.find_edges(relations=CAUSAL_RELATIONS, limit=100_000))
    by_decision: dict[str, list[Lesson]] = {}
    for x in found:
        by_decision.setdefault(x.decision_id, []).append(x)
    out: list[Supersession] = []
    for group in by_decision.values():
        if len(group) < 2:
            continue
        group.sort(key=lambda x: (x.recorded_at, x.edge_id))
        newest = group[-1]
        new_sign = _sign(decision_reward(newest.relation, newest.polarity or 0.0))
        if not new_sign and newest.relation in PRODUCING and RECURRENCE.search(newest.outcome):
            # "the migration held the lock again": whatever it was, it came back after this
            # decision, so the decision did not settle it
            new_sign = -1
        if not new_sign:
            continue
        for old in group[:-1]:
            old_sign = _sign(decision_reward(old.relation, old.polarity or 0.0))
            if old_sign and old_sign != new_sign:
                out.append(
                    Supersession(
                        old=old,
                        new=newest,
                        reason=f"newer outcome of the same decision contradicts it "
                        f"({newest.recorded_at.date()})",
                    )
                )
    out.sort(key=lambda s: s.new.recorded_at, reverse=True)
    return out[:limit]

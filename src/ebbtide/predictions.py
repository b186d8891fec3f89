"""Predictions made by intervention and counterfactual queries, kept as graph nodes so that
they export with everything else, resolved when the outcome they predicted arrives, and open
again when the lesson that settled one no longer stands."""

from __future__ import annotations

from collections.abc import Iterable
from datetime import datetime
from typing import Any

from .clock import to_datetime
from .model import Node, PredictionItem, PredictionReport, new_id
from .store import Store
from .store.base import EPISODES, MAX_EPISODES

OPEN = "open"
# A prediction keeps each episode that came after it (lesson, verdict, outcome, when) under
# EPISODES, in order: a settlement names the lesson it rests on, and falls with it.
# ... up to MAX_EPISODES: the next ones stand in if the first falls, and a decision told of
# again and again does not write, nor read, every prediction about it each time.


def log(
    store: Store,
    *,
    kind: str,
    subject: str,
    predicted: str,
    good_ids: list[str],
    bad_ids: list[str],
    now: datetime,
) -> str | None:
    """Record a prediction: outcomes of `good_ids` should turn out good, of `bad_ids` bad.

    Nothing is logged when there is nothing to check it against.
    """
    if not good_ids and not bad_ids:
        return None
    node = Node(
        id=new_id("pred"),
        kind="prediction",
        text=f"Prediction ({kind}): {subject} -> {predicted}",
        attributes={
            "prediction_kind": kind,
            "subject": subject,
            "predicted": predicted,
            "good_ids": good_ids,
            "bad_ids": bad_ids,
            "status": OPEN,
            EPISODES: [],
        },
        created_at=now,
        updated_at=now,
        # Audit records: never archived by decay.
        pinned=True,
        provenance=kind,
    )
    store.add_node(node)
    return node.id


def resolve(
    store: Store, decision_id: str, edge_id: str, reward: float, outcome: str, now: datetime
) -> None:
    """A new episode for `decision_id` (its lesson `edge_id`) is kept by every prediction
    about the decision, in the order they came; the first whose lesson stands settles it. A
    lesson told again was kept already, and stands as it did (only a note's retraction is
    undone by telling a lesson again, and a lesson told by anyone else is no note's to
    retract)."""
    if reward == 0:
        return
    kept = []
    for node in _naming(store, [decision_id]):
        a = node.attributes
        if decision_id in a["good_ids"]:
            correct = reward > 0
        elif decision_id in a["bad_ids"]:
            correct = reward < 0
        else:
            continue
        if EPISODES not in a and a["status"] != OPEN:
            continue  # settled before episodes were kept: by which lesson is not known
        seen = a.get(EPISODES, [])
        if len(seen) < MAX_EPISODES and all(e["edge_id"] != edge_id for e in seen):
            episode = {"edge_id": edge_id, "correct": correct, "observed": outcome}
            kept.append((node, [*seen, {**episode, "at": now.isoformat()}]))
    _settle(store, kept, now)


def recheck(store: Store, edge_ids: Iterable[str], now: datetime) -> None:
    """Lessons that stopped standing (retracted, superseded, an end forgotten or deleted) or
    stand again: every prediction that kept one of them is settled anew by the first of its
    episodes that stands, or is open again, so none reports an outcome whose support is gone."""
    changed = set(edge_ids)
    if not changed:
        return
    kept = [
        (node, node.attributes[EPISODES])
        for node in _naming(store, changed)
        if any(e["edge_id"] in changed for e in node.attributes.get(EPISODES, []))
    ]
    _settle(store, kept, now)


def _naming(store: Store, ids: Iterable[str]) -> list[Node]:
    """The valid predictions that name any of `ids` (a decision, a lesson): the store indexes
    what each names (`named_ids`), so an outcome or a changed lesson reads only the predictions
    it concerns, however many others there are."""
    return [n for n in store.nodes_naming(ids) if n.kind == "prediction" and n.valid_to is None]


def _settle(store: Store, kept: list[tuple[Node, list[dict[str, Any]]]], now: datetime) -> None:
    """Each prediction settled as the first of its episodes whose lesson stands says, or open;
    written only when that changed."""
    standing = _standing(store, list({e["edge_id"] for _, seen in kept for e in seen}))
    for node, seen in kept:
        first = next((e for e in seen if e["edge_id"] in standing), None)
        a = {k: v for k, v in node.attributes.items() if k not in ("observed", "resolved_at")}
        a[EPISODES] = seen
        if first is None:
            a["status"] = OPEN
        else:
            a["status"] = "correct" if first["correct"] else "wrong"
            a["observed"] = first["observed"]
            a["resolved_at"] = first["at"]
        if a != node.attributes:
            store.update_node(node.model_copy(update={"attributes": a, "updated_at": now}))


def _standing(store: Store, edge_ids: list[str]) -> set[str]:
    """The lessons among `edge_ids` that still hold: not ended, both ends there, neither
    waiting to be forgotten."""
    edges = {i: e for i, e in store.get_edges(edge_ids).items() if e.valid_to is None}
    ends = store.get_nodes([x for e in edges.values() for x in (e.src, e.dst)])
    return {
        i
        for i, e in edges.items()
        if all(x in ends and ends[x].status != "forgotten" for x in (e.src, e.dst))
    }


def report(store: Store, limit: int) -> PredictionReport:
    """The accuracy of every prediction logged, and the latest `limit` of them (oldest first):
    an agent that asked thousands of questions reads the figures, not thousands of items. The
    figures are the store's counts by status (`Store.tally`), so they cost the same however
    many predictions there are; only the items listed are read."""
    statuses = store.tally("prediction")
    total = sum(statuses.values())
    resolved = total - statuses.get(OPEN, 0)
    correct = statuses.get("correct", 0)
    return PredictionReport(
        total=total,
        resolved=resolved,
        correct=correct,
        accuracy=correct / resolved if resolved else None,
        items=[_item(node) for node in store.latest_nodes("prediction", limit)],
    )


def _item(node: Node) -> PredictionItem:
    a = node.attributes
    return PredictionItem(
        prediction_id=node.id,
        kind=a["prediction_kind"],
        subject=a["subject"],
        predicted=a["predicted"],
        made_at=node.created_at,
        status=a["status"],
        observed=a.get("observed"),
        resolved_at=to_datetime(a["resolved_at"]) if a.get("resolved_at") else None,
    )

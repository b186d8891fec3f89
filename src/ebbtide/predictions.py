"""Predictions made by intervention and counterfactual queries, kept as graph nodes so that
they export with everything else, and resolved when the outcome they predicted arrives."""

from __future__ import annotations

from datetime import datetime

from .clock import to_datetime
from .model import Node, PredictionItem, PredictionReport, new_id
from .store import Store

OPEN = "open"


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
        },
        created_at=now,
        updated_at=now,
        # Audit records: never archived by decay.
        pinned=True,
        provenance=kind,
    )
    store.add_node(node)
    return node.id


def resolve(store: Store, decision_id: str, reward: float, outcome: str, now: datetime) -> None:
    """A new episode for `decision_id` settles every open prediction about it."""
    if reward == 0:
        return
    for node in store.find_nodes(kind="prediction", attribute=("status", OPEN), limit=10_000):
        a = node.attributes
        if decision_id in a["good_ids"]:
            correct = reward > 0
        elif decision_id in a["bad_ids"]:
            correct = reward < 0
        else:
            continue
        store.update_node(
            node.model_copy(
                update={
                    "attributes": {
                        **a,
                        "status": "correct" if correct else "wrong",
                        "observed": outcome,
                        "resolved_at": now.isoformat(),
                    },
                    "updated_at": now,
                }
            )
        )


def report(store: Store) -> PredictionReport:
    items = []
    for node in store.find_nodes(kind="prediction", valid_only=False, limit=100_000):
        a = node.attributes
        items.append(
            PredictionItem(
                prediction_id=node.id,
                kind=a["prediction_kind"],
                subject=a["subject"],
                predicted=a["predicted"],
                made_at=node.created_at,
                status=a["status"],
                observed=a.get("observed"),
                resolved_at=to_datetime(a["resolved_at"]) if a.get("resolved_at") else None,
            )
        )
    resolved = [i for i in items if i.status != OPEN]
    correct = sum(i.status == "correct" for i in resolved)
    return PredictionReport(
        total=len(items),
        resolved=len(resolved),
        correct=correct,
        accuracy=correct / len(resolved) if resolved else None,
        items=items,
    )

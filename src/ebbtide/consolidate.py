"""Maintenance: recompute activation, re-tier, archive what went frozen, queue it for review."""

from __future__ import annotations

from dataclasses import replace
from datetime import datetime
from typing import TypeVar

import numpy as np

from . import scoring
from .config import CLOCK_SLACK_S, DAY, Config
from .model import INDEX_KINDS, Edge, MaintainReport, Node, Tier, TierChange
from .store import GraphArrays, PendingReview, Store

META_LAST_MAINTAIN = "last_maintain"
META_ACTIVATION_REF = "activation_ref"
# A report lists at most this many tier changes; counts always cover every node.
MAX_REPORTED_CHANGES = 200

_Dated = TypeVar("_Dated", Node, Edge)


def in_use(tier: Tier) -> Tier:
    """The tier of a node just used or kept (told again, kept by a person, pinned): at least
    warm, as the next maintain will find it, so a default recall finds it now."""
    return tier if tier in ("hot", "warm") else "warm"


def maintain(store: Store, config: Config, now: datetime) -> MaintainReport:
    # What is read and what is written form one transaction: a node forgotten, kept, told
    # again or deleted by another process meanwhile must not be overwritten from a stale read
    # (un-hidden, its request withdrawn, or queued again after its deletion). On SQLite the
    # write lock is held for the whole run (about a second for 50k nodes).
    with store.transaction():
        return _maintain(store, config, now)


def _maintain(store: Store, config: Config, now: datetime) -> MaintainReport:
    t = now.timestamp()
    g = _set_future_times_to_now(store, store.graph_arrays(), now)
    n = len(g.ids)
    coefficient = np.array([config.coefficient(r) for r in g.relation], dtype=np.float64)
    read_at = np.where(np.isnan(g.last_read_at), g.created_at, g.last_read_at)
    activation = scoring.node_activation(
        scoring.ActivationInputs(
            n_nodes=n,
            src=g.src,
            dst=g.dst,
            weight=g.weight,
            coefficient=coefficient,
            edge_age_s=t - g.last_reinforced_at,
            read_age_s=t - read_at,
        ),
        half_life_s=config.half_life_s,
        read_bonus=config.read_bonus,
        read_half_life_s=config.read_half_life_s,
        spread_damping=config.spread_damping,
    )
    tiers = scoring.assign_tiers(
        activation,
        pinned=g.pinned,
        # New to the memory, not new to the world: a note from a file two years old, ingested
        # today, is at least warm for the grace period like any other write. Used is as good
        # as new: what was recalled, told again or reinforced lately stays findable, however
        # far a hub (a person linked to all they said) is ahead of it.
        age_s=t - np.maximum(np.maximum(g.created_at, g.updated_at), read_at),
        previous=g.tier,  # type: ignore[arg-type]
        hot=config.hot_threshold,
        warm=config.warm_threshold,
        cold=config.cold_threshold,
        grace_s=config.grace_days * DAY,
        hubs=np.array([k in INDEX_KINDS for k in g.kind], dtype=bool),
    )
    requests = store.pending_reviews()
    pending = {p.node_id for p in requests}
    queued_by_decay = {p.node_id for p in requests if p.requested_by == "maintain"}
    cooldown = store.review_cooldowns()
    statuses: list[str] = []
    archived: list[str] = []
    queued: list[str] = []
    changed: list[TierChange] = []
    with store.transaction():
        for i, ident in enumerate(g.ids):
            tier, status = tiers[i], g.status[i]
            if tier != g.tier[i] and len(changed) < MAX_REPORTED_CHANGES:
                changed.append(
                    TierChange(node_id=ident, text=g.texts[i], before=g.tier[i], after=tier)
                )
            if tier == "frozen" and not g.pinned[i]:
                if status == "active":
                    status = "archived"
                    archived.append(ident)
                if ident not in pending and cooldown.get(ident, 0.0) <= t:
                    days = (t - read_at[i]) / DAY
                    store.enqueue_review(
                        PendingReview(ident, f"frozen: unused for {days:.0f} days", t, "maintain")
                    )
                    queued.append(ident)
            elif status == "archived" or (status == "active" and ident in queued_by_decay):
                # Used again since it was archived: it comes back, and leaves the queue (also
                # when something else made it active first). A node someone asked to forget
                # keeps its request.
                status = "active"
                if ident in queued_by_decay:
                    store.remove_review(ident)
                    pending.discard(ident)
            statuses.append(status)
        store.write_activation(g.ids, activation.tolist(), tiers, statuses, read=g.status)
        ref = scoring.reference_activation(activation, g.pinned) if n else 1.0
        store.set_meta(META_ACTIVATION_REF, repr(ref))
        store.set_meta(META_LAST_MAINTAIN, repr(t))
    counts = {tier: 0 for tier in ("hot", "warm", "cold", "frozen")}
    for tier in tiers:
        counts[tier] += 1
    return MaintainReport(
        ran_at=now,
        nodes=n,
        tiers=counts,
        changed=changed,
        archived=archived,
        queued_for_review=queued,
        pending_review=len(pending) + len(queued),
    )


def _set_future_times_to_now(store: Store, g: GraphArrays, now: datetime) -> GraphArrays:
    """Times written while the clock ran ahead (`scoring.clamp_future`), set to now in the
    store too: clamped only here, each run would find them ahead again, and what was used
    then would not decay until the clock caught up."""
    t = now.timestamp()
    limit = t + CLOCK_SLACK_S
    ahead_nodes = (g.created_at > limit) | (g.updated_at > limit) | (g.last_read_at > limit)
    ahead_edges = g.last_reinforced_at > limit
    if not ahead_nodes.any() and not ahead_edges.any():
        return g

    def set_right(item: _Dated, names: tuple[str, ...]) -> _Dated:
        ahead = [k for k in names if (v := getattr(item, k)) is not None and v.timestamp() > limit]
        return item.model_copy(update=dict.fromkeys(ahead, now))

    ids = [g.ids[i] for i in np.flatnonzero(ahead_nodes)]
    for node in store.get_nodes(ids).values():
        store.update_node(set_right(node, ("created_at", "updated_at", "last_read_at")))
    ends = {g.ids[i] for i in np.concatenate([g.src[ahead_edges], g.dst[ahead_edges]])}
    for edge in store.edges_of(ends):
        if edge.last_reinforced_at.timestamp() > limit:
            store.update_edge(set_right(edge, ("created_at", "last_reinforced_at")))
    return replace(
        g,
        **{
            name: scoring.clamp_future(getattr(g, name), t, CLOCK_SLACK_S)
            for name in ("created_at", "updated_at", "last_read_at", "last_reinforced_at")
        },
    )

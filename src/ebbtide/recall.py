"""Recall: ranked lists (BM25, vectors, graph spreading) fused by RRF, blended with activation."""

from __future__ import annotations

from datetime import datetime

import numpy as np

from . import scoring
from .config import DAY, Config
from .graph import Subgraph, spread_from
from .model import RecallHit, RecallResult, ViaEdge, Why
from .store import SearchFilter, Store

# How many candidates each ranked list contributes, relative to k.
CANDIDATE_FACTOR = 5
MIN_CANDIDATES = 30
# Seeds for spreading come from the top of the fused text/vector lists.
MAX_SEEDS = 10
RECALL_HOPS = 2
# Nearest neighbours exist for any query; below this cosine they are not related to it.
MIN_COSINE = 0.3


def recall(
    store: Store,
    config: Config,
    query: str,
    *,
    k: int,
    now: datetime,
    flt: SearchFilter,
    activation_ref: float,
    vector: tuple[str, np.ndarray] | None = None,
) -> RecallResult:
    """`vector` is (model name, query embedding) when embeddings are on."""
    t = now.timestamp()
    n_candidates = max(MIN_CANDIDATES, CANDIDATE_FACTOR * k)
    text_hits = store.text_search(query, n_candidates, flt)
    lists: dict[str, list[str]] = {"text": [i for i, _ in text_hits]}
    text_score = dict(text_hits)
    if vector is not None:
        lists["vector"] = [
            i for i, cos in store.vector_search(*vector, n_candidates, flt) if cos >= MIN_COSINE
        ]

    pre = scoring.rrf(lists, config.rrf_k)
    seed_ids = sorted(pre, key=pre.__getitem__, reverse=True)[:MAX_SEEDS]
    briefs = store.briefs(seed_ids)
    seeds = {
        s: scoring.seed_activation(1.0 / (1 + r), briefs[s].q_value)
        for r, s in enumerate(seed_ids)
        if s in briefs
    }
    sub: Subgraph | None = None
    via_of: dict[str, str] = {}
    hops_of: dict[str, int] = {}
    if seeds:
        sub, reached = spread_from(store, seeds, config, t, direction="both", hops=RECALL_HOPS)
        positive = [r for r in reached if r.activation > 0]
        allowed = store.filter_ids([r.node_id for r in positive if r.hops > 0], flt)
        allowed.update(seeds)
        graph_ranked = sorted(
            (r for r in positive if r.node_id in allowed), key=lambda r: -r.activation
        )[:n_candidates]
        lists["graph"] = [r.node_id for r in graph_ranked]
        for r in graph_ranked:
            hops_of[r.node_id] = r.hops
            if r.via is not None:
                via_of[r.node_id] = r.via

    fused = scoring.rrf(lists, config.rrf_k)
    briefs.update(store.briefs([i for i in fused if i not in briefs]))
    scored = sorted(
        (
            (
                scoring.blend(
                    f,
                    scoring.relative_activation(briefs[i].activation, activation_ref),
                    config.activation_blend,
                ),
                i,
            )
            for i, f in fused.items()
            if i in briefs
        ),
        key=lambda p: (-p[0], p[1]),
    )[:k]
    nodes = store.get_nodes([i for _, i in scored])
    ranks = {name: {ident: r for r, ident in enumerate(ids, 1)} for name, ids in lists.items()}

    hits: list[RecallHit] = []
    for score, ident in scored:
        node = nodes[ident]
        hop = 0 if ident in seeds else hops_of.get(ident, 0)
        via: list[ViaEdge] = []
        if sub is not None and hop > 0 and ident in via_of:
            edge = sub.edge_between(via_of[ident], ident)
            if edge is not None:
                strength = scoring.edge_strength(
                    edge.weight,
                    config.coefficient(edge.relation),
                    t - edge.last_reinforced_at,
                    config.half_life_s,
                )
                via.append(
                    ViaEdge(
                        edge_id=edge.id,
                        src=edge.src,
                        relation=edge.relation,
                        dst=edge.dst,
                        contribution=float(strength),
                    )
                )
        last_use = max(
            (x.timestamp() for x in (node.last_read_at, node.updated_at) if x is not None),
            default=node.created_at.timestamp(),
        )
        why = Why(
            lists={name: r[ident] for name, r in ranks.items() if ident in r},
            text_match=text_score.get(ident),
            origin="seed" if ident in seeds else "hop",
            hops=hop,
            via=via,
            activation=node.activation,
            tier=node.tier,
            recency_days=round((t - last_use) / DAY, 3),
        )
        hits.append(RecallHit(node=node, score=score, why=why))
    return RecallResult(query=query, hits=hits)

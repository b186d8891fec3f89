"""Bounded neighbourhoods fetched from a store and signed spreading over them."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import NamedTuple

import numpy as np

from . import scoring
from .config import Config
from .store import EdgeRow, Store
from .store.base import Direction, SearchFilter

# Past this many edges a neighbourhood stops growing; hubs cannot blow up a query.
MAX_SUBGRAPH_EDGES = 5_000
# Spreading directions, as the store names them.
_STORE_DIRECTION: dict[str, Direction] = {"forward": "out", "backward": "in"}


@dataclass(frozen=True)
class ReadAhead:
    """Every edge around `ids` that a spreading will ask for (same relations and reach, both
    directions), read before it starts: recall reads them while the query is being embedded."""

    ids: frozenset[str]
    edges: list[EdgeRow]

    def around(self, ids: set[str], direction: Direction) -> list[EdgeRow]:
        ends = {"out": (0,), "in": (1,), "both": (0, 1)}[direction]
        return [e for e in self.edges if any((e.src, e.dst)[i] in ids for i in ends)]


@dataclass
class Subgraph:
    """Valid edges around some seed nodes, indexed locally for spreading."""

    ids: list[str] = field(default_factory=list)
    index: dict[str, int] = field(default_factory=dict)
    edges: list[EdgeRow] = field(default_factory=list)

    def _add(self, ident: str) -> int:
        if ident not in self.index:
            self.index[ident] = len(self.ids)
            self.ids.append(ident)
        return self.index[ident]

    @classmethod
    def around(
        cls,
        store: Store,
        seeds: list[str],
        *,
        hops: int,
        direction: str = "both",
        relations: frozenset[str] | None = None,
        reach: SearchFilter | None = None,
        max_edges: int = MAX_SUBGRAPH_EDGES,
        ahead: ReadAhead | None = None,
        skip: frozenset[str] = frozenset(),
    ) -> Subgraph:
        """`skip`: ids of edges left out, as if they were not there."""
        sub = cls()
        for s in seeds:
            sub._add(s)
        seen: set[str] = set(skip)
        frontier = list(seeds)
        store_dir = _STORE_DIRECTION.get(direction, "both")
        for _ in range(hops):
            if not frontier or len(sub.edges) >= max_edges:
                break
            nxt: list[str] = []
            found: list[EdgeRow] = []
            if ahead is not None:
                known = {f for f in frontier if f in ahead.ids}
                found = ahead.around(known, store_dir)
                frontier = [f for f in frontier if f not in known]
            if frontier:
                found += store.adjacent(
                    frontier, direction=store_dir, relations=relations, reach=reach
                )
            index, ids = sub.index, sub.ids  # a recall adds a few hundred ends: kept inline
            for e in found:
                if e.id in seen:
                    continue
                seen.add(e.id)
                sub.edges.append(e)
                for end in (e.src, e.dst):
                    if end not in index:
                        index[end] = len(ids)
                        ids.append(end)
                        nxt.append(end)
                if len(sub.edges) >= max_edges:
                    break
            frontier = nxt
        return sub

    def spread_graph(self, config: Config, now: float) -> scoring.SpreadGraph:
        if not self.edges:
            return scoring.SpreadGraph.build(len(self.ids), [], [], [])
        weight = np.array([e.weight for e in self.edges])
        coef = np.array([config.coefficient(e.relation) for e in self.edges])
        age = now - np.array([e.last_reinforced_at for e in self.edges])
        return scoring.SpreadGraph(
            len(self.ids),
            np.array([self.index[e.src] for e in self.edges], dtype=np.int64),
            np.array([self.index[e.dst] for e in self.edges], dtype=np.int64),
            scoring.edge_strength(weight, coef, age, config.half_life_s),
        )

    def edge_between(self, a: str, b: str) -> EdgeRow | None:
        """The strongest-weighted edge joining a and b in either direction."""
        best: EdgeRow | None = None
        for e in self.edges:
            if {e.src, e.dst} == {a, b} and (best is None or e.weight > best.weight):
                best = e
        return best


class Reached(NamedTuple):
    node_id: str
    activation: float
    hops: int
    via: str | None  # predecessor node id on the strongest path


def spread_from(
    store: Store,
    seeds: Mapping[str, float],
    config: Config,
    now: float,
    *,
    direction: scoring.Direction = "both",
    hops: int | None = None,
    relations: frozenset[str] | None = None,
    reach: SearchFilter | None = None,
    ahead: ReadAhead | None = None,
    skip: frozenset[str] = frozenset(),
    fan_out: float | None = None,
) -> tuple[Subgraph, list[Reached]]:
    """Signed spreading from `seeds`; with `reach`, only into nodes that pass it; never along
    the edges whose ids are in `skip`; with `fan_out`, a node's value divided over its links
    past that many (`scoring.spread`: the links counted are those read, all of a seed's)."""
    hops = config.max_hops if hops is None else hops
    sub = Subgraph.around(
        store,
        list(seeds),
        hops=hops,
        direction=direction,
        relations=relations,
        reach=reach,
        ahead=ahead,
        skip=skip,
    )
    result = scoring.spread(
        sub.spread_graph(config, now),
        {sub.index[s]: v for s, v in seeds.items()},
        direction=direction,
        max_hops=hops,
        hop_decay=config.hop_decay,
        threshold=config.spread_threshold,
        fan_out=fan_out,
    )
    at = np.flatnonzero(result.first_hop >= 0)
    ids = sub.ids
    reached = [
        Reached(ids[i], a, h, ids[v] if v >= 0 else None)
        for i, a, h, v in zip(
            at.tolist(),
            result.activation[at].tolist(),
            result.first_hop[at].tolist(),
            result.via[at].tolist(),
            strict=True,
        )
    ]
    return sub, reached

"""The maths of ebbtide, as pure functions over numbers and numpy arrays.

Nothing here reads a clock, a file or a database: callers pass ages in seconds.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Literal

import numpy as np

from .model import TIERS, Tier

FloatArray = np.ndarray


def decay(age_s: FloatArray | float, half_life_s: float) -> FloatArray:
    """2^(-age / half_life); ages below zero (clock skew) count as zero."""
    age = np.maximum(np.asarray(age_s, dtype=np.float64), 0.0)
    return np.exp2(-age / half_life_s)


def clamp_future(times: FloatArray, now_s: float, slack_s: float) -> FloatArray:
    """Times later than `now_s + slack_s` as `now_s`; NaN (never) stays NaN.

    A clock that ran ahead and was set back leaves future times on what was used meanwhile:
    with ages below zero it would keep full strength, and its grace period, until the clock
    caught up, while what was used after it decayed. Counted as used now, it decays from now
    like the rest. Within the slack (replicas' clocks disagreeing) a time stands."""
    t = np.asarray(times, dtype=np.float64)
    return np.where(t > now_s + slack_s, now_s, t)


def edge_strength(
    weight: FloatArray | float,
    coefficient: FloatArray | float,
    age_s: FloatArray | float,
    half_life_s: float,
) -> FloatArray:
    """Signed contribution of an edge now: weight x coefficient x decay(since last reinforced)."""
    return np.asarray(weight) * np.asarray(coefficient) * decay(age_s, half_life_s)


@dataclass(frozen=True)
class ActivationInputs:
    """A whole graph as arrays: node i has `read_age_s[i]` (NaN = never read)."""

    n_nodes: int
    src: np.ndarray
    dst: np.ndarray
    weight: np.ndarray
    coefficient: np.ndarray
    edge_age_s: np.ndarray
    read_age_s: np.ndarray


def node_activation(
    g: ActivationInputs,
    *,
    half_life_s: float,
    read_bonus: float,
    read_half_life_s: float,
    spread_damping: float,
) -> FloatArray:
    """Activation of every node.

    base(n) = sum over incident edges of weight x |coefficient| x decay, plus a read-recency
    bonus; then one damped spreading step in which each neighbour m passes base(m)/degree(m)
    along the edge, so a hub's influence is shared out rather than copied to every neighbour.
    """
    n = g.n_nodes
    s = edge_strength(g.weight, np.abs(g.coefficient), g.edge_age_s, half_life_s)
    base = np.bincount(g.src, s, minlength=n) + np.bincount(g.dst, s, minlength=n)
    read_age = np.nan_to_num(g.read_age_s, nan=np.inf)
    base = base + read_bonus * decay(read_age, read_half_life_s)
    degree = np.bincount(g.src, minlength=n) + np.bincount(g.dst, minlength=n)
    share = np.divide(base, degree, out=np.zeros(n), where=degree > 0)
    spread = np.bincount(g.dst, share[g.src] * s, minlength=n) + np.bincount(
        g.src, share[g.dst] * s, minlength=n
    )
    return base + spread_damping * spread


def reference_activation(
    activation: FloatArray, pinned: np.ndarray, hubs: np.ndarray | None = None
) -> float:
    """The most active unpinned node's activation, `hubs` left out when other nodes remain:
    the yardstick for tiers."""
    free = activation[~pinned]
    if hubs is not None and (~pinned & ~hubs).any():
        free = activation[~pinned & ~hubs]
    top = float(free.max()) if free.size else 0.0
    return top if top > 0 else 1.0


def assign_tiers(
    activation: FloatArray,
    *,
    pinned: np.ndarray,
    age_s: np.ndarray,
    previous: Sequence[Tier],
    hot: float,
    warm: float,
    cold: float,
    grace_s: float,
    hubs: np.ndarray | None = None,
) -> list[Tier]:
    """Tier by activation relative to the most active unpinned node that is no hub.

    A hub (an index node: a person linked to everything said of them) gathers the strength of
    all its links, and beside it everything else would look unused: a conversation stored a
    week ago was archived whole but for its speakers. Hubs are tiered, not the yardstick.
    New nodes (younger than the grace period) are at least warm; pinned nodes may rise but
    never fall by decay.
    """
    ratio = activation / reference_activation(activation, pinned, hubs)
    level = np.select([ratio >= hot, ratio >= warm, ratio >= cold], [0, 1, 2], default=3)
    level = np.where((age_s < grace_s) & (level > 1), 1, level)
    prev = np.fromiter((TIERS.index(t) for t in previous), dtype=np.int64, count=len(previous))
    level = np.where(pinned, np.minimum(level, prev), level)
    return [TIERS[i] for i in level]


def relative_activation(activation: float, reference: float) -> float:
    return min(activation / reference, 1.0) if reference > 0 else 0.0


def rrf(ranked_lists: Mapping[str, Sequence[str]], k: int = 60) -> dict[str, float]:
    """Reciprocal Rank Fusion: sum over lists of 1 / (k + rank), ranks from 1."""
    scores: dict[str, float] = {}
    for ids in ranked_lists.values():
        for rank, ident in enumerate(ids, start=1):
            scores[ident] = scores.get(ident, 0.0) + 1.0 / (k + rank)
    return scores


def blend(fused: float, relative_act: float, activation_blend: float) -> float:
    """Text relevance leads; live, well-used knowledge gets up to `activation_blend` more."""
    return fused * (1.0 + activation_blend * relative_act)


def q_update(q: float, reward: float, alpha: float) -> float:
    """One step of Q-learning towards the observed reward in [-1, 1]."""
    return q + alpha * (reward - q)


def hebbian_update(weight: float, rate: float) -> float:
    """Strengthen a co-activated pair, saturating at 1."""
    return weight + rate * (1.0 - weight)


def seed_activation(base: float, q_value: float | None, gain: float = 0.5) -> float:
    """Seeds with a better track record (higher Q) start with more activation."""
    q = 0.0 if q_value is None else max(-1.0, min(1.0, q_value))
    return base * (1.0 + gain * q)


Direction = Literal["forward", "backward", "both"]


@dataclass(frozen=True)
class SpreadGraph:
    """Edges of a (sub)graph over local node indices 0..n-1, with their signed strength now."""

    n: int
    src: np.ndarray
    dst: np.ndarray
    strength: np.ndarray

    @classmethod
    def build(cls, n: int, src: Iterable[int], dst: Iterable[int], strength: Iterable[float]):
        return cls(
            n,
            np.asarray(list(src), dtype=np.int64),
            np.asarray(list(dst), dtype=np.int64),
            np.asarray(list(strength), dtype=np.float64),
        )

    def adjacency(self, direction: Direction) -> Csr:
        """What each node passes on in the requested direction, as compressed sparse rows."""
        if direction == "forward":
            rows, cols, data = self.src, self.dst, self.strength
        elif direction == "backward":
            rows, cols, data = self.dst, self.src, self.strength
        else:
            rows = np.concatenate([self.src, self.dst])
            cols = np.concatenate([self.dst, self.src])
            data = np.concatenate([self.strength, self.strength])
        return Csr.build(self.n, rows, cols, data)


@dataclass(frozen=True)
class Csr:
    indptr: np.ndarray
    cols: np.ndarray
    data: np.ndarray

    @classmethod
    def build(cls, n: int, rows: np.ndarray, cols: np.ndarray, data: np.ndarray) -> Csr:
        order = np.argsort(rows, kind="stable")
        indptr = np.zeros(n + 1, dtype=np.int64)
        np.cumsum(np.bincount(rows, minlength=n), out=indptr[1:])
        return cls(indptr, cols[order], data[order])

    def rows(self, which: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """Entries of the given rows: (position in `which`, column, value)."""
        starts, ends = self.indptr[which], self.indptr[which + 1]
        lens = ends - starts
        owner = np.repeat(np.arange(which.size), lens)
        offsets = np.arange(lens.sum()) - np.repeat(np.cumsum(lens) - lens, lens)
        pos = np.repeat(starts, lens) + offsets
        return owner, self.cols[pos], self.data[pos]


@dataclass(frozen=True)
class SpreadResult:
    activation: np.ndarray  # signed, summed over hops (seeds included)
    first_hop: np.ndarray  # hop at which a node was first reached; -1 = never; 0 = seed
    via: np.ndarray  # predecessor index on the strongest incoming contribution; -1 = none


def spread(
    graph: SpreadGraph,
    seeds: Mapping[int, float],
    *,
    direction: Direction,
    max_hops: int,
    hop_decay: float,
    threshold: float,
    fan_out: float | None = None,
) -> SpreadResult:
    """Signed spreading activation over a sparse frontier.

    Each hop multiplies by edge strength (which carries the relation's sign) and `hop_decay`;
    contributions arriving at a node within one hop are summed with their signs. Because a
    negative value keeps its sign through later excitatory edges, inhibition reaches as far
    as excitation does. With `fan_out`, a node with more links than that divides its value
    over them, passing no more in all than `fan_out` links would.
    """
    n = graph.n
    adjacency = graph.adjacency(direction)
    links = np.diff(adjacency.indptr)
    share = np.ones(n) if fan_out is None else 1.0 / np.maximum(1.0, links / fan_out)
    total = np.zeros(n)
    first_hop = np.full(n, -1, dtype=np.int64)
    via = np.full(n, -1, dtype=np.int64)
    frontier = np.zeros(n)
    for idx, value in seeds.items():
        frontier[idx] += value
        first_hop[idx] = 0
    total += frontier
    for hop in range(1, max_hops + 1):
        rows = np.flatnonzero(np.abs(frontier) >= threshold)
        if rows.size == 0:
            break
        owner, targets, strength = adjacency.rows(rows)
        if targets.size == 0:
            break
        contrib = strength * (frontier[rows] * share[rows])[owner] * hop_decay
        nxt = np.bincount(targets, contrib, minlength=n)
        # The strongest single contribution explains how a newly reached node was reached.
        order = np.lexsort((-np.abs(contrib), targets))
        firsts = order[np.r_[True, targets[order][1:] != targets[order][:-1]]]
        new = first_hop[targets[firsts]] < 0
        reached = targets[firsts][new]
        first_hop[reached] = hop
        via[reached] = rows[owner[firsts][new]]
        total += nxt
        frontier = nxt
    return SpreadResult(total, first_hop, via)


def decision_reward(relation: str, outcome_polarity: float) -> float:
    """What an episode says about the decision, in [-1, 1].

    Causing a good outcome is good; preventing a bad one is good too (the sign flips);
    enabling is weaker evidence than causing; no_effect says nothing.
    """
    factor = {"caused": 1.0, "enabled": 0.5, "prevented": -1.0}.get(relation, 0.0)
    return max(-1.0, min(1.0, factor * outcome_polarity))


def rarity(doc_frequency: int, cap: int) -> float:
    """Inverse document frequency, log(1 + cap / (1 + df)): a word few nodes hold weighs
    most; with df counted up to `cap`, the commonest words weigh log 2 (never zero, so they
    still count a little)."""
    return float(np.log1p(cap / (1 + min(max(doc_frequency, 0), cap))))

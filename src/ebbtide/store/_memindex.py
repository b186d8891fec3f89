"""An in-memory index beside an embedded database that only this process can write (Kùzu):
filter fields per node, BM25 postings over node text, valid edges by endpoint, vectors by model,
the nodes naming each id (`named_ids`), the nodes of each kind in TALLIES and their counts
(`tally_value`). The Neo4j store keeps one of the nodes an open transaction wrote (`any_of`).
"""

from __future__ import annotations

import heapq
import json
import math
from collections import Counter, defaultdict
from collections.abc import Sequence
from dataclasses import dataclass, field
from datetime import date
from typing import Any

import numpy as np

from ..text import indexed_words, search_words, stem
from ._props import unique
from .base import (
    COMMON_DF,
    NAMING_KINDS,
    TALLIES,
    TIME_KEYS,
    ItemDates,
    SearchFilter,
    item_dates,
    named_ids,
    rank_by_time,
    tally_value,
)

K1, B = 1.2, 0.75  # BM25, as SQLite FTS5 and Lucene


def _terms(text: str) -> list[str]:
    return [stem(t) for t in indexed_words(text)]


@dataclass
class NodeInfo:
    """What filtering and ranking need of a node."""

    seq: int
    kind: str
    scope: str
    task_tag: str | None
    tier: str
    status: str
    valid: bool
    activation: float
    q_value: float | None
    hash: str
    # When it happened and was said, read once here, not again by every query naming a time;
    # None when its attributes date it at no readable time.
    dates: ItemDates | None
    names: list[str]  # the ids its attributes name (`named_ids`)
    created_at: float
    tally: str | None  # what it is counted under (`tally_value`), None for a kind not counted
    successor: str | None  # what superseded it, when it is ended

    def passes(self, flt: SearchFilter) -> bool:
        if flt.include_cold:
            if self.status not in ("active", "archived"):
                return False
        elif self.tier not in ("hot", "warm") or self.status != "active":
            return False
        return (
            (flt.include_invalid or self.valid or (flt.with_successors and bool(self.successor)))
            and self.kind not in flt.exclude_kinds
            and (not flt.kinds or self.kind in flt.kinds)
            and (flt.scope is None or self.scope == flt.scope)
            and (flt.task_tag is None or self.task_tag in (flt.task_tag, None))
        )


@dataclass
class VectorSet:
    ids: list[str | None] = field(default_factory=list)
    row: dict[str, int] = field(default_factory=dict)
    matrix: np.ndarray = field(default_factory=lambda: np.zeros((0, 0), dtype=np.float32))

    def put(self, ident: str, vec: np.ndarray) -> None:
        r = self.row.get(ident)
        if r is None:
            r = self.row[ident] = len(self.ids)
            self.ids.append(ident)
            if r >= self.matrix.shape[0] or self.matrix.shape[1] != vec.size:
                grown = np.zeros((max(64, 2 * (r + 1)), vec.size), dtype=np.float32)
                if self.matrix.size and self.matrix.shape[1] == vec.size:
                    grown[: self.matrix.shape[0]] = self.matrix
                self.matrix = grown
        self.matrix[r] = vec


class MemoryIndex:
    """The in-memory side of the store (see the module docstring)."""

    def __init__(self) -> None:
        self.nodes: dict[str, NodeInfo] = {}
        self.by_hash: dict[str, set[str]] = defaultdict(set)
        self.postings: dict[str, dict[str, int]] = defaultdict(dict)
        self.doc_terms: dict[str, list[str]] = {}
        self.lengths: dict[str, int] = {}
        self.total = 0
        self.edges: dict[str, list[Any]] = {}  # id -> [src, dst, relation, weight, at, valid]
        self.out: dict[str, set[str]] = defaultdict(set)
        self.inc: dict[str, set[str]] = defaultdict(set)
        self.vectors: dict[str, VectorSet] = {}
        self.naming: dict[str, set[str]] = defaultdict(set)
        self.tallied: dict[str, set[str]] = defaultdict(set)  # kind -> ids
        self.tallies: dict[str, Counter[str]] = defaultdict(Counter)  # kind -> value -> count

    def put_node(self, p: dict[str, Any], text: str) -> None:
        ident = p["id"]
        self.drop_node(ident, keep_edges=True)
        self.nodes[ident] = NodeInfo(
            p["seq"],
            p["kind"],
            p["scope"],
            p["task_tag"],
            p["tier"],
            p["status"],
            p["valid_to"] is None,
            float(p["activation"] or 0.0),
            p["q_value"],
            p["text_hash"],
            _dates(p["attributes"]),
            _names(p["kind"], p["attributes"]),
            float(p["created_at"]),
            _tally(p["kind"], p["attributes"]),
            None if p["valid_to"] is None else p["superseded_by"],
        )
        info = self.nodes[ident]
        for name in info.names:
            self.naming[name].add(ident)
        if info.tally is not None:
            self.tallied[info.kind].add(ident)
            self.tallies[info.kind][info.tally] += 1
        self.by_hash[p["text_hash"]].add(ident)
        counts = Counter(_terms(text))
        for term, tf in counts.items():
            self.postings[term][ident] = tf
        self.doc_terms[ident] = list(counts)
        self.lengths[ident] = sum(counts.values())
        self.total += self.lengths[ident]

    def drop_node(self, ident: str, *, keep_edges: bool = False) -> None:
        info = self.nodes.pop(ident, None)
        if info is None:
            return
        self.by_hash[info.hash].discard(ident)
        for name in info.names:
            self.naming[name].discard(ident)
            if not self.naming[name]:
                del self.naming[name]
        if info.tally is not None:
            self.tallied[info.kind].discard(ident)
            self.tallies[info.kind][info.tally] -= 1
        self.total -= self.lengths.pop(ident, 0)
        for term in self.doc_terms.pop(ident, ()):
            docs = self.postings[term]
            docs.pop(ident, None)
            if not docs:
                del self.postings[term]
        if not keep_edges:
            for eid in self.out.pop(ident, set()) | self.inc.pop(ident, set()):
                e = self.edges.pop(eid, None)
                if e is not None:
                    self.out[e[0]].discard(eid)
                    self.inc[e[1]].discard(eid)
            self.vectors.clear()

    def put_edge(self, p: dict[str, Any]) -> None:
        e = [p["src"], p["dst"], p["relation"], p["weight"], p["last_reinforced_at"]]
        self.edges[p["id"]] = [*e, p["valid_to"] is None]
        self.out[p["src"]].add(p["id"])
        self.inc[p["dst"]].add(p["id"])

    def tally(self, kind: str) -> dict[str, int]:
        return {value: n for value, n in self.tallies[kind].items() if n > 0}

    def latest(self, kind: str, limit: int) -> list[str]:
        """The ids of the last `limit` nodes of a counted kind, oldest first (by created_at,
        then as written)."""
        nodes = self.nodes
        newest = heapq.nlargest(
            limit, self.tallied[kind], key=lambda i: (nodes[i].created_at, nodes[i].seq)
        )
        return newest[::-1]

    def time_search(
        self, start: date, end: date, k: int, flt: SearchFilter
    ) -> list[tuple[str, float]]:
        rows = ((i, n.dates) for i, n in self.nodes.items() if n.dates and n.passes(flt))
        return rank_by_time(rows, start, end, k)

    def holding_any(self, words: str, cap: int, flt: SearchFilter) -> int:
        """How many nodes passing `flt` hold any of `words`, counted up to `cap`."""
        found: set[str] = set()
        for word in unique([stem(t) for t in search_words(words)]):
            for doc in self.postings.get(word, ()):
                if doc not in found and self.nodes[doc].passes(flt):
                    found.add(doc)
                    if len(found) >= cap:
                        return cap
        return len(found)

    def any_of(self, words: Sequence[str], k: int, flt: SearchFilter) -> list[tuple[str, float]]:
        """The `k` best nodes passing `flt` that hold any of `words`, scored as Lucene's BM25
        scores a query of one clause per word: idf ln(1 + (N - df + 0.5) / (df + 0.5)), times
        tf / (tf + K1 (1 - B + B len / avglen)), summed over the clauses; best first, equal
        scores newest first."""
        n = len(self.lengths)
        if not n:
            return []
        avg = self.total / n or 1.0
        scores: dict[str, float] = defaultdict(float)
        for word in (stem(w) for w in words):
            docs = self.postings.get(word)
            if not docs:
                continue
            idf = math.log(1 + (n - len(docs) + 0.5) / (len(docs) + 0.5))
            for doc, tf in docs.items():
                scores[doc] += idf * tf / (tf + K1 * (1 - B + B * self.lengths[doc] / avg))
        hits = [(i, s) for i, s in scores.items() if self.nodes[i].passes(flt)]
        return heapq.nlargest(k, hits, key=lambda h: (h[1], self.nodes[h[0]].seq))

    def search(self, query: str, k: int, flt: SearchFilter) -> list[tuple[str, float]]:
        """BM25 over the query's words, planned as the SQLite store plans it: a word held by
        COMMON_DF nodes or more only adds to the score of nodes that hold a rarer one, and when
        every word is common the nodes must hold them all (failing that, any)."""
        words = unique([stem(t) for t in search_words(query)])
        n = len(self.lengths)
        postings = {w: self.postings[w] for w in words if self.postings.get(w)}
        if not n or not postings:
            return []
        rare = [w for w, docs in postings.items() if len(docs) < COMMON_DF]
        candidates: set[str] | None = None  # None: every node holding any word
        if rare and len(rare) < len(postings):
            candidates = set().union(*(postings[w] for w in rare))
        elif not rare:
            candidates = set.intersection(*(set(docs) for docs in postings.values())) or None
        avg = self.total / n or 1.0
        scores: dict[str, float] = defaultdict(float)
        for docs in postings.values():
            idf = math.log((n - len(docs) + 0.5) / (len(docs) + 0.5))
            idf = idf if idf > 0 else 1e-6
            pairs = (
                docs.items()
                if candidates is None
                else ((d, docs[d]) for d in candidates if d in docs)
            )
            for doc, tf in pairs:
                norm = K1 * (1 - B + B * self.lengths[doc] / avg)
                scores[doc] += idf * tf * (K1 + 1) / (tf + norm)
        # Best first, equal scores newest first (as SQLite and recall order them, so the cut
        # at k falls the same way); most of the top passes the filter, so take a few times k
        # before sorting everything.
        want = 4 * k
        while True:
            top = heapq.nlargest(
                want, scores.items(), key=lambda kv: (kv[1], self.nodes[kv[0]].seq)
            )
            hits = [(i, s) for i, s in top if self.nodes[i].passes(flt)]
            if len(hits) >= k or want >= len(scores):
                return hits[:k]
            want *= 8


def _dates(attributes: str | None) -> ItemDates | None:
    """`item_dates` of a node's JSON attributes, None when it has no readable time."""
    if not attributes or not any(key in attributes for key in TIME_KEYS):
        return None
    d = json.loads(attributes)
    dates = item_dates(d)
    return dates if any(span is not None for span in dates) else None


def _tally(kind: str, attributes: str | None) -> str | None:
    """`tally_value` of a node's JSON attributes (only kinds counted are parsed)."""
    if kind not in TALLIES:
        return None
    return tally_value(kind, json.loads(attributes or "{}"))


def _names(kind: str, attributes: str | None) -> list[str]:
    """The ids a node's JSON attributes name (only kinds that name any are parsed)."""
    if kind not in NAMING_KINDS or not attributes:
        return []
    return named_ids(kind, json.loads(attributes))

"""Nodes and edges as flat property maps, for the graph backends (Neo4j, Kùzu).

Times are epoch seconds (floats), attributes and sources JSON strings, exactly as SQLite keeps
them, so an export from any backend is byte-for-byte the same.
"""

from __future__ import annotations

import hashlib
import json
import secrets
import threading
import time
from collections.abc import Iterator, Mapping, Sequence
from typing import Any

from ..clock import from_ts
from ..model import Edge, Node
from .sqlite import EDGE_COLUMNS, NODE_COLUMNS

NODE_TIMES = frozenset({"created_at", "updated_at", "last_read_at", "valid_from", "valid_to"})
EDGE_TIMES = frozenset({"created_at", "last_reinforced_at", "valid_from", "valid_to"})
# Edge endpoints are the relationship's ends, not properties.
EDGE_PROPS = tuple(c for c in EDGE_COLUMNS if c not in ("src", "dst"))
# Separates an attribute key from its value in `attr_keys` (never in JSON output).
_ATTR_SEP = "\u001f"


def node_props(node: Node) -> dict[str, Any]:
    """Every column, None included (a graph SET with None removes the property)."""
    d = node.__dict__
    out: dict[str, Any] = {}
    for col in NODE_COLUMNS:
        v = d[col]
        if col in NODE_TIMES:
            v = None if v is None else v.timestamp()
        elif col in ("attributes", "sources"):
            v = json.dumps(v, sort_keys=True)
        out[col] = v
    out["text_hash"] = text_hash(node.text)
    out["attr_keys"] = attribute_keys(node.attributes)
    return out


def props_node(p: Mapping[str, Any]) -> Node:
    d = {col: p.get(col) for col in NODE_COLUMNS}
    for col in NODE_TIMES:
        d[col] = from_ts(d[col])
    d["attributes"] = json.loads(d["attributes"] or "{}")
    d["sources"] = json.loads(d["sources"] or "[]")
    d["pinned"] = bool(d["pinned"])
    d["read_count"] = int(d["read_count"] or 0)
    d["activation"] = float(d["activation"] or 0.0)
    return Node.from_row(d)


def edge_props(edge: Edge) -> dict[str, Any]:
    d = edge.__dict__
    return {c: (None if d[c] is None else d[c].timestamp()) if c in EDGE_TIMES else d[c]
            for c in EDGE_PROPS}  # fmt: skip


def props_edge(p: Mapping[str, Any]) -> Edge:
    d = {col: p.get(col) for col in EDGE_COLUMNS}
    for col in EDGE_TIMES:
        d[col] = from_ts(d[col])
    d["reinforce_count"] = int(d["reinforce_count"] or 0)
    d["access_count"] = int(d["access_count"] or 0)
    return Edge.from_row(d)


def text_hash(text: str) -> str:
    """Exact-text lookups go through this short key: long texts are too big to index."""
    return hashlib.blake2b(text.encode(), digest_size=16).hexdigest()


def _canonical(value: Any) -> str | None:
    """JSON of a scalar the way SQLite's json_extract compares it (true == 1, 1.0 == 1)."""
    if isinstance(value, bool) or (isinstance(value, float) and value.is_integer()):
        value = int(value)
    if value is None or isinstance(value, dict | list):
        return None
    return json.dumps(value)


def attribute_keys(attributes: Mapping[str, Any], prefix: str = "") -> list[str]:
    """`key<US>value` for every scalar attribute (nested keys dotted, as in `$.a.b`), so
    `find_nodes(attribute=(key, value))` is a list-membership test."""
    out: list[str] = []
    for key, value in attributes.items():
        path = f"{prefix}{key}"
        if isinstance(value, dict):
            out.extend(attribute_keys(value, path + "."))
        elif (c := _canonical(value)) is not None:
            out.append(path + _ATTR_SEP + c)
    return out


def attribute_needle(key: str, value: Any) -> str | None:
    c = _canonical(value)
    return None if c is None else key + _ATTR_SEP + c


class Sequencer:
    """Insertion order across processes without a shared counter: microseconds since the epoch
    shifted left 10 bits, plus 10 random bits for this process. Strictly increasing within a
    process; two processes collide only within the same microsecond and the same 1-in-1024
    draw, and then only the relative order of those two rows is arbitrary."""

    def __init__(self) -> None:
        self._tag = secrets.randbelow(1024)
        self._last = 0
        self._lock = threading.Lock()

    def take(self, n: int = 1) -> list[int]:
        with self._lock:
            first = max(time.time_ns() // 1000, self._last + 1)
            self._last = first + n - 1
        return [((first + i) << 10) | self._tag for i in range(n)]


def unique(ids: Sequence[str]) -> list[str]:
    return list(dict.fromkeys(ids))


def chunked(items: Sequence[Any], size: int) -> Iterator[Sequence[Any]]:
    for i in range(0, len(items), size):
        yield items[i : i + size]

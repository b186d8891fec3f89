"""Nodes an embedded store has read or written lately, kept in memory: a recall reads dozens
of nodes, and in Kùzu each read by id is a query of about a millisecond (in SQLite, decoding
the rows was a third of a recall's own work).

The store keeps the cache true. Kùzu, which one process alone may open, keeps or amends what
each of its writes changes and empties it on a rollback; SQLite, which other processes may
write, drops what its own writes change, bypasses the cache inside a transaction, and empties
it when another connection has committed. Every node handed out is a new one with its own
attributes (decoded from the JSON kept here) and sources, so a caller changing what it got
changes nothing here.
"""

from __future__ import annotations

import json
from collections import OrderedDict
from collections.abc import Iterable, Sequence
from typing import Any

from ..model import Node

# About 1-2 kB a node (its text and attributes).
NODE_CACHE = 20_000


class NodeCache:
    def __init__(self, size: int = NODE_CACHE) -> None:
        self.size = size
        self._kept: OrderedDict[str, tuple[dict[str, Any], str]] = OrderedDict()

    def get(self, ids: Sequence[str]) -> tuple[dict[str, Node], list[str]]:
        """The nodes kept of `ids` (each a new copy), and the ids not kept, in order."""
        found: dict[str, Node] = {}
        missing: list[str] = []
        for i in ids:
            kept = self._kept.get(i)
            if kept is None:
                missing.append(i)
                continue
            self._kept.move_to_end(i)
            fields, attributes = kept
            copy = dict(fields)
            copy["attributes"] = json.loads(attributes)
            copy["sources"] = list(copy["sources"])
            found[i] = Node.from_row(copy)
        return found, missing

    def put(self, node: Node, attributes_json: str) -> None:
        """Keep `node` as the store holds it; `attributes_json` is its attributes as stored."""
        fields = dict(node.__dict__)
        fields["sources"] = tuple(fields["sources"])
        fields["attributes"] = None  # decoded afresh for each reader
        self._kept[node.id] = (fields, attributes_json)
        self._kept.move_to_end(node.id)
        while len(self._kept) > self.size:
            self._kept.popitem(last=False)

    def amend(self, ident: str, **fields: Any) -> None:
        """Set fields (not attributes) of a kept node to what the store has just written."""
        kept = self._kept.get(ident)
        if kept is not None:
            kept[0].update(fields)

    def forget(self, ids: Iterable[str]) -> None:
        for i in ids:
            self._kept.pop(i, None)

    def clear(self) -> None:
        self._kept.clear()

    def __len__(self) -> int:
        return len(self._kept)

"""The nodes an embedded store keeps after reading them: copies out, bounded, forgettable."""

from __future__ import annotations

import json
from datetime import UTC, datetime

from ebbtide.model import Node
from ebbtide.store._nodecache import NodeCache

T0 = datetime(2026, 1, 1, tzinfo=UTC)


def node(ident: str, **kw) -> Node:
    attributes = kw.pop("attributes", {"speaker": "Ana", "tags": ["a", "b"]})
    return Node(
        id=ident,
        kind="fact",
        text=f"text of {ident}",
        attributes=attributes,
        sources=["D1:1"],
        created_at=T0,
        updated_at=T0,
        **kw,
    )


def kept(cache: NodeCache, n: Node) -> None:
    cache.put(n, json.dumps(n.attributes, sort_keys=True))


def test_a_kept_node_comes_back_equal_and_in_the_order_asked():
    cache = NodeCache()
    a, b = node("a", tier="warm"), node("b", pinned=True)
    kept(cache, a)
    kept(cache, b)
    found, missing = cache.get(["b", "x", "a"])
    assert list(found) == ["b", "a"] and missing == ["x"]
    assert found["a"] == a and found["b"] == b
    assert found["a"].model_dump() == a.model_dump()


def test_changing_a_node_handed_out_changes_neither_the_cache_nor_the_next_reader():
    cache = NodeCache()
    original = node("a")
    kept(cache, original)
    first = cache.get(["a"])[0]["a"]
    first.attributes["speaker"] = "Bo"
    first.attributes["tags"].append("c")
    first.sources.append("D9:9")
    first.text = "edited in place"
    second = cache.get(["a"])[0]["a"]
    assert second == original


def test_the_least_recently_used_go_first_past_the_size():
    cache = NodeCache(size=2)
    for ident in "abc":
        kept(cache, node(ident))
    assert cache.get(["a"])[1] == ["a"] and len(cache) == 2
    cache.get(["b"])  # b is now the most recently used
    kept(cache, node("d"))
    assert cache.get(["b", "c", "d"])[1] == ["c"]


def test_forgotten_and_cleared_nodes_are_read_again():
    cache = NodeCache()
    for ident in "ab":
        kept(cache, node(ident))
    cache.forget(iter(["a", "nope"]))
    assert cache.get(["a", "b"])[1] == ["a"]
    cache.clear()
    assert cache.get(["b"])[1] == ["b"] and len(cache) == 0

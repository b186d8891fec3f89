"""What every store backend must do. Parametrised over backends; SQLite runs everywhere."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import pytest

from ebbtide.model import Edge, Node
from ebbtide.store import PendingReview, SearchFilter, open_store

T0 = datetime(2026, 1, 1, tzinfo=UTC)


@pytest.fixture(params=["sqlite"])
def store(request, tmp_path):
    s = open_store(str(tmp_path / "conformance.db"))
    yield s
    s.close()


def node(ident, text, kind="note", **kw):
    return Node(id=ident, kind=kind, text=text, created_at=T0, updated_at=T0, **kw)


def edge(ident, src, dst, relation="related", **kw):
    return Edge(
        id=ident, src=src, dst=dst, relation=relation, created_at=T0, last_reinforced_at=T0, **kw
    )


def test_a_node_round_trips_with_every_field(store):
    n = node(
        "n1",
        "Ünïcode text with 'quotes' and \"doubles\"",
        kind="decision",
        attributes={"k": [1, 2], "nested": {"a": None}},
        scope="team-a",
        task_tag="t",
        last_read_at=T0 + timedelta(days=1),
        read_count=3,
        pinned=True,
        tier="warm",
        status="archived",
        activation=1.25,
        q_value=-0.5,
        polarity=0.75,
        valid_from=T0,
        valid_to=T0 + timedelta(days=2),
        superseded_by="n2",
        sources=["D1:3", "D1:4"],
        provenance="test",
    )
    store.add_node(n)
    assert store.get_nodes(["n1"])["n1"] == n


def test_an_edge_round_trips_with_every_field(store):
    store.add_node(node("a", "a"))
    store.add_node(node("b", "b"))
    e = edge(
        "e1",
        "a",
        "b",
        "prevented",
        weight=0.4,
        reinforce_count=2,
        access_count=5,
        valid_from=T0,
        task_tag="t",
        context="ctx",
        confidence_source="rule",
        provenance="p",
    )
    store.add_edge(e)
    assert store.get_edge("a", "b", "prevented") == e
    assert store.edges_of(["b"], direction="in") == [e]
    assert store.edges_of(["b"], direction="out") == []


def test_a_failed_transaction_leaves_nothing_behind(store):
    with pytest.raises(RuntimeError), store.transaction():
        store.add_node(node("x", "x"))
        raise RuntimeError("boom")
    assert store.get_nodes(["x"]) == {}


def test_text_search_ranks_the_best_match_first_and_respects_filters(store):
    store.add_node(node("a", "Postgres connection pool exhausted during the sale"))
    store.add_node(node("b", "Postgres upgrade to version 16"))
    store.add_node(node("c", "Connection pool sizing guide for Postgres", tier="cold"))
    store.add_node(node("d", "pool party", valid_to=T0))
    hits = store.text_search("postgres connection pool", 10, SearchFilter())
    assert [h[0] for h in hits] == ["a", "b"]
    assert hits[0][1] > hits[1][1]
    wider = store.text_search("postgres connection pool", 10, SearchFilter(include_cold=True))
    assert {h[0] for h in wider} == {"a", "b", "c"}


def test_text_search_treats_query_syntax_as_plain_words(store):
    store.add_node(node("a", "NEAR the AND gate OR not"))
    for q in ['"unbalanced', "a* OR (", "NEAR(x y)", "-", "col:umn"]:
        store.text_search(q, 5, SearchFilter())
    assert store.text_search("gate OR", 5, SearchFilter())[0][0] == "a"


def test_updating_text_updates_the_search_index(store):
    store.add_node(node("a", "old words"))
    n = store.get_nodes(["a"])["a"].model_copy(update={"text": "brand new words"})
    store.update_node(n)
    assert store.text_search("old", 5, SearchFilter()) == []
    assert store.text_search("brand", 5, SearchFilter())[0][0] == "a"


def test_deleting_a_node_removes_its_edges_and_review_entry(store):
    store.add_node(node("a", "a"))
    store.add_node(node("b", "b"))
    store.add_edge(edge("e", "a", "b"))
    store.enqueue_review(PendingReview("a", "why", 1.0, "agent"))
    assert store.delete_node("a") == 1
    assert store.get_nodes(["a"]) == {} and store.edges_of(["b"]) == []
    assert store.pending_reviews() == []


def test_review_queue_is_idempotent_and_remembers_cooldowns(store):
    store.add_node(node("a", "a"))
    assert store.enqueue_review(PendingReview("a", "r", 1.0, "maintain"))
    assert not store.enqueue_review(PendingReview("a", "r", 2.0, "maintain"))
    assert store.remove_review("a", cooldown_until=99.0)
    assert store.review_cooldowns() == {"a": 99.0}
    assert not store.remove_review("a")


def test_touch_resets_clocks_and_counts_use(store):
    store.add_node(node("a", "a"))
    store.add_node(node("b", "b"))
    store.add_edge(edge("e", "a", "b"))
    later = (T0 + timedelta(days=3)).timestamp()
    store.touch(["a"], ["e"], later)
    a = store.get_nodes(["a"])["a"]
    assert a.read_count == 1 and a.last_read_at.timestamp() == later
    e = store.get_edge("a", "b", "related")
    assert e.access_count == 1 and e.last_reinforced_at.timestamp() == later


def test_graph_arrays_cover_every_node_and_valid_edge(store):
    for i in "abc":
        store.add_node(node(i, i, pinned=(i == "c")))
    store.add_edge(edge("e1", "a", "b", weight=0.5))
    store.add_edge(edge("e2", "b", "c", valid_to=T0))
    g = store.graph_arrays()
    assert g.ids == ["a", "b", "c"] and list(g.pinned) == [False, False, True]
    assert list(g.src) == [0] and list(g.dst) == [1] and list(g.weight) == [0.5]
    store.write_activation(g.ids, [1.0, 2.0, 3.0], ["hot", "warm", "cold"], ["active"] * 3)
    assert store.get_nodes(["c"])["c"].tier == "cold"


def test_find_nodes_by_attribute_and_validity(store):
    store.add_node(node("f1", "k: v1", "fact", attributes={"key": "k"}, valid_to=T0))
    store.add_node(node("f2", "k: v2", "fact", attributes={"key": "k"}))
    assert [n.id for n in store.find_nodes(kind="fact", attribute=("key", "k"))] == ["f2"]
    everything = store.find_nodes(kind="fact", attribute=("key", "k"), valid_only=False)
    assert len(everything) == 2


def test_iterating_yields_everything_in_insertion_order(store):
    for i in range(2500):
        store.add_node(node(f"n{i}", f"text {i}"))
    assert [n.id for n in store.iter_nodes()] == [f"n{i}" for i in range(2500)]


def test_meta_and_counts(store):
    store.set_meta("k", "v")
    assert store.get_meta("k") == "v" and store.get_meta("missing") is None
    store.add_node(node("a", "a", kind="person"))
    assert store.counts()["kind"] == {"person": 1}


def test_get_and_find_edges(store):
    for i in "abc":
        store.add_node(node(i, i))
    store.add_edge(edge("e1", "a", "b", "caused", task_tag="t1"))
    store.add_edge(edge("e2", "b", "c", "prevented", task_tag="t2"))
    store.add_edge(edge("e3", "a", "c", "related", valid_to=T0))
    assert set(store.get_edges(["e1", "e3", "nope"])) == {"e1", "e3"}
    assert [e.id for e in store.find_edges(relations={"caused", "prevented"})] == ["e1", "e2"]
    assert [e.id for e in store.find_edges(task_tag="t2")] == ["e2"]
    assert [e.id for e in store.find_edges(valid_only=False, relations={"related"})] == ["e3"]


def unit(*xs):
    import numpy as np

    v = np.array(xs, dtype=np.float32)
    return v / np.linalg.norm(v)


def test_vectors_are_searched_by_cosine_and_filtered(store):
    store.add_node(node("a", "a"))
    store.add_node(node("b", "b"))
    store.add_node(node("c", "c", tier="frozen"))
    store.put_vectors("m1", [("a", unit(1, 0, 0)), ("b", unit(1, 1, 0)), ("c", unit(1, 0, 0))])
    hits = store.vector_search("m1", unit(1, 0.1, 0), 5, SearchFilter())
    assert [h[0] for h in hits] == ["a", "b"]
    assert hits[0][1] == pytest.approx(float(unit(1, 0.1, 0) @ unit(1, 0, 0)), rel=1e-5)
    assert store.vector_search("other-model", unit(1, 0, 0), 5, SearchFilter()) == []
    assert store.vector_counts() == {"m1": 3}


def test_a_rewritten_vector_replaces_the_old_one_for_searchers(store):
    store.add_node(node("a", "a"))
    store.add_node(node("b", "b"))
    store.put_vectors("m", [("a", unit(1, 0)), ("b", unit(0, 1))])
    assert store.vector_search("m", unit(1, 0), 1, SearchFilter())[0][0] == "a"
    store.put_vectors("m", [("a", unit(0, 1)), ("b", unit(1, 0))])
    assert store.vector_search("m", unit(1, 0), 1, SearchFilter())[0][0] == "b"


def test_missing_vectors_lists_nodes_without_one_for_the_model(store):
    store.add_node(node("a", "alpha"))
    store.add_node(node("b", "beta"))
    store.put_vectors("m", [("a", unit(1, 0))])
    assert store.missing_vectors("m", 10) == [("b", "beta")]
    assert store.missing_vectors("other", 10) == [("a", "alpha"), ("b", "beta")]

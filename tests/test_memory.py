"""The Memory API, scenario by scenario, on the embedded SQLite store."""

from __future__ import annotations

import pytest

from ebbtide import Config, NotFound, ValidationError, open_memory
from ebbtide.model import Link
from ebbtide.store.base import PendingReview


def snapshot(memory):
    """Everything a user could observe, to prove a failed call changed nothing."""
    nodes = sorted(n.model_dump_json() for n in memory.store.iter_nodes())
    edges = sorted(e.model_dump_json() for e in memory.store.iter_edges())
    return nodes, edges, memory.store.pending_reviews()


def test_remember_returns_a_typed_node_that_recall_finds(memory):
    node = memory.remember("The staging database lives on db-stage-2", "fact")
    assert node.kind == "fact" and node.id
    hits = memory.recall("where is the staging database?").hits
    assert hits[0].node.id == node.id
    why = hits[0].why
    assert why.lists["text"] == 1 and why.origin == "seed" and why.tier == "hot"
    assert why.text_match is not None and why.recency_days == 0


def test_remembering_the_same_text_twice_reuses_the_node(memory):
    a = memory.remember("Deploys freeze on Fridays")
    b = memory.remember("Deploys freeze on Fridays")
    assert a.id == b.id
    assert memory.stats().nodes == 1
    assert b.read_count == 1


def test_remember_with_node_id_updates_in_place_and_keeps_links(memory, clock):
    a = memory.remember("Payments service owner: Ana")
    b = memory.remember("Payments service")
    memory.connect(a.id, b.id, "about")
    clock.advance(days=1)
    updated = memory.remember("Payments service owner: Ben", node_id=a.id)
    assert updated.id == a.id and updated.text.endswith("Ben")
    assert updated.created_at < updated.updated_at
    assert [n.node.id for n in memory.neighbors(a.id).neighbors] == [b.id]
    assert memory.recall("payments owner Ben").hits[0].node.id == a.id
    assert memory.recall("Ana", k=5).hits == []


def test_remember_with_links_connects_to_existing_nodes(memory):
    person = memory.remember("Ana Ruiz", "person")
    note = memory.remember("Ana prefers async standups", links=[Link(target=person.id)])
    (n,) = memory.neighbors(note.id).neighbors
    assert n.node.id == person.id and n.edge.relation == "related"


def test_a_link_found_by_graph_spreading_explains_the_edge_it_came_through(memory):
    incident = memory.remember("Checkout outage on Black Friday", "event")
    cause = memory.remember("Merged the pull request without review", "decision")
    memory.connect(cause.id, incident.id, "caused")
    hits = memory.recall("checkout outage").hits
    ids = [h.node.id for h in hits]
    assert ids[0] == incident.id and cause.id in ids
    hop = hits[ids.index(cause.id)].why
    assert hop.origin == "hop" and hop.hops == 1
    assert hop.via[0].relation == "caused" and hop.via[0].contribution > 0


def test_recall_excludes_cold_and_frozen_knowledge_unless_asked(memory, clock):
    old = memory.remember("Legacy FTP server credentials rotation")
    hub = memory.remember("Current CI pipeline on GitHub Actions")
    for i in range(5):
        other = memory.remember(f"CI job number {i} caches dependencies")
        memory.connect(hub.id, other.id)
    clock.advance(days=120)
    memory.reinforce(hub.id)
    report = memory.maintain()
    assert memory.get(old.id).tier == "frozen"
    assert old.id in report.archived
    assert memory.recall("FTP server credentials").hits == []
    found = memory.recall("FTP server credentials", include_cold=True).hits
    assert [h.node.id for h in found] == [old.id]


def test_reinforcing_resets_the_decay_clock_of_a_link(memory, clock):
    a = memory.remember("Service A")
    b = memory.remember("Service B")
    memory.connect(a.id, b.id)
    clock.advance(days=60)
    before = memory.neighbors(a.id).neighbors[0].strength
    assert before == pytest.approx(0.6 * 0.25)
    result = memory.reinforce(a.id, b.id)
    after = memory.neighbors(a.id).neighbors[0].strength
    assert after > before * 3.9
    assert result.edges[0].weight == 1.0  # Hebbian growth saturates at 1
    assert result.edges[0].reinforce_count == 1
    # ... and both ends were used together: each counts as used now
    assert memory.get(a.id).last_read_at == memory.get(b.id).last_read_at == clock()


def test_recall_keeps_used_knowledge_alive(memory, clock):
    note = memory.remember("Use feature flags for risky migrations")
    clock.advance(days=10)
    memory.recall("feature flags")
    assert memory.get(note.id).last_read_at == clock()
    assert memory.get(note.id).read_count == 1


def test_stale_decision_with_many_links_ranks_below_fresh_one_with_few(memory, clock):
    stale = memory.remember("Adopt Kafka", "decision")
    for i in range(11):
        memory.connect(stale.id, memory.remember(f"kafka context {i}").id)
    clock.advance(days=150)
    fresh = memory.remember("Adopt the managed queue", "decision")
    for i in range(4):
        memory.connect(fresh.id, memory.remember(f"queue context {i}").id)
    memory.maintain()
    assert memory.get(fresh.id).activation > memory.get(stale.id).activation


def test_forget_only_queues_the_node_for_a_person_to_approve(memory):
    node = memory.remember("Obsolete runbook for the old cluster")
    result = memory.forget(node.id, "replaced by the new runbook")
    assert result.queued
    assert memory.get(node.id).status == "forgotten"
    assert memory.recall("obsolete runbook", include_cold=True).hits == []
    (item,) = memory.review_queue().items
    assert item.node.id == node.id and item.requested_by == "agent"
    assert item.reason == "replaced by the new runbook"


def test_approving_a_deletion_removes_the_node_and_its_links(memory):
    a = memory.remember("Old note")
    b = memory.remember("Other note")
    memory.connect(a.id, b.id)
    memory.forget(a.id)
    decision = memory.approve(a.id)
    assert decision.removed_edges == 1
    with pytest.raises(NotFound):
        memory.get(a.id)
    assert memory.review_queue().items == []


def left_to_decay(memory, clock, text: str):
    """A node unused for 200 days while another was just told: archived, put to a person."""
    old = memory.remember(text)
    clock.advance(days=200)
    busy = memory.remember("busy note")
    memory.maintain()
    return old, busy


def test_rejecting_a_deletion_restores_the_node_and_holds_off_new_proposals(memory, clock):
    old, _ = left_to_decay(memory, clock, "Rarely used but precious recipe")
    assert [i.node.id for i in memory.review_queue().items] == [old.id]
    memory.reject(old.id)
    assert memory.get(old.id).status == "active"
    clock.advance(days=25)
    memory.maintain()
    assert memory.review_queue().items == []


def test_a_node_a_person_kept_is_not_hidden_by_an_agent_until_the_cooldown_ends(memory, clock):
    node = memory.remember("Rarely used but precious recipe")
    memory.forget(node.id, "looks stale")
    memory.reject(node.id)
    again = memory.forget(node.id, "still looks stale")
    assert not again.queued and again.reason.startswith("kept by a person until ")
    assert memory.get(node.id).status == "active" and memory.review_queue().items == []
    clock.advance(days=31)
    assert memory.forget(node.id, "stale for a month more").queued


def test_find_names_a_bad_attribute_and_reads_nothing(memory):
    memory.remember("A runbook", attributes={"path": "ops/runbook.md"})
    assert [n.text for n in memory.find(attribute=("path", "ops/runbook.md"))] == ["A runbook"]
    for bad in (("path",), ("pa th", "x"), ("path", ["x"]), "path"):
        with pytest.raises(ValidationError, match="attribute"):
            memory.find(attribute=bad)
    with pytest.raises(ValidationError, match="limit"):
        memory.find(limit=0)


def test_pinned_nodes_are_never_archived(memory, clock):
    policy = memory.remember("On-call escalation policy", pinned=True)
    clock.advance(days=365)
    memory.remember("fresh note")
    report = memory.maintain()
    assert policy.id not in report.archived
    node = memory.get(policy.id)
    assert node.tier == "hot" and node.status == "active"
    with pytest.raises(ValidationError, match="pinned"):
        memory.forget(policy.id)


def test_unpinned_nodes_decay_again(memory, clock):
    policy = memory.remember("Old escalation policy", pinned=True)
    memory.unpin(policy.id)
    clock.advance(days=365)
    memory.remember("fresh note")
    memory.maintain()
    assert memory.get(policy.id).tier == "frozen"


def test_a_reused_archived_node_comes_back_and_leaves_the_queue(memory, clock):
    old, _ = left_to_decay(memory, clock, "Legacy billing export format")
    assert memory.get(old.id).status == "archived"
    memory.reinforce(old.id)
    memory.maintain()
    assert memory.get(old.id).status == "active"
    assert memory.review_queue().items == []


def test_an_archived_node_told_again_is_no_longer_up_for_deletion(memory, clock):
    old, _ = left_to_decay(memory, clock, "Legacy billing export format")
    assert [i.node.id for i in memory.review_queue().items] == [old.id]
    again = memory.remember("Legacy billing export format")
    assert again.id == old.id and again.status == "active"
    assert memory.review_queue().items == []
    memory.maintain()
    assert memory.review_queue().items == []


def test_a_decay_request_for_a_node_in_use_is_dropped(memory, clock):
    # as an earlier version left it: active again, still queued by decay
    node = memory.remember("Runbook for the payments failover")
    memory.store.enqueue_review(
        PendingReview(node.id, "frozen: unused for 90 days", clock().timestamp(), "maintain")
    )
    memory.maintain()
    assert memory.review_queue().items == []
    assert memory.get(node.id).status == "active"


def test_a_node_decay_proposed_and_an_agent_then_forgot_stays_up_for_review(memory, clock):
    old, busy = left_to_decay(memory, clock, "Legacy billing export format")
    asked = memory.forget(old.id, "superseded by the new export")
    assert asked.queued
    (item,) = memory.review_queue().items
    assert (item.reason, item.requested_by) == ("superseded by the new export", "agent")
    memory.forget(busy.id)
    memory.approve(busy.id)
    memory.maintain()  # with the busy note gone, the old one is no longer frozen
    assert [i.node.id for i in memory.review_queue().items] == [old.id]
    assert memory.approve(old.id).action == "approved"


def test_a_forgotten_node_told_again_withdraws_the_request(memory):
    node = memory.remember("The VPN needs the new client")
    memory.forget(node.id, "looked obsolete")
    memory.remember("The VPN needs the new client")
    assert memory.get(node.id).status == "active"
    assert memory.review_queue().items == []


def test_maintain_runs_by_itself_when_stale(memory, clock):
    memory.remember("Kept alive by the clock")
    assert memory.stats().last_maintain is None
    memory.recall("alive")
    assert memory.stats().last_maintain == clock()


def test_a_replica_with_auto_maintenance_off_leaves_it_to_the_scheduler(tmp_path, clock):
    with open_memory(
        tmp_path / "r.db", clock=clock, config=Config().with_(auto_maintain_days=0)
    ) as replica:
        replica.remember("Served by one of many replicas")
        replica.recall("replicas")
        assert replica.stats().last_maintain is None
        replica.maintain()
        assert replica.stats().last_maintain == clock()


def test_record_decision_links_decision_to_outcome_and_scores_it(memory):
    rec = memory.record_decision(
        "Skipped the canary deploy", "Weekend outage in checkout", "caused", task_tag="deploys"
    )
    assert rec.edge.relation == "caused" and rec.edge.src == rec.decision.id
    assert rec.outcome.polarity < 0 and rec.decision.q_value < 0
    assert rec.edge.confidence_source == "temporal"
    again = memory.record_decision("Skipped the canary deploy", "Data loss in orders", "caused")
    assert again.decision.id == rec.decision.id
    assert again.decision.q_value < rec.decision.q_value


def test_preventing_a_failure_improves_the_decisions_track_record(memory):
    rec = memory.record_decision("Added a circuit breaker", "Cascade failure", "prevented")
    assert rec.decision.q_value > 0


def test_record_fact_supersedes_the_old_value(memory, clock):
    first = memory.record_fact("prod db host", "db-1.internal", scope="payments")
    clock.advance(days=1)
    second = memory.record_fact("prod db host", "db-2.internal", scope="payments")
    assert second.superseded == [first.fact.id]
    old = memory.get(first.fact.id)
    assert old.valid_to == clock() and old.superseded_by == second.fact.id
    hits = memory.recall("prod db host").hits
    assert [h.node.id for h in hits] == [second.fact.id]
    same = memory.record_fact("prod db host", "db-2.internal", scope="payments")
    assert same.fact.id == second.fact.id and same.superseded == []


def test_facts_in_other_scopes_are_untouched(memory):
    a = memory.record_fact("owner", "Ana", scope="payments")
    memory.record_fact("owner", "Ben", scope="search")
    assert memory.get(a.fact.id).valid_to is None


@pytest.mark.parametrize(
    ("call", "field", "rule"),
    [
        (lambda m: m.remember("   "), "text", "empty"),
        (lambda m: m.remember("x", "spaceship"), "kind", "one of"),
        (lambda m: m.remember(42), "text", "string"),
        (lambda m: m.recall("x", k=0), "k", "between"),
        (lambda m: m.connect("a", "b", "loves"), "relation", "one of"),
        (lambda m: m.record_decision("", "outage"), "decision", "empty"),
        (lambda m: m.record_decision("d", "o", "maybe"), "relation", "one of"),
        (lambda m: m.record_decision("d", "o", confidence_source="gut"), "confidence_source", ""),
        (lambda m: m.record_fact("k", "v", confidence=1.5), "confidence", "between 0 and 1"),
        # One option asked twice, however worded, is no comparison: a slip in the call.
        (
            lambda m: m.counterfactual_query("skip the canary", "Should we skip the  canary?"),
            "alternative",
            "must differ from the decision",
        ),
    ],
)
def test_bad_input_names_the_field_and_rule_and_changes_nothing(memory, call, field, rule):
    memory.remember("existing")
    before = snapshot(memory)
    with pytest.raises(ValidationError) as exc:
        call(memory)
    assert exc.value.field == field and rule in exc.value.rule
    assert snapshot(memory) == before


@pytest.mark.parametrize(
    ("variable", "value", "rule"),
    [
        ("EBBTIDE_RRF_K", "-3", "must be >= 0"),
        ("EBBTIDE_ACTIVATION_BLEND", "-1", "must be >= 0"),
        ("EBBTIDE_GRACE_DAYS", "-7", "must be >= 0"),
        ("EBBTIDE_REVIEW_COOLDOWN_DAYS", "-1", "must be >= 0"),
        ("EBBTIDE_BUSY_TIMEOUT_MS", "-5", "must be >= 0"),
        ("EBBTIDE_Q_ALPHA", "1.5", "must be between 0 and 1"),
        ("EBBTIDE_HEBBIAN_RATE", "-0.1", "must be between 0 and 1"),
        ("EBBTIDE_SPREAD_DAMPING", "2", "must be between 0 and 1"),
    ],
)
def test_a_setting_out_of_range_in_the_environment_is_refused_naming_it(variable, value, rule):
    """Read as given, EBBTIDE_RRF_K=-3 made every recall a ZeroDivisionError."""
    with pytest.raises(ValidationError) as exc:
        Config.from_env({variable: value})
    assert exc.value.field == variable.removeprefix("EBBTIDE_").lower()
    assert exc.value.rule == rule


def test_weight_out_of_range_is_rejected_before_anything_is_written(memory):
    a, b = memory.remember("a"), memory.remember("b")
    before = snapshot(memory)
    with pytest.raises(ValidationError, match="weight: must be between 0 and 1"):
        memory.connect(a.id, b.id, weight=1.5)
    assert snapshot(memory) == before


def test_unknown_ids_are_not_found_and_change_nothing(memory):
    a = memory.remember("a")
    before = snapshot(memory)
    with pytest.raises(NotFound, match="b: no node"):
        memory.connect(a.id, "nope")
    with pytest.raises(NotFound, match=r"links\[0\].target"):
        memory.remember("new note", links=[{"target": "missing"}])
    with pytest.raises(NotFound):
        memory.record_decision("d", "o", influenced_by=["ghost"])
    assert snapshot(memory) == before


def test_stats_counts_what_is_there(memory):
    a = memory.remember("a", "person")
    b = memory.remember("b", "project")
    memory.connect(a.id, b.id, "about")
    s = memory.stats()
    assert (s.nodes, s.edges) == (2, 1)
    assert s.by_kind == {"person": 1, "project": 1} and s.by_relation == {"about": 1}


def test_a_clock_without_a_timezone_is_refused_when_the_memory_opens(tmp_path):
    from datetime import datetime

    with pytest.raises(ValidationError) as exc:
        open_memory(tmp_path / "m.db", clock=datetime.now, embeddings="none")
    assert exc.value.field == "clock" and "timezone-aware" in exc.value.rule

"""The causal layer, by the questions an agent asks before acting again."""

from __future__ import annotations

import re

import pytest

from ebbtide import NotFound, ValidationError, open_memory


@pytest.fixture
def incident(memory, clock):
    """skip load test -> checkout outage -> customer escalation; canary -> shipped safely;
    circuit breaker prevented a cascade failure."""
    a = memory.record_decision(
        "Skipped the load test before the sale",
        "Checkout outage on Saturday",
        "caused",
        task_tag="checkout",
    )
    clock.advance(hours=2)
    b = memory.record_decision(
        "Checkout outage on Saturday", "Escalation from Acme Retail", "caused", task_tag="checkout"
    )
    clock.advance(hours=2)
    c = memory.record_decision(
        "Escalation from Acme Retail", "Acme threatened to churn", "caused", task_tag="checkout"
    )
    memory.record_decision(
        "Rolled out behind a canary",
        "Release shipped safely and stayed stable",
        "caused",
        task_tag="checkout",
    )
    memory.record_decision(
        "Added a circuit breaker to payments",
        "Cascade failure across payments",
        "prevented",
        task_tag="payments",
    )
    return a, b, c


def test_episodes_told_twice_join_into_one_chain(memory, incident):
    a, b, _ = incident
    assert a.outcome.id == b.decision.id


def test_trace_cause_chain_returns_recorded_multi_hop_chains_with_defaults(memory, incident):
    result = memory.trace_cause_chain("Acme threatened to churn")
    chain = result.chains[0]
    assert [s.decision for s in chain.steps] == [
        "Skipped the load test before the sale",
        "Checkout outage on Saturday",
        "Escalation from Acme Retail",
    ]
    two_hop = memory.trace_cause_chain("escalation from Acme")
    assert two_hop.chains[0].steps[0].decision == "Skipped the load test before the sale"
    assert len(two_hop.chains[0].steps) == 2


def test_trace_cause_names_the_direct_cause(memory, incident):
    result = memory.trace_cause("checkout outage")
    assert result.causes[0].lesson.decision == "Skipped the load test before the sale"


def test_an_action_whose_chain_ends_in_an_outage_is_danger(memory, incident):
    result = memory.intervention_query("skip the load test before the sale")
    assert result.verdict == "DANGER" and result.risk > 0.6
    texts = [c.node.text for c in result.consequences]
    assert "Escalation from Acme Retail" in texts
    far = next(c for c in result.consequences if c.node.text == "Acme threatened to churn")
    assert far.hops == 3 and [s.relation for s in far.path] == ["caused"] * 3


def test_a_good_track_record_is_safe(memory, incident):
    assert memory.intervention_query("roll out behind a canary").verdict == "SAFE"


def test_preventing_a_failure_is_protective_evidence(memory, incident):
    result = memory.intervention_query("add a circuit breaker to payments")
    assert result.verdict == "SAFE"
    (c,) = result.consequences
    assert c.activation < 0, "the failure was prevented, not caused"


def test_inhibition_reaches_past_the_first_hop(memory):
    memory.record_decision("Enabled rate limiting", "Database overload", "prevented")
    memory.record_decision("Database overload", "Data loss in orders", "caused")
    result = memory.intervention_query("enable rate limiting")
    acts = {c.node.text: c.activation for c in result.consequences}
    assert acts["Database overload"] < 0 and acts["Data loss in orders"] < 0
    assert result.verdict == "SAFE"


def test_counterfactual_prefers_the_option_that_prevented_failure(memory, incident):
    result = memory.counterfactual_query(
        "Added a circuit breaker to payments", "Skipped the load test before the sale"
    )
    assert result.preferred == "decision" and result.margin > 0
    assert result.decision.protective > 0 and result.decision.bad == 0
    assert result.alternative.bad > 0


def test_counterfactual_does_not_mix_up_similar_names(memory):
    memory.record_decision("Enabled flag f1", "Checkout crashed", "caused")
    memory.record_decision("Enabled flag f10", "Release shipped on time", "caused")
    result = memory.counterfactual_query("Enabled flag f1", "Enabled flag f10")
    assert [n.text for n in result.decision.matched] == ["Enabled flag f1"]
    assert result.preferred == "alternative"


def test_two_untried_options_are_unknown_not_guessed(memory, incident):
    result = memory.counterfactual_query("Rewrite it in Rust", "Hire a consultant")
    assert result.preferred == "unknown" and result.prediction_id is None


def test_an_untried_option_beats_one_known_to_end_badly(memory, incident):
    result = memory.counterfactual_query("Rewrite it in Rust", "Skipped the load test")
    assert result.preferred == "decision" and result.alternative.score < 0


def test_predictions_resolve_when_the_outcome_arrives(memory, incident):
    q = memory.intervention_query("skip the load test before the sale")
    assert memory.prediction_report().items[0].status == "open"
    memory.record_decision("Skipped the load test before the sale", "Another outage", "caused")
    report = memory.prediction_report()
    (item,) = [i for i in report.items if i.prediction_id == q.prediction_id]
    assert item.status == "correct" and report.accuracy == 1.0


def test_the_prediction_report_counts_every_prediction_and_lists_the_latest(memory, incident):
    asked = [memory.intervention_query(f"skip the load test before sale {i}") for i in range(7)]
    memory.record_decision("Skipped the load test before the sale", "Another outage", "caused")
    report = memory.prediction_report(limit=3)
    assert (report.total, report.resolved, report.accuracy) == (7, 7, 1.0)
    assert [i.prediction_id for i in report.items] == [q.prediction_id for q in asked[-3:]]


def test_a_prediction_report_limit_out_of_range_is_refused_naming_it(memory, incident):
    with pytest.raises(ValidationError, match="limit"):
        memory.prediction_report(limit=0)


def test_predictions_never_show_up_in_recall(memory, incident):
    memory.intervention_query("skip the load test before the sale")
    hits = memory.recall("prediction skip load test", include_cold=True).hits
    assert all(h.node.kind != "prediction" for h in hits)


def test_an_invalidated_lesson_vanishes_from_every_retrieval_path(memory):
    rec = memory.record_decision("Cached sessions in Redis", "Login latency improved")
    memory.invalidate_decision(rec.edge.id, "measured wrongly")
    assert memory.search_causal(query="cached sessions redis").hits == []
    assert memory.recall("cached sessions redis", include_cold=True).hits == []
    assert memory.trace_cause("login latency improved").causes == []
    assert memory.intervention_query("cache sessions in redis").verdict == "UNKNOWN"
    assert memory.search_memory("cached sessions").lessons == []
    edge = memory.store.get_edges([rec.edge.id])[rec.edge.id]
    assert edge.valid_to is not None and "measured wrongly" in edge.context


def test_a_newer_contradicting_outcome_supersedes_the_old_lesson(memory, clock):
    old = memory.record_decision("Added retries to the payment client", "Checkout errors fixed")
    clock.advance(days=3)
    new = memory.record_decision(
        "Added retries to the payment client", "Retry storm caused a checkout outage"
    )
    preview = memory.resolve_updates()
    assert not preview.applied
    assert [(u.old.edge_id, u.new.edge_id) for u in preview.updates] == [(old.edge.id, new.edge.id)]
    assert memory.search_causal(query="payment client retries").hits[0].lesson.edge_id in {
        old.edge.id,
        new.edge.id,
    }
    memory.resolve_updates(apply=True)
    ids = [h.lesson.edge_id for h in memory.search_causal(query="payment client retries").hits]
    assert ids == [new.edge.id]
    hits = memory.recall("checkout errors fixed", include_cold=True).hits
    assert old.outcome.id not in {h.node.id for h in hits}


def test_search_causal_by_task_and_query(memory, incident):
    by_task = memory.search_causal(task_tag="payments")
    assert [h.lesson.relation for h in by_task.hits] == ["prevented"]
    hits = memory.search_causal(query="checkout outage").hits
    assert "Checkout outage on Saturday" in {h.lesson.outcome for h in hits[:2]}


def test_search_memory_returns_knowledge_and_lessons(memory, incident):
    memory.remember("Acme Retail is our largest checkout customer", "client")
    result = memory.search_memory("Acme Retail")
    assert any(h.node.kind == "client" for h in result.hits)
    assert any("Acme" in x.outcome for x in result.lessons)


def test_search_memory_for_a_task_keeps_the_lessons_tagged_for_no_task(memory):
    memory.record_decision("Enabled the Redis cache for checkout", "Checkout latency halved")
    memory.record_decision(
        "Added retries to the checkout client", "A retry storm took down payments", "caused",
        "checkout",
    )  # fmt: skip
    memory.record_decision("Paged the search team", "Search reindexed", "caused", "search")
    lessons = memory.search_memory("checkout", task_tag="checkout").lessons
    assert {x.outcome for x in lessons} == {
        "Checkout latency halved",
        "A retry storm took down payments",
    }
    strict = memory.search_causal("checkout", "checkout").hits  # only that task's
    assert {h.lesson.task_tag for h in strict} == {"checkout"}


def test_search_memory_in_one_scope_returns_no_lesson_of_another(memory):
    memory.record_decision("Globex skipped the load test", "Globex checkout outage", scope="globex")
    memory.record_decision("Acme skipped the load test", "Acme checkout outage", scope="acme")
    result = memory.search_memory("checkout outage", scope="acme")
    assert [x.outcome for x in result.lessons] == ["Acme checkout outage"]
    assert {h.node.scope for h in result.hits} == {"acme"}


def test_search_memory_for_a_task_finds_its_items_below_other_tasks_matches(memory):
    for i in range(3):
        memory.remember(f"checkout deploy checklist {i} checkout deploy", task_tag="web")
    mobile = memory.remember("checkout deploy for the mobile app", task_tag="mobile")
    shared = memory.remember("checkout deploy needs a change ticket")
    hits = memory.search_memory("checkout deploy", task_tag="mobile", limit=3).hits
    assert {h.node.id for h in hits} == {mobile.id, shared.id}


def test_search_facts_returns_current_values_only(memory):
    memory.record_fact("deploy window", "Tuesdays 10-12")
    memory.record_fact("deploy window", "Wednesdays 14-16")
    facts = memory.search_facts("deploy window").facts
    assert [f.attributes["value"] for f in facts] == ["Wednesdays 14-16"]


def test_causal_directory_is_a_compact_index(memory, incident):
    d = memory.causal_directory(limit=3)
    assert len(d.entries) == 3 and len(d.text.splitlines()) == 3
    assert all(re.search(r" -[a-z_]+-> ", line) for line in d.text.splitlines())


def test_patterns_are_mined_across_tasks_and_can_be_retracted(memory):
    memory.record_decision("Skipped code review on the hotfix", "Production outage", task_tag="a")
    memory.record_decision(
        "Skipped code review on the hotfix", "Production outage again", task_tag="b"
    )
    memory.record_decision(
        "Skipped code review on the docs fix", "Docs shipped on time", task_tag="c"
    )
    found = memory.search_patterns().patterns
    relations = {p.relation for p in found}
    assert "contradicts" in relations or "similar_to" in relations
    first = found[0]
    memory.invalidate_pattern(first.edge_id, "coincidence")
    assert first.edge_id not in {p.edge_id for p in memory.search_patterns().patterns}


def test_reconstruct_lesson_reads_like_advice(memory, incident):
    lesson = memory.reconstruct_lesson("load test before the sale")
    assert "Avoid: Skipped the load test before the sale" in lesson.lesson
    assert lesson.lessons and 0 < lesson.confidence <= 1


@pytest.mark.parametrize(
    ("call", "field"),
    [
        (lambda m: m.record_decision(" ", "outage"), "decision"),
        (lambda m: m.record_decision("d", "\n"), "outcome"),
        (lambda m: m.record_decision("d", "o", "helped"), "relation"),
        (lambda m: m.trace_cause(""), "outcome_description"),
        (lambda m: m.intervention_query("  "), "action"),
        (lambda m: m.counterfactual_query("a", ""), "alternative"),
        (lambda m: m.search_causal(limit=0), "limit"),
        (lambda m: m.search_memory("x", detail_level="l9"), "detail_level"),
        (lambda m: m.search_memory("x", limit=500), "limit"),
        (lambda m: m.recall("x", task_tag=""), "task_tag"),
    ],
)
def test_empty_or_bad_fields_are_clear_errors(memory, call, field):
    with pytest.raises(ValidationError) as exc:
        call(memory)
    assert exc.value.field == field
    assert memory.stats().nodes == 0


def test_unknown_edge_ids_are_not_found(memory):
    with pytest.raises(NotFound):
        memory.invalidate_decision("e_missing")
    rec = memory.record_decision("d", "o")
    with pytest.raises(ValidationError, match="pattern"):
        memory.invalidate_pattern(rec.edge.id)


def test_what_a_match_prevented_is_recalled_beside_it():
    with open_memory(":memory:", embeddings="none") as memory:
        breaker = memory.remember("Added a circuit breaker to the payment client")
        storm = memory.remember("A retry storm took down checkout")
        memory.remember("The office plants were watered")
        memory.connect(breaker.id, storm.id, "prevented")
        hits = memory.recall("circuit breaker", k=5, touch=False).hits
        reached = next(h for h in hits if h.node.id == storm.id)
        assert reached.why.origin == "hop" and reached.why.via[0].relation == "prevented"


def _canary_skipped_then(memory, clock, other):
    """The canary skipped for a hotfix (a bad outcome), then, a day later, `other` told of it
    (a good one): the two recorded episodes."""
    skipped = memory.record_decision(
        "Skipped the canary for the hotfix",
        "Bad hotfix reached all users and broke login",
        task_tag="release",
    )
    clock.advance(days=1)
    kept = memory.record_decision(
        other, "Canary caught the bad hotfix before users saw it", task_tag="release"
    )
    return skipped, kept


def test_not_skipping_the_canary_is_another_decision_than_skipping_it(memory, clock):
    """An action told as not done is the opposite choice: its outcomes are not the doing's,
    and a question about not doing it is not answered with the doing's record."""
    skipped, kept = _canary_skipped_then(memory, clock, "Did not skip the canary for the hotfix")
    assert kept.decision.id != skipped.decision.id
    assert memory.intervention_query("skip the canary for the hotfix").verdict == "DANGER"
    not_skipping = memory.intervention_query("did not skip the canary for the hotfix")
    assert [n.id for n in not_skipping.matched] == [kept.decision.id]
    assert not_skipping.verdict == "SAFE"


def test_a_question_about_not_doing_something_never_tried_is_unknown(memory):
    memory.record_decision(
        "Skipped the load test before the sale", "Checkout outage on Saturday", task_tag="sale"
    )
    answer = memory.intervention_query("did not skip the load test")
    assert answer.matched == []
    assert answer.verdict == "UNKNOWN"


def test_an_action_asked_about_for_one_task_is_judged_on_that_tasks_history(memory):
    """The same action went well for one goal and badly for another: asked for a task, the
    answer is that task's record, not the other's."""
    memory.record_decision(
        "Switched to spot instances", "Cloud bill dropped by 40%", task_tag="cost"
    )
    memory.record_decision(
        "Switched to spot instances", "Batch jobs were interrupted and failed", task_tag="batch"
    )
    assert memory.intervention_query("switch to spot instances").verdict == "WARNING"
    cost = memory.intervention_query("switch to spot instances", task_tag="cost")
    assert (cost.verdict, [c.node.text for c in cost.consequences]) == (
        "SAFE",
        ["Cloud bill dropped by 40%"],
    )
    batch = memory.intervention_query("switch to spot instances", task_tag="batch")
    assert batch.verdict == "DANGER"
    option = memory.counterfactual_query(
        "switch to spot instances", "keep on-demand instances", task_tag="cost"
    ).decision
    assert (option.episodes, option.bad) == (1, 0.0)
    assert [x.task_tag for x in option.lessons] == ["cost"]


def test_a_task_tag_is_read_alike_by_intervention_and_counterfactual(memory):
    """counterfactual_query's task_tag is checked and trimmed as intervention_query's is: ' cost'
    is the cost task, not an unknown one that falls back to every task's history."""
    memory.record_decision(
        "Switched to spot instances", "Cloud bill dropped by 40%", task_tag="cost"
    )
    memory.record_decision(
        "Switched to spot instances", "Batch jobs were interrupted and failed", task_tag="batch"
    )
    option = memory.counterfactual_query(
        "switch to spot instances", "keep on-demand instances", task_tag=" cost "
    ).decision
    assert [x.task_tag for x in option.lessons] == ["cost"]
    for ask in (
        lambda: memory.intervention_query("switch to spot instances", task_tag=""),
        lambda: memory.counterfactual_query("switch to spot instances", "stay", task_tag=""),
        lambda: memory.search_patterns(task_tag=" "),
    ):
        with pytest.raises(ValidationError, match="task_tag"):
            ask()


def test_a_load_test_not_skipped_told_in_a_chat_is_not_the_skipping(memory):
    """Told in a conversation, with who did it and when before the negation ("This time we
    did not skip …"), the choice not to skip is still not the skipping."""
    memory.remember(
        messages=[
            {
                "speaker": "Ben",
                "text": "This time we did not skip the load test, so we found the connection "
                "limit early.",
            }
        ],
        task_tag="checkout",
    )
    assert memory.intervention_query("skip the load test").matched == []
    kept = memory.intervention_query("don't skip the load test")
    assert [n.text for n in kept.matched] == ["This time Ben and others did not skip the load test"]
    assert kept.verdict == "SAFE"


def test_an_action_sharing_only_its_verb_with_a_recorded_one_is_unknown(tmp_path):
    with open_memory(tmp_path / "m.db", embeddings="none") as mem:
        mem.record_decision("Skipped the load test before the sale", "Checkout outage on Saturday")
        assert mem.intervention_query("skip the standup").verdict == "UNKNOWN"
        assert mem.intervention_query("skip the load test").verdict == "DANGER"


def test_keeping_the_canary_is_asked_as_not_skipping_it(memory, clock):
    """An action whose verb is the opposite of a recorded one's, done to the same thing, is
    read as not doing the recorded action: "keep the canary" is answered as "don't skip the
    canary" is, never with the skipping's outage."""
    memory.record_decision(
        "Skipped the canary deploy", "Checkout outage for two hours", task_tag="release"
    )
    for ask in ("keep the canary", "run the canary deploy", "don't skip the canary"):
        answer = memory.intervention_query(ask)
        assert (answer.matched, answer.verdict) == ([], "UNKNOWN"), ask
    clock.advance(days=1)
    kept = memory.record_decision(
        "Did not skip the canary deploy",
        "Canary caught the bad build before users saw it",
        task_tag="release",
    )
    answer = memory.intervention_query("keep the canary")
    assert [n.id for n in answer.matched] == [kept.decision.id]
    assert answer.verdict == "SAFE"
    assert memory.intervention_query("bypass the canary").verdict == "DANGER"


def test_skip_or_keep_the_canary_prefers_keeping_it_when_skipping_went_badly(memory):
    memory.record_decision(
        "Skipped the canary deploy", "Checkout outage for two hours", task_tag="release"
    )
    answer = memory.counterfactual_query("skip the canary deploy", "keep the canary deploy")
    assert answer.alternative.matched == []
    assert answer.preferred == "alternative"


def test_turning_the_rate_limiter_on_is_not_turning_it_off(memory):
    """A phrasal verb keeps its particle, after the object too ("turned the rate limiter
    off"), and "enable" is its opposite as "turn on" is."""
    memory.record_decision(
        "Turned the rate limiter off for the checkout", "Checkout fell over under bot traffic"
    )
    for ask in ("turn on the rate limiter for the checkout", "enable the rate limiter"):
        answer = memory.intervention_query(ask)
        assert (answer.matched, answer.verdict) == ([], "UNKNOWN"), ask
    for ask in ("switch off the rate limiter for the checkout", "disable the rate limiter"):
        assert memory.intervention_query(ask).verdict == "DANGER", ask


def test_keeping_the_canary_recorded_after_skipping_it_is_another_decision(memory, clock):
    """record_decision does not take the opposite choice for the first one told again: the
    canary that caught the bad hotfix is not evidence for skipping it."""
    skipped, kept = _canary_skipped_then(memory, clock, "Kept the canary for the hotfix")
    assert kept.decision.id != skipped.decision.id
    assert memory.intervention_query("skip the canary for the hotfix").verdict == "DANGER"
    assert memory.intervention_query("keep the canary for the hotfix").verdict == "SAFE"


def test_an_opposite_verb_done_to_another_thing_is_not_the_opposite_choice(memory):
    """Running the migration without a dry run is skipping the dry run: "run" undoes "skip"
    only when both are done to one thing."""
    ran = memory.record_decision(
        "Ran the shipments migration without a dry run",
        "The shipments table stayed locked for an hour",
    )
    answer = memory.intervention_query("skip the dry run for the shipments migration")
    assert [n.id for n in answer.matched] == [ran.decision.id]
    assert answer.verdict == "DANGER"


def test_bypassing_the_load_test_is_judged_on_skipping_it(memory):
    """A close synonym of a recorded verb is the same action: "bypass the load test" is the
    skipping that caused the outage, not the load test moved to staging, which shares as many
    of its words."""
    memory.record_decision("Skipped the load test before the sale", "Checkout outage on Saturday")
    memory.record_decision(
        "Moved the load test to the staging cluster",
        "The staging cluster handled the load test smoothly",
    )
    for ask in ("bypass the load test", "omit the load test"):
        answer = memory.intervention_query(ask)
        assert [n.text for n in answer.matched] == ["Skipped the load test before the sale"], ask
        assert answer.verdict == "DANGER", ask


def test_deploying_on_friday_is_not_deploying_the_friday_report(memory):
    """A word the asked action says when it is done ("on Friday") and a recorded one says of
    what it was done to ("the Friday report") name other things."""
    memory.record_decision("Deployed the Friday report", "Finance got the numbers on time")
    answer = memory.intervention_query("deploy on Friday")
    assert (answer.matched, answer.verdict) == ([], "UNKNOWN")
    memory.record_decision(
        "Deployed the checkout service on Friday evening", "Checkout outage all weekend"
    )
    answer = memory.intervention_query("deploy on Friday")
    assert [n.text for n in answer.matched] == ["Deployed the checkout service on Friday evening"]
    assert answer.verdict == "DANGER"
    assert memory.intervention_query("deploy the Friday report").verdict == "SAFE"

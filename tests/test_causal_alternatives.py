"""Two tellings that differ in the thing chosen ("Use SQLite for the CLI" / "Use Postgres for
the CLI") are alternatives, never one decision told twice: each keeps its own node and its own
outcomes, so comparing them answers which to prefer. So are one action done to two things
("Cache the sessions in Redis" / "Cache the tokens in Redis") and two failures of two tools
("Postgres is out of connections" / "Redis is out of connections"). A retelling of one choice
in other words ("We picked SQLite for the CLI") still joins it."""

from __future__ import annotations

import pytest

from ebbtide import sameness

flat = lambda _: 1.0  # noqa: E731


def _mention(decision: bool = True) -> sameness.Mention:
    return sameness.Mention(decision=decision, polarity=0.0, recurrence=False, actor=None,
                            task_tag=None)  # fmt: skip


@pytest.mark.parametrize(
    ("a", "b"),
    [
        ("Use SQLite for the CLI", "Use Postgres for the CLI"),
        ("We chose Redis", "We chose Memcached"),
        ("Deploy on Fridays", "Deploy on Mondays"),
        ("We picked SQLite for the CLI", "Use Postgres for the CLI"),
        ("Moved the search cluster to Kubernetes", "Moved the search cluster to Nomad"),
        (
            "Lena and others chose SQLite for the CLI.",
            "Lena and others chose Postgres for the CLI.",
        ),
        (
            "The Postgres primary ran out of connections",
            "The SQLite primary ran out of connections",
        ),
    ],
)
def test_tellings_that_name_another_thing_in_one_frame_are_different_choices(a, b):
    assert sameness.different_choices(a, b)
    assert sameness.different_choices(b, a)
    assert sameness.same_event(a, _mention(), b, _mention(), flat) == 0


@pytest.mark.parametrize(
    ("a", "b"),
    [
        ("We picked SQLite for the CLI", "Use SQLite for the CLI"),
        ("Use Postgres for the CLI", "Use PostgreSQL for the CLI"),  # one name, longer
        (
            "Ana and others restarted the checkout workers",
            "Bo and others restarted the checkout workers",
        ),
        ("Kai restarted the workers", "Restarted the workers"),
        ("Use SQLite for the CLI", "Use SQLite and Litestream for the CLI"),  # one more name
        ("Restarted the checkout workers", "Rebooted the checkout workers"),  # a verb, not a name
        ("The outage", "The checkout outage"),
        # a name moved, not replaced
        (
            "put PgBouncer in front of Pyxis accounts",
            "Wen moved Pyxis accounts behind a PgBouncer pooler",
        ),
    ],
)
def test_a_retelling_of_one_choice_names_nothing_else_in_its_place(a, b):
    assert not sameness.different_choices(a, b)
    assert not sameness.different_choices(b, a)


def test_a_paraphrase_of_the_choice_is_still_the_same_event():
    told = sameness.same_event(
        "We picked SQLite for the CLI", _mention(), "Use SQLite for the CLI", _mention(), flat
    )
    assert told >= sameness.SAME_EVENT


def test_who_did_it_is_not_what_was_chosen():
    # A teammate's "we" retells it; different actors are `conflict`'s to judge.
    told = sameness.same_event(
        "Ana and others moved the search cluster to Kubernetes", _mention(),
        "Bo and others moved the search cluster to Kubernetes", _mention(), flat,
    )  # fmt: skip
    assert told >= sameness.SAME_EVENT


def _record_sqlite_and_postgres(memory):
    sqlite = memory.record_decision(
        "Use SQLite for the CLI", "Onboarding took minutes", task_tag="cli-storage"
    )
    postgres = memory.record_decision(
        "Use Postgres for the CLI", "Onboarding took a whole day", task_tag="cli-storage"
    )
    return sqlite, postgres


def test_record_decision_keeps_two_options_of_one_choice_as_two_decisions(memory):
    sqlite, postgres = _record_sqlite_and_postgres(memory)
    assert sqlite.decision.id != postgres.decision.id
    assert "aliases" not in memory.get(sqlite.decision.id).attributes


def test_comparing_two_recorded_options_prefers_the_one_that_went_well(memory):
    _record_sqlite_and_postgres(memory)
    result = memory.counterfactual_query(
        "Use Postgres for the CLI", "Use SQLite for the CLI", task_tag="cli-storage"
    )
    assert result.preferred == "alternative"
    assert [(x.decision, x.outcome) for x in result.decision.lessons] == [
        ("Use Postgres for the CLI", "Onboarding took a whole day")
    ]
    assert [(x.decision, x.outcome) for x in result.alternative.lessons] == [
        ("Use SQLite for the CLI", "Onboarding took minutes")
    ]


def test_retelling_the_choice_in_other_words_still_joins_it(memory):
    first = memory.record_decision("Use SQLite for the CLI", "Onboarding took minutes")
    again = memory.record_decision("We picked SQLite for the CLI", "Support tickets dropped")
    assert again.decision.id == first.decision.id
    stored = memory.get(first.decision.id)
    assert stored.attributes["aliases"] == ["We picked SQLite for the CLI"]


def _told(memory, clock, text: str):
    clock.advance(days=1)
    return memory.remember(
        messages=[
            {"speaker": "Theo", "text": "Quick update on the session cache."},
            {"speaker": "Lena", "text": text},
        ],
        date=clock().isoformat(),
    )


def test_two_options_told_in_conversations_stay_apart_and_compare(memory, clock):
    first = _told(
        memory, clock, "We chose Redis for the session cache. As a result, checkout got faster."
    )
    second = _told(
        memory, clock, "We chose Memcached for the session cache. As a result, checkout timed out."
    )
    (redis,) = [n for n in first.nodes if n.kind == "decision"]
    (memcached,) = [n for n in second.nodes if n.kind == "decision"]
    assert redis.id != memcached.id
    result = memory.counterfactual_query(
        "choose Memcached for the session cache", "choose Redis for the session cache"
    )
    assert result.preferred == "alternative"
    assert {x.outcome for x in result.decision.lessons} == {"Checkout timed out."}
    assert {x.outcome for x in result.alternative.lessons} == {"Checkout got faster."}


def test_the_outage_told_later_still_names_the_postgres_outage(memory):
    memory.remember(
        messages=[
            {
                "speaker": "Dana",
                "text": "The backup job filled the disk, which caused the Postgres outage.",
            },
            {"speaker": "Ben", "text": "The outage happened because we had no disk usage alert."},
        ],
        date="2026-03-01",
    )
    chains = memory.trace_cause_chain("the Postgres outage").chains
    causes = {step.decision for chain in chains for step in chain.steps}
    assert "The backup job filled the disk" in causes
    assert any("no disk usage alert" in c for c in causes)


def test_a_long_option_that_shares_all_but_its_name_is_still_another_option(memory):
    frame = "for the local cache of the billing CLI on developer laptops and CI runners"
    sqlite = memory.record_decision(f"Use SQLite {frame}", "Onboarding took minutes")
    postgres = memory.record_decision(f"Use Postgres {frame}", "Onboarding took a whole day")
    assert sqlite.decision.id != postgres.decision.id
    result = memory.counterfactual_query(f"Use Postgres {frame}", f"Use SQLite {frame}")
    assert result.preferred == "alternative"
    assert [x.outcome for x in result.decision.lessons] == ["Onboarding took a whole day"]
    assert [x.outcome for x in result.alternative.lessons] == ["Onboarding took minutes"]


# What an action was done to is the decision too: the same verb done to another thing ("Cache
# the sessions in Redis" / "Cache the tokens in Redis") is another decision, though the thing
# is no name; the same thing told in other words is one decision.
@pytest.mark.parametrize(
    ("a", "b"),
    [
        ("Cache the sessions in Redis", "Cache the tokens in Redis"),
        ("We cached the sessions in Redis", "Cache the tokens in Redis"),
        ("Ana and others restarted the checkout workers", "Restarted the checkout pods"),
        ("Did not skip the load test", "Did not skip the smoke run"),
        ("did not skip load tests", "Did not skip the smoke run"),
    ],
)
def test_one_verb_done_to_another_thing_is_another_decision(a, b):
    assert sameness.different_objects(a, b)
    assert sameness.different_objects(b, a)
    assert sameness.same_event(a, _mention(), b, _mention(), flat) == 0


@pytest.mark.parametrize(
    "retold",
    [
        "Cache sessions in Redis",
        "We cached the sessions in Redis",
        "cache user sessions in Redis",
        "Cached the session in Redis",
        "Lena and others decided to cache the sessions in Redis.",
    ],
)
def test_a_retelling_of_what_was_done_to_the_same_thing_still_joins(retold):
    first = "Cache the sessions in Redis"
    assert not sameness.different_objects(first, retold)
    assert not sameness.different_objects(retold, first)
    assert sameness.same_event(retold, _mention(), first, _mention(), flat) >= sameness.SAME_EVENT


@pytest.mark.parametrize(
    ("a", "b"),
    [
        # told as what befell a thing, not as an action: the first noun is no verb
        ("Andromeda storefront broken over the weekend", "the Andromeda storefront flow failed"),
        ("Castor auth taken down by a retry storm", "Castor auth collapsed under a retry storm"),
        # a thing told as done to ("The rolled back … release") is no action either
        ("The rolled back Corvus storefront release", "Farid rolled back the Corvus deploy"),
    ],
)
def test_tellings_that_are_no_plain_action_are_not_told_apart_by_their_objects(a, b):
    assert not sameness.different_objects(a, b)
    assert not sameness.different_objects(b, a)


def _cache_sessions_and_tokens(memory):
    sessions = memory.record_decision(
        "Cache the sessions in Redis", "Logins got twice as fast", task_tag="auth-cache"
    )
    tokens = memory.record_decision(
        "Cache the tokens in Redis", "Token refresh broke for every user", task_tag="auth-cache"
    )
    return sessions, tokens


def test_caching_sessions_and_caching_tokens_are_two_decisions_with_their_own_outcomes(memory):
    sessions, tokens = _cache_sessions_and_tokens(memory)
    assert sessions.decision.id != tokens.decision.id
    assert "aliases" not in memory.get(sessions.decision.id).attributes
    result = memory.counterfactual_query(
        "Cache the tokens in Redis", "Cache the sessions in Redis", task_tag="auth-cache"
    )
    assert result.preferred == "alternative"
    assert [x.outcome for x in result.decision.lessons] == ["Token refresh broke for every user"]
    assert [x.outcome for x in result.alternative.lessons] == ["Logins got twice as fast"]


def test_recall_of_what_was_cached_in_redis_returns_both_decisions(memory):
    _cache_sessions_and_tokens(memory)
    found = {
        h.node.text for h in memory.recall("what did we cache in Redis?", kinds=["decision"]).hits
    }
    assert found == {"Cache the sessions in Redis", "Cache the tokens in Redis"}


def test_an_outcome_of_caching_tokens_told_later_attaches_to_the_token_decision(memory):
    sessions, tokens = _cache_sessions_and_tokens(memory)
    later = memory.record_decision("We cached the tokens in Redis", "Redis memory use tripled")
    assert later.decision.id == tokens.decision.id
    assert later.decision.id != sessions.decision.id
    assert memory.get(tokens.decision.id).attributes["aliases"] == ["We cached the tokens in Redis"]


def test_asking_about_caching_the_tokens_finds_no_lesson_of_caching_the_sessions(memory):
    memory.record_decision("Cache the sessions in Redis", "Logins broke for every user")
    result = memory.intervention_query("should we cache the tokens in Redis?")
    assert result.matched == []
    assert result.verdict == "UNKNOWN"
    asked_again = memory.intervention_query("should we cache the user sessions in Redis?")
    assert [n.text for n in asked_again.matched] == ["Cache the sessions in Redis"]
    assert asked_again.verdict == "DANGER"


def test_caching_sessions_and_tokens_told_in_conversations_stay_apart(memory, clock):
    first = _told(memory, clock, "We cached the sessions in Redis. As a result, logins got faster.")
    second = _told(
        memory, clock, "We cached the tokens in Redis. As a result, token refresh broke."
    )
    (sessions,) = [n for n in first.nodes if n.kind == "decision"]
    (tokens,) = [n for n in second.nodes if n.kind == "decision"]
    assert sessions.id != tokens.id
    result = memory.intervention_query("cache the tokens in Redis")
    assert [n.id for n in result.matched] == [tokens.id]
    assert result.verdict == "DANGER"


# A name opening a sentence is a name too when it is a known tool ("Postgres", "Redis") or is
# spelt as a name where no sentence starts elsewhere in the memory: "Redis is out of
# connections" is another failure than "Postgres is out of connections".
@pytest.mark.parametrize(
    ("a", "b"),
    [
        ("Postgres ran out of connections", "Redis ran out of connections"),
        ("Postgres is out of connections", "Redis is out of connections"),
        ("Kafka connection exhaustion", "Redis connection exhaustion"),
    ],
)
def test_known_tools_opening_a_sentence_are_different_things(a, b):
    assert sameness.different_choices(a, b)
    outcome = sameness.Mention(decision=False, polarity=-0.5, recurrence=False, actor=None,
                               task_tag=None, outcome=True)  # fmt: skip
    assert sameness.same_event(a, outcome, b, outcome, flat) == 0


def test_a_word_opening_both_sentences_is_no_sure_name_unless_spelt_as_one_elsewhere():
    a, b = "Pyxis is out of connections", "Vega is out of connections"
    assert not sameness.different_choices(a, b)
    assert sameness.different_choices(a, b, named={"Pyxis", "Vega"}.__contains__)
    # "Checkout" and "Payments" are no names however they are spelt elsewhere: "Checkout
    # timed out" may be the same failure as "Payments timed out" told of another service.
    assert not sameness.different_choices(
        "Checkout is out of connections", "Payments is out of connections", named=lambda _: False
    )


@pytest.mark.parametrize(
    "form", ["{} is out of connections", "{} keeps running out of connections"]
)
def test_postgres_and_redis_out_of_connections_are_two_failures_with_their_own_causes(memory, form):
    postgres = memory.record_decision(
        "Doubled the checkout workers", form.format("Postgres"), task_tag="checkout"
    )
    redis = memory.record_decision(
        "Added a session cache", form.format("Redis"), task_tag="checkout"
    )
    assert postgres.outcome.id != redis.outcome.id
    traced = memory.trace_cause(form.format("Redis"))
    assert [n.id for n in traced.matched] == [redis.outcome.id]
    assert [c.lesson.decision for c in traced.causes] == ["Added a session cache"]


def test_codenames_told_mid_sentence_elsewhere_keep_their_failures_apart(memory, clock):
    memory.remember(
        messages=[
            {"speaker": "Theo", "text": "We moved Pyxis to the new cluster last week."},
            {"speaker": "Lena", "text": "The search pages still run on Vega."},
        ],
        date=clock().isoformat(),
    )
    pyxis = memory.record_decision("Doubled the Pyxis workers", "Pyxis is out of connections")
    vega = memory.record_decision("Added a Vega read replica", "Vega is out of connections")
    assert pyxis.outcome.id != vega.outcome.id
    traced = memory.trace_cause("Vega is out of connections")
    assert [c.lesson.decision for c in traced.causes] == ["Added a Vega read replica"]


def test_the_same_failure_told_again_with_its_tool_first_still_joins(memory):
    first = memory.record_decision("Doubled the checkout workers", "Postgres is out of connections")
    again = memory.record_decision("Raised max_connections", "Postgres was out of connections")
    assert again.outcome.id == first.outcome.id


# Nouns that name one thing in a team's talk ("the deploy", "the release", "the rollout") are
# no other thing done to: rolling back the release is rolling back the deploy, and what came of
# it, told either way, is what came of the one decision.
@pytest.mark.parametrize(
    ("a", "b"),
    [
        ("Roll back the deploy", "We rolled back the release"),
        ("Roll back the deploy", "Rolled back the rollout"),
        ("Roll back the deployment", "Rolling back the release"),
        ("Restart the db", "Ana restarted the database"),
        ("Reload the config", "Reloaded the settings"),
        ("Restart the svc", "Restarted the checkout service"),
    ],
)
def test_one_action_done_to_a_thing_told_by_another_noun_for_it_is_one_action(a, b):
    assert not sameness.different_objects(a, b)
    assert not sameness.different_objects(b, a)


@pytest.mark.parametrize(
    ("a", "b"),
    [
        ("Cache the sessions in Redis", "Cache the tokens in Redis"),
        ("Restart the workers", "Restart the queues"),
        ("Flush the cache", "Flush the database"),
        ("Roll back the deploy", "Roll back the migration"),
    ],
)
def test_nouns_for_different_things_still_tell_two_actions_apart(a, b):
    assert sameness.different_objects(a, b)
    assert sameness.different_objects(b, a)


def test_rolling_back_the_release_told_later_is_the_recorded_rollback_of_the_deploy(memory, clock):
    rollback = memory.record_decision("Roll back the deploy", "Checkout errors stopped")
    told = _told(memory, clock, "Rolling back the release fixed checkout.")
    (decision,) = [n for n in told.nodes if n.kind == "decision"]
    assert decision.id == rollback.decision.id
    assert "Rolling back the release" in memory.get(rollback.decision.id).attributes["aliases"]
    result = memory.counterfactual_query("roll back the deploy", "hotfix forward")
    assert {x.outcome for x in result.decision.lessons} == {
        "Checkout errors stopped",
        "Rolling back the release fixed checkout.",
    }


def test_a_question_about_rolling_back_the_rollout_finds_the_recorded_rollback(memory):
    memory.record_decision("Rolled back the deploy", "Checkout errors stopped")
    result = memory.intervention_query("should we roll back the rollout?")
    assert [n.text for n in result.matched] == ["Rolled back the deploy"]
    assert result.verdict == "SAFE"

"""Two tellings that differ in the thing chosen ("Use SQLite for the CLI" / "Use Postgres for
the CLI") are alternatives, never one decision told twice: each keeps its own node and its own
outcomes, so comparing them answers which to prefer. A retelling of one choice in other words
("We picked SQLite for the CLI") still joins it."""

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

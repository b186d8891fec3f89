"""A choice told with its reason ("We moved to SQS because Kafka needed brokers") is a decision
the reason led to, as "We went with SQLite because it needs no server" is, and the reason is
found behind it. Something that merely went
wrong for a reason stays what the reason caused."""

from __future__ import annotations

import pytest

from ebbtide import Memory


def _thread(memory: Memory, *turns: tuple[str, str]) -> None:
    memory.remember(
        messages=[{"speaker": who, "text": text} for who, text in turns], date="2026-03-01"
    )


def _kinds(memory: Memory) -> dict[str, str]:
    return {n.text: n.kind for n in memory.store.find_nodes(limit=100) if n.kind != "person"}


@pytest.mark.parametrize(
    ("told", "choice", "reason"),
    [
        ("We moved to SQS because Kafka needed brokers.",
         "Ana and others moved to SQS", "Kafka needed brokers."),
        ("We switched to Postgres since MySQL kept deadlocking.",
         "Ana and others switched to Postgres", "MySQL kept deadlocking."),
        ("We migrated to Aurora because the disk kept filling.",
         "Ana and others migrated to Aurora", "The disk kept filling."),
        ("We moved to SQS as Kafka needed too many brokers.",
         "Ana and others moved to SQS", "Kafka needed too many brokers."),
        ("We adopted Terraform because manual changes kept drifting.",
         "Ana and others adopted Terraform", "Manual changes kept drifting."),
        ("We dropped Kafka because it needed too many brokers.",
         "Ana and others dropped Kafka", "It (Kafka) needed too many brokers."),
        ("We replaced Jenkins with GitHub Actions because builds were slow.",
         "Ana and others replaced Jenkins with GitHub Actions", "Builds were slow."),
    ],
)  # fmt: skip
def test_a_choice_told_with_its_reason_is_a_decision_the_reason_led_to(
    memory, told, choice, reason
):
    _thread(memory, ("Ana", told))
    assert _kinds(memory)[choice] == "decision"
    why = memory.trace_cause_chain(choice).chains
    assert reason in {s.decision for c in why for s in c.steps}


def test_what_went_wrong_for_a_reason_stays_its_effect(memory):
    _thread(memory, ("Ana", "Checkout broke because the deploy shipped a bad config."))
    assert _kinds(memory)["Checkout broke"] == "outcome"
    assert "The deploy shipped a bad config." in {
        s.decision for c in memory.trace_cause_chain("checkout broke").chains for s in c.steps
    }


@pytest.mark.parametrize(
    ("told", "effect"),
    [
        ("Kafka dropped messages because the disk filled up.", "Kafka dropped messages"),
        ("We dropped packets because the NIC was saturated.", "Ana and others dropped packets"),
        ("We dropped the ball because nobody owned the rollout.",
         "Ana and others dropped the ball"),
    ],
)  # fmt: skip
def test_dropping_that_is_no_choice_stays_an_outcome(memory, told, effect):
    _thread(memory, ("Ana", told))
    assert _kinds(memory)[effect] == "outcome"


# -- "as" after a choice --------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("told", "choice", "reason"),
    [
        ("We picked Redis as the team already knew it.",
         "Ana and others picked Redis", "The team already knew it."),
        ("We went with Go as it compiles fast.",
         "Ana and others went with Go", "It (Go) compiles fast."),
        ("We switched to Postgres as the team knows it well.",
         "Ana and others switched to Postgres", "The team knows it well."),
        ("We chose Kafka as the devs had run it before.",
         "Ana and others chose Kafka", "The devs had run it before."),
    ],
)  # fmt: skip
def test_a_choice_told_with_as_and_its_reason_is_a_decision_the_reason_led_to(
    memory, told, choice, reason
):
    _thread(memory, ("Ana", told))
    assert _kinds(memory)[choice] == "decision"
    why = memory.trace_cause_chain(choice).chains
    assert reason in {s.decision for c in why for s in c.steps}


@pytest.mark.parametrize(
    "told",
    [
        "We picked Redis, as we planned.",
        "We picked Redis as the devs planned.",
        "We picked Redis as it turned out.",
        "We chose Redis as we said before.",
        "We picked Redis as the cache.",
        "We picked Redis as soon as the budget was approved.",
        "We picked Redis as well as Postgres.",
        "We'll pick Redis as the team knows it.",
        "The cache kept Redis as the team knew it.",
    ],
)
def test_as_after_a_choice_that_tells_an_aside_a_role_or_a_time_gives_no_reason(memory, told):
    _thread(memory, ("Ana", told))
    assert not [e for e in memory.store.find_edges(limit=100) if e.relation == "caused"]


# -- a group choosing -----------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("told", "choice", "reason"),
    [
        ("The team picked Redis because the docs said it scales.",
         "The team picked Redis", "The docs said it scales."),
        ("The platform team moved to SQS because Kafka needed brokers.",
         "The platform team moved to SQS", "Kafka needed brokers."),
        ("Our team switched to GitHub Actions since Jenkins kept breaking.",
         "Ana and others' team switched to GitHub Actions", "Jenkins kept breaking."),
        ("The infra team migrated to Aurora because the disk kept filling.",
         "The infra team migrated to Aurora", "The disk kept filling."),
        ("Ops adopted PagerDuty because alerts kept getting lost.",
         "Ops adopted PagerDuty", "Alerts kept getting lost."),
        ("Management chose Datadog because the old dashboards were slow.",
         "Management chose Datadog", "The old dashboards were slow."),
        ("The company dropped Kafka because it needed too many brokers.",
         "The company dropped Kafka", "It (Kafka) needed too many brokers."),
    ],
)  # fmt: skip
def test_a_group_choosing_with_its_reason_is_a_decision_the_reason_led_to(
    memory, told, choice, reason
):
    _thread(memory, ("Ana", told))
    assert _kinds(memory)[choice] == "decision"
    why = memory.trace_cause_chain(choice).chains
    assert reason in {s.decision for c in why for s in c.steps}


def test_a_teams_choice_that_paid_off_is_the_option_to_prefer(memory):
    _thread(
        memory,
        ("Ana", "The platform team moved to SQS because Kafka needed brokers."),
        ("Ben", "That paid off: no more lost messages."),
    )
    (step,) = memory.trace_cause("no more lost messages").causes
    assert memory.get(step.lesson.decision_id).kind == "decision"
    assert step.lesson.decision == "The platform team moved to SQS"
    better = memory.counterfactual_query("move to SQS", "move to RabbitMQ")
    assert [n.kind for n in better.decision.matched] == ["decision"]
    assert better.preferred == "decision"


@pytest.mark.parametrize(
    ("told", "effect"),
    [
        ("The team was frustrated because the deploys kept failing.", "The team was frustrated"),
        ("The team grew because we hired.", "The team grew"),
        ("Ops was paged because the disk filled up.", "Ops was paged"),
    ],
)  # fmt: skip
def test_what_befell_a_group_for_a_reason_stays_its_effect(memory, told, effect):
    _thread(memory, ("Ana", told))
    assert _kinds(memory)[effect] == "outcome"


# -- what a group did, and what it led to ---------------------------------------------------------


@pytest.mark.parametrize(
    ("told", "action", "outcome"),
    [
        ("The platform team moved to SQS, which cut our costs.",
         "The platform team moved to SQS", "cut Ana and others' costs"),
        ("The team rolled back the deploy, which fixed checkout.",
         "The team rolled back the deploy", "fixed checkout"),
        ("Our team replaced Jenkins, which sped up builds.",
         "Ana and others' team replaced Jenkins", "sped up builds"),
    ],
)  # fmt: skip
def test_what_a_group_did_that_led_somewhere_is_its_decision_as_a_persons_is(
    memory, told, action, outcome
):
    _thread(memory, ("Ana", told))
    assert _kinds(memory)[action] == "decision"
    led_to = memory.trace_cause_chain(outcome).chains
    assert action in {s.decision for c in led_to for s in c.steps}


@pytest.mark.parametrize(
    ("told", "befell"),
    [
        ("The team was paged, which woke everyone.", "The team was paged"),
        ("The team got paged, which woke everyone.", "The team got paged"),
        ("The team grew, which slowed reviews.", "The team grew"),
        ("The team didn't migrate the database, which kept costs flat.",
         "The team didn't migrate the database"),
    ],
)  # fmt: skip
def test_what_befell_a_group_or_it_did_not_do_that_led_somewhere_is_no_decision(
    memory, told, befell
):
    _thread(memory, ("Ana", told))
    assert _kinds(memory)[befell] == "event"


# -- what befell a person, and what it led to -----------------------------------------------------


@pytest.mark.parametrize(
    ("speaker", "told", "befell"),
    [
        ("Ana", "Ben was paged, which woke everyone.", "Ben was paged"),
        ("Ben", "I was paged, which woke everyone.", "Ben was paged"),
        ("Ana", "Ben got sick, which delayed the release.", "Ben got sick"),
        ("Ana", "Ben had been paged twice, which woke everyone.", "Ben had been paged twice"),
        ("Ana", "Ben was frustrated, which slowed reviews.", "Ben was frustrated"),
        ("Ana", "Ben was on call, which meant nobody else slept.", "Ben was on call"),
        ("Ana", "Ben didn't migrate the database, which kept costs flat.",
         "Ben didn't migrate the database"),
    ],
)  # fmt: skip
def test_what_befell_a_person_or_they_did_not_do_that_led_somewhere_is_no_decision(
    memory, speaker, told, befell
):
    _thread(memory, ("Ben", "Morning all."), (speaker, told))
    assert _kinds(memory)[befell] == "event"


@pytest.mark.parametrize(
    ("told", "action", "outcome"),
    [
        ("Ben restarted the workers, which cleared the queue.",
         "Ben restarted the workers", "cleared the queue"),
        ("Ben moved to SQS, which cut our costs.", "Ben moved to SQS", "cut Ana and others' costs"),
        ("Ben fixed it, which unblocked the release.", "Ben fixed it", "unblocked the release"),
        ("Ben rolled back, which fixed checkout.", "Ben rolled back", "fixed checkout"),
        ("Ben had restarted the workers, which cleared the queue.",
         "Ben had restarted the workers", "cleared the queue"),
    ],
)  # fmt: skip
def test_what_a_person_did_that_led_somewhere_stays_their_decision(memory, told, action, outcome):
    _thread(memory, ("Ben", "Morning all."), ("Ana", told))
    assert _kinds(memory)[action] == "decision"
    led_to = memory.trace_cause_chain(outcome).chains
    assert action in {s.decision for c in led_to for s in c.steps}


@pytest.mark.parametrize(
    ("speaker", "told", "action", "outcome"),
    [
        ("Ana", "Ben got the release out, which unblocked QA.",
         "Ben got the release out", "unblocked QA"),
        ("Ben", "I got the release out, which unblocked QA.",
         "Ben got the release out", "unblocked QA"),
        ("Ana", "Ben got the fix merged, which unblocked QA.",
         "Ben got the fix merged", "unblocked QA"),
        ("Ana", "Ben got it working, which unblocked QA.", "Ben got it working", "unblocked QA"),
        ("Ana", "Ben got the hotfix deployed, which fixed checkout.",
         "Ben got the hotfix deployed", "fixed checkout"),
        ("Ben", "We got the migration done, which cut our costs.",
         "Ben and others got the migration done", "cut Ben and others' costs"),
    ],
)  # fmt: skip
def test_a_person_who_got_something_done_that_led_somewhere_made_that_decision(
    memory, speaker, told, action, outcome
):
    _thread(memory, ("Ben", "Morning all."), (speaker, told))
    assert _kinds(memory)[action] == "decision"
    led_to = memory.trace_cause_chain(outcome).chains
    assert action in {s.decision for c in led_to for s in c.steps}


@pytest.mark.parametrize(
    ("told", "befell"),
    [
        ("Ben got paged, which woke everyone.", "Ben got paged"),
        ("Ben got paged out of bed, which woke everyone.", "Ben got paged out of bed"),
        ("Ben got fired, which delayed the release.", "Ben got fired"),
        ("Ben got his laptop stolen, which delayed the release.",
         "Ben got his laptop stolen"),
    ],
)  # fmt: skip
def test_what_a_person_got_without_doing_it_stays_what_befell_them(memory, told, befell):
    _thread(memory, ("Ben", "Morning all."), ("Ana", told))
    assert _kinds(memory)[befell] == "event"


@pytest.mark.parametrize(
    ("told", "befell"),
    [
        ("Ben got sick, which delayed the release.", "Ben got sick"),
        ("Ben fell ill, which delayed the release.", "Ben fell ill"),
        ("Ben was paged, which woke everyone.", "Ben was paged"),
        ("Ben got paged, which woke everyone.", "Ben got paged"),
        ("Ben was on call, which meant nobody else slept.", "Ben was on call"),
    ],
)
def test_what_befell_someone_not_met_before_is_an_event_too(memory, told, befell):
    """Ben has neither spoken nor been named before: what befell him is still no decision."""
    _thread(memory, ("Ana", told))
    assert _kinds(memory)[befell] == "event"
    led_to = memory.trace_cause_chain(told.split(", which ")[1].rstrip(".")).chains
    assert befell in {s.decision for c in led_to for s in c.steps}


@pytest.mark.parametrize(
    ("told", "action"),
    [
        ("Ben restarted the workers, which cleared the queue.", "Ben restarted the workers"),
        ("Ben got the release out, which unblocked QA.", "Ben got the release out"),
        ("Ben rolled back, which fixed checkout.", "Ben rolled back"),
    ],
)
def test_what_someone_not_met_before_did_stays_their_decision(memory, told, action):
    _thread(memory, ("Ana", told))
    assert _kinds(memory)[action] == "decision"

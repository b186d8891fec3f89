"""A later definite description ("the outage", "that outage", "the incident") names the one
event of its kind told earlier that day, so what caused it joins that event's chain; another
kind of outage, a new outage on another day, or an outage that could be either of two stays
its own."""

from __future__ import annotations

import pytest

from ebbtide import sameness


def _thread(memory, date: str, *turns: tuple[str, str]) -> None:
    memory.remember(messages=[{"speaker": who, "text": text} for who, text in turns], date=date)


def _causes(memory, outcome: str) -> set[str]:
    chains = memory.trace_cause_chain(outcome).chains
    return {step.decision for chain in chains for step in chain.steps}


def _outages(memory) -> list[str]:
    return sorted(
        n.text
        for n in memory.store.find_nodes(limit=100)
        if any(w in n.text.casefold() for w in ("outage", "downtime", "disruption"))
    )


def test_the_outage_ben_explains_is_the_checkout_outage_dana_told(memory):
    _thread(
        memory, "2026-03-01",
        ("Dana", "The nightly backup job filled the disk, which caused the checkout outage."),
        ("Ben", "The outage happened because we had no disk usage alert."),
        ("Dana", "The checkout outage lasted two hours."),
    )  # fmt: skip
    causes = _causes(memory, "the checkout outage")
    assert "The nightly backup job filled the disk" in causes
    assert any("no disk usage alert" in c for c in causes)
    assert _outages(memory) == ["The checkout outage."]  # how long it lasted, told of it


def test_the_incident_is_the_one_thing_that_went_wrong_that_day(memory):
    _thread(
        memory, "2026-03-01",
        ("Dana", "The nightly backup job filled the disk, which caused the checkout outage."),
        ("Ben", "The incident happened because we had no disk usage alert."),
    )  # fmt: skip
    assert any("no disk usage alert" in c for c in _causes(memory, "the checkout outage"))


def test_the_checkout_outage_and_the_payments_outage_stay_two(memory):
    _thread(
        memory, "2026-03-01",
        ("Dana", "The backup job caused the checkout outage."),
        ("Ben", "A bad deploy caused the payments outage."),
        ("Ben", "The payments outage happened because we had no canary."),
    )  # fmt: skip
    assert _outages(memory) == ["The checkout outage.", "The payments outage."]
    assert _causes(memory, "the checkout outage") == {"The backup job"}
    payments = _causes(memory, "the payments outage")
    assert "A bad deploy" in payments
    assert any("no canary" in c for c in payments)


def test_the_outage_after_two_outages_names_neither(memory):
    _thread(
        memory, "2026-03-01",
        ("Dana", "The backup job caused the checkout outage."),
        ("Ben", "A bad deploy caused the payments outage."),
        ("Ben", "The outage happened because we had no disk usage alert."),
    )  # fmt: skip
    for told in ("the checkout outage", "the payments outage"):
        assert not any("alert" in c for c in _causes(memory, told)), told
    assert "The outage happened" in _outages(memory)


def test_the_outage_told_months_later_is_not_the_old_one(memory):
    _thread(
        memory, "2026-01-10",
        ("Dana", "The nightly backup job filled the disk, which caused the checkout outage."),
    )  # fmt: skip
    _thread(
        memory, "2026-03-01",
        ("Ben", "The outage happened because the TLS certificate expired."),
    )  # fmt: skip
    assert _causes(memory, "the checkout outage") == {"The nightly backup job filled the disk"}
    assert "The outage happened" in _outages(memory)


@pytest.mark.parametrize("noun", ["outage", "downtime"])
def test_the_outage_after_another_outage_today_is_todays_outage(memory, noun):
    _thread(
        memory, "2026-01-10",
        ("Dana", "The nightly backup job filled the disk, which caused the checkout outage."),
    )  # fmt: skip
    _thread(
        memory, "2026-03-01",
        ("Dana", "We had another outage today."),
        ("Ben", f"The {noun} happened because the TLS certificate expired."),
    )  # fmt: skip
    assert _causes(memory, "the checkout outage") == {"The nightly backup job filled the disk"}
    todays = _causes(memory, "another outage today")
    assert any("TLS certificate expired" in c for c in todays)
    assert f"The {noun} happened" not in _outages(memory)


@pytest.mark.parametrize(
    ("text", "described"),
    [
        ("The outage happened", "The outage"),
        ("That outage occurred yesterday.", "That outage"),
        ("The checkout outage started at 3 pm", "The checkout outage"),
        ("The outage.", "The outage"),
        ("The outage happened again", None),  # a recurrence is a new outage
        ("The outage took down checkout", None),  # tells more than that it came about
        ("Dana restarted the workers", None),
        ("The failed", None),
    ],
)
def test_a_definite_description_is_read_alone_or_told_as_having_come_about(text, described):
    assert sameness.description(text) == described


@pytest.mark.parametrize(
    ("described", "wording", "names"),
    [
        ("the outage", "The checkout outage.", True),
        ("the outage", "Dana and others had another outage today (1 March 2026).", True),
        ("the checkout outage", "The payments outage.", False),
        ("the outage", "We skipped the outage drill", False),
        ("the big outage", "The checkout outage.", True),  # "big" says what it was like
    ],
)
def test_a_description_names_an_event_by_its_head_noun_unless_a_qualifier_differs(
    described, wording, names
):
    assert sameness.names_again(described, wording) is names


# -- one failure by other names -------------------------------------------------------------------


@pytest.mark.parametrize("named", ["The downtime", "The disruption", "The outage"])
def test_the_downtime_told_later_that_day_is_the_checkout_outage(memory, named):
    _thread(memory, "2026-03-01", ("Dana", "The checkout outage started at 9."))
    _thread(memory, "2026-03-01", ("Ben", f"{named} was caused by a bad deploy."))
    assert "A bad deploy." in _causes(memory, "the checkout outage")


def test_the_downtime_after_two_outages_that_day_names_neither(memory):
    _thread(
        memory, "2026-03-01",
        ("Dana", "The backup job caused the checkout outage."),
        ("Ben", "A bad deploy caused the payments outage."),
    )  # fmt: skip
    _thread(memory, "2026-03-01", ("Ben", "The downtime was caused by an expired certificate."))
    for told in ("the checkout outage", "the payments outage"):
        assert not any("certificate" in c for c in _causes(memory, told)), told


def test_the_payments_downtime_is_not_the_checkout_outage(memory):
    _thread(memory, "2026-03-01", ("Dana", "The backup job caused the checkout outage."))
    _thread(memory, "2026-03-01", ("Ben", "The payments downtime was caused by a bad deploy."))
    assert _causes(memory, "the checkout outage") == {"The backup job"}


@pytest.mark.parametrize(
    ("described", "wording", "names"),
    [
        ("the downtime", "The checkout outage.", True),
        ("the disruption", "Dana and others had another outage today (1 March 2026).", True),
        ("the outage", "The checkout disruption.", True),
        ("the payments downtime", "The checkout outage.", False),
        ("the downtime", "We skipped the outage drill", False),
        ("the downtime", "The checkout incident.", False),
    ],
)
def test_an_outage_a_downtime_and_a_disruption_name_one_failure(described, wording, names):
    assert sameness.names_again(described, wording) is names


# -- a failure told with how long it lasted -------------------------------------------------------


def _prevented(memory) -> set[str]:
    nodes = {n.id: n.text for n in memory.store.find_nodes(limit=100)}
    return {nodes[e.dst] for e in memory.store.iter_edges() if e.relation == "prevented"}


@pytest.mark.parametrize(
    ("told", "later"),
    [
        ("The checkout outage lasted an hour.",
         "A disk usage alert would have prevented the outage."),
        ("The downtime lasted two hours.", "A disk usage alert would have prevented the outage."),
        ("Checkout was down from 9 to 11.",
         "A disk usage alert would have prevented the outage."),
        ("Checkout was down for 40 minutes.",
         "A disk usage alert would have prevented the downtime."),
        ("Checkout went down for 40 minutes.",
         "A disk usage alert would have prevented the outage."),
        ("Checkout went down from 9 to 11.",
         "A disk usage alert would have prevented the outage."),
        ("Checkout was offline for an hour.",
         "A disk usage alert would have prevented the outage."),
    ],
)  # fmt: skip
def test_a_failure_told_with_how_long_it_lasted_is_what_the_outage_later_names(memory, told, later):
    _thread(memory, "2026-03-01", ("Dana", told), ("Ben", later))
    assert _prevented(memory) == {told}
    assert "No disk usage alert" in _causes(memory, told.rstrip("."))
    answer = memory.intervention_query("add a disk usage alert")
    assert answer.verdict == "SAFE", answer.evidence
    assert any(c.node.text == told and c.activation < 0 for c in answer.consequences)


def test_the_outage_told_in_a_later_conversation_that_day_names_the_hour_long_outage(memory):
    _thread(memory, "2026-03-01", ("Dana", "The checkout outage lasted an hour."))
    _thread(memory, "2026-03-01", ("Ben", "The outage was caused by a bad config push."))
    assert "A bad config push." in _causes(memory, "the checkout outage")
    assert _outages(memory) == ["The checkout outage lasted an hour."]


@pytest.mark.parametrize(
    ("told", "kept", "kind"),
    [
        ("The meeting lasted an hour.", "The meeting lasted an hour.", "note"),
        ("I was down for a few days after the move.",
         "Dana was down for a few days after the move.", "fact"),
    ],
)  # fmt: skip
def test_what_lasted_that_is_no_failure_is_no_event(memory, told, kept, kind):
    _thread(memory, "2026-03-01", ("Dana", told))
    assert {n.text: n.kind for n in memory.store.find_nodes(limit=100)}[kept] == kind


@pytest.mark.parametrize(
    ("told", "came_about"),
    [
        ("The checkout outage lasted an hour.", True),
        ("The downtime lasted two hours.", True),
        ("The incident lasted all morning.", True),
        ("Checkout was down from 9 to 11.", True),
        ("Checkout was down for 40 minutes.", True),
        ("The meeting lasted an hour.", False),
        ("The outage lasted.", False),
        ("We were down 10 in the 4th.", False),
        ("I was down for a few days.", False),
        ("Checkout went down for 40 minutes.", True),
        ("The site was offline for an hour.", True),
        ("We went down 10 in the 4th.", False),
    ],
)
def test_a_failure_told_with_its_span_came_about(told, came_about):
    assert sameness.failure_came_about(told) is came_about

"""In a chat, the "it" of "It happened because …", "It started because …" or "It was caused
by …" is the event told just before, so the cause given joins that event's chain; an "it" with
no event before it (the first message, or small talk) is nothing to link a cause to."""

from __future__ import annotations

import pytest

from ebbtide import Memory


def _thread(memory: Memory, *turns: tuple[str, str]) -> None:
    memory.remember(
        messages=[{"speaker": who, "text": text} for who, text in turns], date="2026-03-01"
    )


def _causes(memory: Memory, outcome: str) -> set[str]:
    chains = memory.trace_cause_chain(outcome).chains
    return {step.decision for chain in chains for step in chain.steps}


def _causal_links(memory: Memory) -> list[tuple[str, str]]:
    nodes = {n.id: n.text for n in memory.store.find_nodes(limit=100)}
    return [
        (nodes[e.src], nodes[e.dst])
        for e in memory.store.iter_edges()
        if e.relation in ("caused", "enabled", "prevented")
    ]


@pytest.mark.parametrize(
    "why",
    [
        "It happened because we had no disk usage alert.",
        "It started because we had no disk usage alert.",
        "It all began because we had no disk usage alert.",
    ],
)
def test_it_happened_because_explains_the_outage_told_just_before(memory, why):
    _thread(memory, ("Dana", "The checkout outage lasted an hour."), ("Ben", why))
    causes = _causes(memory, "the checkout outage")
    assert any("no disk usage alert" in c.casefold() for c in causes), causes


def test_it_was_caused_by_names_the_cause_of_the_outage_told_just_before(memory):
    _thread(
        memory,
        ("Dana", "The checkout outage lasted an hour."),
        ("Ben", "It was caused by a bad config push."),
    )
    assert "A bad config push." in _causes(memory, "the checkout outage")


def test_the_same_teller_may_say_what_happened_and_then_why(memory):
    _thread(
        memory,
        ("Dana", "Checkout went down at noon. It happened because the disk filled up."),
    )
    assert "The disk filled up." in _causes(memory, "checkout went down")


@pytest.mark.parametrize(
    "before",
    [
        [],
        [("Dana", "Hi Ben, how was your weekend?")],
        [("Dana", "Good morning team.")],
        [("Dana", "Hope you had a nice weekend!")],
    ],
    ids=["first message", "a question", "a greeting", "a wish"],
)
def test_it_happened_with_no_event_before_it_links_nothing(memory, before):
    _thread(memory, *before, ("Ben", "It happened because we had no disk usage alert."))
    assert _causal_links(memory) == []


def test_it_happened_reaches_no_further_back_than_the_message_before(memory):
    _thread(
        memory,
        ("Dana", "The checkout outage lasted an hour."),
        ("Ben", "Good morning team."),
        ("Ben", "It happened because we had no disk usage alert."),
    )
    assert _causal_links(memory) == []

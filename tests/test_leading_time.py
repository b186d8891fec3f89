"""A time a sentence opens with ("Yesterday Ben and I fixed the build") is when it happened, not
part of who acted: the item keeps its time (with its date written after it) and reads as
someone doing something, and no item is made of the time and the people alone."""

from __future__ import annotations

import re

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from ebbtide import Memory, open_memory
from ebbtide.extract import actor

TOLD_ON = "2026-03-01"  # a Sunday

# (what the sentence opens with, how the stored item writes it)
LEADS = [
    ("Yesterday", "Yesterday (28 February 2026)"),
    ("Yesterday,", "Yesterday (28 February 2026),"),
    ("Last night", "Last night (28 February 2026)"),
    ("On Monday", "On Monday (23 February 2026)"),
    ("Earlier today", "Earlier today (1 March 2026)"),
    ("This morning", "This morning (1 March 2026)"),
    ("Two days ago", "Two days ago (27 February 2026)"),
    ("A few days ago", "A few days ago (around 26 February 2026)"),
    ("Last week", "Last week (the week of 16 February 2026)"),
    ("The other day", "The other day"),
    ("Recently", "Recently"),
    ("After lunch", "After lunch"),
    ("After Monday,", "After Monday (23 February 2026),"),
]


def told(memory: Memory, text: str) -> None:
    memory.remember(messages=[{"speaker": "Ana", "text": text}], date=TOLD_ON)


def items(memory: Memory) -> list[tuple[str, str]]:
    return [(n.kind, n.text) for n in memory.store.find_nodes(limit=100) if n.kind != "person"]


def people(memory: Memory) -> set[str]:
    return {n.text for n in memory.store.find_nodes(kind="person")}


def only_people(text: str, lead: str) -> bool:
    """The item says who, and when, but nothing they did."""
    rest = text.removeprefix(lead).strip(" ,.")
    return re.fullmatch(r"(?:[A-Z][a-z]+|and|others|\s)+", rest) is not None


@pytest.mark.parametrize(("lead", "written"), LEADS)
def test_a_colleague_and_i_fixed_the_build_at_a_time_is_a_decision_of_both_then(
    memory: Memory, lead, written
):
    told(memory, f"{lead} Ben and I fixed the build, which unblocked the release.")
    stored = items(memory)
    assert ("decision", f"{written} Ben and Ana fixed the build") in stored
    assert not [text for _, text in stored if only_people(text, written)]
    assert {"Ana", "Ben"} <= people(memory)
    chain = memory.trace_cause_chain("the release").chains
    assert [c.steps[0].decision for c in chain] == [f"{written} Ben and Ana fixed the build"]


@pytest.mark.parametrize(("lead", "written"), LEADS)
def test_we_fixed_the_build_at_a_time_is_the_speaker_and_others_acting(
    memory: Memory, lead, written
):
    told(memory, f"{lead} we fixed the build, which unblocked the release.")
    stored = items(memory)
    assert ("decision", f"{written} Ana and others fixed the build") in stored
    assert not [text for _, text in stored if only_people(text, written)]


@pytest.mark.parametrize(("lead", "written"), LEADS)
def test_a_colleague_helping_at_a_time_is_no_cause_of_their_own(memory: Memory, lead, written):
    told(memory, f"{lead} Ben helped me fix the build.")
    stored = items(memory)
    assert not [text for _, text in stored if only_people(text, written)]
    assert any(text.startswith(f"{written} Ben helped Ana fix the build") for _, text in stored)


@pytest.mark.parametrize(("lead", "written"), LEADS)
def test_someone_acting_at_a_time_is_as_much_a_decision_as_without_it(
    memory: Memory, lead, written
):
    told(memory, f"{lead} Ben restarted the workers, which cleared the queue.")
    assert ("decision", f"{written} Ben restarted the workers") in items(memory)


@pytest.mark.parametrize(("lead", "written"), LEADS)
def test_who_acted_is_read_past_the_time_the_description_opens_with(lead, written):
    assert actor(f"{written} Ben restarted the workers") == "Ben"


def test_a_verdict_on_something_done_at_a_time_judges_the_doing(memory: Memory):
    told(memory, "Yesterday adding an index paid off: the checkout query got fast.")
    assert ("decision", "Yesterday (28 February 2026) adding an index") in items(memory)


@pytest.mark.parametrize("name", ["Summer", "Autumn"])
def test_a_colleague_named_as_a_season_is_still_who_acted(memory: Memory, name):
    told(memory, f"{name} and I fixed the build, which unblocked the release.")
    assert ("decision", f"{name} and Ana fixed the build") in items(memory)
    assert {"Ana", name} <= people(memory)


def test_what_followed_a_time_is_told_in_order_with_no_item_for_the_time(memory: Memory):
    told(memory, "After the weekend, errors spiked.")
    assert items(memory) == [("note", "After the weekend, errors spiked.")]


@pytest.mark.parametrize(
    "said",
    [
        "After a week of retries, the queue drained.",
        "After a week of retries the queue drained.",
        "After two hours of debugging, Ben found the leak.",
        "After a couple of weeks of load tests, the release went out.",
    ],
)
def test_what_followed_a_span_of_time_is_told_in_order_with_no_item_for_the_span(
    memory: Memory, said
):
    told(memory, said)
    assert items(memory) == [("note", said)]


@pytest.mark.parametrize(
    "said",
    [
        "After a deploy, errors spiked.",
        "After the migration of the orders table, checkout broke.",
        "After work, the queue drained.",
    ],
)
def test_what_followed_something_no_cause_is_kept_whole_with_no_item_of_its_own(
    memory: Memory, said
):
    """What "after" opens is read as a cause or not before any item is made for it."""
    told(memory, said)
    assert items(memory) == [("note", said)]


def test_what_followed_a_thing_done_is_still_weakly_its_outcome(memory: Memory):
    told(memory, "After the deploy, errors spiked.")
    assert ("outcome", "Errors spiked.") in items(memory)
    assert [c.steps[0].decision for c in memory.trace_cause_chain("errors spiked").chains] == [
        "The deploy"
    ]


def test_a_thing_at_a_time_still_broke_what_it_broke(memory: Memory):
    """A time before a thing that did something leaves the thing the cause, with its time."""
    told(memory, "Yesterday the deploy broke checkout, so we rolled back.")
    stored = items(memory)
    assert ("event", "Yesterday (28 February 2026) the deploy") in stored
    assert ("outcome", "Ana and others rolled back.") in stored


# -- any time from the vocabulary timeparse reads ------------------------------------------

_TIMES = st.sampled_from(
    [
        "Yesterday", "Today", "Tonight", "Last night", "This morning", "This afternoon",
        "Earlier today", "Later that day", "On Monday", "On Friday", "Last Tuesday",
        "This past weekend", "Last week", "Last month", "Two days ago", "Three weeks ago",
        "A couple of days ago", "A few weeks ago", "About two weeks ago", "Recently", "Lately",
        "The other day", "A while ago", "A little while back", "In March", "Last spring",
        "In 2025", "On 3 February", "After lunch", "Since Monday", "Over the weekend",
    ]
)  # fmt: skip
_NAMES = st.sampled_from(["Ben", "Priya", "Tomas", "Kenji", "Lucia", "Omar"])
_DONE = st.sampled_from(
    [
        ("fixed", "the build"), ("broke", "the login page"), ("resolved", "the outage"),
        ("restarted", "the workers"), ("migrated", "the database"), ("rolled back", "the deploy"),
    ]
)  # fmt: skip


@settings(max_examples=60, deadline=None)
@given(_TIMES, st.booleans(), _NAMES, _DONE)
def test_any_leading_time_before_a_colleague_and_me_leaves_no_item_without_a_verb(
    lead, comma, name, done
):
    verb, what = done
    said = f"{lead}{',' if comma else ''} {name} and I {verb} {what}, which unblocked the release."
    memory = open_memory(":memory:", embeddings="none")
    try:
        told(memory, said)
        stored = items(memory)
        assert stored
        assert all(f"{verb} {what}" in text or "release" in text for _, text in stored), stored
        assert {"Ana", name} <= people(memory)
    finally:
        memory.close()

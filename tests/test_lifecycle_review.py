"""A person approves the deletions they were shown, and only those: what was queued after they
looked waits for the next look, and what was kept, used or asked for again meanwhile stays."""

from __future__ import annotations

import pytest

from ebbtide import open_memory
from ebbtide.errors import NotFound


@pytest.fixture
def memory(tmp_path, clock):
    with open_memory(tmp_path / "memory.db", clock=clock, embeddings="none") as mem:
        yield mem


def test_approving_what_was_shown_leaves_what_the_daily_maintain_queued_since(memory, clock):
    legacy = memory.remember("Legacy billing export format")
    wrong = memory.remember("The office moved to Porto")
    memory.forget(wrong.id, "never happened")
    shown = memory.review_queue().items
    clock.advance(days=200)  # the person is slow to decide; the daily run goes on
    memory.remember("busy note")
    assert memory.maintain().queued_for_review == [legacy.id]

    decisions = memory.approve_shown(shown)

    assert [(d.node_id, d.action) for d in decisions] == [(wrong.id, "approved")]
    assert [i.node.id for i in memory.review_queue().items] == [legacy.id]
    assert memory.get(legacy.id).status == "archived"


def test_an_approval_leaves_what_changed_since_it_was_shown_and_says_why(memory, clock):
    notes = {
        name: memory.remember(f"Runbook for the {name} cluster")
        for name in ("kept", "pinned", "told", "used", "asked", "unchanged")
    }
    for note in notes.values():
        memory.forget(note.id, "the cluster is gone")
    shown = memory.review_queue().items
    clock.advance(hours=1)
    memory.reject(notes["kept"].id)  # another person keeps it
    memory.pin(notes["pinned"].id)
    memory.remember("Runbook for the told cluster")  # an agent tells it again
    memory.reinforce(notes["used"].id)
    memory.pin(notes["asked"].id)
    memory.unpin(notes["asked"].id)
    clock.advance(hours=1)
    memory.forget(notes["asked"].id, "asked again, for another reason")

    decisions = {d.node_id: d for d in memory.approve_shown(shown)}

    said = {name: (decisions[n.id].action, decisions[n.id].reason) for name, n in notes.items()}
    assert said == {
        "kept": ("not_deleted", "no longer waiting for review"),
        "pinned": ("not_deleted", "no longer waiting for review"),
        "told": ("not_deleted", "no longer waiting for review"),
        "used": ("not_deleted", "used or changed since it was shown"),
        "asked": ("not_deleted", "asked for again since it was shown"),
        "unchanged": ("approved", None),
    }
    assert set(memory.store.get_nodes([n.id for n in notes.values()])) == {
        n.id for name, n in notes.items() if name != "unchanged"
    }
    # Still waiting, to be looked at again: the one used, and the one asked for again.
    assert {i.node.id for i in memory.review_queue().items} == {
        notes["used"].id,
        notes["asked"].id,
    }


def test_a_request_kept_by_a_person_cannot_then_be_approved_nor_kept_again(memory):
    note = memory.remember("Runbook for the old cluster")
    memory.forget(note.id, "the cluster is gone")
    memory.reject(note.id)
    with pytest.raises(NotFound, match="review item"):
        memory.approve(note.id)
    with pytest.raises(NotFound, match="review item"):
        memory.reject(note.id)
    assert memory.get(note.id).status == "active"


def test_what_an_agent_forgot_is_counted_as_hidden_until_a_person_decides(memory):
    kept, gone = memory.remember("On-call policy"), memory.remember("Old VPN steps")
    memory.forget(gone.id, "stale")
    stats = memory.stats()
    assert (stats.forgotten, stats.archived, stats.pending_review) == (1, 0, 1)
    memory.reject(gone.id)  # a person keeps it: shown again
    assert memory.stats().forgotten == 0
    memory.forget(kept.id, "duplicate")
    memory.approve(kept.id)  # a person deletes it: gone, not hidden
    assert (memory.stats().forgotten, memory.stats().nodes) == (0, 1)

"""The daily self-maintenance under a clock that jumps: forward (a laptop closed for weeks),
and back (a clock that ran ahead, set right by NTP)."""

from __future__ import annotations

from datetime import timedelta

import pytest

from ebbtide import open_memory


@pytest.fixture
def memory(tmp_path, clock):
    with open_memory(tmp_path / "memory.db", clock=clock, embeddings="none") as mem:
        yield mem


def test_maintenance_runs_after_a_laptop_was_closed_for_three_weeks(memory, clock):
    memory.remember("Kept alive by the clock")
    memory.maintain()
    clock.advance(days=21)
    memory.recall("alive")
    assert memory.stats().last_maintain == clock()


def test_daily_maintenance_goes_on_after_the_clock_is_set_back(memory, clock):
    memory.remember("Kept alive by the clock")
    clock.advance(days=365)  # a clock that ran a year ahead; the first recall maintains then
    memory.recall("alive")
    clock.advance(days=-365)  # set right
    clock.advance(days=2)
    memory.recall("alive")
    assert memory.stats().last_maintain == clock()
    clock.advance(days=2)
    memory.recall("alive")
    assert memory.stats().last_maintain == clock()


def test_replicas_whose_clocks_disagree_by_seconds_do_not_maintain_again(memory, clock):
    memory.remember("Kept alive by the clock")
    memory.recall("alive")
    ran = clock()
    clock.advance(seconds=-30)  # another replica, its clock 30 s behind, or an NTP step
    memory.recall("alive")
    assert memory.stats().last_maintain == ran  # not run again
    clock.advance(hours=1)
    memory.recall("alive")
    assert memory.stats().last_maintain == ran


def test_a_clock_set_back_by_more_than_minutes_maintains_once(memory, clock):
    memory.remember("Kept alive by the clock")
    memory.recall("alive")
    clock.advance(hours=-2)
    memory.recall("alive")
    assert memory.stats().last_maintain == clock()
    clock.advance(hours=1)
    memory.recall("alive")
    assert memory.stats().last_maintain == clock() - timedelta(hours=1)


def test_knowledge_used_while_the_clock_ran_ahead_fades_from_when_it_was_set_right(memory, clock):
    """A clock that ran a year ahead for a while left future times on what was used then: it
    counts as used when the clock was set right, and fades from there like anything else,
    instead of staying hot until the clock caught up with the wrong time."""
    before = memory.remember("Written before the clock ran ahead")
    clock.advance(days=366)  # a day later, the clock jumps a year ahead
    ahead = memory.remember("Written while the clock ran ahead")
    memory.reinforce(before.id)
    link = memory.connect(ahead.id, before.id, "related")
    clock.advance(days=-365)  # set right
    set_right = clock()
    memory.maintain()
    assert memory.get(ahead.id).created_at == memory.get(ahead.id).updated_at == set_right
    assert memory.get(before.id).last_read_at == set_right
    assert memory.get(before.id).created_at == set_right - timedelta(days=1)  # was right
    assert memory.store.get_edges([link.id])[link.id].last_reinforced_at == set_right

    clock.advance(days=200)
    memory.remember("busy note")
    report = memory.maintain()
    assert set(report.archived) == set(report.queued_for_review) == {before.id, ahead.id}
    assert {i.reason for i in memory.review_queue().items} == {"frozen: unused for 200 days"}


def test_times_a_replica_wrote_seconds_ahead_stand(memory, clock):
    clock.advance(seconds=30)  # another replica, its clock 30 s ahead
    note = memory.remember("Written by a replica")
    clock.advance(seconds=-30)
    memory.maintain()
    assert memory.get(note.id).created_at == clock() + timedelta(seconds=30)

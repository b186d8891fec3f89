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

from __future__ import annotations

import pytest

from ebbtide import ManualClock, Memory, open_memory


@pytest.fixture
def clock() -> ManualClock:
    return ManualClock("2026-03-02T09:00:00+00:00")


@pytest.fixture
def memory(tmp_path, clock) -> Memory:
    mem = open_memory(tmp_path / "memory.db", clock=clock)
    yield mem
    mem.close()

"""Clocks. Behaviour reads time only through an injected clock, so demos and tests are exact."""

from __future__ import annotations

from collections.abc import Callable
from datetime import UTC, datetime, timedelta

Clock = Callable[[], datetime]


def system_clock() -> datetime:
    """Now, in this machine's offset (TZ): what is told without a time is dated on the user's
    calendar, so "yesterday" at 22:30 in New York is the 30th there, not the 1st in UTC."""
    return datetime.now(UTC).astimezone()


class ManualClock:
    """A clock that moves only when told to."""

    def __init__(self, start: datetime | str = "2026-01-05T09:00:00+00:00") -> None:
        self._now = to_datetime(start)

    def __call__(self) -> datetime:
        return self._now

    def set(self, when: datetime | str) -> None:
        self._now = to_datetime(when)

    def advance(self, *, days: float = 0.0, hours: float = 0.0, seconds: float = 0.0) -> datetime:
        self._now += timedelta(days=days, hours=hours, seconds=seconds)
        return self._now


def to_datetime(value: datetime | str | float) -> datetime:
    """Accept aware datetimes, ISO strings and epoch seconds; naive values are taken as UTC."""
    if isinstance(value, (int, float)):
        return datetime.fromtimestamp(float(value), UTC)
    if isinstance(value, str):
        value = datetime.fromisoformat(value.replace("Z", "+00:00"))
    return value if value.tzinfo else value.replace(tzinfo=UTC)


def ts(value: datetime) -> float:
    return value.timestamp()


def from_ts(value: float | None) -> datetime | None:
    return None if value is None else datetime.fromtimestamp(value, UTC)

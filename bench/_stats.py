"""Percentiles and tables shared by the benchmarks."""

from __future__ import annotations

import statistics
import time
from collections.abc import Callable, Sequence

from ebbtide.plaintable import table

__all__ = ["pct", "summary_ms", "table", "timed"]


def pct(samples: Sequence[float], q: float) -> float:
    if not samples:
        return float("nan")
    s = sorted(samples)
    i = min(len(s) - 1, max(0, round(q / 100 * (len(s) - 1))))
    return s[i]


def summary_ms(samples_s: Sequence[float]) -> dict[str, float]:
    ms = [x * 1000 for x in samples_s]
    return {
        "p50_ms": round(pct(ms, 50), 3),
        "p95_ms": round(pct(ms, 95), 3),
        "mean_ms": round(statistics.fmean(ms), 3) if ms else float("nan"),
        "n": len(ms),
    }


def timed(fn: Callable[[int], object], n: int) -> list[float]:
    """Seconds each of `fn(0)` … `fn(n - 1)` took."""
    out = []
    for i in range(n):
        t = time.perf_counter()
        fn(i)
        out.append(time.perf_counter() - t)
    return out

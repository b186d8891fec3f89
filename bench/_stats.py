"""Percentiles and tables shared by the benchmarks."""

from __future__ import annotations

import statistics
from collections.abc import Sequence


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


def table(rows: list[dict], columns: Sequence[str]) -> str:
    widths = {c: max(len(c), *(len(_fmt(r.get(c))) for r in rows)) for c in columns}
    line = "  ".join(c.ljust(widths[c]) for c in columns)
    out = [line, "  ".join("-" * widths[c] for c in columns)]
    for r in rows:
        out.append("  ".join(_fmt(r.get(c)).rjust(widths[c]) for c in columns))
    return "\n".join(out)


def _fmt(v: object) -> str:
    if v is None:
        return "-"
    if isinstance(v, float):
        return f"{v:.3f}" if abs(v) < 100 else f"{v:.1f}"
    return str(v)

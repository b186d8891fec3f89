"""Plain-text tables for benchmark output: fixed-width columns, comparable run to run."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any


def table(rows: Sequence[Mapping[str, Any]], columns: Sequence[str]) -> str:
    """Headers left-aligned, values right-aligned, `-` for a missing value."""
    widths = {c: max([len(c), *(len(_fmt(r.get(c))) for r in rows)]) for c in columns}
    out = ["  ".join(c.ljust(widths[c]) for c in columns).rstrip()]
    out.append("  ".join("-" * widths[c] for c in columns))
    out.extend("  ".join(_fmt(r.get(c)).rjust(widths[c]) for c in columns) for r in rows)
    return "\n".join(out)


def _fmt(v: object) -> str:
    if v is None:
        return "-"
    if isinstance(v, float):
        return f"{v:.3f}" if abs(v) < 100 else f"{v:.1f}"
    return str(v)

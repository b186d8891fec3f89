"""Storage backends behind one protocol, chosen by URL."""

from __future__ import annotations

from ..config import Config
from ..errors import ValidationError
from .base import EdgeRow, GraphArrays, NodeBrief, PendingReview, SearchFilter, Store
from .sqlite import SQLiteStore

__all__ = [
    "EdgeRow",
    "GraphArrays",
    "NodeBrief",
    "PendingReview",
    "SQLiteStore",
    "SearchFilter",
    "Store",
    "open_store",
]


def open_store(url: str, config: Config | None = None) -> Store:
    """Open a store by URL.

    SQLite, as in SQLAlchemy: `sqlite:///relative.db`, `sqlite:////absolute.db`,
    `sqlite:///:memory:`, or a bare path / `:memory:`.
    """
    config = config or Config()
    if url.startswith("sqlite://"):
        path = url.removeprefix("sqlite://").removeprefix("/") or ":memory:"
    elif "://" in url:
        scheme = url.split("://", 1)[0]
        raise ValidationError("store", f"unknown store scheme {scheme!r}; use sqlite:// or a path")
    else:
        path = url
    return SQLiteStore(
        path, synchronous=config.sqlite_synchronous, busy_timeout_ms=config.busy_timeout_ms
    )

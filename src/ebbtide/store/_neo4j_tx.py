"""Transactions against Neo4j that survive transient errors: retried reads, replayed writes."""

from __future__ import annotations

import random
import time
from contextlib import suppress
from typing import TYPE_CHECKING, Any

from ..errors import StoreUnavailable
from ._memindex import MemoryIndex

if TYPE_CHECKING:
    from .neo4j import Neo4jStore

try:
    import neo4j
    from neo4j.exceptions import DriverError, Neo4jError
except ImportError:  # pragma: no cover - exercised only without the extra
    neo4j = None  # type: ignore[assignment]


def retryable(exc: BaseException) -> bool:
    return isinstance(exc, Neo4jError | DriverError) and exc.is_retryable()


def values(result: Any) -> list[list[Any]]:
    return [r.values() for r in result]


class ReplayMismatch(StoreUnavailable):
    """A transaction hit a transient error and could not be replayed: data it had read changed
    in the meantime. Nothing was written; the operation can be retried."""


class Tx:
    """One explicit write transaction, opened at its first query, replayable after a transient
    error: the log holds every query with what it returned."""

    def __init__(self, store: Neo4jStore) -> None:
        self.store = store
        self.log: list[tuple[str, dict[str, Any], list[list[Any]]]] = []
        self.session: Any = None
        self.tx: Any = None
        # Inserts wait here and go out as one query before the next query or the commit.
        self.pending: list[tuple[str, list[dict[str, Any]]]] = []
        # Nodes this transaction created, and the edges it made: no other transaction can
        # link a node it cannot see yet, so an edge touching one is known here without asking.
        self.created_nodes: set[str] = set()
        self.created_edges: dict[tuple[str, str, str], Any] = {}
        # The nodes it wrote, searched by words here, not by Neo4j inside it (which rebuilds an
        # index of all it wrote for every such query); None once it wrote nodes in a way this
        # does not follow, when its searches go to Neo4j again. `fresh`: the nodes it created;
        # `stale`: those it changed or deleted that the committed full-text index holds.
        self.overlay: MemoryIndex | None = MemoryIndex()
        self.fresh: set[str] = set()
        self.stale: set[str] = set()

    def wrote(self, props: dict[str, Any], text: str, *, created: bool) -> None:
        """A node this transaction created or changed, as `node_props` gives it with its seq."""
        if self.overlay is None:
            return
        ident = props["id"]
        if created:
            self.fresh.add(ident)
        elif ident not in self.fresh:
            self.stale.add(ident)
        self.overlay.put_node(props, text)

    def deleted(self, ident: str) -> None:
        if self.overlay is None:
            return
        if ident not in self.fresh:
            self.stale.add(ident)
        self.overlay.drop_node(ident)

    def overlaid(self) -> bool:
        """Whether its searches go to the committed index and the overlay: it wrote nodes, all
        of them followed."""
        return self.overlay is not None and bool(self.fresh or self.stale)

    def _open(self) -> None:
        self.session = self.store._new_session(write=True)
        self.tx = self.session.begin_transaction()

    def _close(self) -> None:
        if self.session is not None:
            with suppress(Exception):
                self.session.close()
        self.session = self.tx = None

    def run(self, cypher: str, params: dict[str, Any]) -> list[list[Any]]:
        while True:
            try:
                if self.tx is None:
                    self._open()
                rows = values(self.tx.run(cypher, params))
            except Exception as exc:
                if not retryable(exc):
                    raise self.store._translate(exc) from exc
                self._recover(exc)
                continue
            self.log.append((cypher, params, rows))
            return rows

    def _recover(self, cause: BaseException) -> None:
        deadline = time.monotonic() + self.store.retry_seconds
        delay = 0.05
        while True:
            self._close()
            if time.monotonic() > deadline:
                raise self.store._translate(cause) from cause
            time.sleep(delay * (0.5 + random.random()))
            delay = min(delay * 2, 1.0)
            try:
                self._open()
                self.store.replays += 1
                for cypher, params, rows in self.log:
                    self.store.round_trips += 1
                    if values(self.tx.run(cypher, params)) != rows:
                        self._close()
                        raise ReplayMismatch(
                            "a concurrent write changed what this transaction read; retry"
                        ) from cause
                return
            except ReplayMismatch:
                raise
            except Exception as exc:
                if not retryable(exc):
                    self._close()
                    raise self.store._translate(exc) from exc
                cause = exc

    def commit(self) -> None:
        self.store._flush(self)
        if self.tx is None:
            return
        while True:
            try:
                self.store.round_trips += 1
                self.tx.commit()
                break
            except Exception as exc:
                # A lost connection during commit is ambiguous: never replay that.
                if not (retryable(exc) and isinstance(exc, neo4j.exceptions.TransientError)):
                    self._close()
                    raise self.store._translate(exc) from exc
                self._recover(exc)
        self._close()

    def rollback(self) -> None:
        if self.tx is not None:
            with suppress(Exception):
                self.tx.rollback()
        self._close()

"""The embedded default: one SQLite file (WAL, FTS5), safe for several processes at once."""

from __future__ import annotations

import json
import sqlite3
import threading
from collections.abc import Iterable, Iterator, Mapping, Sequence
from contextlib import contextmanager, suppress
from datetime import date
from pathlib import Path
from typing import Any

import numpy as np

from ..clock import from_ts
from ..errors import EmbeddingUnavailable, StoreUnavailable
from ..model import Edge, Node
from ..text import fts_query, query_terms
from ._nodecache import NodeCache
from .base import (
    BOOKKEEPING_KINDS,
    COMMON_DF,
    DAY_SECONDS,
    META_VECTORS_DROPPED,
    NAMING_KINDS,
    TALLIES,
    AuditEntry,
    Direction,
    EdgeRow,
    GraphArrays,
    Matches,
    NestedTransactions,
    NodeBrief,
    PendingReview,
    SearchFilter,
    check_tallied,
    date_columns,
    graph_arrays_from_rows,
    matches_only,
    named_ids,
    statuses_now,
    window,
    window_conditions,
    wrong_size,
)

SCHEMA_VERSION = "1"
# The rule `item_dates` computes node_times by: "2", a time covers its calendar day; "3", each
# span also on its own calendar (the local columns) and a said time is an instant.
TIMES_VERSION = "3"
# The columns of node_times after its rowid, as `date_columns` names them.
_TIMES = tuple(
    f"{what}_{end}"
    for what in ("told", "said", "told_local", "said_local")
    for end in ("from", "to")
)
# The rule `named_ids` computes node_names by; a store without it is filled in on opening.
NAMES_VERSION = "1"
# The rule `tally_value` counts node_tally by (its triggers, `_TALLY_TRIGGERS`); a store
# without it, or counted by another rule, is recounted on opening.
TALLY_VERSION = "1"

SCHEMA = """
CREATE TABLE IF NOT EXISTS nodes (
    rowid INTEGER PRIMARY KEY,
    id TEXT NOT NULL UNIQUE,
    kind TEXT NOT NULL,
    text TEXT NOT NULL,
    attributes TEXT NOT NULL DEFAULT '{}',
    scope TEXT NOT NULL DEFAULT 'default',
    task_tag TEXT,
    created_at REAL NOT NULL,
    updated_at REAL NOT NULL,
    last_read_at REAL,
    read_count INTEGER NOT NULL DEFAULT 0,
    pinned INTEGER NOT NULL DEFAULT 0,
    tier TEXT NOT NULL DEFAULT 'hot',
    status TEXT NOT NULL DEFAULT 'active',
    activation REAL NOT NULL DEFAULT 0,
    q_value REAL,
    polarity REAL,
    valid_from REAL,
    valid_to REAL,
    superseded_by TEXT,
    sources TEXT NOT NULL DEFAULT '[]',
    provenance TEXT
);
CREATE INDEX IF NOT EXISTS nodes_kind ON nodes(kind, scope);
CREATE INDEX IF NOT EXISTS nodes_text ON nodes(text, kind, scope);
CREATE VIRTUAL TABLE IF NOT EXISTS nodes_fts USING fts5(
    text, content='nodes', content_rowid='rowid', tokenize='porter unicode61'
);
CREATE TRIGGER IF NOT EXISTS nodes_ai AFTER INSERT ON nodes BEGIN
    INSERT INTO nodes_fts(rowid, text) VALUES (new.rowid, new.text);
END;
CREATE TRIGGER IF NOT EXISTS nodes_ad AFTER DELETE ON nodes BEGIN
    INSERT INTO nodes_fts(nodes_fts, rowid, text) VALUES ('delete', old.rowid, old.text);
END;
CREATE TRIGGER IF NOT EXISTS nodes_au AFTER UPDATE OF text ON nodes BEGIN
    INSERT INTO nodes_fts(nodes_fts, rowid, text) VALUES ('delete', old.rowid, old.text);
    INSERT INTO nodes_fts(rowid, text) VALUES (new.rowid, new.text);
END;
-- The spans a dated node tells of and was said in (store.base.item_dates), as numbers, so a
-- time window is an indexed range read instead of parsing every node's JSON. Stores made
-- before the local columns are given them on open (`_backfill_times`).
CREATE TABLE IF NOT EXISTS node_times (
    rowid INTEGER PRIMARY KEY,
    told_from REAL,
    told_to REAL,
    said_from REAL,
    said_to REAL,
    told_local_from REAL,
    told_local_to REAL,
    said_local_from REAL,
    said_local_to REAL
);
CREATE INDEX IF NOT EXISTS node_times_told ON node_times(told_from);
CREATE INDEX IF NOT EXISTS node_times_said ON node_times(said_from);
CREATE TRIGGER IF NOT EXISTS nodes_times_ad AFTER DELETE ON nodes BEGIN
    DELETE FROM node_times WHERE rowid = old.rowid;
END;
-- The ids a node names in its attributes (store.base.named_ids: the decisions and lessons of
-- a prediction), so the nodes naming an id are an indexed read instead of parsing every node.
CREATE TABLE IF NOT EXISTS node_names (
    node INTEGER NOT NULL,
    name TEXT NOT NULL,
    PRIMARY KEY (node, name)
) WITHOUT ROWID;
CREATE INDEX IF NOT EXISTS node_names_name ON node_names(name);
CREATE TRIGGER IF NOT EXISTS nodes_names_ad AFTER DELETE ON nodes BEGIN
    DELETE FROM node_names WHERE node = old.rowid;
END;
-- How many nodes of each kind in store.base.TALLIES hold each `tally_value` (a prediction's
-- status), kept by triggers in the transaction of every insert, update and deletion.
CREATE TABLE IF NOT EXISTS node_tally (
    kind TEXT NOT NULL,
    value TEXT NOT NULL,
    n INTEGER NOT NULL,
    PRIMARY KEY (kind, value)
) WITHOUT ROWID;
CREATE TABLE IF NOT EXISTS edges (
    rowid INTEGER PRIMARY KEY,
    id TEXT NOT NULL UNIQUE,
    src TEXT NOT NULL REFERENCES nodes(id),
    dst TEXT NOT NULL REFERENCES nodes(id),
    relation TEXT NOT NULL,
    weight REAL NOT NULL,
    created_at REAL NOT NULL,
    last_reinforced_at REAL NOT NULL,
    reinforce_count INTEGER NOT NULL DEFAULT 0,
    access_count INTEGER NOT NULL DEFAULT 0,
    valid_from REAL,
    valid_to REAL,
    task_tag TEXT,
    context TEXT,
    confidence_source TEXT,
    provenance TEXT,
    UNIQUE (src, dst, relation)
);
CREATE INDEX IF NOT EXISTS edges_dst ON edges(dst);
CREATE TABLE IF NOT EXISTS review (
    node_id TEXT PRIMARY KEY,
    reason TEXT NOT NULL,
    requested_at REAL NOT NULL,
    requested_by TEXT NOT NULL
);
CREATE TABLE IF NOT EXISTS review_cooldown (
    node_id TEXT PRIMARY KEY,
    until REAL NOT NULL
);
CREATE TABLE IF NOT EXISTS vectors (
    seq INTEGER PRIMARY KEY,
    node_id TEXT NOT NULL REFERENCES nodes(id) ON DELETE CASCADE,
    model TEXT NOT NULL,
    vec BLOB NOT NULL,
    UNIQUE (node_id, model)
);
CREATE INDEX IF NOT EXISTS vectors_model ON vectors(model, seq);
CREATE TABLE IF NOT EXISTS meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS audit (
    seq INTEGER PRIMARY KEY,
    at REAL NOT NULL,
    kind TEXT NOT NULL,
    payload TEXT NOT NULL
);
"""

NODE_COLUMNS = (
    "id",
    "kind",
    "text",
    "attributes",
    "scope",
    "task_tag",
    "created_at",
    "updated_at",
    "last_read_at",
    "read_count",
    "pinned",
    "tier",
    "status",
    "activation",
    "q_value",
    "polarity",
    "valid_from",
    "valid_to",
    "superseded_by",
    "sources",
    "provenance",
)
EDGE_COLUMNS = (
    "id",
    "src",
    "dst",
    "relation",
    "weight",
    "created_at",
    "last_reinforced_at",
    "reinforce_count",
    "access_count",
    "valid_from",
    "valid_to",
    "task_tag",
    "context",
    "confidence_source",
    "provenance",
)
_NODE_TIMES = ("created_at", "updated_at", "last_read_at", "valid_from", "valid_to")
_EDGE_TIMES = ("created_at", "last_reinforced_at", "valid_from", "valid_to")
_NODE_SELECT = "SELECT " + ", ".join(NODE_COLUMNS) + " FROM nodes"
_ATTRIBUTES = NODE_COLUMNS.index("attributes")
_CREATED = NODE_COLUMNS.index("created_at")
_NODE_INSERT = (
    f"INSERT INTO nodes({', '.join(NODE_COLUMNS)}) VALUES ({','.join('?' * len(NODE_COLUMNS))})"
)
_EDGE_INSERT = (
    f"INSERT INTO edges({', '.join(EDGE_COLUMNS)}) VALUES ({','.join('?' * len(EDGE_COLUMNS))})"
)
_EDGE_SELECT = "SELECT " + ", ".join(EDGE_COLUMNS) + " FROM edges"
# A node `n` without a vector of the model (?), of no bookkeeping kind (the ?s after it).
_OWED_A_VECTOR = (
    "NOT EXISTS (SELECT 1 FROM vectors v WHERE v.node_id = n.id AND v.model = ?) "
    f"AND n.kind NOT IN ({','.join('?' * len(BOOKKEEPING_KINDS))})"
)
# Made after node_times has its local columns (`_backfill_times` adds them to older stores).
_LOCAL_TIME_INDEXES = """
CREATE INDEX IF NOT EXISTS node_times_told_local ON node_times(told_local_from);
CREATE INDEX IF NOT EXISTS node_times_said_local ON node_times(said_local_from);
"""


def _tally_sql(row: str) -> str:
    """`base.tally_value` of the nodes row `row` (new, old, nodes) in SQL: NULL for a kind not
    counted."""
    cases = " ".join(
        f"WHEN '{kind}' THEN CASE json_type({row}.attributes, '$.{key}') "
        f"WHEN 'text' THEN json_extract({row}.attributes, '$.{key}') ELSE '' END"
        for kind, key in TALLIES.items()
    )
    return f"CASE {row}.kind {cases} END"


_TALLIED = ", ".join(f"'{kind}'" for kind in TALLIES)
_COUNT_NEW = (
    f"INSERT INTO node_tally(kind, value, n) SELECT new.kind, {_tally_sql('new')}, 1 "
    f"WHERE new.kind IN ({_TALLIED}) ON CONFLICT (kind, value) DO UPDATE SET n = n + 1;"
)
_UNCOUNT_OLD = (
    f"UPDATE node_tally SET n = n - 1 WHERE old.kind IN ({_TALLIED}) "
    f"AND kind = old.kind AND value = {_tally_sql('old')};"
)
# The newest of a kind are read from the end of its nodes_made_ index; one partial index per
# kind: over every kind, the planner would read it for any kind's `find_nodes` (to skip a
# sort) instead of the exact-text index.
_TALLY_SCHEMA = (
    "".join(
        f"CREATE INDEX nodes_made_{kind} ON nodes(kind, created_at) WHERE kind = '{kind}';\n"
        for kind in TALLIES
    )
    + f"""
CREATE TRIGGER nodes_tally_ai AFTER INSERT ON nodes WHEN new.kind IN ({_TALLIED}) BEGIN
    {_COUNT_NEW}
END;
CREATE TRIGGER nodes_tally_ad AFTER DELETE ON nodes WHEN old.kind IN ({_TALLIED}) BEGIN
    {_UNCOUNT_OLD}
END;
CREATE TRIGGER nodes_tally_au AFTER UPDATE OF kind, attributes ON nodes
WHEN (old.kind IN ({_TALLIED}) OR new.kind IN ({_TALLIED}))
    AND (old.kind IS NOT new.kind OR {_tally_sql("old")} IS NOT {_tally_sql("new")}) BEGIN
    {_UNCOUNT_OLD}
    {_COUNT_NEW}
END;
"""
)
_TALLY_TRIGGERS = ("nodes_tally_ai", "nodes_tally_ad", "nodes_tally_au")
# SQLite caps host parameters per statement; chunk IN (...) lists below it.
_CHUNK = 900
# Vectors read into memory per query while a model's matrix is being filled.
VECTOR_READ = 10_000


def _ts(value: Any) -> float | None:
    return None if value is None else value.timestamp()


def node_to_row(node: Node) -> tuple[Any, ...]:
    d = node.__dict__
    out = []
    for col in NODE_COLUMNS:
        v = d[col]
        if col in _NODE_TIMES:
            v = _ts(v)
        elif col in ("attributes", "sources"):
            v = json.dumps(v, sort_keys=True)
        elif col == "pinned":
            v = int(v)
        out.append(v)
    return tuple(out)


def row_to_node(row: Sequence[Any]) -> Node:
    d = dict(zip(NODE_COLUMNS, row, strict=True))
    for col in _NODE_TIMES:
        d[col] = from_ts(d[col])
    d["attributes"] = json.loads(d["attributes"])
    d["sources"] = json.loads(d["sources"])
    d["pinned"] = bool(d["pinned"])
    return Node.from_row(d)


def edge_to_row(edge: Edge) -> tuple[Any, ...]:
    d = edge.__dict__
    return tuple(_ts(d[c]) if c in _EDGE_TIMES else d[c] for c in EDGE_COLUMNS)


def row_to_edge(row: Sequence[Any]) -> Edge:
    d = dict(zip(EDGE_COLUMNS, row, strict=True))
    for col in _EDGE_TIMES:
        d[col] = from_ts(d[col])
    return Edge.from_row(d)


def _chunks(items: Sequence[str]) -> Iterator[Sequence[str]]:
    for i in range(0, len(items), _CHUNK):
        yield items[i : i + _CHUNK]


def _marks(n: int) -> str:
    return ",".join("?" * n)


class SQLiteStore:
    """One connection per store object, serialised by a lock; processes coordinate via SQLite.

    Writes take the database write lock up front (BEGIN IMMEDIATE) and wait up to the busy
    timeout for it, so concurrent writers queue instead of failing.

    Nodes read by id are kept in memory (a recall reads about ninety, and decoding them was a
    third of its time). The cache is emptied whenever `PRAGMA data_version` says another
    connection, in any process, has committed; this connection's own writes drop the nodes
    they change. Inside a transaction it is neither read nor filled, so a rollback cannot
    leave uncommitted nodes in it.
    """

    def __init__(self, path: str, *, synchronous: str = "FULL", busy_timeout_ms: int = 30_000):
        self.path = path
        self.url = "sqlite:///" + path if path != ":memory:" else "sqlite://:memory:"
        if path != ":memory:":
            if Path(path).expanduser().is_dir():  # SQLite would only say "unable to open"
                raise StoreUnavailable(
                    f"cannot open SQLite store at {path}: it is a folder; name a file in it"
                )
            Path(path).expanduser().parent.mkdir(parents=True, exist_ok=True)
        try:
            self._db = sqlite3.connect(
                path, isolation_level=None, check_same_thread=False, timeout=busy_timeout_ms / 1000
            )
        except sqlite3.Error as exc:
            raise StoreUnavailable(f"cannot open SQLite store at {path}: {exc}") from exc
        self._lock = threading.RLock()
        self._transactions = NestedTransactions(self._lock)
        self._vectors = _VectorCache()
        self._nodes = NodeCache()
        self._data_version: int | None = None
        self._df_cache: dict[str, int] = {}
        self._df_size = 0
        self._synchronous = synchronous
        try:
            self._prepare(busy_timeout_ms)
        except StoreUnavailable:
            self._db.close()
            raise
        except sqlite3.DatabaseError as exc:
            self._db.close()
            what = _damage(exc)
            if what is None:
                raise
            raise StoreUnavailable(f"cannot open SQLite store at {path}: {what} ({exc})") from exc

    def _prepare(self, busy_timeout_ms: int) -> None:
        """Set the connection up and bring the schema up to date."""
        self._db.execute(f"PRAGMA busy_timeout = {int(busy_timeout_ms)}")
        if self.path != ":memory:":
            self._db.execute("PRAGMA journal_mode = WAL")
        self._db.execute(f"PRAGMA synchronous = {self._synchronous}")
        self._db.execute("PRAGMA foreign_keys = ON")
        with self.transaction():
            # executescript() would commit mid-transaction; run statements one by one.
            for stmt in _split_script(SCHEMA):
                self._db.execute(stmt)
            self._db.execute(
                "INSERT OR IGNORE INTO meta(key, value) VALUES ('schema_version', ?)",
                (SCHEMA_VERSION,),
            )
            done = self._db.execute("SELECT value FROM meta WHERE key = 'node_times'").fetchone()
            if done is None or done[0] != TIMES_VERSION:
                self._backfill_times()
            for stmt in _split_script(_LOCAL_TIME_INDEXES):
                self._db.execute(stmt)
            done = self._db.execute("SELECT value FROM meta WHERE key = 'node_names'").fetchone()
            if done is None or done[0] != NAMES_VERSION:
                self._backfill_names()
            done = self._db.execute("SELECT value FROM meta WHERE key = 'node_tally'").fetchone()
            if done is None or done[0] != TALLY_VERSION:
                self._recount_tally()

    # transactions ---------------------------------------------------------------------------

    @contextmanager
    def transaction(self) -> Iterator[None]:
        db = self._db
        try:
            with self._transactions(
                lambda: db.execute("BEGIN IMMEDIATE"), lambda: db.execute("COMMIT"), self._rollback
            ):
                yield
        except sqlite3.DatabaseError as exc:
            if exc.sqlite_errorname.startswith(("SQLITE_FULL", "SQLITE_IOERR")):
                # A full disk is SQLITE_FULL; a file grown past its size limit, or a failing
                # disk, an I/O error, which SQLite does not tell apart.
                raise StoreUnavailable(
                    f"cannot write to the SQLite store at {self.path}: the disk is full or "
                    f"failing ({exc}); nothing of this write was kept"
                ) from exc
            what = _damage(exc)
            if what is None:
                raise
            raise StoreUnavailable(
                f"cannot write to the SQLite store at {self.path}: {what} ({exc}); nothing of "
                "this write was kept"
            ) from exc

    def _rollback(self) -> None:
        # A full disk or an I/O error has SQLite roll the transaction back itself: a ROLLBACK
        # then fails, and its error would stand in for the one that says what went wrong.
        if self._db.in_transaction:
            self._db.execute("ROLLBACK")

    @contextmanager
    def _relaxed_sync(self) -> Iterator[None]:
        """Usage bookkeeping (read counts, last-read times) skips the fsync: losing the last
        few touches to a power cut costs nothing, and recall stays fast."""
        with self._lock:
            if self._transactions.depth:
                yield
                return
            self._db.execute("PRAGMA synchronous = NORMAL")
            try:
                yield
            finally:
                self._db.execute(f"PRAGMA synchronous = {self._synchronous}")

    def _read(self, sql: str, params: Sequence[Any] = ()) -> list[tuple[Any, ...]]:
        with self._lock:
            try:
                return self._db.execute(sql, params).fetchall()
            except sqlite3.DatabaseError as exc:
                what = _damage(exc)
                if what is None:
                    raise
                raise StoreUnavailable(
                    f"cannot read the SQLite store at {self.path}: {what} ({exc})"
                ) from exc

    def close(self) -> None:
        with self._lock:
            if self.path != ":memory:":
                with suppress(sqlite3.Error):
                    self._db.execute("PRAGMA wal_checkpoint(PASSIVE)")
            self._db.close()

    # nodes ----------------------------------------------------------------------------------

    def add_node(self, node: Node) -> None:
        with self.transaction():
            rowid = self._db.execute(_NODE_INSERT, node_to_row(node)).lastrowid
            self._put_times(rowid, node.attributes)
            self._put_names(rowid, node.kind, node.attributes)

    def update_node(self, node: Node) -> None:
        row = node_to_row(node)
        sets = ", ".join(f"{c} = ?" for c in NODE_COLUMNS[1:])
        with self.transaction():
            self._nodes.forget([node.id])
            found = self._db.execute(
                f"UPDATE nodes SET {sets} WHERE id = ? RETURNING rowid", (*row[1:], row[0])
            ).fetchone()
            if found:
                self._put_times(found[0], node.attributes)
                self._put_names(found[0], node.kind, node.attributes)

    def _put_times(self, rowid: int | None, attributes: Mapping[str, Any]) -> None:
        columns = date_columns(attributes)
        self._db.execute("DELETE FROM node_times WHERE rowid = ?", (rowid,))
        if any(v is not None for v in columns.values()):
            self._db.execute(
                f"INSERT INTO node_times(rowid, {', '.join(_TIMES)}) "
                f"VALUES (?, {_marks(len(_TIMES))})",
                (rowid, *(columns[c] for c in _TIMES)),
            )

    def _backfill_times(self) -> None:
        """Spans for the dated nodes of a store written before node_times existed, or before
        their rule last changed (TIMES_VERSION), once."""
        present = {r[1] for r in self._db.execute("PRAGMA table_info(node_times)")}
        for column in _TIMES:
            if column not in present:
                self._db.execute(f"ALTER TABLE node_times ADD COLUMN {column} REAL")
        rows = self._db.execute(
            "SELECT rowid, attributes FROM nodes "
            "WHERE attributes LIKE '%\"when\"%' OR attributes LIKE '%\"said_at\"%'"
        ).fetchall()
        for rowid, attributes in rows:
            self._put_times(rowid, json.loads(attributes))
        self._db.execute(
            "INSERT OR REPLACE INTO meta(key, value) VALUES ('node_times', ?)", (TIMES_VERSION,)
        )

    def _put_names(self, rowid: int | None, kind: str, attributes: Mapping[str, Any]) -> None:
        self._db.execute("DELETE FROM node_names WHERE node = ?", (rowid,))
        names = named_ids(kind, attributes)
        if names:
            self._db.executemany(
                "INSERT INTO node_names(node, name) VALUES (?, ?)", [(rowid, n) for n in names]
            )

    def _backfill_names(self) -> None:
        """node_names for the nodes of a store written before it existed, once."""
        kinds = sorted(NAMING_KINDS)
        rows = self._db.execute(
            f"SELECT rowid, kind, attributes FROM nodes WHERE kind IN ({_marks(len(kinds))})",
            kinds,
        ).fetchall()
        for rowid, kind, attributes in rows:
            self._put_names(rowid, kind, json.loads(attributes))
        self._db.execute(
            "INSERT OR REPLACE INTO meta(key, value) VALUES ('node_names', ?)", (NAMES_VERSION,)
        )

    def _recount_tally(self) -> None:
        """node_tally, its triggers and the index of the newest of each kind it counts, for a
        store written before they existed or counted by another rule (TALLY_VERSION), once:
        they are made anew and the nodes counted."""
        for (name,) in self._db.execute(
            "SELECT name FROM sqlite_master WHERE type = 'index' AND name LIKE 'nodes_made_%'"
        ).fetchall():
            self._db.execute(f"DROP INDEX {name}")
        for name in _TALLY_TRIGGERS:
            self._db.execute(f"DROP TRIGGER IF EXISTS {name}")
        for stmt in _split_script(_TALLY_SCHEMA):
            self._db.execute(stmt)
        self._db.execute("DELETE FROM node_tally")
        self._db.execute(
            f"INSERT INTO node_tally(kind, value, n) SELECT kind, {_tally_sql('nodes')}, "
            f"count(*) FROM nodes WHERE kind IN ({_TALLIED}) GROUP BY 1, 2"
        )
        self._db.execute(
            "INSERT OR REPLACE INTO meta(key, value) VALUES ('node_tally', ?)", (TALLY_VERSION,)
        )

    def ping(self) -> None:
        self.get_nodes(["ebbtide:ping"])

    def get_nodes(self, ids: Sequence[str]) -> dict[str, Node]:
        with self._lock:
            cached = self._node_cache_current()
            wanted = list(dict.fromkeys(ids))
            out, missing = self._nodes.get(wanted) if cached else ({}, wanted)
            for chunk in _chunks(missing):
                sql = f"{_NODE_SELECT} WHERE id IN ({_marks(len(chunk))})"
                for row in self._read(sql, chunk):
                    node = row_to_node(row)
                    out[node.id] = node
                    if cached:
                        self._nodes.put(node, row[_ATTRIBUTES])
            return out

    def _node_cache_current(self) -> bool:
        """Whether the node cache may be used now, emptied first if another connection has
        committed since it was last checked."""
        if self._transactions.depth:
            return False
        version = self._read("PRAGMA data_version")[0][0]
        if version != self._data_version:
            self._nodes.clear()
            self._data_version = version
        return True

    def find_nodes(
        self,
        *,
        kind: str | None = None,
        text: str | None = None,
        scope: str | None = None,
        attribute: tuple[str, Any] | None = None,
        valid_only: bool = True,
        limit: int = 100,
    ) -> list[Node]:
        where, params = [], []
        if kind is not None:
            where.append("kind = ?")
            params.append(kind)
        if text is not None:
            where.append("text = ?")
            params.append(text)
        if scope is not None:
            where.append("scope = ?")
            params.append(scope)
        if attribute is not None:
            where.append("json_extract(attributes, '$.' || ?) = ?")
            params.extend(attribute)
        if valid_only:
            where.append("valid_to IS NULL")
        clause = " WHERE " + " AND ".join(where) if where else ""
        rows = self._read(
            f"{_NODE_SELECT}{clause} ORDER BY created_at, rowid LIMIT ?", (*params, limit)
        )
        return [row_to_node(r) for r in rows]

    def tally(self, kind: str) -> dict[str, int]:
        check_tallied(kind)
        rows = self._read("SELECT value, n FROM node_tally WHERE kind = ? AND n > 0", (kind,))
        return {str(v): int(n) for v, n in rows}

    def latest_nodes(self, kind: str, limit: int) -> list[Node]:
        check_tallied(kind)
        rows = self._read(
            f"{_NODE_SELECT} WHERE kind = ? ORDER BY created_at DESC, rowid DESC LIMIT ?",
            (kind, limit),
        )
        return [row_to_node(r) for r in reversed(rows)]

    def delete_node(self, node_id: str) -> int:
        with self.transaction():
            self._nodes.forget([node_id])
            removed = self._db.execute(
                "DELETE FROM edges WHERE src = ? OR dst = ?", (node_id, node_id)
            ).rowcount
            # Its vectors go with it; their row ids may be given again (see `_vectors_dropped`).
            lost = self._db.execute(
                "DELETE FROM vectors WHERE node_id = ? RETURNING model", (node_id,)
            ).fetchall()
            self._vectors_dropped({r[0] for r in lost})
            self._db.execute("DELETE FROM nodes WHERE id = ?", (node_id,))
            self._db.execute("DELETE FROM review WHERE node_id = ?", (node_id,))
            self._db.execute("DELETE FROM review_cooldown WHERE node_id = ?", (node_id,))
        return removed

    def nodes_naming(self, ids: Iterable[str]) -> list[Node]:
        found: dict[int, tuple[Any, ...]] = {}
        for chunk in _chunks(list(dict.fromkeys(ids))):
            for row in self._read(
                f"SELECT rowid, {', '.join(NODE_COLUMNS)} FROM nodes WHERE rowid IN "
                f"(SELECT node FROM node_names WHERE name IN ({_marks(len(chunk))}))",
                chunk,
            ):
                found[row[0]] = row
        rows = sorted(found.values(), key=lambda r: (r[_CREATED + 1], r[0]))
        return [row_to_node(r[1:]) for r in rows]

    def iter_nodes(self) -> Iterator[Node]:
        last = 0
        while True:
            rows = self._read(
                f"SELECT rowid, {', '.join(NODE_COLUMNS)} FROM nodes WHERE rowid > ? "
                "ORDER BY rowid LIMIT 1000",
                (last,),
            )
            if not rows:
                return
            last = rows[-1][0]
            for r in rows:
                yield row_to_node(r[1:])

    # edges ----------------------------------------------------------------------------------

    def add_edge(self, edge: Edge) -> None:
        with self.transaction():
            self._db.execute(_EDGE_INSERT, edge_to_row(edge))

    def update_edge(self, edge: Edge) -> None:
        row = edge_to_row(edge)
        sets = ", ".join(f"{c} = ?" for c in EDGE_COLUMNS[1:])
        with self.transaction():
            self._db.execute(f"UPDATE edges SET {sets} WHERE id = ?", (*row[1:], row[0]))

    def get_edge(self, src: str, dst: str, relation: str) -> Edge | None:
        rows = self._read(
            f"{_EDGE_SELECT} WHERE src = ? AND dst = ? AND relation = ?", (src, dst, relation)
        )
        return row_to_edge(rows[0]) if rows else None

    def edges_of(
        self, node_ids: Iterable[str], *, direction: Direction = "both", valid_only: bool = True
    ) -> list[Edge]:
        ids = list(dict.fromkeys(node_ids))
        valid = " AND valid_to IS NULL" if valid_only else ""
        seen: dict[str, Edge] = {}
        for chunk in _chunks(ids):
            m = _marks(len(chunk))
            parts = []
            if direction in ("out", "both"):
                parts.append((f"{_EDGE_SELECT} WHERE src IN ({m}){valid}", chunk))
            if direction in ("in", "both"):
                parts.append((f"{_EDGE_SELECT} WHERE dst IN ({m}){valid}", chunk))
            for sql, params in parts:
                for row in self._read(sql, params):
                    seen.setdefault(row[0], row_to_edge(row))
        return list(seen.values())

    def get_edges(self, ids: Sequence[str]) -> dict[str, Edge]:
        out: dict[str, Edge] = {}
        for chunk in _chunks(list(dict.fromkeys(ids))):
            for row in self._read(f"{_EDGE_SELECT} WHERE id IN ({_marks(len(chunk))})", chunk):
                out[row[0]] = row_to_edge(row)
        return out

    def find_edges(
        self,
        *,
        relations: Iterable[str] | None = None,
        task_tag: str | None = None,
        valid_only: bool = True,
        limit: int = 1000,
    ) -> list[Edge]:
        where, params = [], []
        if relations is not None:
            rels = sorted(relations)
            where.append(f"relation IN ({_marks(len(rels))})")
            params.extend(rels)
        if task_tag is not None:
            where.append("task_tag = ?")
            params.append(task_tag)
        if valid_only:
            where.append("valid_to IS NULL")
        clause = " WHERE " + " AND ".join(where) if where else ""
        rows = self._read(f"{_EDGE_SELECT}{clause} ORDER BY rowid LIMIT ?", (*params, limit))
        return [row_to_edge(r) for r in rows]

    def adjacent(
        self,
        node_ids: Iterable[str],
        *,
        direction: Direction = "both",
        relations: frozenset[str] | None = None,
        reach: SearchFilter | None = None,
    ) -> list[EdgeRow]:
        if relations is not None and not relations:
            return []
        ids = list(dict.fromkeys(node_ids))
        cols = "e.id, e.src, e.dst, e.relation, e.weight, e.last_reinforced_at"
        kinds = sorted(relations) if relations is not None else []
        only = f" AND e.relation IN ({_marks(len(kinds))})" if kinds else ""
        join, cond, params = "", "", []
        if reach is not None:
            join = " JOIN nodes a ON a.id = e.src JOIN nodes b ON b.id = e.dst"
            (a, pa), (b, pb) = self._filter_sql(reach, "a"), self._filter_sql(reach, "b")
            cond, params = f" AND {a} AND {b}", [*pa, *pb]
        ends = {"out": ["src"], "in": ["dst"], "both": ["src", "dst"]}[direction]
        out: dict[str, EdgeRow] = {}
        for chunk in _chunks(ids):
            marks = _marks(len(chunk))
            for end in ends:
                sql = (
                    f"SELECT {cols} FROM edges e{join} WHERE e.{end} IN ({marks}) "
                    f"AND e.valid_to IS NULL{only}{cond}"
                )
                for row in self._read(sql, [*chunk, *kinds, *params]):
                    out.setdefault(row[0], EdgeRow(*row))
        return list(out.values())

    def iter_edges(self) -> Iterator[Edge]:
        last = 0
        while True:
            rows = self._read(
                f"SELECT rowid, {', '.join(EDGE_COLUMNS)} FROM edges WHERE rowid > ? "
                "ORDER BY rowid LIMIT 1000",
                (last,),
            )
            if not rows:
                return
            last = rows[-1][0]
            for r in rows:
                yield row_to_edge(r[1:])

    # retrieval ------------------------------------------------------------------------------

    @staticmethod
    def _filter_sql(flt: SearchFilter, alias: str = "n") -> tuple[str, list[Any]]:
        where: list[str] = []
        params: list[Any] = []
        if flt.include_cold:
            where.append(f"{alias}.status IN ('active', 'archived')")
        else:
            where.append(f"{alias}.tier IN ('hot', 'warm') AND {alias}.status = 'active'")
        if flt.with_successors and not flt.include_invalid:
            where.append(f"({alias}.valid_to IS NULL OR {alias}.superseded_by IS NOT NULL)")
        elif not flt.include_invalid:
            where.append(f"{alias}.valid_to IS NULL")
        if flt.exclude_kinds:
            where.append(f"{alias}.kind NOT IN ({_marks(len(flt.exclude_kinds))})")
            params.extend(sorted(flt.exclude_kinds))
        if flt.kinds:
            where.append(f"{alias}.kind IN ({_marks(len(flt.kinds))})")
            params.extend(sorted(flt.kinds))
        if flt.scope is not None:
            where.append(f"{alias}.scope = ?")
            params.append(flt.scope)
        if flt.task_tag is not None:
            where.append(f"({alias}.task_tag = ? OR {alias}.task_tag IS NULL)")
            params.append(flt.task_tag)
        return (" AND ".join(where) or "1"), params

    def text_search(self, query: str, k: int, flt: SearchFilter) -> list[tuple[str, float]]:
        """BM25 over the query's words. Words found in more than COMMON_DF nodes are left out
        of the OR query (they would make BM25 score a large share of the store and add little
        to the ranking) and only required together (AND) when nothing rarer is asked for, as
        a common-terms query does; below COMMON_DF nodes this is plain BM25."""
        return [(i, s) for i, s, _ in self._words(query, k, flt)]

    def _words(self, query: str, k: int, flt: SearchFilter) -> list[tuple[str, float, str | None]]:
        """`text_search`, each match with its successor when it is ended."""
        terms = query_terms(query)
        if not terms:
            return []
        self._refresh_doc_frequencies()
        rare = [t for t in terms if self._doc_frequency(t) < COMMON_DF]
        if len(rare) == len(terms):
            plans = [fts_query(terms)]
        elif rare:
            # Candidates must hold a rare word; the common words still add to their BM25.
            plans = [f"({fts_query(rare)}) AND ({fts_query(terms)})"]
        else:
            plans = [fts_query(terms, "AND"), fts_query(terms)]
        for match in plans:
            found = self._bm25(match, k, flt)
            if found:
                return found
        return []

    def _bm25(
        self, match: str | None, k: int, flt: SearchFilter
    ) -> list[tuple[str, float, str | None]]:
        if match is None:
            return []
        cond, params = self._filter_sql(flt)
        rows = self._read(
            "SELECT n.id, bm25(nodes_fts) AS s, "
            "CASE WHEN n.valid_to IS NULL THEN NULL ELSE n.superseded_by END "
            "FROM nodes_fts JOIN nodes n "
            f"ON n.rowid = nodes_fts.rowid WHERE nodes_fts MATCH ? AND {cond} "
            "ORDER BY s, n.rowid DESC LIMIT ?",
            (match, *params, k),
        )
        # bm25() is lower-is-better; flip the sign so callers see higher-is-better. Equal
        # scores go newest first, as recall ranks ties, so the cut at k falls the same way.
        return [(r[0], -float(r[1]), r[2]) for r in rows]

    def doc_frequencies(
        self, groups: Sequence[Sequence[str]], cap: int, flt: SearchFilter
    ) -> list[int]:
        cond, params = self._filter_sql(flt)
        out = []
        for group in groups:
            match = fts_query(query_terms(" ".join(group)))
            out.append(
                0
                if match is None
                else self._read(
                    "SELECT count(*) FROM (SELECT 1 FROM nodes_fts JOIN nodes n "
                    f"ON n.rowid = nodes_fts.rowid WHERE nodes_fts MATCH ? AND {cond} LIMIT ?)",
                    (match, *params, cap),
                )[0][0]
            )
        return out

    def _refresh_doc_frequencies(self) -> None:
        """Start the cache of document frequencies over once the store has grown by a tenth."""
        size = self._read("SELECT coalesce(max(rowid), 0) FROM nodes")[0][0]
        if size > self._df_size * 1.1 or size < self._df_size:
            self._df_cache.clear()
            self._df_size = size

    def _doc_frequency(self, term: str) -> int:
        """How many nodes hold `term`, counted up to COMMON_DF, cached until
        `_refresh_doc_frequencies` starts over."""
        if term not in self._df_cache:
            self._df_cache[term] = self._read(
                "SELECT count(*) FROM (SELECT 1 FROM nodes_fts WHERE nodes_fts MATCH ? LIMIT ?)",
                (f'"{term}"', COMMON_DF),
            )[0][0]
        return self._df_cache[term]

    def text_search_read(
        self, query: str, k: int, flt: SearchFilter, *, read: int, relations: frozenset[str]
    ) -> Matches:
        found = self._words(query, k, flt)  # in process: nothing to read ahead
        return matches_only([(i, s) for i, s, _ in found], {i: r for i, _, r in found if r})

    def time_search(
        self, start: date, end: date, k: int, flt: SearchFilter
    ) -> list[tuple[str, float]]:
        # rank_by_time's order over the node_times spans, each half an index range read: a
        # said span is a day long at most, so it starts less than a day before the window;
        # only the k best rows leave SQLite. The bounds, numbers computed here, are literals.
        cond, params = self._filter_sql(flt)
        w = window(start, end)
        told, said = window_conditions(w, repr(w.lo), repr(w.hi))
        said_start = "said_local_from" if w.lo_local else "said_from"
        rows = self._read(
            "WITH hit AS ("
            f"SELECT rowid, 0 AS o, told_from AS at FROM node_times WHERE {told} UNION ALL "
            "SELECT rowid, 1, said_from FROM node_times "
            f"WHERE {said_start} > {w.lo - DAY_SECONDS!r} AND {said}) "
            "SELECT n.id, h.at FROM hit h JOIN nodes n ON n.rowid = h.rowid "
            f"WHERE {cond} AND NOT (h.o = 1 AND EXISTS "
            "(SELECT 1 FROM hit x WHERE x.rowid = h.rowid AND x.o = 0)) "
            "ORDER BY h.o, h.at, n.id LIMIT ?",
            (*params, k),
        )
        return [(i, at) for i, at in rows]

    def first_dated(self, spans: Sequence[tuple[date, date]], flt: SearchFilter) -> int | None:
        # In process, a probe per span costs no round trip.
        return next((i for i, (a, b) in enumerate(spans) if self.time_search(a, b, 1, flt)), None)

    def filter_ids(self, ids: Iterable[str], flt: SearchFilter) -> set[str]:
        return set(self._passing(ids, flt))

    def _passing(self, ids: Iterable[str], flt: SearchFilter) -> dict[str, str | None]:
        """The ids passing `flt`, each with its successor when it is ended."""
        cond, params = self._filter_sql(flt)
        out: dict[str, str | None] = {}
        for chunk in _chunks(list(dict.fromkeys(ids))):
            rows = self._read(
                "SELECT n.id, CASE WHEN n.valid_to IS NULL THEN NULL ELSE n.superseded_by END "
                f"FROM nodes n WHERE n.id IN ({_marks(len(chunk))}) AND {cond}",
                (*chunk, *params),
            )
            out.update((r[0], r[1]) for r in rows)
        return out

    def briefs(self, ids: Iterable[str]) -> dict[str, NodeBrief]:
        out: dict[str, NodeBrief] = {}
        for chunk in _chunks(list(dict.fromkeys(ids))):
            rows = self._read(
                f"SELECT id, activation, q_value FROM nodes WHERE id IN ({_marks(len(chunk))})",
                chunk,
            )
            out.update((r[0], NodeBrief(r[1], r[2])) for r in rows)
        return out

    # vectors --------------------------------------------------------------------------------

    def put_vectors(self, model: str, items: Sequence[tuple[str, np.ndarray]]) -> None:
        # A new row (new seq) per write, so readers in any process pick it up incrementally.
        with self.transaction():
            stored = self._read("SELECT length(vec) FROM vectors WHERE model = ? LIMIT 1", (model,))
            for _, v in items[:1]:
                if stored and stored[0][0] != 4 * np.asarray(v).size:
                    raise EmbeddingUnavailable(
                        wrong_size(model, np.asarray(v).size, stored[0][0] // 4)
                    )
            self._db.executemany(
                "INSERT OR REPLACE INTO vectors(node_id, model, vec) VALUES (?, ?, ?)",
                [(i, model, np.asarray(v, dtype=np.float32).tobytes()) for i, v in items],
            )

    def vector_search(
        self, model: str, query: np.ndarray, k: int, flt: SearchFilter
    ) -> list[tuple[str, float]]:
        return [(i, s) for i, s, _ in self._nearest(model, query, k, flt)]

    def _nearest(
        self, model: str, query: np.ndarray, k: int, flt: SearchFilter
    ) -> list[tuple[str, float, str | None]]:
        """`vector_search`, each match with its successor when it is ended."""
        ids, matrix = self._vectors.refresh(self, model)
        if not ids:
            return []
        if matrix.shape[1] != np.asarray(query).size:
            raise EmbeddingUnavailable(wrong_size(model, np.asarray(query).size, matrix.shape[1]))
        scores = cosines(matrix, np.asarray(query, dtype=np.float32))
        out: list[tuple[str, float, str | None]] = []
        # Over-fetch, then filter: most top candidates usually pass.
        want = k
        while True:
            top = np.argpartition(-scores, min(want, len(ids)) - 1)[: min(want, len(ids))]
            top = top[np.argsort(-scores[top])]
            allowed = self._passing([ids[i] for i in top], flt)
            out = [(ids[i], float(scores[i]), allowed[ids[i]]) for i in top if ids[i] in allowed]
            out = out[:k]
            if len(out) >= k or want >= len(ids):
                break
            want *= 4
        return out

    def vector_search_read(
        self,
        model: str,
        query: np.ndarray,
        k: int,
        flt: SearchFilter,
        *,
        read: int,
        relations: frozenset[str],
        words: Sequence[str],
    ) -> Matches:
        found = self._nearest(model, query, k, flt)  # in process: nothing to read ahead
        return matches_only([(i, s) for i, s, _ in found], {i: r for i, _, r in found if r})

    def missing_vectors(self, model: str, limit: int) -> list[tuple[str, str]]:
        return [
            (r[0], r[1])
            for r in self._read(
                f"SELECT n.id, n.text FROM nodes n WHERE {_OWED_A_VECTOR} ORDER BY n.rowid LIMIT ?",
                (model, *sorted(BOOKKEEPING_KINDS), limit),
            )
        ]

    def count_missing_vectors(self, model: str) -> int:
        return int(
            self._read(
                f"SELECT count(*) FROM nodes n WHERE {_OWED_A_VECTOR}",
                (model, *sorted(BOOKKEEPING_KINDS)),
            )[0][0]
        )

    def vector_counts(self) -> dict[str, int]:
        return dict(self._read("SELECT model, count(*) FROM vectors GROUP BY model"))

    def drop_vectors(
        self, node_ids: Sequence[str] | None, model: str | None = None, *, keep: str | None = None
    ) -> None:
        where, params = ["1"], []
        if model is not None:
            where.append("model = ?")
            params.append(model)
        if keep is not None:
            where.append("model != ?")
            params.append(keep)
        which = " AND ".join(where)
        lost: set[str] = set()
        with self.transaction():
            if node_ids is None:
                lost.update(
                    r[0]
                    for r in self._db.execute(
                        f"DELETE FROM vectors WHERE {which} RETURNING model", params
                    )
                )
            ids = list(dict.fromkeys(node_ids or []))
            for part in (ids[i : i + 500] for i in range(0, len(ids), 500)):
                marks = ",".join("?" * len(part))
                lost.update(
                    r[0]
                    for r in self._db.execute(
                        f"DELETE FROM vectors WHERE {which} AND node_id IN ({marks}) "
                        "RETURNING model",
                        [*params, *part],
                    )
                )
            self._vectors_dropped(lost)

    def _vectors_dropped(self, models: Iterable[str]) -> None:
        """Every process reads these models' vectors anew (their rows only grow otherwise)."""
        self._db.executemany(
            "INSERT INTO meta(key, value) VALUES (?, '1') ON CONFLICT(key) DO UPDATE SET "
            "value = CAST(value AS INTEGER) + 1",
            [(META_VECTORS_DROPPED + m,) for m in sorted(models)],
        )

    def _vector_count(self, model: str) -> int:
        return int(self._read("SELECT count(*) FROM vectors WHERE model = ?", (model,))[0][0])

    def _vector_rows(self, model: str, after: int, limit: int) -> list[tuple[Any, ...]]:
        return self._read(
            "SELECT seq, node_id, vec FROM vectors WHERE model = ? AND seq > ? ORDER BY seq "
            "LIMIT ?",
            (model, after, limit),
        )

    # usage and maintenance ------------------------------------------------------------------

    def touch(self, node_ids: Iterable[str], edge_ids: Iterable[str], at: float) -> None:
        nodes, edges = list(node_ids), list(edge_ids)
        if not nodes and not edges:
            return
        with self._relaxed_sync(), self.transaction():
            self._nodes.forget(nodes)
            self._db.executemany(
                "UPDATE nodes SET last_read_at = ?, read_count = read_count + 1 WHERE id = ?",
                [(at, i) for i in nodes],
            )
            self._db.executemany(
                "UPDATE edges SET last_reinforced_at = max(last_reinforced_at, ?), "
                "access_count = access_count + 1 WHERE id = ?",
                [(at, i) for i in edges],
            )

    def graph_arrays(self) -> GraphArrays:
        with self._lock:
            nodes = self._read(
                "SELECT id, text, pinned, created_at, last_read_at, tier, status, updated_at, "
                "kind FROM nodes "
                "ORDER BY rowid"
            )
            edges = self._read(
                "SELECT src, dst, relation, weight, last_reinforced_at FROM edges "
                "WHERE valid_to IS NULL"
            )
        return graph_arrays_from_rows(nodes, edges)

    def write_activation(
        self,
        ids: Sequence[str],
        activation: Sequence[float],
        tiers: Sequence[str],
        statuses: Sequence[str],
        read: Sequence[str] | None = None,
    ) -> None:
        with self.transaction():
            if read is not None:
                now = dict(self._db.execute("SELECT id, status FROM nodes").fetchall())
                statuses = statuses_now(statuses, read, [now.get(i) for i in ids])
            self._nodes.forget(ids)
            self._db.executemany(
                "UPDATE nodes SET activation = ?, tier = ?, status = ? WHERE id = ?",
                zip(map(float, activation), tiers, statuses, ids, strict=True),
            )

    # review queue ---------------------------------------------------------------------------

    def enqueue_review(self, item: PendingReview) -> bool:
        with self.transaction():
            cur = self._db.execute(
                "INSERT OR IGNORE INTO review(node_id, reason, requested_at, requested_by) "
                "VALUES (?, ?, ?, ?)",
                (item.node_id, item.reason, item.requested_at, item.requested_by),
            )
        return cur.rowcount > 0

    def pending_reviews(self) -> list[PendingReview]:
        rows = self._read(
            "SELECT node_id, reason, requested_at, requested_by FROM review "
            "ORDER BY requested_at, rowid"
        )
        return [PendingReview(*r) for r in rows]

    def remove_review(self, node_id: str, *, cooldown_until: float | None = None) -> bool:
        with self.transaction():
            cur = self._db.execute("DELETE FROM review WHERE node_id = ?", (node_id,))
            if cooldown_until is not None:
                self._db.execute(
                    "INSERT OR REPLACE INTO review_cooldown(node_id, until) VALUES (?, ?)",
                    (node_id, cooldown_until),
                )
        return cur.rowcount > 0

    def review_cooldowns(self) -> dict[str, float]:
        return dict(self._read("SELECT node_id, until FROM review_cooldown"))

    def delete_reviewed(self, node_id: str, requested_at: float) -> int | None:
        with self.transaction():  # the write lock: nothing changes the queue meanwhile
            queued = self._db.execute(
                "SELECT 1 FROM review WHERE node_id = ? AND requested_at = ?",
                (node_id, requested_at),
            ).fetchone()
            return self.delete_node(node_id) if queued else None

    # bookkeeping ----------------------------------------------------------------------------

    def get_meta(self, key: str) -> str | None:
        rows = self._read("SELECT value FROM meta WHERE key = ?", (key,))
        return rows[0][0] if rows else None

    def set_meta(self, key: str, value: str) -> None:
        with self.transaction():
            self._db.execute("INSERT OR REPLACE INTO meta(key, value) VALUES (?, ?)", (key, value))

    def get_meta_many(self, keys: Sequence[str]) -> dict[str, str]:
        found: dict[str, str] = {}
        keys = list(dict.fromkeys(keys))
        for i in range(0, len(keys), 500):  # below SQLite's limit of bound variables
            part = keys[i : i + 500]
            marks = ",".join("?" * len(part))
            found.update(self._read(f"SELECT key, value FROM meta WHERE key IN ({marks})", part))
        return found

    def get_meta_prefix(self, prefix: str) -> dict[str, str]:
        # A range, not LIKE: the prefix may hold '%' or '_'.
        upto = prefix + "\U0010ffff"
        return dict(
            self._read("SELECT key, value FROM meta WHERE key >= ? AND key < ?", (prefix, upto))
        )

    def claim_meta(self, values: Mapping[str, str]) -> set[str]:
        claimed: set[str] = set()
        with self.transaction():
            for key, value in values.items():
                cur = self._db.execute(
                    "INSERT OR IGNORE INTO meta(key, value) VALUES (?, ?)", (key, value)
                )
                if cur.rowcount:
                    claimed.add(key)
        return claimed

    def set_meta_many(self, values: Mapping[str, str]) -> None:
        with self.transaction():
            self._db.executemany(
                "INSERT OR REPLACE INTO meta(key, value) VALUES (?, ?)", list(values.items())
            )

    def append_audit(self, kind: str, payload: dict[str, Any], at: float) -> None:
        with self.transaction():
            self._db.execute(
                "INSERT INTO audit(at, kind, payload) VALUES (?, ?, ?)",
                (at, kind, json.dumps(payload, sort_keys=True, default=str)),
            )

    def iter_audit(self) -> Iterator[AuditEntry]:
        last = 0
        while True:
            rows = self._read(
                "SELECT seq, at, kind, payload FROM audit WHERE seq > ? ORDER BY seq LIMIT 1000",
                (last,),
            )
            if not rows:
                return
            last = rows[-1][0]
            for _, at, kind, payload in rows:
                yield AuditEntry(at, kind, json.loads(payload))

    def counts(self) -> dict[str, dict[str, int]]:
        def grouped(sql: str) -> dict[str, int]:
            return {str(k): int(v) for k, v in self._read(sql)}

        return {
            "kind": grouped("SELECT kind, count(*) FROM nodes GROUP BY kind"),
            "tier": grouped("SELECT tier, count(*) FROM nodes GROUP BY tier"),
            "status": grouped("SELECT status, count(*) FROM nodes GROUP BY status"),
            "relation": grouped("SELECT relation, count(*) FROM edges GROUP BY relation"),
            "pinned": grouped("SELECT 'pinned', count(*) FROM nodes WHERE pinned = 1"),
            "review": grouped("SELECT 'pending', count(*) FROM review"),
        }


def _damage(exc: sqlite3.DatabaseError) -> str | None:
    """What an error SQLite raised says of the store's file, when it says the file cannot be
    read as it should (damaged, not a database, the disk failing), else None: a bug of ours or
    a lock, raised as it is."""
    name = exc.sqlite_errorname
    if name.startswith("SQLITE_CORRUPT"):
        return "its file is damaged (overwritten or cut short)"
    if name.startswith("SQLITE_NOTADB"):
        return "its file is not a SQLite database"
    if name.startswith("SQLITE_IOERR"):
        return "the disk failed to read or write it"
    return None


def _split_script(script: str) -> list[str]:
    """Split a schema script into statements, keeping trigger bodies whole."""
    statements, current = [], []
    for line in script.strip().splitlines():
        current.append(line)
        text = "\n".join(current).strip()
        if sqlite3.complete_statement(text):
            statements.append(text)
            current = []
    return statements


# Up to this many rows a single-threaded loop scores the vectors: a multi-threaded BLAS call
# waits for every one of its threads, and on a busy machine one of them is often descheduled
# (measured: 1,660 x 384, p50 0.06 ms either way, p95 10 ms threaded vs 0.4 ms single).
SINGLE_THREAD_ROWS = 50_000


def cosines(matrix: np.ndarray, query: np.ndarray) -> np.ndarray:
    """matrix @ query for unit-length rows and query."""
    if matrix.shape[0] <= SINGLE_THREAD_ROWS:
        return np.einsum("ij,j->i", matrix, query)
    return matrix @ query


class _VectorCache:
    """All vectors of one model as a matrix, grown incrementally from rows added since the
    last look (by this or any other process); a rewritten node replaces its own row."""

    def __init__(self, model: str | None = None) -> None:
        self.model = model
        self.dropped: str | None = None  # META_VECTORS_DROPPED when the matrix was read
        self.last_seq = 0
        self.ids: list[str] = []
        self.index: dict[str, int] = {}
        self.buffer = np.zeros((0, 0), dtype=np.float32)

    def refresh(self, store: SQLiteStore, model: str) -> tuple[list[str], np.ndarray]:
        dropped = store.get_meta(META_VECTORS_DROPPED + model)
        if model != self.model or dropped != self.dropped:
            self.__init__(model)  # type: ignore[misc]
            self.dropped = dropped
        # A first fill is sized at once (growing by doubling would hold up to three times the
        # matrix while copying), and read in slices: the rows of a large store, read at once,
        # would take as much memory again as the matrix they fill.
        first_fill = not self.ids
        while rows := store._vector_rows(model, self.last_seq, VECTOR_READ):
            if first_fill:
                self._reserve(store._vector_count(model), len(rows[0][2]) // 4)
                first_fill = False
            for seq, node_id, blob in rows:
                vec = np.frombuffer(blob, dtype=np.float32)
                self.last_seq = seq
                if self.buffer.shape[1] not in (0, vec.size):
                    continue  # written before sizes were checked: of another model
                row = self.index.get(node_id)
                if row is None:
                    row = self.index[node_id] = len(self.ids)
                    self.ids.append(node_id)
                    self._reserve(row + 1, vec.size)
                self.buffer[row] = vec
                self.last_seq = seq
        return self.ids, self.buffer[: len(self.ids)]

    def _reserve(self, rows: int, dim: int) -> None:
        # Grow by doubling so that appending one vector is amortised O(dim), not O(n * dim).
        if rows > self.buffer.shape[0]:
            grown = np.zeros((max(rows, 2 * self.buffer.shape[0], 64), dim), dtype=np.float32)
            if self.buffer.size:
                grown[: self.buffer.shape[0]] = self.buffer
            self.buffer = grown

"""Kùzu (`kuzu==0.11.3`, the last release): an embedded graph backend for users coming from Ebb.

**One process at a time.** A Kùzu database opened read-write locks out every other process,
read-only ones included: two MCP clients each starting `ebbtide serve` on the same Kùzu
database cannot both run, and `ebbtide stats` fails while a server holds it. That is why it is
never the default (SQLite lets many processes share one file). The database is opened lazily,
at the first call that needs it, so building a `Memory` does not take the lock.

Because this process is the only one that can write, it keeps an index in memory beside the
database, and it cannot go stale: per node the few fields that filtering and ranking need,
BM25 postings over node text, every valid edge's endpoints, weight and clock (so neighbourhood
expansion is a dictionary walk), per embedding model a numpy matrix, and the nodes read or
written lately (`_nodecache`: a point lookup costs about a millisecond, and a recall reads
dozens of nodes). Kùzu 0.11's own full-text index loads here, but answers a query in about a
second at 100k nodes, and its planner joins by scanning for anything but a single primary-key
lookup; the index avoids both.
It is built on first use (a scan of nodes and edges), kept in step by every write, and dropped
and rebuilt after a rollback.

**A checkpoint after every rollback.** Kùzu 0.11.3 rolls back an update (on ROLLBACK, or when a
statement in the transaction fails) by freeing that version of the rows while the version
before it, if one was committed since the last checkpoint, still points at it; the next update
near those rows reads freed memory and fails with "Write-write conflict of updating the same
row" or crashes the process (kuzudb/kuzu#5994). A checkpoint folds every committed version into
the database and drops the chains, so the store checkpoints after each rollback (every update
here runs in `transaction()`; a meta key is one statement, which fails before it writes), and
when that checkpoint fails too (a full disk), before the next transaction begins. A failed
COMMIT is a rollback like any other.
Kùzu's in-memory mode cannot checkpoint, so `kuzu://:memory:` is a database in a private
temporary directory, removed when the store closes.

Text search is BM25 (k1 1.2, b 0.75, as SQLite FTS5) over the same tokens and light stemming
as the rest of ebbtide (`text.tokens`, `text.stem`); a query is any of its content words, so
user text is never parsed as query syntax.
"""

from __future__ import annotations

import importlib.util  # noqa: F401 - kuzu's parameter binding imports it lazily and fails
import json
import tempfile
import threading
import warnings
from collections.abc import Iterable, Iterator, Mapping, Sequence
from contextlib import contextmanager, suppress
from datetime import date
from pathlib import Path
from typing import Any

import numpy as np

from ..clock import from_ts
from ..errors import EmbeddingUnavailable, NotFound, StoreUnavailable
from ..model import Edge, Node
from ._memindex import MemoryIndex, VectorSet
from ._nodecache import NodeCache
from ._props import (
    EDGE_PROPS,
    attribute_needle,
    chunked,
    edge_props,
    node_props,
    props_edge,
    props_node,
    text_hash,
    unique,
)
from .base import (
    BOOKKEEPING_KINDS,
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
    graph_arrays_from_rows,
    matches_only,
    statuses_now,
    wrong_size,
)
from .sqlite import NODE_COLUMNS

NODE_TYPES: dict[str, str] = {
    "id": "STRING",
    "seq": "INT64",
    "kind": "STRING",
    "text": "STRING",
    "attributes": "STRING",
    "scope": "STRING",
    "task_tag": "STRING",
    "created_at": "DOUBLE",
    "updated_at": "DOUBLE",
    "last_read_at": "DOUBLE",
    "read_count": "INT64",
    "pinned": "BOOLEAN",
    "tier": "STRING",
    "status": "STRING",
    "activation": "DOUBLE",
    "q_value": "DOUBLE",
    "polarity": "DOUBLE",
    "valid_from": "DOUBLE",
    "valid_to": "DOUBLE",
    "superseded_by": "STRING",
    "sources": "STRING",
    "provenance": "STRING",
    "text_hash": "STRING",
    "attr_keys": "STRING[]",
}
EDGE_TYPES: dict[str, str] = {
    "src": "STRING",
    "dst": "STRING",
    "seq": "INT64",
    "id": "STRING",
    "relation": "STRING",
    "weight": "DOUBLE",
    "created_at": "DOUBLE",
    "last_reinforced_at": "DOUBLE",
    "reinforce_count": "INT64",
    "access_count": "INT64",
    "valid_from": "DOUBLE",
    "valid_to": "DOUBLE",
    "task_tag": "STRING",
    "context": "STRING",
    "confidence_source": "STRING",
    "provenance": "STRING",
}
_NODE_COLS = ", ".join(f"{c} {t}" for c, t in NODE_TYPES.items() if c != "id")
_EDGE_COLS = ", ".join(f"{c} {t}" for c, t in EDGE_TYPES.items())
SCHEMA = (
    f"CREATE NODE TABLE IF NOT EXISTS EbbNode(id STRING PRIMARY KEY, {_NODE_COLS})",
    f"CREATE REL TABLE IF NOT EXISTS LINK(FROM EbbNode TO EbbNode, {_EDGE_COLS})",
    "CREATE NODE TABLE IF NOT EXISTS EbbVector(key STRING PRIMARY KEY, node_id STRING, "
    "model STRING, vec FLOAT[])",
    "CREATE NODE TABLE IF NOT EXISTS EbbMeta(key STRING PRIMARY KEY, value STRING)",
    "CREATE NODE TABLE IF NOT EXISTS EbbReview(node_id STRING PRIMARY KEY, seq INT64, "
    "reason STRING, requested_at DOUBLE, requested_by STRING)",
    "CREATE NODE TABLE IF NOT EXISTS EbbCooldown(node_id STRING PRIMARY KEY, until DOUBLE)",
    "CREATE NODE TABLE IF NOT EXISTS EbbAudit(seq INT64 PRIMARY KEY, at DOUBLE, kind STRING, "
    "payload STRING)",
    "CREATE NODE TABLE IF NOT EXISTS EbbStage(id STRING PRIMARY KEY, activation DOUBLE, "
    "tier STRING, status STRING)",
)
# Below this many ids, primary-key lookups one by one beat Kùzu's scan-and-join plans.
POINT_LOOKUPS = 64
# Kùzu 0.11 reads many nodes by id only by scanning the table (an `IN` list, an UNWIND joined
# by id, lookups chained in one statement): about a millisecond plus half a microsecond a
# node, against about 0.4 ms a primary-key lookup. So up to 3 ids, plus one per 800 nodes,
# are looked up one by one (at 10k nodes 15, at 100k 128), more in one join.
NODE_LOOKUPS = 3
NODES_PER_LOOKUP = 800
# A node's properties by name: returning the node itself (`RETURN n`) costs Kùzu a third more
# per lookup, and a recall reads dozens by id.
_NODE_RETURN = ", ".join(f"n.{c}" for c in NODE_TYPES)
BATCH = 20_000
PAGE = 1_000
_SEP = "\u001f"


class KuzuStore:
    """One Kùzu database (a file and its WAL) for one tenant. Calls are serialised by a lock."""

    def __init__(self, path: str) -> None:
        self.path = path
        self.url = "kuzu://:memory:" if path == ":memory:" else f"kuzu:///{path}"
        self._db: Any = None
        self._conn: Any = None
        self._scratch: tempfile.TemporaryDirectory[str] | None = None
        self._lock = threading.RLock()
        self._transactions = NestedTransactions(self._lock)
        self._index: MemoryIndex | None = None
        # Writes keep what they wrote (`_nodecache`); a rollback empties it.
        self._nodes = NodeCache()
        self._prepared: dict[str, Any] = {}
        self._next_seq = 0
        # How many nodes there are, near enough to choose how to read them by id (the index,
        # once built, counts them exactly).
        self._about_nodes = 0
        self._checkpoint_owed = False  # a rollback's checkpoint failed; the next write retries

    # plumbing -------------------------------------------------------------------------------

    def _connection(self) -> Any:
        if self._conn is None:
            try:
                import kuzu
            except ImportError as exc:
                raise StoreUnavailable(
                    "the Kùzu backend needs kuzu: pip install 'ebbtide[kuzu]'"
                ) from exc
            location = self.path
            if self.path == ":memory:":
                if self._scratch is None:
                    self._scratch = tempfile.TemporaryDirectory(prefix="ebbtide-kuzu-")
                location = str(Path(self._scratch.name) / "db")
            else:
                Path(self.path).expanduser().parent.mkdir(parents=True, exist_ok=True)
            try:
                self._db = kuzu.Database(location)
                self._conn = kuzu.Connection(self._db)
                for stmt in SCHEMA:
                    self._conn.execute(stmt)
                rows = self._conn.execute(
                    "MATCH (n:EbbNode) RETURN max(n.seq) UNION ALL "
                    "MATCH ()-[r:LINK]->() RETURN max(r.seq)"
                ).get_all()
            except RuntimeError as exc:
                self._db = self._conn = None
                raise StoreUnavailable(
                    f"cannot open Kùzu database at {self.path} (another process may hold it: "
                    f"Kùzu allows one at a time): {exc}"
                ) from exc
            self._next_seq = 1 + max((r[0] for r in rows if r[0] is not None), default=0)
            count = self._conn.execute("MATCH (n:EbbNode) RETURN count(*)").get_all()
            self._about_nodes = count[0][0]
        return self._conn

    def _q(self, cypher: str, **params: Any) -> list[list[Any]]:
        with self._lock:
            return self._connection().execute(cypher, params).get_all()

    def _point(self, cypher: str, **params: Any) -> list[list[Any]]:
        """`_q` for the few fixed statements run often (a read by id, a single create, a touch):
        prepared once, each then costs about half as much."""
        with self._lock:
            conn = self._connection()
            stmt = self._prepared.get(cypher)
            if stmt is None:
                # Kùzu 0.11, its last release, deprecates preparing apart from running.
                with warnings.catch_warnings():
                    warnings.simplefilter("ignore", DeprecationWarning)
                    stmt = self._prepared[cypher] = conn.prepare(cypher)
            return conn.execute(stmt, params).get_all()

    def _seq(self, n: int = 1) -> list[int]:
        with self._lock:
            self._connection()
            first, self._next_seq = self._next_seq, self._next_seq + n
        return list(range(first, first + n))

    @contextmanager
    def transaction(self) -> Iterator[None]:
        with self._transactions(self._begin, self._commit, self._rollback):
            yield

    def _begin(self) -> None:
        conn = self._connection()
        if self._checkpoint_owed:
            try:
                conn.execute("CHECKPOINT")
            except RuntimeError as exc:
                raise StoreUnavailable(
                    f"cannot write to the Kùzu database at {self.path}: after a failed write "
                    f"it must checkpoint first, and that fails (is the disk full?): {exc}"
                ) from exc
            self._checkpoint_owed = False
        conn.execute("BEGIN TRANSACTION")

    def _commit(self) -> None:
        self._connection().execute("COMMIT")

    def _rollback(self) -> None:
        # Kùzu ends a transaction itself when a statement in it, or its COMMIT (its log could
        # not be written, say), fails; what it wrote is still in the index and the node cache.
        with suppress(RuntimeError):
            self._connection().execute("ROLLBACK")
        self._index = None  # it may hold what the transaction wrote
        self._nodes.clear()
        self._checkpoint()

    def _checkpoint(self) -> None:
        """After a rollback: drop the version chains a rollback can leave pointing at freed
        memory (see the top)."""
        try:
            self._connection().execute("CHECKPOINT")
        except RuntimeError:
            # The caller's error is the one to report. The next write checkpoints first: a
            # reopening here would not do, as closing a Kùzu database checkpoints too, and
            # when that fails (the disk still full) it aborts the process.
            self._checkpoint_owed = True

    def index(self) -> MemoryIndex:
        """The in-memory index, built from the database on first use."""
        with self._lock:
            if self._index is None:
                idx = MemoryIndex()
                cols = ", ".join(f"n.{c}" for c in NODE_TYPES if c not in ("attr_keys",))
                names = [c for c in NODE_TYPES if c != "attr_keys"]
                for row in self._q(f"MATCH (n:EbbNode) RETURN {cols}"):
                    p = dict(zip(names, row, strict=True))
                    idx.put_node(p, p["text"])
                for row in self._q(
                    "MATCH ()-[r:LINK]->() RETURN r.id, r.src, r.dst, r.relation, r.weight, "
                    "r.last_reinforced_at, r.valid_to"
                ):
                    idx.put_edge(
                        dict(zip(("id", "src", "dst", "relation", "weight",
                                  "last_reinforced_at", "valid_to"), row, strict=True))
                    )  # fmt: skip
                self._index = idx
            return self._index

    def close(self) -> None:
        with self._lock:
            self._disconnect()
            if self._scratch is not None:
                self._scratch.cleanup()
                self._scratch = None

    def _disconnect(self) -> None:
        if self._conn is not None:
            with suppress(Exception):
                self._conn.close()
            with suppress(Exception):
                self._db.close()
        self._conn = self._db = None
        self._index = None
        self._nodes.clear()
        self._prepared.clear()

    # nodes ----------------------------------------------------------------------------------

    def _node_rows(self, nodes: Sequence[Node]) -> list[dict[str, Any]]:
        rows = []
        for node, seq in zip(nodes, self._seq(len(nodes)), strict=True):
            p = node_props(node)
            p["seq"] = seq
            rows.append(p)
        return rows

    def add_node(self, node: Node) -> None:
        self.add_nodes([node])

    def add_nodes(self, nodes: Sequence[Node]) -> None:
        """Bulk insert (COPY from a subquery over column lists for more than a few)."""
        rows = self._node_rows(nodes)
        with self.transaction():
            if len(rows) <= 4:
                sets = ", ".join(f"{c}: ${c}" for c in NODE_TYPES)
                for p in rows:
                    self._point(f"CREATE (n:EbbNode {{{sets}}})", **p)
            else:
                for batch in chunked(rows, BATCH):
                    self._copy("EbbNode", NODE_TYPES, batch)
            self._about_nodes += len(rows)
            if self._index is not None:
                for p in rows:
                    self._index.put_node(p, p["text"])
            for p in rows[-self._nodes.size :]:  # what was just written is often read next
                self._nodes.put(props_node(p), p["attributes"])

    def _copy(self, table: str, types: dict[str, str], rows: Sequence[dict[str, Any]]) -> None:
        # A parameter list of only nulls (or only empty lists) has no type Kùzu can bind: such
        # a column is a typed literal instead.
        exprs, params = [], {}
        for i, (col, kind) in enumerate(types.items()):
            values = [r[col] for r in rows]
            if all(v is None for v in values):
                exprs.append(f"CAST(NULL AS {kind}) AS c{i}")
            elif kind.endswith("[]") and not any(values):
                exprs.append(f"CAST([] AS {kind}) AS c{i}")
            else:
                exprs.append(f"CAST($c{i}[i] AS {kind}) AS c{i}")
                params[f"c{i}"] = values
        self._q(
            f"COPY {table} FROM (UNWIND range(1, $n) AS i RETURN {', '.join(exprs)})",
            n=len(rows),
            **params,
        )

    def update_node(self, node: Node) -> None:
        p = node_props(node)
        sets = ", ".join(f"n.{c} = ${c}" for c in p if c != "id")
        with self.transaction():
            rows = self._q(f"MATCH (n:EbbNode {{id: $id}}) SET {sets} RETURN n.seq", **p)
            if rows:
                self._nodes.put(props_node(p), p["attributes"])
            if rows and self._index is not None:
                self._index.put_node({**p, "seq": rows[0][0]}, node.text)

    def _fetch_nodes(self, ids: list[str]) -> list[dict[str, Any]]:
        """The nodes of `ids` (each id once) that exist, as property maps, in no set order."""
        if not ids:
            return []
        with self._lock:
            self._connection()
            nodes = self._about_nodes if self._index is None else len(self._index.nodes)
            if len(ids) <= NODE_LOOKUPS + nodes // NODES_PER_LOOKUP:
                rows = []
                for i in ids:
                    rows.extend(
                        self._point(f"MATCH (n:EbbNode {{id: $id}}) RETURN {_NODE_RETURN}", id=i)
                    )
            else:
                rows = self._point(
                    f"UNWIND $ids AS i MATCH (n:EbbNode {{id: i}}) RETURN {_NODE_RETURN}", ids=ids
                )
        return [dict(zip(NODE_TYPES, r, strict=True)) for r in rows]

    def ping(self) -> None:
        self.get_nodes(["ebbtide:ping"])

    def get_nodes(self, ids: Sequence[str]) -> dict[str, Node]:
        with self._lock:
            out, missing = self._nodes.get(unique(ids))
            for p in self._fetch_nodes(missing):
                node = out[p["id"]] = props_node(p)
                self._nodes.put(node, p["attributes"] or "{}")
            return out

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
        needle = None
        if attribute is not None:
            needle = attribute_needle(*attribute)
            if needle is None:
                return []
        if text is not None:
            # Exact text goes through the index: a scan of every text is what it avoids.
            found = self._fetch_nodes(sorted(self.index().by_hash.get(text_hash(text), ())))
            found = [
                p for p in found
                if p["text"] == text
                and (kind is None or p["kind"] == kind)
                and (scope is None or p["scope"] == scope)
                and (needle is None or needle in (p["attr_keys"] or []))
                and (not valid_only or p["valid_to"] is None)
            ]  # fmt: skip
            found.sort(key=lambda p: (p["created_at"], p["seq"]))
            return [props_node(p) for p in found[:limit]]
        where, params = ["true"], {"limit": limit}
        for name, value in (("kind", kind), ("scope", scope)):
            if value is not None:
                where.append(f"n.{name} = ${name}")
                params[name] = value
        if needle is not None:
            where.append("list_contains(n.attr_keys, $needle)")
            params["needle"] = needle
        if valid_only:
            where.append("n.valid_to IS NULL")
        rows = self._q(
            f"MATCH (n:EbbNode) WHERE {' AND '.join(where)} "
            "RETURN n ORDER BY n.created_at, n.seq LIMIT $limit",
            **params,
        )
        return [props_node(r[0]) for r in rows]

    def delete_node(self, node_id: str) -> int:
        with self.transaction():
            rows = self._q(
                "MATCH (n:EbbNode {id: $id}) OPTIONAL MATCH (n)-[r:LINK]-() "
                "WITH n, count(DISTINCT r.id) AS c DETACH DELETE n RETURN c",
                id=node_id,
            )
            self._q("MATCH (r:EbbReview {node_id: $id}) DELETE r", id=node_id)
            self._q("MATCH (c:EbbCooldown {node_id: $id}) DELETE c", id=node_id)
            self._q("MATCH (v:EbbVector) WHERE v.node_id = $id DELETE v", id=node_id)
            if self._index is not None:
                self._index.drop_node(node_id)
            self._nodes.forget([node_id])
        return int(rows[0][0]) if rows else 0

    def nodes_naming(self, ids: Iterable[str]) -> list[Node]:
        naming = self.index().naming
        found = {n for i in unique(list(ids)) for n in naming.get(i, ())}
        rows = self._fetch_nodes(sorted(found))
        return [props_node(p) for p in sorted(rows, key=lambda p: (p["created_at"], p["seq"]))]

    def tally(self, kind: str) -> dict[str, int]:
        check_tallied(kind)
        return self.index().tally(kind)

    def latest_nodes(self, kind: str, limit: int) -> list[Node]:
        check_tallied(kind)
        ids = self.index().latest(kind, limit)
        found = self.get_nodes(ids)
        return [found[i] for i in ids]

    def iter_nodes(self) -> Iterator[Node]:
        after = -1
        while True:
            rows = self._q(
                f"MATCH (n:EbbNode) WHERE n.seq > $after RETURN n ORDER BY n.seq LIMIT {PAGE}",
                after=after,
            )
            if not rows:
                return
            after = rows[-1][0]["seq"]
            for r in rows:
                yield props_node(r[0])

    # edges ----------------------------------------------------------------------------------

    def _edge_rows(self, edges: Sequence[Edge]) -> list[dict[str, Any]]:
        return [
            {**edge_props(e), "src": e.src, "dst": e.dst, "seq": s}
            for e, s in zip(edges, self._seq(len(edges)), strict=True)
        ]

    def add_edge(self, edge: Edge) -> None:
        self.add_edges([edge])

    def add_edges(self, edges: Sequence[Edge]) -> None:
        """Bulk insert. Both ends must exist."""
        rows = self._edge_rows(edges)
        with self.transaction():
            if len(rows) <= 4:
                sets = ", ".join(f"{c}: ${c}" for c in EDGE_TYPES)
                for p in rows:
                    made = self._point(
                        "MATCH (a:EbbNode {id: $src}), (b:EbbNode {id: $dst}) "
                        f"CREATE (a)-[r:LINK {{{sets}}}]->(b) RETURN count(r)",
                        **p,
                    )
                    if not made or made[0][0] != 1:
                        raise NotFound("node", f"{p['src']} or {p['dst']}", "edge endpoint")
            else:
                types = {"from": "STRING", "to": "STRING", **EDGE_TYPES}
                for batch in chunked(rows, BATCH):
                    ends = [{**p, "from": p["src"], "to": p["dst"]} for p in batch]
                    try:
                        self._copy("LINK", types, ends)
                    except RuntimeError as exc:
                        if "primary key" not in str(exc).lower():
                            raise
                        raise NotFound("node", str(exc)[:200], "edge endpoint") from exc
            if self._index is not None:
                for p in rows:
                    self._index.put_edge(p)

    def update_edge(self, edge: Edge) -> None:
        p = edge_props(edge)
        sets = ", ".join(f"r.{c} = ${c}" for c in EDGE_PROPS if c != "id")
        with self.transaction():
            rows = self._q(
                f"MATCH (:EbbNode {{id: $src}})-[r:LINK]->() WHERE r.id = $id SET {sets} "
                "RETURN r.dst",
                src=edge.src,
                **p,
            )
            if rows and self._index is not None:
                self._index.put_edge({**p, "src": edge.src, "dst": rows[0][0]})

    def get_edge(self, src: str, dst: str, relation: str) -> Edge | None:
        rows = self._q(
            "MATCH (:EbbNode {id: $src})-[r:LINK]->() WHERE r.dst = $dst AND r.relation = $rel "
            "RETURN r LIMIT 1",
            src=src,
            dst=dst,
            rel=relation,
        )
        return props_edge(rows[0][0]) if rows else None

    def edges_of(
        self, node_ids: Iterable[str], *, direction: Direction = "both", valid_only: bool = True
    ) -> list[Edge]:
        ids = unique(list(node_ids))
        valid = " AND r.valid_to IS NULL" if valid_only else ""
        found: dict[str, dict[str, Any]] = {}
        if len(ids) <= POINT_LOOKUPS:
            arrows = {"out": ["-[r:LINK]->"], "in": ["<-[r:LINK]-"], "both": ["-[r:LINK]-"]}
            for i in ids:
                for arrow in arrows[direction]:
                    for r in self._q(
                        f"MATCH (n:EbbNode {{id: $id}}){arrow}() WHERE true{valid} RETURN r", id=i
                    ):
                        found.setdefault(r[0]["id"], r[0])
        else:
            ends = {"out": "r.src IN $ids", "in": "r.dst IN $ids",
                    "both": "(r.src IN $ids OR r.dst IN $ids)"}[direction]  # fmt: skip
            for r in self._q(f"MATCH ()-[r:LINK]->() WHERE {ends}{valid} RETURN r", ids=ids):
                found.setdefault(r[0]["id"], r[0])
        return [props_edge(p) for p in sorted(found.values(), key=lambda p: p["seq"])]

    def iter_edges(self) -> Iterator[Edge]:
        after = -1
        while True:
            rows = self._q(
                f"MATCH ()-[r:LINK]->() WHERE r.seq > $after RETURN r ORDER BY r.seq LIMIT {PAGE}",
                after=after,
            )
            if not rows:
                return
            after = rows[-1][0]["seq"]
            for r in rows:
                yield props_edge(r[0])

    def get_edges(self, ids: Sequence[str]) -> dict[str, Edge]:
        wanted = unique(ids)
        known = self.index().edges
        out: dict[str, Edge] = {}
        if len(wanted) <= POINT_LOOKUPS:
            for i in wanted:
                if i in known:
                    rows = self._q(
                        "MATCH (:EbbNode {id: $src})-[r:LINK]->() WHERE r.id = $id RETURN r",
                        src=known[i][0],
                        id=i,
                    )
                    out.update((r[0]["id"], props_edge(r[0])) for r in rows)
            return out
        rows = self._q("MATCH ()-[r:LINK]->() WHERE r.id IN $ids RETURN r", ids=wanted)
        return {r[0]["id"]: props_edge(r[0]) for r in rows}

    def find_edges(
        self,
        *,
        relations: Iterable[str] | None = None,
        task_tag: str | None = None,
        valid_only: bool = True,
        limit: int = 1000,
    ) -> list[Edge]:
        where, params = ["true"], {"limit": limit}
        if relations is not None:
            where.append("r.relation IN $rels")
            params["rels"] = sorted(relations)
        if task_tag is not None:
            where.append("r.task_tag = $tag")
            params["tag"] = task_tag
        if valid_only:
            where.append("r.valid_to IS NULL")
        rows = self._q(
            f"MATCH ()-[r:LINK]->() WHERE {' AND '.join(where)} RETURN r ORDER BY r.seq "
            "LIMIT $limit",
            **params,
        )
        return [props_edge(r[0]) for r in rows]

    def adjacent(
        self,
        node_ids: Iterable[str],
        *,
        direction: Direction = "both",
        relations: frozenset[str] | None = None,
        reach: SearchFilter | None = None,
    ) -> list[EdgeRow]:
        idx = self.index()
        out: dict[str, EdgeRow] = {}

        def passes(ident: str) -> bool:
            node = idx.nodes.get(ident)
            return reach is None or (node is not None and node.passes(reach))

        for n in unique(list(node_ids)):
            eids: set[str] = set()
            if direction in ("out", "both"):
                eids |= idx.out.get(n, set())
            if direction in ("in", "both"):
                eids |= idx.inc.get(n, set())
            for eid in eids:
                e = idx.edges[eid]
                if (
                    e[5]
                    and eid not in out
                    and (relations is None or e[2] in relations)
                    and passes(e[0])
                    and passes(e[1])
                ):
                    out[eid] = EdgeRow(eid, e[0], e[1], e[2], e[3], e[4])
        return list(out.values())

    # retrieval ------------------------------------------------------------------------------

    def text_search(self, query: str, k: int, flt: SearchFilter) -> list[tuple[str, float]]:
        return self.index().search(query, k, flt)

    def text_search_read(
        self, query: str, k: int, flt: SearchFilter, *, read: int, relations: frozenset[str]
    ) -> Matches:
        hits = self.text_search(query, k, flt)  # in process: nothing to read ahead
        nodes = self.index().nodes
        ended = ((i, nodes[i].successor) for i, _ in hits)
        return matches_only(hits, {i: after for i, after in ended if after})

    def time_search(
        self, start: date, end: date, k: int, flt: SearchFilter
    ) -> list[tuple[str, float]]:
        return self.index().time_search(start, end, k, flt)

    def doc_frequencies(
        self, groups: Sequence[Sequence[str]], cap: int, flt: SearchFilter
    ) -> list[int]:
        return [self.index().holding_any(" ".join(g), cap, flt) for g in groups]

    def first_dated(self, spans: Sequence[tuple[date, date]], flt: SearchFilter) -> int | None:
        idx = self.index()  # in memory: a probe per span costs no query
        return next((i for i, (a, b) in enumerate(spans) if idx.time_search(a, b, 1, flt)), None)

    def filter_ids(self, ids: Iterable[str], flt: SearchFilter) -> set[str]:
        nodes = self.index().nodes
        return {i for i in ids if i in nodes and nodes[i].passes(flt)}

    def briefs(self, ids: Iterable[str]) -> dict[str, NodeBrief]:
        nodes = self.index().nodes
        return {i: NodeBrief(nodes[i].activation, nodes[i].q_value) for i in ids if i in nodes}

    # vectors --------------------------------------------------------------------------------

    def _vectors(self, model: str) -> VectorSet:
        idx = self.index()
        if model not in idx.vectors:
            vs = VectorSet()
            for node_id, vec in self._q(
                "MATCH (v:EbbVector) WHERE v.model = $m RETURN v.node_id, v.vec", m=model
            ):
                vs.put(node_id, np.asarray(vec, dtype=np.float32))
            idx.vectors[model] = vs
        return idx.vectors[model]

    def put_vectors(self, model: str, items: Sequence[tuple[str, np.ndarray]]) -> None:
        latest = {i: np.asarray(v, dtype=np.float32) for i, v in items}
        have = self._vectors(model)
        size = have.matrix.shape[1] if have.ids else next(iter(latest.values()), np.zeros(0)).size
        for vec in latest.values():
            if vec.size != size:
                raise EmbeddingUnavailable(wrong_size(model, vec.size, size))
        with self.transaction():
            nodes = self.index().nodes
            for ident, vec in latest.items():
                if ident not in nodes:
                    continue
                self._q(
                    "MERGE (v:EbbVector {key: $key}) SET v.node_id = $id, v.model = $m, "
                    "v.vec = $vec",
                    key=model + _SEP + ident,
                    id=ident,
                    m=model,
                    vec=vec.tolist(),
                )
            if model in self.index().vectors:
                vs = self.index().vectors[model]
                for ident, vec in latest.items():
                    if ident in nodes:
                        vs.put(ident, vec)

    def vector_search(
        self, model: str, query: np.ndarray, k: int, flt: SearchFilter
    ) -> list[tuple[str, float]]:
        vs = self._vectors(model)
        if not vs.ids:
            return []
        if vs.matrix.shape[1] != np.asarray(query).size:
            raise EmbeddingUnavailable(
                wrong_size(model, np.asarray(query).size, vs.matrix.shape[1])
            )
        matrix = vs.matrix[: len(vs.ids)]
        scores = matrix @ np.asarray(query, dtype=np.float32)
        nodes = self.index().nodes
        out = []
        for r in np.argsort(-scores, kind="stable"):
            ident = vs.ids[r]
            if ident in nodes and nodes[ident].passes(flt):
                out.append((ident, float(scores[r])))
                if len(out) >= k:
                    break
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
        hits = self.vector_search(model, query, k, flt)  # in process: nothing to read ahead
        nodes = self.index().nodes
        ended = ((i, nodes[i].successor) for i, _ in hits)
        return matches_only(hits, {i: after for i, after in ended if after})

    def missing_vectors(self, model: str, limit: int) -> list[tuple[str, str]]:
        nodes = self.index().nodes
        ids = sorted(self._owed_a_vector(model), key=lambda i: nodes[i].seq)[:limit]
        texts = {p["id"]: p["text"] for p in self._fetch_nodes(ids)}
        return [(i, texts[i]) for i in ids if i in texts]

    def count_missing_vectors(self, model: str) -> int:
        return len(self._owed_a_vector(model))

    def _owed_a_vector(self, model: str) -> list[str]:
        have = self._vectors(model).row
        return [
            i
            for i, n in self.index().nodes.items()
            if i not in have and n.kind not in BOOKKEEPING_KINDS
        ]

    def vector_counts(self) -> dict[str, int]:
        return {m: int(c) for m, c in self._q("MATCH (v:EbbVector) RETURN v.model, count(*)")}

    def drop_vectors(
        self, node_ids: Sequence[str] | None, model: str | None = None, *, keep: str | None = None
    ) -> None:
        which, params = "", {}
        if model is not None:
            which, params = " AND v.model = $m", {"m": model}
        if keep is not None:
            which, params = which + " AND v.model <> $k", {**params, "k": keep}
        with self.transaction():
            lost: set[str] = set()
            if node_ids is None:
                where = f"true{which}"
                lost.update(
                    r[0]
                    for r in self._q(
                        f"MATCH (v:EbbVector) WHERE {where} RETURN DISTINCT v.model", **params
                    )
                )
                self._q(f"MATCH (v:EbbVector) WHERE {where} DELETE v", **params)
            for batch in chunked(unique(node_ids or []), 500):
                where, ids = f"v.node_id IN $ids{which}", list(batch)
                lost.update(
                    r[0]
                    for r in self._q(
                        f"MATCH (v:EbbVector) WHERE {where} RETURN DISTINCT v.model",
                        ids=ids,
                        **params,
                    )
                )
                self._q(f"MATCH (v:EbbVector) WHERE {where} DELETE v", ids=ids, **params)
            for m in lost:  # read again when next asked; other models' sets are untouched
                self.index().vectors.pop(m, None)

    # usage and maintenance ------------------------------------------------------------------

    def touch(self, node_ids: Iterable[str], edge_ids: Iterable[str], at: float) -> None:
        nodes, edges = list(node_ids), list(edge_ids)
        if not nodes and not edges:
            return
        idx = self.index()
        when = from_ts(at)
        with self.transaction():
            for i in nodes:
                count = self._point(
                    "MATCH (n:EbbNode {id: $id}) SET n.last_read_at = $at, "
                    "n.read_count = n.read_count + 1 RETURN n.read_count",
                    id=i,
                    at=at,
                )
                if count:
                    self._nodes.amend(i, last_read_at=when, read_count=count[0][0])
            for i in edges:
                e = idx.edges.get(i)
                if e is None:
                    continue
                self._point(
                    "MATCH (:EbbNode {id: $src})-[r:LINK]->() WHERE r.id = $id "
                    "SET r.last_reinforced_at = CASE WHEN r.last_reinforced_at > $at "
                    "THEN r.last_reinforced_at ELSE $at END, r.access_count = r.access_count + 1",
                    src=e[0],
                    id=i,
                    at=at,
                )
                e[4] = max(e[4], at)

    def graph_arrays(self) -> GraphArrays:
        nodes = self._q(
            "MATCH (n:EbbNode) RETURN n.id, n.text, n.pinned, n.created_at, n.last_read_at, "
            "n.tier, n.status, n.updated_at, n.kind ORDER BY n.seq"
        )
        edges = self._q(
            "MATCH ()-[r:LINK]->() WHERE r.valid_to IS NULL "
            "RETURN r.src, r.dst, r.relation, r.weight, r.last_reinforced_at"
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
        if read is not None:
            now = dict(self._q("MATCH (n:EbbNode) RETURN n.id, n.status"))
            statuses = statuses_now(statuses, read, [now.get(i) for i in ids])
        rows = list(zip(ids, map(float, activation), tiers, statuses, strict=True))
        types = {"id": "STRING", "activation": "DOUBLE", "tier": "STRING", "status": "STRING"}
        with self.transaction():
            for batch in chunked(rows, BATCH):
                # Kùzu updates many rows fast only as a join: stage them, join, clear.
                self._copy("EbbStage", types, [dict(zip(types, r, strict=True)) for r in batch])
                self._q(
                    "MATCH (s:EbbStage), (n:EbbNode) WHERE s.id = n.id "
                    "SET n.activation = s.activation, n.tier = s.tier, n.status = s.status"
                )
                self._q("MATCH (s:EbbStage) DELETE s")
            for ident, a, tier, status in rows:
                self._nodes.amend(ident, activation=a, tier=tier, status=status)
            if self._index is not None:
                for ident, a, tier, status in rows:
                    info = self._index.nodes.get(ident)
                    if info is not None:
                        info.activation, info.tier, info.status = a, tier, status

    # review queue ---------------------------------------------------------------------------

    def enqueue_review(self, item: PendingReview) -> bool:
        with self.transaction():
            if self._q("MATCH (r:EbbReview {node_id: $id}) RETURN r.node_id", id=item.node_id):
                return False
            self._q(
                "CREATE (r:EbbReview {node_id: $id, seq: $seq, reason: $reason, "
                "requested_at: $at, requested_by: $by})",
                seq=self._seq()[0],
                id=item.node_id,
                reason=item.reason,
                at=float(item.requested_at),
                by=item.requested_by,
            )
        return True

    def pending_reviews(self) -> list[PendingReview]:
        rows = self._q(
            "MATCH (r:EbbReview) RETURN r.node_id, r.reason, r.requested_at, r.requested_by "
            "ORDER BY r.requested_at, r.seq"
        )
        return [PendingReview(*r) for r in rows]

    def remove_review(self, node_id: str, *, cooldown_until: float | None = None) -> bool:
        with self.transaction():
            removed = self._q(
                "MATCH (r:EbbReview {node_id: $id}) DELETE r RETURN count(*)", id=node_id
            )
            if cooldown_until is not None:
                self._q(
                    "MERGE (c:EbbCooldown {node_id: $id}) SET c.until = $until",
                    id=node_id,
                    until=float(cooldown_until),
                )
        return bool(removed and removed[0][0])

    def review_cooldowns(self) -> dict[str, float]:
        return {
            r[0]: float(r[1]) for r in self._q("MATCH (c:EbbCooldown) RETURN c.node_id, c.until")
        }

    def delete_reviewed(self, node_id: str, requested_at: float) -> int | None:
        with self.transaction():  # one writer at a time: nothing changes the queue meanwhile
            queued = self._q(
                "MATCH (r:EbbReview {node_id: $id}) WHERE r.requested_at = $at RETURN count(*)",
                id=node_id,
                at=float(requested_at),
            )
            return self.delete_node(node_id) if queued[0][0] else None

    # bookkeeping ----------------------------------------------------------------------------

    def get_meta(self, key: str) -> str | None:
        rows = self._q("MATCH (m:EbbMeta {key: $key}) RETURN m.value", key=key)
        return rows[0][0] if rows else None

    def set_meta(self, key: str, value: str) -> None:
        self._q("MERGE (m:EbbMeta {key: $key}) SET m.value = $value", key=key, value=value)

    def get_meta_many(self, keys: Sequence[str]) -> dict[str, str]:
        rows = self._q(
            "MATCH (m:EbbMeta) WHERE m.key IN $keys RETURN m.key, m.value",
            keys=list(dict.fromkeys(keys)),
        )
        return {key: value for key, value in rows}

    def get_meta_prefix(self, prefix: str) -> dict[str, str]:
        rows = self._q(
            "MATCH (m:EbbMeta) WHERE starts_with(m.key, $p) RETURN m.key, m.value", p=prefix
        )
        return {key: value for key, value in rows}

    def claim_meta(self, values: Mapping[str, str]) -> set[str]:
        # One read-write process per database: nothing else claims a key meanwhile.
        have = self.get_meta_many(list(values))
        new = {k: v for k, v in values.items() if k not in have}
        self.set_meta_many(new)
        return set(new)

    def set_meta_many(self, values: Mapping[str, str]) -> None:
        for key, value in values.items():
            self.set_meta(key, value)

    def append_audit(self, kind: str, payload: dict[str, Any], at: float) -> None:
        self._point(
            "CREATE (:EbbAudit {seq: $seq, at: $at, kind: $kind, payload: $payload})",
            seq=self._seq()[0],
            at=float(at),
            kind=kind,
            payload=json.dumps(payload, sort_keys=True, default=str),
        )

    def iter_audit(self) -> Iterator[AuditEntry]:
        after = -1
        while True:
            rows = self._q(
                "MATCH (a:EbbAudit) WHERE a.seq > $after "
                f"RETURN a.seq, a.at, a.kind, a.payload ORDER BY a.seq LIMIT {PAGE}",
                after=after,
            )
            if not rows:
                return
            after = rows[-1][0]
            for _, at, kind, payload in rows:
                yield AuditEntry(at, kind, json.loads(payload))

    def counts(self) -> dict[str, dict[str, int]]:
        out: dict[str, dict[str, int]] = {
            "kind": {}, "tier": {}, "status": {}, "relation": {},
            "pinned": {"pinned": 0}, "review": {"pending": 0},
        }  # fmt: skip
        for kind, tier, status, pinned, c in self._q(
            "MATCH (n:EbbNode) RETURN n.kind, n.tier, n.status, n.pinned, count(*)"
        ):
            for name, value in (("kind", kind), ("tier", tier), ("status", status)):
                out[name][value] = out[name].get(value, 0) + int(c)
            if pinned:
                out["pinned"]["pinned"] += int(c)
        for rel, c in self._q("MATCH ()-[r:LINK]->() RETURN r.relation, count(*)"):
            out["relation"][rel] = int(c)
        out["review"]["pending"] = int(self._q("MATCH (r:EbbReview) RETURN count(*)")[0][0])
        return out


assert set(NODE_TYPES) == {*NODE_COLUMNS, "seq", "text_hash", "attr_keys"}

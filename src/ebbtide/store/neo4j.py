"""Neo4j 5 (5.23 or later): the production backend, for many stateless ebbtide servers at once.

The graph lives on the server: nodes are `:EbbNode`, edges `:LINK` relationships, and every
node, edge, meta entry, review item and vector carries a `tenant` property that every query
matches on, id lookups included (Community edition has one database; a database per tenant
also works, with `?database=`). Ids are unique per tenant through composite uniqueness
constraints on `(tenant, id)`.

* Text search uses a Lucene full-text index over `words`, the text split into words as the
  other stores split it (Lucene's tokenizer alone keeps "config.py" or "snake_case" whole);
  user text is reduced to quoted terms, so it is never parsed as query syntax, and a tenant
  token is a required clause.
* The ids a node names in its attributes (`base.named_ids`: a prediction's decisions and
  lessons) sit on `:EbbName {tenant, node_id, name}` nodes, indexed by name, written with the
  node, so the nodes naming an id are an index seek (a list property is not indexed by element).
* Vectors sit on `:EbbVector` nodes, one vector index per (model, dimension) shared by all
  tenants. A tenant with few vectors of a model (`EXACT_VECTORS`) is searched exactly, by
  cosine over its own vectors found through the (tenant, model) index; a bigger one through
  the vector index, whose candidates are other tenants' too, asking for more until enough
  are its own.
* Neighbourhoods are one query per hop (UNWIND over the frontier), never one per node.
  Inserts inside a transaction are queued and sent as one UNWIND per batch just before the
  next query or the commit, so an import or a maintenance pass costs a few round trips.
* Reads outside a transaction are auto-commit queries, retried on transient errors; writes
  outside one run as the driver's managed write transactions (retried by the driver).
  `transaction()` is one explicit transaction: if it hits a transient error (a deadlock, a
  leader switch), it is replayed on a fresh transaction, and continues only if every read in
  the replay returns what it returned the first time; otherwise the error is raised.

Nothing is cached between calls but the schema check, settings for a few seconds and how many
vectors of each model the tenant had at its last search (which only picks how to search), so
replicas stay consistent through the server: a replica reads its own writes (one bookmark
manager per store), and other replicas' writes once the server has them.
"""

from __future__ import annotations

import json
import random
import threading
import time
import uuid
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from contextlib import contextmanager, suppress
from dataclasses import replace
from datetime import date
from typing import Any

import numpy as np

from ..errors import EmbeddingUnavailable, NotFound, StoreUnavailable
from ..model import Edge, Node
from ..text import indexed_words
from ._cypher import (
    SCHEMA,
    TEXT_INDEX,
    dated_within,
    lucene_query,
    lucene_terms,
    search_filter,
    tenant_token,
    vector_label,
)
from ._neo4j_tx import ReplayMismatch, Tx, retryable, values
from ._props import (
    Sequencer,
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
    NodeBrief,
    PendingReview,
    SearchFilter,
    check_tallied,
    date_columns,
    graph_arrays_from_rows,
    matches_only,
    named_ids,
    tally_value,
    window,
    wrong_size,
)

try:
    import neo4j
    from neo4j.exceptions import DriverError, Neo4jError
except ImportError:  # pragma: no cover - exercised only without the extra
    neo4j = None  # type: ignore[assignment]

__all__ = ["Neo4jStore", "ReplayMismatch"]

_SCHEMA_READY: set[tuple[str, str | None]] = set()
_SCHEMA_LOCK = threading.Lock()

BATCH = 5_000
PAGE = 1_000
RETRY_SECONDS = 30.0
META_TTL = 5.0
# A tenant with at most this many vectors of a model is searched exactly, in one round trip: a
# thousand cosines cost about what one look into a shared vector index costs, and there its
# vectors may be few among other tenants' candidates, so the index would be asked again for
# four times as many until enough were its own (several round trips, up to the whole index).
EXACT_VECTORS = 1000

_NODE_MAP = "n {.*}"
_EDGE_MAP = "r {.*, src: startNode(r).id, dst: endNode(r).id}"
# A node `n` without a vector of $model, of no bookkeeping kind ($bookkeeping).
_OWED_A_VECTOR = (
    "n.seq IS NOT NULL AND NOT n.kind IN $bookkeeping AND NOT EXISTS { "
    "MATCH (:EbbVector {tenant: $t, node_id: n.id, model: $model}) }"
)
# After a node is written from `r` (its tenant `t`, `id`, derived `names`): its `:EbbName`
# nodes, one per name, replacing those it had.
_SET_NAMES = (
    "WITH r CALL (r) { OPTIONAL MATCH (x:EbbName {tenant: r.t, node_id: r.id}) DELETE x } "
    "FOREACH (name IN r.names | CREATE (:EbbName {tenant: r.t, node_id: r.id, name: name}))"
)
_PATTERN = {"out": "(n)-[r:LINK]->()", "in": "(n)<-[r:LINK]-()", "both": "(n)-[r:LINK]-()"}
# The vector search's two heads leave `own` (the tenant's vectors of $model, counted up to
# $cap), `seen` (how many vectors were looked at) and `hits` (the tenant's whose node passes
# `cond`, as [node id, similarity]) to the tail that reads on.
_OWN_VECTORS = "MATCH (v:EbbVector {tenant: $t, model: $model}) WITH v LIMIT $cap "


def _passing(cond: str) -> str:
    """Each vector `v` whose node passes `cond` as [its node's id, its cosine (as Neo4j gives
    it), the node's successor when it is ended]."""
    return (
        f"MATCH (n:EbbNode {{tenant: $t, id: v.node_id}}) WHERE {cond} "
        "WITH v.node_id AS id, vector.similarity.cosine(v.embedding, $q) AS s, "
        "CASE WHEN n.valid_to IS NULL THEN null ELSE n.superseded_by END AS after "
    )


def _exact_head(cond: str) -> str:
    """All of the tenant's vectors when they are fewer than $cap, and the $k best of them; none
    when there are more. `hits` is null when they are of another size than the query."""
    return (
        f"CALL () {{ {_OWN_VECTORS} RETURN collect(v) AS vs }} "
        "CALL (vs) { WITH vs WHERE size(vs) < $cap AND size(vs[0].embedding) = size($q) "
        f"  UNWIND vs AS v {_passing(cond)}"
        "  ORDER BY s DESC LIMIT $k RETURN collect([id, s, after]) AS best } "
        "WITH size(vs) AS own, size(vs) AS seen, "
        "CASE WHEN vs = [] OR size(vs[0].embedding) = size($q) THEN best END AS hits "
    )


def _index_head(cond: str) -> str:
    """The $want nearest of every tenant's vectors of the query's size, and the tenant's
    among them."""
    return (
        "CALL db.index.vector.queryNodes($index, $want, $q) YIELD node AS v "
        "WITH count(*) AS seen, collect(CASE WHEN v.tenant = $t AND v.model = $model "
        "THEN v END) AS mine "
        f"CALL () {{ {_OWN_VECTORS} RETURN count(v) AS own }} "
        f"CALL (mine) {{ UNWIND mine AS v {_passing(cond)}"
        "  RETURN collect([id, s, after]) AS hits } "
        "WITH own, seen, hits "
    )


# The version of the properties derived from a node's text and attributes (`_derived_props`):
# nodes written before they existed lack it, 1 is before a time covered its calendar day, 2
# before the `words` property, 3 before its words lost their accents, 4 before the local
# spans (and a said time was a day), 5 before the ids its attributes name had their
# `:EbbName` nodes, 6 before the `tally` of the kinds counted (`tally_value`);
# `_backfill_derived` brings older nodes up to date.
SPANS_VERSION = 7


def _props(node: Node) -> dict[str, Any]:
    """A node's properties plus what is derived from them (its time spans, so time windows are
    matched by the server, and its words, which the full-text index reads)."""
    return {**node_props(node), **_derived_props(node.kind, node.text, node.attributes)}


def _derived_props(kind: str, text: str, attributes: dict[str, Any]) -> dict[str, Any]:
    """The spans an item tells of and was said in, as numbers (None removes a stale one), its
    words as ebbtide splits them (`text.indexed_words`), one space apart: Lucene's own
    tokenizer keeps "config.py", "snake_case", "Node.js", "v1.2" or "3,000" whole, and a
    search for any part of them (which is how every query is split) would find nothing; and
    what it is counted under (`tally_value`), which an index counts."""
    return {
        **date_columns(attributes),
        "words": " ".join(indexed_words(text)),
        "tally": tally_value(kind, attributes),
        "spans_version": SPANS_VERSION,
    }


class _Drivers:
    """One driver (one connection pool) per server and credentials in a process, however many
    tenants' stores use it; closed when the last store closes."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._pool: dict[tuple[str, Any], list[Any]] = {}  # key -> [driver, users]

    def acquire(self, uri: str, auth: tuple[str, str] | None) -> Any:
        key = (uri, auth)
        with self._lock:
            entry = self._pool.get(key)
            if entry is None:
                driver = neo4j.GraphDatabase.driver(
                    uri,
                    auth=auth,
                    notifications_min_severity="OFF",
                    max_connection_pool_size=100,
                    connection_acquisition_timeout=30.0,
                )
                try:
                    driver.verify_connectivity()  # fail now, not after 30 s of retries
                except BaseException:
                    driver.close()
                    raise
                entry = self._pool[key] = [driver, 0]
            entry[1] += 1
            return entry[0]

    def release(self, driver: Any) -> None:
        with self._lock:
            for key, entry in list(self._pool.items()):
                if entry[0] is driver:
                    entry[1] -= 1
                    if entry[1] <= 0:
                        del self._pool[key]
                        with suppress(Exception):
                            driver.close()
                    return


_DRIVERS = _Drivers()


class Neo4jStore:
    """One tenant's graph on a Neo4j server. Thread-safe: each thread has its own sessions and
    its own `transaction()`."""

    def __init__(
        self,
        uri: str,
        *,
        auth: tuple[str, str] | None = None,
        database: str | None = None,
        tenant: str = "default",
        url: str | None = None,
        retry_seconds: float = RETRY_SECONDS,
        driver: Any = None,
    ) -> None:
        if neo4j is None:
            raise StoreUnavailable(
                "the Neo4j backend needs the driver: pip install 'ebbtide[neo4j]'"
            )
        self.uri = uri
        self.url = url or uri
        self.database = database
        self.tenant = tenant
        self.retry_seconds = retry_seconds
        self.round_trips = 0  # queries and commits sent; see bench/backends.py
        self.replays = 0  # transactions replayed after a transient error
        self._token = tenant_token(tenant)
        self._seq = Sequencer()
        self._local = threading.local()
        self._sessions: list[Any] = []
        self._lock = threading.Lock()
        self._vector_indexes: set[str] = set()
        self._meta: dict[str, tuple[float, str | None]] = {}
        self._own_vectors: dict[str, int] = {}  # per model, as the last search counted
        self._driver: Any = driver
        self._shared = driver is None
        try:
            if self._shared:
                self._driver = _DRIVERS.acquire(uri, auth)
            self._bookmarks = neo4j.GraphDatabase.bookmark_manager()
            self._ensure_schema()
        except (Neo4jError, DriverError, ValueError) as exc:
            self.close()
            raise StoreUnavailable(f"cannot open Neo4j store at {self.url}: {exc}") from exc

    # plumbing -------------------------------------------------------------------------------

    def _new_session(self, *, write: bool) -> Any:
        mode = neo4j.WRITE_ACCESS if write else neo4j.READ_ACCESS
        return self._driver.session(
            database=self.database, default_access_mode=mode, bookmark_manager=self._bookmarks
        )

    def _session(self, *, write: bool) -> Any:
        """This thread's session for auto-commit queries, one for reads, one for writes."""
        name = "write_session" if write else "read_session"
        session = getattr(self._local, name, None)
        if session is None:
            session = self._new_session(write=write)
            setattr(self._local, name, session)
            with self._lock:
                self._sessions.append(session)
        return session

    def _translate(self, exc: BaseException) -> BaseException:
        if isinstance(exc, neo4j.exceptions.ServiceUnavailable | neo4j.exceptions.SessionExpired):
            return StoreUnavailable(f"Neo4j at {self.url} is unreachable: {exc}")
        if isinstance(exc, neo4j.exceptions.TransientError):
            return StoreUnavailable(f"Neo4j kept failing transiently: {exc}")
        return exc

    def _ensure_schema(self) -> None:
        key = (self.uri, self.database)
        with _SCHEMA_LOCK:
            if key in _SCHEMA_READY:
                return
            present = set(
                self._driver.execute_query(
                    "SHOW INDEXES YIELD name RETURN collect(name)", database_=self.database
                ).records[0][0]
            )
            missing = [q for name, q in SCHEMA.items() if name not in present]
            for q in missing:
                with suppress(neo4j.exceptions.ClientError):  # another replica raced us
                    self._driver.execute_query(q, database_=self.database)
            if missing:
                self._driver.execute_query("CALL db.awaitIndexes(300)", database_=self.database)
            self._backfill_derived()
            _SCHEMA_READY.add(key)

    def _backfill_derived(self) -> None:
        """Give nodes written before the derived properties existed (or changed) their current
        ones, once, in pages (every tenant's: the check runs once per server and database)."""
        while True:
            rows = self._driver.execute_query(
                "MATCH (n:EbbNode) WHERE n.spans_version IS NULL OR n.spans_version < $v "
                "RETURN n.tenant, n.id, n.kind, n.text, n.attributes LIMIT $page",
                v=SPANS_VERSION,
                page=PAGE,
                database_=self.database,
            ).records
            if not rows:
                return
            updates = []
            for tenant, ident, kind, text, attributes in rows:
                attrs = json.loads(attributes or "{}")
                p = _derived_props(kind, text or "", attrs)
                updates.append({"t": tenant, "id": ident, "p": p, "names": named_ids(kind, attrs)})
            self._driver.execute_query(
                "UNWIND $rows AS r MATCH (n:EbbNode {tenant: r.t, id: r.id}) SET n += r.p "
                + _SET_NAMES,
                rows=updates,
                database_=self.database,
            )

    def _run(
        self,
        cypher: str,
        *,
        write: bool = False,
        expect: int | None = None,
        autocommit: bool = False,
        **params: Any,
    ) -> list[list[Any]]:
        """Run one query as this tenant, inside the thread's transaction if there is one.

        `expect`: the first value of the first row must equal it, or the whole write rolls
        back (a missing endpoint, say). `autocommit`: a write outside a transaction goes in one
        round trip instead of two, retried like a read; only for writes that may be applied
        twice after an ambiguous failure (usage counters)."""
        params["t"] = self.tenant
        edge_rows = params.pop("edge_rows", [])
        tx: Tx | None = getattr(self._local, "tx", None)
        if tx is not None and tx.pending:
            self._flush(tx)
        self.round_trips += 1
        if tx is not None:
            rows = tx.run(cypher, params)
            _check(rows, expect, edge_rows)
            return rows
        if write and autocommit:
            return self._retrying(lambda: values(self._session(write=True).run(cypher, params)))
        if write:

            def work(t: Any) -> list[list[Any]]:
                rows = values(t.run(cypher, params))
                _check(rows, expect, edge_rows)
                return rows

            self.round_trips += 1  # the commit
            session = self._new_session(write=True)
            try:
                return session.execute_write(work)
            except (Neo4jError, DriverError) as exc:
                raise self._translate(exc) from exc
            finally:
                session.close()
        return self._read(cypher, params)

    def _read(self, cypher: str, params: dict[str, Any]) -> list[list[Any]]:
        """An auto-commit read, retried: what is committed, whatever transaction is open."""
        return self._retrying(lambda: values(self._session(write=False).run(cypher, params)))

    def _list(self, cypher: str, **params: Any) -> list[Any]:
        """A read that returns one row holding one collected list: one Bolt message for the
        whole answer instead of one per row (each costs the driver two socket reads)."""
        rows = self._run(cypher, **params)
        return rows[0][0] if rows else []

    def _retrying(self, fn: Callable[[], list[list[Any]]]) -> list[list[Any]]:
        deadline = time.monotonic() + self.retry_seconds
        delay = 0.05
        while True:
            try:
                return fn()
            except Exception as exc:
                if not retryable(exc) or time.monotonic() > deadline:
                    raise self._translate(exc) from exc
                self._drop_sessions()
                time.sleep(delay * (0.5 + random.random()))
                delay = min(delay * 2, 1.0)

    def _drop_sessions(self) -> None:
        for name in ("read_session", "write_session"):
            session = getattr(self._local, name, None)
            setattr(self._local, name, None)
            if session is not None:
                with suppress(Exception):
                    session.close()
                with self._lock, suppress(ValueError):
                    self._sessions.remove(session)

    def _insert(self, kind: str, rows: list[dict[str, Any]]) -> None:
        """Queue inserts in the thread's transaction (merging with the last batch of the same
        kind); outside one, write them now in their own."""
        if not rows:
            return
        with self.transaction():
            tx: Tx = self._local.tx
            if tx.pending and tx.pending[-1][0] == kind:
                tx.pending[-1][1].extend(rows)
            else:
                tx.pending.append((kind, rows))

    def _flush(self, tx: Tx) -> None:
        """Send the queued inserts: as one query while they fit in a batch (a `remember` with
        its links is one round trip), else one query per batch."""
        pending, tx.pending = tx.pending, []
        parts: list[str] = []
        params: dict[str, Any] = {}
        edge_rows: list[dict[str, Any]] = []
        size = 0

        def send() -> None:
            nonlocal parts, params, edge_rows, size
            if not parts:
                return
            counts = [f"c{i}" for i, part in enumerate(parts) if "RETURN" in part]
            made = " + ".join(counts) if counts else "0"
            self._run(
                " ".join(parts) + f" RETURN {made}",
                expect=len(edge_rows),
                edge_rows=edge_rows,
                **params,
            )
            parts, params, edge_rows, size = [], {}, [], 0

        for kind, rows in pending:
            for batch in chunked(rows, BATCH):
                if size + len(batch) > BATCH:
                    send()
                i = len(parts)
                params[f"r{i}"] = batch
                size += len(batch)
                if kind == "nodes":
                    parts.append(f"CALL () {{ UNWIND $r{i} AS p CREATE (n:EbbNode) SET n = p }}")
                elif kind == "names":
                    parts.append(f"CALL () {{ UNWIND $r{i} AS p CREATE (x:EbbName) SET x = p }}")
                else:
                    edge_rows.extend(batch)
                    parts.append(
                        f"CALL () {{ UNWIND $r{i} AS row "
                        "MATCH (a:EbbNode {tenant: $t, id: row.src}) "
                        "MATCH (b:EbbNode {tenant: $t, id: row.dst}) "
                        f"CREATE (a)-[r:LINK]->(b) SET r = row.p RETURN count(r) AS c{i} }}"
                    )
        send()

    @contextmanager
    def transaction(self) -> Iterator[None]:
        if getattr(self._local, "tx", None) is not None:
            yield
            return
        tx = self._local.tx = Tx(self)
        try:
            yield
            tx.commit()  # the queued inserts go out first, inside it
        except BaseException:
            tx.rollback()
            self._meta.clear()  # it may hold a setting this transaction wrote
            raise
        finally:
            self._local.tx = None

    def ping(self) -> None:
        """One read, tried once: whoever asks (a readiness probe) wants to know whether Neo4j
        answers now, not after the `retry_seconds` a tool's call rides out."""
        self.round_trips += 1
        try:
            self._session(write=False).run("RETURN 1").consume()
        except (Neo4jError, DriverError) as exc:
            self._drop_sessions()
            raise self._translate(exc) from exc

    def close(self) -> None:
        with self._lock:
            sessions, self._sessions = self._sessions, []
        for s in sessions:
            with suppress(Exception):
                s.close()
        if self._shared and self._driver is not None:
            _DRIVERS.release(self._driver)
        self._driver = None

    # nodes ----------------------------------------------------------------------------------

    def _node_rows(self, nodes: Sequence[Node]) -> list[dict[str, Any]]:
        rows = []
        for node, seq in zip(nodes, self._seq.take(len(nodes)), strict=True):
            p = {k: v for k, v in _props(node).items() if v is not None}
            p.update(tenant=self.tenant, tenant_token=self._token, seq=seq)
            rows.append(p)
        return rows

    def add_node(self, node: Node) -> None:
        self.add_nodes([node])

    def add_nodes(self, nodes: Sequence[Node]) -> None:
        """Bulk insert: one UNWIND per batch, in one transaction."""
        names = [
            {"tenant": self.tenant, "node_id": n.id, "name": name}
            for n in nodes
            for name in named_ids(n.kind, n.attributes)
        ]
        rows = self._node_rows(nodes)
        with self.transaction():
            self._insert("nodes", rows)
            self._insert("names", names)
            tx: Tx = self._local.tx
            tx.created_nodes.update(n.id for n in nodes)
            for node, row in zip(nodes, rows, strict=True):
                tx.wrote({**node_props(node), "seq": row["seq"]}, node.text, created=True)

    def update_node(self, node: Node) -> None:
        names = named_ids(node.kind, node.attributes)
        r = {"t": self.tenant, "id": node.id, "p": _props(node), "names": names}
        self._run(
            "UNWIND [$r] AS r MATCH (n:EbbNode {tenant: r.t, id: r.id}) SET n += r.p " + _SET_NAMES,
            write=True,
            r=r,
        )
        tx: Tx | None = getattr(self._local, "tx", None)
        if tx is not None and tx.overlay is not None:
            # Its seq only orders equal scores: the one the overlay has, else the oldest.
            was = tx.overlay.nodes.get(node.id)
            seq = 0 if was is None else was.seq
            tx.wrote({**node_props(node), "seq": seq}, node.text, created=False)

    def get_nodes(self, ids: Sequence[str]) -> dict[str, Node]:
        if not ids:  # no round trip for nothing
            return {}
        found = self._list(
            f"UNWIND $ids AS i MATCH (n:EbbNode {{tenant: $t, id: i}}) RETURN collect({_NODE_MAP})",
            ids=unique(ids),
        )
        return {p["id"]: props_node(p) for p in found}

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
        where = ["n.tenant = $t", "n.seq IS NOT NULL"]
        params: dict[str, Any] = {"limit": limit}
        if kind is not None:
            where.append("n.kind = $kind")
            params["kind"] = kind
        if text is not None:
            where.append("n.text_hash = $hash AND n.text = $text")
            params.update(hash=text_hash(text), text=text)
        if scope is not None:
            where.append("n.scope = $scope")
            params["scope"] = scope
        if attribute is not None:
            needle = attribute_needle(*attribute)
            if needle is None:
                return []
            where.append("$needle IN n.attr_keys")
            params["needle"] = needle
        if valid_only:
            where.append("n.valid_to IS NULL")
        found = self._list(
            f"MATCH (n:EbbNode) WHERE {' AND '.join(where)} "
            f"WITH n ORDER BY n.created_at, n.seq LIMIT $limit RETURN collect({_NODE_MAP})",
            **params,
        )
        return [props_node(p) for p in found]

    def delete_node(self, node_id: str) -> int:
        tx: Tx | None = getattr(self._local, "tx", None)
        if tx is not None:  # what it knew about new nodes' edges may no longer hold
            tx.created_nodes.clear()
            tx.created_edges.clear()
            tx.deleted(node_id)
        rows = self._run(
            "CALL () { OPTIONAL MATCH (r:EbbReview {tenant: $t, node_id: $id}) DELETE r } "
            "CALL () { OPTIONAL MATCH (c:EbbCooldown {tenant: $t, node_id: $id}) DELETE c } "
            "CALL () { OPTIONAL MATCH (v:EbbVector {tenant: $t, node_id: $id}) "
            "  WHERE v.model IS NOT NULL DELETE v } "
            "CALL () { OPTIONAL MATCH (x:EbbName {tenant: $t, node_id: $id}) DELETE x } "
            "OPTIONAL MATCH (n:EbbNode {tenant: $t, id: $id}) "
            "OPTIONAL MATCH (n)-[r:LINK]-() "
            "WITH n, count(DISTINCT r) AS removed DETACH DELETE n RETURN removed",
            write=True,
            id=node_id,
        )
        return int(rows[0][0]) if rows else 0

    def tally(self, kind: str) -> dict[str, int]:
        check_tallied(kind)
        # Counted from the entries of the index that holds the values, so no node is read (left
        # alone, the planner may read every node of the kind through the kind's index); every
        # tally is a string, and a range on it lets the planner seek the tenant's entries.
        rows = self._run(
            "MATCH (n:EbbNode) USING INDEX n:EbbNode(tenant, kind, tally) "
            "WHERE n.tenant = $t AND n.kind = $kind AND n.tally >= '' "
            "RETURN n.tally, count(*)",
            kind=kind,
        )
        return {str(value): int(n) for value, n in rows}

    def latest_nodes(self, kind: str, limit: int) -> list[Node]:
        check_tallied(kind)
        found = self._list(
            # The kind's nodes only (left alone, the planner may walk all the tenant's by seq),
            # each read for its time and seq, and only the latest `limit` returned.
            "MATCH (n:EbbNode) USING INDEX n:EbbNode(tenant, kind) "
            "WHERE n.tenant = $t AND n.kind = $kind "
            "WITH n ORDER BY n.created_at DESC, n.seq DESC LIMIT $limit "
            f"RETURN collect({_NODE_MAP})",
            kind=kind,
            limit=limit,
        )
        return [props_node(p) for p in reversed(found)]

    def nodes_naming(self, ids: Iterable[str]) -> list[Node]:
        found = self._list(
            "UNWIND $ids AS i MATCH (x:EbbName {tenant: $t, name: i}) "
            "WITH DISTINCT x.node_id AS node MATCH (n:EbbNode {tenant: $t, id: node}) "
            f"WITH n ORDER BY n.created_at, n.seq RETURN collect({_NODE_MAP})",
            ids=unique(list(ids)),
        )
        return [props_node(p) for p in found]

    def iter_nodes(self) -> Iterator[Node]:
        after = -1
        while True:
            page = self._list(
                f"MATCH (n:EbbNode {{tenant: $t}}) WHERE n.seq > $after "
                f"WITH n ORDER BY n.seq LIMIT {PAGE} RETURN collect({_NODE_MAP})",
                after=after,
            )
            if not page:
                return
            after = page[-1]["seq"]
            for p in page:
                yield props_node(p)

    # edges ----------------------------------------------------------------------------------

    def add_edge(self, edge: Edge) -> None:
        self.add_edges([edge])

    def add_edges(self, edges: Sequence[Edge]) -> None:
        """Bulk insert: one UNWIND per batch, in one transaction. Both ends must exist."""
        rows = [
            {"src": e.src, "dst": e.dst, "p": {**edge_props(e), "tenant": self.tenant, "seq": s}}
            for e, s in zip(edges, self._seq.take(len(edges)), strict=True)
        ]
        with self.transaction():
            self._insert("edges", rows)
            made = self._local.tx.created_edges
            for e, row in zip(edges, rows, strict=True):
                made[(e.src, e.dst, e.relation)] = props_edge({**row["p"], **row})

    def update_edge(self, edge: Edge) -> None:
        tx: Tx | None = getattr(self._local, "tx", None)
        if tx is not None and (key := (edge.src, edge.dst, edge.relation)) in tx.created_edges:
            p = {**edge_props(edge), "src": edge.src, "dst": edge.dst}
            tx.created_edges[key] = props_edge(p)
        self._run(
            "MATCH ()-[r:LINK {tenant: $t, id: $id}]->() SET r += $p",
            write=True,
            id=edge.id,
            p=edge_props(edge),
        )

    def get_edge(self, src: str, dst: str, relation: str) -> Edge | None:
        tx: Tx | None = getattr(self._local, "tx", None)
        if tx is not None and (src in tx.created_nodes or dst in tx.created_nodes):
            made = tx.created_edges.get((src, dst, relation))  # no round trip (see Tx)
            return None if made is None else made.model_copy()
        rows = self._run(
            "MATCH (:EbbNode {tenant: $t, id: $src})-[r:LINK {relation: $rel}]->"
            f"(:EbbNode {{tenant: $t, id: $dst}}) RETURN {_EDGE_MAP} LIMIT 1",
            src=src,
            dst=dst,
            rel=relation,
        )
        return props_edge(rows[0][0]) if rows else None

    def edges_of(
        self, node_ids: Iterable[str], *, direction: Direction = "both", valid_only: bool = True
    ) -> list[Edge]:
        valid = "WHERE r.valid_to IS NULL " if valid_only else ""
        found = self._list(
            f"UNWIND $ids AS i MATCH (n:EbbNode {{tenant: $t, id: i}}) "
            f"MATCH {_PATTERN[direction]} {valid}"
            f"WITH DISTINCT r ORDER BY r.seq RETURN collect({_EDGE_MAP})",
            ids=unique(list(node_ids)),
        )
        return [props_edge(p) for p in found]

    def iter_edges(self) -> Iterator[Edge]:
        after = -1
        while True:
            page = self._list(
                f"MATCH ()-[r:LINK]->() WHERE r.tenant = $t AND r.seq > $after "
                f"WITH r ORDER BY r.seq LIMIT {PAGE} RETURN collect([{_EDGE_MAP}, r.seq])",
                after=after,
            )
            if not page:
                return
            after = page[-1][1]
            for p, _ in page:
                yield props_edge(p)

    def get_edges(self, ids: Sequence[str]) -> dict[str, Edge]:
        found = self._list(
            f"UNWIND $ids AS i MATCH ()-[r:LINK {{tenant: $t, id: i}}]->() "
            f"RETURN collect({_EDGE_MAP})",
            ids=unique(ids),
        )
        return {p["id"]: props_edge(p) for p in found}

    def find_edges(
        self,
        *,
        relations: Iterable[str] | None = None,
        task_tag: str | None = None,
        valid_only: bool = True,
        limit: int = 1000,
    ) -> list[Edge]:
        where = ["r.tenant = $t"]
        params: dict[str, Any] = {"limit": limit}
        if relations is not None:
            where.append("r.relation IN $rels")
            params["rels"] = sorted(relations)
        else:
            where.append("r.seq IS NOT NULL")
        if task_tag is not None:
            where.append("r.task_tag = $tag")
            params["tag"] = task_tag
        if valid_only:
            where.append("r.valid_to IS NULL")
        found = self._list(
            f"MATCH ()-[r:LINK]->() WHERE {' AND '.join(where)} "
            f"WITH r ORDER BY r.seq LIMIT $limit RETURN collect({_EDGE_MAP})",
            **params,
        )
        return [props_edge(p) for p in found]

    def adjacent(
        self,
        node_ids: Iterable[str],
        *,
        direction: Direction = "both",
        relations: frozenset[str] | None = None,
        reach: SearchFilter | None = None,
    ) -> list[EdgeRow]:
        only = " AND r.relation IN $relations" if relations is not None else ""
        cond, params = "true", {}
        if reach is not None:  # both ends: the filter's parameters are the same for each
            (near, params), (far, _) = search_filter(reach, "n"), search_filter(reach, "m")
            cond = f"{near} AND {far}"
        found = self._list(
            f"UNWIND $ids AS i MATCH (n:EbbNode {{tenant: $t, id: i}}) "
            f"MATCH {_PATTERN[direction].replace('()', '(m)')} "
            f"WHERE r.valid_to IS NULL{only} AND {cond} WITH DISTINCT r "
            "RETURN collect([r.id, startNode(r).id, endNode(r).id, r.relation, r.weight, "
            "r.last_reinforced_at])",
            ids=unique(list(node_ids)),
            relations=sorted(relations or ()),
            **params,
        )
        return [EdgeRow(*r) for r in found]

    # retrieval ------------------------------------------------------------------------------

    def _overlaid(self) -> Tx | None:
        """The thread's transaction when its full-text reads go to the committed index and
        its overlay (`Tx.overlaid`), else None: they go to Neo4j, in it if there is one."""
        tx: Tx | None = getattr(self._local, "tx", None)
        return tx if tx is not None and tx.overlaid() else None

    def _committed(self, cypher: str, **params: Any) -> list[list[Any]]:
        """A read of what is committed, outside the thread's transaction (auto-commit, retried),
        its queued inserts left queued."""
        params["t"] = self.tenant
        self.round_trips += 1
        return self._read(cypher, params)

    def _merged_search(
        self, tx: Tx, query: str, k: int, flt: SearchFilter
    ) -> list[tuple[str, float]]:
        """The `k` best matches as the transaction sees them: the committed index's, less the
        nodes the transaction changed or deleted, and the overlay's of what it wrote.

        Scores compare as Neo4j's own do inside a transaction, which holds what it wrote in an
        index of its own and merges that index's hits with the committed one's by score: the
        overlay scores its nodes with Lucene's BM25 (same K1, B and idf) over its own counts.
        Scoring both as one corpus would need each query word's count in the committed index,
        a count per word and search over the very index whose cost this avoids."""
        cond, params = search_filter(flt)
        terms = lucene_terms(query)
        found = self._committed(
            f"CALL db.index.fulltext.queryNodes('{TEXT_INDEX}', $q) YIELD node AS n, score "
            f"WHERE n.tenant = $t AND {cond} AND NOT n.id IN $stale WITH n, score LIMIT $k "
            "RETURN collect([n.id, score])",
            q=lucene_query(query, self._token),
            k=k,
            stale=sorted(tx.stale),
            **params,
        )[0][0]
        assert tx.overlay is not None  # tx.overlaid()
        hits = [(i, float(s)) for i, s in found] + tx.overlay.any_of(terms, k, flt)
        return sorted(hits, key=lambda h: -h[1])[:k]

    def text_search(self, query: str, k: int, flt: SearchFilter) -> list[tuple[str, float]]:
        q = lucene_query(query, self._token)
        if q is None:
            return []
        if (tx := self._overlaid()) is not None:
            return self._merged_search(tx, query, k, flt)
        cond, params = search_filter(flt)
        found = self._list(
            f"CALL db.index.fulltext.queryNodes('{TEXT_INDEX}', $q) YIELD node AS n, score "
            f"WHERE n.tenant = $t AND {cond} WITH n, score LIMIT $k "
            "RETURN collect([n.id, score])",
            q=q,
            k=k,
            **params,
        )
        return [(i, float(score)) for i, score in found]

    def text_search_read(
        self, query: str, k: int, flt: SearchFilter, *, read: int, relations: frozenset[str]
    ) -> Matches:
        # Over a network each round trip costs more than reading these: recall's next reads
        # (the best matches in full, their links, what those reach) go with the search.
        q = lucene_query(query, self._token)
        if q is None:
            return matches_only([])
        cond, params = search_filter(flt)
        # Links only between nodes the query may return: an ended match is read, not followed.
        plain = replace(flt, with_successors=False)
        (near, _), (far, _) = search_filter(plain, "n"), search_filter(plain, "m")
        head = (
            f"CALL db.index.fulltext.queryNodes('{TEXT_INDEX}', $q) YIELD node AS n, score "
            f"WHERE n.tenant = $t AND {cond} WITH n, score LIMIT $k "
        )
        if (tx := self._overlaid()) is not None:
            # The matches found outside the transaction, what they lead to read in it.
            found = self._merged_search(tx, query, k, flt)
            if not found:
                return matches_only([])
            head = "UNWIND $found AS h MATCH (n:EbbNode {tenant: $t, id: h[0]}) "
            head += "WITH n, h[1] AS score "
            params["found"] = [list(h) for h in found]
        rows = self._run(
            head
            # recall's order (`creation_key`), so the links are read in the order it asks
            + "WITH n, score ORDER BY score DESC, split(n.id, '_')[-1] DESC "
            "WITH collect([n, score]) AS hits "
            "WITH hits, [h IN hits[..$read] | h[0]] AS best "
            "CALL (best) { UNWIND best AS n OPTIONAL MATCH (n)-[r:LINK]-(m) "
            f"  WHERE r.valid_to IS NULL AND r.relation IN $relations AND {near} AND {far} "
            "  RETURN collect(DISTINCT r) AS rs, collect(DISTINCT m) AS ms } "
            "RETURN [h IN hits | [h[0].id, h[1], "
            "CASE WHEN h[0].valid_to IS NULL THEN null ELSE h[0].superseded_by END]], "
            f"[n IN best | {_NODE_MAP}], "
            "[r IN rs | [r.id, startNode(r).id, endNode(r).id, r.relation, r.weight, "
            "r.last_reinforced_at]], "
            "[m IN ms + [h IN hits[$read..] | h[0]] | [m.id, m.activation, m.q_value]]",
            q=q,
            k=k,
            read=read,
            relations=sorted(relations),
            **params,
        )
        hits, best, links, briefs = rows[0]
        nodes = {p["id"]: props_node(p) for p in best}
        return Matches(
            [(i, float(score)) for i, score, _ in hits],
            nodes,
            frozenset(nodes),
            [EdgeRow(*r) for r in links],
            {i: NodeBrief(float(a or 0.0), qv) for i, a, qv in briefs},
            {i: after for i, _, after in hits if after},
        )

    def time_search(
        self, start: date, end: date, k: int, flt: SearchFilter
    ) -> list[tuple[str, float]]:
        # The spans are numeric properties written with the node (see _props), so the window
        # is matched and ordered on the server and only k rows come back; `rank_by_time` is
        # the same order, held together with this query by the conformance suite.
        cond, params = search_filter(flt)
        w = window(start, end)
        told, said = dated_within(w, "$lo", "$hi")
        found = self._list(
            f"MATCH (n:EbbNode {{tenant: $t}}) WHERE {cond} AND ({told} OR {said}) "
            f"WITH n, CASE WHEN {told} THEN 0 ELSE 1 END AS o "
            "WITH n, o, CASE o WHEN 0 THEN n.told_from ELSE n.said_from END AS at "
            "ORDER BY o, at, n.id LIMIT $k RETURN collect([n.id, at])",
            lo=w.lo,
            hi=w.hi,
            k=k,
            **params,
        )
        return [(i, float(at)) for i, at in found]

    def doc_frequencies(
        self, groups: Sequence[Sequence[str]], cap: int, flt: SearchFilter
    ) -> list[int]:
        queries = [lucene_query(" ".join(g), self._token) for g in groups]
        asked = [q for q in queries if q is not None]
        if not asked:
            return [0] * len(groups)
        cond, params = search_filter(flt)

        def count(also: str) -> str:
            return (
                "UNWIND $qs AS q CALL (q) { "
                f"CALL db.index.fulltext.queryNodes('{TEXT_INDEX}', q) YIELD node AS n "
                f"WHERE n.tenant = $t AND {cond}{also} WITH n LIMIT $cap RETURN count(n) AS c }} "
                "RETURN collect(c)"
            )

        if (tx := self._overlaid()) is None:
            counts = iter(self._list(count(""), qs=asked, cap=cap, **params))
            return [0 if q is None else int(next(counts)) for q in queries]
        # The committed nodes the transaction left as they were, and those it wrote.
        assert tx.overlay is not None  # tx.overlaid()
        rows = self._committed(
            count(" AND NOT n.id IN $stale"),
            qs=asked,
            cap=cap,
            stale=sorted(tx.stale),
            **params,
        )
        counts = iter(rows[0][0])
        overlay = tx.overlay
        words = [" ".join(lucene_terms(" ".join(g))) for g in groups]
        return [
            0 if q is None else min(cap, int(next(counts)) + overlay.holding_any(w, cap, flt))
            for q, w in zip(queries, words, strict=True)
        ]

    def first_dated(self, spans: Sequence[tuple[date, date]], flt: SearchFilter) -> int | None:
        # One query per kind of bounds (local or instant) among the spans, since the
        # properties a condition reads are named in it: the years of one date make one.
        cond, params = search_filter(flt)
        windows = [window(a, b) for a, b in spans]
        kinds: dict[tuple[bool, bool], list[int]] = {}
        for i, w in enumerate(windows):
            kinds.setdefault((w.lo_local, w.hi_local), []).append(i)
        found: list[int] = []
        for at in kinds.values():
            told, said = dated_within(windows[at[0]], "$los[j]", "$his[j]")
            found.extend(
                at[j]
                for j in self._list(
                    "UNWIND range(0, size($los) - 1) AS j WITH j WHERE EXISTS { "
                    f"MATCH (n:EbbNode {{tenant: $t}}) WHERE {cond} AND ({told} OR {said}) }} "
                    "RETURN collect(j)",
                    los=[windows[i].lo for i in at],
                    his=[windows[i].hi for i in at],
                    **params,
                )
            )
        return min(found) if found else None

    def filter_ids(self, ids: Iterable[str], flt: SearchFilter) -> set[str]:
        cond, params = search_filter(flt)
        return set(
            self._list(
                f"UNWIND $ids AS i MATCH (n:EbbNode {{tenant: $t, id: i}}) WHERE {cond} "
                "RETURN collect(n.id)",
                ids=unique(list(ids)),
                **params,
            )
        )

    def briefs(self, ids: Iterable[str]) -> dict[str, NodeBrief]:
        wanted = unique(list(ids))
        if not wanted:
            return {}
        found = self._list(
            "UNWIND $ids AS i MATCH (n:EbbNode {tenant: $t, id: i}) "
            "RETURN collect([n.id, n.activation, n.q_value])",
            ids=wanted,
        )
        return {i: NodeBrief(float(a or 0.0), q) for i, a, q in found}

    # vectors --------------------------------------------------------------------------------

    def _ensure_vector_index(self, model: str, dim: int) -> tuple[str, str]:
        label, index = vector_label(model, dim)
        if index not in self._vector_indexes:
            # Schema changes cannot share a transaction with data: their own auto-commit.
            self._driver.execute_query(
                f"CREATE VECTOR INDEX {index} IF NOT EXISTS FOR (v:{label}) ON v.embedding "
                f"OPTIONS {{indexConfig: {{`vector.dimensions`: {int(dim)}, "
                "`vector.similarity_function`: 'cosine'}}",
                database_=self.database,
            )
            self._driver.execute_query(
                "CALL db.awaitIndex($name, 300)", name=index, database_=self.database
            )
            self._vector_indexes.add(index)
        return label, index

    def put_vectors(self, model: str, items: Sequence[tuple[str, np.ndarray]]) -> None:
        latest = {i: np.asarray(v, dtype=np.float32) for i, v in items}
        by_dim: dict[int, list[dict[str, Any]]] = {}
        for ident, vec in latest.items():
            by_dim.setdefault(int(vec.size), []).append({"id": ident, "vec": vec.tolist()})
        with self.transaction():
            stored = self._run(
                "MATCH (v:EbbVector {tenant: $t, model: $model}) RETURN size(v.embedding) LIMIT 1",
                model=model,
            )
            size = int(stored[0][0]) if stored else next(iter(by_dim), 0)
            for dim in by_dim:
                if dim != size:
                    raise EmbeddingUnavailable(wrong_size(model, dim, size))
            labels = {dim: self._ensure_vector_index(model, dim)[0] for dim in by_dim}
            for dim, rows in by_dim.items():
                for batch in chunked(rows, BATCH):
                    self._run(
                        "UNWIND $rows AS row MATCH (:EbbNode {tenant: $t, id: row.id}) "
                        "OPTIONAL MATCH (old:EbbVector {tenant: $t, node_id: row.id, "
                        "model: $model}) DETACH DELETE old "
                        f"CREATE (v:EbbVector:{labels[dim]} "
                        "{tenant: $t, node_id: row.id, model: $model}) "
                        "WITH v, row CALL db.create.setNodeVectorProperty(v, 'embedding', row.vec)",
                        write=True,
                        rows=batch,
                        model=model,
                    )

    def vector_search(
        self, model: str, query: np.ndarray, k: int, flt: SearchFilter
    ) -> list[tuple[str, float]]:
        return self._vector_search(model, query, k, flt, "RETURN own, seen, hits").hits

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
        # As with the word search: what recall reads next of the candidates the words did not
        # read (them, their links, what those reach) goes with the search, not in three round
        # trips after it. A match found by vectors alone, ranked j-th, is below j vector and
        # the first j word matches (its fused score is below all of theirs): when those are
        # `read` or more, it cannot be among the `read` best.
        # Links only between nodes the query may return: an ended match is not read ahead.
        far, _ = search_filter(replace(flt, with_successors=False), "m")
        return self._vector_search(
            model,
            query,
            k,
            flt,
            # recall's order (`creation_key`), so what is read is what it would ask for
            "CALL (hits) { UNWIND hits AS h WITH h WHERE h[2] IS NULL "
            "  ORDER BY h[1] DESC, split(h[0], '_')[-1] DESC "
            "  RETURN collect(h[0])[..$k] AS ranked } "
            "WITH own, seen, hits, ranked, [j IN range(0, size(ranked) - 1) WHERE "
            "  CASE WHEN $place[ranked[j]] IS NULL "
            "  THEN j + size($words[..j]) - size([i IN ranked[..j] WHERE $place[i] < j]) < $read "
            "  ELSE $place[ranked[j]] >= $read END | ranked[j]] AS fresh "
            "CALL (fresh) { UNWIND fresh AS i "
            "  MATCH (n:EbbNode {tenant: $t, id: i}) OPTIONAL MATCH (n)-[r:LINK]-(m) "
            f"  WHERE r.valid_to IS NULL AND r.relation IN $relations AND {far} "
            "  RETURN collect(DISTINCT n) AS best, collect(DISTINCT r) AS rs, "
            "  collect(DISTINCT m) AS ms } "
            "CALL (ranked, fresh) { "
            "  UNWIND [i IN ranked WHERE $place[i] IS NULL AND NOT i IN fresh] AS i "
            "  MATCH (n:EbbNode {tenant: $t, id: i}) RETURN collect(n) AS rest } "
            f"RETURN own, seen, hits, [n IN best | {_NODE_MAP}], "
            "[r IN rs | [r.id, startNode(r).id, endNode(r).id, r.relation, r.weight, "
            "r.last_reinforced_at]], [m IN ms + rest | [m.id, m.activation, m.q_value]]",
            read=read,
            relations=sorted(relations),
            words=list(words),
            place={i: r for r, i in enumerate(words)},
        )

    def _vector_search(
        self, model: str, query: np.ndarray, k: int, flt: SearchFilter, tail: str, **extra: Any
    ) -> Matches:
        """The vector search, `tail` reading on from its `own`, `seen` and `hits`: either just
        those, or those and what `vector_search_read` reads with them. A tenant with few
        vectors of the model (or not known to have many) is searched exactly; the count that
        search returns tells when the tenant has grown, and the index search's when it has
        shrunk, so no extra round trip is spent on the count."""
        q = np.asarray(query, dtype=np.float32)
        cond, params = search_filter(flt)
        params.update(extra, model=model, q=q.tolist(), k=k, cap=EXACT_VECTORS + 1)
        rows: list[list[Any]] = []
        if self._own_vectors.get(model, 0) <= EXACT_VECTORS:
            rows = self._run(_exact_head(cond) + tail, **params)
            own, _, hits, *_ = rows[0]
            self._own_vectors[model] = own
            if hits is None:
                stored = self._stored_size(model) or 0
                raise EmbeddingUnavailable(wrong_size(model, int(q.size), stored))
            if own > EXACT_VECTORS:
                rows = []
        if not rows:
            rows = self._index_search(model, int(q.size), k, _index_head(cond) + tail, params)
            if not rows:
                return matches_only([])
            self._own_vectors[model] = rows[0][0]
        _, _, hits, *ahead = rows[0]
        # Neo4j reports cosine as (1 + cos) / 2; callers expect the cosine itself.
        ranked = sorted(((i, 2.0 * float(s) - 1.0) for i, s, _ in hits), key=lambda h: -h[1])
        ranked = ranked[:k]
        kept = {i for i, _ in ranked}
        replaced = {i: after for i, _, after in hits if after and i in kept}
        if not ahead:
            return matches_only(ranked, replaced)
        best, links, briefs = ahead
        nodes = {p["id"]: props_node(p) for p in best}
        return Matches(
            ranked,
            nodes,
            frozenset(nodes),
            [EdgeRow(*r) for r in links],
            {i: NodeBrief(float(a or 0.0), qv) for i, a, qv in briefs},
            replaced,
        )

    def _index_search(
        self, model: str, size: int, k: int, cypher: str, params: dict[str, Any]
    ) -> list[list[Any]]:
        """`cypher` over the vector index asking for $want candidates, four times more each time
        too few of them are the tenant's; no rows when no index holds vectors of this size."""
        _, index = vector_label(model, size)
        want = max(4 * k, 40)
        while True:
            try:
                rows = self._run(cypher, index=index, want=want, **params)
            except neo4j.exceptions.ClientError as exc:
                msg = str(exc).lower()
                if "index" in msg and ("exist" in msg or "no such" in msg):
                    # Nothing was ever stored for this model at this size: at another?
                    stored = self._stored_size(model)
                    if stored is not None:
                        raise EmbeddingUnavailable(wrong_size(model, size, stored)) from exc
                    return []
                raise
            _, seen, hits, *_ = rows[0]
            if not hits and seen < want:
                # The index at this size may be other tenants' alone, this one's vectors
                # being of another size: the reason, not an empty answer.
                stored = self._stored_size(model)
                if stored is not None and stored != size:
                    raise EmbeddingUnavailable(wrong_size(model, size, stored))
            if len(hits) >= k or seen < want:
                return rows
            want *= 4

    def _stored_size(self, model: str) -> int | None:
        stored = self._run(
            "MATCH (v:EbbVector {tenant: $t, model: $model}) RETURN size(v.embedding) LIMIT 1",
            model=model,
        )
        return int(stored[0][0]) if stored else None

    def missing_vectors(self, model: str, limit: int) -> list[tuple[str, str]]:
        found = self._list(
            f"MATCH (n:EbbNode {{tenant: $t}}) WHERE {_OWED_A_VECTOR} "
            "WITH n ORDER BY n.seq LIMIT $limit RETURN collect([n.id, n.text])",
            model=model,
            bookkeeping=sorted(BOOKKEEPING_KINDS),
            limit=limit,
        )
        return [(i, text) for i, text in found]

    def count_missing_vectors(self, model: str) -> int:
        rows = self._run(
            f"MATCH (n:EbbNode {{tenant: $t}}) WHERE {_OWED_A_VECTOR} RETURN count(n)",
            model=model,
            bookkeeping=sorted(BOOKKEEPING_KINDS),
        )
        return int(rows[0][0])

    def vector_counts(self) -> dict[str, int]:
        rows = self._run(
            "MATCH (v:EbbVector {tenant: $t}) WHERE v.model IS NOT NULL RETURN v.model, count(*)"
        )
        return {r[0]: int(r[1]) for r in rows}

    def drop_vectors(
        self, node_ids: Sequence[str] | None, model: str | None = None, *, keep: str | None = None
    ) -> None:
        which = "" if model is None else " AND v.model = $model"
        which += "" if keep is None else " AND v.model <> $keep"
        with self.transaction():
            if node_ids is None:
                self._run(
                    f"MATCH (v:EbbVector {{tenant: $t}}) WHERE true{which} DETACH DELETE v",
                    write=True,
                    model=model,
                    keep=keep,
                )
            for batch in chunked(unique(node_ids or []), BATCH):
                self._run(
                    "UNWIND $ids AS i MATCH (v:EbbVector {tenant: $t, node_id: i}) "
                    f"WHERE true{which} DETACH DELETE v",
                    write=True,
                    ids=list(batch),
                    model=model,
                    keep=keep,
                )

    # usage and maintenance ------------------------------------------------------------------

    def touch(self, node_ids: Iterable[str], edge_ids: Iterable[str], at: float) -> None:
        nodes, edges = list(node_ids), list(edge_ids)
        if not nodes and not edges:
            return
        self._run(
            "CALL () { UNWIND $nodes AS i MATCH (n:EbbNode {tenant: $t, id: i}) "
            "  SET n.last_read_at = $at, n.read_count = coalesce(n.read_count, 0) + 1 } "
            "CALL () { UNWIND $edges AS i MATCH ()-[r:LINK {tenant: $t, id: i}]->() "
            "  SET r.last_reinforced_at = CASE WHEN r.last_reinforced_at > $at "
            "  THEN r.last_reinforced_at ELSE $at END, "
            "  r.access_count = coalesce(r.access_count, 0) + 1 }",
            write=True,
            autocommit=True,
            nodes=nodes,
            edges=edges,
            at=at,
        )

    def graph_arrays(self) -> GraphArrays:
        rows = self._run(
            "CALL () { MATCH (n:EbbNode {tenant: $t}) WHERE n.seq IS NOT NULL "
            "  WITH n ORDER BY n.seq RETURN collect([n.id, n.text, n.pinned, n.created_at, "
            "  n.last_read_at, n.tier, n.status, n.updated_at, n.kind]) AS nodes } "
            "CALL () { MATCH (:EbbNode {tenant: $t})-[r:LINK]->() WHERE r.valid_to IS NULL "
            "  RETURN collect([startNode(r).id, endNode(r).id, r.relation, r.weight, "
            "  r.last_reinforced_at]) AS edges } "
            "RETURN nodes, edges"
        )
        nodes, edges = rows[0]
        return graph_arrays_from_rows(nodes, edges)

    def write_activation(
        self,
        ids: Sequence[str],
        activation: Sequence[float],
        tiers: Sequence[str],
        statuses: Sequence[str],
        read: Sequence[str] | None = None,
    ) -> None:
        was = read if read is not None else [None] * len(ids)
        rows = [
            [i, float(a), t, s, w]
            for i, a, t, s, w in zip(ids, activation, tiers, statuses, was, strict=True)
        ]
        with self.transaction():
            self._local.tx.overlay = None  # tiers and statuses the overlay does not follow
            for batch in chunked(rows, 4 * BATCH):
                # Reads here take no lock: a status another replica set meanwhile stands.
                self._run(
                    "UNWIND $rows AS row MATCH (n:EbbNode {tenant: $t, id: row[0]}) "
                    "SET n.activation = row[1], n.tier = row[2], n.status = CASE "
                    "WHEN row[4] IS NULL OR n.status = row[4] THEN row[3] ELSE n.status END",
                    write=True,
                    rows=batch,
                )

    # review queue ---------------------------------------------------------------------------

    def enqueue_review(self, item: PendingReview) -> bool:
        nonce = self._seq.take()[0]  # unique, and orders ties by when they were queued
        rows = self._run(
            "MERGE (r:EbbReview {tenant: $t, node_id: $id}) ON CREATE SET r.reason = $reason, "
            "r.requested_at = $at, r.requested_by = $by, r.nonce = $nonce, r.seq = $nonce "
            "RETURN r.nonce = $nonce",
            write=True,
            id=item.node_id,
            reason=item.reason,
            at=item.requested_at,
            by=item.requested_by,
            nonce=nonce,
        )
        return bool(rows[0][0])

    def pending_reviews(self) -> list[PendingReview]:
        found = self._list(
            "MATCH (r:EbbReview {tenant: $t}) WHERE r.node_id IS NOT NULL "
            "WITH r ORDER BY r.requested_at, r.seq "
            "RETURN collect([r.node_id, r.reason, r.requested_at, r.requested_by])"
        )
        return [PendingReview(*r) for r in found]

    def remove_review(self, node_id: str, *, cooldown_until: float | None = None) -> bool:
        rows = self._run(
            "OPTIONAL MATCH (r:EbbReview {tenant: $t, node_id: $id}) DELETE r "
            "WITH count(r) AS removed "
            "FOREACH (_ IN CASE WHEN $until IS NULL THEN [] ELSE [1] END | "
            "  MERGE (c:EbbCooldown {tenant: $t, node_id: $id}) SET c.until = $until) "
            "RETURN removed",
            write=True,
            id=node_id,
            until=cooldown_until,
        )
        return bool(rows[0][0])

    def review_cooldowns(self) -> dict[str, float]:
        found = self._list(
            "MATCH (c:EbbCooldown {tenant: $t}) WHERE c.node_id IS NOT NULL "
            "RETURN collect([c.node_id, c.until])"
        )
        return {i: float(until) for i, until in found}

    def delete_reviewed(self, node_id: str, requested_at: float) -> int | None:
        with self.transaction():
            # Reads take no lock, and a request another replica withdraws in a transaction
            # still open would be read as queued. Whatever withdraws or replaces a request
            # (keep, pin, told again, maintain, forget) writes its node in the same
            # transaction, so the node's write lock is taken first: the request read next is
            # the one that stands.
            self._run(
                "MATCH (n:EbbNode {tenant: $t, id: $id}) SET n.approving = true REMOVE n.approving",
                write=True,
                id=node_id,
            )
            queued = self._run(
                "MATCH (r:EbbReview {tenant: $t, node_id: $id}) WHERE r.requested_at = $at "
                "RETURN count(r)",
                id=node_id,
                at=float(requested_at),
            )
            return self.delete_node(node_id) if queued[0][0] else None

    # bookkeeping ----------------------------------------------------------------------------

    def get_meta(self, key: str) -> str | None:
        """Settings (when maintenance last ran, the activation reference) are read on every
        recall and change about once a day: a replica keeps each for META_TTL seconds."""
        hit = self._meta.get(key)
        if hit is not None and time.monotonic() - hit[0] < META_TTL:
            return hit[1]
        rows = self._run("MATCH (m:EbbMeta {tenant: $t, key: $key}) RETURN m.value", key=key)
        value = rows[0][0] if rows else None
        self._meta[key] = (time.monotonic(), value)
        return value

    def set_meta(self, key: str, value: str) -> None:
        self._run(
            "MERGE (m:EbbMeta {tenant: $t, key: $key}) SET m.value = $value",
            write=True,
            key=key,
            value=value,
        )
        self._meta[key] = (time.monotonic(), value)

    def get_meta_many(self, keys: Sequence[str]) -> dict[str, str]:
        rows = self._run(
            "UNWIND $keys AS k MATCH (m:EbbMeta {tenant: $t, key: k}) RETURN m.key, m.value",
            keys=list(dict.fromkeys(keys)),
        )
        return {key: value for key, value in rows}

    def get_meta_prefix(self, prefix: str) -> dict[str, str]:
        rows = self._run(
            "MATCH (m:EbbMeta {tenant: $t}) WHERE m.key STARTS WITH $p RETURN m.key, m.value",
            p=prefix,
        )
        return {key: value for key, value in rows}

    def claim_meta(self, values: Mapping[str, str]) -> set[str]:
        # MERGE on the unique (tenant, key) locks the key: a second writer waits, then matches.
        # A value no other call writes tells which keys this call created.
        stamp = f"claim:{uuid.uuid4().hex}"
        rows = self._run(
            "UNWIND $rows AS r MERGE (m:EbbMeta {tenant: $t, key: r.key}) "
            "ON CREATE SET m.value = $stamp "
            "WITH m, r WHERE m.value = $stamp SET m.value = r.value RETURN r.key",
            write=True,
            rows=[{"key": k, "value": v} for k, v in values.items()],
            stamp=stamp,
        )
        for key in values:
            self._meta.pop(key, None)
        return {key for (key,) in rows}

    def set_meta_many(self, values: Mapping[str, str]) -> None:
        self._run(
            "UNWIND $rows AS r MERGE (m:EbbMeta {tenant: $t, key: r.key}) SET m.value = r.value",
            write=True,
            rows=[{"key": k, "value": v} for k, v in values.items()],
        )
        for key in values:
            self._meta.pop(key, None)

    def append_audit(self, kind: str, payload: dict[str, Any], at: float) -> None:
        self._run(
            "CREATE (:EbbAudit {tenant: $t, seq: $seq, at: $at, kind: $kind, payload: $payload})",
            write=True,
            seq=self._seq.take()[0],
            at=at,
            kind=kind,
            payload=json.dumps(payload, sort_keys=True, default=str),
        )

    def iter_audit(self) -> Iterator[AuditEntry]:
        # Entries written before they had a seq come first, by time.
        legacy = self._list(
            "MATCH (a:EbbAudit {tenant: $t}) WHERE a.seq IS NULL "
            "WITH a ORDER BY a.at RETURN collect([a.at, a.kind, a.payload])"
        )
        for at, kind, payload in legacy:
            yield AuditEntry(at, kind, json.loads(payload))
        after = -1
        while True:
            page = self._list(
                "MATCH (a:EbbAudit {tenant: $t}) WHERE a.seq > $after "
                f"WITH a ORDER BY a.seq LIMIT {PAGE} "
                "RETURN collect([a.seq, a.at, a.kind, a.payload])",
                after=after,
            )
            if not page:
                return
            after = page[-1][0]
            for _, at, kind, payload in page:
                yield AuditEntry(at, kind, json.loads(payload))

    def counts(self) -> dict[str, dict[str, int]]:
        rows = self._run(
            "CALL () { MATCH (n:EbbNode {tenant: $t}) WHERE n.seq IS NOT NULL "
            "  WITH n.kind AS k, n.tier AS tier, n.status AS s, n.pinned AS p, count(*) AS c "
            "  RETURN collect([k, tier, s, p, c]) AS nodes } "
            "CALL () { MATCH ()-[r:LINK]->() WHERE r.tenant = $t AND r.relation IS NOT NULL "
            "  WITH r.relation AS rel, count(*) AS c RETURN collect([rel, c]) AS rels } "
            "CALL () { MATCH (r:EbbReview {tenant: $t}) WHERE r.node_id IS NOT NULL "
            "  RETURN count(r) AS reviews } "
            "RETURN nodes, rels, reviews"
        )
        nodes, rels, reviews = rows[0]
        out: dict[str, dict[str, int]] = {
            "kind": {},
            "tier": {},
            "status": {},
            "relation": {str(r): int(c) for r, c in rels},
            "pinned": {"pinned": 0},
            "review": {"pending": int(reviews)},
        }
        for kind, tier, status, pinned, c in nodes:
            for name, value in (("kind", kind), ("tier", tier), ("status", status)):
                out[name][str(value)] = out[name].get(str(value), 0) + int(c)
            if pinned:
                out["pinned"]["pinned"] += int(c)
        return out

    # maintenance helpers (not in the protocol) ------------------------------------------------

    def wipe(self) -> None:
        """Delete everything this tenant has, in batches; other tenants keep theirs.
        `ebbtide migrate` fills only an empty target unless `--merge` updates it by id, so
        what a tenant holds is replaced by wiping it first."""
        labels = ("EbbNode", "EbbName", "EbbVector", "EbbMeta", "EbbReview", "EbbCooldown",
                  "EbbAudit")  # fmt: skip
        tx: Tx | None = getattr(self._local, "tx", None)
        if tx is not None:
            tx.overlay = None  # deletes the overlay does not follow
        for label in labels:
            while True:
                rows = self._run(
                    f"MATCH (x:{label}) WHERE x.tenant = $t WITH x LIMIT {BATCH} "
                    "DETACH DELETE x RETURN count(*)",
                    write=True,
                )
                if not rows or not rows[0][0]:
                    break


def _check(rows: list[list[Any]], expect: int | None, edges: list[dict[str, Any]]) -> None:
    if expect is None:
        return
    got = int(rows[0][0]) if rows else 0
    if got != expect:
        ends = sorted({e for row in edges for e in (row.get("src"), row.get("dst")) if e})
        raise NotFound("node", ", ".join(ends[:5]), "edge endpoint")

"""The store protocol: what any backend (SQLite, Neo4j, …) must do. No memory logic here."""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from contextlib import AbstractContextManager, contextmanager
from dataclasses import dataclass
from datetime import UTC, date, datetime, time, timedelta
from typing import Any, Literal, NamedTuple, Protocol, runtime_checkable

import numpy as np

from ..clock import to_datetime
from ..model import Edge, Node

Direction = Literal["out", "in", "both"]

# Bookkeeping kinds (logged predictions): never returned by a search, so never embedded either,
# and never owed a vector (`Store.missing_vectors`, `Store.count_missing_vectors`).
BOOKKEEPING_KINDS: frozenset[str] = frozenset({"prediction"})


@dataclass(frozen=True)
class SearchFilter:
    """Which nodes a retrieval path may return."""

    include_cold: bool = False  # cold and frozen tiers, and archived nodes
    exclude_kinds: frozenset[str] = BOOKKEEPING_KINDS
    include_invalid: bool = False
    # Ended nodes that name their successor (`superseded_by`) pass too: recall's word and
    # vector searches find what a query names by an item's old words or meaning, and stand
    # the successor in for it.
    with_successors: bool = False
    kinds: frozenset[str] | None = None
    scope: str | None = None
    # One task's knowledge and what is tagged for no task (it holds for every task).
    task_tag: str | None = None


@dataclass(frozen=True)
class GraphArrays:
    """The whole graph as arrays, for maintenance. Times are epoch seconds; NaN = never."""

    ids: list[str]
    texts: list[str]
    pinned: np.ndarray
    created_at: np.ndarray
    last_read_at: np.ndarray
    tier: list[str]
    status: list[str]
    updated_at: np.ndarray  # when the memory last wrote the node (created_at: when it was told)
    src: np.ndarray
    dst: np.ndarray
    relation: list[str]
    weight: np.ndarray
    last_reinforced_at: np.ndarray
    kind: list[str]


class EdgeRow(NamedTuple):
    """The part of an edge that spreading needs; cheap to fetch in bulk."""

    id: str
    src: str
    dst: str
    relation: str
    weight: float
    last_reinforced_at: float


class NodeBrief(NamedTuple):
    """The part of a node that ranking needs."""

    activation: float
    q_value: float | None


class Matches(NamedTuple):
    """`Store.text_search_read` and `vector_search_read`: the matches, and what of them a store
    read with them. A store that gains nothing by reading ahead (one in this process) reads
    nothing (`matches_only`)."""

    hits: list[tuple[str, float]]
    # The matches recall reads next (each search says which), in full.
    nodes: dict[str, Node]
    # Every valid link of `relations` at the ids in `around` whose other end passes the
    # filter, as `adjacent(around, relations=..., reach=flt)` reads them.
    around: frozenset[str]
    edges: list[EdgeRow]
    # The other matches and the other ends of those links.
    briefs: dict[str, NodeBrief]
    # The ended matches (`with_successors`), each with the id of the node that superseded it.
    replaced: dict[str, str]


def matches_only(hits: list[tuple[str, float]], replaced: dict[str, str] | None = None) -> Matches:
    return Matches(hits, {}, frozenset(), [], {}, replaced or {})


def graph_arrays_from_rows(
    nodes: Sequence[Sequence[Any]], edges: Sequence[Sequence[Any]]
) -> GraphArrays:
    """Build GraphArrays from node rows (id, text, pinned, created_at, last_read_at, tier,
    status, updated_at, kind) and valid-edge rows (src, dst, relation, weight,
    last_reinforced_at)."""
    ids = [r[0] for r in nodes]
    index = {ident: i for i, ident in enumerate(ids)}
    nan = float("nan")
    return GraphArrays(
        ids=ids,
        texts=[r[1] for r in nodes],
        pinned=np.array([bool(r[2]) for r in nodes], dtype=bool),
        created_at=np.array([r[3] for r in nodes], dtype=np.float64),
        last_read_at=np.array([nan if r[4] is None else r[4] for r in nodes]),
        tier=[r[5] for r in nodes],
        status=[r[6] for r in nodes],
        updated_at=np.array([r[7] for r in nodes], dtype=np.float64),
        src=np.array([index[e[0]] for e in edges], dtype=np.int64),
        dst=np.array([index[e[1]] for e in edges], dtype=np.int64),
        relation=[e[2] for e in edges],
        weight=np.array([e[3] for e in edges], dtype=np.float64),
        last_reinforced_at=np.array([e[4] for e in edges], dtype=np.float64),
        kind=[r[8] for r in nodes],
    )


def statuses_now(
    statuses: Sequence[str], read: Sequence[str] | None, current: Sequence[str | None]
) -> list[str]:
    """What `write_activation` writes: each new status, unless the node's status changed
    since it was read (then the current one stands)."""
    if read is None:
        return list(statuses)
    return [
        new if now is None or now == was else now
        for new, was, now in zip(statuses, read, current, strict=True)
    ]


# + model name: counts the times that model's vectors were dropped; a store reading them
# incrementally reads them anew.
META_VECTORS_DROPPED = "vectors_dropped:"


def wrong_size(model: str, got: int, stored: int) -> str:
    return (
        f"{model} gives vectors of {got} numbers, the store holds vectors of {stored} for it "
        "(another model under the same name?): run `ebbtide reembed --all`"
    )


# Attribute keys that date an item: the time it tells of, and the time it was said.
TIME_KEYS = ("when", "said_at")

Span = tuple[float, float]
DAY_SECONDS = 86_400.0


class ItemDates(NamedTuple):
    """When an item happened (`when` .. `when_end`) and was said (`said_at`), as epoch-second
    spans [start, end), None when absent or unreadable; each twice: as instants, and `local`,
    on the calendar of the offset it was told in (its clock time read as if it were UTC, so
    that 22:30 on 12 May in New York falls on 12 May though UTC has reached the 13th).

    A `when` without an end covers its calendar day: a date is said of the whole day. A
    `said_at` is an instant, and its local span the day it was said on."""

    told: Span | None
    said: Span | None  # zero-length
    told_local: Span | None
    said_local: Span | None


def item_dates(attributes: Mapping[str, Any]) -> ItemDates:
    told = said = None
    start, end = attributes.get("when"), attributes.get("when_end")
    if isinstance(start, str):
        try:
            a = to_datetime(start)
            if not isinstance(end, str):
                a = a.replace(hour=0, minute=0, second=0, microsecond=0)
            b = to_datetime(end) if isinstance(end, str) else a + timedelta(days=1)
            told = a, max(a, b)
        except ValueError:
            told = None
    at = attributes.get("said_at")
    if isinstance(at, str):
        try:
            said = to_datetime(at)
        except ValueError:
            said = None
    said_day = said and said.replace(hour=0, minute=0, second=0, microsecond=0)
    return ItemDates(
        told and (told[0].timestamp(), told[1].timestamp()),
        said and (said.timestamp(), said.timestamp()),
        told and (_local(told[0]), max(_local(told[0]), _local(told[1]))),
        said_day and (_local(said_day), _local(said_day) + DAY_SECONDS),
    )


def _local(t: datetime) -> float:
    """`t`'s clock time in its own offset, as epoch seconds of that clock time in UTC."""
    return t.replace(tzinfo=UTC).timestamp()


class Window(NamedTuple):
    """A time window's bounds in epoch seconds, each an instant or `local` (`item_dates`)."""

    lo: float
    lo_local: bool
    hi: float
    hi_local: bool


def window(start: date, end: date) -> Window:
    """The window [start, end): a `date` is the midnight that begins that day in the offset
    each item was told in (`timeparse.TimeSpan.bounds`), a `datetime` an instant."""
    return Window(*_bound(start), *_bound(end))


def _bound(b: date) -> tuple[float, bool]:
    if isinstance(b, datetime):
        return b.timestamp(), False
    return datetime.combine(b, time(), UTC).timestamp(), True


def dated_within(dates: ItemDates, w: Window) -> tuple[int, float] | None:
    """Whether an item tells of (0) or, failing that, was said in (1) the window: a span that
    overlaps it or an instant inside it, each bound compared with the item's local span when
    it is a named day and with its instants when it is an instant. With the instant its span
    starts at; None when neither is in the window."""
    for order, (span, local) in enumerate(
        ((dates.told, dates.told_local), (dates.said, dates.said_local))
    ):
        if span is None or local is None:
            continue
        up, down = (local if w.hi_local else span), (local if w.lo_local else span)
        if up[0] < w.hi and (down[1] > w.lo or down[0] >= w.lo):
            return order, span[0]
    return None


def window_conditions(w: Window, lo: str, hi: str, prefix: str = "") -> tuple[str, str]:
    """`dated_within` as conditions (SQL or Cypher) on the columns (properties) a store keeps
    `item_dates` in: told_from, told_to, told_local_from, ..., said_local_to."""

    def cond(what: str) -> str:
        def col(local: bool, end: str) -> str:
            return f"{prefix}{what}_{'local_' if local else ''}{end}"

        return (
            f"({col(w.hi_local, 'from')} < {hi} AND "
            f"({col(w.lo_local, 'to')} > {lo} OR {col(w.lo_local, 'from')} >= {lo}))"
        )

    return cond("told"), cond("said")


def date_columns(attributes: Mapping[str, Any]) -> dict[str, float | None]:
    """`item_dates` by the names `window_conditions` reads them under."""
    d = item_dates(attributes)
    out: dict[str, float | None] = {}
    for name, span in zip(("told", "said", "told_local", "said_local"), d, strict=True):
        out[f"{name}_from"], out[f"{name}_to"] = span or (None, None)
    return out


def rank_by_time(
    rows: Iterable[tuple[str, ItemDates]], start: date, end: date, k: int
) -> list[tuple[str, float]]:
    """The `time_search` order over (id, `item_dates`) rows (SQLite computes the same in SQL,
    so only k rows leave the database; the conformance suite holds them together): items that
    tell of the window before items only said in it (what happened then is what a question
    naming a time asks for), each earliest first, then by id. The score is the instant the
    span that fell in the window starts at."""
    w = window(start, end)
    found: list[tuple[int, float, str]] = []
    for ident, dates in rows:
        hit = dated_within(dates, w)
        if hit is not None:
            found.append((*hit, ident))
    found.sort()
    return [(ident, at) for _, at, ident in found[:k]]


# Kinds whose attributes name other items by id: a prediction (predictions.py) names the
# decisions it is about and the lessons its episodes kept. Every store indexes these names, so
# the predictions an outcome or a retracted lesson concerns are read without reading every
# prediction (`Store.nodes_naming`). A store computed by an older rule reindexes on opening.
NAMING_KINDS: frozenset[str] = frozenset({"prediction"})
# A prediction's decisions, good and bad, and its episodes, each naming its lesson by
# `edge_id`: up to MAX_EPISODES of them, and once it holds that many no outcome changes it, so
# its decisions no longer name it.
NAMED_LISTS = ("good_ids", "bad_ids")
EPISODES = "episodes"
MAX_EPISODES = 5


def named_ids(kind: str, attributes: Mapping[str, Any]) -> list[str]:
    """The ids a node of `kind` names in its attributes, sorted: nothing for a kind not in
    NAMING_KINDS; malformed entries (an imported record, say) are skipped, not refused."""
    if kind not in NAMING_KINDS:
        return []
    found: set[str] = set()
    episodes = attributes.get(EPISODES)
    episodes = episodes if isinstance(episodes, list) else []
    found.update(
        e["edge_id"] for e in episodes if isinstance(e, dict) and isinstance(e.get("edge_id"), str)
    )
    if len(episodes) < MAX_EPISODES:
        for key in NAMED_LISTS:
            values = attributes.get(key)
            if isinstance(values, list):
                found.update(v for v in values if isinstance(v, str))
    return sorted(found)


# Kinds the store counts by one of their attributes as it writes them (a prediction by its
# status), so their totals are read without reading the nodes (`Store.tally`), and whose
# newest it reads from the end (`Store.latest_nodes`).
TALLIES: Mapping[str, str] = {"prediction": "status"}


def tally_value(kind: str, attributes: Mapping[str, Any]) -> str | None:
    """What a node of `kind` is counted under: its TALLIES attribute when that is a string, ""
    when it is missing or is not one (an imported record, say); None for a kind not counted."""
    key = TALLIES.get(kind)
    if key is None:
        return None
    value = attributes.get(key)
    return value if isinstance(value, str) else ""


def check_tallied(kind: str) -> None:
    if kind not in TALLIES:
        raise ValueError(f"kind: the store counts only {', '.join(sorted(TALLIES))}, not {kind!r}")


# A word that this many nodes hold is common: full-text search counts it only in nodes that
# hold a rarer word of the query (it would make BM25 score a large share of the store and add
# little to the ranking), or requires it with the query's other words when all are common.
COMMON_DF = 2_000


class NestedTransactions:
    """An embedded store's transactions, one at a time under its lock: the outermost begins and
    commits (or, on any exception, rolls back) the database's transaction; one opened inside it
    joins it. A COMMIT that fails is rolled back too: the database may have ended the
    transaction itself, but what the store keeps beside it (an index, a cache) has not, and
    one it left open would hold every later write. `depth` is how many are open."""

    def __init__(self, lock: AbstractContextManager[Any]) -> None:
        self._lock = lock
        self.depth = 0

    @contextmanager
    def __call__(
        self,
        begin: Callable[[], object],
        commit: Callable[[], object],
        rollback: Callable[[], object],
    ) -> Iterator[None]:
        with self._lock:
            if self.depth:
                self.depth += 1
                try:
                    yield
                finally:
                    self.depth -= 1
                return
            begin()
            self.depth = 1
            try:
                yield
                commit()
            except BaseException:
                rollback()
                raise
            finally:
                self.depth = 0


@dataclass(frozen=True)
class PendingReview:
    node_id: str
    reason: str
    requested_at: float
    requested_by: str


@dataclass(frozen=True)
class AuditEntry:
    """One write kept as it was told (the raw turns of a transcript, say), never changed."""

    at: float
    kind: str
    payload: dict[str, Any]


@runtime_checkable
class Store(Protocol):
    """Persistence for one tenant's graph.

    Every write method may be called inside `transaction()`; outside one, each call commits on
    its own. A call that returns has committed durably.
    """

    url: str

    def transaction(self) -> AbstractContextManager[None]: ...
    def close(self) -> None: ...
    def ping(self) -> None: ...

    # nodes
    def add_node(self, node: Node) -> None: ...
    def update_node(self, node: Node) -> None: ...
    def get_nodes(self, ids: Sequence[str]) -> dict[str, Node]: ...
    def find_nodes(
        self,
        *,
        kind: str | None = None,
        text: str | None = None,
        scope: str | None = None,
        attribute: tuple[str, Any] | None = None,
        valid_only: bool = True,
        limit: int = 100,
    ) -> list[Node]: ...
    def delete_node(self, node_id: str) -> int: ...
    def iter_nodes(self) -> Iterator[Node]: ...
    def tally(self, kind: str) -> dict[str, int]:
        """How many nodes of `kind` (in TALLIES) there are, valid or not, by `tally_value`,
        none at zero: counted by the store as it writes them, so reading the totals costs the
        same however many there are."""
        ...

    def latest_nodes(self, kind: str, limit: int) -> list[Node]:
        """The last `limit` nodes of `kind` (in TALLIES), valid or not, in `find_nodes` order
        (oldest first, ties in the order written): read from the newest end, so the cost
        follows `limit`, not how many there are."""
        ...

    def nodes_naming(self, ids: Iterable[str]) -> list[Node]:
        """Every node that names any of `ids` in its attributes (`named_ids`), valid or not,
        in creation order: read through an index, so the cost follows how many name them,
        not how many nodes of their kind there are."""
        ...

    # edges
    def add_edge(self, edge: Edge) -> None: ...
    def update_edge(self, edge: Edge) -> None: ...
    def get_edge(self, src: str, dst: str, relation: str) -> Edge | None: ...
    def edges_of(
        self, node_ids: Iterable[str], *, direction: Direction = "both", valid_only: bool = True
    ) -> list[Edge]: ...
    def iter_edges(self) -> Iterator[Edge]: ...
    def get_edges(self, ids: Sequence[str]) -> dict[str, Edge]: ...
    def find_edges(
        self,
        *,
        relations: Iterable[str] | None = None,
        task_tag: str | None = None,
        valid_only: bool = True,
        limit: int = 1000,
    ) -> list[Edge]: ...
    def adjacent(
        self,
        node_ids: Iterable[str],
        *,
        direction: Direction = "both",
        relations: frozenset[str] | None = None,
        reach: SearchFilter | None = None,
    ) -> list[EdgeRow]:
        """Valid edges touching the nodes; only those of `relations` when given, and only
        those between two nodes that both pass `reach` when given (so what is read does not
        depend on which of its ends were asked about)."""
        ...

    # retrieval
    def text_search(self, query: str, k: int, flt: SearchFilter) -> list[tuple[str, float]]: ...
    def text_search_read(
        self, query: str, k: int, flt: SearchFilter, *, read: int, relations: frozenset[str]
    ) -> Matches:
        """`text_search`, and what recall reads next about its `read` best matches (by score,
        then `creation_key`, newest first), in the same round trip: the matches themselves,
        their links and what those reach (into nodes passing `flt` as if it had no
        `with_successors`), and which matches are ended, naming their successors."""
        ...

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
        """`vector_search`, and what recall reads next about the matches that could be among
        the `read` best once fused with `words` (the word matches as recall ranks them, the
        first `read` of them read already by `text_search_read`), in the same round trip: those
        also found by words, and those found by vectors alone that fewer than `read` matches
        of either list rank above, in full, with their links and what those reach; and which
        matches are ended (`with_successors`), naming their successors."""
        ...

    def time_search(
        self, start: date, end: date, k: int, flt: SearchFilter
    ) -> list[tuple[str, float]]:
        """Up to k nodes passing `flt` that tell of, or were said in, [start, end) (a `date`
        bound is that day in each item's own offset, a `datetime` an instant: `window`), in
        the order of `rank_by_time`."""
        ...

    def first_dated(self, spans: Sequence[tuple[date, date]], flt: SearchFilter) -> int | None:
        """The index of the first of `spans` that a node passing `flt` tells of or was said in
        (as `time_search` matches), None when none is; one round trip for all of them whose
        bounds are of one kind (the years of one date are)."""
        ...

    def filter_ids(self, ids: Iterable[str], flt: SearchFilter) -> set[str]: ...
    def doc_frequencies(
        self, groups: Sequence[Sequence[str]], cap: int, flt: SearchFilter
    ) -> list[int]:
        """Per group of words (one word's inflections, say): how many nodes passing `flt`
        hold any of them, counted up to `cap`. One call for all groups (one round trip)."""
        ...

    def briefs(self, ids: Iterable[str]) -> dict[str, NodeBrief]: ...

    # vectors, one set per embedding model (rows are L2-normalised float32)
    def put_vectors(self, model: str, items: Sequence[tuple[str, np.ndarray]]) -> None: ...
    def vector_search(
        self, model: str, query: np.ndarray, k: int, flt: SearchFilter
    ) -> list[tuple[str, float]]: ...
    def missing_vectors(self, model: str, limit: int) -> list[tuple[str, str]]:
        """Up to `limit` (id, text) of the nodes without a vector of `model`, oldest first;
        bookkeeping kinds (`BOOKKEEPING_KINDS`) are never owed one."""
        ...

    def count_missing_vectors(self, model: str) -> int:
        """How many nodes `missing_vectors` would list without a limit."""
        ...

    def vector_counts(self) -> dict[str, int]: ...
    def drop_vectors(
        self, node_ids: Sequence[str] | None, model: str | None = None, *, keep: str | None = None
    ) -> None:
        """Forget the vectors of `node_ids` (None: every node), of `model` or of every model
        but `keep`: a changed text's vectors, or a model's after its vectors changed size.
        Only the models that lost a vector are read anew by processes that hold them. `put_vectors`
        refuses (EmbeddingUnavailable) a vector whose size differs from the model's stored
        ones, and `vector_search` a query of another size: vectors of two sizes are of two
        models, never compared."""
        ...

    # usage and maintenance
    def touch(self, node_ids: Iterable[str], edge_ids: Iterable[str], at: float) -> None: ...
    def graph_arrays(self) -> GraphArrays: ...
    # `read`: the statuses the caller computed `statuses` from; a node whose status is another
    # now (another process forgot it meanwhile) keeps it (`status_now`).
    def write_activation(
        self,
        ids: Sequence[str],
        activation: Sequence[float],
        tiers: Sequence[str],
        statuses: Sequence[str],
        read: Sequence[str] | None = None,
    ) -> None: ...

    # review queue (deletions wait here for a person)
    def enqueue_review(self, item: PendingReview) -> bool: ...
    def pending_reviews(self) -> list[PendingReview]: ...
    def remove_review(self, node_id: str, *, cooldown_until: float | None = None) -> bool: ...
    def review_cooldowns(self) -> dict[str, float]: ...
    # A deletion a person approved: `delete_node`, only while the request they were shown
    # (queued at `requested_at`) is still queued; None, and nothing changed, when it was
    # withdrawn (kept, pinned, used again, deleted) or asked anew since. The check and the
    # deletion are one atomic step, against every other writer.
    def delete_reviewed(self, node_id: str, requested_at: float) -> int | None: ...

    # bookkeeping
    def get_meta(self, key: str) -> str | None: ...
    def set_meta(self, key: str, value: str) -> None: ...
    # Many keys in one round trip, uncached: which messages a memory was told, say.
    def get_meta_many(self, keys: Sequence[str]) -> dict[str, str]: ...
    def get_meta_prefix(self, prefix: str) -> dict[str, str]: ...
    def set_meta_many(self, values: Mapping[str, str]) -> None: ...
    # Set the keys not set yet and return them: of two writers claiming one key at once, one
    # gets it (the other waits for its transaction, then finds the key set).
    def claim_meta(self, values: Mapping[str, str]) -> set[str]: ...
    def append_audit(self, kind: str, payload: dict[str, Any], at: float) -> None: ...
    # Every entry, in the order written (an export carries them to another store).
    def iter_audit(self) -> Iterator[AuditEntry]: ...
    def counts(self) -> dict[str, dict[str, int]]: ...

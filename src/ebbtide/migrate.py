"""Move a memory between backends (`ebbtide migrate FROM TO`) through the JSONL export format.

The source is exported with `Memory.export_jsonl` to a temporary file, then loaded into the
target in batches. An empty target that can insert in bulk (Neo4j, Kùzu) gets each batch of
nodes or edges as one write; otherwise, or with `merge=True`, each batch goes through
`Memory.import_jsonl` (insert or update by id). Review cooldowns and the maintenance
bookkeeping (when maintenance last ran, the activation reference) come along too, so the target
ranks exactly as the source did. Vectors are not copied: they are derived, and the target
marks them owed, filled in with whatever embedding model it is configured for by its next
writes or at once by `ebbtide reembed`.

A round trip (SQLite -> Neo4j -> SQLite, say) is lossless: the two exports are identical.
"""

from __future__ import annotations

import json
import os
import tempfile
import time
from collections.abc import Callable, Iterable, Iterator
from typing import Any

from pydantic import BaseModel

from . import validate
from .config import Config
from .consolidate import META_ACTIVATION_REF, META_LAST_MAINTAIN
from .errors import ValidationError
from .memory import Memory, open_memory
from .memory_io import EXPORT_FORMAT
from .model import RELATIONS, Edge, Node
from .store import local_path

BATCH = 5_000
# progress(phase, done, total): phase is "export" or "import"; counts are records.
Progress = Callable[[str, int, int], None]


class MigrateReport(BaseModel):
    source: str
    target: str
    nodes: int
    edges: int
    reviews: int
    # records of the messages the memory was told, what each said and where, and what each
    # told (so that the copy does not learn them twice, and knows what an edit takes back)
    told: int = 0
    audit: int = 0  # audit log entries (the raw turns of transcripts, as told)
    bulk: bool
    seconds: float


def migrate(
    source: str,
    target: str,
    *,
    merge: bool = False,
    batch: int = BATCH,
    progress: Progress | None = None,
    config: Config | None = None,
) -> MigrateReport:
    """Copy every node, edge and pending review, which messages the memory was told, and the
    audit log, from `source` to `target` (store URLs)."""
    batch = validate.count("batch", batch, high=1_000_000)
    # Opening an embedded store creates it: a mistyped source would migrate nothing, silently.
    path = local_path(source)
    if path is not None and not os.path.exists(path):
        raise ValidationError("source", "does not exist", source)
    tick = progress or (lambda phase, done, total: None)
    started = time.monotonic()
    with open_memory(source, config=config) as src, open_memory(target, config=config) as dst:
        if src.store.url == dst.store.url:
            raise ValidationError("target", "must differ from the source", target)
        present = dst.stats().nodes
        if present and not merge:
            raise ValidationError(
                "target", f"already holds {present} nodes; pass merge to update it in place"
            )
        s = src.stats()
        total = s.nodes + s.edges + s.pending_review
        with tempfile.TemporaryFile("w+", encoding="utf-8", suffix=".jsonl") as spool:
            written = src.export_jsonl(_Counting(spool, lambda n: tick("export", n, total)))
            tick("export", written, total)
            spool.seek(0)
            bulk = not present and hasattr(dst.store, "add_nodes")
            counts = _load(dst, spool, batch, bulk, lambda n: tick("import", n, written))
        _copy_bookkeeping(src, dst)
        dst.vectors_owed()
    return MigrateReport(
        source=src.store.url,
        target=dst.store.url,
        nodes=counts["node"],
        edges=counts["edge"],
        reviews=counts["review"],
        told=counts["told"],
        audit=counts["audit"],
        bulk=bulk,
        seconds=round(time.monotonic() - started, 3),
    )


class _Counting:
    """A text sink that reports how many lines went through it."""

    def __init__(self, out: Any, report: Callable[[int], None], every: int = 1000) -> None:
        self.out, self.report, self.every, self.lines = out, report, every, 0

    def write(self, text: str) -> int:
        self.lines += text.count("\n")
        if self.lines % self.every == 0:
            self.report(self.lines)
        return self.out.write(text)


def _batches(lines: Iterable[str], size: int) -> Iterator[tuple[str, list[str]]]:
    """Runs of at most `size` records of one type (an export lists nodes, edges, reviews)."""
    kind, run = "", []
    for line in lines:
        if not line.strip():
            continue
        this = json.loads(line).get("type", "")
        if this == "header":
            continue
        if run and (this != kind or len(run) >= size):
            yield kind, run
            run = []
        kind = this
        run.append(line)
    if run:
        yield kind, run


def _load(dst: Memory, lines: Iterable[str], size: int, bulk: bool, tick: Callable) -> dict:
    counts = {"node": 0, "edge": 0, "review": 0, "told": 0, "audit": 0}
    header = json.dumps({"type": "header", "format": EXPORT_FORMAT})
    done = 0
    for kind, run in _batches(lines, size):
        if kind not in counts:
            raise ValidationError(
                "record", "type must be header, node, edge, review, told or audit", kind
            )
        if bulk and kind in ("node", "edge"):
            with dst.store.transaction():
                if kind == "node":
                    dst.store.add_nodes(_parse(run, Node))  # type: ignore[attr-defined]
                else:
                    edges = _parse(run, Edge)
                    for e in edges:
                        validate.relation(e.relation, RELATIONS, "relation")
                    dst.store.add_edges(edges)  # type: ignore[attr-defined]
        else:
            dst.import_jsonl([header, *run])
        counts[kind] += len(run)
        done += len(run)
        tick(done)
    return counts


def _parse(lines: list[str], model: type[Node] | type[Edge]) -> list[Any]:
    out = []
    for line in lines:
        record = json.loads(line)
        record.pop("type", None)
        try:
            out.append(model.model_validate(record))
        except ValueError as exc:
            raise ValidationError("record", str(exc).splitlines()[0], record.get("id")) from None
    return out


def _copy_bookkeeping(src: Memory, dst: Memory) -> None:
    with dst.store.transaction():
        for key in (META_LAST_MAINTAIN, META_ACTIVATION_REF):
            value = src.store.get_meta(key)
            if value is not None:
                dst.store.set_meta(key, value)
        pending = {p.node_id for p in dst.store.pending_reviews()}
        for node_id, until in src.store.review_cooldowns().items():
            if node_id not in pending:
                dst.store.remove_review(node_id, cooldown_until=until)

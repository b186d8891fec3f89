"""Export and import (mixed into `Memory`): every record of a memory as JSONL, loaded back
exactly (`ebbtide export` / `import`, and `migrate` through them)."""

from __future__ import annotations

import json
from collections.abc import Iterable, Iterator
from typing import IO, TYPE_CHECKING, Any

from . import told, validate
from .errors import ValidationError
from .model import RELATIONS, Edge, Node
from .store import AuditEntry, PendingReview, Store

# /2 added `told` records, /3 `audit` records (the raw turns kept as told); older files import.
EXPORT_FORMAT = "ebbtide-jsonl/3"
READABLE_FORMATS = frozenset({"ebbtide-jsonl/1", "ebbtide-jsonl/2", EXPORT_FORMAT})


class ExportOps:
    store: Store

    if TYPE_CHECKING:  # provided by Memory's vector part

        def vectors_owed(self) -> None: ...

    # export / import --------------------------------------------------------------------------

    def export_jsonl(self, out: IO[str]) -> int:
        """Write every node and edge (facts, archived and superseded items included), the
        pending reviews, which messages the memory was told (so that a copy does not learn
        them twice), and the audit log (the raw turns of every transcript, as told)."""
        out.write(json.dumps({"type": "header", "format": EXPORT_FORMAT}) + "\n")
        n = 0
        for node in self.store.iter_nodes():
            out.write(json.dumps({"type": "node", **node.model_dump(mode="json")}) + "\n")
            n += 1
        for edge in self.store.iter_edges():
            out.write(json.dumps({"type": "edge", **edge.model_dump(mode="json")}) + "\n")
            n += 1
        for p in self.store.pending_reviews():
            out.write(json.dumps({"type": "review", **p.__dict__}) + "\n")
            n += 1
        for key, value in sorted(self.store.get_meta_prefix(told.TOLD).items()):
            out.write(json.dumps({"type": "told", "key": key, "value": value}) + "\n")
            n += 1
        for entry in self.store.iter_audit():
            out.write(json.dumps({"type": "audit", **entry.__dict__}, sort_keys=True) + "\n")
            n += 1
        return n

    def import_jsonl(self, lines: Iterable[str]) -> int:
        """Load an export. Records are validated first; the import is all or nothing. An audit
        entry the memory holds already is not written twice."""
        nodes, edges, reviews, messages, audit = [], [], [], {}, []
        for lineno, line in enumerate(_nonblank(lines), start=1):
            try:
                rec = json.loads(line)
                kind = rec.pop("type")
            except (ValueError, KeyError, AttributeError):
                raise ValidationError(
                    f"line {lineno}", "must be a JSON object with a type"
                ) from None
            try:
                if kind == "header":
                    if rec.get("format") not in READABLE_FORMATS:
                        raise ValidationError(
                            f"line {lineno}", f"format must be one of {sorted(READABLE_FORMATS)}"
                        )
                elif kind == "node":
                    nodes.append(Node.model_validate(rec))
                elif kind == "edge":
                    edges.append(Edge.model_validate(rec))
                elif kind == "review":
                    reviews.append(PendingReview(**rec))
                elif kind == "told":
                    key, value = rec.get("key"), rec.get("value")
                    if not (isinstance(key, str) and key.startswith(told.TOLD)):
                        raise ValidationError(
                            f"line {lineno}.key", f"must be a string starting {told.TOLD!r}", key
                        )
                    if not isinstance(value, str):
                        raise ValidationError(f"line {lineno}.value", "must be a string", value)
                    messages[key] = value
                elif kind == "audit":
                    audit.append(_audit_entry(rec, f"line {lineno}"))
                else:
                    raise ValidationError(
                        f"line {lineno}", "type must be header, node, edge, review, told or audit"
                    )
            except (ValueError, TypeError) as exc:
                if isinstance(exc, ValidationError):
                    raise
                raise ValidationError(f"line {lineno}", str(exc).splitlines()[0]) from None
        for e in edges:
            validate.relation(e.relation, RELATIONS, "relation")
        with self.store.transaction():
            existing = self.store.get_nodes([n.id for n in nodes])
            for node in nodes:
                (self.store.update_node if node.id in existing else self.store.add_node)(node)
            self.store.drop_vectors(
                [n.id for n in nodes if n.id in existing and existing[n.id].text != n.text]
            )
            if nodes:
                self.vectors_owed()
            for edge in edges:
                if self.store.get_edge(edge.src, edge.dst, edge.relation) is None:
                    self.store.add_edge(edge)
                else:
                    self.store.update_edge(edge)
            for p in reviews:
                self.store.enqueue_review(p)
            if messages:
                self.store.set_meta_many(messages)
            if audit:
                # What the memory held before (an import run twice); the file's own repeats
                # are the source's, kept as they were.
                held = {_audit_key(e) for e in self.store.iter_audit()}
                for entry in audit:
                    if _audit_key(entry) not in held:
                        self.store.append_audit(entry.kind, entry.payload, entry.at)
        return len(nodes) + len(edges) + len(reviews) + len(messages) + len(audit)


def _audit_entry(rec: dict[str, Any], where: str) -> AuditEntry:
    at, kind, payload = rec.get("at"), rec.get("kind"), rec.get("payload")
    if isinstance(at, bool) or not isinstance(at, int | float):
        raise ValidationError(f"{where}.at", "must be a number (seconds since the epoch)", at)
    if not isinstance(kind, str) or not kind:
        raise ValidationError(f"{where}.kind", "must be a non-empty string", kind)
    if not isinstance(payload, dict):
        raise ValidationError(f"{where}.payload", "must be an object", payload)
    return AuditEntry(float(at), kind, payload)


def _audit_key(entry: AuditEntry) -> tuple[float, str, str]:
    return entry.at, entry.kind, json.dumps(entry.payload, sort_keys=True, default=str)


def _nonblank(lines: Iterable[str]) -> Iterator[str]:
    return (ln for ln in lines if ln.strip())

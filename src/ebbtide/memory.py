"""The Memory facade: one method per operation. Faces call these; behaviour lives below."""

from __future__ import annotations

import dataclasses
import json
import logging
import re
import time
from collections.abc import Callable, Collection, Iterable, Iterator, Mapping, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from pathlib import Path
from typing import IO, Any, overload

from . import (
    causal,
    claims,
    extract,
    predictions,
    sameness,
    scoring,
    settings,
    told,
    transcript,
    validate,
)
from .clock import Clock, system_clock, to_datetime
from .config import DAY, Config, default_store_url
from .consolidate import META_ACTIVATION_REF, META_LAST_MAINTAIN, maintain
from .embed import Embedder, resolve_embedder
from .embed.context import item_vectors
from .errors import (
    EbbtideError,
    EmbeddingUnavailable,
    ExtractorUnavailable,
    ExtractorUnreachable,
    NotFound,
    StoreUnavailable,
    ValidationError,
)
from .llm_extract import LlmExtractor, get_extractor
from .memory_causal import CausalOps
from .model import (
    CAUSAL_RELATIONS,
    EPISODE_KINDS,
    INDEX_KINDS,
    INGESTED,
    RELATIONS,
    DecisionRecord,
    Edge,
    FactRecord,
    ForgetResult,
    Link,
    MaintainReport,
    Neighbor,
    NeighborsResult,
    Node,
    RecallResult,
    ReinforceResult,
    ReviewDecision,
    ReviewItem,
    ReviewQueue,
    SleepReport,
    Stats,
    TranscriptResult,
    new_edge,
    new_id,
)
from .polarity import outcome_polarity
from .recall import MAX_K
from .recall import recall as _recall
from .store import AuditEntry, PendingReview, SearchFilter, Store, open_store
from .store.base import TIME_KEYS, time_spans
from .text import normalize, paragraphs, similarity

# Default edge confidence by who asserted the link.
SOURCE_CONFIDENCE = {"user_feedback": 1.0, "rule": 0.8, "llm_inferred": 0.7, "temporal": 0.8}
# /2 added `told` records, /3 `audit` records (the raw turns kept as told); older files import.
EXPORT_FORMAT = "ebbtide-jsonl/3"
READABLE_FORMATS = frozenset({"ebbtide-jsonl/1", "ebbtide-jsonl/2", EXPORT_FORMAT})
# Kinds an episode's decision or outcome may already exist as.
# Nodes a new episode text is compared with (the best full-text matches).
EPISODE_CANDIDATES = 10
SPEAKERS_TTL = 5.0
MAX_SPEAKERS = 1000
# After the embedding model fails (an http endpoint down), writes are stored without vectors
# and recalls search without them for this long before the model is tried again; the nodes
# written meanwhile (and any other node without this model's vector) get their vectors from
# the next writes that can embed, this many at a time. That vectors are owed is marked in the
# store, in the write's own transaction, so a restart finishes the job (`ebbtide reembed` does
# it at once).
EMBED_RETRY_S = 30.0
DEFERRED_BATCH = 64
META_VECTORS_OWED = "vectors_owed:"  # + model name; "1" while some node lacks its vector
META_VECTORS_OWED_ANY = META_VECTORS_OWED + "*"  # owed to any model: written by an import
OWED_TTL = 30.0  # seconds a process trusts its reading that no vector is owed
# Other wordings kept on an episode node, to recognise the event when it is told again.
MAX_ALIASES = 8

log = logging.getLogger("ebbtide")


@dataclass
class Memory(CausalOps):
    """One memory, whatever the backend. Causal tools come from `CausalOps`."""

    store: Store
    config: Config
    clock: Clock = system_clock
    embedder: Embedder | None = None
    extractor: LlmExtractor | None = None  # adds to the rules' extraction of transcripts
    embed_retry_s: float = EMBED_RETRY_S  # also how long a failed extraction server rests
    # While a batch (a transcript) is being stored, new nodes wait here to be embedded at once.
    _unembedded: list[Node] | None = field(default=None, init=False, repr=False)
    # Who spoke in this memory (for recall), read again after SPEAKERS_TTL seconds since
    # another process may have stored a transcript; one stored here clears it at once.
    _speakers: tuple[float, list[str]] | None = field(default=None, init=False, repr=False)
    # When the model last failed and why; whether the store owes vectors (None: not read yet).
    _embed_down: tuple[float, str] | None = field(default=None, init=False, repr=False)
    # ... and when the LLM extractor's server last failed to answer (asked again after as long)
    _extract_down: tuple[float, str] | None = field(default=None, init=False, repr=False)
    _owed: bool | None = field(default=None, init=False, repr=False)
    _owed_read: float = field(default=0.0, init=False, repr=False)

    def __post_init__(self) -> None:
        # Every time in the memory is compared as an instant: a naive clock has no instant.
        sample = self.clock()
        if not isinstance(sample, datetime) or sample.tzinfo is None:
            raise ValidationError(
                "clock", "must return a timezone-aware datetime, e.g. datetime.now(UTC)", sample
            )

    # lifecycle ------------------------------------------------------------------------------

    def close(self) -> None:
        self.store.close()

    def ping(self) -> None:
        """One real read against the store: raises StoreUnavailable when it cannot answer
        (what a load balancer's readiness probe asks before sending traffic)."""
        try:
            self.store.get_nodes(["ebbtide:ping"])
        except EbbtideError:
            raise
        except Exception as exc:
            raise StoreUnavailable(f"{self.store.url}: {exc}") from exc

    def __enter__(self) -> Memory:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def now(self) -> datetime:
        return self.clock()

    # reading helpers ------------------------------------------------------------------------

    def get(self, node_id: str, *, field: str = "node_id") -> Node:
        validate.node_id(node_id, field)
        node = self.store.get_nodes([node_id]).get(node_id)
        if node is None:
            raise NotFound("node", node_id, field)
        return node

    def _require(self, ids: dict[str, str]) -> dict[str, Node]:
        """Fetch nodes by id, all at once; the first missing one is a NotFound for its field."""
        for name, ident in ids.items():
            validate.node_id(ident, name)
        found = self.store.get_nodes(list(ids.values()))
        for name, ident in ids.items():
            if ident not in found:
                raise NotFound("node", ident, name)
        return {name: found[ident] for name, ident in ids.items()}

    # remember / connect ---------------------------------------------------------------------

    @overload
    def remember(self, text: str, kind: str = "note", **kw: Any) -> Node: ...
    @overload
    def remember(
        self, text: None = None, kind: str = "note", *, messages: Any, **kw: Any
    ) -> TranscriptResult: ...

    def remember(
        self,
        text: str | None = None,
        kind: str = "note",
        *,
        messages: str | Sequence[Any] | None = None,
        date: datetime | str | None = None,
        node_id: str | None = None,
        pinned: bool = False,
        links: Iterable[Link | dict[str, Any]] | None = None,
        attributes: dict[str, Any] | None = None,
        scope: str = "default",
        task_tag: str | None = None,
        sources: list[str] | None = None,
        provenance: str | None = None,
        at: datetime | str | None = None,
    ) -> Node:
        """Store a piece of knowledge, or update `node_id` in place (keeping its links).

        Remembering the same text again (same kind and scope) returns the existing node and
        counts as a use of it, instead of making a duplicate. `at` dates knowledge that is
        older than now (a file's modification time).

        With `messages` (a transcript: "speaker: text" lines, or a list of {id?, speaker,
        text, time?}) instead of text, the raw turns go to the audit log and what they say
        is extracted and stored: facts, events, preferences, lessons and causal links, each
        keeping the ids of the messages it came from. A message remembered before (`told.key`:
        same id, speaker and text in the scope; with no id, same speaker and text at the same
        time, or at the same place on the same date) is read again as context only: what it
        says is not stored or learned from twice, and only new messages go to the audit log,
        so an agent may send overlapping windows of one conversation.
        """
        if messages is not None:
            if text is not None:
                raise ValidationError("text", "give either text or messages, not both")
            scope = validate.text("scope", scope, max_len=200)
            task_tag = validate.optional_text("task_tag", task_tag, max_len=200)
            return self._remember_transcript(messages, date, scope=scope, task_tag=task_tag)
        if text is None:
            raise ValidationError("text", "is required (or give messages)")
        text = validate.text("text", text)
        kind = validate.kind(kind)
        pinned = validate.flag("pinned", pinned)
        attrs = validate.attributes(attributes)
        scope = validate.text("scope", scope, max_len=200)
        task_tag = validate.optional_text("task_tag", task_tag, max_len=200)
        parsed_links = [self._parse_link(i, link) for i, link in enumerate(links or [])]
        if parsed_links:
            self._require({f"links[{i}].target": ln.target for i, ln in enumerate(parsed_links)})
        now = self._at(at)
        with self.store.transaction():
            existing = None
            if node_id is not None:
                validate.node_id(node_id)
                existing = self.store.get_nodes([node_id]).get(node_id)
            else:
                same = self.store.find_nodes(kind=kind, text=text, scope=scope, limit=1)
                existing = same[0] if same else None
            if existing is not None:
                told = {
                    "text": text,
                    "kind": kind,
                    "attributes": {**existing.attributes, **attrs},
                    "pinned": existing.pinned or pinned,
                    "task_tag": task_tag or existing.task_tag,
                    "sources": list(dict.fromkeys([*existing.sources, *(sources or [])])),
                }
                changed = any(getattr(existing, k) != v for k, v in told.items())
                # A file read again as it was (wherever its folder is now) is no use of it:
                # what faded for want of one stays archived (a vault synced from cron still
                # fades), and what an agent asked to forget stays asked. Told by anyone else,
                # or changed, it is in use again; a file that came back comes back.
                reread = provenance == INGESTED and not _changed_content(existing, told)
                status = "active"
                if reread and (
                    existing.status == "archived"
                    or (
                        existing.status == "forgotten" and self._forget_asked_by_others(existing.id)
                    )
                ):
                    status = existing.status
                node = existing.model_copy(
                    update={
                        **told,
                        "status": status,
                        # Written anew only when something changed: a vault read again
                        # unchanged does not restart every note's grace period.
                        "updated_at": self.now() if changed and not reread else existing.updated_at,
                        # `at` may be older than the last use (a file ingested again is
                        # dated by its mtime): told again never makes knowledge older.
                        "last_read_at": max(existing.last_read_at or now, now),
                        "read_count": existing.read_count + (0 if reread else 1),
                    }
                )
                self.store.update_node(node)
                if existing.status != "active" and status == "active":
                    # Told again, it is in use: a pending deletion would remove live knowledge.
                    self.store.remove_review(node.id)
                if node.text != existing.text:
                    # Every model's vector was of the old text: none may find the new one by it.
                    # The current model's is replaced in place (readers elsewhere pick up the
                    # new row), or dropped and owed when the model cannot answer now.
                    live = self.embedder.name if self.embedder is not None else None
                    self.store.drop_vectors([node.id], keep=live)
                    if live is not None and not self._store_vectors([node]):
                        self.store.drop_vectors([node.id])
                        self._mark_owed(True)
            else:
                if told_now(kind, provenance) and not attrs.keys() & set(TIME_KEYS):
                    # Said to the memory then: "what did we note last week?" finds it.
                    attrs = {**attrs, "said_at": now.isoformat()}
                node = Node(
                    id=node_id or new_id(kind[:4]),
                    kind=kind,
                    text=text,
                    attributes=attrs,
                    scope=scope,
                    task_tag=task_tag,
                    created_at=now,
                    updated_at=self.now(),  # created_at is when it was told (`at`)
                    pinned=pinned,
                    valid_from=now,
                    sources=list(sources or []),
                    provenance=provenance,
                )
                self.store.add_node(node)
                self._embed([node])
            for link in parsed_links:
                self._link(node.id, link.target, link.relation, link.weight, now=now)
        return node

    def _remember_transcript(
        self,
        messages: str | Sequence[Any],
        date: datetime | str | None,
        *,
        scope: str,
        task_tag: str | None,
    ) -> TranscriptResult:
        turns = transcript.parse_transcript(messages)
        session = self._at(date, "date") if date is not None else None
        keys = {m.id: k for m in turns if (k := told.key(m, session, scope)) is not None}
        if len(keys) == len(turns) and len(self.store.get_meta_many(list(keys.values()))) == len(
            turns
        ):  # sent again whole: nothing to read (nor to pay an LLM for)
            return TranscriptResult(messages=len(turns), nodes=[], edges=[], known=len(turns))
        # Messages with no time, sent with no date, were said about now: "tomorrow" in them is
        # tomorrow. (Whether they were told before is still asked by place, not by this time.)
        said = session if session is not None else self.now()
        found = extract.extract(turns, said)
        degraded = None
        down = self._extract_down
        if down is not None and time.monotonic() - down[0] < self.embed_retry_s:
            # a server that just failed is not waited for again by every call of an ingest
            degraded = f"rules only: {down[1]} (asked again {self.embed_retry_s:g} s after)"
        elif self.extractor is not None:  # asked before the write starts: it may take a while
            try:
                found = extract.merge(found, self.extractor.extract(turns, said))
                self._extract_down = None
            except ExtractorUnavailable as exc:
                log.warning("LLM extraction unavailable; storing what the rules found: %s", exc)
                degraded = f"rules only: {exc}"
                if isinstance(exc, ExtractorUnreachable):
                    self._extract_down = (time.monotonic(), str(exc))
        now = self.now()
        with self.store.transaction(), self._batch_embedding():
            # Agents send overlapping windows of one conversation: a message told before is
            # context for the new ones, not news (a Q-value learns from it once). Claimed first,
            # so that of two writers sending one window at once only one stores it.
            claimed = self.store.claim_meta({key: now.isoformat() for key in keys.values()})
            known = {m.id for m in turns if m.id in keys and keys[m.id] not in claimed}
            new = [m for m in turns if m.id not in known]
            if not new:
                return TranscriptResult(
                    messages=len(turns), nodes=[], edges=[], known=len(known), degraded=degraded
                )
            audit = [
                {"id": m.id, "speaker": m.speaker, "text": m.text,
                 "time": m.time.isoformat() if m.time else None,
                 **({"caption": m.caption} if m.caption else {})}
                for m in new
            ]  # fmt: skip
            self.store.append_audit(
                "transcript",
                {"date": session.isoformat() if session else None, "scope": scope,
                 "task_tag": task_tag, "messages": audit},
                now.timestamp(),
            )  # fmt: skip
            places = {m.id: p for m in new if (p := told.place(m, session, scope))}
            before = self.store.get_meta_many(list(places.values()))
            edited = [
                m for m in new if places.get(m.id) in before and before[places[m.id]] != keys[m.id]
            ]
            self.store.set_meta_many({places[m.id]: keys[m.id] for m in new if m.id in places})
            made = {m.id: self._made_by(m, m.time or session, scope) for m in edited}
            nodes, edges = self._store_extraction(
                found, now=now, scope=scope, task_tag=task_tag, provenance="transcript",
                told_ids=known,
            )  # fmt: skip
            for m in edited:
                self._retire_edited(m, made[m.id], nodes)
        self._speakers = None  # the transcript may have new speakers
        return TranscriptResult(
            messages=len(turns), nodes=nodes, edges=edges, known=len(known), degraded=degraded
        )

    def _made_by(
        self, message: transcript.Message, when: datetime | None, scope: str
    ) -> list[Node]:
        """The current items only `message` told, in its scope, by its speaker at its time."""
        if when is None:  # no place to have been said at (`told.place`)
            return []
        said_then = self.store.find_nodes(
            scope=scope, attribute=("said_at", when.isoformat()), limit=1000
        )
        return [
            n
            for n in said_then
            if n.sources == [message.id] and n.attributes.get("speaker") == message.speaker
        ]

    def _retire_edited(
        self, message: transcript.Message, before: list[Node], told: list[Node]
    ) -> None:
        """What only the earlier wording of an edited message told (`before`: "allergic to
        peanuts", now "… to walnuts") is no longer current: kept for the record, superseded by
        what the new wording told instead when that is one item of its kind. An item the new
        wording tells again (among `told`) stays."""
        now = self.now()
        kept = {n.id for n in told}
        was = {n.id for n in before}
        instead = [n for n in told if message.id in n.sources and n.id not in was]
        for node in before:
            if node.id in kept:
                continue
            update: dict[str, Any] = {"valid_to": now}
            same_kind = [n for n in instead if n.kind == node.kind]
            if len(same_kind) == 1:
                update["superseded_by"] = same_kind[0].id
            self.store.update_node(node.model_copy(update=update))

    def remember_causes(
        self,
        parts: Sequence[tuple[str, str]],
        *,
        about: str | None = None,
        author: str | None = None,
        at: datetime | str | None = None,
        scope: str = "default",
        task_tag: str | None = None,
        formerly: Sequence[str] = (),
    ) -> TranscriptResult:
        """Read a note for its causal claims only: what caused, enabled or prevented what,
        found and linked by the rules that read transcripts, so `trace_cause` and
        `intervention_query` reach what notes say. Everything else a note says is the caller's
        to store as it is (a document node, say).

        `parts` are (where, text) pairs in order: where each part was said (a file, a section;
        what its items' `sources` name) and its plain text, paragraphs apart by blank lines. A
        later part may speak of what an earlier one told ("would have prevented the outage").
        `author`, when known, is who "I" and "we" are; `at` dates it all (a file's
        modification time) and is what "yesterday" is read against.

        A note's claims are links, not outcomes seen: they give an outcome its polarity but
        move no decision's Q-value, so a note read again, or two notes saying one thing, count
        once. `about` is the note's own node (its document): its claims are linked `about` it,
        and reading it again retracts what it no longer says (with `about`, `parts` may be
        empty: the note says nothing now). Each link lists the notes that say it (`claims`); one
        that no note says any more ends (`valid_to`, kept for the record), and a sentence
        edited is a new claim, not the old one told again. What a person ended
        (`invalidate_decision`) stays ended when the note is read again. `formerly` names the
        note had before (its file's path before its folder moved): what it said under them is
        its own, listed under its name now."""
        note = self._require({"about": about})["about"] if about is not None else None
        if isinstance(formerly, str) or not isinstance(formerly, Sequence):
            raise ValidationError("formerly", "must be a list of names")
        formerly = tuple(
            validate.text(f"formerly[{i}]", f, max_len=claims.NAME_MAX)
            for i, f in enumerate(formerly)
        )
        if formerly and note is None:
            raise ValidationError("formerly", "needs `about`: the note that had those names")
        said = self._note_messages(
            parts,
            validate.optional_text("author", author, max_len=claims.AUTHOR_MAX),
            empty=note is not None,
        )
        scope = validate.text("scope", scope, max_len=200)
        task_tag = validate.optional_text("task_tag", task_tag, max_len=200)
        now = self._at(at)
        found = extract.causal_only(extract.extract(said, now, note=True))
        found = dataclasses.replace(
            found, items=[dataclasses.replace(it, provenance="note") for it in found.items]
        )
        with self.store.transaction(), self._batch_embedding():
            owned = claims.owned_by(note, [m.id for m in said])
            before = self._claims_of(note) if note is not None else []
            nodes, edges = self._store_extraction(
                found, now=now, scope=scope, task_tag=task_tag, provenance="note",
                learn=False, owned=owned, said_in=note, formerly=formerly,
            )  # fmt: skip
            if note is not None:
                # A note gone or emptied says nothing: it is no longer among the sources of
                # what others still say, so the last of them to go retracts it.
                gone = claims.from_note(note, []) if not said else None
                self._settle_claims(note, nodes, edges, before, owned, formerly, gone)
        return TranscriptResult(messages=len(said), nodes=nodes, edges=edges)

    def _settle_claims(
        self,
        note: Node,
        nodes: list[Node],
        edges: list[Edge],
        before: list[Edge],
        owned: Callable[[Node], bool],
        formerly: Sequence[str],
        gone: Callable[[str], bool] | None = None,
    ) -> None:
        """Link a note's current claims `about` it, and retract what it said before and says no
        more: a link it does not make again ends once no note says it, then each claim only it
        told that is left with no current link, with its `about` link (marked, so that the note
        saying it again brings it back)."""
        now = self.now()  # a retraction happens when the note is read, whatever its date
        fresh = self.store.get_nodes([n.id for n in nodes])
        current = {i for i, n in fresh.items() if n.valid_to is None}
        for node_id in sorted(current - {note.id}):
            link = self.store.get_edge(node_id, note.id, "about")
            if link is None:
                self._link(node_id, note.id, "about", 1.0, now=now, provenance="note")
            elif link.valid_to is not None:
                self.store.update_edge(link.model_copy(update={"valid_to": None}))
        kept = {e.id for e in edges}
        here, names = claims.where(note), claims.names(note, formerly)
        for edge in before:
            if edge.id in kept:
                continue
            sayers = claims.sayers(edge)
            if sayers and names.isdisjoint(sayers):
                continue  # another note's link that touches one of this note's claims
            others = [w for w in sayers if w not in names]
            if others or edge.provenance != "note":
                # other notes still say it, or a conversation told it too: it stays, without
                # this note among those that say it
                self.store.update_edge(claims.with_sayers(edge, others))
            elif sayers or all(
                owned(n) for n in self.store.get_nodes([edge.src, edge.dst]).values()
            ):  # said only here, or (no record of who says it) made of this note's own claims
                self._retire(edge, claims.retraction(here), retracted_by=note.id)
        claimed = [
            e.src
            for e in self.store.edges_of([note.id], direction="in")
            if e.relation == "about" and e.provenance == "note" and e.src not in current
        ]
        ctx = self._ctx()
        for node in self.store.get_nodes(claimed).values():
            if not owned(node):
                if gone is not None:  # still someone else's claim, no longer this note's
                    kept = [s for s in node.sources if not gone(s)]
                    if kept != node.sources:
                        self.store.update_node(node.model_copy(update={"sources": kept}))
                continue
            if causal.causal_edges(ctx, [node.id], "both"):
                continue  # still linked
            if node.valid_to is None or node.attributes.get(claims.RETRACTED_FROM):
                # marked as this retraction's; one a person ended first stays theirs
                self.store.update_node(
                    node.model_copy(
                        update={
                            "valid_to": node.valid_to or now,
                            "attributes": {**node.attributes, claims.RETRACTED_FROM: note.id},
                        }
                    )
                )
            link = self.store.get_edge(node.id, note.id, "about")
            if link is not None and link.valid_to is None:
                self.store.update_edge(link.model_copy(update={"valid_to": now}))

    @staticmethod
    def _note_messages(parts: Any, author: str | None, empty: bool) -> list[transcript.Message]:
        """`empty`: no parts at all is allowed (a note of its node that now says nothing)."""
        if isinstance(parts, str | bytes | Mapping) or not isinstance(parts, Sequence):
            raise ValidationError("parts", "must be a list of (where, text) pairs")
        if not parts and not empty:
            raise ValidationError("parts", "must not be empty without `about`")
        said: list[transcript.Message] = []
        for i, part in enumerate(parts):
            if not isinstance(part, tuple | list) or len(part) != 2:
                raise ValidationError(f"parts[{i}]", "must be a (where, text) pair", part)
            source = validate.text(f"parts[{i}].where", part[0], max_len=claims.WHERE_MAX)
            text = validate.text(f"parts[{i}].text", part[1])
            said += [transcript.Message(source, author or "", p) for p in paragraphs(text)]
        return said

    def _ended(self, kind: str, text: str, scope: str) -> Node | None:
        """A claim's node that was ended (by a person or a retraction), when no current one has
        its text: the same node again, not a duplicate that would bring back what was ended."""
        if self.store.find_nodes(kind=kind, text=text, scope=scope, limit=1):
            return None
        gone = self.store.find_nodes(kind=kind, text=text, scope=scope, valid_only=False, limit=1)
        return gone[0] if gone else None

    def _current(self, node: Node) -> Node:
        """A node a new or restored link is made to: current again, if it had ended."""
        if node.valid_to is None:
            return node
        attrs = {k: v for k, v in node.attributes.items() if k != claims.RETRACTED_FROM}
        node = node.model_copy(
            update={"valid_to": None, "superseded_by": None, "attributes": attrs}
        )
        self.store.update_node(node)
        return node

    def _claims_of(self, note: Node) -> list[Edge]:
        """The causal links between the claims a note was read for (valid ones only): made by
        notes, or told by a conversation too while a note said them."""
        told = [
            e.src
            for e in self.store.edges_of([note.id], direction="in")
            if e.relation == "about" and e.provenance == "note"
        ]
        return [
            e
            for e in self.store.edges_of(told, direction="out")
            if e.relation in CAUSAL_RELATIONS and (e.provenance == "note" or claims.sayers(e))
        ]

    def _store_extraction(
        self,
        found: extract.Extraction,
        *,
        now: datetime,
        scope: str,
        task_tag: str | None,
        provenance: str,
        learn: bool = True,
        owned: Callable[[Node], bool] | None = None,
        said_in: Node | None = None,
        formerly: Sequence[str] = (),
        told_ids: Collection[str] = (),
    ) -> tuple[list[Node], list[Edge]]:
        """Store extracted items and their links, inside the caller's transaction. Events,
        decisions and outcomes join the episodes told the same way, except an item `owned`
        (only this source told it) in other words. A causal link scores its outcome and, when
        `learn`, its decision's record; without it, a link made before is left as it was (or
        made valid again). `said_in`: the note a link is said in, listed in its context, so
        that a link several notes make ends only when none makes it.

        `told_ids`: messages remembered before (`told`). What only they told is the node
        stored then, never stored again, and not returned unless a new link reaches it; one
        no longer found (read otherwise) is left out with its links. A link between two such
        items is not made again, nor one from such an item that exists already: each is
        learned from once."""
        rarity = causal.rarity(self._ctx())
        people = list(
            dict.fromkeys(
                [*self._speaker_names(), *(it.text for it in found.items if it.kind == "person")]
            )
        )
        causes: dict[int, set[int]] = {}  # an item's other ends of its causal links
        for link in found.links:
            if link.relation in CAUSAL_RELATIONS:
                causes.setdefault(link.src, set()).add(link.dst)
                causes.setdefault(link.dst, set()).add(link.src)
        nodes: list[Node] = []
        edges: list[Edge] = []
        # Items only messages told before told: found as stored then, never stored again (read
        # anew without the messages before them, they may come out otherwise).
        before = set(told_ids)
        old = {i for i, it in enumerate(found.items) if it.sources and set(it.sources) <= before}
        lost: set[int] = set()  # ... and those of them no longer found
        for at, item in enumerate(found.items):
            if at in old:
                stored = told.stored_for(self.store, item, scope)
                if stored is None:
                    lost.add(at)
                    stored = Node(  # stands in for it: links to it are not made
                        id=f"lost:{at}", kind=item.kind, text=item.text, created_at=now,
                        updated_at=now,
                    )  # fmt: skip
                nodes.append(stored)
                continue
            attrs = dict(item.attributes)
            if item.when is not None:
                attrs["when"] = item.when.isoformat()
            ended = None if learn else self._ended(item.kind, item.text, scope)
            if ended is not None:  # current again only if this reading links it (below)
                node = ended.model_copy(
                    update={"sources": list(dict.fromkeys([*ended.sources, *item.sources]))}
                )
                self.store.update_node(node)
            elif item.kind in EPISODE_KINDS:
                told_then, said = time_spans(attrs)
                node = self._episode_node(
                    item.text, item.kind, scope, task_tag, now, rarity,
                    tried=bool(item.attributes.get("tried")), told=told_then, said=said,
                    people=people, provenance=provenance, owned=owned,
                    apart={nodes[i].id for i in causes.get(at, ()) if i < at},
                )  # fmt: skip
                node = node.model_copy(
                    update={
                        "sources": list(dict.fromkeys([*node.sources, *item.sources])),
                        "attributes": {**node.attributes, **attrs},
                    }
                )
                self.store.update_node(node)
                if learn and item.kind != "outcome":
                    self._supersede_setting(node, scope)
            else:
                node = self.remember(
                    item.text, item.kind, attributes=attrs, scope=scope, task_tag=task_tag,
                    sources=item.sources, provenance=item.provenance, at=now,
                )  # fmt: skip
                if learn and item.kind == "fact":
                    self._supersede_setting(node, scope)
            nodes.append(node)
        for link in found.links:
            a, b = nodes[link.src], nodes[link.dst]
            if a.id == b.id or {link.src, link.dst} <= old or {link.src, link.dst} & lost:
                continue
            if (link.src in old or link.dst in old) and self.store.get_edge(
                a.id, b.id, link.relation
            ):
                continue  # a known item linked again by a retelling: learned from once
            if link.relation in CAUSAL_RELATIONS:
                known = None if learn else self.store.get_edge(a.id, b.id, link.relation)
                if known is not None and known.valid_to is not None:
                    if not claims.retracted(known):
                        continue  # a person ended this lesson: reading it again does not undo it
                    known = claims.restored(known)  # said again after it was retracted
                a, b = self._current(a), self._current(b)
                nodes[link.src], nodes[link.dst] = a, b
                if known is not None:
                    if said_in is not None:
                        known = claims.said_by(known, said_in, formerly)
                    self.store.update_edge(known)
                    edges.append(known)
                    continue
                context = claims.said_in(said_in) if said_in is not None else None
                rec = self._episode(
                    a, b, link.relation, link.weight, now, task_tag, context,
                    link.confidence_source, provenance, learn=learn,
                )  # fmt: skip
                edges.append(rec.edge)
                # As scored now: a later link from the outcome must not write back its older copy
                # ("That was a mistake: checkout stalled. That led to …" kept no polarity).
                scored = {rec.decision.id: rec.decision, rec.outcome.id: rec.outcome}
                nodes = [scored.get(n.id, n) for n in nodes]
            else:
                edges.append(
                    self._link(a.id, b.id, link.relation, link.weight, now=now,
                               provenance=provenance)
                )  # fmt: skip
        # What this reading stored or changed: not an item told before that gained no link.
        changed = {n.id for i, n in enumerate(nodes) if i not in old}
        changed |= {e.src for e in edges} | {e.dst for e in edges}
        changed -= {nodes[i].id for i in lost}
        fresh = self.store.get_nodes([n.id for n in nodes if n.id in changed])
        unique = [fresh[i] for i in dict.fromkeys(n.id for n in nodes) if i in fresh]
        return unique, edges

    def reembed(
        self,
        *,
        batch_size: int = 256,
        progress: Callable[[int, int], None] | None = None,
        everything: bool = False,
    ) -> int:
        """Give every node a vector from the current embedding model (after switching models,
        or for nodes stored with embeddings off); `everything` embeds every node anew (the
        model changed under the same name). Returns how many were embedded."""
        if self.embedder is None:
            raise ValidationError("EBBTIDE_EMBEDDINGS", "is none: there is no model to embed with")
        if everything:
            # Owed first: a run that fails or is killed halfway leaves the rest to later
            # writes (or the next reembed), not a memory with no vectors and no debt.
            self._mark_owed(True)
            self.store.drop_vectors(None, self.embedder.name)
        total = self.stats().nodes - self.store.vector_counts().get(self.embedder.name, 0)
        done = 0
        while batch := self.store.missing_vectors(self.embedder.name, batch_size):
            ids = [ident for ident, _ in batch]
            found = self.store.get_nodes(ids)
            vectors = item_vectors(
                self.embedder,
                [(text, found[i].attributes if i in found else {}) for i, text in batch],
            )
            self.store.put_vectors(self.embedder.name, list(zip(ids, vectors, strict=True)))
            done += len(batch)
            if progress is not None:
                progress(len(batch), total)
        self._mark_owed(False)  # every node has its vector now
        return done

    @contextmanager
    def batch(self) -> Iterator[None]:
        """Group many writes (a bulk load): one transaction, and one embedding call for all
        new texts at the end instead of one per write."""
        with self.store.transaction(), self._batch_embedding():
            yield

    @contextmanager
    def _batch_embedding(self) -> Iterator[None]:
        if self._unembedded is not None:  # already inside a batch
            yield
            return
        self._unembedded = []
        try:
            yield
            pending, self._unembedded = self._unembedded, None
            if self.embedder is not None and pending:
                # As stored now: a node created in the batch may have been given its context
                # (message, reply) after it was queued, and its vector is read with it.
                fresh = self.store.get_nodes(list(dict.fromkeys(n.id for n in pending)))
                self._embed(list(fresh.values()))
        finally:
            self._unembedded = None

    def _embed(self, nodes: list[Node]) -> None:
        """Store vectors for new or changed texts (inside the caller's transaction). When the
        model cannot be reached the write stands without them: it is found by its words and
        links until a later write, or `reembed`, embeds it."""
        if self.embedder is None or not nodes:
            return
        if self._unembedded is not None:
            self._unembedded.extend(nodes)
            return
        unique = list({n.id: n for n in nodes}.values())
        if not self._store_vectors(unique):
            self._mark_owed(True)
        elif self._vectors_owed():
            owed = [i for i, _ in self.store.missing_vectors(self.embedder.name, DEFERRED_BATCH)]
            found = self.store.get_nodes(owed)
            paid = self._store_vectors([found[i] for i in owed if i in found])
            if paid and len(owed) < DEFERRED_BATCH:
                self._mark_owed(False)

    def vectors_owed(self) -> None:
        """Mark that nodes were written without vectors (an import, a migration), for
        whichever model embeds next: its next writes fill them in, or `reembed` at once."""
        self.store.set_meta(META_VECTORS_OWED_ANY, "1")
        self._owed = None

    def _forget_asked_by_others(self, node_id: str | None) -> bool:
        """Whether someone other than ingest (an agent, a person) asked to forget the node."""
        return any(
            p.node_id == node_id and p.requested_by != INGESTED
            for p in self.store.pending_reviews()
        )

    def _vectors_owed(self) -> bool:
        # Read again now and then: another process (an import, a migration) may owe them.
        if self._owed is False and time.monotonic() - self._owed_read > OWED_TTL:
            self._owed = None
        if self._owed is None and self.embedder is not None:
            self._owed_read = time.monotonic()
            owed = self.store.get_meta_many(
                [META_VECTORS_OWED + self.embedder.name, META_VECTORS_OWED_ANY]
            )
            self._owed = "1" in owed.values()
        return bool(self._owed)

    def _mark_owed(self, owed: bool) -> None:
        """Mark in the store, inside the caller's transaction, whether vectors are owed."""
        if self.embedder is not None and (owed or self._vectors_owed()):
            self.store.set_meta(META_VECTORS_OWED + self.embedder.name, "1" if owed else "0")
            if not owed:  # this model's vectors are all there: the import's debt is paid too
                self.store.set_meta(META_VECTORS_OWED_ANY, "0")
        self._owed = owed

    def _store_vectors(self, nodes: list[Node]) -> bool:
        """Embed and store vectors for `nodes`; False when the model is unavailable."""
        if not nodes:
            return True
        embedder = self._live_embedder()
        if embedder is None:
            return False
        try:
            vectors = item_vectors(embedder, [(n.text, n.attributes) for n in nodes])
            self.store.put_vectors(
                embedder.name, list(zip([n.id for n in nodes], vectors, strict=True))
            )
        except EmbeddingUnavailable as exc:
            self._embedding_failed(str(exc))
            return False
        self._embed_down = None
        return True

    def _live_embedder(self) -> Embedder | None:
        """The embedder, unless it failed less than `embed_retry_s` ago."""
        down = self._embed_down
        if down is not None and time.monotonic() - down[0] < self.embed_retry_s:
            return None
        return self.embedder

    def _embedding_failed(self, why: str) -> None:
        if self._embed_down is None:
            log.warning("embeddings unavailable; storing and recalling without vectors: %s", why)
        self._embed_down = (time.monotonic(), why)

    def _at(self, at: datetime | str | None, field: str = "at") -> datetime:
        if at is None:
            return self.now()
        if isinstance(at, bool):
            raise ValidationError(field, "must be an ISO 8601 date-time", at)
        try:
            return to_datetime(at)
        except (TypeError, ValueError, OverflowError, OSError):
            raise ValidationError(field, "must be an ISO 8601 date-time", at) from None

    def _parse_link(self, i: int, link: Link | dict[str, Any]) -> Link:
        if isinstance(link, dict):
            unknown = set(link) - set(Link.model_fields)
            if unknown or "target" not in link:
                raise ValidationError(
                    f"links[{i}]", "must be {target, relation?, weight?}", sorted(link)
                )
            link = Link.model_construct(**{"relation": "related", "weight": 1.0, **link})
        validate.node_id(link.target, f"links[{i}].target")
        validate.relation(link.relation, self.config.coefficients, f"links[{i}].relation")
        validate.unit(f"links[{i}].weight", link.weight)
        return link

    def connect(
        self,
        a: str,
        b: str,
        relation: str = "related",
        weight: float = 1.0,
        *,
        context: str | None = None,
        task_tag: str | None = None,
        confidence_source: str | None = None,
        provenance: str | None = None,
        at: datetime | str | None = None,
    ) -> Edge:
        """Link a → b. Connecting an existing pair again reinforces it and sets the new weight."""
        validate.relation(relation, self.config.coefficients)
        weight = validate.unit("weight", weight)
        if confidence_source is not None:
            validate.confidence_source(confidence_source)
        self._require({"a": a, "b": b})
        if a == b:
            raise ValidationError("b", "must differ from a (no self-links)", b)
        now = self._at(at)
        with self.store.transaction():
            return self._link(
                a,
                b,
                relation,
                weight,
                now=now,
                context=context,
                task_tag=task_tag,
                confidence_source=confidence_source,
                provenance=provenance,
            )

    def keep_links(
        self,
        a: str,
        relation: str,
        targets: Iterable[str],
        *,
        provenance: str,
        said_in: str,
        among: Collection[str],
    ) -> int:
        """End `a`'s links of `relation` that `provenance` made to any of `among` (what the
        caller read now) but `targets`: a note's `[[link]]` that was removed. A link to
        something not read now, or that someone else made or told again, stays. They end as
        a note's retraction (`said_in` names the note), so linking them again brings them
        back. Returns how many ended."""
        keep = set(targets)
        now = self.now()
        ended = 0
        with self.store.transaction():
            for edge in self.store.edges_of([a], direction="out"):
                if (
                    edge.relation == relation
                    and edge.provenance == provenance
                    and edge.valid_to is None
                    and edge.dst in among
                    and edge.dst not in keep
                ):
                    note = claims.retraction(said_in)
                    context = f"{edge.context} | {note}" if edge.context else note
                    self.store.update_edge(
                        edge.model_copy(update={"valid_to": now, "context": context})
                    )
                    ended += 1
        return ended

    def _link(
        self, a: str, b: str, relation: str, weight: float, *, now: datetime, **extra: Any
    ) -> Edge:
        edge = self.store.get_edge(a, b, relation)
        if edge is not None:
            if edge.valid_to is not None and claims.retracted(edge):
                # Only a note had stopped saying it: told anew, by someone who is no note, so
                # that note's next reading does not end it again. Its ends come back with it.
                edge = claims.restored(edge).model_copy(
                    update={"provenance": extra.get("provenance") or "agent"}
                )
                for end in self.store.get_nodes([a, b]).values():
                    if end.attributes.get(claims.RETRACTED_FROM):  # ended with it, not by a person
                        self._current(end)
            told = {k: v for k, v in extra.items() if v is not None}
            # A file's [[link]] is the weakest maker: a link an agent (or anyone else) made or
            # tells again is theirs, and a file's no longer saying it does not end it.
            said = extra.get("provenance")
            if edge.provenance == INGESTED and said != INGESTED:
                told["provenance"] = said or "agent"
            elif said == INGESTED and edge.provenance != INGESTED:
                told["provenance"] = edge.provenance or "agent"
            edge = edge.model_copy(
                update={
                    "weight": weight,
                    # told again never makes a link older (a file read again is dated by its
                    # modification time, older than an agent's use of the link since)
                    "last_reinforced_at": max(edge.last_reinforced_at, now),
                    "reinforce_count": edge.reinforce_count + 1,
                    **told,
                }
            )
            self.store.update_edge(edge)
            return edge
        edge = new_edge(a, b, relation, weight, now, **extra)
        self.store.add_edge(edge)
        return edge

    # use --------------------------------------------------------------------------------------

    def reinforce(
        self, a: str, b: str | None = None, relation: str | None = None
    ) -> ReinforceResult:
        """Mark knowledge as just used again: resets its recency clock.

        With one id: the node and all its links. With two: the links between them (optionally
        only `relation`), which also grow stronger (Hebbian).
        """
        ids = {"a": a} if b is None else {"a": a, "b": b}
        self._require(ids)
        if relation is not None:
            validate.relation(relation, self.config.coefficients)
        now = self.now()
        with self.store.transaction():
            if b is None:
                edges = self.store.edges_of([a])
                self.store.touch([a], [e.id for e in edges], now.timestamp())
                return ReinforceResult(nodes=[a], edges=self.store.edges_of([a]))
            between = [
                e
                for e in self.store.edges_of([a])
                if {e.src, e.dst} == {a, b} and (relation is None or e.relation == relation)
            ]
            if not between:
                raise NotFound("edge", f"{a} -> {b}" + (f" ({relation})" if relation else ""), "b")
            updated = []
            for e in between:
                e = e.model_copy(
                    update={
                        "last_reinforced_at": now,
                        "reinforce_count": e.reinforce_count + 1,
                        "weight": scoring.hebbian_update(e.weight, self.config.hebbian_rate),
                    }
                )
                self.store.update_edge(e)
                updated.append(e)
            return ReinforceResult(nodes=[a, b], edges=updated)

    def recall(
        self,
        query: str,
        k: int = 10,
        *,
        include_cold: bool = False,
        kinds: Iterable[str] | None = None,
        scope: str | None = None,
        task_tag: str | None = None,
        touch: bool = True,
    ) -> RecallResult:
        """Find what matters for `query`. Cold and frozen knowledge stays out unless asked;
        `scope` keeps one namespace's knowledge (None: every scope), `task_tag` that task's
        knowledge and what is tagged for no task."""
        query = validate.text("query", query, max_len=10_000)
        k = validate.count("k", k, high=MAX_K)
        scope = validate.optional_text("scope", scope, max_len=200)
        task_tag = validate.optional_text("task_tag", task_tag, max_len=200)
        include_cold = validate.flag("include_cold", include_cold)
        kind_set = frozenset(validate.kind(x, "kinds") for x in kinds) if kinds else None
        self._maybe_maintain()
        embedder = self._live_embedder()
        result = _recall(
            self.store,
            self.config,
            query,
            k=k,
            now=self.now(),
            flt=SearchFilter(
                include_cold=include_cold, kinds=kind_set, scope=scope, task_tag=task_tag
            ),
            activation_ref=self._activation_ref(),
            embedder=embedder,
            speakers=self._speaker_names(),
        )
        if embedder is not None and result.degraded is not None:
            self._embedding_failed(result.degraded)
        elif embedder is None and self._embed_down is not None:
            result.degraded = (
                f"no vector search: {self._embed_down[1]} (tried again "
                f"{self.embed_retry_s:g} s after it failed)"
            )
        if touch and result.hits:
            # Knowledge that is used stays alive: hits are read, the links that lifted them fire.
            edge_ids = [v.edge_id for hit in result.hits for v in hit.why.via]
            self.store.touch([h.node.id for h in result.hits], edge_ids, self.now().timestamp())
        return result

    def neighbors(
        self,
        node_id: str,
        *,
        relation: str | None = None,
        direction: str = "both",
        limit: int = 20,
    ) -> NeighborsResult:
        node = self.get(node_id)
        validate.one_of("direction", direction, ("out", "in", "both"))
        if relation is not None:
            validate.relation(relation, self.config.coefficients)
        limit = validate.count("limit", limit)
        t = self.now().timestamp()
        edges = [
            e
            for e in self.store.edges_of([node_id], direction=direction)  # type: ignore[arg-type]
            if relation is None or e.relation == relation
        ]
        others = self.store.get_nodes([e.dst if e.src == node_id else e.src for e in edges])
        out = []
        for e in edges:
            other = e.dst if e.src == node_id else e.src
            if other not in others:
                continue
            strength = float(
                scoring.edge_strength(
                    e.weight,
                    abs(self.config.coefficient(e.relation)),
                    t - e.last_reinforced_at.timestamp(),
                    self.config.half_life_s,
                )
            )
            out.append(
                Neighbor(
                    node=others[other],
                    edge=e,
                    direction="out" if e.src == node_id else "in",
                    strength=strength,
                )
            )
        out.sort(key=lambda n: -n.strength)
        return NeighborsResult(node=node, neighbors=out[:limit])

    # lifecycle of knowledge -----------------------------------------------------------------

    def pin(self, node_id: str) -> Node:
        return self._set_pinned(node_id, True)

    def unpin(self, node_id: str) -> Node:
        return self._set_pinned(node_id, False)

    def _set_pinned(self, node_id: str, pinned: bool) -> Node:
        node = self.get(node_id)
        node = node.model_copy(
            update={"pinned": pinned, "updated_at": self.now()}
            | ({"status": "active"} if pinned else {})
        )
        with self.store.transaction():
            self.store.update_node(node)
            if pinned:
                self.store.remove_review(node_id)
        return node

    def find(
        self,
        *,
        kind: str | None = None,
        attribute: tuple[str, str | int | float | bool] | None = None,
        limit: int = 100,
    ) -> list[Node]:
        """Nodes of a kind and with an attribute of a value (`("path", "notes/a.md")`), either
        or both, oldest first, hidden ones included; ended ones (`valid_to`) are left out."""
        if kind is not None:
            kind = validate.kind(kind)
        if attribute is not None and not (
            isinstance(attribute, tuple)
            and len(attribute) == 2
            and isinstance(attribute[0], str)
            and re.fullmatch(r"[A-Za-z_][A-Za-z0-9_]{0,63}", attribute[0])
            and isinstance(attribute[1], str | int | float | bool)
        ):
            raise ValidationError(
                "attribute", "must be (name, value): a name of letters, digits and _, a scalar"
            )
        limit = validate.count("limit", limit, high=1_000_000)
        return self.store.find_nodes(kind=kind, attribute=attribute, limit=limit)

    def forget(
        self, node_id: str, reason: str | None = None, *, asked_by: str = "agent"
    ) -> ForgetResult:
        """Ask for a deletion: the node is hidden at once and waits for a person's review. A
        node a person chose to keep lately (`reject`) stays as it is until the cooldown ends
        (`queued` is false and the reason says until when). `asked_by` is who the review
        queue names as asking (an agent, or `ingest` for a file gone from its folder)."""
        node = self.get(node_id)
        asked_by = validate.text("asked_by", asked_by, max_len=100)
        reason = (
            validate.optional_text("reason", reason, max_len=1000) or f"requested by {asked_by}"
        )
        if node.pinned:
            raise ValidationError("node_id", "is pinned; unpin it before asking to forget it")
        now = self.now()
        kept_until = self.store.review_cooldowns().get(node_id, 0.0)
        if kept_until > now.timestamp():
            until = to_datetime(kept_until).date().isoformat()
            return ForgetResult(
                node_id=node_id, queued=False, reason=f"kept by a person until {until}"
            )
        request = PendingReview(node_id, reason, now.timestamp(), asked_by)
        with self.store.transaction():
            queued = self.store.enqueue_review(request)
            if not queued and any(
                p.node_id == node_id and p.requested_by == "maintain"
                for p in self.store.pending_reviews()
            ):  # decay proposed it; now it is asked for, with a reason a person should read
                self.store.remove_review(node_id)
                queued = self.store.enqueue_review(request)
            self.store.update_node(node.model_copy(update={"status": "forgotten"}))
        return ForgetResult(node_id=node_id, queued=queued, reason=reason)

    def maintain(self) -> MaintainReport:
        """Recompute activation, re-tier, archive frozen knowledge and queue it for review."""
        return maintain(self.store, self.config, self.now())

    def sleep(self) -> SleepReport:
        """The consolidation cycle: maintain, mine cross-task patterns, and count lessons that
        newer outcomes contradict (apply them with resolve_updates)."""
        report = self.maintain()
        mined = self._mine_if_stale()
        pending = self.resolve_updates(limit=1000).updates
        return SleepReport(maintain=report, patterns_added=len(mined), updates_pending=len(pending))

    def _maybe_maintain(self) -> None:
        if not self.config.auto_maintain_days:
            return
        last = self.store.get_meta(META_LAST_MAINTAIN)
        if (
            last is None
            or self.now().timestamp() - float(last) > self.config.auto_maintain_days * DAY
        ):
            self.maintain()

    def _speaker_names(self) -> list[str]:
        now = time.monotonic()
        if self._speakers is None or now - self._speakers[0] > SPEAKERS_TTL:
            people = self.store.find_nodes(
                kind="person", attribute=("role", "speaker"), limit=MAX_SPEAKERS
            )
            self._speakers = (now, [p.text for p in people])
        return self._speakers[1]

    def _activation_ref(self) -> float:
        ref = self.store.get_meta(META_ACTIVATION_REF)
        return float(ref) if ref else 1.0

    def review_queue(self) -> ReviewQueue:
        pending = self.store.pending_reviews()
        nodes = self.store.get_nodes([p.node_id for p in pending])
        return ReviewQueue(
            items=[
                ReviewItem(
                    node=nodes[p.node_id],
                    reason=p.reason,
                    requested_at=to_datetime(p.requested_at),
                    requested_by=p.requested_by,
                )
                for p in pending
                if p.node_id in nodes
            ]
        )

    def approve(self, node_id: str) -> ReviewDecision:
        """A person approves a pending deletion: the node and its links are removed."""
        node = self._pending(node_id)
        now = self.now()
        with self.store.transaction():
            removed = self.store.delete_node(node_id)
            self.store.append_audit(
                "deleted", {"node": node.model_dump(mode="json"), "edges": removed}, now.timestamp()
            )
        return ReviewDecision(node_id=node_id, action="approved", removed_edges=removed)

    def reject(self, node_id: str) -> ReviewDecision:
        """A person keeps the node: it is active again and not proposed for a cooldown period."""
        node = self._pending(node_id)
        now = self.now()
        until = (now + timedelta(days=self.config.review_cooldown_days)).timestamp()
        with self.store.transaction():
            self.store.remove_review(node_id, cooldown_until=until)
            self.store.update_node(
                node.model_copy(update={"status": "active", "last_read_at": now})
            )
        return ReviewDecision(node_id=node_id, action="rejected")

    def _pending(self, node_id: str) -> Node:
        node = self.get(node_id)
        if node_id not in {p.node_id for p in self.store.pending_reviews()}:
            raise NotFound("review item", node_id, "node_id")
        return node

    def stats(self) -> Stats:
        c = self.store.counts()
        last = self.store.get_meta(META_LAST_MAINTAIN)
        nodes = sum(c["kind"].values())
        return Stats(
            store=self.store.url,
            nodes=nodes,
            edges=sum(c["relation"].values()),
            by_kind=c["kind"],
            by_tier=c["tier"],
            by_relation=c["relation"],
            archived=c["status"].get("archived", 0),
            pinned=c["pinned"].get("pinned", 0),
            pending_review=c["review"].get("pending", 0),
            last_maintain=to_datetime(float(last)) if last else None,
            vectors_missing=None
            if self.embedder is None
            else max(0, nodes - self.store.vector_counts().get(self.embedder.name, 0)),
        )

    def _episode_node(
        self,
        text: str,
        kind: str,
        scope: str,
        task_tag: str | None,
        now: datetime,
        rarity: causal.Rarity,
        tried: bool = False,
        told: tuple[float, float] | None = None,
        people: Sequence[str] = (),
        said: tuple[float, float] | None = None,
        provenance: str = "record_decision",
        owned: Callable[[Node], bool] | None = None,
        apart: Collection[str] = (),
    ) -> Node:
        """The node an episode refers to: the same event told slightly differently ("Checkout
        outage" / "checkout outage.") is one node, so chains join across records, whether it
        was last recorded as a decision or as an outcome. The same event told in other words
        in the same task (word overlap weighted by `rarity`) is that node too; the other
        wordings are kept as its aliases. `tried`: the text is a measure said not to have
        fixed something ("the restarts did not fix it"). `told`: the span the text says it
        happened in; a node told of another time is another event ("see you tomorrow" said
        on two days). `people`: the people a conversation knows; a node naming only others
        is another event ("Hey Tim, been a while!" / "Hey John, been a while"). `said`: when
        the text was said; a node said on another day is another event when it or the text
        points at something the other does not name ("Caroline painted this"). What a
        pronoun stood for is an aside, not what happened ("That (the worker count doubled)
        exhausted the pool" is not the doubling), and tellings whose "it" stands for different
        things are two events. `provenance`: what a new node was made by. `owned`: a node only
        the source being read told; told in other words, it is that source's older wording,
        not the same event. `apart`: nodes this one is told as the cause or effect of, which it
        cannot be ("Skipping the load test was a mistake; checkout stalled" is not the
        skipping)."""
        named = sameness.people_named(text, people)

        def may_be(node: Node) -> bool:
            told_then, said_then = time_spans(node.attributes)
            return node.id not in apart and not (
                sameness.different_times(told, told_then)
                or sameness.different_referents(text, node.text)
                or (
                    owned is not None
                    and owned(node)
                    and claims.wording(node.text) != claims.wording(text)
                )
                or sameness.different_people(named, _people_in(node, people))
                or (
                    sameness.different_times(said, said_then)
                    and sameness.points_elsewhere(text, causal.wordings(node))
                )
            )

        same = [
            n
            for n in self.store.find_nodes(kind=kind, text=text, scope=scope, limit=3)
            if may_be(n)
        ][:1]
        if not same:
            flt = SearchFilter(include_cold=True, kinds=EPISODE_KINDS, scope=scope)
            ids = [i for i, _ in self.store.text_search(text, EPISODE_CANDIDATES, flt)]
            found = self.store.get_nodes(ids)
            candidates = [found[i] for i in ids if i in found and may_be(found[i])]
            said_as = sameness.told(text)
            alike = {n.id: similarity(said_as, sameness.told(n.text)) for n in candidates}
            same = [n for n in candidates if alike[n.id] >= causal.SAME_THING]
            same.sort(key=lambda n: -alike[n.id])
            if not same:
                again = self._told_again(text, kind, task_tag, candidates, rarity, tried)
                same = [again] if again is not None else []
        if same:
            aliases = list(same[0].attributes.get("aliases", []))
            if normalize(text) != normalize(same[0].text) and text not in aliases:
                aliases = [*aliases, text][-MAX_ALIASES:]
            node = same[0].model_copy(
                update={
                    "last_read_at": max(now, same[0].last_read_at or now),
                    "read_count": same[0].read_count + 1,
                    "attributes": {**same[0].attributes, "aliases": aliases}
                    if aliases
                    else same[0].attributes,
                }
            )
            self.store.update_node(node)
            return node
        node = Node(
            id=new_id(kind[:4]),
            kind=kind,
            text=text,
            scope=scope,
            task_tag=task_tag,
            created_at=now,
            updated_at=self.now(),
            valid_from=now,
            provenance=provenance,
        )
        self.store.add_node(node)
        self._embed([node])
        return node

    def _supersede_setting(self, told: Node, scope: str) -> None:
        """A setting told anew supersedes what was said of the same thing before, as
        `record_fact` does for a key: kept for the record, no longer recalled. It is told anew
        as a setting ("The staging DB is Postgres 16" after "Our staging DB is Postgres 15")
        or as a change (an event: "We upgraded the staging DB to Postgres 16")."""
        speaker = told.attributes.get("speaker")
        if told.kind != "fact":
            done = settings.change(told.text, speaker)
            if done is None:
                return
            for other, before in self._settings_named(done.subject or done.old or "", told, scope):
                # a change told of an earlier time than the setting leaves the setting standing
                if settings.changes(done, before) and _said_no_later(other, told):
                    self._superseded(other, told)
            return
        said = settings.setting(told.text, speaker)
        if said is None:
            return
        for other, before in self._settings_named(said.subject, told, scope):
            if before.subject != said.subject or before.value == said.value:
                continue
            # The later telling stands: one told now of an earlier time is the superseded one.
            old, new = (other, told) if _said_no_later(other, told) else (told, other)
            self._superseded(old, new)
            if old is told:
                return

    def _settings_named(
        self, words: str, told: Node, scope: str
    ) -> list[tuple[Node, settings.Setting]]:
        """The current settings among the facts that match `words`, besides `told`."""
        flt = SearchFilter(kinds=frozenset({"fact"}), scope=scope)
        ids = [i for i, _ in self.store.text_search(words, 20, flt) if i != told.id]
        found = []
        for other in self.store.get_nodes(ids).values():
            before = settings.setting(other.text, other.attributes.get("speaker"))
            if before is not None:
                found.append((other, before))
        return found

    def _superseded(self, old: Node, new: Node) -> None:
        self.store.update_node(
            old.model_copy(update={"valid_to": self.now(), "superseded_by": new.id})
        )

    def _told_again(
        self,
        text: str,
        kind: str,
        task_tag: str | None,
        candidates: list[Node],
        rarity: causal.Rarity,
        tried: bool,
    ) -> Node | None:
        """The candidate that names the same event as `text` in other words, if one does;
        `tried`: the text is a measure said not to have fixed something."""
        new = self._mention(text, kind, task_tag, None)
        rarity.warm([text, *(x for n in candidates for x in causal.wordings(n))])  # one call
        scores: dict[str, float] = {}
        for node in candidates:
            if (node.kind == "decision") != new.decision or node.task_tag != task_tag:
                continue  # a conflict, known before reading the texts
            said_as = (node.text, *node.attributes.get("aliases", []))
            # who did it is the node's, however a later mention put it ("the deleted logs")
            who = next((a for a in map(extract.actor, said_as) if a), None)
            for said in said_as:
                old = self._mention(said, node.kind, node.task_tag, node.polarity, who)
                score = sameness.same_event(text, new, said, old, rarity)
                scores[node.id] = max(score, scores.get(node.id, 0.0))
        bar = {i: sameness.SAME_EVENT for i in scores}
        if tried:
            # "The restarts did not fix it after all" speaks of a fix recorded before: a
            # decision of this task that went well needs fewer words in common.
            ctx = self._ctx()
            for x in causal.lessons(ctx, causal.causal_edges(ctx, scores, "out")):
                if scoring.decision_reward(x.relation, x.polarity or 0.0) > 0:
                    bar[x.decision_id] = sameness.TRIED_FIX
        passed = [c for c in candidates if c.id in scores and scores[c.id] >= bar[c.id]]
        return max(passed, key=lambda c: scores[c.id], default=None)

    @staticmethod
    def _mention(
        text: str,
        kind: str,
        task_tag: str | None,
        polarity: float | None,
        actor: str | None = None,
    ) -> sameness.Mention:
        decision = kind == "decision"
        if polarity is None:  # only an outcome's polarity is compared
            polarity = 0.0 if decision else outcome_polarity(text).score
        return sameness.Mention(
            decision=decision,
            polarity=polarity,
            recurrence=bool(sameness.RECURRENCE.search(text)),
            actor=extract.actor(text) or actor,
            task_tag=task_tag,
            identifiers=sameness.identifiers(text),
        )

    # decisions and facts ----------------------------------------------------------------------

    def record_decision(
        self,
        decision: str,
        outcome: str,
        relation: str = "caused",
        task_tag: str | None = None,
        *,
        confidence_source: str = "temporal",
        context: str | None = None,
        influenced_by: Iterable[str] | None = None,
        confidence: float | None = None,
        scope: str = "default",
    ) -> DecisionRecord:
        """Record that `decision` led to `outcome` (caused / enabled / prevented / no_effect).

        The outcome's polarity is read from its text; the decision's Q-value moves toward what
        the episode says about it.
        """
        decision = validate.text("decision", decision)
        outcome = validate.text("outcome", outcome)
        relation = validate.causal_relation(relation)
        task_tag = validate.optional_text("task_tag", task_tag, max_len=200)
        confidence_source = validate.confidence_source(confidence_source)
        context = validate.optional_text("context", context)
        weight = (
            SOURCE_CONFIDENCE[confidence_source]
            if confidence is None
            else validate.unit("confidence", confidence)
        )
        influencers = list(influenced_by or [])
        if influencers:
            self._require({f"influenced_by[{i}]": x for i, x in enumerate(influencers)})
        now = self.now()
        with self.store.transaction():
            rarity = causal.rarity(self._ctx())
            d = self._episode_node(decision, "decision", scope, task_tag, now, rarity)
            o = self._episode_node(outcome, "outcome", scope, task_tag, now, rarity)
            if d.id == o.id:
                raise ValidationError("outcome", "must differ from the decision", outcome)
            record = self._episode(
                d, o, relation, weight, now, task_tag, context, confidence_source,
                "record_decision",
            )  # fmt: skip
            influence = [
                self._link(x, record.decision.id, "enabled", weight, now=now, task_tag=task_tag)
                for x in influencers
                if x != record.decision.id
            ]
        return record.model_copy(update={"influenced_by": influence})

    def _episode(
        self,
        d: Node,
        o: Node,
        relation: str,
        weight: float,
        now: datetime,
        task_tag: str | None,
        context: str | None,
        confidence_source: str,
        provenance: str,
        *,
        learn: bool = True,
    ) -> DecisionRecord:
        """Link decision d to outcome o, score the outcome and, when `learn` (an outcome seen,
        not a claim read), update the decision's record and settle any prediction that was
        waiting for this decision."""
        polarity = outcome_polarity(o.text)
        reward = scoring.decision_reward(relation, polarity.score)
        if learn:
            q = scoring.q_update(d.q_value or 0.0, reward, self.config.q_alpha)
            d = d.model_copy(update={"q_value": q})
            self.store.update_node(d)
        o = o.model_copy(
            update={
                "polarity": polarity.score,
                "attributes": {**o.attributes, "polarity_cues": list(polarity.cues)},
            }
        )
        self.store.update_node(o)
        edge = self._link(
            d.id,
            o.id,
            relation,
            weight,
            now=now,
            task_tag=task_tag,
            context=context,
            confidence_source=confidence_source,
            provenance=provenance,
        )
        if learn:
            predictions.resolve(self.store, d.id, reward, o.text, now)
        return DecisionRecord(decision=d, outcome=o, edge=edge, polarity=polarity.score)

    def record_fact(
        self,
        key: str,
        value: str,
        scope: str = "default",
        confidence: float = 1.0,
        replace_same_key: bool = True,
    ) -> FactRecord:
        """Store `key: value`. With replace_same_key, an older value for the key is superseded
        (kept for audit, invisible to retrieval)."""
        key = validate.text("key", key, max_len=500)
        value = validate.text("value", value)
        scope = validate.text("scope", scope, max_len=200)
        confidence = validate.unit("confidence", confidence)
        replace_same_key = validate.flag("replace_same_key", replace_same_key)
        now = self.now()
        with self.store.transaction():
            current = self.store.find_nodes(kind="fact", scope=scope, attribute=("key", key))
            for old in current:
                if old.attributes.get("value") == value:
                    old = old.model_copy(
                        update={
                            "attributes": {**old.attributes, "confidence": confidence},
                            "last_read_at": now,
                            "read_count": old.read_count + 1,
                            "updated_at": self.now(),
                        }
                    )
                    self.store.update_node(old)
                    return FactRecord(fact=old)
            fact = Node(
                id=new_id("fact"),
                kind="fact",
                text=f"{key}: {value}",
                attributes={
                    "key": key,
                    "value": value,
                    "confidence": confidence,
                    "said_at": now.isoformat(),
                },
                scope=scope,
                created_at=now,
                updated_at=self.now(),
                valid_from=now,
                provenance="record_fact",
            )
            self.store.add_node(fact)
            self._embed([fact])
            superseded = []
            if replace_same_key:
                for old in current:
                    self.store.update_node(
                        old.model_copy(update={"valid_to": now, "superseded_by": fact.id})
                    )
                    self._link(fact.id, old.id, "supersedes", 1.0, now=now)
                    superseded.append(old.id)
        return FactRecord(fact=fact, superseded=superseded)

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
                held = {_audit_key(e) for e in self.store.iter_audit()}
                for entry in audit:
                    if _audit_key(entry) not in held:
                        self.store.append_audit(entry.kind, entry.payload, entry.at)
                        held.add(_audit_key(entry))
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


def _said_no_later(a: Node, b: Node) -> bool:
    """Whether `a` was said no later than `b` (either undated: yes, b is the newer telling)."""
    try:
        return to_datetime(a.attributes["said_at"]) <= to_datetime(b.attributes["said_at"])
    except (KeyError, TypeError, ValueError):
        return True


def _changed_content(existing: Node, told: Mapping[str, Any]) -> bool:
    """Whether a file's note says something else now (its text, kind or attributes): where its
    folder is, or which path names it, does not count."""
    where = {"folder", "path"}
    before = {k: v for k, v in existing.attributes.items() if k not in where}
    after = {k: v for k, v in told["attributes"].items() if k not in where}
    return before != after or existing.text != told["text"] or existing.kind != told["kind"]


def told_now(kind: str, provenance: str | None) -> bool:
    """Whether a node stored without a time of its own was said when it was stored: a note or
    fact an agent tells, not a person's index item, nor a file's document or section (a
    file's modification time is often a checkout's, not when it was written)."""
    return kind not in INDEX_KINDS and kind != "document" and provenance != INGESTED


def _nonblank(lines: Iterable[str]) -> Iterator[str]:
    return (ln for ln in lines if ln.strip())


def _people_in(node: Node, people: Sequence[str]) -> frozenset[str]:
    """The people any wording of an episode node names."""
    return frozenset().union(*(sameness.people_named(w, people) for w in causal.wordings(node)))


def open_memory(
    url: str | Path | None = None,
    *,
    config: Config | None = None,
    clock: Clock | None = None,
    embeddings: str | Embedder | None = None,
    extraction: str | None = None,
) -> Memory:
    """Open (creating if needed) a memory: a path, `:memory:`, or a store URL.

    Default: `EBBTIDE_STORE`, else `memory.db` in the user data directory. `embeddings` is
    local, http or none (default: `EBBTIDE_EMBEDDINGS`, else local when installed), or an
    `Embedder` of your own.
    `extraction` is rules (never an LLM) or llm (the `EBBTIDE_EXTRACT_*` settings, required);
    by default an LLM adds to the rules when `EBBTIDE_EXTRACT_URL` is set.
    """
    config = config or Config.from_env()
    chosen = resolve_embedder(embeddings)
    if extraction is not None:
        validate.one_of("extraction", extraction, ("rules", "llm"))
    extractor = None if extraction == "rules" else get_extractor()
    if extraction == "llm" and extractor is None:
        raise ValidationError("EBBTIDE_EXTRACT_URL", "is required for extraction='llm'")
    store = open_store(str(url) if url is not None else default_store_url(), config)
    try:
        return Memory(
            store=store,
            config=config,
            clock=clock or system_clock,
            embedder=chosen,
            extractor=extractor,
        )
    except BaseException:
        store.close()
        raise

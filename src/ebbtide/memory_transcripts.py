"""How what is told becomes memory (mixed into `Memory`): a transcript's messages read
for what they say, the items and causal links stored from them, events told again joined
to the episodes they retell, settings told anew superseding the old, and edited messages."""

from __future__ import annotations

import dataclasses
import json
import logging
import time
from collections.abc import Callable, Collection, Mapping, Sequence
from contextlib import AbstractContextManager
from datetime import UTC, datetime, timedelta
from typing import TYPE_CHECKING, Any

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
from .clock import to_datetime
from .config import Config
from .errors import ExtractorUnavailable, ExtractorUnreachable, ValidationError
from .llm_extract import LlmExtractor
from .model import CAUSAL_RELATIONS, EPISODE_KINDS, Edge, Node, TranscriptResult, new_id
from .polarity import outcome_polarity
from .store import SearchFilter, Store
from .store.base import item_dates
from .text import normalize, paragraphs, similarity

# Nodes a new episode text is compared with (the best full-text matches).
EPISODE_CANDIDATES = 10
FILE_READ = "file_read:"  # + a file's absolute path: what an ingest last wrote of it
# Other wordings kept on an episode node, to recognise the event when it is told again.
MAX_ALIASES = 8
# People the memory knows, read for extraction to tell a person from a word ("Rose", "Miles").
MAX_PEOPLE = 1000

log = logging.getLogger("ebbtide")


class TranscriptOps:
    store: Store
    config: Config
    extractor: LlmExtractor | None
    embed_retry_s: float
    _extract_down: tuple[float, str] | None
    _speakers: tuple[float, list[str]] | None

    if TYPE_CHECKING:  # provided by Memory and its other parts

        def now(self) -> datetime: ...
        def remember(self, text: str | None = None, kind: str = "note", **kw: Any) -> Any: ...
        def _at(self, at: datetime | str | None, field: str = "at") -> datetime: ...
        def _require(self, ids: dict[str, str]) -> dict[str, Node]: ...
        def _link(self, *args: Any, **kw: Any) -> Edge: ...
        def _episode(self, *args: Any, **kw: Any) -> Any: ...
        def _batch_embedding(self) -> AbstractContextManager[None]: ...
        def _embed(self, nodes: Sequence[Node]) -> None: ...
        def _speaker_names(self) -> list[str]: ...
        def _ctx(self) -> causal.Ctx: ...
        def _retire(self, *args: Any, **kw: Any) -> Any: ...

    def _known_people(self) -> list[str]:
        return [p.text for p in self.store.find_nodes(kind="person", limit=MAX_PEOPLE)]

    def _remember_transcript(
        self,
        messages: str | Sequence[Any],
        date: datetime | str | None,
        *,
        scope: str,
        task_tag: str | None,
    ) -> TranscriptResult:
        session = self._at(date, "date") if date is not None else None
        # Messages with no time, sent with no date, were said about now: "tomorrow" in them is
        # tomorrow. (Whether they were told before is still asked by place, not by this time.)
        said = session if session is not None else self.now()
        turns = transcript.parse_transcript(messages)
        # Numbered messages ("m1" starts every transcript) are placed in this call's
        # conversation, named by its scope, date (now, when it has none: sent again undated, it
        # is told again) and words: the same call sent again is named alike, any other
        # conversation otherwise, so no two share a source (recall takes an item whose sources
        # a better hit has for a repeat). Whether a message was told before is `told.key`'s to
        # say, by its place, not by this name.
        words = [
            (m.id, m.speaker, m.text, m.time.astimezone(UTC).isoformat() if m.time else None,
             m.caption)
            for m in turns
        ]  # fmt: skip
        name = transcript.conversation_name(scope, said.astimezone(UTC).isoformat(), words)
        turns = transcript.in_conversation(turns, name)
        keys = {m.id: k for m in turns if (k := told.key(m, session, scope)) is not None}
        places = {m.id: p for m in turns if (p := told.place(m, session, scope))}
        said_before = self.store.get_meta_many([*keys.values(), *places.values()])
        if (
            len(keys) == len(turns)
            and all(k in said_before for k in keys.values())
            and not _said_otherwise_since(places, keys, said_before)
        ):  # sent again whole: nothing to read (nor to pay an LLM for)
            return TranscriptResult(messages=len(turns), nodes=[], edges=[], known=len(turns))
        people = self._known_people()
        found = extract.extract(turns, said, people=people)
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
            before = self.store.get_meta_many(list(places.values()))
            # A message told before in words edited since and now told in them again (an edit
            # undone) is news: what its wording then said is current again.
            since = _said_otherwise_since(places, keys, before)
            known = {
                m.id for m in turns if m.id in keys and keys[m.id] not in claimed
                and m.id not in since
            }  # fmt: skip
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
            edited = [
                m for m in new
                if places.get(m.id) in before and told.held(before[places[m.id]])[0] != keys[m.id]
            ]  # fmt: skip
            self.store.set_meta_many(
                {
                    places[m.id]: told.at_place(keys[m.id], m.time or session)
                    for m in new
                    if m.id in places and m.id in keys
                }
            )
            recorded = self.store.get_meta_many([told.made_key(places[m.id]) for m in edited])
            made = {
                m.id: self._made_by(
                    m, told.held(before[places[m.id]])[1], scope,
                    recorded.get(told.made_key(places[m.id])),
                )
                for m in edited
            }  # fmt: skip
            nodes, edges = self._store_extraction(
                found, now=now, scope=scope, task_tag=task_tag, provenance="transcript",
                told_ids=known, tellers={m.id: places.get(m.id, m.id) for m in turns},
                known_people=people,
            )  # fmt: skip
            self.store.set_meta_many(
                {
                    told.made_key(places[m.id]): json.dumps(
                        [n.id for n in nodes if m.id in n.sources]
                    )
                    for m in new
                    if m.id in places
                }
            )
            for m in edited:
                self._retire_edited(m, places[m.id], made[m.id], nodes, edges)
        self._speakers = None  # the transcript may have new speakers
        return TranscriptResult(
            messages=len(turns), nodes=nodes, edges=edges, known=len(known), degraded=degraded
        )

    def _made_by(
        self,
        message: transcript.Message,
        said_at: str | None,
        scope: str,
        recorded: str | None = None,
    ) -> list[Node]:
        """The current items `message` told and still lists among their sources: those its
        place recorded (`recorded`, `told.made_key`: found though a later message told them
        again), and, in a store from before that record, those in its scope, by its speaker,
        said at `said_at` (as its place recorded it: the items carry that very string)."""
        found = list(self.store.get_nodes(told.made(recorded)).values())
        if said_at is not None:
            said_then = self.store.find_nodes(
                scope=scope, attribute=("said_at", said_at), limit=1000
            )
            found += [n for n in said_then if n.attributes.get("speaker") == message.speaker]
        mine = {n.id: n for n in found if message.id in n.sources and n.valid_to is None}
        return list(mine.values())

    def _retire_edited(
        self,
        message: transcript.Message,
        teller: str,
        before: list[Node],
        stored: list[Node],
        linked: Sequence[Edge] = (),
    ) -> None:
        """What only the earlier wording of an edited message told (`before`: "allergic to
        peanuts", now "… to walnuts") is no longer current: kept for the record, superseded by
        what the new wording told instead when that is one item of its kind, and so are the
        lessons drawn from it (its causal links, unless this reading made them, `linked`). An
        item the new wording tells again (among `stored`) stays; so does one something else
        told too (another message, a note, `record_decision`: `told.only_by`), no longer
        listing the message among its sources. A causal link between items that stay ends
        when the message (`teller`, as `told.link_key` records it) was the last to tell it."""
        now = self.now()
        kept = {n.id for n in stored}
        made = {e.id for e in linked}
        fresh = self.store.get_nodes([n.id for n in before if n.id not in kept])
        # A store from before `told.RECORDED` knows a lesson record_decision recorded after a
        # message told it by its link, which record_decision made last.
        recorded = {
            end
            for e in self.store.edges_of(list(fresh))
            if e.provenance == "record_decision"
            for end in (e.src, e.dst)
        }
        alone = [n for n in fresh.values() if told.only_by(n, message.id) and n.id not in recorded]
        gone = [n.id for n in alone]
        for node in fresh.values():
            if node.id not in gone:
                sources = [s for s in node.sources if s != message.id]
                self.store.update_node(node.model_copy(update={"sources": sources}))
        told_by = self._told_only_by(teller, [n.id for n in before], made)
        ended = []
        for edge in [*self.store.edges_of(gone), *told_by]:
            if edge.relation in CAUSAL_RELATIONS and edge.id not in made and edge.id not in ended:
                reason = told.edited(message.id)
                context = f"{edge.context} | {reason}" if edge.context else reason
                self.store.update_edge(
                    edge.model_copy(update={"valid_to": now, "context": context})
                )
                ended.append(edge.id)
        predictions.recheck(self.store, ended, now)
        was = {n.id for n in before}
        instead = [n for n in stored if message.id in n.sources and n.id not in was]
        for node in alone:
            update: dict[str, Any] = {"valid_to": now}
            same_kind = [n for n in instead if n.kind == node.kind]
            if len(same_kind) == 1:
                update["superseded_by"] = same_kind[0].id
            self.store.update_node(node.model_copy(update=update))

    def _told_only_by(self, teller: str, node_ids: list[str], made: set[str]) -> list[Edge]:
        """The current causal links of `node_ids` that the message `teller` was the last to
        tell (`told.link_key`), but those this reading `made`; the others it told lose it from
        their record."""
        links = {
            e.id: e
            for e in self.store.edges_of(node_ids)
            if e.relation in CAUSAL_RELATIONS and e.id not in made
        }
        records = self.store.get_meta_many([told.link_key(i) for i in links])
        alone, rest = [], {}
        for edge_id, edge in links.items():
            said = told.tellers(records.get(told.link_key(edge_id)))
            if teller not in said:
                continue
            others = [t for t in said if t != teller]
            if others or edge.provenance != "transcript" or claims.sayers(edge):
                # another message tells it, or something else has since (`record_decision`, a
                # note): it stands, no longer told by this one
                rest[told.link_key(edge_id)] = told.with_tellers(None, others)
            else:
                alone.append(edge)
        self.store.set_meta_many(rest)
        return alone

    def files_read(self, files: Sequence[str]) -> dict[str, str]:
        """What an ingest recorded of each file (by absolute path) when it last wrote it."""
        found = self.store.get_meta_many([FILE_READ + f for f in files])
        return {k.removeprefix(FILE_READ): v for k, v in found.items()}

    def file_read(self, file: str, record: str) -> None:
        """Record what an ingest wrote of `file`: inside its batch, so it commits with the
        file's writes or not at all (a crash never leaves a file recorded but unwritten)."""
        self.store.set_meta_many({FILE_READ + file: record})

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
        note had before (its file's path before its folder moved, or before it was renamed):
        what it said under them is its own, listed under its name now; renamed within its
        folder, the claims it makes name its new path only."""
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
        found = extract.causal_only(
            extract.extract(said, now, note=True, people=self._known_people())
        )
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
                self._settle_claims(note, nodes, edges, before, owned, formerly, gone, said_at=now)
                # Its file renamed within its folder: what it says is said under the new path.
                if renamed := claims.renamed_from(note, formerly):
                    old = claims.from_note(None, [], renamed)
                    for node in self.store.get_nodes([n.id for n in nodes]).values():
                        kept = [s for s in node.sources if not old(s)]
                        if kept != node.sources:
                            self.store.update_node(node.model_copy(update={"sources": kept}))
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
        *,
        said_at: datetime,
    ) -> None:
        """Link a note's current claims `about` it (dated `said_at`, when the note said them),
        and retract what it said before and says no more: a link it does not make again ends
        once no note says it, then each claim only it told that is left with no current link,
        with its `about` link (marked, so that the note saying it again brings it back)."""
        now = self.now()  # a retraction happens when the note is read, whatever its date
        fresh = self.store.get_nodes([n.id for n in nodes])
        current = {i for i, n in fresh.items() if n.valid_to is None}
        for node_id in sorted(current - {note.id}):
            link = self.store.get_edge(node_id, note.id, "about")
            if link is None:
                # Dated as the note: an old file's claims are no fresher than its other links.
                self._link(node_id, note.id, "about", 1.0, now=said_at, provenance="note")
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
        tellers: Mapping[str, str] | None = None,
        known_people: Sequence[str] = (),
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
        learned from once.

        `tellers`: what each message of a transcript is known by (its place, else its id): the
        causal links made here record the messages that told them (`told.link_key`), and one
        an edit of its message had ended is current again, told again.

        `known_people`: those the memory knew before (as read for extraction), whose own tool a
        setting told of them by another is ("Ben uses vim")."""
        rarity = causal.rarity(self._ctx())
        people = list(
            dict.fromkeys(
                [*self._speaker_names(), *(it.text for it in found.items if it.kind == "person")]
            )
        )
        # whose own tool a setting told of someone may be ("Ben uses vim"): anyone known
        known = list(dict.fromkeys([*people, *known_people]))
        persons = known  # who an outcome's text may name as away, not down ("Ben was offline")
        causes: dict[int, set[int]] = {}  # an item's other ends of its causal links
        for link in found.links:
            if link.relation in CAUSAL_RELATIONS:
                causes.setdefault(link.src, set()).add(link.dst)
                causes.setdefault(link.dst, set()).add(link.src)
        nodes: list[Node] = []
        edges: list[Edge] = []
        heard: dict[str, list[str]] = {}  # causal links told here: by which messages
        first: set[str] = set()  # ... and those of them made here
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
                # Which day a telling is of, or was said on, is its speaker's day.
                dates = item_dates(attrs)
                told_then, said = dates.told_local, dates.said_local
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
                    self._supersede_setting(node, scope, known)
            else:
                node = self.remember(
                    item.text, item.kind, attributes=attrs, scope=scope, task_tag=task_tag,
                    sources=item.sources, provenance=item.provenance, at=now,
                )  # fmt: skip
                if learn and item.kind in ("fact", "note"):
                    self._supersede_setting(node, scope, known)
            nodes.append(node)
        for link in found.links:
            a, b = nodes[link.src], nodes[link.dst]
            if a.id == b.id or {link.src, link.dst} <= old or {link.src, link.dst} & lost:
                continue
            said = [tellers[m] for m in link.sources if m in tellers] if tellers else []
            if (link.src in old or link.dst in old) and (
                was := self.store.get_edge(a.id, b.id, link.relation)
            ):
                if said:
                    heard.setdefault(was.id, []).extend(_with_maker(said, was, provenance))
                continue  # a known item linked again by a retelling: learned from once
            if link.relation in CAUSAL_RELATIONS:
                known = None if learn else self.store.get_edge(a.id, b.id, link.relation)
                was = self.store.get_edge(a.id, b.id, link.relation) if said else None
                if was is not None:
                    said = _with_maker(said, was, provenance)
                    if told.ended_by_edit(was):
                        self.store.update_edge(told.told_again(was))
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
                    link.confidence_source, provenance, learn=learn, people=persons,
                )  # fmt: skip
                edges.append(rec.edge)
                if said:
                    heard.setdefault(rec.edge.id, []).extend(said)
                    if was is None:
                        first.add(rec.edge.id)
                # As scored now: a later link from the outcome must not write back its older copy
                # ("That was a mistake: checkout stalled. That led to …" kept no polarity).
                scored = {rec.decision.id: rec.decision, rec.outcome.id: rec.outcome}
                nodes = [scored.get(n.id, n) for n in nodes]
            else:
                edges.append(
                    self._link(a.id, b.id, link.relation, link.weight, now=now,
                               provenance=provenance)
                )  # fmt: skip
        self._record_tellers(heard, first)
        # What this reading stored or changed: not an item told before that gained no link.
        changed = {n.id for i, n in enumerate(nodes) if i not in old}
        changed |= {e.src for e in edges} | {e.dst for e in edges}
        changed -= {nodes[i].id for i in lost}
        fresh = self.store.get_nodes([n.id for n in nodes if n.id in changed])
        unique = [fresh[i] for i in dict.fromkeys(n.id for n in nodes) if i in fresh]
        return unique, edges

    def _record_tellers(self, heard: Mapping[str, list[str]], first: Collection[str]) -> None:
        """List the messages that told each link of `heard` among those that tell it: a link
        made here starts its record; one made before its record was kept (nor one an LLM alone
        told) starts none, as what else told it is not known."""
        if not heard:
            return
        keys = {i: told.link_key(i) for i in heard}
        known = self.store.get_meta_many(list(keys.values()))
        self.store.set_meta_many(
            {
                keys[i]: told.with_tellers(known.get(keys[i]), said)
                for i, said in heard.items()
                if i in first or keys[i] in known
            }
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
        is another event ("Hey Tim, been a while!" / "Hey John, been a while"). `said`: the
        day the text was said on; a node said on another day is another event when it or the
        text points at something the other does not name ("Caroline painted this"). Spans
        and days are each on the calendar of the offset it was told in (`ItemDates`). What a
        pronoun stood for is an aside, not what happened ("That (the worker count doubled)
        exhausted the pool" is not the doubling), and tellings whose "it" stands for different
        things are two events. `provenance`: what a new node was made by. `owned`: a node only
        the source being read told; told in other words, it is that source's older wording,
        not the same event. `apart`: nodes this one is told as the cause or effect of, which it
        cannot be ("Skipping the load test was a mistake; checkout stalled" is not the
        skipping). An action told as not done is another decision than doing it ("Did not skip
        the canary" / "Skipped the canary"), and so is one told with the opposite verb ("Kept
        the canary"). One that names another thing in the same place is another option ("Use
        Postgres for the CLI" / "Use SQLite for the CLI": `sameness.different_choices`, where a
        word opening a sentence is a name when the memory spells it as one elsewhere:
        `causal.names_in`), and so is the same action done to another thing ("Cache the
        sessions in Redis" / "Cache the tokens in Redis": `sameness.different_objects`)."""
        named = sameness.people_named(text, people)
        who = extract.actor(text)
        spelt = causal.names_in(self.store)

        def may_be(node: Node) -> bool:
            dates = item_dates(node.attributes)
            told_then, said_then = dates.told_local, dates.said_local
            return node.id not in apart and not (
                sameness.different_times(told, told_then)
                or sameness.different_referents(text, node.text)
                # "Use Postgres for the CLI" is the other option to "Use SQLite for the CLI",
                # however many other words the two share
                or sameness.different_choices(text, node.text, spelt)
                or (
                    owned is not None
                    and owned(node)
                    and claims.wording(node.text) != claims.wording(text)
                )
                or sameness.different_people(named, _people_in(node, people))
                # "Dana restarted the workers, which cleared the queue" is not Ben's restart
                # told again, however few words set them apart
                or (who is not None and _actor_of(node) not in (None, who))
                # "Did not skip the canary" (or "Kept the canary") is not "Skipped the canary"
                # told again, nor is "Cache the tokens in Redis" "Cache the sessions in Redis"
                or (
                    "outcome" not in (kind, node.kind)
                    and (
                        not sameness.same_choice(text, node.text)
                        or sameness.different_objects(text, node.text)
                    )
                )
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
            described = sameness.description(text)
            if described is not None:
                # every event it may name, not only those most like the words around its noun
                more = self.store.text_search(described, EPISODE_CANDIDATES, flt)
                if others := sameness.other_names(described):  # "the downtime": an outage
                    more += self.store.text_search(" ".join(others), EPISODE_CANDIDATES, flt)
                if said is not None and sameness.names_any(described):
                    # "the incident": what went wrong that day, whatever it was called
                    day = datetime.fromtimestamp(said[0], UTC).date()
                    bad = dataclasses.replace(flt, kinds=frozenset({"outcome"}))
                    more += self.store.time_search(
                        day, day + timedelta(days=1), EPISODE_CANDIDATES, bad
                    )
                ids = list(dict.fromkeys([*ids, *(i for i, _ in more)]))
            found = self.store.get_nodes(ids)
            candidates = [found[i] for i in ids if i in found and may_be(found[i])]
            said_as = sameness.told(text)
            alike = {n.id: similarity(said_as, sameness.told(n.text)) for n in candidates}
            # A thing missing told again is that lack, in whatever words ("No canary was run",
            # "There was no canary" / "No canary"), as a decision or as what let an outcome happen.
            lack = sameness.absent(text)
            same = [
                n
                for n in candidates
                if alike[n.id] >= causal.SAME_THING
                or (lack is not None and sameness.absent(n.text) == lack)
            ]
            same.sort(key=lambda n: -alike[n.id])
            if not same:
                again = self._told_again(
                    text, kind, task_tag, candidates, rarity, tried, said, told, spelt
                )
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

    def _supersede_setting(self, node: Node, scope: str, people: list[str]) -> None:
        """A setting told anew supersedes what was said of the same thing before, as
        `record_fact` does for a key: kept for the record, no longer recalled. It is told anew
        as a setting ("The staging DB is Postgres 16" after "Our staging DB is Postgres 15")
        or as a change (an event, a note or a fact: "We upgraded the staging DB to Postgres 16",
        "We've moved our CI over to GitHub Actions"); one
        made by someone not of this memory's speakers is of their own thing unless told as
        ours ("Acme replaced Jenkins with GitHub Actions" leaves our Jenkins standing). What
        we use is a setting too, told as a fact or a note ("We use Jenkins for CI"). A thing
        of many tools keeps one of another kind ("We use Redis for the orders service" leaves
        its Postgres standing: `settings.replaces`). What one of `people` uses, told by
        another ("Ben uses vim"), is that person's own."""
        speaker = node.attributes.get("speaker")
        told = node.kind in ("fact", "note")
        answer = bool(node.attributes.get("answer"))  # "Jenkins for CI", told as an answer
        said = settings.setting(node.text, speaker, people, answer=answer) if told else None
        if said is None:
            # a fact may tell a change too, as done by now: "We've moved our CI over to …"
            done = settings.change(node.text, speaker, self._speaker_names())
            if done is None:
                return
            for other, before in self._settings_named(settings.sought(done), node, scope, people):
                # a change told, or told of, before the setting leaves the setting standing
                if settings.changes(done, before) and _changed_since(other, node):
                    self._superseded(other, node)
            return
        for other, before in self._settings_named(settings.sought(said), node, scope, people):
            if not settings.replaces(said, before):
                continue
            # The later telling stands: one told now of an earlier time is the superseded one.
            old, new = (other, node) if _said_no_later(other, node) else (node, other)
            self._superseded(old, new)
            if old is node:
                return

    def _settings_named(
        self, words: str, besides: Node, scope: str, people: list[str]
    ) -> list[tuple[Node, settings.Setting]]:
        """The current settings among the facts and notes that match `words`, but `besides`."""
        flt = SearchFilter(kinds=frozenset({"fact", "note"}), scope=scope)
        ids = [i for i, _ in self.store.text_search(words, 20, flt) if i != besides.id]
        found = []
        for other in self.store.get_nodes(ids).values():
            speaker, answer = other.attributes.get("speaker"), bool(other.attributes.get("answer"))
            before = settings.setting(other.text, speaker, people, answer=answer)
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
        said: tuple[float, float] | None = None,
        told: tuple[float, float] | None = None,
        spelt: Callable[[str], bool] = lambda _: False,
    ) -> Node | None:
        """The candidate that names the same event as `text` in other words, if one does;
        `tried`: the text is a measure said not to have fixed something; `told`: the span it
        is told to have happened in, shared with a candidate told of an overlapping one. A definite
        description ("The outage happened") names the one event told on the day it was
        `said` that it can name (`sameness.named_again`): the outage of this conversation,
        not one told months before. `spelt`: whether the memory spells a word as a name
        (`causal.names_in`)."""
        new = dataclasses.replace(self._mention(text, kind, task_tag, None), when=told)
        rarity.warm([text, *(x for n in candidates for x in causal.wordings(n))])  # one call
        scores: dict[str, float] = {}
        in_play: dict[str, tuple[Sequence[str], sameness.Mention]] = {}
        for node in candidates:
            if (node.kind == "decision") != new.decision or node.task_tag != task_tag:
                continue  # a conflict, known before reading the texts
            said_as = (node.text, *node.attributes.get("aliases", []))
            who = _actor_of(node)
            mentions = [
                self._mention(w, node.kind, node.task_tag, node.polarity, who) for w in said_as
            ]
            dates = item_dates(node.attributes)
            if said is not None and said == dates.said_local:
                in_play[node.id] = (said_as, mentions[0])
            for wording, old in zip(said_as, mentions, strict=True):
                old = dataclasses.replace(old, when=dates.told_local)
                score = sameness.same_event(text, new, wording, old, rarity, spelt)
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
        best = max(passed, key=lambda c: scores[c.id], default=None)
        described = sameness.description(text)
        if best is not None or described is None:
            return best
        named = sameness.named_again(described, new, in_play)
        return next((c for c in candidates if c.id == named), None)

    @staticmethod
    def _mention(
        text: str, kind: str, task_tag: str | None, polarity: float | None, actor: str | None = None
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
            outcome=kind == "outcome",
        )


def _said_otherwise_since(
    places: Mapping[str, str], keys: Mapping[str, str], said: Mapping[str, str]
) -> set[str]:
    """The messages whose place (`told.place`) last held other words than theirs now."""
    return {
        i for i, p in places.items() if i in keys and p in said and told.held(said[p])[0] != keys[i]
    }


def _with_maker(said: list[str], edge: Edge, provenance: str) -> list[str]:
    """The messages telling a link, and what else told it last (`record_decision`, a note)
    when that was no reading like this one: a link it tells stands whatever messages say."""
    return said if edge.provenance == provenance else [*said, edge.provenance or "agent"]


def _changed_since(setting: Node, change: Node) -> bool:
    """Whether `change` came after `setting` was said: told no earlier, and not told of a
    time over before it ("We upgraded staging to Postgres 16 in 2019" leaves a setting said
    in 2024 standing)."""
    if not _said_no_later(setting, change):
        return False
    # Days, each on the calendar of its speaker's offset.
    told_of = item_dates(change.attributes).told_local
    said = item_dates(setting.attributes).said_local
    return told_of is None or said is None or told_of[1] > said[0]


def _said_no_later(a: Node, b: Node) -> bool:
    """Whether `a` was said no later than `b` (either undated: yes, b is the newer telling)."""
    try:
        return to_datetime(a.attributes["said_at"]) <= to_datetime(b.attributes["said_at"])
    except (KeyError, TypeError, ValueError):
        return True


def _actor_of(node: Node) -> str | None:
    """Who did what an episode node tells, in the first of its wordings that says (a later
    mention may put it without them: "the deleted logs")."""
    return next((a for a in map(extract.actor, causal.wordings(node)) if a), None)


def _people_in(node: Node, people: Sequence[str]) -> frozenset[str]:
    """The people any wording of an episode node names."""
    return frozenset().union(*(sameness.people_named(w, people) for w in causal.wordings(node)))

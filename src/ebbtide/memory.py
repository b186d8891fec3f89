"""The Memory facade: one method per operation. Faces call these; behaviour lives below.

This file holds remembering, linking, recall and decisions; the rest of the facade is mixed in
from one file per concern: `memory_transcripts` (what a conversation told), `memory_vectors`
(embedding), `memory_lifecycle` (pin, forget, maintain, review, stats), `memory_io` (export
and import) and `memory_causal` (the causal tools)."""

from __future__ import annotations

from collections.abc import Collection, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from datetime import datetime
from pathlib import Path
from typing import Any, overload

from . import causal, claims, predictions, scoring, validate
from .clock import Clock, system_clock, to_datetime
from .config import Config, default_store_url
from .consolidate import in_use
from .embed import Embedder, resolve_embedder
from .errors import EbbtideError, NotFound, StoreUnavailable, ValidationError
from .llm_extract import LlmExtractor, get_extractor
from .memory_causal import CausalOps
from .memory_io import ExportOps
from .memory_lifecycle import LifecycleOps
from .memory_transcripts import TranscriptOps
from .memory_vectors import EMBED_RETRY_S, VectorOps
from .model import (
    INDEX_KINDS,
    INGESTED,
    DecisionRecord,
    Edge,
    FactRecord,
    Link,
    Neighbor,
    NeighborsResult,
    Node,
    RecallResult,
    ReinforceResult,
    TranscriptResult,
    new_edge,
    new_id,
)
from .polarity import outcome_polarity
from .recall import MAX_K
from .recall import recall as _recall
from .store import SearchFilter, Store, open_store
from .store.base import TIME_KEYS
from .told import RECORDED

# Default edge confidence by who asserted the link.
SOURCE_CONFIDENCE = {"user_feedback": 1.0, "rule": 0.8, "llm_inferred": 0.7, "temporal": 0.8}


@dataclass
class Memory(TranscriptOps, VectorOps, LifecycleOps, ExportOps, CausalOps):
    """One memory, whatever the backend."""

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
            self.store.ping()
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
        older than now (a file's modification time). An attribute given as None is not
        stored, and one updated `node_id` had is taken away.

        With `messages` (a transcript: "speaker: text" lines, or a list of {id?, speaker,
        text, time?}) instead of text, the raw turns go to the audit log and what they say
        is extracted and stored: facts, events, preferences, lessons and causal links, each
        keeping the ids of the messages it came from (one sent without an id is its place in
        this conversation, "k3x9q2ab.m2", named by the call's scope, date and words: no two
        conversations share one). A message remembered before (`told.key`:
        same id, speaker and text in the scope; with no id, same speaker and text at the same
        time, or at the same place on the same date) is read again as context only: what it
        says is not stored or learned from twice, and only new messages go to the audit log,
        so an agent may send overlapping windows of one conversation.
        """
        if messages is not None:
            if text is not None:
                raise ValidationError("text", "give either text or messages, not both")
            if not (messages.strip() if isinstance(messages, str) else messages):
                raise ValidationError("messages", "must hold at least one message")
            scope = validate.text("scope", scope, max_len=200)
            task_tag = validate.optional_text("task_tag", task_tag, max_len=200)
            return self._remember_transcript(messages, date, scope=scope, task_tag=task_tag)
        if text is None:
            raise ValidationError("text", "is required (or give messages)")
        text = validate.text("text", text)
        kind = validate.kind(kind)
        pinned = validate.flag("pinned", pinned)
        attrs = validate.attributes(attributes)
        # a date or tag its file no longer has
        dropped = {k for k, v in attrs.items() if v is None}
        attrs = {k: v for k, v in attrs.items() if v is not None}
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
                # A file's note read again from its file is where that file is now: renamed in
                # its vault, it names the new path, not both.
                refiled = sources and provenance == existing.provenance == INGESTED
                told = {
                    "text": text,
                    "kind": kind,
                    "attributes": {
                        k: v
                        for k, v in {**existing.attributes, **attrs}.items()
                        if k not in dropped
                    },
                    "pinned": existing.pinned or pinned,
                    "task_tag": task_tag or existing.task_tag,
                    "sources": list(
                        dict.fromkeys([*([] if refiled else existing.sources), *(sources or [])])
                    ),
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
                used = now if reread else self.now()
                node = existing.model_copy(
                    update={
                        **told,
                        "status": status,
                        # Written anew only when something changed: a vault read again
                        # unchanged does not restart every note's grace period.
                        "updated_at": self.now() if changed and not reread else existing.updated_at,
                        # Told again, it is used now, whenever `at` says it held (that
                        # dates what it tells, not its use); a file read again unchanged is
                        # no use, and its mtime never makes knowledge older.
                        "last_read_at": max(existing.last_read_at or used, used),
                        "read_count": existing.read_count + (0 if reread else 1),
                        # told again, it is in use: found at once, not after the next maintain
                        "tier": existing.tier if reread else in_use(existing.tier),
                    }
                )
                self.store.update_node(node)
                if existing.status != "active" and status == "active":
                    # Told again, it is in use: a pending deletion would remove live knowledge.
                    self.store.remove_review(node.id)
                    if existing.status == "forgotten":
                        self._lessons_changed([node.id])
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
            # Told again, it is used now (`now` may be when it held, an agent's `at`); a
            # file's link read again is dated by the file's modification time, which never
            # makes a link older than an agent's use of it since.
            used = now if said == INGESTED else self.now()
            edge = edge.model_copy(
                update={
                    "weight": weight,
                    "last_reinforced_at": max(edge.last_reinforced_at, used),
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

        With one id: the node and all its links. With two: both nodes, and the links between
        them (optionally only `relation`), which also grow stronger (Hebbian).
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
            self.store.touch([a, b], [], now.timestamp())  # used together: both are in use
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
            # Marked (and written by `_episode`) as recorded: a message that tells the lesson too
            # is not its only source, and an edit of that message leaves it standing.
            d, o = (
                n.model_copy(update={"attributes": {**n.attributes, RECORDED: True}})
                for n in (d, o)
            )
            record = self._episode(
                d, o, relation, weight, now, task_tag, context, confidence_source,
                "record_decision", people=self._known_people(),
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
        people: Sequence[str] = (),
    ) -> DecisionRecord:
        """Link decision d to outcome o, score the outcome and, when `learn` (an outcome seen,
        not a claim read), update the decision's record and settle any prediction that was
        waiting for this decision. `people`: who is a person, not a system, in its text ("Ben
        was offline all weekend" is no outage)."""
        polarity = outcome_polarity(o.text, people)
        reward = scoring.decision_reward(relation, polarity.score)
        # Seen again, what someone asked to forget is in use, as when it is told again
        # (`remember`): hidden, the episode recorded now would settle no prediction and go
        # with the node once the old request is approved. A claim read again is no sighting.
        back = [n.id for n in (d, o) if learn and n.status == "forgotten"]
        for node_id in back:
            self.store.remove_review(node_id)
        d, o = (
            n.model_copy(update={"status": "active", "tier": in_use(n.tier)}) if n.id in back else n
            for n in (d, o)
        )
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
            predictions.resolve(self.store, d.id, edge.id, reward, o.text, now)
        if back:  # its other lessons stand again
            self._lessons_changed(back)
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


def _changed_content(existing: Node, told: Mapping[str, Any]) -> bool:
    """Whether a file's note says something else now (its text, kind or attributes): where its
    folder is, which path names it, or the date it was written on does not count."""
    where = {"folder", "path", "said_at"}
    before = {k: v for k, v in existing.attributes.items() if k not in where}
    after = {k: v for k, v in told["attributes"].items() if k not in where}
    return before != after or existing.text != told["text"] or existing.kind != told["kind"]


def told_now(kind: str, provenance: str | None) -> bool:
    """Whether a node stored without a time of its own was said when it was stored: a note or
    fact an agent tells, not a person's index item, nor a file's document or section (a
    file's modification time is often a checkout's, not when it was written)."""
    return kind not in INDEX_KINDS and kind != "document" and provenance != INGESTED


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

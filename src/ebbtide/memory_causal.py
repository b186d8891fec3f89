"""The causal half of the Memory facade (mixed into `Memory`): one method per causal tool,
validating input and delegating to causal.py, patterns.py and predictions.py."""

from __future__ import annotations

from datetime import datetime
from typing import TYPE_CHECKING

from . import causal, claims, patterns, predictions, sameness, scoring, validate
from .config import Config
from .embed import Embedder, query_embedding
from .errors import EmbeddingUnavailable, NotFound, ValidationError
from .model import (
    CAUSAL_RELATIONS,
    CausalDirectory,
    CausalSearchResult,
    ChainResult,
    CounterfactualResult,
    FactSearchResult,
    InterventionResult,
    InvalidateResult,
    LessonText,
    MemorySearchResult,
    OptionEvidence,
    PatternsResult,
    PredictionReport,
    TraceResult,
    UpdatesResult,
)
from .recall import MAX_K
from .store import SearchFilter, Store
from .text import containment, link_line, shorten, tells_cause

if TYPE_CHECKING:
    from .model import Edge, RecallResult

DETAIL_LEVELS = {"l0": 80, "l1": 300, "l2": None}
META_PATTERNS_MINED = "patterns_mined_lessons"


class CausalOps:
    store: Store
    config: Config
    embedder: Embedder | None

    if TYPE_CHECKING:  # provided by Memory and its vector part

        def now(self) -> datetime: ...
        def recall(self, query: str, k: int = 10, **kw: object) -> RecallResult: ...
        def _live_embedder(self) -> Embedder | None: ...
        def _embedding_failed(self, why: str) -> None: ...
        def _speaker_names(self) -> list[str]: ...

    def _ctx(self) -> causal.Ctx:
        embedder = self._live_embedder()
        unmet: list[str] = []
        nearest = None
        if embedder is not None:
            name, as_query = embedder.name, query_embedding(embedder)

            def nearest(text: str, k: int, flt: SearchFilter) -> list[tuple[str, float]]:
                # As in recall: an unreachable model costs the meaning match, not the answer.
                try:
                    return self.store.vector_search(name, as_query([text])[0], k, flt)
                except EmbeddingUnavailable as exc:
                    self._embedding_failed(str(exc))
                    unmet.append(str(exc))
                    return []

        down = self._embed_down[1] if embedder is None and self._embed_down else None
        return causal.Ctx(
            self.store,
            self.config,
            self.now().timestamp(),
            nearest,
            down=down,
            unmet=unmet,
            people=self._speaker_names,
        )

    @staticmethod
    def _degraded(ctx: causal.Ctx) -> str | None:
        return f"no match by meaning: {ctx.unmet[0]}" if ctx.unmet else None

    # search ------------------------------------------------------------------------------

    def search_causal(
        self,
        task_tag: str | None = None,
        query: str | None = None,
        limit: int = 5,
        detail_level: str = "l1",
        max_tokens: int | None = None,
        explain: bool = True,
    ) -> CausalSearchResult:
        """Lessons (decision -> outcome) matching a query and/or a task, freshest first."""
        query = validate.optional_text("query", query, max_len=10_000)
        task_tag = validate.optional_text("task_tag", task_tag, max_len=200)
        limit = validate.count("limit", limit)
        width = _detail(detail_level)
        result = causal.search_causal(self._ctx(), query, task_tag, limit)
        for hit in result.hits:
            _trim_lesson(hit.lesson, width)
            if not explain:
                hit.why.lists.clear()
        return _fit(result, "hits", max_tokens)

    def search_memory(
        self,
        query: str,
        task_tag: str | None = None,
        scope: str | None = None,
        limit: int = 10,
        detail_level: str = "l1",
        max_tokens: int | None = None,
        explain: bool = True,
    ) -> MemorySearchResult:
        """Everything relevant to `query`: knowledge of any kind plus the lessons about it."""
        query = validate.text("query", query, max_len=10_000)
        limit = validate.count("limit", limit, high=MAX_K)
        width = _detail(detail_level)
        recalled = self.recall(query, limit, scope=scope, task_tag=task_tag)
        hits = recalled.hits
        found = causal.search_causal(self._ctx(), query, task_tag, limit, scope, untagged=True)
        lessons = [h.lesson for h in found.hits]
        for hit in hits:
            if width is not None:
                hit.node.text = shorten(hit.node.text, width)
            if not explain:
                hit.why.lists.clear()
        for lesson in lessons:
            _trim_lesson(lesson, width)
        result = MemorySearchResult(
            query=query, hits=hits, lessons=lessons, degraded=recalled.degraded
        )
        return _fit(result, "hits", max_tokens)

    def search_facts(
        self, query: str | None = None, scope: str | None = None, limit: int = 5
    ) -> FactSearchResult:
        """Current facts (superseded values excluded), by text match or most recent first."""
        query = validate.optional_text("query", query, max_len=10_000)
        limit = validate.count("limit", limit)
        kinds = frozenset({"fact", "preference"})
        if query:
            flt = SearchFilter(include_cold=True, kinds=kinds, scope=scope)
            ids = [i for i, _ in self.store.text_search(query, limit, flt)]
            nodes = self.store.get_nodes(ids)
            facts = [nodes[i] for i in ids if i in nodes]
        else:
            facts = self.store.find_nodes(kind="fact", scope=scope, limit=100_000)
            facts.sort(key=lambda n: n.updated_at, reverse=True)
            facts = facts[:limit]
        return FactSearchResult(query=query, facts=facts)

    def causal_directory(self, limit: int = 30) -> CausalDirectory:
        """A compact index of known lessons, one line each, for a system prompt."""
        return causal.directory(self._ctx(), validate.count("limit", limit))

    # why ---------------------------------------------------------------------------------

    def trace_cause(self, outcome_description: str) -> TraceResult:
        """The recorded direct causes of an outcome."""
        text = validate.text("outcome_description", outcome_description, max_len=10_000)
        ctx = self._ctx()
        result = causal.trace_cause(ctx, text)
        result.degraded = self._degraded(ctx)
        return result

    def trace_cause_chain(
        self,
        outcome_description: str,
        max_depth: int = 3,
        min_confidence: float | None = None,
        limit: int = 5,
    ) -> ChainResult:
        """Multi-hop root causes: every recorded chain of caused/enabled links that ends in the
        outcome, root first."""
        text = validate.text("outcome_description", outcome_description, max_len=10_000)
        max_depth = validate.count("max_depth", max_depth, high=10)
        floor = 0.2 if min_confidence is None else validate.unit("min_confidence", min_confidence)
        limit = validate.count("limit", limit)
        ctx = self._ctx()
        result = causal.trace_cause_chain(ctx, text, max_depth, floor, limit)
        result.degraded = self._degraded(ctx)
        return result

    # what if -----------------------------------------------------------------------------

    def intervention_query(
        self, action: str, task_tag: str | None = None, max_depth: int = 3, limit: int = 10
    ) -> InterventionResult:
        """Predicted consequences of doing `action` again, with a verdict and a risk score.
        `action` may be put as a question ("should I skip the canary?"): see
        `sameness.asked_action`."""
        action = sameness.asked_action(validate.text("action", action, max_len=10_000))
        task_tag = validate.optional_text("task_tag", task_tag, max_len=200)
        max_depth = validate.count("max_depth", max_depth, high=10)
        limit = validate.count("limit", limit)
        ctx = self._ctx()
        fx = causal.effects(ctx, action, task_tag, max_depth, limit)
        verdict, risk, evidence = causal.verdict(fx)
        # Undoing a measure is dangerous when the measure is good: what is predicted of the
        # measure itself is the opposite of what is predicted of undoing it.
        undone = [n.id for n in fx.undone]
        done = [n.id for n in fx.matched if n.id not in undone]
        good, bad = (done, undone) if verdict == "SAFE" else (undone, done)
        with self.store.transaction():
            pid = (
                predictions.log(
                    self.store,
                    kind="intervention",
                    subject=action,
                    predicted=verdict,
                    good_ids=good,
                    bad_ids=bad,
                    now=self.now(),
                )
                if verdict != "UNKNOWN"
                else None
            )
        return InterventionResult(
            action=action,
            matched=fx.matched,
            verdict=verdict,
            risk=round(risk, 4),
            consequences=fx.consequences,
            evidence=evidence,
            prediction_id=pid,
            degraded=self._degraded(ctx),
        )

    def counterfactual_query(
        self, decision: str, alternative: str, task_tag: str | None = None, limit: int = 10
    ) -> CounterfactualResult:
        """Compare two options on their recorded outcomes (a prevented failure counts for an
        option, not against it) and log which should go better. Either may be put as a
        question ("what if we keep the canary?"): see `sameness.asked_action`."""
        decision = sameness.asked_action(validate.text("decision", decision, max_len=10_000))
        alternative = sameness.asked_action(
            validate.text("alternative", alternative, max_len=10_000)
        )
        if _said_alike(decision) == _said_alike(alternative):
            raise ValidationError("alternative", "must differ from the decision", alternative)
        task_tag = validate.optional_text("task_tag", task_tag, max_len=200)
        limit = validate.count("limit", limit)
        ctx = self._ctx()
        a = causal.option_evidence(ctx, decision, task_tag, limit)
        b = causal.option_evidence(ctx, alternative, task_tag, limit)
        preferred, margin = causal.prefer(a, b)
        pid = None
        if preferred in ("decision", "alternative"):
            win, lose = (a, b) if preferred == "decision" else (b, a)
            # A measure an option undoes is judged the other way round from the option.
            good = [*_done_ids(win), *(n.id for n in lose.undoes)]
            bad = [*_done_ids(lose), *(n.id for n in win.undoes)]
            with self.store.transaction():
                pid = predictions.log(
                    self.store,
                    kind="counterfactual",
                    subject=f"{decision} vs {alternative}",
                    predicted=win.option,
                    good_ids=list(dict.fromkeys(good)),
                    bad_ids=list(dict.fromkeys(bad)),
                    now=self.now(),
                )
        return CounterfactualResult(
            decision=a,
            alternative=b,
            preferred=preferred,  # type: ignore[arg-type]
            margin=round(margin, 4),
            prediction_id=pid,
            degraded=self._degraded(ctx),
        )

    def prediction_report(self, limit: int = 50) -> PredictionReport:
        """How often logged predictions came true once their outcomes were recorded (by the
        first outcome whose lesson still stands: see `predictions.recheck`), over all of them,
        with the latest `limit` (1-1000) listed."""
        return predictions.report(self.store, validate.count("limit", limit))

    # corrections -------------------------------------------------------------------------

    def invalidate_decision(self, edge_id: str, reason: str | None = None) -> InvalidateResult:
        """Retract a recorded lesson: it stays for audit and export but no retrieval path
        returns it (nor its decision or outcome, once they have no other valid lesson)."""
        return self._invalidate(edge_id, reason, CAUSAL_RELATIONS, "a decision lesson")

    def invalidate_pattern(self, edge_id: str, reason: str | None = None) -> InvalidateResult:
        """Retract a mined cross-task pattern; it will not be proposed again."""
        return self._invalidate(edge_id, reason, patterns.PATTERN_RELATIONS, "a pattern")

    def _invalidate(
        self, edge_id: str, reason: str | None, relations: frozenset[str], what: str
    ) -> InvalidateResult:
        validate.node_id(edge_id, "edge_id")
        reason = validate.optional_text("reason", reason, max_len=1000) or "invalidated"
        edge = self.store.get_edges([edge_id]).get(edge_id)
        if edge is None:
            raise NotFound("edge", edge_id, "edge_id")
        if edge.relation not in relations:
            raise ValidationError("edge_id", f"must name {what}, not a {edge.relation} edge")
        if edge.valid_to is not None:
            return InvalidateResult(edge_id=edge_id, invalidated=False, reason="already invalid")
        with self.store.transaction():
            self._retire(edge, reason)
        return InvalidateResult(edge_id=edge_id, invalidated=True, reason=reason)

    def _retire(
        self,
        edge: Edge,
        reason: str,
        superseded_by: str | None = None,
        retracted_by: str | None = None,
    ) -> None:
        """End a lesson. `retracted_by`: the note whose retraction ends it, marked on the ends
        it ends too, so that the link told anew brings them back (a person's ending stays)."""
        now = self.now()
        note = f"{reason}" if not edge.context else f"{edge.context} | {reason}"
        self.store.update_edge(edge.model_copy(update={"valid_to": now, "context": note}))
        # An end left with no valid lesson was only ever knowledge through this one.
        for end in (edge.src, edge.dst):
            if causal.causal_edges(self._ctx(), [end], "both"):
                continue
            node = self.store.get_nodes([end]).get(end)
            if node is not None and node.valid_to is None and node.kind in ("decision", "outcome"):
                marked = (
                    {**node.attributes, claims.RETRACTED_FROM: retracted_by}
                    if retracted_by
                    else node.attributes
                )
                self.store.update_node(
                    node.model_copy(
                        update={
                            "valid_to": now,
                            "superseded_by": superseded_by,
                            "attributes": marked,
                        }
                    )
                )
        predictions.recheck(self.store, [edge.id], now)

    def resolve_updates(self, limit: int = 20, apply: bool = False) -> UpdatesResult:
        """Find older lessons contradicted by a newer outcome of the same decision; with
        apply=true, supersede them (kept for audit, gone from retrieval)."""
        limit = validate.count("limit", limit)
        apply = validate.flag("apply", apply)
        found = patterns.updates(self._ctx(), limit)
        if apply and found:
            with self.store.transaction():
                for s in found:
                    edge = self.store.get_edges([s.old.edge_id]).get(s.old.edge_id)
                    if edge is not None and edge.valid_to is None:
                        self._retire(edge, f"superseded by {s.new.edge_id}", s.new.outcome_id)
        return UpdatesResult(applied=apply and bool(found), updates=found)

    # patterns and lessons ----------------------------------------------------------------

    def search_patterns(
        self, query: str | None = None, task_tag: str | None = None, limit: int = 10
    ) -> PatternsResult:
        """Cross-task patterns (similar_to, repeated, contradicts, refines) between lessons,
        mined without an LLM."""
        query = validate.optional_text("query", query, max_len=10_000)
        task_tag = validate.optional_text("task_tag", task_tag, max_len=200)
        limit = validate.count("limit", limit)
        self._mine_if_stale()
        ctx = self._ctx()
        found = []
        for edge in self.store.find_edges(relations=patterns.PATTERN_RELATIONS, limit=100_000):
            p = patterns.as_pattern(ctx, edge)
            if p is None:
                continue
            if task_tag is not None and task_tag not in (p.a.task_tag, p.b.task_tag):
                continue
            if query:
                text = f"{p.a.decision} {p.a.outcome} {p.b.decision} {p.b.outcome}"
                cover = containment(query, text)
                if cover < causal.MIN_MATCH:
                    continue
                p.score = round(p.score * cover, 4)
            found.append(p)
        found.sort(key=lambda p: (-p.score, p.edge_id))
        return PatternsResult(patterns=found[:limit])

    def _mine_if_stale(self) -> list[str]:
        lessons = len(self.store.find_edges(relations=CAUSAL_RELATIONS, limit=1_000_000))
        if self.store.get_meta(META_PATTERNS_MINED) == str(lessons):
            return []
        created = patterns.mine(self._ctx(), self.now())
        self.store.set_meta(META_PATTERNS_MINED, str(lessons))
        return created

    def reconstruct_lesson(
        self, query: str, max_edges: int = 10, calibrate: bool = False
    ) -> LessonText:
        """A readable lesson assembled from the recorded episodes around `query`."""
        query = validate.text("query", query, max_len=10_000)
        max_edges = validate.count("max_edges", max_edges)
        hits = causal.search_causal(self._ctx(), query, None, max_edges).hits
        found = [h.lesson for h in hits]
        if not found:
            return LessonText(
                query=query, lesson="No recorded episode matches.", lessons=[], confidence=0.0
            )
        lines, prefer, avoid = [], [], []
        for x in found:
            p = x.polarity or 0.0
            tone = "went well" if p > 0 else "went badly" if p < 0 else "was neutral"
            task = f" (task {x.task_tag})" if x.task_tag else ""
            lines.append(f"- {link_line(x.decision, x.relation, x.outcome, None)}{task}: {tone}.")
            reward = scoring.decision_reward(x.relation, p)
            # Listed one after another, each without its own full stop; a decision its outcome
            # tells ("The nightly deploy" of "The nightly deploy broke …") as that sentence.
            told = (x.outcome if tells_cause(x.decision, x.outcome) else x.decision).rstrip(
                ".!?;: "
            )
            (prefer if reward > 0 else avoid if reward < 0 else []).append(told)
        summary = []
        if prefer:
            summary.append("Prefer: " + "; ".join(dict.fromkeys(prefer)) + ".")
        if avoid:
            summary.append("Avoid: " + "; ".join(dict.fromkeys(avoid)) + ".")
        confidence = sum(x.confidence for x in found) / len(found)
        if calibrate:
            accuracy = self.prediction_report().accuracy
            if accuracy is not None:
                confidence *= accuracy
        return LessonText(
            query=query,
            lesson="\n".join([*summary, "Episodes:", *lines]),
            lessons=found,
            confidence=round(confidence, 4),
        )


def _said_alike(option: str) -> str:
    """An option as compared with the other: case, spacing and end punctuation aside."""
    return " ".join(option.casefold().rstrip(".?! ").split())


def _done_ids(option: OptionEvidence) -> list[str]:
    """The matched nodes an option does (not those it undoes)."""
    undone = {n.id for n in option.undoes}
    return [n.id for n in option.matched if n.id not in undone]


def _detail(level: str) -> int | None:
    validate.one_of("detail_level", level, DETAIL_LEVELS)
    return DETAIL_LEVELS[level]


def _trim_lesson(lesson, width: int | None) -> None:  # type: ignore[no-untyped-def]
    if width is not None:
        lesson.decision = shorten(lesson.decision, width)
        lesson.outcome = shorten(lesson.outcome, width)


def _fit(result, field: str, max_tokens: int | None):  # type: ignore[no-untyped-def]
    """Drop trailing results until the JSON fits about `max_tokens` (4 characters each)."""
    if max_tokens is None:
        return result
    validate.count("max_tokens", max_tokens, low=1, high=1_000_000)
    items = getattr(result, field)
    while items and len(result.model_dump_json()) > max_tokens * 4:
        items.pop()
    return result

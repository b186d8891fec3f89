"""The MCP face: each tool is a thin call of one Memory method, returning a typed result."""

from __future__ import annotations

import functools
import inspect
import logging
import re
from collections.abc import Callable
from typing import Annotated, Any, Literal, TypeVar

from mcp.server.mcpserver import MCPServer
from mcp.server.mcpserver.exceptions import ToolError, UnexpectedToolError
from mcp.types import CallToolResult, TextContent, ToolAnnotations
from pydantic import BaseModel, Field
from pydantic import ValidationError as SchemaError

from .. import __version__
from ..errors import EbbtideError, NotFound, ValidationError
from ..memory import Memory
from ..model import (
    CausalDirectory,
    CausalSearchResult,
    ChainResult,
    CounterfactualResult,
    DecisionRecord,
    Edge,
    FactRecord,
    FactSearchResult,
    ForgetResult,
    InterventionResult,
    InvalidateResult,
    LessonText,
    Link,
    MaintainReport,
    MemorySearchResult,
    NeighborsResult,
    Node,
    PatternsResult,
    PredictionReport,
    RecallResult,
    ReinforceResult,
    RememberResult,
    ReviewQueue,
    SleepReport,
    Stats,
    TraceResult,
    UpdatesResult,
)
from .render import summary

INSTRUCTIONS = """\
ebbtide is your long-term memory: one graph of notes, facts and decision -> outcome episodes.
Knowledge you use stays alive; knowledge nobody uses fades and is archived (a person approves
any deletion). Call `recall` before you act on anything you may have seen before; `remember`
what you learn; `record_decision` after you see how a decision turned out; `connect` related
items so that recall can follow the links.
"""

READ = ToolAnnotations(
    read_only_hint=True, destructive_hint=False, idempotent_hint=True, open_world_hint=False
)
WRITE = ToolAnnotations(
    read_only_hint=False, destructive_hint=False, idempotent_hint=False, open_world_hint=False
)
IDEMPOTENT_WRITE = ToolAnnotations(
    read_only_hint=False, destructive_hint=False, idempotent_hint=True, open_world_hint=False
)
# forget archives and proposes a deletion; a person completes it, but it hides knowledge now.
DESTRUCTIVE = ToolAnnotations(
    read_only_hint=False, destructive_hint=True, idempotent_hint=True, open_world_hint=False
)

NodeId = Annotated[str, Field(description="id of an existing node, as returned by remember/recall")]
Relation = Annotated[
    str,
    Field(
        description="caused | enabled | prevented | no_effect | related | about | fact | "
        "similar_to | repeated | contradicts | refines | co_occurrence | supersedes"
    ),
]
Kind = Annotated[
    str,
    Field(
        description="note | fact | decision | outcome | person | project | client | meeting | "
        "lesson | event | preference | entity | task | document"
    ),
]

M = TypeVar("M", bound=BaseModel)

log = logging.getLogger("ebbtide.server")

EBB_TOOLS = frozenset(
    {"remember", "recall", "connect", "reinforce", "forget", "neighbors", "pin", "maintain",
     "review_queue", "stats"}
)  # fmt: skip
CAUSAL_MEMORY_TOOLS = frozenset(
    {"record_decision", "remember", "record_fact", "search_causal", "search_facts",
     "search_memory", "causal_directory", "trace_cause", "trace_cause_chain",
     "intervention_query", "counterfactual_query", "prediction_report", "invalidate_decision",
     "invalidate_pattern", "resolve_updates", "search_patterns", "reconstruct_lesson"}
)  # fmt: skip
# The common agent loop in few tools: every tool description costs context.
DEFAULT_TOOLS = frozenset(
    {"remember", "recall", "connect", "forget", "record_decision", "record_fact",
     "trace_cause_chain", "intervention_query", "counterfactual_query"}
)  # fmt: skip
PROFILES: dict[str, frozenset[str] | None] = {
    "default": DEFAULT_TOOLS,
    "ebb": EBB_TOOLS,
    "causal-memory": CAUSAL_MEMORY_TOOLS,
    "all": None,
}


def _tool_result(fn: Callable[..., M]) -> Callable[..., M]:
    """Run a tool: typed result as structured content plus a one-line summary; our errors
    become tool errors the agent can read and correct."""

    @functools.wraps(fn)
    def wrapper(*args: Any, **kwargs: Any) -> Any:
        try:
            result = fn(*args, **kwargs)
        except EbbtideError as exc:
            # A store, embedder or extractor that fails is the operator's to fix, and the agent
            # that was told may not pass it on; bad arguments are the agent's own to correct.
            if not isinstance(exc, ValidationError | NotFound):
                log.error("%s failed: %s", fn.__name__, exc)
            raise ToolError(str(exc)) from exc
        return CallToolResult(
            content=[TextContent(type="text", text=summary(result))],
            structured_content=result.model_dump(mode="json"),
        )

    return wrapper


class _Server(MCPServer):
    """Arguments that break a tool's schema are named by field and rule, as ebbtide's own
    errors are (not pydantic's report with its links), and an argument the tool does not
    take is refused: ignored, a misnamed `limit` for recall's `k` would pass unnoticed. The
    causal-memory profile stands in for another server, whose clients may send what only it
    takes: there, such arguments are ignored as before."""

    def __init__(self, *args: Any, strict: bool = True, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.takes: dict[str, list[str]] = {}  # each tool's parameters, by tool name
        self.strict = strict

    async def call_tool(self, name: str, arguments: dict[str, Any], context: Any = None) -> Any:
        # Some clients send every parameter, null for those left unset: null is "not given"
        # (the default), not a value to refuse ("k: must be a valid integer").
        arguments = {k: v for k, v in arguments.items() if v is not None}
        takes = self.takes.get(name, [])
        unknown = sorted(set(arguments) - set(takes)) if self.strict and name in self.takes else []
        if unknown:
            raise ToolError(
                f"{unknown[0]}: {name} takes no such argument (it takes {', '.join(takes)})"
            )
        try:
            return await super().call_tool(name, arguments, context)
        except ToolError as exc:
            cause = exc.__cause__
            if isinstance(exc, UnexpectedToolError):
                raise
            if isinstance(cause, SchemaError):
                raise ToolError(_schema_errors(cause)) from cause
            # Ours (`_tool_result`) opens with the field, as a schema error does; the SDK's
            # "Error executing tool <name>: " before it tells the agent nothing it lacks.
            if isinstance(cause, ToolError) and isinstance(cause.__cause__, EbbtideError):
                raise cause from cause.__cause__
            raise


def _schema_errors(exc: SchemaError) -> str:
    """'k: must be a valid integer; query: is required' from pydantic's report."""
    out = []
    for err in exc.errors():
        where = ".".join(str(p) for p in err["loc"]) or "arguments"
        rule = "is required" if err["type"] == "missing" else err["msg"]
        rule = re.sub(r"^Input should be\b", "must be", rule)
        out.append(f"{where}: {rule[:1].lower()}{rule[1:]}")
    return "; ".join(out)


def build_server(memory: Memory, profile: str = "default") -> MCPServer:
    if profile not in PROFILES:
        raise ValidationError("profile", f"must be one of {', '.join(PROFILES)}", profile)
    server = _Server(
        strict=profile != "causal-memory",
        name="ebbtide",
        version=__version__,
        instructions=INSTRUCTIONS,
        log_level="WARNING",
    )

    wanted = PROFILES[profile]

    def tool(annotations: ToolAnnotations):
        def register(fn: Callable[..., M]) -> Callable[..., M]:
            if wanted is None or fn.__name__ in wanted:
                server.takes[fn.__name__] = list(inspect.signature(fn).parameters)
                server.add_tool(
                    _tool_result(fn),
                    name=fn.__name__,
                    description=inspect.cleandoc(fn.__doc__ or ""),
                    annotations=annotations,
                    structured_output=True,
                )
            return fn

        return register

    @tool(WRITE)
    def remember(
        text: Annotated[
            str | None, Field(description="what to remember, in plain words (or give messages)")
        ] = None,
        kind: Kind = "note",
        node_id: Annotated[
            str | None,
            Field(
                description="update the node with this id in place (keeps its links); an id "
                "not in memory yet makes a new node under it"
            ),
        ] = None,
        pinned: Annotated[bool, Field(description="never archive this node")] = False,
        links: Annotated[
            list[Link] | None,
            Field(description="links to existing nodes: target, relation, weight"),
        ] = None,
        task_tag: Annotated[
            str | None, Field(description="task or project this belongs to")
        ] = None,
        scope: Annotated[
            str, Field(description="namespace, e.g. a project; recall can keep to one")
        ] = "default",
        messages: Annotated[
            str | list[dict[str, Any]] | list[str] | None,
            Field(
                description="a conversation instead of text: 'speaker: text' lines, or a list "
                "of {speaker, text, id?, time?}; facts, events, preferences, lessons and causal "
                "links are extracted from it (raw turns are kept in the audit log only). Sending "
                "messages again (same id, speaker, text; or, with no id, same time) is safe: "
                "they are context, not news"
            ),
        ] = None,
        date: Annotated[
            str | None, Field(description="when the conversation happened (ISO 8601)")
        ] = None,
    ) -> RememberResult:
        """Store a note, fact, person, project, lesson, … (text) and optionally link it to
        existing nodes; or store what a conversation said (messages). Remembering the same
        text again reuses the node and counts as using it."""
        if messages is not None:
            if text is not None:
                raise ValidationError("text", "give either text or messages, not both")
            got = memory.remember(messages=messages, date=date, scope=scope, task_tag=task_tag)
            return RememberResult.of_transcript(got)
        if text is None:
            raise ValidationError("text", "is required (or give messages)")
        node = memory.remember(
            text,
            kind,
            node_id=node_id,
            pinned=pinned,
            links=links,
            scope=scope,
            task_tag=task_tag,
        )
        return RememberResult(node=node, nodes=[node])

    @tool(IDEMPOTENT_WRITE)
    def recall(
        query: Annotated[str, Field(description="what you need to know, in plain words")],
        k: Annotated[int, Field(description="how many results (1-200)")] = 10,
        include_cold: Annotated[
            bool, Field(description="also search cold and frozen (rarely used) knowledge")
        ] = False,
        scope: Annotated[
            str | None, Field(description="only this namespace (default: every one)")
        ] = None,
        task_tag: Annotated[
            str | None, Field(description="only this task's knowledge, and untagged")
        ] = None,
        kinds: Annotated[list[Kind] | None, Field(description="only these kinds")] = None,
    ) -> RecallResult:
        """Search memory by text and by the links between items; fresh, well-used knowledge
        ranks higher. Each hit says why it surfaced (text match, graph hop and the edge it came
        through, activation, tier, recency, and the better hit it repeats when it comes from
        the same messages or replies to). What has changed is answered with what replaced it,
        naming what it replaces. Reading a hit keeps it alive."""
        return memory.recall(
            query, k, include_cold=include_cold, kinds=kinds, scope=scope, task_tag=task_tag
        )

    @tool(WRITE)
    def connect(
        a: NodeId,
        b: NodeId,
        relation: Relation = "related",
        weight: Annotated[float, Field(description="confidence of the link, 0-1")] = 1.0,
    ) -> Edge:
        """Link node a to node b with a typed relation. Linking an existing pair again
        reinforces the link and sets its weight."""
        return memory.connect(a, b, relation, weight)

    @tool(WRITE)
    def reinforce(
        a: NodeId,
        b: Annotated[str | None, Field(description="the other end of a link to reinforce")] = None,
        relation: Annotated[str | None, Field(description="only links of this relation")] = None,
    ) -> ReinforceResult:
        """Say that knowledge was just used again: resets its decay clock. One id reinforces
        the node and its links; two ids reinforce (and strengthen) the links between them."""
        return memory.reinforce(a, b, relation)

    @tool(DESTRUCTIVE)
    def forget(
        node_id: NodeId,
        reason: Annotated[str | None, Field(description="why it should go")] = None,
    ) -> ForgetResult:
        """Ask for a node to be deleted. It is archived at once (hidden from recall) and waits
        in the review queue; only a person can approve the deletion. A node a person chose to
        keep lately is left as it is (queued false, the reason says until when)."""
        return memory.forget(node_id, reason)

    @tool(READ)
    def neighbors(
        node_id: NodeId,
        relation: Annotated[str | None, Field(description="only this relation")] = None,
        direction: Annotated[
            Literal["out", "in", "both"],
            Field(description="out: links from this node; in: links to it; both"),
        ] = "both",
        limit: Annotated[int, Field(description="at most this many (1-1000)")] = 20,
    ) -> NeighborsResult:
        """List the nodes linked to a node, strongest (fresh, heavy) links first."""
        return memory.neighbors(node_id, relation=relation, direction=direction, limit=limit)

    @tool(IDEMPOTENT_WRITE)
    def pin(node_id: NodeId) -> Node:
        """Pin a node: it never decays out of its tier and is never archived."""
        return memory.pin(node_id)

    @tool(IDEMPOTENT_WRITE)
    def unpin(node_id: NodeId) -> Node:
        """Unpin a node: it decays like any other again."""
        return memory.unpin(node_id)

    @tool(IDEMPOTENT_WRITE)
    def maintain() -> MaintainReport:
        """Recompute activation and tiers now; archive knowledge that went frozen and queue it
        for a person's review. Runs by itself daily; call it after large changes."""
        return memory.maintain()

    @tool(READ)
    def review_queue() -> ReviewQueue:
        """List deletions waiting for a person's approval (agents cannot approve them)."""
        return memory.review_queue()

    @tool(READ)
    def stats() -> Stats:
        """Counts of nodes, links, tiers and pending reviews."""
        return memory.stats()

    @tool(WRITE)
    def record_decision(
        decision: Annotated[str, Field(description="what was decided or done")],
        outcome: Annotated[str, Field(description="what happened as a result")],
        relation: Annotated[
            Literal["caused", "enabled", "prevented", "no_effect"],
            Field(
                description="how the decision relates to the outcome; prevented: the outcome "
                "is what did not happen (e.g. 'checkout outage'), so it counts in the decision's "
                "favour when bad"
            ),
        ] = "caused",
        task_tag: Annotated[str | None, Field(description="task or project")] = None,
        confidence_source: Annotated[
            Literal["temporal", "rule", "llm_inferred", "user_feedback"],
            Field(
                description="how the link is known, which sets its confidence: user_feedback "
                "1.0, rule and temporal (one followed the other) 0.8, llm_inferred 0.7"
            ),
        ] = "temporal",
        context: Annotated[str | None, Field(description="circumstances worth keeping")] = None,
        influenced_by: Annotated[
            list[str] | None, Field(description="ids of nodes that informed the decision")
        ] = None,
        scope: Annotated[
            str, Field(description="namespace, e.g. a project; recall can keep to one")
        ] = "default",
    ) -> DecisionRecord:
        """Record a decision -> outcome episode. The outcome's polarity (good/bad) is read from
        its text and updates the decision's track record (Q-value)."""
        return memory.record_decision(
            decision,
            outcome,
            relation,
            task_tag,
            confidence_source=confidence_source,
            context=context,
            influenced_by=influenced_by,
            scope=scope,
        )

    @tool(WRITE)
    def record_fact(
        key: Annotated[str, Field(description="what the fact is about, e.g. 'prod db host'")],
        value: Annotated[str, Field(description="its value")],
        scope: Annotated[str, Field(description="namespace, e.g. a project")] = "default",
        confidence: Annotated[float, Field(description="0-1")] = 1.0,
        replace_same_key: Annotated[
            bool, Field(description="supersede older values of this key")
        ] = True,
    ) -> FactRecord:
        """Store a key: value fact. A new value supersedes the old one, which is kept for audit
        but no longer retrieved."""
        return memory.record_fact(key, value, scope, confidence, replace_same_key)

    @tool(READ)
    def search_memory(
        query: Annotated[str, Field(description="what you need to know")],
        task_tag: Annotated[
            str | None, Field(description="only this task's knowledge and lessons, and untagged")
        ] = None,
        scope: Annotated[str | None, Field(description="only this namespace")] = None,
        limit: Annotated[int, Field(description="results per list (1-200)")] = 10,
        detail_level: Annotated[
            Literal["l0", "l1", "l2"], Field(description="l0 short texts, l1 medium, l2 full")
        ] = "l1",
        max_tokens: Annotated[int | None, Field(description="trim results to fit")] = None,
        explain: Annotated[bool, Field(description="say why each hit surfaced")] = True,
    ) -> MemorySearchResult:
        """Search everything: notes, facts, people, decisions and outcomes, plus the
        decision -> outcome lessons about them."""
        return memory.search_memory(
            query, task_tag, scope, limit, detail_level, max_tokens, explain
        )

    @tool(READ)
    def search_causal(
        task_tag: Annotated[str | None, Field(description="only this task")] = None,
        query: Annotated[str | None, Field(description="what the lesson is about")] = None,
        limit: Annotated[int, Field(description="1-1000")] = 5,
        detail_level: Annotated[
            Literal["l0", "l1", "l2"], Field(description="l0 short texts, l1 medium, l2 full")
        ] = "l1",
        max_tokens: Annotated[int | None, Field(description="trim results to fit")] = None,
        explain: Annotated[bool, Field(description="say why each lesson surfaced")] = True,
    ) -> CausalSearchResult:
        """Find recorded lessons (decision -> relation -> outcome) by task and/or text,
        with how much each still counts (confidence x recency)."""
        return memory.search_causal(task_tag, query, limit, detail_level, max_tokens, explain)

    @tool(READ)
    def search_facts(
        query: Annotated[str | None, Field(description="what the fact is about")] = None,
        scope: Annotated[str | None, Field(description="namespace")] = None,
        limit: Annotated[int, Field(description="1-1000")] = 5,
    ) -> FactSearchResult:
        """Look up current facts (superseded values are not returned)."""
        return memory.search_facts(query, scope, limit)

    @tool(READ)
    def causal_directory(
        limit: Annotated[int, Field(description="how many lessons (1-1000)")] = 30,
    ) -> CausalDirectory:
        """A compact index of known lessons, one line each (+ good, - bad), to put in a system
        prompt so you know what has been learned before."""
        return memory.causal_directory(limit)

    @tool(READ)
    def trace_cause(
        outcome_description: Annotated[str, Field(description="the outcome to explain")],
    ) -> TraceResult:
        """Why did this happen? The recorded direct causes of an outcome."""
        return memory.trace_cause(outcome_description)

    @tool(READ)
    def trace_cause_chain(
        outcome_description: Annotated[str, Field(description="the failure or outcome")],
        max_depth: Annotated[int, Field(description="longest chain (1-10)")] = 3,
        min_confidence: Annotated[
            float | None, Field(description="per-link confidence floor (default 0.2)")
        ] = None,
        limit: Annotated[int, Field(description="how many chains (1-1000)")] = 5,
    ) -> ChainResult:
        """Root cause analysis: the recorded chains of causes that led to an outcome, root
        first (e.g. skipped load test -> outage -> escalation)."""
        return memory.trace_cause_chain(outcome_description, max_depth, min_confidence, limit)

    @tool(WRITE)
    def intervention_query(
        action: Annotated[
            str,
            Field(description="what you are about to do, or a question about it ('should I …?')"),
        ],
        task_tag: Annotated[str | None, Field(description="prefer this task's history")] = None,
        max_depth: Annotated[int, Field(description="how far to follow consequences (1-10)")] = 3,
        limit: Annotated[int, Field(description="consequences to list (1-1000)")] = 10,
    ) -> InterventionResult:
        """Before acting: what did this action lead to before? Verdict SAFE / WARNING / DANGER
        / UNKNOWN with a risk score and the evidence (prevented failures count as good;
        removing or disabling what prevented one brings it back). The prediction is logged
        and checked when the outcome is recorded."""
        return memory.intervention_query(action, task_tag, max_depth, limit)

    @tool(WRITE)
    def counterfactual_query(
        decision: Annotated[str, Field(description="one option")],
        alternative: Annotated[str, Field(description="the other option")],
        task_tag: Annotated[str | None, Field(description="prefer this task's history")] = None,
        limit: Annotated[int, Field(description="lessons per option (1-1000)")] = 10,
    ) -> CounterfactualResult:
        """Compare two options on their recorded outcomes and say which went better (an
        option that prevented a failure counts in its favour). The choice is logged as a
        prediction."""
        return memory.counterfactual_query(decision, alternative, task_tag, limit)

    @tool(READ)
    def prediction_report(
        limit: Annotated[int, Field(description="list the latest this many (1-1000)")] = 50,
    ) -> PredictionReport:
        """How accurate logged predictions were, once their outcomes were recorded, over all
        of them; the latest `limit` are listed. Each is settled by the first outcome after it
        whose lesson still stands: one whose lesson was retracted, superseded or forgotten
        since is settled by the next, or open again."""
        return memory.prediction_report(limit)

    @tool(DESTRUCTIVE)
    def invalidate_decision(
        edge_id: Annotated[str, Field(description="the lesson's edge id")],
        reason: Annotated[str | None, Field(description="why it is wrong")] = None,
    ) -> InvalidateResult:
        """Retract a recorded lesson that turned out wrong. Kept for audit, never retrieved."""
        return memory.invalidate_decision(edge_id, reason)

    @tool(DESTRUCTIVE)
    def invalidate_pattern(
        edge_id: Annotated[str, Field(description="the pattern's edge id")],
        reason: Annotated[str | None, Field(description="why it is wrong")] = None,
    ) -> InvalidateResult:
        """Retract a mined cross-task pattern; it is not proposed again."""
        return memory.invalidate_pattern(edge_id, reason)

    @tool(DESTRUCTIVE)
    def resolve_updates(
        limit: Annotated[int, Field(description="1-1000")] = 20,
        apply: Annotated[bool, Field(description="false previews; true supersedes")] = False,
    ) -> UpdatesResult:
        """Find lessons that a newer outcome of the same decision contradicts; preview by
        default, apply=true to supersede them."""
        return memory.resolve_updates(limit, apply)

    @tool(IDEMPOTENT_WRITE)
    def search_patterns(
        query: Annotated[str | None, Field(description="what the pattern is about")] = None,
        task_tag: Annotated[str | None, Field(description="involving this task")] = None,
        limit: Annotated[int, Field(description="1-1000")] = 10,
    ) -> PatternsResult:
        """Cross-task patterns between lessons: similar_to, repeated, contradicts, refines."""
        return memory.search_patterns(query, task_tag, limit)

    @tool(READ)
    def reconstruct_lesson(
        query: Annotated[str, Field(description="the situation")],
        max_edges: Annotated[int, Field(description="episodes to use (1-1000)")] = 10,
        calibrate: Annotated[
            bool, Field(description="scale confidence by past prediction accuracy")
        ] = False,
    ) -> LessonText:
        """A readable lesson (prefer / avoid, with the episodes behind it) for a situation."""
        return memory.reconstruct_lesson(query, max_edges, calibrate)

    @tool(IDEMPOTENT_WRITE)
    def sleep() -> SleepReport:
        """Consolidate: maintain tiers, mine cross-task patterns, count contradicted lessons."""
        return memory.sleep()

    return server

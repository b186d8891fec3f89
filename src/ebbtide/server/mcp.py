"""The MCP face: each tool is a thin call of one Memory method, returning a typed result."""

from __future__ import annotations

import functools
from collections.abc import Callable
from typing import Annotated, Any, Literal, TypeVar

from mcp.server.mcpserver import MCPServer
from mcp.server.mcpserver.exceptions import ToolError
from mcp.types import CallToolResult, TextContent, ToolAnnotations
from pydantic import BaseModel, Field

from .. import __version__
from ..errors import EbbtideError
from ..memory import Memory
from ..model import (
    DecisionRecord,
    Edge,
    FactRecord,
    ForgetResult,
    Link,
    MaintainReport,
    NeighborsResult,
    Node,
    RecallResult,
    ReinforceResult,
    ReviewQueue,
    Stats,
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

PROFILES = ("default", "ebb", "all")
EBB_TOOLS = frozenset(
    {
        "remember",
        "recall",
        "connect",
        "reinforce",
        "forget",
        "neighbors",
        "pin",
        "maintain",
        "review_queue",
        "stats",
    }
)


def _tool_result(fn: Callable[..., M]) -> Callable[..., M]:
    """Run a tool: typed result as structured content plus a one-line summary; our errors
    become tool errors the agent can read and correct."""

    @functools.wraps(fn)
    def wrapper(*args: Any, **kwargs: Any) -> Any:
        try:
            result = fn(*args, **kwargs)
        except EbbtideError as exc:
            raise ToolError(str(exc)) from exc
        return CallToolResult(
            content=[TextContent(type="text", text=summary(result))],
            structured_content=result.model_dump(mode="json"),
        )

    return wrapper


def build_server(memory: Memory, profile: str = "default") -> MCPServer:
    if profile not in PROFILES:
        raise ValueError(f"profile: must be one of {', '.join(PROFILES)}")
    server = MCPServer(
        name="ebbtide", version=__version__, instructions=INSTRUCTIONS, log_level="WARNING"
    )

    def tool(annotations: ToolAnnotations):
        def register(fn: Callable[..., M]) -> Callable[..., M]:
            if profile in ("default", "all") or (profile == "ebb" and fn.__name__ in EBB_TOOLS):
                server.add_tool(
                    _tool_result(fn),
                    name=fn.__name__,
                    description=(fn.__doc__ or "").strip(),
                    annotations=annotations,
                    structured_output=True,
                )
            return fn

        return register

    @tool(WRITE)
    def remember(
        text: Annotated[str, Field(description="what to remember, in plain words")],
        kind: Kind = "note",
        node_id: Annotated[
            str | None, Field(description="update this node in place (keeps its links)")
        ] = None,
        pinned: Annotated[bool, Field(description="never archive this node")] = False,
        links: Annotated[
            list[Link] | None,
            Field(description="links to existing nodes: target, relation, weight"),
        ] = None,
        task_tag: Annotated[
            str | None, Field(description="task or project this belongs to")
        ] = None,
    ) -> Node:
        """Store a note, fact, person, project, lesson, … and optionally link it to existing
        nodes. Remembering the same text again reuses the node (and counts as using it).
        Returns the node with its id."""
        return memory.remember(
            text, kind, node_id=node_id, pinned=pinned, links=links, task_tag=task_tag
        )

    @tool(IDEMPOTENT_WRITE)
    def recall(
        query: Annotated[str, Field(description="what you need to know, in plain words")],
        k: Annotated[int, Field(description="how many results (1-200)")] = 10,
        include_cold: Annotated[
            bool, Field(description="also search cold and frozen (rarely used) knowledge")
        ] = False,
    ) -> RecallResult:
        """Search memory by text and by the links between items; fresh, well-used knowledge
        ranks higher. Each hit says why it surfaced (text match, graph hop and the edge it came
        through, activation, tier, recency). Reading a hit keeps it alive."""
        return memory.recall(query, k, include_cold=include_cold)

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
        in the review queue; only a person can approve the deletion."""
        return memory.forget(node_id, reason)

    @tool(READ)
    def neighbors(
        node_id: NodeId,
        relation: Annotated[str | None, Field(description="only this relation")] = None,
        direction: Literal["out", "in", "both"] = "both",
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
            Field(description="how the decision relates to the outcome"),
        ] = "caused",
        task_tag: Annotated[str | None, Field(description="task or project")] = None,
        confidence_source: Literal[
            "temporal", "rule", "llm_inferred", "user_feedback"
        ] = "temporal",
        context: Annotated[str | None, Field(description="circumstances worth keeping")] = None,
        influenced_by: Annotated[
            list[str] | None, Field(description="ids of nodes that informed the decision")
        ] = None,
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

    return server

"""End to end: `ebbtide serve` as a subprocess, driven by the official MCP client over stdio."""

from __future__ import annotations

import os
import shutil
import sys
from pathlib import Path

import anyio
import pytest
from mcp import Client
from mcp.client.stdio import StdioServerParameters

EXPECTED_TOOLS = {
    "remember",
    "recall",
    "connect",
    "reinforce",
    "forget",
    "neighbors",
    "pin",
    "unpin",
    "maintain",
    "review_queue",
    "stats",
    "record_decision",
    "record_fact",
}


def server_params(store: Path, *args: str) -> StdioServerParameters:
    exe = shutil.which("ebbtide") or str(Path(sys.executable).with_name("ebbtide"))
    return StdioServerParameters(
        command=exe, args=["serve", *args], env={**os.environ, "EBBTIDE_STORE": str(store)}
    )


def run(coro_fn):
    return anyio.run(coro_fn)


def test_every_tool_is_described_annotated_and_has_an_output_schema(tmp_path):
    async def go():
        async with Client(server_params(tmp_path / "m.db")) as client:
            return (await client.list_tools()).tools

    tools = {t.name: t for t in run(go)}
    assert set(tools) == EXPECTED_TOOLS
    for t in tools.values():
        assert len(t.description) > 40, t.name
        a = t.annotations
        assert a is not None and a.open_world_hint is False, t.name
        assert a.read_only_hint is not None and a.destructive_hint is not None, t.name
        assert t.output_schema and t.output_schema.get("type") == "object", t.name
    assert tools["recall"].annotations.destructive_hint is False
    assert tools["stats"].annotations.read_only_hint is True
    assert tools["forget"].annotations.destructive_hint is True


def test_an_agent_loop_over_stdio(tmp_path):
    async def go():
        async with Client(server_params(tmp_path / "m.db")) as client:
            a = await client.call_tool(
                "remember", {"text": "Ana owns the payments service", "kind": "fact"}
            )
            assert not a.is_error
            node_id = a.structured_content["id"]
            assert node_id in a.content[0].text
            b = await client.call_tool("remember", {"text": "Payments service", "kind": "project"})
            link = await client.call_tool(
                "connect", {"a": node_id, "b": b.structured_content["id"], "relation": "about"}
            )
            assert link.structured_content["relation"] == "about"
            dec = await client.call_tool(
                "record_decision",
                {
                    "decision": "Skipped the canary",
                    "outcome": "Weekend outage",
                    "relation": "caused",
                    "task_tag": "deploys",
                },
            )
            assert dec.structured_content["polarity"] < 0
            hits = await client.call_tool("recall", {"query": "who owns payments?", "k": 3})
            top = hits.structured_content["hits"][0]
            assert top["node"]["id"] == node_id and "text" in top["why"]["lists"]
            forgot = await client.call_tool("forget", {"node_id": node_id})
            assert forgot.structured_content["queued"] is True
            queue = await client.call_tool("review_queue", {})
            assert [i["node"]["id"] for i in queue.structured_content["items"]] == [node_id]
            stats = await client.call_tool("stats", {})
            assert stats.structured_content["nodes"] == 4

    run(go)


@pytest.mark.parametrize(
    ("tool", "args", "needle"),
    [
        ("remember", {"text": "   "}, "text: must not be empty"),
        ("remember", {"text": "x", "kind": "spaceship"}, "kind: must be one of"),
        ("connect", {"a": "nope", "b": "nada"}, "a: no node"),
        ("connect", {"a": "x", "b": "y", "weight": 7}, "weight"),
        ("recall", {"query": "x", "k": "many"}, "k"),
        ("record_decision", {"decision": "d", "outcome": "o", "relation": "maybe"}, "relation"),
    ],
)
def test_bad_input_is_a_tool_error_and_the_server_keeps_serving(tmp_path, tool, args, needle):
    async def go():
        async with Client(server_params(tmp_path / "m.db")) as client:
            bad = await client.call_tool(tool, args)
            assert bad.is_error and needle in bad.content[0].text
            ok = await client.call_tool("stats", {})
            assert not ok.is_error and ok.structured_content["nodes"] == 0

    run(go)


def test_ebb_profile_keeps_exactly_the_ebb_tool_names(tmp_path):
    async def go():
        async with Client(server_params(tmp_path / "m.db", "--profile", "ebb")) as client:
            return {t.name for t in (await client.list_tools()).tools}

    assert run(go) == {
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

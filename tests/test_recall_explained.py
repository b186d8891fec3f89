"""What an MCP client that shows the model only a tool's text reads of a recall: every hit, on
a line of bounded length, with why it surfaced (the structured content has the rest)."""

from __future__ import annotations

import anyio
from mcp import Client

from ebbtide import ManualClock, open_memory
from ebbtide.server.mcp import build_server
from ebbtide.server.render import HIT_TEXT


def test_the_recall_text_gives_every_hit_a_line_saying_why_it_surfaced():
    clock = ManualClock("2026-03-02T09:00:00+00:00")
    with open_memory(":memory:", clock=clock, embeddings="none") as mem:
        outage = mem.remember("Checkout outage on Black Friday", "event")
        cause = mem.remember("Merged the pull request without review", "decision")
        mem.connect(cause.id, outage.id, "caused")
        long = mem.remember("checkout " + "very long words " * 100)
        clock.advance(days=2)

        async def ask() -> tuple[str, dict]:
            async with Client(build_server(mem)) as client:
                got = await client.call_tool("recall", {"query": "checkout outage", "k": 5})
                return got.content[0].text, got.structured_content

        text, structured = anyio.run(ask)
    head, *lines = text.splitlines()
    assert head == "3 hits:"
    assert [line.split()[1] for line in lines] == [h["node"]["id"] for h in structured["hits"]]
    by_id = {line.split()[1]: line for line in lines}
    assert by_id[outage.id].endswith("(text #1; seed; hot; last read or told 2 d ago)")
    assert f"graph #1; hop via caused from {outage.id};" in by_id[cause.id]
    assert len(by_id[long.id]) < HIT_TEXT + 120


def test_a_long_list_in_a_tool_text_is_cut_and_says_how_many_more(memory):
    from ebbtide.server.render import MAX_LINES, summary

    hub = memory.remember("Payments service", "project")
    for i in range(MAX_LINES + 5):
        memory.remember(f"Payments note {i}", links=[{"target": hub.id, "relation": "about"}])
    lines = summary(memory.neighbors(hub.id, limit=100)).splitlines()
    assert len(lines) == 1 + MAX_LINES + 1
    assert lines[-1] == "… 5 more in the structured content"

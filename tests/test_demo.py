"""The demo's story holds (ranking, tiers, the review queue) and a narrow terminal reads it."""

from __future__ import annotations

import re

from ebbtide import ManualClock, open_memory
from ebbtide.cli import main
from ebbtide.demo import OLD_NOTES, build_demo, chat_demo


def test_demo_ranks_the_fresh_decision_above_the_stale_one_and_archives_old_notes(tmp_path):
    clock = ManualClock()
    with open_memory(tmp_path / "demo.db", clock=clock) as memory:
        demo = build_demo(memory, clock)
        ranked = [node.id for node, _ in demo.ranking]
        links = dict((node.id, n) for node, n in demo.ranking)
        assert ranked.index(demo.fresh_decision.id) < ranked.index(demo.stale_decision.id)
        assert links[demo.stale_decision.id] == 11
        assert links[demo.fresh_decision.id] <= 11 / 2
        assert {n.tier for n in demo.old_notes} == {"frozen"}
        assert {n.status for n in demo.old_notes} == {"archived"}
        queued = {item.node.id for item in memory.review_queue().items}
        assert {n.id for n in demo.old_notes} <= queued
        assert demo.pinned_note.status == "active" and demo.pinned_note.id not in queued
        assert demo.fresh_decision.tier == "hot"
        assert demo.recall.hits[0].node.id == demo.fresh_decision.id
        assert len(demo.old_notes) == len(OLD_NOTES)


def test_demo_chat_is_remembered_with_its_why(tmp_path):
    clock = ManualClock()
    with open_memory(tmp_path / "demo.db", clock=clock, extraction="rules") as memory:
        build_demo(memory, clock)
        chat = chat_demo(memory, clock)
        steps = chat.chain.steps
        assert steps[0].decision == "Ana and others skipped the load test before the June promo."
        assert "was a mistake: checkout stalled" in steps[0].outcome
        assert steps[-1].outcome == "An angry escalation from Acme Retail."
        assert all(step.polarity < 0 for step in steps)
        assert (chat.risky.verdict, chat.proven.verdict) == ("DANGER", "SAFE")
        assert "was a mistake" in chat.risky.consequences[0].node.text
        assert "paid off" in chat.proven.consequences[0].node.text


def test_demo_command_runs_and_ends_with_client_setup(tmp_path, capsys):
    assert main(["demo", "--store", str(tmp_path / "d.db")]) == 0
    out = capsys.readouterr().out
    assert "mcpServers" in out and "claude mcp add ebbtide" in out
    assert "[mcp_servers.ebbtide]" in out


def test_demo_reads_in_an_80_column_terminal(tmp_path, capsys, monkeypatch):
    monkeypatch.setattr("ebbtide.cli.console.width", 80)
    assert main(["demo", "--store", str(tmp_path / "d.db")]) == 0
    lines = capsys.readouterr().out.splitlines()
    # Each item waiting for review is one line: its id, then its text.
    item = re.compile(r"\s+note_\w+\s+Old VPN setup steps for the 2025 laptops")
    assert any(item.fullmatch(x) for x in lines)
    # Each recall hit is its text, then why it was found on a line of its own.
    top = next(i for i, x in enumerate(lines) if "Decision: move order events to the managed" in x)
    assert re.fullmatch(
        r"\s+text #\d, vector #\d, graph #\d; seed; hot; last read or told \d+ d ago",
        lines[top + 1],
    )


def test_the_demos_client_setup_opens_the_memory_it_says_is_yours(tmp_path, capsys, monkeypatch):
    """With $EBBTIDE_STORE set, the demo ends saying your memory is that store; the snippets it
    prints must open it too (as `ebbtide config` does), or the client's server, started without
    that variable, would open another file."""
    mine = tmp_path / "team.db"
    monkeypatch.setenv("EBBTIDE_STORE", str(mine))
    assert main(["demo", "--store", str(tmp_path / "d.db")]) == 0
    out = capsys.readouterr().out
    assert f"your own memory defaults to {mine}" in " ".join(out.split())
    assert f"claude mcp add ebbtide -e EBBTIDE_STORE={mine} --" in out
    assert f'env = {{ EBBTIDE_STORE = "{mine}" }}' in out
    assert out.count(f'"EBBTIDE_STORE": "{mine}"') == 2  # Claude Desktop and Cursor

"""The demo's story holds: ranking, tiers and the review queue (not its printed text)."""

from __future__ import annotations

from ebbtide import ManualClock, open_memory
from ebbtide.cli import main
from ebbtide.demo import OLD_NOTES, build_demo


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


def test_demo_command_runs_and_ends_with_client_setup(tmp_path, capsys):
    assert main(["demo", "--store", str(tmp_path / "d.db")]) == 0
    out = capsys.readouterr().out
    assert "mcpServers" in out and "claude mcp add ebbtide" in out
    assert "[mcp_servers.ebbtide]" in out

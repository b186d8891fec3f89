"""A disk that fills up under a SQLite memory: every face says so in one line, the write that
failed is not kept, and those acknowledged before it are, once there is room again."""

from __future__ import annotations

import anyio
import pytest
from mcp import Client

from ebbtide import StoreUnavailable, open_memory
from ebbtide.cli import main
from ebbtide.server.mcp import build_server
from full_disk import disk_with_room_for, full_disk

SAID = "the disk is full"


@pytest.fixture
def store(tmp_path, monkeypatch):
    monkeypatch.setenv("EBBTIDE_EMBEDDINGS", "none")
    return tmp_path / "memory.db"


def notes_in(store) -> list[str]:
    with open_memory(store) as mem:
        return sorted(n.text for n in mem.store.iter_nodes() if n.kind == "note")


def test_remembering_on_a_full_disk_says_so_and_keeps_every_earlier_note(store):
    with open_memory(store) as mem:
        mem.remember("The harbour opens at six")
        room = full_disk(store.parent)
        with pytest.raises(StoreUnavailable, match=SAID) as failed, disk_with_room_for(room):
            mem.remember("The ferry leaves at nine " + "and stops at every pier " * 2000)
        assert "\n" not in str(failed.value)
        mem.remember("The market closes at noon")
    assert notes_in(store) == ["The harbour opens at six", "The market closes at noon"]


def test_the_cli_prints_one_line_naming_the_full_disk_and_no_traceback(store, capsys):
    with open_memory(store) as mem:
        mem.remember("The harbour opens at six")
        with disk_with_room_for(full_disk(store.parent)):
            code = main(["remember", "The ferry leaves at nine", "--store", str(store)])
    assert code == 2
    printed = capsys.readouterr().err
    assert printed.startswith("error cannot write to the SQLite store") and SAID in printed
    assert printed.count("\n") == 1 and "Traceback" not in printed
    assert notes_in(store) == ["The harbour opens at six"]


def test_an_agent_told_the_disk_is_full_can_remember_again_once_there_is_room(store):
    async def agent(mem) -> tuple[str, bool]:
        async with Client(build_server(mem)) as client:
            with disk_with_room_for(full_disk(store.parent)):
                failed = await client.call_tool("remember", {"text": "The ferry leaves at nine"})
            assert failed.is_error
            again = await client.call_tool("remember", {"text": "The ferry leaves at nine"})
            return failed.content[0].text, again.is_error

    with open_memory(store) as mem:
        mem.remember("The harbour opens at six")
        said, failed_again = anyio.run(agent, mem)
    assert said.startswith("cannot write to the SQLite store") and SAID in said
    assert "\n" not in said
    assert not failed_again
    assert notes_in(store) == ["The ferry leaves at nine", "The harbour opens at six"]

"""A SQLite memory whose file is damaged, under a running process or before it opens (pages
overwritten, the file cut short): every face says so in one line naming the store, as for a
full disk, instead of SQLite's own error."""

from __future__ import annotations

import os

import anyio
import pytest
from mcp import Client

from ebbtide import StoreUnavailable, open_memory
from ebbtide.cli import main
from ebbtide.server.mcp import build_server

SAID = "its file is damaged"
PAGE = 4096


@pytest.fixture
def store(tmp_path, monkeypatch):
    """A store of a few hundred notes, its write-ahead log folded into the file."""
    monkeypatch.setenv("EBBTIDE_EMBEDDINGS", "none")
    path = tmp_path / "memory.db"
    with open_memory(path) as mem:
        for n in range(300):
            mem.remember(f"Harbour gate {n} opens at six and ferry {n} leaves at nine")
    return path


def overwrite_pages(path) -> None:
    """Garbage over every page but the first two (the header and the schema)."""
    size = path.stat().st_size
    with open(path, "r+b") as f:
        for at in range(2 * PAGE, size, PAGE):
            f.seek(at)
            f.write(os.urandom(PAGE))


def cut_short(path) -> None:
    os.truncate(path, 2 * PAGE)


@pytest.mark.parametrize("damage", [overwrite_pages, cut_short])
def test_recalling_from_a_file_damaged_under_a_running_memory_says_so_naming_it(store, damage):
    with open_memory(store) as mem:
        damage(store)
        with pytest.raises(StoreUnavailable, match=SAID) as failed:
            mem.recall("when does the ferry leave?")
    said = str(failed.value)
    assert said.startswith(f"cannot read the SQLite store at {store}: ")
    assert "\n" not in said


@pytest.mark.parametrize("damage", [overwrite_pages, cut_short])
def test_the_cli_prints_one_line_naming_the_damaged_store_and_no_traceback(store, damage, capsys):
    damage(store)
    code = main(["recall", "when does the ferry leave?", "--store", str(store)])
    assert code == 2
    printed = capsys.readouterr().err
    assert printed.startswith(f"error cannot open SQLite store at {store}: ")
    assert SAID in printed
    assert printed.count("\n") == 1 and "Traceback" not in printed


def test_a_file_that_is_no_database_is_named_as_such(store, capsys):
    with open(store, "r+b") as f:
        f.write(b"not a database at all" * 5)
    assert main(["recall", "ferry", "--store", str(store)]) == 2
    printed = capsys.readouterr().err
    assert printed.startswith(f"error cannot open SQLite store at {store}: ")
    assert "is not a SQLite database" in printed


def test_a_folder_given_as_the_store_is_named_as_a_folder_and_left_as_it_was(tmp_path, capsys):
    folder = tmp_path / "memories"
    folder.mkdir()
    assert main(["stats", "--store", str(folder)]) == 2
    assert capsys.readouterr().err.startswith(
        f"error cannot open SQLite store at {folder}: it is a folder; name a file in it"
    )
    assert list(folder.iterdir()) == []


def test_an_agent_told_the_store_is_damaged_reads_one_line_naming_it(store):
    async def agent(mem) -> tuple[bool, str]:
        async with Client(build_server(mem)) as client:
            overwrite_pages(store)
            failed = await client.call_tool("recall", {"query": "when does the ferry leave?"})
            return failed.is_error, failed.content[0].text

    with open_memory(store) as mem:
        is_error, said = anyio.run(agent, mem)
    assert is_error
    assert said.startswith(f"cannot read the SQLite store at {store}: ") and SAID in said
    assert "\n" not in said

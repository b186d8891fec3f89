"""`ebbtide config`: every snippet pastes as printed and parses as its client reads it."""

from __future__ import annotations

import json
import shlex
import tomllib

import pytest

from ebbtide import clientconfig
from ebbtide.cli import main

LONG_EXE = "/home/ana maria/projects/very-long-directory-name/ebbtide/.venv/bin/ebbtide"


def blocks(out: str) -> dict[str, str]:
    """client -> the snippet's body, from `ebbtide config`'s output."""
    found = {}
    for block in out.strip().split("\n\n"):
        head, _, body = block.partition("\n")
        found[head.removeprefix("# ").split(":")[0]] = body
    return found


def test_every_snippet_parses_with_a_long_executable_path_and_a_relative_store(
    tmp_path, monkeypatch, capsys
):
    monkeypatch.setattr(clientconfig, "server_command", lambda: LONG_EXE)
    monkeypatch.chdir(tmp_path)
    store = 'my memories/team "a".db'
    assert main(["config", "--store", store]) == 0
    got = blocks(capsys.readouterr().out)
    assert set(got) == set(clientconfig.CLIENTS)
    # The client starts the server in a directory of its own: the store is told absolute.
    wanted = {
        "command": LONG_EXE,
        "args": ["serve"],
        "env": {"EBBTIDE_STORE": str(tmp_path / store)},
    }
    for client in ("claude-desktop", "cursor"):
        assert json.loads(got[client])["mcpServers"]["ebbtide"] == wanted
    assert tomllib.loads(got["codex"])["mcp_servers"]["ebbtide"] == wanted
    (line,) = got["claude-code"].splitlines()  # one command, not cut where a console wraps
    words = shlex.split(line)
    assert words[:3] == ["claude", "mcp", "add"]
    assert words[words.index("-e") + 1] == f"EBBTIDE_STORE={tmp_path / store}"
    assert words[words.index("--") + 1 :] == [LONG_EXE, "serve"]


def test_a_windows_executable_path_is_valid_toml(monkeypatch):
    exe = r"C:\Users\ana\AppData\Roaming\Python\Scripts\ebbtide.exe"
    monkeypatch.setattr(clientconfig, "server_command", lambda: exe)
    parsed = tomllib.loads(clientconfig.snippet("codex", "neo4j://db.internal:7687?tenant=a"))
    assert parsed["mcp_servers"]["ebbtide"]["command"] == exe
    assert parsed["mcp_servers"]["ebbtide"]["env"] == {
        "EBBTIDE_STORE": "neo4j://db.internal:7687?tenant=a"
    }


@pytest.mark.parametrize(
    ("store", "told"),
    [
        ("neo4j://db:7687?tenant=a", "neo4j://db:7687?tenant=a"),
        (":memory:", ":memory:"),
        ("sqlite:////data/team.db", "sqlite:////data/team.db"),
        ("sqlite:///team.db", "sqlite:///{cwd}/team.db"),
        ("kuzu:///mem.kz", "kuzu:///{cwd}/mem.kz"),
        ("team.db", "{cwd}/team.db"),
    ],
)
def test_a_relative_store_is_told_absolute_and_urls_as_they_are(tmp_path, monkeypatch, store, told):
    monkeypatch.chdir(tmp_path)
    assert clientconfig.absolute_store(store) == told.format(cwd=tmp_path.resolve())


def test_without_store_the_snippet_names_the_store_this_shell_uses(tmp_path, monkeypatch, capsys):
    monkeypatch.setenv("EBBTIDE_STORE", str(tmp_path / "shell.db"))
    assert main(["config", "--client", "cursor"]) == 0
    entry = json.loads(blocks(capsys.readouterr().out)["cursor"])["mcpServers"]["ebbtide"]
    assert entry["env"] == {"EBBTIDE_STORE": str(tmp_path / "shell.db")}

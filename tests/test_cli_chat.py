"""`ebbtide remember --chat`: a chat told from the shell is read as the MCP tool reads one."""

from __future__ import annotations

import io
import json
import sys

import pytest

from ebbtide import open_memory
from ebbtide.cli import main

STANDUP = """\
Ana: We use Jenkins for CI.
Ben: The Jenkins box keeps dying at night.
Ben: We switched CI from Jenkins to GitHub Actions.
"""


@pytest.fixture(autouse=True)
def _rules_and_words_only(monkeypatch):
    # What the rules extract and words find: no model to load, the same on every machine.
    monkeypatch.setenv("EBBTIDE_EMBEDDINGS", "none")
    monkeypatch.delenv("EBBTIDE_EXTRACT_URL", raising=False)


def piped(data: bytes | str) -> io.TextIOWrapper:
    """Standard input as a pipe gives it: bytes under a text layer."""
    raw = data.encode() if isinstance(data, str) else data
    return io.TextIOWrapper(io.BytesIO(raw), encoding="utf-8")


def test_a_standup_piped_in_is_extracted_and_recall_finds_the_switch_first(
    tmp_path, capsys, monkeypatch
):
    store = str(tmp_path / "chat.db")
    monkeypatch.setattr(sys, "stdin", piped(STANDUP))
    assert main(["remember", "--chat", "-", "--date", "2026-03-01", "--store", store]) == 0
    said = capsys.readouterr().out
    assert said.startswith("stored or changed")
    assert "person 2" in said  # counted by kind: Ana and Ben
    assert "switched CI from Jenkins to GitHub Actions" in said
    assert main(["recall", "what do we use for CI", "--store", store, "--json"]) == 0
    hits = json.loads(capsys.readouterr().out)["hits"]
    assert "GitHub Actions" in hits[0]["node"]["text"]
    assert all(len(h["node"]["text"]) < 200 for h in hits)  # items, not the whole chat as a note


def test_a_chat_given_as_an_argument_prints_json_with_its_messages_and_items(tmp_path, capsys):
    told = ["remember", "--chat", STANDUP, "--date", "2026-03-01"]
    store = str(tmp_path / "chat.db")
    assert main([*told, "--store", store, "--json"]) == 0
    got = json.loads(capsys.readouterr().out)
    assert got["messages"] == 3
    assert {n["kind"] for n in got["nodes"]} >= {"person", "event"}
    # the same day's chat told again: known, nothing stored twice
    assert main([*told, "--store", store, "--json"]) == 0
    again = json.loads(capsys.readouterr().out)
    assert again["known"] == 3 and again["nodes"] == []


@pytest.mark.parametrize(
    ("args", "stdin", "named"),
    [
        (["--chat", "we use Jenkins for CI"], "", "--chat line 1"),
        (["--chat", "-"], "just some words\n", "--chat line 1"),
        (["--chat", "-"], "  \n", "--chat: must hold at least one 'speaker: text' line"),
        (["--chat", "Ana: hi", "--date", "2026-13-01"], "", "--date: must be a date"),
        (["--chat", "Ana: hi", "--date", "yesterday"], "", "--date: must be a date"),
        (["--chat", "Ana: hi", "--kind", "lesson"], "", "--kind: goes with one item"),
        (["--chat", "Ana: hi", "--pin"], "", "--pin: goes with one item"),
        (["Ana: hi", "--date", "2026-03-01"], "", "--date: goes with --chat"),
        (["--chat", "-"], b"Ana: caf\xe9 at nine\n", "--chat: must be UTF-8 text (byte 8"),
    ],
)
def test_a_bad_chat_is_refused_naming_the_option_and_nothing_is_stored(
    tmp_path, capsys, monkeypatch, args, stdin, named
):
    store = tmp_path / "x.db"
    monkeypatch.setattr(sys, "stdin", piped(stdin))
    assert main(["remember", *args, "--store", str(store)]) == 2
    err = capsys.readouterr().err
    assert named in err
    assert not store.exists()  # refused before the store is opened: a typo makes no store


def test_the_line_refused_is_quoted(tmp_path, capsys):
    chat = "Ana: We use Jenkins\n\n  # notes follow\n"
    store = tmp_path / "x.db"
    assert main(["remember", "--chat", "# notes follow\nAna: hi", "--store", str(store)]) == 2
    assert "'# notes follow'" in capsys.readouterr().err
    assert main(["remember", "--chat", chat, "--store", str(store)]) == 0  # a continuation
    with open_memory(store) as m:
        assert m.stats().nodes > 0


@pytest.mark.parametrize(
    "args",
    [
        ["ingest", "{tmp}/x.py"],
        ["review", "approve", "nosuchid"],
    ],
)
def test_an_error_is_the_first_line_on_stderr_not_after_a_blank_one(tmp_path, capsys, args):
    (tmp_path / "x.py").write_text("x = 1\n")
    store = str(tmp_path / "x.db")
    with open_memory(store) as m:
        m.remember("a note, so the store exists")
    argv = [a.format(tmp=tmp_path) for a in args]
    assert main([*argv, "--store", store]) == 2
    err = capsys.readouterr().err
    assert err.startswith("error "), repr(err)
    assert "\n\n" not in err

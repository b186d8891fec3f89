"""A vault's own dates and aliases, through `ebbtide ingest` and a real SQLite store: front
matter's `date:` / `created:` / `updated:` and a daily note's file name date a note (after a
`git clone` every file has one modification time), a bad date is named and left out, and
`aliases:` are names that links and recall find the note by."""

from __future__ import annotations

import json
import os
from datetime import UTC, datetime, timedelta, timezone
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from ebbtide import Memory, open_memory
from ebbtide.cli import main
from ebbtide.clock import ManualClock
from ebbtide.ingest import _front_date

CLONED = 1_796_115_600  # 2026-12-01 09:00 UTC: when every file of the vault was checked out
NOW = "2026-12-02T12:00:00+00:00"  # a Wednesday: "last week" is 23-29 November


@pytest.fixture(autouse=True)
def no_vectors(monkeypatch):
    monkeypatch.setenv("EBBTIDE_EMBEDDINGS", "none")


def write(vault: Path, rel: str, text: str) -> None:
    (vault / rel).parent.mkdir(parents=True, exist_ok=True)
    (vault / rel).write_text(text, encoding="utf-8")
    os.utime(vault / rel, (CLONED, CLONED))


def ingest(vault: Path, store: Path, capsys) -> dict:
    """What `ebbtide ingest --json` printed."""
    capsys.readouterr()
    assert main(["ingest", str(vault), "--store", str(store), "--json"]) == 0
    return json.loads(capsys.readouterr().out)


def warned(vault: Path, store: Path, capsys) -> str:
    """What plain `ebbtide ingest` warned."""
    capsys.readouterr()
    assert main(["ingest", str(vault), "--store", str(store)]) == 0
    return " ".join(capsys.readouterr().err.split())


def document(mem: Memory, path: str):
    (doc,) = [d for d in mem.find(kind="document", limit=100) if d.attributes["path"] == path]
    return doc


def paths(hits) -> list[str]:
    return [h.node.attributes.get("path") for h in hits]


@pytest.fixture
def vault(tmp_path) -> Path:
    vault = tmp_path / "vault"
    write(vault, "Projects/Checkout.md", "---\ncreated: 2025-01-15\n---\nThe checkout API.\n")
    write(vault, "Daily/2026-11-24.md", "Discussed the BigQuery migration with Carol.\n")
    write(vault, "Daily/2026-11-26 Standup.md", "The deploy slipped to Friday.\n")
    write(vault, "Meetings/Sync.md", "---\ndate: 2026-11-27T16:00:00+01:00\n---\nHiring SREs.\n")
    write(vault, "Meetings/Retro.md", "---\ndate: 2026-11-18\n---\nCanaries were missing.\n")
    write(vault, "Inbox/Undated.md", "A thought about lunch.\n")
    return vault


def test_front_matter_and_daily_note_names_date_notes_for_a_last_week_question(
    vault, tmp_path, capsys
):
    store = tmp_path / "m.db"
    ingest(vault, store, capsys)
    with open_memory(store, clock=ManualClock(NOW)) as mem:
        found = paths(mem.recall("what did I note last week?", k=10, touch=False).hits)
        checkout = document(mem, "Projects/Checkout.md")
        daily = document(mem, "Daily/2026-11-24.md")
    # Dated 23-29 November by their front matter or their names, not all 2 February.
    assert sorted(found) == [
        "Daily/2026-11-24.md",
        "Daily/2026-11-26 Standup.md",
        "Meetings/Sync.md",
    ]
    # The recency clock runs from the note's own date, not from the clone.
    assert checkout.created_at == datetime(2025, 1, 15).astimezone()
    assert daily.created_at == datetime(2026, 11, 24).astimezone()


def test_updated_moves_the_recency_clock_but_a_last_week_question_asks_when_it_was_written(
    tmp_path, capsys
):
    vault = tmp_path / "vault"
    write(
        vault,
        "Projects/Warehouse.md",
        "---\ncreated: 2025-02-20\nupdated: 2026-11-25\n---\nThe warehouse runs on BigQuery.\n",
    )
    write(vault, "Notes/Only updated.md", "---\nupdated: 2026-11-25\n---\nSwitched to SQS.\n")
    store = tmp_path / "m.db"
    ingest(vault, store, capsys)
    with open_memory(store, clock=ManualClock(NOW)) as mem:
        found = paths(mem.recall("what did I note last week?", k=10, touch=False).hits)
        warehouse = document(mem, "Projects/Warehouse.md")
    assert found == ["Notes/Only updated.md"]  # written then: it says nothing else
    assert warehouse.created_at == datetime(2026, 11, 25).astimezone()


def test_a_bad_date_falls_back_and_the_cli_names_the_file_and_field(tmp_path, capsys):
    vault = tmp_path / "vault"
    write(vault, "Broken.md", "---\ncreated: 2025-13-45\nupdated: yesterday\n---\nStill read.\n")
    write(vault, "Listed.md", "---\ndate: [2026-11-01]\n---\nA list, not a date.\n")
    write(vault, "Daily/2026-02-30.md", "No such day.\n")
    write(vault, "Templates/Daily.md", "---\ndate: {{date}}\n---\n## Tasks\n")
    store = tmp_path / "m.db"
    summary = ingest(vault, store, capsys)
    assert summary["files"] == 4
    assert sorted(summary["dates_ignored"]) == [
        "Broken.md: created '2025-13-45'",
        "Broken.md: updated 'yesterday'",
        "Daily/2026-02-30.md: file name '2026-02-30'",
        "Listed.md: date ['2026-11-01']",
    ]  # a template's placeholder is no bad date
    with open_memory(store) as mem:
        broken = document(mem, "Broken.md")
    assert broken.created_at == datetime.fromtimestamp(CLONED, UTC)  # the file's time
    assert "said_at" not in broken.attributes
    # Told again on every ingest until it is fixed, though the file is not read again.
    said = warned(vault, store, capsys)
    assert "4 date(s) ignored" in said
    assert "Broken.md: created '2025-13-45'" in said


def test_a_date_taken_out_of_the_front_matter_is_no_longer_the_notes(tmp_path, capsys):
    vault = tmp_path / "vault"
    write(vault, "Sync.md", "---\ndate: 2026-11-26\ntags: [sync]\n---\nHiring SREs.\n")
    store = tmp_path / "m.db"
    ingest(vault, store, capsys)
    write(vault, "Sync.md", "Hiring SREs.\n")
    ingest(vault, store, capsys)
    with open_memory(store, clock=ManualClock(NOW)) as mem:
        sync = document(mem, "Sync.md")
        found = paths(mem.recall("what did I note last week?", k=10, touch=False).hits)
    assert "said_at" not in sync.attributes
    assert "tags" not in sync.attributes
    assert found == []


def test_a_future_date_does_not_put_a_notes_recency_ahead_of_its_file(tmp_path, capsys):
    vault = tmp_path / "vault"
    write(vault, "Plan.md", "---\ndate: 2030-01-01\n---\nThe offsite agenda.\n")
    store = tmp_path / "m.db"
    ingest(vault, store, capsys)
    with open_memory(store) as mem:
        plan = document(mem, "Plan.md")
    assert plan.created_at == datetime.fromtimestamp(CLONED, UTC)
    assert plan.attributes["said_at"].startswith("2030-01-01")


# Aliases -------------------------------------------------------------------------------------


def test_links_to_an_alias_reach_the_note_that_declares_it_and_recall_finds_it_by_alias(
    tmp_path, capsys
):
    vault = tmp_path / "vault"
    write(vault, "People/Alice Smith.md", '---\naliases: [Ali, "A. Smith"]\n---\nPayments.\n')
    write(vault, "People/Bob Jones.md", "---\naliases:\n  - Bobby J\n---\nRuns on-call.\n")
    write(vault, "People/Carol.md", "---\nalias: Caz\n---\nOwns the warehouse.\n")
    write(vault, "Ali.md", "A real note named Ali wins over the alias.\n")
    write(
        vault,
        "Inbox/Links.md",
        "Ask [[A. Smith]] and [[bobby j|Bob]] and [[Caz]], not [[Nobody]]; [x](Bobby%20J.md).\n",
    )
    store = tmp_path / "m.db"
    summary = ingest(vault, store, capsys)
    assert summary["unresolved_links"] == 2  # [[Nobody]], and a path is no alias
    with open_memory(store) as mem:
        links = document(mem, "Inbox/Links.md")
        out = {
            n.node.attributes["path"]
            for n in mem.neighbors(links.id, relation="related", direction="out").neighbors
        }
        by_alias = paths(mem.recall("Bobby J", k=3, touch=False).hits)
        alice = document(mem, "People/Alice Smith.md")
    assert out == {"People/Alice Smith.md", "People/Bob Jones.md", "People/Carol.md"}
    assert "People/Bob Jones.md" in by_alias[:2]  # beside the note that links to it
    assert alice.attributes["aliases"] == ["Ali", "A. Smith"]


def test_an_alias_added_later_resolves_links_in_notes_not_read_again(tmp_path, capsys):
    vault = tmp_path / "vault"
    write(vault, "Checkout Service.md", "The checkout API handles payment capture.\n")
    write(vault, "Index.md", "See [[Checkout API]].\n")
    store = tmp_path / "m.db"
    first = ingest(vault, store, capsys)
    assert first["unresolved_links"] == 1
    write(
        vault,
        "Checkout Service.md",
        "---\naliases: Checkout API\n---\nThe checkout API handles payment capture.\n",
    )
    second = ingest(vault, store, capsys)
    assert second["unchanged"] == 1  # Index.md is not read again
    assert second["unresolved_links"] == 0
    with open_memory(store) as mem:
        index = document(mem, "Index.md")
        out = {
            n.node.attributes["path"]
            for n in mem.neighbors(index.id, relation="related", direction="out").neighbors
        }
    assert out == {"Checkout Service.md"}


# Parsing a date --------------------------------------------------------------------------------


@given(st.datetimes(min_value=datetime(1900, 1, 1), max_value=datetime(9998, 1, 1)))
def test_any_iso_date_a_vault_writes_is_read_as_that_local_moment(t):
    t = t.replace(microsecond=0)
    local = t.astimezone()
    for written in (t.isoformat(), t.isoformat(sep=" "), t.strftime("%Y-%m-%d %H:%M:%S")):
        assert _front_date(written) == local
    assert _front_date(t.date().isoformat()) == datetime(t.year, t.month, t.day).astimezone()
    assert _front_date(t.strftime("%Y/%m/%d")) == datetime(t.year, t.month, t.day).astimezone()


@given(
    st.datetimes(min_value=datetime(1900, 1, 1), max_value=datetime(9998, 1, 1)),
    st.integers(min_value=-14 * 60, max_value=14 * 60),
)
def test_a_date_with_an_offset_is_that_instant(t, minutes):
    aware = t.replace(microsecond=0, tzinfo=UTC).astimezone(timezone(timedelta(minutes=minutes)))
    assert _front_date(aware.isoformat()) == aware
    assert _front_date(aware.isoformat().replace("+00:00", "Z")) == aware


@given(st.one_of(st.text(max_size=40), st.integers(), st.floats(), st.lists(st.text(max_size=5))))
def test_no_value_crashes_the_date_reader(value):
    got = _front_date(value)
    assert got is None or got.tzinfo is not None

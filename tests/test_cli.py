"""The CLI mirrors the API: export/import round trip, review by a person, config snippets."""

from __future__ import annotations

import io
import json
import os
import re
import subprocess
import sys
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest

import ebbtide
from ebbtide import ManualClock, open_memory
from ebbtide.cli import build_parser, main


def populate(path, clock):
    with open_memory(path, clock=clock) as m:
        a = m.remember("Ana Ruiz", "person", pinned=True)
        b = m.remember(
            "Ana prefers written proposals", links=[{"target": a.id, "relation": "about"}]
        )
        m.record_decision("Wrote a proposal", "Project approved and shipped", "caused")
        m.record_fact("office", "Lisbon")
        m.record_fact("office", "Porto")
        m.forget(b.id, "duplicate")
        clock.advance(days=3)
        m.maintain()


def dump(path):
    with open_memory(path) as m:
        nodes = sorted(n.model_dump_json() for n in m.store.iter_nodes())
        edges = sorted(e.model_dump_json() for e in m.store.iter_edges())
        return nodes, edges, m.store.pending_reviews()


def test_export_then_import_round_trips_exactly(tmp_path, capsys):
    clock = ManualClock()
    src, dst, jsonl = tmp_path / "a.db", tmp_path / "b.db", tmp_path / "export.jsonl"
    populate(src, clock)
    assert main(["export", str(jsonl), "--store", str(src)]) == 0
    records = [json.loads(x) for x in jsonl.read_text().splitlines()]
    assert {r["type"] for r in records} == {"header", "node", "edge", "review"}
    assert any(r["type"] == "node" and r["valid_to"] for r in records), "superseded fact kept"
    assert main(["import", str(jsonl), "--store", str(dst)]) == 0
    assert dump(dst) == dump(src)


def test_a_broken_import_changes_nothing(tmp_path, capsys):
    bad = tmp_path / "bad.jsonl"
    bad.write_text('{"type": "node", "id": "x"}\n')
    store = tmp_path / "c.db"
    assert main(["import", str(bad), "--store", str(store)]) == 2
    assert "line 1" in capsys.readouterr().err
    with open_memory(store) as m:
        assert m.stats().nodes == 0


def test_a_person_approves_deletions_from_the_cli(tmp_path, capsys):
    store = tmp_path / "r.db"
    with open_memory(store) as m:
        keep = m.remember("keep me")
        drop = m.remember("drop me")
        m.forget(keep.id)
        m.forget(drop.id)
    assert main(["review", "list", "--store", str(store), "--json"]) == 0
    listed = json.loads(capsys.readouterr().out)
    assert {i["node"]["id"] for i in listed["items"]} == {keep.id, drop.id}
    assert main(["review", "approve", drop.id, "--store", str(store)]) == 0
    assert main(["review", "reject", keep.id, "--store", str(store)]) == 0
    with open_memory(store) as m:
        assert m.get(keep.id).status == "active"
        assert m.stats().nodes == 1 and m.review_queue().items == []


class Terminal(io.StringIO):
    """A person at a terminal, who answers once `meanwhile` has run: what other processes do
    while the person reads the list."""

    def __init__(self, answer: str, meanwhile=lambda: None) -> None:
        super().__init__()
        self.answer, self.meanwhile = answer, meanwhile

    def isatty(self) -> bool:
        return True

    def readline(self, *_: object) -> str:
        self.meanwhile()
        return self.answer + "\n"


def test_approve_all_deletes_only_what_the_person_was_shown(tmp_path, capsys, monkeypatch):
    store = tmp_path / "r.db"
    clock = ManualClock(datetime.now(UTC) - timedelta(days=400))
    with open_memory(store, clock=clock, embeddings="none") as m:
        legacy = m.remember("Legacy billing export format")
        wrong = m.remember("The office moved to Porto")
        m.forget(wrong.id, "never happened")

    def the_daily_maintain_runs():
        clock.advance(days=200)
        with open_memory(store, clock=clock, embeddings="none") as daily:
            daily.remember("busy note")
            assert daily.maintain().queued_for_review == [legacy.id]

    monkeypatch.setattr(sys, "stdin", Terminal("y", the_daily_maintain_runs))
    assert main(["review", "approve", "--all", "--store", str(store)]) == 0
    out = capsys.readouterr().out
    assert "1 deletion(s) to approve" in out and "Delete these 1 and their links? [y/N]" in out
    assert f"approved: {wrong.id}" in out
    assert legacy.id not in out
    with open_memory(store, embeddings="none") as m:
        assert [i.node.id for i in m.review_queue().items] == [legacy.id]
        assert m.get(legacy.id).status == "archived"


def test_approve_all_keeps_what_was_kept_or_used_while_the_person_read(
    tmp_path, capsys, monkeypatch
):
    store = tmp_path / "r.db"
    with open_memory(store, embeddings="none") as m:
        kept, used, gone = (m.remember(f"Runbook for cluster {n}") for n in ("a", "b", "c"))
        for note in (kept, used, gone):
            m.forget(note.id, "the cluster is gone")

    def others_decide():
        with open_memory(store, embeddings="none") as other:
            other.reject(kept.id)  # another person keeps it
            other.reinforce(used.id)  # an agent uses it

    monkeypatch.setattr(sys, "stdin", Terminal("y", others_decide))
    assert main(["review", "approve", "--all", "--store", str(store)]) == 1
    out = capsys.readouterr().out
    assert f"not deleted: {kept.id} (no longer waiting for review)" in out
    assert f"not deleted: {used.id} (used or changed since it was shown)" in out
    assert f"approved: {gone.id}" in out
    with open_memory(store, embeddings="none") as m:
        assert set(m.store.get_nodes([kept.id, used.id, gone.id])) == {kept.id, used.id}


def test_approve_all_answered_no_deletes_nothing(tmp_path, capsys, monkeypatch):
    store = tmp_path / "r.db"
    with open_memory(store, embeddings="none") as m:
        m.forget(m.remember("Runbook for the old cluster").id)
    monkeypatch.setattr(sys, "stdin", Terminal("n"))
    assert main(["review", "approve", "--all", "--store", str(store)]) == 1
    assert "nothing was deleted" in capsys.readouterr().out
    with open_memory(store, embeddings="none") as m:
        assert len(m.review_queue().items) == 1


def test_approve_all_without_a_terminal_asks_for_yes(tmp_path, capsys, monkeypatch):
    store = tmp_path / "r.db"
    with open_memory(store, embeddings="none") as m:
        m.forget(m.remember("Runbook for the old cluster").id)
    monkeypatch.setattr(sys, "stdin", io.StringIO("y\n"))  # piped, not a person
    assert main(["review", "approve", "--all", "--store", str(store)]) == 2
    assert "--yes" in capsys.readouterr().err
    with open_memory(store, embeddings="none") as m:
        assert len(m.review_queue().items) == 1
    assert main(["review", "approve", "--all", "--yes", "--store", str(store)]) == 0
    with open_memory(store, embeddings="none") as m:
        assert m.review_queue().items == [] and m.stats().nodes == 0


def test_review_refuses_ids_with_all_and_yes_without_approve_all(tmp_path, capsys):
    store = tmp_path / "r.db"
    with open_memory(store, embeddings="none") as m:
        note = m.remember("Runbook for the old cluster")
        m.forget(note.id)
    assert main(["review", "approve", note.id, "--all", "--store", str(store)]) == 2
    assert "node ids or --all, not both" in capsys.readouterr().err
    assert main(["review", "approve", note.id, "--yes", "--store", str(store)]) == 2
    assert "--yes goes with approve --all" in capsys.readouterr().err
    with open_memory(store, embeddings="none") as m:
        assert [i.node.id for i in m.review_queue().items] == [note.id]


def test_square_brackets_in_notes_and_errors_are_printed_as_written(tmp_path, capsys):
    store = tmp_path / "r.db"
    with open_memory(store) as m:
        m.forget(m.remember("Forum snippet [b]bold[/b] and [/url]").id)
    assert main(["review", "list", "--store", str(store)]) == 0
    assert "[b]bold[/b]" in capsys.readouterr().out
    chat = tmp_path / "c.jsonl"
    chat.write_text(
        '{"session": "s1", "speaker": "Ann", "text": "hi"}\n{"session": "s2", "speaker": "Ann"}\n'
    )
    assert main(["ingest", str(chat), "--store", str(store)]) == 2
    assert "[s2]" in capsys.readouterr().err


def test_ingesting_a_path_that_does_not_exist_creates_no_store(tmp_path, capsys):
    store = tmp_path / "new.db"
    assert main(["ingest", str(tmp_path / "notse"), "--store", str(store)]) == 2
    assert "path: does not exist" in capsys.readouterr().err
    assert list(tmp_path.iterdir()) == []


def test_importing_a_file_that_is_not_there_names_the_path_and_creates_no_store(tmp_path, capsys):
    store = tmp_path / "new.db"
    assert main(["import", str(tmp_path / "exprot.jsonl"), "--store", str(store)]) == 2
    assert "error path: does not exist" in capsys.readouterr().err
    assert main(["import", str(tmp_path), "--store", str(store)]) == 2
    assert "error path: is a folder, not a file" in capsys.readouterr().err
    assert list(tmp_path.iterdir()) == []


def test_exporting_into_a_folder_that_is_not_there_names_the_path(tmp_path, capsys):
    store = tmp_path / "m.db"
    with open_memory(store, embeddings="none") as m:
        m.remember("Ana owns the payments service")
    assert main(["export", str(tmp_path / "nodir" / "x.jsonl"), "--store", str(store)]) == 2
    err = capsys.readouterr().err
    assert "error path: cannot be written" in err and "nodir" in err and "Traceback" not in err


def test_a_warning_about_a_file_is_one_line_however_long_its_name(tmp_path, capsys, monkeypatch):
    monkeypatch.setenv("EBBTIDE_EMBEDDINGS", "none")
    vault = tmp_path / "vault"
    vault.mkdir()
    name = "Offsite notes from the hiring and onboarding planning day.md"
    (vault / name).write_text("---\ndate: 2025-13-45\n---\nWe talked about hiring.\n")
    store = str(tmp_path / "m.db")
    assert main(["ingest", str(vault), "--store", store]) == 0
    warning = capsys.readouterr().err.strip()
    assert warning.startswith("warning") and f"{name}: date '2025-13-45'" in warning
    assert "\n" not in warning


def test_unknown_review_id_is_a_clear_error(tmp_path, capsys):
    assert main(["review", "approve", "ghost", "--store", str(tmp_path / "x.db")]) == 2
    assert "ghost" in capsys.readouterr().err


@pytest.mark.parametrize(
    ("args", "named"),
    [
        (["trace", "outage", "--depth", "50"], "--depth: must be between 1 and 10"),
        (["recall", "outage", "--kind", "bogus"], "--kind: must be one of"),
        (["recall", "outage", "-k", "0"], "-k: must be between 1 and 200"),
        (["recall", "outage", "--task-tag", " "], "--task-tag: must not be empty"),
        (["remember", "a note", "--kind", "bogus"], "--kind: must be one of"),
    ],
)
def test_a_refused_option_is_named_as_typed_not_by_its_api_field(tmp_path, capsys, args, named):
    store = tmp_path / "x.db"
    assert main([*args, "--store", str(store)]) == 2
    assert named in capsys.readouterr().err
    assert main(["stats", "--store", str(store), "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["nodes"] == 0  # nothing was stored


def test_config_prints_a_snippet_per_client(capsys):
    assert main(["config", "--client", "codex", "--store", "/data/team.db"]) == 0
    out = capsys.readouterr().out
    assert "[mcp_servers.ebbtide]" in out and "EBBTIDE_STORE" in out


def test_stats_and_maintain_as_json(tmp_path, capsys):
    store = str(tmp_path / "s.db")
    assert main(["maintain", "--store", store, "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["nodes"] == 0
    assert main(["stats", "--store", store, "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["last_maintain"] is not None


def test_sleep_consolidates_and_reports(tmp_path, capsys):
    store = tmp_path / "z.db"
    with open_memory(store) as m:
        m.record_decision("Skipped code review of the login hotfix", "Login outage", task_tag="a")
        m.record_decision(
            "Skipped code review of the payments hotfix", "Payments outage", task_tag="b"
        )
    assert main(["sleep", "--store", str(store), "--json"]) == 0
    report = json.loads(capsys.readouterr().out)
    assert report["patterns_added"] >= 1 and report["maintain"]["nodes"] >= 3


def test_ingest_a_markdown_folder_links_pages_and_dates_them_by_mtime(tmp_path, capsys):
    import os
    import time

    notes = tmp_path / "notes"
    (notes / "sub").mkdir(parents=True)
    (notes / "kafka.md").write_text("# Kafka\n\nWe run three brokers. See [[queue-choice]].\n")
    (notes / "queue-choice.md").write_text("# Queue choice\n\nManaged queue wins on cost.\n")
    (notes / "sub" / "ops.md").write_text("# Ops\n\nRunbook: see [kafka](../kafka.md).\n")
    old = int(time.time()) - 10 * 86_400  # ten days ago: older, still warm
    os.utime(notes / "kafka.md", (old, old))
    store = tmp_path / "i.db"
    assert main(["ingest", str(notes), "--store", str(store)]) == 0
    with open_memory(store) as m:
        kafka = m.recall("how many Kafka brokers").hits[0].node
        assert "three brokers" in kafka.text
        assert kafka.created_at.timestamp() == old
        linked = {n.node.text.splitlines()[0] for n in m.neighbors(kafka.id).neighbors}
        assert any("Queue choice" in t for t in linked) and any("Ops" in t for t in linked)


def test_recall_says_an_old_note_read_today_was_last_used_when_its_file_was_written(
    tmp_path, capsys
):
    import os
    import time

    notes = tmp_path / "notes"
    notes.mkdir()
    (notes / "adr-1.md").write_text("# ADR 1\n\nWe store memories in SQLite, one file.\n")
    written = time.time() - 200 * 86_400
    os.utime(notes / "adr-1.md", (written, written))
    store = str(tmp_path / "r.db")
    assert main(["ingest", str(notes), "--store", store]) == 0
    for _ in range(2):  # read again unchanged: still no use of it
        capsys.readouterr()
        assert main(["recall", "where do we store memories", "--store", store, "--json"]) == 0
        (hit,) = json.loads(capsys.readouterr().out)["hits"]
        assert round(hit["why"]["recency_days"]) == 200
        assert main(["ingest", str(notes), "--store", store]) == 0
    assert main(["recall", "where do we store memories", "--store", store, "--touch"]) == 0
    capsys.readouterr()
    assert main(["recall", "where do we store memories", "--store", store]) == 0
    assert "last read or told 0 d ago" in capsys.readouterr().out  # a use is a use


def test_ingest_says_in_json_what_it_read_and_what_is_gone(tmp_path, capsys):
    notes = tmp_path / "notes"
    notes.mkdir()
    (notes / "a.md").write_text("# A\n\nThe backup job caused the disk alert.\n")
    (notes / "b.md").write_text("# B\n\nNothing here.\n")
    store = str(tmp_path / "j.db")
    assert main(["ingest", str(notes), "--store", store, "--json"]) == 0
    first = json.loads(capsys.readouterr().out)
    assert (first["files"], first["causal_links"], first["gone"]) == (2, 1, 0)
    (notes / "b.md").unlink()
    assert main(["ingest", str(notes), "--store", store]) == 0
    assert "1 gone (waiting for review)" in capsys.readouterr().out
    assert main(["review", "--store", store, "--json"]) == 0
    (item,) = json.loads(capsys.readouterr().out)["items"]
    assert item["reason"] == f"b.md is no longer in {notes.resolve()}"


def test_reembed_fills_in_vectors_for_nodes_stored_without_embeddings(
    tmp_path, capsys, monkeypatch
):
    monkeypatch.setenv("EBBTIDE_EMBEDDINGS", "local")
    store = tmp_path / "r.db"
    with open_memory(store, embeddings="none") as m:
        m.remember("Caroline adopted a golden retriever")
    assert main(["reembed", "--store", str(store)]) == 0
    assert "embedded 1 node" in capsys.readouterr().out
    with open_memory(store) as m:
        hit = m.recall("what pet does Caroline have?").hits[0]
        assert "vector" in hit.why.lists


def test_reembed_as_json_says_how_many_nodes_and_which_model(tmp_path, capsys, monkeypatch):
    monkeypatch.setenv("EBBTIDE_EMBEDDINGS", "local")
    store = tmp_path / "r.db"
    with open_memory(store, embeddings="none") as m:
        m.remember("Caroline adopted a golden retriever")
    assert main(["reembed", "--store", str(store), "--json"]) == 0
    with open_memory(store) as m:
        model = m.embedder.name
    assert json.loads(capsys.readouterr().out) == {"embedded": 1, "model": model, "dropped": 0}


def test_reembed_drops_and_says_so_the_vectors_an_earlier_run_gave_a_prediction(
    tmp_path, capsys, monkeypatch
):
    monkeypatch.setenv("EBBTIDE_EMBEDDINGS", "local")
    store = tmp_path / "r.db"
    with open_memory(store) as m:
        m.record_decision("Skipped the load test before the sale", "Checkout outage on Saturday")
        asked = m.intervention_query("skip the load test before the sale")
        (vector,) = m.embedder.embed(["Prediction: an outage"])
        m.store.put_vectors(m.embedder.name, [(asked.prediction_id, vector)])
    assert main(["reembed", "--store", str(store)]) == 0
    assert "dropped 1 vector(s) of nodes never searched (predictions)" in capsys.readouterr().out
    assert main(["reembed", "--store", str(store)]) == 0
    assert "dropped" not in capsys.readouterr().out


@pytest.mark.parametrize("command", [["serve"], ["demo"], ["config"], ["export"], ["import", "x"]])
def test_a_command_with_no_json_output_refuses_json_instead_of_ignoring_it(command, capsys):
    with pytest.raises(SystemExit) as exit_:
        build_parser().parse_args([*command, "--json"])  # parsed only: nothing runs
    assert exit_.value.code == 2
    assert "unrecognized arguments: --json" in capsys.readouterr().err


def test_remember_then_recall_from_the_shell(tmp_path, capsys):
    store = str(tmp_path / "s.db")
    assert (
        main(
            [
                "remember",
                "Kafka upkeep cost two engineers a week",
                "--kind",
                "lesson",
                "--store",
                store,
            ]
        )
        == 0
    )
    assert "lesson" in capsys.readouterr().out
    assert main(["remember", "Lunch is at noon on Fridays", "--store", store]) == 0
    capsys.readouterr()

    assert main(["recall", "what did Kafka cost us?", "--store", store]) == 0
    shown = capsys.readouterr().out
    assert "Kafka upkeep cost two engineers" in shown
    assert "text #1" in shown, "each hit says which lists found it"

    assert main(["recall", "Kafka", "--kind", "note", "--json", "--store", store]) == 0
    hits = json.loads(capsys.readouterr().out)["hits"]
    assert [h["node"]["kind"] for h in hits] == ["note"] * len(hits)


def test_recall_from_the_shell_keeps_to_one_task(tmp_path, capsys):
    store = tmp_path / "t.db"
    with open_memory(store, embeddings="none") as m:
        m.remember("The deploy window is Tuesday", task_tag="deploys")
        m.remember("The hiring window is Tuesday", task_tag="hiring")
        m.remember("Tuesday standups are at nine")
    assert (
        main(["recall", "Tuesday", "--task-tag", "deploys", "--json", "--store", str(store)]) == 0
    )
    texts = {h["node"]["text"] for h in json.loads(capsys.readouterr().out)["hits"]}
    assert texts == {"The deploy window is Tuesday", "Tuesday standups are at nine"}


def test_a_long_hit_wraps_under_its_indent(tmp_path, capsys):
    store = str(tmp_path / "w.db")
    long = (
        "We moved the billing queue from RabbitMQ to SQS because RabbitMQ kept losing messages"
        " during failovers, and the on-call rotation could no longer absorb the manual replays"
    )
    with open_memory(store) as m:
        m.remember(long)
    assert main(["recall", "why did billing move to SQS?", "-k", "1", "--store", store]) == 0
    body = capsys.readouterr().out.splitlines()[1:]
    assert len(body) >= 3, "the text wraps over more than one line, then the why line"
    assert all(line.startswith("    ") and not line.endswith(" ") for line in body)
    assert " ".join(line.strip() for line in body).startswith(long)


def test_a_look_from_the_shell_is_not_a_use_unless_asked(tmp_path, capsys):
    store = str(tmp_path / "t.db")
    with open_memory(store) as m:
        ident = m.remember("The staging database is restored every Monday").id

    def reads() -> int:
        with open_memory(store) as m:
            return m.get(ident).read_count

    assert main(["recall", "staging database restore", "--store", store]) == 0
    assert reads() == 0
    assert main(["recall", "staging database restore", "--touch", "--store", store]) == 0
    assert reads() == 1


def test_bad_input_from_the_shell_names_the_field_and_stores_nothing(tmp_path, capsys):
    store = str(tmp_path / "u.db")
    assert main(["remember", "anything", "--kind", "rumour", "--store", store]) == 2
    assert "kind" in capsys.readouterr().err
    assert main(["recall", "anything", "-k", "0", "--store", store]) == 2
    assert "k: must be between 1 and 200" in capsys.readouterr().err
    with open_memory(store) as m:
        assert m.stats().nodes == 0


def test_trace_from_the_shell_walks_a_recorded_chain_root_first(tmp_path, capsys):
    store = str(tmp_path / "c.db")
    with open_memory(store) as m:
        m.record_decision("Skipped the load test before the sale", "Checkout outage", "caused")
        m.record_decision("Checkout outage", "Escalation from Acme Retail", "caused")

    assert main(["trace", "the Acme escalation", "--store", store]) == 0
    lines = [x.strip() for x in capsys.readouterr().out.splitlines()]
    root = lines.index("Skipped the load test before the sale")
    assert lines[root + 1 : root + 3] == [
        "-caused-> Checkout outage",
        "-caused-> Escalation from Acme Retail",
    ]

    assert main(["trace", "a meteor strike", "--store", store]) == 0
    assert "no recorded chain" in capsys.readouterr().out
    assert main(["trace", "the Acme escalation", "--depth", "0", "--store", store]) == 2
    assert "--depth: must be between 1 and 10" in capsys.readouterr().err


def test_ingest_says_when_the_llm_extractor_failed_and_the_rules_stood_in(
    tmp_path, capsys, monkeypatch
):
    from fake_openai import FakeOpenAI

    fake = FakeOpenAI()
    fake.down = True
    monkeypatch.setenv("EBBTIDE_EXTRACT_URL", fake.url)
    monkeypatch.setenv("EBBTIDE_EXTRACT_MODEL", "fake-chat")
    monkeypatch.setenv("EBBTIDE_EMBEDDINGS", "none")
    chat = tmp_path / "c.jsonl"
    chat.write_text(
        '{"session": "a", "speaker": "Ana", "text": "We went with SQLite because it needs no '
        'server.", "time": "2026-03-01T10:00:00Z"}\n'
        '{"session": "b", "speaker": "Ben", "text": "I prefer written proposals."}\n'
    )
    store = str(tmp_path / "d.db")
    try:
        assert main(["ingest", str(chat), "--store", store]) == 0
        assert "failed for 2 of 2 session(s)" in capsys.readouterr().err
        chat.write_text(chat.read_text().replace('"b"', '"c"').replace("Ben", "Cy"))
        assert main(["ingest", str(chat), "--store", store, "--json"]) == 0
        summary = json.loads(capsys.readouterr().out)
    finally:
        fake.close()
    assert summary["degraded"].startswith("LLM extraction failed for 1 of 2 session(s)")
    assert "HTTP 503" in summary["degraded"] and summary["nodes"] > 0


def _ebbtide(*args: str, **kwargs) -> subprocess.Popen:
    """`python -m ebbtide ARGS` as a user runs it, on this checkout's package."""
    src = str(Path(ebbtide.__file__).parents[1])
    env = {**os.environ, "PYTHONPATH": src, "EBBTIDE_EMBEDDINGS": "none"}
    return subprocess.Popen([sys.executable, "-m", "ebbtide", *args], env=env, **kwargs)


def test_python_dash_m_ebbtide_runs_the_cli(tmp_path):
    proc = _ebbtide("--version", stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    out, errs = proc.communicate(timeout=60)
    assert proc.returncode == 0, errs
    assert out.startswith("ebbtide ")


def test_an_export_piped_into_head_ends_quietly_without_a_traceback(tmp_path):
    store = tmp_path / "m.db"
    with open_memory(store, embeddings="none") as m:
        for i in range(300):  # more than a pipe holds, so the writer meets the closed end
            m.remember(f"Deploy note {i}: " + "the rollout went through the canary " * 8)
    proc = _ebbtide("export", "--store", str(store), stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    assert proc.stdout.readline()
    proc.stdout.close()  # what `| head -1` does once it has its line
    errs = proc.stderr.read().decode()
    assert proc.wait(timeout=60) == 1  # what it wrote was cut short
    assert "Traceback" not in errs and "BrokenPipeError" not in errs, errs


def test_stats_for_a_person_reads_as_lines_not_a_python_dict(tmp_path, capsys):
    store = tmp_path / "s.db"
    with open_memory(store, embeddings="none") as m:
        m.record_decision("Skipped the canary", "Checkout outage")
        m.remember("On-call policy", pinned=True)
    assert main(["stats", "--store", str(store)]) == 0
    out = capsys.readouterr().out
    assert "{" not in out and "'" not in out
    lines = [" ".join(line.split()) for line in out.splitlines()]
    assert "nodes 3 (0 archived, 0 forgotten, 1 pinned)" in lines
    assert "links 1" in lines
    assert "kinds decision 1, note 1, outcome 1" in lines
    assert "links by relation caused 1" in lines
    assert "review 0 waiting for a person" in lines
    assert "last maintain never" in lines
    assert any(line.startswith("vectors ") for line in lines)


def test_review_list_with_nothing_waiting_says_so_instead_of_an_empty_table(tmp_path, capsys):
    assert main(["review", "list", "--store", str(tmp_path / "s.db")]) == 0
    assert capsys.readouterr().out.strip() == "nothing is waiting for review"


def test_a_bad_server_setting_in_the_environment_leaves_other_commands_working(
    tmp_path, capsys, monkeypatch
):
    monkeypatch.setenv("EBBTIDE_PORT", "eighty")
    assert main(["stats", "--store", str(tmp_path / "s.db"), "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["nodes"] == 0


@pytest.mark.parametrize(
    ("variable", "value", "says"),
    [
        ("EBBTIDE_PORT", "eighty", "EBBTIDE_PORT: must be a whole number from 1 to 65535"),
        ("EBBTIDE_PORT", "70000", "EBBTIDE_PORT: must be a whole number from 1 to 65535"),
        ("EBBTIDE_TRANSPORT", "htp", "EBBTIDE_TRANSPORT: must be stdio or http"),
    ],
)
def test_serve_refuses_a_bad_setting_from_the_environment_naming_it(
    tmp_path, capsys, monkeypatch, variable, value, says
):
    """Not a traceback, and not stdio served in silence where HTTP was asked for."""
    monkeypatch.setenv(variable, value)
    store = tmp_path / "s.db"
    assert main(["serve", "--store", str(store)]) == 2
    assert says in " ".join(capsys.readouterr().err.split())
    assert not store.exists()


def test_serve_refuses_a_port_out_of_range_before_opening_anything(tmp_path, capsys):
    store = tmp_path / "s.db"
    with pytest.raises(SystemExit) as end:
        main(["serve", "--transport", "http", "--port", "99999", "--store", str(store)])
    assert end.value.code == 2
    assert "--port: must be a whole number from 1 to 65535" in capsys.readouterr().err
    assert not store.exists()


def test_a_vault_user_approves_a_deleted_note_by_the_id_review_list_printed(
    tmp_path, capsys, monkeypatch
):
    monkeypatch.setenv("EBBTIDE_EMBEDDINGS", "none")
    vault, store = tmp_path / "vault", str(tmp_path / "m.db")
    vault.mkdir()
    (vault / "scratch.md").write_text("# Scratch\n\nThe temporary proxy caused 504s.\n")
    sections = "".join(f"## Incident {i}\n\n{'Words. ' * 60}\n\n" for i in range(8))
    long = "# Compendium\n\n" + sections
    (vault / "compendium.md").write_text(long)
    assert main(["ingest", str(vault), "--store", store]) == 0
    (vault / "scratch.md").unlink()
    (vault / "compendium.md").write_text(long.replace("## Incident 3", "## Incident three"))
    assert main(["ingest", str(vault), "--store", store]) == 0
    capsys.readouterr()
    assert main(["review", "list", "--store", store]) == 0
    shown = re.findall(r"md-[0-9a-f][0-9a-f-]*…?", capsys.readouterr().out)
    with open_memory(store) as m:
        waiting = sorted(i.node.id for i in m.review_queue().items)
    assert len(waiting) == 2 and sorted(shown) == waiting  # printed whole, on one line
    assert main(["review", "approve", *shown, "--store", store]) == 0
    with open_memory(store) as m:
        assert m.review_queue().items == []


def test_trace_says_which_notes_told_each_chain(tmp_path, capsys, monkeypatch):
    monkeypatch.setenv("EBBTIDE_EMBEDDINGS", "none")
    vault, store = tmp_path / "vault", str(tmp_path / "m.db")
    (vault / "incidents").mkdir(parents=True)
    (vault / "incidents" / "checkout.md").write_text(
        "# Checkout outage\n\nThe nightly backup job filled the disk, which caused the checkout"
        " outage.\n"
    )
    (vault / "index.md").write_text("# Index\n\nSee [[checkout]].\n")
    assert main(["ingest", str(vault), "--store", store]) == 0
    capsys.readouterr()
    assert main(["trace", "the checkout outage", "--store", store]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert lines[1].strip() == "The nightly backup job filled the disk"
    assert lines[3].strip() == "from incidents/checkout.md"

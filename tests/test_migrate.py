"""`ebbtide migrate FROM TO`: SQLite to another backend and back loses nothing."""

from __future__ import annotations

import io
import json
import secrets

import pytest

from ebbtide import ValidationError, open_memory
from ebbtide.cli import main
from ebbtide.consolidate import META_ACTIVATION_REF, META_LAST_MAINTAIN
from ebbtide.migrate import migrate

CHAT = [
    {"id": "c1", "speaker": "Ana", "text": "We went with SQLite because it needs no server."},
    {"id": "c2", "speaker": "Ben", "text": "It paid off: no ops burden at all."},
]


def populate(path, clock) -> None:
    """Every kind of record an export holds: links, episodes, superseded facts, archived and
    forgotten nodes, a pending review and a review cooldown."""
    with open_memory(path, clock=clock) as m:
        old = m.remember("Legacy FTP server credentials rotation")
        kept = m.remember("Rarely used but precious recipe", attributes={"k": [1, {"x": None}]})
        hub = m.remember("Current CI pipeline", "project", pinned=True, scope="team")
        for i in range(12):
            m.remember(f"CI job {i} caches dependencies", links=[{"target": hub.id}])
        m.record_decision("Skipped the canary", "Weekend outage in checkout", task_tag="deploys")
        m.remember(messages=CHAT, date="2026-01-02T10:00:00+00:00")
        m.record_fact("db.host", "pg1")
        m.record_fact("db.host", "pg2")
        clock.advance(days=200)
        m.reinforce(hub.id)
        m.maintain()
        m.reject(kept.id)  # a cooldown
        m.forget(m.remember("Obsolete runbook").id, "replaced")
        assert old.id in {i.node.id for i in m.review_queue().items}


def export(url, clock) -> str:
    out = io.StringIO()
    with open_memory(url, clock=clock) as m:
        m.export_jsonl(out)
    return out.getvalue()


def bookkeeping(url, clock) -> tuple:
    with open_memory(url, clock=clock) as m:
        s = m.store
        return s.get_meta(META_LAST_MAINTAIN), s.get_meta(META_ACTIVATION_REF), s.review_cooldowns()


def test_a_round_trip_through_each_backend_is_lossless(store_url, tmp_path, clock):
    origin, back = str(tmp_path / "origin.db"), str(tmp_path / "back.db")
    populate(origin, clock)
    middle = store_url("migrated")
    seen: list[tuple[str, int, int]] = []
    there = migrate(origin, middle, progress=lambda *a: seen.append(a))
    home = migrate(middle, back)
    assert there.nodes == home.nodes > 15 and there.edges == home.edges > 12
    assert there.reviews == home.reviews >= 2
    # what each message said, where, and which items it told; which messages told each lesson
    assert there.told == home.told == 3 * len(CHAT) + 2
    assert there.audit == home.audit == 1  # the transcript's raw turns, kept as told
    assert export(back, clock) == export(middle, clock) == export(origin, clock)
    assert bookkeeping(back, clock) == bookkeeping(middle, clock) == bookkeeping(origin, clock)
    assert {p for p, *_ in seen} == {"export", "import"}
    records = there.nodes + there.edges + there.reviews + there.told + there.audit
    assert seen[-1][1] == seen[-1][2] == records
    with open_memory(middle, clock=clock) as m:
        assert m.recall("weekend outage", include_cold=True).hits  # it works, not only exports
        # ... and the conversation it was told is not learned from again.
        assert m.remember(messages=CHAT, date="2026-01-02T10:00:00+00:00").known == len(CHAT)
        (entry,) = m.store.iter_audit()
        assert [t["text"] for t in entry.payload["messages"]] == [c["text"] for c in CHAT]


def test_a_prediction_migrated_to_each_backend_is_settled_there_by_its_next_outcome(
    store_url, tmp_path, clock
):
    """What the store indexes of a prediction (the decision it waits on, the lessons it
    kept) is rebuilt wherever it is imported: the migrated store settles it, and settles it
    anew when its lesson is retracted."""
    origin, action = str(tmp_path / "origin.db"), "Skipped the load test before the sale"
    with open_memory(origin, clock=clock, embeddings="none") as m:
        m.record_decision(action, "Checkout outage on Saturday")
        clock.advance(hours=1)
        pid = m.intervention_query("skip the load test before the sale").prediction_id
        clock.advance(hours=1)
        seen = m.record_decision(action, "Another outage in checkout")
    target = store_url("predictions")
    migrate(origin, target)
    with open_memory(target, clock=clock, embeddings="none") as m:
        clock.advance(hours=1)
        m.record_decision(action, "Checkout held up fine")
        m.invalidate_decision(seen.edge.id, "the outage had another cause")
        (item,) = [i for i in m.prediction_report().items if i.prediction_id == pid]
        assert (item.status, item.observed) == ("wrong", "Checkout held up fine")


def test_an_export_of_the_first_format_still_imports(tmp_path, clock):
    lines = export(str(tmp_path / "empty.db"), clock).splitlines()
    old = [json.dumps({"type": "header", "format": "ebbtide-jsonl/1"}), *lines[1:]]
    with open_memory(tmp_path / "b.db", clock=clock) as m:
        assert m.import_jsonl(old) == 0
        with pytest.raises(ValidationError, match="format must be one of"):
            m.import_jsonl([json.dumps({"type": "header", "format": "ebbtide-jsonl/9"})])
        with pytest.raises(ValidationError, match=r"line 2\.value"):
            m.import_jsonl([lines[0], json.dumps({"type": "told", "key": "told:x", "value": 1})])
        bad = {"type": "audit", "at": 1.0, "kind": "transcript", "payload": "raw"}
        with pytest.raises(ValidationError, match=r"line 2\.payload: must be an object"):
            m.import_jsonl([lines[0], json.dumps(bad)])
        assert list(m.store.iter_audit()) == []


def test_the_audit_log_travels_with_an_export_and_is_not_doubled_by_a_second_import(
    tmp_path, clock
):
    a = str(tmp_path / "a.db")
    populate(a, clock)
    dump = export(a, clock).splitlines()
    assert json.loads(dump[0])["format"] == "ebbtide-jsonl/3"
    with open_memory(tmp_path / "b.db", clock=clock) as m:
        m.import_jsonl(dump)
        m.import_jsonl(dump)
        (entry,) = m.store.iter_audit()
    assert entry.kind == "transcript" and entry.payload["messages"][0]["id"] == "c1"


def test_an_audit_entry_the_source_holds_twice_is_carried_twice(tmp_path, clock):
    with open_memory(tmp_path / "a.db", clock=clock) as a:
        for _ in range(2):  # one moment, one payload: two calls the source logged
            a.store.append_audit("transcript", {"messages": [{"id": "x"}]}, 5.0)
        dump = io.StringIO()
        a.export_jsonl(dump)
    with open_memory(tmp_path / "b.db", clock=clock) as b:
        b.import_jsonl(dump.getvalue().splitlines())
        assert len(list(b.store.iter_audit())) == 2


def test_a_non_empty_target_needs_merge_which_updates_by_id(tmp_path, clock):
    a, b = str(tmp_path / "a.db"), str(tmp_path / "b.db")
    populate(a, clock)
    migrate(a, b)
    with pytest.raises(ValidationError, match="merge"):
        migrate(a, b)
    report = migrate(a, b, merge=True)
    assert not report.bulk and export(a, clock) == export(b, clock)
    with pytest.raises(ValidationError, match="differ"):
        migrate(a, a, merge=True)


@pytest.mark.neo4j
def test_a_wiped_neo4j_tenant_takes_a_migration_again_and_its_neighbours_keep_theirs(
    neo4j_server, tmp_path, clock
):
    """`migrate` fills only an empty target unless told to `--merge`: wiping a Neo4j tenant
    first is how what it holds is replaced, and a tenant beside it on the server is kept."""
    origin = str(tmp_path / "origin.db")
    populate(origin, clock)
    wiped, kept = (f"{neo4j_server.uri}?tenant={n}-{secrets.token_hex(6)}" for n in "ab")
    migrate(origin, wiped)
    migrate(origin, kept)
    with pytest.raises(ValidationError, match="merge"):
        migrate(origin, wiped)
    with open_memory(wiped, clock=clock) as m:
        m.store.wipe()
    assert migrate(origin, wiped).bulk
    assert export(wiped, clock) == export(kept, clock) == export(origin, clock)


def test_a_source_file_that_is_not_there_is_refused_and_not_created(tmp_path):
    typo, target = tmp_path / "tema.db", tmp_path / "b.db"
    with pytest.raises(ValidationError, match="source: does not exist"):
        migrate(str(typo), str(target))
    with pytest.raises(ValidationError, match="source: does not exist"):
        migrate(f"kuzu:///{tmp_path / 'gone.kz'}", str(target))
    assert list(tmp_path.iterdir()) == []


def test_the_cli_migrates_with_a_report(tmp_path, clock, capsys):
    a, b = str(tmp_path / "a.db"), str(tmp_path / "b.db")
    populate(a, clock)
    assert main(["migrate", a, f"sqlite:///{b}", "--json"]) == 0
    report = json.loads(capsys.readouterr().out)
    assert report["nodes"] > 15 and report["target"].endswith("b.db")
    assert main(["migrate", a, b]) == 2
    assert "merge" in capsys.readouterr().err

"""A folder of Markdown notes, ingested into a real memory, answers why: its causal claims are
episodes a trace reaches, named by the file and section they were read in."""

from __future__ import annotations

import io
import os
from pathlib import Path

import pytest

from ebbtide import Memory
from ebbtide.errors import NotFound, ValidationError
from ebbtide.ingest import ingest_markdown_folder

POSTMORTEM = """\
# Postmortem: checkout outage

On Saturday the checkout service was down for two hours.

## Root cause

The nightly backup job filled the disk on the database host. That caused the write latency
spike, which led to the checkout outage.

## What we did

- We rolled back the backup schedule.
- A disk usage alert would have prevented the outage.
"""

MIGRATION = """\
---
author: Ana
---
# Queue migration

We moved the job queue to SQS because the Redis queue dropped jobs under load.
"""


def notes(root: Path) -> Path:
    for name, text in (("checkout-outage.md", POSTMORTEM), ("queue-migration.md", MIGRATION)):
        (root / name).write_text(text, encoding="utf-8")
        os.utime(root / name, (1.77e9, 1.77e9))
    return root


def steps(chain) -> list[tuple[str, str, str]]:
    return [(s.decision, s.relation, s.outcome) for s in chain.steps]


def test_a_postmortem_traces_the_outage_to_its_root_cause(memory: Memory, tmp_path):
    summary = ingest_markdown_folder(memory, notes(tmp_path))
    assert summary.causal_links >= 4
    best = memory.trace_cause_chain("the checkout outage").chains[0]
    assert steps(best) == [
        ("The nightly backup job filled the disk on the database host.", "caused",
         "The write latency spike"),
        ("The write latency spike", "caused", "The checkout outage."),
    ]  # fmt: skip
    root = memory.get(best.steps[0].decision_id)
    assert root.sources == ["checkout-outage.md#root-cause"]
    assert root.created_at.timestamp() == pytest.approx(1.77e9)


def test_what_a_later_section_says_would_have_prevented_the_outage_is_that_outage(
    memory: Memory, tmp_path
):
    ingest_markdown_folder(memory, notes(tmp_path))
    answer = memory.intervention_query("add a disk usage alert")
    assert answer.verdict == "SAFE"
    assert [(c.path[-1].relation, c.node.text) for c in answer.consequences] == [
        ("prevented", "The checkout outage.")
    ]


def test_the_notes_author_is_who_we_is(memory: Memory, tmp_path):
    ingest_markdown_folder(memory, notes(tmp_path))
    (cause,) = memory.trace_cause("moved the job queue to SQS").causes
    assert cause.lesson.decision == "The Redis queue dropped jobs under load."
    assert cause.lesson.outcome == "Ana and others moved the job queue to SQS"


def test_ingesting_the_notes_again_stores_nothing_twice_and_is_no_new_evidence(
    memory: Memory, tmp_path
):
    folder = notes(tmp_path)
    ingest_markdown_folder(memory, folder)
    before = {n.id: (n.text, n.q_value) for n in memory.store.find_nodes(limit=1000)}
    edges = {e.id: e.reinforce_count for e in memory.store.iter_edges()}
    ingest_markdown_folder(memory, folder)
    after = {n.id: (n.text, n.q_value) for n in memory.store.find_nodes(limit=1000)}
    assert after == before
    assert {e.id: e.reinforce_count for e in memory.store.iter_edges()} == edges


def test_a_note_that_claims_no_cause_adds_only_its_document(memory: Memory, tmp_path):
    (tmp_path / "plain.md").write_text("# Standup\n\nAna is on call this week. Ben is away.\n")
    summary = ingest_markdown_folder(memory, tmp_path)
    assert (summary.nodes, summary.causal_links) == (1, 0)
    assert [n.kind for n in memory.store.find_nodes(limit=100)] == ["document"]


def test_incidents_with_the_same_subheadings_keep_their_own_causes(memory: Memory, tmp_path):
    incident = "## Incident {n}\n\n### Root cause\n\n{cause}\n\n### Impact\n\n{effect}\n"
    (tmp_path / "log.md").write_text(
        "# Incident log\n\n"
        + incident.format(n=1, cause="The cron job filled the disk.",
                          effect="That caused the checkout outage.")
        + incident.format(n=2, cause="A bad DNS change broke name resolution.",
                          effect="That caused the search outage.")
    )  # fmt: skip
    ingest_markdown_folder(memory, tmp_path)
    (search,) = memory.trace_cause("the search outage").causes
    assert search.lesson.decision == "A bad DNS change broke name resolution."
    assert memory.get(search.lesson.decision_id).sources == ["log.md#root-cause-1"]
    (checkout,) = memory.trace_cause("the checkout outage").causes
    assert checkout.lesson.decision == "The cron job filled the disk."


def test_an_odd_file_is_read_as_far_as_it_can_be_and_the_rest_of_the_folder_too(
    memory: Memory, tmp_path
):
    (tmp_path / "a.md").write_text(
        "---\nauthor: " + "A very long author line naming a whole team " * 3 + "\n---\n"
        "# " + "Heading " * 100 + "\n\nWe skipped the canary, which caused the outage.\n"
        "\n## Log\n\n" + "Line of a long log without any claim.\n" * 4000
    )
    (tmp_path / "b.md").write_text("The late release caused the rushed deploy.\n")
    summary = ingest_markdown_folder(memory, tmp_path)
    assert summary.files == 2 and summary.causal_links == 2
    (cause,) = memory.trace_cause("the outage").causes
    assert cause.lesson.decision == "We skipped the canary"  # no author: "we" as written
    assert memory.trace_cause("the rushed deploy").causes


def test_a_note_edited_and_ingested_again_says_what_it_says_now(memory: Memory, tmp_path):
    folder = notes(tmp_path)
    ingest_markdown_folder(memory, folder)
    page = folder / "checkout-outage.md"
    page.write_text(page.read_text().replace("The nightly backup job", "The log shipper"))
    ingest_markdown_folder(memory, folder)
    (chain, *_) = memory.trace_cause_chain("the checkout outage").chains
    assert chain.steps[0].decision == "The log shipper filled the disk on the database host."
    retired = [
        e for e in memory.store.iter_edges()
        if e.valid_to is not None and e.relation == "caused"
    ]  # fmt: skip
    assert [memory.get(e.src).text for e in retired] == [
        "The nightly backup job filled the disk on the database host."
    ]
    assert "no longer said in" in (retired[0].context or "")


def test_notes_give_outcomes_their_polarity_and_move_no_decisions_record(memory: Memory, tmp_path):
    (tmp_path / "sync.md").write_text(
        "The build cache was cold, which caused slow deploys this week.\n"
    )
    os.utime(tmp_path / "sync.md", (1.77e9, 1.77e9))
    ingest_markdown_folder(memory, tmp_path)
    (tmp_path / "sync.md").write_text((tmp_path / "sync.md").read_text() + "\nThanks all.\n")
    os.utime(tmp_path / "sync.md", (1.78e9, 1.78e9))  # 'this week' is another week now
    ingest_markdown_folder(memory, tmp_path)
    (tmp_path / "other.md").write_text("The build cache was cold, which caused slow deploys.\n")
    ingest_markdown_folder(memory, tmp_path)
    cold = [n for n in memory.store.find_nodes(limit=100) if n.text.startswith("The build cache")]
    assert [(n.q_value or 0.0) for n in cold] == [0.0] * len(cold)
    slow = [n for n in memory.store.find_nodes(kind="outcome", limit=100)]
    assert slow and all((n.polarity or 0) < 0 for n in slow)
    valid = [e for e in memory.store.iter_edges() if e.relation == "caused" and e.valid_to is None]
    assert len(valid) == 2  # this week's, and other.md's
    assert {s for e in valid for s in memory.get(e.src).sources} == {"sync.md", "other.md"}


def test_a_note_that_tells_one_outcome_twice_keeps_one_chain(memory: Memory, tmp_path):
    (tmp_path / "db.md").write_text(
        "# DB failover\n\n## Summary\n\nThe failover caused a 12-minute outage of the API.\n\n"
        "## Timeline\n\n- 03:00 paged\n- 03:10 replica promoted\n- 03:22 recovered\n\n"
        "## Root cause\n\nThe analytics job fell back to the primary. That caused the failover.\n"
    )
    ingest_markdown_folder(memory, tmp_path)
    (chain, *_) = memory.trace_cause_chain("outage of the API").chains
    assert [s.decision for s in chain.steps] == [
        "The analytics job fell back to the primary.", "The failover"
    ]  # fmt: skip


def test_what_a_person_ended_stays_ended_when_the_note_is_read_again(memory: Memory, tmp_path):
    folder = notes(tmp_path)
    ingest_markdown_folder(memory, folder)
    (cause,) = memory.trace_cause("moved the job queue to SQS").causes
    memory.invalidate_decision(cause.lesson.edge_id, "disproved by on-call")
    before = len(list(memory.store.iter_nodes()))
    ingest_markdown_folder(memory, folder)
    assert memory.trace_cause("moved the job queue to SQS").causes == []
    assert len(list(memory.store.iter_nodes())) == before
    edge = memory.store.get_edges([cause.lesson.edge_id])[cause.lesson.edge_id]
    assert edge.valid_to is not None and "disproved by on-call" in (edge.context or "")


def test_a_note_emptied_retracts_its_claims_and_brings_them_back_when_restored(
    memory: Memory, tmp_path
):
    folder = notes(tmp_path)
    ingest_markdown_folder(memory, folder)
    page = folder / "queue-migration.md"
    text = page.read_text()
    page.write_text("# Queue migration\n\nNothing to say.\n")
    ingest_markdown_folder(memory, folder)
    assert memory.trace_cause("moved the job queue to SQS").causes == []
    found = memory.recall("Redis queue dropped jobs", k=10).hits
    assert not [h for h in found if h.node.text.startswith("The Redis queue")]
    page.write_text(text)
    ingest_markdown_folder(memory, folder)
    (cause,) = memory.trace_cause("moved the job queue to SQS").causes
    edge = memory.store.get_edges([cause.lesson.edge_id])[cause.lesson.edge_id]
    assert "no longer said" not in (edge.context or "")
    redis = [n for n in memory.store.iter_nodes() if n.text.startswith("The Redis queue")]
    assert [n.valid_to for n in redis] == [None]


def test_markdown_that_is_not_prose_makes_no_claim_and_hides_none(memory: Memory, tmp_path):
    (tmp_path / "n.md").write_text(
        "# Notes\n\n<!--\n## Old draft\nThe DNS change caused the outage.\n-->\n\n"
        "```\n~~~\n# not a heading\n```\n\nThe cron job caused the checkout outage.\n\n"
        "~~The proxy caused the checkout outage.~~ Wrong.[^1]\n\n[^1]: Checked twice.\n"
    )
    (tmp_path / "dir.md").mkdir()
    summary = ingest_markdown_folder(memory, tmp_path)
    assert summary.files == 1
    causes = memory.trace_cause("the checkout outage").causes
    assert [c.lesson.decision for c in causes] == ["The cron job"]
    assert memory.get(causes[0].lesson.decision_id).sources == ["n.md"]


def test_after_a_person_ends_a_lesson_the_corrected_note_links_the_outage_again(
    memory: Memory, tmp_path
):
    (tmp_path / "pm.md").write_text(
        "The nightly backup job filled the disk. That caused the checkout outage.\n"
    )
    ingest_markdown_folder(memory, tmp_path)
    (wrong,) = memory.trace_cause("the checkout outage").causes
    memory.invalidate_decision(wrong.lesson.edge_id, "wrong, it was the cron job")
    (tmp_path / "pm.md").write_text(
        "The cron job filled the disk. That caused the checkout outage.\n"
    )
    (tmp_path / "pm2.md").write_text("A bad cart deploy caused the checkout outage.\n")
    ingest_markdown_folder(memory, tmp_path)
    causes = {c.lesson.decision for c in memory.trace_cause("the checkout outage").causes}
    assert causes == {"The cron job filled the disk.", "A bad cart deploy"}
    backup = [n for n in memory.store.iter_nodes() if n.text.startswith("The nightly backup")]
    assert [n.valid_to is not None for n in backup] == [True]
    assert not [
        h for h in memory.recall("nightly backup job", k=10).hits if h.node.id == backup[0].id
    ]


def test_two_causes_told_alike_in_one_note_stay_two(memory: Memory, tmp_path):
    (tmp_path / "week.md").write_text(
        "# Week\n\n## Monday\n\nThe nightly backup job filled the disk. That caused the write"
        " latency spike.\n\n## Friday\n\nThe cron job filled the disk. That caused the checkout"
        " outage.\n"
    )
    ingest_markdown_folder(memory, tmp_path)
    (cause,) = memory.trace_cause("the checkout outage").causes
    assert cause.lesson.decision == "The cron job filled the disk."


def test_a_link_the_note_no_longer_makes_ends_though_a_transcript_shares_its_outcome(
    memory: Memory, tmp_path
):
    memory.remember(
        messages="Ana: The checkout outage led to a wave of refunds.", date="2026-11-02"
    )
    (tmp_path / "a.md").write_text("The backup job caused the checkout outage.\n")
    os.utime(tmp_path / "a.md", (1.76e9, 1.76e9))  # before the memory's clock (2026-03-02)
    ingest_markdown_folder(memory, tmp_path)
    (tmp_path / "a.md").write_text("A bad config push caused the checkout outage.\n")
    os.utime(tmp_path / "a.md", (1.6e9, 1.6e9))  # an old copy put back: its date is the past
    ingest_markdown_folder(memory, tmp_path)
    causes = memory.trace_cause("the checkout outage").causes
    assert [c.lesson.decision for c in causes] == ["A bad config push"]
    (ended,) = [
        e for e in memory.store.iter_edges() if e.valid_to is not None and e.relation == "caused"
    ]
    assert ended.valid_to >= ended.valid_from


def test_a_link_two_notes_make_ends_only_when_neither_says_it(memory: Memory, tmp_path):
    for name in ("a.md", "b.md"):
        (tmp_path / name).write_text("The backup job caused the checkout outage.\n")
    ingest_markdown_folder(memory, tmp_path)
    (tmp_path / "a.md").write_text("Nothing here now.\n")
    ingest_markdown_folder(memory, tmp_path)
    (cause,) = memory.trace_cause("the checkout outage").causes
    edge = memory.store.get_edges([cause.lesson.edge_id])[cause.lesson.edge_id]
    assert edge.context == f"said in {tmp_path.resolve().as_posix()}/b.md"
    (tmp_path / "b.md").write_text("Nothing here either.\n")
    ingest_markdown_folder(memory, tmp_path)
    assert memory.trace_cause("the checkout outage").causes == []


def test_a_timeline_reads_as_a_chain_and_action_items_reach_back_to_its_outage(
    memory: Memory, tmp_path
):
    (tmp_path / "pm.md").write_text(
        "# Postmortem\n\n## Timeline\n\n- 02:30 Paged.\n"
        "- 02:41 The full disk caused a write latency spike.\n"
        "- 03:10 The write latency spike led to the checkout outage.\n- 03:40 Recovered.\n\n"
        "## Follow-up\n\nWe met on Monday.\n\nWe wrote the report.\n\n"
        "## Action items\n\n- A disk usage alert would have prevented the outage.\n"
    )
    ingest_markdown_folder(memory, tmp_path)
    (chain, *_) = memory.trace_cause_chain("the checkout outage").chains
    assert [s.decision for s in chain.steps] == ["The full disk", "A write latency spike."]
    answer = memory.intervention_query("add a disk usage alert")
    assert [c.node.text for c in answer.consequences] == ["The checkout outage."]


def test_reading_a_note_again_leaves_a_link_it_never_made(memory: Memory, tmp_path):
    memory.remember_causes([("chat", "The backup job caused the outage.")])
    (tmp_path / "a.md").write_text("The backup job caused the disk alert.\n")
    ingest_markdown_folder(memory, tmp_path)
    ingest_markdown_folder(memory, tmp_path)
    assert [c.lesson.decision for c in memory.trace_cause("the outage").causes] == [
        "The backup job"
    ]


def test_remember_causes_names_a_bad_field_and_stores_nothing(memory: Memory):
    claim = "The deploy caused the outage."
    for kwargs, field in (
        ({"parts": []}, "parts"),
        ({"parts": {"a.md": claim}}, "parts"),
        ({"parts": "a.md"}, "parts"),
        ({"parts": [("a.md",)]}, "parts[0]"),
        ({"parts": [(" ", claim)]}, "parts[0].where"),
        ({"parts": [("a.md", claim), ("b.md", "")]}, "parts[1].text"),
        ({"parts": [("a.md", claim)], "author": ""}, "author"),
        ({"parts": [("a.md", claim)], "about": "nope"}, "about"),
        ({"parts": [("a.md", claim)], "at": "not a time"}, "at"),
        ({"parts": [("a.md", claim)], "at": True}, "at"),
        ({"parts": [("a.md", claim)], "at": 1e20}, "at"),
    ):
        with pytest.raises((ValidationError, NotFound)) as err:
            memory.remember_causes(**kwargs)
        assert err.value.field == field
    assert memory.store.find_nodes(limit=10) == []


def test_a_claim_read_from_a_note_names_its_part(memory: Memory):
    found = memory.remember_causes(
        [
            ("ops.md#deploys", "We skipped the canary."),
            ("ops.md#incidents", "That caused the outage."),
        ]
    )
    kinds = {n.text: (n.kind, n.sources, n.provenance) for n in found.nodes}
    assert kinds == {
        "We skipped the canary.": ("decision", ["ops.md#deploys"], "note"),
        "The outage.": ("outcome", ["ops.md#incidents"], "note"),
    }
    (edge,) = found.edges
    assert edge.relation == "caused"


def test_a_claim_is_never_about_itself(memory: Memory):
    first = memory.remember_causes([("a.md", "The deploy caused the outage.")])
    node = first.nodes[0]
    memory.remember_causes([("a.md", "The deploy caused the outage.")], about=node.id)
    assert memory.store.get_edge(node.id, node.id, "about") is None


def test_two_folders_with_a_file_of_one_name_keep_both(memory: Memory, tmp_path):
    for name, port in (("alpha", 8080), ("beta", 9090)):
        (tmp_path / name).mkdir()
        (tmp_path / name / "README.md").write_text(f"# {name}\n\nIt listens on port {port}.\n")
        ingest_markdown_folder(memory, tmp_path / name)
    texts = {h.node.text for h in memory.recall("which port does it listen on", k=5).hits}
    assert {"alpha\n\nIt listens on port 8080.", "beta\n\nIt listens on port 9090."} <= texts


def test_a_file_deleted_from_the_folder_is_put_to_a_person_and_its_claims_retracted(
    memory: Memory, tmp_path
):
    folder = notes(tmp_path)
    ingest_markdown_folder(memory, folder)
    text = (folder / "queue-migration.md").read_text()
    (folder / "queue-migration.md").unlink()
    summary = ingest_markdown_folder(memory, folder)
    assert summary.gone == 1
    assert memory.trace_cause("moved the job queue to SQS").causes == []
    (item,) = memory.review_queue().items
    assert item.node.attributes["path"] == "queue-migration.md"
    assert item.reason == f"queue-migration.md is no longer in {folder.resolve()}"
    assert item.requested_by == "ingest"
    assert not [h for h in memory.recall("queue migration", k=10).hits if h.node.id == item.node.id]
    assert memory.trace_cause_chain("the checkout outage").chains  # the other file says it still

    assert ingest_markdown_folder(memory, folder).gone == 0  # asked once
    (folder / "queue-migration.md").write_text(text)
    ingest_markdown_folder(memory, folder)
    assert memory.review_queue().items == []
    assert memory.get(item.node.id).status == "active"
    assert len(memory.trace_cause("moved the job queue to SQS").causes) == 1


def test_a_deleted_file_a_person_kept_is_not_put_to_them_again(memory: Memory, tmp_path):
    folder = notes(tmp_path)
    ingest_markdown_folder(memory, folder)
    (folder / "queue-migration.md").unlink()
    ingest_markdown_folder(memory, folder)
    (item,) = memory.review_queue().items
    memory.reject(item.node.id)
    assert ingest_markdown_folder(memory, folder).gone == 0
    assert memory.review_queue().items == []
    assert memory.get(item.node.id).status == "active"


def test_a_section_gone_from_a_long_file_is_put_to_a_person(memory: Memory, tmp_path):
    long = "# Runbook\n\n" + "".join(
        f"## Step {i}\n\n" + f"Restart worker pool {i} and watch the queue depth. " * 12 + "\n\n"
        for i in range(1, 6)
    )
    (tmp_path / "runbook.md").write_text(long)
    ingest_markdown_folder(memory, tmp_path)
    (tmp_path / "runbook.md").write_text(long.split("## Step 5")[0])
    summary = ingest_markdown_folder(memory, tmp_path)
    assert summary.gone == 1
    (item,) = memory.review_queue().items
    assert item.reason == "section 'Step 5' (runbook.md#step-5) is no longer in runbook.md"


def test_ingesting_one_folder_leaves_another_folders_notes_alone(memory: Memory, tmp_path):
    (tmp_path / "a").mkdir()
    (tmp_path / "b").mkdir()
    notes(tmp_path / "a")
    ingest_markdown_folder(memory, tmp_path / "a")
    assert ingest_markdown_folder(memory, tmp_path / "b").gone == 0
    assert memory.review_queue().items == []
    assert memory.trace_cause("moved the job queue to SQS").causes


def test_a_file_ingested_before_folders_were_told_apart_keeps_its_node(memory: Memory, tmp_path):
    import hashlib

    legacy = "md-" + hashlib.sha1(b"queue-migration.md").hexdigest()[:16]
    memory.remember(  # as an earlier version stored it
        "Queue migration\n\nWe moved the job queue to SQS because the Redis queue dropped jobs.",
        "document", node_id=legacy,
        attributes={"path": "queue-migration.md", "title": "Queue migration"},
        sources=["queue-migration.md"], provenance="ingest",
    )  # fmt: skip
    ingest_markdown_folder(memory, notes(tmp_path))
    assert ingest_markdown_folder(memory, tmp_path).gone == 0
    docs = memory.find(kind="document", attribute=("path", "queue-migration.md"))
    assert [d.id for d in docs] == [legacy]
    assert docs[0].attributes["folder"] == str(tmp_path.resolve())


def test_a_note_used_since_it_was_ingested_stays_as_fresh_when_ingested_again(
    memory: Memory, clock, tmp_path
):
    folder = notes(tmp_path)  # the files are dated before the memory's clock
    ingest_markdown_folder(memory, folder)
    (used,) = memory.find(kind="document", attribute=("path", "queue-migration.md"))
    memory.reinforce(used.id)
    assert memory.get(used.id).last_read_at == clock()
    ingest_markdown_folder(memory, folder)
    assert memory.get(used.id).last_read_at == clock()


def test_a_claim_two_folders_readmes_make_stays_while_one_still_makes_it(memory: Memory, tmp_path):
    for name in ("a", "b"):
        (tmp_path / name).mkdir()
        (tmp_path / name / "README.md").write_text("Kafka caused the checkout outage.\n")
        ingest_markdown_folder(memory, tmp_path / name)
    (tmp_path / "a" / "README.md").write_text("Nothing to say.\n")
    ingest_markdown_folder(memory, tmp_path / "a")
    (cause,) = memory.trace_cause("the checkout outage").causes
    assert cause.lesson.decision == "Kafka"


def test_a_moved_folder_keeps_its_notes(memory: Memory, tmp_path):
    (tmp_path / "notes").mkdir()
    ingest_markdown_folder(memory, notes(tmp_path / "notes"))
    before = {d.id for d in memory.find(kind="document")}
    (tmp_path / "notes").rename(tmp_path / "moved")
    summary = ingest_markdown_folder(memory, tmp_path / "moved")
    again = ingest_markdown_folder(memory, tmp_path / "moved")
    docs = memory.find(kind="document")
    assert {d.id for d in docs} == before and summary.gone == again.gone == 0
    assert {d.attributes["folder"] for d in docs} == {(tmp_path / "moved").resolve().as_posix()}


def test_a_folder_ingested_then_its_parent_holds_each_file_once(memory: Memory, tmp_path):
    (tmp_path / "sub").mkdir()
    notes(tmp_path / "sub")
    ingest_markdown_folder(memory, tmp_path / "sub")
    ingest_markdown_folder(memory, tmp_path)
    assert len(memory.find(kind="document")) == 2


def test_another_folders_readme_does_not_take_over_a_note_stored_before(memory: Memory, tmp_path):
    import hashlib

    legacy = "md-" + hashlib.sha1(b"README.md").hexdigest()[:16]
    memory.remember(  # folder A's README, as an earlier version stored it
        "Alpha\n\nAlpha listens on port 8080.", "document", node_id=legacy,
        attributes={"path": "README.md", "title": "Alpha"}, sources=["README.md"],
        provenance="ingest",
    )  # fmt: skip
    (tmp_path / "README.md").write_text("# Beta\n\nBeta listens on port 9090.\n")
    ingest_markdown_folder(memory, tmp_path)
    assert memory.get(legacy).text == "Alpha\n\nAlpha listens on port 8080."
    assert len(memory.find(kind="document")) == 2


def test_a_pinned_note_whose_file_is_gone_keeps_its_claims_a_kept_one_is_not_asked_again(
    memory: Memory, tmp_path
):
    folder = notes(tmp_path)
    ingest_markdown_folder(memory, folder)
    (pm,) = memory.find(kind="document", attribute=("path", "checkout-outage.md"))
    memory.pin(pm.id)
    (folder / "checkout-outage.md").unlink()
    (folder / "queue-migration.md").unlink()
    (folder / "other.md").write_text("Still here.\n")
    ingest_markdown_folder(memory, folder)
    (item,) = memory.review_queue().items  # the pinned postmortem is not put to anyone
    assert memory.trace_cause_chain("the checkout outage").chains
    memory.reject(item.node.id)  # the other is kept: it is not put to them again
    assert ingest_markdown_folder(memory, folder).gone == 0
    assert memory.review_queue().items == []


def test_a_section_removed_from_the_top_is_the_one_put_to_a_person(memory: Memory, tmp_path):
    body = "".join(
        f"## {name}\n\n" + f"The {name.lower()} step restarts worker pool {i}. " * 30 + "\n\n"
        for i, name in enumerate(("Intro", "Install", "Appendix"))
    )
    (tmp_path / "guide.md").write_text(f"# Guide\n\n{body}")
    ingest_markdown_folder(memory, tmp_path)
    (tmp_path / "guide.md").write_text("# Guide\n\n" + body[body.index("## Install") :])
    ingest_markdown_folder(memory, tmp_path)
    (item,) = memory.review_queue().items
    assert item.reason == "section 'Intro' (guide.md#intro) is no longer in guide.md"
    shown = [n.attributes["heading"] for n in memory.find(kind="note") if n.status == "active"]
    assert sorted(shown) == ["Appendix", "Install"]
    (tmp_path / "guide.md").write_text("# Guide\n\nAll in one short page now.\n")
    ingest_markdown_folder(memory, tmp_path)
    reasons = {i.reason for i in memory.review_queue().items}
    assert "guide.md is short enough now to be stored whole, not by section" in reasons


def test_an_empty_folder_is_not_taken_as_every_file_deleted(memory: Memory, tmp_path):
    folder = notes(tmp_path)
    ingest_markdown_folder(memory, folder)
    for f in folder.glob("*.md"):
        f.rename(f.with_suffix(".bak"))
    summary = ingest_markdown_folder(memory, folder)
    assert summary.gone == 0 and "nothing stored before is marked gone" in (summary.warning or "")
    assert memory.review_queue().items == []


def test_sections_an_earlier_version_numbered_are_put_to_a_person_once(memory: Memory, tmp_path):
    import hashlib

    stem = "md-" + hashlib.sha1(b"guide.md").hexdigest()[:16]
    body = "".join(
        f"## {name}\n\n" + f"The {name.lower()} step restarts worker pool {i}. " * 30 + "\n\n"
        for i, name in enumerate(("Intro", "Install", "Appendix"))
    )
    (tmp_path / "guide.md").write_text(f"# Guide\n\n{body}")
    memory.remember(  # as an earlier version stored the file and its first section
        "Guide\n\nSections: Intro; Install; Appendix", "document", node_id=stem,
        attributes={"path": "guide.md", "title": "Guide"}, sources=["guide.md"],
        provenance="ingest",
    )  # fmt: skip
    memory.remember(
        "Guide › Intro\n\n" + body.split("## Install")[0], "note", node_id=f"{stem}-s1",
        attributes={"path": "guide.md", "title": "Guide", "heading": "Intro"},
        provenance="ingest",
    )  # fmt: skip
    assert ingest_markdown_folder(memory, tmp_path).gone == 1
    (item,) = memory.review_queue().items
    assert item.node.id == f"{stem}-s1"
    assert ingest_markdown_folder(memory, tmp_path).gone == 0


def test_a_claim_a_moved_note_no_longer_makes_ends(memory: Memory, tmp_path):
    (tmp_path / "notes").mkdir()
    ingest_markdown_folder(memory, notes(tmp_path / "notes"))
    (tmp_path / "notes").rename(tmp_path / "moved")
    ingest_markdown_folder(memory, tmp_path / "moved")
    (cause,) = memory.trace_cause("moved the job queue to SQS").causes
    edge = memory.store.get_edges([cause.lesson.edge_id])[cause.lesson.edge_id]
    assert edge.context == f"said in {(tmp_path / 'moved').resolve().as_posix()}/queue-migration.md"
    (tmp_path / "moved" / "queue-migration.md").write_text(
        "# Queue migration\n\nThe queue lives in SQS now.\n"
    )
    ingest_markdown_folder(memory, tmp_path / "moved")
    assert memory.trace_cause("moved the job queue to SQS").causes == []


_STEPS = [
    "Drain worker pool {} and watch the queue depth closely before anything else.",
    "Page the database on-call if replication lag on replica {} passes thirty seconds.",
    "Rotate the TLS certificates of gateway {} and confirm browsers accept them.",
    "Restore last night's snapshot {} into staging and compare row counts by table.",
    "Announce maintenance window {} in the status channel an hour ahead of time.",
]
LONG = "# Runbook\n\nHow we run the queue.\n\n" + "".join(
    f"## Step {i}\n\n"
    + " ".join(s.format(i) for s in _STEPS[i - 1 :] + _STEPS[: i - 1]) * 3
    + "\n\n"
    for i in range(1, 6)
)


def test_a_long_note_keeps_its_nodes_when_its_folder_moves(memory: Memory, tmp_path):
    (tmp_path / "old").mkdir()
    (tmp_path / "old" / "runbook.md").write_text(LONG)
    ingest_markdown_folder(memory, tmp_path / "old")
    before = {n.id for n in memory.find(kind="note")} | {d.id for d in memory.find(kind="document")}
    (tmp_path / "old").rename(tmp_path / "new")
    assert ingest_markdown_folder(memory, tmp_path / "new").gone == 0
    after = {n.id for n in memory.find(kind="note")} | {d.id for d in memory.find(kind="document")}
    assert after == before and len(before) == 6


def test_a_new_file_where_a_moved_one_was_is_a_new_note(memory: Memory, tmp_path):
    (tmp_path / "x").mkdir()
    (tmp_path / "x" / "a.md").write_text("# Plan\n\nShip the queue migration in May.\n")
    ingest_markdown_folder(memory, tmp_path / "x")
    (tmp_path / "x").rename(tmp_path / "y")
    ingest_markdown_folder(memory, tmp_path / "y")
    (plan,) = memory.find(kind="document")
    (tmp_path / "x").mkdir()
    (tmp_path / "x" / "a.md").write_text("# Shopping\n\nMilk, eggs and bread.\n")
    ingest_markdown_folder(memory, tmp_path / "x")
    ingest_markdown_folder(memory, tmp_path / "y")
    assert memory.get(plan.id).text == "Plan\n\nShip the queue migration in May."
    assert len(memory.find(kind="document")) == 2
    assert memory.review_queue().items == []


def test_a_file_deleted_while_its_folder_moved_is_put_to_a_person(memory: Memory, tmp_path):
    (tmp_path / "old").mkdir()
    ingest_markdown_folder(memory, notes(tmp_path / "old"))
    (tmp_path / "old").rename(tmp_path / "new")
    (tmp_path / "new" / "queue-migration.md").unlink()
    assert ingest_markdown_folder(memory, tmp_path / "new").gone == 1
    (item,) = memory.review_queue().items
    old, new = ((tmp_path / d).resolve().as_posix() for d in ("old", "new"))
    assert item.reason == f"queue-migration.md was not in {old} when it moved to {new}"
    assert memory.trace_cause("moved the job queue to SQS").causes == []


def test_a_subfolder_and_its_parent_share_their_notes_and_see_deletions(memory: Memory, tmp_path):
    (tmp_path / "sub").mkdir()
    (tmp_path / "sub" / "pm.md").write_text("# PM\n\nThe backup job caused the disk alert.\n")
    ingest_markdown_folder(memory, tmp_path / "sub")
    ingest_markdown_folder(memory, tmp_path)
    ingest_markdown_folder(memory, tmp_path / "sub")
    (cause,) = memory.trace_cause("the disk alert").causes
    edge = memory.store.get_edges([cause.lesson.edge_id])[cause.lesson.edge_id]
    assert edge.context == f"said in {tmp_path.resolve().as_posix()}/sub/pm.md"
    (tmp_path / "sub" / "pm.md").unlink()
    (tmp_path / "other.md").write_text("# Other\n\nStill here.\n")
    assert ingest_markdown_folder(memory, tmp_path).gone == 1
    assert memory.trace_cause("the disk alert").causes == []


def test_the_sections_of_a_pinned_note_whose_file_is_gone_stay_too(memory: Memory, tmp_path):
    (tmp_path / "runbook.md").write_text(LONG)
    (tmp_path / "other.md").write_text("# Other\n\nStill here.\n")
    ingest_markdown_folder(memory, tmp_path)
    (doc,) = memory.find(kind="document", attribute=("path", "runbook.md"))
    memory.pin(doc.id)
    (tmp_path / "runbook.md").unlink()
    assert ingest_markdown_folder(memory, tmp_path).gone == 0
    assert memory.review_queue().items == []


def test_a_part_gone_from_a_long_section_is_named_as_that_part(memory: Memory, tmp_path):
    from ebbtide.ingest import SECTION_MAX

    para = "Restart the consumers and check the lag on every partition. " * 20
    log = "\n\n".join([para] * (SECTION_MAX // len(para) + 2))
    (tmp_path / "big.md").write_text(f"# Big\n\n## Log\n\n{log}\n")
    ingest_markdown_folder(memory, tmp_path)
    (tmp_path / "big.md").write_text(f"# Big\n\n## Log\n\n{para}\n\n{para}\n")
    ingest_markdown_folder(memory, tmp_path)
    (item,) = memory.review_queue().items
    assert item.reason == "part 2 of section 'Log' (big.md#log) is no longer in big.md"


DISK = "# {}\n\nThe backup job filled the disk, which caused the checkout outage.\n"


def test_a_claim_moved_from_one_file_to_another_ends_when_neither_says_it(memory: Memory, tmp_path):
    (tmp_path / "a.md").write_text(DISK.format("A"))
    ingest_markdown_folder(memory, tmp_path)
    (tmp_path / "a.md").write_text("# A\n\nNothing here now.\n")
    (tmp_path / "b.md").write_text(DISK.format("B"))
    ingest_markdown_folder(memory, tmp_path)
    assert memory.trace_cause_chain("the checkout outage").chains
    (tmp_path / "b.md").write_text("# B\n\nNothing here either.\n")
    ingest_markdown_folder(memory, tmp_path)
    assert memory.trace_cause_chain("the checkout outage").chains == []


def test_a_file_at_the_path_a_note_moved_from_keeps_its_own_claims(memory: Memory, tmp_path):
    import shutil

    (tmp_path / "A").mkdir()
    (tmp_path / "A" / "a.md").write_text(DISK.format("Outage"))
    ingest_markdown_folder(memory, tmp_path / "A")
    (tmp_path / "A").rename(tmp_path / "B")
    ingest_markdown_folder(memory, tmp_path / "B")
    shutil.copytree(tmp_path / "B", tmp_path / "A")
    ingest_markdown_folder(memory, tmp_path / "A")
    (tmp_path / "B" / "a.md").write_text("# Outage\n\nThe disk was fine in the end.\n")
    ingest_markdown_folder(memory, tmp_path / "B")
    assert memory.trace_cause_chain("the checkout outage").chains  # A/a.md still says it


@pytest.mark.parametrize("first", ["parent", "sub"])
def test_a_file_deleted_under_a_folder_ingested_both_ways_is_seen_gone(
    memory: Memory, tmp_path, first
):
    (tmp_path / "sub").mkdir()
    (tmp_path / "sub" / "x.md").write_text(DISK.format("X"))
    (tmp_path / "sub" / "y.md").write_text("# Y\n\nStays.\n")
    order = [tmp_path, tmp_path / "sub"] if first == "parent" else [tmp_path / "sub", tmp_path]
    for folder in order:
        ingest_markdown_folder(memory, folder)
    (tmp_path / "sub" / "x.md").unlink()
    gone = ingest_markdown_folder(memory, order[-1]).gone
    assert gone == 1 and memory.trace_cause_chain("the checkout outage").chains == []


def test_a_folder_that_cannot_be_found_is_left_alone_until_a_folder_above_it_is_read(
    memory: Memory, tmp_path
):
    import shutil

    (tmp_path / "A").mkdir()
    (tmp_path / "A" / "a.md").write_text(DISK.format("Outage"))
    (tmp_path / "home").mkdir()
    (tmp_path / "home" / "h.md").write_text("# Home\n\nNothing to see.\n")
    ingest_markdown_folder(memory, tmp_path / "A")
    shutil.rmtree(tmp_path / "A")  # or unmounted, or another branch checked out
    summary = ingest_markdown_folder(memory, tmp_path / "home")
    assert summary.gone == 0 and "cannot be found" in (summary.warning or "")
    assert memory.trace_cause_chain("the checkout outage").chains
    assert ingest_markdown_folder(memory, tmp_path).gone == 1  # the folder above it
    (item,) = memory.review_queue().items
    assert item.reason == f"a.md is no longer in {(tmp_path / 'A').resolve().as_posix()}"
    assert memory.trace_cause_chain("the checkout outage").chains == []


def test_what_stayed_behind_when_a_folder_moved_out_of_a_removed_parent_is_put_to_a_person(
    memory: Memory, tmp_path
):
    (tmp_path / "old" / "A").mkdir(parents=True)
    (tmp_path / "old" / "A" / "a.md").write_text("# A\n\nStays with the folder.\n")
    (tmp_path / "old" / "A" / "b.md").write_text(DISK.format("B"))
    ingest_markdown_folder(memory, tmp_path / "old" / "A")
    (tmp_path / "old" / "A" / "b.md").unlink()
    (tmp_path / "old" / "A").rename(tmp_path / "B")
    (tmp_path / "old").rmdir()
    assert ingest_markdown_folder(memory, tmp_path / "B").gone == 1
    assert memory.trace_cause_chain("the checkout outage").chains == []


def test_a_hidden_folder_ingested_alone_is_not_gone_when_the_folder_above_is_read(
    memory: Memory, tmp_path
):
    (tmp_path / ".notes").mkdir()
    (tmp_path / ".notes" / "a.md").write_text(DISK.format("A"))
    (tmp_path / "readme.md").write_text("# Project\n\nHello.\n")
    ingest_markdown_folder(memory, tmp_path / ".notes")
    for _ in range(2):
        assert ingest_markdown_folder(memory, tmp_path).gone == 0
    assert memory.trace_cause_chain("the checkout outage").chains


def test_a_folder_that_does_not_answer_is_no_reason_to_fail(memory: Memory, tmp_path, monkeypatch):
    (tmp_path / "net").mkdir()
    (tmp_path / "net" / "a.md").write_text(DISK.format("A"))
    (tmp_path / "home").mkdir()
    (tmp_path / "home" / "h.md").write_text("# Home\n\nNothing to see.\n")
    ingest_markdown_folder(memory, tmp_path / "net")
    real = Path.exists

    def stale(self, *a, **kw):
        if "net" in self.parts:
            raise OSError(107, "Transport endpoint is not connected")
        return real(self, *a, **kw)

    monkeypatch.setattr(Path, "exists", stale)
    assert ingest_markdown_folder(memory, tmp_path / "home").gone == 0
    assert memory.trace_cause_chain("the checkout outage").chains


def test_remember_causes_names_a_bad_former_name(memory: Memory):
    doc = memory.remember("Postmortem", "document", sources=["pm.md"])
    for bad in ("old.md", [""], [3]):
        with pytest.raises(ValidationError, match="formerly"):
            memory.remember_causes([], about=doc.id, formerly=bad)
    with pytest.raises(ValidationError, match="about"):
        memory.remember_causes([("pm.md", "x")], formerly=["old.md"])


def test_a_file_deleted_before_the_folder_above_its_folder_is_ingested_is_seen_gone(
    memory: Memory, tmp_path
):
    (tmp_path / "sub").mkdir()
    (tmp_path / "sub" / "x.md").write_text(DISK.format("X"))
    (tmp_path / "sub" / "y.md").write_text("# Y\n\nStays.\n")
    ingest_markdown_folder(memory, tmp_path / "sub")
    (tmp_path / "sub" / "x.md").unlink()
    assert ingest_markdown_folder(memory, tmp_path).gone == 1
    assert memory.trace_cause_chain("the checkout outage").chains == []


def test_a_link_a_conversation_told_too_stays_without_the_note_that_dropped_it(
    memory: Memory, tmp_path
):
    (tmp_path / "a.md").write_text(DISK.format("A"))
    ingest_markdown_folder(memory, tmp_path)
    memory.remember(
        messages="Ana: The backup job filled the disk, which caused the checkout outage.",
        date="2026-03-01",
    )
    (tmp_path / "a.md").write_text("# A\n\nNothing here now.\n")
    ingest_markdown_folder(memory, tmp_path)
    (chain,) = memory.trace_cause_chain("the checkout outage").chains
    edge = memory.store.get_edges([chain.steps[-1].edge_id])[chain.steps[-1].edge_id]
    assert "said in" not in (edge.context or "")


def test_a_conversation_telling_a_link_a_note_dropped_brings_it_back(memory: Memory, tmp_path):
    (tmp_path / "a.md").write_text(DISK.format("A"))
    (tmp_path / "b.md").write_text("# B\n\nThe backup job caused the latency spike.\n")
    (tmp_path / "c.md").write_text("# C\n\nA bad deploy caused the checkout outage.\n")
    ingest_markdown_folder(memory, tmp_path)
    (tmp_path / "a.md").write_text("# A\n\nNothing here now.\n")
    ingest_markdown_folder(memory, tmp_path)
    memory.remember(
        messages="Ana: The backup job filled the disk, which caused the checkout outage.",
        date="2026-03-01",
    )
    causes = {c.lesson.decision for c in memory.trace_cause("the checkout outage").causes}
    assert "The backup job filled the disk" in causes
    told = [e for e in memory.store.iter_edges() if e.provenance == "transcript"]
    assert all("said in" not in (e.context or "") for e in told)


def test_a_gone_file_an_agent_had_asked_to_forget_still_stops_saying_things(
    memory: Memory, tmp_path
):
    (tmp_path / "a.md").write_text(DISK.format("A"))
    (tmp_path / "b.md").write_text("# B\n\nStays.\n")
    ingest_markdown_folder(memory, tmp_path)
    (doc,) = memory.find(kind="document", attribute=("path", "a.md"))
    memory.forget(doc.id, "looks stale")
    (tmp_path / "a.md").unlink()
    ingest_markdown_folder(memory, tmp_path)
    assert memory.trace_cause_chain("the checkout outage").chains == []


def test_a_node_of_ones_own_that_names_a_folder_is_not_a_note_of_it(memory: Memory, tmp_path):
    (tmp_path / "a.md").write_text("# A\n\nHello.\n")
    fact = memory.remember(
        "Our notes folder is synced nightly", "fact",
        attributes={"folder": tmp_path.resolve().as_posix()},
    )  # fmt: skip
    for _ in range(2):
        assert ingest_markdown_folder(memory, tmp_path).gone == 0
    assert memory.get(fact.id).status == "active"


def test_a_hidden_folder_deleted_is_settled_when_the_folder_above_is_read(memory: Memory, tmp_path):
    import shutil

    (tmp_path / ".drafts").mkdir()
    (tmp_path / ".drafts" / "pm.md").write_text(DISK.format("PM"))
    (tmp_path / "readme.md").write_text("# Project\n\nHello.\n")
    ingest_markdown_folder(memory, tmp_path / ".drafts")
    shutil.rmtree(tmp_path / ".drafts")
    assert ingest_markdown_folder(memory, tmp_path).gone == 1
    assert memory.trace_cause_chain("the checkout outage").chains == []


def test_a_folder_replaced_by_a_link_to_where_it_moved_keeps_its_notes(memory: Memory, tmp_path):
    (tmp_path / "root" / "docs").mkdir(parents=True)
    (tmp_path / "root" / "docs" / "a.md").write_text(DISK.format("A"))
    (tmp_path / "root" / "index.md").write_text("# Index\n\nHello.\n")
    ingest_markdown_folder(memory, tmp_path / "root" / "docs")
    (tmp_path / "root" / "docs").rename(tmp_path / "data")
    (tmp_path / "root" / "docs").symlink_to(tmp_path / "data")
    assert ingest_markdown_folder(memory, tmp_path / "root").gone == 0
    assert memory.trace_cause_chain("the checkout outage").chains
    ingest_markdown_folder(memory, tmp_path / "root" / "docs")
    assert len(memory.find(kind="document", attribute=("path", "a.md"))) == 1
    (tmp_path / "data" / "a.md").write_text("# A\n\nThe disk was fine in the end.\n")
    ingest_markdown_folder(memory, tmp_path / "data")
    assert memory.trace_cause_chain("the checkout outage").chains == []


def test_one_copied_note_does_not_make_an_unmounted_folder_moved(memory: Memory, tmp_path):
    import shutil

    (tmp_path / "usb").mkdir()
    (tmp_path / "usb" / "runbook.md").write_text("# Runbook\n\nRestart the workers.\n")
    (tmp_path / "usb" / "pm.md").write_text(DISK.format("PM"))
    (tmp_path / "usb" / "old.md").write_text("# Old\n\nOld notes.\n")
    ingest_markdown_folder(memory, tmp_path / "usb")
    (tmp_path / "home").mkdir()
    shutil.copy(tmp_path / "usb" / "runbook.md", tmp_path / "home" / "runbook.md")
    (tmp_path / "usb").rename(tmp_path / "unmounted")
    summary = ingest_markdown_folder(memory, tmp_path / "home")
    assert summary.gone == 0 and "cannot be found" in (summary.warning or "")
    assert memory.trace_cause_chain("the checkout outage").chains


def _retract_one_of_three(memory: Memory, tmp_path) -> None:
    (tmp_path / "a.md").write_text(
        "# A\n\nThe backup job filled the disk, which caused the checkout outage.\n\n"
        "The backup job filled the disk, which caused the latency spike.\n\n"
        "A bad deploy caused the checkout outage.\n"
    )
    ingest_markdown_folder(memory, tmp_path)
    (tmp_path / "a.md").write_text(
        "# A\n\nThe backup job filled the disk, which caused the latency spike.\n\n"
        "A bad deploy caused the checkout outage.\n"
    )
    ingest_markdown_folder(memory, tmp_path)


def test_a_link_an_agent_connects_again_after_a_note_dropped_it_stays(memory: Memory, tmp_path):
    _retract_one_of_three(memory, tmp_path)
    (disk,) = [n for n in memory.find(kind="event") if n.text.startswith("The backup job")]
    (outage,) = [n for n in memory.find(kind="outcome") if n.text == "The checkout outage."]
    memory.connect(disk.id, outage.id, "caused", 0.8)
    (tmp_path / "a.md").write_text(
        (tmp_path / "a.md").read_text() + "\nThe rollback enabled the recovery.\n"
    )
    ingest_markdown_folder(memory, tmp_path)
    causes = {c.lesson.decision for c in memory.trace_cause("the checkout outage").causes}
    assert "The backup job filled the disk" in causes


def test_a_link_an_agent_connects_again_brings_its_ended_ends_back(memory: Memory, tmp_path):
    (tmp_path / "a.md").write_text("# A\n\nThe cron job caused the pager storm.\n")
    (tmp_path / "b.md").write_text("# B\n\nStays.\n")
    ingest_markdown_folder(memory, tmp_path)
    (cron,) = [n for n in memory.store.iter_nodes() if n.text.startswith("The cron job")]
    (storm,) = [n for n in memory.store.iter_nodes() if n.text.startswith("The pager storm")]
    (tmp_path / "a.md").write_text("# A\n\nNothing now.\n")
    ingest_markdown_folder(memory, tmp_path)
    assert memory.trace_cause("the pager storm").causes == []
    memory.connect(cron.id, storm.id, "caused", 0.8)
    assert [c.lesson.decision for c in memory.trace_cause("the pager storm").causes] == [
        "The cron job"
    ]


def test_a_file_another_folder_links_to_stays_its_own_folders(memory: Memory, tmp_path):
    (tmp_path / "a").mkdir()
    (tmp_path / "b").mkdir()
    (tmp_path / "a" / "shared.md").write_text(DISK.format("Shared"))
    (tmp_path / "b" / "shared.md").symlink_to(tmp_path / "a" / "shared.md")
    for folder in ("a", "b"):
        ingest_markdown_folder(memory, tmp_path / folder)
    (tmp_path / "b" / "shared.md").unlink()
    (tmp_path / "b" / "other.md").write_text("# Other\n\nHello.\n")
    ingest_markdown_folder(memory, tmp_path / "b")
    assert memory.trace_cause_chain("the checkout outage").chains
    folders = {d.attributes["folder"] for d in memory.find(kind="document") if d.status == "active"}
    assert (tmp_path / "a").resolve().as_posix() in folders


def test_a_subfolder_replaced_by_a_link_keeps_its_notes_and_loses_what_was_deleted(
    memory: Memory, tmp_path
):
    (tmp_path / "notes" / "docs").mkdir(parents=True)
    (tmp_path / "notes" / "docs" / "a.md").write_text(DISK.format("A"))
    (tmp_path / "notes" / "docs" / "b.md").write_text("# B\n\nThe cron job caused the storm.\n")
    (tmp_path / "notes" / "index.md").write_text("# Index\n\nHello.\n")
    ingest_markdown_folder(memory, tmp_path / "notes")
    (tmp_path / "notes" / "docs").rename(tmp_path / "data")
    (tmp_path / "notes" / "docs").symlink_to(tmp_path / "data")
    (tmp_path / "data" / "b.md").unlink()
    assert ingest_markdown_folder(memory, tmp_path / "notes").gone == 1
    assert memory.trace_cause_chain("the checkout outage").chains
    assert memory.trace_cause("the storm").causes == []


def test_notes_already_put_to_a_person_do_not_count_against_a_move(memory: Memory, tmp_path):
    (tmp_path / "usb").mkdir()
    for name in "abcdef":
        (tmp_path / "usb" / f"{name}.md").write_text(f"# {name.upper()}\n\nNote {name}.\n")
    (tmp_path / "usb" / "f.md").write_text(DISK.format("F"))
    ingest_markdown_folder(memory, tmp_path / "usb")
    for name in "cde":
        (tmp_path / "usb" / f"{name}.md").unlink()
    ingest_markdown_folder(memory, tmp_path / "usb")
    (tmp_path / "usb" / "f.md").unlink()
    (tmp_path / "usb").rename(tmp_path / "home")
    assert ingest_markdown_folder(memory, tmp_path / "home").gone == 1
    assert memory.trace_cause_chain("the checkout outage").chains == []


def test_a_missing_folder_of_notes_already_put_to_a_person_is_not_taken_as_moved(
    memory: Memory, tmp_path
):
    (tmp_path / "usb").mkdir()
    (tmp_path / "usb" / "a.md").write_text(DISK.format("A"))
    ingest_markdown_folder(memory, tmp_path / "usb")
    (doc,) = memory.find(kind="document")
    memory.forget(doc.id, "looks stale")
    (tmp_path / "usb").rename(tmp_path / "unplugged")
    (tmp_path / "other").mkdir()
    (tmp_path / "other" / "o.md").write_text("# O\n\nHello.\n")
    assert "cannot be found" in (ingest_markdown_folder(memory, tmp_path / "other").warning or "")
    assert memory.trace_cause_chain("the checkout outage").chains


def test_a_folder_moved_behind_a_link_keeps_its_notes_and_settles_a_gone_section(
    memory: Memory, tmp_path
):
    (tmp_path / "old").mkdir()
    (tmp_path / "old" / "runbook.md").write_text(LONG)
    (tmp_path / "old" / "a.md").write_text(DISK.format("A"))
    ingest_markdown_folder(memory, tmp_path / "old")
    (tmp_path / "old").rename(tmp_path / "new")
    (tmp_path / "old").symlink_to(tmp_path / "new")
    (tmp_path / "new" / "runbook.md").write_text(LONG.split("## Step 5")[0])
    (tmp_path / "new" / "a.md").write_text("# A2\n\nThe cron job caused the pager storm.\n")
    ingest_markdown_folder(memory, tmp_path / "new")
    reasons = sorted(i.reason for i in memory.review_queue().items)
    assert reasons == ["section 'Step 5' (runbook.md#step-5) is no longer in runbook.md"]
    assert memory.trace_cause_chain("the checkout outage").chains == []
    assert len(memory.find(kind="document", attribute=("path", "a.md"))) == 1  # one note


def test_an_agent_connecting_again_does_not_bring_back_what_a_person_ended(
    memory: Memory, tmp_path
):
    _retract_one_of_three(memory, tmp_path)
    (disk,) = [n for n in memory.find(kind="event") if n.text.startswith("The backup job")]
    (outage,) = [n for n in memory.find(kind="outcome") if n.text == "The checkout outage."]
    memory.store.update_node(outage.model_copy(update={"valid_to": memory.now()}))  # a person's
    memory.connect(disk.id, outage.id, "caused", 0.8)
    assert memory.get(outage.id).valid_to is not None


def test_a_retraction_brings_back_an_end_two_notes_shared_when_told_anew(memory: Memory, tmp_path):
    (tmp_path / "a.md").write_text(DISK.format("A"))
    (tmp_path / "b.md").write_text("# B\n\nA bad deploy caused the checkout outage.\n")
    ingest_markdown_folder(memory, tmp_path)
    for name in ("b", "a"):
        (tmp_path / f"{name}.md").write_text(f"# {name.upper()}\n\nNothing now.\n")
        ingest_markdown_folder(memory, tmp_path)
    disk = next(n for n in memory.store.iter_nodes() if n.text.startswith("The backup job"))
    outage = next(n for n in memory.store.iter_nodes() if n.text == "The checkout outage.")
    memory.connect(disk.id, outage.id, "caused", 0.8)
    causes = [c.lesson.decision for c in memory.trace_cause("the checkout outage").causes]
    assert causes == ["The backup job filled the disk"]


def test_an_end_a_person_ended_stays_ended_after_its_note_drops_it(memory: Memory, tmp_path):
    (tmp_path / "a.md").write_text("# A\n\nThe backup job caused the latency spike.\n")
    ingest_markdown_folder(memory, tmp_path)
    spike = next(n for n in memory.store.iter_nodes() if n.text.startswith("The latency spike"))
    disk = next(n for n in memory.store.iter_nodes() if n.text.startswith("The backup job"))
    memory.store.update_node(spike.model_copy(update={"valid_to": memory.now()}))  # a person's
    (tmp_path / "a.md").write_text("# A\n\nNothing now.\n")
    ingest_markdown_folder(memory, tmp_path)
    memory.connect(disk.id, spike.id, "caused", 0.8)
    assert memory.get(spike.id).valid_to is not None


def test_a_subfolder_moved_within_its_folder_behind_a_link_keeps_its_notes(
    memory: Memory, tmp_path
):
    (tmp_path / "docs").mkdir()
    (tmp_path / "docs" / "a.md").write_text(DISK.format("A"))
    (tmp_path / "docs" / "run.md").write_text(LONG)
    ingest_markdown_folder(memory, tmp_path)
    (tmp_path / "docs").rename(tmp_path / "real")
    (tmp_path / "docs").symlink_to(tmp_path / "real")
    assert ingest_markdown_folder(memory, tmp_path).gone == 0
    assert memory.review_queue().items == []
    assert len(memory.find(kind="document")) == 2


def test_a_link_an_agent_adds_to_a_notes_claim_outlives_the_notes_next_reading(
    memory: Memory, tmp_path
):
    (tmp_path / "a.md").write_text("# A\n\nThe backup job caused the checkout outage.\n")
    ingest_markdown_folder(memory, tmp_path)
    backup = next(n for n in memory.store.iter_nodes() if n.text.startswith("The backup job"))
    outage = memory.remember(
        "The checkout outage.", "outcome", links=[{"target": backup.id, "relation": "enabled"}]
    )
    ingest_markdown_folder(memory, tmp_path)
    assert memory.store.get_edge(outage.id, backup.id, "enabled").valid_to is None


def test_a_file_that_links_to_another_folders_file_keeps_its_note(memory: Memory, tmp_path):
    (tmp_path / "proj").mkdir()
    (tmp_path / "shared").mkdir()
    (tmp_path / "shared" / "a.md").write_text(DISK.format("A"))
    (tmp_path / "proj" / "a.md").symlink_to(tmp_path / "shared" / "a.md")
    ingest_markdown_folder(memory, tmp_path / "proj")
    (mine,) = memory.find(kind="document")
    ingest_markdown_folder(memory, tmp_path / "shared")
    ingest_markdown_folder(memory, tmp_path / "proj")
    assert memory.get(mine.id).attributes["folder"] == (tmp_path / "proj").resolve().as_posix()
    assert len(memory.find(kind="document")) == 2


def test_a_loop_of_links_where_a_note_was_fails_no_other_ingest(memory: Memory, tmp_path):
    (tmp_path / "x").mkdir()
    (tmp_path / "x" / "c.md").write_text(DISK.format("C"))
    ingest_markdown_folder(memory, tmp_path / "x")
    (tmp_path / "x" / "c.md").unlink()
    (tmp_path / "x" / "c.md").symlink_to(tmp_path / "x" / "d.md")
    (tmp_path / "x" / "d.md").symlink_to(tmp_path / "x" / "c.md")
    (tmp_path / "y").mkdir()
    (tmp_path / "y" / "n.md").write_text("# N\n\nNew.\n")
    assert ingest_markdown_folder(memory, tmp_path / "y").files == 1
    ingest_markdown_folder(memory, tmp_path / "x")


@pytest.mark.parametrize("target", ["a.md", "z.md"])
def test_a_file_renamed_with_a_link_left_at_its_old_name_keeps_its_note_there(
    memory: Memory, tmp_path, target
):
    (tmp_path / "c.md").write_text(DISK.format("C"))
    ingest_markdown_folder(memory, tmp_path)
    (note,) = memory.find(kind="document")
    (tmp_path / "c.md").rename(tmp_path / target)
    (tmp_path / "c.md").symlink_to(tmp_path / target)
    ingest_markdown_folder(memory, tmp_path)
    assert memory.get(note.id).attributes["path"] == "c.md"


def test_a_folder_moved_behind_a_link_into_the_folder_read_keeps_its_notes(
    memory: Memory, tmp_path
):
    (tmp_path / "proj").mkdir()
    (tmp_path / "proj" / "a.md").write_text(DISK.format("A"))
    ingest_markdown_folder(memory, tmp_path / "proj")
    (note,) = memory.find(kind="document")
    (tmp_path / "all").mkdir()
    (tmp_path / "proj").rename(tmp_path / "all" / "proj")
    (tmp_path / "proj").symlink_to(tmp_path / "all" / "proj")
    assert ingest_markdown_folder(memory, tmp_path / "all").gone == 0
    assert [d.id for d in memory.find(kind="document")] == [note.id]


def test_a_subfolder_moved_behind_a_link_and_read_alone_keeps_its_notes(memory: Memory, tmp_path):
    (tmp_path / "root" / "sub").mkdir(parents=True)
    (tmp_path / "root" / "sub" / "a.md").write_text(DISK.format("A"))
    (tmp_path / "root" / "i.md").write_text("# I\n\nHi.\n")
    ingest_markdown_folder(memory, tmp_path / "root")
    (tmp_path / "root" / "sub").rename(tmp_path / "root" / "sub2")
    (tmp_path / "root" / "sub").symlink_to(tmp_path / "root" / "sub2")
    ingest_markdown_folder(memory, tmp_path / "root" / "sub2")
    assert len(memory.find(kind="document", attribute=("title", "A"))) == 1


@pytest.mark.parametrize("first", ["P", "A"])
def test_when_two_old_names_lead_to_one_file_the_folders_own_note_keeps_it(
    memory: Memory, tmp_path, first
):
    import shutil

    (tmp_path / "P").mkdir()
    (tmp_path / "P" / "s.md").write_text("# P\n\nFrom P.\n")
    (tmp_path / "A" / "x").mkdir(parents=True)
    (tmp_path / "A" / "x" / "s.md").write_text("# X\n\nFrom A.\n")
    for folder in ["P", "A"] if first == "P" else ["A", "P"]:
        ingest_markdown_folder(memory, tmp_path / folder)
    own = next(d for d in memory.find(kind="document") if "/A" in d.attributes["folder"])
    shutil.rmtree(tmp_path / "P")
    (tmp_path / "A" / "x").rename(tmp_path / "A" / "y")
    (tmp_path / "A" / "x").symlink_to(tmp_path / "A" / "y")
    (tmp_path / "P").symlink_to(tmp_path / "A" / "y")
    ingest_markdown_folder(memory, tmp_path / "A")
    assert memory.get(own.id).status == "active"
    assert memory.get(own.id).attributes["path"] == "y/s.md"


def test_a_folder_whose_name_holds_a_semicolon_or_a_bar_keeps_and_retracts_its_claims(
    memory: Memory, tmp_path
):
    folder = tmp_path / "notes; old | 2025"
    folder.mkdir()
    notes(folder)
    ingest_markdown_folder(memory, folder)
    ingest_markdown_folder(memory, folder)  # read again: still said once, by one note
    assert len(memory.trace_cause("moved the job queue to SQS").causes) == 1
    (folder / "queue-migration.md").unlink()
    ingest_markdown_folder(memory, folder)
    assert memory.trace_cause("moved the job queue to SQS").causes == []
    assert memory.trace_cause_chain("the checkout outage").chains  # the other file says it still


def test_a_vault_of_old_notes_is_neither_hidden_nor_put_up_for_deletion_the_day_it_is_read(
    memory: Memory, clock, tmp_path
):
    now = clock().timestamp()
    topics = ["kubernetes ingress", "postgres vacuum", "kafka retention", "redis eviction",
              "nginx buffering", "celery retries", "terraform state", "grafana alerts"]  # fmt: skip
    for i, topic in enumerate(topics):  # written 60 days to two years ago, and one today
        path = tmp_path / "vault" / f"{i}.md"
        path.parent.mkdir(exist_ok=True)
        path.write_text(f"# Notes on {topic}\n\nHow we run {topic} in production.\n")
        age_days = 0 if i == 0 else 60 + 95 * i
        os.utime(path, (now - age_days * 86_400,) * 2)
    ingest_markdown_folder(memory, tmp_path / "vault")
    report = memory.maintain()
    assert report.tiers["cold"] == report.tiers["frozen"] == 0
    assert report.archived == [] and report.queued_for_review == []
    for topic in topics:
        hit = memory.recall(topic, k=1).hits[0]
        assert hit.node.text.startswith(f"Notes on {topic}")
        assert hit.node.created_at.timestamp() < now - 50 * 86_400 or topic == topics[0]


def test_notes_that_tell_one_story_of_different_services_keep_each_service_apart(
    memory: Memory, tmp_path
):
    vault = tmp_path / "vault"
    vault.mkdir()
    for service in ["payments", "search", "billing", "inventory"]:
        (vault / f"{service}.md").write_text(
            f"The {service} deploy failed because the {service} config was wrong. "
            f"That caused the {service} outage.\n"
        )
    (vault / "release.md").write_text("The 2.4 release failed because the 2.4 tag was wrong.\n")
    (vault / "older.md").write_text("The 2.3 release failed because the 2.3 tag was wrong.\n")
    ingest_markdown_folder(memory, vault)

    def root_of(outcome: str) -> str:
        return memory.trace_cause_chain(outcome).chains[0].steps[0].decision

    assert root_of("search outage") == "The search config was wrong."
    assert root_of("inventory outage") == "The inventory config was wrong."
    ingest_markdown_folder(memory, vault)  # read again unchanged: nothing moves
    assert root_of("search outage") == "The search config was wrong."
    assert root_of("2.4 release failed") == "The 2.4 tag was wrong."


def test_a_link_taken_out_of_a_note_ends_and_comes_back_when_written_again(
    memory: Memory, tmp_path
):
    vault = tmp_path / "vault"
    (vault / "sub").mkdir(parents=True)
    (vault / "sub" / "a.md").write_text("Alpha, the service.\n")
    note = vault / "c.md"
    note.write_text("Gamma depends on [[a]].\n")
    ingest_markdown_folder(memory, vault)

    def linked() -> bool:
        c = memory.find(attribute=("path", "c.md"), limit=1)[0]
        return any(
            n.node.attributes.get("path") == "sub/a.md" for n in memory.neighbors(c.id).neighbors
        )

    assert linked()
    note.write_text("Gamma depends on nothing now.\n")
    ingest_markdown_folder(memory, vault)
    assert not linked()
    note.write_text("Gamma depends on [[a]] again.\n")
    ingest_markdown_folder(memory, vault)
    assert linked()


def old_vault(root: Path, clock, n: int) -> Path:
    """`n` notes written 60 days to years before the clock's now, one topic each."""
    vault = root / "vault"
    vault.mkdir()
    now = clock().timestamp()
    for i in range(n):
        note = vault / f"{i}.md"
        note.write_text(f"# Topic {i}\n\nNotes on topic number {i}.\n")
        os.utime(note, (now - (60 + 90 * i) * 86_400,) * 2)
    return vault


def test_a_vault_read_again_unchanged_every_week_still_fades_when_unused(
    memory: Memory, clock, tmp_path
):
    vault = old_vault(tmp_path, clock, 8)
    ingest_markdown_folder(memory, vault)
    for _ in range(12):  # a sync from cron, weekly, and no one reads the notes
        clock.advance(days=7)
        ingest_markdown_folder(memory, vault)
        memory.maintain()
    report = memory.maintain()
    assert report.tiers["frozen"] > 0
    faded = memory.find(attribute=("path", "7.md"), limit=1)[0]
    assert faded.status == "archived"
    (vault / "7.md").write_text("# Topic 7\n\nNotes on topic number 7, revised.\n")
    ingest_markdown_folder(memory, vault)  # an edit is news: the note is back
    assert memory.get(faded.id).status == "active"


def test_a_link_to_a_note_outside_the_folder_read_or_made_by_an_agent_is_not_ended(
    memory: Memory, tmp_path
):
    vault = tmp_path / "vault"
    (vault / "sub").mkdir(parents=True)
    (vault / "b.md").write_text("Bravo.\n")
    (vault / "sub" / "c.md").write_text("Charlie.\n")
    note = vault / "sub" / "a.md"
    note.write_text("Alpha links [[b]] and [[c]].\n")
    ingest_markdown_folder(memory, vault)

    def doc(path: str):
        return memory.find(attribute=("path", path), limit=1)[0]

    def links_of(path: str) -> set[str]:
        near = memory.neighbors(doc(path).id, relation="related").neighbors
        return {n.node.attributes["path"] for n in near}

    ingest_markdown_folder(memory, vault / "sub")  # b.md is not read now: its link stays
    assert links_of("sub/a.md") == {"b.md", "sub/c.md"}
    memory.connect(doc("sub/a.md").id, doc("sub/c.md").id)  # an agent says it too
    note.write_text("Alpha links nothing now.\n")
    ingest_markdown_folder(memory, vault)
    assert links_of("sub/a.md") == {"sub/c.md"}


def test_a_claim_two_notes_made_ends_when_both_are_gone_and_returns_with_one(
    memory: Memory, tmp_path
):
    vault, away = tmp_path / "vault", tmp_path / "away"
    vault.mkdir()
    away.mkdir()
    for name in ["a.md", "b.md"]:
        (vault / name).write_text("The budget was cut. That caused the hiring freeze.\n")
    (vault / "c.md").write_text("Unrelated note about lunch.\n")
    ingest_markdown_folder(memory, vault)
    for name in ["a.md", "b.md"]:
        (vault / name).rename(away / name)
        ingest_markdown_folder(memory, vault)
    assert memory.trace_cause_chain("hiring freeze").chains == []
    assert memory.recall("budget cut", include_cold=True).hits == []
    (away / "a.md").rename(vault / "a.md")
    ingest_markdown_folder(memory, vault)
    (chain,) = memory.trace_cause_chain("hiring freeze").chains
    assert chain.steps[0].decision == "The budget was cut."


def test_reading_a_vault_again_unchanged_keeps_what_agents_did_with_it(
    memory: Memory, clock, tmp_path
):
    vault = tmp_path / "vault"
    vault.mkdir()
    (vault / "a.md").write_text("Alpha, see [[b]].\n")
    (vault / "b.md").write_text("Bravo.\n")
    (vault / "c.md").write_text("Charlie.\n")
    month_ago = clock().timestamp() - 30 * 86_400
    for name in ["a.md", "b.md", "c.md"]:
        os.utime(vault / name, (month_ago, month_ago))
    ingest_markdown_folder(memory, vault)

    def doc(path: str):
        return memory.find(attribute=("path", path), limit=1)[0]

    memory.reinforce(doc("a.md").id, doc("b.md").id)  # an agent uses the link today
    memory.forget(doc("c.md").id, "outdated, please delete")  # and asks to forget a note
    ingest_markdown_folder(memory, vault)
    (link,) = [e for e in memory.store.edges_of([doc("a.md").id]) if e.relation == "related"]
    assert link.last_reinforced_at == clock()
    assert doc("c.md").status == "forgotten"
    assert [p.node.id for p in memory.review_queue().items] == [doc("c.md").id]


def test_a_faded_vault_moved_elsewhere_stays_faded(memory: Memory, clock, tmp_path):
    vault = old_vault(tmp_path, clock, 6)
    ingest_markdown_folder(memory, vault)
    clock.advance(days=30)
    memory.maintain()
    archived = {n.id for n in memory.find(kind="document", limit=50) if n.status == "archived"}
    assert archived
    vault.rename(tmp_path / "moved")
    ingest_markdown_folder(memory, tmp_path / "moved")
    still = {n.id for n in memory.find(kind="document", limit=50) if n.status == "archived"}
    assert still == archived


def test_a_postmortem_told_with_connectives_inside_sentences_answers_why(memory: Memory, tmp_path):
    (tmp_path / "pool.md").write_text(
        "# Pool incident\n\n"
        "Ben raised the pool size to 500, which meant that the database ran out of connections.\n"
        "Ana added PgBouncer, thanks to which the checkout service kept up.\n"
    )
    ingest_markdown_folder(memory, tmp_path)
    (cause,) = memory.trace_cause("the database ran out of connections").causes
    assert (cause.lesson.decision, cause.lesson.relation) == (
        "Ben raised the pool size to 500",
        "caused",
    )
    assert cause.lesson.outcome == "The database ran out of connections."
    (cause,) = memory.trace_cause("the checkout service kept up").causes
    assert (cause.lesson.decision, cause.lesson.relation) == ("Ana added PgBouncer", "enabled")


def test_an_old_note_that_tells_a_cause_fades_like_an_old_note_that_tells_none(
    memory: Memory, clock, tmp_path
):
    now = clock().timestamp()
    notes = {
        "adr-7.md": "# ADR 7\n\nWe moved the queue to SQS because the Redis queue dropped jobs.\n",
        "howto.md": "# Queue dashboards\n\nHow to read the job queue graphs in Grafana.\n",
        "this-week.md": "# This week\n\nThe team is pairing on the billing export.\n",
    }
    for name, text in notes.items():
        (tmp_path / name).write_text(text)
        age_days = 1 if name == "this-week.md" else 700
        os.utime(tmp_path / name, (now - age_days * 86_400,) * 2)
    ingest_markdown_folder(memory, tmp_path)
    adr = memory.find(attribute=("path", "adr-7.md"), limit=1)[0]
    claims = memory.neighbors(adr.id, relation="about", direction="in").neighbors
    assert len(claims) == 2  # the move and its reason, linked as of when the file was written
    assert all(c.edge.last_reinforced_at == adr.created_at for c in claims)
    clock.advance(days=10)  # past the grace period new notes get
    memory.maintain()
    tier = {n.attributes["path"]: n.tier for n in memory.find(kind="document", limit=10)}
    assert tier["adr-7.md"] == tier["howto.md"] == "frozen"
    assert tier["this-week.md"] != "frozen"
    assert memory.trace_cause("we moved the queue to SQS").causes  # faded, still answers why


def snapshot(memory: Memory) -> str:
    out = io.StringIO()
    memory.export_jsonl(out)
    return out.getvalue()


def test_a_vault_ingested_again_unchanged_reads_no_file_and_changes_nothing(
    memory: Memory, tmp_path
):
    # `ebbtide ingest ~/notes` from cron every hour: an unchanged vault costs next to nothing.
    folder = notes(tmp_path)
    (folder / "index.md").write_text("# Index\n\nSee [[checkout-outage]] and [[queue-migration]].")
    first = ingest_markdown_folder(memory, folder)
    before = snapshot(memory)
    again = ingest_markdown_folder(memory, folder)
    assert first.unchanged == 0 and first.causal_links > 0
    assert (again.files, again.unchanged, again.nodes, again.causal_links, again.links) == (
        3, 3, 0, 0, 0
    )  # fmt: skip
    assert snapshot(memory) == before


def test_an_edit_after_an_unchanged_ingest_is_still_read(memory: Memory, tmp_path):
    folder = notes(tmp_path)
    ingest_markdown_folder(memory, folder)
    ingest_markdown_folder(memory, folder)
    page = folder / "checkout-outage.md"
    page.write_text(page.read_text().replace("The nightly backup job", "The log shipper"))
    os.utime(page, (1.77e9, 1.77e9))  # the same time: its content alone tells it changed
    summary = ingest_markdown_folder(memory, folder)
    assert summary.unchanged == 1  # the migration note
    (chain, *_) = memory.trace_cause_chain("the checkout outage").chains
    assert chain.steps[0].decision == "The log shipper filled the disk on the database host."
    ended = [e for e in memory.store.iter_edges() if e.valid_to is not None]
    assert "The nightly backup job filled the disk on the database host." in {
        memory.get(e.src).text for e in ended
    }


def test_an_ingest_killed_between_files_reads_the_unwritten_ones_next_time(
    memory: Memory, tmp_path, monkeypatch
):
    folder = notes(tmp_path)
    real = memory.remember_causes

    def killed_at_the_migration(parts, **kw):
        if any("queue-migration" in where for where, _ in parts):
            raise KeyboardInterrupt  # the process dies while this file is half written
        return real(parts, **kw)

    monkeypatch.setattr(memory, "remember_causes", killed_at_the_migration)
    with pytest.raises(KeyboardInterrupt):
        ingest_markdown_folder(memory, folder)
    monkeypatch.undo()
    summary = ingest_markdown_folder(memory, folder)
    assert summary.unchanged == 1  # the postmortem, committed before the kill
    assert summary.causal_links > 0  # the migration's "because", read this time
    assert any("Redis queue dropped jobs" in n.text for n in memory.store.iter_nodes())


def test_an_unchanged_file_links_to_the_folder_as_it_is_now(memory: Memory, tmp_path):
    a = tmp_path / "a.md"
    a.write_text("# A\n\nSee [[b]].")
    assert ingest_markdown_folder(memory, tmp_path).unresolved_links == 1
    (tmp_path / "b.md").write_text("# B\n\nThe other note.")
    summary = ingest_markdown_folder(memory, tmp_path)
    assert (summary.unchanged, summary.unresolved_links, summary.links) == (1, 0, 1)
    (doc_a,) = [n for n in memory.find(kind="document", limit=5) if n.text.startswith("A")]
    assert [e.relation for e in memory.store.edges_of([doc_a.id], direction="out")] == ["related"]
    (tmp_path / "b.md").unlink()
    summary = ingest_markdown_folder(memory, tmp_path)
    assert (summary.unchanged, summary.gone, summary.unresolved_links) == (1, 1, 1)
    assert memory.get(doc_a.id).status == "active"  # seen, though not read again


def test_a_touched_file_is_read_again_dated_by_its_new_time(memory: Memory, tmp_path):
    folder = notes(tmp_path)
    ingest_markdown_folder(memory, folder)
    page = folder / "checkout-outage.md"
    os.utime(page, (1.78e9, 1.78e9))  # a checkout or a sync tool: same words, a new time
    summary = ingest_markdown_folder(memory, folder)
    assert summary.unchanged == 1  # only the migration note was skipped
    (doc,) = [n for n in memory.find(kind="document", limit=5) if "checkout" in n.text.lower()]
    assert doc.last_read_at is not None and doc.last_read_at.timestamp() == 1.78e9


RUNBOOK = """\
# Deploy runbook

After the deploy, check the dashboard. Once the migration finishes, run the smoke tests.
If it fails, see the runbook. When paged, follow the escalation policy.

After the upgrade, note that the config moved. After the code, see [[e]].
"""


def test_a_runbooks_instructions_are_no_causes_and_no_outcomes(memory: Memory, tmp_path):
    (tmp_path / "runbook.md").write_text(RUNBOOK, encoding="utf-8")
    summary = ingest_markdown_folder(memory, tmp_path)
    assert summary.causal_links == 0
    assert memory.trace_cause("check the dashboard").causes == []
    assert memory.trace_cause("see e").causes == []
    assert [n.kind for n in memory.store.find_nodes(limit=100)] == ["document"]


def test_what_happened_after_a_deploy_is_still_traced_to_it(memory: Memory, tmp_path):
    (tmp_path / "incident.md").write_text(
        "# Incident\n\nAfter the deploy, checkout errors spiked.\n\n"
        "After we upgraded Postgres, the planner caused a slowdown.\n",
        encoding="utf-8",
    )
    summary = ingest_markdown_folder(memory, tmp_path)
    assert summary.causal_links == 2
    assert [c.lesson.decision for c in memory.trace_cause("checkout errors spiked").causes] == [
        "The deploy"
    ]
    assert [c.lesson.decision for c in memory.trace_cause("the planner slowdown").causes] == [
        "We upgraded Postgres"
    ]


def test_a_choice_a_note_tells_with_its_reason_is_its_authors_decision(memory: Memory, tmp_path):
    (tmp_path / "queue.md").write_text(
        "# Queue\n\nWe moved to SQS because Kafka needed brokers.\n\n"
        "Kafka dropped messages because the disk filled up.\n"
    )
    ingest_markdown_folder(memory, tmp_path)
    kinds = {n.text: n.kind for n in memory.store.find_nodes(limit=100)}
    assert kinds["We moved to SQS"] == "decision"
    assert kinds["Kafka dropped messages"] == "outcome"
    (cause,) = memory.trace_cause("we moved to SQS").causes
    assert cause.lesson.decision == "Kafka needed brokers."
    assert memory.get(cause.lesson.outcome_id).kind == "decision"

"""A folder of Markdown notes, ingested into a real memory, answers why: its causal claims are
episodes a trace reaches, named by the file and section they were read in."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from ebbtide import Memory
from ebbtide.errors import ValidationError
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


def test_remember_causes_names_a_bad_field_and_stores_nothing(memory: Memory):
    claim = "The deploy caused the outage."
    for kwargs, field in (
        ({"parts": {}}, "parts"),
        ({"parts": [("a.md", claim)]}, "parts"),
        ({"parts": {" ": claim}}, "parts"),
        ({"parts": {"a.md": ""}}, "parts['a.md']"),
        ({"parts": {"a.md": claim}, "author": ""}, "author"),
        ({"parts": {"a.md": claim}, "at": "not a time"}, "at"),
    ):
        with pytest.raises(ValidationError) as err:
            memory.remember_causes(**kwargs)
        assert err.value.field == field
    assert memory.store.find_nodes(limit=10) == []


def test_a_claim_read_from_a_note_names_its_part(memory: Memory):
    found = memory.remember_causes(
        {"ops.md#deploys": "We skipped the canary.", "ops.md#incidents": "That caused the outage."}
    )
    kinds = {n.text: (n.kind, n.sources, n.provenance) for n in found.nodes}
    assert kinds == {
        "We skipped the canary.": ("decision", ["ops.md#deploys"], "note"),
        "The outage.": ("outcome", ["ops.md#incidents"], "note"),
    }
    (edge,) = found.edges
    assert edge.relation == "caused"

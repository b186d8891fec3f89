"""A notes folder as a vault user keeps it, through `ebbtide ingest` and a real store: notes
renamed or moved in the vault, links to a section of the same note, and a forced re-read."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from ebbtide import Memory, open_memory
from ebbtide.cli import main

POSTMORTEM = """\
# Postmortem: checkout outage

On Saturday the checkout service was down for two hours.

## Root cause

The nightly backup job filled the disk on the database host. That caused the write latency
spike, which led to the checkout outage.
"""

FILLER = "We went through it minute by minute and wrote down what we saw. " * 20


@pytest.fixture(autouse=True)
def no_vectors(monkeypatch):
    monkeypatch.setenv("EBBTIDE_EMBEDDINGS", "none")


def ingest(vault: Path, store: Path, capsys, *flags: str) -> dict:
    capsys.readouterr()
    assert main(["ingest", str(vault), "--store", str(store), "--json", *flags]) == 0
    return json.loads(capsys.readouterr().out)


def write(vault: Path, rel: str, text: str) -> None:
    (vault / rel).parent.mkdir(parents=True, exist_ok=True)
    (vault / rel).write_text(text, encoding="utf-8")
    os.utime(vault / rel, (1.77e9, 1.77e9))


def document(mem: Memory, path: str):
    (doc,) = [d for d in mem.find(kind="document", limit=50) if d.attributes["path"] == path]
    return doc


def links_into(mem: Memory, node_id: str) -> set[str]:
    """The paths of the notes whose current `related` links reach `node_id`."""
    return {
        n.node.attributes["path"]
        for n in mem.neighbors(node_id, relation="related", direction="in").neighbors
    }


def claims_of(mem: Memory, node_id: str) -> list[tuple[str, list[str]]]:
    return sorted(
        (n.node.id, n.node.sources)
        for n in mem.neighbors(node_id, relation="about", direction="in").neighbors
    )


# Renames -------------------------------------------------------------------------------------


@pytest.fixture
def vault(tmp_path) -> Path:
    vault = tmp_path / "vault"
    write(vault, "checkout-outage.md", POSTMORTEM)
    write(vault, "index.md", "# Index\n\nIncidents: [[checkout-outage]].\n")
    write(vault, "scratch.md", "A thought about lunch, [[index]].\n")
    return vault


def test_a_note_renamed_and_moved_in_the_vault_keeps_its_node_history_claims_and_links(
    vault, tmp_path, capsys
):
    store = tmp_path / "m.db"
    ingest(vault, store, capsys)
    with open_memory(store) as mem:
        before = document(mem, "checkout-outage.md")
        assert mem.recall("checkout outage postmortem").hits  # an agent uses the note
        used = mem.get(before.id)
        claims = claims_of(mem, before.id)
        assert claims
    # Obsidian moves the note into a folder under a new name and rewrites the link to it.
    (vault / "incidents").mkdir()
    (vault / "checkout-outage.md").rename(vault / "incidents" / "2026-03 checkout.md")
    write(vault, "index.md", "# Index\n\nIncidents: [[2026-03 checkout]].\n")
    summary = ingest(vault, store, capsys)
    assert (summary["gone"], summary["unresolved_links"]) == (0, 0)
    with open_memory(store) as mem:
        moved = document(mem, "incidents/2026-03 checkout.md")
        assert moved.id == before.id
        assert moved.attributes["title"] == "Postmortem: checkout outage"
        assert moved.sources == ["incidents/2026-03 checkout.md"]
        assert (moved.created_at, moved.read_count, moved.last_read_at) == (
            used.created_at, used.read_count, used.last_read_at
        )  # fmt: skip
        assert mem.review_queue().items == []
        assert links_into(mem, moved.id) == {"index.md"}
        # The same claims, now said in the note under its new name.
        assert [c for c, _ in claims_of(mem, moved.id)] == [c for c, _ in claims]
        (chain,) = mem.trace_cause_chain("the checkout outage").chains
        assert chain.steps[0].decision.startswith("The nightly backup job filled the disk")
        assert all(
            s.startswith("incidents/2026-03 checkout.md") for _, srcs in claims_of(mem, moved.id)
            for s in srcs
        )  # fmt: skip
        assert len(mem.find(kind="document", limit=50)) == 3


def test_a_long_note_moved_to_another_folder_keeps_its_sections_and_their_links(tmp_path, capsys):
    vault, store = tmp_path / "vault", tmp_path / "m.db"
    write(vault, "Runbook.md", runbook("If in doubt see [[#Deploy]]."))
    ingest(vault, store, capsys)
    with open_memory(store) as mem:
        before = {n.id for n in mem.store.iter_nodes()}
    (vault / "ops").mkdir()
    (vault / "Runbook.md").rename(vault / "ops" / "Runbook.md")
    assert ingest(vault, store, capsys)["gone"] == 0
    with open_memory(store) as mem:
        assert {n.id for n in mem.store.iter_nodes()} == before
        assert sections_linked(mem, "ops/Runbook.md") == {
            ("Troubleshooting", "Deploy"),
            (None, "Rollback"),
        }
        deploy = mem.find(attribute=("heading", "Deploy"), limit=1)[0]
        assert deploy.sources == ["ops/Runbook.md#deploy"]


def test_a_renamed_note_edited_later_retracts_what_it_no_longer_says(vault, tmp_path, capsys):
    store = tmp_path / "m.db"
    ingest(vault, store, capsys)
    (vault / "checkout-outage.md").rename(vault / "outage.md")
    ingest(vault, store, capsys)
    write(vault, "outage.md", POSTMORTEM.split("## Root cause")[0])
    ingest(vault, store, capsys)
    with open_memory(store) as mem:
        assert mem.trace_cause_chain("the checkout outage").chains == []
        assert claims_of(mem, document(mem, "outage.md").id) == []
        assert mem.recall("nightly backup job filled the disk").hits == []


def test_a_renamed_note_without_a_heading_takes_its_new_file_name_as_title(tmp_path, capsys):
    vault, store = tmp_path / "vault", tmp_path / "m.db"
    write(vault, "Untitled.md", "The deploy freeze starts on Friday.\n")
    ingest(vault, store, capsys)
    (vault / "Untitled.md").rename(vault / "Deploy freeze.md")
    assert ingest(vault, store, capsys)["gone"] == 0
    with open_memory(store) as mem:
        (doc,) = mem.find(kind="document", limit=5)
        assert (doc.attributes["path"], doc.attributes["title"]) == (
            "Deploy freeze.md", "Deploy freeze"
        )  # fmt: skip
        assert doc.text.startswith("Deploy freeze\n\n")


def test_a_link_left_at_a_renamed_notes_old_name_is_unresolved_as_for_a_deleted_note(
    vault, tmp_path, capsys
):
    store = tmp_path / "m.db"
    ingest(vault, store, capsys)
    (vault / "checkout-outage.md").rename(vault / "outage.md")  # renamed outside Obsidian
    summary = ingest(vault, store, capsys)
    assert (summary["gone"], summary["unresolved_links"]) == (0, 1)
    with open_memory(store) as mem:
        assert links_into(mem, document(mem, "outage.md").id) == set()
        assert mem.review_queue().items == []


def test_a_note_renamed_and_edited_in_one_go_is_a_new_note_and_the_old_one_is_put_to_a_person(
    vault, tmp_path, capsys
):
    store = tmp_path / "m.db"
    ingest(vault, store, capsys)
    (vault / "checkout-outage.md").unlink()
    write(vault, "outage.md", POSTMORTEM + "\nWe added a disk usage alert.\n")
    assert ingest(vault, store, capsys)["gone"] == 1
    with open_memory(store) as mem:
        (item,) = mem.review_queue().items
        assert item.node.attributes["path"] == "checkout-outage.md"


def test_two_notes_of_the_same_words_renamed_at_once_are_not_guessed_apart(tmp_path, capsys):
    vault, store = tmp_path / "vault", tmp_path / "m.db"
    for name in ("Untitled.md", "Untitled 1.md"):
        write(vault, name, "Meeting notes.\n")
    ingest(vault, store, capsys)
    (vault / "Untitled.md").rename(vault / "Monday.md")
    (vault / "Untitled 1.md").rename(vault / "Tuesday.md")
    assert ingest(vault, store, capsys)["gone"] == 2


def test_a_copy_of_a_note_is_a_note_of_its_own(vault, tmp_path, capsys):
    store = tmp_path / "m.db"
    ingest(vault, store, capsys)
    with open_memory(store) as mem:
        original = document(mem, "checkout-outage.md").id
    write(vault, "copy.md", POSTMORTEM)
    assert ingest(vault, store, capsys)["gone"] == 0
    with open_memory(store) as mem:
        assert document(mem, "checkout-outage.md").id == original
        assert document(mem, "copy.md").id != original


# Links to a section of the same note -----------------------------------------------------------


def runbook(links: str) -> str:
    return (
        f"# Runbook\n\nStart here: [[#Rollback]].\n\n## Deploy\n\n{FILLER}\n\n"
        f"## Rollback\n\n{FILLER}\n\n## Troubleshooting\n\n{links} {FILLER}\n"
    )


def sections_linked(mem: Memory, path: str) -> set[tuple[str | None, str | None]]:
    """(heading of the linking note, heading reached), None for a document, within `path`."""
    return {
        (d.attributes.get("heading"), n.node.attributes.get("heading"))
        for d in mem.find(attribute=("path", path), limit=50)
        for n in mem.neighbors(d.id, relation="related", direction="out").neighbors
        if n.node.attributes["path"] == path
    }


@pytest.mark.parametrize(
    "link",
    ["[[#Deploy]]", "[[Runbook#Deploy]]", "[[runbook#deploy|the deploy]]", "[deploy](#deploy)"],
)
def test_a_link_to_a_heading_of_the_same_long_note_links_the_two_sections(tmp_path, capsys, link):
    vault, store = tmp_path / "vault", tmp_path / "m.db"
    write(vault, "Runbook.md", runbook(f"If in doubt see {link}."))
    summary = ingest(vault, store, capsys)
    assert summary["unresolved_links"] == 0
    with open_memory(store) as mem:
        assert sections_linked(mem, "Runbook.md") == {
            ("Troubleshooting", "Deploy"),  # the section that links, to the one it names
            (None, "Rollback"),  # the opening's link is its document's
        }


def test_a_link_to_the_same_short_note_or_a_missing_heading_makes_no_edge(tmp_path, capsys):
    vault, store = tmp_path / "vault", tmp_path / "m.db"
    write(vault, "short.md", "# Short\n\nSee [[#Details]] below.\n\n## Details\n\nNone yet.\n")
    write(vault, "Runbook.md", runbook("See [[#Postmortems]] and [[#Troubleshooting]]."))
    summary = ingest(vault, store, capsys)
    assert summary["unresolved_links"] == 0
    with open_memory(store) as mem:
        assert sections_linked(mem, "short.md") == set()  # stored whole: no loop on itself
        assert sections_linked(mem, "Runbook.md") == {(None, "Rollback")}


# Re-reading ----------------------------------------------------------------------------------


def test_reread_reads_every_file_again_and_twice_stores_nothing_twice(vault, tmp_path, capsys):
    store = tmp_path / "m.db"
    first = ingest(vault, store, capsys)
    assert ingest(vault, store, capsys)["unchanged"] == 3

    def contents() -> tuple[list, list]:
        with open_memory(store) as mem:
            nodes = sorted(
                (n.id, n.text, n.status, tuple(n.sources)) for n in mem.store.iter_nodes()
            )
            edges = sorted(
                (e.src, e.dst, e.relation, e.valid_to is None) for e in mem.store.iter_edges()
            )
        return nodes, edges

    stored = contents()
    for _ in range(2):
        again = ingest(vault, store, capsys, "--reread")
        assert (again["files"], again["unchanged"], again["gone"]) == (3, 0, 0)
        assert (again["nodes"], again["causal_links"]) == (first["nodes"], first["causal_links"])
        assert contents() == stored
    assert ingest(vault, store, capsys)["unchanged"] == 3  # and after it, skipped as before


COUNTERFACTUALS = {
    "rate-limiting.md": "Rate limiting would have prevented the login storm.\n",
    "deploy.md": "We shipped the billing change without tests, which caused the invoice bug.\n\n"
    "A canary would have caught it.\n\n"
    "No canary was run, so the bad config reached every region.\n",
    "alerts.md": "There was no disk usage alert, which let the disk fill up.\n\n"
    "Not having a retry budget led to the retry storm.\n",
}


def graph(store: Path) -> tuple[list, list]:
    """Every node and edge, current or retired, as a user would count them."""
    with open_memory(store) as mem:
        nodes = sorted((n.id, n.kind, n.text, n.valid_to is None) for n in mem.store.iter_nodes())
        edges = sorted(
            (e.src, e.dst, e.relation, e.valid_to is None) for e in mem.store.iter_edges()
        )
    return nodes, edges


def test_notes_of_what_was_missing_read_again_and_again_store_nothing_new(tmp_path, capsys):
    vault, store = tmp_path / "vault", tmp_path / "m.db"
    for rel, text in COUNTERFACTUALS.items():
        write(vault, rel, text)
    ingest(vault, store, capsys)
    once = graph(store)
    missing = [t for _, kind, t, current in once[0] if kind == "event" and current]
    assert {"No rate limiting", "No canary", "No tests", "Not having a retry budget"} <= set(
        missing
    )
    for _ in range(3):
        ingest(vault, store, capsys, "--reread")
        assert graph(store) == once
    (tmp_path / "vault" / "rate-limiting.md").touch()  # touched, not edited: read, not changed
    ingest(vault, store, capsys)
    assert graph(store) == once
    with open_memory(store) as mem:
        (cause,) = mem.trace_cause("the login storm").causes
        assert cause.lesson.decision == "No rate limiting"


def test_a_counterfactual_note_edited_replaces_only_the_claim_it_changed(tmp_path, capsys):
    vault, store = tmp_path / "vault", tmp_path / "m.db"
    for rel, text in COUNTERFACTUALS.items():
        write(vault, rel, text)
    ingest(vault, store, capsys)
    nodes, _ = graph(store)
    write(vault, "rate-limiting.md", "A request quota would have prevented the login storm.\n")
    ingest(vault, store, capsys)
    after, _ = graph(store)
    changed = set(after) - set(nodes)
    assert {(kind, text, current) for _, kind, text, current in changed if kind != "document"} == {
        ("event", "No request quota", True),
        ("event", "No rate limiting", False),  # retracted, kept for the record
        ("decision", "A request quota", True),
        ("decision", "Rate limiting", False),
    }
    for _ in range(2):
        ingest(vault, store, capsys, "--reread")
        assert graph(store)[0] == after


def test_reread_is_explained_in_the_help(capsys):
    with pytest.raises(SystemExit):
        main(["ingest", "--help"])
    out = " ".join(capsys.readouterr().out.split())
    assert "--reread" in out
    assert "even if unchanged" in out


# Tags ----------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("front", "tags"),
    [
        ("tags: architecture", ["architecture"]),
        ("tags: architecture, design", ["architecture", "design"]),
        ("tags: architecture design", ["architecture", "design"]),
        ("tags: '#architecture'", ["architecture"]),
        ("tags: [architecture, design]", ["architecture", "design"]),
    ],
)
def test_a_front_matter_tag_written_as_one_string_is_kept_as_obsidian_reads_it(
    tmp_path, capsys, front, tags
):
    vault = tmp_path / "vault"
    write(vault, "overview.md", f"---\n{front}\n---\n# Overview\n\nThe services.\n")
    ingest(vault, tmp_path / "m.db", capsys)
    with open_memory(tmp_path / "m.db") as mem:
        assert document(mem, "overview.md").attributes["tags"] == tags


def test_tags_written_in_a_notes_text_are_its_tags_too_but_not_in_code_links_or_numbers(
    tmp_path, capsys
):
    vault = tmp_path / "vault"
    write(
        vault,
        "adr.md",
        "---\ntags: [decision]\n---\n# ADR 7\n\n#decision #infra/db we chose Postgres.\n\n"
        "- see [[runbook#Rollback]] and https://wiki.example.com/page#section\n"
        "- issue #123, `#not-in-code`, and a #follow-up.\n\n"
        "```\n#not-in-a-fence\n```\n",
    )
    ingest(vault, tmp_path / "m.db", capsys)
    with open_memory(tmp_path / "m.db") as mem:
        assert document(mem, "adr.md").attributes["tags"] == ["decision", "infra/db", "follow-up"]

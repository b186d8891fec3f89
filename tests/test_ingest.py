"""Ingestion adapters against a fake memory that records the calls they make."""

from __future__ import annotations

import contextlib
import json
import os
import subprocess
import sys
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import pytest

from ebbtide import open_memory
from ebbtide.errors import NotFound, ValidationError
from ebbtide.ingest import (
    SECTION_MAX,
    SPLIT_OVER,
    _anchors,
    _prose,
    _split_sections,
    ingest_chat,
    ingest_markdown_folder,
)


@dataclass
class FakeMemory:
    nodes: dict[str, dict[str, Any]] = field(default_factory=dict)
    edges: list[tuple[str, str, str, dict[str, Any]]] = field(default_factory=list)
    sessions: list[dict[str, Any]] = field(default_factory=list)
    read_for_causes: list[dict[str, Any]] = field(default_factory=list)
    records: dict[str, str] = field(default_factory=dict)

    def files_read(self, files: list[str]) -> dict[str, str]:
        return {f: self.records[f] for f in files if f in self.records}

    def file_read(self, file: str, record: str) -> None:
        self.records[file] = record

    def remember(self, text: str | None = None, kind: str = "note", **kw: Any) -> Any:
        if "messages" in kw:
            self.sessions.append(kw)
            n = len(kw["messages"])
            return SimpleNamespace(nodes=[None] * (2 * n), edges=[None] * n, known=0)
        node_id = kw["node_id"]
        # As `Memory.remember`: an attribute given as None is not stored.
        kept = {k: v for k, v in kw.get("attributes", {}).items() if v is not None}
        self.nodes[node_id] = {"text": text, "kind": kind, **kw, "attributes": kept}
        return SimpleNamespace(id=node_id)

    def remember_causes(self, parts: list[tuple[str, str]], **kw: Any) -> Any:
        assert kw["about"] in self.nodes, "read for causes before its document exists"
        self.read_for_causes.append({"parts": parts, **kw})
        return SimpleNamespace(nodes=[], edges=[])

    def get(self, node_id: str) -> Any:
        if node_id not in self.nodes:
            raise NotFound("node", node_id, "node_id")
        return SimpleNamespace(id=node_id, attributes=self.nodes[node_id]["attributes"])

    def find(self, *, limit: int, attribute: tuple[str, Any] | None = None,
             kind: str | None = None) -> list:  # fmt: skip
        return [
            SimpleNamespace(id=i, kind=n["kind"], attributes=n["attributes"], pinned=False,
                            status=n.get("status", "active"), text=n["text"],
                            sources=n.get("sources", []), provenance=n.get("provenance"),
                            created_at=n.get("at"))
            for i, n in self.nodes.items()
            if (attribute is None or n["attributes"].get(attribute[0]) == attribute[1])
            and kind in (None, n["kind"])
        ][:limit]  # fmt: skip

    def forget(self, node_id: str, reason: str, asked_by: str) -> Any:
        self.nodes[node_id]["status"] = "forgotten"
        return SimpleNamespace(queued=True, reason=reason)

    def keep_links(self, a: str, relation: str, targets: list[str], **kw: Any) -> int:
        before = len(self.edges)
        self.edges = [
            e for e in self.edges if e[0] != a or e[2] != relation or e[1] in set(targets)
        ]
        return before - len(self.edges)

    def batch(self) -> Any:
        return contextlib.nullcontext()

    def connect(self, a: str, b: str, relation: str = "related", weight: float = 1.0, **kw: Any):
        assert a in self.nodes and b in self.nodes, "connect before both nodes exist"
        self.edges.append((a, b, relation, kw))

    def node(self, path: str) -> str:
        """The id of the document node of `path`."""
        (ident,) = [i for i, n in self.nodes.items() if n["kind"] == "document" and n["sources"]
                    == [path]]  # fmt: skip
        return ident

    def links(self, relation: str = "related") -> set[tuple[str, str]]:
        return {(a, b) for a, b, r, _ in self.edges if r == relation}


def write(root: Path, rel: str, text: str, mtime: float | None = None) -> Path:
    p = root / rel
    p.parent.mkdir(parents=True, exist_ok=True)
    p.write_text(text, encoding="utf-8")
    if mtime is not None:
        os.utime(p, (mtime, mtime))
    return p


# ---------------------------------------------------------------------------------------------
# Markdown
# ---------------------------------------------------------------------------------------------


def test_each_markdown_file_becomes_a_document_node(tmp_path):
    write(tmp_path, "ideas.md", "# Ideas\n\nA garden on the roof.")
    write(tmp_path, "todo.md", "Buy seeds.")
    write(tmp_path, "notes.txt", "not markdown")
    mem = FakeMemory()
    summary = ingest_markdown_folder(mem, tmp_path)
    assert (summary.files, summary.nodes, summary.links) == (2, 2, 0)
    ideas = mem.nodes[mem.node("ideas.md")]
    assert ideas["text"] == "Ideas\n\nA garden on the roof."
    assert ideas["attributes"] == {
        "path": "ideas.md", "title": "Ideas", "folder": str(tmp_path.resolve())
    }  # fmt: skip
    assert ideas["provenance"] == "ingest"
    assert mem.nodes[mem.node("todo.md")]["text"] == "todo\n\nBuy seeds."  # title: file name


def test_wiki_and_relative_links_connect_files_in_any_order(tmp_path):
    write(tmp_path, "a.md", "See [[zeta]] and [the plan](sub/plan.md#goals) and [[sub/plan|it]].")
    write(tmp_path, "sub/plan.md", "# Plan\n\nBack to [start](../a.md).")
    write(tmp_path, "zeta.md", "Last file, linked from the first.")
    mem = FakeMemory()
    summary = ingest_markdown_folder(mem, tmp_path)
    a, plan, zeta = mem.node("a.md"), mem.node("sub/plan.md"), mem.node("zeta.md")
    assert mem.links() == {(a, zeta), (a, plan), (plan, a)}  # one edge per pair
    assert summary.links == 3 and summary.unresolved_links == 0


def test_a_link_by_path_wins_over_a_file_of_the_same_name_elsewhere(tmp_path):
    write(tmp_path, "a/x.md", "in a folder")
    write(tmp_path, "x.md", "at the top")
    write(tmp_path, "home.md", "[[x]] and [[a/x]]")
    write(tmp_path, "b/note.md", "[up](../x.md)")
    mem = FakeMemory()
    ingest_markdown_folder(mem, tmp_path)
    home, note = mem.node("home.md"), mem.node("b/note.md")
    top, nested = mem.node("x.md"), mem.node("a/x.md")
    assert mem.links() == {(home, top), (home, nested), (note, top)}


def test_markdown_of_any_spelling_and_links_in_brackets_or_decomposed_names_connect(tmp_path):
    write(tmp_path, "Budget 2024.MD", "The budget.")
    write(tmp_path, "Caf\u0065\u0301.markdown", "Written on a Mac: the name is decomposed.")
    write(tmp_path, "home.md", "See [the budget](<Budget 2024.md>) and [[Caf\u00e9]].")
    mem = FakeMemory()
    summary = ingest_markdown_folder(mem, tmp_path)
    home = mem.node("home.md")
    assert summary.files == 3 and summary.unresolved_links == 0
    decomposed = mem.node("Caf\u0065\u0301.markdown")
    assert mem.links() == {(home, mem.node("Budget 2024.MD")), (home, decomposed)}


def test_front_matter_after_a_byte_order_mark_and_an_author_written_as_a_link(tmp_path):
    path = write(tmp_path, "pm.md", "")
    path.write_bytes(
        '\ufeff---\ntitle: Release notes\nauthor: "[[Alice Smith]]"\n---\nWe shipped.\n'.encode()
    )
    mem = FakeMemory()
    ingest_markdown_folder(mem, tmp_path)
    doc = mem.nodes[mem.node("pm.md")]
    assert doc["attributes"]["title"] == "Release notes"
    assert mem.read_for_causes[0]["author"] == "Alice Smith"


def test_a_file_in_another_encoding_is_read_and_named_in_a_warning(tmp_path):
    (tmp_path / "old.md").write_bytes("Café notes from 2009.".encode("latin-1"))
    summary = ingest_markdown_folder(FakeMemory(), tmp_path)
    assert "not UTF-8" in summary.warning and "old.md" in summary.warning


def test_a_title_given_twice_is_stored_once(tmp_path):
    write(tmp_path, "a.md", "---\ntitle: Release notes\n---\n# Release notes\n\nWe shipped.")
    mem = FakeMemory()
    ingest_markdown_folder(mem, tmp_path)
    assert mem.nodes[mem.node("a.md")]["text"] == "Release notes\n\nWe shipped."


def test_an_attachment_is_no_link_to_a_missing_note_and_a_dotted_name_is_a_note(tmp_path):
    write(tmp_path, "a.md", "![[diagram.png]] [[budget.pdf]] [[Meeting 2024.03.01]] [[Node.js]]")
    write(tmp_path, "Node.js.md", "A runtime.")
    write(tmp_path, "Dr. Who.md", "A show.")
    write(tmp_path, "b.md", "[[Dr. Who]] and [[St. Louis trip|the trip]]")
    mem = FakeMemory()
    summary = ingest_markdown_folder(mem, tmp_path)
    assert summary.unresolved_links == 2  # the meeting and the trip, not the attachments
    assert mem.links() == {
        (mem.node("a.md"), mem.node("Node.js.md")),
        (mem.node("b.md"), mem.node("Dr. Who.md")),
    }


@pytest.mark.parametrize(
    ("name", "rule"), [("missing.json", "does not exist"), ("a.md", "give the folder")]
)
def test_a_path_that_is_no_chat_says_what_to_give(tmp_path, name, rule):
    if name.endswith(".md"):
        write(tmp_path, name, "A note.")
    with pytest.raises(ValidationError, match=rule) as err:
        ingest_chat(FakeMemory(), tmp_path / name)
    assert err.value.field == "path"


def test_a_file_whose_name_is_not_utf8_is_left_out_and_named(tmp_path):
    write(tmp_path, "ok.md", "Fine.")
    (tmp_path / "zz\udce9.md").write_bytes(b"# Bad\n\nx\n")
    mem = FakeMemory()
    summary = ingest_markdown_folder(mem, tmp_path)
    assert summary.files == 1 and list(mem.nodes) == [mem.node("ok.md")]
    assert "not UTF-8" in summary.warning and "zz" in summary.warning


def test_reference_links_and_links_with_a_title_in_single_quotes_connect(tmp_path):
    write(tmp_path, "adr/0003-queues.md", "# Queues\n\nWe use SQS.")
    write(tmp_path, "runbook.md", "# Runbook\n\nRestart the workers.")
    write(tmp_path, "oncall.md", "# Oncall\n\nPage the lead.")
    long_section = "We talked it through at length. " * 80
    write(
        tmp_path,
        "guide.md",
        "# Guide\n\n## Why\n\nSee the [queue decision][adr] and [the runbook][].\n\n"
        f"## Who\n\n{long_section}\n\n[Who to call](oncall.md 'the rota') is written down.\n\n"
        '## Links\n\n[adr]: adr/0003-queues.md\n[the runbook]: <runbook.md> "Runbook"\n',
    )
    with open_memory(tmp_path / "m.db", embeddings="none") as mem:
        summary = ingest_markdown_folder(mem, tmp_path)
        linked = {
            n.node.attributes["path"]
            for d in mem.find(attribute=("path", "guide.md"), limit=10)
            for n in mem.neighbors(d.id, relation="related", direction="out").neighbors
        }
    assert linked == {"adr/0003-queues.md", "runbook.md", "oncall.md"}
    assert summary.unresolved_links == 0


def related(mem: Any, path: str) -> set[tuple[str, str | None]]:
    """Where the notes of `path` (its document and sections) link: (path, heading or None)."""
    return {
        (n.node.attributes["path"], n.node.attributes.get("heading"))
        for d in mem.find(attribute=("path", path), limit=50)
        for n in mem.neighbors(d.id, relation="related", direction="out").neighbors
    }


def test_links_in_front_matter_properties_are_edges_as_obsidian_reads_them(tmp_path):
    for name in ("ADR 0003", "Index", "Runbook", "Oncall", "Pager", "Alice"):
        write(tmp_path, f"{name}.md", f"# {name}\n\nA note.")
    front = (
        '---\nrelated: "[[ADR 0003]]"\nup: [[Index]]\nsee:\n  - "[[Runbook|the runbook]]"\n'
        '  - [[Oncall]]\nalso: ["[[Pager]]", "[[Nowhere]]"]\nauthor: "[[Alice]]"\n---\n'
    )
    write(tmp_path, "queues.md", f"{front}# Queues\n\nWe moved to SQS.")
    with open_memory(tmp_path / "m.db", embeddings="none") as mem:
        summary = ingest_markdown_folder(mem, tmp_path)
        assert related(mem, "queues.md") == {
            (f"{n}.md", None) for n in ("ADR 0003", "Index", "Runbook", "Oncall", "Pager", "Alice")
        }
        assert summary.unresolved_links == 1  # [[Nowhere]]
        # A property taken out of the note ends its link, as a link taken out of its text does.
        write(tmp_path, "queues.md", f"{front.replace('up: [[Index]]', 'up: none')}# Queues\n")
        ingest_markdown_folder(mem, tmp_path)
        assert ("Index.md", None) not in related(mem, "queues.md")
        assert ("ADR 0003.md", None) in related(mem, "queues.md")


def test_an_obsidian_comment_is_hidden_text_no_link_and_no_prose(tmp_path):
    for name in ("b", "c", "d", "e"):
        write(tmp_path, f"{name}.md", f"# {name}\n\nA note.")
    write(
        tmp_path,
        "a.md",
        "# A\n\nSee [[b]]. %% once: [[c]] %% Done.\n\n"
        "%%\nDraft: [[d]]\nThe nightly backup job caused the checkout outage.\n%%\n\n"
        "```sql\nSELECT '%%' FROM t\n```\n\nAlso see [[e]]. `%%` is a literal.\n",
    )
    with open_memory(tmp_path / "m.db", embeddings="none") as mem:
        summary = ingest_markdown_folder(mem, tmp_path)
        assert related(mem, "a.md") == {("b.md", None), ("e.md", None)}
        (doc,) = mem.find(attribute=("path", "a.md"), limit=5)
        assert "once" not in doc.text and "Draft" not in doc.text
        assert "SELECT '%%'" in doc.text and "`%%` is a literal" in doc.text
        assert summary.causal_links == 0  # the commented-out sentence is not read for causes
        assert not [n for n in mem.find(limit=100) if "backup" in n.text]


def test_a_link_to_a_heading_reaches_that_section_of_a_long_note(tmp_path):
    filler = "We went through it minute by minute. " * 30
    write(
        tmp_path,
        "Postmortem.md",
        f"# Postmortem\n\nThe outage.\n\n## Timeline\n\n{filler}\n\n"
        f"## Root cause & fix\n\n{filler}\n\n## Follow-ups\n\n{filler}\n",
    )
    write(tmp_path, "Short.md", "# Short\n\n## Only\n\nA short note is stored whole.")
    write(tmp_path, "cause.md", "Why: [[Postmortem#Root cause & fix|the cause]].")
    write(tmp_path, "nested.md", "Then [[Postmortem#Timeline#Follow-ups]].")
    write(tmp_path, "anchor.md", "When: [the timeline](Postmortem.md#timeline).")
    write(tmp_path, "nowhere.md", "See [[Postmortem#Lessons]] and [[Short#Only]].")
    with open_memory(tmp_path / "m.db", embeddings="none") as mem:
        ingest_markdown_folder(mem, tmp_path)
        assert related(mem, "cause.md") == {("Postmortem.md", "Root cause & fix")}
        assert related(mem, "nested.md") == {("Postmortem.md", "Follow-ups")}
        assert related(mem, "anchor.md") == {("Postmortem.md", "Timeline")}
        # No such heading, or a note too short to be stored by section: its document.
        assert related(mem, "nowhere.md") == {("Postmortem.md", None), ("Short.md", None)}
        # The heading renamed: the link falls back to the document, and its old edge ends.
        write(tmp_path, "cause.md", "Why: [[Postmortem#Root cause]].")
        ingest_markdown_folder(mem, tmp_path)
        assert related(mem, "cause.md") == {("Postmortem.md", None)}


def test_an_unchanged_file_still_links_to_a_section_and_follows_its_heading(tmp_path):
    # `cause.md` is never touched: it is not read again, its recorded [[Page#Heading]] and
    # front-matter link are resolved against the postmortem as it is at each ingest.
    filler = "We went through it minute by minute. " * 30

    def postmortem(heading: str) -> None:
        write(
            tmp_path,
            "Postmortem.md",
            f"# Postmortem\n\nThe outage.\n\n## Timeline\n\n{filler}\n\n## {heading}\n\n{filler}\n",
        )

    postmortem("Root cause")
    write(tmp_path, "Index.md", "# Index\n\nAll notes.")
    write(tmp_path, "cause.md", '---\nup: "[[Index]]"\n---\nWhy: [[Postmortem#Root cause]].')
    with open_memory(tmp_path / "m.db", embeddings="none") as mem:
        ingest_markdown_folder(mem, tmp_path)
        assert related(mem, "cause.md") == {("Postmortem.md", "Root cause"), ("Index.md", None)}
        again = ingest_markdown_folder(mem, tmp_path)
        assert again.unchanged == 3
        assert related(mem, "cause.md") == {("Postmortem.md", "Root cause"), ("Index.md", None)}
        postmortem("What went wrong")  # no heading of that name: the document
        renamed = ingest_markdown_folder(mem, tmp_path)
        assert renamed.unchanged == 2  # cause.md and Index.md, not read again
        assert related(mem, "cause.md") == {("Postmortem.md", None), ("Index.md", None)}
        postmortem("Root cause")  # the heading back: its section again
        ingest_markdown_folder(mem, tmp_path)
        assert related(mem, "cause.md") == {("Postmortem.md", "Root cause"), ("Index.md", None)}


def test_a_vault_is_written_a_file_at_a_time_not_a_write_at_a_time(tmp_path):
    # Each commit waits for the disk (synchronous=FULL): one per write made a vault of a few
    # thousand notes take minutes, and a reader could see a note without its sections.
    sections = "".join(f"## Part {k}\n\n{'We tuned the pool. ' * 30}\n\n" for k in range(4))
    for i in range(20):
        links = f"See [[n{(i + 1) % 20}]] and [[n{(i + 2) % 20}]]."
        text = f"# Note {i}\n\nThe backup job caused the disk alert. {links}\n\n{sections}"
        write(tmp_path, f"n{i}.md", text)
    commits: list[str] = []
    with open_memory(tmp_path / "m.db", embeddings="none") as mem:
        mem.store._db.set_trace_callback(  # SQLite's own record of what it was asked to do
            lambda sql: commits.append(sql) if sql.strip().upper() == "COMMIT" else None
        )
        summary = ingest_markdown_folder(mem, tmp_path)
    assert summary.files == 20 and summary.nodes >= 100 and summary.links >= 120
    assert len(commits) <= 2 * 20 + 5  # a file's notes and claims, then its links


def test_links_to_missing_files_are_counted_not_created(tmp_path):
    write(
        tmp_path, "a.md", "[[Nowhere]] [gone](gone.md) ![pic](p.png) [web](https://x.org) [top](#a)"
    )
    mem = FakeMemory()
    summary = ingest_markdown_folder(mem, tmp_path)
    assert summary.unresolved_links == 2
    assert mem.edges == [] and len(mem.nodes) == 1


def test_links_in_code_are_not_links(tmp_path):
    write(tmp_path, "a.md", "```\n[[b]]\n```\nInline `[[b]]` too.")
    write(tmp_path, "b.md", "B")
    mem = FakeMemory()
    ingest_markdown_folder(mem, tmp_path)
    assert mem.edges == []


def test_a_long_file_is_split_into_sections_about_the_file(tmp_path):
    body = "\n\n".join(f"## Day {i}\n\n" + "Worked on the garden. " * 30 for i in range(4))
    write(tmp_path, "log.md", f"# Log\n\nThe garden diary.\n\n{body}\n\n## End\n\nSee [[other]].")
    write(tmp_path, "other.md", "Other")
    assert len(body) > SPLIT_OVER
    mem = FakeMemory()
    summary = ingest_markdown_folder(mem, tmp_path)
    log = mem.node("log.md")
    doc = mem.nodes[log]
    assert doc["text"] == "Log\n\nThe garden diary.\n\nSections: Day 0; Day 1; Day 2; Day 3; End"
    sections = {i: n for i, n in mem.nodes.items() if n["kind"] == "note"}
    assert len(sections) == 5
    assert mem.links("about") == {(s, log) for s in sections}
    end = next(i for i, n in sections.items() if n["attributes"]["heading"] == "End")
    assert sections[end]["text"] == "Log › End\n\nSee [[other]]."
    assert sections[end]["sources"] == ["log.md#end"]
    assert mem.links() == {(end, mem.node("other.md"))}  # the link starts from its section
    assert summary.nodes == 7 and summary.links == 6


def test_a_long_note_without_headings_is_recalled_to_its_last_line(tmp_path):
    log = [f"Standup {i}: we went through backlog item {i}, agreed on owners." for i in range(80)]
    log.append("Finally, Priya said the Zanzibar vendor contract renews on March 3rd.")
    write(tmp_path, "notes/standup-log.md", "# Standup log\n\n" + "\n\n".join(log))
    with open_memory(tmp_path / "m.db", embeddings="none") as mem:
        ingest_markdown_folder(mem, tmp_path / "notes")
        (hit,) = mem.recall("when does the Zanzibar vendor contract renew", k=1).hits
        assert "renews on March 3rd" in hit.node.text
        assert hit.node.sources == ["standup-log.md"]
        (doc,) = mem.find(kind="document", limit=2)
        assert doc.text.startswith("Standup log\n\nStandup 0:") and "Sections" not in doc.text
        # The log tidied: a short opening, the rest under a heading.
        tidied = "\n\n".join([*log[:3], "## Earlier", *log[3:]])
        write(tmp_path, "notes/standup-log.md", f"# Standup log\n\n{tidied}")
        assert ingest_markdown_folder(mem, tmp_path / "notes").gone == 1
        (item,) = mem.review_queue().items
        assert item.reason == "the opening of standup-log.md is kept whole on its document now"
        (hit,) = mem.recall("backlog item 2", k=1).hits
        assert hit.node.kind == "document" and "item 2, agreed" in hit.node.text


def test_a_very_long_section_is_stored_in_parts(tmp_path):
    paragraphs = "\n\n".join(f"Paragraph {i}. " + "x" * 900 for i in range(20))
    write(tmp_path, "big.md", f"# Big\n\n## Only\n\n{paragraphs}")
    mem = FakeMemory()
    ingest_markdown_folder(mem, tmp_path)
    parts = [n for n in mem.nodes.values() if n["kind"] == "note"]
    assert len(parts) > 1
    assert all(len(n["text"]) <= SECTION_MAX + 100 for n in parts)
    assert parts[1]["text"].startswith("Big › Only (part 2)\n\nParagraph")


def test_the_file_time_dates_its_nodes_and_links(tmp_path):
    stamp = datetime(2024, 2, 1, 12, tzinfo=UTC).timestamp()
    write(tmp_path, "a.md", "[[b]]", mtime=stamp)
    write(tmp_path, "b.md", "B")
    mem = FakeMemory()
    ingest_markdown_folder(mem, tmp_path)
    assert mem.nodes[mem.node("a.md")]["at"] == datetime(2024, 2, 1, 12, tzinfo=UTC)
    (edge,) = mem.edges
    assert edge[3]["at"] == datetime(2024, 2, 1, 12, tzinfo=UTC)


def test_front_matter_gives_title_and_tags(tmp_path):
    write(
        tmp_path,
        "n.md",
        "---\ntitle: 'Roof garden'\ntags:\n  - plants\n  - home\n---\n# Intro\n\nSoil.",
    )
    mem = FakeMemory()
    ingest_markdown_folder(mem, tmp_path)
    node = mem.nodes[mem.node("n.md")]
    assert node["attributes"] == {
        "path": "n.md",
        "folder": str(tmp_path.resolve()),
        "title": "Roof garden",
        "tags": ["plants", "home"],
    }
    assert node["text"].startswith("Roof garden\n\n# Intro")  # the heading stays in the body


def test_hidden_folders_are_skipped(tmp_path):
    write(tmp_path, ".obsidian/cache.md", "x")
    write(tmp_path, "visible.md", "y")
    mem = FakeMemory()
    assert ingest_markdown_folder(mem, tmp_path).files == 1


def test_ingesting_again_updates_the_same_nodes(tmp_path):
    write(tmp_path, "a.md", "first")
    mem = FakeMemory()
    ingest_markdown_folder(mem, tmp_path)
    write(tmp_path, "a.md", "second")
    ingest_markdown_folder(mem, tmp_path)
    (node,) = mem.nodes.values()
    assert node["text"] == "a\n\nsecond"


def test_prose_is_read_for_causes_section_by_section_without_its_markdown(tmp_path):
    body = "\n\n".join(
        [
            "Opening words.",
            *(f"## Part {i}\n\n" + "Filler sentence here. " * 40 for i in range(3)),
            "## Root cause\n\nThe **backup job** filled [the disk](disk.md), see [[ops|the ops"
            " page]]. ![graph](g.png)\n\n```\nrm -rf /\n```\n\n"
            "- We rolled back `cron` and _raised_ max_pool_size.\n"
            "- An alert would have prevented it.\n\n| a | b |\n|---|---|\n| 1 | 2 |\n\n"
            "> Quoted line.",
        ]
    )
    write(tmp_path, "pm.md", f"---\nauthor: Ana\n---\n# Postmortem\n\n{body}", mtime=1.7e9)
    mem = FakeMemory()
    ingest_markdown_folder(mem, tmp_path)
    (call,) = mem.read_for_causes
    sources = [source for source, _ in call["parts"]]
    assert sources == ["pm.md", *(f"pm.md#part-{i}" for i in range(3)), "pm.md#root-cause"]
    assert dict(call["parts"])["pm.md#root-cause"].split("\n\n") == [
        "The backup job filled the disk, see the ops page.",
        "We rolled back cron and raised max_pool_size.",
        "An alert would have prevented it.",
        "Quoted line.",
    ]
    assert call["author"] == "Ana"
    assert call["at"] == datetime.fromtimestamp(1.7e9, UTC)
    assert call["about"] == mem.node("pm.md")


@pytest.mark.parametrize(
    ("markdown", "prose"),
    [
        ("Root cause\n---\nThe cron job caused it.", ["The cron job caused it."]),
        ("<!-- the DNS change caused it -->\nThe cron job caused it.", ["The cron job caused it."]),
        ("The \\*cron\\* job caused it.", ["The *cron* job caused it."]),
        ("See the [runbook](https://w/x_(y)).", ["See the runbook."]),
        ("```\n~~~\nrm -rf /\n```\nAfter the code.", ["After the code."]),
        ("> > Nested quote.", ["Nested quote."]),
        ("a | b\n--|--\n1 | 2\n\n***\n\n    indented code\n\nText.", ["Text."]),
        ("[ref]: https://example.com\n\nUses [the ref][ref].", ["Uses the ref."]),
        ("- one\n  - nested\n- two", ["one", "nested", "two"]),
    ],
)
def test_markdown_is_read_as_commonmark_prose(markdown, prose):
    assert _prose(markdown).split("\n\n") == prose


def test_headings_of_one_name_get_anchors_of_their_own_and_long_ones_are_cut():
    assert _anchors(["Root cause", "Impact", "Root cause", "Root cause", "x" * 600, ""]) == [
        "root-cause", "impact", "root-cause-1", "root-cause-2", "x" * 100, "section"
    ]  # fmt: skip
    assert _anchors(["Root cause & fix", "Q&A", "Über-Plan (v2)", "हिन्दी नोट्स"]) == [
        "root-cause--fix", "qa", "über-plan-v2", "हिन्दी-नोट्स"
    ]  # fmt: skip
    assert _anchors(["Foo", "Foo", "Foo 1"]) == ["foo", "foo-1", "foo-1-1"]


@pytest.mark.parametrize(
    "timeline",
    [
        "- [02:41] The disk filled up.\n- 2024-03-11 03:10 The spike began.",
        "02:41 The disk filled up.\n03:10 The spike began.",
        "- 2:41 pm - The disk filled up.\n- 14:10 UTC: The spike began.",
        "Timeline:\n02:41 The disk filled up.\n03:10 The spike began.",
    ],
)
def test_a_timeline_entry_is_a_paragraph_without_its_clock_time(timeline):
    entries = [p for p in _prose(timeline).split("\n\n") if p != "Timeline:"]
    assert entries == ["The disk filled up.", "The spike began."]


def test_prose_wrapped_at_a_clock_time_or_inside_a_wiki_link_reads_as_one_line():
    assert _prose("We rolled back between\n02:41 and 03:10 because the deploy broke.") == (
        "We rolled back between 02:41 and 03:10 because the deploy broke."
    )
    assert _prose("Caused by [[backup-job|the nightly\nbackup job]].") == (
        "Caused by the nightly backup job."
    )
    assert _anchors(["Root  cause"]) == ["root--cause"]


def test_an_underlined_first_heading_is_the_title(tmp_path):
    write(tmp_path, "a.md", "Checkout outage\n===============\n\nIt went down.\n")
    mem = FakeMemory()
    ingest_markdown_folder(mem, tmp_path)
    (node,) = mem.nodes.values()
    assert node["attributes"]["title"] == "Checkout outage"


def test_a_heading_keeps_its_struck_words_in_its_anchor(tmp_path):
    write(
        tmp_path, "pm.md", "# PM\n\n## ~~Root cause~~ Actual root cause\n\nThe cron job caused it."
    )
    mem = FakeMemory()
    ingest_markdown_folder(mem, tmp_path)
    (call,) = mem.read_for_causes
    assert [w for w, _ in call["parts"]] == ["pm.md#root-cause-actual-root-cause"]
    _, sections, written = _split_sections(["## ~~Root cause~~ Actual root cause", "Text."])
    assert sections == [("Actual root cause", "Text.")]
    assert written == ["Root cause Actual root cause"]


def test_progress_counts_up_to_the_total(tmp_path):
    for name in "abc":
        write(tmp_path, f"{name}.md", name)
    seen: list[tuple[int, int]] = []
    ingest_markdown_folder(
        FakeMemory(), tmp_path, progress=lambda n, total: seen.append((n, total))
    )
    assert seen == [(1, 6)] * 6


def test_a_path_that_is_not_a_folder_is_rejected(tmp_path):
    with pytest.raises(ValidationError) as err:
        ingest_markdown_folder(FakeMemory(), tmp_path / "missing")
    assert err.value.field == "path"


# ---------------------------------------------------------------------------------------------
# Chat
# ---------------------------------------------------------------------------------------------


def dump(tmp_path: Path, name: str, data: Any) -> Path:
    p = tmp_path / name
    p.write_text(data if isinstance(data, str) else json.dumps(data), encoding="utf-8")
    return p


def test_a_jsonl_export_read_again_after_it_grew_stores_only_the_new_session(tmp_path):
    line = lambda session, who, text, minute: json.dumps(  # noqa: E731
        {"session": session, "speaker": who, "text": text, "time": f"2026-03-01T10:{minute}Z"}
    )
    b = [line("b", "Ana", "We went with SQLite because it needs no server.", "01"),
         line("b", "Ben", "It paid off: no ops burden at all.", "02")]  # fmt: skip
    p = dump(tmp_path, "chat.jsonl", "\n".join(b))
    with open_memory(tmp_path / "m.db", embeddings="none") as mem:
        ingest_chat(mem, p)
        q = {n.text: n.q_value for n in mem.find(kind="decision")}
        # The export now starts with an older session "a".
        p.write_text("\n".join([line("a", "Chi", "I love hiking.", "00"), *b]), encoding="utf-8")
        ingest_chat(mem, p)
        assert {n.text: n.q_value for n in mem.find(kind="decision")} == q
        assert [n.text for n in mem.find(kind="preference")] == ["Chi loves hiking."]
        (source,) = {s for n in mem.find(kind="decision") for s in n.sources}
        assert source.endswith(".b.m1")  # session b's first message, in this file


def written(p: Path) -> datetime:
    return datetime.fromtimestamp(p.stat().st_mtime, UTC)


def test_a_chat_file_without_times_read_again_unchanged_teaches_nothing_twice(tmp_path):
    lines = ["Ana: We went with SQLite because it needs no server.",
             "Ben: It paid off: no ops burden at all."]  # fmt: skip
    p = dump(tmp_path, "chat.json", lines)
    with open_memory(tmp_path / "m.db", embeddings="none") as mem:
        first = ingest_chat(mem, p)
        q = {n.text: n.q_value for n in mem.find(kind="decision")}
        again = ingest_chat(mem, p)
        assert (again.known, again.nodes) == (2, 0)
        assert {n.text: n.q_value for n in mem.find(kind="decision")} == q
        assert first.nodes and mem.stats().nodes == first.nodes


_READ_WHERE_THE_USER_LIVES = """
import json, sys
from ebbtide import open_memory
from ebbtide.ingest import ingest_chat

with open_memory(sys.argv[1], embeddings="none") as memory:
    ingest_chat(memory, sys.argv[2])
    print(json.dumps({n.text: n.attributes["said_at"][:10] for n in memory.find(kind="event")}))
"""


def test_a_chat_file_without_dates_is_of_the_day_where_it_was_written(tmp_path):
    """Written at 22:30 on 1 December twelve hours west of UTC (10:30 on the 2nd in UTC): its
    messages were said on the 1st, and its "yesterday" is 30 November, as for a message told
    without a time (the system clock is in the machine's offset)."""
    p = dump(tmp_path, "chat.json", ["Ana: I booked the venue for the offsite.",
                                     "Ana: Yesterday we hiked up Mount Tamalpais."])  # fmt: skip
    at = datetime(2026, 12, 2, 10, 30, tzinfo=UTC).timestamp()
    os.utime(p, (at, at))
    env = {**os.environ, "TZ": "Etc/GMT+12", "PYTHONPATH": str(Path(__file__).parents[1] / "src")}
    out = subprocess.run(
        [sys.executable, "-c", _READ_WHERE_THE_USER_LIVES, str(tmp_path / "m.db"), str(p)],
        env=env,
        capture_output=True,
        text=True,
        check=True,
    ).stdout
    assert json.loads(out) == {
        "Ana booked the venue for the offsite.": "2026-12-01",
        "Yesterday (30 November 2026) Ana and others hiked up Mount Tamalpais.": "2026-12-01",
    }


def assert_pottery_lovers_apart(mem) -> None:
    """Ana's and Bo's messages, each of its own conversation: neither recalled as a repeat of
    the other, and no source in common."""
    hits = {h.node.text: h for h in mem.recall("pottery", k=5, touch=False).hits}
    ana, bo = hits["Ana loves pottery."], hits["Bo loves pottery too."]
    assert ana.why.repeats is None and bo.why.repeats is None
    assert set(ana.node.sources).isdisjoint(bo.node.sources)


def written_a_day_later(p: Path) -> None:
    later = p.stat().st_mtime + 86_400
    os.utime(p, (later, later))


def test_two_chat_files_without_ids_keep_their_sources_apart(tmp_path):
    with open_memory(tmp_path / "m.db", embeddings="none") as mem:
        ingest_chat(mem, dump(tmp_path, "ana.json", ["Ana: I love pottery."]))
        ingest_chat(mem, dump(tmp_path, "bo.json", ["Bo: I love pottery too."]))
        assert_pottery_lovers_apart(mem)


def test_two_chat_files_numbering_their_messages_alike_keep_their_sources_apart(tmp_path):
    """Both exports give their messages ids "1" and "2": ids of two files, not one message."""

    def export(who, *said):
        return [{"id": str(i), "speaker": who, "text": t} for i, t in enumerate(said, start=1)]

    with open_memory(tmp_path / "m.db", embeddings="none") as mem:
        ingest_chat(mem, dump(tmp_path, "ana.json", export("Ana", "I love pottery.", "Hi!")))
        ingest_chat(mem, dump(tmp_path, "bo.json", export("Bo", "I love pottery too.", "Yo!")))
        assert_pottery_lovers_apart(mem)


def test_a_message_with_an_id_edited_in_its_chat_file_is_an_edit(tmp_path):
    def export(food):
        return [{"id": "1", "speaker": "Ana", "text": f"I'm allergic to {food}.",
                 "time": "2026-03-01T10:00:00Z"}]  # fmt: skip

    p = dump(tmp_path, "chat.json", export("peanuts"))
    with open_memory(tmp_path / "m.db", embeddings="none") as mem:
        ingest_chat(mem, p)
        assert ingest_chat(mem, p).known == 1  # read again unchanged: known by its id
        dump(tmp_path, "chat.json", export("walnuts"))
        written_a_day_later(p)
        ingest_chat(mem, p)
        texts = {n.text for n in mem.find(limit=50)}
    assert "Ana is allergic to walnuts." in texts and "Ana is allergic to peanuts." not in texts


def test_a_chat_file_rewritten_with_another_chat_keeps_the_two_apart(tmp_path):
    p = dump(tmp_path, "today.json", ["Ana: I love pottery."])
    with open_memory(tmp_path / "m.db", embeddings="none") as mem:
        ingest_chat(mem, p)
        dump(tmp_path, "today.json", ["Bo: I love pottery too."])  # the next day's export
        written_a_day_later(p)
        ingest_chat(mem, p)
        assert_pottery_lovers_apart(mem)


def test_a_dated_chat_session_without_ids_edited_in_place_keeps_its_messages_places(tmp_path):
    def export(where):
        said = [f"Chi: I love hiking in the {where}.", "Ana: We went with SQLite.", "Ben: Noted."]
        return {"sessions": [{"date": "2026-03-01T10:00:00Z", "messages": said}]}

    p = dump(tmp_path, "chat.json", export("Alps"))
    with open_memory(tmp_path / "m.db", embeddings="none") as mem:
        ingest_chat(mem, p)
        stored = mem.stats().nodes
        dump(tmp_path, "chat.json", export("Dolomites"))
        again = ingest_chat(mem, p)
        assert (again.known, mem.stats().nodes) == (2, stored + 1)
        alps, dolomites = (
            next(n for n in mem.find(kind="preference") if where in n.text)
            for where in ("Alps", "Dolomites")
        )
    assert dolomites.sources == alps.sources  # one message, at its place in this file


def test_a_named_session_exported_again_without_times_is_news(tmp_path):
    day = json.dumps({"session": "ops", "speaker": "Ben", "text": "The deploy failed again."})
    p = dump(tmp_path, "ops.jsonl", day)
    with open_memory(tmp_path / "m.db", embeddings="none") as mem:
        assert ingest_chat(mem, p).known == 0
        # The next day's export: written anew, so said anew (no id or time tells otherwise).
        written_a_day_later(p)
        again = ingest_chat(mem, p)
        assert (again.known, again.nodes) == (0, 1)


def test_a_timestamped_log_read_again_after_rotation_learns_nothing_twice(tmp_path):
    rows = [
        ("2026-03-01T10:00:00Z", "Ana", "We picked Postgres."),
        ("2026-03-01T10:01:00Z", "Ben", "We went with SQLite because it needs no server."),
        ("2026-03-01T10:02:00Z", "Ana", "It paid off: no ops burden at all."),
    ]
    lines = [json.dumps({"time": t, "speaker": w, "text": x}) for t, w, x in rows]
    p = dump(tmp_path, "log.jsonl", "\n".join(lines))
    with open_memory(tmp_path / "m.db", embeddings="none") as mem:
        ingest_chat(mem, p)
        q, stored = {n.text: n.q_value for n in mem.find(kind="decision")}, mem.stats().nodes
        p.write_text("\n".join(lines[1:]), encoding="utf-8")  # the first line rotated away
        ingest_chat(mem, p)
        assert {n.text: n.q_value for n in mem.find(kind="decision")} == q
        assert mem.stats().nodes == stored


def test_a_json_list_of_messages_is_one_session(tmp_path):
    p = dump(tmp_path, "chat.json", [{"speaker": "Ana", "text": "I adopted a dog."}, "Ben: Nice!"])
    mem = FakeMemory()
    summary = ingest_chat(mem, p)
    (session,) = mem.sessions
    assert session["date"] == written(p)  # what the file does not date, it dates
    assert [(m.place, m.speaker, m.text) for m in session["messages"]] == [
        ("m1", "Ana", "I adopted a dog."),
        ("m2", "Ben", "Nice!"),
    ]
    assert (summary.files, summary.sessions, summary.messages) == (1, 1, 2)
    assert (summary.nodes, summary.links) == (4, 2)  # counted from what remember returned


@pytest.mark.parametrize("name", ["chat.json", "chat.jsonl"])
def test_a_chat_file_with_a_byte_order_mark_reads_as_without(tmp_path, name):
    line = json.dumps({"speaker": "Ana", "text": "I adopted a dog."})
    text = f"[{line}]" if name.endswith(".json") else line + "\n"
    p = tmp_path / name
    p.write_bytes(b"\xef\xbb\xbf" + text.encode())
    mem = FakeMemory()
    ingest_chat(mem, p)
    assert mem.sessions[0]["messages"][0].text == "I adopted a dog."


def test_a_locomo_like_conversation_is_remembered_session_by_session(tmp_path):
    conversation = {
        "speaker_a": "Ana",
        "speaker_b": "Ben",
        "session_2_date_time": "9:00 am on 3 June, 2023",
        "session_2": [{"speaker": "Ben", "dia_id": "D2:1", "text": "We moved."}],
        "session_1_date_time": "1:56 pm on 8 May, 2023",
        "session_1": [
            {"speaker": "Ana", "dia_id": "D1:1", "text": "I went hiking yesterday."},
            {
                "speaker": "Ben",
                "dia_id": "D1:2",
                "text": "Look",
                "blip_caption": "a photo of a hill",
            },
        ],
    }
    p = dump(tmp_path, "conv.json", {"sample_id": "c1", "conversation": conversation, "qa": []})
    mem = FakeMemory()
    progress: list[tuple[int, int]] = []
    summary = ingest_chat(mem, p, progress=lambda n, t: progress.append((n, t)))
    assert [s["date"] for s in mem.sessions] == [
        datetime(2023, 5, 8, 13, 56, tzinfo=UTC),
        datetime(2023, 6, 3, 9, 0, tzinfo=UTC),
    ]
    assert [m.place for m in mem.sessions[0]["messages"]] == ["D1:1", "D1:2"]
    assert mem.sessions[0]["messages"][1].caption == "a photo of a hill"
    assert summary.sessions == 2 and progress == [(1, 2), (1, 2)]


def test_several_conversations_keep_their_turn_ids_apart(tmp_path):
    conv = {"session_1": [{"speaker": "Ana", "dia_id": "D1:1", "text": "Hi there, it rained."}]}
    p = dump(tmp_path, "all.json", [{"sample_id": "a", "conversation": conv},
                                    {"sample_id": "b", "conversation": conv}])  # fmt: skip
    mem = FakeMemory()
    ingest_chat(mem, p)
    assert [s["messages"][0].place for s in mem.sessions] == ["a:D1:1", "b:D1:1"]


def test_sessions_with_their_own_dates(tmp_path):
    data = {
        "sessions": [
            {"date": "2024-03-01T10:00:00Z", "messages": ["Ana: first"]},
            {"messages": ["Ana: second"]},
        ]
    }
    mem = FakeMemory()
    p = dump(tmp_path, "s.json", data)
    ingest_chat(mem, p)
    assert [s["date"] for s in mem.sessions] == [datetime(2024, 3, 1, 10, tzinfo=UTC), written(p)]
    assert [s["messages"][0].place for s in mem.sessions] == ["s1.m1", "s2.m1"]


def test_an_empty_session_of_an_export_is_passed_over(tmp_path):
    data = {"sessions": [{"messages": []}, {"messages": ["Ana: We picked Postgres."]}]}
    mem = FakeMemory()
    summary = ingest_chat(mem, dump(tmp_path, "s.json", data))
    assert [s["messages"][0].text for s in mem.sessions] == ["We picked Postgres."]
    assert (summary.sessions, summary.messages) == (2, 1)


def test_jsonl_groups_messages_by_session(tmp_path):
    lines = [
        {"session": "x", "speaker": "Ana", "text": "one", "time": "2024-01-01T09:00:00Z"},
        {"session": "y", "speaker": "Ben", "text": "two"},
        {"session": "x", "speaker": "Ben", "text": "three"},
    ]
    p = dump(tmp_path, "chat.jsonl", "\n".join(json.dumps(x) for x in lines) + "\n\n")
    mem = FakeMemory()
    summary = ingest_chat(mem, p)
    assert [[m.text for m in s["messages"]] for s in mem.sessions] == [["one", "three"], ["two"]]
    assert mem.sessions[0]["messages"][0].time == datetime(2024, 1, 1, 9, tzinfo=UTC)
    assert summary.messages == 3


SAID = datetime(2023, 5, 8, 13, 56, tzinfo=UTC)
EXPORTS = {
    "openai": [
        {"role": "system", "content": "Be brief."},
        {"role": "user", "content": [
            {"type": "text", "text": "We moved billing to Postgres 16."},
            {"type": "image_url", "image_url": {"url": "https://example.com/graph.png"}},
        ]},
        {"role": "assistant", "content": None, "tool_calls": [{"id": "c1", "type": "function"}]},
        {"role": "tool", "tool_call_id": "c1", "content": ""},
        {"role": "assistant", "content": [{"type": "text", "text": "Noted."}]},
    ],
    "discord": {"channel": {"name": "ops"}, "messages": [
        {"id": "1100", "timestamp": "2023-05-08T13:56:00.000+00:00",
         "author": {"id": "42", "name": "ana", "nickname": "Ana"},
         "content": "We moved billing to Postgres 16."},
        {"id": "1101", "timestamp": "2023-05-08T13:57:00+00:00",
         "author": {"id": "43", "name": "ben"}, "content": "", "attachments": [{"url": "https://cdn.example.com/x.png"}]},
        {"id": "1102", "timestamp": "2023-05-08T13:58:00+00:00",
         "author": {"id": "43", "name": "ben"}, "content": "Noted."},
    ]},
    # Slack's own export: times are "ts", epoch seconds as a string; "user" is an id and
    # "user_profile" names who it is.
    "slack": [
        {"type": "message", "user": "U024BE7LH", "text": "We moved billing to Postgres 16.",
         "ts": "1683554160.000200",
         "user_profile": {"real_name": "Ana Ruiz", "display_name": "ana", "name": "ana"}},
        {"type": "message", "user": "U0G9QF9C6", "text": "Noted.", "ts": "1683554280.000300",
         "user_profile": {"real_name": "Ben Okafor", "display_name": "", "name": "ben"}},
    ],
    "slack-like": [
        {"user": "ana", "text": "We moved billing to Postgres 16.", "timestamp": 1683554160000},
        {"user": "ben", "text": "Noted.", "timestamp": 1683554280},
    ],
    "mail-like": {"messages": [
        {"sender": "ana", "body": "We moved billing to Postgres 16.",
         "created_at": "2023-05-08T13:56:00Z"},
        {"sender": "ben", "body": "Noted.", "created_at": "2023-05-08T13:58:00"},
    ]},
    "telegram": {"name": "ops", "messages": [
        {"id": 1, "type": "message", "date": "2023-05-08T13:56:00", "from": "ana",
         "text": ["We moved ", {"type": "bold", "text": "billing"}, " to Postgres 16."]},
        {"id": 2, "type": "service", "date": "2023-05-08T13:57:00", "actor": "ben",
         "action": "pin_message", "text": ""},
        {"id": 3, "type": "message", "date": "2023-05-08T13:58:00", "from": "ben",
         "text": "Noted."},
    ]},
}  # fmt: skip


@pytest.mark.parametrize("shape", sorted(EXPORTS))
def test_chat_exports_as_people_have_them_are_read(tmp_path, shape):
    mem = FakeMemory()
    summary = ingest_chat(mem, dump(tmp_path, f"{shape}.json", EXPORTS[shape]))
    (session,) = mem.sessions
    said = [(m.speaker.lower(), m.text) for m in session["messages"]]
    assert said[-2:] == [
        ("user" if shape == "openai" else "ana", "We moved billing to Postgres 16."),
        ("assistant" if shape == "openai" else "ben", "Noted."),
    ]
    times = [m.time and m.time.replace(microsecond=0) for m in session["messages"][-2:]]
    assert times == ([None, None] if shape == "openai" else [SAID, SAID + timedelta(minutes=2)])
    assert summary.messages == len(said)


def test_a_message_with_nothing_said_is_left_out_and_the_others_keep_their_places(tmp_path):
    """A tool call (content null), an attachment or a service message says nothing: the
    export is read without it, not refused whole."""
    mem = FakeMemory()
    ingest_chat(mem, dump(tmp_path, "c.json", EXPORTS["openai"]))
    assert [m.place for m in mem.sessions[0]["messages"]] == ["m1", "m2", "m5"]
    with pytest.raises(ValidationError) as err:  # no words at all is still a mistake
        ingest_chat(mem, dump(tmp_path, "d.json", [{"role": "user", "words": "hi"}]))
    assert err.value.field == "messages[0].text"


@pytest.mark.parametrize(
    ("name", "content", "field"),
    [
        ("bad.jsonl", '{"speaker": "Ana", "text": "ok"}\nnot json\n', "line 2"),
        ("bad.jsonl", '{"speaker": "Ana", "text": "ok"}\n\n{"speaker": "Ben"}\n', "line 3.text"),
        (
            "bad.jsonl",
            '{"session": "a", "speaker": "Ana", "text": "ok"}\n{"session": "b", "speaker": "Ben"'
            ', "text": "ok"}\n{"session": "a", "text": "who?"}\n',
            "session[a] line 3.speaker",
        ),
        ("bad.jsonl", "[1, 2]\n", "line 1"),
        ("bad.json", "{nope", "path"),
        ("bad.json", '{"unknown": 1}', "path"),
        ("bad.json", '[{"speaker": "Ana"}]', "messages[0].text"),
        (
            "bad.json",
            '{"sessions": [{"messages": [{"text": "x"}]}]}',
            "sessions[0].messages[0].speaker",
        ),
        ("bad.json", '{"messages": ["Ana: hi"], "date": "someday"}', "date"),
        (
            "bad.json",
            '{"conversation": {"session_1": ["Ana: hi"], "session_1_date_time": "someday"}}',
            "conversations[0].conversation.session_1_date_time",
        ),
        ("chat.txt", "Ana: hi", "path"),
    ],
)
def test_bad_chat_files_name_what_is_wrong(tmp_path, name, content, field):
    with pytest.raises(ValidationError) as err:
        ingest_chat(FakeMemory(), dump(tmp_path, name, content))
    assert err.value.field == field


def test_a_truncated_last_line_of_a_jsonl_is_named_and_nothing_is_stored(tmp_path):
    good = json.dumps({"speaker": "Ana", "text": "I adopted a dog.", "time": 1700000000})
    p = dump(tmp_path, "chat.jsonl", good + '\n{"speaker": "Ben", "text": "Nic')
    with open_memory(tmp_path / "m.db", embeddings="none") as mem:
        with pytest.raises(ValidationError) as err:
            ingest_chat(mem, p)
        assert err.value.field == "line 2" and "valid JSON" in err.value.rule
        assert mem.stats().nodes == 0


def test_a_missing_chat_file_is_rejected(tmp_path):
    with pytest.raises(ValidationError) as err:
        ingest_chat(FakeMemory(), tmp_path / "nope.json")
    assert err.value.field == "path"


def test_a_folder_of_chat_exports_says_they_were_left_out_and_what_to_do(tmp_path):
    folder = tmp_path / "exports"
    folder.mkdir()
    dump(folder, "2024-03-01.json", [{"speaker": "Ana", "text": "I adopted a dog."}])
    dump(folder, "ops.JSONL", json.dumps({"speaker": "Ben", "text": "Deploy done."}))
    summary = ingest_markdown_folder(FakeMemory(), folder)
    assert summary.files == 0 and summary.warning is not None
    assert "2 chat file(s) left out (2024-03-01.json)" in summary.warning
    assert "give each chat file to ingest by itself" in summary.warning


def test_a_chat_file_read_before_its_ids_were_placed_in_it_teaches_nothing_twice(tmp_path):
    """A store written before a chat file's ids were placed in the file (sources "1", "2") knows
    its messages: reading the file again after the upgrade learns nothing twice."""
    said = [
        {"id": "1", "speaker": "Bo", "text": "Skipping the canary caused the checkout outage.",
         "time": "2026-03-01T10:00:00Z"},
        {"id": "2", "speaker": "Ana", "text": "I prefer blue-green deploys.",
         "time": "2026-03-01T10:01:00Z"},
    ]  # fmt: skip
    with open_memory(tmp_path / "m.db", embeddings="none") as mem:
        mem.remember(messages=said)  # as an older ingest stored the file: the ids as given
        before = {n.text: (n.q_value, n.read_count) for n in mem.find(limit=50)}
        report = ingest_chat(mem, dump(tmp_path, "chat.json", said))
        after = {n.text: (n.q_value, n.read_count) for n in mem.find(limit=50)}
    assert report.known == 2
    assert after == before

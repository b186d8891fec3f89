"""Ingestion adapters: a folder of Markdown notes, a chat export. They only call a Memory.

* `ingest_markdown_folder`: each `.md` file becomes a document node (a long one also a note per
  section, and per part of an opening longer than the document keeps, linked `about` it);
  `[[wiki links]]` (in front-matter properties too) and relative `[text](other.md)` or
  `[text][label]` links become `related` edges (to a heading's section, when stored by
  section; "[[#Heading]]" or "[text](#heading)" links another section of its own note),
  `%% comments %%` are left out, and the note's date (`_note_dates`: front matter's `date:`,
  `created:` or `updated:`, a daily note's name, else the file's modification time) dates
  all of it; front matter's `aliases:` are names its links may use. Its prose
  is read for causal claims ("the backup job filled the disk, which caused the outage"),
  stored as linked episodes whose `sources` name the file (and section), so a trace reaches
  them.
* `ingest_chat`: JSON (a list of messages, `{"messages": [...], "date": ...}`,
  `{"sessions": [{"messages": [...], "date": ...}, ...]}`, LoCoMo-style
  `{"conversation": {"session_1": [...], "session_1_date_time": "..."}}`, or a list of those)
  or JSONL (a message per line, grouped by an optional `session` field). Each session goes to
  `memory.remember(messages=[Message, ...], date=...)`.

Each file is one stored note (`_Homes`), updated in place when ingested again: known by its
file's path, so two folders' README.md are two notes, and kept when its folder moves, or when
the file is renamed or moved within the folder with its bytes unchanged. A file gone from the
folder since, or a section gone from its file, is hidden and put to a person for deletion,
and what it said of causes is retracted; if it comes back, so does all of it. A folder
ingested before that cannot be found now is left as it is.
"""

from __future__ import annotations

import dataclasses
import hashlib
import itertools
import json
import os
import posixpath
import re
import time
import unicodedata
from collections import Counter
from collections.abc import Callable
from contextlib import AbstractContextManager
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path, PurePosixPath
from typing import Any, NamedTuple, Protocol
from urllib.parse import unquote

from markdown_it import MarkdownIt
from markdown_it.token import Token

from .claims import AUTHOR_MAX, WHERE_MAX
from .errors import NotFound, ValidationError
from .model import INGESTED
from .sentences import word_set
from .text import shorten, similarity
from .timeparse import parse_datetime
from .transcript import Message, conversation_name, in_conversation, in_file, parse_transcript

__all__ = ["IngestSummary", "ingest_chat", "ingest_markdown_folder"]

Progress = Callable[[int, int], None]  # (advance, total): drives a progress bar

SPLIT_OVER = 2_000  # characters: a longer file is also stored section by section
SECTION_MAX = 8_000  # characters: a longer section is stored in parts, split at paragraphs
LEAD_MAX = 1_000  # characters of a long file's opening kept on its document node
ANCHOR_MAX = 100  # characters of a heading kept in its anchor (a source's "#...")
PROVENANCE = INGESTED
GONE_MAX = 1_000_000  # nodes of one folder looked at for files gone since the last ingest
ADOPT_WORDS = 0.5  # share of words a moved note keeps to be the same note (`text.similarity`)
REASON_MAX = 1_000  # characters of a review reason
DATES_SHOWN = 3  # ignored dates a warning names
# What a file's record (`Memory.file_read`) was written by: raised when reading a file stores
# something else, so every file is read again once.
READER = 5  # 2: links keep the heading they name, records their file's anchors; 3: and
# links to a section of their own note ("[[#Heading]]", "[text](#anchor)"); 4: front matter's
# tags written as one string ("tags: a, b"), and the "#tags" in its text; 5: a note's dates
# (front matter's, a daily note's name) and aliases


class MemoryLike(Protocol):
    """What the adapters call: `Memory` has it, and so can a test double."""

    def remember(self, *args: Any, **kwargs: Any) -> Any: ...

    def connect(self, *args: Any, **kwargs: Any) -> Any: ...

    def remember_causes(self, *args: Any, **kwargs: Any) -> Any: ...

    def get(self, *args: Any, **kwargs: Any) -> Any: ...

    def find(self, *args: Any, **kwargs: Any) -> Any: ...

    def forget(self, *args: Any, **kwargs: Any) -> Any: ...

    def keep_links(self, *args: Any, **kwargs: Any) -> Any: ...

    def files_read(self, *args: Any, **kwargs: Any) -> Any: ...

    def file_read(self, *args: Any, **kwargs: Any) -> Any: ...

    def batch(self) -> AbstractContextManager[Any]: ...


@dataclass
class IngestSummary:
    files: int = 0
    nodes: int = 0  # written or met again: documents, sections and the claims read in them
    links: int = 0
    causal_links: int = 0  # what notes say caused, enabled or prevented what
    sessions: int = 0
    messages: int = 0
    known: int = 0  # messages remembered before: read again as context only
    unresolved_links: int = 0  # links to Markdown files that are not in the folder
    gone: int = 0  # files, and sections of files, no longer there: put to a person to delete
    unchanged: int = 0  # files as they were when last ingested (content and time): not read
    # "Notes/a.md: created '2025-13-45'": front matter dates and daily-note names that are no
    # date, left out (the note is dated otherwise)
    dates_ignored: list[str] = dataclasses.field(default_factory=list)
    warning: str | None = None  # what a person should know: nothing was marked gone, say
    # Sessions stored with what the rules found because the LLM extractor failed, and why.
    degraded: str | None = None
    seconds: float = 0.0

    def warn(self, text: str) -> None:
        """Add `text` to what a person should know, after what is there already."""
        self.warning = f"{self.warning}; {text}" if self.warning else text


# ---------------------------------------------------------------------------------------------
# Markdown
# ---------------------------------------------------------------------------------------------

_MARKDOWN = MarkdownIt("commonmark").enable(["table", "strikethrough"])
# target, heading ("Page#A#B": under A, B), words
# ("[[#Heading]]": a section of the same note, no target)
_WIKI = re.compile(r"\[\[([^\]|#\n]*)(?:#([^\]|\n]*))?(?:\|([^\]\n]*))?\]\]")
_SCHEME = re.compile(r"^[a-zA-Z][a-zA-Z0-9+.-]*:")


@dataclass
class _Doc:
    rel: str  # path inside the folder, '/'-separated
    title: str
    body: str  # everything after the title
    lead: str  # the text before the first heading
    sections: list[tuple[str, str]]  # (heading, text), in order
    anchors: list[str]  # each section's, as GitHub makes them (`_anchors`)
    tags: list[str]
    author: str | None  # front matter's: who a note's "I" and "we" are
    dates: _Dates
    aliases: list[str]  # front matter's: other names its links use
    lossy: bool = False  # not UTF-8: what could not be read is U+FFFD
    # "[label]: target" definitions anywhere in the file: a section's "[text][label]" uses them
    references: dict[str, Any] = dataclasses.field(default_factory=dict)
    properties: str = ""  # the [[links]] its front matter's properties hold, as Obsidian's are


class _Read(NamedTuple):
    """A file of this ingest: read now or, unchanged, as its record (`Memory.file_read`)."""

    rel: str
    at: datetime  # the note's (`_Dates.at`)
    record: dict[str, Any]


def _record(stored: str | None) -> dict[str, Any] | None:
    """A file's record as `Memory.file_read` kept it, or None (none, or not one)."""
    try:
        record = json.loads(stored) if stored else None
    except ValueError:
        return None
    return record if isinstance(record, dict) else None


def _kept(
    homes: _Homes, record: dict[str, Any] | None, rel: str, digest: str, mtime: int
) -> dict[str, Any] | None:
    """A file's record when its file is as it was when last ingested (same bytes and time;
    touched, what it says is dated anew, so it is read again) and still that note."""
    if (
        record is None
        or (record.get("reader"), record.get("hash"), record.get("mtime"))
        != (READER, digest, mtime)
        or not homes.kept(rel, record)
    ):
        return None
    return record


def ingest_markdown_folder(
    memory: MemoryLike, path: str | Path, progress: Progress | None = None, *, reread: bool = False
) -> IngestSummary:
    """Remember every Markdown file under `path` (hidden files and folders skipped), then the
    links between them: two passes, so a link may point at a file read later. A file as it was
    when last ingested is not read again, unless `reread` (extraction settings changed, say):
    read again, it rewrites the same nodes and claims. A file whose note's path vanished in
    this run, with the very same bytes, is that note renamed (`_Homes.renamed`). Last, what
    earlier ingests recorded in this folder, in folders inside it or (within this one) above
    it, and in a folder that moved here, and this one did not write, is settled
    (`_settle_gone`). A folder ingested before that cannot be found now is left as it is."""
    started = time.perf_counter()
    root = Path(path)
    if not root.is_dir():
        raise ValidationError("path", "must be a folder", str(path))
    found = sorted(
        p
        for p in root.rglob("*")
        if p.suffix.lower() in MARKDOWN_SUFFIXES
        and p.is_file()
        and not any(s.startswith(".") for s in p.relative_to(root).parts)
    )
    # A name that is no UTF-8 (written by another system's encoding) cannot be stored as a
    # source or found again: the file is left out and named, not a crash halfway through.
    files = [p for p in found if _utf8(str(p))]
    unnamed = [p for p in found if not _utf8(str(p))]
    folder = root.resolve().as_posix()
    rels = [p.relative_to(root).as_posix() for p in files]
    records = memory.files_read([f"{folder}/{rel}" for rel in rels])
    total = 2 * len(files)
    summary = IngestSummary(files=len(files))
    node_of: dict[str, str] = {}
    read: list[_Read] = []
    written: set[str] = set()
    replaced: set[str] = set()  # what the files read again had written before
    homes = _Homes(memory, folder, rels)
    if homes.vanished():  # a file no note is recorded at may be one of them renamed
        homes.unplaced.update(
            hashlib.sha256(p.read_bytes()).hexdigest()
            for p, rel in zip(files, rels, strict=True)
            if f"{folder}/{rel}" not in homes.by_file
        )
    for p, rel in zip(files, rels, strict=True):
        raw = p.read_bytes()
        digest = hashlib.sha256(raw).hexdigest()
        stat = p.stat()
        former = _record(records.get(f"{folder}/{rel}"))
        kept = None if reread else _kept(homes, former, rel, digest, stat.st_mtime_ns)
        if kept is not None:  # read before as it is now, its writes committed: nothing to do
            summary.unchanged += 1
            node_of[rel] = kept["stem"]
            written.update(kept["written"])
            read.append(_Read(rel, datetime.fromisoformat(kept["at"]), kept))
        else:
            if former is not None:  # a section it had (a heading renamed): its links may end
                replaced.update(i for i in former.get("written", []) if isinstance(i, str))
            doc = _read(root, p, raw)
            home = homes.of(doc, digest)
            # A file is written in one go: one commit, its new texts embedded in one call,
            # with the record of what was read (so a crash before the commit leaves it unread).
            with memory.batch():
                stored = dataclasses.replace(doc, rel=home.path)
                before = set(written)
                node_of[rel], starts = _remember_doc(memory, stored, home, summary, written)
                if home.stem in homes.legacy:
                    _retire_numbered_sections(memory, home.stem, home.path, summary)
                long = len(doc.body) > SPLIT_OVER
                record = {
                    "reader": READER,
                    "hash": digest,
                    "mtime": stat.st_mtime_ns,
                    "stem": node_of[rel],
                    "folder": home.folder,
                    "path": home.path,
                    "written": sorted(written - before),
                    # A long file's sections, as a link names them: stored whole, None.
                    "headings": [h for h, _ in doc.sections] if long else None,
                    "anchors": doc.anchors if long else None,
                    "lossy": doc.lossy,
                    "at": doc.dates.at.isoformat(),
                    "aliases": doc.aliases,
                    "dates_ignored": doc.dates.ignored,
                    "links": [[n, _link_names(t, rel, doc.references)] for n, t in starts],
                    "linked": None,
                }
                memory.file_read(f"{folder}/{rel}", json.dumps(record))
            read.append(_Read(rel, doc.dates.at, record))
        if progress:
            progress(1, total)
    records_of = {e.rel: e.record for e in read}
    names = _name_index(rels, {rel: records_of[rel]["aliases"] for rel in rels})
    sections_of = {e.rel: _section_nodes(e.record) for e in read}
    # A link to a note outside this folder is not ours to end.
    read_now = set(node_of.values()) | written | replaced
    for entry in read:
        record = entry.record
        linked: list[list[Any]] = []
        for node_id, said in record["links"]:
            targets: list[str] = []
            for name, exact, heading in said:
                rel = _target(names, name, exact)
                if rel is None:
                    summary.unresolved_links += 1
                    continue
                anchor = _heading_anchor(records_of[rel], heading)
                target = sections_of[rel].get(anchor or "", node_of[rel])
                # Within a note only a link to another of its sections is one: to itself, or
                # to its own document (stored whole, or no such heading), it would be a loop.
                if rel == entry.rel and target in (node_id, node_of[rel]):
                    continue
                if target not in targets:
                    targets.append(target)
            linked.append([node_id, targets])
        if record["linked"] == linked:  # an unchanged file whose targets all stayed put
            if progress:
                progress(1, total)
            continue
        # A file's links are written in one go too, with the record that they were.
        with memory.batch():
            for node_id, targets in linked:
                for target in targets:
                    memory.connect(
                        node_id, target, "related", 1.0, provenance=PROVENANCE, at=entry.at
                    )
                    summary.links += 1
                # A link taken out of the note ends (the note said it; it says it no more).
                memory.keep_links(
                    node_id,
                    "related",
                    targets,
                    provenance=PROVENANCE,
                    said_in=f"{folder}/{entry.rel}",
                    among=read_now,
                )
            memory.file_read(f"{folder}/{entry.rel}", json.dumps({**record, "linked": linked}))
        if progress:
            progress(1, total)
    if read:
        present = {
            f"{folder}/{e.rel}": None if e.record["headings"] is None else set(e.record["headings"])
            for e in read
        }
        present |= {_resolved(f): v for f, v in present.items()}  # a file read through a link
        missing = []
        for record in sorted(homes.folders):
            if _within(record, folder) is not None or (
                _within(_resolved(record), folder) is not None
            ):
                # this folder or one in it (maybe through a link): every note recorded there
                _settle_gone(memory, record, None, written, present, summary)
            elif _within(folder, record) is not None:  # one above: what lies in this one
                _settle_gone(memory, record, folder, written, present, summary)
            elif _exists(record) is False:
                if homes.moved_here(record):  # moved here: what did not come along
                    _settle_gone(memory, record, None, written, present, summary, moved_to=folder)
                else:  # unmounted, another branch checked out, or deleted: not for us to say
                    missing.append(record)
        if missing:
            summary.warning = (
                f"{len(missing)} folder(s) ingested before cannot be found ({missing[0]}): "
                "their notes are left as they are; ingesting a folder above one settles it"
            )
    else:
        summary.warning = "no Markdown file found: nothing stored before is marked gone"
        chats = sorted(
            p.relative_to(root).as_posix()
            for p in root.rglob("*")
            if p.suffix.lower() in (".json", ".jsonl")
            and not any(s.startswith(".") for s in p.relative_to(root).parts)
        )
        if chats:  # a folder of chat exports: they are read one file at a time
            summary.warning += (
                f"; {len(chats)} chat file(s) left out ({chats[0]}): a folder is read for "
                "notes, give each chat file to ingest by itself"
            )
    summary.dates_ignored = [f"{e.rel}: {said}" for e in read for said in e.record["dates_ignored"]]
    if summary.dates_ignored:
        shown = "; ".join(summary.dates_ignored[:DATES_SHOWN])
        more = len(summary.dates_ignored) - DATES_SHOWN
        ignored = (
            f"{len(summary.dates_ignored)} date(s) ignored, not a date: {shown}"
            + (f"; and {more} more (--json lists them)" if more > 0 else "")
            + "; those notes are dated otherwise"
        )
        summary.warn(ignored)
    lossy = [e.rel for e in read if e.record["lossy"]]
    if lossy:
        garbled = (
            f"{len(lossy)} file(s) are not UTF-8 ({lossy[0]!a}): what could not be read is "
            "stored as U+FFFD; save them as UTF-8 and ingest again"
        )
        summary.warn(garbled)
    if unnamed:
        left_out = (
            f"{len(unnamed)} file(s) left out, their names are not UTF-8 "
            f"({os.fsencode(unnamed[0].relative_to(root))!r}): rename them to read them"
        )
        summary.warn(left_out)
    summary.seconds = time.perf_counter() - started
    return summary


MARKDOWN_SUFFIXES = frozenset({".md", ".markdown"})  # in any case: "Notes.MD"
# What a [[link]] may name that is no note: the files a vault keeps beside its notes.
ATTACHMENTS = frozenset(
    f".{x}"
    for x in word_set(
        "png jpg jpeg gif svg webp avif bmp tif tiff heic heif ico pdf epub mp4 m4v mov webm mkv "
        "ogv 3gp mpeg mpg mp3 wav m4a ogg flac zip csv tsv xls xlsx doc docx ppt pptx txt json "
        "yaml yml html htm canvas base"
    )
)


def _utf8(name: str) -> bool:
    try:
        name.encode("utf-8")
    except UnicodeEncodeError:
        return False
    return True


class _Home(NamedTuple):
    """Which stored note a file is."""

    stem: str  # its document node's id; its sections' ids begin with it
    folder: str  # the folder it is recorded in: this one, or one above it ingested before
    path: str  # its path in that folder
    moved_from: list[str]  # where its file was before its folder moved, as its claims name it


class _Homes:
    """Finds each file's stored note. A note is known by its file's absolute path, so two
    folders' README.md are two notes and a file ingested with its folder or with a folder above
    it is one (recorded in the outer folder). A note whose file is gone (its folder moved or
    renamed), or stored before folders were recorded, is the same note when it has the same
    path in its folder, the same title and most of the same words; the best such is adopted,
    and what did not come along from the folder it moved from is settled too (`moved_away`).
    A file renamed or moved within the folder is found by its bytes (`renamed`). The documents
    are read once."""

    def __init__(self, memory: MemoryLike, folder: str, rels: list[str]) -> None:
        self.memory = memory
        self.folder = folder
        self.reading = {f"{folder}/{rel}" for rel in rels}
        self.ids: set[str] = set()
        self.by_file: dict[str, Any] = {}
        self.by_path: dict[str, list[Any]] = {}
        for node in memory.find(kind="document", limit=GONE_MAX):
            if node.provenance != PROVENANCE:
                continue  # a document someone stored by hand, whatever its attributes say
            at, path = node.attributes.get("folder"), node.attributes.get("path")
            self.ids.add(node.id)
            self.by_path.setdefault(path, []).append(node)
            if isinstance(at, str) and isinstance(path, str):
                self.by_file.setdefault(f"{at}/{path}", node)
        self.folders = Counter(n.attributes["folder"] for n in self.by_file.values())
        self.live = Counter(
            n.attributes["folder"] for n in self.by_file.values() if n.status != "forgotten"
        )
        self.taken: set[str] = set()
        self.moved_away: Counter[str] = Counter()  # folder -> its notes adopted here
        self._led: dict[str, Any] | None = None
        self.legacy: set[str] = set()  # notes adopted from before folders were recorded
        self._vanished: dict[str, list[Any]] | None = None
        self.unplaced: Counter[str] = Counter()  # digests of the files no note is recorded at

    def moved_here(self, record: str) -> bool:
        """Whether a folder that cannot be found moved here: most of its notes were adopted
        (one copied file alone does not make an unmounted folder moved)."""
        return self.moved_away[record] > 0 and 2 * self.moved_away[record] >= self.live[record]

    def kept(self, rel: str, record: dict[str, Any]) -> bool:
        """Whether a file read before as it is now is still that note, recorded where it was
        (not hidden as gone, nor read now with a folder above it): then it is taken as is."""
        node = self.by_file.get(f"{self.folder}/{rel}")
        if node is None or node.id in self.taken or node.id != record.get("stem"):
            return False
        at, path = node.attributes["folder"], node.attributes["path"]
        if node.status == "forgotten" or (at, path) != (record.get("folder"), record.get("path")):
            return False  # a file that came back comes back, read again
        if at != self.folder and at.startswith(self.folder + "/"):
            return False  # now recorded in this folder: its notes say so
        self.taken.add(node.id)
        return True

    def of(self, doc: _Doc, digest: str) -> _Home:
        file = f"{self.folder}/{doc.rel}"
        node = self.by_file.get(file)
        if node is not None and node.id not in self.taken:
            at, path = node.attributes["folder"], node.attributes["path"]
            if at != self.folder and at.startswith(self.folder + "/"):
                at, path = self.folder, doc.rel  # now ingested with a folder above it
            return self._take(node.id, at, path, [])
        node = self._through_links().get(file)
        if node is not None and node.id not in self.taken:  # recorded where a link now stands
            old = f"{node.attributes['folder']}/{node.attributes['path']}"
            return self._take(node.id, self.folder, doc.rel, [old])
        renamed = self.renamed(doc, digest)
        if renamed is not None:
            return renamed
        adopted = self._adopted(doc)
        if adopted is not None:
            return adopted
        own = "md-" + hashlib.sha1(file.encode()).hexdigest()[:16]
        # The id may hold a note that moved away and another took its place: count past it.
        stem = next(
            c
            for c in itertools.chain([own], (f"{own}.{k}" for k in itertools.count(1)))
            if c not in self.ids and c not in self.taken
        )
        return self._take(stem, self.folder, doc.rel, [])

    def vanished(self) -> dict[str, list[Any]]:
        """The notes recorded in this folder (or a folder in or above it, at a path in it)
        whose file is gone since, not read now and not hidden before, by the digest of their
        file as it was last read (its record): what a rename in this run may have left."""
        if self._vanished is None:
            gone = {
                f: n
                for f, n in self.by_file.items()
                if f not in self.reading
                and n.status != "forgotten"
                and _within(f, self.folder) is not None
                and not _is_link(f)
                and _exists(f) is False
            }
            self._vanished = {}
            for f, stored in self.memory.files_read(sorted(gone)).items():
                record = _record(stored)
                if record is not None and record.get("stem") == gone[f].id:
                    self._vanished.setdefault(str(record.get("hash")), []).append(gone[f])
        return self._vanished

    def renamed(self, doc: _Doc, digest: str) -> _Home | None:
        """The note a file is when it is another note's file renamed or moved in this folder
        (as a vault does it): that note's file vanished in this run and the file has its very
        bytes. Only when no other vanished note and no other new file has those bytes (two
        empty "Untitled" notes are not guessed apart). Its claims, said under its old path,
        stay its own (`moved_from`)."""
        old = self.vanished().get(digest, [])
        if len(old) != 1 or self.unplaced[digest] != 1 or old[0].id in self.taken:
            return None
        node = old[0]
        at = node.attributes["folder"]
        was = [f"{at}/{node.attributes['path']}"]
        above = _within(f"{self.folder}/{doc.rel}", at)
        if _within(at, self.folder) is None and above is not None:
            # recorded in a folder above: it stays recorded there, as a file not renamed would
            return self._take(node.id, at, above, was)
        return self._take(node.id, self.folder, doc.rel, was)

    def _through_links(self) -> dict[str, Any]:
        """Notes recorded in, above or below this folder, or in a folder that leads into it
        or to one above it, at a path where a folder became a link (not a file this ingest
        reads, nor a file link: that is a name another folder still keeps), by where it leads
        now (worked out once, when a file is not found where it was recorded)."""
        if self._led is None:
            # When two recorded paths lead to one file, this folder's own note wins, then a
            # folder's above, then one that only leads here.
            rank: dict[str, int] = {}
            for at in self.folders:
                led = _resolved(at) or at
                if _within(at, self.folder) is not None:
                    rank[at] = 0
                elif _within(self.folder, at) is not None:
                    rank[at] = 1
                elif _within(self.folder, led) is not None or _within(led, self.folder) is not None:
                    rank[at] = 2
            self._led = {}
            candidates = [(f, n) for f, n in self.by_file.items() if n.attributes["folder"] in rank]
            for f, n in sorted(candidates, key=lambda c: rank[c[1].attributes["folder"]]):
                if f not in self.reading and not _is_link(f):
                    led = _resolved(f)
                    if led and led != f:
                        self._led.setdefault(led, n)
        return self._led

    def _adopted(self, doc: _Doc) -> _Home | None:
        legacy = "md-" + hashlib.sha1(doc.rel.encode()).hexdigest()[:16]
        text = _doc_text(doc)
        best, best_words = None, ADOPT_WORDS
        for old in self.by_path.get(doc.rel, []):
            was = old.attributes.get("folder")
            if old.id in self.taken or old.attributes.get("title") != doc.title:
                continue
            if was is None and old.id != legacy:
                continue  # stored before folders were recorded: only under the old id
            if (
                isinstance(was, str)
                and _exists(Path(was) / doc.rel) is not False
                and _resolved(was) != self.folder
            ):
                continue  # another folder's file, still there (or it cannot be told)
            words = similarity(old.text, text)
            if words >= best_words:
                best, best_words = old, words
        if best is None:
            return None
        was = best.attributes.get("folder")
        if isinstance(was, str):
            self.moved_away[was] += 1
        else:
            self.legacy.add(best.id)
        return self._take(best.id, self.folder, doc.rel, [f"{was}/{doc.rel}"] if was else [])

    def _take(self, stem: str, folder: str, path: str, moved: list[str]) -> _Home:
        self.taken.add(stem)
        return _Home(stem, folder, path, moved)


def _settle_gone(
    memory: MemoryLike,
    record: str,
    folder: str | None,
    written: set[str],
    present: dict[str, set[str] | None],
    summary: IngestSummary,
    *,
    moved_to: str | None = None,
) -> None:
    """What earlier ingests recorded in folder `record` (lying in `folder`, when that is a
    folder below it) and this one did not write: a file deleted or renamed, or a section gone
    from its file (`present`: the files read now by absolute path, with the headings of those
    stored section by section), or, with `moved_to`, what did not come along when `record`
    moved there. A file still there but not read (in a hidden folder, through a link) is not
    gone. Each such node is hidden, waiting for a person to approve its deletion, and what a
    gone file said of causes is retracted. One pinned (a gone file's sections too), or kept
    by a person lately, stays."""
    found = []
    for node in memory.find(attribute=("folder", record), limit=GONE_MAX):
        path = node.attributes.get("path")
        if node.provenance != PROVENANCE or not isinstance(path, str):
            continue  # not a note this adapter stored, whatever its attributes say
        if folder is None or _within(f"{record}/{path}", folder) is not None:
            found.append(node)
    pinned = {n.attributes.get("path") for n in found if n.kind == "document" and n.pinned}
    for node in found:
        rel = node.attributes.get("path", "")
        file = f"{record}/{rel}"
        if node.id in written or node.pinned:
            continue
        if file not in present and (led := _resolved(file)) in present:
            file = led  # recorded where a link now stands: read where it leads
        if rel in pinned and file not in present:
            continue
        if file not in present and _exists(file) is not False:
            continue  # still there, only not read (in a hidden folder, through a link)
        if node.status != "forgotten":  # hidden already (asked for before): not asked again
            reason = _gone_reason(node, record, file, present, moved_to)[:REASON_MAX]
            if not memory.forget(node.id, reason, asked_by="ingest").queued:
                continue  # a person kept it lately
            summary.gone += 1
        if node.kind == "document":  # its file is gone, or read as another note: it says nothing
            memory.remember_causes([], about=node.id)


def _within(path: str, folder: str) -> str | None:
    """`path` relative to `folder` ("" for the folder itself), or None when it is not in it."""
    p, f = PurePosixPath(path), PurePosixPath(folder)
    if p == f:
        return ""
    return p.relative_to(f).as_posix() if p.is_relative_to(f) else None


def _resolved(path: str) -> str:
    """Where a path leads, through links ("" when that cannot be told)."""
    try:
        return Path(path).resolve().as_posix()
    except (OSError, RuntimeError):  # RuntimeError: a loop of links
        return ""


def _is_link(path: str) -> bool:
    try:
        return Path(path).is_symlink()
    except OSError:
        return False


def _exists(path: str | Path) -> bool | None:
    """Whether a path exists; None when it cannot be told (a mount that does not answer)."""
    try:
        return Path(path).exists()
    except OSError:
        return None


def _gone_reason(
    node: Any, record: str, file: str, present: dict[str, set[str] | None], moved_to: str | None
) -> str:
    """Why `node`, recorded in `record` for `file` (where its path leads), is put to a person."""
    rel = node.attributes.get("path", "")
    if moved_to is not None:
        return f"{rel} was not in {record} when it moved to {moved_to}"
    if file not in present:
        return f"{rel} is no longer in {record}"
    if node.kind == "document":
        return f"{rel} is read as another note now (its title and most of its words changed)"
    if present[file] is None:
        return f"{rel} is short enough now to be stored whole, not by section"
    part = re.search(r"-p(\d+)$", node.id)
    if "heading" not in node.attributes:  # the opening, before the first heading
        if part:
            return f"part {part.group(1)} of the opening of {rel} is no longer in {rel}"
        return f"the opening of {rel} is kept whole on its document now"
    what = f"part {part.group(1)} of section" if part else "section"
    anchor = node.sources[-1].partition("#")[2] if node.sources else ""
    return f"{what} '{node.attributes.get('heading', '')}' ({rel}#{anchor}) is no longer in {rel}"


def _read(root: Path, p: Path, raw: bytes) -> _Doc:
    # utf-8-sig: a byte-order mark (Windows editors write one) would hide the front matter.
    try:
        decoded, lossy = raw.decode("utf-8-sig"), False
    except UnicodeDecodeError:  # another encoding: read what can be, and say so
        decoded, lossy = raw.decode("utf-8-sig", errors="replace"), True
    meta, front, text = _front_matter(decoded)
    lines = _uncommented(text).strip().splitlines()
    title = meta.get("title")
    env: dict[str, Any] = {}
    tokens = _MARKDOWN.parse("\n".join(lines), env)  # the file is parsed once
    heads = _headings(tokens)
    start = 0
    if heads and heads[0].tag == "h1" and not heads[0].start:
        said = " ".join(_inline_words(heads[0].inline).split())
        if not title or said.casefold() == str(title).strip().casefold():
            opening = heads.pop(0)  # "# Title" (or underlined) opens the file, once
            title, start = title or said, opening.end
    lines = lines[start:]
    lead, sections, written = _split_sections(
        lines, [h._replace(start=h.start - start, end=h.end - start) for h in heads]
    )
    tags = meta.get("tags")
    author = meta.get("author")
    return _Doc(
        rel=p.relative_to(root).as_posix(),
        title=str(title or p.stem),
        body="\n".join(lines).strip(),
        lead=lead,
        sections=sections,
        anchors=_anchors(written),
        tags=list(dict.fromkeys([*_tags(tags), *_inline_tags(tokens)])),
        author=_author(author),
        dates=_note_dates(meta, p.stem, _modified(p)),
        aliases=_aliases(meta.get("aliases", meta.get("alias")), str(title or p.stem)),
        lossy=lossy,
        references=env.get("references", {}),
        properties=" ".join(m.group(0) for m in _WIKI.finditer(front)),
    )


def _modified(p: Path) -> datetime:
    """When a file was last written, in this machine's offset as the system clock tells time:
    what it says without a date ("yesterday", a session it does not date) is of its writer's
    day, not of the UTC date, which late in the evening west of UTC is already tomorrow."""
    return datetime.fromtimestamp(p.stat().st_mtime, UTC).astimezone()


class _Dates(NamedTuple):
    """When a note was written, and the time its recency counts from."""

    written: datetime | None  # time-window queries find it by this (`said_at`)
    at: datetime  # its nodes, links and claims are dated so: the recency clock
    ignored: list[str]  # "created '2025-13-45'": what named no date


# A daily note's name: "2026-11-30", "2026-11-30 Standup", "2026-11-30-retro".
_DAILY = re.compile(r"(\d{4}-\d\d-\d\d)(?:$|[\s_.-])")
# A template's placeholder ("{{date}}", Templater's "<% tp.date.now() %>"): filled in when
# the template is used, no bad date.
_PLACEHOLDER = re.compile(r"\{\{.*\}\}|<%.*%>")


def _note_dates(meta: dict[str, Any], stem: str, modified: datetime) -> _Dates:
    """A note's dates. Written: front matter's `date:`, else `created:`, else the date its
    name opens with (a daily note), else `updated:`. Its recency counts from the later of
    `updated:` and that, never later than its file was written (a date ahead is a plan, not
    an edit), else from its file's modification time. A value that names no date is left
    out and told (`ignored`)."""
    ignored: list[str] = []
    found: dict[str, datetime] = {}
    for key in ("date", "created", "updated"):
        value = meta.get(key)
        if value is None or (isinstance(value, str) and _PLACEHOLDER.search(value)):
            continue
        t = _front_date(value)
        if t is None:
            ignored.append(f"{key} {value!r}")
        else:
            found[key] = t
    named = _DAILY.match(stem)
    if named:
        t = _front_date(named.group(1))
        if t is None:
            ignored.append(f"file name {named.group(1)!r}")
        else:
            found["name"] = t
    written = next((found[k] for k in ("date", "created", "name", "updated") if k in found), None)
    latest = max((t for t in (written, found.get("updated")) if t is not None), default=modified)
    return _Dates(written, min(latest, modified), ignored)


def _front_date(value: Any) -> datetime | None:
    """A date as front matter writes one: ISO 8601, a date ("2026-11-30", "2026/11/30") or a
    date and time ("2026-11-30 14:00", "2026-11-30T14:00:00+01:00", "… 08:15 +0100"). One
    without an offset is this machine's local time, as a file's modification time is (a
    writer's "14:00" is their clock's). None when `value` is no such date."""
    if not isinstance(value, str):
        return None
    text = re.sub(r"^(\d{4})/(\d\d)/(\d\d)", r"\1-\2-\3", value.strip())
    text = re.sub(r"\s+(Z|[+-]\d\d:?\d\d)$", r"\1", text)
    if not re.match(r"\d{4}-\d\d-\d\d(?:$|[T ]\d)", text):
        return None  # fromisoformat also reads "20261130" and "2026-W48-1", no vault's dates
    try:
        t = datetime.fromisoformat(text)
        return t if t.tzinfo else t.astimezone()
    except (ValueError, OverflowError, OSError):  # no such day; a year the local clock can't
        return None


def _aliases(value: Any, title: str) -> list[str]:
    """Front matter's aliases, as Obsidian reads them: a list, or one string of them separated
    by commas ("aliases: Ali, A. Smith"); not the note's own title again."""
    said = value if isinstance(value, list) else str(value or "").split(",")
    names = (" ".join(str(a).split()) for a in said)
    return list(dict.fromkeys(a for a in names if a and a.casefold() != title.casefold()))


def _tags(value: Any) -> list[str]:
    """Front matter's tags as Obsidian reads them: a list, or one string of them separated by
    commas or spaces ("tags: a, b"), each without its '#'."""
    said = value if isinstance(value, list) else re.split(r"[,\s]+", value or "")
    return [t for t in (str(t).strip().lstrip("#") for t in said) if t]


# Obsidian's inline tag: after a space or a line's start (not "page#heading" or a URL's
# fragment), letters, digits, '_', '-' and '/', not only digits ("#123" is an issue number).
_INLINE_TAG = re.compile(r"(?<!\S)#([\w/-]*[^\W\d][\w/-]*)")


def _inline_tags(tokens: list[Token]) -> list[str]:
    """The "#tags" written in a note's text, in order: in its prose, lists, quotes, tables and
    headings, not in code."""
    return [
        m.group(1)
        for tok in tokens
        if tok.type == "inline"
        for m in _INLINE_TAG.finditer(
            "".join(c.content if c.type == "text" else " " for c in tok.children or [])
        )
    ]


def _author(value: Any) -> str | None:
    """Front matter's author, when it names one person (longer than a name may be, or naming
    several, it is none): who the note's "I" and "we" are."""
    if not isinstance(value, str):
        return None
    # Obsidian writes a person as a link to their note: author: "[[Alice Smith]]".
    name = " ".join(re.sub(r"^\[\[([^\]|]+)(?:\|[^\]]*)?\]\]$", r"\1", value.strip()).split())
    one = 0 < len(name) <= AUTHOR_MAX and not re.search(r"[,;&/]| and ", name)
    return name if one else None


def _front_matter(raw: str) -> tuple[dict[str, Any], str, str]:
    """Simple YAML front matter (`key: value`, `key: [a, b]` and `- item` lists), the front
    matter as written, and the text after it."""
    if not raw.startswith("---"):
        return {}, "", raw
    lines = raw.splitlines()
    end = next((i for i in range(1, len(lines)) if lines[i].strip() in ("---", "...")), None)
    if end is None:
        return {}, "", raw
    meta: dict[str, Any] = {}
    key = None
    for line in lines[1:end]:
        item = re.match(r"^\s*-\s+(.+)$", line)
        if item and key is not None:
            meta.setdefault(key, [])
            if isinstance(meta[key], list):
                meta[key].append(item.group(1).strip().strip("'\""))
            continue
        pair = re.match(r"^([A-Za-z_][\w-]*)\s*:\s*(.*)$", line)
        if pair:
            key, value = pair.group(1).lower(), pair.group(2).strip()
            if value.startswith("[") and value.endswith("]"):
                meta[key] = [v.strip().strip("'\"") for v in value[1:-1].split(",") if v.strip()]
            elif value:
                meta[key] = value.strip("'\"")
    return meta, "\n".join(lines[1:end]), "\n".join(lines[end + 1 :])


_FENCE = re.compile(r"^ {0,3}(`{3,}|~{3,})")
_SPAN_OR_COMMENT = re.compile(r"(`+)|%%")


def _uncommented(text: str) -> str:
    """`text` without its Obsidian comments (`%% … %%`, in a line or across lines: hidden when
    the note is read), each line break of one kept. A "%%" in code is code, and one never
    closed is kept as written (a stray one does not hide the rest of the note)."""
    out: list[str] = []
    held: list[str] | None = None  # from an open "%%": dropped when it closes
    fence = ""  # the open code fence's backticks or tildes
    for line in text.splitlines(keepends=True):
        if held is None and fence:
            if line.strip() and set(line.strip()) == {fence[0]} and len(line.strip()) >= len(fence):
                fence = ""
            out.append(line)
            continue
        if held is None and (opened := _FENCE.match(line)):
            fence = opened.group(1)
            out.append(line)
            continue
        i = 0
        while i < len(line):
            if held is not None:
                end = line.find("%%", i)
                if end < 0:
                    held.append(line[i:])
                    break
                out.append("\n" * "".join([*held, line[i:end]]).count("\n"))
                held, i = None, end + 2
                continue
            m = _SPAN_OR_COMMENT.search(line, i)
            if m is None:
                out.append(line[i:])
                break
            if m.group(1):  # a code span, when its run of backticks closes on this line
                close = re.search(rf"(?<!`){m.group(1)}(?!`)", line[m.end() :])
                stop = m.end() + close.end() if close else m.end()
                out.append(line[i:stop])
                i = stop
                continue
            out.append(line[i : m.start()])
            held, i = ["%%"], m.end()
    if held is not None:
        out.extend(held)
    return "".join(out)


class _Heading(NamedTuple):
    start: int  # the lines it spans
    end: int
    tag: str  # "h1" ... "h6"
    inline: Token  # its words


def _headings(tokens: list[Token]) -> list[_Heading]:
    """The headings CommonMark sees (ATX or underlined; not a '#' line in code, HTML or a
    quote)."""
    return [
        _Heading(tok.map[0], tok.map[1], tok.tag, tokens[i + 1])
        for i, tok in enumerate(tokens)
        if tok.type == "heading_open" and tok.level == 0 and tok.map
    ]


def _split_sections(
    lines: list[str], heads: list[_Heading] | None = None
) -> tuple[str, list[tuple[str, str]], list[str]]:
    """The text before the first heading, (heading, text) for each heading after it, and each
    heading as written (struck words too, which its anchor keeps). `heads`: the lines'
    headings, when already parsed."""
    if heads is None:
        heads = _headings(_MARKDOWN.parse("\n".join(lines)))
    if not heads:
        return "\n".join(lines).strip(), [], []
    stops = [h.start for h in heads[1:]] + [len(lines)]
    sections = [
        (" ".join(_inline_words(h.inline).split()), "\n".join(lines[h.end : stop]).strip())
        for h, stop in zip(heads, stops, strict=True)
    ]
    written = [_inline_words(h.inline, struck=True).replace("\n", " ") for h in heads]
    return "\n".join(lines[: heads[0].start]).strip(), sections, written


def _doc_text(doc: _Doc) -> str:
    """What a file's document node holds: the whole note, or for a long one its title, its
    opening and the list of its sections (which are stored apart)."""
    # Its aliases beside its title: recall finds "Ali" as it finds "Alice Smith".
    title = f"{doc.title} ({', '.join(doc.aliases)})" if doc.aliases else doc.title
    if len(doc.body) <= SPLIT_OVER:
        return f"{title}\n\n{doc.body}".strip()
    outline = "; ".join(h for h, _ in doc.sections)
    return "\n\n".join(
        p for p in (title, shorten(doc.lead, LEAD_MAX), outline and f"Sections: {outline}") if p
    )


def _remember_doc(
    memory: MemoryLike,
    doc: _Doc,
    home: _Home,
    summary: IngestSummary,
    written: set[str],
) -> tuple[str, list[tuple[str, str]]]:
    """Store one file (its path as `home` records it): its document node and, when long, a note
    per section (part). Returns the document's node id and where its links start from."""
    # None: what the file no longer says is taken off its notes.
    said = doc.dates.written
    attrs: dict[str, Any] = {
        "path": doc.rel,
        "title": doc.title,
        "folder": home.folder,
        "said_at": said.isoformat() if said else None,
    }
    body = doc.body
    long = len(body) > SPLIT_OVER
    node = memory.remember(
        _doc_text(doc),
        "document",
        node_id=home.stem,
        attributes={**attrs, "tags": doc.tags or None, "aliases": doc.aliases or None},
        sources=[doc.rel],
        provenance=PROVENANCE,
        at=doc.dates.at,
    )
    summary.nodes += 1
    written.add(node.id)
    _read_causes(memory, doc, node.id, summary, formerly=home.moved_from)
    # Links in front matter's properties are the document's, as its text's are.
    own = f"{doc.properties}\n\n{body if not long else doc.lead}".strip()
    if not long:
        return node.id, [(node.id, own)]
    starts = [(node.id, own)]  # the opening's links are the document's
    # An opening longer than the document keeps of it (a log without headings, say) is stored
    # too, as a section with no heading (anchor ""): none of a note is left unfindable.
    opening = [(None, "", doc.lead)] if len(doc.lead) > LEAD_MAX else []
    headed = [(h, a, t) for (h, t), a in zip(doc.sections, doc.anchors, strict=True)]
    for heading, anchor, section in [*opening, *headed]:
        for i, part in enumerate(_parts(section)):
            name = doc.title if heading is None else f"{doc.title} › {heading}"
            note = memory.remember(
                f"{name} (part {i + 1})\n\n{part}" if i else f"{name}\n\n{part}",
                "note",
                node_id=_section_id(home.stem, anchor, i),
                attributes=attrs if heading is None else {**attrs, "heading": heading},
                sources=[f"{doc.rel}#{anchor}" if anchor else doc.rel],
                provenance=PROVENANCE,
                at=doc.dates.at,
            )
            memory.connect(note.id, node.id, "about", 1.0, provenance=PROVENANCE, at=doc.dates.at)
            written.add(note.id)
            summary.nodes += 1
            summary.links += 1
            if heading is not None:
                starts.append((note.id, part))
    return node.id, starts


def _retire_numbered_sections(
    memory: MemoryLike, stem: str, rel: str, summary: IngestSummary
) -> None:
    """An earlier version numbered a file's sections (`-s1`, `-s2`, …) and recorded no folder,
    so `_settle_gone` cannot find them: when such a note is adopted, now that sections are
    stored by heading, the numbered copies are put to a person, all with one reason
    (`ebbtide review approve --all`)."""
    for n in itertools.count(1):
        try:
            old = memory.get(f"{stem}-s{n}")
        except NotFound:
            return
        if old.status != "forgotten" and not old.pinned:
            reason = f"{rel}: an old numbered copy of a section, now stored by its heading"
            asked = memory.forget(old.id, reason[:REASON_MAX], asked_by="ingest")
            summary.gone += int(asked.queued)


def _section_id(stem: str, anchor: str, part: int) -> str:
    """A section's node id: by its anchor, so a section keeps its node when another is added
    or removed before it (one part of a long section after another)."""
    digest = hashlib.sha1(anchor.encode()).hexdigest()[:10]
    return f"{stem}-{digest}" + (f"-p{part + 1}" if part else "")


def _read_causes(
    memory: MemoryLike, doc: _Doc, node_id: str, summary: IngestSummary, *, formerly: list[str]
) -> None:
    """The file's causal claims, read in one go (a later section may speak of what an earlier
    one told) section by section, short file or long, so each names where it was said.
    `formerly`: where the file was before its folder moved, as its claims still name it."""
    sections = zip(doc.anchors, doc.sections, strict=True)
    parts = [
        (source[:WHERE_MAX], piece)
        for source, text in (
            (doc.rel, doc.lead),
            *((f"{doc.rel}#{a}", t) for a, (_, t) in sections),
        )
        for piece in _parts(_prose(text))
        if piece.strip()
    ]
    # Called with no parts too: a note that says nothing now retracts what it said.
    found = memory.remember_causes(
        parts, about=node_id, author=doc.author, at=doc.dates.at, formerly=formerly
    )
    summary.nodes += len(found.nodes)
    summary.causal_links += len(found.edges)


_FOOTNOTE = re.compile(r"\[\^[^\]\s]+\]:?")
# "02:41 The disk filled up" in a timeline: when, not part of what happened.
_CLOCK = re.compile(
    r"^\[?(?:\d{4}-\d\d-\d\d[ T])?\d{1,2}:\d\d(?::\d\d)?(?:\s*(?:am|pm|utc|z))?\]?\s*[-–—:]?\s+",
    re.IGNORECASE,
)


def _prose(markdown: str) -> str:
    """A note's prose as CommonMark reads it, one paragraph a line, apart by blank lines: the
    paragraphs of its text, lists and quotes, with links as their words and code spans as
    their text; headings, code blocks, HTML, tables and images are left out."""
    tokens = _MARKDOWN.parse(markdown)
    out = []
    for before, token in itertools.pairwise(tokens):
        if token.type == "inline" and before.type == "paragraph_open":
            words = _FOOTNOTE.sub("", _inline_words(token))
            lines = words.split("\n")
            # Lines that each open with a clock time are a timeline's entries, one a paragraph
            # (after a label: "Timeline:"); prose wrapped before "02:41 and 03:10" is not.
            first = lines[0].strip()
            labelled = bool(_CLOCK.match(first)) or first.endswith(":") or len(first.split()) < 3
            timeline = (
                len(lines) > 1 and labelled and all(_CLOCK.match(ln.strip()) for ln in lines[1:])
            )
            for line in lines if timeline else [words]:
                line = _CLOCK.sub("", " ".join(line.split()))
                line = _WIKI.sub(_link_words, line)
                if line:
                    out.append(line)
    return "\n\n".join(out)


def _link_words(m: re.Match[str]) -> str:
    """What a [[wiki link]] reads as: its words, else its target, else ("[[#Heading]]") the
    heading it names."""
    return m.group(3) or m.group(1) or (m.group(2) or "").rsplit("#", 1)[-1]


def _inline_words(inline: Token, *, struck: bool = False) -> str:
    """The words of an inline token: text and code spans, not images or HTML, and words struck
    through only when `struck` (a heading's anchor keeps them, as GitHub's does)."""
    words: list[str] = []
    depth = 0
    for child in inline.children or []:
        depth += {"s_open": 1, "s_close": -1}.get(child.type, 0)
        if depth and not struck:
            continue
        if child.type in ("softbreak", "hardbreak"):
            words.append("\n")
        elif child.type in ("text", "code_inline"):
            words.append(child.content)
    return "".join(words)


def _parts(text: str) -> list[str]:
    """A section cut at paragraph breaks into pieces of at most SECTION_MAX characters (a
    paragraph longer than that is cut where it must)."""
    if len(text) <= SECTION_MAX:
        return [text]
    parts: list[str] = []
    current = ""
    for para in re.split(r"\n\s*\n", text):
        while len(para) > SECTION_MAX:
            if current:
                parts.append(current)
                current = ""
            parts.append(para[:SECTION_MAX])
            para = para[SECTION_MAX:]
        if current and len(current) + 2 + len(para) > SECTION_MAX:
            parts.append(current)
            current = ""
        current = f"{current}\n\n{para}" if current else para
    if current:
        parts.append(current)
    return parts


def _anchors(headings: list[str]) -> list[str]:
    """Each heading's anchor, as GitHub makes them: lower case, without punctuation or symbols
    but hyphens and underscores, each space a hyphen ("Root cause & fix" -> root-cause--fix;
    at most ANCHOR_MAX characters), and "-1", "-2" after a name already taken."""
    taken: set[str] = set()
    out = []
    for heading in headings:
        kept = (
            c for c in heading.strip().lower()
            if c in "-_ " or unicodedata.category(c)[0] in "LMN"
        )  # fmt: skip
        slug = "".join(kept).replace(" ", "-")[:ANCHOR_MAX] or "section"
        anchor, n = slug, 0
        while anchor in taken:
            n += 1
            anchor = f"{slug}-{n}"
        taken.add(anchor)
        out.append(anchor)
    return out


def _name_index(rels: list[str], aliases: dict[str, list[str]]) -> dict[str, str]:
    """Names a link may use for a file, lowercased: its path without '.md' or, when no path
    is spelled so, its bare name (the first file of that name), or else one of its front
    matter's `aliases` (as Obsidian, a note's own name wins over another's alias)."""
    index = {_link_name(rel): rel for rel in rels}
    for rel in rels:
        index.setdefault(_link_name(rel).rsplit("/", 1)[-1], rel)
    for rel in rels:
        for alias in aliases[rel]:
            index.setdefault(_link_name(alias), rel)
    return index


def _link_name(path: str) -> str:
    """A path as links name it: without its Markdown suffix, lowercased, and composed (NFC),
    so "[[Café]]" finds a file whose name macOS wrote decomposed."""
    stem, suffix = posixpath.splitext(path)
    bare = stem if suffix.lower() in MARKDOWN_SUFFIXES else path
    return unicodedata.normalize("NFC", bare).lower()


def _target(names: dict[str, str], name: str, exact: bool) -> str | None:
    """The file a link's name (`_link_names`) finds among `names`, or None: one by path
    (`exact`) only when the file is at that path."""
    found = names.get(name)
    return found if not exact or (found is not None and _link_name(found) == name) else None


def _link_names(text: str, rel: str, references: dict[str, Any]) -> list[tuple[str, bool, str]]:
    """The names of the files `text` links to, as `_target` finds them (by path: `exact`), each
    with the heading it names after '#' ("" for none: as written, or its anchor): its
    `[[wiki links]]` and the links CommonMark reads in it, `[text](target 'title')` or
    `[text][label]` by the file's `references`, not in code or HTML; "[[#Heading]]" and
    "[text](#anchor)" name the file itself (`rel`). Kept with what an ingest read, so a file
    not read again still links to the files and sections of the folder as it is now."""
    inline = [
        t for t in _MARKDOWN.parse(text, {"references": dict(references)}) if t.type == "inline"
    ]
    code_free = "\n".join(re.sub(r"`[^`\n]*`", "", t.content) for t in inline)
    out: list[tuple[str, bool, str]] = []
    itself = _link_name(rel)
    for m in _WIKI.finditer(code_free):
        target, heading = m.group(1).strip(), (m.group(2) or "").rsplit("#", 1)[-1]
        if not target:
            if heading.strip():
                out.append((itself, True, heading))
            continue
        if posixpath.splitext(target)[1].lower() in ATTACHMENTS:
            continue  # an attachment: ![[diagram.png]], [[budget.pdf]]; "[[Node.js]]" is a note
        out.append((_link_name(target), False, heading))
    folder = posixpath.dirname(rel)
    for link in (c for t in inline for c in t.children or [] if c.type == "link_open"):
        href, _, fragment = unquote(str(link.attrs.get("href", ""))).partition("#")
        target = href.split("?", 1)[0]
        if not href and fragment:
            out.append((itself, True, fragment))
            continue
        if not target or _SCHEME.match(target) or target.startswith("/"):
            continue
        suffix = posixpath.splitext(target)[1].lower()
        if suffix and suffix not in MARKDOWN_SUFFIXES:
            continue  # an image or another kind of file
        out.append((_link_name(posixpath.normpath(posixpath.join(folder, target))), True, fragment))
    return out


def _section_nodes(record: dict[str, Any]) -> dict[str, str]:
    """A long file's section nodes (their first parts) by anchor, from its record (`_kept`);
    none for a file stored whole."""
    return {anchor: _section_id(record["stem"], anchor, 0) for anchor in record["anchors"] or []}


def _heading_anchor(record: dict[str, Any], heading: str) -> str | None:
    """The anchor of the section of a long file (its record) a link names: by its anchor
    ("#root-cause--fix", as a Markdown link has it) or by its words ("#Root cause & fix", as
    Obsidian's has it, which leaves out or spaces some of a heading's signs); None when no
    heading is so named, or the file is stored whole."""
    anchors = record["anchors"]
    if not heading or anchors is None:
        return None
    if heading in anchors:
        return heading
    words = _words(heading)
    return next(
        (a for h, a in zip(record["headings"], anchors, strict=True) if _words(h) == words), None
    )


def _words(text: str) -> list[str]:
    return re.findall(r"\w+", text.casefold())


# ---------------------------------------------------------------------------------------------
# Chat
# ---------------------------------------------------------------------------------------------


@dataclass
class _Session:
    messages: list[Message]
    date: datetime | None = None


def ingest_chat(
    memory: MemoryLike, path: str | Path, progress: Progress | None = None
) -> IngestSummary:
    """Remember a chat export session by session.

    `memory.remember(messages=..., date=...)` must return something with `nodes`, `edges`
    and `known` (a `TranscriptResult`); the summary counts them.
    """
    started = time.perf_counter()
    p = Path(path)
    if not p.exists():
        raise ValidationError("path", "does not exist", str(path))
    if not p.is_file():
        raise ValidationError(
            "path", "must be a folder of Markdown notes or a chat file", str(path)
        )
    # A session the file does not date was written by the time the file was: read again
    # unchanged, its messages are known by that date and place (`told.key`); rewritten (the
    # next day's export), they are news.
    written = _modified(p)
    sessions = [
        s if s.date is not None else dataclasses.replace(s, date=written) for s in _chat_sessions(p)
    ]
    # Messages without ids are numbered by place ("s1.m3"), in a conversation named by the
    # file's path and the session's date: read again, or edited in place, a dated session's
    # messages keep their ids; another file's, or this path rewritten (another day's export,
    # a log rotated: its undated sessions dated anew by it), are other conversations. Ids the
    # file gives ("1", "2": as another export's) are its own, named by its path alone: read
    # again, an id keeps its words (known) or its place (edited), whatever the file's date.
    where = str(p.resolve())
    sessions = [
        dataclasses.replace(
            s,
            messages=in_conversation(
                in_file(s.messages, conversation_name(where)), conversation_name(where, s.date)
            ),
        )
        for s in sessions
    ]
    summary = IngestSummary(files=1, sessions=len(sessions))
    degraded: list[str] = []
    for session in sessions:
        if not session.messages:  # an export's empty day, or only attachments
            continue
        result = memory.remember(messages=session.messages, date=session.date)
        summary.messages += len(session.messages)
        summary.nodes += len(result.nodes)
        summary.links += len(result.edges)
        summary.known += result.known
        if why := getattr(result, "degraded", None):
            degraded.append(why)
        if progress:
            progress(1, len(sessions))
    if degraded:
        summary.degraded = (
            f"LLM extraction failed for {len(degraded)} of {len(sessions)} session(s), stored "
            f"with what the rules found: {degraded[-1].removeprefix('rules only: ')}"
        )
    summary.seconds = time.perf_counter() - started
    return summary


def _chat_sessions(p: Path) -> list[_Session]:
    suffix = p.suffix.lower()
    text = p.read_text(encoding="utf-8-sig", errors="replace")
    if suffix == ".jsonl":
        return _jsonl_sessions(text)
    if suffix in MARKDOWN_SUFFIXES:
        raise ValidationError(
            "path", "is one Markdown file: give the folder it is in (its links need it)", p.name
        )
    if suffix != ".json":
        raise ValidationError("path", "must be a .json or .jsonl file", p.name)
    try:
        data = json.loads(text)
    except ValueError as exc:
        raise ValidationError("path", f"must hold valid JSON ({exc})", p.name) from None
    if _is_conversation(data) or (isinstance(data, list) and data and _is_conversation(data[0])):
        conversations = data if isinstance(data, list) else [data]
        sessions: list[_Session] = []
        for i, conv in enumerate(conversations):
            if not isinstance(conv, dict):
                raise ValidationError(f"conversations[{i}]", "must be an object")
            prefix = f"{conv.get('sample_id', i)}:" if len(conversations) > 1 else ""
            sessions += _locomo_sessions(conv, f"conversations[{i}]", prefix)
        return sessions
    if isinstance(data, dict) and isinstance(data.get("sessions"), list):
        return [
            _session(s, f"sessions[{i}]", f"s{i + 1}.m") for i, s in enumerate(data["sessions"])
        ]
    if isinstance(data, dict) and "messages" in data:
        return [_session(data, "", "m")]
    if isinstance(data, list):
        return [_Session(_parse(data, "", "m"))] if data else []
    raise ValidationError(
        "path", "must hold a list of messages, {messages}, {sessions} or {conversation}", p.name
    )


def _is_conversation(data: Any) -> bool:
    return isinstance(data, dict) and "conversation" in data


def _session(entry: Any, where: str, id_prefix: str) -> _Session:
    if not isinstance(entry, dict) or not isinstance(entry.get("messages"), list):
        raise ValidationError(where or "path", "must be an object with a list of messages")
    prefix = f"{where}." if where else ""
    date = entry.get("date")
    parsed = None
    if date is not None:
        parsed = parse_datetime(date) if isinstance(date, str) else None
        if parsed is None:
            raise ValidationError(f"{prefix}date", "must be a date and time", date)
    return _Session(_parse(entry["messages"], prefix, id_prefix), parsed)


def _parse(messages: list[Any], where: str, id_prefix: str) -> list[Message]:
    try:
        return parse_transcript(messages, id_prefix=id_prefix)
    except ValidationError as exc:
        raise ValidationError(f"{where}{exc.field}", exc.rule, exc.value) from None


def _locomo_sessions(conv: dict[str, Any], where: str, id_prefix: str) -> list[_Session]:
    body = conv.get("conversation")
    if not isinstance(body, dict):
        raise ValidationError(f"{where}.conversation", "must be an object of sessions")
    numbers = sorted(int(m.group(1)) for k in body if (m := re.fullmatch(r"session_(\d+)", k)))
    sessions = []
    for n in numbers:
        turns = body[f"session_{n}"]
        if not isinstance(turns, list):
            raise ValidationError(f"{where}.conversation.session_{n}", "must be a list of turns")
        stamp = body.get(f"session_{n}_date_time")
        messages = _parse(turns, f"{where}.conversation.session_{n}.", f"s{n}.m")
        if id_prefix:  # several conversations in one file: their turn ids repeat
            messages = [dataclasses.replace(m, id=id_prefix + m.id) for m in messages]
        date = parse_datetime(stamp) if isinstance(stamp, str) else None
        if stamp is not None and date is None:  # not dated "now" in silence
            field_ = f"{where}.conversation.session_{n}_date_time"
            raise ValidationError(field_, "must be a date and time", stamp)
        sessions.append(_Session(messages, date))
    return sessions


def _jsonl_sessions(text: str) -> list[_Session]:
    groups: dict[str, list[tuple[int, Any]]] = {}
    for n, line in enumerate(text.splitlines(), start=1):
        if not line.strip():
            continue
        try:
            entry = json.loads(line)
        except ValueError as exc:
            raise ValidationError(f"line {n}", f"must be valid JSON ({exc})", line[:80]) from None
        if not isinstance(entry, dict):
            raise ValidationError(f"line {n}", "must be a JSON object")
        groups.setdefault(str(entry.get("session", "")), []).append((n, entry))
    # Numbered in their named session: an export that gains a session before this one, or
    # loses one, numbers this one's messages alike. They are still places, not ids: a message
    # is known again by its time (`told.key`).
    several = len(groups) > 1
    return [
        _Session(_lines(entries, f"session[{key}] " if several else "", f"{key}.m" if key else "m"))
        for key, entries in groups.items()
    ]


def _lines(entries: list[tuple[int, Any]], where: str, id_prefix: str) -> list[Message]:
    """A session's messages; a bad one is named by its line in the file ("line 7.text")."""
    try:
        return parse_transcript([entry for _, entry in entries], id_prefix=id_prefix)
    except ValidationError as exc:
        m = re.match(r"messages\[(\d+)\]", exc.field)
        at = f"line {entries[int(m[1])][0]}{exc.field[m.end() :]}" if m else exc.field
        raise ValidationError(where + at, exc.rule, exc.value) from None

"""LoCoMo retrieval benchmark: ebbtide, a plain BM25 baseline and causal-memory 0.10.0.

    ebbtide bench locomo --data /path/to/locomo.json          # every conversation, 3 systems
    ebbtide bench locomo --data FILE --conversations conv-26 --limit-questions 50 --json
    ebbtide bench locomo --data FILE --systems ebbtide --embeddings none
    ebbtide bench locomo --data FILE --systems ebbtide --stores DIR  # ingest once, reuse

``--data`` is any file in the LoCoMo layout (a list of ``{sample_id, conversation, qa}``, or
one such object). The data is not shipped with ebbtide (CC BY-NC 4.0: evaluation only).

Ingest. One fresh store per conversation and system, in a temporary directory:

* ebbtide: each session through the public API, ``remember(messages=[{id, speaker, text,
  caption?}], date=<session date>)`` (rule-based extraction; the turn's ``dia_id`` is the
  message id, so every stored item's ``sources`` name the turns it came from), then
  ``maintain()`` (what the first recall of a day runs by itself). The session dates date what
  was said (``said_at``, and "yesterday" resolved to a day), not when ebbtide learned it:
  that is the memory's clock, as in an import of a chat history. The clock is a fixed one
  (``BENCH_START``, one second on per message stored, the questions asked at the end), so
  link decay and tiers, and with them the ranks, are the same in every run and for a kept
  store reused later; on the system clock a store reused a minute on ranked a few near-ties
  otherwise.
* bm25: the raw turns (text, plus "[image: caption]" when the turn shares an image) in an SQLite
  FTS5 table (porter tokenizer, like ebbtide's own), queried with the OR of the question's
  content words and ranked by ``bm25()``: what a keyword index over the transcript gives.
* causal-memory: one ``record_fact(key=<dia_id>, value=<raw turn>)`` per turn (its fact layer
  stores a text under a caller-chosen key that ``search_memory`` prints back, so each hit maps
  to its turn exactly; its offline ``remember`` stores a whole session as one blob and loses
  the turn). Queried with ``search_memory(query, limit)``; its facts, in display order, are the
  ranking. BM25 only (no embedder in the wheel, no LLM). It returns at most 16 facts whatever
  the limit, so its depth-50 figures and MRR are read from 16 turns. It runs in its own virtual
  environment, driven by ``bench/reference/causal_memory_runner.py``: it needs a source
  checkout of ebbtide (``bench/`` next to ``src/``, or in the working directory). A venv that
  cannot be built, a runner that dies or a call it fails stops the run with an error that says
  why (exit 2), before anything is ingested in the first case.

Questions. Categories 1-4 (multi-hop, temporal, open-domain, single-hop); category 5
(adversarial: the answer is not in the conversation) has no evidence to find. Evidence ids are
normalised ("D:11:26" -> "D11:26", "D30:05" -> "D30:5", "D8:6; D9:17" -> two ids, spaces
dropped); ids naming no turn of the conversation are dropped, and a question left with none is
skipped (counted in the output).

Ranking. Each question is asked twice: the call an agent makes (ebbtide ``recall(question,
k=10, touch=False)``, touch off so scores do not depend on question order) gives the turns
scored at 5 and 10, and a deep call (``k=100``) the turns scored at 50 and for MRR. A hit's
``node.sources`` in hit order (first occurrence kept) are its ranked turns: a hit whose sources
are several turns covers all of them, and ten hits that repeat a turn cover fewer than ten.
Person items are skipped: their sources are every turn that names the person (an index, not
evidence). For bm25 and causal-memory the two calls differ only in their limit.

Metrics, per system x category and over all four:

* recall_any@k: at least one evidence turn in the top k turns; recall_all@k: all of them
  (k = 5, 10 from the k=10 call; 50 from the deep call);
* session recall_all@5: every evidence session among the sessions of the top 5 turns;
* MRR: 1 / rank of the first evidence turn in the deep call (0 when absent from the top 50);
* ingest seconds, and p50 / p95 query latency of the call an agent makes (``recall(question,
  k=10)``, ``search_memory(limit=10)``, BM25 ``LIMIT 10``): the whole call, the query embedding
  included, timed once per distinct question text, on its first call, so no cache answers
  it. The deep call is timed too ("deep"); it comes right after with the same text, so
  ebbtide's query embedding is cached by then. causal-memory's time is
  measured inside its runner around the library call (no pipe, no parsing).
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import platform
import re
import sqlite3
import statistics
import sys
import tempfile
import time
from collections.abc import Callable, Iterable, Sequence
from dataclasses import astuple, dataclass, field
from datetime import datetime, timedelta
from pathlib import Path
from typing import Any, Protocol

from .clock import ManualClock, to_datetime
from .embed import Embedder
from .errors import EbbtideError, ValidationError
from .plaintable import table
from .reference_runner import ReferenceRunner, ReferenceUnavailable

__all__ = [
    "CATEGORIES",
    "KS",
    "METRICS",
    "SYSTEMS",
    "Conversation",
    "add_arguments",
    "load",
    "main",
    "normalise_evidence",
    "render",
    "run",
    "run_from_args",
    "score",
]

CATEGORIES = {1: "multi-hop", 2: "temporal", 3: "open-domain", 4: "single-hop"}
KS = (5, 10, 50)
RANK_DEPTH = max(KS)
QUERY_K = 10  # what an agent asks for: the timed call
RECALL_K = 100  # ebbtide hits asked for the ranking scored to depth 50 (hits share turns)
SYSTEMS = ("ebbtide", "bm25", "causal-memory")
ENTITY_KINDS = frozenset({"person"})
METRICS = [*(f"{m}@{k}" for k in KS for m in ("any", "all")), "sess_all@5", "mrr"]

# -- data --------------------------------------------------------------------------------------

_EVIDENCE = re.compile(r"D\s*:?\s*(\d+)\s*:\s*(\d+)", re.IGNORECASE)


def normalise_evidence(raw: Iterable[Any]) -> list[str]:
    """Canonical dia ids from LoCoMo evidence strings, in order, deduplicated.

    "D:11:26" -> "D11:26", "D30:05" -> "D30:5", "D8:6; D9:17" -> ["D8:6", "D9:17"], " D1:3 "
    -> "D1:3"; a piece without a session and a turn number ("D") yields nothing.
    """
    out: list[str] = []
    for item in raw:
        for m in _EVIDENCE.finditer(str(item)):
            ident = f"D{int(m.group(1))}:{int(m.group(2))}"
            if ident not in out:
                out.append(ident)
    return out


def session_of(dia_id: str) -> str:
    return dia_id.split(":", 1)[0]


@dataclass
class Turn:
    dia_id: str
    speaker: str
    text: str
    caption: str | None

    def raw(self) -> str:
        """The turn as one text, for the raw-turn systems."""
        if self.caption:
            return f"{self.text} [image: {self.caption}]".strip()
        return self.text


@dataclass
class Session:
    number: int
    date: datetime | None
    turns: list[Turn]


@dataclass
class Question:
    text: str
    category: int
    evidence: list[str]


@dataclass
class Conversation:
    sample_id: str
    sessions: list[Session]
    questions: list[Question]
    skipped: int = 0  # questions of categories 1-4 left without valid evidence

    def fingerprint(self) -> str:
        """A digest of what ingest stores (sessions, dates, turns), not of the questions."""
        said = [
            [s.number, s.date and s.date.isoformat(), [astuple(t) for t in s.turns]]
            for s in self.sessions
        ]
        return hashlib.sha256(json.dumps(said).encode("utf-8")).hexdigest()


def load(path: Path, only: Sequence[str] | None = None) -> list[Conversation]:
    """Conversations from a LoCoMo file; `only` keeps those sample ids (all must exist).

    A file that breaks the layout is refused with a ValidationError naming the place and the
    rule ("conv-26: qa[3].category must be an integer"), never scored on a guess."""
    try:
        data = json.loads(Path(path).read_text(encoding="utf-8"))
    except OSError as exc:
        raise ValidationError("data", f"cannot read {path}: {exc.strerror or exc}") from exc
    except UnicodeDecodeError as exc:
        raise ValidationError("data", f"{path} is not UTF-8 text: {exc}") from exc
    except json.JSONDecodeError as exc:
        raise ValidationError("data", f"{path} is not JSON: {exc}") from exc
    if isinstance(data, dict):
        data = [data]
    if not isinstance(data, list):
        raise ValidationError("data", "must be a LoCoMo conversation or a list of them")
    out: list[Conversation] = []
    seen: set[str] = set()
    for i, conv in enumerate(data):
        if not isinstance(conv, dict) or not isinstance(conv.get("conversation"), dict):
            raise ValidationError("data", f"item {i} has no 'conversation' object")
        sample_id = str(conv.get("sample_id", f"conv-{i}"))
        # Stores (--stores) and ingest times are kept by sample id: two alike would share one.
        if sample_id in seen:
            raise ValidationError("data", f"item {i}: sample_id {sample_id!r} is used twice")
        seen.add(sample_id)
        if only and sample_id not in only:
            continue
        out.append(_conversation(sample_id, conv))
    if only:
        missing = set(only) - {c.sample_id for c in out}
        if missing:
            raise ValidationError("conversations", f"none named {', '.join(sorted(missing))}")
    if not out:
        raise ValidationError("data", f"no conversation in {path}")
    return out


def _conversation(sample_id: str, conv: dict[str, Any]) -> Conversation:
    from .timeparse import parse_datetime

    def need(ok: bool, where: str, rule: str) -> None:
        if not ok:
            raise ValidationError("data", f"{sample_id}: {where} {rule}")

    body = conv["conversation"]
    numbers = sorted(int(m.group(1)) for key in body if (m := re.fullmatch(r"session_(\d+)", key)))
    need(bool(numbers), "conversation", "has no session_1, session_2, ... list of turns")
    sessions: list[Session] = []
    known: set[str] = set()
    for n in numbers:
        where = f"session_{n}"
        need(isinstance(body[where], list), where, "must be a list of turns")
        stamp = body.get(f"{where}_date_time")
        date = None
        if stamp is not None:
            date = parse_datetime(stamp) if isinstance(stamp, str) else None
            need(date is not None, f"{where}_date_time", f"is no date ebbtide reads: {stamp!r}")
        turns = []
        for j, t in enumerate(body[where]):
            at = f"{where}[{j}]"
            need(isinstance(t, dict), at, "must be an object")
            for key in ("dia_id", "speaker"):
                need(isinstance(t.get(key), str), f"{at}.{key}", "must be a string")
            for key in ("text", "blip_caption"):
                ok = isinstance(t.get(key), (str, type(None)))
                need(ok, f"{at}.{key}", "must be a string or null")
            turns.append(
                Turn(
                    _turn_id(t["dia_id"]), t["speaker"], t.get("text") or "", t.get("blip_caption")
                )
            )
        sessions.append(Session(n, date, turns))
        known.update(t.dia_id for t in turns)
    qas = conv.get("qa", [])
    need(isinstance(qas, list), "qa", "must be a list of questions")
    questions: list[Question] = []
    skipped = 0
    for j, qa in enumerate(qas):
        at = f"qa[{j}]"
        need(isinstance(qa, dict), at, "must be an object")
        category = qa.get("category")
        need(
            isinstance(category, int) and not isinstance(category, bool),
            f"{at}.category",
            f"must be an integer (got {category!r})",
        )
        if category not in CATEGORIES:
            continue
        need(isinstance(qa.get("question"), str), f"{at}.question", "must be a string")
        raw = qa.get("evidence", [])
        if isinstance(raw, str):  # one string, maybe several ids ("D8:6; D9:17")
            raw = [raw]
        need(
            isinstance(raw, list) and all(isinstance(e, str) for e in raw),
            f"{at}.evidence",
            "must be a list of dia ids",
        )
        evidence = [e for e in normalise_evidence(raw) if e in known]
        if not evidence:
            skipped += 1
            continue
        questions.append(Question(qa["question"], category, evidence))
    return Conversation(sample_id, sessions, questions, skipped)


def _turn_id(raw: str) -> str:
    ids = normalise_evidence([raw])
    return ids[0] if len(ids) == 1 else raw.strip()


# -- scoring -----------------------------------------------------------------------------------


def score(
    ranked: Sequence[str], evidence: Sequence[str], first: Sequence[str] | None = None
) -> dict[str, float]:
    """The metrics of one question: `ranked` turn ids best first (the deep call), `evidence` the
    gold ids, `first` the turns of the k=QUERY_K call, which depths up to QUERY_K are scored on
    (`ranked` when not given)."""
    gold = set(evidence)
    short = ranked if first is None else first
    out: dict[str, float] = {}
    for k in KS:
        top = set((short if k <= QUERY_K else ranked)[:k])
        out[f"any@{k}"] = float(bool(gold & top))
        out[f"all@{k}"] = float(gold <= top)
    sessions = {session_of(x) for x in short[:5]}
    out["sess_all@5"] = float({session_of(e) for e in gold} <= sessions)
    found_at = next((i for i, x in enumerate(ranked[:RANK_DEPTH], 1) if x in gold), None)
    out["mrr"] = 1.0 / found_at if found_at else 0.0
    return out


def pct(samples: Sequence[float], q: float) -> float | None:
    if not samples:
        return None
    s = sorted(samples)
    return s[min(len(s) - 1, max(0, round(q / 100 * (len(s) - 1))))]


def _ms(samples: Sequence[float], q: float) -> float | None:
    value = pct(samples, q)
    return None if value is None else round(value * 1000, 3)


@dataclass
class Tally:
    scores: dict[str, list[dict[str, float]]] = field(default_factory=dict)  # category -> rows
    latencies: list[float] = field(default_factory=list)  # the k=10 call, fresh query text
    deep_latencies: list[float] = field(default_factory=list)  # the depth-50 call
    ingest: dict[str, float] = field(default_factory=dict)  # conversation -> seconds

    def add(self, category: str, row: dict[str, float]) -> None:
        self.scores.setdefault(category, []).append(row)
        self.scores.setdefault("all", []).append(row)

    def summary(self) -> dict[str, Any]:
        cats: dict[str, Any] = {}
        for name in [*CATEGORIES.values(), "all"]:
            # Every category is present, so readers of --json need not guess: n 0, metrics null.
            rows = self.scores.get(name, [])
            cats[name] = {"n": len(rows)} | {
                m: round(statistics.fmean(r[m] for r in rows), 4) if rows else None for m in METRICS
            }
        return {
            "categories": cats,
            "ingest_s": {k: round(v, 3) for k, v in self.ingest.items()},
            "ingest_total_s": round(sum(self.ingest.values()), 3),
            "query_ms": {
                "p50": _ms(self.latencies, 50),
                "p95": _ms(self.latencies, 95),
                "n": len(self.latencies),
            },
            "deep_ms": {"p50": _ms(self.deep_latencies, 50), "p95": _ms(self.deep_latencies, 95)},
        }


# -- systems: each ingests one conversation, then ranks its turns for a question ---------------


class System(Protocol):
    name: str

    def ingest(self, conv: Conversation) -> float: ...

    def rank(self, question: str, depth: int) -> tuple[list[str], float]: ...

    def close(self) -> None: ...


# When the benchmark's memory learns a conversation (any fixed instant would do; see above).
BENCH_START = "2026-12-01T09:00:00+00:00"


def ingested_at(conv: Conversation) -> datetime:
    """The benchmark clock's time once `conv` is stored: one second on per message."""
    return to_datetime(BENCH_START) + timedelta(seconds=sum(len(s.turns) for s in conv.sessions))


class EbbtideSystem:
    name = "ebbtide"

    def __init__(self, embeddings: str | Embedder, stores: Path | None = None) -> None:
        self.embeddings = embeddings
        # A model of one's own keeps its stores apart by its name.
        self.label = embeddings if isinstance(embeddings, str) else _file_safe(embeddings.name)
        self.stores = stores
        self.memory: Any = None
        self.clock = ManualClock(BENCH_START)
        self._tmp: tempfile.TemporaryDirectory[str] | None = None

    def ingest(self, conv: Conversation) -> float:
        """Seconds spent storing the conversation (0.0 when a kept store is reused)."""
        from .memory import open_memory

        if self.stores is not None:
            self.stores.mkdir(parents=True, exist_ok=True)
            path = self.store_path(conv)
            # The mark holds what was ingested and on which clock: an interrupted ingest, another
            # conversation under the same sample id (another file, an edited one), or a store of
            # another clock is ingested again.
            done = self.stores / f"{path.name}.complete"
            mark = f"{conv.fingerprint()} {BENCH_START}"
            reuse = done.exists() and done.read_text(encoding="utf-8") == mark
            if not reuse:
                for old in self.stores.glob(f"{path.name}*"):
                    old.unlink()
            self.memory = open_memory(
                str(path), clock=self.clock, embeddings=self.embeddings, extraction="rules"
            )
            self._load_model()
            if reuse:
                self.clock.set(ingested_at(conv))  # where its ingest left it
                # Maintenance a kept store is still due (one cut short) runs here, not inside
                # the first timed question.
                self.memory._maybe_maintain()
                return 0.0
            seconds = self._store(conv)
            done.write_text(mark, encoding="utf-8")
            return seconds
        self._tmp = tempfile.TemporaryDirectory(prefix="locomo-ebbtide-")
        self.memory = open_memory(  # the benchmark measures extraction without an LLM
            str(Path(self._tmp.name) / "memory.db"),
            clock=self.clock,
            embeddings=self.embeddings,
            extraction="rules",
        )
        self._load_model()
        return self._store(conv)

    def _load_model(self) -> None:
        """Load the model before any clock starts, ingest's or the first question's."""
        if self.memory.embedder is not None:
            self.memory.embedder.embed(["load the model before the clock starts"])

    def store_path(self, conv: Conversation) -> Path:
        """Where `stores` keeps this conversation's memory (one file per model)."""
        assert self.stores is not None
        return self.stores / f"{conv.sample_id}-{self.label}.db"

    def _store(self, conv: Conversation) -> float:
        started = time.perf_counter()
        self.clock.set(BENCH_START)
        for s in conv.sessions:
            self.clock.advance(seconds=len(s.turns))
            messages = [
                {"id": t.dia_id, "speaker": t.speaker, "text": t.text, "caption": t.caption}
                for t in s.turns
            ]
            self.memory.remember(messages=messages, date=s.date)
        # What the first recall of the day would run anyway (tiers, activation): not a query cost.
        self.memory.maintain()
        return time.perf_counter() - started

    def rank(self, question: str, depth: int) -> tuple[list[str], float]:
        started = time.perf_counter()
        result = self.memory.recall(
            question, k=QUERY_K if depth <= QUERY_K else RECALL_K, touch=False
        )
        seconds = time.perf_counter() - started
        return turns_of(result.hits)[:depth], seconds

    def close(self) -> None:
        if self.memory is not None:
            self.memory.close()
            self.memory = None
        if self._tmp is not None:
            self._tmp.cleanup()
            self._tmp = None


# Instruction sets onnxruntime picks its int8 products by, best first: they round differently,
# so the local model's vectors, and with them a few near-tied ranks, differ between CPU kinds.
_INT8_PATHS = ("avx512_vnni", "avx_vnni", "avx512bw", "avx2", "asimddp", "asimd")


def machine(cpuinfo: str | None = None) -> dict[str, Any]:
    """The CPU a run's figures come from: model, cores, and the int8 kernel family it gets."""
    if cpuinfo is None:
        try:
            cpuinfo = Path("/proc/cpuinfo").read_text(errors="replace")
        except OSError:
            cpuinfo = ""
    fields: dict[str, str] = {}
    for line in cpuinfo.splitlines():
        key, sep, value = line.partition(":")
        if sep:
            fields.setdefault(key.strip().lower(), value.strip())
    flags = set(fields.get("flags", fields.get("features", "")).split())
    return {
        "cpu": fields.get("model name") or platform.processor() or platform.machine() or "unknown",
        "cores": os.cpu_count() or 1,
        "int8_path": next((f for f in _INT8_PATHS if f in flags), "unknown"),
    }


def _file_safe(name: str) -> str:
    return re.sub(r"[^A-Za-z0-9._-]+", "_", name)


def turns_of(hits: Iterable[Any]) -> list[str]:
    """Turn ids in the order recall hits name them; entity items index turns, they are skipped."""
    ranked: dict[str, None] = {}
    for hit in hits:
        if hit.node.kind not in ENTITY_KINDS:
            ranked.update(dict.fromkeys(hit.node.sources))
    return list(ranked)


class Bm25System:
    """The baseline: SQLite FTS5 over the raw turns, ranked by bm25()."""

    name = "bm25"

    def __init__(self) -> None:
        self.db: sqlite3.Connection | None = None

    def ingest(self, conv: Conversation) -> float:
        started = time.perf_counter()
        self.db = sqlite3.connect(":memory:")
        self.db.execute(
            "CREATE VIRTUAL TABLE turns USING fts5(dia_id UNINDEXED, text, "
            "tokenize='porter unicode61')"
        )
        self.db.executemany(
            "INSERT INTO turns(dia_id, text) VALUES (?, ?)",
            [(t.dia_id, t.raw()) for s in conv.sessions for t in s.turns],
        )
        self.db.commit()
        return time.perf_counter() - started

    def rank(self, question: str, depth: int) -> tuple[list[str], float]:
        from .text import STOPWORDS

        if self.db is None:
            raise RuntimeError("bm25: ingest a conversation first")
        started = time.perf_counter()
        words = re.findall(r"[^\W_]+", question.lower())
        terms = list(dict.fromkeys(w for w in words if w not in STOPWORDS)) or words
        match = " OR ".join(f'"{w}"' for w in terms)
        rows = (
            self.db.execute(
                "SELECT dia_id FROM turns WHERE turns MATCH ? ORDER BY bm25(turns) LIMIT ?",
                (match, depth),
            ).fetchall()
            if match
            else []
        )
        return [r[0] for r in rows], time.perf_counter() - started

    def close(self) -> None:
        if self.db is not None:
            self.db.close()
            self.db = None


def bench_dir() -> Path | None:
    """ebbtide's `bench/` folder (source checkout or working directory), where the reference
    system's venv builder and runner live; None in an install without it."""
    for root in (Path(__file__).resolve().parents[2], Path.cwd()):
        folder = root / "bench"
        if (folder / "_venv.py").is_file() and (
            folder / "reference" / "causal_memory_runner.py"
        ).is_file():
            return folder
    return None


class CausalMemorySystem:
    """causal-memory 0.10.0 in its own venv, driven over bench/reference's JSON-lines runner."""

    name = "causal-memory"

    def __init__(self, folder: Path) -> None:
        self.runner = ReferenceRunner(folder)
        self._tmp: tempfile.TemporaryDirectory[str] | None = None

    def ingest(self, conv: Conversation) -> float:
        self._tmp = tempfile.TemporaryDirectory(prefix="locomo-cm-")
        r = self.runner.send({"op": "open", "path": self._tmp.name})
        if not r.get("ok"):
            raise ReferenceUnavailable(f"causal-memory: open failed: {r.get('error')}")
        calls = [
            {
                "op": "record_fact",
                "key": t.dia_id,
                "value": t.raw() or "(image)",
                "parse": False,
                "resolve": False,
            }
            for s in conv.sessions
            for t in s.turns
        ]
        r = self.runner.send({"op": "bulk", "calls": calls})
        bad = [x for x in r["result"]["results"] if not x.get("ok")]
        if bad:
            raise ReferenceUnavailable(f"causal-memory: record_fact failed: {bad[0].get('error')}")
        return float(r.get("seconds", 0.0))

    def rank(self, question: str, depth: int) -> tuple[list[str], float]:
        # resolve off: fact hits carry their key (the dia id) as printed, no lookup needed
        r = self.runner.send(
            {"op": "search_memory", "query": question, "limit": depth, "resolve": False}
        )
        if not r.get("ok"):  # scored as a miss, it would count against causal-memory unseen
            raise ReferenceUnavailable(
                f"causal-memory: search_memory failed for {question!r}: {r.get('error')}"
            )
        ranked: dict[str, None] = {}
        for hit in r["result"].get("hits", []):
            if hit.get("layer") == "fact" and hit.get("key"):
                ranked.setdefault(hit["key"], None)
        return list(ranked)[:depth], float(r.get("seconds", 0.0))

    def close(self) -> None:
        if self.runner.proc is not None:
            self.runner.send({"op": "close"})
        if self._tmp is not None:
            self._tmp.cleanup()
            self._tmp = None

    def shutdown(self) -> None:
        self.runner.quit()


# -- the run -----------------------------------------------------------------------------------


def run(
    conversations: Sequence[Conversation],
    systems: Sequence[str],
    *,
    embeddings: str | Embedder = "local",
    stores: Path | None = None,
    limit_questions: int | None = None,
    progress: Callable[[str], None] | None = None,
) -> dict[str, Any]:
    """Every system over every conversation; the report `render` prints (or `--json` emits).
    `stores`: keep ebbtide's store of each conversation there and reuse it while the
    conversation is the same."""
    unknown = set(systems) - set(SYSTEMS)
    if unknown or not systems:
        raise ValidationError("systems", f"choose from {', '.join(SYSTEMS)}")
    tallies = {name: Tally() for name in systems}
    cm: CausalMemorySystem | None = None
    if "causal-memory" in systems:
        folder = bench_dir()
        if folder is None:
            raise ValidationError(
                "systems", "causal-memory needs a source checkout of ebbtide (its bench/ folder)"
            )
        cm = CausalMemorySystem(folder)
        cm.runner.start()  # a venv that cannot be built stops the run before anything is ingested
    try:
        for conv in conversations:
            questions = conv.questions[:limit_questions] if limit_questions else conv.questions
            for name in systems:
                system: System
                if name == "ebbtide":
                    system = EbbtideSystem(embeddings, stores)
                elif name == "bm25":
                    system = Bm25System()
                else:
                    assert cm is not None
                    system = cm
                tally = tallies[name]
                try:
                    tally.ingest[conv.sample_id] = system.ingest(conv)
                    timed: set[str] = set()
                    for q in questions:
                        first, seconds = system.rank(q.text, QUERY_K)
                        if q.text not in timed:  # a repeated text may be answered from a cache
                            timed.add(q.text)
                            tally.latencies.append(seconds)
                        ranked, seconds = system.rank(q.text, RANK_DEPTH)
                        tally.deep_latencies.append(seconds)
                        tally.add(CATEGORIES[q.category], score(ranked, q.evidence, first))
                finally:
                    system.close()
                if progress is not None:
                    s = tally.summary()["categories"]["all"]
                    progress(
                        f"{conv.sample_id:<10} {name:<14} ingest "
                        f"{tally.ingest[conv.sample_id]:7.2f}s  running any@10 "
                        f"{s['any@10'] or 0:.3f} all@10 {s['all@10'] or 0:.3f}"
                    )
    finally:
        if cm is not None:
            cm.shutdown()
    return {
        "data": {
            "conversations": [c.sample_id for c in conversations],
            "questions": sum(
                len(c.questions[:limit_questions] if limit_questions else c.questions)
                for c in conversations
            ),
            "skipped_no_evidence": sum(c.skipped for c in conversations),
            "turns": sum(len(s.turns) for c in conversations for s in c.sessions),
        },
        "settings": {
            "embeddings": embeddings if isinstance(embeddings, str) else embeddings.name,
            "stores": None if stores is None else str(stores),
            "query_k": QUERY_K,
            "recall_k": RECALL_K,
            "ks": list(KS),
        },
        "systems": {name: tallies[name].summary() for name in systems},
        "machine": machine(),
    }


def render(report: dict[str, Any]) -> str:
    d = report["data"]
    lines = [
        f"LoCoMo retrieval: {len(d['conversations'])} conversations "
        f"({', '.join(d['conversations'])}), {d['turns']} turns, {d['questions']} questions "
        f"(categories 1-4; {d['skipped_no_evidence']} skipped without valid evidence)"
        + (
            f"; ebbtide embeddings: {report['settings']['embeddings']}"
            if "ebbtide" in report["systems"]
            else ""
        ),
        "machine: {cpu}, {cores} cores, int8 path {int8_path}".format(**report["machine"]),
        "",
    ]
    rows = [
        {"system": name, "category": cat, **m}
        for name, s in report["systems"].items()
        for cat, m in s["categories"].items()
        if m["n"]
    ]
    scored = table(rows, ["system", "category", "n", *METRICS])
    lines += [scored if rows else "no question of categories 1-4 with evidence to score", ""]
    rows = [
        {
            "system": name,
            "ingest_s": s["ingest_total_s"],
            "query_p50_ms": s["query_ms"]["p50"],
            "query_p95_ms": s["query_ms"]["p95"],
            "deep_p50_ms": s["deep_ms"]["p50"],
            "deep_p95_ms": s["deep_ms"]["p95"],
        }
        for name, s in report["systems"].items()
    ]
    lines.append(
        table(
            rows,
            ["system", "ingest_s", "query_p50_ms", "query_p95_ms", "deep_p50_ms", "deep_p95_ms"],
        )
    )
    lines.append(
        f"query: the k={QUERY_K} call an agent makes, once per distinct question (no cached "
        f"query embedding); deep: the call scored to depth {RANK_DEPTH}, asked right after it "
        f"(ebbtide: recall k={RECALL_K}, its query embedding cached by then)."
    )
    return "\n".join(lines)


def add_arguments(ap: argparse.ArgumentParser) -> None:
    ap.add_argument("--data", required=True, type=Path, help="a file in the LoCoMo JSON layout")
    ap.add_argument("--conversations", help="comma-separated sample ids (default: all)")
    ap.add_argument("--limit-questions", type=int, help="first N questions per conversation")
    ap.add_argument("--embeddings", choices=("local", "http", "none"), default="local")
    ap.add_argument(
        "--systems",
        help=f"comma-separated, of {', '.join(SYSTEMS)} (default: all three; causal-memory "
        "only in a source checkout, which holds its runner)",
    )
    ap.add_argument(
        "--stores",
        type=Path,
        help="keep ebbtide's store of each conversation in this folder and reuse it while the "
        "conversation is the same (ingest 0 s): to measure recall changes without ingesting "
        "again; delete it after changing extraction or embeddings",
    )
    ap.add_argument("--json", action="store_true", help="machine-readable output")
    ap.add_argument("--quiet", action="store_true", help="no progress lines on stderr")


def run_from_args(args: argparse.Namespace) -> int:
    """Run with parsed `add_arguments` options; print the table or the JSON report."""
    if args.systems is not None:
        systems = _names(args.systems)
    elif bench_dir() is not None:
        systems = list(SYSTEMS)
    else:
        systems = [s for s in SYSTEMS if s != "causal-memory"]
        print("causal-memory skipped: its runner is in ebbtide's source checkout", file=sys.stderr)
    if args.limit_questions is not None and args.limit_questions < 1:
        raise ValidationError("limit-questions", "must be at least 1")
    only = _names(args.conversations) if args.conversations is not None else None
    if only == []:
        raise ValidationError("conversations", "name at least one sample id")
    conversations = load(args.data, only)
    report = run(
        conversations,
        systems,
        embeddings=args.embeddings,
        stores=args.stores,
        limit_questions=args.limit_questions,
        progress=None if args.quiet else lambda line: print(f"  {line}", file=sys.stderr),
    )
    print(json.dumps(report, indent=2) if args.json else render(report))
    return 0


def _names(option: str) -> list[str]:
    """A comma-separated option's names, spaces and empty places ("a, b,") left out."""
    return [name.strip() for name in option.split(",") if name.strip()]


def main(argv: Sequence[str] | None = None) -> int:
    ap = argparse.ArgumentParser(
        prog="ebbtide bench locomo",
        description="Turn-level retrieval on LoCoMo conversations: ebbtide, BM25 over raw "
        "turns, causal-memory 0.10.0.",
    )
    add_arguments(ap)
    try:
        return run_from_args(ap.parse_args(argv))
    except EbbtideError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2

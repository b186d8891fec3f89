"""Drive the reference system ``causal-memory`` (PyPI, 0.10.0) over a pipe.

Run with the reference venv's Python (see ``bench/_venv.py``)::

    python causal_memory_runner.py [--allow-remote]

Protocol: one JSON command per line on stdin, one JSON response per line on
stdout, in order. Commands:

    {"op": "open", "path": DIR}            # DIR/causal.db; a *.db path is
                                           # used as is; ":memory:" = in_memory()
    {"op": "record_decision", "decision": ..., "outcome": ..., "relation": ...,
     "task_tag": ..., ...}                 # any op named like an API method
    {"op": "record_fact", "key": ..., "value": ..., ...}
    {"op": "remember", "messages": ..., "date": ...}
    {"op": "search_memory", "query": ..., "limit": ...}
    {"op": "call", "method": NAME, "kwargs": {...}}   # any other API method
    {"op": "bulk", "calls": [<command>, ...], "stop_on_error": false}
    {"op": "cli", "args": ["sleep"]}       # the package CLI on the open store
    {"op": "methods"} | {"op": "version"} | {"op": "close"} | {"op": "quit"}

Optional per command: "parse": false (text only), "resolve": false (no
SQLite id lookups), "req_id" (echoed).

Every response is ``{"ok": true, "result": ..., "seconds": S}`` or
``{"ok": false, "error": ..., "seconds": S?}``; a ``req_id`` in the command is
echoed back. ``seconds`` is the wall time of the API call alone
(``time.perf_counter`` around the method call; parsing and id resolution
happen outside it). ``bulk`` returns ``{"results": [<response>...]}`` with
per-call ``seconds`` plus the total.

Every API method of causal-memory returns a human-readable string. The runner
returns ``{"text": <that string>, ...parsed fields}``: record ids, and for
search/trace methods a ``hits`` list with edge ids (``id`` for causal lessons,
printed by the library as ``(#N)``). The library prints no fact ids in search
results, and search_causal/trace_cause print node texts only; the runner
resolves those to ids with a read-only lookup in the store's SQLite file
(``id_source: "db_lookup"``). A response text starting with "❌" is the
library's way to report an error (it does not raise): it becomes ok=false.

Offline by default: CAUSAL_MEMORY_EMBED_* / CAUSAL_MEMORY_LLM_* variables are
removed and CAUSAL_MEMORY_CONFIG points at a file that does not exist, so the
store is BM25-only and ``remember`` stores raw text. ``--allow-remote`` keeps
the caller's environment.
"""

from __future__ import annotations

import json
import os
import re
import sqlite3
import subprocess
import sys
import tempfile
import time
import traceback
from pathlib import Path

# ---------------------------------------------------------------- stdout guard
# The JSON protocol owns the real stdout. Anything else that writes to fd 1
# (the Rust library, a stray print) is sent to stderr instead.
_PROTO_FD = os.dup(1)
os.dup2(2, 1)
sys.stdout = sys.stderr
_proto = os.fdopen(_PROTO_FD, "w", encoding="utf-8", buffering=1)

# ------------------------------------------------------------- offline setup
_ALLOW_REMOTE = "--allow-remote" in sys.argv[1:]
if not _ALLOW_REMOTE:
    for _k in list(os.environ):
        if _k.startswith(("CAUSAL_MEMORY_EMBED_", "CAUSAL_MEMORY_LLM_")):
            del os.environ[_k]
    # Removed when the runner exits (TemporaryDirectory's finaliser), so runs leave no folders.
    _cfg_dir = tempfile.TemporaryDirectory(prefix="cm-runner-cfg-")
    os.environ["CAUSAL_MEMORY_CONFIG"] = os.path.join(_cfg_dir.name, "absent.json")

import causal_memory  # noqa: E402  (after the environment is fixed)

API_METHODS = sorted(
    n for n in dir(causal_memory.CausalMemory) if not n.startswith("_") and n != "in_memory"
)

# ------------------------------------------------------------------- parsing
_PCT = r"(\d+(?:\.\d+)?)%"
_REC_ID = re.compile(r"\bid: (\d+)\)")
_REC_CONF = re.compile(r"\(confidence: ([0-9.]+)")
_EDGE_REF = re.compile(r"\(#(\d+)\)")
_SECTION = re.compile(r"(?m)^(\S+) (.+?) \((\d+)\):[ \t]*$")
_MEM_ENTRY = re.compile(r"(?m)^  #(\d+) ")
_CAUSAL_Q = re.compile(
    r'^\(#(\d+)\) \[(.*?)\] "(.*)" →\((\w+)\)→ "(.*?)"(?: \(confidence: ' + _PCT + r"\))?$",
    re.S,
)
_CAUSAL_L0 = re.compile(r"^\(#(\d+)\) \[(.*?)\] (.*) →\((\w+)\)→ (.*)$", re.S)
_FACT = re.compile(r'^\[(.*?)\] (.*?) = "(.*)"(?: \(confidence: ' + _PCT + r"\))?$", re.S)
_NODE = re.compile(r"(?m)^(\d+)\. \[" + _PCT + r'([+-]?)\] "(.*?)"[ \t]*$')
_KEYWORD_EP = re.compile(
    r'(?ms)^(\d+)\. \(#(\d+)\) \[(.*?)\] "(.*?)"\n\s+→\((\w+)\)→ "(.*?)"\n\s+confidence: ' + _PCT
)
_FACT_LINE = re.compile(
    r'(?m)^(\d+)\. \[(.*?)\] (.*?) = "(.*)" \(confidence: ' + _PCT + r"\)[ \t]*$"
)
_CHAIN = re.compile(r"(?m)^Chain (\d+) (.*?)\(chain confidence: " + _PCT + r"\):")
_HOP = re.compile(
    r'(?ms)^\s+hop (\d+): "(.*?)"\n\s+→\((\w+)\)→ "(.*?)"\n\s+edge confidence: ' + _PCT
)
_LESSON = re.compile(r'(?m)^#(\d+) (\w+) conf=([0-9.]+) pol=(\w+) \| "(.*?)" → "(.*?)"[ \t]*$')
_DIR_LINE = re.compile(r"(?m)^- \[(.*?)\] (.*) →\((\w+)\)→ (.*)$")
_HEADER_MODE = re.compile(r"^\[([^\]]+)\]")
_STRATUM = re.compile(
    r"(?m)^  (pooled|task_tag=.*?|other strata) \(n=(\d+)\): "
    r"(\d+) positive / (\d+) negative / (\d+) other → (\w+)"
)


def _truncated(s: str) -> tuple[str, bool]:
    if s.endswith("…"):
        return s[:-1], True
    return s, False


def _strip_explain(chunk: str) -> tuple[str, list[str]]:
    lines = chunk.rstrip().split("\n")
    keep, explain = [], []
    for ln in lines:
        if ln.lstrip().startswith("↳"):
            explain.append(ln.strip()[1:].strip())
        else:
            keep.append(ln)
    return "\n".join(keep).strip(), explain


def parse_search_memory(text: str) -> dict:
    out: dict = {"mode": None, "hits": []}
    m = _HEADER_MODE.match(text)
    if m:
        out["mode"] = m.group(1)
    sections = [(s.start(), s.group(2)) for s in _SECTION.finditer(text)]
    starts = [e.start() for e in _MEM_ENTRY.finditer(text)]
    bounds = sorted(set(starts + [s for s, _ in sections] + [len(text)]))
    for e in _MEM_ENTRY.finditer(text):
        end = next(b for b in bounds if b > e.start())
        body = text[e.end() : end]
        body, explain = _strip_explain(body)
        sec = None
        for pos, name in sections:
            if pos < e.start():
                sec = name
        hit: dict = {"rank": int(e.group(1)), "section": sec}
        layer = (
            "fact"
            if sec and sec.lower().startswith("fact")
            else ("causal" if sec and sec.lower().startswith("causal") else "other")
        )
        hit["layer"] = layer
        if layer == "causal":
            cm = _CAUSAL_Q.match(body) or _CAUSAL_L0.match(body)
            if cm:
                g = cm.groups()
                dec, dt = _truncated(g[2])
                outc, ot = _truncated(g[4])
                hit.update(
                    id=int(g[0]),
                    task_tag=g[1],
                    decision=dec,
                    relation=g[3],
                    outcome=outc,
                    truncated=dt or ot,
                )
                if len(g) > 5 and g[5] is not None:
                    hit["confidence"] = float(g[5]) / 100
        elif layer == "fact":
            fm = _FACT.match(body)
            if fm:
                val, vt = _truncated(fm.group(3))
                hit.update(scope=fm.group(1), key=fm.group(2), value=val, truncated=vt)
                if fm.group(4) is not None:
                    hit["confidence"] = float(fm.group(4)) / 100
        if explain:
            hit["explain"] = explain
        hit["raw"] = body
        out["hits"].append(hit)
    return out


def parse_nodes(text: str) -> dict:
    """search_causal / trace_cause: spreading-activation node list, or the
    keyword (task_tag-only) episode list, or fact lines."""
    out: dict = {"mode": None, "hits": []}
    m = _HEADER_MODE.match(text)
    if m:
        out["mode"] = m.group(1)
    for ep in _KEYWORD_EP.finditer(text):
        dec, dt = _truncated(ep.group(4))
        outc, ot = _truncated(ep.group(6))
        out["hits"].append(
            {
                "rank": int(ep.group(1)),
                "layer": "causal",
                "id": int(ep.group(2)),
                "task_tag": ep.group(3),
                "decision": dec,
                "relation": ep.group(5),
                "outcome": outc,
                "confidence": float(ep.group(7)) / 100,
                "truncated": dt or ot,
            }
        )
    if out["hits"]:
        return out
    for nd in _NODE.finditer(text):
        node, t = _truncated(nd.group(4))
        out["hits"].append(
            {
                "rank": int(nd.group(1)),
                "layer": "node",
                "text": node,
                "activation": float(nd.group(2)) / 100,
                "sign": nd.group(3) or None,
                "truncated": t,
            }
        )
    # explain lines (↳ ...) follow their node
    if out["hits"] and "↳" in text:
        lines = text.split("\n")
        cur = -1
        for ln in lines:
            if _NODE.match(ln):
                cur += 1
            elif ln.strip().startswith("↳") and 0 <= cur < len(out["hits"]):
                out["hits"][cur].setdefault("explain", []).append(ln.strip()[1:].strip())
    return out


def parse_facts(text: str) -> dict:
    out: dict = {"mode": None, "hits": []}
    m = _HEADER_MODE.match(text)
    if m:
        out["mode"] = m.group(1)
    for f in _FACT_LINE.finditer(text):
        val, t = _truncated(f.group(4))
        out["hits"].append(
            {
                "rank": int(f.group(1)),
                "layer": "fact",
                "scope": f.group(2),
                "key": f.group(3),
                "value": val,
                "confidence": float(f.group(5)) / 100,
                "truncated": t,
            }
        )
    return out


def parse_chains(text: str) -> dict:
    out: dict = {"mode": None, "chains": []}
    m = _HEADER_MODE.match(text)
    if m:
        out["mode"] = m.group(1)
    heads = list(_CHAIN.finditer(text))
    for i, h in enumerate(heads):
        end = heads[i + 1].start() if i + 1 < len(heads) else len(text)
        seg = text[h.end() : end]
        label = h.group(2).strip()
        verdict = None
        vm = re.search(r"\b(SAFE|WARNING|DANGER|UNKNOWN|MIXED)\b", label)
        if vm:
            verdict = vm.group(1)
        hops = []
        for hp in _HOP.finditer(seg):
            a, at = _truncated(hp.group(2))
            b, bt = _truncated(hp.group(4))
            hops.append(
                {
                    "hop": int(hp.group(1)),
                    "from": a,
                    "relation": hp.group(3),
                    "to": b,
                    "confidence": float(hp.group(5)) / 100,
                    "truncated": at or bt,
                }
            )
        out["chains"].append(
            {
                "rank": int(h.group(1)),
                "label": label,
                "verdict": verdict,
                "confidence": float(h.group(3)) / 100,
                "hops": hops,
            }
        )
    strata = [
        {
            "stratum": s.group(1),
            "n": int(s.group(2)),
            "positive": int(s.group(3)),
            "negative": int(s.group(4)),
            "other": int(s.group(5)),
            "verdict": s.group(6),
        }
        for s in _STRATUM.finditer(text)
    ]
    if strata:
        out["strata"] = strata
    return out


def parse_lessons(text: str) -> dict:
    out: dict = {"mode": None, "hits": []}
    m = _HEADER_MODE.match(text)
    if m:
        out["mode"] = m.group(1)
    for i, ln in enumerate(_LESSON.finditer(text), 1):
        a, at = _truncated(ln.group(5))
        b, bt = _truncated(ln.group(6))
        out["hits"].append(
            {
                "rank": i,
                "layer": "causal",
                "id": int(ln.group(1)),
                "relation": ln.group(2),
                "confidence": float(ln.group(3)),
                "polarity": ln.group(4),
                "decision": a,
                "outcome": b,
                "truncated": at or bt,
            }
        )
    return out


def parse_directory(text: str) -> dict:
    hits = []
    for i, d in enumerate(_DIR_LINE.finditer(text), 1):
        dec, dt = _truncated(d.group(2))
        outc, ot = _truncated(d.group(4))
        hits.append(
            {
                "rank": i,
                "layer": "causal",
                "task_tag": d.group(1),
                "decision": dec,
                "relation": d.group(3),
                "outcome": outc,
                "truncated": dt or ot,
            }
        )
    return {"hits": hits}


_PATTERN = re.compile(r'(?m)^(\d+)\. "(.*?)" --\[(.*?)\]--> "(.*?)" \(#(\d+)\)[ \t]*$')


def parse_patterns(text: str) -> dict:
    hits = []
    for p in _PATTERN.finditer(text):
        rel = p.group(3).split()[-1] if p.group(3).split() else p.group(3)
        hits.append(
            {
                "rank": int(p.group(1)),
                "layer": "pattern",
                "id": int(p.group(5)),
                "from": p.group(2),
                "relation": rel,
                "to": p.group(4),
            }
        )
    return {"hits": hits}


def parse_record(text: str) -> dict:
    out: dict = {}
    m = _REC_ID.search(text)
    if m:
        out["id"] = int(m.group(1))
    c = _REC_CONF.search(text)
    if c:
        out["confidence"] = float(c.group(1))
    r = re.search(r"Retired (\d+) outdated", text)
    if r:
        out["retired"] = int(r.group(1))
    return out


PARSERS = {
    "search_memory": parse_search_memory,
    "search_causal": parse_nodes,
    "trace_cause": parse_nodes,
    "search_facts": parse_facts,
    "trace_cause_chain": parse_chains,
    "intervention_query": parse_chains,
    "reconstruct_lesson": parse_lessons,
    "causal_directory": parse_directory,
    "record_decision": parse_record,
    "record_fact": parse_record,
    "search_patterns": parse_patterns,
}


def ranked_ids(parsed: dict) -> None:
    """Add result-level ``edge_ids`` / ``fact_ids`` lists in rank order
    (deduplicated). A node hit (search_causal/trace_cause spreading mode)
    contributes every live edge whose decision or outcome is that node text."""
    edges: list[int] = []
    facts: list[int] = []
    for h in parsed.get("hits", []):
        layer = h.get("layer")
        if layer == "fact" and h.get("id") is not None:
            if h["id"] not in facts:
                facts.append(h["id"])
        elif layer == "causal" and h.get("id") is not None:
            if h["id"] not in edges:
                edges.append(h["id"])
        elif layer == "node":
            if h.get("fact_id") is not None and h["fact_id"] not in facts:
                facts.append(h["fact_id"])
            ids = h.get("edge_ids", {})
            for eid in ids.get("decision", []) + ids.get("outcome", []):
                if eid not in edges:
                    edges.append(eid)
    for ch in parsed.get("chains", []):
        for hp in ch.get("hops", []):
            if hp.get("id") is not None and hp["id"] not in edges:
                edges.append(hp["id"])
    if parsed.get("hits") or parsed.get("chains"):
        parsed["edge_ids"] = edges
        parsed["fact_ids"] = facts


# ------------------------------------------------------------- id resolution
class Resolver:
    """Read-only lookups in the store's SQLite file, to turn printed texts
    (fact key/value, node text, hop texts) into row ids."""

    def __init__(self, db_path: str | None):
        self.db_path = db_path
        self._con: sqlite3.Connection | None = None

    def con(self) -> sqlite3.Connection | None:
        if self.db_path is None:
            return None
        if self._con is None:
            try:
                self._con = sqlite3.connect(
                    f"file:{self.db_path}?mode=ro", uri=True, check_same_thread=False
                )
            except sqlite3.Error:
                return None
        return self._con

    def close(self) -> None:
        if self._con is not None:
            self._con.close()
            self._con = None

    @staticmethod
    def _match(col: str, truncated: bool) -> str:
        return f"substr({col}, 1, length(?)) = ?" if truncated else f"{col} = ?"

    @staticmethod
    def _args(v: str, truncated: bool) -> list:
        return [v, v] if truncated else [v]

    def fact_id(self, scope, key, value, truncated) -> int | None:
        con = self.con()
        if con is None:
            return None
        sql = (
            "SELECT id FROM agent_facts WHERE scope = ? AND key = ? AND "
            + self._match("value", truncated)
            + " ORDER BY (valid_to IS NULL) DESC, id DESC LIMIT 1"
        )
        row = con.execute(sql, [scope, key, *self._args(value, truncated)]).fetchone()
        return row[0] if row else None

    def fact_node(self, text, truncated) -> int | None:
        con = self.con()
        if con is None:
            return None
        sql = (
            "SELECT id FROM agent_facts WHERE "
            + self._match("key || ': ' || value", truncated)
            + " ORDER BY (valid_to IS NULL) DESC, id DESC LIMIT 1"
        )
        row = con.execute(sql, self._args(text, truncated)).fetchone()
        return row[0] if row else None

    def node_edges(self, text, truncated) -> dict:
        con = self.con()
        if con is None:
            return {}
        res = {}
        for role, col in (("decision", "from_id"), ("outcome", "to_id")):
            sql = (
                f"SELECT e.id FROM causal_edges e JOIN chunks c ON c.id = e.{col} "
                f"WHERE e.valid_to IS NULL AND "
                + self._match("c.text", truncated)
                + " ORDER BY e.id"
            )
            ids = [r[0] for r in con.execute(sql, self._args(text, truncated))]
            if ids:
                res[role] = ids
        return res

    def edge_id(self, a, rel, b, truncated) -> int | None:
        con = self.con()
        if con is None:
            return None
        sql = (
            "SELECT e.id FROM causal_edges e JOIN chunks x ON x.id = e.from_id "
            "JOIN chunks y ON y.id = e.to_id WHERE e.relation = ? AND "
            + self._match("x.text", truncated)
            + " AND "
            + self._match("y.text", truncated)
            + " ORDER BY (e.valid_to IS NULL) DESC, e.id DESC LIMIT 1"
        )
        row = con.execute(
            sql, [rel, *self._args(a, truncated), *self._args(b, truncated)]
        ).fetchone()
        return row[0] if row else None

    def last_edge_id(self, task_tag: str) -> int | None:
        con = self.con()
        if con is None:
            return None
        row = con.execute(
            "SELECT max(id) FROM causal_edges WHERE task_tag = ?", [task_tag]
        ).fetchone()
        return row[0] if row else None

    def enrich(self, method: str, parsed: dict) -> None:
        try:
            self._enrich(method, parsed)
        except sqlite3.Error as exc:  # never fail a call over a lookup
            parsed["resolve_error"] = str(exc)

    def _enrich(self, method: str, parsed: dict) -> None:
        for h in parsed.get("hits", []):
            if h.get("layer") == "fact" and "id" not in h and "key" in h:
                fid = self.fact_id(h["scope"], h["key"], h["value"], h["truncated"])
                if fid is not None:
                    h["id"] = fid
                    h["id_source"] = "db_lookup"
            elif h.get("layer") == "node":
                edges = self.node_edges(h["text"], h["truncated"])
                if edges:
                    h["edge_ids"] = edges
                    h["id_source"] = "db_lookup"
                else:  # facts also appear as nodes, printed "key: value"
                    fid = self.fact_node(h["text"], h["truncated"])
                    if fid is not None:
                        h["fact_id"] = fid
                        h["id_source"] = "db_lookup"
            elif h.get("layer") == "causal" and "id" not in h and "decision" in h:
                eid = self.edge_id(h["decision"], h["relation"], h["outcome"], h["truncated"])
                if eid is not None:
                    h["id"] = eid
                    h["id_source"] = "db_lookup"
        for ch in parsed.get("chains", []):
            for hp in ch["hops"]:
                eid = self.edge_id(hp["from"], hp["relation"], hp["to"], hp["truncated"])
                if eid is not None:
                    hp["id"] = eid


# ------------------------------------------------------------------- runner
def _jsonable(x):
    if x is None or isinstance(x, (bool, int, float, str)):
        return x
    if isinstance(x, (list, tuple, set)):
        return [_jsonable(v) for v in x]
    if isinstance(x, dict):
        return {str(k): _jsonable(v) for k, v in x.items()}
    if hasattr(x, "__dict__"):
        return {k: _jsonable(v) for k, v in vars(x).items() if not k.startswith("_")}
    return str(x)


class Runner:
    def __init__(self) -> None:
        self.mem = None
        self.resolver = Resolver(None)
        self.path: str | None = None

    # Each handler returns a response dict (without req_id).
    def op_open(self, cmd: dict) -> dict:
        raw = cmd.get("path")
        if not raw:
            return {"ok": False, "error": "open needs 'path'"}
        self.op_close({})
        if raw == ":memory:":
            t0 = time.perf_counter()
            self.mem = causal_memory.CausalMemory.in_memory()
            dt = time.perf_counter() - t0
            self.path = None
        else:
            p = Path(raw).expanduser()
            if p.suffix != ".db":
                p.mkdir(parents=True, exist_ok=True)
                p = p / "causal.db"
            else:
                p.parent.mkdir(parents=True, exist_ok=True)
            t0 = time.perf_counter()
            self.mem = causal_memory.CausalMemory(str(p))
            dt = time.perf_counter() - t0
            self.path = str(p)
        self.resolver = Resolver(self.path)
        return {
            "ok": True,
            "result": {"db_path": self.path, "version": causal_memory.__version__},
            "seconds": dt,
        }

    def op_cli(self, cmd: dict) -> dict:
        """Run the package's own CLI (e.g. ``["sleep"]``, ``["stats"]``)
        against the open store; ``sleep`` is the only way to mine the
        patterns that search_patterns returns (no Python method does it)."""
        args = cmd.get("args")
        if not isinstance(args, list) or not all(isinstance(a, str) for a in args):
            return {"ok": False, "error": "'args' must be a list of strings"}
        if self.path is None:
            return {"ok": False, "error": "cli needs a file-backed store (open a path)"}
        exe = Path(sys.executable).parent / "causal-memory"
        env = dict(os.environ, CAUSAL_MEMORY_DB=self.path)
        t0 = time.perf_counter()
        try:
            proc = subprocess.run(
                [str(exe), *args],
                capture_output=True,
                text=True,
                env=env,
                timeout=float(cmd.get("timeout", 600)),
            )
        except (OSError, subprocess.TimeoutExpired) as exc:
            return {
                "ok": False,
                "error": f"{type(exc).__name__}: {exc}",
                "seconds": time.perf_counter() - t0,
            }
        dt = time.perf_counter() - t0
        res = {"returncode": proc.returncode, "stdout": proc.stdout, "stderr": proc.stderr}
        if proc.returncode != 0:
            return {
                "ok": False,
                "error": f"causal-memory {' '.join(args)} exited {proc.returncode}",
                "result": res,
                "seconds": dt,
            }
        return {"ok": True, "result": res, "seconds": dt}

    def op_close(self, cmd: dict) -> dict:
        self.resolver.close()
        self.mem = None
        self.path = None
        return {"ok": True, "result": None}

    def invoke(self, method: str, kwargs: dict, parse: bool = True, resolve: bool = True) -> dict:
        if self.mem is None:
            return {"ok": False, "error": "no store open: send {'op':'open'} first"}
        if method not in API_METHODS:
            return {
                "ok": False,
                "error": f"unknown method {method!r}; known: {', '.join(API_METHODS)}",
            }
        fn = getattr(self.mem, method)
        t0 = time.perf_counter()
        try:
            value = fn(**kwargs)
        except Exception as exc:  # TypeError for bad kwargs, library errors
            dt = time.perf_counter() - t0
            return {"ok": False, "error": f"{type(exc).__name__}: {exc}", "seconds": dt}
        dt = time.perf_counter() - t0
        if isinstance(value, str):
            if value.lstrip().startswith("❌"):
                return {"ok": False, "error": value.strip(), "seconds": dt}
            result: dict = {"text": value}
            if parse and method in PARSERS:
                try:
                    result.update(PARSERS[method](value))
                except Exception as exc:  # parser gap: keep the text
                    result["parse_error"] = f"{type(exc).__name__}: {exc}"
                if resolve:
                    self.resolver.enrich(method, result)
                if method != "search_patterns":
                    ranked_ids(result)
            if method == "remember" and resolve and "Stored raw" in value:
                # raw storage makes one edge tagged 'remember' (no id printed)
                eid = self.resolver.last_edge_id("remember")
                if eid is not None:
                    result["id"] = eid
                    result["id_source"] = "db_lookup"
        else:
            result = _jsonable(value)
        return {"ok": True, "result": result, "seconds": dt}

    def dispatch(self, cmd: dict) -> dict:
        if not isinstance(cmd, dict):
            return {"ok": False, "error": "command must be a JSON object"}
        op = cmd.get("op")
        parse = cmd.get("parse", True)
        resolve = cmd.get("resolve", True)
        if op == "open":
            return self.op_open(cmd)
        if op == "close":
            return self.op_close(cmd)
        if op == "cli":
            return self.op_cli(cmd)
        if op == "version":
            return {
                "ok": True,
                "result": {
                    "causal_memory": causal_memory.__version__,
                    "python": sys.version.split()[0],
                    "offline": not _ALLOW_REMOTE,
                },
            }
        if op == "methods":
            return {"ok": True, "result": API_METHODS}
        if op == "call":
            kwargs = cmd.get("kwargs") or {}
            if not isinstance(kwargs, dict):
                return {"ok": False, "error": "'kwargs' must be an object"}
            return self.invoke(str(cmd.get("method")), kwargs, parse, resolve)
        if op == "bulk":
            calls = cmd.get("calls")
            if not isinstance(calls, list):
                return {"ok": False, "error": "'calls' must be a list"}
            stop = bool(cmd.get("stop_on_error", False))
            results, total = [], 0.0
            for sub in calls:
                if isinstance(sub, dict) and sub.get("op") == "bulk":
                    r = {"ok": False, "error": "nested bulk not allowed"}
                else:
                    r = self.dispatch(sub)
                total += r.get("seconds", 0.0) or 0.0
                results.append(r)
                if stop and not r.get("ok"):
                    break
            return {
                "ok": True,
                "result": {
                    "results": results,
                    "n": len(results),
                    "errors": sum(not r.get("ok") for r in results),
                },
                "seconds": total,
            }
        if isinstance(op, str) and op in API_METHODS:
            kwargs = {k: v for k, v in cmd.items() if k not in ("op", "req_id", "parse", "resolve")}
            return self.invoke(op, kwargs, parse, resolve)
        return {"ok": False, "error": f"unknown op {op!r}"}


def _emit(resp: dict) -> None:
    _proto.write(json.dumps(resp, ensure_ascii=False) + "\n")
    _proto.flush()


def main() -> int:
    runner = Runner()
    for line in sys.stdin:
        line = line.strip()
        if not line:
            continue
        try:
            cmd = json.loads(line)
        except json.JSONDecodeError as exc:
            _emit({"ok": False, "error": f"bad JSON: {exc}"})
            continue
        if isinstance(cmd, dict) and cmd.get("op") == "quit":
            _emit(
                {
                    "ok": True,
                    "result": None,
                    **({"req_id": cmd["req_id"]} if "req_id" in cmd else {}),
                }
            )
            break
        try:
            resp = runner.dispatch(cmd)
        except Exception as exc:  # keep the pipe alive whatever happens
            resp = {
                "ok": False,
                "error": f"{type(exc).__name__}: {exc}",
                "traceback": traceback.format_exc(),
            }
        if isinstance(cmd, dict) and "req_id" in cmd:
            resp["req_id"] = cmd["req_id"]
        _emit(resp)
    runner.op_close({})
    return 0


if __name__ == "__main__":
    sys.exit(main())

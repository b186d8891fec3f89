"""Causal benchmark: ebbtide against causal-memory 0.10.0 (PyPI, its own venv) on synthetic
incident worlds (``bench/causal_world.py``), questions of seven kinds, scored automatically.

    python bench/causal.py                        # 40 worlds, seed 7, both systems, both modes
    python bench/causal.py --worlds 20 --seed 3 --json
    python bench/causal.py --systems causal-memory --modes structured --show 5

Ingest, the same for both systems, into one fresh store per system and mode (all worlds share
it, so the other worlds are the distractors):

* structured: one ``record_decision(decision, outcome, relation, task_tag)`` per episode, in
  global time order, with each system's default confidence source. ebbtide runs on a manual
  clock set to each episode's time; causal-memory has no clock argument (real time).
* transcript: one ``remember`` per narrated session. ebbtide: ``remember(messages=[{speaker,
  text, time}], date=..., task_tag=...)`` (rule-based extraction). causal-memory:
  ``remember("speaker: text" lines, date)`` (offline it stores the raw text: its real behaviour).

Then ``resolve_updates(apply=True)`` on both (repeated until ebbtide finds nothing more; on
causal-memory it needs an LLM and offline only prints a notice: a limitation of the reference,
reported as such), and causal-memory's own offline consolidation (``causal-memory sleep``)
unless ``--no-cm-sleep``.

Questions (per world; the tool of the same name on both systems, same arguments):

    root_cause      trace_cause_chain(escalation, max_depth=3, min_confidence=0.1): the bad
                    practice is the root of a top-5 chain; trace_cause(failure): it is among the
                    top-5 causes. (min_confidence 0.1 for both: causal-memory's default 0.5
                    hides every 2-hop chain at default confidence, NOTES.md weakness 1.)
    intervention    intervention_query(bad practice) -> DANGER; (durable fix) -> SAFE.
    counterfactual  counterfactual_query(fix, bad) prefers "decision"; (bad, fix) "alternative".
    inhibition      intervention_query(preventer) is not DANGER *and*
                    counterfactual_query(preventer, bad) prefers the preventer.
    temporal        intervention_query(failure): the escalation (what followed) in the top 5.
    transfer        search_causal(twin failure in task B, no task tag, limit 5): a task-A lesson
                    of the same world in the top 5.
    latest          search_causal("how to fix <failure>", limit 5): the correction or the durable
                    fix in the top 5, and the superseded "workaround -> failure went away" lesson
                    not ranked above it.

Matching rule (how a returned item is mapped to gold events):

* Every returned item is first resolved to full texts by identity: ebbtide returns node ids
  (full text read from the store, outside the timed call); causal-memory prints edge ids or
  texts, which the runner resolves to edge ids by an SQLite lookup, and each edge id maps to the
  texts this harness recorded with it. A printed text without an id is used as printed.
* structured mode: an item names event e iff its text is exactly the text recorded for e (for
  ebbtide: or its node id is one returned by the record_decision call for e). Identity.
* transcript mode: an item names event e iff e's key (a few stemmed words, codename included,
  that occur in every paraphrase of e and in no other event of its world) is contained in the
  item's stemmed text (``causal_world.Labeler``). The same rule for both systems, so a raw
  stored transcript names every event it narrates.
* A lesson (decision -> outcome) names the events of both its ends; a chain's root is its first
  decision; an item naming both a gold and an anti-gold event counts as anti-gold.
* Verdicts: ebbtide's ``verdict`` field. causal-memory prints no single verdict: its pooled
  stratum is used (positive -> SAFE, negative -> DANGER, both -> WARNING) and, when that holds
  no signed outcome, the most severe chain label (DANGER > WARNING > SAFE > UNKNOWN).
  Counterfactual: ebbtide's ``preferred``; causal-memory's "Conclusion: ... favors A/B".

Scored 1 when the gold is in the top k (k = 5; k = 1 for verdicts and preferences). Time per
question is the tool call alone (ebbtide: perf_counter around the method; causal-memory: the
runner's own timing around the library call), summed over the calls of a question.
"""

from __future__ import annotations

import argparse
import inspect
import json
import re
import statistics
import sys
import tempfile
import time
from collections import defaultdict
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

from _stats import table  # noqa: E402
from causal_world import (  # noqa: E402
    BASE_TIME,
    KINDS,
    Call,
    Labeler,
    Question,
    World,
    generate,
    timeline,
)
from ebbtide.reference_runner import ReferenceRunner  # noqa: E402

SYSTEMS = ("ebbtide", "causal-memory")
MODES = ("structured", "transcript")
SEVERITY = {"DANGER": 3, "WARNING": 2, "SAFE": 1, "UNKNOWN": 0}


@dataclass
class Answer:
    items: list[set[str]] = field(default_factory=list)  # ranked; gold labels each item names
    roots: list[set[str]] = field(default_factory=list)  # chain roots, ranked
    verdict: str | None = None
    preferred: str | None = None
    seconds: float = 0.0
    shown: list[str] = field(default_factory=list)  # short rendering, for failure reports
    error: str | None = None


def judge(call: Call, ans: Answer) -> bool:
    if ans.error:
        return False
    gold, anti = set(call.gold), set(call.anti)
    if call.check == "chain_root":
        return any(r & gold for r in ans.roots[: call.k])
    if call.check == "in_top":
        return any(i & gold for i in ans.items[: call.k])
    if call.check == "before_anti":
        for item in ans.items[: call.k]:
            if item & anti:
                return False
            if item & gold:
                return True
        return False
    if call.check == "verdict_is":
        return ans.verdict == call.expect
    if call.check == "verdict_not":
        return ans.verdict is not None and ans.verdict != call.expect
    if call.check == "preferred":
        return ans.preferred == call.expect
    raise ValueError(call.check)


class Namer:
    """Texts (and, for ebbtide structured runs, node ids) -> gold labels, per the matching
    rule in the module docstring."""

    def __init__(self, worlds: list[World], mode: str) -> None:
        self.mode = mode
        self.labeler = Labeler(worlds)
        self.exact: dict[str, set[str]] = defaultdict(set)
        for w in worlds:
            for ep in w.episodes:
                self.exact[ep.decision_text].add(w.gold_label(ep.decision))
                self.exact[ep.outcome_text].add(w.gold_label(ep.outcome))
        self.ids: dict[str, set[str]] = defaultdict(set)

    def text(self, text: str | None, truncated: bool = False) -> set[str]:
        if not text:
            return set()
        if self.mode == "transcript":
            return self.labeler.labels(text)
        if text in self.exact:
            return set(self.exact[text])
        if truncated:
            out: set[str] = set()
            for full, labels in self.exact.items():
                if full.startswith(text):
                    out |= labels
            return out
        return set()

    def node(self, node_id: str | None, text: str | None) -> set[str]:
        if self.mode == "structured" and node_id in self.ids:
            return set(self.ids[node_id])
        return self.text(text)


def _short(s: str, n: int = 70) -> str:
    s = " ".join(s.split())
    return s if len(s) <= n else s[: n - 1] + "…"


# ------------------------------------------------------------------------------ ebbtide
class EbbtideSide:
    name = "ebbtide"

    def __init__(self, worlds: list[World], mode: str, path: str) -> None:
        from ebbtide import ManualClock, open_memory

        self.worlds, self.mode = worlds, mode
        self.clock = ManualClock(BASE_TIME)
        self.mem = open_memory(path, clock=self.clock, extraction="rules")  # no LLM
        self.namer = Namer(worlds, mode)
        self.notes: list[str] = []
        self._texts: dict[str, str] = {}

    def ingest(self) -> float:
        t0 = time.perf_counter()
        items = timeline(self.worlds)
        if self.mode == "structured":
            for w, ep, _ in items:
                self.clock.set(ep.time)
                rec = self.mem.record_decision(
                    ep.decision_text, ep.outcome_text, ep.relation, ep.task_tag
                )
                self.namer.ids[rec.decision.id].add(w.gold_label(ep.decision))
                self.namer.ids[rec.outcome.id].add(w.gold_label(ep.outcome))
        else:
            params = inspect.signature(self.mem.remember).parameters
            for _, _, s in items:
                self.clock.set(s.time)
                kw: dict = {"messages": [dict(m) for m in s.messages]}
                if "date" in params:
                    kw["date"] = s.time.isoformat()
                if "task_tag" in params:
                    kw["task_tag"] = s.task_tag
                self.mem.remember(**kw)
        ingest_s = time.perf_counter() - t0
        self.clock.set(max(ep.time for _, ep, _ in items))
        self.clock.advance(days=1)
        superseded = 0
        for _ in range(100):
            res = self.mem.resolve_updates(limit=100, apply=True)
            superseded += len(res.updates)
            if not res.updates:
                break
        self.notes.append(f"resolve_updates(apply=True) superseded {superseded} lessons")
        return ingest_s

    def _full(self, node_id: str, shown: str) -> str:
        """Full node text by id (search results may be trimmed for display)."""
        if node_id not in self._texts:
            nodes = self.mem.store.get_nodes([node_id])
            self._texts[node_id] = nodes[node_id].text if node_id in nodes else shown
        return self._texts[node_id]

    def _node(self, node_id: str, text: str) -> set[str]:
        return self.namer.node(node_id, self._full(node_id, text))

    def _lesson(self, ls: Any) -> tuple[set[str], str]:  # an ebbtide Lesson
        labels = self._node(ls.decision_id, ls.decision) | self._node(ls.outcome_id, ls.outcome)
        text = (
            f"{_short(self._full(ls.decision_id, ls.decision), 60)} -{ls.relation}-> "
            f"{_short(self._full(ls.outcome_id, ls.outcome), 60)}"
        )
        return labels, text

    def ask(self, call: Call) -> Answer:
        fn = getattr(self.mem, call.tool)
        t0 = time.perf_counter()
        try:
            res = fn(**call.args)
        except Exception as exc:  # a failing tool scores 0 and is reported
            return Answer(error=f"{type(exc).__name__}: {exc}", seconds=time.perf_counter() - t0)
        ans = Answer(seconds=time.perf_counter() - t0)
        if call.tool == "trace_cause_chain":
            for ch in res.chains:
                first = ch.steps[0]
                ans.roots.append(self._node(first.decision_id, first.decision))
                ans.items.append(set().union(*(self._lesson(s)[0] for s in ch.steps)))
                ans.shown.append(
                    f"[{ch.confidence:.2f}] " + " | ".join(self._lesson(s)[1] for s in ch.steps)
                )
        elif call.tool == "trace_cause":
            for c in res.causes:
                ls = c.lesson
                ans.items.append(self._node(ls.decision_id, ls.decision))
                ans.shown.append(f"[{c.score:.2f}] {self._lesson(ls)[1]}")
        elif call.tool == "intervention_query":
            ans.verdict = res.verdict
            ans.shown.append(f"verdict {res.verdict} risk {res.risk:.2f}")
            for c in res.consequences:
                ans.items.append(self._node(c.node.id, c.node.text))
                ans.shown.append(
                    f"[{c.activation:+.2f} h{c.hops}] {_short(self._full(c.node.id, c.node.text))}"
                )
        elif call.tool == "counterfactual_query":
            ans.preferred = res.preferred
            ans.shown.append(f"preferred {res.preferred} margin {res.margin:.2f}")
            for side in (res.decision, res.alternative):
                ans.shown.append(
                    f"{_short(side.option, 50)}: good {side.good:.2f} bad {side.bad:.2f} "
                    f"protective {side.protective:.2f} n={side.episodes} "
                    f"score {side.score:.2f} matched {len(side.matched)}"
                )
        elif call.tool == "search_causal":
            for h in res.hits:
                labels, text = self._lesson(h.lesson)
                ans.items.append(labels)
                ans.shown.append(f"[{h.score:.3f}] {text}")
        else:
            raise ValueError(call.tool)
        return ans

    def close(self) -> None:
        self.mem.close()


# ------------------------------------------------------------------------ causal-memory
_CONCLUSION = re.compile(r"Conclusion:\s*(.*)")


def cm_verdict(parsed: dict) -> str:
    pooled = next((s for s in parsed.get("strata", []) if s["stratum"] == "pooled"), None)
    if pooled and (pooled["positive"] or pooled["negative"]):
        if pooled["positive"] and pooled["negative"]:
            return "WARNING"
        return "DANGER" if pooled["negative"] else "SAFE"
    labels = [c.get("verdict") or "UNKNOWN" for c in parsed.get("chains", [])]
    return max(labels, key=lambda v: SEVERITY.get(v, 0), default="UNKNOWN")


def cm_preferred(text: str) -> str:
    m = _CONCLUSION.search(text)
    line = m.group(1) if m else text
    if "favors A" in line:
        return "decision"
    if "favors B" in line:
        return "alternative"
    if "insufficient evidence to distinguish" in line:
        return "tie"
    return "unknown"


class CausalMemorySide:
    name = "causal-memory"

    def __init__(self, worlds: list[World], mode: str, workdir: str, sleep: bool = True) -> None:
        self.worlds, self.mode, self.workdir, self.sleep = worlds, mode, workdir, sleep
        self.namer = Namer(worlds, mode)
        self.edges: dict[int, tuple[str, str]] = {}  # edge id -> (decision, outcome) recorded
        self.notes: list[str] = []
        self.runner = ReferenceRunner(HERE)

    def ingest(self) -> float:
        r = self.runner.send({"op": "open", "path": self.workdir})
        if not r.get("ok"):
            raise RuntimeError(f"causal-memory open failed: {r}")
        items = timeline(self.worlds)
        calls, texts = [], []
        for _, ep, s in items:
            if self.mode == "structured":
                calls.append(
                    {
                        "op": "record_decision",
                        "decision": ep.decision_text,
                        "outcome": ep.outcome_text,
                        "relation": ep.relation,
                        "task_tag": ep.task_tag,
                    }
                )
                texts.append((ep.decision_text, ep.outcome_text))
            else:
                blob = "\n".join(f"{m['speaker']}: {m['text']}" for m in s.messages)
                calls.append(
                    {"op": "remember", "messages": blob, "date": s.time.date().isoformat()}
                )
                texts.append((blob, "remember (no LLM available, stored raw)"))
        r = self.runner.send({"op": "bulk", "calls": calls})
        results = r["result"]["results"]
        bad = [x for x in results if not x.get("ok")]
        if bad:
            raise RuntimeError(f"causal-memory ingest failed: {bad[0]}")
        for res, pair in zip(results, texts, strict=True):
            eid = res["result"].get("id")
            if eid is not None:
                self.edges[int(eid)] = pair
        ingest_s = r.get("seconds", 0.0)
        ru = self.runner.send({"op": "resolve_updates", "apply": True, "parse": False})
        text = (ru.get("result") or {}).get("text") or ru.get("error") or ""
        self.notes.append(f"resolve_updates(apply=True): {_short(text, 110)}")
        if self.sleep:
            sl = self.runner.send({"op": "cli", "args": ["sleep"], "timeout": 600})
            out = (sl.get("result") or {}).get("stdout", "") or sl.get("error", "")
            last = [ln for ln in out.splitlines() if ln.strip()][-1:] or [""]
            self.notes.append(
                f"sleep ({'ok' if sl.get('ok') else 'failed'}): {_short(last[0], 100)}"
            )
        return ingest_s

    def _edge_labels(self, eid: int | None, role: str | None = None) -> set[str] | None:
        if eid is None or eid not in self.edges:
            return None
        dec, out = self.edges[eid]
        if role == "decision":
            return self.namer.text(dec)
        if role == "outcome":
            return self.namer.text(out)
        return self.namer.text(dec) | self.namer.text(out)

    def _hit(self, h: dict) -> tuple[set[str], str]:
        if h.get("layer") == "node":
            labels: set[str] = set()
            ids = h.get("edge_ids") or {}
            for role in ("decision", "outcome"):
                for eid in ids.get(role, []):
                    labels |= self._edge_labels(eid, role) or set()
            if not ids:
                labels = self.namer.text(h.get("text"), h.get("truncated", False))
            sign = h.get("sign") or ""
            return labels, f"[{h.get('activation', 0):.2f}{sign}] {_short(h.get('text', ''))}"
        labels = self._edge_labels(h.get("id"))
        if labels is None:
            tr = h.get("truncated", False)
            labels = self.namer.text(h.get("decision"), tr) | self.namer.text(h.get("outcome"), tr)
        text = (
            f"(#{h.get('id')}) {_short(h.get('decision', ''), 60)} -{h.get('relation')}-> "
            f"{_short(h.get('outcome', ''), 60)}"
        )
        return labels, text

    def _hop(self, hp: dict, end: str) -> set[str]:
        got = self._edge_labels(hp.get("id"), "decision" if end == "from" else "outcome")
        if got is None:
            got = self.namer.text(hp.get(end), hp.get("truncated", False))
        return got

    def ask(self, call: Call) -> Answer:
        r = self.runner.send({"op": call.tool, **call.args})
        if not r.get("ok"):
            return Answer(error=str(r.get("error")), seconds=r.get("seconds", 0.0) or 0.0)
        res = r["result"]
        ans = Answer(seconds=r.get("seconds", 0.0))
        if call.tool in ("trace_cause_chain", "intervention_query"):
            seen: list[set[str]] = []
            for ch in res.get("chains", []):
                hops = ch.get("hops", [])
                if not hops:
                    continue
                # trace_cause_chain prints hops from the outcome back to the root;
                # intervention_query prints them forward from the action
                root = hops[-1] if call.tool == "trace_cause_chain" else hops[0]
                ans.roots.append(self._hop(root, "from"))
                for hp in hops:
                    to = self._hop(hp, "to")
                    if to not in seen:
                        seen.append(to)
                ans.shown.append(
                    f"[{ch.get('verdict')} {ch.get('confidence', 0):.2f}] "
                    + " | ".join(
                        f"{_short(hp['from'], 50)} -{hp['relation']}-> {_short(hp['to'], 50)}"
                        for hp in hops
                    )
                )
            if call.tool == "intervention_query":
                ans.verdict = cm_verdict(res)
                ans.items = seen
                pooled = [s for s in res.get("strata", []) if s["stratum"] == "pooled"]
                ans.shown.insert(0, f"verdict {ans.verdict} pooled {pooled[:1]}")
            else:  # every event on each chain, chain by chain
                for ch in res.get("chains", []):
                    ends = [self._hop(hp, e) for hp in ch.get("hops", []) for e in ("from", "to")]
                    ans.items.append(set().union(*ends))
            if not res.get("chains"):
                ans.shown.append(_short(res.get("text", ""), 110))
        elif call.tool == "counterfactual_query":
            ans.preferred = cm_preferred(res.get("text", ""))
            m = _CONCLUSION.search(res.get("text", ""))
            ans.shown.append(f"preferred {ans.preferred}: {m.group(1) if m else '-'}")
        elif call.tool in ("trace_cause", "search_causal"):
            for h in res.get("hits", []):
                labels, text = self._hit(h)
                if call.tool == "trace_cause" and h.get("layer") != "node":
                    labels = self._edge_labels(h.get("id"), "decision") or labels
                ans.items.append(labels)
                ans.shown.append(text)
            if not res.get("hits"):
                ans.shown.append(_short(res.get("text", ""), 110))
        else:
            raise ValueError(call.tool)
        return ans

    def close(self) -> None:
        self.runner.quit()


# ------------------------------------------------------------------------------ running
def run_one(system: str, mode: str, worlds: list[World], tmp: str, cm_sleep: bool) -> dict:
    if system == "ebbtide":
        side: EbbtideSide | CausalMemorySide = EbbtideSide(
            worlds, mode, str(Path(tmp) / f"ebbtide-{mode}.db")
        )
    else:
        side = CausalMemorySide(worlds, mode, str(Path(tmp) / f"cm-{mode}"), sleep=cm_sleep)
    try:
        ingest_s = side.ingest()
        results = []
        for w in worlds:
            for q in w.questions:
                results.append(ask_question(side, w, q))
    finally:
        side.close()
    return summarize(system, mode, results, ingest_s, side.notes)


def ask_question(side: EbbtideSide | CausalMemorySide, w: World, q: Question) -> dict:
    calls = []
    ok, seconds = True, 0.0
    for c in q.calls:
        ans = side.ask(c)
        passed = judge(c, ans)
        ok = ok and passed
        seconds += ans.seconds
        calls.append(
            {
                "tool": c.tool,
                "args": c.args,
                "check": c.check,
                "expect": c.expect,
                "gold": [_gold_text(w, g) for g in c.gold],
                "anti": [_gold_text(w, g) for g in c.anti],
                "passed": passed,
                "returned": ans.shown[:6],
                "error": ans.error,
            }
        )
    return {
        "qid": q.qid,
        "kind": q.kind,
        "name": q.name,
        "ok": ok,
        "seconds": seconds,
        "calls": calls,
    }


def _gold_text(w: World, label: str) -> str:
    ev = w.events[label.split(".", 1)[1]]
    return f"{ev.label}: {ev.text}"


def summarize(
    system: str, mode: str, results: list[dict], ingest_s: float, notes: list[str]
) -> dict:
    per_kind: dict = {}
    for kind in KINDS:
        rs = [r for r in results if r["kind"] == kind]
        names = sorted({r["name"] for r in rs})
        per_kind[kind] = {
            "n": len(rs),
            "correct": sum(r["ok"] for r in rs),
            "accuracy": round(sum(r["ok"] for r in rs) / len(rs), 4) if rs else None,
            "mean_ms": round(statistics.fmean(r["seconds"] for r in rs) * 1000, 3) if rs else None,
            "by_question": {
                n: f"{sum(r['ok'] for r in rs if r['name'] == n)}/"
                f"{sum(1 for r in rs if r['name'] == n)}"
                for n in names
            },
        }
    return {
        "system": system,
        "mode": mode,
        "n_questions": len(results),
        "accuracy": round(sum(r["ok"] for r in results) / len(results), 4),
        "mean_ms_per_question": round(statistics.fmean(r["seconds"] for r in results) * 1000, 3),
        "ingest_s": round(ingest_s, 3),
        "per_kind": per_kind,
        "notes": list(notes),
        "failures": [r for r in results if not r["ok"]],
    }


def render(report: dict, show: int) -> str:
    runs = report["runs"]
    cols = ["kind", "n"] + [f"{r['system']} {r['mode'][:6]}" for r in runs]
    rows = []
    for kind in KINDS:
        row = {"kind": kind, "n": runs[0]["per_kind"][kind]["n"] if runs else 0}
        for r, c in zip(runs, cols[2:], strict=True):
            pk = r["per_kind"][kind]
            row[c] = f"{pk['accuracy'] * 100:.1f}%"
        rows.append(row)
    rows.append(
        {"kind": "all", "n": runs[0]["n_questions"] if runs else 0}
        | {c: f"{r['accuracy'] * 100:.1f}%" for r, c in zip(runs, cols[2:], strict=True)}
    )
    rows.append(
        {"kind": "ms/question", "n": ""}
        | {c: f"{r['mean_ms_per_question']:.2f}" for r, c in zip(runs, cols[2:], strict=True)}
    )
    rows.append(
        {"kind": "ingest s", "n": ""}
        | {c: f"{r['ingest_s']:.2f}" for r, c in zip(runs, cols[2:], strict=True)}
    )
    cfg = report["config"]
    out = [
        f"Causal benchmark: {cfg['worlds']} worlds, seed {cfg['seed']}, "
        f"{cfg['questions_per_world']} questions per world, {cfg['asks']} questions",
        table(rows, cols),
        "",
        "per question (correct/n):",
    ]
    for r in runs:
        parts = [f"{n} {v}" for pk in r["per_kind"].values() for n, v in pk["by_question"].items()]
        out.append(f"  {r['system']} {r['mode']}: " + ", ".join(parts))
    out.append("")
    for r in runs:
        for note in r["notes"]:
            out.append(f"  {r['system']} {r['mode']}: {note}")
    if show:
        for r in runs:
            fails = r["failures"]
            if not fails:
                continue
            out.append(
                f"\nfailures, {r['system']} {r['mode']} ({len(fails)}; up to {show} per kind):"
            )
            for kind in KINDS:
                for f in [f for f in fails if f["kind"] == kind][:show]:
                    out.append(f"  {f['qid']}")
                    for c in f["calls"]:
                        mark = "ok " if c["passed"] else "BAD"
                        want = "; ".join(c["gold"])[:150]
                        if c["expect"]:
                            neg = "not " if c["check"] == "verdict_not" else ""
                            want = f"{neg}{c['expect']}"
                        out.append(f"    {mark} {c['tool']}({_args(c['args'])})  want: {want}")
                        if c["anti"]:
                            out.append(f"        not above: {'; '.join(c['anti'])}")
                        if c["error"]:
                            out.append(f"        error: {c['error']}")
                        for line in c["returned"]:
                            out.append(f"        {line}")
    return "\n".join(out)


def _args(args: dict) -> str:
    return ", ".join(f"{k}={v!r}" for k, v in args.items())


def main(argv: list[str] | None = None) -> None:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawTextHelpFormatter)
    p.add_argument("--worlds", type=int, default=40)
    p.add_argument("--seed", type=int, default=7)
    p.add_argument("--systems", default=",".join(SYSTEMS))
    p.add_argument("--modes", default=",".join(MODES))
    p.add_argument(
        "--asks",
        choices=("paraphrase", "exact"),
        default="paraphrase",
        help="exact: ask with the recorded text (a lexical upper bound, diagnosis only)",
    )
    p.add_argument("--no-cm-sleep", action="store_true", help="skip causal-memory's sleep")
    p.add_argument("--show", type=int, default=3, help="failing examples per kind and run")
    p.add_argument("--json", action="store_true")
    args = p.parse_args(argv)
    systems = [s for s in args.systems.split(",") if s]
    modes = [m for m in args.modes.split(",") if m]
    for s in systems:
        if s not in SYSTEMS:
            p.error(f"unknown system {s!r}")
    for m in modes:
        if m not in MODES:
            p.error(f"unknown mode {m!r}")
    worlds = generate(args.seed, args.worlds, asks=args.asks)
    report = {
        "config": {
            "worlds": args.worlds,
            "seed": args.seed,
            "asks": args.asks,
            "questions_per_world": len(worlds[0].questions),
            "cm_sleep": not args.no_cm_sleep,
        },
        "runs": [],
    }
    with tempfile.TemporaryDirectory(prefix="ebbtide-causal-") as tmp:
        for mode in modes:
            for system in systems:
                print(f"… {system} {mode}", file=sys.stderr, flush=True)
                report["runs"].append(run_one(system, mode, worlds, tmp, not args.no_cm_sleep))
    if args.json:
        print(json.dumps(report, indent=2, default=str))
    else:
        print(render(report, args.show))


if __name__ == "__main__":
    main()

"""Reproduce the causal-memory 0.10.0 behaviours recorded in NOTES.md.

Run with the reference venv's Python (offline: no EMBED/LLM variables):

    $(python bench/_venv.py) bench/reference/verify_weaknesses.py

Each check prints the evidence and PASS when the noted behaviour is still
observed (FAIL means a later version changed it, so NOTES.md needs updating).
"""

from __future__ import annotations

import os
import re
import sqlite3
import sys
import tempfile

for _k in list(os.environ):
    if _k.startswith(("CAUSAL_MEMORY_EMBED_", "CAUSAL_MEMORY_LLM_")):
        del os.environ[_k]
# Every file this script makes lives here, removed when it exits.
_TMP = tempfile.TemporaryDirectory(prefix="cm-verify-")
os.environ["CAUSAL_MEMORY_CONFIG"] = os.path.join(_TMP.name, "absent.json")

from causal_memory import CausalMemory  # noqa: E402

RESULTS: list[tuple[str, bool]] = []


def fresh() -> tuple[CausalMemory, str]:
    path = os.path.join(tempfile.mkdtemp(dir=_TMP.name), "causal.db")
    return CausalMemory(path), path


def check(name: str, ok: bool, evidence: str) -> None:
    RESULTS.append((name, ok))
    print(f"--- {name}: {'PASS' if ok else 'FAIL'}")
    print("    " + evidence.strip().replace("\n", "\n    "))


def w1_chain_defaults() -> None:
    m, _ = fresh()
    m.record_decision(
        "enabled aggressive connection pooling", "database connection exhaustion", "caused", "infra"
    )
    m.record_decision(
        "database connection exhaustion", "checkout service outage", "caused", "infra"
    )
    default = m.trace_cause_chain("checkout service outage")
    lowered = m.trace_cause_chain("checkout service outage", min_confidence=0.3)
    check(
        "2-hop chain at default confidence (0.6*0.6=0.36 < min_confidence 0.5) "
        "returns nothing from trace_cause_chain",
        "No multi-hop causal chains" in default and "chain confidence: 36%" in lowered,
        f"defaults: {default!r}\nmin_confidence=0.3: {lowered.splitlines()[0]!r}",
    )

    m, _ = fresh()
    m.record_decision(
        "enabled pooling",
        "database connections exhausted",
        "caused",
        "infra",
        confidence_source="user_feedback",
    )
    m.record_decision(
        "database connection exhaustion",
        "checkout outage",
        "caused",
        "infra",
        confidence_source="user_feedback",
    )
    out = m.trace_cause_chain("checkout outage", min_confidence=0.0)
    check(
        "chains link only when the outcome text equals the next decision text "
        "exactly (paraphrase = no chain)",
        "No multi-hop causal chains" in out,
        repr(out),
    )


def w2_prevented() -> None:
    m, _ = fresh()
    m.record_decision(
        "added circuit breaker",
        "retry storm",
        "prevented",
        "infra",
        confidence_source="user_feedback",
    )
    m.record_decision(
        "retry storm", "success", "caused", "infra", confidence_source="user_feedback"
    )
    iq = m.intervention_query("added circuit breaker")
    check(
        "prevented does not block beyond one hop in intervention_query: "
        "X -prevented-> B -caused-> success is rated SAFE for X",
        "✅ SAFE" in iq and "1 positive" in iq,
        "\n".join(ln for ln in iq.splitlines() if ln.startswith(("Chain", "  hop", "  pooled"))),
    )

    m, _ = fresh()
    m.record_decision(
        "added circuit breaker",
        "retry storm",
        "prevented",
        "infra",
        confidence_source="user_feedback",
    )
    m.record_decision(
        "retry storm", "service crashed", "caused", "infra", confidence_source="user_feedback"
    )
    iq = m.intervention_query("added circuit breaker")
    tcc = m.trace_cause_chain("service crashed")
    check(
        "X -prevented-> B -caused-> crash: the chain is flagged, but the "
        "stratified verdict counts the crash against X, and trace_cause_chain "
        "returns X as a 90% cause of the crash",
        "pooled (n=2): 0 positive / 1 negative" in iq and "added circuit breaker" in tcc,
        "\n".join(ln for ln in iq.splitlines() if ln.startswith(("Chain", "  pooled")))
        + "\n"
        + tcc.strip(),
    )

    m, _ = fresh()
    m.record_decision(
        "added circuit breaker",
        "service crashed",
        "prevented",
        "infra",
        confidence_source="user_feedback",
    )
    iq = m.intervention_query("added circuit breaker")
    cf = m.counterfactual_query("added circuit breaker", "no circuit breaker")
    check(
        "even one hop: preventing a negative outcome is tallied as negative "
        "evidence (polarity not flipped for 'prevented')",
        "pooled (n=1): 0 positive / 1 negative" in iq and "0 positive / 1 negative" in cf,
        "\n".join(ln for ln in (iq + cf).splitlines() if "pooled" in ln or ln.startswith("A. ")),
    )


def w3_polarity() -> None:
    m, path = fresh()
    outs = [
        "weekend outage",
        "data loss",
        "production outage",
        "security breach",
        "memory leak",
        "downtime",
        "deadlock under load",
        "tests failed",
        "crash",
        "fixed the bug",
        "improved throughput",
        "reduced latency by 40%",
    ]
    for i, o in enumerate(outs):
        m.record_decision(f"decision {i}", o, "caused", "pol")
    con = sqlite3.connect(path)
    pol = dict(
        con.execute(
            "SELECT c.text, e.outcome_polarity FROM causal_edges e JOIN chunks c ON c.id = e.to_id"
        )
    )
    check(
        "offline polarity is a small lexicon: 'weekend outage' and 'data loss' are neutral",
        pol["weekend outage"] == "neutral" and pol["data loss"] == "neutral",
        ", ".join(f"{k}={v}" for k, v in pol.items()),
    )

    m, _ = fresh()
    m.record_decision(
        "deployed the schema migration on friday",
        "weekend outage",
        "caused",
        "deploy",
        confidence_source="user_feedback",
    )
    m.record_decision(
        "deployed the schema migration on tuesday",
        "tests failed",
        "caused",
        "deploy",
        confidence_source="user_feedback",
    )
    cf = m.counterfactual_query(
        "deployed the schema migration on friday", "deployed the schema migration on tuesday"
    )
    check(
        "consequence: counterfactual_query prefers the Friday deploy that "
        "caused a weekend outage over one whose tests failed",
        "favors A" in cf,
        "\n".join(ln for ln in cf.splitlines() if ln.startswith(("A.", "B.", "Concl"))),
    )


def w4_search_memory_ranking() -> None:
    words = [
        "apple",
        "banana",
        "cherry",
        "dolphin",
        "eagle",
        "falcon",
        "giraffe",
        "hippo",
        "iguana",
        "jaguar",
        "koala",
        "lemur",
        "mongoose",
        "narwhal",
        "ocelot",
        "penguin",
        "quokka",
        "raccoon",
        "salmon",
        "tiger",
        "urchin",
        "vulture",
        "walrus",
        "xerus",
        "yak",
        "zebra",
    ]
    m, _ = fresh()
    ids = {}
    for w in words:
        r = m.record_decision(
            f"resized the cluster for {w}", f"{w} workload stabilized", "caused", "k8s"
        )
        ids[w] = int(re.search(r"id: (\d+)", r).group(1))
    top5 = [int(x) for x in re.findall(r"\(#(\d+)\)", m.search_memory("cluster zebra", limit=5))]
    top30 = [int(x) for x in re.findall(r"\(#(\d+)\)", m.search_memory("cluster zebra", limit=30))]
    only = [int(x) for x in re.findall(r"\(#(\d+)\)", m.search_memory("zebra", limit=5))]
    sc = m.search_causal(query="cluster zebra", limit=3)
    check(
        "search_memory ignores the rare query term when a common one also "
        "matches: 'cluster zebra' ranks the zebra record (newest) last; "
        "search_causal ranks it first",
        ids["zebra"] not in top5
        and only == [ids["zebra"]]
        and f"(#{ids['zebra']})" in sc.splitlines()[2],
        f"zebra id={ids['zebra']}; search_memory top5={top5}; limit=30 -> {top30}; "
        f"'zebra' alone -> {only}; search_causal first: {sc.splitlines()[2]!r}",
    )

    m, _ = fresh()
    m.record_decision(
        "switched redis eviction policy to allkeys-lru",
        "redis cache hit rate improved",
        "caused",
        "cache",
    )
    m.record_fact("favourite_colour", "blue, though cache is mentioned once")
    sm = m.search_memory("redis cache eviction")
    first = next(ln for ln in sm.splitlines() if ln.startswith("  #1 "))
    check(
        "search_memory prints the Facts section before Causal lessons; the "
        "#rank is display order, not relevance",
        "favourite_colour" in first,
        sm.strip(),
    )


def main() -> int:
    w1_chain_defaults()
    w2_prevented()
    w3_polarity()
    w4_search_memory_ranking()
    failed = [n for n, ok in RESULTS if not ok]
    print(f"\n{len(RESULTS) - len(failed)} passed, {len(failed)} failed")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())

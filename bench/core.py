"""Core benchmark: write and recall latency at 1k / 10k / 100k nodes, in process and over MCP
stdio, plus causal-memory (PyPI, its own venv) side by side in the same run.

    python bench/core.py                       # full table (several minutes at 100k)
    python bench/core.py --sizes 1000,10000 --json

Each size runs in a fresh subprocess so that peak RSS is that size's own.
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

from _stats import summary_ms, table, timed  # noqa: E402
from synth import Synth  # noqa: E402


def populate(memory, n_nodes: int, synth: Synth) -> float:
    """Grow a memory to about n_nodes through the public API: notes linked to earlier nodes,
    and one decision -> outcome episode per ten notes."""
    rng = synth.rng
    ids: list[str] = []
    start = time.perf_counter()
    while len(ids) < n_nodes:
        with memory.batch():
            for _ in range(min(1000, n_nodes - len(ids))):
                if len(ids) % 10 == 9:
                    d, o = synth.decision()
                    rec = memory.record_decision(d, o, "caused", task_tag=rng.choice("abcdefgh"))
                    ids += [rec.decision.id, rec.outcome.id]
                    continue
                node = memory.remember(synth.note())
                for target in rng.sample(ids, min(2, len(ids))):
                    memory.connect(node.id, target)
                ids.append(node.id)
    return time.perf_counter() - start


def one_size(size: int, path: str, samples: int) -> dict:
    from ebbtide import open_memory

    synth = Synth(seed=size)
    memory = open_memory(path)
    embeddings = memory.embedder.name if memory.embedder else "none"
    populate_s = populate(memory, size, synth)
    memory.maintain()
    stats = memory.stats()
    queries = [synth.query() for _ in range(samples)]
    memory.recall(queries[0])  # warm caches the way a running server would have them
    res = {
        "size": size,
        "embeddings": embeddings,
        "nodes": stats.nodes,
        "edges": stats.edges,
        "populate_s": round(populate_s, 1),
        "remember": summary_ms(timed(lambda i: memory.remember(synth.note()), samples)),
        "record_decision": summary_ms(
            timed(lambda i: memory.record_decision(*synth.decision(), "caused"), samples)
        ),
        "recall": summary_ms(timed(lambda i: memory.recall(queries[i], 10), samples)),
    }
    t = time.perf_counter()
    memory.maintain()
    res["maintain_s"] = round(time.perf_counter() - t, 2)
    memory.close()
    res["peak_rss_mb"] = round(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024, 1)
    return res


def decisions_only(n_edges: int, path: str, samples: int) -> dict:
    """Same workload as the causal-memory side: n decision -> outcome episodes, then search."""
    from ebbtide import open_memory

    synth = Synth(seed=n_edges + 1)
    memory = open_memory(path)
    pairs = [synth.decision() for _ in range(n_edges)]
    writes = timed(lambda i: memory.record_decision(*pairs[i], "caused", "bench"), n_edges)
    queries = [synth.query() for _ in range(samples)]
    reads = timed(lambda i: memory.recall(queries[i], 10), samples)
    memory.close()
    return {
        "record_decision": summary_ms(writes[-samples:]),
        "search": summary_ms(reads),
    }


def reference_side(n_edges: int, workdir: str, samples: int) -> dict:
    from _venv import reference_python

    py = reference_python()
    runner = HERE / "reference" / "causal_memory_runner.py"
    synth = Synth(seed=n_edges + 1)
    pairs = [synth.decision() for _ in range(n_edges)]
    queries = [synth.query() for _ in range(samples)]
    calls = [
        {
            "op": "record_decision",
            "decision": d,
            "outcome": o,
            "relation": "caused",
            "task_tag": "bench",
            "parse": False,
            "resolve": False,
        }
        for d, o in pairs
    ]
    searches = [
        {"op": "search_memory", "query": q, "limit": 10, "parse": False, "resolve": False}
        for q in queries
    ]
    script = [
        {"op": "open", "path": workdir},
        {"op": "bulk", "calls": calls},
        {"op": "bulk", "calls": searches},
        {"op": "quit"},
    ]
    proc = subprocess.run(
        [str(py), str(runner)],
        input="\n".join(json.dumps(c) for c in script) + "\n",
        capture_output=True,
        text=True,
        timeout=3600,
        check=True,
    )
    replies = [json.loads(x) for x in proc.stdout.splitlines() if x.strip()]
    bulk = [
        r["result"]["results"]
        for r in replies
        if r.get("ok") and "results" in (r.get("result") or {})
    ]
    failed = [c for b in bulk for c in b if not c.get("ok")]
    if len(bulk) != 2 or failed:
        raise RuntimeError(f"causal-memory runner failed: {failed[:1] or proc.stderr[-500:]}")
    write_s = [c["seconds"] for c in bulk[0]]
    read_s = [c["seconds"] for c in bulk[1]]
    return {"record_decision": summary_ms(write_s[-samples:]), "search": summary_ms(read_s)}


def mcp_side(store: str, samples: int) -> dict:
    import anyio
    from mcp import Client
    from mcp.client.stdio import StdioServerParameters

    exe = str(Path(sys.executable).with_name("ebbtide"))
    params = StdioServerParameters(
        command=exe, args=["serve"], env={**os.environ, "EBBTIDE_STORE": store}
    )
    synth = Synth(seed=99)

    async def go() -> dict:
        t0 = time.perf_counter()
        async with Client(params) as client:
            await client.call_tool("stats", {})
            spawn = time.perf_counter() - t0

            async def measure(tool, args_fn):
                out = []
                for i in range(samples):
                    t = time.perf_counter()
                    r = await client.call_tool(tool, args_fn(i))
                    out.append(time.perf_counter() - t)
                    assert not r.is_error, r.content
                return summary_ms(out)

            return {
                "spawn_to_first_result_s": round(spawn, 3),
                "remember": await measure("remember", lambda i: {"text": synth.note()}),
                "record_decision": await measure(
                    "record_decision",
                    lambda i: dict(zip(("decision", "outcome"), synth.decision(), strict=True)),
                ),
                "recall": await measure("recall", lambda i: {"query": synth.query(), "k": 10}),
            }

    return anyio.run(go)


def child(args: argparse.Namespace) -> None:
    if args.mode == "size":
        print(json.dumps(one_size(args.one, args.path, args.samples)))
    else:
        print(json.dumps(decisions_only(args.one, args.path, args.samples)))


def run_child(mode: str, n: int, path: str, samples: int) -> dict:
    out = subprocess.run(
        [
            sys.executable,
            __file__,
            "--child",
            mode,
            "--one",
            str(n),
            "--path",
            path,
            "--samples",
            str(samples),
        ],
        capture_output=True,
        text=True,
        check=True,
        timeout=7200,
    )
    return json.loads(out.stdout.strip().splitlines()[-1])


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawTextHelpFormatter)
    p.add_argument("--sizes", default="1000,10000,100000")
    p.add_argument("--edges", default="1000,10000", help="causal-memory comparison sizes")
    p.add_argument("--samples", type=int, default=200)
    p.add_argument("--mcp-samples", type=int, default=100)
    p.add_argument("--no-reference", action="store_true")
    p.add_argument(
        "--embeddings",
        choices=["local", "http", "none"],
        help="EBBTIDE_EMBEDDINGS for ebbtide's side (default: the environment's)",
    )
    p.add_argument("--json", action="store_true")
    p.add_argument("--child", choices=["size", "decisions"])
    p.add_argument("--one", type=int)
    p.add_argument("--path")
    args = p.parse_args()
    if args.child:
        args.mode = args.child
        return child(args)
    if args.embeddings:
        # Children and the MCP server inherit it.
        os.environ["EBBTIDE_EMBEDDINGS"] = args.embeddings

    report: dict = {"sizes": [], "compare": []}
    with tempfile.TemporaryDirectory(prefix="ebbtide-bench-") as tmp:
        for size in [int(s) for s in args.sizes.split(",")]:
            path = str(Path(tmp) / f"core-{size}.db")
            print(f"… {size} nodes", file=sys.stderr, flush=True)
            res = run_child("size", size, path, args.samples)
            res["mcp"] = mcp_side(path, args.mcp_samples)
            report["sizes"].append(res)
        if not args.no_reference:
            for n in [int(s) for s in args.edges.split(",")]:
                print(f"… compare at {n} edges", file=sys.stderr, flush=True)
                ours = run_child("decisions", n, str(Path(tmp) / f"dec-{n}.db"), args.samples)
                theirs = reference_side(n, str(Path(tmp) / f"cm-{n}"), args.samples)
                report["compare"].append({"edges": n, "ebbtide": ours, "causal_memory": theirs})

    if args.json:
        print(json.dumps(report, indent=2))
        return
    rows = []
    for r in report["sizes"]:
        for op in ("remember", "record_decision", "recall"):
            rows.append(
                {
                    "nodes": r["nodes"],
                    "edges": r["edges"],
                    "op": op,
                    "p50 ms": r[op]["p50_ms"],
                    "p95 ms": r[op]["p95_ms"],
                    "mcp p50 ms": r["mcp"][op]["p50_ms"],
                    "mcp p95 ms": r["mcp"][op]["p95_ms"],
                }
            )
    models = sorted({r["embeddings"] for r in report["sizes"]})
    print(
        f"ebbtide on SQLite, embeddings {', '.join(models)} (in process, and MCP stdio round trip)"
    )
    print(table(rows, ["nodes", "edges", "op", "p50 ms", "p95 ms", "mcp p50 ms", "mcp p95 ms"]))
    print()
    print(
        table(
            [
                {
                    "nodes": r["nodes"],
                    "populate s": r["populate_s"],
                    "maintain s": r["maintain_s"],
                    "peak RSS MB": r["peak_rss_mb"],
                    "spawn->first result s": r["mcp"]["spawn_to_first_result_s"],
                }
                for r in report["sizes"]
            ],
            ["nodes", "populate s", "maintain s", "peak RSS MB", "spawn->first result s"],
        )
    )
    if report["compare"]:
        print("\nSide by side, same run: n decision -> outcome episodes, then search")
        rows = []
        for c in report["compare"]:
            for op, ours_key in (("record_decision", "record_decision"), ("search", "search")):
                e, m = c["ebbtide"][ours_key], c["causal_memory"][op]
                rows.append(
                    {
                        "edges": c["edges"],
                        "op": op if op != "search" else "recall / search_memory",
                        "ebbtide p50": e["p50_ms"],
                        "ebbtide p95": e["p95_ms"],
                        "causal-memory p50": m["p50_ms"],
                        "causal-memory p95": m["p95_ms"],
                        "ratio p50 (cm/eb)": round(m["p50_ms"] / e["p50_ms"], 2),
                    }
                )
        print(
            table(
                rows,
                [
                    "edges",
                    "op",
                    "ebbtide p50",
                    "ebbtide p95",
                    "causal-memory p50",
                    "causal-memory p95",
                    "ratio p50 (cm/eb)",
                ],
            )
        )


if __name__ == "__main__":
    main()

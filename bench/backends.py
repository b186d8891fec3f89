"""Backends side by side: SQLite, Kùzu and a real Neo4j 5 server, at 10k and 100k nodes.

    python bench/backends.py                              # starts its own Neo4j server
    python bench/backends.py --sizes 10000 --backends sqlite,neo4j --samples 50
    python bench/backends.py --neo4j-uri bolt://127.0.0.1:7687   # an existing server (no auth)

Per backend and size, in a fresh subprocess: a synthetic graph is bulk-loaded through the
store (notes linked to two earlier nodes, decision -> outcome episodes chained into incidents,
about three edges per node), maintained once, then measured through the public API:

* write: `remember` of a new note with two links (one transaction)
* recall: `recall(query, k=10)` (text search, two-hop spreading, ranking, touch)
* trace: `trace_cause_chain(outcome)`; spread: `spread_from` 10 seeds over 3 hops
* Neo4j: queries and commits sent per recall (the store counts them)
* ping: `Memory.ping()`, one trivial read, the floor under every other figure

Embeddings are off (`EBBTIDE_EMBEDDINGS=none`) so the numbers are the store's: embedding a
query costs the same on every backend. The Neo4j server runs with its default JIT (the test
suite starts it with a faster-starting, slower-running one).
"""

from __future__ import annotations

import argparse
import json
import os
import random
import subprocess
import sys
import tempfile
import time
from datetime import UTC, datetime, timedelta
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
sys.path.insert(0, str(HERE.parent / "tests"))

from _stats import summary_ms, table, timed  # noqa: E402
from synth import Synth  # noqa: E402

os.environ["EBBTIDE_EMBEDDINGS"] = "none"


def build_graph(n_nodes: int, seed: int):
    """Nodes and edges for a graph of about n_nodes, all created within the last five days
    (inside the grace period, so maintenance archives nothing)."""
    from ebbtide.model import Edge, Node

    synth, rng = Synth(seed=seed), random.Random(seed)
    now = datetime.now(UTC)
    nodes: list = []
    edges: list = []
    outcomes: list[str] = []

    def at(i: int) -> datetime:
        return now - timedelta(days=5) + timedelta(seconds=i * 400_000 / n_nodes)

    def node(kind: str, text: str) -> str:
        ident = f"{kind[:4]}_{len(nodes)}"
        t = at(len(nodes))
        nodes.append(Node(id=ident, kind=kind, text=text, created_at=t, updated_at=t, valid_from=t))
        return ident

    def edge(src: str, dst: str, relation: str, weight: float) -> None:
        t = at(len(nodes))
        edges.append(
            Edge(id=f"e_{len(edges)}", src=src, dst=dst, relation=relation, weight=weight,
                 created_at=t, last_reinforced_at=t, valid_from=t)
        )  # fmt: skip

    ids: list[str] = []
    while len(nodes) < n_nodes:
        if len(nodes) % 10 == 8:
            d_text, o_text = synth.decision()
            d, o = node("decision", d_text), node("outcome", o_text)
            edge(d, o, "caused", 0.8)
            if outcomes and rng.random() < 0.5:  # chain incidents: an outcome led to this
                edge(rng.choice(outcomes[-50:]), d, "caused", 0.8)
            outcomes.append(o)
            ids += [d, o]
            continue
        n = node("note", synth.note())
        for target in rng.sample(ids, min(3, len(ids))):
            edge(n, target, "related", 1.0)
        ids.append(n)
    return nodes, edges, [nodes[int(i.split("_")[1])].text for i in outcomes]


def load(store, nodes, edges) -> float:
    t = time.perf_counter()
    bulk = hasattr(store, "add_nodes")
    for i in range(0, len(nodes), 10_000):
        with store.transaction():
            if bulk:
                store.add_nodes(nodes[i : i + 10_000])
            else:
                for n in nodes[i : i + 10_000]:
                    store.add_node(n)
    for i in range(0, len(edges), 10_000):
        with store.transaction():
            if bulk:
                store.add_edges(edges[i : i + 10_000])
            else:
                for e in edges[i : i + 10_000]:
                    store.add_edge(e)
    return time.perf_counter() - t


def one(backend: str, url: str, size: int, samples: int, warmup: int) -> dict:
    from ebbtide import open_memory
    from ebbtide.graph import spread_from

    nodes, edges, outcome_texts = build_graph(size, seed=size)
    memory = open_memory(url)
    store = memory.store
    res: dict = {"backend": backend, "size": size, "nodes": len(nodes), "edges": len(edges)}
    res["load_s"] = round(load(store, nodes, edges), 1)
    t = time.perf_counter()
    memory.maintain()
    res["maintain_s"] = round(time.perf_counter() - t, 2)

    synth, rng = Synth(seed=size + 1), random.Random(size + 1)
    queries = [synth.query() for _ in range(samples)]
    targets = [n.id for n in nodes]
    # Warm up as a running server would be: query plans and JIT, the Kùzu index, pools.
    warm = Synth(seed=size + 2)
    for _ in range(warmup):
        memory.recall(warm.query(), 10)
        memory.remember(warm.note(), links=[{"target": x} for x in rng.sample(targets, 2)])
        memory.trace_cause_chain(rng.choice(outcome_texts))
    res["write"] = summary_ms(
        timed(
            lambda i: memory.remember(
                synth.note(), links=[{"target": x} for x in rng.sample(targets, 2)]
            ),
            samples,
        )
    )
    trips: list[int] = []

    def recall(i: int) -> None:
        before = getattr(store, "round_trips", 0)
        memory.recall(queries[i], 10)
        trips.append(getattr(store, "round_trips", 0) - before)

    res["recall"] = summary_ms(timed(recall, samples))
    # The floor under every figure: one trivial read of the store (for Neo4j a Bolt round trip).
    res["ping"] = summary_ms(timed(lambda i: memory.ping(), samples))
    if hasattr(store, "round_trips"):
        res["round_trips_per_recall"] = sorted(trips)[len(trips) // 2]
    picks = [rng.choice(outcome_texts) for _ in range(samples)]
    res["trace"] = summary_ms(timed(lambda i: memory.trace_cause_chain(picks[i]), samples))
    seeds = [{x: 1.0 for x in rng.sample(targets, 10)} for _ in range(samples)]
    now = time.time()
    res["spread"] = summary_ms(
        timed(lambda i: spread_from(store, seeds[i], memory.config, now, hops=3), samples)
    )
    memory.close()
    return res


def run_child(backend: str, url: str, size: int, samples: int, warmup: int) -> dict:
    out = subprocess.run(
        [sys.executable, __file__, "--child", backend, "--url", url, "--one", str(size),
         "--samples", str(samples), "--warmup", str(warmup)],
        capture_output=True, text=True, timeout=7200,
    )  # fmt: skip
    if out.returncode != 0:
        raise RuntimeError(f"{backend} at {size} failed:\n{out.stderr[-3000:]}")
    return json.loads(out.stdout.strip().splitlines()[-1])


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawTextHelpFormatter)
    p.add_argument("--sizes", default="10000,100000")
    p.add_argument("--backends", default="sqlite,kuzu,neo4j")
    p.add_argument("--samples", type=int, default=100)
    p.add_argument("--warmup", type=int, default=30, help="untimed rounds before measuring")
    p.add_argument("--neo4j-uri", help="use this server (no auth) instead of starting one")
    p.add_argument("--neo4j-heap", default="2g")
    p.add_argument("--json", action="store_true", help="raw results instead of the table")
    p.add_argument("--child")
    p.add_argument("--url")
    p.add_argument("--one", type=int)
    args = p.parse_args()
    if args.child:
        print(json.dumps(one(args.child, args.url, args.one, args.samples, args.warmup)))
        return

    backends = args.backends.split(",")
    server = None
    neo4j_uri = args.neo4j_uri
    if "neo4j" in backends and not neo4j_uri:
        from neo4j_server import Neo4jServer

        server = Neo4jServer(heap=args.neo4j_heap, fast_start=False).start()
        neo4j_uri = server.uri
    rows = []
    try:
        with tempfile.TemporaryDirectory(prefix="ebbtide-backends-") as tmp:
            for size in [int(s) for s in args.sizes.split(",")]:
                for backend in backends:
                    url = {
                        "sqlite": f"sqlite:///{tmp}/b-{size}.db",
                        "kuzu": f"kuzu:///{tmp}/b-{size}.kz",
                        "neo4j": f"{neo4j_uri}?tenant=bench-{size}-{int(time.time())}",
                    }[backend]
                    print(f"… {backend} at {size} nodes", file=sys.stderr, flush=True)
                    rows.append(run_child(backend, url, size, args.samples, args.warmup))
    finally:
        if server is not None:
            server.stop()
    if args.json:
        print(json.dumps(rows, indent=2))
        return
    flat = [
        {
            "backend": r["backend"],
            "nodes": r["nodes"],
            "edges": r["edges"],
            "load s": r["load_s"],
            "write p50": r["write"]["p50_ms"],
            "write p95": r["write"]["p95_ms"],
            "recall p50": r["recall"]["p50_ms"],
            "recall p95": r["recall"]["p95_ms"],
            "trace p50": r["trace"]["p50_ms"],
            "spread p50": r["spread"]["p50_ms"],
            "trips/recall": r.get("round_trips_per_recall"),
            "ping p50": r["ping"]["p50_ms"],
            "maintain s": r["maintain_s"],
        }
        for r in rows
    ]
    print(table(flat, list(flat[0])))
    print(
        "\nms unless marked; trips/recall: Neo4j queries and commits per recall; ping: one "
        "trivial store read (Memory.ping), the cost of one round trip"
    )


if __name__ == "__main__":
    main()

"""Exact vector search in the embedded store, by size: where would an ANN index pay?

    python bench/vectors.py                         # 10k, 100k and 300k vectors
    python bench/vectors.py --sizes 10000,50000 --queries 200 --json out.json
    python bench/vectors.py --backends sqlite,neo4j --sizes 10000,100000  # starts Neo4j

The SQLite store keeps each model's vectors as one float32 matrix in memory (filled from the
`vectors` table on first use, then grown by the rows other processes add) and answers
`vector_search` with one matrix-vector product, a partial sort and one filter query over the
candidates. Per size, in a fresh SQLite file: N notes and N random unit vectors of MiniLM's
384 dimensions are written through the store, then measured:

* load: the first search, which reads every vector into memory;
* search: `vector_search(k=60)` (what recall asks for) for random queries, p50 / p95 ms;
* RSS: the process's peak resident memory after the searches.

Vectors are random, not embeddings: the cost of exact search does not depend on what the
vectors say. Neo4j answers with its own vector index (HNSW) instead: `--backends neo4j` runs
the same through a real Neo4j 5 server this script starts (Community, 2 GB heap, on the same
machine; or `--neo4j-uri` for one of your own, no auth), each size in a tenant of its own;
its RSS column is the client's.
"""

from __future__ import annotations

import argparse
import json
import resource
import sys
import tempfile
import time
from datetime import UTC, datetime
from pathlib import Path

import numpy as np

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
sys.path.insert(0, str(HERE.parent / "tests"))

from _stats import summary_ms, table, timed  # noqa: E402

DIM = 384
MODEL = "bench-random@384"
BATCH = 5_000


def measure(n: int, queries: int, seed: int, neo4j_uri: str | None = None) -> dict[str, object]:
    from ebbtide.model import Node
    from ebbtide.store import SearchFilter, open_store

    rng = np.random.default_rng(seed)
    now = datetime.now(UTC)
    with tempfile.TemporaryDirectory(prefix="ebbtide-bench-vectors-") as tmp:
        url = (
            f"{neo4j_uri}?tenant=vectors-{n}-{int(time.time())}"
            if neo4j_uri
            else str(Path(tmp) / "vectors.db")
        )
        store = open_store(url)
        started = time.perf_counter()
        for at in range(0, n, BATCH):
            ids = [f"n{i}" for i in range(at, min(n, at + BATCH))]
            vectors = rng.standard_normal((len(ids), DIM), dtype=np.float32)
            vectors /= np.linalg.norm(vectors, axis=1, keepdims=True)
            with store.transaction():
                for ident in ids:
                    store.add_node(
                        Node(id=ident, kind="note", text=ident, created_at=now, updated_at=now)
                    )
                store.put_vectors(MODEL, list(zip(ids, vectors, strict=True)))
        write_s = time.perf_counter() - started
        store.close()

        store = open_store(url)
        flt = SearchFilter()
        probe = rng.standard_normal((queries + 1, DIM), dtype=np.float32)
        probe /= np.linalg.norm(probe, axis=1, keepdims=True)
        started = time.perf_counter()
        first = store.vector_search(MODEL, probe[0], 60, flt)
        load_s = time.perf_counter() - started
        samples = timed(lambda i: store.vector_search(MODEL, probe[i + 1], 60, flt), queries)
        store.close()
    assert len(first) == 60
    search = summary_ms(samples)
    return {
        "backend": "neo4j" if neo4j_uri else "sqlite",
        "vectors": n,
        "write s": round(write_s, 1),
        "load s": round(load_s, 2),
        "search p50": search["p50_ms"],
        "search p95": search["p95_ms"],
        "peak RSS MB": round(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024),
    }


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--sizes", default="10000,100000,300000", help="comma-separated counts")
    ap.add_argument("--queries", type=int, default=100)
    ap.add_argument("--seed", type=int, default=7)
    ap.add_argument("--json", type=Path, help="also write the rows here")
    ap.add_argument("--backends", default="sqlite", help="sqlite, neo4j or both")
    ap.add_argument("--neo4j-uri", help="use this server (no auth) instead of starting one")
    args = ap.parse_args(argv)
    backends = args.backends.split(",")
    unknown = set(backends) - {"sqlite", "neo4j"}
    if unknown:
        ap.error(f"--backends: no backend {', '.join(sorted(unknown))} (sqlite, neo4j)")
    server, neo4j_uri = None, args.neo4j_uri
    if "neo4j" in backends and not neo4j_uri:
        from neo4j_server import Neo4jServer

        server = Neo4jServer(heap="2g", fast_start=False).start()
        neo4j_uri = server.uri
    try:
        rows = [
            measure(int(n), args.queries, args.seed, neo4j_uri if b == "neo4j" else None)
            for n in args.sizes.split(",")
            for b in backends
        ]
    finally:
        if server is not None:
            server.stop()
    if args.json:
        args.json.write_text(json.dumps(rows, indent=2) + "\n")
    print(table(rows, list(rows[0])))
    print(
        f"ms unless marked; search = vector_search(k=60), {DIM} dimensions; peak RSS is this "
        "process's, cumulative over the rows before (for Neo4j the client's)."
    )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())

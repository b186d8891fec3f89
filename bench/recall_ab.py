"""Recall latency of two versions of ebbtide, measured side by side on LoCoMo questions.

    python bench/recall_ab.py --base HEAD~1 --data /work/shared/data/locomo/locomo-dev.json \
        --stores /tmp/locomo-stores

On a shared machine a latency measured in one run and compared with another run's mostly
shows how busy the machine was in each. This starts one worker process per version (the
working tree, and `--base` checked out into a temporary git worktree), loads the same stores
in both, and asks every question of each conversation of each in turn, alternating which
version goes first, so both see the same machine. The query's embedding is not cached: each
question is embedded once per version, as in `ebbtide bench locomo`.

`--stores` is the folder `ebbtide bench locomo --stores` keeps its stores in; conversations
without one there are ingested first, by the working tree. Both versions must read the same
store format.
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import tempfile
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
sys.path.insert(0, str(HERE))

from _stats import summary_ms, table  # noqa: E402

# Runs inside each worker: `src` first on the path, then one line in, one time out.
WORKER = """
import json, sys, time
sys.path.insert(0, sys.argv[1])
from ebbtide.memory import open_memory
memories = {}
for line in sys.stdin:
    path, question = json.loads(line)
    if path not in memories:
        memories[path] = open_memory(path, embeddings="local")
        memories[path].embedder.embed(["load the model before the clock starts"])
        memories[path].embedder.cache_size = 0
    started = time.perf_counter()
    memories[path].recall(question, k=10, touch=False)
    print(time.perf_counter() - started, flush=True)
"""


class Worker:
    def __init__(self, src: Path) -> None:
        self.proc = subprocess.Popen(
            [sys.executable, "-c", WORKER, str(src)],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            text=True,
        )

    def recall(self, store: Path, question: str) -> float:
        assert self.proc.stdin is not None and self.proc.stdout is not None
        self.proc.stdin.write(json.dumps([str(store), question]) + "\n")
        self.proc.stdin.flush()
        line = self.proc.stdout.readline()
        if not line:
            raise SystemExit(f"worker for {self.proc.args[-1]} stopped")
        return float(line)

    def close(self) -> None:
        if self.proc.stdin is not None:
            self.proc.stdin.close()
        self.proc.wait(timeout=60)


def stores_for(data: Path, stores: Path, only: list[str] | None) -> list[tuple[Path, list[str]]]:
    """Each conversation's store (ingested by the working tree when missing) and questions."""
    from ebbtide import bench_locomo as locomo

    out = []
    for conv in locomo.load(data, only):
        system = locomo.EbbtideSystem("local", stores)
        system.ingest(conv)
        system.close()
        out.append((system.store_path(conv), [q.text for q in conv.questions]))
    return out


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--base", required=True, help="the git revision to compare the tree with")
    ap.add_argument("--data", required=True, type=Path, help="a file in the LoCoMo layout")
    ap.add_argument("--stores", required=True, type=Path, help="as `ebbtide bench locomo`")
    ap.add_argument("--conversations", help="comma-separated sample ids (default: all)")
    ap.add_argument("--json", action="store_true", help="machine-readable output")
    args = ap.parse_args()
    sys.path.insert(0, str(ROOT / "src"))
    convs = stores_for(
        args.data, args.stores, args.conversations.split(",") if args.conversations else None
    )
    with tempfile.TemporaryDirectory(prefix="ebbtide-ab-") as tmp:
        base_tree = Path(tmp) / "base"
        subprocess.run(
            ["git", "-C", str(ROOT), "worktree", "add", "--detach", str(base_tree), args.base],
            check=True,
            capture_output=True,
        )
        try:
            workers = {args.base: Worker(base_tree / "src"), "tree": Worker(ROOT / "src")}
            times: dict[str, list[float]] = {name: [] for name in workers}
            turn = 0
            for store, questions in convs:
                for question in questions:
                    order = list(workers) if turn % 2 else list(reversed(workers))
                    for name in order:
                        times[name].append(workers[name].recall(store, question))
                    turn += 1
            for worker in workers.values():
                worker.close()
        finally:
            subprocess.run(
                ["git", "-C", str(ROOT), "worktree", "remove", "--force", str(base_tree)],
                check=False,
                capture_output=True,
            )
    rows = [{"version": name, **summary_ms(t)} for name, t in times.items()]
    ratio = round(rows[1]["p50_ms"] / rows[0]["p50_ms"], 3)
    if args.json:
        print(json.dumps({"rows": rows, "p50_ratio": ratio}, indent=2))
        return
    print(table(rows, ["version", "p50_ms", "p95_ms", "mean_ms", "n"]))
    print(f"recall(k=10) with local embeddings; tree / {args.base} p50: {ratio}")


if __name__ == "__main__":
    main()

"""What logged predictions cost the writes that settle them (`record_decision` and a lesson's
invalidation) and the report that counts them (`prediction_report`), timed on SQLite with 0,
1,000 and 10,000 predictions in the store.

    python bench/predictions.py
    python bench/predictions.py --counts 0,1000,10000,50000 --samples 30 --json
    python bench/predictions.py --counts 0,100000 --ops report

Each count gets a fresh store with 100 recorded decisions and one "watched" decision. Half the
predictions are about the watched one (an agent asking "what if I skip the load test?" again
and again leaves them so), the rest spread over the 100 others; they are logged directly, as
intervention queries log them. Then, per sample:

* record: `record_decision` of a new decision that no prediction is about
* watched: `record_decision` of the watched decision with a new outcome, once its predictions
  hold every episode they keep (the steady state: each is read, none is written)
* invalidate: `invalidate_decision` of a lesson that no prediction kept
* report: `prediction_report()` (its totals over every prediction, and the latest 50)

`x` columns are each p50 over the same column's p50 with no predictions, in the same run, so
they compare from run to run and machine to machine: a lookup proportional to the predictions
concerned keeps record and invalidate near 1 at any count; watched grows with the predictions
about the watched decision, which it must read; report stays near 1 when the store keeps the
totals rather than reading every prediction. `--ops` times only some of them (the settling
that watched needs reads and writes half the predictions MAX_EPISODES times: slow at 100k).
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import tempfile
from collections.abc import Sequence
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

from _stats import summary_ms, table, timed  # noqa: E402
from synth import Synth  # noqa: E402

os.environ["EBBTIDE_EMBEDDINGS"] = "none"

WATCHED = "Skipped the load test before the sale"
OPS = ("record", "watched", "invalidate", "report")


def one_count(n: int, path: str, samples: int, ops: Sequence[str]) -> dict:
    from ebbtide import open_memory, predictions

    synth = Synth(seed=n + 1)
    with open_memory(path, embeddings="none") as memory:
        others = [memory.record_decision(*synth.decision()).decision.id for _ in range(100)]
        watched = memory.record_decision(WATCHED, synth.decision()[1]).decision.id
        now = memory.now()
        with memory.store.transaction():
            for i in range(n):
                about = watched if i % 2 == 0 else others[i % len(others)]
                predictions.log(
                    memory.store,
                    kind="intervention",
                    subject=f"what if #{i}",
                    predicted="DANGER",
                    good_ids=[],
                    bad_ids=[about],
                    now=now,
                )
        if "watched" in ops:
            for _ in range(predictions.MAX_EPISODES):
                memory.record_decision(WATCHED, synth.decision()[1])
        lessons = [memory.record_decision(*synth.decision()).edge.id for _ in range(samples)]
        new = [synth.decision() for _ in range(samples)]
        outcomes = [synth.decision()[1] for _ in range(samples)]
        run = {
            "record": lambda i: memory.record_decision(*new[i]),
            "watched": lambda i: memory.record_decision(WATCHED, outcomes[i]),
            "invalidate": lambda i: memory.invalidate_decision(lessons[i], "bench"),
            "report": lambda i: memory.prediction_report(),
        }
        return {"predictions": n, **{op: summary_ms(timed(run[op], samples)) for op in ops}}


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawTextHelpFormatter)
    p.add_argument("--counts", default="0,1000,10000")
    p.add_argument("--samples", type=int, default=20)
    p.add_argument("--ops", default=",".join(OPS), help="which of " + ", ".join(OPS))
    p.add_argument("--json", action="store_true")
    args = p.parse_args()
    ops = [op for op in OPS if op in args.ops.split(",")]
    if not ops or set(args.ops.split(",")) - set(OPS):
        p.error(f"--ops: a comma-separated list of {', '.join(OPS)}; got {args.ops!r}")
    results = []
    with tempfile.TemporaryDirectory(prefix="ebbtide-bench-") as tmp:
        for n in [int(c) for c in args.counts.split(",")]:
            print(f"… {n} predictions", file=sys.stderr, flush=True)
            results.append(one_count(n, str(Path(tmp) / f"pred-{n}.db"), args.samples, ops))
    if args.json:
        print(json.dumps(results, indent=2))
        return
    base = results[0]
    rows = []
    for r in results:
        row: dict = {"predictions": r["predictions"]}
        for op in ops:
            row[f"{op} ms"] = r[op]["p50_ms"]
            row[f"{op} x"] = round(r[op]["p50_ms"] / base[op]["p50_ms"], 2)
        rows.append(row)
    print(f"SQLite, p50 of {args.samples} samples; x: over the {base['predictions']} row")
    print(table(rows, ["predictions", *(f"{op} {u}" for op in ops for u in ("ms", "x"))]))


if __name__ == "__main__":
    main()

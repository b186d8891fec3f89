"""What logged predictions cost the writes that settle them: `record_decision` and a lesson's
invalidation, timed on SQLite with 0, 1,000 and 10,000 predictions in the store.

    python bench/predictions.py
    python bench/predictions.py --counts 0,1000,10000,50000 --samples 30 --json

Each count gets a fresh store with 100 recorded decisions and one "watched" decision. Half the
predictions are about the watched one (an agent asking "what if I skip the load test?" again
and again leaves them so), the rest spread over the 100 others; they are logged directly, as
intervention queries log them. Then, per sample:

* record: `record_decision` of a new decision that no prediction is about
* watched: `record_decision` of the watched decision with a new outcome, once its predictions
  hold every episode they keep (the steady state: each is read, none is written)
* invalidate: `invalidate_decision` of a lesson that no prediction kept

`x` columns are each p50 over the same column's p50 with no predictions, in the same run, so
they compare from run to run and machine to machine: a lookup proportional to the predictions
concerned keeps record and invalidate near 1 at any count; watched grows with the predictions
about the watched decision, which it must read.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import tempfile
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

from _stats import summary_ms, table, timed  # noqa: E402
from synth import Synth  # noqa: E402

os.environ["EBBTIDE_EMBEDDINGS"] = "none"

WATCHED = "Skipped the load test before the sale"
OPS = ("record", "watched", "invalidate")


def one_count(n: int, path: str, samples: int) -> dict:
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
        for _ in range(predictions.MAX_EPISODES):
            memory.record_decision(WATCHED, synth.decision()[1])
        lessons = [memory.record_decision(*synth.decision()).edge.id for _ in range(samples)]
        new = [synth.decision() for _ in range(samples)]
        outcomes = [synth.decision()[1] for _ in range(samples)]
        return {
            "predictions": n,
            "record": summary_ms(timed(lambda i: memory.record_decision(*new[i]), samples)),
            "watched": summary_ms(
                timed(lambda i: memory.record_decision(WATCHED, outcomes[i]), samples)
            ),
            "invalidate": summary_ms(
                timed(lambda i: memory.invalidate_decision(lessons[i], "bench"), samples)
            ),
        }


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawTextHelpFormatter)
    p.add_argument("--counts", default="0,1000,10000")
    p.add_argument("--samples", type=int, default=20)
    p.add_argument("--json", action="store_true")
    args = p.parse_args()
    results = []
    with tempfile.TemporaryDirectory(prefix="ebbtide-bench-") as tmp:
        for n in [int(c) for c in args.counts.split(",")]:
            print(f"… {n} predictions", file=sys.stderr, flush=True)
            results.append(one_count(n, str(Path(tmp) / f"pred-{n}.db"), args.samples))
    if args.json:
        print(json.dumps(results, indent=2))
        return
    base = results[0]
    rows = []
    for r in results:
        row: dict = {"predictions": r["predictions"]}
        for op in OPS:
            row[f"{op} ms"] = r[op]["p50_ms"]
            row[f"{op} x"] = round(r[op]["p50_ms"] / base[op]["p50_ms"], 2)
        rows.append(row)
    print(f"SQLite, p50 of {args.samples} samples; x: over the {base['predictions']} row")
    print(table(rows, ["predictions", *(f"{op} {u}" for op in OPS for u in ("ms", "x"))]))


if __name__ == "__main__":
    main()

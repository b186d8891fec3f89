"""Which events ingest took for one event told by several messages, on LoCoMo stores.

    python bench/merged_events.py --data /work/shared/data/locomo/locomo-dev.json \
        --stores DIR [--show]

`DIR` is the folder `ebbtide bench locomo --stores DIR` keeps its stores in (each
conversation's memory, built once). An event, decision or outcome whose `sources` name more
than one message is one that ingest merged: a retelling, or two look-alike sayings taken for
one. The table counts them per conversation; `--show` prints each with the messages it came
from, for reading which merges were right.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

from _stats import table  # noqa: E402
from ebbtide.bench_locomo import EbbtideSystem, load  # noqa: E402
from ebbtide.memory import open_memory  # noqa: E402

EPISODE_KINDS = ("event", "decision", "outcome")


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--data", type=Path, required=True, help="a LoCoMo-format JSON file")
    ap.add_argument("--stores", type=Path, required=True, help="folder of built stores")
    ap.add_argument("--embeddings", default="local", help="the stores' embeddings (file name)")
    ap.add_argument("--show", action="store_true", help="print each merged event")
    ap.add_argument("--json", action="store_true", help="the counts and merges as JSON")
    args = ap.parse_args(argv)
    rows: list[dict] = []
    shown: list[dict] = []
    for conv in load(args.data):
        path = EbbtideSystem(args.embeddings, args.stores).store_path(conv)
        if not path.exists():
            print(f"{conv.sample_id}: no store at {path}", file=sys.stderr)
            continue
        said = {t.dia_id: f"{t.speaker}: {t.text}" for s in conv.sessions for t in s.turns}
        with open_memory(path, embeddings="none") as memory:
            episodes = [
                n
                for kind in EPISODE_KINDS
                for n in memory.store.find_nodes(kind=kind, limit=1_000_000)
            ]
        merged = [n for n in episodes if len(n.sources) > 1]
        shown.extend(
            {"conversation": conv.sample_id, "kind": n.kind, "text": n.text, "sources": n.sources}
            for n in merged
        )
        rows.append(
            {"conversation": conv.sample_id, "episodes": len(episodes), "merged": len(merged)}
        )
        if args.show and not args.json:
            for node in merged:
                print(f"{conv.sample_id}  {node.kind}: {node.text}")
                for source in node.sources:
                    print(f"    {source}  {said.get(source, '?')[:110]}")
    total = {c: sum(r[c] for r in rows) for c in ("episodes", "merged")}
    rows.append({"conversation": "all", **total})
    if args.json:
        print(json.dumps({"counts": rows, "merged": shown}, indent=1))
    else:
        print(table(rows, ["conversation", "episodes", "merged"]))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())

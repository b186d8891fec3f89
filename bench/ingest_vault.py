"""How long `ebbtide ingest VAULT` takes on a vault of short generated notes, the first time and
again with nothing changed (an hourly sync over an unchanged vault).

    python bench/ingest_vault.py
    python bench/ingest_vault.py --notes 500,2000 --json

Each note is a sentence or two of synthetic team talk (`synth.py`) under front matter with a
`date:`, a `[[wiki link]]` to an earlier note, and every tenth an alias. The vault and the store
are fresh per size; `ebbtide ingest VAULT --json` runs as a user runs it (a process of its own,
embeddings off so the figures are the ingest's), and the seconds are what its `--json` reports.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
from datetime import date, timedelta
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

from _stats import table  # noqa: E402
from synth import Synth  # noqa: E402


def write_vault(folder: Path, n: int) -> None:
    synth = Synth(seed=n)
    first = date(2026, 1, 1)
    for i in range(n):
        alias = f"aliases: [Note {i} alias]\n" if i % 10 == 0 else ""
        link = f" See [[Note {i - 1}]]." if i else ""
        day = first + timedelta(days=i % 300)
        text = f"---\ndate: {day.isoformat()}\n{alias}---\n{synth.note()}{link}\n"
        (folder / f"Note {i}.md").write_text(text, encoding="utf-8")


def ingest(vault: Path, store: Path) -> dict:
    src = str(HERE.parent / "src")
    env = {**os.environ, "PYTHONPATH": src, "EBBTIDE_EMBEDDINGS": "none"}
    out = subprocess.run(
        [sys.executable, "-m", "ebbtide", "ingest", str(vault), "--store", str(store), "--json"],
        env=env,
        capture_output=True,
        text=True,
        check=True,
    ).stdout
    return json.loads(out)


def one_size(n: int) -> dict:
    with tempfile.TemporaryDirectory() as tmp:
        vault, store = Path(tmp) / "vault", Path(tmp) / "m.db"
        vault.mkdir()
        write_vault(vault, n)
        first = ingest(vault, store)
        again = ingest(vault, store)
    return {
        "notes": n,
        "nodes": first["nodes"],
        "first s": first["seconds"],
        "again s": again["seconds"],
        "unchanged": again["unchanged"],
    }


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.partition("\n\n")[0])
    parser.add_argument("--notes", default="2000", help="vault sizes, comma-separated")
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args(argv)
    rows = [one_size(int(n)) for n in args.notes.split(",")]
    if args.json:
        print(json.dumps(rows, indent=2))
    else:
        print(table(rows, ["notes", "nodes", "first s", "again s", "unchanged"]))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())

"""`bench/vectors.py`: vector search measured on the embedded store and on a real Neo4j."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

SCRIPT = Path(__file__).resolve().parent.parent / "bench" / "vectors.py"


def test_the_vector_bench_measures_sqlite_and_a_real_neo4j_side_by_side(neo4j_server, tmp_path):
    out = tmp_path / "rows.json"
    done = subprocess.run(
        [sys.executable, str(SCRIPT), "--backends", "sqlite,neo4j", "--neo4j-uri",
         neo4j_server.uri, "--sizes", "200", "--queries", "5", "--json", str(out)],
        capture_output=True, text=True, timeout=600,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    rows = json.loads(out.read_text())
    assert [(r["backend"], r["vectors"]) for r in rows] == [("sqlite", 200), ("neo4j", 200)]
    assert all(r["search p50"] > 0 for r in rows)
    assert "neo4j" in done.stdout and "search p50" in done.stdout


def test_an_unknown_backend_is_refused_by_name():
    done = subprocess.run(
        [sys.executable, str(SCRIPT), "--backends", "sqlite,redis"],
        capture_output=True, text=True, timeout=60,
    )  # fmt: skip
    assert done.returncode == 2 and "redis" in done.stderr

"""`bench/locomo_sweep.py`: recall variants scored side by side on stores built once."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

SCRIPT = Path(__file__).resolve().parent.parent / "bench" / "locomo_sweep.py"

CONVERSATION = {
    "sample_id": "conv-sweep",
    "conversation": {
        "speaker_a": "Ana",
        "speaker_b": "Bo",
        "session_1_date_time": "1:56 pm on 8 May, 2023",
        "session_1": [
            {"dia_id": "D1:1", "speaker": "Ana", "text": "I adopted a beagle called Biscuit."},
            {"dia_id": "D1:2", "speaker": "Bo", "text": "I ran the city marathon on Sunday."},
            {"dia_id": "D1:3", "speaker": "Ana", "text": "Biscuit chewed my running shoes."},
        ],
    },
    "qa": [
        {"question": "What breed is Biscuit?", "answer": "beagle", "category": 4,
         "evidence": ["D1:1"]},
        {"question": "What did Biscuit chew and who adopted him?", "answer": "shoes; Ana",
         "category": 1, "evidence": ["D1:1", "D1:3"]},
    ],
}  # fmt: skip


def sweep(tmp_path: Path, *args: str) -> subprocess.CompletedProcess[str]:
    data = tmp_path / "locomo.json"
    data.write_text(json.dumps([CONVERSATION]), encoding="utf-8")
    return subprocess.run(
        [sys.executable, str(SCRIPT), "--data", str(data), "--stores", str(tmp_path / "stores"),
         "--embeddings", "none", *args],
        capture_output=True, text=True, timeout=300,
    )  # fmt: skip


def test_each_variant_is_scored_against_the_code_as_it_is_on_one_built_store(tmp_path):
    done = sweep(tmp_path, "--json", "--variant", "MIN_POOL=10,rrf_k=20", "--variant",
                 "REPEAT_KEEP=0.5")  # fmt: skip
    assert done.returncode == 0, done.stderr
    rows = json.loads(done.stdout)
    assert [r["variant"] for r in rows] == [
        "questions", "as is", "MIN_POOL=10,rrf_k=20", "REPEAT_KEEP=0.5"
    ]  # fmt: skip
    assert rows[0]["single-hop"] == 1 and rows[0]["multi-hop"] == 1
    # Three turns: every question finds all its evidence in ten hits, whatever the constants.
    assert all(r["all@10"] == 2 and r["won"] == r["lost"] == 0 for r in rows[1:])
    # The store was built once and is reused by the next run.
    assert len(list((tmp_path / "stores").glob("*.db"))) == 1
    again = sweep(tmp_path)
    assert again.returncode == 0 and "as is" in again.stdout and "multi-hop" in again.stdout


@pytest.mark.parametrize(
    ("variant", "named"),
    [
        ("NO_SUCH_CONSTANT=1", "NO_SUCH_CONSTANT"),
        ("MIN_POOL=1.5", "MIN_POOL: must be an integer"),
        ("no_such_field=2", "no_such_field"),
        ("max_hops=-1", "max_hops"),
        ("REPEAT_KEEP", "NAME=VALUE"),
        ("INDEX_KINDS=1", "INDEX_KINDS"),
    ],
)
def test_a_bad_variant_is_refused_by_name_before_anything_runs(tmp_path, variant, named):
    done = sweep(tmp_path, "--variant", variant)
    assert done.returncode == 2 and named in done.stderr
    assert not (tmp_path / "stores").exists()


def test_won_and_lost_count_questions_against_the_first_row():
    sys.path.insert(0, str(SCRIPT.parent))
    from locomo_sweep import summarise

    base = {"q1": ("multi-hop", True, True), "q2": ("multi-hop", False, True),
            "q3": ("single-hop", False, False)}  # fmt: skip
    variant = {"q1": ("multi-hop", False, True), "q2": ("multi-hop", True, True),
               "q3": ("single-hop", True, True)}  # fmt: skip
    row = summarise("X=1", variant, base)
    assert row["won"] == 2 and row["lost"] == 1
    assert row["all@10"] == 2 and row["any@10"] == 3
    assert row["multi-hop"] == 1 and row["single-hop"] == 1 and row["temporal"] == 0

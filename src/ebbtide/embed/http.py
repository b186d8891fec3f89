"""Embeddings from an OpenAI-compatible ``POST /v1/embeddings`` server (stdlib only).

Works with OpenAI and the many servers that copy its API (vLLM, llama.cpp,
Ollama's ``/v1``, text-embeddings-inference, LocalAI, LM Studio, …). Texts go
in batches; 429, 5xx and connection failures are retried with backoff; every
failure ends in :class:`EmbeddingUnavailable` naming the server and what went
wrong (never the key). Proxies come from the usual ``*_proxy`` variables.
"""

from __future__ import annotations

import base64
import json
import logging
import re
import threading
from collections.abc import Sequence
from typing import Any

import numpy as np

from .._http import (
    base_url,
    check_number,
    display,
    post_json,
    setting_hints,
    snippet,
    warn_plain_key,
)
from ..errors import EmbeddingUnavailable, ValidationError
from .base import ENV_KEY, ENV_MODEL, ENV_URL, check_texts, l2_normalise

__all__ = ["HttpEmbedder", "endpoint_url"]

_HINTS = setting_hints(ENV_KEY, ENV_URL, ENV_MODEL)
# Statuses a server answers for too many texts, or too long a text, in one request.
TOO_LARGE = frozenset({400, 413, 422})
MIN_CUT = 256  # a text this short that is refused is refused for something else
_BATCH_WORDS = re.compile(r"batch|too many|inputs?\b.*\d+\s*>|array", re.IGNORECASE)
_SIZE_WORDS = re.compile(
    r"too (?:many|long|large|big)|maximum|exceed|limit|context length|tokens?\b|batch|size",
    re.IGNORECASE,
)
log = logging.getLogger("ebbtide.embed")


def endpoint_url(url: str) -> str:
    """The embeddings endpoint for a base URL.

    ``https://host/v1`` → ``https://host/v1/embeddings``; ``http://host:8080``
    → ``http://host:8080/v1/embeddings``; a URL ending in ``/embeddings`` is
    kept as it is. Query strings are kept.
    """
    return base_url(url, ENV_URL, "embeddings")


class HttpEmbedder:
    """Client of an OpenAI-compatible embeddings endpoint.

    ``dim`` is learned from the first answer (or checked against ``dim=`` if
    given); reading it before any :meth:`embed` asks the server once.

    Models trained to read questions apart want a word before each text: e5's
    ``query:`` and ``passage:``, nomic's ``search_query:`` and ``search_document:``.
    ``query_prefix`` goes before a search query (:meth:`embed_query`),
    ``passage_prefix`` before everything stored, each joined to the text by one
    space. The passage prefix changes every stored vector, so it is part of
    ``name``; the query prefix is not.
    """

    def __init__(
        self,
        url: str | None,
        model: str | None,
        *,
        key: str | None = None,
        batch_size: int = 64,
        timeout: float = 10.0,
        max_retries: int = 2,
        dim: int | None = None,
        query_prefix: str | None = None,
        passage_prefix: str | None = None,
    ) -> None:
        if not url:
            raise ValidationError(
                ENV_URL,
                "is required for http embeddings: the API base of an OpenAI-compatible"
                " server, such as https://api.openai.com/v1",
            )
        if not model:
            raise ValidationError(
                ENV_MODEL,
                "is required for http embeddings: the model name the server expects,"
                " such as text-embedding-3-small",
            )
        self.url = endpoint_url(url)
        self.model = model
        self.query_prefix = _prefix("query_prefix", query_prefix)
        self.passage_prefix = _prefix("passage_prefix", passage_prefix)
        self.name = f"http:{model}" + (f" {self.passage_prefix}" if self.passage_prefix else "")
        self._key = key
        self.batch_size = check_number("batch_size", batch_size, int, 1)
        self.timeout = float(check_number("timeout", timeout, (int, float), 0.001))
        self.max_retries = check_number("max_retries", max_retries, int, 0)
        self._dim = None if dim is None else check_number("dim", dim, int, 1)
        self._lock = threading.Lock()
        warn_plain_key(self.url, key, ENV_KEY, ENV_URL)

    def __repr__(self) -> str:
        return f"HttpEmbedder({self.name!r}, url={display(self.url)!r}, dim={self._dim})"

    @property
    def dim(self) -> int:
        if self._dim is None:
            self.embed(["dimension probe"])
        assert self._dim is not None
        return self._dim

    def embed(self, texts: Sequence[str]) -> np.ndarray:
        return self._embed(_prefixed(self.passage_prefix, check_texts(texts)))

    def embed_query(self, texts: Sequence[str]) -> np.ndarray:
        return self._embed(_prefixed(self.query_prefix, check_texts(texts)))

    def _embed(self, texts: list[str]) -> np.ndarray:
        if not texts:
            return np.zeros((0, self.dim), dtype=np.float32)
        parts = [
            self._post(texts[i : i + self.batch_size])
            for i in range(0, len(texts), self.batch_size)
        ]
        return np.concatenate(parts, axis=0)

    # -- one request -----------------------------------------------------------

    def _post(self, batch: list[str]) -> np.ndarray:
        """One request; a batch the server refuses as too large is sent in halves, and one
        text it refuses as too long is cut to half its length, so one long note or a server's
        batch limit never turns into an outage."""
        try:
            return self._request(batch)
        except EmbeddingUnavailable as exc:
            if getattr(exc, "status", None) not in TOO_LARGE or not _SIZE_WORDS.search(str(exc)):
                raise
            if len(batch) > 1:
                half = len(batch) // 2
                out = np.concatenate([self._post(batch[:half]), self._post(batch[half:])])
                if _BATCH_WORDS.search(str(exc)):
                    # The server's limit on texts per request, once found, is kept: a text too
                    # long (or a bare 413, which some servers give for one) says nothing of it.
                    self.batch_size = min(self.batch_size, half)
                return out
            if len(batch[0]) <= MIN_CUT:
                raise
            log.info("embedding server refused a text of %d characters; cut to half", len(batch[0]))
            return self._post([batch[0][: len(batch[0]) // 2]])

    def _request(self, batch: list[str]) -> np.ndarray:
        raw = post_json(
            self.url,
            {"model": self.model, "input": batch},
            key=self._key,
            timeout=self.timeout,
            max_retries=self.max_retries,
            what="embedding server",
            error=EmbeddingUnavailable,
            hints=_HINTS,
            slow_hint="a slow server may be given longer with EBBTIDE_EMBED_TIMEOUT",
        )
        return self._parse(raw, len(batch), display(self.url))

    def _parse(self, raw: bytes, expected: int, where: str) -> np.ndarray:
        def bad(why: str) -> EmbeddingUnavailable:
            return EmbeddingUnavailable(
                f"embedding server {where} answered with no usable embeddings: {why}"
            )

        try:
            payload = json.loads(raw)
        except ValueError:
            raise bad(f"not JSON: {snippet(raw)}") from None
        data = payload.get("data") if isinstance(payload, dict) else None
        if not isinstance(data, list):
            raise bad(f"no 'data' list in {snippet(raw)}")
        if len(data) != expected:
            raise bad(f"{len(data)} embeddings for {expected} texts")
        try:
            if all(isinstance(item.get("index"), int) for item in data):
                data = sorted(data, key=lambda item: item["index"])
                if [item["index"] for item in data] != list(range(expected)):
                    raise bad("the indexes are not 0..n-1")
            rows = [_vector(item["embedding"]) for item in data]
        except (AttributeError, KeyError, TypeError, ValueError) as exc:
            raise bad(f"malformed item ({exc})") from None
        dims = {len(row) for row in rows}
        if len(dims) != 1 or 0 in dims:
            raise bad(f"vectors of lengths {sorted(dims)}")
        vectors = np.stack(rows)
        if not np.isfinite(vectors).all():
            raise bad("non-finite numbers")
        got = vectors.shape[1]
        with self._lock:
            if self._dim is None:
                self._dim = got
        if got != self._dim:
            raise bad(f"{got} dimensions, expected {self._dim} (model {self.model!r})")
        return l2_normalise(vectors)


def _prefix(name: str, value: str | None) -> str:
    if value is None:
        return ""
    if not isinstance(value, str):
        raise ValidationError(name, f"must be text (got {type(value).__name__})")
    return value.strip()


def _prefixed(prefix: str, texts: list[str]) -> list[str]:
    return [f"{prefix} {t}" for t in texts] if prefix else texts


def _vector(value: Any) -> np.ndarray:
    if isinstance(value, str):  # encoding_format=base64: little-endian float32
        return np.frombuffer(base64.b64decode(value), dtype="<f4").astype(np.float32)
    if not isinstance(value, list):
        raise TypeError(f"embedding is a {type(value).__name__}")
    return np.asarray(value, dtype=np.float32)

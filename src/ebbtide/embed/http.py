"""Embeddings from an OpenAI-compatible ``POST /v1/embeddings`` server (stdlib only).

Works with OpenAI and the many servers that copy its API (vLLM, llama.cpp,
Ollama's ``/v1``, text-embeddings-inference, LocalAI, LM Studio, …). Texts go
in batches; 429, 5xx and connection failures are retried with backoff; every
failure ends in :class:`EmbeddingUnavailable` naming the server and what went
wrong (never the key). Proxies come from the usual ``*_proxy`` variables.
"""

from __future__ import annotations

import base64
import http.client
import json
import logging
import threading
import time
import urllib.error
import urllib.parse
import urllib.request
from collections.abc import Sequence
from typing import Any

import numpy as np

from ..errors import EmbeddingUnavailable, ValidationError
from .base import ENV_KEY, ENV_MODEL, ENV_URL, check_texts, l2_normalise

__all__ = ["HttpEmbedder", "endpoint_url"]

log = logging.getLogger("ebbtide.embed")

_RETRY_STATUS = frozenset({408, 429, 500, 502, 503, 504})
_MAX_RETRY_AFTER_S = 20.0
_LOOPBACK = ("localhost", "127.0.0.1", "::1")


def endpoint_url(url: str) -> str:
    """The embeddings endpoint for a base URL.

    ``https://host/v1`` → ``https://host/v1/embeddings``; ``http://host:8080``
    → ``http://host:8080/v1/embeddings``; a URL ending in ``/embeddings`` is
    kept as it is. Query strings are kept.
    """
    parts = urllib.parse.urlsplit(url.strip())
    if parts.scheme not in ("http", "https") or not parts.hostname:
        raise ValidationError(
            ENV_URL,
            f"must be an http:// or https:// URL such as https://api.openai.com/v1 (got {url!r})",
        )
    path = parts.path.rstrip("/")
    if not path.endswith("/embeddings"):
        path = (path or "/v1") + "/embeddings"
    return urllib.parse.urlunsplit((parts.scheme, parts.netloc, path, parts.query, ""))


def _display(url: str) -> str:
    """The URL without user info or query, safe to put in messages and logs."""
    parts = urllib.parse.urlsplit(url)
    host = parts.hostname or ""
    if ":" in host:
        host = f"[{host}]"
    netloc = f"{host}:{parts.port}" if parts.port else host
    return urllib.parse.urlunsplit((parts.scheme, netloc, parts.path, "", ""))


class HttpEmbedder:
    """Client of an OpenAI-compatible embeddings endpoint.

    ``dim`` is learned from the first answer (or checked against ``dim=`` if
    given); reading it before any :meth:`embed` asks the server once.
    """

    def __init__(
        self,
        url: str | None,
        model: str | None,
        *,
        key: str | None = None,
        batch_size: int = 64,
        timeout: float = 30.0,
        max_retries: int = 2,
        dim: int | None = None,
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
        self.name = f"http:{model}"
        self._key = key
        self.batch_size = _check_number("batch_size", batch_size, int, 1)
        self.timeout = float(_check_number("timeout", timeout, (int, float), 0.001))
        self.max_retries = _check_number("max_retries", max_retries, int, 0)
        self._dim = None if dim is None else _check_number("dim", dim, int, 1)
        self._lock = threading.Lock()
        parts = urllib.parse.urlsplit(self.url)
        if key and parts.scheme == "http" and parts.hostname not in _LOOPBACK:
            log.warning(
                "%s is set but %s is plain http to %s: the key travels unencrypted",
                ENV_KEY,
                ENV_URL,
                parts.hostname,
            )

    def __repr__(self) -> str:
        return f"HttpEmbedder({self.name!r}, url={_display(self.url)!r}, dim={self._dim})"

    @property
    def dim(self) -> int:
        if self._dim is None:
            self.embed(["dimension probe"])
        assert self._dim is not None
        return self._dim

    def embed(self, texts: Sequence[str]) -> np.ndarray:
        texts = check_texts(texts)
        if not texts:
            return np.zeros((0, self.dim), dtype=np.float32)
        parts = [
            self._post(texts[i : i + self.batch_size])
            for i in range(0, len(texts), self.batch_size)
        ]
        return np.concatenate(parts, axis=0)

    # -- one request -----------------------------------------------------------

    def _post(self, batch: list[str]) -> np.ndarray:
        body = json.dumps({"model": self.model, "input": batch}).encode("utf-8")
        headers = {
            "Content-Type": "application/json",
            "Accept": "application/json",
            "User-Agent": "ebbtide",
        }
        if self._key:
            headers["Authorization"] = f"Bearer {self._key}"
        where = _display(self.url)
        attempt = 0
        while True:
            request = urllib.request.Request(self.url, data=body, headers=headers, method="POST")
            delay = 0.5 * 2**attempt
            try:
                with urllib.request.urlopen(request, timeout=self.timeout) as response:
                    raw = response.read()
                return self._parse(raw, len(batch), where)
            except urllib.error.HTTPError as exc:
                detail = _error_detail(exc)
                if exc.code in _RETRY_STATUS and attempt < self.max_retries:
                    delay = _retry_after(exc, delay)
                    problem = f"HTTP {exc.code}"
                else:
                    raise EmbeddingUnavailable(_http_message(where, exc.code, detail)) from None
            except TimeoutError as exc:
                problem = f"no answer within {self.timeout:g} s"
                if attempt >= self.max_retries:
                    raise EmbeddingUnavailable(f"embedding server {where}: {problem}") from exc
            except urllib.error.URLError as exc:
                reason = exc.reason
                if isinstance(reason, TimeoutError):
                    problem = f"no answer within {self.timeout:g} s"
                else:
                    problem = f"cannot connect ({reason})"
                if attempt >= self.max_retries:
                    raise EmbeddingUnavailable(f"embedding server {where}: {problem}") from exc
            except (OSError, http.client.HTTPException) as exc:  # reset mid-answer, …
                problem = f"connection failed ({exc})"
                if attempt >= self.max_retries:
                    raise EmbeddingUnavailable(f"embedding server {where}: {problem}") from exc
            attempt += 1
            log.info("embedding server %s: %s; retry %d in %.1f s", where, problem, attempt, delay)
            time.sleep(delay)

    def _parse(self, raw: bytes, expected: int, where: str) -> np.ndarray:
        def bad(why: str) -> EmbeddingUnavailable:
            return EmbeddingUnavailable(
                f"embedding server {where} answered with no usable embeddings: {why}"
            )

        try:
            payload = json.loads(raw)
        except ValueError:
            raise bad(f"not JSON: {_snippet(raw)}") from None
        data = payload.get("data") if isinstance(payload, dict) else None
        if not isinstance(data, list):
            raise bad(f"no 'data' list in {_snippet(raw)}")
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


def _vector(value: Any) -> np.ndarray:
    if isinstance(value, str):  # encoding_format=base64: little-endian float32
        return np.frombuffer(base64.b64decode(value), dtype="<f4").astype(np.float32)
    if not isinstance(value, list):
        raise TypeError(f"embedding is a {type(value).__name__}")
    return np.asarray(value, dtype=np.float32)


def _check_number(name: str, value: Any, kind: Any, minimum: float) -> Any:
    if isinstance(value, bool) or not isinstance(value, kind) or value < minimum:
        raise ValidationError(name, f"must be a number >= {minimum:g} (got {value!r})")
    return value


def _snippet(raw: bytes, limit: int = 200) -> str:
    text = raw.decode("utf-8", "replace").strip().replace("\n", " ")
    return repr(text if len(text) <= limit else text[:limit] + "…")


def _error_detail(exc: urllib.error.HTTPError) -> str:
    try:
        raw = exc.read()
    except Exception:
        return ""
    try:
        message = json.loads(raw)["error"]
        message = message.get("message", message) if isinstance(message, dict) else message
        return repr(str(message)[:200])
    except Exception:
        return _snippet(raw) if raw else ""


def _http_message(where: str, status: int, detail: str) -> str:
    hint = {
        401: f"check {ENV_KEY}",
        403: f"check {ENV_KEY}",
        404: f"check {ENV_URL} (the API base, e.g. http://host:port/v1) and {ENV_MODEL}",
    }.get(status, "")
    text = f"embedding server {where} answered HTTP {status}"
    if detail:
        text += f": {detail}"
    return f"{text} ({hint})" if hint else text


def _retry_after(exc: urllib.error.HTTPError, default: float) -> float:
    value = exc.headers.get("Retry-After") if exc.headers else None
    try:
        seconds = float(value) if value is not None else default
    except ValueError:
        seconds = default
    return min(max(seconds, 0.0), _MAX_RETRY_AFTER_S)

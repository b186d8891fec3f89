"""The embedding interface and the one place that turns settings into a provider.

Settings (keyword arguments of :func:`get_embedder` win over the environment):

==========================  ==========  =================================================
environment                 keyword     meaning
==========================  ==========  =================================================
``EBBTIDE_EMBEDDINGS``      ``kind``    ``local`` | ``http`` | ``none``. Unset: ``http``
                                        if ``EBBTIDE_EMBED_URL`` is set, else ``local``
                                        when the model package is installed, else none
                                        (with one warning in the log).
``EBBTIDE_EMBED_URL``       ``url``     http: the API base of an OpenAI-compatible
                                        server (``https://api.openai.com/v1``) or its
                                        full ``…/embeddings`` endpoint.
``EBBTIDE_EMBED_KEY``       ``key``     http: bearer token (optional for local servers).
``EBBTIDE_EMBED_MODEL``     ``model``   http: the model name the server expects
                                        (required). local: ``minilm-l6-v2-int8``
                                        (the default and only choice).
``EBBTIDE_EMBED_QUERY_      ``query_    http: a word the model wants before a search
PREFIX``                    prefix``    query (e5: ``query:``; nomic: ``search_query:``).
``EBBTIDE_EMBED_PASSAGE_    ``passage_  http: a word it wants before stored text (e5:
PREFIX``                    prefix``    ``passage:``); part of the vectors' model name.
==========================  ==========  =================================================

Keyword-only tuning: ``batch_size``, ``timeout``, ``max_retries``, ``dim`` (http);
``batch_size``, ``cache_size``, ``threads`` (local).
"""

from __future__ import annotations

import functools
import importlib.util
import inspect
import logging
import math
import os
from collections.abc import Callable, Mapping, Sequence
from typing import Any, Protocol

import numpy as np

from ..errors import EmbeddingUnavailable, ValidationError

__all__ = [
    "ENV_KEY",
    "ENV_KIND",
    "ENV_MODEL",
    "ENV_PASSAGE_PREFIX",
    "ENV_QUERY_PREFIX",
    "ENV_URL",
    "KINDS",
    "Embedder",
    "EmbeddingUnavailable",
    "check_texts",
    "get_embedder",
    "l2_normalise",
    "local_available",
    "query_embedding",
    "resolve_embedder",
]

log = logging.getLogger("ebbtide.embed")

ENV_KIND = "EBBTIDE_EMBEDDINGS"
ENV_URL = "EBBTIDE_EMBED_URL"
ENV_KEY = "EBBTIDE_EMBED_KEY"
ENV_MODEL = "EBBTIDE_EMBED_MODEL"
ENV_QUERY_PREFIX = "EBBTIDE_EMBED_QUERY_PREFIX"
ENV_PASSAGE_PREFIX = "EBBTIDE_EMBED_PASSAGE_PREFIX"
# How an http server is asked: seconds per request, retries after a failure, texts per request.
ENV_HTTP_TUNING = {
    "timeout": ("EBBTIDE_EMBED_TIMEOUT", float, 0.001),
    "max_retries": ("EBBTIDE_EMBED_RETRIES", int, 0),
    "batch_size": ("EBBTIDE_EMBED_BATCH", int, 1),
}
KINDS = ("local", "http", "none")

_ENV_OF = {
    "url": ENV_URL,
    "key": ENV_KEY,
    "model": ENV_MODEL,
    "query_prefix": ENV_QUERY_PREFIX,
    "passage_prefix": ENV_PASSAGE_PREFIX,
}
_TUNING = {
    "local": {"batch_size", "cache_size", "threads", "int8"},
    "http": {"batch_size", "timeout", "max_retries", "dim"},
}
_warned_fallback = False


class Embedder(Protocol):
    """Turns texts into unit-length vectors.

    ``name`` identifies the model (and its version) and is stored next to every
    vector, so vectors of different models are never compared. (Not
    runtime-checkable on purpose: on Python 3.11 ``isinstance`` would read
    ``dim``, which for an http provider can mean a request to its server.)
    """

    name: str
    dim: int

    def embed(self, texts: Sequence[str]) -> np.ndarray:
        """float32 array of shape ``(len(texts), dim)`` with L2-normalised rows."""
        ...


def query_embedding(embedder: Embedder) -> Callable[[Sequence[str]], np.ndarray]:
    """What embeds a search query: the embedder's ``embed_query`` when it has one (models
    trained to read questions apart, e5's "query: "), else ``embed``."""
    own = getattr(embedder, "embed_query", None)
    return own if callable(own) else embedder.embed


def check_texts(texts: Sequence[str]) -> list[str]:
    """The texts as a list, or :class:`ValidationError` if they are not strings."""
    if isinstance(texts, (str, bytes)):
        raise ValidationError("texts", "must be a sequence of strings, not a single string")
    out = list(texts)
    for i, text in enumerate(out):
        if not isinstance(text, str):
            raise ValidationError(f"texts[{i}]", f"must be a str, not {type(text).__name__}")
    return out


def l2_normalise(vectors: np.ndarray) -> np.ndarray:
    """Rows scaled to unit length (all-zero rows stay zero), as float32."""
    vectors = np.asarray(vectors, dtype=np.float32)
    norms = np.linalg.norm(vectors, axis=1, keepdims=True)
    return vectors / np.maximum(norms, np.float32(1e-12))


def local_available() -> bool:
    """Whether the local model package and onnxruntime are installed."""
    from .local import MODEL_PACKAGE

    return all(_importable(name) for name in (MODEL_PACKAGE, "onnxruntime"))


def _importable(module: str) -> bool:
    try:
        return importlib.util.find_spec(module) is not None
    except (ImportError, ValueError):
        return False


def _setting(settings: dict[str, Any], env: Mapping[str, str], key: str) -> str | None:
    value = settings.pop(key, None)
    if value is None:
        value = env.get(_ENV_OF[key])
    if value is None:
        return None
    value = str(value).strip()
    return value or None


def resolve_embedder(embeddings: str | Embedder | None) -> Embedder | None:
    """An embedder from a kind (local, http, none; None reads the environment), or one of
    the caller's own, checked for what recall and storage call on it."""
    if embeddings is None or isinstance(embeddings, str):
        return get_embedder(embeddings)
    # Looked up without calling a property: an http embedder's `dim` asks its server.
    if all(_has(embeddings, a) for a in ("name", "dim")) and callable(
        getattr(embeddings, "embed", None)
    ):
        return embeddings
    raise ValidationError(
        "embeddings", "must be local, http, none or an embedder (with name, dim and embed)"
    )


def _has(obj: object, name: str) -> bool:
    try:
        inspect.getattr_static(obj, name)
    except AttributeError:
        return False
    return True


def get_embedder(kind: str | None = None, **settings: Any) -> Embedder | None:
    """The embedding provider chosen by ``kind`` or ``EBBTIDE_EMBEDDINGS``.

    Returns ``None`` for ``none`` (retrieval then runs on BM25 and the graph
    alone). Models load lazily, on the first :meth:`Embedder.embed` call.

    ``environ`` (a mapping) is read instead of ``os.environ`` when given.

    Raises :class:`ValidationError` (``field`` = the setting's name) for a bad
    setting, and :class:`EmbeddingUnavailable` when ``local`` is asked for but
    the model package is not installed. Unknown keyword arguments raise
    ``TypeError``.
    """
    env: Mapping[str, str] = settings.pop("environ", None) or os.environ
    source = "kind" if kind is not None else ENV_KIND
    raw = kind if kind is not None else env.get(ENV_KIND)
    chosen = (raw or "").strip().lower()
    if chosen and chosen not in KINDS:
        raise ValidationError(source, f"must be one of {', '.join(KINDS)} (got {raw!r})")

    url = _setting(settings, env, "url")
    key = _setting(settings, env, "key")
    model = _setting(settings, env, "model")
    prefixes = {name: _setting(settings, env, name) for name in ("query_prefix", "passage_prefix")}

    if not chosen:
        if url is not None:
            chosen = "http"
        elif local_available():
            chosen = "local"
        else:
            _warn_fallback()
            chosen = "none"

    if chosen != "none":
        unknown = set(settings) - _TUNING[chosen]
        if unknown:
            raise TypeError(
                f"get_embedder(kind={chosen!r}) got unknown settings: {', '.join(sorted(unknown))}"
                f" (known: url, key, model, {', '.join(sorted(_TUNING[chosen]))})"
            )

    if chosen == "none":
        return None
    if chosen == "local":
        given = [name for name, v in prefixes.items() if v is not None]
        if given:
            raise ValidationError(
                _ENV_OF[given[0]], "applies to http embeddings only (the local model takes none)"
            )
        return _shared_local(model, tuple(sorted(settings.items())))
    from .http import HttpEmbedder

    for name, (var, kind, least) in ENV_HTTP_TUNING.items():
        raw_value = env.get(var, "").strip()
        if name not in settings and raw_value:
            try:
                settings[name] = kind(raw_value)
            except ValueError:
                settings[name] = None
            if (
                settings[name] is None
                or not math.isfinite(settings[name])
                or settings[name] < least
            ):
                rule = f"must be {'an integer' if kind is int else 'a number'} >= {least:g}"
                raise ValidationError(var, f"{rule} (got {raw_value!r})")
    return HttpEmbedder(url, model, key=key, **prefixes, **settings)


@functools.lru_cache(maxsize=4)
def _shared_local(model: str | None, settings: tuple[tuple[str, Any], ...]) -> Embedder:
    """One loaded model per process and settings: every Memory in it shares the session."""
    from .local import LocalEmbedder

    return LocalEmbedder(model, **dict(settings))


def _warn_fallback() -> None:
    global _warned_fallback
    if not _warned_fallback:
        _warned_fallback = True
        from .local import MODEL_DIST

        log.warning(
            "embeddings off: the local model package %s (or onnxruntime) is not installed;"
            " recall uses BM25 and the graph only (set %s=none to silence, or =http)",
            MODEL_DIST,
            ENV_KIND,
        )

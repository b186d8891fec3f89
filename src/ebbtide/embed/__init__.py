"""Embedding providers: ``local`` (MiniLM on onnxruntime), ``http`` (OpenAI-compatible), none.

>>> from ebbtide.embed import get_embedder
>>> embedder = get_embedder()          # reads EBBTIDE_EMBEDDINGS, EBBTIDE_EMBED_*
>>> if embedder is not None:
...     vectors = embedder.embed(["a note", "another note"])   # (2, embedder.dim) float32

Providers load lazily; ``embedder.name`` is the model identity to store next to
every vector. An embedder of your own (``name``, ``dim``, ``embed``; optionally
``embed_query`` for the search query) can be passed to ``open_memory(embeddings=…)``.
"""

from .base import (
    Embedder,
    EmbeddingUnavailable,
    get_embedder,
    local_available,
    query_embedding,
    resolve_embedder,
)

__all__ = [
    "Embedder",
    "EmbeddingUnavailable",
    "get_embedder",
    "local_available",
    "query_embedding",
    "resolve_embedder",
]

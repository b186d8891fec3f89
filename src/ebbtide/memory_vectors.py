"""Vectors (mixed into `Memory`): embedding what is stored, in batches and after an outage
of the model, and re-embedding after a switch of models (`ebbtide reembed`)."""

from __future__ import annotations

import logging
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager

from .embed import Embedder
from .embed.context import item_vectors
from .errors import EmbeddingUnavailable, ValidationError
from .model import INGESTED, Node
from .store import Store
from .store.base import BOOKKEEPING_KINDS

# After the embedding model fails (an http endpoint down), writes are stored without vectors
# and recalls search without them for this long before the model is tried again; the nodes
# written meanwhile (and any other node without this model's vector) get their vectors from
# the next writes that can embed, this many at a time. That vectors are owed is marked in the
# store, in the write's own transaction, so a restart finishes the job (`ebbtide reembed` does
# it at once).
EMBED_RETRY_S = 30.0
DEFERRED_BATCH = 64
META_VECTORS_OWED = "vectors_owed:"  # + model name; "1" while some node lacks its vector
META_VECTORS_OWED_ANY = META_VECTORS_OWED + "*"  # owed to any model: written by an import
OWED_TTL = 30.0  # seconds a process trusts its reading that no vector is owed

log = logging.getLogger("ebbtide")


class VectorOps:
    store: Store
    embedder: Embedder | None
    embed_retry_s: float
    _unembedded: list[Node] | None
    _embed_down: tuple[float, str] | None
    _owed: bool | None
    _owed_read: float

    def reembed(
        self,
        *,
        batch_size: int = 256,
        progress: Callable[[int, int], None] | None = None,
        everything: bool = False,
    ) -> int:
        """Give every node a vector from the current embedding model (after switching models,
        or for nodes stored with embeddings off); `everything` embeds every node anew (the
        model changed under the same name). Returns how many were embedded."""
        if self.embedder is None:
            raise ValidationError("EBBTIDE_EMBEDDINGS", "is none: there is no model to embed with")
        if everything:
            # Owed first: a run that fails or is killed halfway leaves the rest to later
            # writes (or the next reembed), not a memory with no vectors and no debt.
            self._mark_owed(True)
            self.store.drop_vectors(None, self.embedder.name)
        total = self.store.count_missing_vectors(self.embedder.name)
        done = 0
        while batch := self.store.missing_vectors(self.embedder.name, batch_size):
            ids = [ident for ident, _ in batch]
            found = self.store.get_nodes(ids)
            vectors = item_vectors(
                self.embedder,
                [(text, found[i].attributes if i in found else {}) for i, text in batch],
            )
            self.store.put_vectors(self.embedder.name, list(zip(ids, vectors, strict=True)))
            done += len(batch)
            if progress is not None:
                progress(len(batch), total)
        self._mark_owed(False)  # every node has its vector now
        return done

    def drop_unowed_vectors(self) -> int:
        """Drop every model's vectors of nodes never owed one (`BOOKKEEPING_KINDS`: logged
        predictions), which `reembed` gave them before they were exempt: no search reads
        them. Returns how many vectors were dropped."""
        counts = self.store.counts()["kind"]
        ids = [
            n.id
            for kind in sorted(BOOKKEEPING_KINDS)
            if counts.get(kind)
            for n in self.store.find_nodes(kind=kind, valid_only=False, limit=counts[kind])
        ]
        if not ids:
            return 0
        before = sum(self.store.vector_counts().values())
        self.store.drop_vectors(ids)
        # Counted as the store's total shrank: a write meanwhile may add vectors of its own.
        return max(0, before - sum(self.store.vector_counts().values()))

    @contextmanager
    def batch(self) -> Iterator[None]:
        """Group many writes (a bulk load): one transaction, and one embedding call for all
        new texts at the end instead of one per write."""
        with self.store.transaction(), self._batch_embedding():
            yield

    @contextmanager
    def _batch_embedding(self) -> Iterator[None]:
        if self._unembedded is not None:  # already inside a batch
            yield
            return
        self._unembedded = []
        try:
            yield
            pending, self._unembedded = self._unembedded, None
            if self.embedder is not None and pending:
                # As stored now: a node created in the batch may have been given its context
                # (message, reply) after it was queued, and its vector is read with it.
                fresh = self.store.get_nodes(list(dict.fromkeys(n.id for n in pending)))
                self._embed(list(fresh.values()))
            elif self.embedder is not None and self._vectors_owed():
                # Nothing new (an imported vault's notes read again as they were): the write
                # pays the debt all the same, as one with new texts would.
                self._pay_owed(self.embedder.name)
        finally:
            self._unembedded = None

    def _embed(self, nodes: list[Node]) -> None:
        """Store vectors for new or changed texts (inside the caller's transaction). When the
        model cannot be reached the write stands without them: it is found by its words and
        links until a later write, or `reembed`, embeds it."""
        if self.embedder is None or not nodes:
            return
        if self._unembedded is not None:
            self._unembedded.extend(nodes)
            return
        unique = list({n.id: n for n in nodes}.values())
        if not self._store_vectors(unique):
            self._mark_owed(True)
        elif self._vectors_owed():
            self._pay_owed(self.embedder.name)

    def _pay_owed(self, model: str) -> None:
        """Embed up to `DEFERRED_BATCH` nodes that lack `model`'s vector; the last of them
        clears the debt."""
        owed = [i for i, _ in self.store.missing_vectors(model, DEFERRED_BATCH)]
        found = self.store.get_nodes(owed)
        paid = self._store_vectors([found[i] for i in owed if i in found])
        if paid and len(owed) < DEFERRED_BATCH:
            self._mark_owed(False)

    def vectors_owed(self) -> None:
        """Mark that nodes were written without vectors (an import, a migration), for
        whichever model embeds next: its next writes fill them in, or `reembed` at once."""
        self.store.set_meta(META_VECTORS_OWED_ANY, "1")
        self._owed = None

    def _forget_asked_by_others(self, node_id: str | None) -> bool:
        """Whether someone other than ingest (an agent, a person) asked to forget the node."""
        return any(
            p.node_id == node_id and p.requested_by != INGESTED
            for p in self.store.pending_reviews()
        )

    def _vectors_owed(self) -> bool:
        # Read again now and then: another process (an import, a migration) may owe them.
        if self._owed is False and time.monotonic() - self._owed_read > OWED_TTL:
            self._owed = None
        if self._owed is None and self.embedder is not None:
            self._owed_read = time.monotonic()
            owed = self.store.get_meta_many(
                [META_VECTORS_OWED + self.embedder.name, META_VECTORS_OWED_ANY]
            )
            self._owed = "1" in owed.values()
        return bool(self._owed)

    def _mark_owed(self, owed: bool) -> None:
        """Mark in the store, inside the caller's transaction, whether vectors are owed."""
        if self.embedder is not None and (owed or self._vectors_owed()):
            self.store.set_meta(META_VECTORS_OWED + self.embedder.name, "1" if owed else "0")
            if not owed:  # this model's vectors are all there: the import's debt is paid too
                self.store.set_meta(META_VECTORS_OWED_ANY, "0")
        self._owed = owed

    def _store_vectors(self, nodes: list[Node]) -> bool:
        """Embed and store vectors for `nodes`; False when the model is unavailable."""
        if not nodes:
            return True
        embedder = self._live_embedder()
        if embedder is None:
            return False
        try:
            vectors = item_vectors(embedder, [(n.text, n.attributes) for n in nodes])
            self.store.put_vectors(
                embedder.name, list(zip([n.id for n in nodes], vectors, strict=True))
            )
        except EmbeddingUnavailable as exc:
            self._embedding_failed(str(exc))
            return False
        self._embed_down = None
        return True

    def _live_embedder(self) -> Embedder | None:
        """The embedder, unless it failed less than `embed_retry_s` ago."""
        down = self._embed_down
        if down is not None and time.monotonic() - down[0] < self.embed_retry_s:
            return None
        return self.embedder

    def _embedding_failed(self, why: str) -> None:
        if self._embed_down is None:
            log.warning("embeddings unavailable; storing and recalling without vectors: %s", why)
        self._embed_down = (time.monotonic(), why)

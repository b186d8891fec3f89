"""The lifecycle of knowledge (mixed into `Memory`): pinning, forgetting, maintenance and
sleep, the review queue a person decides, and the counts `stats` reports."""

from __future__ import annotations

import re
import time
from collections.abc import Iterable
from datetime import datetime, timedelta
from typing import TYPE_CHECKING, Any

from . import predictions, validate
from .clock import to_datetime
from .config import CLOCK_SLACK_S, DAY, Config
from .consolidate import META_ACTIVATION_REF, META_LAST_MAINTAIN, in_use, maintain
from .embed import Embedder
from .errors import NotFound, ValidationError
from .model import (
    CAUSAL_RELATIONS,
    ForgetResult,
    MaintainReport,
    Node,
    ReviewDecision,
    ReviewItem,
    ReviewQueue,
    SleepReport,
    Stats,
)
from .store import PendingReview, Store

# Who spoke in a memory is read again after this many seconds (another process may have
# stored a transcript), up to this many names.
SPEAKERS_TTL = 5.0
GONE = "no longer waiting for review"  # why an approved deletion was not made
MAX_SPEAKERS = 1000


class LifecycleOps:
    store: Store
    config: Config
    embedder: Embedder | None
    _speakers: tuple[float, list[str]] | None

    if TYPE_CHECKING:  # provided by Memory and its other parts

        def now(self) -> datetime: ...
        def get(self, node_id: str, *, field: str = "node_id") -> Node: ...
        def _mine_if_stale(self) -> list[str]: ...
        def resolve_updates(self, limit: int = 20, apply: bool = False) -> Any: ...

    # lifecycle of knowledge -----------------------------------------------------------------

    def pin(self, node_id: str) -> Node:
        return self._set_pinned(node_id, True)

    def unpin(self, node_id: str) -> Node:
        return self._set_pinned(node_id, False)

    def _set_pinned(self, node_id: str, pinned: bool) -> Node:
        before = self.get(node_id)
        node = before.model_copy(
            update={"pinned": pinned, "updated_at": self.now()}
            | ({"status": "active", "tier": in_use(before.tier)} if pinned else {})
        )
        with self.store.transaction():
            self.store.update_node(node)
            if pinned:
                self.store.remove_review(node_id)
                if before.status == "forgotten":  # kept after all: its lessons stand again
                    self._lessons_changed([node_id])
        return node

    def find(
        self,
        *,
        kind: str | None = None,
        attribute: tuple[str, str | int | float | bool] | None = None,
        limit: int = 100,
    ) -> list[Node]:
        """Nodes of a kind and with an attribute of a value (`("path", "notes/a.md")`), either
        or both, oldest first, hidden ones included; ended ones (`valid_to`) are left out."""
        if kind is not None:
            kind = validate.kind(kind)
        if attribute is not None and not (
            isinstance(attribute, tuple)
            and len(attribute) == 2
            and isinstance(attribute[0], str)
            and re.fullmatch(r"[A-Za-z_][A-Za-z0-9_]{0,63}", attribute[0])
            and isinstance(attribute[1], str | int | float | bool)
        ):
            raise ValidationError(
                "attribute", "must be (name, value): a name of letters, digits and _, a scalar"
            )
        limit = validate.count("limit", limit, high=1_000_000)
        return self.store.find_nodes(kind=kind, attribute=attribute, limit=limit)

    def forget(
        self, node_id: str, reason: str | None = None, *, asked_by: str = "agent"
    ) -> ForgetResult:
        """Ask for a deletion: the node is hidden at once and waits for a person's review. A
        node a person chose to keep lately (`reject`) stays as it is until the cooldown ends
        (`queued` is false and the reason says until when). `asked_by` is who the review
        queue names as asking (an agent, or `ingest` for a file gone from its folder)."""
        node = self.get(node_id)
        asked_by = validate.text("asked_by", asked_by, max_len=100)
        reason = (
            validate.optional_text("reason", reason, max_len=1000) or f"requested by {asked_by}"
        )
        if node.pinned:
            raise ValidationError("node_id", "is pinned; unpin it before asking to forget it")
        now = self.now()
        kept_until = self.store.review_cooldowns().get(node_id, 0.0)
        if kept_until > now.timestamp():
            until = to_datetime(kept_until).date().isoformat()
            return ForgetResult(
                node_id=node_id,
                queued=False,
                reason=f"kept by a person until {until}",
                kept_until=until,
            )
        request = PendingReview(node_id, reason, now.timestamp(), asked_by)
        with self.store.transaction():
            queued = self.store.enqueue_review(request)
            if not queued and any(
                p.node_id == node_id and p.requested_by == "maintain"
                for p in self.store.pending_reviews()
            ):  # decay proposed it; now it is asked for, with a reason a person should read
                self.store.remove_review(node_id)
                queued = self.store.enqueue_review(request)
            self.store.update_node(node.model_copy(update={"status": "forgotten"}))
            self._lessons_changed([node_id])
        return ForgetResult(node_id=node_id, queued=queued, reason=reason)

    def maintain(self) -> MaintainReport:
        """Recompute activation, re-tier, archive frozen knowledge and queue it for review."""
        return maintain(self.store, self.config, self.now())

    def sleep(self) -> SleepReport:
        """The consolidation cycle: maintain, mine cross-task patterns, and count lessons that
        newer outcomes contradict (apply them with resolve_updates)."""
        report = self.maintain()
        mined = self._mine_if_stale()
        pending = self.resolve_updates(limit=1000).updates
        return SleepReport(maintain=report, patterns_added=len(mined), updates_pending=len(pending))

    def _maybe_maintain(self) -> None:
        if not self.config.auto_maintain_days:
            return
        last = self.store.get_meta(META_LAST_MAINTAIN)
        since = None if last is None else self.now().timestamp() - float(last)
        # A last run well in the future means the clock was set back (it ran ahead): run now,
        # once, or the daily run would wait until the clock caught up with the wrong time
        # again. A few minutes are replicas' clocks disagreeing, not worth a run each.
        if since is None or since < -CLOCK_SLACK_S or since > self.config.auto_maintain_days * DAY:
            self.maintain()

    def _speaker_names(self) -> list[str]:
        now = time.monotonic()
        if self._speakers is None or now - self._speakers[0] > SPEAKERS_TTL:
            people = self.store.find_nodes(
                kind="person", attribute=("role", "speaker"), limit=MAX_SPEAKERS
            )
            self._speakers = (now, [p.text for p in people])
        return self._speakers[1]

    def _activation_ref(self) -> float:
        ref = self.store.get_meta(META_ACTIVATION_REF)
        return float(ref) if ref else 1.0

    def review_queue(self) -> ReviewQueue:
        pending = self.store.pending_reviews()
        nodes = self.store.get_nodes([p.node_id for p in pending])
        return ReviewQueue(
            items=[
                ReviewItem(
                    node=nodes[p.node_id],
                    reason=p.reason,
                    requested_at=to_datetime(p.requested_at),
                    requested_by=p.requested_by,
                )
                for p in pending
                if p.node_id in nodes
            ]
        )

    def approve(self, node_id: str) -> ReviewDecision:
        """A person approves a pending deletion: the node and its links are removed."""
        with self.store.transaction():
            node = self.get(node_id)
            request = {p.node_id: p for p in self.store.pending_reviews()}.get(node_id)
            removed = None if request is None else self._delete_reviewed(node, request)
        if removed is None:
            raise NotFound("review item", node_id, "node_id")
        return ReviewDecision(node_id=node_id, action="approved", removed_edges=removed)

    def approve_shown(self, items: Iterable[ReviewItem]) -> list[ReviewDecision]:
        """A person approves the deletions they were shown (items of `review_queue`), and
        only those: one that changed since is not deleted, and its decision (`not_deleted`)
        says why: no longer waiting (kept, pinned, told again, brought back by maintain,
        deleted), asked for again, or used or changed since it was shown. Whatever was
        queued after the list was read is left waiting."""
        items = list(items)
        if not all(isinstance(i, ReviewItem) for i in items):
            raise ValidationError("items", "must be items of review_queue")
        requests = {p.node_id: p for p in self.store.pending_reviews()}
        return [self._approve_shown(item, requests.get(item.node.id)) for item in items]

    def _approve_shown(self, shown: ReviewItem, request: PendingReview | None) -> ReviewDecision:
        node_id = shown.node.id
        if request is None:
            return _not_deleted(node_id, GONE)
        if to_datetime(request.requested_at) != shown.requested_at:
            return _not_deleted(node_id, "asked for again since it was shown")
        with self.store.transaction():
            node = self.store.get_nodes([node_id]).get(node_id)
            if node is None:
                return _not_deleted(node_id, GONE)
            if (node.last_read_at, node.updated_at) != (
                shown.node.last_read_at,
                shown.node.updated_at,
            ):
                return _not_deleted(node_id, "used or changed since it was shown")
            removed = self._delete_reviewed(node, request)
        if removed is None:
            return _not_deleted(node_id, GONE)
        return ReviewDecision(node_id=node_id, action="approved", removed_edges=removed)

    def _delete_reviewed(self, node: Node, request: PendingReview) -> int | None:
        """Delete `node` if `request` is still queued, with an audit record of what went."""
        with self.store.transaction():
            lessons = self._lesson_ids([node.id])
            removed = self.store.delete_reviewed(node.id, request.requested_at)
            if removed is not None:
                self.store.append_audit(
                    "deleted",
                    {"node": node.model_dump(mode="json"), "edges": removed},
                    self.now().timestamp(),
                )
                predictions.recheck(self.store, lessons, self.now())
        return removed

    def reject(self, node_id: str) -> ReviewDecision:
        """A person keeps the node: it is active again and not proposed for a cooldown period."""
        now = self.now()
        until = (now + timedelta(days=self.config.review_cooldown_days)).timestamp()
        with self.store.transaction():
            node = self.get(node_id)
            # The node is written before its request is taken from the queue: on Neo4j that
            # takes the node's lock, as an approval does (`delete_reviewed`), so of a keep and
            # a deletion at once one happens and the other is refused.
            self.store.update_node(
                node.model_copy(
                    update={"status": "active", "last_read_at": now, "tier": in_use(node.tier)}
                )
            )
            if not self.store.remove_review(node_id, cooldown_until=until):
                raise NotFound("review item", node_id, "node_id")
            self._lessons_changed([node_id])
        return ReviewDecision(node_id=node_id, action="rejected")

    def _lesson_ids(self, node_ids: list[str]) -> list[str]:
        return [e.id for e in self.store.edges_of(node_ids) if e.relation in CAUSAL_RELATIONS]

    def _lessons_changed(self, node_ids: list[str]) -> None:
        """The nodes were forgotten, or are back: their lessons stopped standing, or stand
        again, for the predictions they settled (`predictions.recheck`)."""
        predictions.recheck(self.store, self._lesson_ids(node_ids), self.now())

    def stats(self) -> Stats:
        c = self.store.counts()
        last = self.store.get_meta(META_LAST_MAINTAIN)
        nodes = sum(c["kind"].values())
        return Stats(
            store=self.store.url,
            nodes=nodes,
            edges=sum(c["relation"].values()),
            by_kind=c["kind"],
            by_tier=c["tier"],
            by_relation=c["relation"],
            archived=c["status"].get("archived", 0),
            forgotten=c["status"].get("forgotten", 0),
            pinned=c["pinned"].get("pinned", 0),
            pending_review=c["review"].get("pending", 0),
            last_maintain=to_datetime(float(last)) if last else None,
            vectors_missing=None
            if self.embedder is None
            else self.store.count_missing_vectors(self.embedder.name),
        )


def _not_deleted(node_id: str, reason: str) -> ReviewDecision:
    return ReviewDecision(node_id=node_id, action="not_deleted", reason=reason)

"""Every tunable number in one place. Defaults are starting points from the design brief."""

from __future__ import annotations

import os
from dataclasses import dataclass, field, fields, replace
from pathlib import Path
from types import MappingProxyType
from typing import Any

from .errors import ValidationError

DAY = 86_400.0
CLOCK_SLACK_S = 300.0  # seconds two servers' clocks may disagree by

# Signed spreading coefficients per relation. Negative inhibits; 0 carries nothing;
# `supersedes` is structural and never spreads.
DEFAULT_COEFFICIENTS: dict[str, float] = {
    "caused": 1.0,
    "enabled": 0.5,
    "prevented": -0.8,
    "no_effect": 0.0,
    "about": 0.8,
    "fact": 0.8,
    "related": 0.6,
    "similar_to": 0.6,
    "repeated": 0.6,
    "contradicts": 0.6,
    "refines": 0.6,
    "co_occurrence": 1.0,
    "supersedes": 0.0,
}


def _frozen(d: dict[str, float]) -> MappingProxyType[str, float]:
    return MappingProxyType(dict(d))


@dataclass(frozen=True)
class Config:
    # Recency: an edge's strength halves every `half_life_days` since it was last reinforced.
    half_life_days: float = 30.0
    # Read-recency bonus: a node read now gets `read_bonus`, halving every `read_half_life_days`.
    read_bonus: float = 0.5
    read_half_life_days: float = 14.0
    # One damped, degree-normalised spreading step in the activation of a node.
    spread_damping: float = 0.3
    # Tier thresholds on activation / (most active unpinned node).
    hot_threshold: float = 0.30
    warm_threshold: float = 0.10
    cold_threshold: float = 0.02
    # New nodes are at least warm for this long, so fresh knowledge is not archived at birth.
    grace_days: float = 7.0
    # A rejected deletion is not proposed again for this long.
    review_cooldown_days: float = 30.0
    # maintain() runs by itself when the last run is older than this (clock time); 0 turns
    # that off, for replicas whose maintenance runs from one scheduler instead.
    auto_maintain_days: float = 1.0
    coefficients: MappingProxyType[str, float] = field(
        default_factory=lambda: _frozen(DEFAULT_COEFFICIENTS)
    )
    # Query-time spreading.
    max_hops: int = 3
    hop_decay: float = 0.6
    spread_threshold: float = 0.01
    # Reciprocal Rank Fusion constant and the share of activation in the final score. A small
    # constant lets the top of each list lead (60, the classic value, flattens ranks 1-10 to
    # within 15% of each other; measured on LoCoMo, bench/locomo.py, 5 finds more).
    rrf_k: int = 5
    activation_blend: float = 0.25
    # Q-learning rate for decisions, Hebbian rate for co-activated pairs.
    q_alpha: float = 0.3
    hebbian_rate: float = 0.1
    # SQLite durability: FULL fsyncs each commit, so an acknowledged write survives power loss.
    sqlite_synchronous: str = "FULL"
    busy_timeout_ms: int = 30_000

    @property
    def half_life_s(self) -> float:
        return self.half_life_days * DAY

    @property
    def read_half_life_s(self) -> float:
        return self.read_half_life_days * DAY

    def coefficient(self, relation: str) -> float:
        return self.coefficients[relation]

    def with_(self, **changes: Any) -> Config:
        if "coefficients" in changes:
            changes["coefficients"] = _frozen(changes["coefficients"])
        cfg = replace(self, **changes)
        cfg.validate()
        return cfg

    def validate(self) -> None:
        for name in ("half_life_days", "read_half_life_days", "hop_decay"):
            if getattr(self, name) <= 0:
                raise ValidationError(name, "must be > 0")
        if not (self.hot_threshold > self.warm_threshold > self.cold_threshold >= 0):
            raise ValidationError("thresholds", "need hot > warm > cold >= 0")
        if self.max_hops < 0:
            raise ValidationError("max_hops", "must be >= 0")
        # A negative RRF constant divides by zero at some rank; negative days, bonuses or
        # timeouts turn what they bound inside out.
        for name in (
            "rrf_k", "activation_blend", "read_bonus", "spread_threshold", "grace_days",
            "review_cooldown_days", "busy_timeout_ms",
        ):  # fmt: skip
            if getattr(self, name) < 0:
                raise ValidationError(name, "must be >= 0")
        for name in ("q_alpha", "hebbian_rate", "spread_damping"):
            if not 0 <= getattr(self, name) <= 1:
                raise ValidationError(name, "must be between 0 and 1")
        if self.auto_maintain_days < 0:
            raise ValidationError("auto_maintain_days", "must be >= 0 (0 turns it off)")
        if self.sqlite_synchronous.upper() not in {"OFF", "NORMAL", "FULL", "EXTRA"}:
            raise ValidationError("sqlite_synchronous", "must be OFF, NORMAL, FULL or EXTRA")

    @classmethod
    def from_env(cls, env: dict[str, str] | None = None) -> Config:
        """Read `EBBTIDE_<FIELD>` overrides (e.g. EBBTIDE_HALF_LIFE_DAYS=14)."""
        env = dict(os.environ if env is None else env)
        changes: dict[str, Any] = {}
        for f in fields(cls):
            raw = env.get(f"EBBTIDE_{f.name.upper()}")
            if raw is None or f.name == "coefficients":
                continue
            kind = type(getattr(cls(), f.name))
            try:
                changes[f.name] = kind(raw)
            except ValueError:
                raise ValidationError(
                    f"EBBTIDE_{f.name.upper()}", f"must be a {kind.__name__}", raw
                ) from None
        return cls().with_(**changes)


def default_store_url(env: dict[str, str] | None = None) -> str:
    """`EBBTIDE_STORE`, else an SQLite file in the user data dir."""
    env = os.environ if env is None else env
    if env.get("EBBTIDE_STORE"):
        return env["EBBTIDE_STORE"]
    from platformdirs import user_data_dir

    return str(Path(user_data_dir("ebbtide", appauthor=False)) / "memory.db")

"""Deterministic synthetic memories for benchmarks: team notes, decisions and outcomes."""

from __future__ import annotations

import random

SUBJECTS = (
    "payments",
    "checkout",
    "search",
    "billing",
    "auth",
    "ingest",
    "reporting",
    "mobile",
    "onboarding",
    "pricing",
    "inventory",
    "shipping",
    "analytics",
    "gateway",
    "scheduler",
    "notifications",
    "ledger",
    "catalog",
    "identity",
    "storage",
)
THINGS = (
    "database",
    "queue",
    "cache",
    "cluster",
    "pipeline",
    "dashboard",
    "runbook",
    "migration",
    "schema",
    "index",
    "deploy",
    "canary",
    "load test",
    "feature flag",
    "retry policy",
    "rate limit",
    "backup",
    "alert",
    "contract",
    "roadmap",
)
ACTIONS = (
    "moved",
    "resized",
    "rewrote",
    "paused",
    "rolled out",
    "reviewed",
    "documented",
    "split",
    "merged",
    "tuned",
    "replaced",
    "upgraded",
    "audited",
    "sharded",
    "cached",
)
OUTCOMES_BAD = (
    "weekend outage",
    "data loss in a replica",
    "memory leak in workers",
    "latency regression",
    "rollback after errors",
    "customer escalation",
    "flaky tests for a week",
)
OUTCOMES_GOOD = (
    "shipped on time",
    "error rate dropped by half",
    "costs went down",
    "stable for a month",
    "customer renewed",
    "p95 latency improved",
)
PEOPLE = ("Ana", "Ben", "Chi", "Dev", "Eli", "Fay", "Gus", "Hana", "Ivo", "Jun")


class Synth:
    def __init__(self, seed: int = 7) -> None:
        self.rng = random.Random(seed)
        self.counter = 0

    def _tag(self) -> str:
        self.counter += 1
        return f"#{self.counter}"

    def note(self) -> str:
        r = self.rng
        why = r.choice(("slow", "full", "noisy", "old", "costly"))
        return (
            f"{r.choice(PEOPLE)} {r.choice(ACTIONS)} the {r.choice(SUBJECTS)} {r.choice(THINGS)}"
            f" because the {r.choice(SUBJECTS)} {r.choice(THINGS)} was {why} {self._tag()}"
        )

    def decision(self) -> tuple[str, str]:
        r = self.rng
        action = r.choice(ACTIONS).capitalize()
        d = f"{action} the {r.choice(SUBJECTS)} {r.choice(THINGS)} {self._tag()}"
        o = r.choice(OUTCOMES_BAD + OUTCOMES_GOOD) + f" in {r.choice(SUBJECTS)} {self._tag()}"
        return d, o

    def query(self) -> str:
        r = self.rng
        return f"{r.choice(SUBJECTS)} {r.choice(THINGS)} {r.choice(ACTIONS)}"

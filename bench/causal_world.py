"""Deterministic synthetic causal worlds for the causal benchmark (``bench/causal.py``).

Each world is one incident story in one product (a unique codename such as "Orion"), told in
two tasks (task tags):

    task A   B  bad practice   --caused-->     X  failure            day 0
             X  failure        --caused-->     E  escalation         day 1
             W  workaround     --caused-->     R  "X went away"      day 2   (believed fix)
             P  preventer      --prevented-->  X  failure            day 5
             W  workaround     --caused-->     C  "X again"          day 16  (correction)
             F  durable fix    --caused-->     G  good outcome       day 17
    task B   B2 twin practice  --caused-->     X2 twin failure       day 9   (another component)

The story exists twice: as structured episodes (one ``record_decision`` each) and as narrated
transcript sessions (lists of ``{"speaker", "text", "time"}`` messages, with small talk).

Wording. Eight scenario families (connection pool, cache stampede, Friday deploy, schema
migration, retry storm, debug logging, certificate renewal, unbounded queue), each step with
three paraphrase templates, and per world its own codename, components, people and customer.
Within a world the structured episodes reuse the *exact* text of an event wherever a real agent
would refer to the same thing again: the failure recorded as B's outcome is the decision of
the escalation episode and the outcome the preventer prevented; the workaround is one decision
with two outcomes. causal-memory links chains only on identical text (NOTES.md, weakness 2), so
this is the fair form for it. The narrated sessions paraphrase freely (a different template per
mention, as people do), and questions use their own phrasing ("ask" templates), so no question
can be answered by matching one fixed string.

Keys. Every event has a key: a few words (stemmed by ``stems``) that occur in every surface
form of that event (structured text, narrated clauses, questions) and, within its world, in no
other event's forms, except that the correction and the believed result restate the failure
(``KEY_OVERLAPS``). The codename is in every key, so a key also identifies the world.
``labels_for_text`` turns any text a system returns into the events it names.

    worlds = generate(seed=7, n_worlds=40)
"""

from __future__ import annotations

import random
import re
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta

BASE_TIME = datetime(2026, 1, 5, 9, 0, tzinfo=UTC)

KINDS = (
    "root_cause",
    "intervention",
    "counterfactual",
    "inhibition",
    "temporal",
    "transfer",
    "latest",
)

# Event labels of task A, and of the twin story in task B.
TASK_A_EVENTS = ("B", "X", "E", "W", "R", "P", "C", "F", "G")
TWIN_EVENTS = ("B2", "X2")
EVENTS = TASK_A_EVENTS + TWIN_EVENTS
# (a, b): a's key may occur in b's text ("X again", "X went away" restate the failure).
KEY_OVERLAPS = frozenset({("X", "C"), ("X", "R")})

# (decision, relation, outcome, task, day offset); the order is the recording order.
EPISODES = (
    ("B", "caused", "X", "A", 0.0),
    ("X", "caused", "E", "A", 1.0),
    ("W", "caused", "R", "A", 2.0),
    ("P", "prevented", "X", "A", 5.0),
    ("B2", "caused", "X2", "B", 9.0),
    ("W", "caused", "C", "A", 16.0),
    ("F", "caused", "G", "A", 17.0),
)

CODENAMES = (
    "Orion", "Vega", "Lyra", "Draco", "Castor", "Rigel", "Altair", "Sirius", "Deneb", "Mira",
    "Antares", "Polaris", "Carina", "Hydra", "Pavo", "Corvus", "Cygnus", "Tucana", "Volans",
    "Fornax", "Lepus", "Octans", "Pictor", "Pyxis", "Vela", "Musca", "Apus", "Auriga",
    "Bootes", "Caelum", "Cetus", "Columba", "Dorado", "Eridanus", "Grus", "Lacerta", "Lupus",
    "Mensa", "Perseus", "Puppis", "Sagitta", "Scutum", "Serpens", "Taurus", "Aquila",
    "Andromeda", "Cassiopeia", "Centaurus", "Capella", "Procyon", "Bellatrix", "Alnitak",
    "Mintaka", "Aldebaran", "Arcturus", "Spica", "Regulus", "Fomalhaut", "Achernar", "Canopus",
)  # fmt: skip
PEOPLE = (
    "Ana", "Ben", "Chi", "Eli", "Fay", "Gus", "Hana", "Ivo", "Jun", "Kai", "Lea", "Noor",
    "Omar", "Pia", "Raj", "Tess", "Uma", "Vik", "Wen", "Yara", "Zoe", "Bo", "Cleo", "Dario",
    "Esme", "Farid", "Greta", "Hugo", "Ines", "Jonas",
)  # fmt: skip
CUSTOMERS = (
    "Globex", "Initech", "Umbrella", "Hooli", "Vandelay", "Soylent", "Tyrell", "Cyberdyne",
    "Wonka", "Oscorp", "Aperture", "Stark", "Wayne", "Gringotts", "Monarch", "Dunder",
    "Pendant", "Sirrus", "Nakatomi", "Prestige", "Zorg", "Virtucon", "Contoso", "Fabrikam",
)  # fmt: skip

# Shared by every family: the escalation. Slots: code, comp, cust.
ESCALATION = {
    "key": ("sev",),
    "text": (
        "{cust} escalated a sev-1 about the {code} {comp} outage",
        "{cust} opened a sev-1 ticket over the {code} {comp} incident",
        "a sev-1 escalation from {cust} came in about {code} {comp}",
    ),
    "ask": (
        "the {cust} sev-1 escalation about {code} {comp}",
        "why {cust} escalated a sev-1 on {code} {comp}",
    ),
}

# Per family: components (task A and the twin take two different ones) and the events.
# Every event: key words (plus codename and component), "text" clauses (structured form and
# narration), "ask" phrasings for questions where the event is asked about; X adds noun
# phrases ("np"), W gerund phrases ("ger"). Slots: code, comp, p1 (B), p2 (W), p3 (P),
# p4 (F), cust.
FAMILIES: dict[str, dict] = {
    "pool": {
        "comps": ("ledger", "billing", "payouts", "invoicing", "accounts", "settlements"),
        "B": {
            "key": ("pool", "limits"),
            "text": (
                "{p1} disabled the pool limits on the {code} {comp} database",
                "{p1} removed the pool limits from {code} {comp} to speed up the import",
                "{p1} turned off pool limits for {code} {comp} before the batch import",
            ),
            "ask": (
                "disable the pool limits on the {code} {comp} database",
                "turn off pool limits for {code} {comp}",
            ),
        },
        "X": {
            "key": ("connections",),
            "text": (
                "the {code} {comp} database ran out of connections",
                "{code} {comp} exhausted its database connections",
                "{code} {comp} hit its connection ceiling and refused queries",
            ),
            "np": (
                "the {code} {comp} database running out of connections",
                "connection exhaustion on {code} {comp}",
            ),
            "ask": (
                "{code} {comp} running out of database connections",
                "connection exhaustion on the {code} {comp} database",
            ),
        },
        "W": {
            "key": ("restart",),
            "text": (
                "{p2} restarted the {code} {comp} app servers every night",
                "{p2} scheduled nightly restarts of the {code} {comp} workers",
                "{p2} added a cron job that restarts {code} {comp} nightly",
            ),
            "ger": (
                "restarting the {code} {comp} app servers every night",
                "the nightly restarts of {code} {comp}",
            ),
        },
        "R": {
            "key": ("errors", "away"),
            "text": (
                "the {code} {comp} connection errors went away",
                "{code} {comp} connection errors went away for now",
                "the connection errors on {code} {comp} went away after that",
            ),
        },
        "C": {
            "key": ("again",),
            "text": (
                "the {code} {comp} database ran out of connections again a week later",
                "{code} {comp} exhausted its database connections again within a week",
                "connection exhaustion hit {code} {comp} again the next Tuesday",
            ),
        },
        "P": {
            "key": ("quotas",),
            "text": (
                "{p3} enforced per-tenant session quotas on the {code} {comp} database",
                "{p3} added session quotas per tenant on {code} {comp}",
                "{p3} introduced tenant session quotas for {code} {comp}",
            ),
            "ask": (
                "enforce per-tenant session quotas on {code} {comp}",
                "add session quotas to {code} {comp}",
            ),
        },
        "F": {
            "key": ("pgbouncer",),
            "text": (
                "{p4} put PgBouncer in front of the {code} {comp} database",
                "{p4} moved {code} {comp} behind a PgBouncer pooler",
                "{p4} routed {code} {comp} traffic through PgBouncer",
            ),
            "ask": (
                "put PgBouncer in front of {code} {comp}",
                "route {code} {comp} through PgBouncer",
            ),
        },
        "G": {
            "key": ("stable",),
            "text": (
                "{code} {comp} stayed stable through the month-end peak",
                "the {code} {comp} database was stable under peak load for a month",
                "{code} {comp} ran stable at peak with headroom to spare",
            ),
        },
    },
    "cache": {
        "comps": ("catalog", "search", "pricing", "profiles", "listings", "reviews"),
        "B": {
            "key": ("ttl",),
            "text": (
                "{p1} gave every {code} {comp} cache key the same TTL",
                "{p1} set one fixed TTL for all {code} {comp} cache entries",
                "{p1} switched {code} {comp} caching to a single shared TTL",
            ),
            "ask": (
                "give every {code} {comp} cache key the same TTL",
                "use one fixed TTL for the {code} {comp} cache",
            ),
        },
        "X": {
            "key": ("stampede",),
            "text": (
                "a cache stampede overloaded the {code} {comp} origin",
                "{code} {comp} suffered a cache stampede that swamped the database",
                "the {code} {comp} cache expired all at once and the stampede took the origin down",
            ),
            "np": ("a cache stampede on {code} {comp}", "the {code} {comp} cache stampede"),
            "ask": (
                "cache stampede on {code} {comp}",
                "{code} {comp} origin overloaded by a cache stampede",
            ),
        },
        "W": {
            "key": ("replicas",),
            "text": (
                "{p2} added two read replicas behind {code} {comp}",
                "{p2} scaled out the {code} {comp} origin with extra replicas",
                "{p2} put more read replicas under {code} {comp}",
            ),
            "ger": (
                "adding read replicas behind {code} {comp}",
                "the extra {code} {comp} replicas",
            ),
        },
        "R": {
            "key": ("latency", "normal"),
            "text": (
                "{code} {comp} latency went back to normal",
                "latency on {code} {comp} was back to normal",
                "{code} {comp} latency returned to normal",
            ),
        },
        "C": {
            "key": ("again",),
            "text": (
                "another cache stampede hit {code} {comp} again at the next expiry",
                "{code} {comp} had a stampede again despite the extra capacity",
                "the {code} {comp} origin fell over again when the cache expired",
            ),
        },
        "P": {
            "key": ("jitter",),
            "text": (
                "{p3} added random jitter to the {code} {comp} cache expiry",
                "{p3} jittered {code} {comp} cache expiry times",
                "{p3} spread {code} {comp} cache expiry with random jitter",
            ),
            "ask": (
                "add jitter to the {code} {comp} cache expiry",
                "jitter {code} {comp} cache expiry times",
            ),
        },
        "F": {
            "key": ("coalescing",),
            "text": (
                "{p4} enabled request coalescing on {code} {comp} cache misses",
                "{p4} turned on request coalescing for the {code} {comp} cache",
                "{p4} shipped request coalescing in the {code} {comp} cache layer",
            ),
            "ask": (
                "enable request coalescing on {code} {comp}",
                "turn on request coalescing for {code} {comp}",
            ),
        },
        "G": {
            "key": ("hit", "rate"),
            "text": (
                "{code} {comp} held a 99% cache hit rate through the sale",
                "the {code} {comp} hit rate stayed high through launch week",
                "{code} {comp} served the launch-week spike with a high hit rate",
            ),
        },
    },
    "friday": {
        "comps": ("checkout", "cart", "storefront", "signup", "wallet", "onboarding"),
        "B": {
            "key": ("friday",),
            "text": (
                "{p1} deployed {code} {comp} on Friday evening",
                "{p1} pushed the {code} {comp} release late on Friday",
                "{p1} shipped a {code} {comp} build on a Friday night",
            ),
            "ask": (
                "deploy {code} {comp} on a Friday evening",
                "push a {code} {comp} release late on Friday",
            ),
        },
        "X": {
            "key": ("weekend",),
            "text": (
                "{code} {comp} was broken all weekend",
                "the {code} {comp} flow failed over the weekend",
                "{code} {comp} returned errors through the weekend",
            ),
            "np": ("a weekend outage of {code} {comp}", "{code} {comp} being broken all weekend"),
            "ask": (
                "{code} {comp} broken over the weekend",
                "weekend failure of {code} {comp}",
            ),
        },
        "W": {
            "key": ("rolled", "back"),
            "text": (
                "{p2} rolled back the {code} {comp} release",
                "{p2} rolled {code} {comp} back to the previous build",
                "{p2} rolled back the {code} {comp} deploy by hand",
            ),
            "ger": (
                "the rolled back {code} {comp} release",
                "having rolled {code} {comp} back",
            ),
        },
        "R": {
            "key": ("recovered",),
            "text": (
                "{code} {comp} recovered from the bad deploy",
                "{code} {comp} recovered within the hour",
                "the {code} {comp} flow recovered after that",
            ),
        },
        "C": {
            "key": ("again",),
            "text": (
                "{code} {comp} broke again with the next release",
                "the {code} {comp} flow failed again after the re-deploy",
                "{code} {comp} went down again on the next push",
            ),
        },
        "P": {
            "key": ("freeze",),
            "text": (
                "{p3} declared a deploy freeze on {code} {comp} before the holiday",
                "{p3} put {code} {comp} under a change freeze for the holidays",
                "{p3} announced a release freeze for {code} {comp} over the holiday",
            ),
            "ask": (
                "declare a deploy freeze on {code} {comp}",
                "put {code} {comp} under a change freeze",
            ),
        },
        "F": {
            "key": ("canary",),
            "text": (
                "{p4} rolled out {code} {comp} behind a canary",
                "{p4} shipped {code} {comp} through a 5% canary on Tuesday mornings",
                "{p4} moved {code} {comp} releases to staged canary deploys",
            ),
            "ask": (
                "release {code} {comp} behind a canary",
                "use canary deploys for {code} {comp}",
            ),
        },
        "G": {
            "key": ("incident", "free"),
            "text": (
                "{code} {comp} releases went out incident-free for a month",
                "{code} {comp} shipped six releases incident-free",
                "every {code} {comp} release since then was incident-free",
            ),
        },
    },
    "migration": {
        "comps": ("orders", "users", "shipments", "subscriptions", "tickets", "contracts"),
        "B": {
            "key": ("dry",),
            "text": (
                "{p1} ran the {code} {comp} schema migration without a dry run",
                "{p1} applied the {code} {comp} migration in production with no dry run",
                "{p1} skipped the dry run for the {code} {comp} schema change",
            ),
            "ask": (
                "skip the dry run for the {code} {comp} migration",
                "run the {code} {comp} migration without a dry run",
            ),
        },
        "X": {
            "key": ("lock",),
            "text": (
                "the {code} {comp} table stayed locked for an hour",
                "{code} {comp} writes blocked on a table lock for an hour",
                "a long table lock froze {code} {comp} writes",
            ),
            "np": ("the {code} {comp} table lock", "an hour-long lock on the {code} {comp} table"),
            "ask": (
                "{code} {comp} table locked for an hour",
                "long table lock on {code} {comp}",
            ),
        },
        "W": {
            "key": ("killed",),
            "text": (
                "{p2} killed the blocking {code} {comp} migration session",
                "{p2} killed the {code} {comp} migration query by hand",
                "{p2} manually killed the stuck {code} {comp} migration",
            ),
            "ger": (
                "having killed the stuck {code} {comp} migration",
                "the killed {code} {comp} migration session",
            ),
        },
        "R": {
            "key": ("resumed",),
            "text": (
                "{code} {comp} writes resumed at once",
                "writes to {code} {comp} resumed within minutes",
                "{code} {comp} writes resumed after that",
            ),
        },
        "C": {
            "key": ("again",),
            "text": (
                "the {code} {comp} table locked up again on the next migration",
                "{code} {comp} writes stalled on a lock again the following week",
                "another {code} {comp} migration held the lock again",
            ),
        },
        "P": {
            "key": ("timeout",),
            "text": (
                "{p3} set a statement timeout on {code} {comp} migrations",
                "{p3} capped {code} {comp} migration statements with a timeout",
                "{p3} added a short statement timeout to the {code} {comp} migration runner",
            ),
            "ask": (
                "set a statement timeout on {code} {comp} migrations",
                "add a statement timeout to {code} {comp} migrations",
            ),
        },
        "F": {
            "key": ("online",),
            "text": (
                "{p4} switched {code} {comp} to an online schema change tool",
                "{p4} moved {code} {comp} migrations to online schema changes",
                "{p4} ran {code} {comp} schema changes with an online migration tool",
            ),
            "ask": (
                "use online schema changes for {code} {comp}",
                "switch {code} {comp} to an online schema change tool",
            ),
        },
        "G": {
            "key": ("downtime",),
            "text": (
                "{code} {comp} migrations finished with zero downtime",
                "the next {code} {comp} schema change caused no downtime",
                "{code} {comp} migrated with no downtime at all",
            ),
        },
    },
    "retry": {
        "comps": ("gateway", "notifications", "webhooks", "messaging", "auth", "sync"),
        "B": {
            "key": ("backoff",),
            "text": (
                "{p1} set the {code} {comp} client to retry without backoff",
                "{p1} removed the backoff from {code} {comp} retries",
                "{p1} configured instant retries with no backoff on {code} {comp}",
            ),
            "ask": (
                "retry {code} {comp} calls without backoff",
                "remove the backoff from {code} {comp} retries",
            ),
        },
        "X": {
            "key": ("storm",),
            "text": (
                "a retry storm took down {code} {comp}",
                "{code} {comp} collapsed under a retry storm",
                "the {code} {comp} fleet drowned in a retry storm",
            ),
            "np": ("a retry storm on {code} {comp}", "the {code} {comp} retry storm"),
            "ask": ("retry storm on {code} {comp}", "{code} {comp} taken down by a retry storm"),
        },
        "W": {
            "key": ("scaled",),
            "text": (
                "{p2} scaled {code} {comp} up to twice the nodes",
                "{p2} scaled up the {code} {comp} fleet",
                "{p2} scaled {code} {comp} out by hand",
            ),
            "ger": ("having scaled up {code} {comp}", "the scaled up {code} {comp} fleet"),
        },
        "R": {
            "key": ("backlog",),
            "text": (
                "{code} {comp} drained the backlog",
                "the {code} {comp} backlog drained",
                "{code} {comp} worked through the backlog",
            ),
        },
        "C": {
            "key": ("again",),
            "text": (
                "{code} {comp} went down again in the next retry storm",
                "the {code} {comp} fleet fell over again at the next spike",
                "{code} {comp} collapsed again under load a few days later",
            ),
        },
        "P": {
            "key": ("rate", "limit"),
            "text": (
                "{p3} put a rate limit on {code} {comp} clients",
                "{p3} added client-side rate limiting to {code} {comp}",
                "{p3} rate-limited calls into {code} {comp}",
            ),
            "ask": (
                "rate-limit calls into {code} {comp}",
                "add a rate limit to {code} {comp} clients",
            ),
        },
        "F": {
            "key": ("circuit", "breaker"),
            "text": (
                "{p4} added a circuit breaker to the {code} {comp} client",
                "{p4} wrapped {code} {comp} calls in a circuit breaker",
                "{p4} put a circuit breaker in front of {code} {comp}",
            ),
            "ask": (
                "add a circuit breaker to {code} {comp}",
                "wrap {code} {comp} calls in a circuit breaker",
            ),
        },
        "G": {
            "key": ("smoothly",),
            "text": (
                "{code} {comp} handled the Black Friday spike smoothly",
                "the next {code} {comp} traffic spike passed smoothly",
                "{code} {comp} absorbed the launch spike smoothly",
            ),
        },
    },
    "logging": {
        "comps": ("indexer", "analytics", "reporting", "ingest", "telemetry", "exports"),
        "B": {
            "key": ("debug",),
            "text": (
                "{p1} left debug logging on in {code} {comp} production",
                "{p1} shipped {code} {comp} with debug logging enabled",
                "{p1} turned on debug logs for {code} {comp} and never turned them off",
            ),
            "ask": (
                "leave debug logging on in {code} {comp}",
                "enable debug logs in {code} {comp} production",
            ),
        },
        "X": {
            "key": ("disk",),
            "text": (
                "the {code} {comp} disks filled up",
                "{code} {comp} ran out of disk space",
                "{code} {comp} nodes hit 100% disk",
            ),
            "np": ("the {code} {comp} disks filling up", "a full disk on {code} {comp}"),
            "ask": ("{code} {comp} disks filled up", "{code} {comp} out of disk space"),
        },
        "W": {
            "key": ("deleted",),
            "text": (
                "{p2} deleted old {code} {comp} log files by hand",
                "{p2} deleted a week of {code} {comp} logs",
                "{p2} manually deleted {code} {comp} logs",
            ),
            "ger": ("having deleted old {code} {comp} logs", "the deleted {code} {comp} logs"),
        },
        "R": {
            "key": ("free", "space"),
            "text": (
                "{code} {comp} got its free space back",
                "free space on {code} {comp} recovered",
                "{code} {comp} was back to plenty of free space",
            ),
        },
        "C": {
            "key": ("again",),
            "text": (
                "the {code} {comp} disks filled up again two days later",
                "{code} {comp} ran out of disk again by the weekend",
                "{code} {comp} hit a full disk again soon after",
            ),
        },
        "P": {
            "key": ("rotation",),
            "text": (
                "{p3} set up log rotation on {code} {comp}",
                "{p3} enabled log rotation with a 3-day cap on {code} {comp}",
                "{p3} configured daily log rotation for {code} {comp}",
            ),
            "ask": (
                "set up log rotation on {code} {comp}",
                "configure log rotation for {code} {comp}",
            ),
        },
        "F": {
            "key": ("info",),
            "text": (
                "{p4} set the {code} {comp} log level to info",
                "{p4} switched {code} {comp} production logging to info level",
                "{p4} dropped {code} {comp} logs to info",
            ),
            "ask": (
                "set the {code} {comp} log level to info",
                "switch {code} {comp} logging to info",
            ),
        },
        "G": {
            "key": ("flat",),
            "text": (
                "{code} {comp} storage use stayed flat for a month",
                "{code} {comp} storage stayed flat after that",
                "{code} {comp} kept flat storage use all quarter",
            ),
        },
    },
    "cert": {
        "comps": ("api", "portal", "partner", "mobile", "edge", "sso"),
        "B": {
            "key": ("hand",),
            "text": (
                "{p1} renewed the {code} {comp} TLS certificate by hand",
                "{p1} kept renewing the {code} {comp} certificate by hand",
                "{p1} tracked the {code} {comp} certificate renewal by hand in a spreadsheet",
            ),
            "ask": (
                "renew the {code} {comp} certificate by hand",
                "handle {code} {comp} certificate renewals by hand",
            ),
        },
        "X": {
            "key": ("expired",),
            "text": (
                "the {code} {comp} TLS certificate expired",
                "{code} {comp} served an expired certificate and clients failed handshakes",
                "{code} {comp} clients got certificate expired errors",
            ),
            "np": (
                "the expired {code} {comp} certificate",
                "an expired certificate on {code} {comp}",
            ),
            "ask": (
                "expired certificate on {code} {comp}",
                "{code} {comp} TLS certificate expired",
            ),
        },
        "W": {
            "key": ("emergency",),
            "text": (
                "{p2} pushed an emergency certificate to {code} {comp}",
                "{p2} issued an emergency cert for {code} {comp}",
                "{p2} installed an emergency certificate on {code} {comp}",
            ),
            "ger": (
                "pushing an emergency certificate to {code} {comp}",
                "the emergency {code} {comp} certificate",
            ),
        },
        "R": {
            "key": ("succeeded",),
            "text": (
                "{code} {comp} handshakes succeeded",
                "TLS handshakes on {code} {comp} succeeded after that",
                "{code} {comp} clients succeeded in connecting",
            ),
        },
        "C": {
            "key": ("again",),
            "text": (
                "the {code} {comp} certificate expired again in the following cycle",
                "{code} {comp} hit another certificate expiry again",
                "{code} {comp} clients failed handshakes again a month later",
            ),
        },
        "P": {
            "key": ("alert",),
            "text": (
                "{p3} added an expiry alert for {code} {comp} certificates",
                "{p3} set up certificate expiry alerts for {code} {comp}",
                "{p3} put a 30-day expiry alert on the {code} {comp} certificate",
            ),
            "ask": (
                "add an expiry alert for {code} {comp} certificates",
                "set up certificate expiry alerts on {code} {comp}",
            ),
        },
        "F": {
            "key": ("acme",),
            "text": (
                "{p4} automated {code} {comp} certificate renewal with ACME",
                "{p4} moved {code} {comp} to automatic ACME renewal",
                "{p4} put {code} {comp} certificates on ACME auto-renewal",
            ),
            "ask": (
                "automate {code} {comp} certificate renewal with ACME",
                "move {code} {comp} to ACME auto-renewal",
            ),
        },
        "G": {
            "key": ("automatically",),
            "text": (
                "{code} {comp} certificates renewed automatically ever since",
                "every {code} {comp} certificate rotated automatically afterwards",
                "the {code} {comp} certificate renewed itself automatically",
            ),
        },
    },
    "queue": {
        "comps": ("jobs", "thumbnails", "emails", "imports", "reports", "uploads"),
        "B": {
            "key": ("cap",),
            "text": (
                "{p1} removed the size cap on the {code} {comp} queue",
                "{p1} lifted the {code} {comp} queue cap to let the backlog in",
                "{p1} ran the {code} {comp} queue with no cap",
            ),
            "ask": (
                "remove the cap on the {code} {comp} queue",
                "run the {code} {comp} queue without a cap",
            ),
        },
        "X": {
            "key": ("memory",),
            "text": (
                "{code} {comp} workers ran out of memory",
                "the {code} {comp} workers were killed for using too much memory",
                "{code} {comp} crashed out of memory",
            ),
            "np": ("{code} {comp} running out of memory", "out-of-memory crashes in {code} {comp}"),
            "ask": (
                "{code} {comp} workers out of memory",
                "out-of-memory crashes in {code} {comp}",
            ),
        },
        "W": {
            "key": ("bigger",),
            "text": (
                "{p2} moved {code} {comp} to bigger instances",
                "{p2} gave the {code} {comp} workers bigger instances",
                "{p2} upgraded {code} {comp} to bigger instances",
            ),
            "ger": (
                "moving {code} {comp} to bigger instances",
                "the bigger {code} {comp} instances",
            ),
        },
        "R": {
            "key": ("stayed", "up"),
            "text": (
                "{code} {comp} stayed up through the night",
                "{code} {comp} stayed up after that",
                "the {code} {comp} workers stayed up for a while",
            ),
        },
        "C": {
            "key": ("again",),
            "text": (
                "{code} {comp} ran out of memory again on the next backlog",
                "the {code} {comp} workers crashed again a week later",
                "{code} {comp} hit memory limits again",
            ),
        },
        "P": {
            "key": ("backpressure",),
            "text": (
                "{p3} added backpressure to the {code} {comp} producers",
                "{p3} made {code} {comp} producers respect backpressure",
                "{p3} turned on backpressure for {code} {comp}",
            ),
            "ask": (
                "add backpressure to {code} {comp}",
                "turn on backpressure for {code} {comp} producers",
            ),
        },
        "F": {
            "key": ("bounded",),
            "text": (
                "{p4} rebuilt {code} {comp} on a bounded queue with spill to disk",
                "{p4} moved {code} {comp} to a bounded queue",
                "{p4} switched the {code} {comp} workers to a bounded queue",
            ),
            "ask": (
                "use a bounded queue for {code} {comp}",
                "move {code} {comp} to a bounded queue",
            ),
        },
        "G": {
            "key": ("trouble",),
            "text": (
                "{code} {comp} worked through the holiday backlog without trouble",
                "{code} {comp} cleared a record backlog without trouble",
                "{code} {comp} processed the year-end backlog without trouble",
            ),
        },
    },
}

# Narration frames. Capitalised slot = the clause starting a sentence.
CAUSED_FRAMES = (
    "{A}, and as a result {b}.",
    "{B} because {a}.",
    "{A}, so {b}.",
)
PREVENTED_FRAMES = (
    "{A}, which prevented {bnp}.",
    "{A}, and that stopped {bnp} before it started.",
    "Because {a}, we avoided {bnp}.",
)
CORRECTION_FRAMES = (
    "{Wger} did not fix it after all: {c}.",
    "Turns out {wger} was not a real fix; {c}.",
    "Bad news, {wger} did not hold up: {c}.",
)
LATEST_ASKS = ("how to fix {x}", "what is the fix for {x}")
FILLER_OPEN = (
    "Morning all.",
    "Quick update on {code}.",
    "Hi, got a minute for {code}?",
    "Ok, sharing what we found.",
    "Posting this for the record.",
)
FILLER_CLOSE = (
    "Thanks, I'll write it up in the incident doc.",
    "Noted, adding it to the runbook.",
    "Let's go over it at standup.",
    "Good to know, thanks.",
    "I'll update the status page.",
)

_WORD = re.compile(r"[a-z0-9]+")


def stem(word: str) -> str:
    """A deliberately crude stemmer: enough to equate connection/connections, restart/ed/ing."""
    if len(word) > 5 and word.endswith("ing"):
        return word[:-3]
    if len(word) > 4 and word.endswith("ed"):
        return word[:-2]
    if len(word) > 3 and word.endswith("s") and not word.endswith("ss"):
        return word[:-1]
    return word


def stems(text: str) -> set[str]:
    return {stem(w) for w in _WORD.findall(text.lower())}


def key_matches(key: frozenset[str], text: str) -> bool:
    return key <= stems(text)


@dataclass(frozen=True)
class Event:
    label: str  # B, X, E, W, R, P, C, F, G, B2, X2
    task_tag: str
    text: str  # the structured form (record_decision text)
    key: frozenset[str]  # stemmed words found in every form of this event
    forms: tuple[str, ...]  # every rendered surface form (text, narration, questions)


@dataclass(frozen=True)
class Episode:
    decision: str  # event label
    relation: str
    outcome: str
    task_tag: str
    time: datetime
    decision_text: str
    outcome_text: str


@dataclass(frozen=True)
class Session:
    task_tag: str
    time: datetime
    messages: tuple[dict, ...]  # {"speaker", "text", "time"}
    mentions: tuple[str, ...]  # event labels narrated in it


@dataclass(frozen=True)
class Call:
    """One tool call and how its answer is judged.

    check: "chain_root" (a gold event is the root of one of the top-k chains), "in_top" (a gold
    event in the top-k items), "before_anti" (a gold item in the top-k and no anti item ranked
    above the first gold one; an item naming both counts as anti), "verdict_is",
    "verdict_not", "preferred" (compare with ``expect``).
    """

    tool: str
    args: dict
    check: str
    gold: tuple[str, ...] = ()
    anti: tuple[str, ...] = ()
    expect: str | None = None
    k: int = 5


@dataclass(frozen=True)
class Question:
    qid: str
    kind: str
    name: str
    world: int
    calls: tuple[Call, ...]  # all must pass


@dataclass(frozen=True)
class World:
    index: int
    family: str
    code: str
    comp: str
    comp_b: str
    task_a: str
    task_b: str
    people: dict[str, str]  # role -> name (p1 bad practice, p2 workaround, p3 preventer, p4 fix)
    customer: str
    start: datetime
    events: dict[str, Event]
    episodes: tuple[Episode, ...]
    sessions: tuple[Session, ...]
    questions: tuple[Question, ...] = field(default=())

    def gold_label(self, label: str) -> str:
        """World-qualified label, as ``labels_for_text`` returns it."""
        return f"w{self.index}.{label}"


def _cap(s: str) -> str:
    return s[:1].upper() + s[1:]


def _pick(rng: random.Random, options: tuple[str, ...], avoid: str | None = None) -> str:
    pool = [o for o in options if o != avoid] or list(options)
    return rng.choice(pool)


def _world(seed: int, index: int, code: str, family: str, asks: str) -> World:
    rng = random.Random(f"causal-world:{seed}:{index}")
    fam = FAMILIES[family]
    comp, comp_b = rng.sample(fam["comps"], 2)
    p1, p2, p3, p4, p5 = rng.sample(PEOPLE, 5)
    cust = rng.choice(CUSTOMERS)
    task_a = f"{code.lower()}-{comp}-{rng.choice(('migration', 'launch', 'hardening', 'scaling'))}"
    task_b = f"{code.lower()}-{comp_b}-{rng.choice(('audit', 'rollout', 'cleanup', 'upgrade'))}"
    start = BASE_TIME + timedelta(hours=rng.randrange(0, 14 * 24))
    slots_a = {"code": code, "comp": comp, "cust": cust, "p1": p1, "p2": p2, "p3": p3, "p4": p4}
    slots_b = {**slots_a, "comp": comp_b, "p1": p5}

    spec = {**{k: v for k, v in fam.items() if k != "comps"}, "E": ESCALATION}
    events: dict[str, Event] = {}
    rendered: dict[str, dict[str, tuple[str, ...]]] = {}
    for label in EVENTS:
        base = label.rstrip("2")
        sl = slots_b if label in TWIN_EVENTS else slots_a
        parts = {
            part: tuple(t.format(**sl) for t in spec[base].get(part, ()))
            for part in ("text", "np", "ger", "ask")
        }
        rendered[label] = parts
        key = frozenset(stems(" ".join((code, sl["comp"], *spec[base]["key"]))))
        if base == "E":
            key |= stems(cust)
        forms = tuple(f for part in parts.values() for f in part)
        events[label] = Event(
            label=label,
            task_tag=task_b if label in TWIN_EVENTS else task_a,
            text=rng.choice(parts["text"]),
            key=key,
            forms=forms,
        )

    def clause(label: str) -> str:  # a narrated mention, paraphrased away from the record
        return _pick(rng, rendered[label]["text"], avoid=events[label].text)

    def ask(label: str) -> str:
        phrased = rng.choice(rendered[label]["ask"])  # drawn either way: same worlds
        return events[label].text if asks == "exact" else phrased

    episodes = tuple(
        Episode(
            decision=d,
            relation=rel,
            outcome=o,
            task_tag=task_a if task == "A" else task_b,
            time=start + timedelta(days=day),
            decision_text=events[d].text,
            outcome_text=events[o].text,
        )
        for d, rel, o, task, day in EPISODES
    )

    sessions = []
    for ep in episodes:
        d, o = ep.decision, ep.outcome
        if ep.relation == "prevented":
            line = rng.choice(PREVENTED_FRAMES)
            a = clause(d)
            line = line.format(A=_cap(a), a=a, bnp=rng.choice(rendered[o]["np"]))
        elif o == "C":
            line = rng.choice(CORRECTION_FRAMES)
            w = rng.choice(rendered[d]["ger"])
            line = line.format(Wger=_cap(w), wger=w, c=clause(o))
        else:
            line = rng.choice(CAUSED_FRAMES)
            a, b = clause(d), clause(o)
            line = line.format(A=_cap(a), a=a, B=_cap(b), b=b)
        # narrated by someone the line does not name, as in a retro or a standup
        team = (p1, p2, p3, p4, p5)
        speaker = rng.choice([p for p in team if p not in line])
        others = [p for p in team if p != speaker]
        t0 = ep.time
        texts = [
            (rng.choice(others), rng.choice(FILLER_OPEN).format(code=code)),
            (speaker, line),
            (rng.choice(others), rng.choice(FILLER_CLOSE)),
        ]
        msgs = tuple(
            {"speaker": who, "text": text, "time": (t0 + timedelta(minutes=3 * i)).isoformat()}
            for i, (who, text) in enumerate(texts)
        )
        sessions.append(Session(task_tag=ep.task_tag, time=t0, messages=msgs, mentions=(d, o)))

    def g(*labels: str) -> tuple[str, ...]:
        return tuple(f"w{index}.{lb}" for lb in labels)

    b_ask, f_ask, p_ask, x_ask = ask("B"), ask("F"), ask("P"), ask("X")
    qs = [
        ("root_cause", "chain", Call(
            "trace_cause_chain",
            {"outcome_description": ask("E"), "max_depth": 3, "min_confidence": 0.1},
            "chain_root", gold=g("B"),
        )),
        ("root_cause", "single", Call(
            "trace_cause", {"outcome_description": x_ask}, "in_top", gold=g("B"),
        )),
        ("intervention", "bad", Call(
            "intervention_query", {"action": b_ask}, "verdict_is", expect="DANGER", k=1,
        )),
        ("intervention", "fix", Call(
            "intervention_query", {"action": f_ask}, "verdict_is", expect="SAFE", k=1,
        )),
        ("counterfactual", "fix_vs_bad", Call(
            "counterfactual_query", {"decision": f_ask, "alternative": b_ask},
            "preferred", expect="decision", k=1,
        )),
        ("counterfactual", "bad_vs_fix", Call(
            "counterfactual_query", {"decision": b_ask, "alternative": f_ask},
            "preferred", expect="alternative", k=1,
        )),
        ("inhibition", "preventer", (
            Call("intervention_query", {"action": p_ask}, "verdict_not", expect="DANGER", k=1),
            Call(
                "counterfactual_query", {"decision": p_ask, "alternative": b_ask},
                "preferred", expect="decision", k=1,
            ),
        )),
        ("temporal", "what_followed", Call(
            "intervention_query", {"action": x_ask}, "in_top", gold=g("E"),
        )),
        ("transfer", "twin", Call(
            "search_causal", {"query": ask("X2"), "limit": 5}, "in_top",
            gold=g(*TASK_A_EVENTS),
        )),
        ("latest", "how_to_fix", Call(
            "search_causal",
            {"query": rng.choice(LATEST_ASKS).format(x=ask("X")), "limit": 5},
            "before_anti", gold=g("C", "F", "G"), anti=g("R"),
        )),
    ]  # fmt: skip
    questions = tuple(
        Question(
            qid=f"w{index}.{kind}.{name}",
            kind=kind,
            name=f"{kind}.{name}",
            world=index,
            calls=calls if isinstance(calls, tuple) else (calls,),
        )
        for kind, name, calls in qs
    )
    return World(
        index=index,
        family=family,
        code=code,
        comp=comp,
        comp_b=comp_b,
        task_a=task_a,
        task_b=task_b,
        people={"p1": p1, "p2": p2, "p3": p3, "p4": p4, "p5": p5},
        customer=cust,
        start=start,
        events=events,
        episodes=episodes,
        sessions=tuple(sessions),
        questions=questions,
    )


def generate(seed: int = 7, n_worlds: int = 40, asks: str = "paraphrase") -> list[World]:
    """``n_worlds`` worlds (at most ``len(CODENAMES)``), families in rotation, all from seed.

    ``asks="exact"`` phrases every question with the recorded (structured) text of the event
    instead of its own wording: a lexical upper bound, for diagnosis only.
    """
    if not 1 <= n_worlds <= len(CODENAMES):
        raise ValueError(f"n_worlds must be in 1..{len(CODENAMES)}")
    if asks not in ("paraphrase", "exact"):
        raise ValueError("asks must be 'paraphrase' or 'exact'")
    rng = random.Random(f"causal-worlds:{seed}")
    codes = list(CODENAMES)
    rng.shuffle(codes)  # world i is the same whatever n_worlds is
    fams = sorted(FAMILIES)
    offset = rng.randrange(len(fams))
    return [
        _world(seed, i, codes[i], fams[(i + offset) % len(fams)], asks) for i in range(n_worlds)
    ]


def timeline(worlds: list[World]) -> list[tuple[World, Episode, Session]]:
    """Every world's episodes (with the session that narrates it) in global time order, the
    way they would reach one shared store."""
    items = [(w, ep, s) for w in worlds for ep, s in zip(w.episodes, w.sessions, strict=True)]
    return sorted(items, key=lambda t: (t[1].time, t[0].index))


class Labeler:
    """Text -> world-qualified event labels by key containment (see the module docstring)."""

    def __init__(self, worlds: list[World]) -> None:
        self.by_code: dict[str, list[tuple[str, frozenset[str]]]] = {}
        for w in worlds:
            code = stem(w.code.lower())
            self.by_code[code] = [(w.gold_label(lb), ev.key) for lb, ev in w.events.items()]

    def labels(self, text: str) -> set[str]:
        s = stems(text)
        out: set[str] = set()
        for code in s & self.by_code.keys():
            out.update(label for label, key in self.by_code[code] if key <= s)
        return out

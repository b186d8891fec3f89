"""The narrated demo: a fictional team's memory over five months, on a deterministic clock.

`build_demo` only calls the public Memory API, so what it shows is what any user gets.
"""

from __future__ import annotations

from dataclasses import dataclass

from .clock import ManualClock
from .memory import Memory
from .model import Chain, InterventionResult, MaintainReport, Node, RecallResult
from .sameness import told

START = "2026-01-05T09:00:00+00:00"
STALE_DAYS = 150

OLD_NOTES = (
    "Lunch order for the January offsite: 12 pizzas, 3 vegan",
    "Old VPN setup steps for the 2025 laptops",
    "Parking permits for the Harbour Street office",
    "Draft agenda for a team-building day that never happened",
    "Wi-Fi password rotation note for the old office router",
    "Whiteboard photo from the first architecture chat",
)


@dataclass
class DemoResult:
    stale_decision: Node
    fresh_decision: Node
    pinned_note: Node
    old_notes: list[Node]
    ranking: list[tuple[Node, int]]  # decisions by activation, with their link counts
    report: MaintainReport
    recall: RecallResult


def build_demo(memory: Memory, clock: ManualClock) -> DemoResult:
    clock.set(START)
    people = {
        name: memory.remember(text, "person")
        for name, text in {
            "ana": "Ana Ruiz, platform lead",
            "ben": "Ben Okafor, site reliability engineer",
            "chi": "Chi Tran, product manager for checkout",
            "dev": "Dev Patel, backend engineer on order events",
        }.items()
    }
    project = memory.remember("Checkout v2: rebuild of the order pipeline", "project")
    client = memory.remember("Acme Retail, the largest checkout customer", "client")

    # January: a big decision, discussed everywhere, with eleven links.
    stale = memory.remember(
        "Decision: run our own self-hosted Kafka cluster for order events", "decision"
    )
    notes = [
        memory.remember(text, kind)
        for text, kind in [
            ("Kickoff meeting: order events architecture options", "meeting"),
            ("Kafka sizing notes: 3 brokers, 12 partitions for order events", "note"),
            ("Benchmark: self-hosted Kafka handles 40k order events per second", "note"),
            ("Runbook draft: rolling restart of Kafka brokers", "document"),
            ("Cost estimate for self-hosted Kafka hardware", "note"),
        ]
    ]
    for node in [*people.values(), project, client, *notes]:
        memory.connect(stale.id, node.id, "about" if node.kind != "meeting" else "related")
    pinned = memory.remember(
        "On-call escalation policy: page the platform lead after 15 minutes", "note", pinned=True
    )
    old_notes = [memory.remember(text) for text in OLD_NOTES]

    # Five months pass. Nobody touches the Kafka decision or the old notes again.
    clock.advance(days=STALE_DAYS - 2)
    fresh = memory.remember("Decision: move order events to the managed queue service", "decision")
    incident = memory.record_decision(
        "Kept self-hosted Kafka through the spring sale",
        "Weekend outage: order events lagged 40 minutes and checkout stalled",
        "caused",
        task_tag="checkout-v2",
    )
    for node, relation in [
        (incident.outcome, "related"),
        (people["ben"], "about"),
        (people["dev"], "about"),
        (project, "about"),
    ]:
        memory.connect(fresh.id, node.id, relation)

    clock.advance(days=2)
    report = memory.maintain()
    ranking = sorted(
        (
            (d, len(memory.neighbors(d.id, limit=1000).neighbors))
            for d in memory.store.find_nodes(kind="decision", limit=1000)
        ),
        key=lambda p: -memory.get(p[0].id).activation,
    )
    ranking = [(memory.get(d.id), links) for d, links in ranking]
    result = memory.recall("what did we decide for order events?", k=5, touch=False)
    return DemoResult(
        stale_decision=memory.get(stale.id),
        fresh_decision=memory.get(fresh.id),
        pinned_note=memory.get(pinned.id),
        old_notes=[memory.get(n.id) for n in old_notes],
        ranking=ranking,
        report=report,
        recall=result,
    )


# Late June: the team talks the quarter over in chat, and the memory reads why.
CHAT = (
    ("Dev", "We went with the managed queue because it needs no brokers to run."),
    ("Ben", "It paid off: not one page in three weeks."),
    ("Ana", "We skipped the load test before the June promo."),
    ("Ben", "That was a mistake: checkout stalled for an hour."),
    ("Chi", "That led to an angry escalation from Acme Retail."),
)
CHAT_DAYS = 20  # after the maintenance run
TRACED = "escalation from Acme Retail"
RISKY = "skip the load test before a promo"
PROVEN = "go with the managed queue"


@dataclass
class ChatResult:
    chain: Chain  # what led to the escalation, root first
    risky: InterventionResult  # asking before skipping the load test again
    proven: InterventionResult  # ... and before choosing the managed queue again


def chat_demo(memory: Memory, clock: ManualClock) -> ChatResult:
    """A chat remembered by rules alone (no LLM): its choices, their reasons and the verdicts
    that followed become decisions and outcomes an agent can ask about before acting."""
    clock.advance(days=CHAT_DAYS)
    memory.remember(messages=[{"speaker": who, "text": text} for who, text in CHAT])
    return ChatResult(
        chain=memory.trace_cause_chain(TRACED).chains[0],
        risky=memory.intervention_query(RISKY),
        proven=memory.intervention_query(PROVEN),
    )


def shown(text: str) -> str:
    """A node's text as the demo prints it: "That was a mistake: …", not what "That" stood for
    (the line above it says that)."""
    return told(text)

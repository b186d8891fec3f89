"""A measure that was missing is a cause of what it would have prevented: a postmortem that says
"a disk usage alert would have prevented the outage" (or that the outage happened because
there was no alert) traces the outage back to the missing alert, while adding the alert stays
safe and removing it stays dangerous."""

from __future__ import annotations

import pytest

from ebbtide import Memory
from ebbtide.extract import extract
from ebbtide.sameness import absent
from ebbtide.transcript import Message

# What each telling names as the cause of the outage: the alert, missing.
NO_ALERT = "No disk usage alert"
TOLD_MISSING = [
    ("A disk usage alert would have prevented the outage.", NO_ALERT),
    ("The outage would have been prevented by a disk usage alert.", NO_ALERT),
    ("A disk usage alert could have prevented the outage.", NO_ALERT),
    ("If we had had a disk usage alert, the outage would not have happened.", NO_ALERT),
    ("If there had been a disk usage alert, the outage would not have happened.", NO_ALERT),
    ("The outage happened because we had no disk usage alert.",
     "Ana and others had no disk usage alert."),
    ("The outage happened because the disk usage alert was missing.",
     "The disk usage alert was missing."),
]  # fmt: skip
SAID = [said for said, _ in TOLD_MISSING]


def tell(memory: Memory, said: str) -> None:
    memory.remember(messages=[{"speaker": "Ana", "text": said}])


@pytest.mark.parametrize(("said", "missing"), TOLD_MISSING)
def test_the_outage_traces_back_to_the_missing_alert(memory: Memory, said, missing):
    tell(memory, said)
    chains = memory.trace_cause_chain("the outage").chains
    roots = [c.steps[0] for c in chains]
    assert missing in [r.decision for r in roots], [(r.decision, r.relation) for r in roots]


@pytest.mark.parametrize("said", SAID)
@pytest.mark.parametrize("ask", ["add a disk usage alert", "keep the disk usage alert"])
def test_putting_the_missing_alert_in_place_is_safe(memory: Memory, said, ask):
    tell(memory, said)
    answer = memory.intervention_query(ask)
    assert answer.verdict == "SAFE", answer.evidence
    outage = next(c for c in answer.consequences if "outage" in c.node.text.lower())
    assert outage.activation < 0, "the outage is prevented, not brought about"


@pytest.mark.parametrize("said", SAID)
def test_removing_the_alert_whose_lack_let_the_outage_happen_is_danger(memory: Memory, said):
    tell(memory, said)
    answer = memory.intervention_query("remove the disk usage alert")
    assert answer.verdict == "DANGER", answer.evidence
    outage = next(c for c in answer.consequences if "outage" in c.node.text.lower())
    assert outage.activation > 0


def test_a_postmortem_traces_the_outage_to_what_happened_and_to_the_alert_that_was_missing(
    memory: Memory,
):
    memory.remember(
        messages=[
            {"speaker": "Ana", "text": "The nightly backup job filled the disk, which caused the "
             "checkout outage."},
            {"speaker": "Ana", "text": "A disk usage alert would have prevented the outage."},
        ]
    )  # fmt: skip
    roots = {c.steps[0].decision for c in memory.trace_cause_chain("the checkout outage").chains}
    assert roots == {"The nightly backup job filled the disk", NO_ALERT}
    assert memory.intervention_query("add a disk usage alert").verdict == "SAFE"
    assert memory.intervention_query("remove the disk usage alert").verdict == "DANGER"


def test_nothing_alerting_us_traces_back_to_the_alert_there_was_not(memory: Memory):
    tell(memory, "Nothing alerted us because there was no disk usage alert.")
    (chain,) = memory.trace_cause_chain("nothing alerted us").chains
    assert chain.steps[0].decision == "There was no disk usage alert."


@pytest.mark.parametrize(
    "said",
    [
        "A disk usage alert would prevent outages.",
        "A disk usage alert prevented the outage.",
        "A disk usage alert would not have prevented the outage.",
    ],
)
def test_no_alert_is_said_missing_where_none_was(said):
    """Only what would have prevented a failure that happened was missing: a measure that
    would prevent one (a plan), one that did, and one that would not have are no lack."""
    ex = extract([Message("m0", "Ana", said)], None)
    assert not [it.text for it in ex.items if it.text.lower().startswith("no ")]


# -- a measure with no article, and "without" ----------------------------------------------------


@pytest.mark.parametrize(
    ("said", "missing", "add", "remove"),
    [
        ("Rate limiting would have prevented the outage.", "No rate limiting",
         "add rate limiting", "remove rate limiting"),
        ("Disk usage alerts would have prevented the outage.", "No disk usage alerts",
         "add disk usage alerts", "remove the disk usage alerts"),
        ("Disk usage alerts would have caught the outage earlier.", "No disk usage alerts",
         "add disk usage alerts", "remove the disk usage alerts"),
    ],
)  # fmt: skip
def test_a_measure_told_with_no_article_is_missing_where_it_would_have_prevented_the_outage(
    memory: Memory, said, missing, add, remove
):
    tell(memory, said)
    roots = [c.steps[0].decision for c in memory.trace_cause_chain("the outage").chains]
    assert missing in roots
    assert memory.intervention_query(add).verdict == "SAFE"
    assert memory.intervention_query(remove).verdict == "DANGER"


def test_alerts_that_would_have_caught_it_earlier_were_missing_for_the_outage_told_before(
    memory: Memory,
):
    memory.remember(
        messages=[
            {"speaker": "Ana", "text": "The checkout outage lasted an hour."},
            {"speaker": "Ana", "text": "Disk usage alerts would have caught it earlier."},
        ]
    )
    roots = [c.steps[0].decision for c in memory.trace_cause_chain("the checkout outage").chains]
    assert roots == ["No disk usage alerts"]
    assert memory.intervention_query("add disk usage alerts").verdict == "SAFE"


@pytest.mark.parametrize(
    ("between", "measure"),
    [
        ("The migration ran without a review.", "A canary deploy would have caught it."),
        ("The deploy went out at 2am.", "A canary deploy would have caught it."),
        ("The migration ran without a review.", "A canary deploy would have prevented it."),
    ],
)
def test_what_a_measure_would_have_caught_is_the_failure_told_not_the_neutral_turn_after_it(
    memory: Memory, between, measure
):
    """ "A canary would have caught it": "it" is what went wrong, told a turn before the neutral
    remark that came between, not the remark."""
    memory.remember(
        messages=[
            {"speaker": "Dana", "text": "The nightly deploy broke the login page for two hours."},
            {"speaker": "Ben", "text": between},
            {"speaker": "Ben", "text": measure},
        ]
    )
    roots = [c.steps[0].decision for c in memory.trace_cause_chain("the login page broke").chains]
    assert "No canary deploy" in roots, roots
    answer = memory.intervention_query("add a canary deploy")
    assert answer.verdict == "SAFE", answer.evidence
    broke = [c for c in answer.consequences if "login page" in c.node.text]
    assert broke and all(c.activation < 0 for c in broke), answer.consequences
    nodes = {n.id: n.text for n in memory.store.find_nodes(limit=100)}
    averted = {nodes[e.dst] for e in memory.store.iter_edges() if e.relation == "prevented"}
    assert between not in averted, averted


def test_with_no_failure_told_what_a_measure_would_have_caught_is_the_turn_before(
    memory: Memory,
):
    memory.remember(
        messages=[
            {"speaker": "Dana", "text": "We shipped the release on Friday."},
            {"speaker": "Ben", "text": "A canary deploy would have caught it."},
        ]
    )
    nodes = {n.id: n.text for n in memory.store.find_nodes(limit=100)}
    prevented = [nodes[e.dst] for e in memory.store.iter_edges() if e.relation == "prevented"]
    assert prevented and all("shipped the release" in p for p in prevented), prevented


@pytest.mark.parametrize(
    "measure",
    [
        "That would have been caught by a canary deploy.",
        "That would've been caught by a canary deploy.",
        "It would have been detected by a canary deploy.",
        "The outage would have been stopped by a canary deploy.",
        "It could have been caught earlier by a canary deploy.",
        "That could have been avoided by a canary deploy.",
        "That would've been prevented by a canary deploy.",
    ],
)
def test_a_failure_a_canary_would_have_caught_traces_back_to_the_missing_canary(
    memory: Memory, measure
):
    """Told in the passive, as "would have been prevented by" is: the canary was missing."""
    memory.remember(
        messages=[
            {"speaker": "Dana", "text": "The checkout outage lasted an hour."},
            {"speaker": "Ben", "text": measure},
        ]
    )
    roots = [c.steps[0].decision for c in memory.trace_cause_chain("the checkout outage").chains]
    assert roots == ["No canary deploy"]
    assert memory.intervention_query("add a canary deploy").verdict == "SAFE"
    assert memory.intervention_query("remove the canary deploy").verdict == "DANGER"


@pytest.mark.parametrize(
    "said",
    [
        "The bug was caught by a canary deploy.",
        "It would not have been caught by a canary deploy.",
    ],
)
def test_no_lack_where_a_canary_caught_it_or_would_not_have(memory: Memory, said):
    memory.remember(
        messages=[
            {"speaker": "Dana", "text": "The checkout outage lasted an hour."},
            {"speaker": "Ben", "text": said},
        ]
    )
    assert not [n.text for n in memory.store.find_nodes(limit=100) if n.text.startswith("No ")]


@pytest.mark.parametrize(
    "said",
    [
        "The disk usage alert caught the outage.",
        "Disk usage alerts wouldn't have caught the outage.",
        "Nothing would have caught the outage.",
        "More testing would have prevented the outage.",
        "Ben would have caught the outage.",
    ],
)
def test_no_lack_where_a_measure_caught_it_would_not_have_or_is_none(said):
    """An alert that did catch the outage, one that would not have, "nothing" and a person are
    no missing measure; "more testing" is more of what was there, not a lack of it."""
    ex = extract([Message("m0", "Ana", said)], None)
    assert not [it.text for it in ex.items if it.text.lower().startswith("no ")]


OUTAGE_WITHOUT = [
    "Without a disk usage alert, the outage went unnoticed for an hour.",
    "The outage went unnoticed without a disk usage alert.",
]


@pytest.mark.parametrize("said", OUTAGE_WITHOUT)
def test_an_outage_that_went_unnoticed_without_an_alert_traces_back_to_the_missing_alert(
    memory: Memory, said
):
    tell(memory, said)
    roots = [c.steps[0].decision for c in memory.trace_cause_chain("the outage").chains]
    assert roots == [NO_ALERT]
    assert memory.intervention_query("add a disk usage alert").verdict == "SAFE"
    assert memory.intervention_query("remove the disk usage alert").verdict == "DANGER"


def test_an_api_that_fell_over_without_rate_limiting_traces_back_to_its_lack(memory: Memory):
    tell(memory, "Without rate limiting, the public API fell over.")
    roots = [
        c.steps[0].decision for c in memory.trace_cause_chain("the public API fell over").chains
    ]
    assert roots == ["No rate limiting"]


@pytest.mark.parametrize(
    "said",
    [
        # a manner
        "Without warning, the server crashed.",
        "The server crashed without warning.",
        "Without a doubt, the deploy failed.",
        "The deploy failed without a doubt.",
        "Without delay, the cluster went down.",
        "The migration finished without a hitch.",
        "The build failed without errors.",
        # a person
        "The server crashed without me.",
        "Without you, I was lost.",
        "Without the kids, I felt lost.",
        "Without my wife, I felt lost.",
        # a time
        "Without lunch, I was exhausted.",
        # nothing that went wrong, what to do, or what will be
        "Without the kids, we went to dinner.",
        "Without a disk usage alert, check the dashboard.",
        "Without a disk usage alert, the outage will go unnoticed.",
        "Did the outage go unnoticed without a disk usage alert?",
    ],
)
def test_without_a_manner_a_person_or_a_time_nothing_was_missing(said):
    ex = extract([Message("m0", "Ana", said)], None)
    assert not [it.text for it in ex.items if it.text.lower().startswith("no ")]
    assert [ln for ln in ex.links if ln.relation in ("enabled", "prevented")] == []


def test_a_missing_measure_named_after_a_product_keeps_the_products_name(memory: Memory):
    memory.remember(
        messages=[
            {"speaker": "Ana", "text": "We keep checkout sessions in Redis."},
            {"speaker": "Ana", "text": "Redis caching would have prevented the outage."},
        ]
    )
    roots = [c.steps[0].decision for c in memory.trace_cause_chain("the outage").chains]
    assert roots == ["No Redis caching"]


@pytest.mark.parametrize(
    ("told", "measure", "what_followed"),
    [
        (
            "The nightly deploy broke the login page for two hours.",
            "A canary deploy would have caught it.",
            "40 support tickets from customers.",
        ),
        (
            "The checkout outage lasted an hour.",
            "A disk usage alert would have prevented the outage.",
            "An angry escalation from Acme.",
        ),
    ],
)
def test_what_followed_a_measure_that_would_have_helped_came_of_the_failure_not_the_measure(
    memory: Memory, told, measure, what_followed
):
    """What "That led to …" after "A canary would have caught it" tells, the failure led to:
    the canary was never there, so it caused nothing; its lack, the root, is traced to the
    tickets through the failure."""
    led_to = f"That led to {what_followed[0].lower()}{what_followed[1:]}"
    memory.remember(
        messages=[
            {"speaker": "Dana", "text": told},
            {"speaker": "Ben", "text": measure},
            {"speaker": "Dana", "text": led_to},
        ]
    )
    chains = memory.trace_cause_chain(what_followed).chains
    seen = [[c.steps[0].decision, *(s.outcome for s in c.steps)] for c in chains]
    thing = measure.split(" would ")[0]
    assert all(chain[0] != thing for chain in seen), seen
    assert any(chain[0] == f"No {thing[2:]}" and len(chain) == 3 for chain in seen), seen


# -- what was done without a measure, and went wrong ----------------------------------------------


@pytest.mark.parametrize(
    ("said", "done", "missing"),
    [
        ("We shipped the release without tests, which caused the outage.",
         "Ana and others shipped the release without tests", "No tests"),
        ("We deployed without a canary, which caused the outage.",
         "Ana and others deployed without a canary", "No canary"),
        ("Shipping without a rollback plan caused the outage.",
         "Shipping without a rollback plan", "No rollback plan"),
    ],
)  # fmt: skip
def test_an_outage_caused_by_shipping_without_a_measure_traces_back_to_its_lack_too(
    memory: Memory, said, done, missing
):
    tell(memory, said)
    roots = {
        c.steps[0].decision: c.steps[0].relation
        for c in memory.trace_cause_chain("the outage").chains
    }
    assert roots == {done: "caused", missing: "enabled"}


@pytest.mark.parametrize(
    "said",
    [
        "We shipped the release without a hitch, which caused a celebration.",
        "We shipped the release without Ben, which caused the outage.",
        "We shipped the release without downtime, which pleased everyone.",
    ],
)
def test_what_was_done_without_a_manner_a_person_or_to_good_effect_lacked_nothing(said):
    ex = extract([Message("m0", "Ana", said)], None)
    assert not [it.text for it in ex.items if it.text.lower().startswith("no ")]


# -- what was done, and the failure that followed -------------------------------------------------


@pytest.mark.parametrize(
    "turns",
    [
        ["We deployed without a canary and the outage followed."],
        ["We deployed without a canary, and an outage followed."],
        ["We deployed without a canary.", "Then the outage followed."],
    ],
)
def test_the_outage_that_followed_a_deploy_without_a_canary_traces_back_to_both(
    memory: Memory, turns
):
    memory.remember(messages=[{"speaker": "Ana", "text": t} for t in turns])
    chains = memory.trace_cause_chain("the outage").chains
    roots = {c.steps[0].decision.rstrip(".") for c in chains}
    assert "Ana and others deployed without a canary" in roots, roots
    assert "No canary" in roots, roots
    assert memory.intervention_query("add a canary").verdict == "SAFE"


@pytest.mark.parametrize(
    "turns",
    [
        ["I followed my dreams and moved to Lisbon."],
        ["We had dinner and a movie followed."],
        ["John had an intense game followed by an exhilarating win."],
        ["The outage started at 9.", "Then the postmortem followed."],
        ["Checkout went down at noon.", "Then another outage followed."],
    ],
)
def test_what_followed_no_doing_or_went_nowhere_wrong_links_nothing(memory: Memory, turns):
    memory.remember(messages=[{"speaker": "Ana", "text": t} for t in turns])
    assert not [
        e for e in memory.store.iter_edges() if e.relation in ("caused", "enabled", "prevented")
    ]


# -- what was done, and the failure that came of it "as a result" ---------------------------------


@pytest.mark.parametrize(
    ("said", "failure"),
    [
        ("We skipped the load test and the site went down as a result.", "the site went down"),
        ("We skipped the load test and checkout broke as a result.", "checkout broke"),
        ("We skipped the load test and we lost data as a result.", "we lost data"),
    ],
)
def test_a_failure_that_came_of_skipping_the_load_test_as_a_result_traces_back_to_it(
    memory: Memory, said, failure
):
    tell(memory, said)
    roots = {
        c.steps[0].decision: c.steps[0].relation for c in memory.trace_cause_chain(failure).chains
    }
    assert roots == {"Ana and others skipped the load test": "caused"}


def test_checkout_that_broke_as_a_result_of_deploying_without_a_canary_traces_back_to_both(
    memory: Memory,
):
    tell(memory, "We deployed without a canary and checkout broke as a result.")
    roots = {
        c.steps[0].decision: c.steps[0].relation
        for c in memory.trace_cause_chain("checkout broke").chains
    }
    assert roots == {"Ana and others deployed without a canary": "caused", "No canary": "enabled"}
    assert memory.intervention_query("add a canary").verdict == "SAFE"


def test_what_was_done_without_a_hitch_and_went_well_as_a_result_lacked_nothing(memory: Memory):
    tell(memory, "We deployed without a hitch and checkout recovered as a result.")
    assert not [n.text for n in memory.store.find_nodes(limit=100) if n.text.startswith("No ")]


# -- one lack, however it is told ------------------------------------------------------------

CANARY_MISSING = ["No canary was run", "There was no canary", "We had no canary"]


def _lacks_of_a_canary(memory: Memory) -> list[str]:
    return [n.id for n in memory.store.find_nodes(limit=100) if absent(n.text) == ["canary"]]


@pytest.mark.parametrize("form", [*CANARY_MISSING, "We deployed without a canary"])
def test_a_missing_canary_told_in_other_words_is_the_one_lack_the_outage_traces_back_to(
    memory: Memory, form
):
    memory.remember(
        messages=[
            {"speaker": "Ana", "text": "The checkout outage lasted an hour."},
            {"speaker": "Ana", "text": f"{form}, which caused the checkout outage."},
        ]
    )
    memory.remember(
        messages=[{"speaker": "Ben", "text": "A canary would have prevented the checkout outage."}]
    )
    (lack,) = _lacks_of_a_canary(memory)
    roots = [c.steps[0] for c in memory.trace_cause_chain("the checkout outage").chains]
    assert lack in {r.decision_id for r in roots}, [r.decision for r in roots]
    answer = memory.intervention_query("add a canary deploy")
    assert answer.verdict == "SAFE", answer.evidence
    assert lack in [n.id for n in answer.matched]
    outage = [c for c in answer.consequences if "outage" in c.node.text]
    assert outage and all(c.activation < 0 for c in outage), answer.consequences


@pytest.mark.parametrize("form", CANARY_MISSING)
def test_recording_a_missing_canary_in_other_words_is_the_lack_told_before(memory: Memory, form):
    memory.remember(
        messages=[{"speaker": "Ben", "text": "A canary would have prevented the checkout outage."}]
    )
    record = memory.record_decision(form, "The checkout outage")
    assert _lacks_of_a_canary(memory) == [record.decision.id]


@pytest.mark.parametrize("form", CANARY_MISSING)
def test_a_lack_recorded_first_is_the_one_a_postmortem_tells_later(memory: Memory, form):
    record = memory.record_decision("No canary", "The checkout outage")
    memory.remember(messages=[{"speaker": "Ana", "text": f"{form}, which caused the outage."}])
    assert _lacks_of_a_canary(memory) == [record.decision.id]
    answer = memory.intervention_query("add a canary deploy")
    assert answer.verdict == "SAFE", answer.evidence
    assert [n.id for n in answer.matched] == [record.decision.id]


@pytest.mark.parametrize(
    ("said", "plainly"),
    [
        ("No canary was run", "No canary"),
        ("No tests were written for the migration", "No tests"),
        ("No disk usage alert had been set up", "No disk usage alert"),
        ("No canary was in place", "No canary"),
        ("No review was done before the deploy", "No review"),
    ],
)
def test_a_measure_told_as_not_done_is_the_lack_told_plainly(said, plainly):
    assert absent(said) is not None
    assert absent(said) == absent(plainly)


@pytest.mark.parametrize(
    "said",
    [
        "No one came",
        "No one was paged",
        "No, we shipped it",
        "No data was lost",
        "No customers were affected",
        "No deploy broke it",
    ],
)
def test_what_did_not_happen_or_a_no_that_answers_is_no_lack(said):
    assert absent(said) is None

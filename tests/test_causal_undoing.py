"""Undoing a measure that prevented a failure brings the failure back: a postmortem that says
an alert prevented (or would have prevented) an outage makes removing that alert dangerous,
and keeping or adding it safe."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from ebbtide import Memory, sameness
from ebbtide.ingest import ingest_markdown_folder

PREVENTED = "# Postmortem\n\nThe disk usage alert prevented a full outage last month.\n"
WOULD_HAVE = (
    "# Postmortem: checkout outage\n\nThe nightly backup job filled the disk, which caused "
    "the checkout outage.\n\n## Action items\n\n- A disk usage alert would have prevented the "
    "outage.\n"
)
TAKING_AWAY = (
    "remove the disk usage alert",
    "disable the disk usage alert",
    "drop the disk usage alert",
    "turn off the disk usage alert",
    "delete the disk usage alert",
    "skip the disk usage alert",
    "should we remove the disk usage alert?",
)


def ingest(memory: Memory, tmp_path, text: str) -> None:
    folder = tmp_path / "notes"
    folder.mkdir()
    (folder / "postmortem.md").write_text(text, encoding="utf-8")
    ingest_markdown_folder(memory, folder)


@pytest.mark.parametrize("note", [PREVENTED, WOULD_HAVE], ids=["prevented", "would-have"])
@pytest.mark.parametrize("ask", TAKING_AWAY)
def test_removing_the_alert_a_postmortem_credits_with_preventing_the_outage_is_danger(
    memory: Memory, tmp_path, note, ask
):
    ingest(memory, tmp_path, note)
    answer = memory.intervention_query(ask)
    assert answer.verdict == "DANGER", answer.evidence
    outage = next(c for c in answer.consequences if "outage" in c.node.text)
    assert outage.activation > 0, "the outage follows the removal; it is not prevented"
    assert [s.relation for s in outage.path] == ["prevented"]
    assert answer.evidence[0].startswith("undoes: ") and "disk usage alert" in answer.evidence[0]


@pytest.mark.parametrize("note", [PREVENTED, WOULD_HAVE], ids=["prevented", "would-have"])
@pytest.mark.parametrize(
    "ask", ["keep the disk usage alert", "add a disk usage alert", "don't remove the alert"]
)
def test_keeping_or_adding_the_alert_that_prevented_the_outage_is_safe(
    memory: Memory, tmp_path, note, ask
):
    ingest(memory, tmp_path, note)
    answer = memory.intervention_query(ask)
    assert answer.verdict == "SAFE", answer.evidence
    assert not any(e.startswith("undoes: ") for e in answer.evidence)


def test_removing_an_alert_told_in_a_chat_to_have_prevented_an_outage_is_danger(memory):
    memory.remember(
        messages=[
            {"speaker": "Ana", "text": "The disk usage alert prevented a full outage last month."}
        ]
    )
    assert memory.intervention_query("remove the disk usage alert").verdict == "DANGER"
    assert memory.intervention_query("keep the disk usage alert").verdict == "SAFE"


def test_removing_what_was_added_to_prevent_a_failure_brings_the_failure_and_what_it_causes(
    memory: Memory,
):
    """Recorded as an action ("Added …"), the opposite verb undoes it; the failure it prevented
    follows the undoing, and so does what that failure causes."""
    added = memory.record_decision(
        "Added a disk usage alert", "Full outage of the database host", "prevented"
    )
    memory.record_decision("Full outage of the database host", "Orders were lost", "caused")
    answer = memory.intervention_query("remove the disk usage alert")
    assert [n.id for n in answer.matched] == [added.decision.id]
    assert answer.verdict == "DANGER"
    acts = {c.node.text: c.activation for c in answer.consequences}
    assert acts["Full outage of the database host"] > 0 and acts["Orders were lost"] > 0
    assert memory.intervention_query("add a disk usage alert").verdict == "SAFE"


def test_a_measure_linked_as_preventing_an_outage_is_dangerous_to_disable(memory: Memory):
    alert = memory.remember("The disk usage alert", kind="decision")
    outage = memory.remember("Checkout outage from a full disk", kind="outcome")
    memory.connect(alert.id, outage.id, "prevented", 0.8)
    assert memory.intervention_query("disable the disk usage alert").verdict == "DANGER"
    assert memory.intervention_query("enable the disk usage alert").verdict == "SAFE"


def test_undoing_a_cause_says_nothing_of_what_it_caused(memory: Memory):
    """Only what a measure prevented comes back when it is undone: that the alert paged the
    on-call engineer at night does not make removing it good for them, and a measure with no
    recorded prevention is unknown to undo."""
    memory.record_decision(
        "Added a disk usage alert", "Full outage of the database host", "prevented"
    )
    memory.record_decision("Added a disk usage alert", "The on-call engineer was paged at 3am")
    answer = memory.intervention_query("remove the disk usage alert")
    assert [c.node.text for c in answer.consequences] == ["Full outage of the database host"]
    memory.record_decision("Added a retry budget", "Checkout latency doubled")
    assert memory.intervention_query("remove the retry budget").verdict == "UNKNOWN"


def test_the_prediction_that_removing_the_alert_is_dangerous_holds_when_the_alert_helps_again(
    memory: Memory, clock
):
    """Removing it is dangerous because the alert is good: that is the prediction logged, and
    the alert preventing another outage later bears it out."""
    memory.record_decision("The disk usage alert", "Full outage of the database host", "prevented")
    pid = memory.intervention_query("remove the disk usage alert").prediction_id
    clock.advance(days=3)
    memory.record_decision("The disk usage alert", "Search outage from a full disk", "prevented")
    (item,) = [p for p in memory.prediction_report().items if p.prediction_id == pid]
    assert item.status == "correct"


def test_keep_or_remove_the_alert_prefers_keeping_it(memory: Memory, tmp_path):
    ingest(memory, tmp_path, PREVENTED)
    answer = memory.counterfactual_query("remove the disk usage alert", "keep the disk usage alert")
    assert answer.preferred == "alternative"
    assert answer.decision.bad > 0 and answer.alternative.protective > 0


def test_disabling_what_was_added_to_prevent_a_failure_undoes_it(memory: Memory):
    """ "disable" is no listed opposite of "add", but it takes away what adding put there."""
    memory.record_decision(
        "Added a disk usage alert", "Full outage of the database host", "prevented"
    )
    answer = memory.intervention_query("disable the disk usage alert")
    assert answer.verdict == "DANGER"
    assert answer.evidence[0] == "undoes: Added a disk usage alert (what it prevented follows)"


@pytest.mark.parametrize(
    ("asked", "recorded", "undone"),
    [
        ("remove the disk usage alert", "The disk usage alert", True),
        ("turn off the alert", "A disk usage alert on the database host", True),
        ("don't keep the alert", "The disk usage alert", True),
        ("keep the disk usage alert", "The disk usage alert", False),
        ("don't remove the alert", "The disk usage alert", False),
        ("remove the retry budget", "The disk usage alert", False),
        ("remove the disk usage alert", "Added a disk usage alert", True),
        ("disable the alert", "We added a disk usage alert", True),
        ("don't add the alert", "Added the alert", True),
        ("add the alert", "Added the alert", False),
        # A passive tells an action, not a thing that is there.
        ("skip the canary deploy", "the canary deploy was skipped", False),
    ],
)
def test_an_action_undoes_a_recorded_one_that_it_takes_away(asked, recorded, undone):
    assert sameness.undoes(asked, recorded) is undone
    if undone:
        assert not sameness.same_choice(asked, recorded)


# Words to say anything with: negations, lacks, verbs that take away or put there.
SAID_WORDS = ["The", "the", "a", "No", "no", "not", "didn't", "without", "having", "missing",
    "stop", "skip", "remove", "disable", "keep", "add", "added", "run", "turn", "off", "button",
    "list", "alert", "canary", "Ana", "was", "had"]  # fmt: skip
# ... and a noun named after a verb that takes it away, which reads as a thing and as an action
# at once ("The stop button": a button, or stopping it).
SAID = st.one_of(
    st.lists(st.sampled_from(SAID_WORDS), min_size=1, max_size=6).map(" ".join),
    st.builds(
        "{} {} {}".format,
        st.sampled_from(["The", "A", "our"]),
        st.sampled_from(["stop", "skip", "remove", "disable", "drop", "delete"]),
        st.sampled_from(["button", "list", "alert", "key", "no"]),
    ),
)


@given(SAID, st.booleans())
def test_no_words_undo_themselves(said, shout):
    """The same words are the same choice however they read ("The stop button" is no stopping
    of the button asked about), so nothing undoes what it itself says."""
    again = said.upper() + "!" if shout else said
    assert not sameness.undoes(said, again)
    assert sameness.same_choice(said, again)


def test_asking_about_a_measure_in_its_own_words_lists_it_once_and_undoes_nothing(
    memory: Memory,
):
    """ "The stop button" reads as a button and as stopping it; asked about in its own words, it
    is the measure kept, not taken away as well."""
    memory.record_decision("The stop button", "Data loss in the orders table", relation="prevented")
    answer = memory.intervention_query("the stop button")
    assert [n.text for n in answer.matched] == ["The stop button"]
    assert not any(e.startswith("undoes: ") for e in answer.evidence), answer.evidence
    (loss,) = answer.consequences
    assert loss.activation < 0, "the data loss is prevented, not brought about"
    assert answer.verdict == "SAFE", answer.evidence
    kept = memory.counterfactual_query("the stop button", "remove the stop button")
    assert [n.text for n in kept.decision.undoes] == []
    assert [n.text for n in kept.alternative.undoes] == ["The stop button"]
    assert kept.preferred == "decision"


# A measure told without "the", "a" or "our": its capitalised first word opens the sentence, it
# names no one.
BARE_MEASURES = [
    (
        "Disk usage alerts prevented a full outage.",
        "Disk usage alerts",
        "remove the disk usage alerts",
        "keep the disk usage alerts",
    ),
    (
        "Having a disk quota alarm prevented the outage.",
        "Having a disk quota alarm",
        "remove the disk quota alarm",
        "keep the disk quota alarm",
    ),
    (
        "Rate limiting prevented a meltdown during the launch.",
        "Rate limiting",
        "turn off rate limiting",
        "turn on rate limiting",
    ),
    (
        "Circuit breakers stopped the cascade.",
        "Circuit breakers",
        "remove the circuit breakers",
        "add circuit breakers",
    ),
]


@pytest.mark.parametrize(("said", "measure", "undo", "keep"), BARE_MEASURES)
def test_undoing_a_measure_told_without_an_article_brings_back_what_it_prevented(
    memory: Memory, tmp_path, said, measure, undo, keep
):
    ingest(memory, tmp_path, f"# Postmortem\n\n{said}\n")
    answer = memory.intervention_query(undo)
    assert answer.verdict == "DANGER", answer.evidence
    assert answer.evidence[0] == f"undoes: {measure} (what it prevented follows)"
    kept = memory.intervention_query(keep)
    assert kept.verdict == "SAFE", kept.evidence
    assert not any(e.startswith("undoes: ") for e in kept.evidence)


@pytest.mark.parametrize(("said", "measure", "undo", "keep"), BARE_MEASURES)
def test_a_measure_told_without_an_article_in_a_chat_is_the_measure_not_a_person(
    memory: Memory, said, measure, undo, keep
):
    memory.remember(messages=[{"speaker": "Ana", "text": said}])
    answer = memory.intervention_query(undo)
    assert answer.verdict == "DANGER", answer.evidence
    assert answer.evidence[0] == f"undoes: {measure} (what it prevented follows)"
    assert memory.intervention_query(keep).verdict == "SAFE"


def test_a_person_who_prevented_an_outage_is_no_measure_to_remove(memory: Memory, tmp_path):
    ingest(memory, tmp_path, "# Postmortem\n\nDana prevented the outage by rolling back.\n")
    answer = memory.intervention_query("remove Dana")
    assert answer.verdict != "DANGER", answer.evidence
    assert not any(e.startswith("undoes: ") for e in answer.evidence)


def test_a_speaker_named_before_what_they_did_is_someone_acting_not_a_measure(memory: Memory):
    """ "Dana monitoring" could be a thing's name, but Dana speaks in this memory: Dana was
    monitoring, and removing Dana undoes no measure."""
    memory.remember(
        messages=[
            {"speaker": "Dana", "text": "I kept an eye on the dashboards all night."},
            {"speaker": "Ana", "text": "Dana monitoring prevented the outage."},
        ]
    )
    answer = memory.intervention_query("remove Dana")
    assert not any(e.startswith("undoes: ") for e in answer.evidence), answer.evidence
    assert answer.verdict != "DANGER"


@pytest.mark.parametrize(
    ("asked", "recorded", "people", "undone"),
    [
        ("remove the disk usage alerts", "Disk usage alerts", (), True),
        ("turn off rate limiting", "Rate limiting", (), True),
        ("remove the circuit breakers", "Circuit breakers on the payment calls", (), True),
        ("remove the alarm", "Having a disk quota alarm", (), True),
        ("keep rate limiting", "Rate limiting", (), False),
        ("remove the circuit breakers", "Restarting the circuit breakers", (), False),
        ("remove the workers", "Kai restarted the workers", (), False),
        ("remove Dana", "Dana monitoring", ("Dana",), False),
        ("remove Dana", "Dana Scully", (), False),
    ],
)
def test_a_measure_told_as_a_bare_noun_phrase_is_a_thing_there(asked, recorded, people, undone):
    assert sameness.undoes(asked, recorded, people) is undone

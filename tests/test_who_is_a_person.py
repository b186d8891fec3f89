"""A capitalised word that starts a sentence is a person only when it may name one: someone who
speaks, someone the memory knows, or a word shaped as a name. A measure told in one word
("Monitoring", "Canaries"), or a tool ("Kafka", "Jenkins"), is a thing: what would have
prevented an outage was missing, and no one is made of a build server."""

from __future__ import annotations

import pytest

from ebbtide import Memory
from ebbtide.extract import extract
from ebbtide.transcript import Message


def people(memory: Memory) -> set[str]:
    return {n.text for n in memory.store.find_nodes(kind="person")}


def roots(memory: Memory, what: str) -> list[str]:
    return [c.steps[0].decision for c in memory.trace_cause_chain(what).chains]


# -- a measure or a tool told in one word -------------------------------------------------------


@pytest.mark.parametrize(
    ("said", "failure", "missing", "remove"),
    [
        # a gerund
        ("Monitoring would have prevented the outage.", "the outage", "No monitoring",
         "remove monitoring"),
        ("Caching would have prevented the outage.", "the outage", "No caching",
         "remove caching"),
        ("Alerting would have prevented the outage.", "the outage", "No alerting",
         "disable alerting"),
        # a plural noun
        ("Backups would have prevented the data loss.", "the data loss", "No backups",
         "remove the backups"),
        ("Retries would have prevented the outage.", "the outage", "No retries",
         "remove retries"),
        # a tool, which keeps its name's spelling
        ("Kafka would have prevented the data loss.", "the data loss", "No Kafka",
         "remove Kafka"),
    ],
)  # fmt: skip
def test_a_measure_told_in_one_word_was_missing_where_it_would_have_prevented_the_failure(
    memory: Memory, said, failure, missing, remove
):
    memory.remember(messages=[{"speaker": "Ana", "text": said}])
    assert missing in roots(memory, failure)
    assert memory.intervention_query(remove).verdict == "DANGER"


def test_canaries_that_would_have_caught_the_outage_told_before_were_missing(memory: Memory):
    memory.remember(
        messages=[
            {"speaker": "Ana", "text": "The checkout outage lasted an hour."},
            {"speaker": "Ana", "text": "Canaries would have caught it."},
        ]
    )
    assert roots(memory, "the checkout outage") == ["No canaries"]
    assert memory.intervention_query("remove canaries").verdict == "DANGER"
    assert memory.intervention_query("add canaries").verdict == "SAFE"


@pytest.mark.parametrize(
    "said",
    [
        "Jenkins and I fixed the build.",
        "Me and Jenkins fixed the build.",
        "Yesterday Jenkins and I fixed the build.",
        "Jenkins said the build was fixed.",
    ],
)
def test_a_build_server_named_beside_a_person_is_no_person(memory: Memory, said):
    memory.remember(messages=[{"speaker": "Ana", "text": said}])
    assert "Jenkins" not in people(memory)


def test_a_broker_named_with_a_colleague_leaves_the_colleague_alone_a_person(memory: Memory):
    memory.remember(
        messages=[{"speaker": "Ana", "text": "Kafka and Ben told me the lag was fixed."}]
    )
    assert people(memory) == {"Ana", "Ben"}


def test_what_a_tool_did_is_something_that_happened_not_someones_doing():
    ex = extract([Message("m0", "Ana", "Kafka dropped messages, which caused the outage.")])
    kinds = {it.text: it.kind for it in ex.items}
    assert kinds["Kafka dropped messages"] == "event"
    person = extract([Message("m0", "Ana", "Esme dropped the table, which caused the outage.")])
    assert {it.text: it.kind for it in person.items}["Esme dropped the table"] == "decision"


# -- real people, named by words ----------------------------------------------------------------


def test_a_speaker_named_rose_who_fixed_the_build_stays_a_person(memory: Memory):
    memory.remember(
        messages=[
            {"speaker": "Ana", "text": "Who fixed the build?"},
            {"speaker": "Rose", "text": "Rose fixed the build, with a bit of help."},
        ]
    )
    assert "Rose" in people(memory)
    assert roots(memory, "the build") == []


def test_will_who_speaks_and_fixed_it_with_me_stays_a_person(memory: Memory):
    memory.remember(
        messages=[
            {"speaker": "Will", "text": "Is the build green again?"},
            {"speaker": "Ana", "text": "Yes! Will and I fixed it."},
        ]
    )
    assert people(memory) == {"Ana", "Will"}


@pytest.mark.parametrize("name", ["Miles", "Sterling", "Rose"])
def test_a_speaker_who_would_have_caught_the_outage_is_no_missing_measure(memory: Memory, name):
    """ "Miles" is shaped as a plural and "Sterling" as a gerund, but they speak here."""
    memory.remember(
        messages=[
            {"speaker": name, "text": "I was off that week."},
            {"speaker": "Ana", "text": f"{name} would have caught the outage."},
        ]
    )
    assert not [r for r in roots(memory, "the outage") if r.startswith("No ")]


@pytest.mark.parametrize("name", ["Miles", "Sterling", "Rose"])
def test_someone_the_memory_knows_is_no_missing_measure_in_a_later_conversation(
    memory: Memory, name
):
    memory.remember(messages=[{"speaker": name, "text": "I'm on call this week."}])
    memory.remember(messages=[{"speaker": "Ana", "text": f"{name} would have caught the outage."}])
    assert not [r for r in roots(memory, "the outage") if r.startswith("No ")]


def test_someone_the_memory_knows_and_i_fixed_the_build_names_them(memory: Memory):
    memory.remember(messages=[{"speaker": "Sterling", "text": "I'm on call this week."}])
    memory.remember(messages=[{"speaker": "Ana", "text": "Sterling and I fixed the build."}])
    assert people(memory) == {"Ana", "Sterling"}


# -- a colleague named as a month ---------------------------------------------------------------


def items(memory: Memory) -> list[tuple[str, str]]:
    return [(n.kind, n.text) for n in memory.store.find_nodes(limit=100) if n.kind != "person"]


@pytest.mark.parametrize("name", ["May", "June", "April"])
def test_a_speaker_named_as_a_month_who_fixed_the_build_with_me_is_who_acted(memory: Memory, name):
    memory.remember(
        messages=[
            {"speaker": name, "text": "Is the build green again?"},
            {
                "speaker": "Ana",
                "text": f"{name} and I fixed the build, which unblocked the release.",
            },
        ]
    )
    stored = items(memory)
    assert ("decision", f"{name} and Ana fixed the build") in stored
    assert not [text for _, text in stored if text in (f"{name} and Ana fixed", "The build")]
    assert people(memory) == {"Ana", name}
    assert roots(memory, "the release") == [f"{name} and Ana fixed the build"]


def test_someone_the_memory_knows_as_may_fixed_the_build_in_a_later_conversation(
    memory: Memory,
):
    memory.remember(messages=[{"speaker": "May", "text": "I'm on call this week."}])
    memory.remember(
        messages=[
            {"speaker": "Ana", "text": "May and I fixed the build, which unblocked the release."}
        ]
    )
    assert roots(memory, "the release") == ["May and Ana fixed the build"]
    assert people(memory) == {"Ana", "May"}


def test_months_no_one_here_is_named_stay_months(memory: Memory):
    memory.remember(messages=[{"speaker": "Ana", "text": "May and June were busy months."}])
    assert items(memory) == [("note", "May and June were busy months.")]
    assert people(memory) <= {"Ana"}


def test_a_month_someone_is_named_still_tells_when_after_in(memory: Memory):
    memory.remember(
        messages=[
            {"speaker": "May", "text": "Is the build green again?"},
            {"speaker": "Ana", "text": "In May we fixed the build, which unblocked the release."},
        ],
        date="2026-03-01",
    )
    assert roots(memory, "the release") == ["In May (May 2025) Ana and others fixed the build"]

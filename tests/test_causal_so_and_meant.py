""" ", so …" and "… meant …" tell what came of a choice whatever form its past tense takes
("so onboarding took minutes", not only "so onboarding dropped"), and "meant" takes a subject
with no determiner ("meant onboarding took minutes"), as "As a result, …" always did."""

from __future__ import annotations

import pytest

from ebbtide.extract import CAUSAL, extract
from ebbtide.transcript import Message


def causal_links(said: str) -> list[tuple[str, str, str]]:
    ex = extract([Message("m0", "Lena", said)], None)
    return [
        (ex.items[ln.src].text, ln.relation, ex.items[ln.dst].text)
        for ln in ex.links
        if ln.relation in CAUSAL
    ]


@pytest.mark.parametrize(
    ("said", "link"),
    [
        (
            "We switched the CLI to SQLite, so onboarding took minutes.",
            ("Lena and others switched the CLI to SQLite", "caused", "Onboarding took minutes."),
        ),
        (
            "The backup job filled the disk, so checkout went down.",
            ("The backup job filled the disk", "caused", "Checkout went down."),
        ),
        (
            "Using SQLite for the CLI meant onboarding took minutes.",
            ("Using SQLite for the CLI", "caused", "Onboarding took minutes."),
        ),
    ],
)
def test_an_irregular_past_or_a_bare_subject_after_the_cue_is_what_came_of_it(said, link):
    assert causal_links(said) == [link]


@pytest.mark.parametrize(
    "said",
    [
        "It meant a lot to me.",
        "By Tuesday I meant the deploy was postponed.",
        "Wow, so good we went back twice.",
    ],
)
def test_what_meant_much_or_what_someone_meant_is_still_no_cause(said):
    assert causal_links(said) == []


@pytest.mark.parametrize(
    "said",
    [
        "We switched the CLI to SQLite, so onboarding took minutes.",
        "Using SQLite for the CLI meant onboarding took minutes.",
    ],
)
def test_what_a_choice_led_to_told_so_answers_what_doing_it_again_does(memory, said):
    memory.remember(messages=[{"speaker": "Lena", "text": said}], date="2026-03-01")
    result = memory.intervention_query("use SQLite for the CLI")
    assert result.verdict == "SAFE"
    assert any("Onboarding took minutes" in c.node.text for c in result.consequences)

"""How every answer writes a lesson: "cause -relation-> effect", or the effect alone when the
effect's sentence already opens with its cause."""

import pytest

from ebbtide.text import link_line


def test_a_lesson_is_written_cause_relation_effect():
    assert (
        link_line("Skipped the canary", "caused", "The login page broke.")
        == "Skipped the canary -caused-> The login page broke."
    )


@pytest.mark.parametrize(
    ("cause", "effect"),
    [
        ("The nightly deploy", "The nightly deploy broke the login page for two hours."),
        ("the nightly deploy.", "The nightly deploy broke the login page."),
    ],
)
def test_an_effect_whose_subject_is_its_cause_stands_alone(cause, effect):
    assert link_line(cause, "caused", effect, None) == effect


@pytest.mark.parametrize(
    ("cause", "effect"),
    [
        ("Redis", "We moved off Redis after the outage."),
        ("The deploy", "The deployment pipeline stalled."),
    ],
)
def test_a_cause_named_later_or_only_as_a_word_prefix_keeps_its_arrow(cause, effect):
    assert link_line(cause, "caused", effect, None) == f"{cause} -caused-> {effect}"

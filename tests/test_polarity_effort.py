"""Outcomes told as speed, size or effort going one way or the other: "onboarding took
minutes", "zero setup", "dropped to 40 ms" are good; "took three days", "setup was painful",
"ballooned to 2 GB" are bad; a time or a place told for its own sake ("the meeting took an
hour", "we set it up in May") is no verdict."""

from __future__ import annotations

import pytest

from ebbtide.polarity import outcome_polarity


def label(text: str) -> str:
    return outcome_polarity(text).label


# -- how long it took -------------------------------------------------------------------------


@pytest.mark.parametrize(
    "text",
    [
        "Onboarding took minutes.",
        "Onboarding took minutes instead of hours.",
        "It took a few minutes to set up.",
        "Builds now finish in seconds.",
        "A fresh laptop is ready within minutes.",
        "Responses come back in under a second.",
        "Page loads are under a second now.",
        "We were up and running in no time.",
        "The import did not take hours.",
    ],
)
def test_a_thing_done_in_minutes_or_seconds_is_good(text):
    assert label(text) == "positive"


@pytest.mark.parametrize(
    "text",
    [
        "Onboarding took hours.",
        "Onboarding took days.",
        "The migration took three days.",
        "Debugging the installer took a whole day.",
        "The migration took three days instead of an afternoon.",
        "It took us two weeks to get the build running.",
        "Every release takes forever.",
        "We spent days wiring the dev environment together.",
        "Recovery took hours.",
        "The dashboard crawled.",
        "The site crawled under load.",
    ],
)
def test_a_thing_that_took_hours_or_days_or_crawled_is_bad(text):
    assert label(text) == "negative"


@pytest.mark.parametrize(
    "text",
    [
        "The meeting took an hour.",
        "We set it up in May.",
        "The build took 40 minutes.",
        "It took 40 minutes to set up.",
        "Durations are given in seconds.",
        "The TTL is in seconds.",
        "We met for an hour.",
        "The job runs every few minutes.",
        "The crawler crawled two million pages.",
        "I took two days off after the launch.",
        "She takes minutes at every standup.",
    ],
)
def test_a_time_told_for_its_own_sake_is_no_verdict(text):
    assert label(text) == "neutral"


@pytest.mark.parametrize(
    "text",
    [
        "The disk filled up within minutes.",
        "Errors spiked within seconds of the deploy.",
        "The site went down within minutes.",
    ],
)
def test_a_bad_thing_that_came_fast_stays_bad(text):
    assert label(text) == "negative"


# -- effort a thing needs -----------------------------------------------------------------------


@pytest.mark.parametrize(
    "text",
    [
        "It needed zero setup.",
        "No config needed.",
        "No configuration required.",
        "Nothing to configure.",
        "The CLI runs out of the box.",
        "Setup was a breeze.",
        "The new pipeline means no manual steps.",
        "Less boilerplate in every service.",
        "New contributors ran the CLI with zero setup; onboarding took minutes",
    ],
)
def test_a_thing_needing_no_setup_or_config_is_good(text):
    assert label(text) == "positive"


@pytest.mark.parametrize(
    "text",
    [
        "Setup was painful.",
        "We needed lots of boilerplate.",
        "Installing the toolchain was tedious.",
        "Onboarding needed a lot of manual configuration.",
    ],
)
def test_a_thing_needing_heavy_or_painful_setup_is_bad(text):
    assert label(text) == "negative"


@pytest.mark.parametrize(
    "text",
    [
        "The setup lives in config.yaml.",
        "We changed the config.",
        "The setup has three steps.",
    ],
)
def test_setup_or_config_merely_mentioned_is_no_verdict(text):
    assert label(text) == "neutral"


@pytest.mark.parametrize(
    "text",
    [
        "We never set up alerting and missed the outage.",
        "We never finished the setup.",
        "Without any config the service crashed.",
    ],
)
def test_a_bad_thing_beside_a_missing_setup_stays_bad(text):
    assert label(text) == "negative"


# -- an amount reached, told by its unit ---------------------------------------------------------


@pytest.mark.parametrize(
    "text",
    [
        "It dropped to 40 ms.",
        "The docker image shrank to 80 MB.",
        "The image size halved.",
        "We cut build time to 2 minutes.",
    ],
)
def test_a_time_or_size_going_down_is_good(text):
    assert label(text) == "positive"


@pytest.mark.parametrize(
    "text",
    [
        "It doubled to 2 s.",
        "The docker image ballooned to 2 GB.",
        "The bundle grew to 5 MB.",
    ],
)
def test_a_time_or_size_going_up_is_bad(text):
    assert label(text) == "negative"


@pytest.mark.parametrize(
    "text",
    [
        "The team grew to 12.",
        "The batch size doubled to 64.",
        "Traffic doubled to 40k rps.",
        "Downloads went up to 100 MB/s.",
    ],
)
def test_a_count_or_a_rate_reached_says_nothing_by_its_unit(text):
    assert label(text) == "neutral"


def test_the_size_a_ballooning_reached_makes_it_clearly_bad():
    assert outcome_polarity("The docker image ballooned to 2 GB.").score < -0.4


# -- end to end: what an agent is told about doing it again -----------------------------------


def test_a_choice_that_needed_no_setup_is_safe_to_repeat(memory):
    memory.record_decision(
        "Use SQLite for the CLI",
        "New contributors ran the CLI with zero setup; onboarding took minutes",
        task_tag="cli",
    )
    assert memory.intervention_query("use SQLite for the CLI").verdict == "SAFE"


def test_a_choice_whose_setup_took_days_is_dangerous_to_repeat(memory):
    memory.record_decision(
        "Require a local Postgres server for development",
        "Onboarding took three days and needed a lot of manual configuration",
        task_tag="cli",
    )
    answer = memory.intervention_query("require a local Postgres server for development")
    assert answer.verdict == "DANGER"


@pytest.mark.parametrize(
    ("told", "verdict"),
    [
        ("As a result, new contributors ran the CLI with zero setup; onboarding took minutes.",
         "SAFE"),
        ("As a result, onboarding took three days and setup was painful.", "DANGER"),
    ],
)  # fmt: skip
def test_a_chat_telling_how_long_onboarding_took_answers_the_what_if(memory, told, verdict):
    memory.remember(
        messages=[
            {"speaker": "Ana", "text": "We decided to use SQLite for the CLI."},
            {"speaker": "Ana", "text": told},
        ],
        date="2026-03-02",
        task_tag="cli",
    )
    assert memory.intervention_query("use SQLite for the CLI").verdict == verdict

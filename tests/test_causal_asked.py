"""Agents ask what an action leads to in the words of a question ("what will happen if I skip
the canary deploy?", "should I deploy on Friday?"): the question is answered as the bare
action is, its frame read as the asking and a negation of the action kept."""

from __future__ import annotations

import pytest

from ebbtide import sameness


@pytest.fixture
def releases(memory, clock):
    """Skipping the canary caused an outage, keeping it caught a bad build, and the one Friday
    deploy on record was of a report (not a deploy on a Friday)."""
    memory.record_decision(
        "Skipped the canary deploy", "Checkout outage for two hours", task_tag="release"
    )
    clock.advance(days=1)
    memory.record_decision(
        "Did not skip the canary deploy",
        "Canary caught the bad build before users saw it",
        task_tag="release",
    )
    memory.record_decision("Deployed the Friday report", "Finance got the numbers on time")
    memory.record_decision(
        "Turned the rate limiter off for the checkout", "Checkout fell over under bot traffic"
    )
    return memory


@pytest.mark.parametrize(
    ("asked", "action", "verdict"),
    [
        ("what will happen if I skip the canary deploy?", "skip the canary deploy", "DANGER"),
        ("Can I bypass the canary deploy", "bypass the canary deploy", "DANGER"),
        ("what if we keep the canary?", "keep the canary", "SAFE"),
        ("What would happen if we run the canary deploy?", "run the canary deploy", "SAFE"),
        ("what if we didn't skip the canary?", "didn't skip the canary", "SAFE"),
        ("did the team not skip the canary?", "not skip the canary", "SAFE"),
        ("shouldn't we keep the canary?", "keep the canary", "SAFE"),
        ("should I deploy on Friday?", "deploy on Friday", "UNKNOWN"),
        ("What happens if we deploy on Friday?", "deploy on Friday", "UNKNOWN"),
        ("is it safe to turn on the rate limiter?", "turn on the rate limiter", "UNKNOWN"),
        ("Is it OK to switch off the rate limiter?", "switch off the rate limiter", "DANGER"),
        ("can we skip the canary deploy?", "skip the canary deploy", "DANGER"),
        ("could we skip the canary deploy?", "skip the canary deploy", "DANGER"),
        ("can I deploy on Friday?", "deploy on Friday", "UNKNOWN"),
        ("is it OK to skip the canary deploy?", "skip the canary deploy", "DANGER"),
        ("how about we skip the canary deploy?", "skip the canary deploy", "DANGER"),
        ("what about skipping the canary deploy?", "skipping the canary deploy", "DANGER"),
        ("how about keeping the canary?", "keeping the canary", "SAFE"),
        ("let's skip the canary deploy", "skip the canary deploy", "DANGER"),
        ("Let's keep the canary", "keep the canary", "SAFE"),
        ("let's not skip the canary deploy", "not skip the canary deploy", "SAFE"),
        ("I'm thinking of skipping the canary deploy", "skipping the canary deploy", "DANGER"),
        ("we're planning to skip the canary deploy", "skip the canary deploy", "DANGER"),
        ("any risk in skipping the canary deploy?", "skipping the canary deploy", "DANGER"),
        (
            "Is there any risk in turning off the rate limiter?",
            "turning off the rate limiter",
            "DANGER",
        ),
        ("would it be OK if we skip the canary deploy?", "skip the canary deploy", "DANGER"),
    ],
)
def test_an_action_asked_as_a_question_is_answered_as_the_bare_action(
    releases, asked, action, verdict
):
    bare = releases.intervention_query(action)
    answer = releases.intervention_query(asked)
    assert answer.verdict == bare.verdict == verdict
    assert [n.id for n in answer.matched] == [n.id for n in bare.matched]
    assert answer.action == action  # how the question was read, for the agent to see


def test_two_options_asked_as_questions_are_compared_as_the_bare_options(releases):
    answer = releases.counterfactual_query(
        "what would happen if we run the canary deploy?", "should we skip the canary deploy?"
    )
    assert (answer.decision.option, answer.alternative.option) == (
        "run the canary deploy",
        "skip the canary deploy",
    )
    assert [n.text for n in answer.decision.matched] == ["Did not skip the canary deploy"]
    assert [n.text for n in answer.alternative.matched] == ["Skipped the canary deploy"]
    assert answer.preferred == "decision"


def test_two_options_put_as_intentions_are_compared_as_the_bare_options(releases):
    answer = releases.counterfactual_query(
        "let's skip the canary deploy", "how about we keep the canary?"
    )
    assert (answer.decision.option, answer.alternative.option) == (
        "skip the canary deploy",
        "keep the canary",
    )
    assert answer.preferred == "alternative"


@pytest.mark.parametrize(
    "asked",
    [
        "can the canary deploy be skipped?",
        "the canary deploy was skipped",
        "we skip the canary deploy",
    ],
)
def test_a_passive_or_a_statement_is_asked_whole_and_still_finds_the_skipping(releases, asked):
    answer = releases.intervention_query(asked)
    assert answer.action == asked.rstrip("?")
    assert answer.verdict == "DANGER"
    assert [n.text for n in answer.matched] == ["Skipped the canary deploy"]


@pytest.mark.parametrize(
    ("asked", "action"),
    [
        ("what will happen if I skip the canary?", "skip the canary"),
        ("What happens if you deploy on Friday?", "deploy on Friday"),
        ("what if the team skips the load test?", "skips the load test"),
        ("should I skip the load test?", "skip the load test"),
        ("shall we roll back the config?", "roll back the config"),
        ("is it safe to turn off the rate limiter?", "turn off the rate limiter"),
        ("what happens when we skip the canary?", "skip the canary"),
        ("would it be safe to skip the canary?", "skip the canary"),
        ("Is it a good idea to deploy on Friday?", "deploy on Friday"),
        ("could we not page the on-call?", "not page the on-call"),
        ("can't we skip the canary?", "skip the canary"),
        ("do we keep the canary ?", "keep the canary"),
        ("How about the team skips the load test?", "skips the load test"),
        ("what about rolling back the config?", "rolling back the config"),
        ("let’s roll back the config", "roll back the config"),
        ("We are considering skipping the load test", "skipping the load test"),
        ("the team is planning on skipping the load test", "skipping the load test"),
        ("I am thinking about turning off the rate limiter", "turning off the rate limiter"),
        ("are there any risks with skipping the canary?", "skipping the canary"),
        ("any risk to rolling back the config?", "rolling back the config"),
        ("is it safe if I skip the canary?", "skip the canary"),
        # no frame: the action as it is
        ("skip the canary?", "skip the canary"),
        ("Can the old cron job", "Can the old cron job"),
        ("do the team retro", "do the team retro"),
        ("what if weekly backups stop", "weekly backups stop"),
        ("what if we're skipping the canary", "we're skipping the canary"),
        ("can the canary be skipped?", "can the canary be skipped"),
        ("we're skipping the canary", "we're skipping the canary"),
        ("let the canary run", "let the canary run"),
        ("how we skip the canary", "how we skip the canary"),
        ("any canary skipped", "any canary skipped"),
        ("I'm skipping the canary", "I'm skipping the canary"),
        # nothing after the frame
        ("should I?", "should I"),
    ],
)
def test_the_action_a_question_asks_about(asked, action):
    assert sameness.asked_action(asked) == action

"""Outcome polarity: named scenarios, accuracy on a hand-labelled file, and properties."""

from __future__ import annotations

import dataclasses
from collections import Counter
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from ebbtide.polarity import BAD_TERMS, Polarity, outcome_polarity

DATA = Path(__file__).parent / "data" / "polarity_outcomes.tsv"
LABELS = ("negative", "neutral", "positive")


def label(text: str) -> str:
    return outcome_polarity(text).label


# ---------------------------------------------------------------------------
# Named scenarios
# ---------------------------------------------------------------------------


def test_weekend_outage_is_negative():
    result = outcome_polarity("weekend outage")
    assert result.label == "negative"
    assert result.score < 0
    assert result.cues == ("outage",)


def test_no_data_loss_is_not_negative():
    result = outcome_polarity("Migration finished with no data loss.")
    assert result.label == "positive"
    assert "no data loss" in result.cues


def test_fixing_a_leak_is_positive():
    result = outcome_polarity("Fixed the memory leak in the resizer")
    assert result.label == "positive"
    assert result.cues == ("fixed memory leak",)


def test_did_not_crash_is_positive_and_names_the_negated_cue():
    result = outcome_polarity("The service did not crash under load")
    assert result.label == "positive"
    assert result.cues == ("not crash",)


@pytest.mark.parametrize(
    "text",
    [
        "deploy went without downtime",
        "the job never failed this week",
        "zero errors since Tuesday",
        "the suite is no longer flaky",
        "nothing broke during the cutover",
    ],
)
def test_negated_bad_words_are_positive(text):
    assert label(text) == "positive"


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("It paid off: no ops burden at all.", "positive"),
        ("That turned out to be the right call.", "positive"),
        ("Going with the monorepo was a good decision.", "positive"),
        ("It was worth it.", "positive"),
        ("That was a mistake.", "negative"),
        ("In hindsight the rewrite was the wrong call.", "negative"),
        ("The caching layer backfired.", "negative"),
        ("We regret moving to microservices.", "negative"),
        ("It was not worth it.", "negative"),
        ("Adopting Bazel was no mistake.", "positive"),
    ],
)
def test_a_verdict_on_a_decision_scores_it(text, expected):
    assert label(text) == expected


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("That (we rolled back the deploy) was the right call.", "positive"),
        ("It (we skipped the load test to save time) was a mistake.", "negative"),
        ("The switch (we moved off the failing cluster) paid off.", "positive"),
        ("That (we rolled back the deploy (login broke)) was the right call.", "positive"),
        ("That (Ana quit her job) was a terrible decision.", "negative"),
        ("The deploy (a disaster) finished.", "negative"),
        ("It (the site went down) lasted three hours.", "negative"),
    ],
)
def test_what_a_pronoun_stands_for_is_not_the_verdict(text, expected):
    assert label(text) == expected


def test_not_stable_is_negative():
    assert label("The cluster is not stable yet") == "negative"


def test_fix_that_did_not_work_is_negative():
    assert label("The fix did not resolve the issue") == "negative"
    assert label("We didn't fix the outage before the weekend") == "negative"


def test_supposed_to_fix_is_not_a_fix():
    assert label("The patch was supposed to fix the leak but memory still grows") == "negative"


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("reduced latency by 30%", "positive"),
        ("cut errors by 40%", "positive"),
        ("p99 latency dropped from 800ms to 120ms", "positive"),
        ("our cloud bill went down 18%", "positive"),
        ("increased errors after the upgrade", "negative"),
        ("support tickets doubled", "negative"),
        ("revenue dropped 5% this quarter", "negative"),
        ("conversion fell after the redesign", "negative"),
        ("our p95 went from 200ms to 1.4s", "negative"),
    ],
)
def test_direction_times_quantity(text, expected):
    assert label(text) == expected


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        # a bad thing done less, or stopping, is good
        ("Customers complained less after the redesign", "positive"),
        ("We got paged much less often", "positive"),
        ("Fewer users complained", "positive"),
        ("Fewer servers crashed after the patch", "positive"),
        ("The crashes finally stopped", "positive"),
        ("The errors stopped after the fix", "positive"),
        ("The app stopped freezing", "positive"),
        ("Crashes became rarer", "positive"),
        ("The bug count went down", "positive"),
        ("Refunds dropped", "positive"),
        ("Customers complain less about slow checkout", "positive"),
        # a good thing done less, or stopping, is bad
        ("Fewer customers renewed", "negative"),
        ("Fewer tests pass", "negative"),
        ("The cache helped less than we hoped", "negative"),
        ("Signups stopped after the redesign", "negative"),
        ("The new build is less reliable", "negative"),
        # ... and "less" of a manner, or "stopped" with an object, is no reduction
        ("It failed less gracefully than before", "negative"),
        ("The outage stopped the deploy", "negative"),
    ],
)
def test_a_reduced_bad_thing_is_good_and_a_reduced_good_thing_is_bad(text, expected):
    assert label(text) == expected


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        # customers doing what a business lives on: saying they do it is no verdict,
        # doing it less or stopping is bad
        ("Users engaged less after the redesign", "negative"),
        ("Customers bought less", "negative"),
        ("Fewer customers bought the upgrade", "negative"),
        ("Customers stopped buying", "negative"),
        ("Customers stopped signing up", "negative"),
        ("Customers stopped paying", "negative"),
        ("Customers bought the upgrade", "neutral"),
        ("Payments stopped", "negative"),
        # traffic lost is bad; traffic gained is the load a system ran under, no verdict
        ("Less traffic to the store", "negative"),
        ("Traffic to the store doubled", "neutral"),
        ("Latency spiked when traffic doubled", "negative"),
        ("A traffic spike took down the API", "negative"),
        # a bad thing that happens less often is good, whatever verb tells it happening
        ("The pager went off less often", "positive"),
        ("Outages happened less often after the migration", "positive"),
        # the time spent on a bad chore is what shrank, not a second bad event
        ("We spent less time firefighting", "positive"),
        ("We spent less time on firefighting this quarter", "positive"),
        ("We spent more time firefighting", "negative"),
        ("We spent the weekend firefighting", "negative"),
    ],
)
def test_customers_doing_less_and_bad_things_happening_less_often(text, expected):
    assert label(text) == expected


BAD_DOINGS = ["complained", "crashed", "failed", "timed out", "got paged", "stalled"]
GOOD_DOINGS = ["worked", "helped", "passed", "improved", "shipped"]
# a doing, how much ("much less"), how often, and what follows it
AMOUNTS = (
    st.sampled_from(BAD_DOINGS + GOOD_DOINGS),
    st.sampled_from(["", "much ", "far ", "a lot "]),
    st.sampled_from(["", " often", " frequently"]),
    st.sampled_from(["", " after the redesign", " than before", " this week"]),
)


@settings(max_examples=200, deadline=None)
@given(*AMOUNTS)
def test_a_doing_done_less_has_the_opposite_sign_of_the_doing(doing, more, often, tail):
    plain = outcome_polarity(f"The service {doing}{tail}").score
    less = outcome_polarity(f"The service {doing} {more}less{often}{tail}").score
    assert plain != 0 and less != 0
    assert (less > 0) == (plain < 0)


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        # what customers do for a business, done more, is good; saying they did it is not
        ("Customers bought more", "positive"),
        ("Customers bought a lot more this quarter", "positive"),
        ("Customers bought more often after the redesign", "positive"),
        ("Users engaged more after the redesign", "positive"),
        ("Signups went up more", "positive"),
        ("Payments came in more often", "positive"),
        # a bad thing done or happening more is bad
        ("Users complained more", "negative"),
        ("Users complained more about latency", "negative"),
        ("The pager went off more often", "negative"),
        ("Outages happened more often after the migration", "negative"),
        # "more" of the object, or of a manner, is not the doing done more
        ("We bought more disks", "neutral"),
        ("We paid more for hosting", "neutral"),
        ("The query ran more slowly", "neutral"),
    ],
)
def test_a_good_thing_done_more_is_good_and_a_bad_thing_done_more_is_bad(text, expected):
    assert label(text) == expected


@settings(max_examples=200, deadline=None)
@given(*AMOUNTS)
def test_a_doing_done_more_has_the_sign_of_the_doing(doing, more, often, tail):
    plain = outcome_polarity(f"The service {doing}{tail}").score
    done_more = outcome_polarity(f"The service {doing} {more}more{often}{tail}").score
    assert plain != 0 and done_more != 0
    assert (done_more > 0) == (plain > 0)


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("40 support tickets from customers.", "negative"),
        ("We got 40 support tickets.", "negative"),
        ("Customers filed 40 tickets.", "negative"),
        ("A flood of tickets.", "negative"),
        ("Dozens of tickets poured in overnight.", "negative"),
        ("Support tickets dropped.", "positive"),
        ("We resolved 40 support tickets.", "positive"),
        ("We closed 40 tickets.", "neutral"),
        ("Ben opened 3 tickets for the cleanup.", "neutral"),
        ("The sprint has 12 tickets.", "neutral"),
    ],
)
def test_tickets_that_came_in_by_the_dozen_are_customer_pain_but_tickets_worked_are_not(
    text, expected
):
    assert label(text) == expected


def test_a_move_that_led_to_40_support_tickets_is_a_danger_to_repeat(memory):
    memory.remember(
        messages=[
            {"speaker": "Ana", "text": "We moved checkout to the new payment provider, which led "
             "to 40 support tickets from customers."},
        ]
    )  # fmt: skip
    answer = memory.intervention_query("move checkout to the new payment provider")
    assert answer.verdict == "DANGER", answer.evidence


def test_went_down_alone_is_an_outage_but_a_duration_is_not_a_quantity():
    assert label("the API went down") == "negative"
    assert label("the site went down for 2 hours") == "negative"


@pytest.mark.parametrize(
    "text",
    [
        "outage",
        "downtime",
        "data loss",
        "corruption",
        "memory leak",
        "regression",
        "rolled back the release",
        "security breach",
        "incident",
        "flaky tests",
        "build failed",
        "error",
        "crash",
        "deadlock",
        "timeout",
        "kernel panic",
        "the pipeline broke",
        "bug in checkout",
        "slower page loads",
        "latency spike",
        "OOM",
        "got paged at 3am",
        "customer escalation",
        "churned at renewal",
        "complaint from the CFO",
        "missed the deadline",
        "came in over budget",
        "the API went down",
        "the deploy blew up",
        "throwing 500s",
    ],
)
def test_incident_vocabulary_is_negative(text):
    assert label(text) == "negative"


@pytest.mark.parametrize(
    "text",
    [
        "shipped",
        "fixed",
        "resolved",
        "restored service",
        "stable",
        "recovered",
        "faster builds",
        "improved",
        "tests passed",
        "succeeded",
        "success",
        "CI is green",
        "on time",
        "under budget",
        "saved two days",
        "reduced errors",
        "happy customer",
    ],
)
def test_success_vocabulary_is_positive(text):
    assert label(text) == "positive"


# ---------------------------------------------------------------------------
# Recovery, stability and recurrence
# ---------------------------------------------------------------------------


@pytest.mark.parametrize(
    "text",
    [
        "writes resumed within minutes",
        "latency went back to normal",
        "error rate returned to baseline by noon",
        "the dashboard is back to green",
        "search is back online",
        "the site is back up",
        "signups bounced back the next week",
        "ingest is up and running again",
    ],
)
def test_recovery_is_positive(text):
    assert label(text) == "positive"


@pytest.mark.parametrize(
    "text",
    [
        "the workers stayed up through the night",
        "the API remained available during the failover",
        "p99 held steady through the sale",
        "consumers kept up with the backlog",
        "the cluster stayed healthy all week",
        "the cache held up under load",
    ],
)
def test_continuity_is_positive(text):
    assert label(text) == "positive"


def test_broken_continuity_is_negative():
    assert label("the workers did not stay up") == "negative"
    assert label("consumers could not keep up") == "negative"


@pytest.mark.parametrize(
    "text",
    [
        "held a 99% cache hit rate through the sale",
        "uptime held at 99.95% all month",
        "maintained 99.99% availability during the migration",
        "the distilled model kept 98% of quality",
        "we met the SLO every week this quarter",
    ],
)
def test_holding_a_good_quantity_is_positive(text):
    result = outcome_polarity(text)
    assert result.label == "positive"


def test_holding_a_cost_or_nothing_is_no_verdict():
    assert label("kept latency at 200ms") == "neutral"  # is 200ms good? unknown
    assert label("another migration held the lock") == "neutral"
    assert label("the meeting was held to discuss the revenue target") == "neutral"
    assert label("uptime did not hold") == "negative"


def test_flat_is_good_for_a_cost_and_no_verdict_for_a_goal():
    result = outcome_polarity("storage use stayed flat for a month")
    assert result.label == "positive"
    assert result.cues == ("storage use flat",)
    assert label("kept flat storage use all quarter") == "positive"
    assert label("memory usage leveled off at 2GB") == "positive"
    assert label("throughput was flat compared to last week") == "neutral"
    assert label("storage did not stay flat") == "negative"


@pytest.mark.parametrize(
    "text",
    [
        "the connection errors went away",
        "the flapping alerts disappeared",
        "the 502s died down after the deploy",
        "the timeouts have not come back",
        "the crash stopped recurring",
    ],
)
def test_a_problem_going_away_is_positive(text):
    assert label(text) == "positive"


@pytest.mark.parametrize(
    "text",
    [
        "the connection errors came back a week later",
        "the 500s are back",
        "upload failures resurfaced after the config push",
        "the crash returned after the deploy",
        "it recurred twice this month",
        "the leak we patched came back",
        "another cache stampede hit the catalog again",
    ],
)
def test_a_problem_coming_back_is_negative(text):
    assert label(text) == "negative"


def test_recurrence_needs_a_subject_to_have_a_sign():
    # pronoun subjects: the rule cannot know what "it" was
    assert label("it went away") == "neutral"
    assert label("it came back") == "neutral"
    assert label("the vendor will get back to us") == "neutral"
    assert label("annual recurring revenue is reported monthly") == "neutral"
    assert label("the pen test came back clean") == "positive"


def test_a_good_quantity_coming_back_is_positive():
    result = outcome_polarity("the indexer got its free space back")
    assert result.label == "positive"
    assert label("the indexer was back to plenty of free space") == "positive"


@pytest.mark.parametrize(
    "text",
    [
        "memory pressure came back",
        "The memory pressure came back as soon as traffic picked up.",
        "the errors came back",
        "the outage returned",
        "customers came back with complaints",
    ],
)
def test_a_bad_thing_returning_is_negative(text):
    assert label(text) == "negative"


@pytest.mark.parametrize(
    "text",
    [
        "the traffic came back",
        "traffic returned by the afternoon",
        "customers came back",
        "the users returned after the redesign",
        "visitors are back",
    ],
)
def test_a_good_thing_returning_is_positive(text):
    assert label(text) == "positive"


@pytest.mark.parametrize(
    "text",
    ["customers did not come back", "the users never returned", "the traffic never came back"],
)
def test_a_good_thing_that_did_not_return_is_negative(text):
    assert label(text) == "negative"


def test_who_returned_something_or_came_back_from_somewhere_is_no_verdict():
    assert label("the users returned the devices") == "neutral"
    assert label("the team came back from vacation") == "neutral"
    assert label("Traffic to the store doubled") == "neutral"
    assert label("customers have not returned the devices") == "neutral"


@pytest.mark.parametrize(
    "text",
    [
        "the pool exhausted its database connections",
        "connection exhaustion on the ledger database",
        "the gateway collapsed under a retry storm",
        "the fleet drowned in a retry storm",
        "a cache stampede swamped the database",
        "the build farm was starved of runners",
        "the scheduler is thrashing",
        "replication stalled overnight",
        "the migration hung",
        "search is degraded",
        "the disk is saturated",
        "a long table lock froze writes",
        "the database hit its connection ceiling and refused queries",
        "the workers were killed for using too much memory",
        "the indexer hit 100% disk",
        "messages piled up overnight",
    ],
)
def test_exhaustion_and_collapse_are_negative(text):
    assert label(text) == "negative"


def test_code_freeze_is_not_a_hang():
    assert label("we froze the release branch for QA") == "neutral"


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("the broker dropped messages during the failover", "negative"),
        ("2% of requests were dropped", "negative"),
        ("half of the webhook deliveries were dropped", "negative"),
        ("we never dropped a message during the upgrade", "positive"),
        ("latency dropped after the index", "positive"),
        ("errors dropped by half", "positive"),
        ("test flakiness dropped to under 1%", "positive"),
        ("fewer outages than last year", "positive"),
        ("reduced flakiness in CI", "positive"),
        ("the outage dropped traffic by 40%", "negative"),
        ("a bug took down the API", "negative"),
    ],
)
def test_dropped_payload_is_a_loss_and_a_dropped_cost_is_a_gain(text, expected):
    assert label(text) == expected


@pytest.mark.parametrize(
    "text",
    [
        "releases went out incident-free for a month",
        "error-free since the vendor patch",
        "a bug-free launch",
        "hassle-free onboarding for the new team",
        "deadlock free since the rewrite",
    ],
)
def test_free_compounds_are_positive(text):
    result = outcome_polarity(text)
    assert result.label == "positive"
    assert any(cue.endswith(" free") for cue in result.cues)


def test_free_alone_is_not_a_cue():
    assert label("the free tier now includes exports") == "neutral"


@pytest.mark.parametrize(
    "text",
    [
        "the restart did not fix it",
        "raising the heap size did not help",
        "the workaround did not hold up",
        "the new index did not work",
        "the fix didn't stick",
        "the plan did not pan out",
    ],
)
def test_remedies_that_did_not_take_are_negative(text):
    assert label(text) == "negative"


@pytest.mark.parametrize(
    "text",
    [
        "the SSO rollout went off with zero downtime",
        "the upgrade went off without a hitch",
        "processed the year-end backlog without trouble",
        "the database weathered the launch spike",
    ],
)
def test_getting_through_without_trouble_is_positive(text):
    assert label(text) == "positive"


def test_again_strengthens_what_it_follows():
    assert (
        outcome_polarity("the deploy broke again").score
        < outcome_polarity("the deploy broke").score
    )
    assert label("tests pass again") == "positive"
    assert label("no errors again today") == "positive"


@pytest.mark.parametrize(
    "text",
    [
        "Added retries to the error handler.",
        "The incident review is scheduled for Friday.",
        "Changed the default timeout from 30s to 60s.",
        "Documented the rollback procedure in the runbook.",
        "Customer asked how failover works.",
        "Deploy scheduled for Tuesday at 10am.",
        "Results were mixed: throughput improved but p99 latency got worse.",
        "",
    ],
)
def test_topics_plans_and_mixed_results_are_neutral(text):
    result = outcome_polarity(text)
    assert result.label == "neutral"
    assert result.score == 0.0


def test_case_and_inflection_insensitive():
    assert label("OUTAGE") == label("outages") == label("Outage") == "negative"
    assert label("CRASHED") == label("crashing") == "negative"


def test_result_is_frozen_and_cues_are_strings():
    result = outcome_polarity("fixed the leak")
    assert isinstance(result, Polarity)
    assert all(isinstance(c, str) for c in result.cues)
    with pytest.raises(dataclasses.FrozenInstanceError):
        result.score = 0.0  # type: ignore[misc]


@pytest.mark.timeout(30)
def test_long_pasted_log_is_scored_in_linear_time():
    log = "2026-03-01 02:13 worker-7 ERROR connection reset; retrying. " * 5000
    assert label(log) == "negative"
    assert label(log.replace(".", " ").replace(";", " ")) == "negative"


# ---------------------------------------------------------------------------
# Accuracy on the hand-labelled file
# ---------------------------------------------------------------------------


def load_labelled(path: Path = DATA) -> list[tuple[str, str]]:
    rows = []
    for line in path.read_text(encoding="utf-8").splitlines():
        if line.strip():
            gold, _, sentence = line.partition("\t")
            rows.append((gold, sentence))
    return rows


def test_labelled_file_is_large_valid_and_roughly_balanced():
    rows = load_labelled()
    assert len(rows) >= 240
    assert {gold for gold, _ in rows} == set(LABELS)
    assert len({s for _, s in rows}) == len(rows), "duplicate sentences"
    counts = Counter(gold for gold, _ in rows)
    assert min(counts.values()) >= 0.25 * len(rows)


def test_accuracy_on_labelled_outcomes():
    rows = load_labelled()
    confusion = Counter((gold, outcome_polarity(s).label) for gold, s in rows)
    accuracy = sum(confusion[x, x] for x in LABELS) / len(rows)
    assert accuracy >= 0.95, f"accuracy {accuracy:.3f}; run bench/polarity_accuracy.py"
    # flipping a bad outcome to good (or back) misleads the decision Q-values the most
    assert confusion["negative", "positive"] <= 3
    assert confusion["positive", "negative"] <= 3


@pytest.mark.parametrize(
    ("name", "floor"), [("polarity_holdout.tsv", 0.80), ("polarity_holdout2.tsv", 0.80)]
)
def test_held_out_files_are_valid_and_not_collapsed(name, floor):
    """Held-out sets are measured with bench/polarity_accuracy.py, not tuned on; this
    only catches a large regression or a malformed file."""
    rows = load_labelled(DATA.parent / name)
    assert len(rows) >= 40
    assert {gold for gold, _ in rows} == set(LABELS)
    accuracy = sum(outcome_polarity(s).label == gold for gold, s in rows) / len(rows)
    assert accuracy >= floor, f"{name}: accuracy {accuracy:.3f}"


# ---------------------------------------------------------------------------
# Properties
# ---------------------------------------------------------------------------

BAD_NOUNS = sorted(
    {k.lstrip("=") for k in BAD_TERMS if "*" not in k and "~" not in k}
    | {"outage", "data loss", "memory leak", "latency spike", "500s", "crash", "deadlock"}
)
NEUTRAL_FRAMES = [
    "{}",
    "the {}",
    "{} after the deploy",
    "we saw {} in staging",
    "there was {} overnight",
    "the team reported {} yesterday",
    "customer saw {}",
    "{} during the migration",
    "{} on friday, so we paused",
]


@settings(max_examples=300, deadline=None)
@given(st.text())
def test_never_raises_score_in_range_label_matches_sign(text):
    result = outcome_polarity(text)
    assert -1.0 <= result.score <= 1.0
    expected = "positive" if result.score > 0 else "negative" if result.score < 0 else "neutral"
    assert result.label == expected
    assert isinstance(result.cues, tuple)


@settings(max_examples=300, deadline=None)
@given(
    st.lists(
        st.sampled_from(
            [
                "fixed",
                "no",
                "not",
                "outage",
                "latency",
                "dropped",
                "errors",
                "the",
                "but",
                "stable",
                "never",
                "reduced",
                ",",
                ".",
                "without",
                "crash",
                "on",
                "time",
                "very",
                "back",
                "came",
                "again",
                "free",
                "held",
                "flat",
                "requests",
                "storage",
            ]
        ),
        max_size=12,
    ).map(" ".join)
)
def test_lexicon_soup_keeps_invariants(text):
    result = outcome_polarity(text)
    assert -1.0 <= result.score <= 1.0
    assert (result.label == "neutral") == (result.score == 0.0)


@settings(max_examples=300, deadline=None)
@given(st.sampled_from(BAD_NOUNS), st.sampled_from(NEUTRAL_FRAMES))
def test_adding_no_before_a_bad_noun_never_makes_it_more_negative(noun, frame):
    plain = outcome_polarity(frame.format(noun)).score
    negated = outcome_polarity(frame.format("no " + noun)).score
    assert negated >= plain


# -- what may happen, and who is away ------------------------------------------------------------


@pytest.mark.parametrize(
    "text",
    [
        "We might get 40 support tickets.",
        "We might get an outage.",
        "We could get an outage if the cache goes cold.",
        "Checkout may break under the sale traffic.",
        "We might have lost data.",
    ],
)
def test_what_might_happen_is_feared_not_had(text):
    assert label(text) == "neutral"


@pytest.mark.parametrize(
    "text",
    [
        "Nobody could log in for forty minutes.",
        "Users could not log in after the deploy.",
        "In May we got 40 support tickets.",
    ],
)
def test_could_denied_and_the_month_may_still_tell_what_happened(text):
    assert label(text) == "negative"


def test_a_person_offline_is_away_but_a_system_offline_is_down():
    assert outcome_polarity("Ben was offline all weekend.", people=["Ben"]).label == "neutral"
    assert label("I was offline all weekend.") == "neutral"
    assert label("My manager went offline for the holidays.") == "neutral"
    assert label("The API was offline for an hour.") == "negative"
    assert outcome_polarity("The API was offline for an hour.", people=["Ben"]).label == (
        "negative"
    )


def test_a_change_that_might_bring_tickets_is_no_danger_to_repeat(memory):
    memory.remember(
        messages=[
            {"speaker": "Ana", "text": "We changed the billing page, so we might get 40 support "
             "tickets."},
            {"speaker": "Ben", "text": "We reworded the refund form. That could lead to an "
             "outage of the refund queue."},
        ]
    )  # fmt: skip
    for action in ("change the billing page", "reword the refund form"):
        answer = memory.intervention_query(action)
        assert answer.verdict != "DANGER", answer.evidence
        assert all(not c.node.polarity for c in answer.consequences), answer.consequences


def test_a_teammate_away_is_no_bad_outcome_of_what_was_done(memory):
    memory.remember(messages=[{"speaker": "Ben", "text": "I'll be around on Monday."}])
    record = memory.record_decision("Moved the release to Monday", "Ben was offline all weekend")
    assert record.outcome.polarity == 0
    api = memory.record_decision("Rotated the API keys", "The API was offline for an hour")
    assert api.outcome.polarity < 0


# -- what one became able to do, told, against what could happen ---------------------------------


@pytest.mark.parametrize(
    ("told", "plain"),
    [
        ("After the fix we could deploy in minutes.", "After the fix we deployed in minutes."),
        ("Now we could deploy in minutes.", "Now we deploy in minutes."),
        ("Since then we could deploy in minutes.", "Since then we deployed in minutes."),
        ("Once the cache landed, we could deploy in minutes.", "We deployed in minutes."),
        (
            "With the cache, users could log in within seconds.",
            "Users logged in within seconds.",
        ),
        ("Finally we could deploy in minutes.", "Finally we deployed in minutes."),
        ("We could deploy in minutes again.", "We deployed in minutes again."),
    ],
)
def test_an_ability_told_after_a_time_or_again_is_what_happened_not_a_hedge(told, plain):
    assert label(plain) == "positive"
    assert label(told) == "positive"


@pytest.mark.parametrize(
    "text",
    [
        "We could get an outage.",
        "This could break checkout.",
        "It could take hours.",
        # a time before it does not make a feared harm had
        "Now this could break checkout.",
        "After the migration it could take hours.",
        "This could break checkout again.",
        "After the fix we could have deployed in minutes.",
    ],
)
def test_what_could_go_wrong_stays_a_hedge_even_after_a_time(text):
    assert label(text) == "neutral"


@pytest.mark.parametrize(
    "text",
    [
        "Finally we could ship on Fridays again.",
        "Finally we could ship on Fridays.",
        "Eventually the team could merge on their own.",
        "After the fix we could ship on Fridays again.",
        "Now we could release on Fridays again.",
    ],
)
def test_an_ability_regained_or_reached_at_last_is_a_good_outcome(text):
    assert label(text) == "positive"


@pytest.mark.parametrize(
    "text",
    [
        "We could try again next week.",
        "We could ship on Fridays.",
        "Now we could ship on Fridays or wait.",
        "Finally we could have shipped on Fridays.",
    ],
)
def test_an_ability_offered_or_missed_is_no_verdict(text):
    assert label(text) == "neutral"


def test_a_decision_that_won_back_friday_releases_is_one_to_repeat(memory):
    record = memory.record_decision(
        "Split the deploy pipeline", "Finally we could ship on Fridays again"
    )
    assert record.outcome.polarity > 0


def test_nobody_could_log_in_after_the_deploy_is_still_bad():
    assert label("After the deploy nobody could log in.") == "negative"
    assert label("Finally nobody could log in.") == "negative"

"""The same event told in other words across sessions is one node; look-alikes that are other
events (a recurrence, a success, another task's incident, another person's, another day's)
stay apart."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from ebbtide import extract, sameness, scoring

TASK = "nimbus-checkout-hardening"


def _session(memory, clock, text: str, task_tag: str = TASK, speaker: str = "Lena"):
    clock.advance(days=1)
    return memory.remember(
        messages=[
            {"speaker": "Theo", "text": "Quick update on Nimbus."},
            {"speaker": speaker, "text": text},
            {"speaker": "Theo", "text": "Thanks, noted."},
        ],
        date=clock().isoformat(),
        task_tag=task_tag,
    )


def _nodes(result, kind: str) -> list:
    return [n for n in result.nodes if n.kind == kind]


def _outage_story(memory, clock):
    first = _session(
        memory, clock,
        "Priya turned off the pool limits on the Nimbus checkout database, and as a result "
        "the Nimbus checkout database ran out of connections.",
    )  # fmt: skip
    second = _session(
        memory, clock,
        "Acme opened a sev-1 ticket about Nimbus checkout because Nimbus checkout exhausted "
        "its database connections.",
    )  # fmt: skip
    return first, second


def test_the_same_outage_told_in_two_sessions_in_other_words_becomes_one_node(memory, clock):
    first, second = _outage_story(memory, clock)
    (outage,) = _nodes(first, "outcome")
    assert outage.id in {n.id for n in second.nodes}
    stored = memory.get(outage.id)
    assert stored.attributes["aliases"] == ["Nimbus checkout exhausted its database connections."]


def test_the_chain_traces_through_the_outage_told_in_other_words(memory, clock):
    _outage_story(memory, clock)
    chains = memory.trace_cause_chain("the Acme sev-1 ticket about Nimbus checkout").chains
    assert chains
    assert chains[0].steps[0].decision.startswith("Priya turned off the pool limits")
    assert len(chains[0].steps) == 2


def test_what_followed_the_outage_told_in_other_words_includes_the_escalation(memory, clock):
    _outage_story(memory, clock)
    result = memory.intervention_query("Nimbus checkout running out of database connections")
    assert any("Acme opened a sev-1" in c.node.text for c in result.consequences)


def test_a_recurrence_is_a_new_event_and_a_failed_fix_is_the_same_decision(memory, clock):
    first, _ = _outage_story(memory, clock)
    (outage,) = _nodes(first, "outcome")
    fix = _session(
        memory, clock,
        "Dev restarted the Nimbus checkout app servers every night, so the Nimbus checkout "
        "connection errors went away.",
    )  # fmt: skip
    clock.advance(days=10)
    again = _session(
        memory, clock,
        "The nightly restarts of the Nimbus checkout app servers did not fix it after all: "
        "the Nimbus checkout database ran out of connections again.",
    )  # fmt: skip
    assert outage.id not in {n.id for n in again.nodes}
    (restart,) = _nodes(fix, "decision")
    assert restart.id in {n.id for n in _nodes(again, "decision")}
    updates = memory.resolve_updates(apply=True).updates
    assert [u.old.outcome for u in updates] == ["The Nimbus checkout connection errors went away."]


def test_a_twin_failure_in_another_task_stays_its_own_node(memory, clock):
    first, _ = _outage_story(memory, clock)
    (outage,) = _nodes(first, "outcome")
    twin = _session(
        memory, clock,
        "Omar turned off pool limits on the Nimbus billing database, and as a result the "
        "Nimbus billing database ran out of connections.",
        task_tag="nimbus-billing-audit",
    )  # fmt: skip
    assert outage.id not in {n.id for n in twin.nodes}


def test_a_success_is_never_the_failure_it_resembles(memory, clock):
    first, _ = _outage_story(memory, clock)
    (outage,) = _nodes(first, "outcome")
    good = _session(
        memory, clock,
        "Mia put PgBouncer in front of the Nimbus checkout database, and as a result the "
        "Nimbus checkout database connections stayed stable all month.",
    )  # fmt: skip
    assert outage.id not in {n.id for n in good.nodes}


def test_what_a_failed_fix_was_told_as_a_noun_phrase_is_a_decision(memory, clock):
    result = _session(
        memory, clock,
        "The extra Nimbus checkout replicas did not fix it after all: the Nimbus checkout "
        "origin fell over again.",
    )  # fmt: skip
    assert [n.text for n in _nodes(result, "decision")] == ["The extra Nimbus checkout replicas"]


def test_record_decision_joins_an_outcome_told_in_other_words_in_the_same_task(memory):
    a = memory.record_decision(
        "Priya turned off the pool limits on the Nimbus checkout database",
        "the Nimbus checkout database ran out of connections",
        task_tag=TASK,
    )
    c = memory.record_decision(
        "Mia set a statement timeout on Nimbus checkout",
        "Nimbus checkout exhausted its database connections",
        "prevented",
        task_tag=TASK,
    )
    assert c.outcome.id == a.outcome.id


def _chat(memory, clock, *turns: tuple[str, str]) -> list:
    clock.advance(days=1)
    result = memory.remember(
        messages=[{"speaker": who, "text": text} for who, text in turns],
        date=clock().isoformat(),
    )
    return _nodes(result, "event")


def test_the_same_film_watched_by_two_people_is_two_events(memory, clock):
    (hers,) = _chat(
        memory, clock,
        ("Nate", "How was your weekend?"),
        ("Joanna", 'I just watched "Little Women" and it was amazing!'),
    )  # fmt: skip
    (his,) = _chat(
        memory, clock,
        ("Joanna", "Any plans?"),
        ("Nate", 'I watched "Little Women" recently, and it was great.'),
    )  # fmt: skip
    assert hers.id != his.id
    assert memory.get(hers.id).attributes.get("aliases") is None


def test_see_you_tomorrow_said_on_two_days_is_two_visits(memory, clock):
    (first,) = _chat(
        memory, clock, ("Joanna", "Can I come over?"), ("Nate", "Sure, see you tomorrow!")
    )
    (second,) = _chat(
        memory, clock, ("Joanna", "Can I come over again?"), ("Nate", "Alright, see you tomorrow!")
    )
    assert first.id != second.id
    assert memory.get(first.id).text == "Sure, see you tomorrow (4 March 2026)!"


def test_two_people_each_telling_of_their_own_mountain_trip_are_two_trips(memory, clock):
    (his,) = _chat(
        memory, clock,
        ("Tim", "Wow, where is that?"),
        ("John", "I snapped that pic on my trip to the Smoky Mountains last year."),
    )  # fmt: skip
    (theirs,) = _chat(
        memory, clock,
        ("Tim", "This was my Rocky Mountains trip last year and it was incredible."),
    )  # fmt: skip
    assert his.id != theirs.id
    assert "Smoky" in memory.get(his.id).text and "Rocky" in memory.get(theirs.id).text


def test_one_person_telling_the_same_trip_again_is_still_one_trip(memory, clock):
    (first,) = _chat(
        memory, clock,
        ("John", "How was the summer?"),
        ("Tim", "I went on a trip to the Smoky Mountains last year."),
    )  # fmt: skip
    (again,) = _chat(
        memory, clock,
        ("John", "Seen anything nice?"),
        ("Tim", "I went on a trip to the Smoky Mountains last year and loved it."),
    )  # fmt: skip
    assert first.id == again.id


def test_painted_this_on_two_days_is_two_paintings(memory, clock):
    _chat(
        memory, clock,
        ("Melanie", "That's beautiful!"),
        ("Caroline", "Thanks! I painted this after I visited the LGBTQ center."),
    )  # fmt: skip
    _chat(
        memory, clock,
        ("Melanie", "Another one!"),
        ("Caroline", "Thanks! I painted this after I visited the beach last week."),
    )  # fmt: skip
    painted = [n for n in memory.store.find_nodes(kind="outcome") if "painted" in n.text]
    assert len(painted) == 2


def test_painted_this_late_on_the_12th_in_new_york_and_early_on_the_13th_in_london_is_two(
    memory,
):
    """An hour apart by the clock, on two days where each was said: two pictures shown."""
    memory.remember(
        messages=[
            {"speaker": "Melanie", "text": "That's beautiful!"},
            {"speaker": "Caroline", "text": "Thanks! I painted this after I visited the center."},
        ],
        date="2026-05-12T23:00:00-05:00",
    )
    memory.remember(
        messages=[
            {"speaker": "Melanie", "text": "Another one!"},
            {"speaker": "Caroline", "text": "Thanks! I painted this after I visited the beach."},
        ],
        date="2026-05-13T06:00:00+01:00",
    )
    painted = [n for n in memory.store.find_nodes(kind="outcome") if "painted" in n.text]
    assert len(painted) == 2


def test_this_parade_told_weeks_later_is_still_the_parade(memory, clock):
    (parade,) = _chat(memory, clock, ("Caroline", "Last week I went to an LGBTQ pride parade."))
    clock.advance(days=14)
    (again,) = _chat(
        memory, clock,
        ("Caroline", "One special memory for me was this pride parade I went to a few weeks ago."),
    )  # fmt: skip
    assert again.id == parade.id


# the pure parts -----------------------------------------------------------------------------


def _mention(**kw) -> sameness.Mention:
    base = {
        "decision": False, "polarity": -0.8, "recurrence": False, "actor": None,
        "task_tag": "t",
    }  # fmt: skip
    return sameness.Mention(**{**base, **kw})


def test_a_demonstrative_points_elsewhere_unless_the_other_telling_names_it():
    assert sameness.points_elsewhere("Caroline painted this", ["Caroline painted it"])
    assert sameness.points_elsewhere("Tim took this pic", ["Tim took a trip last summer"])
    assert sameness.points_elsewhere("Jon went home", ["Jon got this!"])  # either side
    assert not sameness.points_elsewhere(
        "Caroline loved this pride parade", ["Caroline went to a pride parade"]
    )
    assert not sameness.points_elsewhere("the deploy failed", ["the deploy failed again"])


@pytest.mark.parametrize(
    ("asked", "recorded", "same"),
    [
        ("skip the canary", "Ana and others skipped the canary", True),
        ("keep the canary", "Skipped the canary deploy", False),
        ("keep the canary", "Did not skip the canary", True),
        ("don't keep the canary", "Skipped the canary", True),
        ("run the load test", "This time Ben and others did not skip the load test", True),
        ("turn on the flag", "Turned the flag off", False),
        ("enable the flag", "Kai didn't turn off the flag", True),
        ("roll back the config", "Rolled out the config", False),
        ("raise the pool size", "Lowered the pool size", False),
        ("revert the migration", "Applied the migration", False),
        ("pin the version", "Unpinned the version", False),
        ("approve the request", "Declined the request", False),
        # another thing done: the verbs' words decide nothing
        ("skip the dry run", "Ran the migration without a dry run", True),
        ("keep the canary", "Deployed the canary", True),
        # a thing missing told again, in the same or other words, is that lack
        ("No rate limiting", "No rate limiting", True),
        ("not having a retry budget", "No retry budget", True),
        ("No canary", "No rate limiting", False),
    ],
)
def test_an_opposite_verb_done_to_the_same_thing_reads_as_the_other_choice(asked, recorded, same):
    assert sameness.same_choice(asked, recorded) is same


ACTION_WORDS = ["No", "not", "did", "didn't", "won't", "without", "the", "a", "having", "missing",
    "lack", "of", "there", "was", "canary", "rate", "limiting", "alert", "skip", "skipped", "keep",
    "remove", "added", "deploy", "tests", "Ana", "Jon", "give", "up", "we", "had", "run", "off",
    "roll", "back", "would", "have", "prevented", "it"]  # fmt: skip


@given(st.lists(st.sampled_from(ACTION_WORDS), min_size=1, max_size=7))
def test_any_words_told_again_are_the_same_choice(words):
    said = " ".join(words)
    assert sameness.same_choice(said, said)
    assert sameness.same_choice(said, said.upper() + "!")


def test_a_synonym_or_an_opposite_left_undone_tells_the_verb_asked_about():
    assert sameness.verb_told("bypass the canary", "Skipped the canary") == ("bypass",)
    assert sameness.verb_told("keep the canary", "Did not skip the canary") == ("keep",)
    assert sameness.verb_told("keep the canary", "Skipped the canary") == ()
    assert sameness.verb_told("bypass the load balancer", "Skipped the load test") == ()
    assert sameness.verb_told("switch off the limiter", "Disabled the limiter") == (
        "switch",
        "off",
    )


def test_what_an_action_is_done_to_is_told_from_when_it_is_done():
    assert sameness.other_object("deploy on Friday", "Deployed the Friday report")
    assert not sameness.other_object("deploy on Friday", "Deployed the service on Friday")
    assert not sameness.other_object("deploy on Friday", "Deployed on Friday evening")
    assert not sameness.other_object("go with SQLite", "Ana and others went with SQLite")
    assert not sameness.other_object(
        "switch to spot instances", "Switched the batch jobs to spot instances"
    )
    assert not sameness.other_object("deploy the Friday report", "Deployed the Friday report")


def test_the_people_a_telling_names_are_written_names_not_a_group():
    people = ["Tim", "John", "Will"]
    assert sameness.people_named("Tim snapped that pic on Tim's trip", people) == {"Tim"}
    assert sameness.people_named("Tim and others will go", people) == set()  # "we", and a verb
    assert sameness.people_named("Will's trip with John", people) == {"Will", "John"}
    tim, john = frozenset({"Tim"}), frozenset({"John"})
    assert sameness.different_people(tim, john)
    assert not sameness.different_people(tim, tim | john)
    assert not sameness.different_people(tim, frozenset())  # naming nobody says nothing


def test_conflicts_name_why_two_mentions_are_different_events():
    m = _mention()
    assert sameness.conflict(m, m) is None
    assert sameness.conflict(m, _mention(decision=True))
    assert sameness.conflict(m, _mention(task_tag="other"))
    assert sameness.conflict(m, _mention(polarity=0.7))
    assert sameness.conflict(m, _mention(recurrence=True))
    assert sameness.conflict(_mention(actor="Ana"), _mention(actor="Ben"))
    assert sameness.conflict(_mention(actor="Ana"), m) is None  # "Restarting ..." names nobody
    f1, f10 = sameness.identifiers("Enabled flag f1"), sameness.identifiers("Enabled flag f10")
    assert sameness.conflict(_mention(identifiers=f1), _mention(identifiers=f10))
    assert sameness.identifiers("hit 100% disk on db3") == {"db3"}


def test_spans_that_do_not_overlap_are_different_times_and_a_missing_span_says_nothing():
    day, week = (0.0, 86_400.0), (0.0, 7 * 86_400.0)
    next_day = (86_400.0, 2 * 86_400.0)
    assert sameness.different_times(day, next_day)
    assert not sameness.different_times(next_day, week)  # a day in the week told of
    assert not sameness.different_times(day, None) and not sameness.different_times(None, None)


def test_one_word_in_common_besides_the_actor_is_not_a_retelling():
    flat = lambda _: 1.0  # noqa: E731
    funding = _mention(actor=None, polarity=0.5)
    cheer = _mention(actor="John", polarity=0.5)
    assert sameness.same_event("They got the funding", funding, "John got this!", cheer, flat) == 0
    told = sameness.same_event(
        "the checkout database ran out of connections", _mention(),
        "connection exhaustion on the checkout database", _mention(), flat,
    )  # fmt: skip
    assert told >= sameness.SAME_EVENT


def test_a_we_is_who_did_it_not_words_two_tellings_share():
    flat = lambda _: 1.0  # noqa: E731
    trophy, won = "John and others even won a trophy!", "John and others won!"
    assert sameness.same_event(trophy, _mention(), won, _mention(), flat) == 0
    told = sameness.same_event(
        "Ana and others restarted the checkout workers", _mention(),
        "Bo and others restarted the checkout workers", _mention(), flat,
    )  # fmt: skip
    assert told >= sameness.SAME_EVENT  # a teammate's "we" still retells it


def test_a_recurrence_is_read_from_again_another_recurred():
    for text in ("the disk filled up again", "another outage hit", "the leak recurred"):
        assert sameness.RECURRENCE.search(text)
    assert not sameness.RECURRENCE.search("the disk filled up")


def test_the_actor_is_a_name_before_a_past_tense_verb():
    assert extract.actor("Ana restarted the workers") == "Ana"
    assert extract.actor("Ana quickly put a cap on it") == "Ana"
    assert extract.actor('Joanna just watched "Little Women"') == "Joanna"
    assert extract.actor("Restarting the workers") is None
    assert extract.actor("The deleted logs") is None
    assert extract.actor("Nimbus checkout exhausted its connections") is None  # a product
    assert extract.actor("Acme escalated a sev-1") == "Acme"
    assert extract.actor("Connection exhaustion on Nimbus") is None


words = st.dictionaries(st.sampled_from("abcdefghij"), st.floats(0.1, 5.0), max_size=8)


@given(words, words)
def test_overlap_is_symmetric_and_a_share(a, b):
    x = sameness.overlap(a, b)
    assert 0.0 <= x <= 1.0
    assert abs(x - sameness.overlap(b, a)) < 1e-12
    if a:
        assert abs(sameness.overlap(a, a) - 1.0) < 1e-12


@given(st.integers(0, 5000), st.integers(0, 5000))
def test_rarer_words_weigh_more(df1, df2):
    lo, hi = sorted((df1, df2))
    assert scoring.rarity(lo, 1000) >= scoring.rarity(hi, 1000) >= scoring.rarity(10**6, 1000)
    assert scoring.rarity(hi, 1000) > 0


def test_a_fix_said_not_to_have_held_is_the_fix_recorded_before_in_other_words(memory, clock):
    fix = _session(
        memory, clock,
        "Dev added a cron job that restarts Nimbus checkout nightly, so the Nimbus checkout "
        "connection errors went away.",
    )  # fmt: skip
    clock.advance(days=10)
    again = _session(
        memory, clock,
        "Restarting the Nimbus checkout app servers every night did not fix it after all: "
        "the Nimbus checkout database ran out of connections again.",
    )  # fmt: skip
    (cron,) = _nodes(fix, "decision")
    assert [n.id for n in _nodes(again, "decision")] == [cron.id]
    updates = memory.resolve_updates(apply=True).updates
    assert [u.old.outcome for u in updates] == ["The Nimbus checkout connection errors went away."]


def test_a_fix_said_not_to_have_held_is_not_a_decision_that_went_badly(memory, clock):
    bad = _session(
        memory, clock,
        "Dev added a cron job that restarts Nimbus checkout nightly, and as a result the "
        "Nimbus checkout database ran out of connections.",
    )  # fmt: skip
    again = _session(
        memory, clock,
        "Restarting the Nimbus checkout app servers every night did not fix it after all: "
        "the Nimbus checkout database ran out of connections again.",
    )  # fmt: skip
    (cron,) = _nodes(bad, "decision")
    assert cron.id not in {n.id for n in again.nodes}


def test_one_person_doing_two_things_to_one_product_makes_two_decisions(memory):
    a = memory.record_decision("Kai added a cron job to Centaurus", "Centaurus got a cron job")
    b = memory.record_decision("Kai added an index to Centaurus", "Centaurus got an index")
    assert a.decision.id != b.decision.id


def test_a_decision_told_later_without_its_actor_keeps_the_actor(memory, clock):
    fix = _session(
        memory, clock,
        "Tess manually deleted Nimbus reporting logs, so Nimbus reporting got its free space "
        "back.",
    )  # fmt: skip
    _session(
        memory, clock,
        "The deleted Nimbus reporting logs did not hold up: Nimbus reporting hit a full disk "
        "again soon after.",
    )  # fmt: skip
    other = _session(
        memory, clock,
        "Jonas dropped Nimbus reporting logs to info, so Nimbus reporting storage stayed flat.",
    )  # fmt: skip
    (deleted,) = _nodes(fix, "decision")
    assert deleted.id not in {n.id for n in _nodes(other, "decision")}


def test_what_that_stood_for_is_an_aside_not_what_happened(memory, clock):
    memory.remember(
        messages="Ana: The worker count doubled.\nBen: That exhausted the connection pool.",
        date="2026-11-02",
    )
    (cause,) = memory.trace_cause("exhausted the connection pool").causes
    assert cause.lesson.decision == "The worker count doubled."
    assert cause.lesson.outcome.endswith("exhausted the connection pool.")
    assert sameness.told("That (The worker count doubled) exhausted the pool") == (
        "That exhausted the pool"
    )


def test_it_standing_for_two_different_things_is_two_events(memory, clock):
    memory.remember(
        messages="John: I wrote quotes on a whiteboard. It really helps me stay motivated.",
        date="2026-11-02",
    )
    clock.advance(days=20)
    memory.remember(
        messages="John: I visualize my goals. It really helps me stay motivated.",
        date="2026-11-22",
    )
    helped = memory.trace_cause("helps John stay motivated").causes
    assert {c.lesson.decision for c in helped} >= {
        "John wrote quotes on a whiteboard.",
        "John visualizes John's goals.",
    }
    assert len({c.lesson.outcome_id for c in helped}) == 2
    assert sameness.different_referents("It (a) helps", "It (b) helps")
    assert not sameness.different_referents("It (a) helps", "It (a) helped a lot")


def test_it_standing_for_one_thing_told_in_other_words_is_one_event(memory, clock):
    for article in ("a", "the"):
        memory.remember(
            messages=f"Ana: We added {article} cache to the build server. It kept the builds fast.",
            date="2026-11-02",
        )
    kept = memory.trace_cause("kept the builds fast").causes
    assert len({c.lesson.outcome_id for c in kept}) == 1

"""'Since', 'as' and 'once' tell a cause when they open a clause that happened ("since the cache
was cold", "as the disk filled up", "once we added the index"), and only then: "since Monday",
"as expected" and "once a week" tell a time, a manner or how often."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from ebbtide.extract import CAUSAL, extract
from ebbtide.transcript import Message


def _postmortem(memory, clock, *lines: str):
    clock.advance(days=1)
    return memory.remember(
        messages=[{"speaker": "Lena", "text": line} for line in lines],
        date=clock().isoformat(),
        task_tag="checkout",
    )


def _steps(memory, outcome: str) -> list[tuple[str, str, str]]:
    chains = memory.trace_cause_chain(outcome).chains
    assert chains, f"no chain reaches {outcome!r}"
    return [(s.decision, s.relation, s.outcome) for s in chains[0].steps]


def causal_links(said: str, speaker: str = "") -> list[tuple[str, str, str]]:
    ex = extract([Message("m0", speaker, said)], None)
    return [
        (ex.items[ln.src].text, ln.relation, ex.items[ln.dst].text)
        for ln in ex.links
        if ln.relation in CAUSAL
    ]


# -- what now reads as a cause -----------------------------------------------------------------


@pytest.mark.parametrize(
    "said",
    [
        "Since the checkout cache was cold, checkout latency spiked.",
        "Checkout latency spiked since the checkout cache was cold.",
    ],
)
def test_a_latency_spike_traces_back_to_the_cold_cache_since_names(memory, clock, said):
    _postmortem(memory, clock, said)
    ((cause, relation, effect),) = _steps(memory, "checkout latency spiked")
    assert cause.startswith("The checkout cache was cold")
    assert relation == "caused"
    assert effect.startswith("Checkout latency spiked")


@pytest.mark.parametrize(
    "said",
    [
        "As the database disk filled up, checkout writes started failing.",
        "Checkout writes started failing as the database disk filled up.",
    ],
)
def test_failing_writes_trace_back_to_the_disk_filling_up_as_names(memory, clock, said):
    _postmortem(memory, clock, said)
    ((cause, relation, effect),) = _steps(memory, "checkout writes started failing")
    assert cause.startswith("The database disk filled up")
    assert relation == "caused"
    assert effect.startswith("Checkout writes started failing")


def test_writes_failing_as_the_disk_was_full_is_an_effect_of_the_full_disk(memory, clock):
    _postmortem(memory, clock, "Checkout writes failed as the database disk was full.")
    ((cause, _, _),) = _steps(memory, "checkout writes failed")
    assert cause.startswith("The database disk was full")


def test_what_adding_an_index_enabled_once_it_was_added_is_predicted_of_adding_it(memory, clock):
    _postmortem(memory, clock, "Search latency dropped once we added the orders index.")
    consequences = memory.intervention_query("add the orders index").consequences
    assert any(c.node.text.startswith("Search latency dropped") for c in consequences)
    ((cause, relation, _),) = _steps(memory, "search latency dropped")
    assert cause == "Lena and others added the orders index."
    assert relation == "enabled"


def test_latency_dropping_once_the_cache_warmed_up_traces_to_the_warm_cache(memory, clock):
    _postmortem(memory, clock, "Once the checkout cache warmed up, checkout latency dropped.")
    ((cause, relation, effect),) = _steps(memory, "checkout latency dropped")
    assert cause.startswith("The checkout cache warmed up")
    assert relation == "enabled"
    assert effect.startswith("Checkout latency dropped")


def test_a_cause_told_with_since_is_a_chain_link_like_one_told_with_because(memory, clock):
    _postmortem(
        memory,
        clock,
        "Since the checkout cache was cold, checkout latency spiked.",
        "The checkout latency spike caused the Acme escalation.",
    )
    ((root, _, _), *_) = _steps(memory, "the Acme escalation")
    assert root.startswith("The checkout cache was cold")


@pytest.mark.parametrize(
    ("said", "relation"),
    [
        ("Since the cache was cold, latency spiked.", "caused"),
        ("Writes failed as the disk was full.", "caused"),
        ("Once the cache warmed up, latency dropped.", "enabled"),
    ],
)
def test_each_cue_is_a_weaker_link_than_because_as_it_often_tells_only_when(said, relation):
    ex = extract([Message("m0", "", said)], None)
    (link,) = [ln for ln in ex.links if ln.relation in CAUSAL]
    assert link.relation == relation
    assert link.weight < 0.8


@pytest.mark.parametrize(
    ("said", "outcome", "cause", "relation"),
    [
        ("As checkout traffic grew, checkout latency rose.", "checkout latency rose",
         "Checkout traffic grew", "caused"),
        ("Checkout latency rose as checkout traffic grew.", "checkout latency rose",
         "Checkout traffic grew", "caused"),
        ("Since checkout errors spiked, the deploy was rolled back.", "the deploy was rolled back",
         "Checkout errors spiked", "caused"),
        ("The deploy was rolled back since checkout errors spiked.", "the deploy was rolled back",
         "Checkout errors spiked", "caused"),
        ("After checkout traffic doubled, the session cache fell over.",
         "the session cache fell over", "Checkout traffic doubled", "caused"),
        ("The session cache fell over after checkout traffic doubled.",
         "the session cache fell over", "Checkout traffic doubled", "caused"),
        ("Once checkout traffic dropped, checkout latency recovered.", "checkout latency recovered",
         "Checkout traffic dropped", "enabled"),
    ],
)  # fmt: skip
def test_a_cue_clause_whose_subject_has_no_article_is_the_cause(
    memory, clock, said, outcome, cause, relation
):
    _postmortem(memory, clock, said)
    ((root, told, _),) = _steps(memory, outcome)
    assert root.startswith(cause)
    assert told == relation


# -- what stays a time, a manner, or how often ---------------------------------------------------


@pytest.mark.parametrize(
    "said",
    [
        # since: a time, or a span up to now
        "Since Monday, checkout errors have dropped.",
        "Since the migration, checkout errors have dropped.",
        "Checkout errors have dropped since the migration.",
        "Checkout errors have dropped since we added the index.",
        "Since we added the index, checkout errors have dropped.",
        "Ever since we moved to Postgres, the queries were slow.",
        "The queries were slow ever since we moved to Postgres.",
        "It has been a while since we talked.",
        "It was two years since we shipped the last release.",
        "It was the worst outage since we moved to AWS.",
        "Since I was a kid, I loved trains.",
        # since: the last time people talked, in chat
        "A lot's happened since we talked.",
        "Since we last spoke, I took my kids to a park.",
        "Hey John, been a while since we chatted.",
        "It made me reflect on how far I've come since I started transitioning.",
        # as: a manner, an aside, a comparison, a time, a role
        "As expected, the deploy failed.",
        "As usual, the build broke.",
        "As I said, the deploy failed.",
        "The deploy failed, as we feared.",
        "The disk was full, as it turned out.",
        "We use tools such as Grafana.",
        "Writes were as fast as the reads were.",
        "The cluster stayed as stable as it was before.",
        "We kept the logs as well as the metrics were kept.",
        "Ben left as soon as the build finished.",
        "As part of the migration, we dropped the old table.",
        "As we were leaving, the alarm went off.",
        "As a kid I loved trains.",
        "The pods restarted at the same time as the deploy finished.",
        # once: how often, or at the same time
        "We deploy once a week.",
        "The alerts fired at once.",
        "Once again, the build broke.",
        "For once, the build passed.",
        "The alerts all fired at once when the deploy finished.",
        "I'll let you know once I'm done reading it.",
        # a time with no article before what happened
        "Since last week we rolled back the deploy.",
        "Since lunch errors spiked.",
        "Once again we rolled back the deploy.",
        "Once again latency rose.",
        "After lunch we rolled back the deploy.",
        "After work everyone left.",
        "As time went on, the queries got slower.",
        "As years passed, the codebase rotted.",
        "As usual things broke.",
        "As expected latency rose.",
        "Since starting therapy things improved.",
        "After the weekend, errors spiked.",
        "After this morning, latency rose.",
    ],
)
def test_a_time_a_manner_or_how_often_is_no_cause(said):
    assert causal_links(said) == []
    assert causal_links(said, "Ana") == []


@pytest.mark.parametrize(
    "said",
    [
        "Since the deploy failed, check the dashboard.",
        "Roll back the deploy since the cache was cold.",
        "As the disk filled up, page the on-call.",
        "Once the deploy finished, check the dashboard.",
        "Once the cache warmed up, don't restart it.",
    ],
)
def test_what_a_note_tells_the_reader_to_do_is_no_effect_of_since_as_or_once(said):
    ex = extract([Message("m0", "", said)], None)
    assert [ln for ln in ex.links if ln.relation in CAUSAL] == []
    assert [it.text for it in ex.items if it.kind == "outcome"] == []


@pytest.mark.parametrize(
    "said",
    [
        "Since the cache was cold, did latency spike?",
        "Did latency spike since the cache was cold?",
        "Did writes fail as the disk was full?",
        "Did latency drop once we added the index?",
    ],
)
def test_a_question_with_since_as_or_once_claims_no_cause(said):
    assert causal_links(said) == []


def test_once_opening_a_clause_that_tells_a_cause_keeps_that_cause():
    """As with "when": the claim is the clause "once" opens, not a link to what followed."""
    assert causal_links("Once the migration caused the outage, we rolled back.") == [
        ("The migration", "caused", "The outage")
    ]


# -- properties -----------------------------------------------------------------------------------

TIMES = [
    "Monday", "last week", "the migration", "2019", "March 3rd", "then", "the outage",
    "yesterday", "the deploy on Friday", "early May", "the last release", "this morning",
]  # fmt: skip
SPANS = [
    "latency has spiked", "errors have dropped", "the queries have been slow",
    "Ben has been on call", "we've had no outages", "it has been quiet",
]  # fmt: skip
EVENTS = ["latency spiked", "errors dropped", "the queries were slow", "Ben was on call"]
CLAUSES = ["we talked", "we moved to Postgres", "the cache was cold", "Ben joined the team"]


def _since(before: str, told: str, lead: bool, ever: bool) -> str:
    since = "ever since" if ever else "since"
    if lead:
        return f"{since.capitalize()} {before}, {told}."
    return f"{told[:1].upper()}{told[1:]} {since} {before}."


@given(
    st.one_of(
        st.tuples(st.sampled_from(TIMES), st.sampled_from(SPANS + EVENTS), st.just(False)),
        st.tuples(st.sampled_from(CLAUSES), st.sampled_from(SPANS), st.just(False)),
        st.tuples(st.sampled_from(CLAUSES), st.sampled_from(EVENTS), st.just(True)),
    ),
    st.booleans(),
    st.sampled_from(["", "Ana"]),
)
def test_since_telling_when_never_makes_a_link(told, lead, speaker):
    """'Since' before a time ("since Monday", "since the migration"), before what happened
    with a span up to now told beside it ("errors have dropped since we …"), or after "ever",
    tells when, not why."""
    before, said, ever = told
    assert causal_links(_since(before, said, lead, ever), speaker) == []


BARE_TIMES = [
    "last week", "lunch", "Monday", "then", "again", "yesterday", "a while", "dinner", "work",
    "this morning", "school", "March", "last night", "the weekend", "2019", "today", "summer",
    "a few days", "two weeks ago", "early May",
]  # fmt: skip
HAPPENED = [
    "we rolled back the deploy", "errors spiked", "latency rose", "the cache fell over",
    "Ben left", "traffic doubled", "checkout broke",
]  # fmt: skip


@given(
    st.sampled_from(["since", "as", "once", "after", "ever since"]),
    st.sampled_from(BARE_TIMES),
    st.sampled_from(HAPPENED),
    st.sampled_from(["", ","]),
    st.sampled_from(["", "Ana"]),
)
def test_a_time_after_a_cue_never_makes_a_link(cue, time, happened, comma, speaker):
    """'Since last week we rolled back', 'After lunch, errors spiked', 'Once again latency
    rose': a time after the cue tells when what follows happened, with or without a comma."""
    said = f"{cue.capitalize()} {time}{comma} {happened}."
    assert causal_links(said, speaker) == []


# -- ", which ..." ----------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("said", "effect", "cause"),
    [
        ("Ben restarted the workers, which cleared the queue.",
         "It (Ben restarted the workers) cleared the queue.", "Ben restarted the workers"),
        ("The team rolled back the deploy, which fixed checkout.",
         "It (The team rolled back the deploy) fixed checkout.",
         "The team rolled back the deploy"),
        ("The deploy broke checkout, which cost us sales.",
         "It (The deploy broke checkout) cost Lena and others sales.",
         "The deploy broke checkout"),
    ],
)  # fmt: skip
def test_what_a_which_clause_says_came_of_it_reads_as_its_consequence_not_the_whole_sentence(
    memory, clock, said, effect, cause
):
    _postmortem(memory, clock, said)
    assert (cause, "caused", effect) in _steps(memory, effect)
    outcomes = [n.text for n in memory.store.find_nodes(kind="outcome", limit=100)]
    assert [o for o in outcomes if "which" in o] == []


# -- "after the deploy": a failure told after a thing done ----------------------------------------


def test_checkout_breaking_after_the_deploy_told_before_traces_back_to_the_deploy(memory, clock):
    _postmortem(memory, clock, "We deployed the new build. Checkout broke after the deploy.")
    ((cause, relation, effect),) = _steps(memory, "checkout broke")
    assert cause.startswith("Lena and others deployed the new build")
    assert relation == "caused"
    assert effect.startswith("Checkout broke after the deploy")


@pytest.mark.parametrize(
    "said",
    [
        "We deployed the new build. Checkout broke after the deploy.",
        "We deployed the new build and checkout broke after the deploy.",
        "Ana migrated the orders DB. Logins failed after the migration.",
    ],
)
def test_a_failure_after_a_doing_told_in_the_note_is_a_weak_link_from_it(said):
    (link,) = [ln for ln in _extracted(said).links if ln.relation in CAUSAL]
    ex = _extracted(said)
    assert ex.items[link.dst].kind == "outcome"
    assert ex.items[link.dst].attributes["polarity_label"] == "negative"
    assert link.weight == 0.5  # as weak as "… and the outage followed"


def test_a_failure_after_a_doing_never_told_is_a_bad_outcome_with_no_cause():
    ex = _extracted("Checkout broke after the deploy.")
    ((item),) = ex.items
    assert (item.kind, item.attributes["polarity_label"]) == ("outcome", "negative")
    assert ex.links == []


@pytest.mark.parametrize(
    "said", ["The meeting ran long after lunch.", "The meeting ran long after the standup."]
)
def test_what_ran_on_after_something_is_no_failure(said):
    ((item),) = _extracted(said).items
    assert item.kind != "outcome" and "polarity" not in item.attributes


def _extracted(said: str):
    return extract([Message("m0", "", said)], None, note=True)

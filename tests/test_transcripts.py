"""Remembering a conversation: extracted items with their sources, causal links, one tool."""

from __future__ import annotations

import json
import sqlite3
from datetime import UTC, datetime

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from ebbtide import ValidationError, open_memory, told
from ebbtide.transcript import Message

STORY = [
    {"id": "t1", "speaker": "Ana", "text": "We skipped the load test before the sale."},
    {"id": "t2", "speaker": "Ben", "text": "That caused a checkout outage on Saturday."},
    {"id": "t3", "speaker": "Ana", "text": "The outage led to an escalation from Acme Retail."},
    {"id": "t4", "speaker": "Chi", "text": "I love hiking in the Alps."},
]


def test_a_narrated_incident_becomes_a_traceable_chain(memory):
    result = memory.remember(messages=STORY, date="2026-03-01T10:00:00+00:00")
    assert result.messages == 4
    chain = memory.trace_cause_chain("escalation from Acme Retail").chains[0]
    assert "load test" in chain.steps[0].decision
    assert [s.relation for s in chain.steps] == ["caused", "caused"]


def test_a_tool_named_in_one_word_is_the_root_cause_traced(memory):
    memory.remember(
        messages=[
            {"speaker": "Ana", "text": "The checkout outage on Saturday was the worst this year."},
            {"speaker": "Ben", "text": "Kafka caused the outage: a broker ran out of disk."},
        ],
        date="2026-03-01T10:00:00+00:00",
    )
    chain = memory.trace_cause_chain("checkout outage").chains[0]
    assert chain.steps[0].decision == "Kafka"


def test_a_yeah_before_that_caused_traces_back_to_what_the_turn_before_told(memory):
    memory.remember(
        messages=[
            {"speaker": "Dana", "text": "We raised the pool size to 500."},
            {"speaker": "Ben", "text": "Yeah that caused the login outage."},
        ],
        date="2026-03-01T10:00:00+00:00",
    )
    chain = memory.trace_cause_chain("login outage").chains[0]
    assert "raised the pool size to 500" in chain.steps[0].decision
    assert all(
        s.decision != "Yeah"
        for c in memory.trace_cause_chain("login outage").chains
        for s in c.steps
    )


def test_a_postmortem_told_in_words_traces_to_its_root_cause(memory):
    memory.remember(
        messages=[
            {"speaker": "Ana", "text": "The checkout outage lasted two hours on Saturday."},
            {"speaker": "Ben", "text": "What was the root cause?"},
            {"speaker": "Ana", "text": "The root cause was a misconfigured load balancer."},
            {"speaker": "Ben", "text": "Rolling back the config fixed the checkout."},
        ],
        date="2026-03-01T10:00:00+00:00",
    )
    chain = memory.trace_cause_chain("checkout outage").chains[0]
    assert chain.steps[0].decision == "A misconfigured load balancer."
    answer = memory.intervention_query("roll back the config")
    assert answer.verdict == "SAFE"
    assert any("fixed the checkout" in c.node.text for c in answer.consequences)


def test_a_chat_remembers_the_people_in_it_and_not_its_sentence_adverbs(memory):
    memory.remember(
        messages=[
            {"speaker": "Melanie", "text": "Marrying my partner was the best part."},
            {"speaker": "Caroline", "text": "That's lovely! How's your family?"},
            {"speaker": "Melanie", "text": "Thankfully, my son's ok after the accident."},
            {"speaker": "Caroline", "text": "Honestly Priya said I worry too much."},
            {"speaker": "Melanie", "text": "We went camping with Bo last summer."},
        ],
        date="2023-07-03T10:00:00+00:00",
    )
    people = {n.text for n in memory.store.iter_nodes() if n.kind == "person"}
    assert people == {"Melanie", "Caroline", "Priya", "Bo"}


def test_choices_told_in_chat_learn_from_the_verdicts_that_follow(memory):
    memory.remember(
        messages=[
            {"speaker": "Ana", "text": "We went with SQLite because it needs no server."},
            {"speaker": "Ben", "text": "It paid off: no ops burden at all."},
            {"speaker": "Ana", "text": "We chose the managed queue because it was cheaper."},
            {"speaker": "Ben", "text": "That was a mistake: the vendor had a two-day outage."},
        ],
        date="2026-03-01T10:00:00+00:00",
    )
    q = {n.text: n.q_value for n in memory.find(kind="decision")}
    assert q["Ana and others went with SQLite"] > 0 > q["Ana and others chose the managed queue"]
    assert memory.intervention_query("choose the managed queue").verdict == "DANGER"
    assert memory.intervention_query("go with SQLite").verdict == "SAFE"
    why = memory.trace_cause_chain("vendor had a two-day outage").chains[0]
    assert [s.decision for s in why.steps] == [
        "It (the managed queue) was cheaper.",
        "Ana and others chose the managed queue",
    ]


def test_a_verdict_told_whole_stays_apart_from_what_it_judges(memory):
    memory.remember(
        messages=[
            {
                "speaker": "Ana",
                "text": "Skipping the load test before the spring sale was a mistake; checkout"
                " stalled for an hour.",
            },
            {"speaker": "Chi", "text": "That led to an angry escalation from Acme Retail."},
        ],
        date="2026-03-01T10:00:00+00:00",
    )
    chain = memory.trace_cause_chain("escalation from Acme Retail").chains[0]
    assert [s.decision for s in chain.steps] == [
        "Skipping the load test before the spring sale",
        "Skipping the load test before the spring sale was a mistake; checkout stalled for an"
        " hour.",
    ]
    assert [s.polarity < 0 for s in chain.steps] == [True, True]
    assert memory.intervention_query("skip the load test before a sale").verdict == "DANGER"
    # The middle outcome keeps its score although a later link starts from it.
    assert [n.polarity < 0 for n in memory.find(kind="outcome")] == [True, True]


CHOICES = [
    {"id": "c1", "speaker": "Ana", "text": "We went with SQLite because it needs no server."},
    {"id": "c2", "speaker": "Ben", "text": "It paid off: no ops burden at all."},
    {"id": "c3", "speaker": "Ana", "text": "We chose the managed queue because it was cheaper."},
]
VERDICT = {"id": "c4", "speaker": "Ben", "text": "That was a mistake: the vendor went down."}


def q_values(memory):
    return {n.text: n.q_value for n in memory.find(kind="decision")}


def test_a_conversation_sent_again_teaches_nothing_twice(memory):
    first = memory.remember(messages=CHOICES, date="2026-03-01T10:00:00+00:00")
    learned, stored = q_values(memory), memory.stats().nodes
    for date in ("2026-03-01T10:00:00+00:00", "2026-03-09T10:00:00+00:00"):
        again = memory.remember(messages=CHOICES, date=date)
        assert (again.known, again.nodes, again.edges) == (3, [], [])
        assert q_values(memory) == learned and memory.stats().nodes == stored
    assert first.known == 0 and learned["Ana and others went with SQLite"] > 0


def test_an_overlapping_window_stores_only_what_is_new(memory):
    memory.remember(messages=CHOICES, date="2026-03-01T10:00:00+00:00")
    sqlite_q = q_values(memory)["Ana and others went with SQLite"]
    result = memory.remember(messages=[*CHOICES[1:], VERDICT], date="2026-03-02T10:00:00+00:00")
    assert result.known == 2
    # The verdict is read against what it answers, told in the call before.
    assert memory.intervention_query("choose the managed queue").verdict == "DANGER"
    assert q_values(memory)["Ana and others went with SQLite"] == sqlite_q
    assert len(memory.find(kind="outcome")) == 2


SAYINGS = [
    "We went with SQLite because it needs no server.",
    "It paid off: no ops burden at all.",
    "The deploy caused a checkout outage on Saturday.",
    "That was a mistake.",
    "I love hiking in the Alps.",
    "Rolling back the config fixed the checkout.",
    "We skipped the load test before the sale.",
    "That led to an escalation from Acme Retail.",
]


def sent(turns, numbered: bool):
    """The turns as an agent sends them: with ids, or with no id and a time each."""
    if numbered:
        return [
            {"speaker": who, "text": text, "time": f"2026-03-01T10:{i:02d}:00Z"}
            for i, (who, text) in enumerate(turns)
        ]
    return [{"id": f"t{i}", "speaker": who, "text": text} for i, (who, text) in enumerate(turns)]


@settings(max_examples=40, deadline=None)
@given(
    st.lists(
        st.tuples(st.sampled_from(["Ana", "Ben"]), st.sampled_from(SAYINGS)), min_size=1, max_size=6
    ),
    st.integers(min_value=0, max_value=6),
    st.booleans(),
)
def test_any_conversation_remembered_again_from_any_turn_changes_nothing(turns, start, numbered):
    messages = sent(turns, numbered)
    start = min(start, len(messages) - 1)  # a window holds at least one message
    with open_memory(":memory:", embeddings="none") as mem:
        mem.remember(messages=messages, date="2026-03-01T10:00:00+00:00")
        before = ([n.model_dump() for n in mem.find(limit=200)], mem.stats().edges)
        # Another day, and (with no ids) the window's numbers shifted by `start`.
        again = mem.remember(messages=messages[start:], date="2026-03-04T10:00:00+00:00")
        assert again.known == len(messages[start:]) and again.nodes == []
        assert ([n.model_dump() for n in mem.find(limit=200)], mem.stats().edges) == before
        # ... and beside a new message, the known ones change nothing they told.
        news = {"speaker": "Chi", "text": "The office plants need water."}
        news |= {"time": "2026-03-01T11:00:00Z"} if numbered else {"id": "new"}
        mem.remember(messages=[*messages[start:], news], date="2026-03-05T10:00:00+00:00")
        after = {n.id: n.model_dump() for n in mem.find(limit=200)}
        assert [after.get(n["id"]) for n in before[0]] == before[0]


def test_a_known_verdict_is_not_learned_again_through_a_repeated_or_reread_message(memory):
    memory.remember(messages=[CHOICES[2], VERDICT], date="2026-03-01T10:00:00+00:00")
    learned = q_values(memory)
    repeat = {**CHOICES[2], "id": "c5"}  # the choice said again, word for word
    memory.remember(messages=[CHOICES[2], VERDICT, repeat], date="2026-03-02T10:00:00+00:00")
    assert q_values(memory) == learned
    # Read without the message before it, "So we went with it" is another text than stored.
    told = [
        {"id": "k0", "speaker": "Ana", "text": "The managed queue was cheaper."},
        {"id": "k1", "speaker": "Ben", "text": "So we went with it. That was a mistake."},
    ]
    memory.remember(messages=told, date="2026-03-03T10:00:00+00:00")
    learned, stored = q_values(memory), memory.stats().nodes
    noted = {"id": "k2", "speaker": "Ana", "text": "The office plants need water."}
    memory.remember(messages=[told[1], noted], date="2026-03-03T10:00:00+00:00")
    assert q_values(memory) == learned and memory.stats().nodes == stored + 1


def test_a_verdict_in_a_later_window_judges_a_choice_stored_before_any_verdict(memory):
    skipped = {"id": "x1", "speaker": "Ana", "text": "We skipped the load test before the promo."}
    verdict = {"id": "x2", "speaker": "Ben", "text": "That was a mistake: checkout stalled."}
    memory.remember(messages=[skipped], date="2026-06-01T10:00:00+00:00")  # an event, so far
    memory.remember(messages=[skipped, verdict], date="2026-06-01T10:05:00+00:00")
    assert memory.intervention_query("skip the load test before a promo").verdict == "DANGER"


def test_a_known_message_read_otherwise_in_a_later_window_still_carries_its_links(memory):
    told = [
        {"id": "s1", "speaker": "Ana", "text": "We went with SQLite."},
        {"id": "s2", "speaker": "Ben", "text": "It paid off: no ops burden."},
    ]
    memory.remember(messages=told, date="2026-06-01T10:00:00+00:00")
    # Without s1, s2 reads "It paid off: no ops burden." and not "It (…SQLite) paid off…".
    more = {"id": "s3", "speaker": "Chi", "text": "That led to more time for features."}
    memory.remember(messages=[told[1], more], date="2026-06-02T10:00:00+00:00")  # the day after
    chain = memory.trace_cause_chain("more time for features").chains[0]
    assert [s.decision for s in chain.steps] == [
        "Ana and others went with SQLite.",
        "It (Ana and others went with SQLite) paid off: no ops burden.",
    ]


def test_a_verdict_in_a_shifted_window_of_timed_lines_reaches_the_choice(memory):
    postgres = {"speaker": "Ana", "text": "We picked Postgres.", "time": "2026-03-01T10:00:00Z"}
    sqlite = {"speaker": "Ben", "text": "We went with SQLite.", "time": "2026-03-01T10:01:00Z"}
    paid = {"speaker": "Ben", "text": "It paid off: no ops work.", "time": "2026-03-01T10:02:00Z"}
    memory.remember(messages=[postgres, sqlite])
    # The window moved on: SQLite's line is numbered m1 now, not m2.
    assert memory.remember(messages=[sqlite, paid]).known == 1
    assert memory.intervention_query("go with SQLite").verdict == "SAFE"


def test_lines_with_no_id_time_or_date_are_always_news(memory):
    line = "Ana: The deploy failed again."
    memory.remember(messages=line)
    assert memory.remember(messages=line).known == 0  # another day's failure, for all we know


def test_what_a_message_is_known_by_stays_as_stored():
    """The keys are kept in stores and exports: changing them makes every message news."""
    said = datetime(2026, 3, 1, 10, tzinfo=UTC)
    sqlite = "We went with SQLite."
    assert told.key(Message("c1", "Ana", sqlite), None, "default") == (
        "told:d53a1371f8a3d8a484f88cff1db0a3e2"
    )
    assert told.key(Message("m1", "Ana", sqlite, said, numbered=True), None, "default") == (
        "told:099abd42c167783e8a3290bd4090856d"
    )
    assert told.key(Message("m1", "Ana", sqlite, numbered=True), said, "default") == (
        "told:197b3b13e37d746f16d1bf431deea197"
    )
    # ... in whichever conversation it is placed: a window that grew is named anew
    placed = Message("k3x9q2ab.m1", "Ana", sqlite, numbered=True, conversation="k3x9q2ab")
    assert told.key(placed, said, "default") == "told:197b3b13e37d746f16d1bf431deea197"


def test_lines_without_ids_said_on_another_day_are_news(memory):
    line = "Ana: We rolled back the deploy."
    memory.remember(messages=line, date="2026-03-01T10:00:00+00:00")
    assert memory.remember(messages=line, date="2026-03-01T10:00:00+00:00").known == 1
    assert memory.remember(messages=line, date="2026-03-02T10:00:00+00:00").known == 0


def test_lines_without_ids_are_known_by_their_time_in_any_window_and_offset(memory):
    lines = [
        {"speaker": "Ana", "text": "We went with SQLite.", "time": "2026-03-01T10:00:00Z"},
        {"speaker": "Ben", "text": "It paid off.", "time": "2026-03-01T10:05:00Z"},
    ]
    memory.remember(messages=lines)
    learned = q_values(memory)
    shifted = {**lines[1], "time": "2026-03-01T11:05:00+01:00"}  # the same instant
    news = {"speaker": "Chi", "text": "The plants need water.", "time": "2026-03-01T10:09:00Z"}
    again = memory.remember(messages=[shifted, news])
    assert again.known == 1 and q_values(memory) == learned


def test_a_message_told_in_one_scope_is_news_in_another(memory):
    memory.remember(messages=CHOICES, date="2026-03-01T10:00:00+00:00", scope="team-a")
    other = memory.remember(messages=CHOICES, date="2026-03-01T10:00:00+00:00", scope="team-b")
    assert other.known == 0 and other.nodes


def test_every_extracted_item_keeps_the_ids_of_its_messages(memory):
    result = memory.remember(messages=STORY)
    assert all(n.sources for n in result.nodes)
    hit = memory.recall("hiking in the Alps").hits[0]
    assert hit.node.sources == ["t4"] and "Chi" in hit.node.text


def test_two_conversations_without_ids_keep_their_sources_apart_in_recall(memory):
    """Both start at "m1": an item of the second is no repeat of the first's message."""
    memory.remember(messages="Ana: I love pottery. I made a pottery bowl.", date="2026-03-01")
    memory.remember(messages="Bo: My pottery class starts on Monday.", date="2026-03-05")
    hits = memory.recall("pottery", k=5, touch=False).hits
    by_text = {h.node.text: h for h in hits}
    ana, bo = (
        by_text["Ana loves pottery."],
        by_text["Bo's pottery class starts on Monday (9 March 2026)."],
    )
    assert ana.why.repeats is None and bo.why.repeats is None
    assert set(ana.node.sources).isdisjoint(bo.node.sources)
    assert bo.node.sources[0].endswith(".m1")  # still its place, in its own conversation
    bowl = by_text["Ana made a pottery bowl."]  # Ana's one message told both: a repeat
    assert bowl.node.sources == ana.node.sources and bowl.why.repeats == ana.node.id


def test_a_conversation_without_ids_sent_again_on_its_date_teaches_nothing_twice(memory):
    lines = "Ana: We went with SQLite because it needs no server.\nBen: It paid off."
    first = memory.remember(messages=lines, date="2026-03-01T10:00:00+00:00")
    learned, stored = q_values(memory), [n.model_dump() for n in memory.find(limit=100)]
    again = memory.remember(messages=lines, date="2026-03-01T12:00:00+02:00")  # the same date
    assert (again.known, again.nodes, again.edges) == (2, [], [])
    assert (
        q_values(memory) == learned and [n.model_dump() for n in memory.find(limit=100)] == stored
    )
    assert first.nodes and learned["Ana and others went with SQLite"] > 0


def test_a_window_without_ids_or_times_grown_on_its_date_stores_only_what_is_new(memory):
    """The grown window is other words, so another conversation's name for its messages: they
    are still known by their places on that date."""
    lines = ["Ana: We went with SQLite because it needs no server.", "Ben: It paid off."]
    memory.remember(messages=lines, date="2026-03-01T10:00:00+00:00")
    before = [n.model_dump() for n in memory.find(limit=100)]
    grown = memory.remember(
        messages=[*lines, "Chi: I love hiking in the Alps."], date="2026-03-01T10:00:00+00:00"
    )
    assert grown.known == 2 and "Chi loves hiking in the Alps." in {n.text for n in grown.nodes}
    after = {n.id: n.model_dump() for n in memory.find(limit=100)}
    assert [after[n["id"]] for n in before] == before  # learned from once, sources as they were


@pytest.mark.parametrize(
    "given",
    # "m2" is what the second message, sent without an id, would be numbered: it is the
    # conversation's "….m2", not "m2", so the two do not clash
    ["t1", "m2"],
)
def test_ids_a_caller_gives_are_kept_beside_messages_without_ids(memory, given):
    memory.remember(
        messages=[
            {"id": given, "speaker": "Ana", "text": "I love hiking in the Alps."},
            {"speaker": "Ben", "text": "My pottery class starts on Monday."},
        ],
        date="2026-03-01T10:00:00+00:00",
    )
    (hiking,) = [n for n in memory.find(limit=50) if "hiking" in n.text]
    (pottery,) = [n for n in memory.find(limit=50) if "pottery" in n.text]
    assert hiking.sources == [given]
    (source,) = pottery.sources
    assert source.endswith(".m2") and source != "m2"


def test_an_id_given_twice_in_one_call_is_refused_and_nothing_is_stored(memory):
    twice = [
        {"id": "t1", "speaker": "Ana", "text": "I love hiking in the Alps."},
        {"id": "t1", "speaker": "Ben", "text": "My pottery class starts on Monday."},
    ]
    with pytest.raises(ValidationError) as exc:
        memory.remember(messages=twice)
    assert (exc.value.field, exc.value.value) == ("messages[1].id", "t1")
    assert memory.stats().nodes == 0


def test_the_audit_log_names_each_turn_without_an_id_as_its_items_sources_do(memory, tmp_path):
    memory.remember(messages="Ana: I love pottery.", date="2026-03-01T10:00:00+00:00")
    memory.remember(messages="Bo: I love sailing.", date="2026-03-01T10:00:00+00:00")
    with sqlite3.connect(tmp_path / "memory.db") as db:
        rows = [json.loads(p) for (p,) in db.execute("SELECT payload FROM audit ORDER BY at")]
    logged = {m["text"]: m["id"] for row in rows for m in row["messages"]}
    assert len(set(logged.values())) == 2  # which conversation a source is, the log tells
    for word, said in (("pottery", "I love pottery."), ("sailing", "I love sailing.")):
        (item,) = [n for n in memory.find(kind="preference") if word in n.text]
        assert item.sources == [logged[said]]


def test_speaker_lines_are_accepted_too(memory):
    result = memory.remember(messages="Ana: I moved to Lisbon last year.\nBen: Nice!")
    assert any("Lisbon" in n.text for n in result.nodes)


def test_text_and_messages_together_are_refused(memory):
    with pytest.raises(ValidationError, match="either text or messages"):
        memory.remember("x", messages=STORY)
    assert memory.stats().nodes == 0


@pytest.mark.parametrize("empty", [[], "", "  \n "])
def test_a_transcript_with_no_message_is_refused(memory, empty):
    with pytest.raises(ValidationError, match="messages: must hold at least one message"):
        memory.remember(messages=empty)
    assert memory.stats().nodes == 0


def test_malformed_messages_name_the_offending_field(memory):
    with pytest.raises(ValidationError) as exc:
        memory.remember(messages=[{"speaker": "Ana", "text": "hi"}, {"speaker": "Ben"}])
    assert exc.value.field.startswith("messages[1]")
    assert memory.stats().nodes == 0


def test_a_setting_told_anew_supersedes_what_was_said_of_it_before(memory):
    def said(i, speaker, text, time):
        return {"id": i, "speaker": speaker, "text": text, "time": time}

    memory.remember(
        messages=[
            said("u1", "Maya", "Our staging DB is Postgres 15.", "2024-03-01T09:00"),
            said("u2", "Maya", "Ana's laptop is a ThinkPad X1.", "2024-03-01T09:01"),
            said("u3", "Maya", "Ben's laptop is a ThinkPad T14.", "2024-03-01T09:02"),
        ]
    )
    memory.remember(
        messages=[
            said("u4", "Maya", "The staging DB is now Postgres 16.", "2024-03-20T09:00"),
            said("u5", "Ben", "Ana's laptop is a MacBook Air.", "2024-03-20T09:01"),
            said("u6", "Ben", "The staging DB is Postgres 14.", "2024-02-01T09:00"),  # older
        ]
    )
    assert memory.recall("what Postgres version is the staging DB?", k=1).hits[0].node.text == (
        "The staging DB is now Postgres 16."
    )
    texts = {h.node.text for h in memory.recall("laptop ThinkPad MacBook", k=5).hits}
    assert "Ana's laptop is a MacBook Air." in texts and "Ben's laptop is a ThinkPad T14." in texts
    assert "Ana's laptop is a ThinkPad X1." not in texts
    old = memory.store.find_nodes(
        text="Maya and others' staging DB is Postgres 15.", valid_only=False
    )
    assert old[0].superseded_by is not None  # kept for the record


def test_a_change_told_as_something_done_supersedes_the_setting_it_changes(memory):
    def said(i, speaker, text, time):
        return {"id": i, "speaker": speaker, "text": text, "time": time}

    memory.remember(
        messages=[
            said("v1", "Maya", "Our staging DB is Postgres 15.", "2024-03-01T09:00"),
            said("v2", "Maya", "The CI runner is Jenkins.", "2024-03-01T09:01"),
            said("v3", "Maya", "Ben's laptop is a ThinkPad T14.", "2024-03-01T09:02"),
            said("v4", "Maya", "The deploy queue is RabbitMQ.", "2024-03-01T09:03"),
        ]
    )
    memory.remember(
        messages=[
            said(
                "v5", "Ana", "We upgraded the staging DB to Postgres 16 today.", "2024-03-20T09:00"
            ),
            said("v6", "Ana", "I swapped my ThinkPad for a MacBook Air.", "2024-03-20T09:01"),
            said(
                "v7", "Ben", "Replaced Jenkins with GitHub Actions yesterday.", "2024-03-20T09:02"
            ),
            # told now of a change made before the queue was set: the setting stands
            said("v8", "Ana", "We migrated the deploy queue to SQS.", "2024-02-01T09:00"),
        ]
    )
    current = {n.text for n in memory.store.find_nodes(kind="fact", limit=50)}
    assert "Maya and others' staging DB is Postgres 15." not in current
    assert "The CI runner is Jenkins." not in current
    assert "Ben's laptop is a ThinkPad T14." in current, "Ana's swap is of her own laptop"
    assert "The deploy queue is RabbitMQ." in current
    top = memory.recall("what Postgres version is the staging DB?", k=1).hits[0].node
    assert "Postgres 16" in top.text
    (old,) = memory.store.find_nodes(
        text="Maya and others' staging DB is Postgres 15.", valid_only=False
    )
    assert old.superseded_by == top.id  # kept for the record, pointing at the change


@pytest.mark.parametrize(
    "told",
    [
        "We never upgraded the staging DB to Postgres 16.",
        "Acme upgraded their staging DB to Postgres 16 yesterday.",
        "Bob upgraded his staging DB to Postgres 16 yesterday.",
        "We upgraded the staging DB to Postgres 16 but rolled it back.",
    ],
)
def test_a_change_denied_undone_or_of_someone_elses_thing_leaves_the_setting(memory, told):
    memory.remember(
        messages=[{"id": "w1", "speaker": "Maya", "text": "Our staging DB is Postgres 15.",
                   "time": "2024-03-01T09:00"}]
    )  # fmt: skip
    memory.remember(
        messages=[{"id": "w2", "speaker": "Ana", "text": told, "time": "2024-03-20T09:00"}]
    )
    assert "Maya and others' staging DB is Postgres 15." in current_texts(memory)


def _our_ci_then(memory, told):
    """Maya (with Ben) says what our CI is; weeks later Ana tells `told`. What CI does
    recall say we use?"""
    memory.remember(
        messages=[
            said_at("ci1", "Maya", "Our CI is Jenkins.", "2024-03-01T09:00:00Z"),
            said_at(
                "ci2",
                "Ben",
                "I set it up in 2019, it is slow but it works.",
                "2024-03-01T09:01:00Z",
            ),
        ]
    )
    memory.remember(messages=[said_at("ci3", "Ana", told, "2024-03-20T09:00:00Z")])
    return [h.node.text for h in memory.recall("what do we use for CI?", k=5).hits]


@pytest.mark.parametrize(
    "told",
    [
        "Acme replaced Jenkins with GitHub Actions yesterday.",
        "Acme replaced Jenkins with GitHub Actions.",
        "Last week Stripe switched from Jenkins to GitHub Actions.",
        "Stripe moved the CI from Jenkins to GitHub Actions yesterday.",
        "Priya's team moved the CI to GitHub Actions yesterday.",
        "Priya's team replaced Jenkins with GitHub Actions.",
        "Priya replaced Jenkins with GitHub Actions yesterday.",
    ],
)
def test_a_change_another_company_or_team_made_leaves_our_setting_standing(memory, told):
    recalled = _our_ci_then(memory, told)
    assert "Maya and others' CI is Jenkins." in recalled, (
        "Acme's CI, not ours, moved to GitHub Actions"
    )
    assert "Maya and others' CI is Jenkins." in current_texts(memory)


@pytest.mark.parametrize(
    "told",
    [
        "Priya moved our CI to GitHub Actions.",
        "Priya moved our CI to GitHub Actions yesterday.",
        "Priya replaced Jenkins with GitHub Actions in our pipeline.",
        "Ben replaced Jenkins with GitHub Actions yesterday.",  # Ben is one of us: he spoke
        "Jenkins was replaced with GitHub Actions.",
        "Jenkins was replaced by GitHub Actions yesterday.",
        "We switched from Jenkins to GitHub Actions.",
        "Replaced Jenkins with GitHub Actions yesterday.",
    ],
)
def test_a_change_one_of_us_made_to_our_thing_or_told_without_whom_supersedes_it(memory, told):
    recalled = _our_ci_then(memory, told)
    assert "Maya and others' CI is Jenkins." not in recalled
    assert "Maya and others' CI is Jenkins." not in current_texts(memory)
    (old,) = memory.store.find_nodes(text="Maya and others' CI is Jenkins.", valid_only=False)
    assert old.superseded_by is not None  # kept for the record


def test_a_change_another_company_made_supersedes_what_was_said_of_theirs(memory):
    memory.remember(
        messages=[said_at("ac1", "Maya", "Acme's CI is Jenkins.", "2024-03-01T09:00:00Z")]
    )
    memory.remember(
        messages=[
            said_at(
                "ac2", "Ana", "Acme replaced Jenkins with GitHub Actions yesterday.",
                "2024-03-20T09:00:00Z",
            )
        ]
    )  # fmt: skip
    assert "Acme's CI is Jenkins." not in current_texts(memory)


def test_the_audit_log_keeps_each_new_raw_turn_whole_with_its_scope(memory, tmp_path):
    turns = [
        {"id": "p1", "speaker": "Ana", "text": "", "blip_caption": "a photo of a golden retriever"},
        {"id": "p2", "speaker": "Ben", "text": "Cute! What's her name?", "time": 1700000000},
    ]
    memory.remember(messages=turns, scope="family", task_tag="pets")
    memory.remember(messages=turns, scope="family", task_tag="pets")  # known: not logged again
    with sqlite3.connect(tmp_path / "memory.db") as db:
        rows = [json.loads(p) for (p,) in db.execute("SELECT payload FROM audit")]
    assert len(rows) == 1
    assert (rows[0]["scope"], rows[0]["task_tag"]) == ("family", "pets")
    first, second = rows[0]["messages"]
    assert first["caption"] == "a photo of a golden retriever"
    assert (second["id"], second["text"], second["time"]) == (
        "p2", "Cute! What's her name?", "2023-11-14T22:13:20+00:00"
    )  # fmt: skip


def said_at(i, speaker, text, time="2026-11-01T10:00:00Z"):
    return {"id": i, "speaker": speaker, "text": text, "time": time}


def current_texts(memory):
    return {n.text for n in memory.store.find_nodes(limit=100) if n.kind not in ("person",)}


def test_an_edited_message_retires_what_only_its_old_wording_said(memory):
    memory.remember(
        messages=[
            said_at("s1", "Ana", "I'm allergic to peanuts. Our staging DB is Postgres 15."),
            said_at("s2", "Ben", "Noted, no satay then.", "2026-11-01T10:01:00Z"),
        ]
    )
    result = memory.remember(
        messages=[said_at("s1", "Ana", "I'm allergic to walnuts. Our staging DB is Postgres 15.")]
    )
    assert result.known == 0  # an edit is news
    texts = current_texts(memory)
    assert "Ana is allergic to walnuts." in texts and "Ana is allergic to peanuts." not in texts
    assert "Ana and others' staging DB is Postgres 15." in texts, (
        "what the new wording says again stays"
    )
    assert any("satay" in t for t in texts), "another message's items stay"
    (old,) = memory.store.find_nodes(text="Ana is allergic to peanuts.", valid_only=False)
    (new,) = memory.store.find_nodes(text="Ana is allergic to walnuts.")
    assert old.valid_to is not None and old.superseded_by == new.id  # kept for the record
    top = memory.recall("what is Ana allergic to?", k=3).hits[0]
    assert top.node.text == "Ana is allergic to walnuts."


@pytest.mark.parametrize(
    "other",
    [
        said_at("s1", "Ana", "I'm allergic to walnuts.", "2026-11-05T09:00:00Z"),  # another chat
        said_at("s1", "Ben", "I'm allergic to walnuts."),  # another speaker's message 's1'
        {"id": "s1", "speaker": "Ana", "text": "I'm allergic to walnuts."},  # no time, no date
    ],
    ids=["another-time", "another-speaker", "no-time"],
)
def test_a_message_id_used_again_elsewhere_is_no_edit(memory, other):
    memory.remember(messages=[said_at("s1", "Ana", "I'm allergic to peanuts.")])
    memory.remember(messages=[other])
    assert "Ana is allergic to peanuts." in current_texts(memory)


def test_an_item_another_message_told_too_outlives_an_edit_of_one_of_them(memory):
    memory.remember(
        messages=[
            said_at("s1", "Ana", "We skipped the load test before the promo."),
            said_at(
                "s2", "Ana", "We skipped the load test before the promo.", "2026-11-01T10:05:00Z"
            ),
        ]
    )
    memory.remember(messages=[said_at("s1", "Ana", "We ran the load test before the promo.")])
    (skipped,) = [n for n in memory.store.find_nodes(limit=100) if "skipped" in n.text]
    assert skipped.sources == ["s2"], "it stays, told by the other message only"


def test_an_edited_message_ends_the_lessons_its_old_wording_drew(memory):
    memory.remember(
        messages=[
            said_at("d1", "Ana", "We skipped the load test before the promo, so checkout crashed.")
        ]
    )
    assert len(memory.causal_directory().entries) == 1
    memory.remember(
        messages=[
            said_at("d1", "Ana", "We ran the load test before the promo, and checkout held up.")
        ]
    )
    assert memory.causal_directory().entries == []
    (edge,) = memory.store.find_edges(relations={"caused"}, valid_only=False)
    assert edge.valid_to is not None and "edited" in edge.context  # kept for the record


@pytest.mark.parametrize(
    "recorded_first", [True, False], ids=["recorded-then-told", "told-then-recorded"]
)
@pytest.mark.parametrize("unmarked", [False, True], ids=["marked", "store-from-before-the-mark"])
def test_a_lesson_recorded_with_record_decision_outlives_an_edit_of_a_message_retelling_it(
    memory, recorded_first, unmarked
):
    told_then = said_at(
        "d1", "Ana", "We skipped the load test before the promo, so checkout crashed."
    )
    if not recorded_first:
        memory.remember(messages=[told_then])
    lesson = memory.record_decision("Skipped the load test before the promo", "Checkout crashed")
    if recorded_first:
        memory.remember(messages=[told_then])
    ids = [lesson.decision.id, lesson.outcome.id]
    if unmarked:  # as record_decision left its nodes before it marked them
        for node in memory.store.get_nodes(ids).values():
            attrs = {k: v for k, v in node.attributes.items() if k != told.RECORDED}
            memory.store.update_node(node.model_copy(update={"attributes": attrs}))
    memory.remember(
        messages=[
            said_at("d1", "Ana", "We ran the load test before the promo, and checkout held up.")
        ]
    )
    (cause,) = memory.trace_cause("Checkout crashed").causes
    assert cause.lesson.edge_id == lesson.edge.id
    ends = memory.store.get_nodes(ids).values()
    assert [n.valid_to for n in ends] == [None, None], "what the agent recorded stays current"
    assert all("d1" not in n.sources for n in ends), "no longer told by the edited message"


def test_an_edit_that_tells_the_lesson_again_keeps_one_current(memory):
    memory.remember(
        messages=[
            said_at("d1", "Ana", "We skipped the load test before the promo, so checkout crashed.")
        ]
    )
    memory.remember(
        messages=[
            said_at(
                "d1", "Ana", "We skipped the load tests before the big promo, so checkout crashed."
            )
        ]
    )
    (entry,) = memory.causal_directory().entries  # told again: the lesson stays, once
    assert "load test" in entry.line and "checkout crashed" in entry.line.lower()


def test_an_edit_undone_makes_the_first_wording_current_again(memory):
    first = said_at("s1", "Ana", "I'm allergic to peanuts.")
    memory.remember(messages=[first, said_at("s2", "Ben", "Noted.", "2026-11-01T10:01:00Z")])
    memory.remember(messages=[said_at("s1", "Ana", "I'm allergic to walnuts.")])
    result = memory.remember(messages=[first])
    assert result.known == 0  # the words it had, told again at its place: an edit
    texts = current_texts(memory)
    assert "Ana is allergic to peanuts." in texts and "Ana is allergic to walnuts." not in texts
    top = memory.recall("what is Ana allergic to?", k=3).hits[0]
    assert top.node.text == "Ana is allergic to peanuts."
    again = memory.remember(
        messages=[first, said_at("s2", "Ben", "Noted.", "2026-11-01T10:01:00Z")]
    )
    assert again.known == 2 and again.nodes == []  # sent again as it stands: nothing new


def test_a_change_told_of_a_time_before_the_setting_leaves_it_standing(memory):
    memory.remember(
        messages=[said_at("w1", "Maya", "Our staging DB is Postgres 15.", "2024-03-01T09:00:00Z")]
    )
    memory.remember(
        messages=[
            said_at(
                "w2",
                "Ana",
                "We upgraded the staging DB to Postgres 9 back in 2019.",
                "2024-03-20T09:00:00Z",
            )
        ]
    )
    assert "Maya and others' staging DB is Postgres 15." in current_texts(memory)
    memory.remember(
        messages=[
            said_at(
                "w3",
                "Ana",
                "We upgraded the staging DB to Postgres 16 today.",
                "2024-03-21T09:00:00Z",
            )
        ]
    )
    assert "Maya and others' staging DB is Postgres 15." not in current_texts(memory)


def test_an_edit_sent_with_its_time_in_another_offset_still_retires_the_old_wording(memory):
    memory.remember(
        messages=[said_at("o1", "Ana", "I'm allergic to peanuts.", "2026-11-01T12:00+02:00")]
    )
    memory.remember(
        messages=[said_at("o1", "Ana", "I'm allergic to walnuts.", "2026-11-01T10:00Z")]
    )
    texts = current_texts(memory)
    assert "Ana is allergic to walnuts." in texts and "Ana is allergic to peanuts." not in texts


def test_an_item_another_message_told_later_no_longer_lists_the_edited_one(memory):
    memory.remember(messages=[said_at("m1", "Ana", "I'm allergic to peanuts.")])
    memory.remember(
        messages=[said_at("m5", "Ana", "I'm allergic to peanuts.", "2026-11-01T10:05:00Z")]
    )
    memory.remember(messages=[said_at("m1", "Ana", "I'm allergic to walnuts.")])
    hits = {h.node.text: h.node for h in memory.recall("what is Ana allergic to?", k=3).hits}
    assert hits["Ana is allergic to peanuts."].sources == ["m5"], "only m5 still says it"
    assert hits["Ana is allergic to walnuts."].sources == ["m1"]


# Both ends of the claim "skipping the load test caused the crash" are told by other messages
# too (d1, d2): an edit of the message that made the claim leaves them, not the claim.
SKIPPED = said_at(
    "d1", "Ana", "We skipped the load test before the promo, so the on-call team was paged."
)
CRASHED = said_at(
    "d2", "Ben", "The new config caused a checkout crash during the promo.", "2026-11-01T10:01:00Z"
)
CLAIM = said_at(
    "d3", "Ana", "Skipping the load test caused a checkout crash during the promo.",
    "2026-11-01T10:02:00Z",
)  # fmt: skip
RETOLD = said_at(
    "d4", "Chi", "Skipping the load test caused a checkout crash during the promo.",
    "2026-11-01T10:03:00Z",
)  # fmt: skip


def causes_of_the_crash(memory) -> set[str]:
    return {c.lesson.decision for c in memory.trace_cause("checkout crash").causes}


@pytest.mark.parametrize(
    "edited",
    ["I was away during the promo.", "Skipping the load test did not cause the checkout crash."],
    ids=["says-something-else", "denies-the-claim"],
)
def test_an_edit_ends_the_causal_claim_its_old_wording_alone_made(memory, edited):
    memory.remember(messages=[SKIPPED, CRASHED])
    memory.remember(messages=[CLAIM])
    assert any("load test" in c for c in causes_of_the_crash(memory))
    memory.remember(messages=[{**CLAIM, "text": edited}])
    assert causes_of_the_crash(memory) == {"The new config"}
    (claim,) = [
        e
        for e in memory.store.find_edges(relations={"caused"}, valid_only=False)
        if e.valid_to is not None
    ]
    assert "'d3' was edited" in claim.context  # ended, kept for the record
    ends = memory.store.get_nodes([claim.src, claim.dst]).values()
    assert [n.valid_to for n in ends] == [None, None], "what d1 and d2 told stays"


@pytest.mark.parametrize("together", [False, True], ids=["told-later", "told-in-one-call"])
def test_a_causal_claim_another_message_also_made_outlives_an_edit(memory, together):
    memory.remember(messages=[SKIPPED, CRASHED])
    memory.remember(messages=[CLAIM, RETOLD] if together else [CLAIM])
    if not together:
        memory.remember(messages=[RETOLD])
    memory.remember(messages=[{**CLAIM, "text": "I was away during the promo."}])
    assert any("load test" in c for c in causes_of_the_crash(memory)), "d4 still makes it"
    memory.remember(messages=[{**RETOLD, "text": "I was away too."}])
    assert causes_of_the_crash(memory) == {"The new config"}, "no message makes it any more"


def test_an_edit_undone_makes_the_causal_claim_current_again(memory):
    memory.remember(messages=[SKIPPED, CRASHED])
    memory.remember(messages=[CLAIM])
    memory.remember(messages=[{**CLAIM, "text": "I was away during the promo."}])
    memory.remember(messages=[CLAIM])
    assert any("load test" in c for c in causes_of_the_crash(memory))
    assert len(memory.store.find_edges(relations={"caused"}, valid_only=False)) == 3, "one claim"


def test_a_causal_claim_recorded_with_record_decision_outlives_edits_of_every_message_telling_it(
    memory,
):
    memory.remember(messages=[SKIPPED, CRASHED])
    memory.remember(messages=[CLAIM])
    memory.record_decision(
        "Ana and others skipped the load test before the promo",
        "A checkout crash during the promo.",
    )
    memory.remember(messages=[RETOLD])  # told again by a message after the agent recorded it
    memory.remember(messages=[{**CLAIM, "text": "I was away during the promo."}])
    memory.remember(messages=[{**RETOLD, "text": "I was away too."}])
    assert any("load test" in c for c in causes_of_the_crash(memory)), "the agent recorded it"


def _what_we_use_then(memory, said, told):
    """Maya says what we use; weeks later Ana tells `told`. Returns the nodes Maya's message
    left, current or ended."""
    memory.remember(messages=[said_at("use1", "Maya", said, "2024-03-01T09:00:00Z")])
    memory.remember(messages=[said_at("use2", "Ana", told, "2024-03-20T09:00:00Z")])
    return [
        n
        for n in memory.store.find_nodes(valid_only=False, limit=100)
        if "use1" in n.sources and n.kind != "person"
    ]


@pytest.mark.parametrize(
    ("said", "told"),
    [
        ("We use Jenkins for CI.", "We moved CI to GitHub Actions."),
        ("We use Jenkins for CI.", "We switched from Jenkins to GitHub Actions."),
        ("Our CI runs on Jenkins.", "We switched from Jenkins to GitHub Actions."),
        ("Our CI runs on Jenkins.", "We moved CI to GitHub Actions."),
        ("Jenkins is our CI.", "Replaced Jenkins with GitHub Actions."),
        ("Jenkins is our CI.", "We migrated to GitHub Actions."),
        ("We deploy with Argo CD.", "We replaced Argo CD with Flux."),
        ("We host on AWS.", "We migrated to GCP."),
        ("The API is deployed on Kubernetes.", "We moved the API to Nomad."),
        ("We're on Postgres 15.", "We upgraded to Postgres 16."),
        ("We run Redis 6 for caching.", "We upgraded Redis to 7."),
        ("We run Redis 6 for caching.", "We moved caching to Memcached."),
    ],
)
def test_what_we_use_told_as_developers_say_it_is_ended_by_a_change(memory, said, told):
    (setting,) = _what_we_use_then(memory, said, told)
    assert setting.valid_to is not None, f"{told!r} should end {setting.text!r}"
    assert setting.superseded_by is not None  # kept for the record


def test_after_moving_ci_recall_says_what_we_use_for_ci_now(memory):
    _what_we_use_then(memory, "We use Jenkins for CI.", "We moved CI to GitHub Actions.")
    recalled = [h.node.text for h in memory.recall("what do we use for CI?", k=5).hits]
    assert recalled == ["Ana and others moved CI to GitHub Actions."]


@pytest.mark.parametrize(
    "told", ["We switched from Jenkins to GitHub Actions.", "Replaced Jenkins with GitHub Actions."]
)
def test_after_replacing_jenkins_recall_no_longer_says_we_use_it_for_ci(memory, told):
    _what_we_use_then(memory, "We use Jenkins for CI.", told)
    recalled = [h.node.text for h in memory.recall("what do we use for CI?", k=5).hits]
    assert not any("Jenkins for CI" in t for t in recalled)


@pytest.mark.parametrize(
    ("said", "told"),
    [
        ("We use Slack to talk to Acme.", "Acme moved to GitHub Actions."),
        ("We run standups on Mondays.", "Acme moved to GitHub Actions."),
        ("I use vim.", "Acme moved to GitHub Actions."),
        ("We use Jenkins for CI.", "Acme moved to GitHub Actions."),
        ("We use Jenkins for CI.", "Acme replaced Jenkins with GitHub Actions."),
        ("We use Jenkins for CI.", "We moved the meeting to Friday."),
        ("We run standups on Mondays.", "We moved the meeting to Friday."),
        ("We host on AWS.", "We upgraded to Postgres 16."),
        ("We're on Postgres 15.", "We migrated to GCP."),
    ],
)
def test_what_we_use_is_not_ended_by_a_change_of_something_else_or_someone_elses(
    memory, said, told
):
    nodes = _what_we_use_then(memory, said, told)
    assert nodes and all(n.valid_to is None for n in nodes), f"{told!r} ended {said!r}"


def _danas_editor_then(tmp_path, clock, told_by, told):
    """Dana says which editor and OS she uses; Maya says what the team uses for CI; weeks later
    `told_by` tells `told`. What editor does recall say Dana uses?"""
    memory = open_memory(tmp_path / "own.db", clock=clock, embeddings="none")
    memory.remember(
        messages=[
            said_at("d1", "Dana", "I use vim for editing.", "2024-03-01T09:00:00Z"),
            said_at("d2", "Maya", "We use Jenkins for CI.", "2024-03-01T09:01:00Z"),
            said_at("d3", "Dana", "I'm on Arch.", "2024-03-01T09:02:00Z"),
            said_at("d4", "Ben", "I use vim too.", "2024-03-01T09:03:00Z"),
        ]
    )
    memory.remember(messages=[said_at("d5", told_by, told, "2024-03-20T09:00:00Z")])
    return memory


@pytest.mark.parametrize(
    "told", ["I switched from vim to VS Code.", "I moved to VS Code.", "I use VS Code now."]
)
def test_a_speakers_own_tool_is_ended_by_their_own_change(tmp_path, clock, told):
    with _danas_editor_then(tmp_path, clock, "Dana", told) as memory:
        (old,) = memory.store.find_nodes(text="Dana uses vim for editing.", valid_only=False)
        assert old.superseded_by is not None, "kept for the record, pointing at the change"
        hits = memory.recall("what editor does Dana use?", k=5).hits
        assert "VS Code" in hits[0].node.text
        assert old.id not in {h.node.id for h in hits}
        current = current_texts(memory)
        assert "Dana is on Arch." in current, "her OS is another thing"
        assert "Maya and others use Jenkins for CI." in current, "the team's CI is not hers"
        assert "Ben uses vim too." in current, "Ben's editor is his own"


@pytest.mark.parametrize(
    ("told_by", "told"),
    [
        ("Ben", "I switched from vim to VS Code."),
        ("Maya", "We moved to VS Code."),
        ("Maya", "I use VS Code for editing."),
    ],
)
def test_another_persons_change_leaves_a_speakers_own_tool_standing(tmp_path, clock, told_by, told):
    with _danas_editor_then(tmp_path, clock, told_by, told) as memory:
        assert "Dana uses vim for editing." in current_texts(memory)
        top = memory.recall("what editor does Dana use?", k=5).hits[0]
        assert top.node.text == "Dana uses vim for editing."
        assert top.why.replaces is None


def test_a_speakers_own_os_is_ended_by_their_own_move(tmp_path, clock):
    with _danas_editor_then(tmp_path, clock, "Dana", "I moved to Fedora last week.") as memory:
        (old,) = memory.store.find_nodes(text="Dana is on Arch.", valid_only=False)
        assert old.superseded_by is not None
        assert "Dana uses vim for editing." in current_texts(memory)


def _told_weeks_apart(memory, speaker, *texts):
    """`speaker` tells each of `texts` a week after the one before. Returns what each left,
    current or ended, by its text as told."""
    for n, text in enumerate(texts):
        memory.remember(
            messages=[said_at(f"k{n}", speaker, text, f"2026-02-{1 + 7 * n:02}T09:00Z")]
        )
    return {
        n.text: n
        for n in memory.store.find_nodes(valid_only=False, limit=100)
        if n.kind != "person"
    }


@pytest.mark.parametrize(
    ("first", "then"),
    [
        ("We use Postgres for the orders service.", "We use Redis for the orders service."),
        ("We use VS Code for work.", "We use Slack for work."),
        ("I use vim for the backend.", "I use Postman for the backend."),
    ],
)
def test_a_thing_uses_tools_of_different_kinds_side_by_side(memory, first, then):
    told = _told_weeks_apart(memory, "Dana", first, then)
    assert told and all(n.valid_to is None for n in told.values()), "both still stand"


def test_recall_of_what_a_service_uses_gives_each_of_its_tools(memory):
    _told_weeks_apart(
        memory,
        "Dana",
        "We use Postgres for the orders service.",
        "We use Redis for the orders service.",
    )
    recalled = [h.node.text for h in memory.recall("what do we use for the orders service?").hits]
    assert "Dana and others use Postgres for the orders service." in recalled
    assert "Dana and others use Redis for the orders service." in recalled


@pytest.mark.parametrize(
    ("first", "then"),
    [
        ("We use Postgres for the orders service.", "We use MySQL for the orders service."),
        ("We use VS Code for work.", "We use Neovim for work."),
        (
            "We use Postgres for the orders service.",
            "We switched the orders service from Postgres to Redis.",
        ),
        (
            "We use Postgres for the orders service.",
            "We replaced Postgres with Redis in the orders service.",
        ),
    ],
)
def test_a_tool_of_the_same_kind_or_a_told_change_ends_a_things_tool(memory, first, then):
    told = _told_weeks_apart(memory, "Dana", first, then)
    (old,) = [n for n in told.values() if "k0" in n.sources]
    assert old.valid_to is not None, f"{then!r} should end {old.text!r}"
    assert old.superseded_by is not None  # kept for the record


@pytest.mark.parametrize(
    ("change", "ended"),
    [
        ("We switched the orders service from Postgres to MySQL.", {"Postgres"}),
        ("We use MySQL for the orders service.", {"Postgres"}),
        ("We moved the orders service to GCP.", set()),  # hosting: none of its tools
    ],
)
def test_a_change_of_one_of_a_services_tools_leaves_the_others(memory, change, ended):
    told = _told_weeks_apart(
        memory,
        "Dana",
        "We use Postgres for the orders service.",
        "We use Redis for the orders service.",
        "We use Kafka for the orders service.",
        change,
    )
    tools = {"Postgres", "Redis", "Kafka"}
    standing = {
        t
        for t in tools
        if told[f"Dana and others use {t} for the orders service."].valid_to is None
    }
    assert standing == tools - ended
    recalled = " ".join(
        h.node.text for h in memory.recall("what do we use for the orders service?").hits
    )
    assert all(t in recalled for t in standing)

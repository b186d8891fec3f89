"""Rule-based extraction: transcripts in, typed self-contained items and links out.

Every transcript here is made up for the test."""

from __future__ import annotations

import json
from datetime import UTC, datetime

import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st

from ebbtide.errors import ValidationError
from ebbtide.extract import CAUSAL, Extraction, Item, extract
from ebbtide.sentences import rewrite_pronouns, split_sentences
from ebbtide.transcript import Message, parse_transcript

DATE = datetime(2023, 5, 8, 13, 56, tzinfo=UTC)  # a Monday
KINDS = {"fact", "preference", "event", "lesson", "decision", "outcome", "note", "person"}
RELATIONS = {"caused", "enabled", "prevented", "no_effect", "related", "about"}


def run(transcript: str, date: datetime | None = DATE) -> Extraction:
    return extract(parse_transcript(transcript), date)


def find(ex: Extraction, fragment: str, kind: str | None = None) -> int:
    """The index of the one item whose text holds `fragment` (and is of `kind`)."""
    hits = [
        i
        for i, it in enumerate(ex.items)
        if fragment.lower() in it.text.lower() and (kind is None or it.kind == kind)
    ]
    assert len(hits) == 1, (fragment, [ex.items[i].text for i in hits], texts(ex))
    return hits[0]


def texts(ex: Extraction) -> list[tuple[str, str]]:
    return [(it.kind, it.text) for it in ex.items]


def relations(ex: Extraction, src: int, dst: int) -> set[str]:
    return {link.relation for link in ex.links if (link.src, link.dst) == (src, dst)}


def causal_links(ex: Extraction) -> list[tuple[str, str, str]]:
    return [
        (ex.items[ln.src].text, ln.relation, ex.items[ln.dst].text)
        for ln in ex.links
        if ln.relation in CAUSAL
    ]


# ---------------------------------------------------------------------------------------------
# Parsing transcripts
# ---------------------------------------------------------------------------------------------


def test_speaker_lines_with_timestamps_and_continuations():
    messages = parse_transcript(
        "[2023-05-08 13:56] Ana: We shipped it.\n"
        "It took a week.\n"
        "\n"
        "2023-05-08T14:02:00Z Ben: Nice work\n"
        "Chi: thanks"
    )
    assert [(m.id, m.speaker) for m in messages] == [("m1", "Ana"), ("m2", "Ben"), ("m3", "Chi")]
    assert messages[0].text == "We shipped it.\nIt took a week."
    assert messages[0].time == datetime(2023, 5, 8, 13, 56, tzinfo=UTC)
    assert messages[1].time == datetime(2023, 5, 8, 14, 2, tzinfo=UTC)
    assert messages[2].time is None


def test_list_of_dicts_with_ids_aliases_and_captions():
    messages = parse_transcript(
        [
            {
                "dia_id": "D1:1",
                "speaker": "Ana",
                "text": "Look!",
                "blip_caption": "a photo of a cat",
            },
            {"role": "user", "content": "Hello there", "time": "2023-05-08T10:00:00"},
            {"speaker": "Ana", "text": "Bye", "time": 1683540000},
        ]
    )
    assert [m.id for m in messages] == ["D1:1", "m2", "m3"]
    assert messages[0].caption == "a photo of a cat"
    assert messages[1].speaker == "user"
    assert messages[1].time == datetime(2023, 5, 8, 10, tzinfo=UTC)  # naive is UTC
    assert messages[2].time == datetime.fromtimestamp(1683540000, UTC)


def test_list_of_speaker_strings():
    messages = parse_transcript(["Ana: first", "Ben: second"], id_prefix="s2.m")
    assert [(m.id, m.speaker, m.text) for m in messages] == [
        ("s2.m1", "Ana", "first"),
        ("s2.m2", "Ben", "second"),
    ]


def test_a_thing_done_named_by_what_it_was_is_the_latest_thing_someone_did():
    ex = run(
        "Ana: We migrated the DB to Aurora.\nBen: Checkout went down.\n"
        "Ana: That migration caused the outage."
    )
    assert causal_links(ex) == [
        ("Ana and others migrated the DB to Aurora.", "caused", "The outage.")
    ]
    assert ex.items[find(ex, "Checkout went down")].kind == "note"


@pytest.mark.parametrize(
    ("chat", "doing"),
    [
        ("Ana: Carol rolled back the deploy.\nBen: That rollback fixed the outage.",
         "Carol rolled back the deploy."),
        ("Ana: Esme applied the migration.\nBen: That migration broke checkout.",
         "Esme applied the migration."),
        ("Ana: We rolled back.\nBen: We could also migrate the DB.\nAna: The change fixed it.",
         "Ana and others rolled back."),
        ("Ana: We rolled back.\nBen: I was asleep.\nAna: The change fixed the outage.",
         "Ana and others rolled back."),
    ],
)  # fmt: skip
def test_the_thing_done_that_a_name_stands_for_is_what_someone_surely_did(chat, doing):
    assert [c for c, r, _ in causal_links(run(chat)) if r == "caused"] == [doing]


def test_what_that_stands_for_in_that_is_what_is_the_latest_statement_not_a_doing():
    ex = run(
        "Ben: John did an amazing job staying focused.\nAna: For me, it's writing and reading."
        "\nAna: That's what helps me stay motivated."
    )
    ((cause, _, effect),) = causal_links(ex)
    assert cause == "For Ana, it's writing and reading."
    assert effect.startswith("That's what (For Ana, it's writing and reading) helps")


def test_an_aside_in_brackets_does_not_hide_who_acted_or_chose():
    rolled = run("Ana: Ben (on-call) rolled back the deploy, which fixed the errors.")
    assert rolled.items[find(rolled, "rolled back the deploy", "decision")]
    chose = run("Ana: Ana (our lead) chose Postgres because it supports JSONB.")
    assert causal_links(chose) == [
        ("It (Postgres) supports JSONB.", "caused", "Ana (Ana and others' lead) chose Postgres")
    ]
    assert chose.items[find(chose, "chose Postgres")].kind == "decision"


def test_a_number_in_a_reason_is_no_clock_time():
    cheaper = run("Ana: We went with Linode because it was 3x cheaper.")
    assert causal_links(cheaper)[0][0] == "It (Linode) was 3x cheaper."
    for time in ("10pm already", "3 a.m.", "9:30", "5 o'clock", "3 in the morning", "2024"):
        late = run(f"Ana: We chose the late flight because it was {time}.")
        assert causal_links(late)[0][0].startswith("It was "), time


def test_a_numbered_message_passed_again_stays_numbered():
    (first,) = parse_transcript(["Ana: first"])
    (again,) = parse_transcript([first])
    assert (again.id, again.numbered) == ("m1", True)
    (given,) = parse_transcript([{"id": "x7", "speaker": "Ana", "text": "first"}])
    assert not parse_transcript([given])[0].numbered


def test_a_hyphenated_no_names_a_thing_that_did_it():
    links = causal_links(run("Ana: No-code tooling broke the billing pipeline."))
    assert [(c, r) for c, r, _ in links] == [("No-code tooling", "caused")]


@pytest.mark.parametrize(
    ("value", "field"),
    [
        ("no speaker here", "lines[0]"),
        ("[not a date] Ana: hi", "lines[0].time"),
        (42, "messages"),
        ([{"speaker": "Ana", "text": "a"}, "Ben: b", {"speaker": "Chi"}], "messages[2].text"),
        (
            [{"speaker": "Ana", "text": "a"}] * 3 + [{"speaker": "Ana", "text": 7}],
            "messages[3].text",
        ),
        ([{"text": "hi"}], "messages[0].speaker"),
        ([{"speaker": "Ana", "text": "hi", "time": "soon"}], "messages[0].time"),
        (
            [{"id": "x", "speaker": "A", "text": "a"}, {"id": "x", "speaker": "B", "text": "b"}],
            "messages[1].id",
        ),
        ([{"speaker": "Ana", "text": [1, 2]}], "messages[0].text"),
        ([{"author": {"id": 42}, "text": "hi"}], "messages[0].speaker"),
        ([{"speaker": "Ana", "text": "hi", "time": 1e30}], "messages[0].time"),
        (["just words"], "messages[0]"),
        ([3.5], "messages[0]"),
    ],
)
def test_bad_input_names_the_field(value, field):
    with pytest.raises(ValidationError) as err:
        parse_transcript(value)
    assert err.value.field == field


def test_a_message_in_a_list_of_strings_may_go_on_for_lines():
    said = parse_transcript(["Ana: The plan:\n1. drain the queue\n2. restart", "Ben: ok"])
    assert [(m.speaker, m.text) for m in said] == [
        ("Ana", "The plan:\n1. drain the queue\n2. restart"),
        ("Ben", "ok"),
    ]


def test_list_items_and_indented_lines_with_a_colon_continue_the_message_before():
    said = parse_transcript(
        "user: what should I check?\n"
        "assistant: Two things:\n"
        "1. Step one: drain the queue\n"
        "- Note: the worker restarts itself\n"
        "    Timeout: 30 s by default\n"
        "user: thanks"
    )
    assert [m.speaker for m in said] == ["user", "assistant", "user"]
    assert said[1].text.splitlines()[1:] == [
        "1. Step one: drain the queue",
        "- Note: the worker restarts itself",
        "Timeout: 30 s by default",
    ]
    bulleted = parse_transcript("- Ana: hi\n- Ben: hello\n  Note: more")
    assert [(m.speaker, m.text) for m in bulleted] == [("Ana", "hi"), ("Ben", "hello\nNote: more")]
    indented = parse_transcript("  Ana: hi\n  Ben: hello\n    Ana said: hi")
    assert [(m.speaker, m.text) for m in indented] == [
        ("Ana", "hi"),
        ("Ben", "hello\nAna said: hi"),
    ]


@given(st.datetimes(datetime(1974, 1, 1), datetime(2999, 12, 31), timezones=st.just(UTC)))
def test_an_epoch_time_in_seconds_or_milliseconds_is_the_same_moment(when):
    seconds = when.timestamp()
    for value in (seconds, int(seconds), round(seconds * 1000), round(seconds * 1_000_000)):
        (m,) = parse_transcript([{"speaker": "Ana", "text": "hi", "timestamp": value}])
        assert m.time is not None and abs((m.time - when).total_seconds()) < 1
        # JSON exports often quote it, Slack's "ts" always does ("1683554160.000200").
        (m,) = parse_transcript([{"speaker": "Ana", "text": "hi", "ts": str(value)}])
        assert m.time is not None and abs((m.time - when).total_seconds()) < 1


def test_a_short_number_given_as_time_is_refused_not_read_as_seconds_after_1970():
    with pytest.raises(ValidationError) as err:
        parse_transcript([{"speaker": "Ana", "text": "hi", "time": "2023"}])
    assert err.value.field == "messages[0].time"


def test_splitting_sentences_keeps_abbreviations():
    assert split_sentences("Dr. Lee said hi. Then e.g. this! Ok?\nNew line") == [
        "Dr. Lee said hi.",
        "Then e.g. this!",
        "Ok?",
        "New line",
    ]


def test_full_width_stops_end_sentences_without_a_space():
    assert split_sentences("数据库崩溃导致了停机。它很快恢复了！ Then we left.") == [
        "数据库崩溃导致了停机。",
        "它很快恢复了！",
        "Then we left.",
    ]


def test_a_timeline_entry_keeps_its_time_with_its_cause():
    ex = extract(
        [Message("pm.md", "", "03:10 The primary ran out of memory, which caused the failover.")]
    )
    assert causal_links(ex) == [("03:10 The primary ran out of memory", "caused", "The failover.")]


# ---------------------------------------------------------------------------------------------
# Pronouns and sentences
# ---------------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("sentence", "expected"),
    [
        ("I adopted a dog", "Caroline adopted a dog"),
        ("I love my dog", "Caroline loves Caroline's dog"),
        ("I really enjoy painting", "Caroline really enjoys painting"),
        ("I have two kids and I'm tired", "Caroline has two kids and Caroline is tired"),
        ("I've been there, I'd go again", "Caroline has been there, Caroline would go again"),
        (
            "We went camping with our kids",
            "Caroline and others went camping with Caroline and others' kids",
        ),
        ("Did you go?", "Did Melanie go?"),
        ("What are you painting?", "What is Melanie painting?"),
        ("You'd be a great counselor", "Melanie would be a great counselor"),
        ("I hope you like it", "Caroline hopes Melanie likes it"),
        ("Let me know if you need help", "Let Caroline know if Melanie needs help"),
        ("Thank you so much", "Thank you so much"),
        ("It must have taken you ages", "It must have taken Melanie ages"),
        ("The US is big", "The US is big"),
        ("I no longer use Redis", "Caroline no longer uses Redis"),
        ("I kind of like Go", "Caroline kind of likes Go"),
        ("I almost deleted prod", "Caroline almost deleted prod"),
        ("I must go", "Caroline must go"),
        ("I literally rewrote it", "Caroline literally rewrote it"),
        ("I first met Ben in 2019", "Caroline first met Ben in 2019"),
        ("Should I use the ORM?", "Should Caroline use the ORM?"),
        ("Can I force-push to main?", "Can Caroline force-push to main?"),
        ("Did you break it?", "Did Melanie break it?"),
        ('Ben said "I hate YAML configs."', 'Ben said "Ben hates YAML configs."'),
        ("Ben told me: I will fix it tonight.", "Ben told Caroline: Ben will fix it tonight."),
        ('She wrote "my team is done"', 'She wrote "my team is done"'),
        ('The sign said "I love NY"', 'The sign said "I love NY"'),
    ],
)
def test_pronouns_become_names(sentence, expected):
    assert rewrite_pronouns(sentence, "Caroline", "Melanie") == expected


def test_second_person_is_left_alone_without_an_addressee():
    assert rewrite_pronouns("Did you go?", "Caroline", None) == "Did you go?"


def test_first_person_is_resolved_to_the_speaker():
    ex = run("Caroline: I adopted a dog last week.\nMelanie: Did you name it?")
    adopted = ex.items[find(ex, "adopted")]
    assert adopted.text.startswith("Caroline adopted a dog last week")
    assert adopted.kind == "event"
    assert ex.items[find(ex, "name it")].text == "Did Caroline name it?"


def test_acknowledgements_are_dropped_but_content_is_kept():
    ex = run(
        "Ana: haha\n"
        "Ben: Thanks, Ana!\n"
        "Ana: Wow, that's great!\n"
        "Ben: You've got guts.\n"
        "Ana: Wow, love that painting!"
    )
    assert [it.text for it in ex.items if it.kind != "person"] == [
        "Ana has got guts.",
        "Wow, love that painting!",
    ]


def test_a_one_word_answer_or_a_count_is_kept():
    ex = run(
        "Ana: Which cache do we use?\nBen: Redis.\nAna: How many kids do you have?\n"
        "Ben: We have one.\nAna: Haha, good one!"
    )
    said = [it.text for it in ex.items if it.kind != "person" and not it.text.endswith("?")]
    assert said == ["Redis.", "Ben and others have one."]


def test_a_will_that_asks_is_no_name_and_a_lowercase_handle_is_one():
    ex = run(
        "Ana: hi\nWill: hello\nBen: Will you review my PR, Caro?\nCaro: cc @ben you should review"
    )
    assert ex.items[find(ex, "PR, Caro")].text == "Will Caro review Ben's PR, Caro?"
    assert "Ben should review" in ex.items[find(ex, "should review")].text


def test_status_updates_and_answers_are_kept_and_chatter_is_not():
    ex = run(
        "Ana: Prod is back up.\n"
        "Ben: Grafana is up.\n"
        "Ana: Should I use Memcached for sessions?\n"
        "Ben: Nope, Redis.\n"
        "Ana: lgtm, thanks\n"
        "Ben: Makes sense.\n"
        "Ana: Good catch.\n"
        "Ben: Let me check.\n"
        "Ana: One sec."
    )
    assert [it.text for it in ex.items if it.kind != "person"] == [
        "Prod is back up.",
        "Grafana is up.",
        "Should Ana use Memcached for sessions?",
        "Nope, Redis.",
    ]


def test_among_three_or_more_you_is_whom_the_message_names_or_nobody():
    ex = run(
        "Ana: Staging is back.\n"
        "Ben: Rerunning e2e.\n"
        "Carol: @Dan your laptop holds the signing key.\n"
        "Carol: Can you and Ben pair on the release?\n"
        "Dan: Ben, thanks for your help. You saved us hours."
    )
    assert "Dan's laptop holds the signing key." in ex.items[find(ex, "laptop")].text
    assert ex.items[find(ex, "pair")].text == "Can you and Ben pair on the release?"
    assert ex.items[find(ex, "saved")].text.startswith("Ben saved Dan and others hours")


@pytest.mark.parametrize(
    ("text", "sentences"),
    [
        (
            "I woke up at 6 a.m. I love early mornings.",
            ["I woke up at 6 a.m.", "I love early mornings."],
        ),
        ("10. Best trip ever.", ["10. Best trip ever."]),
        ("The call is at 3 p.m. EST tomorrow.", ["The call is at 3 p.m. EST tomorrow."]),
        ("Let's meet at 9 a.m. Monday.", ["Let's meet at 9 a.m. Monday."]),
    ],
)
def test_a_time_or_a_number_with_a_stop_ends_a_sentence_only_before_a_new_one(text, sentences):
    assert split_sentences(text) == sentences


def test_quoted_words_end_where_the_quote_or_the_reported_clause_ends():
    said = "Ana"
    assert rewrite_pronouns('Mom texted: "I am proud" and I cried.', said).endswith("Ana cried.")
    assert rewrite_pronouns("Dan told me: use Postgres, so I switched.", said).endswith(
        "so Ana switched."
    )
    assert rewrite_pronouns('We got a 65" TV and I love it.', said).endswith("Ana loves it.")


def test_an_at_that_names_no_one_leaves_you_alone():
    ex = run(
        "Ana: hi\nBen: hello\nCara: @here you need to rotate your API keys.\n"
        "Ana: Mail ana@example.com, you can also ping me."
    )
    assert ex.items[find(ex, "rotate")].text == "@here you need to rotate your API keys."
    assert ex.items[find(ex, "ping")].text == "Mail ana@example.com, you can also ping Ana."


def test_a_name_said_anywhere_in_a_sentence_is_whom_you_is():
    ex = run("Ana: hi\nBen: hello\nCara: Sure, Ben. You owe me a coffee.\nAna: I sort the mail.")
    assert ex.items[find(ex, "coffee")].text == "Ben owes Cara a coffee."
    assert ex.items[find(ex, "mail")].text == "Ana sorts the mail."


def test_a_numbered_list_gives_its_items_not_its_numbers():
    ex = run("Ana: Action items from the retro:\n1. Add disk alerts\n2) Pin the backup image")
    assert [it.text for it in ex.items if it.kind != "person"] == [
        "Action items from the retro:",
        "Add disk alerts",
        "Pin the backup image",
    ]


def test_a_clock_time_with_dots_does_not_end_the_sentence_nor_make_two_events_one():
    ex = run("Ana: We rolled back at 3 p.m. yesterday.\nAna: The pager fired at 3 a.m. on Sunday.")
    rolled, fired = ex.items[find(ex, "rolled back")], ex.items[find(ex, "pager")]
    assert rolled.text.endswith("(7 May 2023).") and fired.text.endswith("(7 May 2023).")
    assert rolled.sources == ["m1"] and fired.sources == ["m2"]


def test_every_content_turn_yields_an_item():
    lines = [
        "Ana: I'm swamped with the kids & work.",
        "Ben: The transgender stories were so inspiring!",
        "Ana: Gonna check out career options, which is pretty exciting!",
        "Ben: By the way, take a look at this.",
        "Ana: It's special to me.",
        "Ben: What kinda jobs are you thinkin' of?",
    ]
    ex = run("\n".join(lines))
    covered = {s for it in ex.items if it.kind != "person" for s in it.sources}
    assert covered == {f"m{i}" for i in range(1, len(lines) + 1)}


def test_a_sentence_said_again_with_other_stops_is_one_item():
    ex = run("Ana: I prefer tabs.\nBen: ok\nAna: I prefer tabs!\nAna: I prefer tabs?")
    assert [(it.text, it.sources) for it in ex.items if it.kind != "person"] == [
        ("Ana prefers tabs.", ["m1", "m3"]),
        ("Ana prefers tabs?", ["m4"]),
    ]


def test_a_repeated_sentence_is_one_item_with_both_sources():
    ex = run("Ana: The deploy is on Friday.\nBen: ok\nAna: The deploy is on Friday.")
    item = ex.items[find(ex, "deploy")]
    assert item.sources == ["m1", "m3"]


def test_a_shared_image_is_described():
    messages = [
        Message("m1", "Melanie", "Take a look at this.", caption="a photo of a sunset over a lake")
    ]
    ex = extract(messages, DATE)
    item = ex.items[find(ex, "sunset")]
    assert item.text == "Melanie shared a photo of a sunset over a lake."
    assert item.attributes["image"] is True


# ---------------------------------------------------------------------------------------------
# Time
# ---------------------------------------------------------------------------------------------


def test_relative_dates_are_resolved_and_written_into_the_text():
    ex = run("Caroline: I went to a support group yesterday.")
    item = ex.items[find(ex, "support group")]
    assert item.text == "Caroline went to a support group yesterday (7 May 2023)."
    assert item.kind == "event"
    assert item.when == datetime(2023, 5, 7, tzinfo=UTC)
    assert item.attributes["when_phrase"] == "yesterday"
    assert item.attributes["said_at"] == DATE.isoformat()


def test_the_message_time_beats_the_session_date():
    messages = [Message("m1", "Ana", "We launched yesterday.", datetime(2024, 1, 10, tzinfo=UTC))]
    item = extract(messages, DATE).items[0]
    assert item.when == datetime(2024, 1, 9, tzinfo=UTC)


def test_without_any_date_relative_phrases_stay_as_they_are():
    ex = run("Ana: We launched yesterday.", date=None)
    item = ex.items[find(ex, "launched")]
    assert item.text == "Ana and others launched yesterday."
    assert item.when is None and "said_at" not in item.attributes


def test_vague_time_sets_no_date():
    ex = run("Ana: I recently started pottery.")
    assert ex.items[find(ex, "pottery")].when is None


# ---------------------------------------------------------------------------------------------
# Kinds
# ---------------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("line", "sentiment"),
    [
        ("Ana: I love hiking in the fall.", "positive"),
        ("Ana: My favorite editor is Vim.", "positive"),
        ("Ana: I'm a big fan of jazz.", "positive"),
        ("Ana: I hate flaky tests.", "negative"),
        ("Ana: I don't like horror movies.", "negative"),
        ("Ana: I'm not a big fan of GraphQL.", "negative"),
        ("Ana: I'd rather not use ORMs.", "negative"),
        ("Ana: I wouldn't say I love Kubernetes.", "negative"),
        ("Ana: I like it when tests don't flake.", "positive"),
        ("Ana: I really love that the new CI never times out.", "positive"),
        ("Ana: I prefer tabs, and please don't use mocks.", "positive"),
        ("Ana: Ben prefers async standups.", "positive"),
        ("Ana: Laura hates seafood.", "negative"),
        ("Ana: Ben doesn't like long meetings.", "negative"),
    ],
)
def test_preferences_and_their_sentiment(line, sentiment):
    item = run(line).items[0]
    assert item.kind == "preference"
    assert item.attributes["sentiment"] == sentiment


@pytest.mark.parametrize(
    "line",
    [
        "Ana: The API server listens on port 8080 locally.",
        "Ana: The staging DB is Postgres 15.",
        "Ana: Our CI runs on GitHub Actions.",
    ],
)
def test_how_a_system_is_set_up_is_a_fact(line):
    assert run(line).items[0].kind == "fact"


@pytest.mark.parametrize(
    "line", ["Ana: The painting is so beautiful!", "Ana: Is the API server up?"]
)
def test_a_remark_or_a_question_about_a_thing_is_no_fact(line):
    assert run(line).items[0].kind != "fact"


@pytest.mark.parametrize(
    "line",
    [
        "Ana: The lady who runs the bakery gave us free bread.",
        "Ana: The movie is Oscar-worthy.",
        "Ana: The best part is I got to see my family.",
        "Ana: The food is AMAZING!",
        "Ana: The restaurant is OK I guess",
        "Ana: My dog needs a walk",
        "Ana: The hotel is Fantastic.",
    ],
)
def test_a_remark_about_a_thing_is_no_fact_about_it(line):
    assert run(line).items[0].kind != "fact"


@pytest.mark.parametrize(
    ("line", "kind", "sentiment"),
    [
        ("Ana: Nobody likes Mondays.", "note", None),
        ("Ana: My son loves dinosaurs.", "preference", "positive"),
        ("Ana: I can't think of anything I love more than the beach.", "preference", "positive"),
        ("Ana: I can't think of anything I love more.", "preference", "positive"),
        ("Ana: I wouldn't say I like Go better than Rust.", "preference", "negative"),
        ("Ana: I would rather not sing.", "preference", "negative"),
        ("Ana: I love not having to commute.", "preference", "positive"),
        ("Ana: My kids hate broccoli.", "preference", "negative"),
        ("Ana: Kubernetes hates me.", "note", None),
    ],
)
def test_whose_taste_a_sentence_tells_and_which_way(line, kind, sentiment):
    item = run(line).items[0]
    assert (item.kind, item.attributes.get("sentiment")) == (kind, sentiment)


def test_feeling_like_is_not_a_preference():
    assert run("Ana: I feel like the week flew by.").items[0].kind != "preference"


@pytest.mark.parametrize(
    "line",
    [
        "Ana: I learned that load tests are worth it.",
        "Ana: Next time we should run the load test first.",
        "Ana: Never deploy on a Friday.",
        "Ana: The lesson is to keep backups offsite.",
        "Ana: Lesson learned: always pin versions.",
        "Ana: Lessons learned: test the restore, not the backup.",
        "Ana: Takeaway: every alert needs an owner.",
        "Ana: Key takeaway: keep the runbook next to the alert.",
        "Ana: Note to self: never rotate keys on a Friday.",
        "Ana: Next time, check the cache first.",
        "Ana: From now on, always run the migration on staging first.",
        "Ana: Going forward we need to review the on-call load.",
        "Ana: Next time, we should bring more water.",
        "Ana: Next time, use a feature flag.",
        "Ana: Next time I will double-check the config.",
        "Ana: In future, we must pin dependencies.",
    ],
)
def test_lessons(line):
    assert run(line).items[0].kind == "lesson"


@pytest.mark.parametrize(
    "line",
    [
        "Ana: See you next time!",
        "Ana: From now on, Ben owns the release checklist.",
        "Ana: In the future there will be flying cars.",
        "Ana: Next time, bring the kids!",
        "Ana: Next time, I'll bring my guitar.",
        "Ana: In the future, you should come with us to Lisbon.",
        "Ana: Next time, the drinks are on me.",
        "Ana: Next time you should come with us!",
    ],
)
def test_time_words_alone_make_no_lesson(line):
    assert all(item.kind != "lesson" for item in run(line).items)


@pytest.mark.parametrize(
    "line",
    [
        "Ana: We decided to move the launch.",
        "Ana: I'm going to apply for the job.",
        "Ana: We chose Postgres for the ledger.",
        "Ana: We're switching to weekly releases.",
    ],
)
def test_decisions(line):
    assert run(line).items[0].kind == "decision"


@pytest.mark.parametrize(
    ("line", "reason", "choice"),
    [
        ("Ana: We chose Postgres because it supports JSONB.",
         "It (Postgres) supports JSONB.", "Ana and others chose Postgres"),
        ("Ana: We went with Kafka because it scales.",
         "It (Kafka) scales.", "Ana and others went with Kafka"),
        ("Ana: We decided to use Postgres because it supports JSONB.",
         "It (Postgres) supports JSONB.", "Ana and others decided to use Postgres"),
        ("Ana: We decided on Fly.io because it was cheap.",
         "It (Fly.io) was cheap.", "Ana and others decided on Fly.io"),
        ("Ana: We chose the indoor venue because it rained.",
         "It rained.", "Ana and others chose the indoor venue"),
        ("Ana: We chose Postgres over Mongo because it kept losing data.",
         "It kept losing data.", "Ana and others chose Postgres over Mongo"),
        ("Ana: We opted for weekly releases because daily ones kept breaking staging.",
         "Daily ones kept breaking staging.", "Ana and others opted for weekly releases"),
        ("Ana: I decided to quit because the commute was killing me.",
         "The commute was killing Ana.", "Ana decided to quit"),
        ("Ana: We adopted Terraform because it keeps state.",
         "It (Terraform) keeps state.", "Ana and others adopted Terraform"),
        ("Ana: We dropped Kafka because it needed too many brokers.",
         "It (Kafka) needed too many brokers.", "Ana and others dropped Kafka"),
        ("Ana: We moved to SQS because Kafka needed brokers.",
         "Kafka needed brokers.", "Ana and others moved to SQS"),
        ("Ana: We finally migrated to Aurora since the disk kept filling up.",
         "The disk kept filling up.", "Ana and others finally migrated to Aurora"),
        ("Ana: We replaced Jenkins with GitHub Actions because builds were slow.",
         "Builds were slow.", "Ana and others replaced Jenkins with GitHub Actions"),
        # The reason's "it" is not the thing chosen: what was left, or the weather.
        ("Ana: We moved to SQS because it kept losing messages.",
         "It kept losing messages.", "Ana and others moved to SQS"),
        ("Ana: We switched to Postgres because it kept crashing.",
         "It kept crashing.", "Ana and others switched to Postgres"),
        ("Ana: I picked up the kids because it was raining.",
         "It was raining.", "Ana picked up the kids"),
    ],
)  # fmt: skip
def test_a_choice_told_with_its_reason_stays_a_decision(line, reason, choice):
    ex = run(line)
    assert texts(ex)[:2] == [("event", reason), ("decision", choice)]
    assert causal_links(ex) == [(reason, "caused", choice)]


@pytest.mark.parametrize(
    ("verdict", "told"),
    [
        ("It paid off: no ops burden at all.",
         "It (Ana and others went with SQLite) paid off: no ops burden at all."),
        ("That decision paid off within a month.",
         "That decision (Ana and others went with SQLite) paid off within a month."),
        ("That was a mistake.", "That (Ana and others went with SQLite) was a mistake."),
        ("In hindsight, the switch was the right call.",
         "The switch (Ana and others went with SQLite) was the right call."),
        ("The migration was a mistake.",
         "The migration (Ana and others went with SQLite) was a mistake."),
    ],
)  # fmt: skip
def test_a_verdict_on_a_decision_is_its_outcome(verdict, told):
    ex = run(f"Ana: We went with SQLite.\nBen: {verdict}")
    assert causal_links(ex) == [("Ana and others went with SQLite.", "caused", told)]
    find(ex, "went with SQLite", "decision")  # one item each, of these kinds
    find(ex, told, "outcome")


@pytest.mark.parametrize(
    ("line", "done", "sign"),
    [
        ("Adding an index paid off: the query went from 2 s to 20 ms.", "Adding an index", 1),
        ("Switching to write-through was a mistake; writes got twice as slow.",
         "Switching to write-through", -1),
        ("Honestly, moving to Kubernetes was the right call.", "Moving to Kubernetes", 1),
        ("Our switch to gRPC turned out to be a huge win.", "Ana and others' switch to gRPC", 1),
        ("Our rewrite of the parser backfired.", "Ana and others' rewrite of the parser", -1),
        ("Adding the cache was the right approach.", "Adding the cache", 1),
        ("Going to the gym paid off, I lost 10 pounds.", "Going to the gym", 1),
    ],
)  # fmt: skip
def test_a_verdict_on_something_done_is_its_outcome_told_whole(line, done, sign):
    ex = run(f"Ana: {line}")
    ((cause, relation, outcome),) = causal_links(ex)
    assert (cause, relation) == (done, "caused")
    told = ex.items[find(ex, outcome, "outcome")]
    assert told.text.startswith(done) and told.attributes["polarity"] * sign > 0


@pytest.mark.parametrize(
    "line",
    [
        "Ana: John was a mistake.",
        "Ana: The party was a success.",
        "Ana: The weather was a disaster.",
        "Ana: Melanie's move to the city was a big decision.",
        "Ana: We moved.\nBen: That was a big decision.",
    ],
)
def test_no_verdict_without_something_done_and_judged(line):
    assert causal_links(run(line)) == []


@pytest.mark.parametrize(
    "line",
    [
        "Ana: Hiring her hasn't paid off.",
        "Ana: Adding an index never backfired.",
        "Ana: Adding an index would have paid off.",
        "Ana: Writing tests always pays off.",
        "Ana: The launch party was a huge success.",
        "Ana: Rewriting the billing service in Go was a mistake, but adding caching paid off.",
        "Ana: Bob is my brother.\nBen: It was a mistake.",
        "Ana: The server crashed.\nBen: That was a mistake.",
        "Ana: Let's order pizza.\nBen: That was a great idea!",
        "Ana: The migration was a mistake.",
        "Ana: We went with SQLite.\nBen: It was a mistake to trust the vendor.",
    ],
)
def test_a_denied_supposed_or_habitual_verdict_or_one_on_no_doing_claims_nothing(line):
    assert [(s, r, o) for s, r, o in causal_links(run(line)) if r != "no_effect"] == []


def test_what_a_verdict_told_goes_on_to_cause_is_traced_through_it():
    ex = run(
        "Ana: We skipped the load test.\nBen: That was a mistake: checkout stalled for an hour."
        "\nChi: That led to an angry escalation from Acme Retail."
    )
    verdict = (
        "That (Ana and others skipped the load test) was a mistake: checkout stalled for an hour."
    )
    assert causal_links(ex) == [
        ("Ana and others skipped the load test.", "caused", verdict),
        (verdict, "caused", "An angry escalation from Acme Retail."),
    ]
    # The verdict goes on to cause something and stays an outcome, scored.
    assert ex.items[find(ex, verdict, "outcome")].attributes["polarity"] < 0


def test_a_verdict_beside_another_claim_leaves_that_claim_whole():
    ex = run("Ana: Adding an index was a good idea, but it didn't help.")
    assert causal_links(ex) == [("Adding an index was a good idea", "no_effect", "It didn't help.")]


def test_a_verdict_with_its_reason_is_an_outcome_scored():
    ex = run("Ana: Switching to gRPC was the right call because it cut latency.")
    verdict = ex.items[find(ex, "right call", "outcome")]
    assert verdict.attributes["polarity"] > 0


def test_a_comment_or_a_nod_to_a_plan_is_no_verdict():
    assert causal_links(run("Ana: I made pasta for dinner.\nBen: It was delicious.")) == []
    assert causal_links(run("Ana: Let's order pizza tonight.\nBen: That's a great idea!")) == []
    assert causal_links(run("Ana: We should add a cache.\nBen: That is the right call.")) == []


def test_facts_and_notes():
    ex = run("Ana: I have two kids.\nAna: My mom is a nurse.\nAna: The weather is nice.")
    assert ex.items[find(ex, "two kids")].kind == "fact"
    assert ex.items[find(ex, "nurse")].kind == "fact"
    assert ex.items[find(ex, "weather")].kind == "note"


@pytest.mark.parametrize(
    "line", ["John: Hey Maria!\nMaria: You got this, John!", "Maria: We got this!", "Nate: I bet!"]
)
def test_cheer_and_assent_are_notes_not_events(line):
    assert "event" not in [it.kind for it in run(line).items]


def test_getting_something_is_still_an_event():
    ex = run("Jon: I got the job!\nJon: I got this bike yesterday.")
    assert ex.items[find(ex, "the job")].kind == "event"
    assert ex.items[find(ex, "bike")].kind == "event"


def test_an_answer_naming_tools_and_what_each_is_for_is_an_item_for_each():
    ex = run(
        "Ana: What do we run CI and the orders DB on?\n"
        "Dana: yep. Jenkins for CI, Postgres 15 for the orders DB"
    )
    told = [it for it in ex.items if it.attributes.get("answer")]
    assert [it.text for it in told] == ["Jenkins for CI.", "Postgres 15 for the orders DB."]
    assert all(it.sources == ["m2"] for it in told)
    # not an answer: the sentence is kept whole, as said
    alone = run("Dana: Jenkins for CI, Postgres 15 for the orders DB")
    assert not any(it.attributes.get("answer") for it in alone.items)


def test_questions_are_kept_and_answers_are_related_to_them():
    ex = run("Ana: Where did you move to?\nBen: I moved to Lisbon in March.")
    question, answer = find(ex, "Where did"), find(ex, "Lisbon")
    assert ex.items[question].attributes["question"] is True
    assert ex.items[question].text == "Where did Ben move to?"
    assert relations(ex, question, answer) == {"related"}


def test_sentences_of_one_turn_are_related_in_order():
    ex = run("Ana: I bought a bike. It is red. I ride it daily.")
    a, b, c = find(ex, "bike"), find(ex, "red"), find(ex, "daily")
    assert relations(ex, a, b) == {"related"} and relations(ex, b, c) == {"related"}


# ---------------------------------------------------------------------------------------------
# Causal rules
# ---------------------------------------------------------------------------------------------


def test_because_links_cause_to_effect():
    ex = run("Ana: We rolled back because the error rate spiked.")
    cause, effect = find(ex, "error rate spiked"), find(ex, "rolled back")
    assert relations(ex, cause, effect) == {"caused"}
    assert ex.items[effect].kind == "outcome"
    assert ex.items[effect].text == "Ana and others rolled back"


@pytest.mark.parametrize("assent", ["Good", "Great", "Nice"])
def test_an_assent_with_a_reason_gives_the_reason_of_what_it_assents_to(assent):
    ex = run(
        f"Ana: We switched billing to Postgres.\nBen: {assent}, because MySQL kept deadlocking."
    )
    cause, switch = find(ex, "MySQL kept deadlocking"), find(ex, "switched billing")
    assert relations(ex, cause, switch) == {"caused"}
    assert not any(i.text.rstrip(".!") == assent for i in ex.items), "no outcome named 'Good'"


def test_because_at_the_start_of_a_sentence():
    ex = run("Ana: Because we skipped code review, a bug reached production.")
    cause, effect = find(ex, "skipped code review"), find(ex, "bug reached")
    assert relations(ex, cause, effect) == {"caused"}
    assert ex.items[cause].kind == "decision"  # someone did it


def test_that_caused_links_to_the_previous_turn():
    ex = run(
        "Ana: We skipped the load test before the sale.\n"
        "Ben: That caused a checkout outage on Saturday."
    )
    cause, effect = find(ex, "skipped"), find(ex, "outage")
    assert relations(ex, cause, effect) == {"caused"}
    assert ex.items[cause].kind == "decision"
    outage = ex.items[effect]
    assert outage.kind == "outcome"
    assert outage.text == "A checkout outage on Saturday (6 May 2023)."
    assert outage.sources == ["m2"]
    assert outage.attributes["polarity"] < 0


@pytest.mark.parametrize(
    "sigh", ["Ugh.", "ugh.", "oops!", "yikes.", "argh...", "oof.", "damn.", "ugh, sigh."]
)
def test_that_after_a_sigh_is_what_the_turn_before_told_not_the_sigh(sigh):
    ex = run(f"Maya: The deploy broke the login page.\nDana: {sigh} That caused 300 tickets.")
    assert causal_links(ex)[-1][1:] == ("caused", "300 tickets.")
    assert "broke the login page" in causal_links(ex)[-1][0]
    assert not any(it.text.lower().startswith(sigh.lower()[:3]) for it in ex.items)


@pytest.mark.parametrize(
    "nod",
    [
        "Yeah that", "Yeah, that", "yep that", "Yes this", "agreed, that", "Agreed that",
        "right that", "True that", "exactly, that", "Totally that", "ok that", "Sure that",
        "Indeed it", "ugh that",
    ],
)  # fmt: skip
@pytest.mark.parametrize("cue", ["caused", "led to"])
def test_that_after_a_nod_with_or_without_a_comma_is_what_the_turn_before_told(nod, cue):
    ex = run(f"Dana: We raised the pool size to 500.\nBen: {nod} {cue} the login outage.")
    assert causal_links(ex) == [
        ("Dana and others raised the pool size to 500.", "caused", "The login outage.")
    ]


def test_a_definite_noun_phrase_links_to_the_item_that_named_it():
    ex = run(
        "Ana: That week we had a checkout outage.\nBen: The outage led to an escalation from Acme."
    )
    outage, escalation = find(ex, "checkout outage"), find(ex, "escalation")
    assert relations(ex, outage, escalation) == {"caused"}
    assert not any(it.text == "The outage" for it in ex.items)


def test_chains_across_turns():
    ex = run(
        "Ana: We skipped the load test.\n"
        "Ben: That caused an outage.\n"
        "Chi: The outage led to an escalation from Acme."
    )
    skipped, outage, escalation = find(ex, "skipped"), find(ex, "an outage"), find(ex, "Acme")
    assert relations(ex, skipped, outage) == {"caused"}
    assert relations(ex, outage, escalation) == {"caused"}


def test_prevented_keeps_the_bad_thing_as_the_outcome():
    ex = run("Chi: Adding a circuit breaker prevented the cascade failure in payments.")
    breaker, failure = find(ex, "circuit breaker", "decision"), find(ex, "cascade failure")
    assert relations(ex, breaker, failure) == {"prevented"}
    assert ex.items[failure].attributes["polarity"] < 0  # what did not happen was bad


def test_no_data_loss_is_not_a_bad_outcome():
    ex = run("Ana: The careful migration resulted in no data loss.")
    outcome = ex.items[find(ex, "no data loss")]
    assert outcome.kind == "outcome"
    assert outcome.attributes["polarity_label"] == "positive"


def test_a_negated_cue_means_no_effect():
    ex = run("Chi: Turning on autoscaling did not prevent the slowdown.")
    cause, effect = find(ex, "autoscaling"), find(ex, "slowdown")
    assert relations(ex, cause, effect) == {"no_effect"}


def test_it_didnt_help_links_what_was_tried_with_no_effect():
    ex = run("Ben: We added caching. It didn't help.")
    tried, result = find(ex, "added caching", "decision"), find(ex, "didn't help")
    assert relations(ex, tried, result) == {"no_effect"}
    assert ex.items[result].text == "It (Ben and others added caching) didn't help."


def test_thanks_to_is_enabled():
    ex = run("Ben: Thanks to the feature flags, we disabled the broken checkout in seconds.")
    flags, result = find(ex, "feature flags"), find(ex, "disabled")
    assert relations(ex, flags, result) == {"enabled"}


def test_without_x_y_would_have_happened_is_prevented():
    ex = run("Chi: Without the backups, we would have lost a week of data.")
    backups, loss = find(ex, "backups"), find(ex, "lost a week")
    assert relations(ex, backups, loss) == {"prevented"}
    assert ex.items[loss].attributes["polarity"] < 0  # read as if it had happened


def test_which_links_the_main_clause_to_what_it_did():
    ex = run("Ben: Later we switched to gradual rollouts, which fixed it for good.")
    switch = find(ex, "switched to gradual rollouts", "decision")
    fixed = find(ex, "fixed it for good", "outcome")
    assert relations(ex, switch, fixed) == {"caused"}
    assert ex.items[fixed].attributes["polarity"] > 0


def test_which_before_a_cue_verb_is_the_cue_verb():
    ex = run("Hana: Rui set up expiry alerts, which prevented an expired certificate.")
    alerts, cert = find(ex, "expiry alerts"), find(ex, "expired certificate")
    assert relations(ex, alerts, cert) == {"prevented"}


def test_and_that_refers_to_the_clause_before_it():
    ex = run("Gus: Rui configured log rotation, and that stopped a full disk before it started.")
    rotation, disk = find(ex, "log rotation"), find(ex, "full disk")
    assert relations(ex, rotation, disk) == {"prevented"}
    assert ex.items[disk].text == "A full disk."


def test_an_avoided_effect_is_a_prevention():
    ex = run("Omar: Because Rui froze deploys, we avoided a weekend outage.")
    freeze, outage = find(ex, "froze deploys"), find(ex, "weekend outage")
    assert relations(ex, freeze, outage) == {"prevented"}


def test_a_fix_that_did_not_hold_caused_what_came_next():
    ex = run("Ana: The restart did not fix it after all: the pool ran dry again.")
    restart = find(ex, "The restart", "decision")  # a measure that was tried
    again = find(ex, "ran dry again", "outcome")
    assert relations(ex, restart, again) == {"caused"}
    assert ex.items[again].attributes["polarity"] < 0


def test_so_links_two_clauses():
    ex = run("Ana: We added a retry queue, so the failed jobs were processed later.")
    queue, processed = find(ex, "retry queue"), find(ex, "processed later")
    assert relations(ex, queue, processed) == {"caused"}


def test_a_pronoun_acting_links_to_what_was_said_before():
    ex = run("Ana: We switched to the new vendor. It worked great.")
    switch, worked = find(ex, "new vendor", "decision"), find(ex, "worked great")
    assert relations(ex, switch, worked) == {"caused"}
    assert ex.items[worked].attributes["polarity"] > 0


def test_as_a_result_links_to_the_previous_sentence():
    ex = run("Ana: We hired a second on-call engineer.\nBen: As a result, pages went down.")
    hired, pages = find(ex, "hired"), find(ex, "pages went down")
    assert relations(ex, hired, pages) == {"caused"}


RAISED = "Ana and others raised the pool size to 50"
RAN_OUT = "The database ran out of connections."


@pytest.mark.parametrize(
    "connective",
    [
        ", and that's why",
        ", so that's why",
        "; that is why",
        ", which meant that",
        ", which meant",
        ", and this meant",
        "; this meant",
        ", and because of that",
        ", as a result of which",
        ", with the result that",
        ", so as a result",
        " — as a direct result,",
    ],
)
def test_a_connective_inside_a_sentence_links_the_clause_before_to_the_clause_after(connective):
    ex = run(f"Ana: We raised the pool size to 50{connective} the database ran out of connections.")
    assert causal_links(ex) == [(RAISED, "caused", RAN_OUT)]


def test_thanks_to_which_credits_the_clause_before_it():
    ex = run("Ana: We raised the pool size to 50, thanks to which the database kept up.")
    assert causal_links(ex) == [(RAISED, "enabled", "The database kept up.")]


def test_thereby_tells_what_the_clause_before_did():
    ex = run("Ana: We raised the pool size to 50, thereby exhausting the database connections.")
    assert causal_links(ex) == [(RAISED, "caused", "Exhausting the database connections.")]


def test_as_a_result_at_the_end_credits_the_clause_before_it_or_the_sentence_before():
    ex = run("Ana: We raised the pool size and the database ran out of connections as a result.")
    assert causal_links(ex) == [
        ("Ana and others raised the pool size", "caused", "The database ran out of connections")
    ]
    ex = run(
        "Ana: We raised the pool size to 50.\nBen: The database ran out of connections as a result."
    )
    raised, ran_out = find(ex, "raised the pool size"), find(ex, "ran out of connections")
    assert relations(ex, raised, ran_out) == {"caused"}


def test_as_a_result_of_opening_a_sentence_names_the_cause():
    ex = run("Ana: As a result of raising the pool size, the database ran out of connections.")
    assert causal_links(ex) == [("Raising the pool size", "caused", RAN_OUT)]


def test_a_cause_told_as_what_may_happen_is_a_weaker_link():
    ex = run("Ana: We might raise the pool size, and as a result the database might run out.")
    (link,) = [ln for ln in ex.links if ln.relation == "caused"]
    assert link.weight < 0.8


@pytest.mark.parametrize(
    "line",
    [
        "Ana: If we raise the pool size, as a result the database will run out of connections.",
        "Ana: If we raise the pool size and the database runs out as a result, we roll back.",
        "Ana: We raised the pool size to 50, but that's not why the database ran out.",
        "Ana: We raised the pool size to 50, which is not why the database ran out.",
        "Ana: That meant a lot to me.",
        "Ana: I meant that we should go to the beach.",
        "Ana: By Tuesday I meant that the deploy was postponed.",
        "Ana: By soon we meant the release would slip.",
        "Ana: She just meant that the deploy was postponed.",
        "Ana: By Tuesday Ben meant that the deploy was postponed.",
    ],
)
def test_a_connective_in_a_condition_a_denial_or_another_sense_claims_nothing(line):
    assert causal_links(run(line)) == []


def test_not_because_names_no_cause():
    assert (
        causal_links(run("Ana: Not because we raised the pool size, the database ran out.")) == []
    )


@pytest.mark.parametrize(
    ("line", "effect"),
    [
        ("The database ran out of connections, all because we raised the pool size.", RAN_OUT[:-1]),
        ("Training is important for basketball because it builds muscle.",
         "Training is important for basketball"),
    ],
)  # fmt: skip
def test_what_because_is_said_of_keeps_its_words_and_no_more(line, effect):
    ((_, relation, told),) = causal_links(run(f"Ana: {line}"))
    assert (relation, told) == ("caused", effect)


def test_which_in_turn_is_no_part_of_the_cause():
    ex = run("Ana: We raised the pool size, which in turn caused the database to run out.")
    assert causal_links(ex)[0][0] == "Ana and others raised the pool size"


@pytest.mark.parametrize(
    "line",
    [
        "Ana: I'm so happy you had fun!",
        "Ana: Caroline helped Melanie move last week.",
        "Ana: They raised money for a good cause.",
        "Ana: Let me know how it goes!",
        "Ana: After work, I went to the gym.",
        "Ana: It has been a while since we talked.",
        "Ana: The script that I contributed to was shown on the big screen.",
    ],
)
def test_no_causal_claim(line):
    assert causal_links(run(line)) == []


@pytest.mark.parametrize(
    "said",
    [
        "After the code, see [[e]].",
        "After the deploy, check the dashboard.",
        "After the deploy finished, please check the dashboard.",
        "After the deploy, don't touch the dashboard.",
        "After the upgrade, note that the config moved.",
        "After the upgrade, make sure the cache warmed up.",
        "Check the dashboard after the deploy finished.",
        "Once the migration finishes, run the smoke tests.",
        "If it fails, see the runbook.",
        "When paged, follow the escalation policy.",
    ],
)
def test_what_a_note_tells_the_reader_to_do_next_is_no_effect(said):
    ex = extract([Message("m0", "", said)], None)
    assert causal_links(ex) == []
    assert [it.kind for it in ex.items if it.kind == "outcome"] == []


@pytest.mark.parametrize(
    ("said", "link"),
    [
        ("After the deploy, checkout errors spiked.",
         ("The deploy", "caused", "Checkout errors spiked.")),
        ("After the deploy, test runs failed.", ("The deploy", "caused", "Test runs failed.")),
        ("After the upgrade, page loads slowed.", ("The upgrade", "caused", "Page loads slowed.")),
        ("Test runs failed after we upgraded Postgres.",
         ("We upgraded Postgres.", "caused", "Test runs failed")),
        ("After we upgraded Postgres, the planner caused a slowdown.",
         ("We upgraded Postgres", "caused", "The planner caused a slowdown.")),
    ],
)  # fmt: skip
def test_what_happened_after_an_event_still_follows_from_it(said, link):
    assert causal_links(extract([Message("m0", "", said)], None)) == [link]


@pytest.mark.parametrize(
    ("said", "advice"),
    [
        ("Roll back because the deploy broke checkout.", "roll back"),
        ("Please roll back because of the bad config.", "roll back"),
        ("Because the deploy broke checkout, roll back.", "roll back"),
        ("Don't deploy on Fridays because the on-call team is thin.", "fridays"),
        ("Check the dashboard due to the new alert thresholds.", "dashboard"),
        ("Roll back since the deploy broke checkout.", "roll back"),
    ],
)
def test_an_instruction_told_with_its_reason_is_advice_not_an_effect(said, advice):
    """What a note tells its reader to do is no effect of its reason, as it is no effect of
    what it follows ("After the deploy, check the dashboard")."""
    ex = extract([Message("m0", "", said)], None)
    linked = [text.lower() for src, _, dst in causal_links(ex) for text in (src, dst)]
    assert not [text for text in linked if advice in text]
    assert not [it.text for it in ex.items if it.kind == "outcome" and advice in it.text.lower()]


@pytest.mark.parametrize(
    ("said", "link"),
    [
        ("Checkout broke because the deploy shipped a bad config.",
         ("The deploy shipped a bad config.", "caused", "Checkout broke")),
        ("Test runs failed because the fixtures were stale.",
         ("The fixtures were stale.", "caused", "Test runs failed")),
        ("We rolled back because the deploy broke checkout.",
         ("The deploy broke checkout.", "caused", "We rolled back")),
    ],
)  # fmt: skip
def test_what_happened_because_of_a_reason_still_follows_from_it(said, link):
    assert causal_links(extract([Message("m0", "", said)], None)) == [link]


def test_a_person_acting_by_doing_something_credits_the_doing():
    ex = run("Ana: We prevented the outage by adding a circuit breaker.")
    breaker, outage = find(ex, "adding a circuit breaker"), find(ex, "The outage")
    assert relations(ex, breaker, outage) == {"prevented"}


def test_a_hypothetical_cue_is_weaker():
    ex = run("Ana: A dedicated room would help Nate stay focused.")
    (link,) = [ln for ln in ex.links if ln.relation == "enabled"]
    assert link.weight < 0.8


# ---------------------------------------------------------------------------------------------
# People
# ---------------------------------------------------------------------------------------------


def test_speakers_and_named_people_are_person_items_with_about_links():
    ex = run("Ana: My sister Jen visited me yesterday.\nBen: Jen and I went hiking once.")
    people = {it.text: i for i, it in enumerate(ex.items) if it.kind == "person"}
    assert set(people) == {"Ana", "Ben", "Jen"}
    assert ex.items[people["Jen"]].attributes == {"relation": "sister", "of": "Ana"}
    assert ex.items[people["Ana"]].attributes == {"role": "speaker"}
    visited = find(ex, "visited")
    assert relations(ex, visited, people["Jen"]) == {"about"}
    assert relations(ex, visited, people["Ana"]) == {"about"}  # "me" became "Ana"
    assert set(ex.items[people["Jen"]].sources) == {"m1", "m2"}


def named_people(said: str) -> dict[str, dict]:
    """The people Ana's message names (not its speakers), with what is known of each."""
    ex = extract([Message("m1", "Ana", said), Message("m2", "Ben", "ok")], DATE)
    return {
        it.text: it.attributes
        for it in ex.items
        if it.kind == "person" and it.attributes.get("role") != "speaker"
    }


@pytest.mark.parametrize(
    ("said", "people"),
    [
        # A sentence's first word is capitalised for its place, not for being a name.
        ("Marrying my partner and promising to be together forever was the best part.", set()),
        ("Thankfully, my son's ok and that was a reminder that life is precious.", set()),
        ("Sadly, my son is sick.", set()),
        ("Tonight, my wife and I are going out.", set()),
        ("Luckily my sister Jen was there.", {"Jen"}),
        ("Recently my cousin Alex visited.", {"Alex"}),
        ("Honestly Priya said the canary was skipped.", {"Priya"}),
        ("Yesterday Dana called me.", {"Dana"}),
        ("Running and I don't get along.", set()),
        # Engineering chat: tools and doings are no one.
        ("Honestly, Postgres was the wrong call.", set()),
        ("Thankfully Jenkins recovered.", set()),
        ("Deploying on Friday broke checkout.", set()),
        ("Kafka lag caused the outage.", set()),
        ("We went with Postgres after dealing with Kafka for a year.", set()),
        ("The Guardian said the deal was off.", set()),
        # Someone named once is still someone.
        ("Priya said the canary was skipped.", {"Priya"}),
        ("My friend Priya helped me move.", {"Priya"}),
        ("Priya, my manager, approved it.", {"Priya"}),
        ("This is Priya, my sister.", {"Priya"}),
        ("I went hiking with Bo last week.", {"Bo"}),
        ("I caught up with Bo over coffee.", {"Bo"}),
        ("Kelly said hi.", {"Kelly"}),
        ("Emily and I went hiking.", {"Emily"}),
    ],
)
def test_people_are_named_by_a_person_cue_not_by_a_capital_letter(said, people):
    assert set(named_people(said)) == people


def test_a_name_shaped_as_an_adverb_is_a_name_where_it_is_capitalised_mid_sentence():
    ex = run("Ana: Beverly said the build broke.\nBen: I'll ask Beverly about it.")
    assert "Beverly" in {it.text for it in ex.items if it.kind == "person"}
    alone = run("Ana: Beverly said the build broke.\nBen: ok")
    assert "Beverly" not in {it.text for it in alone.items if it.kind == "person"}


def test_the_subject_is_a_stronger_about_than_a_mention():
    ex = run("Ana: I met Ben at the market.\nBen: ok")
    people = {it.text: i for i, it in enumerate(ex.items) if it.kind == "person"}
    met = find(ex, "market")
    weights = {ln.dst: ln.weight for ln in ex.links if ln.src == met and ln.relation == "about"}
    assert weights[people["Ana"]] > weights[people["Ben"]]


# ---------------------------------------------------------------------------------------------
# Properties
# ---------------------------------------------------------------------------------------------

SAMPLE_WORDS = [
    "I", "you", "we", "my", "because", "so", "that", "caused", "led", "to", "prevented",
    "thanks", "without", "would", "have", "it", "didn't", "help", "yesterday", "last", "week",
    "love", "hate", "the", "outage", "deploy", "Ana", "Jen", "my", "sister", "?", ".", ",",
    "which", "fixed", "after", "we", "skipped", "haha", "!", "'", ":", "(", ")", "\n",
]  # fmt: skip
sentences = st.one_of(
    st.text(min_size=1, max_size=120),
    st.lists(st.sampled_from(SAMPLE_WORDS), min_size=1, max_size=25).map(" ".join),
)
messages = st.lists(
    st.tuples(st.sampled_from(["Ana", "Ben", "Chi", "user"]), sentences), max_size=8
).map(lambda ms: [Message(f"m{i}", s, t) for i, (s, t) in enumerate(ms)])


@settings(max_examples=300, deadline=None)
@given(messages, st.one_of(st.none(), st.datetimes(timezones=st.just(UTC))))
@example([Message("m0", "Ana", "after ed,-")], None)  # nothing after the comma to be the effect
def test_every_item_has_a_source_and_links_are_valid(msgs, date):
    ex = extract(msgs, date)
    ids = {m.id for m in msgs}
    for item in ex.items:
        assert isinstance(item, Item)
        assert item.kind in KINDS
        assert item.text.strip()
        assert item.sources and set(item.sources) <= ids
    for link in ex.links:
        assert 0 <= link.src < len(ex.items) and 0 <= link.dst < len(ex.items)
        assert link.src != link.dst
        assert link.relation in RELATIONS
        assert 0 < link.weight <= 1


json_values = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats() | st.text(max_size=30),
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=8), inner),
    max_leaves=12,
)
MESSAGE_KEYS = ["id", "speaker", "text", "time", "role", "content", "caption", "x"]
MESSAGE_KEYS += ["author", "body", "timestamp", "date"]  # as chat exports spell them
message_like = st.dictionaries(
    st.sampled_from(MESSAGE_KEYS),
    json_values,
)


@settings(max_examples=300, deadline=None)
@given(
    st.one_of(
        st.text(max_size=200),
        st.lists(st.one_of(message_like, st.text(max_size=40), json_values), max_size=5),
        json_values,
    )
)
def test_parse_transcript_fails_only_with_validation_errors(value):
    try:
        parsed = parse_transcript(value)
    except ValidationError as err:
        assert err.field
        return
    for m in parsed:
        assert m.id and m.speaker and isinstance(m.text, str)
    json.dumps([m.id for m in parsed])


def test_an_effect_that_names_an_earlier_outcome_is_that_outcome_full_stop_and_all():
    ex = run(
        "Ben: The cache flush slowed every query. That caused the outage.\n"
        "Ana: A staged flush would have prevented the outage."
    )
    outage = find(ex, "outage", "outcome")
    assert relations(ex, find(ex, "A staged flush"), outage) == {"prevented"}
    assert relations(ex, find(ex, "No staged flush"), outage) == {"enabled"}


def test_a_paragraph_no_one_is_named_as_saying_keeps_its_pronouns():
    said = [
        Message("notes.md", "", "We skipped the canary because the release was late."),
        Message("notes.md", "", "I think that caused the outage."),
    ]
    ex = extract(said, DATE)
    assert causal_links(ex) == [
        ("The release was late.", "caused", "We skipped the canary"),
        ("We skipped the canary", "caused", "The outage."),
    ]
    assert not [it for it in ex.items if it.kind == "person"]
    assert all("speaker" not in it.attributes for it in ex.items)
    hit = extract([Message("n.md", "", "We were hit by a DDoS, which caused the outage.")])
    assert ("event", "We were hit by a DDoS") in texts(hit)
    assert ex.items[0].attributes["message"].startswith("We skipped")


def test_a_hedge_before_that_is_the_speaker_not_the_cause():
    ex = run("Ben: We skipped the canary.\nAna: I guess that caused the outage.")
    assert causal_links(ex) == [("Ben and others skipped the canary.", "caused", "The outage.")]
    assert not [t for _, t in texts(ex) if "guess" in t.lower()]


def test_a_hedged_cause_is_the_thing_blamed_and_a_held_belief_keeps_its_words():
    ex = run("Ana: I think the new runner image caused the slowdown.\nBen: Really?")
    assert causal_links(ex) == [("The new runner image", "caused", "The slowdown.")]
    held = run("Ana: I believe in code review, so we caught the bug early.")
    assert causal_links(held)[0][0] == "Ana believes in code review"


def test_the_outage_is_the_outcome_named_before_even_with_more_words_after_it():
    ex = run(
        "Ana: Skipping the canary caused the checkout outage on Saturday.\n"
        "Ben: A canary stage would have prevented the outage."
    )
    outage = find(ex, "checkout outage", "outcome")
    assert relations(ex, find(ex, "A canary stage"), outage) == {"prevented"}
    assert relations(ex, find(ex, "No canary stage"), outage) == {"enabled"}


def test_a_cause_named_by_a_noun_phrase_is_not_an_earlier_line_that_shares_one_word():
    ex = run(
        "Ana: We migrated the billing database on Monday.\n"
        "Ben: The old database caused the slowdown."
    )
    assert causal_links(ex) == [("The old database", "caused", "The slowdown.")]


@pytest.mark.parametrize(
    ("said", "link"),
    [
        ("Ana: The outage was caused by the backup job.",
         ("The backup job.", "caused", "The outage")),
        ("Ana: The failover was triggered by the memory leak.",
         ("The memory leak.", "caused", "The failover")),
        ("Ana: The outage wasn't caused by the deploy.",
         ("The deploy.", "no_effect", "The outage")),
        ("Ana: The outage was prevented by the circuit breaker.",
         ("The circuit breaker.", "prevented", "The outage")),
        ("Ana: The outage was not prevented by the alert.",
         ("The alert.", "no_effect", "The outage")),
        ("Ana: The checkout outage, which was caused by the backup job, lasted two hours.",
         ("The backup job", "caused", "The checkout outage")),
        ("Ana: The checkout outage lasted two hours. It was caused by the backup job.",
         ("The backup job.", "caused", "The checkout outage lasted two hours.")),
    ],
)  # fmt: skip
def test_the_passive_voice_names_the_cause_after_by(said, link):
    assert causal_links(run(said)) == [link]


def test_what_could_have_prevented_the_outage_was_missing():
    assert causal_links(run("Ana: The outage could have been prevented by a disk alert.")) == [
        ("A disk alert.", "prevented", "The outage"),
        ("No disk alert", "enabled", "The outage"),
    ]


@pytest.mark.parametrize(
    "said",
    [
        "Ana: The release was triggered by hand.",
        "Ana: It was caused by 5 pm.",
        "Ana: We were stopped by the police.",
        "Ana: The outage caused by the deploy lasted an hour.",
    ],
)
def test_by_a_time_a_manner_or_a_visit_names_no_cause(said):
    assert causal_links(run(said)) == []


@pytest.mark.parametrize(
    "before",
    [
        "The retry storm led to the outage backlog in support.",
        "The deploy on Friday went fine.",
        "The checkout outage on Saturday cost us $10k.",
    ],
)
def test_a_phrase_after_the_noun_is_not_the_thing_named(before):
    ex = run(f"Ana: {before}\nBen: The bad deploy caused the outage.")
    assert ("The bad deploy", "caused", "The outage.") in causal_links(ex)


@pytest.mark.parametrize("speaker", ["Zoë", "ana", "DeShawn", "JJ"])
def test_any_speakers_hedge_is_dropped(speaker):
    ex = run(f"{speaker}: I think the cache flush caused the slowdown.")
    assert causal_links(ex) == [("The cache flush", "caused", "The slowdown.")]


@pytest.mark.parametrize(
    ("said", "cause"),
    [
        ("Ana: Users believe checkout is broken, which led to a spike in tickets.",
         "Users believe checkout is broken"),
        ("Ana: Attackers guess weak passwords, which caused the breach.",
         "Attackers guess weak passwords"),
    ],
)  # fmt: skip
def test_what_others_hold_or_deny_is_no_hedge_to_drop(said, cause):
    assert causal_links(run(said))[0][0] == cause


def test_a_cause_nobody_holds_is_no_claim_and_keeps_its_words():
    ex = run("Ana: Nobody thinks the cache flush caused the slowdown.")
    assert causal_links(ex) == []
    assert any("Nobody thinks the cache flush" in text for _, text in texts(ex))


def test_a_passive_cause_keeps_its_numbers_and_its_list():
    assert causal_links(run("Ana: The outage was caused by the 1,000 extra workers.")) == [
        ("The 1,000 extra workers.", "caused", "The outage")
    ]
    listed = run("Ana: The outage was caused by a bug, a missing index and a bad deploy.")
    assert causal_links(listed)[0][0] == "A bug, a missing index and a bad deploy."


def test_what_someone_else_thinks_is_kept_as_theirs():
    ex = run("Ana: Dana thinks the missing alert caused the slow response.")
    assert causal_links(ex)[0][0] == "Dana thinks the missing alert"
    own = run("Ana: I think that the cache caused the outage.")
    assert causal_links(own) == [("The cache", "caused", "The outage.")]


@pytest.mark.parametrize(
    "said",
    [
        "Ana: The outage was caused by a config push, not the database.",
        "Ana: The outage was caused by a config push, according to Dana.",
        "Ana: The outage was caused by a config push, I think.",
    ],
)
def test_a_comment_after_a_passive_cause_is_not_part_of_it(said):
    assert causal_links(run(said))[0][0] == "A config push"


def test_an_earlier_passive_in_a_relative_clause_keeps_its_effect_whole():
    ex = run("Ana: The outage, which had been caused by the backup job, lasted two hours.")
    assert causal_links(ex) == [("The backup job", "caused", "The outage")]


def test_a_hedged_remark_that_claims_no_cause_keeps_its_hedge():
    ex = run("Ben: I think I have a cold.")
    assert ("note", "Ben thinks Ben has a cold.") in texts(ex)


def test_that_in_a_note_is_what_was_said_just_before_not_sections_back():
    said = [
        Message("pm.md", "", "The search cluster ran out of heap on Tuesday."),
        *(Message("pm.md", "", f"Did we check point {n}?") for n in range(4)),
        Message("pm.md", "", "That caused the login failures."),
    ]
    assert causal_links(extract(said, DATE, note=True)) == []


@pytest.mark.parametrize(
    ("said", "link"),
    [
        ("Mel: I guess the trip allowed us to reconnect.",
         ("The trip", "enabled", "The trip allowed Mel and others to reconnect.")),
        ("Ana: The outage was caused by disk, memory, and network problems.",
         ("Disk, memory, and network problems.", "caused", "The outage")),
        ("Ana: The outage was caused by a bug, as well as a bad deploy.",
         ("A bug, as well as a bad deploy.", "caused", "The outage")),
        ("Ana: The outage hasn't been caused by the deploy.",
         ("The deploy.", "no_effect", "The outage")),
    ],
)  # fmt: skip
def test_a_hedge_or_a_list_does_not_hide_what_caused_what(said, link):
    assert causal_links(run(said)) == [link]


@pytest.mark.parametrize(
    "said",
    [
        "Ana: The outage was caused by the deploy, and the retries made it worse.",
        "Ana: The outage was caused by the deploy; we rolled back.",
    ],
)
def test_a_passive_cause_ends_where_its_clause_does(said):
    assert causal_links(run(said)) == [("The deploy", "caused", "The outage")]


@pytest.mark.parametrize(
    "said",
    [
        "Mel: I think after dinner, we should watch a movie.",
        "Mel: I think after the holidays, I'll start running again.",
        "Mel: I think without a doubt, it's the best book.",
    ],
)
def test_a_hedge_before_a_time_or_a_manner_stays(said):
    ex = run(said)
    assert causal_links(ex) == [] and any("Mel thinks" in t for _, t in texts(ex))


@pytest.mark.parametrize(
    ("said", "link"),
    [
        ("Ana: Kafka caused the outage.", ("Kafka", "caused", "The outage.")),
        ("Ana: I think Redis led to the slowdown.", ("Redis", "caused", "The slowdown.")),
        ("Ana: Redis and Kafka triggered the failover.",
         ("Redis and Kafka", "caused", "The failover.")),
        ("Ana: The outage was caused by Kafka.", ("Kafka.", "caused", "The outage")),
        ("Ana: DNS caused the outage.", ("DNS", "caused", "The outage.")),
        ("Ana: Node.js led to the memory leak.", ("Node.js", "caused", "The memory leak.")),
        ("Ana: PgBouncer prevented the outage.", ("PgBouncer", "prevented", "The outage.")),
        ("Ana: S3 enabled the migration.", ("S3", "enabled", "The migration.")),
        ("Ana: CI prevented the bad release.", ("CI", "prevented", "The bad release.")),
        # a tool's name, though spelt as a person's may be
        ("Ana: Kubernetes prevented the outage.", ("Kubernetes", "prevented", "The outage.")),
        ("Aiden: Hi.\nAna: AI caused the outage.", ("AI", "caused", "The outage.")),
    ],
)  # fmt: skip
def test_a_cause_named_in_one_word_is_a_thing(said, link):
    assert causal_links(run(said)) == [link]


@pytest.mark.parametrize(
    "said",
    [
        "Ana: Ben caused the outage.\nBen: Sorry, my bad.",  # Ben speaks: a person
        "Ana: My brother Tom visited. Tom caused a scene.",  # named as someone
        "Ana: The outage was caused by Ana.",  # the speaker herself
        "Ana: Jen helped Ben move.",  # a name before "helped" is someone acting
        "Ana: Priya prevented the outage.",  # ... and so before "prevented"
        "Ana: Nothing caused the outage, it was a false alarm.",
        "Ana: Nobody led to it.",
        "Ana: Everything triggered the alarm at once.",
        "Melanie: Hi!\nAna: Mel caused the delay.",  # a speaker's nickname
        "Ana: TJ prevented the fight.",  # initials and names spelt with inner capitals
        "Ana: LeBron prevented the loss.",
        "Ana: JJ helped me move.",
    ],
)
def test_a_person_named_in_one_word_is_no_cause(said):
    assert causal_links(run(said)) == []


@pytest.mark.parametrize(
    ("said", "link"),
    [
        ("Ana: So the deploy caused the outage.", ("The deploy", "caused", "The outage.")),
        ("Ana: So Kafka caused the outage.", ("Kafka", "caused", "The outage.")),
        ("Ana: Well, basically the cron job triggered the failover.",
         ("The cron job", "caused", "The failover.")),
        ("Ana: The retry storm was the root cause of the outage.",
         ("The retry storm", "caused", "The outage.")),
        ("Ana: Stale DNS records were the main reason for the slowdown.",
         ("Stale DNS records", "caused", "The slowdown.")),
        ("Ana: The root cause of the outage was a misconfigured load balancer.",
         ("A misconfigured load balancer.", "caused", "The outage")),
        ("Ana: The outage stemmed from a bad config push.",
         ("A bad config push.", "caused", "The outage")),
        ("Ana: The slowdown was traced back to a missing index.",
         ("A missing index.", "caused", "The slowdown")),
        ("Ana: The slowdown has been traced back to a missing index.",
         ("A missing index.", "caused", "The slowdown")),
        ("Ana: The retry storm was not the cause of the outage.",
         ("The retry storm", "no_effect", "The outage.")),
    ],
)  # fmt: skip
def test_how_engineers_tell_a_cause(said, link):
    assert causal_links(run(said)) == [link]


@pytest.mark.parametrize(
    ("said", "cause"),
    [
        ("Ana: The migration broke the login page.", "The migration"),
        ("Ana: Rolling back the deploy fixed the latency.", "Rolling back the deploy"),
        ("Ana: Upgrading to Python 3.12 resolved the segfault.", "Upgrading to Python 3.12"),
        ("Ana: The new runner image slowed down CI.", "The new runner image"),
        ("Ana: The bad query took down the primary database.", "The bad query"),
        ("Ana: The deploy took down auth again.", "The deploy"),
        ("Ana: The hotfix fixed login.", "The hotfix"),
        ("Ana: The migration slowed down writes by 30%.", "The migration"),
    ],
)
def test_what_a_change_did_is_its_outcome_as_told(said, cause):
    # The effect is the sentence itself: "the login page" alone would not say it broke.
    told = said.removeprefix("Ana: ")
    assert causal_links(run(said)) == [(cause, "caused", told)]


def test_the_root_cause_without_its_outcome_is_of_what_was_just_told():
    ex = run(
        "Ana: The checkout outage lasted two hours.\n"
        "Ben: The root cause was a misconfigured load balancer."
    )
    assert causal_links(ex) == [
        ("A misconfigured load balancer.", "caused", "The checkout outage lasted two hours.")
    ]


@pytest.mark.parametrize(
    "said",
    [
        "Ana: I broke my leg last summer.",
        "Ana: I fixed the bug yesterday.",
        "Ana: Let's fix the login page.",
        "Ana: My mom helped me move.",
        "Ana: Ben's brother allowed us to stay.",
        "Ana: The car broke down on the highway.",
        "Ana: The cause of the delay is still unclear.",
        "Ana: The root cause was unknown for days.",
        "Ana: What was the root cause of the outage?",
        "Ana: So many people came to the show.",
        "Ana: There was an epic block that changed the game.",
        "Ana: They raised money for a good cause.",
    ],
)
def test_words_of_a_cause_that_claim_none(said):
    assert causal_links(run(said)) == []


@pytest.mark.parametrize(
    ("said", "link"),
    [
        ("Ana: The pool ran dry. So that caused the outage.",
         ("The pool ran dry.", "caused", "The outage.")),
        ("Ana: The disk filled up. So the deploy caused the outage.",
         ("The deploy", "caused", "The outage.")),
        ("Ana: We started a food drive.\nBen: Unemployment in our town was the reason behind it.",
         ("Unemployment in Ben and others' town", "caused",
          "Ana and others started a food drive.")),
    ],
)  # fmt: skip
def test_so_before_a_claim_only_carries_the_talk_on(said, link):
    assert causal_links(run(said)) == [link]


@pytest.mark.parametrize(
    "said",
    [
        "Ana: Vik set one fixed TTL for all cache entries.",
        "Ana: The bug was fixed the next day.",
        "Ana: The bug has been fixed the next day.",
    ],
)
def test_a_verb_of_doing_as_an_adjective_or_passive_names_no_cause(said):
    assert causal_links(run(said)) == []


def test_what_a_cause_did_is_one_outcome_in_a_chain():
    ex = run(
        "Ana: Ivo turned off backoff, and as a result a retry storm took down the sync.\n"
        "Ben: A retry storm took down the billing sync, so the customer escalated."
    )
    assert causal_links(ex) == [
        ("Ivo turned off backoff", "caused", "A retry storm took down the sync."),
        ("A retry storm", "caused", "A retry storm took down the billing sync"),
        ("A retry storm took down the billing sync", "caused", "The customer escalated."),
    ]


@pytest.mark.parametrize(
    ("said", "kept"),
    [
        ("Ana: We upgraded Postgres last week - the new planner caused a slowdown.",
         "Ana and others upgraded Postgres last week (the week of 1 May 2023)"),
        ("Ana: The deploy caused the outage; we rolled back at noon.",
         "Ana and others rolled back at noon."),
        ("Ana: I went home early, but the traffic was bad because of the rain.",
         "Ana went home early"),
        ("Ana: The rain caused a delay, and we missed the flight to Rome.",
         "Ana and others missed the flight to Rome."),
    ],
)  # fmt: skip
def test_a_clause_that_is_neither_cause_nor_effect_is_still_kept(said, kept):
    ex = run(said)
    assert causal_links(ex)
    assert kept in [text for _, text in texts(ex)]
    assert all(kept not in text for text, _, _ in causal_links(ex))


@pytest.mark.parametrize(
    ("said", "link"),
    [
        ("Ana: The rate limiter prevented the clients from overloading the API.",
         ("The rate limiter", "prevented", "The clients overloading the API.")),
        ("Ana: A firewall rule blocked the workers from reaching the database.",
         ("A firewall rule", "prevented", "The workers reaching the database.")),
        ("Ana: The breaker did not prevent the clients from overloading the API.",
         ("The breaker", "no_effect", "The clients overloading the API.")),
    ],
)  # fmt: skip
def test_what_was_prevented_from_happening_is_the_outcome(said, link):
    assert causal_links(run(said)) == [link]


@pytest.mark.parametrize(
    "said",
    [
        "Ana: My grandma came down to Florida for the holidays.",
        "Ana: The price came down to twenty dollars.",
        "Ana: The call was traced to a payphone.",
        "Ana: Our family tree was traced back to the 1600s.",
        "Ana: I've been reading about the French Revolution.\nBen: The main cause was economic "
        "hardship.",
        "Ana: I'm reading a mystery novel.\nBen: Who's the culprit?\nAna: The culprit was the "
        "butler.",
        "Ana: I ran a 5k for charity.\nBen: What was the cause?\nAna: The cause was childhood "
        "cancer research.",
        "Ana: The cause of the bug was fixed yesterday.",
        "Ana: The cause of the bug was found by Priya.",
        "Ana: I quit my job.\nBen: Why?\nAna: The reason is complicated.",
        "Ana: The kids crashed the car.",
        "Ana: The boxer knocked out his opponent in round two.",
        "Ana: The defender blocked the shot.",
        "Ana: Her smile broke the ice at the party.",
        "Ana: The new season of the show broke all the records.",
        "Ana: If the migration breaks the login page, we roll back.",
    ],
)
def test_everyday_words_of_causing_claim_no_cause(said):
    assert causal_links(run(said)) == []


@pytest.mark.parametrize(
    ("said", "link"),
    [
        ("Ana: The outage didn't stem from the config push.",
         ("The config push.", "no_effect", "The outage")),
        ("Ana: The root cause of the outage was not the load balancer.",
         ("The load balancer.", "no_effect", "The outage")),
        ("Ana: What caused the outage was not the deploy.",
         ("The deploy.", "no_effect", "The outage")),
        ("Ana: Redis was the root cause of the outage.", ("Redis", "caused", "The outage.")),
        ("Ana: The outage stemmed from Kafka.", ("Kafka.", "caused", "The outage")),
        ("Ana: So the root cause of the outage was a misconfigured load balancer.",
         ("A misconfigured load balancer.", "caused", "The outage")),
        ("Ana: The root causes of the outage were a bad deploy and a full disk.",
         ("A bad deploy and a full disk.", "caused", "The outage")),
        ("Ana: The memory leak was probably the root cause of the crashes.",
         ("The memory leak", "caused", "The crashes.")),
    ],
)  # fmt: skip
def test_how_engineers_tell_a_cause_also_negated_or_hedged(said, link):
    assert causal_links(run(said)) == [link]


def test_a_hedged_cause_is_weaker():
    ex = run("Ana: The outage may have stemmed from a bad config push.")
    assert causal_links(ex) == [("A bad config push.", "caused", "The outage")]
    assert ex.links[0].weight < 0.8


@pytest.mark.parametrize(
    ("said", "link"),
    [
        ("Ana: The disk filled up. So the database crashed, which caused the outage.",
         ("The disk filled up.", "caused",
          "The database crashed, which caused the outage.")),
        ("Ana: It rained all day. So the game was cancelled because the field flooded.",
         ("It rained all day.", "caused",
          "The game was cancelled because the field flooded.")),
        ("Ana: The disk filled up. So the database crashed and that caused the outage.",
         ("The disk filled up.", "caused",
          "The database crashed and that caused the outage.")),
    ],
)  # fmt: skip
def test_so_still_links_a_sentence_to_the_one_before(said, link):
    assert link in causal_links(run(said))


@pytest.mark.parametrize(
    ("said", "cause"),
    [
        ("Ana: The outage led to well over 100 support tickets.", None),
        ("Ana: Well water caused my stomach problems.", "Well water"),
        ("Ana: My boss caused a lot of stress this year.", "Ana's boss"),
    ],
)
def test_words_inside_a_clause_are_not_taken_for_openers(said, cause):
    found = causal_links(run(said))
    assert len(found) == 1
    if cause is None:
        assert found[0][2] == "Well over 100 support tickets."
    else:
        assert found[0][0] == cause


@pytest.mark.parametrize(
    ("said", "link", "kept"),
    [
        ("Ana: The root cause of the outage was a misconfigured load balancer; we fixed it in "
         "an hour.", ("A misconfigured load balancer", "caused", "The outage"),
         "Ana and others fixed it in an hour."),
        ("Ana: The root cause of the outage was a bad deploy, which caused the pods to crash.",
         ("A bad deploy", "caused", "The outage"), "The pods to crash."),
    ],
)  # fmt: skip
def test_the_root_cause_is_the_first_clause_and_the_rest_is_read_on_its_own(said, link, kept):
    ex = run(said)
    assert link in causal_links(ex)
    assert kept in [text for _, text in texts(ex)]


@pytest.mark.parametrize(
    ("said", "link"),
    [
        ("Ana: The root cause for the outage: a misconfigured load balancer.",
         ("A misconfigured load balancer.", "caused", "The outage")),
        ("Ana: Root cause of the outage was a misconfigured load balancer.",
         ("A misconfigured load balancer.", "caused", "The outage")),
        ("Ana: The checkout outage lasted two hours. Root cause: a misconfigured load balancer.",
         ("A misconfigured load balancer.", "caused", "The checkout outage lasted two hours.")),
    ],
)  # fmt: skip
def test_a_root_cause_written_as_a_heading(said, link):
    assert causal_links(run(said)) == [link]


def test_a_root_cause_that_turned_out_is_told_as_sure():
    ex = run("Ana: The memory leak turned out to be the root cause of the crashes.")
    assert [ln.weight for ln in ex.links if ln.relation == "caused"] == [0.8]


@pytest.mark.parametrize(
    "said",
    [
        "Ana: If the bad deploy was the root cause of the outage, we should roll back.",
        "Ana: We don't know if the bad deploy was the root cause of the outage.",
        "Ana: Neither the deploy nor the config was the root cause of the outage.",
        "Ana: If the deploy causes errors, we roll back.",
        "Ana: The root cause of the outage is still being investigated.",
        "Ana: The cause of the bug was embarrassing.",
    ],
)
def test_a_condition_or_a_denial_of_every_cause_claims_none(said):
    assert causal_links(run(said)) == []


@pytest.mark.parametrize(
    ("said", "link", "kept"),
    [
        ("Ana: When the migration caused the outage, we rolled back.",
         ("The migration", "caused", "The outage"), "Ana and others rolled back."),
        ("Ana: Priya said the migration caused the outage.",
         ("The migration", "caused", "The outage."), None),
        ("Ana: Ben told me that the cron job triggered the failover.",
         ("The cron job", "caused", "The failover."), None),
    ],
)  # fmt: skip
def test_the_time_or_the_teller_of_a_claim_is_not_its_cause(said, link, kept):
    ex = run(said)
    assert causal_links(ex) == [link]
    assert kept is None or kept in [text for _, text in texts(ex)]


def test_a_relative_after_a_time_clause_is_still_a_person_acting():
    assert causal_links(run("Ana: When I was a kid, my dad helped me build a treehouse.")) == []


@pytest.mark.parametrize(
    "said",
    [
        "Ana: The build broke this morning.",
        "Ana: The tests broke all week.",
        "Ana: The pipeline broke every night last week.",
        "Ana: The economy slowed down a little.",
        "Ana: My laptop broke yesterday.",
        "Ana: It broke completely.",
        "Ana: That movie broke my heart.",
        "Ana: The fall broke my wrist.",
        "Ana: The issue Priya fixed the other day came back.",
        "Ana: The guy who fixed my bike was nice.",
        "Ana: No deploy broke the login page.",
        "Ana: No amount of restarts fixed it.",
        "Ana: The mechanic fixed the brakes.",
        "Ana: The detectives solved the case.",
        "Ana: The cause of the fire is being investigated.",
        "Ana: The reason for the trip is a secret.",
        "Ana: The cause of the bug was embarrassing to admit.",
        "Ana: The checkout outage lasted two hours.\nBen: Root cause: TBD.",
        "Ana: The checkout outage lasted two hours.\nBen: The root cause was the same as last "
        "time.",
        "Ana: The checkout outage lasted two hours.\nBen: Root cause: Priya is looking into it.",
        "Ana: The tradition stems from the 1800s.",
        "Ana: Nobody believes the bad deploy was the root cause of the outage.",
        "Ana: I don't think the memory leak was the root cause of the crashes.",
    ],
)
def test_what_only_sounds_like_a_cause_claims_none(said):
    assert causal_links(run(said)) == []


@pytest.mark.parametrize(
    ("said", "link"),
    [
        ("Ana: No, the deploy caused the outage.", ("The deploy", "caused", "The outage.")),
        ("Ana: If you ask me, the deploy caused the outage.",
         ("The deploy", "caused", "The outage.")),
        ("Ana: The rain, if I remember right, caused the delay.",
         ("The rain", "caused", "The delay.")),
        ("Ana: Priya merged the schema change and it broke the login page.",
         ("Priya merged the schema change", "caused",
          "Priya merged the schema change and it broke the login page.")),
        ("Ana: The storm prevented flights from Wyoming.",
         ("The storm", "prevented", "Flights from Wyoming.")),
    ],
)  # fmt: skip
def test_a_claim_after_an_aside_is_still_read(said, link):
    assert causal_links(run(said)) == [link]


def test_not_x_but_y_tells_both():
    ex = run("Ana: The root cause of the outage was not the load balancer but DNS.")
    assert sorted(causal_links(ex)) == [
        ("DNS.", "caused", "The outage"),
        ("The load balancer", "no_effect", "The outage"),
    ]


def test_what_follows_a_prevention_follows_from_the_preventer():
    ex = run(
        "Ana: The limiter prevented the clients from overloading the API, which saved the launch."
    )
    assert causal_links(ex) == [
        ("The limiter", "prevented", "The clients overloading the API"),
        (
            "The limiter",
            "caused",
            "It (The limiter prevented the clients from overloading the API) saved the launch.",
        ),
    ]
    assert [t for _, t in texts(ex) if "from overloading" in t and "saved" not in t] == []


@pytest.mark.parametrize(
    ("said", "kept"),
    [
        ("Ana: We started a food drive.\nBen: That was the reason behind it!",
         "That was the reason behind it!"),
        ("Ana: Stress was the reason for it.", "Stress was the reason for it."),
    ],
)  # fmt: skip
def test_a_claim_whose_ends_are_one_thing_or_nothing_is_kept_as_said(said, kept):
    ex = run(said)
    assert kept in [text for _, text in texts(ex)]
    assert not any(text in ("It.", "That.") for _, text in texts(ex))


def test_a_short_clause_beside_a_claim_is_kept():
    ex = run("Ana: The deploy caused the outage; Priya quit.")
    assert "Priya quit." in [text for _, text in texts(ex)]


def test_an_effect_told_with_it_keeps_its_own_words():
    ex = run("Ana: Yoga is my thing - it helps me sleep.")
    assert causal_links(ex) == [("Yoga is Ana's thing", "enabled", "It helps Ana sleep.")]


def test_a_cause_told_as_a_list_is_one_cause():
    ex = run(
        "Ana: Strength training matters because it builds muscle, increases power, and "
        "prevents injuries."
    )
    assert causal_links(ex) == [
        ("It builds muscle, increases power, and prevents injuries.", "caused",
         "Strength training matters"),
    ]  # fmt: skip


def test_what_a_speaker_did_can_be_a_cause():
    ex = run("Melanie: Hi!\nAna: Melanie's talk caused a stir.")
    assert causal_links(ex) == [("Melanie's talk", "caused", "A stir.")]


@pytest.mark.parametrize(
    ("said", "link"),
    [
        ("Ana: No retries were configured, which caused the messages to be dropped.",
         ("No retries were configured", "caused", "The messages to be dropped.")),
        ("Ana: The deploy, which we tested to see whether it was safe, caused the outage.",
         ("The deploy, which Ana and others tested to see whether it was safe", "caused",
          "The outage.")),
        ("Ana: Without a doubt, the deploy caused the outage.",
         ("The deploy", "caused", "The outage.")),
        ("Ana: Checkout failed at 14:02.\nBen: The trigger was a config push at 13:58.",
         ("A config push at 13:58.", "caused", "Checkout failed at 14:02.")),
        ("Ana: The login page failed all day.\nBen: Root cause: expired TLS cert.",
         ("Expired TLS cert.", "caused", "The login page failed all day.")),
        ("Ana: The login page failed all day.\nBen: - **Root cause**: an expired TLS cert.",
         ("An expired TLS cert.", "caused", "The login page failed all day.")),
        ("Ana: The login page failed all day.\nBen: RCA: an expired TLS cert.",
         ("An expired TLS cert.", "caused", "The login page failed all day.")),
        ("Ana: The outage stemmed from the 2019 refactor.",
         ("The 2019 refactor.", "caused", "The outage")),
        ("Ana: Rolling back fixed it.", ("Rolling back", "caused", "Rolling back fixed it.")),
        ("Ana: So basically the cron job triggered the failover.",
         ("The cron job", "caused", "The failover.")),
        ("Ana: Yep, the hotfix caused the regression.",
         ("The hotfix", "caused", "The regression.")),
        ("Ana: The customer broke the API by sending malformed JSON.",
         ("Sending malformed JSON.", "caused",
          "The customer broke the API by sending malformed JSON.")),
        ("Ana: The new driver broke the network stack.",
         ("The new driver", "caused", "The new driver broke the network stack.")),
    ],
)  # fmt: skip
def test_incident_talk_as_people_write_it(said, link):
    assert causal_links(run(said)) == [link]


def test_it_was_not_x_it_was_y_tells_both():
    ex = run("Ana: The root cause of the outage wasn't the database, it was the network.")
    assert sorted(causal_links(ex)) == [
        ("The database", "no_effect", "The outage"),
        ("The network.", "caused", "The outage"),
    ]


def test_a_root_cause_heading_with_nothing_before_it_claims_none():
    assert causal_links(run("Ana: Root cause: human error.")) == []


@pytest.mark.parametrize(
    "said",
    [
        "Ana: If the cache is cold, the first request slows down the whole page.",
        "Ana: Nobody said the deploy caused the outage.",
        "Ana: I doubt the deploy caused the outage.",
    ],
)
def test_a_condition_a_denial_or_a_doubt_claims_none(said):
    assert causal_links(run(said)) == []


def test_a_timeline_time_is_no_item_of_its_own():
    ex = run("Ana: 14:20 - the rollback fixed the errors")
    assert [t for _, t in texts(ex) if t.strip(". ") == "14:20"] == []


def test_you_mentioned_keeps_who_mentioned_it():
    ex = run("Ana: You mentioned the cache flush caused the slowdown.")
    assert any("mentioned" in t for _, t in texts(ex))


def test_what_a_cause_did_with_an_abbreviation_still_leads_on():
    ex = run("Ana: The retry storm took down the API, so we disabled retries.")
    assert ("The retry storm took down the API", "caused", "Ana and others disabled retries.") in (
        causal_links(ex)
    )


@pytest.mark.parametrize(
    ("said", "links"),
    [
        ("Ana: The rollout fixed the memory leak but slowed down the startup.",
         [("The rollout", "caused", "The rollout fixed the memory leak"),
          ("The rollout", "caused", "The rollout slowed down the startup.")]),
        ("Ana: The breaker prevented the outage but caused a brief slowdown.",
         [("The breaker", "prevented", "The outage"),
          ("The breaker", "caused", "A brief slowdown.")]),
    ],
)  # fmt: skip
def test_two_claims_of_one_subject_are_both_read(said, links):
    assert causal_links(run(said)) == links


@pytest.mark.parametrize(
    ("said", "cause"),
    [
        ("Ana: Redis, Kafka, and Postgres caused the outage.", "Redis, Kafka, and Postgres"),
        ("Ana: Good food, laughs, and chats help us stay close.", "Good food, laughs, and chats"),
        ("Ana: I went home, ate, and the rain caused floods.", "The rain"),
    ],
)
def test_a_cause_named_as_a_list_is_the_whole_list(said, cause):
    assert [c for c, _, _ in causal_links(run(said))] == [cause]


@pytest.mark.parametrize(
    ("said", "links"),
    [
        ("Ana: The deploy caused the outage, and the rollback fixed it.",
         [("The deploy", "caused", "The outage"),
          ("The rollback", "caused", "The rollback fixed it.")]),
        ("Ana: Sure, and the rain caused floods in the basement.",
         [("The rain", "caused", "Floods in the basement.")]),
        ("Ana: Wow, that's so cool, it caused a stir.", []),
        ("Ana: We upgraded Redis. It fixed the memory leak but slowed down the startup.",
         [("Ana and others upgraded Redis.", "caused",
           "It (Ana and others upgraded Redis) fixed the memory leak"),
          ("Ana and others upgraded Redis.", "caused",
           "It (Ana and others upgraded Redis) slowed down the startup.")]),
    ],
)  # fmt: skip
def test_a_list_a_nod_or_a_shared_pronoun_beside_a_claim(said, links):
    assert causal_links(run(said)) == links


@pytest.mark.parametrize(
    ("line", "feared"),
    [
        ("Ana: We changed the billing page, so we might get 40 support tickets.",
         "Ana and others might get 40 support tickets."),
        ("Ana: We reworded the refund form. That could lead to 40 support tickets.",
         "That (Ana and others reworded the refund form) could lead to 40 support tickets."),
        ("Ana: Raising the pool size would cause an outage.",
         "Raising the pool size would cause an outage."),
    ],
)  # fmt: skip
def test_what_a_change_might_lead_to_is_told_as_feared_not_as_had(line, feared):
    ex = run(line)
    (link,) = [ln for ln in ex.links if ln.relation == "caused"]
    effect = ex.items[link.dst]
    assert effect.text == feared  # the hedge kept: not "40 support tickets" had
    assert effect.attributes["polarity_label"] == "neutral"
    assert link.weight < 0.8

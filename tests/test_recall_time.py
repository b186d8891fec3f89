"""A query that names a time ("last week", "in January 2024") lifts what was said or happened
then, resolved against the memory's own clock."""

from __future__ import annotations

import os
import subprocess
import sys
from datetime import UTC, datetime
from pathlib import Path

import pytest

from ebbtide import ManualClock, open_memory


@pytest.fixture
def diary():
    clock = ManualClock("2024-03-20T10:00:00+00:00")  # a Wednesday
    with open_memory(":memory:", clock=clock, embeddings="none") as memory:
        said = "I painted the kitchen. The kitchen looks great."
        memory.remember(
            messages=[{"speaker": "Ana", "text": said}], date="2024-01-10T18:00:00+00:00"
        )
        memory.remember(
            messages=[{"speaker": "Ana", "text": "I went hiking with Bo."}],
            date="2024-01-12T18:00:00+00:00",
        )
        memory.remember(
            messages=[{"speaker": "Ana", "text": "I painted the garden fence."}],
            date="2024-03-13T18:00:00+00:00",  # last week, seen from 20 March
        )
        yield memory


def top(memory, query: str) -> str:
    hits = [h for h in memory.recall(query, k=5, touch=False).hits if h.node.kind != "person"]
    return hits[0].node.text


def test_without_a_time_the_words_decide(diary):
    assert top(diary, "What did Ana paint?") == "Ana painted the kitchen."


@pytest.mark.parametrize(
    ("query", "expected"),
    [
        ("What did Ana do last week?", "Ana painted the garden fence."),
        ("What did Ana paint last week?", "Ana painted the garden fence."),
        ("What did Ana do in January 2024?", "Ana painted the kitchen."),
        ("What did Ana do on 12 January 2024?", "Ana went hiking with Bo."),
    ],
)
def test_what_was_said_in_the_named_time_ranks_first(diary, query, expected):
    assert top(diary, query) == expected


def test_the_window_follows_the_memory_clock(diary):
    diary.clock.set("2024-01-17T10:00:00+00:00")  # now "last week" is 8-14 January
    assert top(diary, "What did Ana do last week?") in {
        "Ana painted the kitchen.",
        "Ana went hiking with Bo.",
    }


@pytest.mark.parametrize(
    ("query", "expected"),
    [
        ("what did I do last week?", "Ana painted the garden fence."),
        ("What happened in January 2024?", "Ana painted the kitchen."),
        ("What happened on 12 January 2024?", "Ana went hiking with Bo."),
    ],
)
def test_a_query_that_is_only_a_time_finds_what_was_said_then(diary, query, expected):
    assert top(diary, query) == expected


def test_a_time_with_nothing_in_it_finds_nothing_dated_elsewhere(diary):
    hits = diary.recall("What happened in May 2023?", k=5, touch=False).hits
    assert [h.node.text for h in hits if h.node.kind != "person"] == []


def test_an_sqlite_store_written_before_time_spans_were_indexed_is_searched_after_reopening(
    tmp_path,
):
    """A file from an earlier ebbtide has no node_times rows; opening it fills them in once."""
    import sqlite3
    from datetime import UTC, datetime

    from ebbtide.model import Node
    from ebbtide.store import SearchFilter, open_store

    path = tmp_path / "old.db"
    t = datetime(2026, 2, 25, tzinfo=UTC)
    store = open_store(str(path))
    store.add_node(Node(id="n1", kind="event", text="Ana shipped the release", created_at=t,
                        updated_at=t, attributes={"when": "2026-02-25"}))  # fmt: skip
    store.close()
    with sqlite3.connect(path) as db:  # as an earlier version left it
        db.execute("DELETE FROM node_times")
        db.execute("DELETE FROM meta WHERE key = 'node_times'")
    week = (datetime(2026, 2, 23, tzinfo=UTC), datetime(2026, 3, 2, tzinfo=UTC))
    store = open_store(str(path))
    assert [i for i, _ in store.time_search(*week, 10, SearchFilter())] == ["n1"]
    store.close()


def test_a_date_without_its_year_means_the_latest_one_the_memory_holds_anything_from(diary):
    diary.clock.set("2026-11-30T10:00:00+00:00")  # January 2026 and 2025 hold nothing
    assert top(diary, "What did Ana do on 12 January?") == "Ana went hiking with Bo."
    diary.remember(
        messages=[{"speaker": "Ana", "text": "I sold my old car to Kim."}],
        date="2026-01-12T18:00:00+00:00",
    )
    assert top(diary, "What did Ana do on 12 January?") == "Ana sold Ana's old car to Kim."
    assert top(diary, "What did Ana do on 12 January 2024?") == "Ana went hiking with Bo."


def test_notes_an_agent_remembered_are_dated_by_when_they_were_told():
    clock = ManualClock("2026-03-20T12:00:00+00:00")  # "last week" is 9-15 March
    with open_memory(":memory:", clock=clock, embeddings="none") as memory:
        memory.remember("Rotated the AWS access keys for CI", at="2026-03-13T10:00:00+00:00")
        memory.remember("Rotated the office door code", at="2026-02-02T10:00:00+00:00")
        memory.remember(
            messages="Ana: We upgraded Postgres to 16.\nBob: Any downtime?",
            date="2026-03-12T10:00:00+00:00",
        )
        assert top(memory, "what did we rotate last week?") == "Rotated the AWS access keys for CI"
        assert memory.remember("Ana Ruiz, platform lead", "person").attributes == {}


def test_each_hit_says_what_weighed_on_its_score(diary):
    hits = diary.recall("What did Ana paint last week?", k=5, touch=False).hits
    fence = next(h for h in hits if "fence" in h.node.text)
    assert fence.why.weights.get("time") == 3.0 and fence.why.weights.get("speaker") == 2.0
    person = next((h for h in hits if h.node.kind == "person"), None)
    assert person is None or person.why.weights.get("index") == 0.3


def test_a_question_about_one_day_finds_what_was_said_that_day_not_the_evening_before():
    clock = ManualClock("2026-03-20T12:00:00+00:00")
    with open_memory(":memory:", clock=clock, embeddings="none") as memory:
        memory.remember(
            messages="Ana: We picked Grafana for dashboards.", date="2026-03-12T22:00:00+00:00"
        )
        memory.remember(
            messages="Ana: We renamed the repo to ebb-core.", date="2026-03-13T09:00:00+00:00"
        )
        hits = memory.recall("what did we decide on 13 March?", touch=False).hits
        assert "renamed the repo" in hits[0].node.text
        assert all("time" not in h.why.weights for h in hits if "Grafana" in h.node.text)


def test_a_store_made_before_the_local_spans_is_given_them_once(tmp_path):
    """Its node_times has no local columns and a said time covers its day in UTC; reopened,
    a day named in a question is the day each note was said on where it was said."""
    import sqlite3

    path = tmp_path / "m.db"
    with open_memory(path, embeddings="none") as memory:
        memory.remember("Picked Grafana", attributes={"said_at": "2026-03-12T22:00:00-05:00"})
    with sqlite3.connect(path) as db:  # as the previous ebbtide left it
        db.execute("DROP TABLE node_times")
        db.execute(
            "CREATE TABLE node_times (rowid INTEGER PRIMARY KEY, told_from REAL, told_to REAL, "
            "said_from REAL, said_to REAL)"
        )
        start = datetime(2026, 3, 12, 5, tzinfo=UTC).timestamp()
        db.execute("INSERT INTO node_times VALUES (1, NULL, NULL, ?, ?)", (start, start + 86400))
        db.execute("UPDATE meta SET value = '2' WHERE key = 'node_times'")
    clock = ManualClock("2026-03-20T12:00:00+00:00")
    with open_memory(path, clock=clock, embeddings="none") as memory:
        assert "Grafana" in lifted(memory, "what did we pick on 12 March?")
        assert "Grafana" not in lifted(memory, "what did we pick on 13 March?")


@pytest.fixture
def abroad(store_url):
    """Two messages a few hours apart by the clock, on two calendar days where each was said."""
    clock = ManualClock("2026-05-20T12:00:00+00:00")
    with open_memory(store_url(), clock=clock, embeddings="none") as memory:
        memory.remember(  # New York, late evening: 03:30 on the 13th in UTC
            messages="Ana: We picked Grafana for dashboards.", date="2026-05-12T22:30:00-05:00"
        )
        memory.remember(  # Tokyo, early morning: 23:00 on the 12th in UTC
            messages="Ken: We moved the standup to 9:30.", date="2026-05-13T08:00:00+09:00"
        )
        yield memory


def lifted(memory, query: str) -> str:
    """What the time a query names lifted, one text a line."""
    hits = memory.recall(query, k=10, touch=False).hits
    return "\n".join(sorted(h.node.text for h in hits if "time" in h.why.weights))


def test_a_note_said_late_evening_in_new_york_is_found_for_that_day_not_the_next(abroad):
    on_12th = lifted(abroad, "what did we decide on 12 May?")
    assert "Grafana" in on_12th and "standup" not in on_12th
    assert "Grafana" not in lifted(abroad, "what happened on 13 May?")


def test_a_note_said_early_morning_in_tokyo_is_found_for_that_day_not_the_one_before(abroad):
    on_13th = lifted(abroad, "what changed on 13 May?")
    assert "standup" in on_13th and "Grafana" not in on_13th
    assert "standup" not in lifted(abroad, "what happened on 12 May?")


def test_yesterday_is_counted_from_the_memory_clock_s_own_date(abroad):
    abroad.clock.set("2026-05-13T09:00:00-05:00")  # the clock keeps New York time
    yesterday = lifted(abroad, "what did we pick yesterday?")
    assert "Grafana" in yesterday and "standup" not in yesterday
    abroad.clock.set("2026-05-14T01:00:00+09:00")  # 16 hours on, in Tokyo time
    yesterday = lifted(abroad, "what changed yesterday?")
    assert "standup" in yesterday and "Grafana" not in yesterday


def test_the_past_two_days_are_counted_in_hours_back_from_now_wherever_a_note_was_said():
    clock = ManualClock("2026-05-14T12:00:00+00:00")  # the window opens at 12:00 UTC on the 12th
    with open_memory(":memory:", clock=clock, embeddings="none") as memory:
        memory.remember(  # 09:00 UTC: 51 hours ago, though on the window's first calendar day
            messages="Ana: We paused the nightly backups.", date="2026-05-12T09:00:00+00:00"
        )
        memory.remember(  # 14:00 UTC: 46 hours ago, said at 09:00 in New York
            messages="Bo: I renewed the TLS certificates.", date="2026-05-12T09:00:00-05:00"
        )
        past = lifted(memory, "what happened in the past 2 days?")
        assert "certificates" in past and "backups" not in past


_TOLD_TODAY = """
import sys
from datetime import UTC, datetime
from ebbtide import open_memory

with open_memory(sys.argv[1], embeddings="none") as memory:
    memory.remember(messages=[{"speaker": "Ana", "text": "I booked the venue for the offsite."}])
    today = datetime.now(UTC).astimezone()
    hits = memory.recall(f"what did Ana do on {today:%B} {today.day}, {today.year}?", k=5).hits
    print(today.date().isoformat(), [h.node.text for h in hits])
"""


def test_what_was_told_without_a_time_is_found_on_the_days_date_where_the_user_lives(tmp_path):
    # Of a zone 14 hours ahead of UTC and one 12 hours behind, one is always on another date
    # than UTC: there, the message is of the user's today, not of the UTC date.
    now = datetime.now(UTC)
    zone = "Etc/GMT-14" if now.hour >= 10 else "Etc/GMT+12"
    env = {**os.environ, "TZ": zone, "PYTHONPATH": str(Path(__file__).parents[1] / "src")}
    out = subprocess.run(
        [sys.executable, "-c", _TOLD_TODAY, str(tmp_path / "memory.db")],
        env=env,
        capture_output=True,
        text=True,
        check=True,
    ).stdout
    local_date, _, found = out.partition(" ")
    assert local_date != now.date().isoformat()
    assert "Ana booked the venue for the offsite." in found


@pytest.fixture
def picnic_and_last_week():
    """An item told in October that says "last week", and what was told last week (11-17
    March, seen from 20 March)."""
    clock = ManualClock("2024-03-20T10:00:00+00:00")
    with open_memory(":memory:", clock=clock, embeddings="local") as memory:
        memory.remember(
            messages=[{"speaker": "Ana", "text": "Last week we had a picnic by the lake."}],
            date="2023-10-09T18:00:00+00:00",
        )
        for day, said in [
            (11, "I fixed the leaking roof with Bo."),
            (12, "The car failed its inspection."),
            (13, "Bo started a pottery class."),
            (14, "I finished reading Dune."),
            (15, "We adopted a grey cat named Pixel."),
            (16, "My sister visited from Lisbon."),
        ]:
            memory.remember(
                messages=[{"speaker": "Ana", "text": said}], date=f"2024-03-{day}T18:00:00+00:00"
            )
        yield memory


def test_what_happened_last_week_ranks_last_weeks_items_above_one_that_only_says_last_week(
    picnic_and_last_week,
):
    hits = picnic_and_last_week.recall("What happened last week?", k=10, touch=False).hits
    texts = [h.node.text for h in hits if h.node.kind != "person"]
    picnic = next(i for i, t in enumerate(texts) if "picnic" in t)
    assert picnic >= 6, texts  # after all six things told last week


def test_the_words_that_name_the_time_are_no_word_match(picnic_and_last_week):
    hits = picnic_and_last_week.recall("What happened last week?", k=10, touch=False).hits
    picnic = next(h for h in hits if "picnic" in h.node.text)
    assert "text" not in picnic.why.lists
    hits = picnic_and_last_week.recall("what did we do last week?", k=10, touch=False).hits
    assert "text" not in next(h for h in hits if "picnic" in h.node.text).why.lists
    hits = picnic_and_last_week.recall("the picnic by the lake", k=10, touch=False).hits
    assert "picnic" in hits[0].node.text and "text" in hits[0].why.lists


def test_a_time_alone_is_also_a_word_to_find():
    clock = ManualClock("2024-03-20T10:00:00+00:00")
    with open_memory(":memory:", clock=clock, embeddings="none") as memory:
        memory.remember("The deploy window is Tuesday")
        assert top(memory, "Tuesday") == "The deploy window is Tuesday"

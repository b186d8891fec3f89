"""Temporal expressions: named scenarios against a fixed 'now', and properties."""

from __future__ import annotations

from datetime import UTC, date, datetime, timedelta, timezone

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from ebbtide.timeparse import (
    MONTH_NAMES,
    TimeSpan,
    describe,
    parse_datetime,
    query_time,
    query_window,
    resolve,
    years_earlier,
)

# Monday 8 May 2023, early afternoon.
NOW = datetime(2023, 5, 8, 13, 56, tzinfo=UTC)


def one(text: str, now: datetime = NOW) -> TimeSpan:
    spans = resolve(text, now)
    assert len(spans) == 1, spans
    return spans[0]


def days(span: TimeSpan) -> tuple[date, date]:
    """First and last day the span covers."""
    return span.start.date(), (span.end - timedelta(microseconds=1)).date()


def test_yesterday_is_the_day_before_now():
    span = one("I went to a support group yesterday and it was great")
    assert span.phrase == "yesterday"
    assert days(span) == (date(2023, 5, 7), date(2023, 5, 7))
    assert span.precision == "day"


@pytest.mark.parametrize(
    ("text", "first", "last"),
    [
        ("the day before yesterday", date(2023, 5, 6), date(2023, 5, 6)),
        ("this morning", date(2023, 5, 8), date(2023, 5, 8)),
        ("tonight", date(2023, 5, 8), date(2023, 5, 8)),
        ("tomorrow", date(2023, 5, 9), date(2023, 5, 9)),
        ("last Saturday", date(2023, 5, 6), date(2023, 5, 6)),
        ("next Friday", date(2023, 5, 12), date(2023, 5, 12)),
        ("this Wednesday", date(2023, 5, 10), date(2023, 5, 10)),
        ("three days ago", date(2023, 5, 5), date(2023, 5, 5)),
        ("in two days", date(2023, 5, 10), date(2023, 5, 10)),
        ("she joined last Tues.", date(2023, 5, 2), date(2023, 5, 2)),
    ],
)
def test_days_relative_to_now(text, first, last):
    assert days(one(text)) == (first, last)


def test_last_week_is_the_previous_monday_to_sunday():
    span = one("last week was rough")
    assert days(span) == (date(2023, 5, 1), date(2023, 5, 7))
    assert span.precision == "week"
    assert describe(span) == "the week of 1 May 2023"


def test_last_weekend_is_the_saturday_and_sunday_before_this_week():
    assert days(one("we hiked last weekend")) == (date(2023, 5, 6), date(2023, 5, 7))


def test_last_month_and_last_year_are_calendar_units():
    assert days(one("last month")) == (date(2023, 4, 1), date(2023, 4, 30))
    assert describe(one("last month")) == "April 2023"
    assert days(one("last year")) == (date(2022, 1, 1), date(2022, 12, 31))


def test_weeks_ago_is_approximate_around_the_day():
    span = one("two weeks ago we met")
    assert span.precision == "approx"
    assert span.anchor.date() == date(2023, 4, 24)
    assert span.start < span.anchor < span.end
    assert describe(span) == "around 24 April 2023"


def test_a_few_days_ago_is_rough():
    span = one("a few days ago")
    assert span.precision == "approx"
    assert span.start.date() <= date(2023, 5, 5) <= span.end.date()


def test_months_ago_names_the_calendar_month():
    assert describe(one("three months ago")) == "February 2023"


@pytest.mark.parametrize(
    "text",
    ["on 8 May", "May 8, 2023", "the 8th of May", "2023-05-08", "8 May, 2023", "May 8th"],
)
def test_calendar_dates_in_several_spellings(text):
    assert days(one(text)) == (date(2023, 5, 8), date(2023, 5, 8))


def test_month_with_a_year_covers_the_month():
    span = one("in May 2023")
    assert days(span) == (date(2023, 5, 1), date(2023, 5, 31))
    assert span.phrase == "May 2023"  # the longest phrase wins over "in May"


def test_a_bare_month_is_past_unless_the_text_speaks_of_the_future():
    assert one("I went there in June").start.date() == date(2022, 6, 1)
    assert one("I'll go there in June").start.date() == date(2023, 6, 1)


def test_a_bare_weekday_follows_the_tense():
    assert one("We met on Saturday").start.date() == date(2023, 5, 6)
    assert one("We will meet on Saturday").start.date() == date(2023, 5, 13)


@pytest.mark.parametrize(
    ("text", "day"),
    [
        ("The security audit is on May 20.", date(2023, 5, 20)),
        ("Our anniversary is on 21 June.", date(2023, 6, 21)),
        ("The freeze starts May 25", date(2023, 5, 25)),
        ("The contract renews on 30 May", date(2023, 5, 30)),
        ("The launch is scheduled for 1 June", date(2023, 6, 1)),
        ("Due Friday.", date(2023, 5, 12)),
        ("The board meeting is on Thursday.", date(2023, 5, 11)),
        ("Q3 planning starts in July", date(2023, 7, 1)),
        ("The party is on Saturday, I'm so excited!", date(2023, 5, 13)),
        ("Lunch is on Wednesday with the extended team.", date(2023, 5, 10)),
        ("The deploy is on Thursday, I tested it earlier.", date(2023, 5, 11)),
        ("The deadline is Friday.", date(2023, 5, 12)),
        ("The sprint starts again on Monday.", date(2023, 5, 15)),
    ],
)
def test_a_schedule_told_in_the_present_is_to_come(text, day):
    assert one(text).start.date() == day


@pytest.mark.parametrize(
    ("text", "day"),
    [
        ("We missed the deadline in February.", date(2023, 2, 1)),
        ("The due date passed on Friday.", date(2023, 5, 5)),
        ("The release was due Friday but it slipped", date(2023, 5, 5)),
        ("Ana is on vacation, she left on Tuesday.", date(2023, 5, 2)),
        ("The photo from June is on my fridge", date(2022, 6, 1)),
        ("What was due on Friday?", date(2023, 5, 5)),
    ],
)
def test_a_schedule_word_in_a_past_or_unscheduled_sentence_keeps_the_latest_date(text, day):
    assert one(text).start.date() == day


@pytest.mark.parametrize(
    "text", ["In 2020 people started working remotely.", "Since 2019 users have asked for SSO."]
)
def test_a_year_before_a_plural_noun_is_still_a_year(text):
    assert one(text).precision == "year"


@pytest.mark.parametrize(
    "text",
    [
        "It paid off: not one page in three weeks.",
        "We shipped it in two days.",
        "First time in 3 years we won!",
    ],
)
def test_in_a_span_that_tells_how_long_is_no_time(text):
    assert resolve(text, NOW) == []


@pytest.mark.parametrize(
    "text",
    [
        "The release is in two weeks.",
        "The new office opens in three months, we signed the lease",
        "I'm so excited, the baby arrives in three weeks",
        "We're expected to ship in two weeks",
        "Alfred's wedding is in three weeks",
        "Since the audit is in two weeks we should prepare",
    ],
)
def test_in_a_span_ahead_is_a_time_to_come(text):
    assert one(text).start.date() > NOW.date()


def test_due_to_is_a_cause_not_a_schedule():
    assert one("It rained on Friday due to the storm").start.date() == date(2023, 5, 5)


def test_seasons():
    assert days(one("last summer")) == (date(2022, 6, 1), date(2022, 8, 31))
    assert describe(one("in the winter of 2022")) == "winter 2022/23"


def test_years_need_a_preposition():
    assert describe(one("back in 2019")) == "2019"
    assert resolve("we had 2019 tickets", NOW) == []


def test_recently_is_vague_and_has_no_words():
    span = one("I recently started pottery")
    assert span.precision == "vague"
    assert span.end == NOW
    assert describe(span) is None


def test_rolling_windows():
    span = one("in the past three days")
    assert span.precision == "range"
    assert span.end == NOW and span.start == NOW - timedelta(days=3)


@pytest.mark.parametrize(
    "text", ["31 February", "May I help you?", "I may go", "it's fine", "the Sun is hot", "on wed"]
)
def test_no_time_where_there_is_none(text):
    assert resolve(text, NOW) == []


def test_several_phrases_in_order():
    spans = resolve("Yesterday was busy, and last month even more", NOW)
    assert [s.phrase for s in spans] == ["Yesterday", "last month"]


def test_the_timezone_of_now_is_kept():
    tz = timezone(timedelta(hours=-7))
    span = one("yesterday", datetime(2023, 5, 8, 1, 0, tzinfo=tz))
    assert span.start == datetime(2023, 5, 7, tzinfo=tz)


def test_query_window_of_a_question_about_last_week():
    window = query_window("what did we decide last week?", NOW)
    assert window is not None and days(window) == (date(2023, 5, 1), date(2023, 5, 7))


def test_query_window_since_and_before():
    since = query_window("what changed since last month", NOW)
    assert since is not None and since.start.date() == date(2023, 4, 1) and since.end == NOW
    before = query_window("what happened before May 2023", NOW)
    assert before is not None and before.end.date() == date(2023, 5, 1)
    assert before.start.year == 1


def test_before_a_month_and_year_asked_years_later_is_before_that_month_of_that_year():
    now = datetime(2026, 3, 2, 9, tzinfo=UTC)
    window, rest = query_time("what did we decide before May 2023?", now)
    assert window is not None and window.end == datetime(2023, 5, 1, tzinfo=UTC)
    assert window.start.year == 1
    assert rest == "what did we decide ?"


PREPOSITIONS = ["before", "until", "till", "since", "after", "from", "in", "during", "by"]


@settings(max_examples=200, deadline=None)
@given(
    st.sampled_from(PREPOSITIONS),
    st.sampled_from([m for m in MONTH_NAMES if m]),
    st.integers(1990, 2030),
    st.sampled_from(["", "early ", "mid ", "late "]),
    st.datetimes(
        min_value=datetime(1990, 1, 1), max_value=datetime(2035, 12, 31), timezones=st.just(UTC)
    ),
)
def test_a_month_told_with_its_year_keeps_that_year_after_any_preposition(
    prep, month, year, part, now
):
    number = MONTH_NAMES.index(month)
    first = datetime(year, number, 1, tzinfo=UTC)
    span = one(f"It happened {prep} {part}{month} {year}.", now)
    assert span.start.year == year and span.start.month == number and not span.yearless
    window, rest = query_time(f"what changed {prep} {part}{month} {year}", now)
    assert window is not None and str(year) not in rest
    if prep in ("before", "until", "till"):
        assert window.end == first
    elif prep in ("since", "from"):
        assert window.start == first


def test_query_window_spans_every_phrase():
    window = query_window("between last month and yesterday", NOW)
    assert window is not None
    assert days(window) == (date(2023, 4, 1), date(2023, 5, 7))


@pytest.mark.parametrize(
    ("query", "first", "last"),
    [
        ("what happened from March to April 2022?", date(2022, 3, 1), date(2022, 4, 30)),
        ("between 1 March and 15 April 2022", date(2022, 3, 1), date(2022, 4, 15)),
        ("from 2019 to 2021", date(2019, 1, 1), date(2021, 12, 31)),
        ("between February and April", date(2023, 2, 1), date(2023, 4, 30)),
        ("between last month and yesterday", date(2023, 4, 1), date(2023, 5, 7)),
        ("what did we ship from May 2023?", date(2023, 5, 1), date(2023, 5, 8)),
        ("between Monday and Friday", date(2023, 5, 1), date(2023, 5, 5)),
        (
            "messages from Ana between 1 March and 15 April 2022",
            date(2022, 3, 1),
            date(2022, 4, 15),
        ),
        ("between January 2023 and now", date(2023, 1, 1), date(2023, 5, 8)),
        ("between 2021 and 2019", date(2019, 1, 1), date(2021, 12, 31)),
    ],
)
def test_query_window_of_a_range_runs_from_its_first_time_to_its_last(query, first, last):
    window = query_window(query, NOW)
    assert window is not None and days(window) == (first, last)


@pytest.mark.parametrize(
    ("query", "start", "end"),
    [
        ("what did we decide on 2 May?", date(2023, 5, 2), date(2023, 5, 3)),
        ("what happened last week?", date(2023, 5, 1), date(2023, 5, 8)),
        ("anything around three weeks ago?", date(2023, 4, 14), date(2023, 4, 21)),
        ("between 1 March and 15 April 2022", date(2022, 3, 1), date(2022, 4, 16)),
        ("in the past three days", NOW - timedelta(days=3), NOW),
        ("what changed since 2 May?", date(2023, 5, 2), NOW),
        ("what changed after 2 May?", date(2023, 5, 3), NOW),
        ("what happened before May 2023?", date.min, date(2023, 5, 1)),
        ("between January 2023 and now", date(2023, 1, 1), NOW),
    ],
)
def test_a_window_bounds_named_days_by_their_date_and_the_present_by_its_instant(query, start, end):
    """A named day is read in the offset each item was told in; 'now' and 'the past three
    days' are instants, and stay instants."""
    window = query_window(query, NOW)
    assert window is not None and window.bounds == (start, end)
    assert [type(b) for b in window.bounds] == [type(start), type(end)]


@pytest.mark.parametrize(
    ("query", "rest"),
    [
        ("What happened last week?", "What happened ?"),
        ("what did Ana paint in May 2023?", "what did Ana paint in ?"),
        ("what changed since last month", "what changed"),
        ("Where was John between August 11 and August 15 2023?", "Where was John ?"),
        ("what did we ship from March to April 2022?", "what did we ship ?"),
        ("what broke between January 2023 and now", "what broke"),
        ("What did Ana do before 2 May?", "What did Ana do ?"),
        ("what did we decide yesterday, and what last Friday?", "what did we decide , and what ?"),
        ("When did Caroline go to the group?", "When did Caroline go to the group?"),
    ],
)
def test_what_a_query_asks_besides_its_time(query, rest):
    """The phrases that named the window are taken out (recall filters and boosts by them
    rather than searching their words); a query naming no time is left as it is."""
    window, words = query_time(query, NOW)
    assert words == rest
    assert window == query_window(query, NOW)


def test_query_window_is_none_without_time():
    assert query_window("When did Caroline go to the support group?", NOW) is None


@pytest.mark.parametrize(
    "query",
    [
        "which job timed out after 1800 seconds?",
        "what got rate limited after 2000 requests",
        "the pool ran dry at 1900 connections, before 2000 users",
    ],
)
def test_a_count_after_a_preposition_is_no_year(query):
    assert query_window(query, NOW) is None


@pytest.mark.parametrize(
    ("value", "expected"),
    [
        ("1:56 pm on 8 May, 2023", datetime(2023, 5, 8, 13, 56, tzinfo=UTC)),
        ("10:37 am on 27 June, 2023", datetime(2023, 6, 27, 10, 37, tzinfo=UTC)),
        ("12:05 am on 1 January, 2024", datetime(2024, 1, 1, 0, 5, tzinfo=UTC)),
        ("May 8, 2023 9:15", datetime(2023, 5, 8, 9, 15, tzinfo=UTC)),
        ("2023-05-08T13:56", datetime(2023, 5, 8, 13, 56, tzinfo=UTC)),
        ("2023-05-08T13:56:00+02:00", datetime(2023, 5, 8, 11, 56, tzinfo=UTC)),
        ("8 May 2023", datetime(2023, 5, 8, tzinfo=UTC)),
    ],
)
def test_parse_datetime(value, expected):
    assert parse_datetime(value) == expected


@pytest.mark.parametrize("value", ["", "hello", "8 May", "31 February, 2023"])
def test_parse_datetime_without_a_full_date_is_none(value):
    assert parse_datetime(value) is None


# ---------------------------------------------------------------------------------------------
# Properties
# ---------------------------------------------------------------------------------------------

WORDS = [
    "yesterday", "last", "next", "this", "week", "month", "year", "ago", "in", "on", "May",
    "June", "2023", "8", "31st", "of", "two", "a", "few", "days", "Saturday", "summer", "the",
    "past", "recently", "before", "since", "9999", "0", "-", ",", "I", "went", "will",
]  # fmt: skip
texts = st.one_of(
    st.text(max_size=200), st.lists(st.sampled_from(WORDS), max_size=12).map(" ".join)
)
nows = st.datetimes(
    min_value=datetime(1, 1, 2), max_value=datetime(9998, 12, 30), timezones=st.just(UTC)
)


@settings(max_examples=300, deadline=None)
@given(texts, nows)
def test_resolve_never_raises_and_spans_are_well_formed(text, now):
    spans = resolve(text, now)
    flat = " ".join(text.split()).lower()
    for span in spans:
        assert span.start < span.end
        assert span.phrase.lower() in flat
        assert span.start <= span.anchor < span.end
        describe(span)
    query_window(text, now)


@pytest.mark.parametrize(
    ("text", "yearless"),
    [
        ("in June", True),
        ("on Aug 15th", True),
        ("the 3rd of March", True),
        ("during the summer", True),
        ("in June 2022", False),
        ("on 15 August 2022", False),
        ("last June", False),
        ("this summer", False),
        ("next March", False),
        ("last week", False),
        ("in 2022", False),
    ],
)
def test_a_date_without_its_year_is_marked_so(text, yearless):
    assert one(text).yearless is yearless


def test_years_earlier_keeps_the_span_and_moves_a_leap_day_to_the_28th():
    june = one("in June")
    assert days(years_earlier(june, 3)) == (date(2019, 6, 1), date(2019, 6, 30))
    assert years_earlier(june, 3).phrase == june.phrase and years_earlier(june, 3).yearless
    leap = TimeSpan(datetime(2024, 2, 29, tzinfo=UTC), datetime(2024, 3, 1, tzinfo=UTC), "x")
    assert days(years_earlier(leap, 1)) == (date(2023, 2, 28), date(2023, 2, 28))

"""English temporal expressions, resolved against a reference time. Pure: `now` is passed in.

`resolve("I went there yesterday", now)` gives `[TimeSpan(start, end, "yesterday", "day")]`.
Spans are half-open [start, end) in `now`'s timezone. `precision` says how tightly the phrase
pins time down; `describe` renders a span at that precision ("7 May 2023", "April 2023",
"around 24 April 2023"), so extracted text can carry an absolute date next to "yesterday".
`bounds` says which ends are named days (a `date`, which recall reads in the offset each item
was told in) and which are instants measured from `now` ("the past three days").

Conventions, where English is ambiguous:
* weeks run Monday to Sunday; a weekend is Saturday and Sunday; seasons are northern
  (spring = March to May, winter = December to February);
* "last Saturday" is the latest Saturday before today, "next Friday" the first one after today;
* a bare month or weekday ("in May", "on Saturday") is the latest one, unless the text speaks
  of the future ("will", "going to", "next", ...) or of a schedule ("is on", "due", "starts",
  "renews", ...), then the coming one.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass, replace
from datetime import UTC, date, datetime, time, timedelta
from typing import Literal, NamedTuple

__all__ = ["TimeSpan", "describe", "parse_datetime", "query_time", "query_window", "resolve"]

Precision = Literal["day", "week", "weekend", "month", "season", "year", "approx", "range", "vague"]


@dataclass(frozen=True)
class TimeSpan:
    start: datetime
    end: datetime  # exclusive
    phrase: str
    precision: Precision = "day"
    # The phrase named a day, month or season but no year ("in June", "on Aug 15th"): the same
    # span a year earlier is as good a reading (see `years_earlier`).
    yearless: bool = False
    # An end measured from `now` ("the past three days", "since May" up to now) is an instant;
    # any other is the midnight that begins a named day.
    instant_start: bool = False
    instant_end: bool = False

    @property
    def bounds(self) -> tuple[date, date]:
        """Start and end as windows are compared: a named day's midnight as its `date`, the
        same day wherever a memory was told in the world (12 May in New York is 12 May, though
        UTC has reached the 13th); an instant as the `datetime` it is."""
        return (
            self.start if self.instant_start else self.start.date(),
            self.end if self.instant_end else self.end.date(),
        )

    @property
    def anchor(self) -> datetime:
        """The one instant that best stands for the span: the middle day of an approximate one."""
        if self.precision in ("approx", "vague"):
            return _midnight(self.start + (self.end - self.start) / 2)
        return self.start


MONTHS = {
    "january": 1, "jan": 1, "february": 2, "feb": 2, "march": 3, "mar": 3, "april": 4, "apr": 4,
    "may": 5, "june": 6, "jun": 6, "july": 7, "jul": 7, "august": 8, "aug": 8, "september": 9,
    "sept": 9, "sep": 9, "october": 10, "oct": 10, "november": 11, "nov": 11, "december": 12,
    "dec": 12,
}  # fmt: skip
MONTH_NAMES = ("", "January", "February", "March", "April", "May", "June", "July", "August",
               "September", "October", "November", "December")  # fmt: skip
WEEKDAYS = ("monday", "tuesday", "wednesday", "thursday", "friday", "saturday", "sunday")
# Short forms, read only after "last/this/next/on" ("last Tues."): alone, "Sun" or "Wed" may
# be other words.
WEEKDAY_ABBREVIATIONS = {
    "mon": 0, "tue": 1, "tues": 1, "wed": 2, "thu": 3, "thur": 3, "thurs": 3, "fri": 4, "sat": 5,
    "sun": 6,
}  # fmt: skip
SEASONS = {"spring": 3, "summer": 6, "fall": 9, "autumn": 9, "winter": 12}
NUMBERS = {
    "a": 1, "an": 1, "one": 1, "two": 2, "three": 3, "four": 4, "five": 5, "six": 6, "seven": 7,
    "eight": 8, "nine": 9, "ten": 10, "eleven": 11, "twelve": 12,
}  # fmt: skip
# Quantities that are only roughly known: their spans are approximate.
FUZZY = {"a couple of": 2, "a couple": 2, "couple of": 2, "a few": 3, "few": 3, "several": 3}
VAGUE_DAYS = 30  # "recently" looks back this far

_MONTH = r"(?P<month>" + "|".join(sorted(MONTHS, key=len, reverse=True)) + r")\b\.?"
_NUM = r"(?P<num>\d{1,3}|" + "|".join(sorted([*FUZZY, *NUMBERS], key=len, reverse=True)) + ")"
_UNIT = r"(?P<unit>day|week|month|year|weekend)s?"
_YEAR = r"(?P<year>(?:1[89]|2[01])\d\d)"
_PART_OF = r"(?:early|mid|late|the end of|the start of)"
_DAY = r"(?P<day>[0-3]?\d)(?:st|nd|rd|th)?"
_REL = r"(?P<mod>this past|this coming|the past|the coming|last|this|next|past|coming|previous)"
_FUTURE = re.compile(
    r"\b(?:will|won't|shall|gonna|going to|plan(?:s|ning)? to|about to|hop(?:e|ing) to|"
    r"can't wait|cannot wait|looking forward|upcoming|next|tomorrow)\b|['’]ll\b",
    re.IGNORECASE,
)
# A schedule told in the present, just before its time: "the audit is on March 20", "due
# Friday", "starts in May", "renews on 30 May". Only in a sentence that tells nothing past.
_SCHEDULE = re.compile(
    r"\b(?:(?:is|are)\s+(?:on|scheduled\s+for|planned\s+for|set\s+for|due|booked\s+for|"
    r"leaving)|deadline(?:\s+is|:)|scheduled\s+for|due|starts|begins|renews|expires|"
    r"go(?:es)?\s+live|launches|kicks?\s+off)"
    r"(?:\s+(?:again|back|officially|automatically|soon|already|only|early|late),?)?"
    r"(?:\s+(?:on|in|at|for|by))?\s+(?:the\s+)?(?=(?:next\s+)?(?:\d|"
    + "|".join(sorted({name[:3] for name in (*MONTH_NAMES[1:], *WEEKDAYS)}))
    + r"))",
    re.IGNORECASE,
)
# What tells of the past in the clause of a schedule word: "was due Friday but it slipped".
_PAST = re.compile(
    r"\b(?:was|were|had|did|didn't|wasn't|weren't|passed|missed|slipped|got\s+(?:pushed|moved|"
    r"cancell?ed)|ago|since)\b",
    re.IGNORECASE,
)
_NEGATED = re.compile(
    r"\b(?:not|no|never|none|zero|nothing|haven't|hasn't|hadn't|didn't|first\s+time)\b|n't\b",
    re.IGNORECASE,
)
_TOOK = re.compile(r"\b(?:was|were|had|did|took|spent|lasted|got|went|came|ran|won|made)\b", re.I)
# A verb done, just before "in N days" ("we shipped it in two days"): a past form within a
# few words, not one that says what is to come ("expected to ship", "signed up for").
_DONE = re.compile(
    r"\b(?!(?:need|exci|expect|schedul|plann|book|stress|limit|renew|sched|reserv|invit|"
    r"requir|suppos|interest|tir|worri|bor|pleas|amaz|surpris)ed\b)(?-i:[a-z])\w{2,}ed\b"
    r"(?!\s+to\b)(?:\W+\w+){0,3}\W*$",
    re.IGNORECASE,
)
_CLAUSE = re.compile(r"[,;:—–]|\s-\s|\b(?:but|and|because|though|although)\b", re.IGNORECASE)


def _scheduled(text: str) -> bool:
    """A schedule told in the present, in a clause that tells nothing past."""
    for m in _SCHEDULE.finditer(text):
        start = max((c.end() for c in _CLAUSE.finditer(text, 0, m.start())), default=0)
        end = next((c.start() for c in _CLAUSE.finditer(text, m.end())), len(text))
        if not _PAST.search(text, start, end):
            return True
    return False


def _midnight(t: datetime) -> datetime:
    return datetime.combine(t.date(), time(), tzinfo=t.tzinfo)


@dataclass(frozen=True)
class _Ctx:
    now: datetime
    today: datetime  # midnight of now
    future: bool  # the text speaks of what is to come
    text: str = ""  # what is read (a rule may look around its match)

    def day(self, d: date) -> datetime:
        return datetime.combine(d, time(), tzinfo=self.now.tzinfo)


class _Span(NamedTuple):
    start: datetime
    end: datetime
    precision: Precision
    instants: bool = False  # both ends measured from now, not named days


def _days(ctx: _Ctx, start: datetime, n: int = 1, precision: Precision = "day") -> _Span:
    return _Span(start, start + timedelta(days=n), precision)


def _month(ctx: _Ctx, year: int, month: int) -> _Span:
    nxt = date(year + month // 12, month % 12 + 1, 1)
    return _Span(ctx.day(date(year, month, 1)), ctx.day(nxt), "month")


def _year(ctx: _Ctx, year: int) -> _Span:
    return _Span(ctx.day(date(year, 1, 1)), ctx.day(date(year + 1, 1, 1)), "year")


def _shift_months(d: date, months: int) -> date:
    y, m = divmod(d.year * 12 + d.month - 1 + months, 12)
    last = (date(y + (m + 1) // 12, (m + 1) % 12 + 1, 1) - timedelta(days=1)).day
    return date(y, m + 1, min(d.day, last))


def _monday(ctx: _Ctx) -> datetime:
    return ctx.today - timedelta(days=ctx.today.weekday())


def _nearest_month(ctx: _Ctx, month: int, mod: str) -> int:
    """The year of the `month` meant by 'last/this/next/in <month>'."""
    y, m = ctx.now.year, ctx.now.month
    if mod == "this":
        return y
    if mod == "last" or (mod not in ("next", "coming") and not ctx.future):
        return y if month < m or (month == m and mod != "last") else y - 1
    return y if month > m or (month == m and mod != "next") else y + 1


# Rules: each turns a match into a span, or None when the match means no time after all.


def _iso(m: re.Match[str], ctx: _Ctx) -> _Span:
    d = date(int(m["year"]), int(m["m"]), int(m["day"]))
    return _days(ctx, ctx.day(d))


def _calendar_day(m: re.Match[str], ctx: _Ctx) -> _Span:
    month, day = MONTHS[m["month"].lower()], int(m["day"])
    if m["year"]:
        return _days(ctx, ctx.day(date(int(m["year"]), month, day)))
    candidates = [date(ctx.now.year + k, month, day) for k in (-1, 0, 1) if _valid(month, day)]
    today = ctx.today.date()
    past = [d for d in candidates if d <= today]
    coming = [d for d in candidates if d >= today]
    pick = (coming[0] if coming else past[-1]) if ctx.future else (past[-1] if past else coming[0])
    return _days(ctx, ctx.day(pick))


def _valid(month: int, day: int) -> bool:
    return 1 <= day <= (29 if month == 2 else 30 if month in (4, 6, 9, 11) else 31)


def _month_year(m: re.Match[str], ctx: _Ctx) -> _Span:
    return _month(ctx, int(m["year"]), MONTHS[m["month"].lower()])


def _named_month(m: re.Match[str], ctx: _Ctx) -> _Span:
    month = MONTHS[m["month"].lower()]
    return _month(ctx, _nearest_month(ctx, month, m["mod"].lower()), month)


def _plain_year(m: re.Match[str], ctx: _Ctx) -> _Span:
    return _year(ctx, int(m["year"]))


def _day_word(offset: int) -> Callable[[re.Match[str], _Ctx], _Span]:
    return lambda m, ctx: _days(ctx, ctx.today + timedelta(days=offset))


def _relative_unit(m: re.Match[str], ctx: _Ctx) -> _Span:
    mod, unit = m["mod"].lower(), m["unit"].lower()
    step = {"last": -1, "previous": -1, "this past": -1, "next": 1, "this coming": 1}.get(mod, 0)
    if mod in ("the past", "past", "the coming", "coming"):
        days = {"week": 7, "weekend": 7, "month": 30, "year": 365}[unit]
        if mod.endswith("past"):
            return _Span(ctx.now - timedelta(days=days), ctx.now, "range", instants=True)
        return _Span(ctx.now, ctx.now + timedelta(days=days), "range", instants=True)
    if unit == "week":
        return _days(ctx, _monday(ctx) + timedelta(weeks=step), 7, "week")
    if unit == "weekend":
        return _days(ctx, _monday(ctx) + timedelta(days=5, weeks=step), 2, "weekend")
    if unit == "month":
        d = _shift_months(ctx.today.date().replace(day=1), step)
        return _month(ctx, d.year, d.month)
    return _year(ctx, ctx.now.year + step)


def _count(m: re.Match[str]) -> tuple[int, bool]:
    word = m["num"].lower()
    if word in FUZZY:
        return FUZZY[word], True
    return (NUMBERS[word], False) if word in NUMBERS else (int(word), False)


def _ahead(m: re.Match[str], ctx: _Ctx) -> _Span:
    """'in three days': that far ahead, unless its clause tells how long something took or
    has not happened ("not one page in three weeks", "we shipped it in two days", "first
    time in 3 years"): a duration, no time."""
    start = max((c.end() for c in _CLAUSE.finditer(ctx.text, 0, m.start())), default=0)
    before = ctx.text[start : m.start()]
    if not ctx.future and (_NEGATED.search(before) or _TOOK.search(before) or _DONE.search(before)):
        raise ValueError("a duration, not a time")
    return _offset(m, ctx, 1)


def _offset(m: re.Match[str], ctx: _Ctx, sign: int) -> _Span:
    """'two weeks ago', 'in three days': a point, widened when the unit or count is rough."""
    n, fuzzy = _count(m)
    unit = m["unit"].lower()
    if unit == "weekend":
        return _days(ctx, _monday(ctx) + timedelta(days=5, weeks=sign * n), 2, "weekend")
    if unit in ("month", "year") and not fuzzy:
        d = _shift_months(ctx.today.date(), sign * n * (12 if unit == "year" else 1))
        return _month(ctx, d.year, d.month) if unit == "month" else _year(ctx, d.year)
    days = {"day": 1, "week": 7, "month": 30, "year": 365}[unit] * n
    point = ctx.today + timedelta(days=sign * days)
    if unit == "day" and not fuzzy:
        return _days(ctx, point)
    # Half-width: a few days for weeks, a third of the quantity when it is rough.
    half = max(1, days // 3) if fuzzy else 3
    return _Span(point - timedelta(days=half), point + timedelta(days=half + 1), "approx")


def _rolling(m: re.Match[str], ctx: _Ctx) -> _Span:
    # "the last 0 weeks" names no time at all: treat it as one.
    n = max(1, _count(m)[0])
    days = {"day": 1, "week": 7, "weekend": 7, "month": 30, "year": 365}[m["unit"].lower()] * n
    if m["dir"].lower() == "next":
        return _Span(ctx.now, ctx.now + timedelta(days=days), "range", instants=True)
    return _Span(ctx.now - timedelta(days=days), ctx.now, "range", instants=True)


def _weekday(m: re.Match[str], ctx: _Ctx) -> _Span:
    mod = (m["mod"] or "").lower()
    wd = m["wd"].lower()
    day = WEEKDAY_ABBREVIATIONS[wd] if wd in WEEKDAY_ABBREVIATIONS else WEEKDAYS.index(wd)
    delta = day - ctx.today.weekday()
    if mod == "this":
        return _days(ctx, ctx.today + timedelta(days=delta))
    forward = mod in ("next", "coming", "this coming") or (
        mod not in ("last", "past", "this past") and ctx.future
    )
    if forward:
        return _days(ctx, ctx.today + timedelta(days=delta if delta > 0 else delta + 7))
    return _days(ctx, ctx.today + timedelta(days=delta if delta < 0 else delta - 7))


def _season(m: re.Match[str], ctx: _Ctx) -> _Span:
    first = SEASONS[m["season"].lower()]

    def span(year: int) -> _Span:
        start = ctx.day(date(year, first, 1))
        return _Span(start, ctx.day(_shift_months(start.date(), 3)), "season")

    if m["year"]:
        return span(int(m["year"]))
    mod = (m["mod"] or "").lower()
    y = ctx.now.year
    spans = [span(y + k) for k in (-2, -1, 0, 1)]
    current = [s for s in spans if s[0] <= ctx.now < s[1]]
    ended = [s for s in spans if s[1] <= ctx.now]
    coming = [s for s in spans if s[0] > ctx.now]
    if mod == "this":
        return current[0] if current else span(y)
    if mod in ("last", "this past", "past"):
        return ended[-1]
    if mod in ("next", "this coming", "coming") or ctx.future:
        return coming[0] if mod or not current else current[0]
    return current[0] if current else ended[-1]


def _vague(back_days: int, until_days: int = 0) -> Callable[[re.Match[str], _Ctx], _Span]:
    def rule(m: re.Match[str], ctx: _Ctx) -> _Span:
        base = ctx.now if not until_days else ctx.today
        start, end = base - timedelta(days=back_days), base - timedelta(days=until_days)
        return _Span(start, end, "vague", instants=not until_days)

    return rule


_M = frozenset(MONTHS)
# What a number measures when it is no year: "after 1800 seconds", "after 2000 requests".
_MEASURES = (
    r"(?:[kmgt]?b|bytes|ms|s|secs?|seconds|mins?|minutes|h|hrs?|hours|days|weeks|requests|"
    r"reqs|rps|qps|times|x|km|miles|meters|metres|dollars|euros|usd|eur)\b"
)
# ... and what it counts, after a word that may precede a count ("before 2000 users signed
# up"), but not after "in" or "since" ("In 2020 people started working remotely").
_COUNTED = (
    r"(?:rows|records|users|items|errors|lines|files|words|pages|calls|queries|retries|"
    r"messages|events|connections|tokens|points|people|tickets|tests|builds|jobs|nodes|pods|"
    r"servers|instances|threads|cores)\b"
)
_UNITS = frozenset(
    f"{u}{s}" for u in ("day", "week", "month", "year", "weekend") for s in ("", "s")
)
_DIGIT = "#"  # trigger: the text has a digit
# (words of which the text must hold one, pattern, rule). The trigger words keep the cost of a
# sentence without any time in it to one tokenisation.
_RULES: list[tuple[frozenset[str], str, Callable[[re.Match[str], _Ctx], _Span]]] = [
    (
        frozenset({_DIGIT}),
        rf"\b{_YEAR}[-/](?P<m>[01]?\d)[-/](?P<day>[0-3]?\d)"
        r"(?:[T ]\d\d?:\d\d(?::\d\d(?:\.\d+)?)?(?:Z|[+-]\d\d:?\d\d)?)?(?!\d)",
        _iso,
    ),
    (_M, rf"\b(?:the\s+)?{_DAY}(?:\s+of)?\s+{_MONTH}(?:,?\s+{_YEAR})?(?!\d)", _calendar_day),
    (_M, rf"\b{_MONTH}\s+(?:the\s+)?{_DAY}(?![\d:])(?:,?\s+{_YEAR})?(?!\d)", _calendar_day),
    (_M, rf"\b(?:{_PART_OF}[\s-]+)?{_MONTH},?\s+(?:of\s+)?{_YEAR}\b", _month_year),
    (
        _M,
        r"\b(?P<mod>last|this|next|coming|in|during|since|by|until|till|before|after|from|of|"
        rf"through|around)\s+(?:{_PART_OF}[\s-]+)?{_MONTH}"
        # not before its year: "before May 2023" is May 2023, not the longer "before May"
        rf"(?!,?\s+(?:of\s+)?{_YEAR}\b)",
        _named_month,
    ),
    (
        frozenset({_DIGIT}),
        rf"\b(?:(?P<counts>by|until|till|before|after|around)|in|during|since|of|from|through)"
        rf"\s+{_YEAR}\b(?!\s*(?:%|{_MEASURES}))(?(counts)(?!\s*{_COUNTED}))",
        _plain_year,
    ),
    (frozenset({"yesterday"}), r"\b(?:the\s+)?day\s+before\s+yesterday\b", _day_word(-2)),
    (frozenset({"tomorrow"}), r"\b(?:the\s+)?day\s+after\s+tomorrow\b", _day_word(2)),
    (frozenset({"yesterday", "night"}), r"\byesterday\b|\blast\s+night\b", _day_word(-1)),
    (
        frozenset({"today", "tonight", "morning", "afternoon", "evening"}),
        r"\btoday\b|\btonight\b|\bthis\s+(?:morning|afternoon|evening)\b",
        _day_word(0),
    ),
    (frozenset({"tomorrow"}), r"\btomorrow\b", _day_word(1)),
    (_UNITS, rf"\b{_REL}\s+(?P<unit>week|month|year|weekend)\b", _relative_unit),
    (
        frozenset({"ago"}),
        rf"\b(?:(?:about|around|almost|nearly|over|like|just)\s+)?{_NUM}\s+{_UNIT}\s+ago\b",
        lambda m, ctx: _offset(m, ctx, -1),
    ),
    (
        _UNITS,
        rf"\bin\s+(?:(?:about|around|another)\s+)?{_NUM}\s+{_UNIT}\b",
        _ahead,
    ),
    (frozenset({"now"}), rf"\b{_NUM}\s+{_UNIT}\s+from\s+now\b", lambda m, ctx: _offset(m, ctx, 1)),
    (_UNITS, rf"\b(?:the\s+)?(?P<dir>past|last|previous|next)\s+{_NUM}\s+{_UNIT}\b", _rolling),
    (
        frozenset(WEEKDAYS),
        r"\b(?:(?P<mod>this past|this coming|last|this|next|past|coming|on)\s+)?"
        rf"(?P<wd>{'|'.join(WEEKDAYS)})\b(?!s)",
        _weekday,
    ),
    (
        frozenset(WEEKDAY_ABBREVIATIONS),
        r"\b(?P<mod>this past|this coming|last|this|next|past|coming|on)\s+"
        rf"(?-i:(?P<wd>{'|'.join(a.capitalize() for a in WEEKDAY_ABBREVIATIONS)}))\b\.?",
        _weekday,
    ),
    (
        frozenset(SEASONS),
        r"\b(?:(?P<mod>this past|this coming|last|this|next|past|coming)\s+|(?:in|during|over)"
        rf"\s+(?:the\s+)?)(?P<season>summer|winter|spring|fall|autumn)\b(?:\s+(?:of\s+)?{_YEAR})?",
        _season,
    ),
    (
        frozenset(SEASONS),
        rf"\b(?P<season>summer|winter|spring|fall|autumn)\s+(?:of\s+)?{_YEAR}\b",
        _season,
    ),
    (
        frozenset({"recently", "lately", "days"}),
        r"\b(?:just\s+)?(?:recently|lately)\b|\bthese\s+days\b",
        _vague(VAGUE_DAYS),
    ),
    (frozenset({"other"}), r"\bthe\s+other\s+day\b", _vague(7, 1)),
    (
        frozenset({"while"}),
        r"\ba\s+(?:little\s+|long\s+)?while\s+(?:ago|back)\b",
        _vague(365, 14),
    ),
]
_COMPILED = [(words, re.compile(p, re.IGNORECASE), rule) for words, p, rule in _RULES]
# Rules whose phrase may leave the year out, and the words that fix it relative to now anyway.
_YEARLESS_RULES = frozenset({_calendar_day, _named_month, _season})
_FIXED_BY_NOW = frozenset({"last", "this", "next", "coming", "this past", "past", "this coming"})
_TOKEN = re.compile(r"[a-z]+")
_HAS_DIGIT = re.compile(r"\d")


def _spans(text: str, now: datetime) -> list[tuple[int, int, TimeSpan]]:
    """Every temporal phrase in `text` with where it starts and ends; overlaps keep the longest
    phrase."""
    future = bool(_FUTURE.search(text)) or _scheduled(text)
    ctx = _Ctx(now=now, today=_midnight(now), future=future, text=text)
    words = set(_TOKEN.findall(text.lower()))
    if _HAS_DIGIT.search(text):
        words.add(_DIGIT)
    found: list[tuple[int, int, TimeSpan]] = []
    for triggers, pattern, rule in _COMPILED:
        if words.isdisjoint(triggers):
            continue
        for m in pattern.finditer(text):
            try:
                start, end, precision, instants = rule(m, ctx)
            except (ValueError, OverflowError, KeyError, IndexError):
                continue  # "31 February", a year past 9999: no time here
            phrase = " ".join(m.group(0).split())
            yearless = (
                rule in _YEARLESS_RULES
                and not m.groupdict().get("year")
                and ((m.groupdict().get("mod") or "in").lower() not in _FIXED_BY_NOW)
            )
            span = TimeSpan(start, end, phrase, precision, yearless, instants, instants)
            found.append((m.start(), m.end(), span))
    found.sort(key=lambda f: (f[0] - f[1], f[0]))
    kept: list[tuple[int, int, TimeSpan]] = []
    for start, end, span in found:
        if all(end <= s or start >= e for s, e, _ in kept):
            kept.append((start, end, span))
    return sorted(kept, key=lambda k: k[0])


def years_earlier(span: TimeSpan, years: int) -> TimeSpan:
    """The same span `years` earlier (29 February becomes the 28th)."""

    def back(t: datetime) -> datetime:
        try:
            return t.replace(year=t.year - years)
        except ValueError:
            return t.replace(year=t.year - years, day=28)

    return replace(span, start=back(span.start), end=back(span.end))


def resolve(text: str, now: datetime) -> list[TimeSpan]:
    """The temporal phrases of `text`, in order, resolved against `now`. Never raises."""
    if not text:
        return []
    return [span for _, _, span in _spans(text[:10_000], now)]


_BEFORE = re.compile(r"\b(?:before|prior to|until|till|up to)\s*$", re.IGNORECASE)
_AFTER = re.compile(r"\b(?:since|after|from)\s*$", re.IGNORECASE)
# Where a phrase that named a query's time sits in it: [start, end).
_Cut = tuple[int, int]


def query_window(query: str, now: datetime) -> TimeSpan | None:
    """The time a query asks about, for recall filters and boosts; None if it names no time.

    Several phrases give the span covering them all; 'since/after X' runs from X to now,
    'before X' from the beginning of time to X.
    """
    return _query_time(query[:10_000], now)[0]


def query_time(query: str, now: datetime) -> tuple[TimeSpan | None, str]:
    """`query_window`, and the rest of the query: what it asks once the phrases that named
    its time ("last week", "since May", "between May and July 2023") are taken out. The
    query itself when it names no time."""
    span, cuts = _query_time(query[:10_000], now)
    if span is None:
        return None, query
    kept, at = [], 0
    for a, b in sorted(cuts):
        kept.append(query[at:a])
        at = max(at, b)
    kept.append(query[at:])
    return span, " ".join(" ".join(kept).split())


def _query_time(query: str, now: datetime) -> tuple[TimeSpan | None, list[_Cut]]:
    if not query:
        return None, []
    between = _between(query, now)
    if between is not None:
        return between
    found = _spans(query, now)
    if not found:
        return None, []
    pos, end, first = found[0]
    # The preposition may sit inside the phrase ("since May") or just before it.
    lead = _AFTER.search(query[:pos]) or _BEFORE.search(query[:pos])
    if lead is not None:
        head, pos = lead.group(0), lead.start()
    else:
        word = first.phrase.split()[0]
        head = word if _AFTER.search(word) or _BEFORE.search(word) else ""
    if _AFTER.search(head):
        since = head.rstrip().lower().endswith(("since", "from"))
        start = first.start if since else first.end
        instant = first.instant_start if since else first.instant_end
        return _range(start, max(now, start), first.phrase, instant, True), [(pos, end)]
    if _BEFORE.search(head):
        start = datetime.min.replace(tzinfo=now.tzinfo)
        return _range(start, first.start, first.phrase, False, first.instant_start), [(pos, end)]
    if len(found) == 1:
        return first, [(pos, end)]
    spans = [s for _, _, s in found]
    a, b = min(spans, key=lambda s: s.start), max(spans, key=lambda s: s.end)
    phrase = " … ".join(s.phrase for s in spans)
    cuts = [(i, j) for i, j, _ in found]
    return _range(a.start, b.end, phrase, a.instant_start, b.instant_end), cuts


def _range(
    start: datetime, end: datetime, phrase: str, instant_start: bool, instant_end: bool
) -> TimeSpan:
    return TimeSpan(start, end, phrase, "range", False, instant_start, instant_end)


_RANGE = re.compile(
    r"\b(?:between|from)\s+(?P<a>.+?)\s+(?:and|to|until|till|through|thru|-|–)\s+(?P<b>.+)$",
    re.IGNORECASE,
)
_NOW = re.compile(r"\s*(?:now|today|the present)\b", re.IGNORECASE)


def _between(query: str, now: datetime) -> tuple[TimeSpan, list[_Cut]] | None:
    """'between 1 March and 15 May 2023', 'from May to July 2023', 'from 2019 to 2021',
    'between Monday and Friday', 'since January 2026 and now': the first time's start to the
    second's end, a month or day without its year taking the other's; with where the range
    sits in the query, from 'between' to the end of its second time."""
    for opener in re.finditer(r"\b(?:between|from)\b", query, re.IGNORECASE):
        m = _RANGE.match(query, opener.start())
        if m is None:
            continue
        first, second = _one_time(m["a"], now), _one_time(m["b"], now)
        if first is None or second is None:
            continue
        (a, _), (b, b_end) = first, second
        if a.yearless and not b.yearless:
            a = _in_year(a, b.start.year)
            if a.start >= b.end:
                a = years_earlier(a, 1)
        elif b.yearless and not a.yearless:
            b = _in_year(b, a.start.year)
            if b.end <= a.start:
                b = years_earlier(b, -1)
        elif a.start >= b.end:
            if a.yearless and b.yearless:  # each the latest: the first is a year earlier
                a = years_earlier(a, 1)
            elif b.end - b.start <= timedelta(days=1) and a.start - b.start < timedelta(days=7):
                b = replace(b, start=b.start + timedelta(days=7), end=b.end + timedelta(days=7))
            else:  # "between 2020 and 2019"
                a, b = b, a
        last = b if b.end >= a.end else a
        phrase = f"{a.phrase} … {b.phrase}"
        span = _range(a.start, last.end, phrase, a.instant_start, last.instant_end)
        return span, [(opener.start(), m.start("b") + b_end)]
    return None


def _one_time(text: str, now: datetime) -> tuple[TimeSpan, int] | None:
    """The time a range's end names, which may be a bare month or year ("May", "2021"), or
    now; with where its phrase ends in `text`."""
    said_now = _NOW.match(text)
    if said_now is not None:
        span = TimeSpan(now, now, "now", "day", instant_start=True, instant_end=True)
        return span, said_now.end()
    found = _spans(text, now)
    if found:
        return (found[0][2], found[0][1]) if found[0][0] <= 4 else None
    found = _spans(f"in {text}", now)  # "in " is three characters
    return (found[0][2], found[0][1] - 3) if found and found[0][0] <= 4 else None


def _in_year(span: TimeSpan, year: int) -> TimeSpan:
    return years_earlier(span, span.start.year - year)


def describe(span: TimeSpan) -> str | None:
    """The span in words at its precision; None for vague spans ('recently')."""
    p = span.precision
    if p == "vague":
        return None
    if p == "day":
        return _day_text(span.start)
    if p in ("week", "weekend"):
        return f"the {p} of {_day_text(span.start)}"
    if p == "month":
        return f"{MONTH_NAMES[span.start.month]} {span.start.year}"
    if p == "season":
        name = next(s for s, m in SEASONS.items() if m == span.start.month)
        y = span.start.year
        return f"{name} {y}/{(y + 1) % 100:02d}" if name == "winter" else f"{name} {y}"
    if p == "year":
        return str(span.start.year)
    if p == "approx":
        return f"around {_day_text(span.anchor)}"
    return f"{_day_text(span.start)} to {_day_text(span.end - timedelta(microseconds=1))}"


def _day_text(t: datetime) -> str:
    return f"{t.day} {MONTH_NAMES[t.month]} {t.year}"


_CLOCK = re.compile(
    r"\b(?P<h>[012]?\d):(?P<mi>[0-5]\d)(?::(?P<s>[0-5]\d))?\s*(?P<ampm>[ap]\.?m\.?)?"
    r"|\b(?P<h2>1[0-2]|0?\d)\s*(?P<ampm2>[ap]\.?m\.?)",
    re.IGNORECASE,
)
_DATED = [
    re.compile(rf"\b{_DAY}(?:\s+of)?\s+{_MONTH},?\s+{_YEAR}(?!\d)", re.IGNORECASE),
    re.compile(rf"\b{_MONTH}\s+{_DAY},?\s+{_YEAR}(?!\d)", re.IGNORECASE),
]


def parse_datetime(value: str) -> datetime | None:
    """An absolute timestamp: ISO 8601, or prose like '1:56 pm on 8 May, 2023'.

    Naive values are taken as UTC (as everywhere in ebbtide). None when `value` names no date.
    """
    value = value.strip()
    try:
        t = datetime.fromisoformat(value.replace("Z", "+00:00"))
        return t if t.tzinfo else t.replace(tzinfo=UTC)
    except ValueError:
        pass
    for pattern in _DATED:
        m = pattern.search(value)
        if m is None:
            continue
        rest = value[: m.start()] + " " + value[m.end() :]
        clock = _CLOCK.search(rest)
        hour = minute = second = 0
        if clock:
            hour = int(clock["h"] or clock["h2"])
            minute, second = int(clock["mi"] or 0), int(clock["s"] or 0)
            ampm = (clock["ampm"] or clock["ampm2"] or "").lower()
            if ampm.startswith("p") and hour < 12:
                hour += 12
            elif ampm.startswith("a") and hour == 12:
                hour = 0
        try:
            return datetime(
                int(m["year"]), MONTHS[m["month"].lower()], int(m["day"]), hour, minute, second,
                tzinfo=UTC,
            )  # fmt: skip
        except ValueError:
            return None
    return None

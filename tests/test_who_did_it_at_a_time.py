"""Two people doing the same thing at the same time are two events, however the time is told;
one person's event told again in other words (and other time words) is still one event."""

from __future__ import annotations

import pytest

from ebbtide import Memory, open_memory


@pytest.fixture
def memory(tmp_path) -> Memory:
    mem = open_memory(tmp_path / "memory.db", embeddings="none")
    yield mem
    mem.close()


def told(memory: Memory, speaker: str, text: str, on: str) -> None:
    memory.remember(messages=[{"speaker": speaker, "text": text}], date=on)


def items(memory: Memory, kind: str) -> list[str]:
    return sorted(n.text for n in memory.store.find_nodes(kind=kind, limit=100))


def wordings(memory: Memory, kind: str) -> list[list[str]]:
    """Each item's text and the other words it was told in."""
    return [
        [n.text, *n.attributes.get("aliases", [])]
        for n in memory.store.find_nodes(kind=kind, limit=100)
    ]


@pytest.mark.parametrize(
    ("lead", "days", "written"),
    [
        # told on Monday and on Thursday of one week
        ("This week", ("2026-03-02", "2026-03-05"), "This week (the week of 2 March 2026)"),
        # told twice on one day
        ("Last night", ("2026-03-01", "2026-03-01"), "Last night (28 February 2026)"),
    ],
)
def test_two_people_restarting_the_workers_at_one_time_are_two_restarts(
    memory: Memory, lead, days, written
):
    told(memory, "Ana", f"{lead} Ben restarted the workers, which cleared the queue.", days[0])
    told(memory, "Ana", f"{lead} Dana restarted the workers, which cleared the queue.", days[1])
    assert items(memory, "decision") == [
        f"{written} Ben restarted the workers",
        f"{written} Dana restarted the workers",
    ]
    # What each restart led to is told with who did it: the queue cleared after each.
    assert items(memory, "outcome") == [
        f"It ({written} Ben restarted the workers) cleared the queue.",
        f"It ({written} Dana restarted the workers) cleared the queue.",
    ]
    assert all(len(w) == 1 for w in wordings(memory, "decision") + wordings(memory, "outcome"))


def test_a_pride_parade_told_again_weeks_later_in_other_time_words_is_one_event(
    memory: Memory,
):
    told(memory, "Caroline", "Last week I went to an LGBTQ+ pride parade.", "2023-07-03")
    told(
        memory,
        "Caroline",
        "One special memory for me was this pride parade I went to a few weeks ago.",
        "2023-07-15",
    )
    assert wordings(memory, "event") == [
        [
            "Last week (the week of 26 June 2023) Caroline went to an LGBTQ+ pride parade.",
            "One special memory for Caroline was this pride parade Caroline went to a few weeks "
            "ago (around 24 June 2023).",
        ]
    ]


def test_a_picnic_the_same_week_as_a_pride_parade_is_not_the_parade(memory: Memory):
    told(memory, "Caroline", "Last week I went to an LGBTQ+ pride parade.", "2023-07-03")
    told(memory, "Caroline", "We even had a picnic last week!", "2023-07-03")
    parade = next(w for w in wordings(memory, "event") if "parade" in w[0])
    assert parade == [
        "Last week (the week of 26 June 2023) Caroline went to an LGBTQ+ pride parade."
    ]


def test_the_same_person_at_the_parade_again_is_another_parade(memory: Memory):
    told(memory, "Ana", "Last week Caroline went to an LGBTQ+ pride parade.", "2023-07-03")
    told(memory, "Ana", "A few weeks ago Caroline went to a pride parade again.", "2023-07-15")
    said = [w for group in wordings(memory, "event") + wordings(memory, "note") for w in group]
    assert len([w for w in said if "parade" in w]) == 2
    assert all(len(w) == 1 for w in wordings(memory, "event") + wordings(memory, "note"))


def test_the_grand_opening_told_of_as_tomorrow_twice_that_day_is_one_event(memory: Memory):
    told(memory, "Gina", "Can't wait for tomorrow's grand opening!", "2023-06-19")
    told(memory, "Jon", "Tomorrow's grand opening will be so much fun.", "2023-06-19")
    assert wordings(memory, "event") == [
        [
            "Can't wait for tomorrow (20 June 2023)'s grand opening!",
            "Tomorrow (20 June 2023)'s grand opening will be so much fun.",
        ]
    ]

"""Settings as a conversation tells them to the memory: which stay current, which a later
telling ends (`Memory.remember(messages=…)`, then what recall and the store hold)."""

from __future__ import annotations

import pytest


def _told_weeks_apart(memory, *said):
    """Each (speaker, text) of `said` is told a week after the one before. Returns which
    tellings are current and which ended, by their text as stored."""
    for n, (speaker, text) in enumerate(said):
        memory.remember(
            messages=[
                {
                    "id": f"k{n}",
                    "speaker": speaker,
                    "text": text,
                    "time": f"2026-02-{1 + 7 * n:02}T09:00Z",
                }
            ]
        )
    current, ended = set(), set()
    for node in memory.store.find_nodes(valid_only=False, limit=100):
        if node.kind != "person":
            (ended if node.valid_to is not None else current).add(node.text)
    return current, ended


@pytest.mark.parametrize(
    "later",
    [
        "We use Postgres for the orders service.",
        "We use Redis for the orders service.",
        "We moved the orders service to MySQL.",
    ],
)
def test_a_known_tool_leaves_a_things_tool_of_no_known_kind_standing(memory, later):
    current, _ = _told_weeks_apart(
        memory, ("Dana", "We use GitHub for the orders service."), ("Dana", later)
    )
    assert "Dana and others use GitHub for the orders service." in current
    recalled = " ".join(
        h.node.text for h in memory.recall("what do we use for the orders service?").hits
    )
    assert "GitHub" in recalled


@pytest.mark.parametrize(
    "change",
    [
        "We switched the orders service from GitHub to GitLab.",
        "We replaced GitHub with GitLab in the orders service.",
        "We moved the orders service to GitLab.",
    ],
)
def test_a_change_naming_a_things_tool_of_no_known_kind_or_the_thing_ends_it(memory, change):
    current, ended = _told_weeks_apart(
        memory,
        ("Dana", "We use GitHub for the orders service."),
        ("Dana", "We use Postgres for the orders service."),
        ("Dana", change),
    )
    assert "Dana and others use GitHub for the orders service." in ended
    assert "Dana and others use Postgres for the orders service." in current


@pytest.mark.parametrize(
    "later", ["We use Supabase for the orders service.", "We moved the orders service to Foo."]
)
def test_a_tool_of_no_known_kind_does_not_end_a_things_tools_of_known_kinds(memory, later):
    current, _ = _told_weeks_apart(
        memory,
        ("Dana", "We use Postgres for the orders service."),
        ("Dana", "We use Redis for the orders service."),
        ("Dana", later),
    )
    assert {
        "Dana and others use Postgres for the orders service.",
        "Dana and others use Redis for the orders service.",
    } <= current


def test_a_thing_of_one_value_is_still_set_anew_by_a_value_of_no_known_kind(memory):
    current, ended = _told_weeks_apart(
        memory,
        ("Ana", "I use Obsidian for notes."),
        ("Ana", "Ana's laptop is a ThinkPad."),
        ("Ana", "I use Notion for notes now."),
        ("Ana", "Ana's laptop is a MacBook Air."),
    )
    assert {"Ana uses Obsidian for notes.", "Ana's laptop is a ThinkPad."} <= ended
    assert {"Ana uses Notion for notes now.", "Ana's laptop is a MacBook Air."} <= current


@pytest.mark.parametrize(
    ("move", "ended"),
    [
        ("We moved the orders service to Memcached.", "Redis"),
        ("We moved the orders service to MySQL.", "Postgres"),
        ("We migrated the orders service over to MySQL.", "Postgres"),
        ("We moved the orders service DB to MySQL.", "Postgres"),
        ("We switched the orders service's cache to Memcached.", "Redis"),
        ("We moved the orders service to RabbitMQ.", None),  # it had no queue to end
        ("We moved the orders service to GCP.", None),
    ],
)
def test_a_move_of_a_thing_to_a_tool_ends_its_tool_of_that_kind_only(memory, move, ended):
    current, _ = _told_weeks_apart(
        memory,
        ("Dana", "We use Postgres for the orders service."),
        ("Dana", "We use Redis for the orders service."),
        ("Dana", move),
    )
    standing = {
        t
        for t in ("Postgres", "Redis")
        if f"Dana and others use {t} for the orders service." in current
    }
    assert standing == {"Postgres", "Redis"} - {ended}

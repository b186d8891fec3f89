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
        ("The orders service moved to MySQL.", "Postgres"),
        ("We moved the orders service onto MySQL.", "Postgres"),
        ("The orders service moved to Memcached.", "Redis"),
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


def _bens_editor_as_dana_tells_it(memory, told_by, told):
    """In one conversation Ben speaks and Dana says which editor Ben uses and which she does;
    weeks later `told_by` tells `told`. Returns the tellings current and ended."""
    memory.remember(
        messages=[
            {"id": "b1", "speaker": "Ben", "text": "Morning all, the release notes are up."},
            {"id": "b2", "speaker": "Dana", "text": "Thanks Ben. Ben uses vim. I use Emacs."},
        ],
        date="2026-01-20T09:00Z",
    )
    return _told_weeks_apart(memory, (told_by, told))


@pytest.mark.parametrize(
    ("told_by", "told"),
    [
        ("Ben", "I switched to VS Code."),
        ("Ben", "I use VS Code now."),
        ("Dana", "Ben switched from vim to VS Code."),
        ("Maya", "Ben moved to VS Code."),
    ],
)
def test_a_known_persons_tool_told_by_another_is_ended_by_their_own_change(memory, told_by, told):
    current, ended = _bens_editor_as_dana_tells_it(memory, told_by, told)
    assert "Ben uses vim." in ended
    assert "Dana uses Emacs." in current, "Dana's editor is her own"
    top = memory.recall("what editor does Ben use?", k=5).hits[0]
    assert "VS Code" in top.node.text


@pytest.mark.parametrize(
    ("told_by", "told"),
    [
        ("Dana", "I switched to VS Code."),
        ("Dana", "We moved to VS Code."),
        ("Maya", "I use VS Code for editing."),
        ("Dana", "We use Neovim for editing."),
    ],
)
def test_a_known_persons_tool_is_not_ended_by_another_persons_or_the_teams(memory, told_by, told):
    current, _ = _bens_editor_as_dana_tells_it(memory, told_by, told)
    assert "Ben uses vim." in current


def test_what_someone_not_known_uses_told_by_another_is_no_setting(memory):
    current, _ = _told_weeks_apart(
        memory, ("Dana", "Priya uses vim."), ("Dana", "Priya uses Emacs now.")
    )
    assert {"Priya uses vim.", "Priya uses Emacs now."} <= current


@pytest.mark.parametrize(
    ("first", "then", "ends"),
    [
        # a change for another thing leaves Dana's own editor standing, "we" or "I"
        ("I use vim.", "We switched to VS Code for the frontend repo.", False),
        ("I use vim.", "I switched from vim to VS Code for the frontend repo.", False),
        ("I use vim.", "We moved the frontend repo to VS Code.", False),
        # one for the same thing, or for no thing at all, ends it: she is one of "we"
        ("I use vim for the frontend repo.", "We switched to VS Code for the frontend repo.", True),
        ("I use vim.", "I switched to VS Code for editing.", True),
        ("I use vim.", "We switched to VS Code.", True),
        ("I use vim.", "We switched to VS Code for good.", True),
    ],
)
def test_a_change_for_a_thing_ends_a_speakers_own_tool_only_of_that_thing(
    memory, first, then, ends
):
    current, ended = _told_weeks_apart(memory, ("Dana", first), ("Dana", then))
    (own,) = [t for t in current | ended if t.startswith("Dana uses vim")]
    assert (own in ended) is ends


@pytest.mark.parametrize(
    ("told", "ended"),
    [
        ("We switched to MySQL for the orders service.", "Postgres"),
        ("We moved to Memcached for the orders service.", "Redis"),
        ("We switched from Postgres to MySQL for the orders service.", "Postgres"),
        ("We switched from Postgres to MySQL for the billing API.", None),
    ],
)
def test_a_change_told_for_a_thing_is_a_change_of_that_thing(memory, told, ended):
    current, _ = _told_weeks_apart(
        memory,
        ("Dana", "We use Postgres for the orders service."),
        ("Dana", "We use Redis for the orders service."),
        ("Dana", told),
    )
    standing = {
        t
        for t in ("Postgres", "Redis")
        if f"Dana and others use {t} for the orders service." in current
    }
    assert standing == {"Postgres", "Redis"} - {ended}


def test_a_change_told_with_its_purpose_still_ends_the_tool_of_its_kind(memory):
    _, ended = _told_weeks_apart(
        memory, ("Dana", "We host on AWS."), ("Dana", "We migrated to GCP for cost reasons.")
    )
    assert "Dana and others host on AWS." in ended


@pytest.mark.parametrize(
    "move",
    [
        "The orders service moved to MySQL.",
        "We moved the orders service onto MySQL.",
        "We moved the orders service DB to MySQL.",
    ],
)
def test_asked_what_database_a_moved_thing_uses_recall_answers_with_the_move(memory, move):
    _told_weeks_apart(
        memory,
        ("Dana", "We use Postgres for the orders service."),
        ("Dana", "We use Redis for the orders service."),
        ("Dana", move),
    )
    top = memory.recall("what database does the orders service use?", k=5).hits[0]
    assert "MySQL" in top.node.text
    assert top.why.replaces is not None
    assert top.why.replaces.text == "Dana and others use Postgres for the orders service."


def test_a_tool_used_for_a_purpose_is_set_anew_by_one_of_its_kind(memory):
    current, ended = _told_weeks_apart(
        memory,
        ("Dana", "We use Redis for the speed."),
        ("Dana", "We use Postgres for the orders service."),
        ("Dana", "We use Memcached for caching now."),
    )
    assert "Dana and others use Redis for the speed." in ended
    assert "Dana and others use Postgres for the orders service." in current


@pytest.mark.parametrize(
    "later",
    [
        "We moved Acme's orders service to Postgres 16.",
        "Acme's orders service moved to Postgres 16.",
        "We moved the client's orders service to Postgres 16.",
        "We moved their orders service to Postgres 16.",
    ],
)
def test_a_move_of_another_owners_thing_of_the_same_name_leaves_ours_current(memory, later):
    current, ended = _told_weeks_apart(
        memory, ("Dana", "The orders service is Postgres 15."), ("Dana", later)
    )
    assert "The orders service is Postgres 15." in current
    assert not ended


@pytest.mark.parametrize(
    "later",
    ["We moved our orders service to Postgres 16.", "The orders service moved to Postgres 16."],
)
def test_a_move_of_our_thing_ends_its_old_setting(memory, later):
    _, ended = _told_weeks_apart(
        memory, ("Dana", "The orders service is Postgres 15."), ("Dana", later)
    )
    assert ended == {"The orders service is Postgres 15."}


@pytest.mark.parametrize(
    "move",
    [
        "Yesterday the orders service moved to MySQL.",
        "Last week the orders service moved to MySQL.",
        "This morning the orders service moved to MySQL.",
        "After the outage the orders service moved to MySQL.",
        "Over the weekend the orders service moved to MySQL.",
    ],
)
def test_a_move_told_after_when_it_happened_ends_the_things_tool_of_that_kind(memory, move):
    current, ended = _told_weeks_apart(
        memory,
        ("Dana", "We use Postgres for the orders service."),
        ("Dana", "We use Redis for the orders service."),
        ("Dana", move),
    )
    assert ended == {"Dana and others use Postgres for the orders service."}
    assert "Dana and others use Redis for the orders service." in current


def test_a_verbless_answer_naming_our_tools_is_set_anew_by_a_later_switch(memory):
    memory.remember(
        messages=[
            {"speaker": "Ana", "text": "What do we run CI and the orders DB on?"},
            {"speaker": "Dana", "text": "yep. Jenkins for CI, Postgres 15 for the orders DB"},
        ],
        date="2026-02-01T09:00:00+00:00",
    )
    memory.remember(
        messages=[{"speaker": "Ben", "text": "We switched from Jenkins to GitHub Actions."}],
        date="2026-02-08T09:00:00+00:00",
    )
    top = memory.recall("what do we use for CI?", k=5).hits[0]
    assert "GitHub Actions" in top.node.text
    current = {n.text for n in memory.store.find_nodes(valid_only=True, limit=100)}
    assert "Jenkins for CI." not in current
    assert "Postgres 15 for the orders DB." in current, "the switch of CI leaves the DB standing"


@pytest.mark.parametrize(
    ("first", "later"),
    [
        ("Pizza for dinner", "Sushi for dinner"),
        ("Tacos for lunch", "Ramen for lunch"),
        ("Lisbon for the offsite", "Porto for the offsite"),
    ],
)
def test_a_meal_or_place_answered_is_no_setting_a_later_answer_ends(memory, first, later):
    for day, said in (("2026-02-20", first), ("2026-02-27", later)):
        memory.remember(
            messages=[
                {"speaker": "Ana", "text": "What's the plan?"},
                {"speaker": "Ben", "text": said},
            ],
            date=f"{day}T09:00:00+00:00",
        )
    ended = {n.text for n in memory.store.find_nodes(valid_only=False, limit=100) if n.valid_to}
    assert ended == set()


def test_our_thing_told_in_a_group_chat_is_the_groups_and_another_of_us_moving_it_ends_it(memory):
    memory.remember(
        messages=[
            {"speaker": "Dana", "text": "Our staging DB is Postgres 15."},
            {"speaker": "Ana", "text": "We use Jenkins for CI."},
            {"speaker": "Ben", "text": "Nice."},
        ],
        date="2026-02-01T09:00:00+00:00",
    )
    (told,) = memory.store.find_nodes(text="Dana and others' staging DB is Postgres 15.")
    assert told.valid_to is None, "our staging DB, as we: the group's, not Dana's own"
    memory.remember(
        messages=[{"speaker": "Ben", "text": "We moved the staging DB to Postgres 16."}],
        date="2026-02-08T09:00:00+00:00",
    )
    (ended,) = memory.store.find_nodes(
        text="Dana and others' staging DB is Postgres 15.", valid_only=False
    )
    assert ended.valid_to is not None and ended.superseded_by is not None


# How a team tells that CI now runs elsewhere, after "We use Jenkins for CI": True when it
# states the current tool, False when it asks, hedges or plans.
CI_TOLD = [
    ("We switched CI from Jenkins to GitHub Actions.", True),
    ("We now use GitHub Actions for CI.", True),
    ("Not anymore, CI now runs on GitHub Actions", True),
    ("Actually we moved CI to GitHub Actions last week", True),
    ("CI is on GitHub Actions now", True),
    ("we've moved our CI over to GitHub Actions", True),
    ("GitHub Actions handles CI now", True),
    ("CI runs on GitHub Actions these days", True),
    ("Nope, our CI runs on GitHub Actions now.", True),
    ("CI has moved to GitHub Actions", True),
    ("These days CI runs on GitHub Actions", True),
    ("Not anymore, we moved CI to GitHub Actions", True),
    ("should we move CI to GitHub Actions?", False),
    ("we might move CI to GitHub Actions", False),
    ("next quarter we'll move CI to GitHub Actions", False),
    ("We're thinking about moving CI to GitHub Actions", False),
    ("CI might run on GitHub Actions next quarter", False),
    ("Does CI run on GitHub Actions now?", False),
    ("CI runs on GitHub Actions now?", False),
    ("Ana handles CI now", False),
    ("CI will run on GitHub Actions", False),
    ("We should have moved CI to GitHub Actions", False),
    ("If CI runs on GitHub Actions, builds are faster", False),
    ("Deploying is on Fridays", False),
]


@pytest.mark.parametrize(("said", "switched"), CI_TOLD)
def test_telling_the_current_ci_ends_jenkins_and_asking_or_planning_does_not(
    memory, said, switched
):
    current, ended = _told_weeks_apart(memory, ("Dana", "We use Jenkins for CI."), ("Dana", said))
    jenkins = "Dana and others use Jenkins for CI."
    hits = [h.node.text for h in memory.recall("what do we use for CI").hits]
    if switched:
        assert jenkins in ended
        assert "GitHub Actions" in hits[0]
        assert jenkins not in hits
    else:
        assert jenkins in current
        assert hits[0] == jenkins

"""What a setting says, and which changes told in chat set it anew (`ebbtide.settings`)."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from ebbtide.settings import (
    _KINDS,
    Change,
    Setting,
    change,
    changes,
    replaces,
    same_thing,
    setting,
    tools_for,
)


def test_a_setting_names_its_thing_and_value_with_ones_own_thing_as_the_teams():
    assert setting("Maya's staging DB is Postgres 15.", "Maya") == Setting(
        "staging db", "postgres 15", "maya"
    )
    assert setting("Ana's laptop is a ThinkPad X1.", "Maya") == Setting(
        "ana's laptop", "thinkpad x1", "ana"
    )
    assert setting("The CI runner is Jenkins.", "Ben") == Setting("ci runner", "jenkins", None)
    assert setting("We went home early.", "Ben") is None


@pytest.mark.parametrize(
    ("text", "speaker", "expected"),
    [
        (
            "Ana and others upgraded the staging DB to Postgres 16 today (20 November 2026).",
            "Ana",
            Change("staging db", None, "postgres 16 today", None, by="ana"),
        ),
        (
            "Ben switched Ben's CI runner from Jenkins to GitHub Actions.",
            "Ben",
            Change("ci runner", "jenkins", "github actions", None, by="ben"),
        ),
        (
            "Ana swapped Ana's ThinkPad for a MacBook Air.",
            "Ana",
            Change(None, "thinkpad", "macbook air", "ana", by="ana"),
        ),
        (
            "Ben replaced Jenkins with GitHub Actions.",
            "Ben",
            Change(None, "jenkins", "github actions", None, by="ben"),
        ),
        # what a change was for is the thing changed, unless it is a purpose
        (
            "Ana and others switched to VS Code for the frontend repo last week.",
            "Ana",
            Change("frontend repo", None, "vs code", None, by="ana"),
        ),
        (
            "Ana switched from vim to VS Code for Ana's editing.",
            "Ana",
            Change("editing", "vim", "vs code", None, by="ana"),
        ),
        (
            "Ana and others migrated to GCP for cost reasons.",
            "Ana",
            Change(None, None, "gcp for cost reasons", None, by="ana"),
        ),
        (
            "Ana and others switched to VS Code for good.",
            "Ana",
            Change(None, None, "vs code for good", None, by="ana"),
        ),
        (
            "Ana and others switched to Redis for the speed.",
            "Ana",
            Change(None, None, "redis for the speed", None, by="ana"),
        ),
        # the thing told as what moved, or moved onto the tool, or none when moved over
        (
            "The orders service moved to MySQL.",
            "Ana",
            Change("orders service", None, "mysql", None),
        ),
        (
            "Our billing API was migrated from Postgres to MySQL.",
            "Ana",
            Change("billing api", "postgres", "mysql", None),
        ),
        (
            "Ana and others moved the orders service onto MySQL.",
            "Ana",
            Change("orders service", None, "mysql", None, by="ana"),
        ),
        (
            "Ana and others moved over to GitHub Actions.",
            "Ana",
            Change(None, None, "github actions", None, by="ana"),
        ),
        (
            "The next day Ana moved to GitHub Actions.",
            "Ana",
            Change(None, None, "github actions", None, by="ana"),
        ),
        ("We moved to the new office last week.", "Ana", None),
        ("I changed my mind about it.", "Ana", None),
    ],
)
def test_a_change_told_as_something_done(text, speaker, expected):
    assert change(text, speaker) == expected


STAGING = Setting("staging db", "postgres 15", "maya")


@pytest.mark.parametrize(
    ("text", "before", "expected"),
    [
        ("Ana upgraded the staging DB to Postgres 16.", STAGING, True),
        ("Ana moved staging to Postgres 17 last night.", STAGING, True),  # same kind of value
        ("Ana moved staging to Friday.", STAGING, False),  # "staging" of another thing
        # the same thing is Postgres 16 now, whatever it was before
        ("Ana upgraded the staging DB from Postgres 14 to Postgres 16.", STAGING, True),
        # "staging" that was Postgres 14 is not the staging DB that was Postgres 15
        ("Ana moved staging from Postgres 14 to Postgres 16.", STAGING, False),
        ("Ana upgraded the staging DB to Postgres 15.", STAGING, False),  # told again
        (
            "Ben switched the CI runner to GitHub Actions.",
            Setting("ci runner", "jenkins", None),
            True,
        ),
        ("Ben replaced Jenkins with GitHub Actions.", Setting("ci runner", "jenkins", None), True),
        (
            "Ana swapped Ana's ThinkPad for a MacBook Air.",
            Setting("laptop", "thinkpad", "ana"),
            True,
        ),
        (
            "Ana swapped Ana's ThinkPad for a MacBook Air.",
            Setting("ben's laptop", "thinkpad t14", "ben"),
            False,  # someone else's ThinkPad
        ),
        ("Ana moved the standup to 10.", Setting("ci runner", "jenkins", None), False),
    ],
)
def test_which_settings_a_change_sets_anew(text, before, expected):
    done = change(text, "Ana" if text.startswith("Ana") else "Ben")
    assert done is not None
    assert changes(done, before) is expected


@given(st.text(max_size=120), st.text(max_size=120))
def test_any_text_reads_as_a_setting_or_change_or_neither_without_failing(said, done):
    before = setting(said, "Ana")
    after = change(done, "Ana")
    if before is not None and after is not None and before.value == after.value:
        assert not changes(after, before), "a value told again changes nothing"


@pytest.mark.parametrize(
    "text",
    [
        "Ana and others never upgraded the staging DB to Postgres 16.",
        "Ana and others didn't move the staging DB to Postgres 16.",
        "Nobody upgraded the staging DB to Postgres 16.",
        "Ana and others almost upgraded the staging DB to Postgres 16.",
        "Ana and others should have upgraded the staging DB to Postgres 16.",
        "If Ana and others upgraded the staging DB to Postgres 16, the tests would pass.",
        "Who upgraded the staging DB to Postgres 16?",
        "Ana and others upgraded the staging DB to Postgres 16 but rolled it back.",
        "Ana never swapped Ana's ThinkPad for a MacBook Air.",
        "Ana and others never replaced Jenkins with GitHub Actions.",
    ],
)
def test_a_change_denied_hedged_asked_or_undone_is_no_change(text):
    assert change(text, "Ana") is None


@pytest.mark.parametrize(
    ("text", "owner"),
    [
        ("Acme upgraded their staging DB to Postgres 16 yesterday.", "acme"),
        ("Bob upgraded his staging DB to Postgres 16.", "bob"),
        ("The mobile team upgraded their staging DB to Postgres 16.", "?"),
        ("Bob swapped his ThinkPad for a MacBook Air.", "bob"),
    ],
)
def test_a_change_of_someone_elses_own_thing_leaves_ours_standing(text, owner):
    done = change(text, "Ana")
    assert done is not None and done.owner == owner
    assert not changes(done, STAGING)
    assert not changes(done, Setting("staging db", "postgres 15", None))
    assert not changes(done, Setting("laptop", "thinkpad", "ana"))


def test_a_change_of_someones_own_thing_sets_their_setting_anew():
    done = change("Bob upgraded his staging DB to Postgres 16.", "Ana")
    assert done is not None
    bobs = setting("Bob's staging DB is Postgres 15.", "Ana")
    assert bobs is not None and changes(done, bobs)


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        (
            "Yesterday (19 March 2024) Acme replaced Jenkins with GitHub Actions.",
            Change(None, "jenkins", "github actions", "acme", True, by="acme"),
        ),
        (
            "Stripe switched from Ruby to Go.",
            Change(None, "ruby", "go", "stripe", True, by="stripe"),
        ),
        (
            "Priya's team moved the CI to GitHub Actions.",
            Change("ci", None, "github actions", "priya", True),
        ),
        # one of us, or ours said: the team's
        (
            "Ben replaced Jenkins with GitHub Actions.",
            Change(None, "jenkins", "github actions", None, by="ben"),
        ),
        ("Ana and others switched from Ruby to Go.", Change(None, "ruby", "go", None, by="ana")),
        (
            "Priya moved Ana's CI to GitHub Actions.",
            Change("ci", None, "github actions", None, by="priya"),
        ),
        (
            "Priya replaced Jenkins with GitHub Actions in Ana's pipeline.",
            Change(None, "jenkins", "github actions in ana's pipeline", None, by="priya"),
        ),
        # told without whom
        (
            "Jenkins was replaced with GitHub Actions.",
            Change(None, "jenkins", "github actions", None),
        ),
        (
            "The mobile team moved the CI to GitHub Actions.",
            Change("ci", None, "github actions", None),
        ),
    ],
)
def test_a_change_a_named_other_made_is_of_their_own_thing(text, expected):
    assert change(text, "Ana", people=["Ana", "Ben"]) == expected


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("Ana and others use Jenkins for CI.", Setting("ci", "jenkins", None)),
        ("We use GitHub Actions for CI now.", Setting("ci", "github actions", None)),
        ("Ana's CI runs on Jenkins.", Setting("ci", "jenkins", "ana")),
        ("Jenkins is Ana's CI.", Setting("ci", "jenkins", "ana")),
        ("Ana and others deploy with Argo CD.", Setting("deploys", "argo cd", None)),
        ("We host on AWS.", Setting("hosting", "aws", None)),
        ("We host everything on Fly.io.", Setting("hosting", "fly.io", None)),
        ("The API is deployed on Kubernetes.", Setting("api", "kubernetes", None)),
        ("Ana and others are on Postgres 15.", Setting("database", "postgres 15", None)),
        ("We're on Foo 2.", Setting("foo", "foo 2", None)),  # the product, by its version
        ("We run Redis 6 for caching.", Setting("caching", "redis 6", None)),
        ("We use Kafka.", Setting("queue", "kafka", None)),
        ("We use Slack.", Setting("chat", "slack", None)),
        ("We use Postgres for the orders service.", Setting("orders service", "postgres", None)),
        # a purpose, with "the" or without, is no thing: the tool's kind is
        ("We use Redis for the speed.", Setting("caching", "redis", None)),
        ("We use Redis for speed.", Setting("caching", "redis", None)),
        ("We use Postgres for the time being.", Setting("database", "postgres", None)),
    ],
)
def test_what_we_use_or_a_thing_runs_on_is_a_setting(text, expected):
    assert setting(text, "Ana") == expected


@pytest.mark.parametrize(
    "text",
    [
        "We use Slack to talk to Acme.",
        "I use Slack to talk to Acme.",
        "Ana uses Slack to talk to Acme.",
        "We run standups on Mondays.",
        "Ben uses vim.",  # what another uses, told by Ana: not hers
        "I run 5 miles every day.",
        "Ana is on vacation.",
        "We use it for CI.",
        "We use Notion.",  # no thing said, and no kind known
        "We're on Maui.",
        "Ana is my sister.",
        "Acme is our biggest customer.",
    ],
)
def test_what_is_not_a_thing_we_use_is_no_setting(text):
    assert setting(text, "Ana") is None


CI = Setting("ci", "jenkins", None)
HOSTING = Setting("hosting", "aws", None)
DATABASE = Setting("database", "postgres 15", None)
CACHING = Setting("caching", "redis 6", None)


@pytest.mark.parametrize(
    ("text", "before", "expected"),
    [
        ("Ana and others moved CI to GitHub Actions.", CI, True),
        ("We switched from Jenkins to GitHub Actions.", CI, True),
        ("We migrated to GitHub Actions.", CI, True),  # a tool of the same kind
        ("We migrated to GCP.", HOSTING, True),
        ("We upgraded to Postgres 16.", DATABASE, True),  # another version
        ("We upgraded Redis to 7.", CACHING, True),  # the thing named by its old value
        ("We moved caching to Memcached.", CACHING, True),
        ("We moved the API to Nomad.", Setting("api", "kubernetes", None), True),
        ("We upgraded Redis to 6.", CACHING, False),  # told again
        ("We moved Jenkins to Kubernetes.", CI, False),  # where Jenkins runs, not our CI
        ("We migrated to GCP.", DATABASE, False),
        ("We upgraded to Postgres 16.", HOSTING, False),
        ("We moved the meeting to Friday.", CI, False),
        ("We moved to Berlin.", HOSTING, False),
        ("We migrated to GCP.", setting("We're on Cloud 9.", "Ana"), False),  # no cloud
        # "our staging DB" is one of our databases, not "the database" we are on
        ("We migrated to MySQL.", Setting("staging db", "postgres 15", None), False),
    ],
)
def test_which_settings_a_change_of_what_we_use_sets_anew(text, before, expected):
    done = change(text, "Ana", people=["Ana"])
    assert done is not None
    assert changes(done, before) is expected


def test_a_move_another_company_made_leaves_what_we_use_standing():
    done = change("Acme moved to GitHub Actions.", "Ana", people=["Ana"])
    assert done == Change(None, None, "github actions", "acme", True, by="acme")
    assert not changes(done, CI)


@pytest.mark.parametrize(
    ("a", "b", "same"),
    [
        (CI, Setting("ci runner", "github actions", None), True),
        (DATABASE, Setting("db", "mysql 8", None), True),
        (DATABASE, Setting("staging db", "mysql 8", None), False),
        (CI, Setting("acme's ci", "circleci", "acme"), False),
    ],
)
def test_settings_of_one_thing_are_named_alike_or_by_its_kind(a, b, same):
    assert same_thing(a, b) is same


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("Ana uses vim for editing.", Setting("editing", "vim", "ana", own=True)),
        ("I use vim.", Setting("editor", "vim", "ana", own=True)),
        ("Ana uses Neovim.", Setting("editor", "neovim", "ana", own=True)),
        ("Ana is on Arch.", Setting("os", "arch", "ana", own=True)),
        ("I'm on Arch Linux now.", Setting("os", "arch linux", "ana", own=True)),
        ("Ana is using Firefox these days.", Setting("browser", "firefox", "ana", own=True)),
        ("Ana uses Obsidian for notes.", Setting("notes", "obsidian", "ana", own=True)),
    ],
)
def test_a_tool_the_speaker_uses_is_their_own_setting(text, expected):
    assert setting(text, "Ana") == expected


def test_a_tool_a_known_person_uses_told_by_another_is_that_persons_own_setting():
    assert setting("Ben uses vim.", "Dana", people=["Ben", "Dana"]) == Setting(
        "editor", "vim", "ben", own=True
    )
    assert setting("Priya uses vim.", "Dana", people=["Ben", "Dana"]) is None
    assert setting("Ben uses vim.", "Dana") is None  # Ben not known: no one's setting


DANAS_VIM = Setting("editing", "vim", "dana", own=True)


@pytest.mark.parametrize(
    ("text", "speaker", "expected"),
    [
        ("Dana switched from vim to VS Code.", "Dana", True),
        ("Dana moved to VS Code.", "Dana", True),  # a tool of the same kind
        ("I switched to VS Code.", "Dana", True),
        ("Dana switched Dana's editor to VS Code.", "Dana", True),
        ("Dana switched from vim to VS Code.", "Ben", True),  # told by Ben, made by Dana
        ("Ben switched from vim to VS Code.", "Ben", False),  # Ben's own editor
        ("Ben and others moved to VS Code.", "Ben", False),
        ("Ben replaced vim with VS Code.", "Ben", False),
        ("Dana moved to GCP.", "Dana", False),  # not an editor
    ],
)
def test_ones_own_tool_is_set_anew_by_ones_own_change_only(text, speaker, expected):
    done = change(text, speaker, people=["Dana", "Ben"])
    assert done is not None
    assert changes(done, DANAS_VIM) is expected


def test_ones_own_tool_is_not_the_teams_nor_another_persons():
    bens = setting("Ben uses Emacs for editing.", "Ben")
    danas_again = setting("Dana uses VS Code for editing now.", "Dana")
    teams = setting("We use Emacs for editing.", "Ben")
    assert bens is not None and danas_again is not None and teams is not None
    assert same_thing(DANAS_VIM, danas_again)
    assert not same_thing(DANAS_VIM, bens)
    assert not same_thing(DANAS_VIM, teams)


@pytest.mark.parametrize(
    ("before", "later", "speaker"),
    [
        ("We use Postgres for the orders service.", "We use Redis for the orders service.", "Ana"),
        ("We use VS Code for work.", "We use Slack for work.", "Ana"),
        ("I use vim for the backend.", "I use Postman for the backend.", "Ana"),
        # the same thing, told as what it runs on or as what we use for it
        ("The orders service runs on Postgres.", "We use Redis for the orders service.", "Ana"),
        ("The orders service runs on Kubernetes.", "The orders service runs on AWS.", "Ana"),
        # no known kind is a kind of its own: nothing tells Supabase or GitHub to be a database
        (
            "We use Postgres for the orders service.",
            "We use Supabase for the orders service.",
            "Ana",
        ),
        ("We use GitHub for the orders service.", "We use Postgres for the orders service.", "Ana"),
    ],
)
def test_a_thing_of_many_tools_keeps_a_tool_of_another_kind(before, later, speaker):
    said, told = setting(before, speaker), setting(later, speaker)
    assert said is not None and told is not None
    assert same_thing(said, told)
    assert not replaces(told, said)
    assert not replaces(said, told)


@pytest.mark.parametrize(
    ("before", "later"),
    [
        # a tool of the same kind
        ("We use Postgres for the orders service.", "We use MySQL for the orders service."),
        ("We use VS Code for work.", "We use Neovim for work."),
        ("I use vim for the backend.", "I use Emacs for the backend now."),
        # two values of no known kind: of the same kind, as far as anything tells
        ("I use Obsidian for notes.", "I use Notion for notes now."),
        ("Ana's laptop is a ThinkPad.", "Ana's laptop is a MacBook Air."),
        # a thing that is itself of a kind holds one value, whatever the kind of the next
        ("Our staging DB is Postgres 15.", "The staging DB is now Redis 7."),
        ("We use Redis for caching.", "We use Postgres for caching."),
        ("Our CI runs on Jenkins.", "We use Kubernetes for CI."),
    ],
)
def test_a_later_setting_of_a_tool_of_the_same_or_no_known_kind_replaces_it(before, later):
    said, told = setting(before, "Ana"), setting(later, "Ana")
    assert said is not None and told is not None
    assert replaces(told, said)


_TOOLS_BY_KIND = [(tool, kind) for kind, (_, tools) in _KINDS.items() for tool in tools]
_THINGS = ["orders service", "backend", "mobile app", "billing API", "side project", "homelab"]


@given(
    st.sampled_from(_TOOLS_BY_KIND),
    st.sampled_from(_TOOLS_BY_KIND),
    st.sampled_from(_THINGS),
    st.sampled_from(["We use", "I use"]),
)
def test_for_a_thing_not_of_a_kind_only_a_known_tool_of_the_same_kind_replaces(a, b, thing, use):
    (tool, kind), (other, other_kind) = a, b
    said = setting(f"{use} {tool} for the {thing}.", "Ana")
    told = setting(f"{use} {other} for the {thing}.", "Ana")
    assert said is not None and told is not None
    assert (said.value, told.value) == (tool, other)
    assert replaces(told, said) is (kind == other_kind and tool != other)


ORDERS_DB = Setting("orders service", "postgres", None)
ORDERS_QUEUE = Setting("orders service", "kafka", None)
ORDERS_REPO = Setting("orders service", "github", None)


@pytest.mark.parametrize(
    ("text", "before", "expected"),
    [
        # a told change ends the tool it names as old, whatever the kinds
        ("We switched the orders service from Postgres to Redis.", ORDERS_DB, True),
        ("We replaced Postgres with Redis in the orders service.", ORDERS_DB, True),
        ("We switched the orders service from Postgres to Redis.", ORDERS_QUEUE, False),
        ("We switched the orders service from Postgres to MySQL.", ORDERS_QUEUE, False),
        # naming only the new tool, it ends the one of its kind
        ("We moved the orders service to MySQL.", ORDERS_DB, True),
        ("We moved the orders service to MySQL.", ORDERS_QUEUE, False),
        ("We moved the orders service to GCP.", ORDERS_DB, False),
        # of no known kind: not told to be of Postgres's kind, but maybe of GitHub's
        ("We moved the orders service to Foo.", ORDERS_DB, False),
        ("We moved the orders service to Foo.", ORDERS_REPO, True),
        ("We moved the orders service to MySQL.", ORDERS_REPO, False),
        ("We switched the orders service from GitHub to MySQL.", ORDERS_REPO, True),
        # over to it, or a part of the thing of the new tool's kind
        ("We migrated the orders service over to MySQL.", ORDERS_DB, True),
        ("We moved the orders service DB to MySQL.", ORDERS_DB, True),
        ("We moved the orders service's database to Supabase.", ORDERS_DB, True),
        ("We moved the orders service DB to MySQL.", ORDERS_QUEUE, False),
        ("We moved the orders service DB to GCP.", ORDERS_DB, False),
        ("We moved the orders service DB from MySQL to MariaDB.", ORDERS_DB, False),
        # the thing told as the one that moved, or moved onto the tool
        ("The orders service moved to MySQL.", ORDERS_DB, True),
        ("Our orders service migrated over to MySQL.", ORDERS_DB, True),
        ("The orders service was moved to MySQL.", ORDERS_DB, True),
        ("The orders service moved to MySQL.", ORDERS_QUEUE, False),
        ("The orders service moved to GCP.", ORDERS_DB, False),
        ("The orders service moved from Postgres to MySQL.", ORDERS_DB, True),
        ("We moved the orders service onto MySQL.", ORDERS_DB, True),
        ("We moved the orders service onto MySQL.", ORDERS_QUEUE, False),
        # another's thing that moved is theirs
        ("Acme's orders service moved to MySQL.", ORDERS_DB, False),
    ],
)
def test_a_change_of_a_thing_of_many_tools_ends_the_tool_it_names_or_one_of_its_kind(
    text, before, expected
):
    done = change(text, "Ana", people=["Ana"])
    assert done is not None
    assert changes(done, before) is expected


ORDERS_PG15 = Setting("orders service", "postgres 15", None)


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        # another owner's thing of the same name is another thing
        ("Ana and others moved Acme's orders service to Postgres 16.", False),
        ("Acme's orders service moved to Postgres 16.", False),
        ("Ana and others moved the client's orders service to Postgres 16.", False),
        ("The client's orders service moved to Postgres 16.", False),
        ("Ana and others moved their orders service to Postgres 16.", False),
        ("Their orders service moved to Postgres 16.", False),
        # ours, however told, is ours
        ("Ana and others moved Ana's orders service to Postgres 16.", True),
        ("Our orders service moved to Postgres 16.", True),
        ("The orders service moved to Postgres 16.", True),
        ("Ana and others upgraded the orders service to Postgres 16.", True),
    ],
)
def test_a_change_of_another_owners_thing_of_the_same_name_leaves_ours_standing(text, expected):
    done = change(text, "Ana", people=["Ana"])
    assert done is not None
    assert changes(done, ORDERS_PG15) is expected


@pytest.mark.parametrize(
    "when",
    [
        "Yesterday",
        "Yesterday,",
        "Last week",
        "On Monday",
        "This morning",
        "Two days ago",
        "After the outage",
        "After the big outage,",
        "Over the weekend",
    ],
)
def test_a_thing_that_moved_told_after_when_it_did_is_still_that_thing(when):
    done = change(f"{when} the orders service moved to MySQL.", "Ana", people=["Ana"])
    assert done is not None and done.subject == "orders service"
    assert changes(done, ORDERS_DB)
    assert not changes(done, ORDERS_QUEUE)
    theirs = change(f"{when} Acme's orders service moved to MySQL.", "Ana", people=["Ana"])
    assert theirs is not None and not changes(theirs, ORDERS_DB)


@pytest.mark.parametrize(
    ("answer", "told"),
    [
        ("Jenkins for CI, Postgres 15 for the orders DB",
         ["Jenkins for CI", "Postgres 15 for the orders DB"]),
        ("Jenkins for CI; Postgres for the DB, and vim for editing.",
         ["Jenkins for CI", "Postgres for the DB", "vim for editing"]),
        ("GitHub Actions for CI.", ["GitHub Actions for CI"]),
        # a tool of no known kind, for a known purpose or a thing a team runs, or spelt as a
        # product
        ("Zeta for the orders DB", ["Zeta for the orders DB"]),
        ("Acme for the billing service", ["Acme for the billing service"]),
        ("PgBouncer for pooling", ["PgBouncer for pooling"]),
        ("Foo 2 for the queue", ["Foo 2 for the queue"]),
        # a meal or a place is no tool, though capitalised
        ("Pizza for dinner", []),
        ("Pizza for dinner, Sushi for lunch", []),
        ("Lisbon for the offsite", []),
        # a verb, no tool, a purpose or a time: no such answer
        ("We use Jenkins for CI.", []),
        ("Thanks for the help!", []),
        ("pizza for dinner", []),
        ("Redis for the speed.", []),
        ("Jenkins for now.", []),
        ("Jenkins for CI, and we love it.", []),
    ],
)  # fmt: skip
def test_an_answer_naming_tools_and_what_each_is_for_is_read_part_by_part(answer, told):
    assert tools_for(answer) == told


def test_a_tool_named_for_a_thing_as_an_answer_is_the_groups_setting_like_we_use():
    said = setting("Jenkins for CI.", "Dana", answer=True)
    assert said == setting("We use Jenkins for CI.", "Dana") == Setting("ci", "jenkins", None)
    assert setting("Postgres 15 for the orders DB.", "Dana", answer=True) == Setting(
        "orders db", "postgres 15", None
    )
    assert setting("Jenkins for CI.", "Dana") is None, "not told as an answer: no setting"
    done = change("We switched from Jenkins to GitHub Actions.", "Ben", people=["Ben", "Dana"])
    assert done is not None and changes(done, said)

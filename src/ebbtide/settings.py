"""Settings and the changes that set them anew, as chat tells them.

A setting is what a named thing is or runs on: "Our staging DB is Postgres 15", "Ana's laptop
is a ThinkPad", "Jenkins is our CI", "Our CI runs on Jenkins", "The API is deployed on
Kubernetes", a kind named bare ("CI is on GitHub Actions now", "GitHub Actions handles CI
now", also after a reply's opener: "Not anymore, CI now runs on …"), or what we use for it:
"We use Jenkins for CI", "We run Redis 6 for caching", "We deploy with Argo CD", "We host on
AWS", "We're on Postgres 15" (the thing, when not named, is the kind of tool named: CI,
hosting, deploys, caching, the database…). It is told anew
either as a setting ("The staging DB is now Postgres 16") or as a change ("We upgraded the
staging DB to Postgres 16", "We moved CI to GitHub Actions", "We migrated to GCP", "We
upgraded to Postgres 16", "I swapped my ThinkPad for a MacBook Air", "Replaced Jenkins with
GitHub Actions", "Jenkins was replaced with GitHub Actions"). Either way the older setting no
longer holds; the memory keeps it for the record and stops recalling it. A change another
company or team made ("Acme replaced Jenkins with GitHub Actions", "Priya's team moved the CI
to GitHub Actions", "Acme moved to GitHub Actions") is of their thing, not ours, unless it
says ours ("Priya moved our CI …", "… in our pipeline"); so is a thing named as another's
("We moved Acme's orders service …", "the client's orders service").

A thing that is not itself of a kind (a service, a project, work) may use several tools at
once, so only a tool of the same kind sets it anew: "We use Redis for the orders service" (a
cache) leaves "We use Postgres for the orders service" standing, "We use MySQL for the orders
service" ends it. No known kind is a kind of its own: "Supabase" leaves Postgres standing and
"Postgres" leaves "GitHub", while "Notion" after "Obsidian" sets a thing anew, as for a thing
of one value ("Ana's laptop"). A change of such a thing ends the tool it names as old ("We
switched the orders service from Postgres to Redis"), else the one of the new tool's kind
("We moved the orders service to MySQL", "… onto MySQL" or "(Yesterday) the orders
service moved to MySQL" ends Postgres, "… to GCP" none, "… to GitLab" only GitHub). What a
tool is used for may be a purpose, no thing ("We use Redis for the speed" is our cache). Pure
text: no store, no clock.
"""

from __future__ import annotations

import re
from collections.abc import Collection
from dataclasses import dataclass
from datetime import UTC, datetime

from .text import PRODUCT_NAME
from .timeparse import resolve

__all__ = [
    "Change",
    "Setting",
    "change",
    "changes",
    "replaces",
    "same_thing",
    "setting",
    "sought",
    "tools_for",
]

_OWNER = r"(?:the|our|my|their|its|(?P<owner>[\w]+)['’]s)"
# A word of a name, dots only inside it ("fly.io", not the full stop after "CI")
_WORD = r"[\w+#/-]+(?:\.[\w+#/-]+)*"
# Said between a thing and its verb, not of its name: "Our CI now runs on …"; a modal ("Our CI
# might run on …") is no word of a name either, so a plan or a hedge is no setting.
_NAME_WORD = (
    r"(?!(?:now|still|currently|also|might|may|will|would|could|should|can|must)\s)[\w.+#/-]+"
)
_ADVERB = r"(?:(?:now|still|currently|also)\s+)?"
_SETTING = re.compile(
    rf"(?P<subject>{_OWNER}\s+(?:{_NAME_WORD}\s+){{0,3}}?){_ADVERB}"
    r"(?:is|are)\s+(?:now\s+)?(?:(?:a|an|on|at|version|v)\s+)?(?P<value>(?-i:[A-Z0-9])[^.!?]*)",
    re.IGNORECASE,
)
# What a thing runs on, as told: "Our CI runs on Jenkins", "The API is deployed on Kubernetes"
_RUNS_ON = re.compile(
    rf"(?P<subject>{_OWNER}\s+(?:{_NAME_WORD}\s+){{0,3}}?){_ADVERB}"
    r"(?:runs?|lives?|(?:is|are)\s+(?:now\s+)?(?:deployed|hosted|running|built))\s+"
    r"(?:on|in|with|via|using|through|to|at)\s+(?P<value>(?-i:[A-Z0-9])(?:[^.!?,;]|\.(?=\w))*?)"
    r"\s*(?:[.!?]+\s*)?$",
    re.IGNORECASE,
)
# A tool named first ("Jenkins is our CI"): a setting when the thing or the tool is of a
# known kind, so "Ana is my sister" is none.
_NAMED_AS = re.compile(
    rf"(?P<value>(?-i:[A-Z0-9]){_WORD}(?:\s+{_WORD}){{0,2}}?)\s+(?:is|are)\s+(?:now\s+)?"
    rf"(?P<subject>{_OWNER}\s+(?:{_WORD}\s+){{0,2}}?{_WORD})\s*(?:[.!?]+\s*)?$",
    re.IGNORECASE,
)
# Words that end a setting told, not part of its thing: "… for CI now"
_SINCE = r"(?:and\b|now\b|today\b|currently\b|these\s+days\b|at\s+the\s+moment\b)"
# What we use, as a team ("we", rewritten as "Ana and others"): "We use Jenkins for CI",
# "We run Redis 6 for caching", "We're on Postgres 15", "We deploy with Argo CD", "We host on
# AWS"; or what one uses oneself ("I use vim for editing", "I'm on Arch", rewritten as
# "Dana uses …", "Dana is on …"), or another known person uses ("Ben uses vim", told by
# Dana). The thing is what it is for, or what the verb says, or the
# kind of the tool named. A value in lower case is one only when it is a known tool ("vim").
# A use told with its purpose ("We use Slack to talk to Acme") names no thing: no setting.
_WE_USE = re.compile(
    r"(?P<who>we|i|(?-i:[A-Z])[\w'’-]*(?P<others>\s+and\s+others)?)"
    r"(?:['’]re|['’]m|\s+are|\s+am|\s+is)?\s+"
    r"(?:(?:now|currently|still|also|mostly|mainly|already)\s+)?"
    r"(?P<verb>uses?|using|runs?|running|rel(?:y|ies)\s+on|on"
    r"|deploys?\s+(?:with|via|using|through|on|to)"
    r"|hosts?\s+(?:(?:it|everything|our\s+\w+|the\s+\w+)\s+)?(?:on|with|in|at))\s+"
    r"(?P<value>[A-Za-z0-9](?:(?!\s+(?:for|to)\s)[^.!?,;]|\.(?=\w))*?)"
    r"(?:\s+for\s+(?:our\s+|all\s+(?:of\s+)?our\s+)?"
    rf"(?P<thing>{_WORD}(?:\s+(?!{_SINCE}){_WORD}){{0,2}}))?"
    rf"(?:\s+{_SINCE})?\s*(?:[.!?]+\s*)?$",
    re.IGNORECASE,
)
# A tool named with what it is for and no verb, as an answer tells it ("Jenkins for CI",
# "Postgres 15 for the orders DB" to "What do we run CI and the orders DB on?"): the value a
# known tool or a capitalised name (each word capitalised or a number), the thing up to three
# words and no time ("for now", "for years").
_TOOL_FOR = re.compile(
    rf"(?P<value>{_WORD}(?:\s+{_WORD}){{0,2}}?)\s+for\s+(?:the\s+|our\s+)?"
    rf"(?!{_SINCE}|(?:a|an|ever|good|ages|years?|months?|weeks?|days?|\d+)\b)"  # "for now"
    rf"(?P<thing>{_WORD}(?:\s+(?!{_SINCE}){_WORD}){{0,2}})(?:\s+{_SINCE})?",
    re.IGNORECASE,
)
# Between the tools of such an answer: "Jenkins for CI, Postgres for the DB and Redis for …"
_LIST_BREAK = re.compile(r"\s*[,;]\s*(?:and\s+)?|\s+and\s+", re.IGNORECASE)
# Said first in a verbless "X for Y" that names no tool: "Thanks for the help", "Sorry for …"
_NO_TOOL = frozenset({"thanks", "thank", "sorry", "congrats", "congratulations", "cheers"})
# What a team runs, as the last word of what a tool of no known kind is for ("Acme for the
# billing service"); a meal or a place is for no such thing ("Pizza for dinner").
_RUN_THINGS = frozenset({"service", "services", "api", "app", "backend", "frontend", "cluster",
                         "pipeline", "logs", "logging", "tracing", "auth", "backups", "infra",
                         "dashboards", "alerts", "builds", "tests", "testing", "staging",
                         "prod", "production"})  # fmt: skip
# The kinds of thing a team uses a tool for: the words that name the thing, and the tools of
# the kind. What "We're on Postgres 15" is of, and what "We migrated to GCP" sets anew.
_KINDS: dict[str, tuple[frozenset[str], tuple[str, ...]]] = {
    "ci": (
        frozenset({"ci", "ci/cd", "ci runner", "ci pipeline", "ci server", "ci system",
                   "build server", "continuous integration"}),
        ("jenkins", "github actions", "gitlab ci", "circleci", "circle ci", "travis ci",
         "travis", "buildkite", "teamcity", "bamboo", "azure pipelines", "bitbucket pipelines",
         "concourse", "woodpecker"),
    ),
    "hosting": (
        frozenset({"hosting", "cloud provider"}),
        ("aws", "amazon web services", "gcp", "google cloud", "azure", "heroku", "digitalocean",
         "linode", "hetzner", "vercel", "netlify", "fly.io", "ovh"),
    ),
    "deploys": (
        frozenset({"deploys", "deploy", "deploying", "deployment", "deployments", "cd"}),
        ("argo cd", "argocd", "flux", "fluxcd", "spinnaker", "octopus deploy"),
    ),
    "orchestration": (
        frozenset({"orchestration", "container orchestration"}),
        ("kubernetes", "k8s", "nomad", "ecs", "eks", "gke", "aks", "docker swarm", "openshift"),
    ),
    "caching": (
        frozenset({"caching", "cache"}),
        ("redis", "memcached", "valkey", "varnish"),
    ),
    "database": (
        frozenset({"database", "db", "primary database", "primary db", "datastore"}),
        ("postgres", "postgresql", "mysql", "mariadb", "mongodb", "mongo", "sqlite",
         "cockroachdb", "dynamodb", "cassandra", "aurora", "sql server"),
    ),
    "queue": (
        frozenset({"queue", "queues", "queueing", "queuing", "message queue", "messaging",
                   "message broker"}),
        ("rabbitmq", "kafka", "sqs", "nats", "activemq", "pulsar"),
    ),
    "monitoring": (
        frozenset({"monitoring", "observability", "metrics", "alerting"}),
        ("datadog", "grafana", "prometheus", "new relic", "honeycomb"),
    ),
    # One's own tools, mostly: "I use vim for editing", "I'm on Arch"
    "editor": (
        frozenset({"editor", "editing", "text editor", "code editor", "ide", "coding"}),
        ("neovim", "nvim", "vim", "emacs", "vs code", "vscode", "visual studio code",
         "sublime text", "intellij", "pycharm", "webstorm", "goland", "helix", "zed", "xcode",
         "android studio", "notepad++"),
    ),
    "os": (
        frozenset({"os", "operating system", "distro", "linux distro"}),
        ("arch linux", "arch", "ubuntu", "debian", "fedora", "nixos", "manjaro", "gentoo",
         "linux mint", "macos", "mac os", "os x", "windows", "freebsd"),
    ),
    "shell": (frozenset({"shell"}), ("zsh", "bash", "fish shell", "powershell", "nushell")),
    "browser": (
        frozenset({"browser", "web browser"}),
        ("firefox", "chrome", "google chrome", "safari", "chromium", "vivaldi"),
    ),
    "chat": (
        frozenset({"chat", "team chat", "chat app", "instant messaging"}),
        ("slack", "microsoft teams", "ms teams", "discord", "mattermost", "zulip",
         "rocket.chat", "google chat"),
    ),
    "api client": (
        frozenset({"api client", "api testing", "http client"}),
        ("postman", "insomnia", "hoppscotch", "httpie"),
    ),
    "search": (
        frozenset({"search", "search engine", "full-text search"}),
        ("elasticsearch", "opensearch", "meilisearch", "typesense", "solr", "algolia"),
    ),
    "object storage": (
        frozenset({"object storage", "blob storage", "file storage"}),
        ("s3", "amazon s3", "aws s3", "google cloud storage", "gcs", "azure blob storage",
         "minio", "cloudflare r2", "backblaze b2"),
    ),
}  # fmt: skip
# Longest first, so "azure pipelines" is CI before "azure" is hosting.
_TOOLS = sorted(
    ((tool, kind) for kind, (_, tools) in _KINDS.items() for tool in tools),
    key=lambda tk: -len(tk[0]),
)
_TOOL_NAMES = frozenset(tool for tool, _ in _TOOLS)
# The words for a kind of thing, longest first ("ci pipeline" before "ci")
_KIND_WORDS = "|".join(
    re.escape(w).replace(r"\ ", r"\s+")
    for w in sorted((w for things, _ in _KINDS.values() for w in things), key=len, reverse=True)
)
# When a setting told holds, said after its value: "… on GitHub Actions now"
_TOLD_NOW = re.compile(
    r"(?:\s+(?:now|today|currently|these\s+days|nowadays|at\s+the\s+moment|anymore))+$",
    re.IGNORECASE,
)
# A kind of thing named bare, as a team says its own: "CI is on GitHub Actions now", "CI now
# runs on GitHub Actions", "CI runs on GitHub Actions these days"; not asked ("…?").
_KIND_RUNS_ON = re.compile(
    rf"(?P<subject>{_KIND_WORDS})\s+{_ADVERB}"
    r"(?:(?:is|are)(?:\s+now)?(?:\s+(?:on|(?:deployed|hosted|running|built)\s+(?:on|in|with)))?"
    r"|runs?\s+(?:on|in|with|via|using|through|at)|lives?\s+(?:on|in|at))\s+"
    r"(?P<value>(?-i:[A-Z0-9])(?:[^.!?,;]|\.(?=\w))*?)\s*[.!]*$",
    re.IGNORECASE,
)
# A known tool told as doing a kind of thing: "GitHub Actions handles CI now"
_TOOL_DOES = re.compile(
    rf"(?P<value>(?-i:[A-Z0-9]){_WORD}(?:\s+{_WORD}){{0,2}}?)\s+{_ADVERB}"
    r"(?:handles|runs|does|powers|covers|takes\s+care\s+of"
    r"|(?:is|are)\s+(?:now\s+)?(?:handling|running|doing|powering))\s+"
    rf"(?:(?:the|our|all\s+(?:of\s+)?our)\s+)?(?P<subject>{_KIND_WORDS})"
    r"(?:\s+(?:now|today|currently|these\s+days|nowadays|at\s+the\s+moment))*\s*[.!]*$",
    re.IGNORECASE,
)
# What opens a reply before the setting or change it tells: "Not anymore, CI now runs on …",
# "Actually we moved CI …", "Nope, our CI …"; a bare "No" without its comma denies ("No CI runs …")
_LEAD = re.compile(
    r"^(?:(?:(?:not\s+anymore|not\s+any\s+more|no\s+longer|nope|no|yes|yeah|yep|ok|okay|oh"
    r"|well|so|actually|anyway|update|fyi|btw|these\s+days|nowadays|now)\s*[,:;!.—–-]+"
    r"|actually|so|well|anyway|these\s+days|nowadays|now)\s+)+",
    re.IGNORECASE,
)
_DETERMINER = re.compile(r"^(?:the|our|my|their|its)\s+", re.IGNORECASE)
_ARTICLE = re.compile(r"^(?:a|an|the)\s+", re.IGNORECASE)
# "upgraded the staging DB (from Postgres 15) to Postgres 16", "moved the orders service's
# cache over to Memcached", "… onto MySQL"
_SET_TO = re.compile(
    r"\b(?:upgraded|downgraded|moved|migrated|switched|changed|bumped|updated|ported|converted)"
    r"\s+(?!over\s+(?:on)?to\s)"  # "moved over to MySQL" names no thing
    rf"(?P<subject>(?:{_OWNER}\s+)?(?:[\w.+#/-]+(?:['’]s)?\s+){{0,3}}?[\w.+#/-]+)\s+"
    r"(?:over\s+)?(?:from\s+(?P<old>[^.!?]+?)\s+)?(?:on)?to\s+(?P<value>(?-i:[A-Z0-9])[^.!?(]*)",
    re.IGNORECASE,
)
# "switched from Jenkins to GitHub Actions": the old value named, not the thing
_FROM_TO = re.compile(
    r"\b(?:moved|migrated|switched|changed|ported|converted)\s+(?:over\s+)?from\s+"
    r"(?P<old>[^.!?]+?)\s+(?:on)?to\s+(?P<value>(?-i:[A-Z0-9])[^.!?(]*)",
    re.IGNORECASE,
)
# "We migrated to GCP", "We upgraded to Postgres 16": the thing not named, but the kind of
# the value says it
_TO = re.compile(
    r"\b(?:upgraded|downgraded|moved|migrated|switched|changed|ported|converted)\s+"
    r"(?:over\s+)?(?:on)?to\s+(?P<value>(?-i:[A-Z0-9])[^.!?(]*)",
    re.IGNORECASE,
)
# The thing that moved, told as its sentence's subject before the verb: "The orders service
# moved to MySQL", "Our API was migrated from AWS to GCP"
_MOVED = re.compile(
    rf"(?P<subject>{_OWNER}\s+(?:[\w.+#/-]+(?:['’]s)?\s+){{0,3}}?[\w.+#/-]+|{_KIND_WORDS})"
    r"(?:\s+(?:was|were|got|has|have|had|been|just|finally|already|recently|also|\w+ly))*\s*",
    re.IGNORECASE,
)
# What a clause may open with before the thing that moved, besides a time `resolve` finds
# ("Yesterday", "Last week", "On Monday"): what it moved after or during, up to a thing told
# as someone's ("After the outage the orders service", "Over the weekend our API").
_AFTER_WHAT = re.compile(
    rf"(?:after|before|since|following|during|over|once)\s+(?:[\w'’-]+\s+){{1,3}}?(?={_OWNER}\s)",
    re.IGNORECASE,
)
# Any day will do: only where a time is told is wanted, not when it falls.
_ANY_DAY = datetime(2000, 1, 1, tzinfo=UTC)
# Words that make what is told before a verb a clause, not a thing: "The next day we moved …"
_PRONOUNS = frozenset({"i", "we", "you", "he", "she", "they"})
_SWAPPED = r"(?:swapped|replaced|traded|exchanged)"
# "swapped my ThinkPad for a MacBook Air", "replaced Jenkins with GitHub Actions"
_SWAP = re.compile(
    rf"\b{_SWAPPED}\s+(?P<old>[^.!?]+?)\s+(?:for|with)\s+"
    r"(?P<value>(?:(?:a|an|the)\s+)?(?-i:[A-Z0-9])[^.!?(]*)",
    re.IGNORECASE,
)
# "Jenkins was replaced with (or by) GitHub Actions", told at the start of its sentence
_SWAPPED_PASSIVE = re.compile(
    r"(?:^|(?<=[.!?;]\s))(?P<old>[^.!?;,]+?)\s+(?:was|were|got|has\s+been|have\s+been)\s+"
    rf"{_SWAPPED}\s+(?:for|with|by)\s+(?P<value>(?:(?:a|an|the)\s+)?(?-i:[A-Z0-9])[^.!?(]*)",
    re.IGNORECASE,
)
# What a change of no thing named was for, told after its new value: a thing named as ours
# or the one ("… to VS Code for the frontend repo", "… for Dana's laptop") or a kind ("… for
# CI", "… for editing"), read as the thing changed; a purpose ("… for cost reasons", "… for
# good") is none.
_FOR = re.compile(
    r"\s+for\s+(?P<whose>(?:the|our|my|all\s+(?:of\s+)?our|[\w]+['’]s)\s+)?"
    rf"(?P<thing>{_WORD}(?:\s+(?!{_SINCE}){_WORD}){{0,2}}?)"
    r"(?:\s+(?:now|today|yesterday|last\s+\w+|this\s+\w+|recently|in\s+\w+|on\s+\w+)\b.*)?$",
    re.IGNORECASE,
)
# What a tool is used or changed "for" that is no thing but a time or a purpose: "for the time
# being", "for the speed", "for performance"
_NO_THING = re.compile(
    r"(?:time being|moment|rest|foreseeable future|speed|performance|price|pricing|costs?"
    r"|savings|reliability|stability|simplicity|scalability|scale|latency|features|ecosystem"
    r"|uptime|convenience)\b",
    re.IGNORECASE,
)
# Told before the verb in its sentence, the change was not made: "never upgraded", "didn't",
# "nobody", "almost", "should have upgraded", "if we upgraded", or asked about.
_NOT_DONE = re.compile(
    r"\b(?:never|not|no one|nobody|none|hardly|barely|almost|nearly|if|unless|whether|should|"
    r"would|could|might|must|may)\b|n['’]t\b",
    re.IGNORECASE,
)
# Told after it: undone since ("... but rolled it back", "then reverted").
_UNDONE = re.compile(
    r"\b(?:rolled\s+(?:\w+\s+)?back|reverted|undid|undone|went\s+back)\b", re.IGNORECASE
)
# Whose thing a change is of when a pronoun says it: the one who made it ("Bob upgraded his
# laptop"), else someone unnamed ("the infra team upgraded their staging DB").
_THEIRS = re.compile(r"^(?:his|her|their|its)\s+", re.IGNORECASE)
_SOMEONE = "?"
# Who made a change, told just before its verb: names ("Acme", "Ana and Ben", "Ana and others"
# as "we" is rewritten) or someone's team ("Priya's team"), then words like "just", "has".
_ACTOR = re.compile(
    r"(?:(?P<whose>(?-i:[A-Z])[\w&-]*)['’]s\s+[a-z]+"
    r"|(?P<names>(?-i:[A-Z])[\w&-]*(?:(?:\s+|\s*,\s*|\s+and\s+|\s*&\s*)(?-i:[A-Z])[\w&-]*)*)"
    r"(?:\s+and\s+others)?)"
    r"(?:\s+(?:has|have|had|just|finally|already|recently|also|then|\w+ly))*\s*$"
)
# Capitalised words that start a sentence without naming anyone.
_NOT_NAMES = frozenset(
    {
        "i", "we", "they", "he", "she", "it", "you", "this", "that", "these", "those", "then",
        "so", "and", "but", "also", "yesterday", "today", "last", "next", "the", "a", "an",
        "after", "before", "finally", "eventually", "recently", "actually", "anyway", "well",
        "update", "fyi", "btw", "ok", "okay", "yes", "yeah", "yep", "nope", "no", "oh",
    }
)  # fmt: skip


@dataclass(frozen=True)
class Setting:
    subject: str  # casefolded, without its determiner: "staging db", "ana's laptop"
    value: str  # casefolded: "postgres 15", "thinkpad x1"
    owner: str | None  # whose thing, when named ("ana"; "my laptop" is its speaker's)
    # a tool its owner, the speaker, told they use themselves ("I use vim for editing"):
    # another's of the same thing is another thing, and only the owner's own change ends it
    own: bool = False


@dataclass(frozen=True)
class Change:
    # what was changed, or what it was for ("… to VS Code for the frontend repo"); None when
    # neither is told ("We migrated to GCP", "Replaced Jenkins with GitHub Actions")
    subject: str | None
    old: str | None  # the value it had, when told
    value: str  # the value it has now
    owner: str | None  # whose thing it is, when named ("Ana's", "Bob upgraded his"); "?": unnamed
    # told with a pronoun ("his", "their"): of that owner's own thing, and of no other
    theirs: bool = False
    # who made it, when one name told before its verb says so ("Dana switched …", "Dana and
    # others moved …": "I" and "we" as rewritten), casefolded
    by: str | None = None


# "our", as chat rewrites it: "Dana and others' staging DB" is the group's, as "we" is.
_GROUPS = re.compile(r"\b(?-i:[A-Z])[\w-]*\s+and\s+others['’](?=\s)")


def _ours(text: str) -> str:
    """`text` with a group's thing told as "our" again, the word the patterns here read."""
    return _GROUPS.sub("our", text)


def _words(text: str) -> str:
    return " ".join(text.casefold().split())


def _subject(raw: str, speaker: str | None) -> str:
    """A thing's name as compared: what one says of "our" thing (its speaker's, once
    rewritten) is the team's, the same as "the" thing."""
    raw = raw.strip()
    owner, _, rest = raw.partition(" ")
    if (
        speaker
        and rest
        and owner.casefold() in (f"{speaker}'s".casefold(), f"{speaker}’s".casefold())
    ):
        raw = rest
    return _words(_DETERMINER.sub("", raw))


def _value(raw: str) -> str:
    return _words(_ARTICLE.sub("", raw.strip().rstrip(",;:")))


def _current(raw: str) -> str:
    """A setting's value without when it is told to hold: "GitHub Actions now" -> github actions."""
    return _value(_TOLD_NOW.sub("", raw.strip().rstrip(".!,;:")))


def setting(
    text: str, speaker: str | None, people: Collection[str] = (), *, answer: bool = False
) -> Setting | None:
    """(what, value) of a setting told as one, or None. `people`: who the memory knows; what
    one of them uses, told by another ("Ben uses vim", said by Dana), is their own setting.
    An `answer` to a question may name a tool and what it is for with no verb ("Jenkins for
    CI"): what the group uses, as "We use Jenkins for CI" tells it."""
    text = _ours(text)
    if answer and len(told := tools_for(text)) == 1:
        m = _TOOL_FOR.fullmatch(told[0])
        assert m is not None  # tools_for gives only what it matches
        return Setting(_subject(m["thing"], speaker), _value(m["value"]), None)
    text = _LEAD.sub("", text)
    m = _SETTING.match(text) or _RUNS_ON.match(text)
    if m is not None:
        owner = m["owner"].casefold() if m["owner"] else None
        return Setting(_subject(m["subject"], speaker), _current(m["value"]), owner)
    m = _KIND_RUNS_ON.match(text) or _TOOL_DOES.match(text)
    if m is not None:
        value = _current(m["value"])
        # a known tool, or one spelt as a product ("Drone CI"); "Deploying is on Fridays" is none
        if _tool_kind(value) is not None or (
            m.re is _KIND_RUNS_ON and any(PRODUCT_NAME.fullmatch(w) for w in m["value"].split())
        ):
            return Setting(_subject(m["subject"], speaker), value, None)
        return None
    m = _NAMED_AS.match(text)
    if m is not None:
        owner = m["owner"].casefold() if m["owner"] else None
        said = Setting(_subject(m["subject"], speaker), _value(m["value"]), owner)
        known = _thing(said.subject) in _KINDS or _tool_kind(said.value) is not None
        return said if known else None
    m = _WE_USE.match(text)
    if m is None:
        return None
    who = m["who"].casefold()
    own = not m["others"] and who != "we"
    if who == "i":
        who = speaker.casefold() if speaker else who
    known = _us(speaker, people)
    if own and who not in known:
        return None  # what someone not known uses, told by another: "Priya uses vim"
    value = _value(m["value"])
    if m["value"][0].islower() and _tool_kind(value) is None:
        return None  # "We use it for CI", "I'm on vacation"
    verb = m["verb"].casefold()
    if verb.startswith("deploy"):
        thing = "deploys" if verb.split()[-1] in ("with", "via", "using", "through") else "hosting"
    elif verb.startswith("host"):
        thing = "hosting"
    elif m["thing"] and not _NO_THING.match(_DETERMINER.sub("", m["thing"])):
        thing = _words(_DETERMINER.sub("", m["thing"]))
    elif (kind := _tool_kind(value)) is not None:
        thing = kind
    elif _versioned(value) and value[0].isalpha() and _thing(value.split()[0]) not in _KINDS:
        thing = value.split()[0]  # "We're on Foo 2": the product is the thing
    else:
        return None  # "We use Slack", "I run 5 miles a day": no thing said or known
    if own:
        return Setting(thing, value, who, own=True)
    return Setting(thing, value, None)


def tools_for(text: str) -> list[str]:
    """The parts of a verbless answer that each name a tool and what it is for ("Jenkins for
    CI, Postgres 15 for the orders DB": both), or none unless every part does. A tool is a
    known one or a capitalised name ("Thanks for the help" names none)."""
    parts = [p for p in _LIST_BREAK.split(text.strip().rstrip(".!")) if p]
    for part in parts:
        m = _TOOL_FOR.fullmatch(part)
        if m is None or _NO_THING.match(m["thing"]):
            return []
        if not _tool_told_for(m["value"], _subject(m["thing"], None)):
            return []
    return parts


def _tool_told_for(value: str, thing: str) -> bool:
    """Whether a verbless "value for thing" names a tool: a known one ("Jenkins for CI"), or
    a capitalised name ("Postgres 15") for a known purpose or a thing a team runs ("Zeta for
    the orders DB", "Acme for the billing service") or spelt as a product ("PgBouncer for
    pooling"). Not "We use it for CI" (a verb), "Thanks for the help", "Pizza for dinner"."""
    if _tool_kind(_value(value)) is not None:
        return True
    words = value.split()
    if not all(w[0].isupper() or w[0].isdigit() for w in words) or words[0].casefold() in _NO_TOOL:
        return False
    return (
        _kind_of(thing) is not None
        or thing.split()[-1] in _RUN_THINGS
        or any(PRODUCT_NAME.fullmatch(w) for w in words)
    )


def same_thing(a: Setting, b: Setting) -> bool:
    """Whether two settings are of one thing: the same name, or words for the same kind of
    thing ("Our CI is Jenkins", "We use GitHub Actions for CI", "We're on CircleCI"); one's own
    tool is of one's own thing ("I use vim" and "I use VS Code now", said by one person)."""
    if (a.own, a.own and a.owner) != (b.own, b.own and b.owner):
        return False
    return _thing(a.subject) == _thing(b.subject)


def replaces(said: Setting, before: Setting) -> bool:
    """Whether `said`, told later, sets anew what `before` said: another value of the same
    thing, unless the thing uses tools of many kinds and these two are of different ones
    ("We use Redis for the orders service" leaves "We use Postgres for the orders service"
    standing, "We use MySQL for the orders service" ends it)."""
    if not same_thing(before, said) or before.value == said.value:
        return False
    return not _beside(before.subject, before.value, said.value)


def _beside(subject: str, value: str, other: str) -> bool:
    """Whether two values of one thing stand side by side: the thing is not itself of a kind
    (a service, a project, work, not CI or the staging DB) and the values are tools of
    different kinds (Postgres a database, Redis a cache). No known kind counts as a kind of its
    own: nothing tells "GitHub" or "Supabase" to be a database, so neither ends Postgres nor is
    ended by it, while two values of no known kind ("Obsidian", then "Notion"; "a ThinkPad",
    then "a MacBook Air") set a thing anew, as one of one value is."""
    if _kind_of(subject) is not None:
        return False
    return _tool_kind(value) != _tool_kind(other)


def sought(told: Setting | Change) -> str:
    """The words a setting that `told` may set anew holds, some of them: the thing and the
    old value named, and the words and tools of their kind ("We migrated to GCP" may end
    "We host on AWS")."""
    subject = told.subject or ""
    old = told.old if isinstance(told, Change) else None
    words = [subject, old or "", told.value.split()[0] if told.value else ""]
    kinds = {_thing(subject), _tool_kind(told.value), _tool_kind(old or "")}
    for kind in kinds & _KINDS.keys():
        things, tools = _KINDS[kind]
        words += [*things, *tools]
    return " ".join(w for w in words if w)


def _thing(subject: str) -> str:
    """The kind a thing's name is a word for ("db" is the database), else the name."""
    return next((k for k, (things, _) in _KINDS.items() if subject in things), subject)


def _kind_of(subject: str) -> str | None:
    """The kind a thing is by its name, or by the last words of it ("the staging db" is a
    database, "the build queue" a queue), else None ("the orders service", "work")."""
    thing = _thing(subject)
    if thing in _KINDS:
        return thing
    return next(
        (k for k, (things, _) in _KINDS.items() for t in things if subject.endswith(" " + t)),
        None,
    )


def _tool_kind(value: str) -> str | None:
    """The kind of the tool a value starts with ("github actions yesterday": CI)."""
    return next((k for t, k in _TOOLS if value == t or value.startswith(t + " ")), None)


def is_tool(name: str) -> bool:
    """Whether `name` is a tool of a kind told here ("Jenkins", "Kafka", "New Relic"), whatever
    its case: a product, no person."""
    return name.casefold() in _TOOL_NAMES


def _versioned(value: str) -> bool:
    """Whether a value names a version: "postgres 15", "python 3.12", "v2"."""
    return re.search(r"\bv?\d", value) is not None


def change(text: str, speaker: str | None, people: Collection[str] = ()) -> Change | None:
    """What a change told as something done sets anew, or None (a change denied, hedged,
    asked about or undone since: "We never upgraded …", "Should we migrate …?"). `people`:
    who is one of us (the conversation's speakers); a change anyone else named made is of
    their own thing unless it says ours."""
    text = _ours(text)
    m = _FROM_TO.search(text)
    if m is not None:
        return _swap(text, m, speaker, people) if _done(text, m) else None
    m = _SET_TO.search(text)
    if m is not None:
        if not _done(text, m):
            return None
        raw = m["subject"].strip()
        owner, theirs = _owner(raw, text, m.start(), speaker)
        if owner is None and not _possessed(raw):
            owner, theirs = _actor(text, m, speaker, people)
        raw = _THEIRS.sub("", raw)
        old = _value(m["old"]) if m["old"] else None
        by = _by(text, m, speaker)
        return Change(_subject(raw, speaker), old, _value(m["value"]), owner, theirs, by)
    m = _TO.search(text)
    if m is not None:
        if not _done(text, m):
            return None
        moved = _moved(text, m, _us(speaker, people))
        if moved is not None:  # "The orders service moved to MySQL"
            owner, theirs = _owner(moved, text, m.start(), speaker)
            thing = _subject(_THEIRS.sub("", moved), speaker)
            return Change(thing, None, _value(m["value"]), owner, theirs)
        owner, theirs = _actor(text, m, speaker, people)
        thing, value = _for(m["value"], speaker)
        return Change(thing, None, value, owner, theirs, _by(text, m, speaker))
    m = _SWAP.search(text) or _SWAPPED_PASSIVE.search(text)
    if m is None or not _done(text, m):
        return None
    return _swap(text, m, speaker, people)


def _swap(text: str, m: re.Match[str], speaker: str | None, people: Collection[str]) -> Change:
    """A change that names the old value and the new, not the thing that had it unless it
    says what the change was for ("… to VS Code for the frontend repo")."""
    old = m["old"].strip()
    owner, theirs = _owner(old, text, m.start(), None)
    by = None
    if m.re is not _SWAPPED_PASSIVE:
        by = _by(text, m, speaker)
        if owner is None and not _possessed(old):
            owner, theirs = _actor(text, m, speaker, people)
    old = re.sub(r"^(?:(?:the|our|my|their|its|his|her|a|an)|[\w]+['’]s)\s+", "", old, flags=re.I)
    thing, value = _for(m["value"], speaker)
    moved = _moved(text, m, _us(speaker, people)) if m.re is _FROM_TO and thing is None else None
    if moved is not None:  # "The billing API moved from Postgres to MySQL": of that thing
        owner, theirs = _owner(moved, text, m.start(), speaker)
        thing = _subject(_THEIRS.sub("", moved), speaker)
    return Change(thing, _value(old), value, owner, theirs, by)


def _moved(text: str, m: re.Match[str], us: set[str]) -> str | None:
    """The thing told as what moved, when the clause before the verb `m` matched is that
    thing alone ("The orders service", "Our API was"), as told; not one who moved it ("The
    next day Ana", `us` casefolded, or "… we")."""
    before, _ = _sentence(text, m.start(), m.end())
    found = _MOVED.fullmatch(_untimed(re.split(r"[,:(]\s*|\)\s*", before)[-1]))
    if found is None or (_PRONOUNS | us) & set(found["subject"].casefold().split()):
        return None
    return found["subject"]


def _untimed(clause: str) -> str:
    """A clause without when it opens with: "Yesterday the orders service", "After the outage
    the orders service" -> the orders service."""
    spans = resolve(clause, _ANY_DAY)
    if spans and clause.casefold().startswith(spans[0].phrase.casefold()):
        clause = clause[len(spans[0].phrase) :].lstrip(" ,")
    lead = _AFTER_WHAT.match(clause)
    return clause[lead.end() :] if lead else clause


def _us(speaker: str | None, people: Collection[str]) -> set[str]:
    """Who is one of us, casefolded: the people given and the speaker."""
    return {p.casefold() for p in people} | ({speaker.casefold()} if speaker else set())


def _for(raw: str, speaker: str | None) -> tuple[str | None, str]:
    """The thing a change of none named was for, if it says ("VS Code for the frontend repo":
    the frontend repo), and its new value without it."""
    m = _FOR.search(raw)
    if m is None or _NO_THING.match(m["thing"]):
        return None, _value(raw)
    thing = _subject(f"{m['whose'] or ''}{m['thing']}", speaker)
    if not m["whose"] and _thing(thing) not in _KINDS:
        return None, _value(raw)  # a purpose: "for cost reasons", "for good"
    return thing, _value(raw[: m.start()])


def _by(text: str, m: re.Match[str], speaker: str | None) -> str | None:
    """Who made the change `m` matched, when one name (or "I", "we": the speaker) is told
    just before its verb."""
    before, _ = _sentence(text, m.start(), m.end())
    clause = re.split(r"[,:(]\s*|\)\s*", before)[-1]
    if re.fullmatch(r"\s*(?:i|we)\s+(?:\w+ly\s+|just\s+|finally\s+|also\s+)*", clause, re.I):
        return speaker.casefold() if speaker else None
    found = _ACTOR.search(clause)
    if found is None or not found["names"]:
        return None
    names = [w for w in found["names"].split() if w.casefold() not in _NOT_NAMES]
    return names[0].casefold() if len(names) == 1 else None


def _possessed(raw: str) -> bool:
    """Whether what was changed is told as someone's ("our CI", "their CI", "Acme's CI")."""
    return re.match(r"(?:(?:our|my|his|her|their|its)|[\w]+['’]s)\s", raw, re.I) is not None


def _actor(
    text: str, m: re.Match[str], speaker: str | None, people: Collection[str]
) -> tuple[str | None, bool]:
    """Whose thing a change of no one's named thing is: the one who made it, when named and
    not one of us ("Acme replaced Jenkins …", "Priya's team moved the CI …") and the sentence
    does not say it was ours ("… in our pipeline", the speaker's and others'); else the
    team's (None)."""
    before, after = _sentence(text, m.start(), m.end())
    us = _us(speaker, people)
    ours = r"\bour\b" + (rf"|\b{re.escape(speaker)}(?:['’]s|\s+and\s+others)\b" if speaker else "")
    if re.search(ours, m[0] + after):
        return None, False
    found = _ACTOR.search(re.split(r"[,:(]\s*|\)\s*", before)[-1])
    if found is None:
        return None, False
    if found["whose"]:
        whose = found["whose"].casefold()
        return (None, False) if whose in us else (whose, True)
    names = [n.casefold() for n in re.split(r"\s*(?:,|&|\band\b)\s*", found["names"]) if n.strip()]
    # "Yesterday Acme": what starts a sentence is no one
    names = [" ".join(w for w in n.split() if w not in _NOT_NAMES) for n in names]
    names = [n for n in names if n]
    if not names or any(n in us for n in names):
        return None, False
    return names[-1], True


def _sentence(text: str, start: int, end: int) -> tuple[str, str]:
    """What the sentence holding text[start:end] says before and after it."""
    before = re.split(r"[.!?;]\s", text[:start])[-1]
    after = re.split(r"[.!?;](?:\s|$)", text[end:])[0]
    return before, after


def _done(text: str, m: re.Match[str]) -> bool:
    before, after = _sentence(text, m.start(), m.end())
    before = _LEAD.sub("", before)  # "Not anymore, we moved CI …" denies what was, not the move
    asked = "?" in re.split(r"[.!;](?:\s|$)", text[m.start() :])[0]
    return not (asked or _NOT_DONE.search(before) or _UNDONE.search(m.group(0) + after))


def _owner(raw: str, text: str, verb: int, speaker: str | None) -> tuple[str | None, bool]:
    """Whose thing `raw` (what was changed, as told) is, if someone's other than the
    speaker's (team's), and whether a pronoun said so."""
    named = re.match(r"([\w]+)['’]s\s+", raw)
    if named is not None:
        owner = named[1].casefold()
        return (None if speaker and owner == speaker.casefold() else owner), False
    if not _THEIRS.match(raw):
        return None, False
    actor = _sentence(text, verb, verb)[0].strip()
    if re.fullmatch(r"(?-i:[A-Z])[\w'’-]*", actor) and actor.casefold() not in ("i", "we"):
        return actor.casefold(), True
    return _SOMEONE, True


def changes(done: Change, before: Setting) -> bool:
    """Whether `done` sets anew what `before` said: the same thing (or the thing holding the
    old value a swap names) now has another value."""
    if before.value == done.value or before.value.startswith(done.value + " "):
        return False  # told again, not changed
    # One's own tool is ended only by a change its owner made, alone or as one of "we" ("We
    # switched to VS Code", said by Dana, ends her vim), and one told for a thing ("… for the
    # frontend repo") is of that thing: it ends her tool only if it is her tool for that thing
    # (or kind, "… for editing"), below, as it ends the team's.
    if before.own and done.by != before.owner:
        return False
    if done.owner == _SOMEONE or (done.theirs and before.owner != done.owner):
        return False  # someone else's own thing: "Acme upgraded their staging DB"
    if done.owner is not None and before.owner not in (None, done.owner):
        return False  # someone else's ThinkPad
    if done.subject is None and done.old is not None:  # a swap names the old value
        return _was(before.value, done.old)
    if done.subject is None:  # "We migrated to GCP": what was of the same kind
        versions = _versioned(before.value) and _versioned(done.value)
        if versions and before.value.split()[0] == done.value.split()[0]:
            return True  # "postgres 15", now "postgres 16"
        kind = _tool_kind(done.value)
        return kind is not None and _thing(before.subject) == kind
    if _thing(done.subject) == _thing(before.subject):
        # a thing of many tools: the one the change names as old, else one of the new kind
        was = done.old is not None and _was(before.value, done.old)
        return was or not _beside(before.subject, before.value, done.value)
    # "We moved the orders service DB to MySQL" (or to Supabase, but not to GCP): a thing's
    # part of a kind is its tool of that kind
    part = _part(done.subject, before.subject)
    if part is not None:
        if done.old is not None:
            return _was(before.value, done.old)
        return _tool_kind(before.value) == part and _tool_kind(done.value) in (part, None)
    # "We upgraded Redis to 7": the thing named by its old value, given another version
    if _was(before.value, done.subject) and re.match(r"v?\d", done.value):
        return before.value != f"{done.subject} {done.value}"
    # "staging" of "the staging DB": one name inside the other, and the values alike
    if not _inside(done.subject, done.owner, before):
        return False
    if done.old is not None:
        return _was(before.value, done.old)
    return before.value.split()[0] == done.value.split()[0]


def _inside(subject: str, owner: str | None, before: Setting) -> bool:
    """Whether the name of a thing changed (`subject`, `owner`'s) holds that of `before`'s
    thing or is held in it, the two one owner's: "staging" is of "staging db", and "staging
    db" (Bob's, as Bob upgraded "his") of "bob's staging db", but "acme's orders service" and
    "client's orders service" are not our "orders service"."""
    if f" {subject} " in f" {before.subject} ":
        inner, outer = subject, before.subject
    elif f" {before.subject} " in f" {subject} ":
        inner, owner, outer = before.subject, before.owner, subject
    else:
        return False
    whose = _possessor(outer)
    return whose is None or whose in (owner, _possessor(inner))


def _possessor(name: str) -> str | None:
    """Whose a thing's name says it is ("acme's orders service": acme), else None."""
    m = re.match(r"([\w]+)['’]s\s", name)
    return m[1].casefold() if m else None


def _part(subject: str, thing: str) -> str | None:
    """The kind of the part of `thing` that `subject` names ("orders service db" and
    "orders service's cache" of "orders service": its database, its cache), else None."""
    for joint in (" ", "'s ", "’s "):
        if subject.startswith(thing + joint):
            part = _thing(subject[len(thing + joint) :])
            return part if part in _KINDS else None
    return None


def _was(value: str, old: str) -> bool:
    """Whether a setting's value is the old one a change names ("jenkins" of "jenkins 2")."""
    return value == old or value.startswith(old + " ")

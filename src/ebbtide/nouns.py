"""Nouns that name one thing in an engineering team's talk ("the deploy", "the release", "the
rollout"), so that one action told with either ("Roll back the deploy" / "We rolled back the
release") is read as one action. A hand list, kept small and explicit, as `verbs` is: a noun
of other senses in everyday talk ("ship", a vessel; "pipeline", of data or of CI; "setting", a
place) is left out, as a wrong match joins two decisions and mixes their outcomes. Pure
functions over the roots `text.root` gives."""

from __future__ import annotations

from .text import root

# Each group: the words for one thing, as said. A shortening is listed though it also starts
# its long form ("repo", "repository"): the lists say what is one thing, not how it is spelt.
_GROUPS = (
    "deploy, deployment, release, rollout",
    "db, dbs, database",
    "config, configuration, settings",
    "repo, repository",
    "env, environment",
    "svc, service",
    "docs, documentation",
)
# Each word's root, to the root of the first word of its group.
_KEYS = {
    root(word.strip()): root(group.split(",")[0].strip())
    for group in _GROUPS
    for word in group.split(",")
}


def key(word_root: str) -> str:
    """The one root for a noun's root and those of its synonyms ("releas" -> "deploy"); any
    other root as it is."""
    return _KEYS.get(word_root, word_root)


def same(a: str, b: str) -> bool:
    """Whether two nouns' roots name one thing ("deploy", "releas"; "db", "databas")."""
    return key(a) == key(b)

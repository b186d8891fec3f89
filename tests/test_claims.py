"""The record a note's claims keep on links: who says a link, and a retraction told apart from
a person's ending of it."""

from __future__ import annotations

from datetime import UTC, datetime

from hypothesis import given
from hypothesis import strategies as st

from ebbtide import claims
from ebbtide.model import Node, new_edge

NOW = datetime(2026, 11, 2, tzinfo=UTC)
names = st.text(st.characters(blacklist_characters="\n"), min_size=1, max_size=30).filter(
    lambda s: s.strip() == s and s
)
others = names.filter(lambda s: "|" not in s)  # what else a link's context says


def link(context: str | None = None):
    return new_edge("a", "b", "caused", 0.8, NOW, context=context)


@given(st.lists(names, min_size=1, max_size=5, unique=True), st.one_of(st.none(), others))
def test_the_notes_a_link_is_said_in_come_back_as_written_beside_other_context(notes, other):
    said = claims.with_sayers(link(other), notes)
    assert claims.sayers(said) == notes
    assert (other is None) or other in (said.context or "")


def test_a_retraction_is_told_apart_from_a_persons_ending_and_undone_without_its_words():
    ended = link("said in pm.md | disproved by on-call").model_copy(update={"valid_to": NOW})
    assert not claims.retracted(ended)
    gone = link("said in pm.md | no longer said in pm.md").model_copy(update={"valid_to": NOW})
    assert claims.retracted(gone)
    back = claims.restored(gone)  # no note says it until the one saying it again is listed
    assert (back.valid_to, back.context, claims.sayers(back)) == (None, None, [])
    kept = link("said in pm.md | disproved? no | no longer said in pm.md")
    assert claims.restored(kept).context == "disproved? no"


def test_a_node_is_a_notes_own_when_every_source_is_in_that_note():
    note = Node(id="d", kind="document", text="PM", created_at=NOW, updated_at=NOW,
                sources=["pm.md"])  # fmt: skip
    owned = claims.owned_by(note, ["pm.md#fix"])

    def node(*sources: str) -> Node:
        return note.model_copy(update={"id": "n", "sources": list(sources)})

    assert owned(node("pm.md#root-cause", "pm.md"))
    assert not owned(node("pm.md#root-cause", "m1"))
    assert not owned(node("pm.mdx"))
    assert not owned(node())


def test_a_note_from_a_folder_is_said_in_by_its_path_there_and_takes_over_its_bare_name():
    note = Node(
        id="md-1", kind="document", text="Postmortem", sources=["pm.md"],
        attributes={"folder": "/srv/notes", "path": "pm.md"}, created_at=NOW, updated_at=NOW,
    )  # fmt: skip
    assert claims.where(note) == "/srv/notes/pm.md"
    said = claims.said_by(claims.with_sayers(link(), ["pm.md", "/other/pm.md"]), note)
    assert claims.sayers(said) == ["/other/pm.md", "/srv/notes/pm.md"]
    assert claims.said_by(said, note) == said
    above = note.model_copy(update={"attributes": {"folder": "/srv", "path": "notes/pm.md"}})
    assert claims.names(above) == {"/srv/notes/pm.md"}  # "pm.md" may be another file's now
    assert claims.names(above, ["/old/pm.md"]) == {"/srv/notes/pm.md", "/old/pm.md"}


def test_a_link_no_note_is_listed_for_keeps_the_rest_of_its_context():
    said = link("said in a.md | disproved? no")
    assert claims.with_sayers(said, []).context == "disproved? no"
    assert claims.with_sayers(link("said in a.md"), []).context is None


def test_a_note_whose_path_holds_the_separators_is_listed_and_retracted_whole():
    odd = "/notes; old | drafts/100%3B.md"
    said = claims.with_sayers(link(), [odd, "b.md"])
    assert claims.sayers(said) == [odd, "b.md"]
    gone = link(claims.retraction(odd))
    assert claims.retracted(gone) and claims.restored(gone).context is None

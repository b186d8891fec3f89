"""Spreading over a neighbourhood read from the store, with some of it read ahead."""

from __future__ import annotations

from datetime import UTC, datetime

from hypothesis import given, settings
from hypothesis import strategies as st

from ebbtide.config import Config
from ebbtide.graph import ReadAhead, spread_from
from ebbtide.model import Edge, Node
from ebbtide.store import SearchFilter, open_store

T0 = datetime(2026, 1, 1, tzinfo=UTC)
NAMES = "abcdefgh"
RELATIONS = ("related", "caused", "prevented", "about")

edges = st.lists(
    st.tuples(st.sampled_from(NAMES), st.sampled_from(NAMES), st.sampled_from(RELATIONS)),
    max_size=20,
    unique_by=lambda e: (e[0], e[1], e[2]),
).map(lambda es: [e for e in es if e[0] != e[1]])


@settings(max_examples=60, deadline=None)
@given(
    links=edges,
    seeds=st.sets(st.sampled_from(NAMES), min_size=1, max_size=4),
    ahead_of=st.sets(st.sampled_from(NAMES), max_size=8),
    hops=st.integers(1, 2),
    direction=st.sampled_from(["both", "forward", "backward"]),
    archived=st.sets(st.sampled_from(NAMES), max_size=3),
    reach=st.sampled_from([None, SearchFilter()]),
)
def test_edges_read_ahead_give_the_same_spreading_as_reading_them_then(
    links, seeds, ahead_of, hops, direction, archived, reach
):
    store = open_store(":memory:")
    for name in NAMES:
        status = "archived" if name in archived else "active"
        store.add_node(
            Node(id=name, kind="note", text=name, status=status, created_at=T0, updated_at=T0)
        )
    for i, (src, dst, relation) in enumerate(links):
        store.add_edge(
            Edge(
                id=f"e{i}",
                src=src,
                dst=dst,
                relation=relation,
                weight=0.5 + i / 40,
                created_at=T0,
                last_reinforced_at=T0,
            )
        )
    config, now = Config(), T0.timestamp() + 86_400
    relations = frozenset({"related", "caused", "prevented"})
    # What recall reads ahead: every edge of the asked relations around some nodes, both ways.
    ahead = ReadAhead(
        frozenset(ahead_of), store.adjacent(sorted(ahead_of), relations=relations, reach=reach)
    )
    start = {s: 1.0 for s in sorted(seeds)}
    kw = {"direction": direction, "hops": hops, "relations": relations, "reach": reach}
    _, read_then = spread_from(store, start, config, now, **kw)
    _, read_before = spread_from(store, start, config, now, ahead=ahead, **kw)
    store.close()
    assert {r.node_id: round(r.activation, 9) for r in read_then} == {
        r.node_id: round(r.activation, 9) for r in read_before
    }
    assert {r.node_id: r.hops for r in read_then} == {r.node_id: r.hops for r in read_before}
    if reach is not None:  # an archived node is only ever where spreading starts
        assert {r.node_id for r in read_then if r.hops > 0}.isdisjoint(archived - seeds)

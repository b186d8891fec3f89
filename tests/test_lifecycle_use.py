"""Knowledge in use stays findable, and knowledge left unused while the rest is used fades,
however large a hub is: a person linked to everything said in a conversation gathers the
strength of all its links, and neither sets the yardstick of tiers nor hides the rest."""

from __future__ import annotations

from datetime import timedelta

import pytest

from ebbtide import open_memory


@pytest.fixture
def memory(tmp_path, clock):
    with open_memory(tmp_path / "memory.db", clock=clock, embeddings="none") as mem:
        yield mem


@pytest.fixture
def with_hub(memory):
    ana = memory.remember("Ana", "person")
    for i in range(200):
        memory.connect(memory.remember(f"Ana said fact number {i}").id, ana.id, "about")
    return memory


def test_a_note_recalled_every_day_stays_findable_beside_a_hub(with_hub, clock):
    memory = with_hub
    note = memory.remember("The deploy checklist lives in ops/deploy.md")
    for _ in range(60):
        clock.advance(days=1)
        hits = memory.recall("deploy checklist").hits
        assert [h.node.id for h in hits][:1] == [note.id]
    memory.maintain()
    assert memory.get(note.id).status == "active"
    assert note.id not in {i.node.id for i in memory.review_queue().items}


def use_the_rest(memory, clock, days):
    """Day after day, the agent recalls what Ana said, and nothing else."""
    for _ in range(days):
        clock.advance(days=1)
        memory.recall("Ana said fact")


def test_what_a_hub_was_told_a_week_ago_is_not_archived_for_the_hub(with_hub, clock):
    clock.advance(days=8)
    report = with_hub.maintain()
    assert report.archived == [] and report.tiers["frozen"] == 0


def test_an_archived_note_told_again_beside_a_hub_stays_back(with_hub, clock):
    memory = with_hub
    note = memory.remember("The VPN needs the new client")
    use_the_rest(memory, clock, 90)
    memory.maintain()
    assert memory.get(note.id).status == "archived"
    memory.remember("The VPN needs the new client")
    clock.advance(days=1)
    memory.maintain()
    assert memory.get(note.id).status == "active"
    assert note.id not in {i.node.id for i in memory.review_queue().items}
    assert [h.node.id for h in memory.recall("VPN client").hits] == [note.id]


def test_an_archived_note_recalled_with_include_cold_beside_a_hub_comes_back(with_hub, clock):
    memory = with_hub
    note = memory.remember("The VPN needs the new client")
    use_the_rest(memory, clock, 90)
    memory.maintain()
    assert memory.recall("VPN client").hits == []
    assert [h.node.id for h in memory.recall("VPN client", include_cold=True).hits] == [note.id]
    clock.advance(days=1)
    memory.maintain()
    assert memory.get(note.id).status == "active"
    assert note.id not in {i.node.id for i in memory.review_queue().items}
    assert [h.node.id for h in memory.recall("VPN client").hits] == [note.id]


def test_a_note_left_unused_while_the_rest_is_used_is_archived_after_its_grace(with_hub, clock):
    memory = with_hub
    note = memory.remember("The VPN needs the new client")
    memory.recall("VPN client")
    use_the_rest(memory, clock, 6)
    memory.maintain()
    assert memory.get(note.id).status == "active"
    use_the_rest(memory, clock, 90)
    memory.maintain()
    assert memory.get(note.id).status == "archived"
    assert note.id in {i.node.id for i in memory.review_queue().items}


@pytest.mark.parametrize("how", ["told again", "kept by a person", "pinned"])
def test_an_archived_note_brought_back_is_found_at_once(memory, clock, how):
    note = memory.remember("Legacy billing export format")
    clock.advance(days=200)
    memory.remember("busy note")
    memory.maintain()
    assert memory.recall("legacy billing export").hits == []
    if how == "told again":
        memory.remember("Legacy billing export format")
    elif how == "kept by a person":
        memory.reject(note.id)
    else:
        memory.pin(note.id)
    # before the next maintain: it is active, so a default recall finds it
    assert [h.node.id for h in memory.recall("legacy billing export").hits] == [note.id]
    memory.maintain()
    assert memory.get(note.id).tier in ("hot", "warm")


def test_an_archived_note_told_again_of_a_past_time_stays_back_after_maintain(memory, clock):
    note = memory.remember("Legacy billing export format")
    owner = memory.remember("Ana owns billing")
    clock.advance(days=200)
    memory.remember("busy note")
    memory.maintain()
    assert memory.get(note.id).status == "archived"
    held = clock() - timedelta(days=150)  # when it held, told today
    memory.remember("Legacy billing export format", at=held, links=[{"target": owner.id}])
    clock.advance(days=1)
    memory.maintain()
    back = memory.get(note.id)
    assert back.status == "active" and back.tier in ("hot", "warm")
    assert note.id not in {i.node.id for i in memory.review_queue().items}
    assert [h.node.id for h in memory.recall("legacy billing export").hits] == [note.id]
    # what it tells stays dated as told: first told then, its new link of the time it held
    assert back.created_at == note.created_at
    (link,) = memory.store.edges_of([note.id])
    assert link.created_at == link.valid_from == held


def test_a_link_connected_again_of_a_past_time_is_used_now(memory, clock):
    a = memory.remember("Payments retry policy")
    b = memory.remember("Checkout timeouts")
    first = memory.connect(a.id, b.id, "related")
    clock.advance(days=100)
    again = memory.connect(a.id, b.id, "related", at=clock() - timedelta(days=90))
    assert again.id == first.id and again.last_reinforced_at == clock()
    assert again.created_at == first.created_at

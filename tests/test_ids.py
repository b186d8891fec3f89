"""Ids say when they were made, so equally good matches rank the same way in every run."""

from __future__ import annotations

from concurrent.futures import ThreadPoolExecutor

from ebbtide import ManualClock, open_memory
from ebbtide.model import creation_key, new_id


def test_ids_made_one_after_another_sort_by_when_they_were_made():
    made = [new_id("node") for _ in range(5_000)]
    assert sorted(made, key=creation_key) == made
    assert len(set(made)) == len(made)


def test_ids_made_at_once_on_many_threads_never_repeat():
    with ThreadPoolExecutor(8) as pool:
        made = list(pool.map(lambda _: new_id("edge"), range(8_000)))
    assert len(set(made)) == len(made)


def test_between_two_equally_good_matches_the_newer_ranks_first(tmp_path):
    clock = ManualClock("2026-03-02T09:00:00+00:00")
    with open_memory(tmp_path / "m.db", clock=clock, embeddings="none") as mem:
        older = mem.remember("the harbour crane jammed on Monday")
        newer = mem.remember("the harbour crane jammed on Friday")
        hits = mem.recall("harbour crane jammed", touch=False).hits
    assert [h.node.id for h in hits[:2]] == [newer.id, older.id]
    assert hits[0].why.text_match == hits[1].why.text_match


def test_two_memories_built_alike_recall_in_the_same_order(tmp_path):
    notes = [f"deploy {n} of the billing service rolled back" for n in range(12)]
    orders = []
    for name in ("a", "b"):
        clock = ManualClock("2026-03-02T09:00:00+00:00")
        with open_memory(tmp_path / f"{name}.db", clock=clock, embeddings="none") as mem:
            texts = {mem.remember(t).id: t for t in notes}
            orders.append([texts[h.node.id] for h in mem.recall("billing rollback", k=12).hits])
    assert orders[0] == orders[1]
    assert len(orders[0]) == 12

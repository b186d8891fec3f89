"""The causal benchmark's world generator (bench/causal_world.py): deterministic and sane."""

from __future__ import annotations

import sys
from collections import Counter
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "bench"))

import causal_world as cw

N = len(cw.CODENAMES)


@pytest.fixture(scope="module")
def worlds() -> list[cw.World]:
    return cw.generate(seed=7, n_worlds=N)


def test_same_seed_same_worlds():
    assert cw.generate(3, 12) == cw.generate(3, 12)


def test_other_seed_other_worlds():
    a, b = cw.generate(3, 12), cw.generate(4, 12)
    assert [w.events["B"].text for w in a] != [w.events["B"].text for w in b]


def test_prefix_stable():
    """World i does not depend on how many worlds are generated after it."""
    assert cw.generate(5, 20)[:10] == cw.generate(5, 10)


def test_bounds():
    with pytest.raises(ValueError):
        cw.generate(1, 0)
    with pytest.raises(ValueError):
        cw.generate(1, N + 1)


def test_world_identity(worlds):
    assert len({w.code for w in worlds}) == N
    assert len({w.task_a for w in worlds} | {w.task_b for w in worlds}) == 2 * N
    for w in worlds:
        assert w.comp != w.comp_b
        assert len(set(w.people.values())) == len(w.people)
    families = Counter(w.family for w in worlds)
    assert set(families) == set(cw.FAMILIES)
    assert max(families.values()) - min(families.values()) <= 1


def test_every_form_carries_its_key(worlds):
    for w in worlds:
        for ev in w.events.values():
            assert ev.text in ev.forms
            for form in ev.forms:
                assert cw.key_matches(ev.key, form), (w.family, ev.label, form)


def test_keys_are_unique_within_a_world(worlds):
    for w in worlds:
        for a, ea in w.events.items():
            for b, eb in w.events.items():
                if a == b or (a, b) in cw.KEY_OVERLAPS:
                    continue
                for form in eb.forms:
                    assert not cw.key_matches(ea.key, form), (w.family, a, b, form)


def test_labeler_names_one_world(worlds):
    lab = cw.Labeler(worlds)
    for w in worlds:
        for label, ev in w.events.items():
            got = lab.labels(ev.text)
            assert w.gold_label(label) in got
            assert {g.split(".")[0] for g in got} == {f"w{w.index}"}


def test_structured_episodes_reuse_exact_texts(worlds):
    for w in worlds:
        eps = {(e.decision, e.outcome): e for e in w.episodes}
        assert eps["B", "X"].outcome_text == eps["X", "E"].decision_text
        assert eps["P", "X"].outcome_text == eps["B", "X"].outcome_text
        assert eps["P", "X"].relation == "prevented"
        assert eps["W", "R"].decision_text == eps["W", "C"].decision_text
        assert eps["W", "C"].time > eps["W", "R"].time
        assert eps["B2", "X2"].task_tag == w.task_b != w.task_a == eps["B", "X"].task_tag
        assert eps["B2", "X2"].decision_text != eps["B", "X"].decision_text


def test_sessions_narrate_each_episode(worlds):
    lab = cw.Labeler(worlds)
    for w in worlds:
        assert len(w.sessions) == len(w.episodes)
        for s, ep in zip(w.sessions, w.episodes, strict=True):
            assert s.time == ep.time and s.task_tag == ep.task_tag
            assert all(set(m) == {"speaker", "text", "time"} for m in s.messages)
            story = [m for m in s.messages if lab.labels(m["text"])]
            assert len(story) == 1, s.messages  # small talk names no event
            want = {w.gold_label(x) for x in s.mentions if x != "W" or ep.outcome != "C"}
            assert want <= lab.labels(story[0]["text"])
            assert story[0]["speaker"] not in story[0]["text"]


def test_narration_paraphrases_the_record(worlds):
    """Narrated clauses avoid the structured wording, so text matching cannot lean on it."""
    for w in worlds:
        for s, ep in zip(w.sessions, w.episodes, strict=True):
            line = s.messages[1]["text"]
            if ep.relation == "caused" and ep.outcome != "C":
                assert ep.decision_text not in line and ep.outcome_text not in line


def test_questions(worlds):
    kinds = Counter(q.kind for w in worlds for q in w.questions)
    assert set(kinds) == set(cw.KINDS)
    assert kinds["root_cause"] == kinds["intervention"] == kinds["counterfactual"] == 2 * N
    for k in ("inhibition", "temporal", "transfer", "latest"):
        assert kinds[k] == N
    known = {w.gold_label(lb) for w in worlds for lb in w.events}
    for w in worlds:
        assert len({q.qid for q in w.questions}) == len(w.questions)
        for q in w.questions:
            for c in q.calls:
                assert set(c.gold) | set(c.anti) <= known
                assert c.check in {
                    "chain_root",
                    "in_top",
                    "before_anti",
                    "verdict_is",
                    "verdict_not",
                    "preferred",
                }
                assert (c.expect is None) == bool(c.gold)
                for v in c.args.values():
                    if isinstance(v, str):  # questions are phrased apart from every record
                        assert all(v != ep.decision_text for ep in w.episodes)
                        assert all(v != ep.outcome_text for ep in w.episodes)


def test_timeline_is_ordered(worlds):
    items = cw.timeline(worlds)
    assert len(items) == sum(len(w.episodes) for w in worlds)
    times = [ep.time for _, ep, _ in items]
    assert times == sorted(times)


def test_exact_asks_use_the_recorded_text():
    para, exact = cw.generate(7, 8), cw.generate(7, 8, asks="exact")
    for wp, we in zip(para, exact, strict=True):
        assert wp.episodes == we.episodes and wp.sessions == we.sessions
        by_name = {q.name: q for q in we.questions}
        assert by_name["intervention.bad"].calls[0].args["action"] == we.events["B"].text
        assert by_name["transfer.twin"].calls[0].args["query"] == we.events["X2"].text
    with pytest.raises(ValueError):
        cw.generate(7, 8, asks="fuzzy")

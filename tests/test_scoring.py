"""The maths, pinned on its own: no store, no clock."""

from __future__ import annotations

import math

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from ebbtide import scoring
from ebbtide.config import DAY

HALF = 30 * DAY


def graph(n, edges, read_age=None):
    src, dst, w, c, age = zip(*edges, strict=True) if edges else ((), (), (), (), ())
    return scoring.ActivationInputs(
        n_nodes=n,
        src=np.array(src, dtype=np.int64),
        dst=np.array(dst, dtype=np.int64),
        weight=np.array(w, dtype=float),
        coefficient=np.array(c, dtype=float),
        edge_age_s=np.array(age, dtype=float),
        read_age_s=np.full(n, np.nan) if read_age is None else np.array(read_age, dtype=float),
    )


def activation(g, **kw):
    params = dict(half_life_s=HALF, read_bonus=0.5, read_half_life_s=14 * DAY, spread_damping=0.0)
    params.update(kw)
    return scoring.node_activation(g, **params)


def test_decay_halves_at_the_half_life():
    assert scoring.decay(HALF, HALF) == pytest.approx(0.5)
    assert scoring.decay(2 * HALF, HALF) == pytest.approx(0.25)
    assert scoring.decay(0, HALF) == 1.0


def test_clock_skew_never_makes_an_edge_stronger_than_new():
    assert scoring.decay(-5 * DAY, HALF) == 1.0


def test_times_ahead_of_now_beyond_the_slack_count_as_now_and_never_stays_never():
    now, slack = 1_000_000.0, 300.0
    times = np.array([now - DAY, now + 30, now + slack, now + slack + 1, now + 365 * DAY, np.nan])
    got = scoring.clamp_future(times, now, slack)
    np.testing.assert_array_equal(got, [now - DAY, now + 30, now + slack, now, now, np.nan])


def test_edge_contribution_is_weight_times_coefficient_times_decay():
    assert scoring.edge_strength(0.8, 0.5, HALF, HALF) == pytest.approx(0.2)
    assert scoring.edge_strength(1.0, -0.8, 0, HALF) == pytest.approx(-0.8)


def test_fresh_node_with_three_links_outranks_stale_node_with_eleven():
    stale_edges = [(0, i, 1.0, 1.0, 150 * DAY) for i in range(2, 13)]
    fresh_edges = [(1, i, 1.0, 1.0, 1 * DAY) for i in range(13, 16)]
    act = activation(graph(16, stale_edges + fresh_edges))
    assert act[1] > act[0]


def test_read_recency_bonus_rewards_a_node_read_recently():
    g = graph(2, [], read_age=[0.0, 60 * DAY])
    act = activation(g)
    assert act[0] == pytest.approx(0.5)
    assert act[1] == pytest.approx(0.5 * 2 ** (-60 / 14))


def test_spreading_step_is_normalised_by_the_neighbours_degree():
    # Node 0 hangs off a hub (1) with 20 other leaves; node 2 off a small node (3).
    edges = [(1, 0, 1.0, 1.0, 0)] + [(1, i, 1.0, 1.0, 0) for i in range(4, 24)]
    edges += [(3, 2, 1.0, 1.0, 0), (3, 24, 1.0, 1.0, 0)]
    act = activation(graph(25, edges), spread_damping=0.3)
    # The hub passes each leaf base/degree = 21/21, not its whole 21.
    assert act[0] == pytest.approx(1.0 + 0.3 * 1.0)
    assert act[0] <= act[2], "a hub must not flood its leaves"


def test_inhibitory_edges_still_count_as_links_for_activation():
    act = activation(graph(2, [(0, 1, 1.0, -0.8, 0)]))
    assert act[0] == pytest.approx(0.8)


def tiers(act, *, pinned=None, age=None, prev=None, hubs=None):
    n = len(act)
    return scoring.assign_tiers(
        np.array(act, dtype=float),
        pinned=np.zeros(n, bool) if pinned is None else np.array(pinned),
        age_s=np.full(n, 100 * DAY) if age is None else np.array(age, dtype=float),
        previous=prev or ["hot"] * n,
        hot=0.3,
        warm=0.1,
        cold=0.02,
        grace_s=7 * DAY,
        hubs=None if hubs is None else np.array(hubs),
    )


def test_tiers_follow_activation_relative_to_the_most_active_unpinned_node():
    assert tiers([10.0, 5.0, 1.0, 0.5, 0.1]) == ["hot", "hot", "warm", "cold", "frozen"]


def test_pinned_nodes_never_fall_by_decay_but_may_rise():
    got = tiers([10.0, 0.0, 9.0], pinned=[False, True, True], prev=["hot", "warm", "cold"])
    assert got == ["hot", "warm", "hot"]


def test_a_pinned_giant_does_not_push_everyone_else_down():
    got = tiers([1000.0, 1.0, 0.5], pinned=[True, False, False])
    assert got[1:] == ["hot", "hot"]


def test_a_hub_is_hot_but_does_not_push_everyone_else_down():
    got = tiers([200.0, 1.0, 0.5, 0.01], hubs=[True, False, False, False])
    assert got == ["hot", "hot", "hot", "frozen"]


def test_a_memory_of_hubs_alone_measures_them_against_each_other():
    assert tiers([10.0, 1.0], hubs=[True, True]) == ["hot", "warm"]


def test_new_nodes_are_at_least_warm_during_the_grace_period():
    got = tiers([10.0, 0.0, 0.0], age=[100 * DAY, 1 * DAY, 30 * DAY])
    assert got == ["hot", "warm", "frozen"]


def test_rrf_sums_reciprocal_ranks_across_lists():
    fused = scoring.rrf({"text": ["a", "b"], "graph": ["b", "c"]}, k=60)
    assert fused["b"] == pytest.approx(1 / 62 + 1 / 61)
    assert max(fused, key=fused.get) == "b"


def test_q_value_moves_toward_the_reward():
    q = 0.0
    for _ in range(20):
        q = scoring.q_update(q, -1.0, 0.3)
    assert -1.0 < q < -0.99


def test_preventing_a_bad_outcome_is_rewarded():
    assert scoring.decision_reward("prevented", -1.0) == 1.0
    assert scoring.decision_reward("caused", -1.0) == -1.0
    assert scoring.decision_reward("no_effect", -1.0) == 0.0


def chain(n, coefs):
    return scoring.SpreadGraph.build(n, range(n - 1), range(1, n), [c for c in coefs])


def test_inhibition_reaches_as_far_as_excitation():
    # 0 -prevented-> 1 -caused-> 2 -caused-> 3
    g = chain(4, [-0.8, 1.0, 1.0])
    res = scoring.spread(
        g, {0: 1.0}, direction="forward", max_hops=3, hop_decay=0.6, threshold=0.001
    )
    assert res.activation[1] < 0 and res.activation[2] < 0 and res.activation[3] < 0
    assert list(res.first_hop) == [0, 1, 2, 3]
    assert list(res.via) == [-1, 0, 1, 2]


def test_backward_spreading_walks_to_causes():
    g = chain(3, [1.0, 1.0])
    res = scoring.spread(
        g, {2: 1.0}, direction="backward", max_hops=3, hop_decay=0.6, threshold=0.001
    )
    assert res.first_hop[0] == 2 and res.activation[0] > 0
    forward = scoring.spread(
        g, {2: 1.0}, direction="forward", max_hops=3, hop_decay=0.6, threshold=0.001
    )
    assert forward.first_hop[0] == -1


def test_signed_contributions_within_a_hop_are_summed():
    # 0 excites 2 and 1 inhibits 2 equally: they cancel.
    g = scoring.SpreadGraph.build(3, [0, 1], [2, 2], [1.0, -1.0])
    res = scoring.spread(
        g, {0: 1.0, 1: 1.0}, direction="forward", max_hops=1, hop_decay=1.0, threshold=0.001
    )
    assert res.activation[2] == pytest.approx(0.0)


@given(st.floats(0, 1e9), st.floats(0, 1e9), st.floats(1, 1e8))
def test_decay_is_in_unit_interval_and_never_increases_with_age(a, b, half):
    da, db = float(scoring.decay(a, half)), float(scoring.decay(b, half))
    assert 0.0 <= da <= 1.0
    if a <= b:
        assert da >= db


@given(
    st.lists(
        st.tuples(
            st.integers(0, 9),
            st.integers(0, 9),
            st.floats(0, 1),
            st.sampled_from([1.0, 0.5, -0.8, 0.0, 0.6]),
            st.floats(0, 1e8),
        ),
        max_size=40,
    )
)
def test_activation_is_finite_and_non_negative_for_any_graph(edges):
    act = activation(graph(10, edges), spread_damping=0.3)
    assert np.all(np.isfinite(act)) and np.all(act >= 0)


@given(
    st.lists(
        st.tuples(st.integers(0, 7), st.integers(0, 7), st.floats(-1, 1, allow_nan=False)),
        max_size=30,
    ),
    st.integers(0, 7),
    st.integers(1, 4),
)
def test_spreading_is_bounded_and_only_reaches_connected_nodes(edges, seed, hops):
    g = scoring.SpreadGraph.build(
        8, [e[0] for e in edges], [e[1] for e in edges], [e[2] for e in edges]
    )
    res = scoring.spread(
        g, {seed: 1.0}, direction="both", max_hops=hops, hop_decay=0.6, threshold=1e-6
    )
    assert np.all(np.isfinite(res.activation))
    assert not math.isnan(res.activation.sum())
    unreached = res.first_hop < 0
    assert np.all(res.activation[unreached] == 0)


def test_a_node_with_many_links_passes_each_a_share_of_its_value():
    # 0 links to 1..8, 9 links to 10 alone: past four links, 0's value is divided over them.
    g = scoring.SpreadGraph.build(11, [0] * 8 + [9], [*range(1, 9), 10], [0.5] * 9)
    res = scoring.spread(
        g,
        {0: 1.0, 9: 1.0},
        direction="both",
        max_hops=1,
        hop_decay=0.6,
        threshold=0.001,
        fan_out=4,
    )
    assert res.activation[10] == pytest.approx(0.3)
    assert res.activation[1] == pytest.approx(0.15)


@given(
    st.lists(
        st.tuples(st.integers(0, 7), st.integers(0, 7), st.floats(-1, 1, allow_nan=False)),
        max_size=30,
    ),
    st.dictionaries(st.integers(0, 7), st.floats(-1, 1, allow_nan=False), min_size=1),
    st.integers(1, 6),
)
def test_no_node_passes_more_than_fan_out_links_worth(edges, seeds, fan_out):
    g = scoring.SpreadGraph.build(
        8, [e[0] for e in edges], [e[1] for e in edges], [e[2] for e in edges]
    )
    res = scoring.spread(
        g, seeds, direction="both", max_hops=1, hop_decay=0.6, threshold=1e-9, fan_out=fan_out
    )
    plain = scoring.spread(g, seeds, direction="both", max_hops=1, hop_decay=0.6, threshold=1e-9)
    links = np.bincount([e[0] for e in edges] + [e[1] for e in edges], minlength=8)
    passed = sum(abs(v) * 0.6 * min(links[s], fan_out) for s, v in seeds.items())
    assert np.all(np.isfinite(res.activation))
    assert np.abs(res.activation).sum() <= sum(abs(v) for v in seeds.values()) + passed + 1e-9
    if all(links[s] <= fan_out for s in seeds):
        assert np.allclose(res.activation, plain.activation)

"""optimal's one-point skip test (issue 14, hdp06): ``OptimalSkipBound.epsilon_exceeds``.

Truth: the exact optimal composition of heterogeneous randomized response (the worst case of
pure DP), enumerated over all 2^k outcomes in mpmath (``tests/test_auto_skip.py``'s oracle):
where the test says the epsilon exceeds ``x``, the exact profile at ``x`` is above delta (so the
exact epsilon, and optimal's certified one, is above ``x``). And ``auto`` answers exactly as
with the inversion.
"""

from __future__ import annotations

import math

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import dpcompose as dpc
from dpcompose import auto as auto_mod
from dpcompose.methods.skip_bounds import OptimalSkipBound

from test_auto_skip import rr_composition_delta_mp


@given(st.lists(st.floats(0.01, 1.5), min_size=2, max_size=8), st.floats(0.0, 6.0),
       st.sampled_from([1e-2, 1e-4, 1e-6, 1e-9]))
@settings(max_examples=30, deadline=None)
def test_exceeds_only_where_the_exact_epsilon_is_above(eps, x, delta):
    merged: dict[float, int] = {}
    for e in eps:
        merged[e] = merged.get(e, 0) + 1
    bound = OptimalSkipBound(tuple(sorted(merged.items())), 0.0, len(merged), True)
    if bound.epsilon_exceeds(delta, x):
        assert float(rr_composition_delta_mp(eps, x)) > delta * (1 - 1e-12)


def test_skip_decision_at_a_point_matches_the_value():
    """Where the test skips, optimal's own certified epsilon is above the point."""
    mechs = [dpc.PureDP(0.05 + 0.15 * i / 59) for i in range(60)]
    g_opt = dpc.compose(mechs, method="optimal")
    from dpcompose.methods.registry import skip_bound
    from dpcompose.compose import normalize

    bound = skip_bound("optimal")(normalize(mechs))
    assert bound is not None
    for delta in (1e-3, 1e-6):
        v = g_opt.epsilon(delta)
        for x in (0.5 * v, 0.9 * v, 0.99 * v, v, 1.01 * v):
            if bound.epsilon_exceeds(delta, x):
                assert v > x


@pytest.mark.parametrize("n", [60, 365])
def test_auto_answers_as_with_the_inversion(n, monkeypatch):
    """The same epsilon (and method) with and without the one-point test."""
    mechs = [dpc.Laplace(5.0 + 195.0 * i / (n - 1)) for i in range(n)]
    deltas = (1e-3, 1e-6, 1e-10)
    g = dpc.compose(mechs, method="auto")
    fast = [(g.epsilon(d), g.method_for(d)) for d in deltas]
    monkeypatch.delattr(OptimalSkipBound, "epsilon_exceeds")
    g2 = dpc.compose(mechs, method="auto")
    slow = [(g2.epsilon(d), g2.method_for(d)) for d in deltas]
    assert fast == slow
    assert all(math.isfinite(e) for e, _ in fast)


def test_eps_skips_point_is_above_the_incumbent():
    """The point asked is the smallest double with x (1 - SKIP_MARGIN) > best."""
    seen = []

    class Probe:
        has_lower = False

        def epsilon_exceeds(self, delta, x):
            seen.append(x)
            return False

    for best in (0.0, 1e-300, 0.3, 13.34, 1e300):
        seen.clear()
        auto_mod._eps_skips(Probe(), 1e-6, best)
        x = seen[0]
        assert auto_mod._skips(x, best)
        assert not auto_mod._skips(math.nextafter(x, 0.0), best) or x == 5e-324

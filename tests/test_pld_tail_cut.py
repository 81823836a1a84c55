"""pld at huge epsilons (issue 14): the low-loss tail of a non-Gaussian segment is cut to an
atom (upper) or dropped (lower), and the composed window is estimated before the first grid.

Truth: the Laplace loss law in closed form and the Gamma-mixture k-fold profile
(``tests/oracles/laplace.py``, mpmath; it errs low by at most k e^{-eps}).
"""

from __future__ import annotations

import math

import mpmath as mp
import numpy as np
import pytest
from oracles.laplace import epsilon_bracket_mp, laplace_kfold_delta_mp
from oracles.precision import at_least_digits

import dpcompose as dpc
from dpcompose.methods.pld import sizing as pld_method
from dpcompose.methods.pld.discretize import loss_model


@at_least_digits(30)
def _laplace_mass_below(eps: float, z: float):
    """P-mass of Laplace(eps)'s continuous part beyond z (in units of the scale): the loss
    there is eps - 2 z' with z' > z, z' ~ Exp(1) restricted to (0, eps), mass e^{-z'}/2."""
    return (mp.exp(-mp.mpf(z)) - mp.exp(-mp.mpf(eps))) / 2


@pytest.mark.parametrize("eps", [60.0, 1000.0, 1e5])
def test_the_cut_tail_holds_at_most_tail_and_its_mass_is_exact(eps):
    tail = 1e-21
    seg, = loss_model(dpc.Laplace(1.0 / eps), "remove", tail=tail).segments
    lo_loss = float(seg.loss(np.array(seg.z0 if seg.increasing else seg.z1)))
    assert lo_loss > eps - 2 * 60.0  # the grid spans ~100, not 2 eps
    cut = seg.tail_high_z if not seg.increasing else seg.tail_low_z
    exact = _laplace_mass_below(eps, seg.z1 if not seg.increasing else seg.z0)
    assert 0 < cut <= tail
    assert abs(mp.mpf(cut) - exact) <= 1e-12 * exact  # the upper model moves exactly this up


def test_moderate_epsilon_segments_are_not_cut():
    seg, = loss_model(dpc.Laplace(0.05), "remove", tail=1e-21).segments  # eps = 20
    assert (seg.z0, seg.z1, seg.tail_low_z, seg.tail_high_z) == (0.0, 20.0, 0.0, 0.0)


@pytest.mark.parametrize("k", [3, 40])
def test_cut_laplace_compositions_bracket_the_truth(k):
    eps = 1000.0
    g = dpc.compose([(dpc.Laplace(1e-3), k)], method="pld")
    grid = g.provenance["pld"]["grids"][0]
    assert grid["points"] < k * 2 * eps / grid["h"] / 4  # the tails are gone from the arrays
    slack = k * mp.exp(-eps)
    for d in (1e-9, 1e-3):
        lo, hi = g.epsilon_bounds(d)
        lo_x, hi_x = epsilon_bracket_mp(lambda e: laplace_kfold_delta_mp(eps, k, e), d, hi=k * eps)
        assert lo <= hi_x and hi >= lo_x
    for e in (k * eps - 300.0, k * eps - 40.0, k * eps - 3.0):
        d_lo, d_hi = g.delta_bounds(e)
        exact = laplace_kfold_delta_mp(eps, k, e)
        assert d_lo <= exact + slack and d_hi >= exact


def test_window_estimate_picks_a_grid_that_fits_first():
    """Laplace(1e-3) x 10^5: the composed window (~1e4 in loss) is estimated before any grid,
    so the first spacing tried already fits (no fine single grid built and thrown away)."""
    plan = [(dpc.Laplace(1e-3), 10 ** 5)]
    max_points = 2 ** 22
    h0 = pld_method._auto_h(plan, 1e-4)
    floor = pld_method._window_floor(plan, h0, 1e-14, max_points)
    assert floor > h0
    # the window at that spacing fits: the accountant builds it without a GridTooLargeError
    acc = pld_method._accountant(plan, 1e-4, None, 1e-14, max_points)
    assert acc.levels[0]["h"] >= floor
    assert pld_method._window_floor([(dpc.Laplace(20.0), 500)], 1e-4, 1e-14, max_points) == 0.0
    assert math.isfinite(acc.levels[0]["h"])


@pytest.mark.parametrize("eps,k,h,points", [
    (1000.0, 40, 0.3, (40 * 1000.0 - 300.0, 40 * 1000.0 - 40.0, 40 * 1000.0 - 3.0)),
    (1000.0, 200, 0.7, (200 * 1000.0 - 300.0, 200 * 1000.0 - 3.0)),
    (1.0, 2, 0.05, (0.0, 0.3, 1.0, 1.9)),
    (3.0, 2, 0.2, (0.5, 2.0, 5.5)),
])
def test_round_down_lower_model_brackets_the_truth(eps, k, h, points, monkeypatch):
    """The lower model that rounds every loss down (kept mass) is below the exact k-fold
    profile, forced here on grids it would not be chosen for. Truth: the Gamma mixture for
    eps = 1000 (it errs low by at most k e^{-eps}: ``slack``), the two-fold closed form
    with quadrature otherwise."""
    from oracles.laplace import laplace2_delta_mp

    from dpcompose.methods.pld import composition

    def exact(e):
        return laplace_kfold_delta_mp(eps, k, e) if eps >= 100 else laplace2_delta_mp(eps, e)

    monkeypatch.setattr(composition, "_ROUND_DOWN_LOSS", -1.0)  # always round down
    g = dpc.compose([(dpc.Laplace(1.0 / eps), k)], method="pld", discretization=h)
    slack = k * mp.exp(-eps) if eps >= 100 else 0
    for e in points:
        d_lo, d_hi = g.delta_bounds(e)
        x = exact(e)
        assert d_lo <= x + slack and d_hi >= x
    assert g.delta_bounds(points[0])[0] > 0.0  # and it says something
    for d in (1e-9, 1e-3):
        lo, hi = g.epsilon_bounds(d)
        lo_x, hi_x = epsilon_bracket_mp(exact, d, hi=k * eps)
        assert lo <= hi_x and hi >= lo_x
    assert g.provenance["pld"]["lower_rounded_down"]  # (the lower curve is built lazily)


def test_huge_count_of_1000_dp_laplace_meets_the_tolerance():
    """Laplace(1e-3) x 10^6 (issue 14): the grid is sized from the answer's size (~1e9, the
    tolerance is relative), the lower model rounds losses down (the balanced one would keep
    e^{-600} of its mass on that grid), and the bracket meets the tolerance."""
    g = dpc.compose([(dpc.Laplace(1e-3), 10 ** 6)], method="pld")
    lo, hi = g.epsilon_bounds(1e-6)
    assert 0.0 < lo <= hi <= 1e9  # below the pure-DP sum (exact for the upper atoms)
    assert (hi - lo) / hi <= 1e-4
    assert g.provenance["pld"]["lower_rounded_down"]
    assert "caveats" not in g.provenance  # the tolerance is met: no "coarsened" caveat

"""The optimal method's one-window path in pure Python (issue 14, cold start), against truth.

``_WindowSums`` builds the prefix sums of one binomial window without numpy, in blocks
(Loader's form at each block's first outcome, the exact mass ratio in between). Checked:

- ``log_binom_pmf_scalar`` within its own error bound of mpmath's log-pmf of Bin(c, a) with
  the exact a = 1/(1 + e^eps) (50 digits), at the window's ends, mode and random points;
- every stored log-mass within the sums' ``term_err`` of mpmath, and every prefix sum
  :math:`A_m`, :math:`B_m` within its relative bound :math:`\\rho_m` of mpmath's sum;
- ``lower(x) <= delta_RR(x) <= upper(x)`` against the Kairouz-Oh-Viswanath sum in mpmath
  (every term for small k, ``oracles.kov_tail`` at k up to 2.5 million), and tight;
- ``epsilon_upper(t)``: the exact delta there is at most t, and just below it above t;
- the one-group ``optimal`` path picks this build up to ``PY_WINDOW_MAX`` and numpy above,
  and both brackets contain each other's truth (they overlap).
"""

from __future__ import annotations

import math
import random

import mpmath as mp
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from oracles import kov_delta_mp
from oracles.kov_tail import kov_delta_tail_mp

from dpcompose._numerics.binomial_scalar import (bd0_scalar, chernoff_window, log_binom_pmf_scalar,
                                                 stirlerr_scalar)
from dpcompose.methods.optimal.sums import _max_loss
from dpcompose.methods.optimal.window import PY_WINDOW_MAX, _Binomial, _WindowSums
from dpcompose.representations.pairs import rr_atoms


def _window(eps: float, c: int) -> _WindowSums:
    return _WindowSums(_Binomial(eps, c), *_max_loss([(eps, c)]))


def _exact_log_pmf(c: int, l: int, eps: float) -> mp.mpf:
    """log of the Bin(c, a) pmf at l, a = 1/(1 + e^eps) exactly (the caller sets the precision)."""
    e = mp.mpf(eps)
    a = 1 / (1 + mp.exp(e))
    return (mp.loggamma(c + 1) - mp.loggamma(l + 1) - mp.loggamma(c - l + 1)
            + l * mp.log(a) + (c - l) * mp.log(1 - a))


_EPS = st.one_of(st.floats(min_value=1e-5, max_value=0.2), st.floats(min_value=0.2, max_value=8.0))


@settings(max_examples=60, deadline=None)
@given(_EPS, st.integers(min_value=1, max_value=10**9), st.randoms(use_true_random=False))
def test_scalar_log_pmf_within_its_bound_of_mpmath(eps, c, rnd):
    atom = rr_atoms(eps)[0]
    lo, hi = chernoff_window(c, atom.a, 800.0)
    for l in {lo, hi, rnd.randint(lo, hi), max(lo, min(hi, int(c * atom.a)))}:
        val, err = log_binom_pmf_scalar(c, l, atom.a, atom.b, atom.log_b, atom.log_a)
        with mp.workdps(50):
            assert abs(mp.mpf(val) - _exact_log_pmf(c, l, eps)) <= err


@given(st.integers(min_value=1, max_value=10**12))
def test_scalar_stirlerr_is_the_array_form(n):
    np = pytest.importorskip("numpy")
    from dpcompose._numerics.binomial import stirlerr

    val, err = stirlerr(np.array([float(n)]))
    assert stirlerr_scalar(n) == (float(val[0]), float(err[0]))


@given(st.floats(min_value=1.0, max_value=1e9), st.floats(min_value=0.0, max_value=3.0))
def test_scalar_bd0_within_its_bound_of_mpmath(m, rel):
    x = float(math.floor(m * rel))
    val, err = bd0_scalar(x, m)
    with mp.workdps(50):
        X, M = mp.mpf(x), mp.mpf(m)
        exact = (X * mp.log(X / M) if x > 0 else 0) + M - X
        assert abs(mp.mpf(val) - exact) <= err


@pytest.mark.parametrize("eps, c", [(0.05, 10**6), (1e-3, 10**6), (0.3, 20_000), (2.0, 5000), (0.01, 64),
                                    (0.7, 63), (6.0, 300)])
def test_log_masses_within_term_error_of_mpmath(eps, c):
    w = _window(eps, c)
    rnd = random.Random(7)
    idx = {0, w.size - 1, w.size // 2} | {rnd.randrange(w.size) for _ in range(12)}
    for i in idx:
        with mp.workdps(50):
            assert abs(mp.mpf(w.lp[i]) - _exact_log_pmf(c, w._lo + i, eps)) <= w._term_err


@pytest.mark.parametrize("eps, c", [(0.05, 3000), (0.5, 1500), (3.0, 400), (1e-3, 2500), (0.2, 40)])
def test_prefix_sums_within_rho_of_mpmath(eps, c):
    """A_m and B_m (P-mass and Q-mass of the m largest losses) within rho_m, at every 37th m."""
    w = _window(eps, c)
    with mp.workdps(40):
        E = mp.mpf(eps)
        A = B = mp.mpf(0)
        for i in range(w.size):
            l = w._lo + i
            p = mp.exp(_exact_log_pmf(c, l, eps))
            A += p
            B += p * mp.exp(-(c - 2 * l) * E)
            if i % 37 == 0 or i == w.size - 1:
                rho = w._rho(i)
                assert abs(mp.exp(mp.mpf(w.logA[i])) / A - 1) <= rho
                assert abs(mp.exp(mp.mpf(w.logB[i])) / B - 1) <= rho


@settings(max_examples=40, deadline=None)
@given(st.floats(min_value=0.01, max_value=3.0), st.integers(min_value=1, max_value=300),
       st.floats(min_value=0.0, max_value=1.0))
def test_delta_bracket_contains_exact_kov(eps, c, frac):
    w = _window(eps, c)
    x = frac * c * eps
    with mp.workdps(40):
        truth = kov_delta_mp(eps, c, x)
        up, lo = w.upper(x), w.lower(x)
        assert lo <= truth <= up
        assert up - lo <= 1e-9 * up + 1e-300


@pytest.mark.parametrize("eps, c", [(0.05, 10**6), (1e-3, 10**6), (0.05, 2_500_000), (0.5, 10**5),
                                    (1e-4, 2 * 10**5)])
@pytest.mark.parametrize("target", [1e-3, 1e-6, 1e-12, 1e-60])
def test_epsilon_upper_certified_and_tight_at_large_k(eps, c, target):
    w = _window(eps, c)
    x = w.epsilon_upper(target)
    assert w.upper(x) <= target
    with mp.workdps(40):
        assert kov_delta_tail_mp(eps, c, x) <= target
        below = x - 1e-9 * max(x, 1.0)
        truth_below = kov_delta_tail_mp(eps, c, below)
        assert w.lower(below) <= truth_below <= w.upper(below)
        assert truth_below > target * (1 - 1e-6)  # tight: the exact inverse is within 1e-9 (relative)


def test_one_group_path_switches_to_numpy_above_the_window_limit():
    pytest.importorskip("numpy")
    from dpcompose.methods.optimal.lossdist import _LossDist
    from dpcompose.methods.optimal.method import _Composition

    small = _Composition(((0.05, 0.0, 10**6),), None, 2**21)
    assert isinstance(small.dist_up, _WindowSums) and small.info["path"] == "kov"
    c_big = 10**7  # a window of about 126,000 outcomes
    assert _Binomial(0.05, c_big).size > PY_WINDOW_MAX
    big = _Composition(((0.05, 0.0, c_big),), None, 2**21)
    assert isinstance(big.dist_up, _LossDist) and big.info["path"] == "kov"


@pytest.mark.parametrize("eps, c", [(0.05, 10**6), (0.3, 50_000), (1e-3, 10**5), (4.0, 2000), (0.5, 30)])
def test_window_and_numpy_brackets_overlap(eps, c):
    pytest.importorskip("numpy")
    from dpcompose.methods.optimal.lossdist import _exact_dist

    b = _Binomial(eps, c)
    py, arr = _window(eps, c), _exact_dist([(eps, c)], [b])
    assert py.size == arr.size
    for frac in (0.0, 0.01, 0.1, 0.3, 0.6, 0.95):
        x = frac * c * eps
        assert py.lower(x) <= arr.upper(x) and arr.lower(x) <= py.upper(x)


def test_indexed_items_match_their_index_and_refuse_outside():
    w = _window(0.1, 1000)
    assert len(w.negL) == w.size and w.negL[-1] == w.negL[w.size - 1]
    assert all(w.negL[i] <= w.negL[i + 1] for i in range(w.size - 1))
    with pytest.raises(IndexError):
        w.logA[w.size]


@given(st.floats(min_value=0.0, max_value=745.0))
def test_rr_atom_logs_are_numpys_logaddexp(eps):
    np = pytest.importorskip("numpy")
    atom = rr_atoms(eps)[0]
    assert atom.log_b == -float(np.logaddexp(0.0, -eps))
    assert atom.log_a == -float(np.logaddexp(0.0, eps))


@pytest.mark.parametrize("eps, c", [(1e6, 1), (1e6, 3), (650.0, 5), (40.0, 20)])
def test_huge_epsilon_windows_are_single_outcome_blocks_and_exact(eps, c):
    """Above eps = 600 every block is one outcome (no ratio leaves e^{+-600}); still exact."""
    w = _window(eps, c)
    for frac in (0.0, 0.3, 0.7, 0.99):
        x = frac * c * eps
        with mp.workdps(40):
            truth = kov_delta_mp(eps, c, x)
            assert w.lower(x) <= truth <= w.upper(x)

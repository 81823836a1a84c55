"""The incremental accountant (dpc.Accountant) against independent truth.

- Exact oracles: the Gaussian closed form (Balle-Wang profile in mpmath) for Gaussian
  tracks, Kairouz-Oh-Viswanath for pure DP (a lattice: the direct-FFT query path),
  brute-force enumeration of Poisson-subsampled randomized response (tests/oracles/subsampled.py).
  Upper >= truth >= lower, one-sided.
- A fresh compose of the same history at every step of a run: both are certified
  brackets of the same truth, so they must overlap (and be close).
- The two query paths (Parseval over the kept frequencies, inverse FFT) on one track.
- Recording, grouping, state round trips and bad input.
"""

from __future__ import annotations

import json
import math

import mpmath as mp
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import dpcompose as dpc
from dpcompose.methods.pld.incremental import BandCurve, DirectCurve
from dpcompose.errors import InvalidParameterError, UnsupportedMechanismError

from oracles import gaussian_delta_mp, kov_delta_mp
from oracles.subsampled import poisson_rr_delta

Q = 256 / 60000
SGD = dpc.Subsampled(dpc.Gaussian(1.1), Q)


@pytest.fixture(autouse=True)
def _mp_precision():
    """mpmath precision for the oracles, restored afterwards (other test modules set their own)."""
    with mp.workdps(40):
        yield


def overlap(a: tuple[float, float], b: tuple[float, float], slack: float = 1e-12) -> bool:
    """Two certified brackets of the same value must intersect."""
    return a[0] <= b[1] * (1 + slack) + slack and b[0] <= a[1] * (1 + slack) + slack


def test_every_step_of_a_small_run_brackets_a_fresh_compose():
    acc = dpc.Accountant()
    steps = [(SGD, 40), (dpc.Subsampled(dpc.Gaussian(0.9), 2 * Q), 25), (SGD, 60),
             (dpc.Laplace(30.0), 3), (SGD, 1)]
    history = []
    for m, k in steps:
        for _ in range(k):
            acc.step(m)
        history.append((m, k))
        fresh = dpc.compose(history, method="pld")
        for d in (1e-5, 1e-8):
            mine, ref = acc.epsilon_bounds(d), fresh.epsilon_bounds(d)
            assert mine[0] <= mine[1]
            assert overlap(mine, ref), (d, mine, ref)
            assert mine[1] <= ref[1] * (1 + 1e-3)       # as tight as a fresh compose
        for e in (0.1, 1.0):
            mine, ref = acc.delta_bounds(e), fresh.delta_bounds(e)
            assert overlap(mine, ref, 1e-9), (e, mine, ref)
    assert acc.history == [(m, k) for m, k in steps]
    assert acc.steps == sum(k for _, k in steps) == len(acc)


def test_per_step_queries_match_fresh_compose_every_step():
    acc = dpc.Accountant()
    for k in range(1, 21):
        acc.step(SGD)
        ref = dpc.compose([(SGD, k)], method="pld").epsilon_bounds(1e-5)
        assert overlap(acc.epsilon_bounds(1e-5), ref), k


@pytest.mark.parametrize("eps, q, k", [(1.0, 0.3, 5), (2.0, 0.1, 8), (0.5, 0.5, 10)])
def test_poisson_subsampled_rr_against_brute_force(eps, q, k):
    acc = dpc.Accountant()
    acc.step(dpc.Subsampled(dpc.RandomizedResponse(eps), q), k)
    for e in (0.0, 0.1, 0.5, 1.0, 2.0):
        truth = float(poisson_rr_delta(eps, q, k, e))
        lo, hi = acc.delta_bounds(e)
        assert lo <= truth * (1 + 1e-12) and truth <= hi, (e, lo, truth, hi)
        assert hi - lo <= 1e-2 * truth + 1e-12


def _engine_track(acc, m, k, kind):
    """A track of the engine on a history the accountant itself answers in closed form."""
    acc._runs = [[m, k]]
    acc._version += 1
    acc._ensure_grid()
    t = acc._track("remove", kind, 1)
    t.extend(m, k)
    return t


@pytest.mark.parametrize("sigma, k", [(3.0, 50), (0.8, 3), (20.0, 1000)])
def test_gaussian_track_against_closed_form_both_paths(sigma, k):
    mu = math.sqrt(k) / sigma
    for kind in ("upper", "lower"):
        acc = dpc.Accountant()
        t = _engine_track(acc, dpc.Gaussian(sigma), k, kind)
        band = t.curve()
        w0, w1, cut = t.window(t.counts)
        inf, slack = t.masses()
        direct = DirectCurve(t.materialize(w0, w1, cut, inf, slack))
        for e in (0.0, 0.3, 1.0, 3.0):
            truth = float(gaussian_delta_mp(mu, e))
            for c in (band, direct):
                if kind == "upper":
                    assert c.delta_upper(e) >= truth, (type(c), e)
                    assert c.delta_upper(e) <= truth * (1 + 1e-4) + 1e-12
                else:
                    assert c.delta_lower(e) <= truth, (type(c), e)
                    assert c.delta_lower(e) >= truth * (1 - 1e-4) - 1e-12
        for d in (1e-3, 1e-6):
            if kind == "upper":
                e_band, e_direct = band.epsilon_upper(d), direct.epsilon_upper(d)
                assert float(gaussian_delta_mp(mu, e_band)) <= d      # certified: the truth passes there
            else:
                e_band, e_direct = band.epsilon_lower(d), direct.epsilon_lower(d)
                assert float(gaussian_delta_mp(mu, e_band)) > d       # and fails here
            assert math.isclose(e_band, e_direct, rel_tol=1e-5)


def test_dp_sgd_uses_the_parseval_path_and_few_frequencies():
    acc = dpc.Accountant()
    acc.step(SGD, 2000)
    acc.epsilon(1e-5)
    curve = acc._curves[("remove", "upper", 1)][1]
    assert isinstance(curve, BandCurve)
    info = acc.info["tracks"]["remove/upper/1"]
    assert info["frequencies"] < info["n_fft"] / 100


def test_pure_dp_lattice_against_kov():
    acc = dpc.Accountant()
    acc.step(dpc.PureDP(0.1), 100)
    for e in (0.0, 1.0, 3.0, 6.0):
        truth = float(kov_delta_mp(0.1, 100, e))
        lo, hi = acc.delta_bounds(e)
        assert lo <= truth <= hi and hi - lo <= 1e-6 * truth + 1e-10
    lo, hi = acc.epsilon_bounds(1e-6)
    assert lo <= 4.774568 and hi >= 4.774567 and hi - lo < 1e-5
    assert acc.epsilon(0.0) == pytest.approx(10.0, abs=1e-9) and acc.epsilon(0.0) >= 10.0


def test_schedule_changes_and_a_run_outgrowing_its_grid():
    acc = dpc.Accountant()
    hist = []
    for sigma, q, k in [(1.1, Q, 235), (1.1, Q, 235 * 20), (0.8, 2 * Q, 235 * 40)]:
        acc.step(dpc.Subsampled(dpc.Gaussian(sigma), q), k)
        hist.append((dpc.Subsampled(dpc.Gaussian(sigma), q), k))
        h_before = acc.info["h"]
        mine = acc.epsilon_bounds(1e-5)
        ref = dpc.compose(hist, method="pld").epsilon_bounds(1e-5)
        assert overlap(mine, ref), (mine, ref)
    assert acc.info["h"] <= h_before


def test_horizon_gives_one_grid_for_the_run():
    acc = dpc.Accountant(horizon=235 * 50)
    grids = set()
    for _ in range(50):
        acc.step(SGD, 235)
        acc.epsilon(1e-5)
        grids.add(acc.info["h"])
    assert len(grids) == 1
    ref = dpc.compose([(SGD, 235 * 50)], method="pld").epsilon_bounds(1e-5)
    assert overlap(acc.epsilon_bounds(1e-5), ref)


def test_fallbacks_are_a_fresh_compose():
    plain = dpc.Accountant().step(dpc.Gaussian(2.0), 10)
    assert plain.info["fallback"].startswith("plain Gaussians")
    assert plain.delta(1.0) >= float(gaussian_delta_mp(math.sqrt(10) / 2.0, 1.0))
    wor = dpc.Accountant().step(dpc.Subsampled(dpc.Laplace(2.0), 0.1, "without_replacement"), 20)
    ref = dpc.compose([(dpc.Subsampled(dpc.Laplace(2.0), 0.1, "without_replacement"), 20)], method="pld")
    assert wor.epsilon_bounds(1e-6) == ref.epsilon_bounds(1e-6)
    assert dpc.Accountant().epsilon(1e-6) == 0.0
    nonprivate = dpc.Accountant().step(dpc.PureDP(math.inf))
    assert nonprivate.epsilon(0.5) == math.inf and nonprivate.delta(3.0) == 1.0


def test_guarantee_is_a_frozen_fresh_composition():
    acc = dpc.Accountant().step(SGD, 500)
    g = acc.guarantee()
    before = g.epsilon(1e-5)
    acc.step(SGD, 500)
    assert g.epsilon(1e-5) == before < acc.epsilon(1e-5)
    assert g.provenance["accountant_steps"] == 500


def test_identity_steps_change_nothing():
    acc = dpc.Accountant().step(SGD, 300)
    e = acc.epsilon(1e-5)
    acc.step(dpc.PureDP(0.0), 5)
    assert acc.epsilon(1e-5) == e and acc.steps == 305


def test_grouping_of_consecutive_steps():
    acc = dpc.Accountant()
    acc.step(SGD).step(SGD).compose([SGD, (SGD, 3), dpc.Laplace(1.0), (SGD, 0), SGD])
    assert acc.history == [(SGD, 6), (dpc.Laplace(1.0), 1), (SGD, 1)]
    assert acc.counts() == {SGD: 7, dpc.Laplace(1.0): 1}
    assert "Accountant(steps=8" in repr(acc)


def test_state_dict_round_trip_is_plain_data():
    acc = dpc.Accountant(tolerance=1e-3)
    acc.compose([(SGD, 100), (dpc.Subsampled(dpc.Gaussian(0.7), 0.01), 7), (dpc.Laplace(3.0), 2)])
    state = acc.state_dict()
    text = json.dumps(state)                       # JSON-safe
    other = dpc.Accountant()
    other.load_state_dict(json.loads(text))
    assert other.history == acc.history
    assert other.epsilon(1e-5) == pytest.approx(acc.epsilon(1e-5), rel=1e-9)
    assert other.state_dict() == state


@pytest.mark.parametrize("state", [
    None, {}, {"format": "other"}, {"format": "dpcompose.Accountant", "version": 99},
    {"format": "dpcompose.Accountant", "version": 1, "history": [["laplace(1)"]]},
    {"format": "dpcompose.Accountant", "version": 1, "history": [["laplace(1) + rr(1)", 1]]},
    {"format": "dpcompose.Accountant", "version": 1, "history": [["laplace(-1)", 1]]},
    {"format": "dpcompose.Accountant", "version": 1, "history": [["laplace(1)", -2]]},
])
def test_load_state_dict_refuses_bad_states_and_changes_nothing(state):
    acc = dpc.Accountant().step(SGD, 3)
    with pytest.raises(InvalidParameterError):
        acc.load_state_dict(state)
    assert acc.history == [(SGD, 3)]


@pytest.mark.parametrize("call, err", [
    (lambda a: a.step(3.0), UnsupportedMechanismError),
    (lambda a: a.step((SGD, 3)), UnsupportedMechanismError),
    (lambda a: a.step(SGD, -1), InvalidParameterError),
    (lambda a: a.step(SGD, 2.5), InvalidParameterError),
    (lambda a: a.step(SGD, True), InvalidParameterError),
    (lambda a: a.compose([SGD, "laplace"]), UnsupportedMechanismError),
    (lambda a: a.compose([(SGD, -3)]), InvalidParameterError),
    (lambda a: a.epsilon(math.nan), InvalidParameterError),
    (lambda a: a.epsilon(-0.1), InvalidParameterError),
    (lambda a: a.delta(-1.0), InvalidParameterError),
    (lambda a: a.epsilon_bounds(1.5), InvalidParameterError),
])
def test_bad_input_raises_and_records_nothing(call, err):
    acc = dpc.Accountant().step(SGD, 2)
    with pytest.raises(err):
        call(acc)
    assert acc.history == [(SGD, 2)]


@pytest.mark.parametrize("kwargs", [
    dict(tolerance=0.0), dict(tolerance=math.nan), dict(tolerance=2.0), dict(horizon=0),
    dict(horizon=2.5), dict(discretization=-1e-4), dict(tail_mass=0.0), dict(max_points=10),
    dict(max_points=True),
])
def test_bad_options(kwargs):
    with pytest.raises(InvalidParameterError):
        dpc.Accountant(**kwargs)


def test_too_large_a_grid_is_a_clear_error():
    acc = dpc.Accountant(discretization=1e-6, max_points=4096).step(SGD, 50)
    with pytest.raises(dpc.MethodNotApplicableError, match="max_points"):
        acc.epsilon(1e-5)


@settings(max_examples=15, deadline=None)
@given(sigma=st.floats(0.6, 4.0), q=st.floats(1e-3, 0.2), k=st.integers(1, 400),
       d=st.sampled_from([1e-3, 1e-5, 1e-9]))
def test_law_incremental_brackets_fresh_compose(sigma, q, k, d):
    m = dpc.Subsampled(dpc.Gaussian(sigma), q)
    acc = dpc.Accountant()
    acc.step(m, k // 2)
    acc.epsilon(d)                                  # an earlier query, then extend
    acc.step(m, k - k // 2)
    mine = acc.epsilon_bounds(d)
    ref = dpc.compose([(m, k)], method="pld").epsilon_bounds(d)
    assert overlap(mine, ref, 1e-9), (mine, ref)
    # delta(epsilon(d)) <= d on the accountant's own curve
    if math.isfinite(mine[1]):
        assert acc.delta(mine[1]) <= d * (1 + 1e-9)

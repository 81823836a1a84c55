"""dpc.dpsgd / dpc.dpsgd_noise: DP-SGD in epochs and batch sizes, with its sampler and neighbours.

Independent truth:
- the Gaussian closed form (Balle-Wang profile in mpmath) where DP-SGD is a plain
  Gaussian composition (full batches);
- dp_accounting's PLD (pessimistic, fine grid) and prv-accountant's certified
  [lower, upper] on the same DP-SGD workload (ours never below their lower bound, our
  lower bound never above their upper bound, and ours within 0.1% of dp_accounting's);
- brute-force enumeration for subsampled randomized response (tests/oracles/subsampled.py),
  Poisson and without replacement;
- the per-epoch table against fresh compositions.
"""

from __future__ import annotations

import math

import mpmath as mp
import pytest

import dpcompose as dpc
from dpcompose.errors import InvalidParameterError
from dpcompose.training import SHUFFLE_REFUSAL, dpsgd_mechanism

from oracles import gaussian_delta_mp
from oracles.subsampled import epsilon_of, wor_rr_delta

RUN = dict(noise_multiplier=1.1, batch_size=256, dataset_size=60000)
Q = 256 / 60000


@pytest.fixture(autouse=True)
def _mp_precision():
    """mpmath precision for the oracles, restored afterwards (other test modules set their own)."""
    with mp.workdps(40):
        yield


def overlap(a, b, slack=1e-12):
    return a[0] <= b[1] * (1 + slack) + slack and b[0] <= a[1] * (1 + slack) + slack


def test_dpsgd_is_the_composition_it_describes():
    g = dpc.dpsgd(**RUN, epochs=3, delta=1e-5, method="pld")
    assert g.setting["steps_per_epoch"] == 235 and g.setting["steps"] == 705
    ref = dpc.compose([(dpc.Subsampled(dpc.Gaussian(1.1), Q), 705)], method="pld")
    assert g.epsilon_bounds(1e-5) == ref.epsilon_bounds(1e-5)
    assert g.delta(1.0) == ref.delta(1.0)
    assert isinstance(g, dpc.Guarantee) and isinstance(g, dpc.DPSGDGuarantee)


def test_every_answer_names_sampler_and_neighbour_relation():
    g = dpc.dpsgd(**RUN, epochs=1, delta=1e-5)
    assert g.provenance["neighbors"] == "add/remove one example"
    assert g.provenance["sampler"] == "poisson"
    assert g.provenance["dpsgd"]["sensitivity"] == 1.0
    r = repr(g)
    assert "sampler='poisson'" in r and "add/remove one example" in r and "epsilon<=" in r
    w = dpc.dpsgd(**RUN, steps=10, sampler="without_replacement")
    assert w.provenance["neighbors"] == "substitution of one example"
    assert "substitution of one example" in repr(w)


def test_samplers_map_to_mechanisms():
    assert dpsgd_mechanism(**RUN) == dpc.Subsampled(dpc.Gaussian(1.1), Q, "poisson")
    # a fixed batch: substitution changes the clipped sum by up to 2C
    assert dpsgd_mechanism(**RUN, sampler="without_replacement") == dpc.Subsampled(
        dpc.Gaussian(1.1, sensitivity=2.0), Q, "without_replacement")
    assert dpsgd_mechanism(noise_multiplier=2.0, batch_size=10, dataset_size=10,
                           sampler="without_replacement") == dpc.Gaussian(2.0, sensitivity=2.0)


@pytest.mark.parametrize("epochs, steps", [(1, 235), (2.5, 588), (0.001, 1), (30, 7050)])
def test_epochs_count_ceil_n_over_b_steps_each(epochs, steps):
    assert dpc.dpsgd(**RUN, epochs=epochs).setting["steps"] == steps


def test_full_batches_are_the_gaussian_closed_form():
    # Poisson at rate 1 and fixed batches of the whole dataset are plain Gaussian steps
    for sampler, sens in (("poisson", 1.0), ("without_replacement", 2.0)):
        g = dpc.dpsgd(noise_multiplier=4.0, batch_size=500, dataset_size=500, steps=30, sampler=sampler)
        mu = sens * math.sqrt(30) / 4.0
        for e in (0.5, 2.0):
            truth = float(gaussian_delta_mp(mu, e))
            lo, hi = g.delta_bounds(e)
            assert lo <= truth * (1 + 1e-12) and truth <= hi <= truth * (1 + 1e-6)


def test_shuffle_is_refused_with_the_remedy():
    with pytest.raises(InvalidParameterError) as info:
        dpc.dpsgd(**RUN, epochs=1, sampler="shuffle")
    msg = str(info.value)
    assert msg == SHUFFLE_REFUSAL
    assert "poisson_sampling=True" in msg and "without_replacement" in msg and "no known certified" in msg
    with pytest.raises(InvalidParameterError, match="no known certified"):
        dpc.dpsgd_noise(target_epsilon=1.0, delta=1e-5, batch_size=256, dataset_size=60000, epochs=1,
                        sampler="shuffle")


@pytest.mark.parametrize("kwargs, words", [
    (dict(batch_size=70000), ["batch_size = 70000", "dataset_size = 60000"]),
    (dict(epochs=3, steps=10), ["exactly one of epochs and steps", "both"]),
    (dict(epochs=None), ["exactly one of epochs and steps", "neither"]),
    (dict(noise_multiplier=math.nan), ["noise_multiplier", "NaN"]),
    (dict(noise_multiplier=0.0), ["noise_multiplier", "0 means no privacy"]),
    (dict(noise_multiplier=-1.0), ["noise_multiplier"]),
    (dict(batch_size=0), ["batch_size", ">= 1"]),
    (dict(batch_size=2.5), ["batch_size"]),
    (dict(dataset_size=-5), ["dataset_size"]),
    (dict(epochs=0), ["epochs"]),
    (dict(epochs=math.inf), ["epochs"]),
    (dict(epochs=None, steps=0), ["steps"]),
    (dict(epochs=None, steps=1.5), ["steps"]),
    (dict(sampler="bootstrap"), ["sampler", "poisson"]),
    (dict(neighbors="zero_out"), ["neighbors", "add_remove"]),
    (dict(neighbors="substitution"), ["poisson", "add_remove"]),
    (dict(sampler="without_replacement", neighbors="add_remove"), ["substitution"]),
    (dict(delta=1.5), ["delta"]),
    (dict(method="nope"), ["nope"]),
])
def test_bad_inputs_name_the_parameter(kwargs, words):
    args = dict(RUN, epochs=1)
    args.update(kwargs)
    with pytest.raises(InvalidParameterError) as info:
        dpc.dpsgd(**args)
    for w in words:
        assert w in str(info.value)


def test_against_dp_accounting_and_prv_accountant():
    dpa = pytest.importorskip("dp_accounting")
    prv = pytest.importorskip("prv_accountant")
    from dp_accounting.pld import PLDAccountant

    k, d = 3000, 1e-5
    lo, hi = dpc.dpsgd(**RUN, steps=k, method="pld").epsilon_bounds(d)
    acc = PLDAccountant(value_discretization_interval=1e-4)
    acc.compose(dpa.PoissonSampledDpEvent(Q, dpa.GaussianDpEvent(1.1)), k)
    theirs = acc.get_epsilon(d)                      # pessimistic: an upper bound (to its grid)
    assert lo <= theirs                               # our lower bound never above their upper bound
    assert hi >= theirs * (1 - 1e-3)                  # and ours close to theirs
    assert hi <= theirs * (1 + 1e-4)
    mech = prv.PoissonSubsampledGaussianMechanism(noise_multiplier=1.1, sampling_probability=Q)
    p_lo, _, p_hi = prv.PRVAccountant(prvs=mech, max_self_compositions=k, eps_error=0.01,
                                      delta_error=1e-9).compute_epsilon(delta=d, num_self_compositions=k)
    assert p_lo <= hi and lo <= p_hi                  # the certified brackets overlap
    assert p_lo <= lo and hi <= p_hi                  # and ours is inside theirs (0.02 wide)


def test_per_epoch_table_brackets_fresh_compositions():
    g = dpc.dpsgd(**RUN, epochs=6, delta=1e-5)
    rows = g.per_epoch()
    assert [r["epoch"] for r in rows] == list(range(1, 7))
    assert [r["steps"] for r in rows] == [235 * e for e in range(1, 7)]
    ups = [r["epsilon_upper"] for r in rows]
    assert all(a < b for a, b in zip(ups, ups[1:]))
    for r in rows[::2] + rows[-1:]:
        ref = dpc.compose([(dpsgd_mechanism(**RUN), r["steps"])], method="pld").epsilon_bounds(1e-5)
        assert overlap((r["epsilon_lower"], r["epsilon_upper"]), ref), (r, ref)
    assert overlap((rows[-1]["epsilon_lower"], rows[-1]["epsilon_upper"]), g.epsilon_bounds(1e-5))
    # a step count that is not a whole number of epochs ends with a partial epoch
    part = dpc.dpsgd(**RUN, steps=500).per_epoch(1e-5, lower=False)
    assert [r["steps"] for r in part] == [235, 470, 500] and part[0]["epsilon_lower"] is None
    with pytest.raises(InvalidParameterError, match="delta"):
        dpc.dpsgd(**RUN, steps=10).per_epoch()


def test_dpsgd_noise_is_certified_and_near_the_boundary():
    target, d = 1.0, 1e-5
    sigma = dpc.dpsgd_noise(target_epsilon=target, delta=d, batch_size=256, dataset_size=60000, epochs=10)
    assert dpc.dpsgd(**dict(RUN, noise_multiplier=sigma), epochs=10, method="pld").epsilon(d) <= target
    # 0.1% less noise: the certified LOWER bound already exceeds the target, so the truth does
    lower = dpc.dpsgd(**dict(RUN, noise_multiplier=sigma * (1 - 1e-3)), epochs=10, method="pld")
    assert lower.epsilon_bounds(d)[0] > target
    acc = dpc.Accountant().step(dpsgd_mechanism(**dict(RUN, noise_multiplier=sigma * (1 - 1e-3))), 2350)
    assert acc.epsilon_bounds(d)[0] > target


@pytest.mark.parametrize("kwargs", [
    dict(target_epsilon=0.0), dict(target_epsilon=math.nan), dict(delta=0.0), dict(delta=1.0),
    dict(batch_size=100000), dict(epochs=None),
])
def test_dpsgd_noise_bad_inputs(kwargs):
    args = dict(target_epsilon=1.0, delta=1e-5, batch_size=256, dataset_size=60000, epochs=1)
    args.update(kwargs)
    with pytest.raises(InvalidParameterError):
        dpc.dpsgd_noise(**args)


# ---------------------------------------------------------------------------
# sampling without replacement: the truth is the worst mix of directions (DESIGN.md note 4)


def _wor_cases():
    return [(2.0, 0.5, 2, 0.25), (1.0, 0.1, 10, 1e-3), (1.0, 0.3, 6, 1e-2)]


@pytest.mark.parametrize("eps, q, k, d", _wor_cases())
def test_without_replacement_against_brute_force(eps, q, k, d):
    m = dpc.Subsampled(dpc.RandomizedResponse(eps), q, "without_replacement")
    truth_eps = float(epsilon_of(lambda e: wor_rr_delta(eps, q, k, e), d))
    for method in ("pld", "auto"):
        g = dpc.compose([(m, k)], method=method)
        assert g.epsilon(d) >= truth_eps * (1 - 1e-9), (method, g.epsilon(d), truth_eps)
        if g.has_lower_bound:
            assert g.epsilon_lower(d) <= truth_eps * (1 + 1e-9), (method, g.epsilon_lower(d), truth_eps)
    acc = dpc.Accountant().step(m, k)
    assert acc.epsilon(d) >= truth_eps * (1 - 1e-9), (acc.epsilon(d), truth_eps)


@pytest.mark.parametrize("mech", [dpc.RandomizedResponse(1.0), dpc.PureDP(1.0)])
def test_without_replacement_delta_against_brute_force(mech):
    """The brief's second reproduction: PureDP(1) at q = 0.1, 10 steps, delta(0.5) >= 0.01409."""
    m = dpc.Subsampled(mech, 0.1, "without_replacement")
    g = dpc.compose([(m, 10)], method="pld")
    for e in (0.2, 0.5, 1.0):
        truth = float(wor_rr_delta(1.0, 0.1, 10, e))
        assert g.delta(e) >= truth * (1 - 1e-9), (e, g.delta(e), truth)
        assert g.delta_lower(e) <= truth * (1 + 1e-9)

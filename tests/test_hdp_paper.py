"""The paper's numbers (Eqs. 3-4, Thm 3, Cor. 6, Cor. 7, Examples 1-3) against brute force,
the experiment simulators against the exact values, and the examples/ scripts run."""

import contextlib
import io
import itertools
import math
import re
import runpy
from pathlib import Path

import numpy as np
import pytest

import dpcompose as dpc
from dpcompose.hypotheses import Allowed, Hypothesis, hdp
from dpcompose.hypotheses.experiment import (
    FixedAdversary,
    FunctionAdversary,
    LaplaceQuery,
    RandomizedResponseQuery,
    Step,
    classic_experiment,
    count_query,
    estimate_delta,
    generalized_experiment,
    privacy_loss,
)
from dpcompose.hypotheses.paper import cor6, cor7, eq4, thm3

from oracles.hdp_brute import brute_delta

RR = dpc.RandomizedResponse
EXAMPLES = Path(__file__).resolve().parent.parent / "examples"


def brute_uniform(eps, e):
    k = len(eps)
    h1 = [(b, 1.0 / (2 ** k - 1)) for b in itertools.product((0, 1), repeat=k) if any(b)]
    return brute_delta(eps, [((0,) * k, 1.0)], h1, e)


# ---------------------------------------------------------------------------
# Sec. V-B: the uniform prior


@pytest.mark.parametrize("k,eps1", [(1, 0.5), (3, 1.0), (6, 0.3), (8, 2.0)])
def test_eq4_is_valid_and_exact_at_delta_zero_for_randomized_response(k, eps1):
    p = eq4(eps1, 0.0, k)
    closed = math.log(((1 + math.exp(eps1)) ** k - 1) / (2 ** k - 1))
    assert p.epsilon == pytest.approx(closed, rel=1e-12)
    assert p.is_guarantee
    # valid: no loss beyond the paper's epsilon; and exact: any smaller epsilon fails
    assert brute_uniform([eps1] * k, p.epsilon) <= 1e-15
    assert brute_uniform([eps1] * k, p.epsilon * (1 - 1e-6)) > 0


def test_eq4_and_cor7_delta_and_extremes():
    k, d = 10, 1e-7
    assert eq4(0.5, d, k).delta == pytest.approx(k * 2 ** (k - 1) / (2 ** k - 1) * d, rel=1e-12)
    assert cor7(0.5, d, k).epsilon == eq4(0.5, d, k).epsilon
    big = eq4(50.0, 1e-300, 10 ** 9)
    assert math.isfinite(big.epsilon) and math.isfinite(big.delta)
    assert eq4(0.0, 0.0, 5).epsilon == pytest.approx(0.0, abs=1e-12)
    for bad in (lambda: eq4(float("nan"), 0.0, 3), lambda: eq4(1.0, 1.0, 3), lambda: eq4(1.0, 0.0, 0),
                lambda: eq4(-1.0, 0.0, 3), lambda: cor7(1.0, -1e-9, 2)):
        with pytest.raises(dpc.InvalidParameterError):
            bad()


def test_cor7_for_approximate_dp_is_valid_against_the_exact_class_worst_case():
    k, e1, d1 = 8, 0.5, 1e-4
    p = cor7(e1, d1, k)
    exact = hdp([dpc.ApproxDP(e1, d1)] * k, hypotheses=(Hypothesis.point((0,) * k), Hypothesis.uniform_nonzero(k)))
    assert exact.exact
    assert exact.delta(p.epsilon) <= p.delta * (1 + 1e-9)


@pytest.mark.parametrize("k", [3, 6])
def test_thm3_and_cor6_bound_the_brute_force_truth(k):
    eps = [0.4 + 0.25 * i for i in range(k)]
    mechs = [RR(x) for x in eps]
    for d in (1e-6, 1e-2):
        t = thm3(mechs, d, method="exact")
        assert t.is_guarantee
        assert brute_uniform(eps, t.epsilon) <= d * (1 + 1e-9)
        c = cor6(mechs, d, method="optimal")
        if c.is_guarantee:
            assert brute_uniform(eps, c.epsilon) <= c.delta * (1 + 1e-9)
        exact = hdp(mechs, hypotheses=(Hypothesis.point((0,) * k), Hypothesis.uniform_nonzero(k)))
        assert exact.epsilon(d) <= t.epsilon + 1e-9  # dpcompose's exact value is never worse


def test_thm3_rejects_bad_delta():
    with pytest.raises(dpc.InvalidParameterError):
        thm3([RR(1.0)], float("nan"))


# ---------------------------------------------------------------------------
# Sec. V-A Example 3: the paper's unbounded expression misses a pair


def test_example3_unbounded_expression_of_the_paper_under_reports():
    k1, k2, k3 = 5, 6, 10
    eps = [0.3] * k3
    c1 = tuple([1] * k2 + [0] * (k3 - k2))
    c2 = tuple([1] * k1 + [0] * (k2 - k1) + [1] * (k3 - k2))
    zero = (0,) * k3
    # paper: max{Comp(M_k1..M_k3), Comp(M_1..M_k2)}: 6 mechanisms at most
    paper_eps = 0.3 * max(k3 - k1 + 1, k2)
    truth = max(brute_delta(eps, [(zero, 1.0)], [(c, 1.0)], paper_eps) for c in (c1, c2))
    assert truth > 0.01  # the pair (c2, 0) of 9 mechanisms violates the paper's number
    g = hdp([RR(x) for x in eps], membership=Allowed([c1, c2, zero]), method="exact")
    assert g.epsilon(0.0) == pytest.approx(0.3 * 9, rel=1e-9)


# ---------------------------------------------------------------------------
# the experiments (Alg. 1 and Alg. 2)


def _rr_adversary(eps):
    return FixedAdversary([Step((), ("t",), RandomizedResponseQuery(lambda db: "t" in db, e)) for e in eps])


def test_experiments_run_and_validate_their_input():
    adv = _rr_adversary([1.0, 1.0])
    v = classic_experiment(adv, 2, 1, r=3, rng=np.random.default_rng(0))
    assert len(v.outputs) == 2 and v.r == 3
    v = generalized_experiment(adv, 2, (1, 0), rng=np.random.default_rng(0))
    assert len(v.steps) == 2
    for bad in (lambda: classic_experiment(adv, 2, 2), lambda: generalized_experiment(adv, 2, (1,)),
                lambda: generalized_experiment(adv, 2, (1, 3)),
                lambda: generalized_experiment(FunctionAdversary(lambda i, h, r: None), 1, (1,)),
                lambda: estimate_delta(adv, 2, Hypothesis.point((0, 0)), Hypothesis.point((1, 1)),
                                       float("nan")),
                lambda: LaplaceQuery(count_query(), -1.0)):
        with pytest.raises(dpc.InvalidParameterError):
            bad()


def test_privacy_loss_of_a_view_matches_the_closed_form():
    adv = _rr_adversary([1.0, 0.5])
    v = generalized_experiment(adv, 2, (1, 1), rng=np.random.default_rng(4))
    loss = privacy_loss(v, Hypothesis.point((1, 1)), Hypothesis.point((0, 0)))
    expected = sum(e if y == 1 else -e for e, y in zip((1.0, 0.5), v.outputs))
    assert loss == pytest.approx(expected, rel=1e-12)


def test_monte_carlo_never_exceeds_the_exact_value_beyond_sampling_error():
    eps = [1.0, 0.5, 0.8]
    p0 = Hypothesis.uniform([(1, 0, 0), (0, 1, 1)])
    p1 = Hypothesis.table({(0, 0, 0): 0.5, (0, 1, 0): 0.5})
    g = hdp([RR(x) for x in eps], hypotheses=(p0, p1))
    for a, b in ((p0, p1), (p1, p0)):
        for e in (0.2,):
            est = estimate_delta(_rr_adversary(eps), 3, a, b, e, samples=1000, seed=11)
            assert est.estimate <= g.delta(e) + 4 * est.standard_error + 1e-3


def test_adaptive_laplace_adversary_within_the_simple_composition_bound():
    # the adversary picks the next noise scale from the previous output (adaptive)
    def choose(i, history, r):
        scale = 1.0 if not history or history[-1] < 0.5 else 2.0
        return Step((), ("t",), LaplaceQuery(count_query(), scale))

    adv = FunctionAdversary(choose)
    k, e = 3, 1.0
    # every round is at worst 1-DP, so the classic bound is the 3-DP profile of pure DP
    from dpcompose.representations import pure_dp_profile

    bound = pure_dp_profile(3.0)(e)
    est = estimate_delta(adv, k, Hypothesis.point((1, 1, 1)), Hypothesis.point((0, 0, 0)), e,
                         samples=1000, seed=5)
    assert 0.0 < est.estimate <= bound + 4 * est.standard_error


# ---------------------------------------------------------------------------
# the examples run and print the paper's numbers beside dpcompose's


@pytest.mark.parametrize("script,needles", [
    ("paper_uniform_prior.py", ["Eqs. 3-4", "Thm 3", "Cor. 6", "Cor. 7", "dpcompose exact"]),
    ("paper_membership.py", ["Example 1", "Example 2", "Example 3", "parallel composition",
                             "NOT a guarantee"]),
    ("paper_composite.py", ["Thm 1", "not a guarantee", "0.6201", "0.8137", "Monte Carlo"]),
])
def test_examples_run(script, needles):
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        runpy.run_path(str(EXAMPLES / script), run_name="__main__")
    text = out.getvalue()
    for n in needles:
        assert n in text, f"{script} output lacks {n!r}"
    assert not re.search(r"\bnan\b", text, re.IGNORECASE)
    assert all(len(line) <= 80 for line in text.splitlines()), "output wider than 80 columns (issue 13)"


def test_gaussian_experiment_matches_the_closed_form_profile():
    from dpcompose.hypotheses.experiment import GaussianQuery
    from dpcompose.representations import gaussian_profile

    adv = FixedAdversary([Step((), ("t",), GaussianQuery(count_query(), 1.0))] * 2)
    exact = gaussian_profile(math.sqrt(2.0))(0.5)  # two sensitivity-1 queries, sigma = 1
    est = estimate_delta(adv, 2, Hypothesis.point((1, 1)), Hypothesis.point((0, 0)), 0.5, samples=2000, seed=3)
    assert abs(est.estimate - exact) <= 4 * est.standard_error + 1e-3

"""Group(Subsampled(...)): a person's g records in a Poisson-subsampled Gaussian, certified by rdp.

Independent truth (tests/oracles/sampled_group.py): the g-record instance P = N(0, s^2),
Q = sum_j Binom(g, q)_j N(j, s^2) (each of the person's records sampled on its own, a sum
query) is one database pair of the group, so its Renyi divergences (mpmath quadrature) and
the delta of a threshold test on k steps (closed forms) are LOWER bounds of the truth; the
certified curve and the composed epsilon must lie above them.
"""

from __future__ import annotations

import mpmath as mp
import numpy as np
import pytest

import dpcompose as dpc
from dpcompose.errors import NoRuleError
from dpcompose.representations.rules import (
    dominance_key,
    dominating_pair,
    eps_delta_pair,
    privacy_profile,
    pure_epsilon,
    renyi_curve,
)
from dpcompose.expressions import format_expression, format_mechanism, parse, to_mechanisms
from oracles.sampled_group import renyi_divergences, threshold_delta

RDP_CERTIFIES = "method='rdp' certifies it \\(the Renyi group rule\\)"


@pytest.fixture(scope="module", autouse=True)
def _precision():
    with mp.workdps(30):
        yield


def _group(sigma=1.0, q=0.01, size=2):
    return dpc.Group(dpc.Subsampled(dpc.Gaussian(sigma), q), size)


@pytest.mark.parametrize("sigma, q, size", [(1.0, 0.01, 2), (1.0, 0.05, 3), (2.0, 0.1, 4)])
def test_group_curve_is_above_the_g_record_instance(sigma, q, size):
    orders = np.array([2.0, 3.0, 4.0, 8.0])
    got = renyi_curve(_group(sigma, q, size), orders)
    for alpha, bound in zip(orders, got):
        forward, backward = renyi_divergences(sigma, q, size, int(alpha))
        assert bound >= float(forward) and bound >= float(backward), (alpha, bound, forward, backward)


def test_a_group_of_one_is_the_inner_curve():
    inner = dpc.Subsampled(dpc.Gaussian(1.1), 0.01)
    orders = np.array([1.5, 2.0, 8.0, 64.0])
    assert np.array_equal(renyi_curve(dpc.Group(inner, 1), orders), renyi_curve(inner, orders))


@pytest.mark.parametrize("steps, eps", [(1, 0.5), (1, 1.0), (300, 1.0), (1000, 1.0), (1000, 2.0)])
def test_composed_epsilon_is_above_k_steps_of_the_instance(steps, eps):
    # at steps = 1 the threshold test is the exact delta of the instance's pair
    lower = float(threshold_delta(1.0, 0.01, 2, steps, eps))
    assert lower > 0.0
    g = dpc.compose([(_group(), steps)], method="auto")
    assert g.method == "rdp"
    assert g.delta(eps) >= lower
    # the true epsilon at a delta just below the instance's delta(eps) exceeds eps
    assert g.epsilon(lower * (1.0 - 1e-6)) >= eps


def test_other_methods_and_rules_refuse_naming_rdp():
    m = _group()
    for method in ("pld", "optimal", "simple", "advanced"):
        with pytest.raises(dpc.MethodNotApplicableError, match=RDP_CERTIFIES):
            dpc.compose([(m, 10)], method=method)
    for rule in (privacy_profile, dominating_pair, dominance_key):
        with pytest.raises(NoRuleError, match=RDP_CERTIFIES):
            rule(m)
    assert pure_epsilon(m) == float("inf")


def test_the_group_is_no_better_than_one_record_and_no_worse_than_g_squared():
    # sanity of the figures (not the certificate, which is tested above): per user above per record
    inner = dpc.Subsampled(dpc.Gaussian(1.1), 256 / 60000)
    one = dpc.compose([(inner, 2000)], method="rdp").epsilon(1e-5)
    two = dpc.compose([(dpc.Group(inner, 2), 2000)], method="rdp").epsilon(1e-5)
    assert one < two


def test_a_subsampled_pure_mechanism_keeps_its_chained_pair():
    # Subsampled(PureDP(eps)) is log(1 + q(e^eps - 1))-DP; the group chains it: g times that
    inner = dpc.Subsampled(dpc.PureDP(1.0), 0.1)
    amplified = float(mp.log(1 + mp.mpf("0.1") * mp.expm1(1)))
    m = dpc.Group(inner, 3)
    assert pure_epsilon(m) >= 3 * amplified
    assert pure_epsilon(m) <= 3 * amplified * (1 + 1e-12)
    for method in ("optimal", "rdp"):
        assert dpc.compose([(m, 5)], method=method).epsilon(1e-6) <= 15 * amplified * (1 + 1e-9)
    pair = eps_delta_pair(m)
    assert pair is not None and pair[1] == 0.0


def test_subsampled_without_a_renyi_curve_is_refused_clearly():
    m = dpc.Group(dpc.Subsampled(dpc.Gaussian(1.0), 0.1, "without_replacement"), 2)
    with pytest.raises(dpc.MethodNotApplicableError):
        dpc.compose([(m, 3)], method="auto")
    with pytest.raises(NoRuleError, match="without_replacement"):
        renyi_curve(m, [2.0])


def test_the_expression_puts_the_sampler_inside_the_group_and_round_trips():
    text = "group(gaussian(sigma=1) @ poisson(0.01), size=2) x 1000"
    (m, k), = to_mechanisms(text)
    assert (m, k) == (_group(), 1000)
    assert parse(format_expression(parse(text))) == parse(text)
    assert to_mechanisms(format_mechanism(m, k)) == [(m, k)]


def test_cli_answers_by_rdp_above_the_instance():
    import json

    from typer.testing import CliRunner

    from dpcompose.cli import app

    res = CliRunner().invoke(app, ["delta", "group(gaussian(sigma=1) @ poisson(0.01), size=2) x 1000",
                                   "--epsilon", "2", "--json", "-q"])
    assert res.exit_code == 0, res.output
    out = json.loads(res.output)
    assert out["method"] == "rdp"
    assert out["delta_upper"] >= float(threshold_delta(1.0, 0.01, 2, 1000, 2.0))


def test_calibrated_sigma_leaves_the_instance_within_the_target():
    # calibration solves under rdp; at its sigma the instance's delta (a lower bound of the
    # truth) must already meet the target, or the certified answer would be below the truth
    res = dpc.calibrate(lambda s: _group(s, 0.01, 2), 1000, epsilon=3.0, delta=1e-5)
    assert res.parameter > 0.0
    assert float(threshold_delta(res.parameter, 0.01, 2, 1000, 3.0)) <= 1e-5
    assert dpc.compose([(_group(res.parameter, 0.01, 2), 1000)], method="auto").epsilon(1e-5) <= 3.0

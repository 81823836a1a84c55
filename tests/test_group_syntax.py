"""Group syntax: ``group(MECHANISM, size=g)`` in expressions, the CLI and plan files.

Values are checked against independent closed forms: a Laplace(b) group of g records is
pure (g/b)-DP per step, attained (k steps at delta = 0: k g / b); a Gaussian(sigma) group of
g records is the Gaussian with mu = g / sigma, composed k times mu sqrt(k), whose exact
delta(eps) is Balle and Wang's closed form (mpmath, tests/oracles).
"""

from __future__ import annotations

import json

import mpmath as mp
import pytest
from hypothesis import given
from hypothesis import strategies as st
from typer.testing import CliRunner

from dpcompose.cli import app
from dpcompose.errors import NoRuleError
from dpcompose.expressions import ExpressionError, format_expression, format_mechanism, parse, syntax_table, to_mechanisms
from dpcompose.mechanisms import Gaussian, Group, Laplace, PureDP, Subsampled
from dpcompose.plan import PlanError, parse_plan

from oracles import gaussian_delta_mp

runner = CliRunner()


def _epsilon(expr: str, delta: float) -> dict:
    res = runner.invoke(app, ["epsilon", expr, "--delta", repr(delta), "--json", "-q"])
    assert res.exit_code == 0, res.output
    return json.loads(res.output)


def test_parse_builds_the_group_and_round_trips():
    (m, k), = to_mechanisms("group(laplace(scale=10), size=3) x 50")
    assert (m, k) == (Group(Laplace(10.0), 3), 50)
    text = format_mechanism(m, k)
    assert text == "group(laplace(scale=10, sensitivity=1), size=3) x 50"
    assert to_mechanisms(text) == [(m, k)]
    # positional size, case ignored, in a sum, count before or after nothing else
    assert to_mechanisms("GROUP(laplace(10), 3) + pure(0.1) x 2") == [(Group(Laplace(10.0), 3), 1), (PureDP(0.1), 2)]


@given(scale=st.floats(0.01, 1e3), sens=st.floats(0.01, 100), g=st.integers(1, 50), k=st.integers(1, 10_000))
def test_round_trip_format_parse_equal(scale, sens, g, k):
    m = Group(Laplace(scale, sensitivity=sens), g)
    text = format_mechanism(m, k)
    assert to_mechanisms(text) == [(m, k)]
    assert format_expression(parse(text)) == text


def test_cli_laplace_group_is_pure_k_g_over_b():
    # Laplace(b) with g records moving together: pure (g/b)-DP, attained; k-fold at delta = 0 is k g / b
    out = _epsilon("group(laplace(scale=10), size=3) x 50", 0.0)
    exact = 50 * 3 / 10
    assert out["epsilon_lower"] <= exact <= out["epsilon_upper"] <= exact + 1e-9


@pytest.mark.parametrize("sigma,g,k,delta", [(10.0, 3, 50, 1e-6), (4.0, 2, 10, 1e-5)])
def test_cli_gaussian_group_brackets_the_exact_gaussian(sigma, g, k, delta):
    out = _epsilon(f"group(gaussian(sigma={sigma}), size={g}) x {k}", delta)
    with mp.workdps(40):
        mu = mp.mpf(g) * mp.sqrt(k) / sigma  # Gaussian group g: mu -> g mu; k-fold: mu sqrt(k)
        exact = mp.findroot(lambda e: gaussian_delta_mp(mu, e) - delta, (mp.mpf(0), mp.mpf(100)), solver="bisect")
        assert gaussian_delta_mp(mu, out["epsilon_upper"]) <= delta  # the upper end is a guarantee
    assert out["epsilon_lower"] <= exact <= out["epsilon_upper"] <= exact * (1 + 1e-3)


@pytest.mark.parametrize("text,field,needle", [
    ("group(laplace(10), size=0)", "size", "whole number >= 1"),
    ("group(laplace(10), size=2.5)", "size", "whole number >= 1"),
    ("group(laplace(10), size=k)", "size", "free parameter"),
    ("group(group(laplace(10), 2), 2)", None, "group inside a group"),
    ("group(laplace(10) x 3, size=2)", None, "after the group"),
    ("group(laplace(10) @ poisson(0.1) x 3, size=2)", None, "after the group"),
    ("group(laplace(10), size=2) @ poisson(0.1)", None, "sampler after group"),
    ("group(laplace(10))", None, "group size"),
])
def test_bad_groups_are_clear_errors(text, field, needle):
    with pytest.raises(ExpressionError) as info:
        to_mechanisms(text)
    assert needle in str(info.value)
    assert info.value.field == field


def test_a_family_without_a_group_rule_is_refused_naming_it(monkeypatch):
    # every registered family has a group rule today; a family without one (no pair of its
    # own) is refused when the term is built, with the family named
    import dpcompose.interfaces.expressions as ex

    def refuse(m):
        raise NoRuleError(f"group privacy: no certified group rule for {m.mechanism!r}", rule="group",
                          mechanism=m.mechanism)

    monkeypatch.setattr(ex, "group_equivalent", refuse)
    with pytest.raises(ExpressionError, match="no certified group rule for Laplace"):
        to_mechanisms("group(laplace(10), size=2)")


def test_term_of_refuses_a_subsampled_group():
    from dpcompose.errors import UnsupportedMechanismError

    # the library refuses the ambiguous sampler-after-group itself (record- vs user-level sampling)
    with pytest.raises(UnsupportedMechanismError, match="sampler after a group is ambiguous"):
        format_mechanism(Subsampled(Group(Laplace(10.0), 2), 0.1, "poisson"))


def test_plan_expression_string_and_error():
    p = parse_plan('[[invocations]]\nmechanism = "group(laplace(scale=10), size=3)"\ncount = 50\n')
    assert p.composition() == [(Group(Laplace(10.0), 3), 50)]
    with pytest.raises(PlanError, match="size"):
        parse_plan('[[invocations]]\nmechanism = "group(laplace(scale=10), size=0)"\n')


def _plan_with(mechanism: str, count: int = 1) -> str:
    return f"[[invocations]]\nmechanism = {mechanism}\ncount = {count}\n"


def test_plan_group_table_builds_the_group_and_its_per_record_sampler():
    p = parse_plan(_plan_with('{ type = "group", size = 3, mechanism = { type = "laplace", scale = 10 } }', 50))
    assert p.composition() == [(Group(Laplace(10.0), 3), 50)]
    sampled = ('{ type = "group", size = 2, mechanism = { type = "gaussian", sigma = 1.1, '
               'sampling = { rate = 0.01 } } }')
    p = parse_plan(_plan_with(sampled, 1000))
    assert p.composition() == [(Group(Subsampled(Gaussian(1.1), 0.01), 2), 1000)]
    # the table and the expression string are the same plan
    same = parse_plan(_plan_with('"group(gaussian(sigma=1.1) @ poisson(0.01), size=2)"', 1000))
    assert same.composition() == p.composition()


def test_plan_group_table_value_matches_the_closed_form():
    # a Laplace(b) group of g records, k runs: pure k g / b, attained at delta = 0 (as the CLI test above)
    p = parse_plan(_plan_with('{ type = "group", size = 4, mechanism = { type = "laplace", scale = 20 } }', 5))
    import dpcompose as dpc

    g = dpc.compose(p.composition(), method="optimal")
    assert 1.0 <= g.epsilon(0.0) <= 1.0 + 1e-9


@pytest.mark.parametrize("table, path, needle", [
    ('{ type = "group", size = 0, mechanism = { type = "laplace", scale = 10 } }', "mechanism.size", "whole number >= 1"),
    ('{ type = "group", size = 2.0, mechanism = { type = "laplace", scale = 10 } }', "mechanism.size", "integer"),
    ('{ type = "group", mechanism = { type = "laplace", scale = 10 } }', "mechanism.size", "missing"),
    ('{ type = "group", size = 2, mechanism = "laplace(10)" }', "mechanism.mechanism", "not an expression string"),
    ('{ type = "group", size = 2, mechanism = { type = "group", size = 2, mechanism = { type = "laplace", '
     'scale = 10 } } }', "mechanism.mechanism", "not another group"),
    ('{ type = "group", size = 2, mechanism = { type = "laplace", scale = -1 } }', "mechanism.mechanism.scale", "> 0"),
    ('{ type = "group", size = 2, mechanism = { type = "laplace", scale = 10 }, sampling = { rate = 0.1 } }',
     "mechanism.sampling", "unknown key"),
])
def test_plan_group_table_errors_name_the_field(table, path, needle):
    with pytest.raises(PlanError) as info:
        parse_plan(_plan_with(table))
    assert f"invocations[0].{path}" in str(info.value)
    assert needle in str(info.value)


def test_mechanisms_lists_group():
    assert "group(mechanism, size): Group" in syntax_table()


@pytest.mark.parametrize("target", ["group(gaussian, size=3) x 50", "group(gaussian(sigma=s), size=3) x 50"])
def test_cli_calibrates_the_group_not_the_inner_family(target):
    # the sigma meeting (1, 1e-6) for 50 Gaussians of a 3-record group: mu = 3 sqrt(50) / sigma
    # must satisfy the exact Gaussian delta(1) <= 1e-6 (a per-record calibration gives a third of it)
    extra = ["--parameter", "s"] if "sigma=s" in target else []
    res = runner.invoke(app, ["calibrate", target, "-e", "1", "-d", "1e-6", "--json", "-q", *extra])
    assert res.exit_code == 0, res.output
    sigma = json.loads(res.output)["value"]
    with mp.workdps(40):
        def mu(s):
            return 3 * mp.sqrt(50) / s
        assert gaussian_delta_mp(mu(sigma), 1) <= mp.mpf("1e-6")
        exact = mp.findroot(lambda s: gaussian_delta_mp(mu(s), 1) - mp.mpf("1e-6"), (mp.mpf(10), mp.mpf(1000)),
                            solver="bisect")
        assert exact <= sigma <= exact * (1 + 1e-3)

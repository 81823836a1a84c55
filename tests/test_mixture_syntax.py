"""MixtureOfGaussians in expressions, plan tables, the CLI and calibration (issue 12).

``mixture_of_gaussians(sigma, sensitivities=[...], probabilities=[...])`` (also ``mog``):
list-valued parameters in the syntax registry. Round trips are checked as laws (hypothesis):
the printed expression and the plan table give back an equal mechanism. Bad lists are clear
errors naming the parameter, the index, the value, the valid range and the remedy. Values
through the CLI and plan files are compared with the library (itself tested against mpmath
in tests/test_mixture.py); the calibrated sigma is checked against the mpmath profile
(tests/oracles/mixture.py): it meets the target and sigma * (1 - 1e-3) does not.
"""

from __future__ import annotations

import json
import math

import mpmath as mp
import pytest
from hypothesis import given
from hypothesis import strategies as st
from typer.testing import CliRunner

import dpcompose as dpc
from dpcompose.cli import app
from dpcompose.errors import InvalidParameterError
from dpcompose.expressions import (
    ExpressionError,
    bind,
    format_expression,
    format_mechanism,
    parse,
    syntax_table,
    to_mechanisms,
)
from dpcompose.plan import _SPECS, PlanError, _term_from_table, parse_plan
from dpcompose.representations import syntax_of

from oracles.mixture import hockey_threshold

runner = CliRunner()
MOG = dpc.MixtureOfGaussians
TEXT = "mog(sigma=1, sensitivities=[0, 1], probabilities=[0.9, 0.1])"


@st.composite
def mixtures(draw):
    sigma = draw(st.floats(0.05, 20.0))
    k = draw(st.integers(1, 4))
    cs = [draw(st.floats(1e-3, 50.0))] + [draw(st.one_of(st.just(0.0), st.floats(1e-3, 50.0))) for _ in range(k - 1)]
    weights = [draw(st.floats(1e-3, 1.0)) for _ in range(k)]
    total = math.fsum(weights)
    return MOG(sigma, tuple(cs), tuple(w / total for w in weights))


def test_the_brief_example_parses_and_prints_back():
    (m, k), = to_mechanisms("mog(sigma=1, sensitivities=[0, 1], probabilities=[0.99, 0.01]) x 1000")
    assert (m, k) == (MOG(1.0, (0.0, 1.0), (0.99, 0.01)), 1000)
    text = format_mechanism(m, k)
    assert text == "mixture_of_gaussians(sigma=1, sensitivities=[0, 1], probabilities=[0.99, 0.01]) x 1000"
    # positional arguments, the long name, case, a trailing comma, a sampler
    assert to_mechanisms("MixtureOfGaussians(1, [0, 1,], [0.99, 0.01]) x 1000") == [(m, 1000)]
    sub = dpc.Subsampled(m, 0.25)
    assert to_mechanisms(format_mechanism(sub, 3)) == [(sub, 3)]


@given(m=mixtures(), k=st.integers(1, 10**6))
def test_round_trip_expression_and_plan_table(m, k):
    text = format_mechanism(m, k)
    assert to_mechanisms(text) == [(m, k)]
    assert to_mechanisms(text.replace("mixture_of_gaussians", "mog", 1)) == [(m, k)]
    assert format_expression(parse(text)) == text
    table = {"type": "mixture_of_gaussians", "sigma": m.sigma, "sensitivities": list(m.sensitivities),
             "probabilities": list(m.probabilities)}
    assert _term_from_table(_SPECS["mixture_of_gaussians"].model_validate(table)).mechanism() == m


@given(m=mixtures())
def test_normalizing_the_probabilities_is_idempotent(m):
    # the constructor divides by the sum unless it is 1 within a few ulps: building again changes nothing
    assert MOG(m.sigma, m.sensitivities, m.probabilities) == m


def test_free_parameters_inside_lists_bind():
    terms = parse("mog(sigma=s, sensitivities=[0, c], probabilities=[1 - q, q]) x 10")
    assert terms[0].variables == {"s", "c", "q"}
    assert to_mechanisms(bind(terms, {"s": 2.0, "c": 1.5, "q": 0.25})) == [(MOG(2.0, (0.0, 1.5), (0.75, 0.25)), 10)]
    assert format_expression(terms) == "mixture_of_gaussians(sigma=s, sensitivities=[0, c], probabilities=[1 - q, q]) x 10"


_BAD = {"sensitivities": [-1.0, -1e-9, -math.inf, math.inf], "probabilities": [-0.5, 1.5, 2.0, math.inf]}


@given(name=st.sampled_from(sorted(_BAD)), data=st.data())
def test_a_bad_element_names_parameter_index_value_range_and_remedy(name, data):
    bad = data.draw(st.sampled_from(_BAD[name]))
    n = data.draw(st.integers(2, 4))
    i = data.draw(st.integers(0, n - 1))
    values = {"sensitivities": [1.0] * n, "probabilities": [1.0 / n] * n}
    values[name][i] = bad
    lists = {p: "[" + ", ".join("inf" if v == math.inf else "-inf" if v == -math.inf else repr(v) for v in vs) + "]"
             for p, vs in values.items()}
    text = f"mog(sigma=1, sensitivities={lists['sensitivities']}, probabilities={lists['probabilities']})"
    with pytest.raises(ExpressionError) as info:
        to_mechanisms(text)
    msg = str(info.value)
    param = syntax_of(MOG).parameter(name)
    assert info.value.field == name
    assert f"mixture_of_gaussians.{name}[{i}] = {bad!r}" in msg
    assert param.valid_range in msg and "e.g." in msg
    # the same list in a plan table (a TOML array): the file, the field and the index are named
    table = f'{{ type = "mixture_of_gaussians", sigma = 1, sensitivities = {lists["sensitivities"]}, ' \
            f'probabilities = {lists["probabilities"]} }}'
    with pytest.raises(PlanError) as plan_info:
        parse_plan(_plan(table), source="bad.toml")
    assert "'bad.toml'" in str(plan_info.value)
    assert f"invocations[0].mechanism.{name}[{i}]" in str(plan_info.value) and param.remedy in str(plan_info.value)


@given(n=st.integers(1, 5), m=st.integers(1, 5))
def test_unequal_lengths_name_both_lists(n, m):
    if n == m:
        m += 1
    text = f"mog(1, [{', '.join(['1'] * n)}], [{', '.join([repr(1.0 / m)] * m)}])"
    with pytest.raises(ExpressionError) as info:
        to_mechanisms(text)
    msg = str(info.value)
    assert info.value.field == "probabilities"
    assert f"probabilities has {m} entr" in msg and f"sensitivities has {n} entr" in msg and "e.g." in msg


@pytest.mark.parametrize("text, needle", [
    ("mog(1, [], [1])", "a list holds at least one number"),
    ("mog(1, 1, [1])", "'[' and a list of numbers for sensitivities"),
    ("mog([1], [1], [1])", "takes one number there, not a list"),
    ("mog(1, [1, 2], [0.5 0.5])", "',' or ']' closing the list probabilities"),
    ("gaussian(sigma=[1])", "takes one number there, not a list"),
    ("mog(1, [0, 1], [0.5, 0.4])", "sum to 0.9, not 1"),
    ("mog(1, [0, 0], [0.5, 0.5])", "every sensitivity with positive probability is 0"),
])
def test_malformed_lists_are_clear_errors(text, needle):
    with pytest.raises(ExpressionError) as info:
        to_mechanisms(text)
    assert needle in str(info.value)


def test_the_syntax_checks_lists_element_wise_for_the_library_too():
    syn = syntax_of(MOG)
    assert syn.check({"sensitivities": [0, 1], "probabilities": (0.5, 0.5)}) == {
        "sensitivities": (0.0, 1.0), "probabilities": (0.5, 0.5)}
    for bad, needle in [({"sensitivities": "01"}, "must be a list of numbers"),
                        ({"sensitivities": [0, True]}, "sensitivities[1] = True"),
                        ({"sensitivities": [0, math.nan]}, "sensitivities[1] = nan"),
                        ({"probabilities": []}, "probabilities is empty")]:
        with pytest.raises(InvalidParameterError) as info:
            syn.check(bad)
        assert needle in str(info.value)


def _plan(mechanism: str, count: int = 3) -> str:
    return f"[[invocations]]\nmechanism = {mechanism}\ncount = {count}\n[targets]\ndeltas = [1e-5]\n"


def test_plan_table_and_expression_build_the_library_mechanism():
    m = MOG(1.0, (0.0, 1.0), (0.9, 0.1))
    table = '{ type = "mixture_of_gaussians", sigma = 1, sensitivities = [0, 1], probabilities = [0.9, 0.1] }'
    assert parse_plan(_plan(table)).mechanisms == [(m, 3)]
    assert parse_plan(_plan(json.dumps(TEXT))).mechanisms == [(m, 3)]


@pytest.mark.parametrize("table, path, needle", [
    ('sigma = 1, sensitivities = [0, 1], probabilities = [0.9, 1.5]', "mechanism.probabilities[1]",
     "less than or equal to 1"),
    ('sigma = 1, sensitivities = [0, -1], probabilities = [0.9, 0.1]', "mechanism.sensitivities[1]",
     "greater than or equal to 0"),
    ('sigma = 1, sensitivities = [0, nan], probabilities = [0.9, 0.1]', "mechanism.sensitivities[1]", "finite"),
    ('sigma = 1, sensitivities = [], probabilities = [1]', "mechanism.sensitivities", "at least 1 item"),
    ('sigma = 1, sensitivities = 1, probabilities = [1]', "mechanism.sensitivities", "valid list"),
    ('sigma = 1, sensitivities = [0, "1"], probabilities = [0.9, 0.1]', "mechanism.sensitivities[1]",
     "valid number"),
    ('sigma = 1, sensitivities = [0, 1, 2], probabilities = [0.9, 0.1]', "mechanism.probabilities",
     "probabilities has 2 entries but sensitivities has 3 entries"),
    ('sigma = 1, sensitivities = [0, 1], probabilities = [0.9, 0.2]', "mechanism.probabilities", "sum to"),
    ('sensitivities = [0, 1], probabilities = [0.9, 0.1]', "mechanism.sigma", "is required but missing"),
])
def test_malformed_plan_tables_name_the_file_and_field(table, path, needle):
    with pytest.raises(PlanError) as info:
        parse_plan(_plan(f'{{ type = "mixture_of_gaussians", {table} }}'), source="mog.toml")
    msg = str(info.value)
    assert "'mog.toml'" in msg and f"invocations[0].{path}" in msg and needle in msg
    assert "Remedy:" in msg


def test_cli_epsilon_matches_the_library():
    res = runner.invoke(app, ["epsilon", f"{TEXT} x 3", "--delta", "1e-5", "--json", "-q"])
    assert res.exit_code == 0, res.output
    out = json.loads(res.output)
    g = dpc.compose([(MOG(1.0, (0.0, 1.0), (0.9, 0.1)), 3)])
    assert out["epsilon_upper"] == g.epsilon(1e-5)
    assert out["epsilon_lower"] == g.epsilon_lower(1e-5)


def test_cli_mechanisms_and_syntax_table_list_the_family():
    assert "mixture_of_gaussians(sigma, sensitivities=[...], probabilities=[...]) (also mog" in syntax_table()
    res = runner.invoke(app, ["mechanisms"], env={"COLUMNS": "250"})
    assert res.exit_code == 0, res.output
    assert "mixture_of_gaussians(sigma, sensitivities=[...], probabilities=[...])" in res.output


def _exact_delta(sigma: float, eps: float) -> mp.mpf:
    cs, ps = (0.0, 1.0), (0.9, 0.1)
    return max(hockey_threshold(sigma, cs, ps, eps, d) for d in ("add", "remove"))


def test_calibrated_sigma_meets_the_target_and_one_per_mille_less_does_not():
    # one release under "simple" (the exact profile): the calibrated sigma meets (1, 1e-5) by the
    # mpmath profile, and sigma * (1 - 1e-3) misses it
    r = dpc.calibrate(lambda s: MOG(s, (0.0, 1.0), (0.9, 0.1)), epsilon=1.0, delta=1e-5, method="simple")
    with mp.workdps(30):
        assert _exact_delta(r.parameter, 1.0) <= mp.mpf("1e-5")
        assert _exact_delta(r.parameter * (1 - 1e-3), 1.0) > mp.mpf("1e-5")


def test_calibrated_composition_is_certified_and_less_noise_fails_certainly():
    # ten releases under pld: the certified upper bound meets the target; at sigma * (1 - 1e-3)
    # even pld's certified lower bound misses it
    r = dpc.calibrate(lambda s: MOG(s, (0.0, 1.0), (0.9, 0.1)), 10, epsilon=1.0, delta=1e-5, method="pld")
    assert r.compose().epsilon(1e-5) <= 1.0
    less = dpc.compose([(MOG(r.parameter * (1 - 1e-3), (0.0, 1.0), (0.9, 0.1)), 10)], method="pld")
    assert less.epsilon_lower(1e-5) > 1.0


def test_calibrate_by_name_asks_for_the_lists_and_the_cli_template_fills_sigma():
    with pytest.raises(InvalidParameterError) as info:
        dpc.calibrate("mog", epsilon=1.0, delta=1e-5)
    assert "sensitivities, probabilities" in str(info.value) and "lambda sigma" in str(info.value)
    res = runner.invoke(app, ["calibrate", "mog(sensitivities=[0, 1], probabilities=[0.9, 0.1])",
                              "-e", "1", "-d", "1e-5", "--method", "simple", "--json", "-q"])
    assert res.exit_code == 0, res.output
    out = json.loads(res.output)
    assert out["parameter"] == "sigma"
    with mp.workdps(30):
        assert _exact_delta(out["value"], 1.0) <= mp.mpf("1e-5")
        assert _exact_delta(out["value"] * (1 - 1e-3), 1.0) > mp.mpf("1e-5")


def test_calibrate_by_name_refuses_families_with_other_required_parameters():
    # a family needing more than its noise (tree aggregation's steps) used to raise a TypeError
    with pytest.raises(InvalidParameterError) as info:
        dpc.calibrate("tree_aggregation", epsilon=1.0, delta=1e-5)
    assert "steps" in str(info.value) and "TreeAggregation(noise_multiplier, steps=...)" in str(info.value)


def test_plan_report_matches_the_library(tmp_path):
    path = tmp_path / "mog.toml"
    path.write_text('methods = ["pld"]\n' + _plan(
        '{ type = "mixture_of_gaussians", sigma = 1, sensitivities = [0, 1], probabilities = [0.9, 0.1] }'))
    res = runner.invoke(app, ["report", str(path), "--json", "-q"])
    assert res.exit_code == 0, res.output
    row, = json.loads(res.output)["rows"]
    g = dpc.compose([(MOG(1.0, (0.0, 1.0), (0.9, 0.1)), 3)], method="pld")
    assert (row["epsilon_upper"], row["epsilon_lower"]) == (g.epsilon(1e-5), g.epsilon_lower(1e-5))

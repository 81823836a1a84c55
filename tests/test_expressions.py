"""The mechanism expression syntax: round trips, parse errors with positions, bad values."""

from __future__ import annotations

import math

import pytest
from hypothesis import given
from hypothesis import strategies as st

import dpcompose as dpc
from dpcompose.errors import InvalidParameterError
from dpcompose.expressions import (
    ExpressionError,
    Term,
    format_expression,
    format_mechanism,
    parse,
    to_mechanisms,
)


def test_examples_from_the_docs():
    assert to_mechanisms("laplace(scale=20) x 500") == [(dpc.Laplace(20.0), 500)]
    assert to_mechanisms("gaussian(sigma=1.1) x 14062 @ poisson(0.0042667)") == [
        (dpc.Subsampled(dpc.Gaussian(1.1), 0.0042667, "poisson"), 14062)]
    assert to_mechanisms("gaussian(1.1) @ poisson(rate=0.01) x 1e6") == [
        (dpc.Subsampled(dpc.Gaussian(1.1), 0.01), 10**6)]
    assert to_mechanisms("pure(0.1) x 50 + laplace(5, 2)*30 + approx(epsilon=0.05, delta=1e-8) × 20") == [
        (dpc.PureDP(0.1), 50), (dpc.Laplace(5.0, sensitivity=2.0), 30), (dpc.ApproxDP(0.05, 1e-8), 20)]
    assert to_mechanisms("rr(1) + exponential(epsilon=0.3) + randomized_response(2) x 1_000") == [
        (dpc.RandomizedResponse(1.0), 1), (dpc.Exponential(0.3), 1), (dpc.RandomizedResponse(2.0), 1000)]
    assert to_mechanisms("laplace(20) @ without_replacement(0.5) x 3") == [
        (dpc.Subsampled(dpc.Laplace(20.0), 0.5, "without_replacement"), 3)]
    assert to_mechanisms("pure(inf)") == [(dpc.PureDP(math.inf), 1)]


def test_count_and_sampler_in_either_order():
    assert parse("gaussian(1) x 5 @ poisson(0.1)") == parse("gaussian(1) @ poisson(0.1) x 5")


def test_template_has_missing_parameter_and_cannot_be_composed():
    (t,) = parse("gaussian x 14062 @ poisson(0.0042667)")
    assert t.missing == ("sigma",) and t.count == 14062
    assert t.with_params(sigma=2.0).mechanism() == dpc.Subsampled(dpc.Gaussian(2.0), 0.0042667)
    with pytest.raises(ExpressionError, match="missing the parameter"):
        to_mechanisms("gaussian x 3")


finite_pos = st.floats(min_value=1e-6, max_value=1e6, allow_nan=False, allow_infinity=False)
eps = st.floats(min_value=0.0, max_value=50.0, allow_nan=False)
mechanisms = st.one_of(
    st.builds(dpc.Laplace, finite_pos, sensitivity=finite_pos),
    st.builds(dpc.Gaussian, finite_pos, sensitivity=finite_pos),
    st.builds(dpc.PureDP, eps),
    st.builds(dpc.ApproxDP, eps, st.floats(min_value=0.0, max_value=0.999, allow_nan=False)),
    st.builds(dpc.RandomizedResponse, eps),
    st.builds(dpc.Exponential, eps),
)
sampled = st.builds(dpc.Subsampled, mechanisms, st.floats(min_value=1e-9, max_value=1.0),
                    st.sampled_from(["poisson", "without_replacement"]))


@given(st.lists(st.tuples(st.one_of(mechanisms, sampled), st.integers(0, 10**9)), min_size=1, max_size=5))
def test_round_trip_mechanisms_to_text_and_back(items):
    text = " + ".join(format_mechanism(m, k) for m, k in items)
    assert to_mechanisms(text) == [(m, k) for m, k in items]
    # and text -> terms -> text is stable
    assert format_expression(parse(text)) == text


@given(st.lists(st.tuples(st.sampled_from(["laplace", "gaussian", "pure", "rr"]),
                          st.integers(1, 10**6)), min_size=1, max_size=4))
def test_round_trip_terms(items):
    terms = tuple(Term(kind, (), k) for kind, k in items)
    assert parse(format_expression(terms)) == terms


@pytest.mark.parametrize(
    "text, position, expected",
    [
        ("", 0, "a mechanism"),
        ("laplace(scale=20) x", 19, "a count after 'x'"),
        ("laplace(scale=20", 16, "',' or ')'"),
        ("lapalce(1)", 0, "unknown mechanism 'lapalce'"),
        ("laplace(foo=1)", 8, "no parameter 'foo'"),
        ("laplace(1) x 2.5", 13, "not a whole number"),
        ("laplace(1) $", 11, "unexpected character '$'"),
        ("laplace(1, 2, 3)", 14, "at most 2 parameters"),
        ("laplace(scale=1, scale=2)", 17, "given twice"),
        ("laplace(1) @ binomial(0.1)", 13, "a sampler after '@'"),
        ("laplace(1) laplace(2)", 11, "'+' and another mechanism"),
        ("gaussian(sigma=nan)", 15, "a number for sigma"),
        ("laplace(1) +", 12, "a mechanism name"),
    ],
)
def test_parse_errors_give_position_and_expectation(text, position, expected):
    with pytest.raises(ExpressionError) as info:
        to_mechanisms(text)
    err = info.value
    assert err.position == position
    assert expected in str(err)
    assert f"position {position}" in str(err)
    # a caret under the offending character
    lines = str(err).splitlines()
    assert lines[-1].index("^") - 2 == position
    assert isinstance(err, InvalidParameterError)


@pytest.mark.parametrize(
    "text, field",
    [
        ("laplace(scale=-1)", "scale"),
        ("laplace(scale=0)", "scale"),
        ("laplace(scale=inf)", "scale"),
        ("laplace(1, sensitivity=-2)", "sensitivity"),
        ("gaussian(sigma=-1)", "sigma"),
        ("pure(-0.1)", "epsilon"),
        ("approx(0.1, 1)", "delta"),
        ("approx(0.1, -1e-9)", "delta"),
        ("exponential(inf)", "epsilon"),
        ("laplace(1) @ poisson(0)", "rate"),
        ("laplace(1) @ poisson(1.5)", "rate"),
    ],
)
def test_bad_values_name_the_field(text, field):
    with pytest.raises(ExpressionError) as info:
        to_mechanisms(text)
    assert info.value.field == field
    assert text in str(info.value)


def test_non_string_is_rejected():
    with pytest.raises(ExpressionError):
        parse(3)  # type: ignore[arg-type]


# ---------------------------------------------------------------------------
# arithmetic and free parameters


def test_arithmetic_in_numbers_is_exact_then_rounded_once():
    from fractions import Fraction

    (m, k), = to_mechanisms("gaussian(1.1) @ poisson(256/60000) x 30*235")
    assert m.rate == float(Fraction(256, 60000)) == 256 / 60000 and k == 7050
    assert to_mechanisms("laplace(0.1 + 0.2)")[0][0].scale == 0.3          # exact decimals: 3/10
    assert to_mechanisms("laplace(scale=2**-3) x 2**10")[0] == (dpc.Laplace(0.125), 1024)
    assert to_mechanisms("laplace((1 + 2) * (3 - 1) / 4)")[0][0].scale == 1.5
    assert to_mechanisms("laplace(1) x ceil(30*60000/256)")[0][1] == 7032
    assert to_mechanisms("laplace(1) x floor(30*60000/256)")[0][1] == 7031
    assert to_mechanisms("laplace(--2)")[0][0].scale == 2.0
    assert to_mechanisms("laplace(1e-3 * 1e3)")[0][0].scale == 1.0
    assert to_mechanisms("pure(2 * inf)")[0][0].epsilon == math.inf


@pytest.mark.parametrize("text, position, words", [
    ("laplace(1) x 30*60000/256", 13, ["7031.25", "not a whole number", "ceil(30*60000/256) = 7032"]),
    ("laplace(1/0)", 8, ["division by zero"]),
    ("laplace(1) @ poisson(1/(2-2))", 21, ["division by zero"]),
    ("laplace(1) x -3", 13, ["not a whole number"]),
    ("laplace(x)", 8, ["a number for scale"]),
    ("laplace(2 *)", 11, ["a number for scale"]),
    ("laplace((1 + 2)", 15, ["')'"]),
    ("laplace(1) x 10**400", 13, ["too large"]),
])
def test_arithmetic_errors_give_position(text, position, words):
    with pytest.raises(ExpressionError) as info:
        to_mechanisms(text)
    assert info.value.position == position
    for w in words:
        assert w in str(info.value)


def test_a_shared_free_parameter_in_several_terms():
    from dpcompose.expressions import bind, count_variables, variables

    terms = parse("gaussian(sigma=s) @ poisson(256/60000) x 7050 + laplace(scale=2*s) x 10")
    assert variables(terms) == {"s"} and count_variables(terms) == frozenset()
    assert parse(format_expression(terms)) == terms
    assert to_mechanisms(bind(terms, {"s": 1.5})) == [
        (dpc.Subsampled(dpc.Gaussian(1.5), 256 / 60000), 7050), (dpc.Laplace(3.0), 10)]
    with pytest.raises(ExpressionError, match="free parameter"):
        to_mechanisms(terms)
    epochs = parse("gaussian(1.1) @ poisson(q) x e*235")
    assert variables(epochs) == {"q", "e"} and count_variables(epochs) == {"e"}
    half = bind(epochs, {"e": 3})
    assert variables(half) == {"q"} and half[0].count == 705
    with pytest.raises(ExpressionError, match="whole number"):
        bind(epochs, {"e": 2.5, "q": 0.1})


@given(st.lists(st.sampled_from(["s", "2*s", "s/3", "(s + 1)*2", "s**2", "-s + 5", "s - (1 - s)", "ceil(s)"]),
                min_size=1, max_size=3),
       st.floats(min_value=0.5, max_value=50.0))
def test_round_trip_with_free_parameters(exprs, value):
    from dpcompose.expressions import bind

    text = " + ".join(f"laplace(scale={e})" for e in exprs)
    terms = parse(text)
    assert parse(format_expression(terms)) == terms
    bound = bind(terms, {"s": value})
    env = {"s": value, "ceil": math.ceil}
    for t, e in zip(bound, exprs):
        assert dict(t.params)["scale"] == pytest.approx(eval(e, env), rel=1e-15)

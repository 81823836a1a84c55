"""A combined guarantee evaluates each component once per delta (issue 15, cold start of a
one-line query): the bound and the name of the component that gives it are asked together
(``epsilon``/``epsilon_bounds`` then ``method_for``), and the second must cost nothing.

The reference is the definition, computed here from the components' closed forms: the upper
bound is the minimum of the components' epsilons and ``method_for`` names the first
component that attains it.
"""

from __future__ import annotations

import math

from hypothesis import given
from hypothesis import strategies as st

from dpcompose.guarantee import Guarantee, tightest, worst_case


def _component(name: str, a: float, b: float, calls: list[str]) -> Guarantee:
    """epsilon(delta) = a + b log(1/delta), counting its evaluations in ``calls``."""

    def eps(d: float) -> float:
        calls.append(name)
        return a + b * math.log(1.0 / d)

    return Guarantee(name, epsilon_upper=eps)


coef = st.floats(min_value=0.0, max_value=10.0, allow_nan=False)


@given(st.lists(st.tuples(coef, coef), min_size=2, max_size=5),
       st.floats(min_value=1e-12, max_value=0.5))
def test_combined_epsilon_and_winner_match_the_definition_and_evaluate_once(params, delta):
    calls: list[str] = []
    names = [f"m{i}" for i in range(len(params))]
    g = tightest([_component(n, a, b, calls) for n, (a, b) in zip(names, params)])
    exact = [a + b * math.log(1.0 / delta) for a, b in params]
    best = min(exact)
    assert g.epsilon(delta) == best
    assert g.method_for(delta) == names[exact.index(best)]  # the first smallest
    assert g.epsilon_bounds(delta)[1] == best
    assert sorted(calls) == sorted(names)  # each component once, whatever was asked


def test_ties_name_the_first_component_and_other_deltas_are_new_evaluations():
    calls: list[str] = []
    g = tightest([_component("a", 1.0, 0.0, calls), _component("b", 1.0, 0.0, calls),
                  _component("c", 2.0, 0.0, calls)])
    assert g.method_for(1e-6) == "a" and g.epsilon(1e-6) == 1.0
    assert calls == ["a", "b", "c"]
    assert g.epsilon(1e-5) == 1.0
    assert calls == ["a", "b", "c"] * 2


def test_worst_case_takes_the_largest_component():
    calls: list[str] = []
    g = worst_case([_component("a", 1.0, 0.1, calls), _component("b", 0.5, 0.2, calls)], "worst")
    d = 1e-6
    assert g.epsilon(d) == max(1.0 + 0.1 * math.log(1 / d), 0.5 + 0.2 * math.log(1 / d))
    assert g.epsilon(d) == g.epsilon_bounds(d)[1] and len(calls) == 2

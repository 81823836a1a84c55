"""register_equivalent: a family accounted as an equivalent mechanism gets every rule by delegation.

Truth here is the equivalent mechanism's own rules (the delegation must return exactly
what they return) and the closed forms of the families that use it (Group of a Laplace is
the Laplace with g times the sensitivity: epsilon = g s / b).
"""

from __future__ import annotations

import dataclasses

import pytest

import dpcompose as dpc
from dpcompose.errors import NoRuleError
from dpcompose.representations import RULES, register_equivalent
from dpcompose.representations import rules as rules_module


@dataclasses.dataclass(frozen=True)
class TwoLaplaces(dpc.mechanisms.Mechanism):
    """A test family: exactly one Laplace of twice the sensitivity (not a real mechanism)."""

    scale: float


@dataclasses.dataclass(frozen=True)
class AsZcdp(dpc.mechanisms.Mechanism):
    """A test family accounted as a ZCDP mechanism (which has no dominating pair)."""

    rho: float


@pytest.fixture
def registered():
    rules_module.load_all_families()  # so that restoring the saved table loses no family's entry
    saved = dict(rules_module._EQUIVALENTS)
    register_equivalent(TwoLaplaces, lambda m: dpc.Laplace(m.scale, sensitivity=2.0),
                        without=("is_class_worst_case", "dominance_key"))
    register_equivalent(AsZcdp, lambda m: dpc.ZCDP(m.rho))
    yield
    rules_module._EQUIVALENTS.clear()
    rules_module._EQUIVALENTS.update(saved)


def test_every_rule_is_the_equivalents(registered):
    m, eq = TwoLaplaces(4.0), dpc.Laplace(4.0, sensitivity=2.0)
    for name, rule in RULES.items():
        if name in ("is_class_worst_case", "dominance_key"):
            continue
        if not rule.delegated:  # exact rules read the parameters as given: never delegated
            assert not rule.has(TwoLaplaces), name
            with pytest.raises(NoRuleError) as info:
                rule(m)
            assert info.value.rule == name and "TwoLaplaces" in str(info.value)
            continue
        assert rule.has(TwoLaplaces), name
        assert TwoLaplaces in rule.classes(), name
    assert RULES["pure_epsilon"](m) == RULES["pure_epsilon"](eq) == 0.5  # 2 / 4, exact
    assert RULES["eps_delta_pair"](m) == RULES["eps_delta_pair"](eq)
    for e in (0.0, 0.1, 0.5, 1.0):
        assert RULES["privacy_profile"](m)(e) == RULES["privacy_profile"](eq)(e)
    assert list(RULES["renyi_curve"](m, [2.0, 8.0])) == list(RULES["renyi_curve"](eq, [2.0, 8.0]))


def test_without_keeps_the_default_or_names_the_class(registered):
    m = TwoLaplaces(4.0)
    assert RULES["is_class_worst_case"](m) is False  # the default: no lower bound claimed
    assert not RULES["dominance_key"].has(TwoLaplaces)
    with pytest.raises(NoRuleError) as info:
        RULES["dominance_key"](m)
    assert info.value.rule == "dominance_key" and "TwoLaplaces" in str(info.value)


def test_a_rule_the_equivalent_lacks_raises_its_error(registered):
    with pytest.raises(NoRuleError) as info:
        RULES["dominating_pair"](AsZcdp(0.5))
    assert info.value.rule == "dominating_pair"
    with pytest.raises(NoRuleError) as direct:
        RULES["dominating_pair"](dpc.ZCDP(0.5))
    assert str(info.value) == str(direct.value)


def test_own_registration_takes_precedence(registered):
    rule = RULES["pure_epsilon"]
    rule.register(TwoLaplaces)(lambda m: 7.0)
    try:
        assert rule(TwoLaplaces(4.0)) == 7.0
    finally:
        del rule._impl[TwoLaplaces]
    assert rule(TwoLaplaces(4.0)) == 0.5


def test_unknown_rule_names_are_refused():
    with pytest.raises(ValueError, match="no rules named"):
        register_equivalent(TwoLaplaces, lambda m: m, without=("no_such_rule",))


@pytest.mark.parametrize("m, truth", [
    (dpc.Group(dpc.Laplace(10.0), 3), 0.3),                      # g s / b
    (dpc.TreeAggregation(4.0, 1), 0.25),                          # one node: mu = 1 / sigma
])
def test_families_delegate_through_one_registration(m, truth):
    rules_module.load_all_families()  # the table is filled as family files load
    assert type(m) in rules_module._EQUIVALENTS
    if isinstance(m, dpc.Group):
        assert RULES["pure_epsilon"](m) >= truth and RULES["pure_epsilon"](m) <= truth * (1 + 1e-15)
    else:
        assert RULES["dominance_key"](m).params == (truth,)


def test_selection_and_allocation_use_one_registration():
    rules_module.load_all_families()  # the tables are filled as family files load
    for cls in (dpc.ReportNoisyMax, dpc.ReportNoisyMaxGumbel, dpc.PermuteAndFlip, dpc.SparseVector,
                dpc.RandomAllocation, dpc.Group, dpc.TreeAggregation):
        assert cls in rules_module._EQUIVALENTS, cls
        assert cls not in RULES["privacy_profile"]._impl, cls  # no hand-written delegate left

"""The method registry (dpcompose.methods.registry): every fact about a method in its registration."""

from __future__ import annotations

import pytest

import dpcompose as dpc
from dpcompose.errors import InvalidParameterError
from dpcompose.guarantee import Guarantee
from dpcompose.methods import METHOD_MODULES
from dpcompose.methods.registry import (
    check_options,
    directional_methods,
    method_info,
    registered_method,
    registered_methods,
)


def _half_simple(groups, *, scale: float = 1.0):
    """Test only: epsilon = scale (not a real bound; never in auto)."""
    return Guarantee("_test_half", epsilon_upper=lambda d: scale)


def test_registered_methods_come_in_auto_order_from_the_module_list():
    names = [r.name for r in registered_methods()]
    assert names[:5] == ["simple", "advanced", "stability", "tail_independent", "tail_adaptive"]
    assert names.index("optimal") < names.index("pld") < names.index("rdp")
    assert METHOD_MODULES == ("theorems", "optimal", "pld", "rdp")
    assert [r.auto_order for r in registered_methods()] == sorted(r.auto_order for r in registered_methods())
    assert directional_methods() == frozenset({"pld"})
    info = method_info("pld")
    assert info.directional and info.in_auto and "tolerance" in info.options
    assert info.defaults["tolerance"] == 1e-4 and info.summary


def test_registered_method_is_undone_on_exit_and_records_its_facts():
    before = dict(dpc.available_methods())
    with registered_method("_test_half", _half_simple, in_auto=False,
                           report_defaults={"scale": 2.0, "unknown": 1}) as info:
        assert info.options == frozenset({"scale"}) and info.defaults == {"scale": 1.0}
        assert dict(info.report_defaults) == {"scale": 2.0}  # only options the method accepts
        assert not info.in_auto and info.summary.startswith("Test only")
        assert dpc.compose([dpc.PureDP(1.0)], method="_test_half", scale=0.5).epsilon(0.1) == 0.5
        assert "_test_half" not in [r.name for r in registered_methods() if r.in_auto]
        check_options("_test_half", {"scale": 3.0})
        with pytest.raises(InvalidParameterError, match="not accepted"):
            check_options("_test_half", {"tolerance": 3.0})
    assert dpc.available_methods() == before
    with pytest.raises(InvalidParameterError, match="not known"):
        method_info("_test_half")


def test_registered_method_restores_a_method_it_replaced():
    original = method_info("simple")
    with registered_method("simple", _half_simple, in_auto=False):
        assert method_info("simple").fn is _half_simple
    assert method_info("simple") == original

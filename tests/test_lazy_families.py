"""Lazy loading of the mechanism family files (issue 15 / issue 14 "cold start").

``representations/__init__.py`` declares which family file registers the rules and syntax of
which mechanism classes (``FAMILIES``); a file is imported the first time a rule or the
syntax is asked about one of its classes. That is only correct if each file registers
nothing for a class of another file: checked here by importing each file alone in a fresh
interpreter and comparing the registries before and after. The order of ``all_syntax`` must
not depend on the order in which files were loaded. No timings (see
``benchmarks/bench_cold_start.py``).
"""

from __future__ import annotations

import json
import subprocess
import sys

import pytest

from dpcompose.representations import FAMILIES

_REGISTERED_BY = """
import importlib, json, sys
from dpcompose.representations import FAMILIES, rules, syntax

def registered():
    out = set(c for r in rules.RULES.values() for c in r._impl) | set(rules._EQUIVALENTS) | set(syntax._BY_CLASS)
    return set(c.__name__ for c in out)

def loaded():
    return set(m for m in FAMILIES if "dpcompose.representations." + m in sys.modules)

before, files_before = registered(), loaded()
importlib.import_module("dpcompose.representations." + {module!r})
print(json.dumps({{"new": sorted(registered() - before), "files": sorted(loaded() - files_before),
                   "before": sorted(before)}}))
"""


def _run(code: str) -> str:
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=300)
    assert out.returncode == 0, out.stderr
    return out.stdout


@pytest.mark.parametrize("module", list(FAMILIES))
def test_each_family_file_registers_only_its_declared_classes(module):
    res = json.loads(_run(_REGISTERED_BY.format(module=module)))
    assert res["before"] == []  # importing the package loads no family file
    declared = {name for m in res["files"] for name in FAMILIES[m]}
    assert module in res["files"]
    assert set(res["new"]) <= declared  # else a lookup could miss a rule of a file not loaded
    assert set(FAMILIES[module]) <= set(res["new"])  # and each declared class is registered there


_ORDER = """
import json
import dpcompose as dpc
from dpcompose.representations import all_syntax, dominating_pair, syntax_named
{warm}
print(json.dumps([s.name for s in all_syntax()]))
"""


def test_syntax_order_does_not_depend_on_load_order():
    in_order = json.loads(_run(_ORDER.format(warm="")))
    shuffled = json.loads(_run(_ORDER.format(
        warm="syntax_named('mog'); syntax_named('zcdp'); dominating_pair(dpc.Gaussian(1.0)); syntax_named('laplace')")))
    assert in_order == shuffled
    assert in_order[:2] == ["laplace", "gaussian"]  # FAMILIES' order


_LOOKUPS = """
import json, sys
import dpcompose as dpc
from dpcompose.interfaces.expressions import to_mechanisms
from dpcompose.representations import FAMILIES, eps_delta_pair, is_class_worst_case, renyi_curve
to_mechanisms("laplace(scale=20) x 500")
eps_delta_pair(dpc.Laplace(20.0)); is_class_worst_case(dpc.Laplace(20.0))
print(json.dumps(sorted(m for m in FAMILIES if "dpcompose.representations." + m in sys.modules)))
"""


def test_a_laplace_expression_loads_only_the_laplace_file():
    assert json.loads(_run(_LOOKUPS)) == ["laplace"]


def test_a_class_outside_the_table_gets_every_file_loaded_and_a_clear_error():
    code = ("import dataclasses, sys\n"
            "import dpcompose as dpc\n"
            "from dpcompose.errors import NoRuleError\n"
            "from dpcompose.representations import FAMILIES, eps_delta_pair\n"
            "@dataclasses.dataclass(frozen=True)\n"
            "class Mine(dpc.mechanisms.Mechanism):\n"
            "    x: float = 1.0\n"
            "try:\n"
            "    eps_delta_pair(Mine())\n"
            "except NoRuleError as exc:\n"
            "    assert 'Laplace' in str(exc) and 'MixtureOfGaussians' in str(exc), exc\n"
            "else:\n"
            "    raise SystemExit('no error')\n"
            "assert all('dpcompose.representations.' + m in sys.modules for m in FAMILIES)\n")
    _run(code)


# ---------------------------------------------------------------------------
# the method registry: compose(..., method=name) imports only that method's module

_METHODS_OF = """
import importlib, json
from dpcompose.methods import registry
importlib.import_module("dpcompose.methods." + {module!r})
print(json.dumps(sorted(registry._REGISTRY)))
"""


def test_method_names_table_matches_the_registrations():
    from dpcompose.methods import METHOD_MODULES, METHOD_NAMES

    assert set(METHOD_NAMES.values()) == set(METHOD_MODULES)
    for module in METHOD_MODULES:
        names = json.loads(_run(_METHODS_OF.format(module=module)))
        assert names == sorted(n for n, m in METHOD_NAMES.items() if m == module), module


def test_auto_order_does_not_depend_on_which_method_ran_first():
    code = ("import json\nimport dpcompose as dpc\nfrom dpcompose.methods.registry import registered_methods\n"
            "{first}\nprint(json.dumps([r.name for r in registered_methods()]))\n")
    plain = json.loads(_run(code.format(first="")))
    after = json.loads(_run(code.format(first="dpc.compose([dpc.Laplace(1.0)], method='rdp'); "
                                               "dpc.compose([dpc.Laplace(1.0)], method='optimal')")))
    assert plain == after

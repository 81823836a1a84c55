"""Cold start (issue 15 step 7, issue 14): what a fresh interpreter imports, and the
SciPy-free replacements on the closed-form / optimal path against independent truth.

No timings here (speed belongs in ``benchmarks/bench_cold_start.py``): these tests check
which modules are loaded, which is deterministic.
"""

from __future__ import annotations

import subprocess
import sys

import mpmath
import numpy as np
import pytest

from dpcompose._numerics.binomial import LOADER_MIN_N, kl_bernoulli, log_factorial
from dpcompose._numerics.logspace import expit

HEAVY = ("scipy", "matplotlib", "pydantic", "fastapi", "typer", "rich", "mpmath", "pandas")


def _loaded_after(code: str) -> set[str]:
    probe = f"{code}\nimport sys\nprint(' '.join(sorted(m for m in sys.modules)))"
    out = subprocess.run([sys.executable, "-c", probe], check=True, capture_output=True, text=True)
    return set(out.stdout.split())


def _heavy(mods: set[str]) -> set[str]:
    return {m for m in mods if m.split(".")[0] in HEAVY}


def test_import_loads_no_heavy_module():
    assert _heavy(_loaded_after("import dpcompose")) == set()


@pytest.mark.parametrize("method", ["optimal", "simple", "advanced"])
def test_first_closed_form_or_optimal_query_needs_no_scipy(method):
    code = ("import dpcompose as d\n"
            f"g = d.compose([(d.Laplace(scale=20.0), 10**6)], method={method!r})\n"
            "assert 0 < g.epsilon(delta=1e-6) < float('inf')\n"
            "g = d.compose([(d.PureDP(0.1), 30), (d.ApproxDP(0.2, 1e-9), 5)], method='optimal')\n"
            "assert 0 < g.epsilon(delta=1e-6) < float('inf')")
    assert _heavy(_loaded_after(code)) == set()


def test_log_factorial_matches_exact_factorials():
    n = np.arange(LOADER_MIN_N + 1, dtype=float)
    got = log_factorial(n)
    for k in range(LOADER_MIN_N + 1):
        exact = mpmath.log(mpmath.factorial(k))
        assert abs(got[k] - float(exact)) <= 2 * np.spacing(max(abs(float(exact)), 1.0))
    # outside the table: gammaln, still log(n!)
    assert log_factorial(np.array([100.0]))[0] == pytest.approx(float(mpmath.log(mpmath.factorial(100))), rel=1e-14)
    assert log_factorial(np.array([])).size == 0


@pytest.mark.parametrize("x", [0.0, 1e-300, 1e-8, 0.3, 1.0, 5.0, 36.0, 40.0, 700.0, 800.0, -1e-8, -0.3, -5.0,
                               -40.0, -700.0, -745.0, -800.0])
def test_expit_against_mpmath(x):
    exact = 1 / (1 + mpmath.exp(-mpmath.mpf(x)))
    got = expit(x)
    if exact < mpmath.mpf(2) ** -1074 / 2:
        assert got == 0.0
    else:
        assert abs(mpmath.mpf(got) - exact) <= 4 * 2.0 ** -53 * exact + mpmath.mpf(2) ** -1074


@pytest.mark.parametrize("x,q", [(0.0, 0.3), (1.0, 0.3), (0.2, 0.3), (0.9, 1e-12), (0.5, 0.5)])
def test_kl_bernoulli_against_mpmath(x, q):
    X, Q = mpmath.mpf(x), mpmath.mpf(q)
    exact = sum(a * mpmath.log(a / b) for a, b in ((X, Q), (1 - X, 1 - Q)) if a > 0)
    assert kl_bernoulli(x, q) == pytest.approx(float(exact), rel=1e-13, abs=1e-300)


def test_cli_sized_pld_query_needs_no_scipy():
    """The one-line query's pld grids use numpy.fft (pld/grid.py via _numerics/fft.py) and
    the vectorised locator (no scipy.signal): a Laplace composition loads no SciPy at all."""
    code = ("import dpcompose as d\n"
            "g = d.compose([(d.Laplace(scale=20.0), 500)])\n"
            "assert 5.47 < g.epsilon(1e-6) < 5.48 and 5.47 < g.epsilon_lower(1e-6)")
    mods = _loaded_after(code)
    assert {m for m in mods if m.split(".")[0] == "scipy"} == set()


def test_import_loads_no_numpy():
    """``import dpcompose`` defers numpy (about half a cold start) to the first query that
    makes an array (issue 14: guarantee, pairs, logspace import it where they use it)."""
    assert "numpy" not in _loaded_after("import dpcompose")


@pytest.mark.parametrize("mechanism", ["d.Laplace(scale=20.0)", "d.PureDP(0.05)", "d.RandomizedResponse(0.05)"])
@pytest.mark.parametrize("method", ["simple", "advanced"])
def test_first_closed_form_query_loads_no_numpy(method, mechanism):
    """A closed-form composition is arithmetic on (eps, delta): no numpy, no Renyi helpers,
    no exact enumeration of atoms (issue 14 cold start)."""
    code = ("import dpcompose as d\n"
            f"g = d.compose([({mechanism}, 10**6)], method={method!r})\n"
            "assert 0 < g.epsilon(delta=1e-6) < float('inf') and 0 < g.delta(1e4) <= 1")
    mods = _loaded_after(code)
    unwanted = {"numpy", "dpcompose.representations.renyi", "dpcompose.representations.finite"}
    assert mods & unwanted == set()


def test_first_optimal_query_loads_only_what_it_uses():
    """The first ``optimal`` query on Laplace (k = 10^6: one binomial window, built in pure
    Python) loads no numpy at all, no mechanism module but base, composite and noise (the
    others build their dataclasses on first use), and neither the Renyi helpers, the exact
    enumeration of atoms nor the optimal method's numpy paths (issue 14 cold start: numpy's
    import alone is most of the 0.2 s target)."""
    code = ("import dpcompose as d\n"
            "g = d.compose([(d.Laplace(scale=20.0), 10**6)], method='optimal')\n"
            "assert 0 < g.epsilon(delta=1e-6) < float('inf')")
    mods = _loaded_after(code)
    unwanted = {"numpy", "dpcompose._numerics.binomial", "dpcompose.methods.optimal.lossdist",
                "dpcompose.mechanisms.selection", "dpcompose.mechanisms.matrix", "dpcompose.mechanisms.mixture",
                "dpcompose.representations.renyi", "dpcompose.representations.finite",
                "dpcompose.methods.optimal.lattice"}
    assert mods & unwanted == set()
    assert {"dpcompose.mechanisms.noise", "dpcompose.methods.optimal"} <= mods


def test_optimal_lattice_constants_load_on_first_access():
    """The lattice's constants stay attributes of ``dpcompose.methods.optimal`` (imported on first use)."""
    import dpcompose.methods.optimal as optimal
    from dpcompose.methods.optimal import lattice

    for name in optimal._FROM_LATTICE:
        assert getattr(optimal, name) == getattr(lattice, name) and name in optimal.__all__ and name in dir(optimal)
    with pytest.raises(AttributeError, match="no_such_constant"):
        getattr(optimal, "no_such_constant")


def test_lazy_mechanism_classes_resolve_to_their_modules():
    """The classes loaded on first use are the classes of their modules, listed and named."""
    import dpcompose
    import dpcompose.mechanisms as mechanisms
    from dpcompose.mechanisms import _LAZY

    for name, module in _LAZY.items():
        cls = getattr(mechanisms, name)
        assert cls.__module__ == f"dpcompose.mechanisms.{module}" and cls.__name__ == name
        assert getattr(dpcompose, name) is cls and name in dir(dpcompose) and name in dpcompose.__all__
        assert name in mechanisms.__all__ and name in dir(mechanisms)
        assert getattr(mechanisms, module) is sys.modules[cls.__module__] and module in dir(mechanisms)
    with pytest.raises(AttributeError, match="no_such_mechanism"):
        getattr(mechanisms, "no_such_mechanism")

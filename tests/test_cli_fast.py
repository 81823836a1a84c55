"""The fast path of the one-line queries (:mod:`dpcompose.interfaces.cli_fast`, issue 15 cold
start): it takes only the plain forms of ``epsilon`` / ``delta`` and then prints exactly what
typer prints, with the same exit code; everything else goes to typer.

The reference is typer itself: each case runs in two fresh interpreters, through
:func:`~dpcompose.interfaces.cli.main` (the fast path) and through the typer application,
and stdout, stderr and the exit code must agree byte for byte.
"""

from __future__ import annotations

import os
import subprocess
import sys

import pytest

from dpcompose.interfaces.cli_fast import _arguments

_MAIN = "import sys; sys.argv = ['dpcompose'] + {argv!r}; from dpcompose.interfaces.cli import main; main()"
_TYPER = ("import sys; sys.argv = ['dpcompose'] + {argv!r}; from dpcompose.interfaces import cli_fast; "
          "cli_fast.run = lambda argv: False; from dpcompose.interfaces.cli import main; main()")


def _run(code: str, argv: list[str]) -> tuple[bytes, bytes, int]:
    out = subprocess.run([sys.executable, "-c", code.format(argv=argv)], capture_output=True, timeout=300,
                         env={**os.environ, "COLUMNS": "100"})
    return out.stdout, out.stderr, out.returncode


@pytest.mark.parametrize("argv", [
    ["epsilon", "laplace(scale=20) x 500", "--delta", "1e-6"],                           # the one-line query
    ["epsilon", "--delta", "1e-6", "pure(0.1) x 100", "-d", "1e-5", "-m", "pld", "-m", "OPTIMAL", "-q"],
    ["delta", "gaussian(sigma=2) x 100", "-e", "1", "--json"],
    ["epsilon", "laplace(scale=20) x 500", "--delta", "2"],                                  # exit 2, our message
    ["epsilon", "lapalce(scale=20) x 500", "--delta", "1e-6", "-m", "plld"],                 # exit 2
])
def test_fast_path_prints_what_typer_prints(argv):
    assert _arguments(argv) is not None  # the fast path takes it
    fast, slow = _run(_MAIN, argv), _run(_TYPER, argv)
    assert fast == slow
    assert fast[1] or fast[0]


@pytest.mark.parametrize("argv", [
    ["epsilon", "laplace(scale=20) x 500", "--delta", "1e-400"],   # typer's usage error (value lost)
    ["epsilon", "laplace(scale=20) x 500"],                         # missing --delta
])
def test_typer_writes_the_usage_errors(argv):
    assert _arguments(argv) is None
    fast, slow = _run(_MAIN, argv), _run(_TYPER, argv)
    assert fast == slow and fast[2] == 2 and b"Usage: dpcompose epsilon" in fast[1]


@pytest.mark.parametrize("argv", [
    [], ["--help"], ["report", "plan.toml"], ["epsilon", "--help"], ["epsilon", "x 1", "--delta=1e-6"],
    ["epsilon", "x 1", "-d1e-6"], ["epsilon", "x 1", "-d", "1e-6", "--plot", "a.png"],
    ["epsilon", "x 1", "-d", "1e-6", "-qv"], ["epsilon", "x 1", "-d", "-1"], ["epsilon", "x 1", "-d"],
    ["epsilon", "x", "y", "-d", "1e-6"], ["epsilon", "-d", "1e-6"], ["epsilon", "x 1", "-d", "1e-6", "--"],
    ["epsilon", "x 1", "--epsilon", "1"], ["delta", "x 1", "--delta", "1e-6"], ["epsilon", "-", "-d", "1e-6"],
])
def test_everything_else_goes_to_typer(argv):
    assert _arguments(argv) is None


def test_plain_queries_fill_the_command_keywords():
    cmd, kw = _arguments(["delta", "x 1", "-e", "1", "--epsilon", "0.5", "-m", "rdp", "--all", "-v"])
    assert cmd == "delta"
    assert kw == {"expression": "x 1", "epsilon": [1.0, 0.5], "method": ["rdp"], "compare_all": True,
                  "as_json": False, "verbose": True, "quiet": False, "plot": None,
                  "plot_kind": "delta-epsilon", "plot_data": None}

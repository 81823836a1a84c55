"""Doctests: every ``>>>`` example in a module docstring of the package and in ``docs/*.md``
and the README runs and prints what it says (issue 15, tooling).

Examples marked ``# doctest: +SKIP`` are shown, not run (long computations). The docs'
examples state facts a reader can check by hand (e.g. ``AtMost(365).max_members(1000)`` is
365); numbers the code computes are not pinned here but in tests against independent truth.
"""

from __future__ import annotations

import doctest
import importlib
import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
PACKAGE = ROOT / "src" / "dpcompose"
FLAGS = doctest.ELLIPSIS | doctest.NORMALIZE_WHITESPACE
PROMPT = re.compile(r"^\s*>>> ", flags=re.M)  # an example line, not a mention of the prompt


def _modules_with_examples() -> list[str]:
    names = []
    for path in sorted(PACKAGE.rglob("*.py")):
        if PROMPT.search(path.read_text(encoding="utf-8")):
            parts = path.relative_to(PACKAGE.parent).with_suffix("").parts
            names.append(".".join(parts[:-1] if parts[-1] == "__init__" else parts))
    return names


def _documents_with_examples() -> list[Path]:
    paths = [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]
    return [p for p in paths if PROMPT.search(p.read_text(encoding="utf-8"))]


MODULES = _modules_with_examples()
DOCUMENTS = _documents_with_examples()


def test_there_are_examples_to_run():
    """Guards the discovery itself: a refactor that hides every example fails here."""
    assert len(MODULES) >= 3, MODULES
    assert DOCUMENTS, "no >>> example in README.md or docs/*.md"


@pytest.mark.parametrize("name", MODULES)
def test_module_docstring_examples(name):
    module = importlib.import_module(name)
    runner = doctest.DocTestRunner(optionflags=FLAGS)
    tests = doctest.DocTestFinder().find(module, name)
    assert any(t.examples for t in tests), f"{name}: its >>> lines are not in a docstring"
    for test in tests:
        runner.run(test)
    result = runner.summarize(verbose=False)
    assert result.failed == 0, f"{name}: {result.failed} of {result.attempted} examples failed (see output)"


@pytest.mark.parametrize("path", DOCUMENTS, ids=lambda p: p.name)
def test_document_examples(path):
    result = doctest.testfile(str(path), module_relative=False, optionflags=FLAGS, globs={}, verbose=False)
    assert result.attempted > 0
    assert result.failed == 0, f"{path.name}: {result.failed} of {result.attempted} examples failed (see output)"

"""Deferred imports of heavy numerical modules (SciPy), so that ``import dpcompose`` and a
query that does not need them stay fast (issue 15 step 7, issue 14 "cold start").

``import scipy.special`` alone costs about 0.4 s (it loads SciPy's array-API layer) and
``scipy.signal`` about 1 s; a closed-form or ``optimal`` query needs neither. A module
that uses them names them here instead of importing them::

    erf = lazy_function("scipy.special", "erf")   # call sites unchanged: erf(x)
    sfft = lazy_module("scipy.fft")               # sfft.rfft(...) imports on first use

The first call imports the module; later calls go straight to the function (one Python
call of overhead). Nothing numerical changes: the function called is the same object.
"""

from __future__ import annotations

import importlib
from types import ModuleType
from typing import Any, Callable

__all__ = ["lazy_function", "lazy_module"]


class _LazyFunction:
    """``module.name``, imported on the first call."""

    __slots__ = ("_module", "_name", "_fn")

    def __init__(self, module: str, name: str) -> None:
        self._module, self._name = module, name
        self._fn: Callable[..., Any] | None = None

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        fn = self._fn
        if fn is None:
            fn = self._fn = getattr(importlib.import_module(self._module), self._name)
        return fn(*args, **kwargs)

    def __repr__(self) -> str:
        return f"<lazy {self._module}.{self._name}>"


class _LazyModule:
    """A module imported on the first attribute access."""

    __slots__ = ("_name", "_mod")

    def __init__(self, name: str) -> None:
        self._name = name
        self._mod: ModuleType | None = None

    def __getattr__(self, attr: str) -> Any:
        mod = self._mod
        if mod is None:
            mod = self._mod = importlib.import_module(self._name)
        return getattr(mod, attr)

    def __repr__(self) -> str:
        return f"<lazy module {self._name}>"


def lazy_function(module: str, name: str) -> Callable[..., Any]:
    """``module.name`` (a function), imported when first called."""
    return _LazyFunction(module, name)


def lazy_module(name: str) -> Any:
    """The module ``name``, imported when one of its attributes is first read."""
    return _LazyModule(name)

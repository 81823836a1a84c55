"""Mechanism syntax: the one table the expression language, plan files and calibration read.

Each family registers a :class:`MechanismSyntax` for each of its classes: the expression
name and aliases (``laplace(scale=20)``), the parameters in positional order with their
valid range as plan files check it, a one-line summary, the name of the plan file's
table model, and for calibration the noise parameter (the one a larger value of makes
more private) and an initial guess for it. :mod:`dpcompose.expressions`,
:mod:`dpcompose.plan` and :mod:`dpcompose.calibration` derive their tables from
:func:`all_syntax`; a family that registers no syntax has none (``term_of`` refuses it
with :class:`~dpcompose.errors.NoRuleError`).
"""

from __future__ import annotations

import importlib
from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from typing import Callable

from ..errors import NoRuleError
from .rules import _FAMILIES, family_order, load_all_families, load_family_of

__all__ = ["Parameter", "MechanismSyntax", "register_syntax", "syntax_of", "syntax_named", "all_syntax",
           "SyntaxTable"]

#: ``guess(epsilon, delta, count, rate, sensitivity) -> parameter`` for calibration
InitialGuess = Callable[[float, float, int, "float | None", float], float]


@dataclass(frozen=True)
class Parameter:
    """One parameter of a mechanism's syntax.

    Attributes:
        name: the keyword (the dataclass field of the mechanism).
        description: short text for plan schemas, e.g. ``"noise scale b > 0"``.
        remedy: what a plan error says to do, e.g. ``"... e.g. scale = 20"``.
        default: the default value, or ``None`` when the parameter is required.
        gt, ge, lt: the plan file's bounds (finite numbers only; the mechanism class
            validates again, with its own message).
    """

    name: str
    description: str
    remedy: str
    default: float | None = None
    gt: float | None = None
    ge: float | None = None
    lt: float | None = None


@dataclass(frozen=True)
class MechanismSyntax:
    """How a mechanism is written in expressions and plan files, and calibrated.

    Attributes:
        name: the expression name (also the plan table's ``type``).
        cls: the mechanism class (built as ``cls(**params)``).
        parameters: the parameters in positional order.
        summary: one line describing the mechanism (the plan table's description).
        spec_name: the name of the plan file's table model (e.g. ``"LaplaceSpec"``).
        aliases: other accepted names (lower case).
        noise: the parameter :func:`dpcompose.calibrate` solves for (more private as it
            grows), or ``None`` when the family is not calibrated by name.
        initial_guess: ``guess(epsilon, delta, count, rate, sensitivity)``: where the
            calibration search starts (speed only; any positive value is valid).
    """

    name: str
    cls: type
    parameters: tuple[Parameter, ...]
    summary: str
    spec_name: str
    aliases: tuple[str, ...] = ()
    noise: str | None = None
    initial_guess: InitialGuess | None = None

    @property
    def params(self) -> tuple[str, ...]:
        """Parameter names in positional order."""
        return tuple(p.name for p in self.parameters)

    @property
    def required(self) -> tuple[str, ...]:
        """Names of the parameters without a default."""
        return tuple(p.name for p in self.parameters if p.default is None)


_BY_CLASS: dict[type, MechanismSyntax] = {}
_BY_NAME: dict[str, MechanismSyntax] = {}


def register_syntax(syntax: MechanismSyntax) -> MechanismSyntax:
    """Register the syntax of one mechanism class (its name and aliases must be free)."""
    for name in (syntax.name, *syntax.aliases):
        other = _BY_NAME.get(name)
        if other is not None and other.cls is not syntax.cls:
            raise ValueError(f"mechanism syntax name {name!r} is taken by {other.cls.__name__}")
    _BY_CLASS[syntax.cls] = syntax
    for name in (syntax.name, *syntax.aliases):
        _BY_NAME[name] = syntax
    return syntax


def syntax_of(cls: type) -> MechanismSyntax:
    """The syntax registered for a mechanism class (exact type).

    Raises:
        NoRuleError: the class registered none.
    """
    s = _BY_CLASS.get(cls)
    if s is None and load_family_of(cls):
        s = _BY_CLASS.get(cls)
    if s is None:
        raise NoRuleError(
            f"mechanism_syntax: no expression syntax for {cls.__name__}; its family registers "
            f"one in dpcompose.representations (known: {', '.join(x.name for x in all_syntax())}).",
            rule="mechanism_syntax")
    return s


def syntax_named(name: str) -> MechanismSyntax | None:
    """The syntax whose name or alias is ``name`` (case-insensitive), or None.

    A name not registered yet first loads the family file of that name, if there is one
    (``laplace``: the cheap guess), then every family file.
    """
    key = name.lower()
    s = _BY_NAME.get(key)
    if s is None and not _FAMILIES.all_loaded:
        if key in _FAMILIES.table:
            importlib.import_module(f"{_FAMILIES.package}.{key}")
            s = _BY_NAME.get(key)
        if s is None and load_all_families():
            s = _BY_NAME.get(key)
    return s


def all_syntax() -> tuple[MechanismSyntax, ...]:
    """Every registered syntax, in the order of the family files (registration order within one)."""
    load_all_families()
    return tuple(sorted(_BY_CLASS.values(), key=lambda s: family_order(s.cls)))


class SyntaxTable(Mapping[str, MechanismSyntax]):
    """The registered syntax by expression name (aliases not included), as :func:`all_syntax`
    orders it; a name is looked up through :func:`syntax_named`, so that asking for one
    family loads only its file, while iterating or a name that is no syntax loads them all."""

    def __getitem__(self, name: str) -> MechanismSyntax:
        s = syntax_named(name)
        if s is None or s.name != name:
            raise KeyError(name)
        return s

    def __iter__(self) -> Iterator[str]:
        return iter([s.name for s in all_syntax()])

    def __len__(self) -> int:
        return len(all_syntax())

    def __repr__(self) -> str:
        return f"SyntaxTable({', '.join(self)})"

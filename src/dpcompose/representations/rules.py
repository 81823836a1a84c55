r"""The rules a mechanism family registers: one generic function per representation.

Each rule is a :class:`Rule`: a table from mechanism *classes* (exact types, not
subclasses) to implementations. A mechanism whose class registered no implementation
gets :class:`~dpcompose.errors.NoRuleError` (a
:class:`~dpcompose.errors.MethodNotApplicableError`) naming the rule and the mechanism,
never a silent fallback. Dispatch is on the exact type on purpose: a subclass of
``Gaussian`` is not a Gaussian mechanism for any closed form unless it says so
(:func:`register_like`: every rule of the class it names, for a subclass whose rules are
exactly those), so it cannot be merged into the Gaussian's closed form by accident.
A family that is exactly as private as another mechanism built from its parameters
(a group, a tree aggregation, a selection mechanism) registers once with
:func:`register_equivalent` and gets every rule by delegation.

The rules (each family file in this package registers all of those it has):

- :data:`eps_delta_pair` -- the mechanism's own (epsilon, delta) guarantee, ``None`` for
  mechanisms described only by a profile (Gaussian);
- :data:`privacy_profile` -- :math:`\delta(\varepsilon)` on :math:`[0, \infty]`
  (hockey-stick divergence of the dominating pair; a certified upper bound);
- :data:`is_class_worst_case` -- whether the mechanism attains the worst case of its
  (epsilon, delta) class (default ``False``: no lower bound is claimed);
- :data:`dominating_pair` -- the pair itself, as atoms and continuous segments
  (:class:`~.pairs.DominatingPair`), for ``pld``, ``optimal`` and hypothesis DP's exact
  enumeration (:func:`~.finite.finite_pair`);
- :data:`pure_epsilon` -- the epsilon of pure DP (``inf`` if none), the Renyi order
  :math:`\infty`;
- :data:`renyi_curve` -- :math:`\tau(\alpha)` at given orders (an upper bound);
- :data:`dominance_key` -- the family and parameters under which mechanisms are ordered
  by dominance (hypothesis DP's worst-case search), :class:`DominanceKey`.

Privacy profile convention: :math:`\delta(\varepsilon) = \sup_{x \sim x'}
H_{e^\varepsilon}(M(x) \| M(x'))` with :math:`H_\gamma(P\|Q) = \int (p - \gamma q)_+`.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Callable, Generic, TypeVar

from ..errors import NoRuleError
from ..mechanisms import Mechanism, describe

__all__ = [
    "Rule",
    "DominanceKey",
    "RULES",
    "eps_delta_pair",
    "privacy_profile",
    "is_class_worst_case",
    "dominating_pair",
    "pure_epsilon",
    "renyi_curve",
    "dominance_key",
    "register_like",
    "register_equivalent",
]

T = TypeVar("T")


class Rule(Generic[T]):
    """A representation: implementations registered per mechanism class (exact type).

    Args:
        name: the rule's name (in error messages).
        needed_by: which parts of dpcompose need it (in error messages).
        default: the answer for classes that registered nothing, where one is safe
            (e.g. ``False`` for :data:`is_class_worst_case`); without it they raise
            :class:`~dpcompose.errors.NoRuleError`.
    """

    _NO_DEFAULT: Any = object()

    def __init__(self, name: str, needed_by: str, default: Any = _NO_DEFAULT) -> None:
        self.name = name
        self.needed_by = needed_by
        self._default = default
        self._impl: dict[type, Callable[..., T]] = {}

    def _lookup(self, cls: type) -> Callable[..., T] | None:
        """The implementation for ``cls``: its own, else its equivalent's (:func:`register_equivalent`)."""
        fn = self._impl.get(cls)
        if fn is not None:
            return fn
        eq = _EQUIVALENTS.get(cls)
        if eq is None or self.name in eq.without:
            return None
        to_equivalent = eq.to_equivalent

        def delegated(m: Mechanism, *args: Any, **kwargs: Any) -> T:
            return self(to_equivalent(m), *args, **kwargs)

        return delegated

    def register(self, *classes: type) -> Callable[[Callable[..., T]], Callable[..., T]]:
        """Decorator: ``fn(mechanism, ...)`` is the rule for each of ``classes`` (exact types)."""

        def deco(fn: Callable[..., T]) -> Callable[..., T]:
            for cls in classes:
                self._impl[cls] = fn
            return fn

        return deco

    def register_as(self, cls: type, like: type) -> None:
        """Give ``cls`` (e.g. a subclass) the implementation registered for ``like``, if any."""
        fn = self._lookup(like)
        if fn is not None:
            self._impl[cls] = fn

    def has(self, cls: type) -> bool:
        """Whether ``cls`` registered this rule (itself or through its equivalent)."""
        return self._lookup(cls) is not None

    def classes(self) -> tuple[type, ...]:
        """The classes that registered this rule (themselves or through their equivalents)."""
        return (*self._impl, *(c for c in _EQUIVALENTS if c not in self._impl and self.has(c)))

    def __call__(self, mechanism: Mechanism, *args: Any, **kwargs: Any) -> T:
        fn = self._lookup(type(mechanism))
        if fn is not None:
            return fn(mechanism, *args, **kwargs)
        if self._default is not Rule._NO_DEFAULT:
            return self._default
        raise NoRuleError(
            f"{self.name}: no rule for {_name(mechanism)} (type {type(mechanism).__name__}), so "
            f"{self.needed_by} cannot use it. A mechanism family registers its rules in "
            f"dpcompose.representations (one file per family); mechanisms with this rule: "
            f"{', '.join(sorted(c.__name__ for c in self._impl)) or 'none'}.",
            rule=self.name, mechanism=mechanism)

    def __repr__(self) -> str:
        return f"<rule {self.name}: {len(self._impl)} classes>"


def _name(mechanism: object) -> str:
    return describe(mechanism) if isinstance(mechanism, Mechanism) else repr(mechanism)


@dataclass(frozen=True)
class DominanceKey:
    """Where a mechanism sits in the dominance order of hypothesis DP (:mod:`dpcompose.hypotheses.dominance`).

    Attributes:
        family: mechanisms are compared only within one family (a string that also
            encodes whatever must be equal, e.g. a sensitivity or a sampling rate).
        params: within the family, a mechanism whose parameters are all at least
            another's dominates it (its pair's profile is pointwise larger: the other
            pair is a post-processing of it).
        size: a heuristic magnitude (used only to pick a real candidate for a lower
            bound, never for validity); mechanisms with their own (epsilon, delta) pair
            use their epsilon instead.
    """

    family: str
    params: tuple[float, ...]
    size: float = 1.0


eps_delta_pair: Rule[tuple[float, float] | None] = Rule(
    "eps_delta_pair", "the closed-form theorems and method 'optimal'")
privacy_profile: Rule[Callable[[float], float]] = Rule(
    "privacy_profile", "the theorems (profile points) and subsampling")
is_class_worst_case: Rule[bool] = Rule("is_class_worst_case", "lower bounds of 'optimal'", default=False)
dominating_pair: Rule[Any] = Rule(
    "dominating_pair", "method 'pld', the incremental Accountant and hypothesis DP's exact enumeration")
pure_epsilon: Rule[float] = Rule("pure_epsilon", "method 'rdp' (the order alpha = inf)")
renyi_curve: Rule[Any] = Rule("renyi_curve", "method 'rdp'")
dominance_key: Rule[DominanceKey] = Rule("dominance_key", "hypothesis DP's dominance order")

#: every rule, by name (the mechanism contract suite walks them)
RULES: dict[str, Rule[Any]] = {r.name: r for r in (
    eps_delta_pair, privacy_profile, is_class_worst_case, dominating_pair, pure_epsilon,
    renyi_curve, dominance_key)}


@dataclass(frozen=True)
class _Equivalent:
    to_equivalent: Callable[[Any], Mechanism]
    without: frozenset[str]


#: classes whose rules are those of an equivalent mechanism (:func:`register_equivalent`)
_EQUIVALENTS: dict[type, _Equivalent] = {}


def register_equivalent(cls: type, to_equivalent: Callable[[Any], Mechanism], *,
                        without: tuple[str, ...] = ()) -> None:
    """Account ``cls`` as an equivalent mechanism: every rule of ``m`` is the rule of ``to_equivalent(m)``.

    For a family that is exactly as private as (or, where its file says so, dominated by)
    another mechanism computed from its parameters: ``Group(Laplace(b), 3)`` is
    ``Laplace(b, sensitivity=3)``, a tree aggregation is one Gaussian. Once registered,
    every rule (including rules added later) delegates; a rule the equivalent lacks
    raises the equivalent's :class:`~dpcompose.errors.NoRuleError`, and
    ``to_equivalent`` itself may raise ``NoRuleError`` where no equivalent exists. A rule
    the class registers itself (``@rule.register(cls)``) takes precedence over the
    delegation, e.g. a pair marked not attained.

    Args:
        cls: the mechanism class (exact type).
        to_equivalent: ``m -> equivalent mechanism``.
        without: names of rules that are *not* delegated: for those ``cls`` has the
            rule's default if it has one (e.g. ``is_class_worst_case`` is ``False``: no
            lower bound is claimed for a bound that is not attained), else
            ``NoRuleError`` naming ``cls``.
    """
    unknown = sorted(set(without) - set(RULES))
    if unknown:
        raise ValueError(f"register_equivalent: no rules named {unknown}; rules: {sorted(RULES)}")
    _EQUIVALENTS[cls] = _Equivalent(to_equivalent, frozenset(without))


def register_like(cls: type, like: type) -> None:
    """Account ``cls`` exactly as ``like``: every rule registered for ``like`` serves ``cls``.

    For a subclass that is a member of its base's family with no rule of its own (e.g.
    k-ary randomized response, accounted as an epsilon-DP ``Exponential``). Its mechanism
    syntax is not copied (``term_of`` still refuses it).
    """
    for rule in RULES.values():
        rule.register_as(cls, like)

r"""``method="auto"`` built lazily: a method that cannot win a query is not run for it.

``auto`` reports, at every delta (every epsilon), the *minimum* of the certified upper
bounds of the methods that apply (:class:`~dpcompose.guarantee.CombinedGuarantee`).
Some methods are expensive (optimal's lattice on hundreds of distinct epsilons takes
seconds) and often lose. A method may therefore register a cheap *skip bound*
(:func:`dpcompose.methods.registry.register_skip_bound`): certified lower bounds on the
values that method itself would report, ``epsilon(delta)`` and ``delta(epsilon)``.

The skip rule. Methods with a skip bound are not built by :func:`dpcompose.compose`; a
query evaluates every built method first (the incumbent ``best`` is their minimum), then
each lazy method in auto order: it is skipped for this query when its bound ``L``
satisfies ``L (1 - 1e-9) > best``, else it is built (once) and evaluated.

Why the answer is unchanged. The method's reported value ``v`` satisfies ``v >= L`` (the
bound's contract), so ``v >= L > L (1 - 1e-9) > best`` wherever it is skipped: it is
strictly worse than a value already in the minimum, and the minimum, hence the answer,
equals that of every method run one by one. Nothing here is a bound on the truth: it is
the minimum of certified upper bounds over a subset of the methods, each certified, so
even a wrong skip bound could only make the answer looser, never under-report (and
``tests/test_auto_skip.py`` checks the equality). The margin 1e-9 absorbs the rounding of
a skip bound computed in floating point. Ties are broken as before (the first method in
auto order), since a skipped method is never tied.

Everything that needs the whole set (``components``, lower bounds, ``log_delta``) builds
the remaining methods first, so it answers exactly as the eager combination does.
"""

from __future__ import annotations

import math
from typing import Any, Callable, Mapping, Protocol, Sequence

from .errors import MethodNotApplicableError
from .guarantee import CombinedGuarantee, Guarantee

__all__ = ["SkipBound", "LazyMethod", "AutoGuarantee", "SKIP_MARGIN"]

#: relative margin by which a skip bound must exceed the incumbent
SKIP_MARGIN = 1e-9


class SkipBound(Protocol):
    """Certified lower bounds on the values one method would report for one input."""

    #: whether that method's guarantee would carry lower bounds (``has_lower_bound``)
    has_lower: bool

    def epsilon(self, delta: float) -> float:
        """A value <= the method's ``epsilon(delta)``."""
        ...

    def delta(self, epsilon: float) -> float:
        """A value <= the method's ``delta(epsilon)``."""
        ...


def _eps_skips(b: SkipBound, delta: float, best: float) -> bool:
    """The skip rule for ``epsilon(delta)``: :func:`_skips` of the bound's epsilon, or, where
    the bound offers ``epsilon_exceeds(delta, x)`` (True only when the method's epsilon is
    certainly above ``x``: one evaluation instead of an inversion), that test at the point
    ``x`` with ``x (1 - SKIP_MARGIN) > best``: then the value ``v > x`` is skipped exactly as
    a bound ``L = x`` would skip it (module docstring)."""
    exceeds = getattr(b, "epsilon_exceeds", None)
    if exceeds is None:
        return _skips(b.epsilon(delta), best)
    if not math.isfinite(best):
        return False  # nothing finite to beat (an inversion would skip only above inf: never)
    # the smallest double x with x (1 - SKIP_MARGIN) > best, from above (a few ulps up)
    x = best / (1.0 - SKIP_MARGIN)
    while not _skips(x, best):
        x = math.nextafter(x, math.inf)
    return bool(exceeds(delta, x))


class LazyMethod:
    """One method not yet run: its position in auto order, how to build it, its skip bound."""

    __slots__ = ("name", "order", "build", "bound", "guarantee", "failed")

    def __init__(self, name: str, order: int, build: Callable[[], Guarantee], bound: SkipBound) -> None:
        self.name = name
        self.order = order
        self.build = build
        self.bound = bound
        self.guarantee: Guarantee | None = None
        self.failed: str | None = None

    def get(self) -> Guarantee | None:
        """The method's guarantee (built on first use), or None where it does not apply."""
        if self.guarantee is None and self.failed is None:
            try:
                self.guarantee = self.build()
            except MethodNotApplicableError as exc:
                self.failed = str(exc)
        return self.guarantee


def _skips(bound: float, best: float) -> bool:
    """The skip rule: the method's value (>= bound) is strictly above the incumbent."""
    return bound * (1.0 - SKIP_MARGIN) > best


class AutoGuarantee(CombinedGuarantee):
    """The pointwise tightest of the built methods and of lazy ones, which run only where they may win.

    Args:
        built: guarantees of the methods already run, with their auto-order positions.
        lazy: the methods with a skip bound, not yet run.
        provenance: as for :class:`~dpcompose.guarantee.CombinedGuarantee`.

    Guarantee:
        The same bounds as :class:`~dpcompose.guarantee.CombinedGuarantee` over every
        method (module docstring: a skipped method is strictly worse at that query).
    """

    __slots__ = ("_built", "_lazy", "_eps_cache")

    def __init__(self, built: Sequence[tuple[int, Guarantee]], lazy: Sequence[LazyMethod],
                 name: str = "auto", provenance: Mapping[str, Any] | None = None) -> None:
        if not built:
            raise ValueError("AutoGuarantee needs at least one built method")
        self._built = sorted(built, key=lambda t: t[0])
        self._lazy = sorted(lazy, key=lambda m: m.order)
        self._eps_cache: dict[float, tuple[float, int, str]] = {}
        super().__init__([g for _, g in self._built], name=name, provenance=provenance)
        self.provenance["components"] = self._names()
        # lower bounds: the largest over every method (the lazy ones are run for them)
        self._epsilon_lower = lambda d: max((c.epsilon_lower(d) for c in self._all() if c.has_lower_bound),
                                            default=0.0)
        self._delta_lower = lambda e: max((c.delta_lower(e) for c in self._all() if c.has_lower_bound),
                                          default=0.0)

    # -- the set of methods --------------------------------------------------------
    def _names(self) -> list[str]:
        """The methods run so far that apply, in auto order (``provenance["components"]``).

        The lazy methods not run yet are listed in ``provenance["not_run"]``: skipped at
        every query so far (a method that turns out not to apply leaves both lists).
        """
        out = [(o, g.method) for o, g in self._built]
        out += [(m.order, m.guarantee.method) for m in self._lazy if m.guarantee is not None]
        self.provenance["not_run"] = [m.name for m in self._lazy if m.guarantee is None and m.failed is None]
        return [n for _, n in sorted(out)]

    def _all(self) -> tuple[Guarantee, ...]:
        """Every applicable method's guarantee, in auto order (builds the lazy ones)."""
        out = list(self._built)
        for m in self._lazy:
            g = m.get()
            if g is not None:
                out.append((m.order, g))
        self.provenance["components"] = self._names()
        return tuple(g for _, g in sorted(out, key=lambda t: t[0]))

    @property  # type: ignore[override]
    def components(self) -> tuple[Guarantee, ...]:
        """Every applicable method's guarantee (runs the methods not yet run)."""
        return self._all()

    @components.setter
    def components(self, value: Sequence[Guarantee]) -> None:
        pass  # set by the base constructor to the built ones; the property answers

    # -- queries with the skip rule -----------------------------------------------
    def _min(self, query: Callable[[Guarantee], float],
             skip: Callable[[SkipBound, float], bool]) -> tuple[float, int, str]:
        """(smallest value, its auto-order position, its method) over every method, skipping losers
        (``skip(bound, best)``: the skip rule for this query)."""
        best, at, name = math.inf, math.inf, ""
        for o, g in self._built:
            v = query(g)
            if v < best or (v == best and o < at):
                best, at, name = v, o, g.method
        for m in self._lazy:
            if m.failed is not None:
                continue
            if m.guarantee is None and skip(m.bound, best):
                continue
            lg = m.get()
            self.provenance["components"] = self._names()
            if lg is None:
                continue
            v = query(lg)
            if v < best or (v == best and m.order < at):
                best, at, name = v, m.order, lg.method
        if not name:  # every value is nan-free and a method exists: only an empty set lands here
            raise ArithmeticError("internal error: auto found no method value; please report it")
        return best, int(at), name

    def _eps_query(self, delta: float) -> tuple[float, int, str]:
        hit = self._eps_cache.get(delta)
        if hit is None:
            hit = self._min(lambda g: g.epsilon(delta), lambda b, best: _eps_skips(b, delta, best))
            if len(self._eps_cache) < 256:
                self._eps_cache[delta] = hit
        return hit

    def _epsilon(self, delta: float) -> float:
        return self._eps_query(delta)[0]

    def _delta(self, epsilon: float) -> float:
        return self._min(lambda g: g.delta(epsilon), lambda b, best: _skips(b.delta(epsilon), best))[0]

    def method_for(self, delta: float) -> str:
        """The method that gives the smallest epsilon at this delta (the first in auto order on ties)."""
        return self._eps_query(delta)[2]

    # -- what needs every method -----------------------------------------------------
    @property
    def has_lower_bound(self) -> bool:
        built = any(g.has_lower_bound for _, g in self._built)
        return built or any(m.guarantee.has_lower_bound if m.guarantee is not None else m.bound.has_lower
                            for m in self._lazy if m.failed is None)

"""Guarantee bookkeeping shared by the hypothesis-DP routes: names, dropped lower bounds, caveats."""

from __future__ import annotations

from typing import Iterable, Sequence

from ..guarantee import Guarantee, worst_case

__all__ = ["max_guarantee", "upper_only", "renamed", "caveats_of", "with_caveats", "one_line"]


def max_guarantee(gs: Sequence[Guarantee], name: str, provenance: dict) -> Guarantee:
    """The pointwise maximum of guarantees: the worst case over several pairs."""
    gs = list(gs)
    if len(gs) == 1:
        return renamed(gs[0], name, provenance)
    return worst_case(gs, name, provenance)


class _Relabelled(Guarantee):
    """``inner``'s bounds under another name: its own queries, passed through.

    Each query is ``inner``'s (which already obeys the query laws), not a new inversion of
    its profile started from its epsilon: that would ask ``inner.delta`` several times per
    epsilon query, and for a combination of methods whose epsilon is native (the theorems)
    each of those is itself an inversion.
    """

    __slots__ = ("_inner",)

    def __init__(self, inner: Guarantee, name: str, *, lower: bool, exact: bool, provenance: dict) -> None:
        super().__init__(name, delta_upper=inner.delta, epsilon_upper=inner.epsilon,
                         delta_lower=inner.delta_lower if lower else None,
                         epsilon_lower=inner.epsilon_lower if lower else None,
                         exact=exact, provenance=provenance)
        self._inner = inner

    def _epsilon(self, delta: float) -> float:
        return self._inner.epsilon(delta)

    def _delta(self, epsilon: float) -> float:
        return self._inner.delta(epsilon)


def upper_only(g: Guarantee, name: str, provenance: dict) -> Guarantee:
    """The same upper bounds without lower bounds (where the lower ones are not certified here)."""
    return _Relabelled(g, name, lower=False, exact=False, provenance={**g.provenance, **provenance})


def renamed(g: Guarantee, name: str, provenance: dict) -> Guarantee:
    """The same bounds under another name, recording the inner method."""
    # exact: used only where the worst pair is identified exactly
    return _Relabelled(g, name, lower=g.has_lower_bound, exact=g.exact,
                       provenance={**g.provenance, **provenance, "inner_method": g.method})


def caveats_of(gs: Iterable[Guarantee]) -> list[str]:
    """The caveats (looser fallbacks) recorded in the provenance of several guarantees, once each."""
    out: list[str] = []
    for g in gs:
        for c in (g.provenance or {}).get("caveats", ()):
            if c not in out:
                out.append(c)
    return out


def with_caveats(info: dict, caveats: Sequence[str]) -> dict:
    """``info`` with the caveats appended to its own (once each); returns ``info``."""
    if caveats:
        info["caveats"] = list(dict.fromkeys([*info.get("caveats", ()), *caveats]))
    return info


def one_line(msg: str) -> str:
    """An error message on one line (for a caveat)."""
    return " ".join(msg.split())

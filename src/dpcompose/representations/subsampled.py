r"""The subsampling family: every rule of ``Subsampled(mechanism, rate, scheme)``.

The rules read the inner mechanism's rules and apply the amplification theorems of
:mod:`dpcompose.subsampling` (Balle, Barthe and Gaboardi 2018, Thms 8 and 9): the
(epsilon, delta) pair and the privacy profile are amplified (certified upper bounds);
the dominating pair is the inner pair with the rate and scheme
(:class:`~.pairs.SubsampledPair`: ``pld`` builds the remove and add orientations, Zhu,
Dong and Wang 2022); the Renyi curve exists for the Poisson-subsampled Gaussian (the
sampled Gaussian mechanism, Mironov, Talwar and Zhang 2019, :mod:`._sampled_gaussian`);
at rate 1 a subsampled mechanism is its inner mechanism.

Expressions write subsampling as a sampler (``gaussian(1.1) @ poisson(0.01)``), so this
family registers no syntax of its own.
"""

from __future__ import annotations

import math
from typing import Any, Callable

import numpy as np

from ..errors import NoRuleError
from ..mechanisms import Gaussian, Subsampled
from ..subsampling import amplified_pair, amplified_profile
from .pairs import SubsampledPair
from .rules import (
    DominanceKey,
    dominance_key,
    dominating_pair,
    eps_delta_pair,
    privacy_profile,
    pure_epsilon,
    renyi_curve,
)

__all__: list[str] = []

Profile = Callable[[float], float]


@eps_delta_pair.register(Subsampled)
def _(m: Subsampled) -> tuple[float, float] | None:
    inner = eps_delta_pair(m.mechanism)
    if inner is None:
        return None
    return amplified_pair(inner[0], inner[1], m.rate, m.scheme)


@privacy_profile.register(Subsampled)
def _(m: Subsampled) -> Profile:
    return amplified_profile(privacy_profile(m.mechanism), m.rate, m.scheme)


@dominating_pair.register(Subsampled)
def _(m: Subsampled, *, epsilon: float | None = None) -> SubsampledPair:
    return SubsampledPair(dominating_pair(m.mechanism, epsilon=epsilon), m.rate, m.scheme)


@pure_epsilon.register(Subsampled)
def _(m: Subsampled) -> float:
    # at rate 1 the inner mechanism's; below it no pure-DP amplification is used here
    return pure_epsilon(m.mechanism) if m.rate == 1.0 else math.inf


@renyi_curve.register(Subsampled)
def _(m: Subsampled, orders: Any = None) -> np.ndarray:
    if m.rate == 1.0:
        return renyi_curve(m.mechanism, orders)
    if m.scheme != "poisson":
        raise NoRuleError(
            "no Renyi rule is implemented for sampling without replacement; use method='pld'.",
            rule="renyi_curve", mechanism=m)
    g = m.mechanism
    if type(g) is not Gaussian:  # the sampled Gaussian's formula holds for exactly the Gaussian pair
        raise NoRuleError(
            "Renyi curves of Poisson subsampling are implemented only for the Gaussian mechanism "
            "(the sampled Gaussian mechanism); use method='pld'.", rule="renyi_curve", mechanism=m)
    from ._sampled_gaussian import rdp_subsampled_gaussian

    return rdp_subsampled_gaussian(m.rate, g.sigma / g.sensitivity, orders)


@dominance_key.register(Subsampled)
def _(m: Subsampled) -> DominanceKey:
    inner = dominance_key(m.mechanism)
    return DominanceKey(f"subsampled:{m.scheme}:{m.rate!r}:{inner.family}", inner.params)

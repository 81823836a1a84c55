r"""Tree aggregation (single-epoch DP-FTRL): every rule of ``TreeAggregation(noise_multiplier, steps)``.

One pass over the data in which each example lies in one leaf is an adaptive composition
of Gaussian mechanisms, at most ``nodes`` = :math:`\lceil\log_2(\text{steps}+1)\rceil` of
which depend on the example, each with sensitivity 1 over noise ``noise_multiplier``; the
run is therefore exactly as private as one Gaussian with
:math:`\mu = \sqrt{\text{nodes}}/\sigma` (Dong, Roth and Su, "Gaussian Differential
Privacy", Cor. 3.3, adaptive composition of GDP), which is a dominating pair of the run:
every rule (pair, profile, Renyi curve, dominance) is that of
:attr:`~dpcompose.mechanisms.TreeAggregation.gaussian`, whose sensitivity
:math:`\sqrt{\text{nodes}}` and :math:`\mu` are both rounded up.
"""

from __future__ import annotations

from ..mechanisms import Gaussian, TreeAggregation
from .rules import register_equivalent
from .syntax import MechanismSyntax, Parameter, register_syntax

__all__: list[str] = []


def _gaussian(m: TreeAggregation) -> Gaussian:
    return m.gaussian


# every rule (pair, profile, Renyi curve, dominance key, ...) is that of its Gaussian: they are the same pair
register_equivalent(TreeAggregation, _gaussian)


register_syntax(MechanismSyntax(
    "tree_aggregation", TreeAggregation,
    (Parameter("noise_multiplier", "noise std per node over the clip norm, > 0",
               "the noise multiplier must be a finite number > 0, e.g. noise_multiplier = 4", gt=0),
     Parameter("steps", "leaves (steps) of the one tree, a whole number >= 1",
               "steps is a whole number >= 1, e.g. steps = 1000", ge=1)),
    "Single-epoch DP-FTRL (tree aggregation, each example in one step): Gaussian with mu = "
    "sqrt(ceil(log2(steps + 1))) / noise_multiplier.", "TreeAggregationSpec",
    aliases=("dp_ftrl",), noise="noise_multiplier"))

"""Selection families: exponential mechanism, bounded range, report-noisy-max (Laplace and Gumbel),
permute-and-flip and the sparse vector technique."""

from __future__ import annotations

import math
from dataclasses import KW_ONLY, dataclass
from fractions import Fraction

from .._validation import (
    check_count,
    check_epsilon,
    check_positive,
)
from .base import Mechanism, _monotone_flag, _quotient_up


@dataclass(frozen=True, slots=True)
class Exponential(Mechanism):
    r"""The exponential mechanism (McSherry and Talwar 2007) with privacy parameter :math:`\varepsilon`.

    Selects an output :math:`r` with probability proportional to
    :math:`\exp(\varepsilon u(x, r) / (2 \Delta u))`.

    Args:
        epsilon: in :math:`[0, \infty)`.

    Guarantee:
        :math:`\varepsilon`-DP (Dwork and Roth, Thm 3.10; Roth, CIS 800 lecture 4).
        dpcompose accounts for it as an :math:`\varepsilon`-DP mechanism, which is an
        upper bound; lower bounds are not claimed for it since a specific utility
        function may be more private.
    """

    epsilon: float

    def __post_init__(self) -> None:
        object.__setattr__(self, "epsilon", check_epsilon("Exponential.epsilon", self.epsilon))


@dataclass(frozen=True, slots=True)
class BoundedRange(Mechanism):
    r"""An :math:`\varepsilon`-bounded-range (BR) mechanism, e.g. the exponential mechanism, accounted tightly.

    A mechanism is :math:`\varepsilon`-BR when for all neighbours :math:`x, x'` its privacy
    loss :math:`\log(\Pr[M(x) = y] / \Pr[M(x') = y])` ranges over an interval of length at
    most :math:`\varepsilon` (Durfee and Rogers, "Practical Differentially Private Top-k
    Selection with Pay-what-you-get Composition", NeurIPS 2019; definition number not
    verified). Members:

    - the exponential mechanism selecting :math:`r` with probability
      :math:`\propto \exp(\varepsilon u(x, r) / (2 \Delta u))` (the standard calibration of
      :class:`Exponential`), or :math:`\propto \exp(\varepsilon u(x, r) / \Delta u)` when the
      utility is monotone in the data (every utility moves the same way between neighbours);
    - report-noisy-max with Gumbel noise (it is that exponential mechanism).

    Args:
        epsilon: the range :math:`\varepsilon`, in :math:`[0, \infty)`.

    Guarantee:
        :math:`\varepsilon`-DP, and the tight privacy profile, dominating pair and Renyi
        curve of the class (Dong, Durfee and Rogers, "Optimal Differential Privacy
        Composition for Exponential Mechanisms", ICML 2020; arXiv:1909.13830, Sec. 3.1 and
        Sec. 4: the worst case of one
        BR mechanism is a two-point pair parametrised by :math:`t \in [0, \varepsilon]`).
        ``Exponential(eps)`` is accounted as an :math:`\varepsilon`-DP mechanism (looser);
        write ``BoundedRange(eps)`` for the same mechanism to get these tighter bounds. See
        :mod:`dpcompose.representations.bounded_range`. Upper bounds only.
    """

    epsilon: float

    def __post_init__(self) -> None:
        object.__setattr__(self, "epsilon", check_epsilon("BoundedRange.epsilon", self.epsilon))

@dataclass(frozen=True, slots=True)
class ReportNoisyMax(Mechanism):
    r"""Report-noisy-max with Laplace noise: the index of the largest :math:`u_i(x) + \mathrm{Lap}(b)`.

    Args:
        scale: the noise scale :math:`b > 0`.
        sensitivity: :math:`\Delta > 0`, the most any utility changes between neighbours
            (default 1; keyword only).
        monotone: whether all utilities move the same way between neighbours (e.g. counts
            when a record is added); keyword only, default False.

    Guarantee:
        :math:`\varepsilon`-DP with :math:`\varepsilon = \Delta/b` for monotone utilities
        (Dwork and Roth, "The Algorithmic Foundations of Differential Privacy", Claim 3.9,
        counting queries) and :math:`2\Delta/b` otherwise (Ding, Wang, Zhang and Kifer, "Free
        Gap Information from the Differentially Private Sparse Vector and Noisy Max
        Mechanisms", VLDB 2019, Sec. 2); accounted as an :math:`\varepsilon`-DP mechanism
        (upper bounds only, as for :class:`Exponential`).
    """

    scale: float
    _: KW_ONLY
    sensitivity: float = 1.0
    monotone: int = 0  # 1 (or True): monotone; stored as 0 / 1

    def __post_init__(self) -> None:
        object.__setattr__(self, "scale", check_positive("ReportNoisyMax.scale", self.scale,
                                                         remedy="the noise scale b must be > 0."))
        object.__setattr__(self, "sensitivity", check_positive("ReportNoisyMax.sensitivity", self.sensitivity))
        object.__setattr__(self, "monotone", _monotone_flag("ReportNoisyMax", self.monotone))

    @property
    def epsilon(self) -> float:
        """Delta / b (monotone) or 2 Delta / b, rounded up (2 Delta is exact in doubles)."""
        return _quotient_up(self.sensitivity * (1.0 if self.monotone else 2.0), self.scale)


@dataclass(frozen=True, slots=True)
class ReportNoisyMaxGumbel(Mechanism):
    r"""Report-noisy-max with Gumbel noise: the index of the largest :math:`u_i(x) + \mathrm{Gumbel}(b)`.

    It selects :math:`i` with probability :math:`\propto e^{u_i(x)/b}` (the Gumbel-max
    trick): the exponential mechanism.

    Args:
        scale: the Gumbel scale :math:`b > 0`.
        sensitivity: :math:`\Delta > 0` (default 1; keyword only).
        monotone: whether all utilities move the same way between neighbours (keyword only).

    Guarantee:
        :math:`\varepsilon`-bounded-range with :math:`\varepsilon = 2\Delta/b`, or
        :math:`\Delta/b` for monotone utilities (the loss is :math:`(u_i(x) - u_i(x'))/b` minus
        a constant, an interval of that width; Durfee and Rogers, "Practical Differentially
        Private Top-k Selection with Pay-what-you-get Composition", NeurIPS 2019;
        arXiv:1905.04273, Sec. 4.1),
        accounted exactly as :class:`BoundedRange` (upper bounds only).
    """

    scale: float
    _: KW_ONLY
    sensitivity: float = 1.0
    monotone: int = 0  # 1 (or True): monotone; stored as 0 / 1

    def __post_init__(self) -> None:
        object.__setattr__(self, "scale", check_positive("ReportNoisyMaxGumbel.scale", self.scale,
                                                         remedy="the Gumbel scale b must be > 0."))
        object.__setattr__(self, "sensitivity", check_positive("ReportNoisyMaxGumbel.sensitivity", self.sensitivity))
        object.__setattr__(self, "monotone", _monotone_flag("ReportNoisyMaxGumbel", self.monotone))

    @property
    def epsilon(self) -> float:
        """The bounded range Delta / b (monotone) or 2 Delta / b, rounded up."""
        return _quotient_up(self.sensitivity * (1.0 if self.monotone else 2.0), self.scale)


@dataclass(frozen=True, slots=True)
class PermuteAndFlip(Mechanism):
    r"""Permute-and-flip selection (McKenna and Sheldon) with privacy parameter :math:`\varepsilon`.

    Visits the candidates in random order and stops at :math:`r` with probability
    :math:`\exp(\varepsilon(u_r - u^*)/(2\Delta))` (:math:`\Delta` in place of
    :math:`2\Delta` for monotone utilities), :math:`u^*` the largest utility.

    Args:
        epsilon: in :math:`[0, \infty)`.

    Guarantee:
        :math:`\varepsilon`-DP (McKenna and Sheldon, "Permute-and-Flip: A New Mechanism for
        Differentially Private Selection", NeurIPS 2020; theorem number not
        verified); accounted as an
        :math:`\varepsilon`-DP mechanism (upper bounds only; no bounded-range property is
        claimed for it).
    """

    epsilon: float

    def __post_init__(self) -> None:
        object.__setattr__(self, "epsilon", check_epsilon("PermuteAndFlip.epsilon", self.epsilon))


@dataclass(frozen=True, slots=True)
class SparseVector(Mechanism):
    r"""The sparse vector technique (AboveThreshold), stopping after ``c`` positive answers.

    Lyu, Su and Li, "Understanding the Sparse Vector Technique for Differential Privacy"
    (VLDB 2017), Alg. 1: threshold noise :math:`\rho = \mathrm{Lap}(\Delta/\varepsilon_1)`,
    each query's noise :math:`\nu_i = \mathrm{Lap}(2c\Delta/\varepsilon_2)` (or
    :math:`\mathrm{Lap}(c\Delta/\varepsilon_2)` when the queries are monotone; section not
    verified), answer "above" when :math:`q_i(x) + \nu_i \ge T + \rho`, halt after ``c``
    "above" answers. Any number of queries.

    Args:
        epsilon1: :math:`\varepsilon_1 \ge 0`, the budget of the threshold noise.
        epsilon2: :math:`\varepsilon_2 \ge 0`, the budget of the query noise.
        c: the number of positive answers before halting, an integer >= 1 (keyword only).
        monotone: whether the noise was calibrated for monotone queries (keyword only;
            the guarantee is the same, the calibration above differs).

    Guarantee:
        :math:`(\varepsilon_1 + \varepsilon_2)`-DP (Lyu, Su and Li, for Alg. 1 and its
        monotone variant; theorem number not verified), accounted as an
        :math:`\varepsilon`-DP mechanism (upper bounds only). The numeric answers of
        variants that release noisy query values are not covered.
    """

    epsilon1: float
    epsilon2: float
    _: KW_ONLY
    c: int = 1
    monotone: int = 0  # 1 (or True): monotone; stored as 0 / 1

    def __post_init__(self) -> None:
        object.__setattr__(self, "epsilon1", check_epsilon("SparseVector.epsilon1", self.epsilon1))
        object.__setattr__(self, "epsilon2", check_epsilon("SparseVector.epsilon2", self.epsilon2))
        c: object = self.c  # a float is accepted when whole; check_count rejects the rest
        if isinstance(c, float) and c.is_integer():
            c = int(c)
        object.__setattr__(self, "c", check_count("SparseVector.c", c, minimum=1))
        object.__setattr__(self, "monotone", _monotone_flag("SparseVector", self.monotone))

    @property
    def epsilon(self) -> float:
        """epsilon1 + epsilon2, rounded up (the smallest double >= the exact sum)."""
        total = self.epsilon1 + self.epsilon2
        if math.isfinite(total) and Fraction(total) < Fraction(self.epsilon1) + Fraction(self.epsilon2):
            total = math.nextafter(total, math.inf)
        return total

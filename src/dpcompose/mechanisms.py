r"""Mechanisms: frozen, validated value objects.

A mechanism here is a *description* of a differentially private algorithm: enough to
know its privacy guarantee, not to run it (see :mod:`dpcompose.hypotheses.experiment`
for runnable versions). Every class validates in ``__post_init__``, so an invalid
mechanism cannot exist, and is hashable, so equal mechanisms in a list are grouped
and self-composed.

Neighbouring relation: unless stated otherwise, sensitivities and guarantees refer to
the relation under which the user computed them (add/remove or substitution); the
composition theorems hold for either as long as every mechanism in one composition is
stated for the same relation. :class:`Subsampled` names the relation each scheme
assumes.
"""

from __future__ import annotations

import math
from dataclasses import KW_ONLY, dataclass
from fractions import Fraction
from typing import Literal

from ._validation import (
    check_count,
    check_delta,
    check_epsilon,
    check_positive,
    check_probability,
)
from .errors import InvalidParameterError, UnsupportedMechanismError

__all__ = [
    "SUBSAMPLING_SCHEMES",
    "ApproxDP",
    "BoundedRange",
    "DiscreteLaplace",
    "Exponential",
    "Gaussian",
    "Group",
    "Laplace",
    "Mechanism",
    "PermuteAndFlip",
    "PureDP",
    "RandomAllocation",
    "RandomizedResponse",
    "ReportNoisyMax",
    "ReportNoisyMaxGumbel",
    "SparseVector",
    "Subsampled",
    "TreeAggregation",
]


class Mechanism:
    """Base class of every mechanism description (no state of its own)."""

    __slots__ = ()


@dataclass(frozen=True, slots=True)
class PureDP(Mechanism):
    r"""Any mechanism known only to be :math:`\varepsilon`-DP.

    Args:
        epsilon: the privacy parameter, in :math:`[0, \infty]`; ``math.inf`` describes
            a non-private mechanism.

    Guarantee:
        :math:`\Pr[M(x) \in S] \le e^{\varepsilon} \Pr[M(x') \in S]` for neighbours
        :math:`x, x'`. The worst case of the class is randomized response with the same
        epsilon, so composition results for ``PureDP`` are exact for the class.
    """

    epsilon: float

    def __post_init__(self) -> None:
        object.__setattr__(self, "epsilon", check_epsilon("PureDP.epsilon", self.epsilon, allow_inf=True))


@dataclass(frozen=True, slots=True)
class ApproxDP(Mechanism):
    r"""Any mechanism known only to be :math:`(\varepsilon, \delta)`-DP.

    Args:
        epsilon: in :math:`[0, \infty]`.
        delta: in :math:`[0, 1)`.

    Guarantee:
        :math:`\Pr[M(x) \in S] \le e^{\varepsilon} \Pr[M(x') \in S] + \delta`. Its
        dominating pair (Kairouz, Oh and Viswanath, "The Composition Theorem for
        Differential Privacy", 2015) is randomized response with an extra atom of
        mass delta on which the loss is infinite.
    """

    epsilon: float
    delta: float

    def __post_init__(self) -> None:
        object.__setattr__(self, "epsilon", check_epsilon("ApproxDP.epsilon", self.epsilon, allow_inf=True))
        object.__setattr__(self, "delta", check_delta("ApproxDP.delta", self.delta))


@dataclass(frozen=True, slots=True)
class Laplace(Mechanism):
    r"""The Laplace mechanism: :math:`f(x) + \mathrm{Lap}(b)` for a query of L1 sensitivity :math:`\Delta`.

    Args:
        scale: the noise scale :math:`b > 0` (density :math:`e^{-|z|/b} / 2b`).
        sensitivity: :math:`\Delta > 0`, the L1 sensitivity of the query (default 1;
            keyword only: ``Laplace(20, sensitivity=5)``).

    Guarantee:
        :math:`\varepsilon`-DP with :math:`\varepsilon = \Delta / b` (Dwork and Roth,
        "The Algorithmic Foundations of Differential Privacy", Thm 3.6). Its exact
        privacy profile is :math:`\delta(e) = 1 - e^{(e - \varepsilon)/2}` for
        :math:`0 \le e < \varepsilon` and 0 beyond.
    """

    scale: float
    _: KW_ONLY  # Laplace(20, 500) would silently mean sensitivity 500: write sensitivity=500
    sensitivity: float = 1.0

    def __post_init__(self) -> None:
        object.__setattr__(self, "scale", check_positive("Laplace.scale", self.scale,
                                                         remedy="the noise scale b must be > 0."))
        object.__setattr__(self, "sensitivity", check_positive("Laplace.sensitivity", self.sensitivity))

    @property
    def epsilon(self) -> float:
        """The pure-DP parameter sensitivity / scale, rounded up (never below the exact quotient)."""
        return _quotient_up(self.sensitivity, self.scale)


@dataclass(frozen=True, slots=True)
class DiscreteLaplace(Mechanism):
    r"""The discrete Laplace (two-sided geometric) mechanism on an integer-valued query.

    Adds :math:`Z` with :math:`\Pr[Z = k] \propto e^{-|k|/b}` on the integers to a query
    whose values change by at most :math:`\Delta` (an integer) between neighbours.

    Args:
        scale: :math:`b > 0` (the noise has ratio :math:`r = e^{-1/b}` between neighbouring
            integers).
        sensitivity: :math:`\Delta`, a whole number :math:`\ge 1` (default 1).

    Guarantee:
        :math:`\varepsilon`-DP with :math:`\varepsilon = \Delta / b` (Ghosh, Roughgarden
        and Sundararajan, "Universally Utility-Maximizing Privacy Mechanisms", STOC 2009,
        the geometric mechanism; Canonne, Kamath and Steinke, "The Discrete Gaussian for
        Differential Privacy", NeurIPS 2020, Sec. 2 and Prop. 5 on the discrete Laplace).
        Its privacy loss takes the :math:`\Delta + 1` values
        :math:`(\Delta - 2j)/b`, :math:`j = 0..\Delta`, so its exact profile, Renyi curve
        and privacy loss distribution are finite sums
        (:mod:`dpcompose.representations.discrete_laplace`).
    """

    scale: float
    _: KW_ONLY  # as for Laplace: DiscreteLaplace(2, 3) would silently mean sensitivity 3
    sensitivity: float = 1.0

    def __post_init__(self) -> None:
        object.__setattr__(self, "scale", check_positive("DiscreteLaplace.scale", self.scale,
                                                         remedy="the noise scale b must be > 0."))
        object.__setattr__(self, "sensitivity", _whole_sensitivity(
            "DiscreteLaplace", "discrete Laplace mechanism", self.sensitivity, 2.0**53))

    @property
    def epsilon(self) -> float:
        """The pure-DP parameter sensitivity / scale, rounded up (as for :class:`Laplace`)."""
        return _quotient_up(self.sensitivity, self.scale)


@dataclass(frozen=True, slots=True)
class DiscreteGaussian(Mechanism):
    r"""The discrete Gaussian mechanism on an integer-valued query.

    Adds :math:`Z` with :math:`\Pr[Z = k] \propto e^{-k^2/(2\sigma^2)}` on the integers to a
    query whose values change by at most :math:`\Delta` (an integer) between neighbours.
    Never accounted as the continuous Gaussian: its rules are its own (exact pair on the
    lattice, profile by enumeration, Renyi curve; rules dispatch on the exact type).

    Args:
        sigma: :math:`\sigma > 0` (the scale parameter; the variance is slightly below
            :math:`\sigma^2`).
        sensitivity: :math:`\Delta`, a whole number :math:`\ge 1` (default 1).

    Guarantee:
        :math:`\frac{\Delta^2}{2\sigma^2}`-zCDP, and its exact privacy profile is a sum over
        the lattice (Canonne, Kamath and Steinke, "The Discrete Gaussian for Differential
        Privacy", NeurIPS 2020, Secs. 2-3: its zCDP bound and exact (epsilon, delta) formula); see
        :mod:`dpcompose.representations.discrete_gaussian`.
    """

    sigma: float
    _: KW_ONLY  # as for Gaussian: DiscreteGaussian(2, 3) would silently mean sensitivity 3
    sensitivity: float = 1.0

    def __post_init__(self) -> None:
        object.__setattr__(self, "sigma", check_positive("DiscreteGaussian.sigma", self.sigma,
                                                         remedy="the scale sigma must be > 0."))
        # at most 2^26: the losses' numerators Delta (2k - Delta) stay exact in doubles
        object.__setattr__(self, "sensitivity", _whole_sensitivity(
            "DiscreteGaussian", "discrete Gaussian mechanism", self.sensitivity, 2.0**26))


@dataclass(frozen=True, slots=True)
class Gaussian(Mechanism):
    r"""The Gaussian mechanism: :math:`f(x) + N(0, \sigma^2)` for a query of L2 sensitivity :math:`\Delta`.

    Args:
        sigma: the noise standard deviation :math:`\sigma > 0`.
        sensitivity: :math:`\Delta > 0`, the L2 sensitivity of the query (default 1;
            keyword only: ``Gaussian(2, sensitivity=5)``).

    Guarantee:
        Its exact privacy profile, with :math:`\mu = \Delta/\sigma`, is
        :math:`\delta(\varepsilon) = \Phi(\mu/2 - \varepsilon/\mu) - e^{\varepsilon}\Phi(-\mu/2 - \varepsilon/\mu)`
        (Balle and Wang, "Improving the Gaussian Mechanism for Differential Privacy:
        Analytical Calibration and Optimal Denoising", ICML 2018, Thm 8). It is not
        :math:`\varepsilon`-DP for any finite :math:`\varepsilon`.
    """

    sigma: float
    _: KW_ONLY  # Gaussian(2, 1000) would silently mean sensitivity 1000: write sensitivity=1000
    sensitivity: float = 1.0

    def __post_init__(self) -> None:
        object.__setattr__(self, "sigma", check_positive("Gaussian.sigma", self.sigma,
                                                         remedy="the noise standard deviation must be > 0."))
        object.__setattr__(self, "sensitivity", check_positive("Gaussian.sensitivity", self.sensitivity))

    @property
    def mu(self) -> float:
        """The Gaussian-DP parameter sensitivity / sigma, rounded up (never below the exact quotient)."""
        return _quotient_up(self.sensitivity, self.sigma)


@dataclass(frozen=True, slots=True)
class RandomizedResponse(Mechanism):
    r"""Binary randomized response: report the true bit with probability :math:`e^\varepsilon / (1 + e^\varepsilon)`.

    Args:
        epsilon: in :math:`[0, \infty]`.

    Guarantee:
        exactly :math:`\varepsilon`-DP; it is the dominating pair of the class of
        :math:`\varepsilon`-DP mechanisms (Kairouz, Oh and Viswanath 2015).
    """

    epsilon: float

    def __post_init__(self) -> None:
        object.__setattr__(self, "epsilon", check_epsilon("RandomizedResponse.epsilon", self.epsilon, allow_inf=True))


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


def _monotone_flag(cls: str, value: object) -> int:
    """A monotone flag, stored as 0 or 1 (plan files read numbers): True/False or 1/0."""
    if isinstance(value, (bool, int, float)) and value in (0, 1):
        return int(value)
    raise InvalidParameterError(
        f"{cls}.monotone = {value!r} is not True/False (or 1/0); set it to True only when every "
        f"utility moves the same way between neighbouring databases (e.g. counts under adding a record).")


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


@dataclass(frozen=True, slots=True)
class ZCDP(Mechanism):
    r"""Any mechanism known only to be :math:`\rho`-zCDP (zero-concentrated DP).

    Args:
        rho: :math:`\rho > 0` (finite).

    Guarantee:
        :math:`D_\alpha(M(x) \| M(x')) \le \rho\alpha` for every :math:`\alpha > 1` and
        neighbours :math:`x, x'` (Bun and Steinke, "Concentrated Differential Privacy:
        Simplifications, Extensions, and Lower Bounds", TCC 2016, Def. 1.1). It composes
        under method ``rdp`` (curves add) and converts to :math:`(\varepsilon, \delta)` with
        Canonne, Kamath and Steinke's conversion ("The Discrete Gaussian for Differential
        Privacy", NeurIPS 2020, Prop. 12 / Cor. 13). No dominating pair is known for the
        class (the Gaussian with :math:`\mu^2/2 = \rho` is one member, not the worst
        case), so ``pld`` and ``optimal`` refuse it. Upper bounds only.
    """

    rho: float

    def __post_init__(self) -> None:
        object.__setattr__(self, "rho", check_positive(
            "ZCDP.rho", self.rho, remedy="rho-zCDP needs a finite rho > 0 (a Gaussian with mu has rho = mu^2 / 2)."))


#: the sampling schemes of Subsampled, as a type (Subsampled checks the value at runtime)
Scheme = Literal["poisson", "without_replacement", "poisson_substitution"]
SUBSAMPLING_SCHEMES = ("poisson", "without_replacement", "poisson_substitution")


@dataclass(frozen=True, slots=True)
class Subsampled(Mechanism):
    r"""A mechanism run on a random subsample of the database.

    Args:
        mechanism: the mechanism run on the subsample (any dpcompose mechanism except
            another ``Subsampled``).
        rate: the sampling rate :math:`q \in (0, 1]`: each record is kept independently
            with probability q (``"poisson"``, ``"poisson_substitution"``), or a
            fixed-size subset of :math:`m = qn` records is drawn uniformly
            (``"without_replacement"``).
        scheme: ``"poisson"`` (neighbours by adding or removing one record),
            ``"without_replacement"`` (neighbours by substituting one record; the inner
            mechanism is stated for substitution) or ``"poisson_substitution"``
            (Poisson sampling, neighbours by substituting one record; the inner
            mechanism is stated for **adding or removing** one record, e.g. a Gaussian
            with the clipping norm as its sensitivity).

    Guarantee:
        see :mod:`dpcompose.subsampling` for the amplification theorems used (Balle,
        Barthe and Gaboardi, "Privacy Amplification by Subsampling: Tight Analyses via
        Couplings and Divergences", NeurIPS 2018).
    """

    mechanism: Mechanism
    rate: float
    scheme: Scheme = "poisson"

    def __post_init__(self) -> None:
        if not isinstance(self.mechanism, Mechanism):
            raise UnsupportedMechanismError(
                f"Subsampled.mechanism must be a dpcompose mechanism, got {self.mechanism!r}; "
                f"wrap one of PureDP, ApproxDP, Laplace, Gaussian, RandomizedResponse, Exponential."
            )
        if isinstance(self.mechanism, Subsampled):
            raise UnsupportedMechanismError(
                "Subsampled.mechanism is itself Subsampled; compose the rates into one "
                "Subsampled(mechanism, rate1 * rate2) if the sampling is Poisson."
            )
        if isinstance(self.mechanism, Group):
            # Amplification needs to know how a person's records are sampled: together
            # (user-level, rate q) or each on its own (record-level: the person is in the
            # batch with probability 1-(1-q)^g, not q). No rule here tells them apart, so
            # accounting either way could under-report the other: refuse.
            raise UnsupportedMechanismError(
                f"Subsampled.mechanism is {self.mechanism!r}: a sampler after a group is ambiguous "
                f"(a person's {self.mechanism.size} records sampled together or each on its own "
                f"give different amplification) and has no certified rule here. Remedy: account the "
                f"person without amplification, Group(mechanism, size) at every step (an upper bound: "
                f"sampling the records never increases the loss)."
            )
        object.__setattr__(self, "rate", check_probability("Subsampled.rate", self.rate, low_open=True))
        if self.scheme not in SUBSAMPLING_SCHEMES:
            raise InvalidParameterError(
                f"Subsampled.scheme = {self.scheme!r} is not one of {SUBSAMPLING_SCHEMES}."
            )


@dataclass(frozen=True, slots=True)
class Group(Mechanism):
    r"""A mechanism seen by a person who contributes up to ``size`` records (group privacy).

    Neighbouring databases of the group differ in up to :math:`g` records of one person,
    so a per-record guarantee becomes a per-person one. The family files decide how:

    - ``Laplace``, ``Gaussian``, ``DiscreteLaplace``: exactly the same mechanism with
      sensitivity :math:`g\Delta` (the query moves by at most :math:`g\Delta` in the norm
      that defines :math:`\Delta`, by the triangle inequality; the pair is attained by a
      sum query whose records move together);
    - a mechanism with its own :math:`(\varepsilon, \delta)` pair (``PureDP``,
      ``ApproxDP``, ``RandomizedResponse``, ``Exponential``): an upper bound,
      :math:`(g\varepsilon,\ \delta\,(e^{g\varepsilon} - 1)/(e^{\varepsilon} - 1))`-DP,
      which is at most Dwork and Roth's :math:`(g\varepsilon,\ g e^{(g-1)\varepsilon}\delta)`;
    - anything else is refused (no group rule is certified for it here).

    Args:
        mechanism: the per-record mechanism (not ``Subsampled``, not another ``Group``).
        size: :math:`g`, the most records one person contributes, an integer >= 1.

    Guarantee:
        see :mod:`dpcompose.representations.group` (Dwork and Roth, "The Algorithmic
        Foundations of Differential Privacy", Thm 2.2 and the remark after it).
    """

    mechanism: Mechanism
    size: int

    def __post_init__(self) -> None:
        if not isinstance(self.mechanism, Mechanism):
            raise UnsupportedMechanismError(
                f"Group.mechanism must be a dpcompose mechanism, got {self.mechanism!r}; "
                f"wrap one of PureDP, ApproxDP, Laplace, Gaussian, DiscreteLaplace, RandomizedResponse, "
                f"Exponential."
            )
        if isinstance(self.mechanism, Group):
            raise UnsupportedMechanismError(
                "Group.mechanism is itself a Group; write one Group with the product of the sizes "
                "(a group of groups is a group of size g1 * g2)."
            )
        if isinstance(self.mechanism, Subsampled):
            raise UnsupportedMechanismError(
                "Group(Subsampled(...)) is refused: the amplification theorems dpcompose uses hold for "
                "one record, and a person's g records are sampled together or apart depending on the "
                "pipeline, so no group rule is certified here. Account per person instead: sample "
                "people (Subsampled of the per-person mechanism, e.g. Gaussian with sensitivity g * C)."
            )
        size = self.size
        if isinstance(size, float) and float.is_integer(size):
            size = int(size)
        object.__setattr__(self, "size", check_count("Group.size", size, minimum=1))


def _whole_sensitivity(cls: str, what: str, value: float, limit: float) -> float:
    """The sensitivity of an integer-noise mechanism: a whole number in [1, limit]."""
    s = check_positive(f"{cls}.sensitivity", value)
    if s != math.floor(s) or s > limit:
        raise InvalidParameterError(
            f"{cls}.sensitivity = {value!r} is not a whole number in [1, {limit:g}]; the {what} adds "
            f"integer noise to an integer-valued query, so its sensitivity is a whole number >= 1 "
            f"(round the query's sensitivity up, e.g. 2)."
        )
    return s


def _quotient_up(numerator: float, denominator: float) -> float:
    """numerator / denominator rounded up: the correctly rounded quotient, moved up one ulp
    when it lies below the exact quotient of the two doubles (compared as rationals).

    A privacy parameter computed by division is a loss bound: rounding it to nearest could
    put it half an ulp below the truth (Laplace(1e6): fl(1e-6) < 1/1e6).
    """
    q = numerator / denominator
    if math.isfinite(q) and q > 0.0:
        # exact comparison q < n/d as integers (a/b < (c/f)/(e/g) <=> a*f*e < c*g*b for
        # b, f, g > 0 and e > 0; a Fraction costs a gcd per operation, this does not)
        a, b = q.as_integer_ratio()
        c, f = numerator.as_integer_ratio()
        e, g = denominator.as_integer_ratio()
        below = a * f * e < c * g * b if e > 0 else Fraction(q) < Fraction(numerator) / Fraction(denominator)
        if below:
            q = math.nextafter(q, math.inf)
    return q


def describe(mechanism: Mechanism) -> str:
    """A short human-readable description, e.g. ``Laplace(scale=20, sensitivity=1)``."""
    if isinstance(mechanism, Group):
        return f"Group({describe(mechanism.mechanism)}, size={mechanism.size})"
    if isinstance(mechanism, Subsampled):
        return f"Subsampled({describe(mechanism.mechanism)}, rate={mechanism.rate:g}, scheme={mechanism.scheme})"
    fields = getattr(mechanism, "__dataclass_fields__", {})
    args = ", ".join(f"{name}={_fmt(getattr(mechanism, name))}" for name in fields)
    return f"{type(mechanism).__name__}({args})"


def _fmt(value: object) -> str:
    if isinstance(value, float):
        return "inf" if math.isinf(value) else f"{value:g}"
    return repr(value)


# --- mog: matrix-mechanism families (issue 12) -------------------------------------------


def _sqrt_up(n: int) -> float:
    """sqrt(n) for an integer n >= 0, rounded up (never below the exact root)."""
    r = math.sqrt(n)
    a, b = r.as_integer_ratio()
    if a * a < n * b * b:  # exact: r^2 < n as rationals
        r = math.nextafter(r, math.inf)
    return r


@dataclass(frozen=True, slots=True)
class TreeAggregation(Mechanism):
    r"""Single-epoch DP-FTRL: tree aggregation of ``steps`` clipped gradients, each example in one step.

    Binary-tree aggregation (Dwork, Naor, Pitassi and Rothblum 2010; Chan, Shi and Song
    2011) releases every complete dyadic node :math:`[k2^j + 1, (k+1)2^j]` of the leaves
    (steps) seen so far, each with fresh noise :math:`N(0, \sigma^2 C^2 I)`, where
    :math:`C` is the clip norm and :math:`\sigma` the noise multiplier. Over
    ``steps`` = :math:`n` leaves a leaf lies in at most
    :math:`\lceil\log_2(n+1)\rceil = \lfloor\log_2 n\rfloor + 1` released nodes (leaf 1 lies in
    :math:`[1, 2^j]` for every :math:`2^j \le n`), available as :attr:`nodes`.

    Args:
        noise_multiplier: :math:`\sigma > 0`, the noise standard deviation per node over the
            clip norm (the L2 sensitivity of one example's contribution to one leaf).
        steps: :math:`n \ge 1`, the number of leaves (steps) in the one tree.
        participations: how often one example may appear in the tree; only 1 is covered.

    Neighbouring relation: that of the paper (Def. 1.1), one record replaced by the zero
    record (its clipped gradient by 0), so one node's sensitivity is the clip norm; this
    also covers adding or removing a record when the data order gives every other
    record the same step either way. Under replacing one record by an arbitrary one a
    node's sensitivity is twice the clip norm: describe that as
    ``TreeAggregation(noise_multiplier / 2, steps)`` (``Group`` has no rule for it and
    refuses).

    Guarantee:
        When each example contributes to exactly one leaf of one tree (one pass, a fixed
        data order, no restart needed), the released nodes are an adaptive composition of
        Gaussian mechanisms of which at most :attr:`nodes` have sensitivity :math:`\le C`
        (the others do not depend on the example), so the whole run is
        :math:`\mu`-GDP with :math:`\mu = \sqrt{\text{nodes}}/\sigma` (Dong, Roth and Su,
        "Gaussian Differential Privacy", 2019/2022, Cor. 3.3), equivalently
        :math:`\alpha\,\text{nodes}/(2\sigma^2)`-RDP, i.e. :math:`\rho = \text{nodes}/(2\sigma^2)`-zCDP,
        the bound of Kairouz, McMahan, Song, Thakkar, Thakurta and Xu for one pass
        (theorem number not verified; its Appendix D is the accounting cited by
        dp_accounting's ``SingleEpochTreeAggregationDpEvent``, which uses the same
        :math:`\lceil\log_2(n+1)\rceil`). Every rule is that of
        ``Gaussian(noise_multiplier, sensitivity=sqrt(nodes))`` (:attr:`gaussian`), with
        :math:`\sqrt{\text{nodes}}` rounded up. Several epochs with the tree restarted each
        epoch are the composition of one ``TreeAggregation`` per epoch; several
        participations in one tree are refused (their worst-case node count needs the
        dynamic program of the paper's Appendix D, not implemented here).

    References:
        Kairouz, McMahan, Song, Thakkar, Thakurta and Xu, "Practical and Private (Deep)
        Learning without Sampling or Shuffling", ICML 2021 (arXiv:2103.00039), privacy
        analysis of DP-FTRL and Appendix D (theorem number not verified).
    """

    noise_multiplier: float
    steps: int
    _: KW_ONLY
    participations: int = 1

    def __post_init__(self) -> None:
        object.__setattr__(self, "noise_multiplier", check_positive(
            "TreeAggregation.noise_multiplier", self.noise_multiplier,
            remedy="the noise standard deviation per node over the clip norm must be > 0."))
        given: tuple[object, object] = (self.steps, self.participations)  # plan files give floats
        steps, k = (int(v) if isinstance(v, float) and v.is_integer() else v for v in given)
        object.__setattr__(self, "steps", check_count("TreeAggregation.steps", steps, minimum=1))
        k = check_count("TreeAggregation.participations", k, minimum=1)
        if k != 1:
            raise InvalidParameterError(
                f"TreeAggregation.participations = {k} is not covered: only single-epoch use (each "
                f"example in one leaf of the tree, participations = 1) has a verified bound here. For "
                f"several epochs restart the tree each epoch and compose one TreeAggregation per epoch "
                f"(e.g. [TreeAggregation(sigma, steps)] * epochs).")
        object.__setattr__(self, "participations", k)

    @property
    def nodes(self) -> int:
        """The most released tree nodes one leaf lies in: ceil(log2(steps + 1)) = floor(log2(steps)) + 1."""
        return self.steps.bit_length()

    @property
    def gaussian(self) -> Gaussian:
        """The equivalent Gaussian mechanism, sensitivity sqrt(nodes) rounded up."""
        return Gaussian(self.noise_multiplier, sensitivity=_sqrt_up(self.nodes))

    @property
    def mu(self) -> float:
        """The Gaussian-DP parameter sqrt(nodes) / noise_multiplier, rounded up."""
        return self.gaussian.mu


@dataclass(frozen=True, slots=True)
class RandomAllocation(Mechanism):
    r"""One epoch of random allocation: each record is used in exactly ``per_epoch`` of ``steps`` steps.

    Each record's set of steps is a uniformly random ``k``-subset of the ``t`` steps
    (``k = 1``: balls-in-bins), drawn independently of the other records' sets; the
    mechanism ``mechanism`` runs at every step on the records allocated to it, each step
    may depend on the earlier steps' outputs. Compose ``(RandomAllocation(...), epochs)``
    for several epochs (independent allocations).

    Accounted **without amplification**: an epoch is dominated by ``k`` un-amplified
    invocations of ``mechanism`` (the rules are those of the k-fold composition, see
    :mod:`dpcompose.representations.random_allocation`). This is an upper bound, never
    attained in general (random allocation does amplify; the amplified bounds of Chua et
    al. and Feldman-Shenfeld are not implemented).

    Proof (one epoch; the neighbouring relation is the inner mechanism's). Let the record
    that differs be x, its step set S (uniform k-subset) and A the allocation of the other
    records. Add/remove: S is independent of A, so conditioned on (S, A) both databases
    give the same batches at the steps outside S and batches differing in x at the steps in
    S; substitution (x -> x'): couple x' to x's step set S. For fixed (S, A) the outputs
    are an adaptive composition of t steps of which the t - k outside S have the same
    conditional law under both databases, so
    :math:`H_\gamma(P_{S,A} \| Q_{S,A}) \le H_\gamma(\text{k-fold dominating pair})`
    (Zhu, Dong and Wang 2022, Thm 10: dominating pairs compose adaptively; an identical
    step is dominated by the pair (Dirac, Dirac)). The epoch's output laws are the mixtures
    :math:`P = \sum_{S,A} w_{S,A} P_{S,A}`, :math:`Q = \sum_{S,A} w_{S,A} Q_{S,A}` with the
    same weights, and the hockey-stick divergence is jointly convex (an f-divergence,
    :math:`(p - \gamma q)_+` is jointly convex), so :math:`H_\gamma(P\|Q) \le
    \max_{S,A} H_\gamma(P_{S,A}\|Q_{S,A})`, the k-fold bound, for every gamma >= 0.

    Args:
        mechanism: the mechanism run at each step (not ``Subsampled``, not another
            ``RandomAllocation``).
        steps: :math:`t`, the number of steps of an epoch, an integer >= 1.
        per_epoch: :math:`k`, the steps each record is allocated to, an integer in [1, t].

    Guarantee:
        every rule is that of the k-fold composition of ``mechanism`` where a closed
        form of it exists (``k = 1``: the mechanism itself; ``Gaussian``: sensitivity times
        :math:`\sqrt{k}`; ``ZCDP``: :math:`k\rho`); any other inner mechanism with
        k > 1 is refused with :class:`~dpcompose.errors.NoRuleError` (compose the inner
        mechanism ``k * epochs`` times instead). No lower bound is claimed.

    References:
        Chua, Ghazi, Harrison, Leeman, Kamath, Kumar, Manurangsi, Sinha and Zhang,
        "Balls-and-Bins Sampling for DP-SGD" (AISTATS 2025) (the sampler);
        Zhu, Dong and Wang, "Optimal Accounting of Differential Privacy via Characteristic
        Function" (AISTATS 2022), Thm 10 (adaptive composition of dominating pairs).
    """

    mechanism: Mechanism
    steps: int
    per_epoch: int = 1

    def __post_init__(self) -> None:
        if not isinstance(self.mechanism, Mechanism):
            raise UnsupportedMechanismError(
                f"RandomAllocation.mechanism must be a dpcompose mechanism, got {self.mechanism!r}; "
                f"wrap e.g. Gaussian(sigma, sensitivity=C)."
            )
        if isinstance(self.mechanism, (Subsampled, RandomAllocation)):
            raise UnsupportedMechanismError(
                f"RandomAllocation.mechanism is {type(self.mechanism).__name__}: a sampler inside random "
                f"allocation has no certified rule here; state the per-step mechanism itself "
                f"(e.g. RandomAllocation(Gaussian(sigma), steps=t))."
            )
        if isinstance(self.mechanism, Group):
            # A person's g records are allocated one by one, so the person can sit in up to
            # g * per_epoch steps, not per_epoch: the k-invocation bound of the proof above
            # does not cover it. Refuse rather than under-report.
            raise UnsupportedMechanismError(
                f"RandomAllocation.mechanism is {self.mechanism!r}: each of a person's "
                f"{self.mechanism.size} records is allocated on its own, so the person can be in up to "
                f"{self.mechanism.size} x per_epoch steps and no certified rule covers it here. Remedy: "
                f"account the person as Group(mechanism, size) in every step, an upper bound."
            )
        steps = check_count("RandomAllocation.steps", _whole(self.steps), minimum=1)
        k = check_count("RandomAllocation.per_epoch", _whole(self.per_epoch), minimum=1)
        if k > steps:
            raise InvalidParameterError(
                f"RandomAllocation.per_epoch = {k!r} is above steps = {steps!r}; a record is used in at "
                f"most every step of an epoch (valid range 1 <= per_epoch <= steps; e.g. per_epoch = 1)."
            )
        object.__setattr__(self, "steps", steps)
        object.__setattr__(self, "per_epoch", k)


def _whole(value: object) -> object:
    """A float holding a whole number as an int (other values unchanged, for the range check)."""
    if isinstance(value, float) and float.is_integer(value):
        return int(value)
    return value

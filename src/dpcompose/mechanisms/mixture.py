r"""The mixture-of-Gaussians mechanism (MoG) of amplified matrix mechanisms (issue 12)."""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any, ClassVar

from .._validation import check_positive, check_real
from ..errors import InvalidParameterError
from .base import Mechanism

#: how far the given probabilities may sum from 1 (they are then divided by their sum)
PROBABILITY_SUM_TOLERANCE = 1e-9
#: a sum of probabilities this many ulps of 1 (or closer) is kept as given: dividing by it would
#: not be idempotent (the quotients sum to 1 only within an ulp), so ``format_mechanism(m)`` would
#: not parse back to ``m``; the weights then differ from a distribution by a few ulps, as any
#: normalized doubles do, inside the 64-ulp margins of :mod:`dpcompose.representations.mixture`
UNIT_SUM_ULPS = 4
#: the smallest positive offset c_i / sigma supported
MIN_OFFSET = 1e-8


def _tuple_of_reals(name: str, values: Any) -> tuple[float, ...]:
    if isinstance(values, (str, bytes)) or not hasattr(values, "__iter__"):
        raise InvalidParameterError(
            f"{name} = {values!r} must be a sequence of numbers, e.g. (0.0, 1.0).")
    return tuple(float(check_real(f"{name}[{i}]", v)) for i, v in enumerate(values))


@dataclass(frozen=True, slots=True)
class MixtureOfGaussians(Mechanism):
    r"""The mixture-of-Gaussians mechanism: a Gaussian whose sensitivity is random.

    With the record present the output is :math:`N(c_i, \sigma^2)` with probability
    :math:`p_i`; without it, :math:`N(0, \sigma^2)`. The pair is
    :math:`P = N(0, \sigma^2)` against :math:`Q = \sum_i p_i N(c_i, \sigma^2)`, accounted
    in both orientations (remove: :math:`(Q, P)`; add: :math:`(P, Q)`), as add/remove
    neighbours need.

    Special cases: ``MixtureOfGaussians(sigma, (0, 1), (1 - q, q))`` is the
    Poisson-subsampled Gaussian (``Subsampled(Gaussian(sigma), q)``, the same pair);
    ``(c,), (1,)`` is ``Gaussian(sigma, sensitivity=c)``. Choquette-Choo, Ganesh, Steinke
    and Thakurta use it for the matrix mechanism with amplification (MMCC): each
    conditional step of a b-min-separated or Poisson-sampled matrix mechanism is such a
    mixture, and a vector-valued mixture is dominated by the scalar one with every
    sensitivity vector replaced by its norm (their Cor. 4.7, as cited by dp_accounting's
    ``MixtureGaussianPrivacyLoss``).

    Args:
        sigma: the noise standard deviation :math:`\sigma > 0`.
        sensitivities: the offsets :math:`c_i \ge 0` (L2 norms), at least one positive; a
            positive one at least :data:`MIN_OFFSET` times sigma.
        probabilities: :math:`p_i \ge 0` summing to 1 (within
            :data:`PROBABILITY_SUM_TOLERANCE`; they are then divided by their sum, so the
            mechanism described is always a distribution, unless the sum is already 1 within
            :data:`UNIT_SUM_ULPS` ulps, which keeps the normalization idempotent). Components of probability 0
            are dropped; equal offsets are kept apart (their pair is the same).

    Guarantee:
        The privacy loss of the remove orientation,
        :math:`L(x) = \log\sum_i p_i e^{(c_i x - c_i^2/2)/\sigma^2}`, is non-decreasing in
        the output :math:`x` when every :math:`c_i \ge 0` (its derivative is the
        :math:`p_i e^{\dots}`-weighted mean of :math:`c_i/\sigma^2 \ge 0`, strictly
        positive since some :math:`c_i > 0`), so every hockey-stick divergence of either
        orientation is attained by a half-line of outputs: that is what the privacy
        profile, the pld segment and the tails use
        (:mod:`dpcompose.representations.mixture`).

    References:
        Choquette-Choo, Ganesh, Steinke and Thakurta, "Privacy Amplification for Matrix
        Mechanisms", ICLR 2024 (arXiv:2310.15526), the MoG mechanism and Cor. 4.7
        (numbers as cited by dp_accounting; the paper's text was not reachable here).
    """

    sigma: float
    sensitivities: tuple[float, ...]
    probabilities: tuple[float, ...]
    asymmetric_pair: ClassVar[bool] = True

    def __post_init__(self) -> None:
        sigma = check_positive("MixtureOfGaussians.sigma", self.sigma,
                               remedy="sigma is the noise standard deviation, e.g. sigma = 1.0.")
        cs = _tuple_of_reals("MixtureOfGaussians.sensitivities", self.sensitivities)
        ps = _tuple_of_reals("MixtureOfGaussians.probabilities", self.probabilities)
        if len(cs) != len(ps) or not cs:
            raise InvalidParameterError(
                f"MixtureOfGaussians: sensitivities has {len(cs)} entries and probabilities {len(ps)}; "
                f"give one probability per sensitivity (at least one), e.g. sensitivities=(0, 1), "
                f"probabilities=(0.99, 0.01).")
        for i, (c, p) in enumerate(zip(cs, ps)):
            if not c >= 0.0:
                raise InvalidParameterError(
                    f"MixtureOfGaussians.sensitivities[{i}] = {c!r} is negative; the offsets are L2 "
                    f"norms c_i >= 0 (the monotone loss this family relies on needs them all >= 0).")
            if not 0.0 <= p <= 1.0:
                raise InvalidParameterError(
                    f"MixtureOfGaussians.probabilities[{i}] = {p!r} is outside [0, 1]; each p_i is a probability.")
        total = math.fsum(ps)
        if abs(total - 1.0) > PROBABILITY_SUM_TOLERANCE:
            raise InvalidParameterError(
                f"MixtureOfGaussians.probabilities sum to {total!r}, not 1 (tolerance "
                f"{PROBABILITY_SUM_TOLERANCE:g}); give a distribution over the sensitivities, e.g. "
                f"(1 - q, q) for the subsampled Gaussian.")
        if abs(total - 1.0) <= UNIT_SUM_ULPS * 2.0**-52:
            total = 1.0  # 1 up to rounding: kept as given, so normalizing is idempotent (see UNIT_SUM_ULPS)
        kept = [(c, p / total) for c, p in zip(cs, ps) if p > 0.0]
        if not any(c > 0.0 for c, _ in kept):
            raise InvalidParameterError(
                "MixtureOfGaussians: every sensitivity with positive probability is 0, so the "
                "mechanism does not depend on the record (0-DP); leave it out of the composition, or "
                "give at least one c_i > 0.")
        for i, (c, _) in enumerate(kept):
            if 0.0 < c / sigma < MIN_OFFSET:
                raise InvalidParameterError(
                    f"MixtureOfGaussians.sensitivities[{i}] = {c!r} is below {MIN_OFFSET:g} sigma; offsets that "
                    f"small are not supported (the privacy loss is flat below the precision of doubles). "
                    f"Give 0 if that component does not depend on the record, or a larger offset.")
        object.__setattr__(self, "sigma", sigma)
        object.__setattr__(self, "sensitivities", tuple(c for c, _ in kept))
        object.__setattr__(self, "probabilities", tuple(p for _, p in kept))

    @property
    def means(self) -> tuple[float, ...]:
        r"""The offsets in units of :math:`\sigma`, :math:`\mu_i = c_i/\sigma` (rounded to nearest)."""
        return tuple(c / self.sigma for c in self.sensitivities)

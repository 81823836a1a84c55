r"""Random allocation (balls-in-bins) of a Gaussian: a Monte Carlo estimate, not a certified bound.

Opt-in, outside the certified pipeline: nothing in ``compose``, ``auto``, calibration or the
ledger calls it, and its result is an :class:`AllocationEstimate`, never a ``Guarantee``.
dpcompose's certified rule for ``RandomAllocation(Gaussian(sigma), steps=t)`` is one
un-amplified invocation per epoch (:mod:`dpcompose.representations.random_allocation`); this
module estimates how much smaller the true privacy profile is.

The pair. One epoch has ``t`` steps, each record is in exactly one uniformly chosen step and
every step adds Gaussian noise ``sigma`` to a sum of sensitivity ``s``. With
:math:`\mu = s/\sigma` (in noise units) the record's epoch is the pair

.. math:: P = N(0, I_t), \qquad Q = \frac{1}{t}\sum_{i=1}^t N(\mu e_i, I_t),

Q with the record (add), P without (the other records' contributions are the same under both
and cancel; Chua et al., Sec. 3, the dominating pair of balls-and-bins sampling). The privacy
loss is exact in log-sum-exp form, :math:`L(x) = \log\frac{dQ}{dP}(x) =
\operatorname{logsumexp}_i(\mu x_i - \mu^2/2) - \log t`, and E epochs are the product pair
(independent allocations), whose loss is the sum of E independent epoch losses.

The estimator. Both directions are hockey-stick divergences with a summand in [0, 1]:

- add: :math:`\delta_{Q\|P}(\varepsilon) = E_Q[(1 - e^{\varepsilon - L})_+]`, L sampled under Q
  (the record's step is fixed to 1 by symmetry: L is symmetric in the coordinates);
- remove: :math:`\delta_{P\|Q}(\varepsilon) = E_P[(1 - e^{\varepsilon + L})_+]`, L sampled under P.

Each direction's mean of ``samples`` independent draws estimates its delta; the reported
delta is the larger direction. The confidence limits are the Chernoff-Hoeffding (KL) bounds
for the mean of independent variables in [0, 1] (Hoeffding 1963, Thm 1, applied to X and to
1 - X): with probability at least :math:`1 - a`, the true mean m satisfies
:math:`\mathrm{kl}(\bar X \| m) \le \log(1/a)/n` on the side tested. Each of the four
one-sided limits (two directions, lower and upper) is taken at level
:math:`a = (1 - \text{confidence})/4`, so by the union bound the interval
``[delta_lower, delta_upper]`` of the larger direction holds with probability at least
``confidence``. These KL limits scale with the mean (about
:math:`\bar X + \sqrt{2 \bar X \log(1/a)/n}`), so deltas near :math:`\log(1/a)/n` need
``samples`` of order :math:`1/\delta`.

Epsilon for a target delta: ``epsilon_upper`` is the smallest epsilon whose upper limit is at
most the target, found by bisection on the same samples (ending on the passing side). This
keeps the stated confidence although epsilon is chosen from the data: the upper limit is a
non-increasing function of epsilon (the sample mean is, and the KL limit increases with the
mean), so if the true delta at the returned epsilon exceeded the target, the upper limit would
also fail at the fixed, data-independent point :math:`\varepsilon_0 = \sup\{\varepsilon :
\delta(\varepsilon) > \text{target}\}`, an event of probability at most a per direction.

Guarantee:
    none: a Monte Carlo estimate with a stated confidence, not a certified bound. The
    confidence statement is exact mathematics (Hoeffding's bound and the union bound) about
    ideal independent samples; the pseudo-random generator and floating-point sums are not
    accounted for. Add/remove neighbours, Gaussian steps, one step per record per epoch.

References:
    Chua, Ghazi, Harrison, Leeman, Kamath, Kumar, Manurangsi, Sinha and Zhang,
    "Balls-and-Bins Sampling for DP-SGD" (AISTATS 2025) (the sampler, its dominating pair and
    Monte Carlo estimation of its privacy loss);
    Hoeffding, "Probability Inequalities for Sums of Bounded Random Variables" (JASA 1963),
    Thm 1 (the KL confidence limits).
"""

from __future__ import annotations

import dataclasses
import math
from typing import Any

import numpy as np

from .._validation import check_count, check_positive, check_real
from ..errors import InvalidParameterError

__all__ = ["AllocationEstimate", "allocation_delta_estimate", "allocation_epsilon_estimate"]

MIN_SAMPLES = 1000
_CHUNK_ELEMENTS = 1 << 21  # normals drawn per chunk (16 MiB of float64)


@dataclasses.dataclass(frozen=True)
class AllocationEstimate:
    r"""Monte Carlo estimate, not a certified bound: random allocation of a Gaussian.

    The delta of ``epochs`` epochs of balls-in-bins sampling at ``epsilon`` (the larger of the
    add and remove directions), estimated from ``samples`` draws per direction with ``seed``;
    ``[delta_lower, delta_upper]`` holds the true delta with probability at least
    ``confidence`` (module docstring). Never a ``Guarantee``: do not report it as one.

    Attributes:
        sigma, sensitivity, steps, epochs: the mechanism (noise sigma per step, sum
            sensitivity, t steps per epoch, independent epochs).
        epsilon: the epsilon queried, or for :func:`allocation_epsilon_estimate` the
            smallest epsilon whose upper confidence limit is at most ``target_delta``.
        delta: the point estimate at ``epsilon`` (sample mean, larger direction).
        delta_lower, delta_upper: the confidence limits at ``epsilon``.
        confidence: the probability that the interval holds (for ideal random samples).
        samples, seed: draws per direction and the seed that reproduces them.
        target_delta: the target of an epsilon search, else ``None``.
        epsilon_estimate: the epsilon at which the point estimate meets ``target_delta``
            (no confidence attached), else ``None``.
        add, remove: each direction's (point estimate, lower limit, upper limit) at
            ``epsilon``: add is :math:`H(Q\|P)` (the record present in the output's law Q),
            remove :math:`H(P\|Q)`.
    """

    sigma: float
    sensitivity: float
    steps: int
    epochs: int
    epsilon: float
    delta: float
    delta_lower: float
    delta_upper: float
    confidence: float
    samples: int
    seed: int
    target_delta: float | None = None
    epsilon_estimate: float | None = None
    add: tuple[float, float, float] = (math.nan, math.nan, math.nan)
    remove: tuple[float, float, float] = (math.nan, math.nan, math.nan)

    kind = "Monte Carlo estimate, not a certified bound"

    def __repr__(self) -> str:
        head = (f"AllocationEstimate({self.kind}: sigma={self.sigma:g}, sensitivity={self.sensitivity:g}, "
                f"steps={self.steps}, epochs={self.epochs}, epsilon={self.epsilon:.6g}, delta={self.delta:.4g}, "
                f"{self.confidence:g} interval [{self.delta_lower:.4g}, {self.delta_upper:.4g}]")
        if self.target_delta is not None:
            head += f", target_delta={self.target_delta:g}, epsilon_estimate={self.epsilon_estimate:.6g}"
        return head + f", samples={self.samples}, seed={self.seed})"


# ---------------------------------------------------------------------------
# sampling: the exact privacy loss of each draw, by log-sum-exp


def _epoch_losses(mu: float, t: int, epochs: int, n: int, rng: np.random.Generator, *, under_q: bool) -> Any:
    """n draws of log dQ/dP over ``epochs`` epochs, x drawn under Q (``under_q``) or P."""
    total = np.zeros(n)
    chunk = max(1, _CHUNK_ELEMENTS // t)
    for _ in range(epochs):
        for start in range(0, n, chunk):
            stop = min(n, start + chunk)
            a = rng.standard_normal((stop - start, t))
            a *= mu
            a -= mu * mu / 2
            if under_q:
                a[:, 0] += mu * mu  # the record's step (step 1 by symmetry) has mean mu
            top = a.max(axis=1)  # log-sum-exp by rows, the largest term factored out (no overflow)
            a -= top[:, None]
            np.exp(a, out=a)
            total[start:stop] += top + np.log(a.sum(axis=1))
    total -= epochs * math.log(t)
    return total


class _Direction:
    """The sorted losses of one direction, each draw's summand (1 - e^{eps - loss})_+."""

    def __init__(self, losses: Any) -> None:
        self.losses = np.sort(losses)
        self.n = len(losses)

    def mean(self, eps: float) -> float:
        tail = self.losses[np.searchsorted(self.losses, eps, side="right"):]
        return float(np.sum(-np.expm1(eps - tail)) / self.n)

    def largest(self) -> float:
        return float(self.losses[-1])


def _kl(p: float, q: float) -> float:
    """kl(p || q) between Bernoulli laws, p, q in [0, 1] (0 log 0 = 0, infinite where undefined)."""
    out = 0.0
    for a, b in ((p, q), (1.0 - p, 1.0 - q)):
        if a > 0.0:
            if b <= 0.0:
                return math.inf
            out += a * math.log(a / b)
    return out


def _kl_limit(mean: float, budget: float, *, upper: bool) -> float:
    """The farthest m on one side of ``mean`` with kl(mean || m) <= budget (Hoeffding 1963, Thm 1).

    Bisection over 200 halvings, ending on the outer side (the upper limit is never below the
    exact root, the lower never above it).
    """
    mean = min(1.0, max(0.0, mean))
    lo, hi = (mean, 1.0) if upper else (0.0, mean)
    if upper and _kl(mean, 1.0) <= budget:
        return 1.0
    if not upper and _kl(mean, 0.0) <= budget:
        return 0.0
    for _ in range(200):
        mid = 0.5 * (lo + hi)
        if mid in (lo, hi):
            break
        inside = _kl(mean, mid) <= budget
        if upper:
            lo, hi = (mid, hi) if inside else (lo, mid)
        else:
            lo, hi = (lo, mid) if inside else (mid, hi)
    return hi if upper else lo


class _Sampled:
    """Both directions' losses for one mechanism and seed, with the confidence budget."""

    def __init__(self, mu: float, t: int, epochs: int, samples: int, seed: int, confidence: float) -> None:
        add_seq, remove_seq = np.random.SeedSequence(seed).spawn(2)
        add = _epoch_losses(mu, t, epochs, samples, np.random.default_rng(add_seq), under_q=True)
        remove = -_epoch_losses(mu, t, epochs, samples, np.random.default_rng(remove_seq), under_q=False)
        self.directions = (_Direction(add), _Direction(remove))
        self.budget = math.log(4.0 / (1.0 - confidence)) / samples  # each one-sided limit at (1 - c)/4

    def each(self, eps: float) -> list[tuple[float, float, float]]:
        """(point estimate, lower limit, upper limit) of each direction (add, remove) at eps."""
        means = [d.mean(eps) for d in self.directions]
        return [(m, _kl_limit(m, self.budget, upper=False), _kl_limit(m, self.budget, upper=True)) for m in means]

    def at(self, eps: float) -> tuple[float, float, float]:
        """(point estimate, lower limit, upper limit) of the larger direction at eps."""
        add, remove = self.each(eps)
        return (max(add[0], remove[0]), max(add[1], remove[1]), max(add[2], remove[2]))

    def smallest_epsilon(self, target: float, value: Any) -> float:
        """The smallest eps >= 0 with value(eps) <= target (value non-increasing), on the passing side."""
        if value(0.0) <= target:
            return 0.0
        lo, hi = 0.0, max(0.0, max(d.largest() for d in self.directions))
        while value(hi) > target:  # every mean is 0 beyond the largest loss; only a limit stays above
            hi = 2.0 * hi + 1.0
        for _ in range(200):
            mid = 0.5 * (lo + hi)
            if mid in (lo, hi) or hi - lo <= 1e-9 * max(1.0, hi):
                break
            lo, hi = (lo, mid) if value(mid) <= target else (mid, hi)
        return hi


# ---------------------------------------------------------------------------
# the public functions


def _check(sigma: Any, steps: Any, epochs: Any, sensitivity: Any, samples: Any, seed: Any,
           confidence: Any) -> tuple[float, float, int, int, int, int, float]:
    sigma = check_positive("sigma", sigma, remedy="sigma is the Gaussian noise per step, e.g. 1.0.")
    sensitivity = check_positive("sensitivity", sensitivity, remedy="e.g. 1.0 (the clipping norm).")
    steps = check_count("steps", steps, minimum=1)
    epochs = check_count("epochs", epochs, minimum=1)
    samples = check_count("samples", samples, minimum=MIN_SAMPLES)
    seed = check_count("seed", seed, minimum=0)
    confidence = check_real("confidence", confidence, low=0.0, high=1.0, low_open=True, high_open=True,
                            remedy="e.g. 0.95 (the probability that the interval holds).")
    return sigma, sensitivity, steps, epochs, samples, seed, confidence


def allocation_delta_estimate(sigma: float, steps: int, epsilon: float, *, epochs: int = 1,
                              sensitivity: float = 1.0, samples: int = 1_000_000, seed: int = 0,
                              confidence: float = 0.95) -> AllocationEstimate:
    r"""Monte Carlo estimate (not a certified bound) of delta(epsilon) for random allocation of a Gaussian.

    ``epochs`` epochs of ``steps`` steps, each record in exactly one uniformly chosen step per
    epoch, Gaussian noise ``sigma`` on a sum of sensitivity ``sensitivity``; add/remove
    neighbours, the larger direction. Cost: about ``2 * samples * steps * epochs`` normal
    draws.

    Args:
        sigma: the noise standard deviation of each step, > 0.
        steps: t, the steps of an epoch, an integer >= 1.
        epsilon: where to evaluate delta, >= 0.
        epochs: independent epochs, an integer >= 1.
        sensitivity: the L2 sensitivity of each step's sum, > 0.
        samples: draws per direction, an integer >= 1000 (deltas near
            :math:`\log(4/(1-\text{confidence}))/\text{samples}` are not resolved).
        seed: the seed of numpy's default generator (two spawned streams), an integer >= 0.
        confidence: the probability in (0, 1) that ``[delta_lower, delta_upper]`` holds.

    Returns:
        An :class:`AllocationEstimate` (not a ``Guarantee``).

    Raises:
        InvalidParameterError: an argument outside its valid range (the message names it).

    Guarantee:
        none: a Monte Carlo estimate with a stated confidence (module docstring).

    References:
        Chua et al., "Balls-and-Bins Sampling for DP-SGD" (AISTATS 2025); Hoeffding (JASA
        1963), Thm 1.
    """
    sigma, sensitivity, steps, epochs, samples, seed, confidence = _check(
        sigma, steps, epochs, sensitivity, samples, seed, confidence)
    epsilon = check_real("epsilon", epsilon, low=0.0, remedy="epsilon is >= 0, e.g. 1.0.")
    sampled = _Sampled(sensitivity / sigma, steps, epochs, samples, seed, confidence)
    delta, lower, upper = sampled.at(epsilon)
    add, remove = sampled.each(epsilon)
    return AllocationEstimate(sigma, sensitivity, steps, epochs, epsilon, delta, lower, upper, confidence,
                              samples, seed, add=add, remove=remove)


def allocation_epsilon_estimate(sigma: float, steps: int, delta: float, *, epochs: int = 1,
                                sensitivity: float = 1.0, samples: int = 1_000_000, seed: int = 0,
                                confidence: float = 0.95) -> AllocationEstimate:
    r"""Monte Carlo estimate (not a certified bound) of epsilon(delta) for random allocation of a Gaussian.

    The same samples as :func:`allocation_delta_estimate`; ``epsilon`` of the result is the
    smallest epsilon whose upper confidence limit is at most ``delta`` (it holds with
    probability at least ``confidence``: module docstring), ``epsilon_estimate`` the one
    where the point estimate meets ``delta``.

    Args:
        sigma, steps, epochs, sensitivity, samples, seed, confidence: as in
            :func:`allocation_delta_estimate`.
        delta: the target delta in (0, 1); it must be above
            :math:`1 - (\frac{1-\text{confidence}}{4})^{1/\text{samples}}`
            (about :math:`\log(4/(1-\text{confidence}))/\text{samples}`), the smallest upper
            limit that ``samples`` draws can give.

    Returns:
        An :class:`AllocationEstimate` (not a ``Guarantee``) with ``target_delta = delta``.

    Raises:
        InvalidParameterError: an argument outside its valid range, or ``samples`` too few
            for ``delta`` (the message gives the number needed).

    Guarantee:
        none, as for :func:`allocation_delta_estimate`; the epsilon search keeps the
        confidence (module docstring).

    References:
        as for :func:`allocation_delta_estimate`.
    """
    sigma, sensitivity, steps, epochs, samples, seed, confidence = _check(
        sigma, steps, epochs, sensitivity, samples, seed, confidence)
    target = check_real("delta", delta, low=0.0, high=1.0, low_open=True, high_open=True,
                        remedy="delta is a probability; typical values are 1e-5 to 1e-10.")
    floor = -math.expm1(math.log((1.0 - confidence) / 4.0) / samples)  # the upper limit of a zero mean
    if target <= floor:
        needed = math.ceil(math.log(4.0 / (1.0 - confidence)) / target) * 2
        raise InvalidParameterError(
            f"delta = {target!r} is below {floor:.3g}, the smallest upper confidence limit that samples = "
            f"{samples} draws can give at confidence {confidence:g}; raise samples to about {needed:.3g} or "
            f"more (samples of order 1/delta are needed), or lower confidence.")
    sampled = _Sampled(sensitivity / sigma, steps, epochs, samples, seed, confidence)
    eps_upper = sampled.smallest_epsilon(target, lambda e: sampled.at(e)[2])
    eps_point = sampled.smallest_epsilon(target, lambda e: sampled.at(e)[0])
    point, lower, upper = sampled.at(eps_upper)
    add, remove = sampled.each(eps_upper)
    return AllocationEstimate(sigma, sensitivity, steps, epochs, eps_upper, point, lower, upper, confidence,
                              samples, seed, target_delta=target, epsilon_estimate=eps_point, add=add,
                              remove=remove)

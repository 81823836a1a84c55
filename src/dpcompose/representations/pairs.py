r"""Dominating pairs as data: atoms, continuous segments and what the methods read from them.

A dominating pair of a mechanism is two output laws, ``B`` (with the target record) and
``A`` (without it), whose hockey-stick divergences bound the mechanism's for every
neighbouring pair. Its privacy loss is :math:`\ell = \log(dB/dA)`. One object describes
it for every consumer:

- ``pld`` reads the masses and segments (:mod:`dpcompose.methods.pld.discretize` builds
  the loss law under ``P`` from them, subsampled or not);
- ``optimal`` reads randomized response's masses (:func:`rr_atoms`) for its binomials;
- hypothesis DP's exact enumeration reads the log-masses of atomic pairs
  (:func:`~.finite.finite_pair`).

Atoms carry their masses twice, linear and as logarithms, each computed by the family
without losing relative accuracy (``expit`` for randomized response's masses, its
``logaddexp`` form for their logs), so no consumer recomputes one from the other.

Symmetric pairs (every pair here that is not subsampled, except the mixture of
Gaussians') describe both orientations: swapping ``A`` and ``B`` is a relabelling of
outputs; an asymmetric pair says so (``symmetric=False``) and is read in both. A subsampled mechanism's pair is
:class:`SubsampledPair`: the inner pair, the rate and the scheme; its "remove" and
"add" orientations are built by the method that composes it.

Lower bounds (:func:`lower_pair`) come from a pair attained by the mechanism, or, for a
pair that only bounds it (``attained=False``), from its ``lower`` pair: a *thinning* of the
mechanism's true pair :math:`(B, A)`: atoms at outputs of the true pair with their true
losses :math:`\ell_x`, and masses :math:`B'(x) \le B(x)`, :math:`A'(x) \le A(x)` (e.g. the
atoms of a window, the mass beyond it left out, each mass rounded down). A consumer reads,
in each orientation, the losses and the masses of the side :math:`P` the loss is measured
under (:math:`B`, :math:`A`, or the mixture :math:`(1-q)A + qB` after subsampling), i.e. the
loss law :math:`\omega'` of the thinning, a sub-measure of the true loss law :math:`\omega`
(same losses, smaller masses; the other side is :math:`e^{-\ell}` times it, never read).

*Claim.* Hockey-stick divergences computed from thinnings' loss laws are lower bounds,
also after composition and subsampling. *Proof.* (i) One pair:
:math:`\delta'(e) = \int (1 - e^{e - L})_+ \,d\omega' \le \int (1 - e^{e - L})_+ \,d\omega = \delta(e)`
(a non-negative integrand, :math:`\omega' \le \omega`). (ii) Composition: the loss law of a
product pair is the convolution of the loss laws, and a convolution of non-negative
measures is monotone in each, so :math:`\omega'_1 * \omega'_2 \le \omega_1 * \omega_2`; then (i).
(iii) Poisson subsampling: the loss :math:`\log(1 - q + q e^{\ell_x})` (or its negative) is
a function of the true loss, and the :math:`P`-masses :math:`(1-q)A'(x) + qB'(x)` (or
:math:`A'(x)`) are at most the true ones: again a sub-measure. A consumer may lower any
mass further or drop atoms, and may lower a loss (the integrand increases with
:math:`L`); it must never raise a mass or a loss.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Callable

if TYPE_CHECKING:  # numpy is imported where an array is made (cold start, issue 14)
    import numpy as np

from .._record import record_methods
from .._numerics.logspace import expit, softplus

__all__ = ["PairAtom", "PairSegment", "DominatingPair", "SubsampledPair", "rr_atoms", "delta_atoms", "lower_pair"]

ArrayFn = Callable[["np.ndarray"], "np.ndarray"]


@record_methods
@dataclass(frozen=True, repr=False, eq=False)
class PairAtom:
    """One output (or merged outputs) of a pair: loss ``log(b / a)`` with masses ``a`` (A) and ``b`` (B).

    ``loss`` is ``+inf`` where only ``B`` has mass and ``-inf`` where only ``A`` has.
    ``log_a``, ``log_b`` are the logs of the masses (``-inf`` for 0), computed accurately.
    """

    loss: float
    a: float
    b: float
    log_a: float
    log_b: float


@record_methods
@dataclass(frozen=True, repr=False, eq=False)
class PairSegment:
    """A continuous part: an inner variable ``z`` in ``[z0, z1]`` with A- and B-densities.

    ``loss(z)`` is the privacy loss, monotone (``increasing`` or not), ``inverse`` its
    inverse; ``a_density``, ``b_density`` the densities in ``z``. ``normal_mu`` is set when
    ``A = N(0, 1)`` and ``B = N(mu, 1)`` in ``z`` (then a consumer may cut the tails by
    Gaussian quantiles, and use ``b = a e^loss`` for accuracy). ``normal_mixture`` is set
    when ``A = N(0, 1)`` and ``B = sum_i w_i N(c_i, 1)`` in ``z`` (the pairs ``(w_i, c_i)``;
    the same uses, the tails cut per component).
    """

    z0: float
    z1: float
    loss: ArrayFn
    inverse: ArrayFn
    a_density: ArrayFn
    b_density: ArrayFn
    increasing: bool
    normal_mu: float | None = None
    normal_mixture: tuple[tuple[float, float], ...] | None = None


@record_methods
@dataclass(frozen=True, repr=False, eq=False)
class DominatingPair:
    """A symmetric dominating pair: finitely many atoms plus continuous segments.

    Attributes:
        atoms: the atoms, in a fixed order.
        segments: the continuous parts (empty for an atomic pair).
        epsilon: the epsilon the pair is built from, for families parametrised by one
            (the largest finite loss; ``inf`` for a non-private mechanism; ``None``
            when there is none, e.g. the Gaussian). ``pld``'s lower model asks the rule
            for the same family at a smaller epsilon (``dominating_pair(m, epsilon=e)``,
            a post-processing, so it is dominated).
        grid_anchor: a spacing of the loss lattice, for atomic pairs whose finite losses
            are all multiples of it, or the location of a singular point of the loss law;
            ``pld`` aligns its automatic grid to it. ``None`` if there is none.
        attained: whether the pair is attained by the mechanism (then bounds computed
            from the pair are also lower bounds); ``False`` for a description that only
            bounds the mechanism (the exponential mechanism as epsilon-DP).
        symmetric: whether swapping ``A`` and ``B`` is a relabelling of outputs (every
            family pair except the mixture of Gaussians). An asymmetric pair is ``(B, A)``
            = (with, without the record): its "remove" orientation is ``(B, A)`` and its
            "add" orientation ``(A, B)``, composed separately like Poisson subsampling's
            (its mechanism class sets ``asymmetric_pair``).
        lower: for a pair that is not attained, a thinning of the mechanism's true pair
            (module docstring: the true losses, masses at most the true ones, a
            sub-probability pair), from which lower bounds are computed
            (:func:`lower_pair`); ``None`` where there is none (no lower bound is claimed).
            Ignored when ``attained`` is True. Whoever derives a bound from another
            mechanism's pair (``dataclasses.replace(pair, attained=False)``) must also clear
            it (``lower=None``): a thinning of the other pair is none of this mechanism's.
    """

    atoms: tuple[PairAtom, ...]
    segments: tuple[PairSegment, ...] = ()
    epsilon: float | None = None
    grid_anchor: float | None = None
    attained: bool = True
    symmetric: bool = True
    lower: "DominatingPair | None" = field(default=None, repr=False)

    @property
    def is_atomic(self) -> bool:
        """No continuous part: the pair is a finite table (an exact enumeration can use it)."""
        return not self.segments

    @property
    def is_identity(self) -> bool:
        """Every loss is 0 (a 0-DP mechanism: the identity of composition)."""
        return (self.is_atomic and all(at.loss == 0.0 for at in self.atoms if at.a > 0.0 or at.b > 0.0))


@record_methods
@dataclass(frozen=True, repr=False, eq=False)
class SubsampledPair:
    """The pair of a subsampled mechanism: the inner pair, the sampling rate and scheme.

    Poisson subsampling (add/remove neighbours): remove orientation
    ``((1-q)A + qB, A)``, add orientation ``(A, (1-q)A + qB)``; sampling without
    replacement (substitution): every invocation may take either (see
    :mod:`dpcompose.methods.pld`).
    """

    inner: DominatingPair
    rate: float
    scheme: str

    @property
    def attained(self) -> bool:
        return self.inner.attained

    @property
    def is_atomic(self) -> bool:
        return self.inner.is_atomic

    @property
    def is_identity(self) -> bool:
        return False


def lower_pair(pair: DominatingPair | SubsampledPair) -> DominatingPair | SubsampledPair | None:
    """The pair lower bounds are computed from: ``pair`` if attained, else its thinning, else None.

    A subsampled pair's is the subsampled thinning of its inner pair (module docstring,
    claim (iii)). A thinning is itself marked not attained (it is no pair of the mechanism:
    its masses sum to less than 1), so nothing reads it as one.
    """
    if isinstance(pair, SubsampledPair):
        inner = _lower_inner(pair.inner)
        if inner is None:
            return None
        return pair if inner is pair.inner else SubsampledPair(inner, pair.rate, pair.scheme)
    return _lower_inner(pair)


def _lower_inner(pair: DominatingPair) -> DominatingPair | None:
    return pair if pair.attained else pair.lower


def rr_atoms(epsilon: float, scale: float = 1.0, log_scale: float = 0.0) -> tuple[PairAtom, PairAtom]:
    r"""Randomized response with parameter epsilon, both masses multiplied by ``scale``.

    Atoms ``(epsilon; a = scale/(1+e^eps), b = scale e^eps/(1+e^eps))`` and the mirror
    image; ``log_scale`` is ``log(scale)``, given by the caller to full accuracy (e.g.
    ``log1p(-delta)``). Non-private (``epsilon = inf``): ``B`` and ``A`` have disjoint
    supports.
    """
    if math.isinf(epsilon):
        return (PairAtom(math.inf, 0.0, scale, -math.inf, log_scale),
                PairAtom(-math.inf, scale, 0.0, log_scale, -math.inf))
    hi, lo = float(expit(epsilon)), float(expit(-epsilon))
    # numpy's logaddexp(0, -+eps), operation for operation (no numpy import: cold start)
    log_hi = -softplus(-epsilon)  # log(e^eps / (1 + e^eps))
    log_lo = -softplus(epsilon)   # log(1 / (1 + e^eps))
    return (PairAtom(epsilon, scale * lo, scale * hi, log_lo + log_scale, log_hi + log_scale),
            PairAtom(-epsilon, scale * hi, scale * lo, log_hi + log_scale, log_lo + log_scale))


def delta_atoms(delta: float) -> tuple[PairAtom, PairAtom]:
    """The two atoms of mass delta with infinite loss of the (epsilon, delta) pair."""
    log_delta = math.log(delta)
    return (PairAtom(math.inf, 0.0, delta, -math.inf, log_delta),
            PairAtom(-math.inf, delta, 0.0, log_delta, -math.inf))

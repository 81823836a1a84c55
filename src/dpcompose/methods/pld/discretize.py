r"""Privacy loss distributions of single mechanisms and their discretization on a loss grid.

This module is the first half of :mod:`dpcompose.methods.pld` (see there for the error
analysis as a whole). It reads, for every mechanism, a *dominating pair* ``(P, Q)`` and
describes the law of the privacy loss :math:`L = \log(dP/dQ)` under :math:`P` as a
:class:`LossModel` (atoms plus continuous segments parametrised by an inner variable
:math:`z`); :func:`discretize` then puts that law on the grid
:math:`\{ih : i \in \mathbb{Z}\}` in one of two directions.

Dominating pairs come from the mechanisms' families
(:data:`dpcompose.representations.dominating_pair`: atoms ``(loss, A-mass, B-mass)`` and
continuous segments in an inner variable :math:`z`; "B" is the output law with the
target record, "A" without it, :math:`\ell = \log(dB/dA)` the inner loss). Every pair
there is symmetric (swapping A and B is a relabelling of outputs), so for a mechanism
that is not subsampled the add direction equals the remove direction, except where the
pair says it is not (``symmetric=False``, the mixture of Gaussians): its remove
direction is ``(B, A)`` and its add direction ``(A, B)``, the rate-1 case of the forms below.

Subsampling with rate :math:`q` (Zhu, Dong and Wang, "Optimal Accounting of
Differential Privacy via Characteristic Function", AISTATS 2022, the dominating pairs
of Poisson-subsampled mechanisms; Balle, Barthe and Gaboardi, "Privacy Amplification
by Subsampling", NeurIPS 2018, for the coupling argument):

- remove direction: :math:`P = (1-q)A + qB`, :math:`Q = A`, so
  :math:`L = \log(1 - q + q e^{\ell})` under :math:`P`;
- add direction: :math:`P = A`, :math:`Q = (1-q)A + qB`, so
  :math:`L = -\log(1 - q + q e^{\ell})` under :math:`A`.

For Poisson subsampling the guarantee is the maximum over both directions (kept apart
until query time); sampling without replacement composes the hull of both instead
(:mod:`dpcompose.methods.pld.substitution`).

Discretization (``kind``): losses in the bin :math:`(l_{i-1}, l_i]` with
:math:`l_i = ih` are summarised by three non-negative integrals computed by
Gauss-Legendre quadrature in :math:`z` (positive integrands, so no cancellation):
:math:`P_i = P(\text{bin})`,
:math:`a_i = \int_{\text{bin}} (1 - e^{l_{i-1} - L})\,dP` and
:math:`b_i = \int_{\text{bin}} (e^{l_i - L} - 1)\,dP`.

- ``"upper"`` ("connect the dots", Doroshenko, Ghazi, Kamath, Kumar and Manurangsi,
  "Connect the Dots: Tighter Discrete Approximations of Privacy Loss Distributions",
  PETS 2022): the mass of a loss :math:`L` in the bin is split between
  :math:`l_{i-1}` and :math:`l_i` so that :math:`E[e^{-Y} \mid L] = e^{-L}`:
  :math:`b_i/(e^h - 1)` goes to :math:`l_{i-1}` and :math:`a_i/(1 - e^{-h})` to
  :math:`l_i`. This is a randomised *refinement* of the pair (outputs are split, the
  likelihood ratio of each piece is a grid value), so by data processing the discrete
  pair dominates the true one for every hockey-stick divergence, and composition keeps
  the order. Its error is second order in :math:`h`.
- ``"lower"``: a randomised *coarsening* (a post-processing), so the discrete pair is
  dominated by the true one. A fraction :math:`u_i` of bin :math:`i` is merged into
  the cell of :math:`l_i` and the rest into the cell of :math:`l_{i-1}`; with
  :math:`u_i = \min(1, (1-u_{i+1})a_{i+1}/b_i)` (from the top) every cell's merged
  loss is at least its grid value (equal where the cell balances), and the surplus
  :math:`P`-mass is removed (lowering :math:`P` only lowers every hockey-stick
  divergence, also after composition). The cell at :math:`l_i` keeps
  :math:`P`-mass :math:`e^{l_i} Q(\text{cell})`. For atoms that are not on the grid this
  degenerates to rounding the loss down (first order in :math:`h`); for that reason the
  lower model of an atomic mechanism (randomized response, (eps, delta), Laplace) uses
  the same mechanism with :math:`\varepsilon` rounded down to the grid, which is a
  post-processing of the original (less private mechanisms are never reported).
  A thinning on a loss lattice (the discrete Gaussian's lower pair, whose ``grid_anchor``
  is the lattice spacing) is composed on a lower grid that divides the spacing
  (:func:`lower_grid_spacing`), and an atom within 4 ulps below a grid
  point is placed on it (covered by the lower query's shift), so no atom is rounded down
  a whole step.

Tails: for Gaussian segments the inner variable is cut at points beyond which the
:math:`P`-mass is at most ``tail`` on each side. Upper: the high-loss tail becomes an
atom at :math:`+\infty`, the low-loss tail an atom at the cut's loss (losses only move
up). Lower: both tails are dropped. Other segments (Laplace and its relatives) have
only their low-loss tail cut the same way, where its mass (by quadrature) is at most
``tail`` (:func:`_cut_low_loss_tail`): a 1000-DP Laplace then spans ~100 in loss, not 2000.

Floating point: every quadrature integrand is a product of positive factors computed
to a few ulps, so the bin sums carry a relative error far below
:data:`MASS_SAFETY`; the upper masses are multiplied by ``1 + MASS_SAFETY`` and the
lower masses by ``1 - MASS_SAFETY``. The 4-node Gauss-Legendre rule is applied on
pieces of width at most :data:`MAX_DZ` in :math:`z` and at most one grid bin in loss,
where the integrands are analytic with derivatives of order one, so its remainder
(:math:`\propto (\Delta z/2)^{8}/8!` times an 8th derivative) is below
``1e-14`` relative; tests compare the discretized profiles with mpmath quadrature.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Callable

import numpy as np

from ..._numerics.arrays import sorted_unique
from ..._numerics.lazy import lazy_function
from ..._numerics.logspace import LOG_SQRT_2PI
from ..._numerics.rounding import MACHINE_EPSILON
from ...errors import MethodNotApplicableError
from ...mechanisms import Mechanism, describe
from ...representations import SubsampledPair, dominating_pair, lower_pair
from ...representations.pairs import ArrayFn
from .grid_index import _grid_index_up_float, grid_index_up, on_grid
from .pair_facts import has_lower_model, lower_grid_spacing, lower_model_is_own, pair_epsilon

log_ndtr = lazy_function("scipy.special", "log_ndtr")  # imported on first use (cold start)
ndtri = lazy_function("scipy.special", "ndtri")  # imported on first use (cold start)

__all__ = ["LossModel", "loss_model", "discretize", "grid_index_up", "MASS_SAFETY",
           "pair_epsilon", "has_lower_model", "lower_model_is_own", "lower_grid_spacing"]

#: relative safety factor applied to every discretized mass (see module docstring)
MASS_SAFETY = 1e-10
#: widest quadrature piece in the inner variable z
MAX_DZ = 0.05
#: quadrature pieces evaluated at once (bounds the size of the node arrays)
_CHUNK = 2 ** 18
#: a segment's low-loss tail is cut (:func:`_cut_low_loss_tail`) only up to this many
#: quadrature pieces (a larger one exceeds every grid budget: pld refuses it), summed
#: this many at a time
_CUT_MAX_PIECES = 2 ** 23
_CHUNK_CUT = 2 ** 14

#: 4-point Gauss-Legendre nodes and weights on [-1, 1]: the doubles ``numpy.polynomial.legendre.leggauss(4)``
#: returns, written out (importing numpy.polynomial costs about 7 ms of a first pld query;
#: ``tests/test_pld.py::test_gauss_legendre_constants_are_leggauss`` checks them bit for bit)
_GL_X = np.array([-0.8611363115940526, -0.33998104358485626, 0.33998104358485626, 0.8611363115940526])
_GL_W = np.array([0.34785484513745357, 0.6521451548625464, 0.6521451548625464, 0.34785484513745357])


@dataclass
class Segment:
    """A continuous part of a loss law: z in [z0, z1], loss L(z) monotone, P-density p(z)."""

    z0: float
    z1: float
    loss: Callable[[np.ndarray], np.ndarray]
    inverse: Callable[[np.ndarray], np.ndarray]
    density: Callable[[np.ndarray, np.ndarray], np.ndarray]  # (z, L(z)) -> P-density
    increasing: bool
    tail_low_z: float = 0.0   # P-mass below z0 (cut away)
    tail_high_z: float = 0.0  # P-mass above z1 (cut away)
    cache: dict = field(default_factory=dict)  # h -> per-piece (bins, P, a, b) sums


@dataclass
class LossModel:
    """The law of the privacy loss under P: finite atoms, an atom at +inf, segments."""

    atom_loss: list[float] = field(default_factory=list)
    atom_mass: list[float] = field(default_factory=list)
    inf_mass: float = 0.0
    segments: list[Segment] = field(default_factory=list)


# ---------------------------------------------------------------------------
# the transformed (subsampled) loss


def _t_forward(ell: np.ndarray, log1mq: float, logq: float) -> np.ndarray:
    """T(ell) = log(1 - q + q e^ell), stable for all ell (T = ell when q = 1)."""
    return np.logaddexp(log1mq, logq + ell)


def _t_inverse(u: np.ndarray, q: float, logq: float) -> np.ndarray:
    """T^{-1}(u) = log((e^u - 1 + q)/q) for u > log(1 - q)."""
    if q == 1.0:
        return np.asarray(u, dtype=float)
    u = np.asarray(u, dtype=float)
    with np.errstate(divide="ignore", invalid="ignore"):
        big = u > 1.0
        out = np.empty_like(u)
        ub = u[big]
        out[big] = ub + np.log1p((q - 1.0) * np.exp(-ub)) - logq
        us = u[~big]
        out[~big] = np.log(np.expm1(us) + q) - logq
    return out


def loss_model(m: Mechanism, direction: str, *, tail: float,
               eps_override: float | None = None, lower: bool = False) -> LossModel:
    """The privacy loss law of ``m`` in ``direction`` ("remove" or "add").

    ``tail`` is the P-mass that may be cut from each end of a Gaussian segment;
    ``eps_override`` asks the family for its pair at that smaller epsilon (used for the
    lower model with epsilon rounded down to the grid; a post-processing, so dominated).
    ``lower`` reads the pair for lower bounds (:func:`~dpcompose.representations.lower_pair`:
    the pair itself if attained, else its thinning, whose loss law is a sub-measure of the
    true one; it has no atom at infinite loss).
    """
    pair = dominating_pair(m, epsilon=eps_override)
    if lower:
        found = lower_pair(pair)
        if found is None:
            raise MethodNotApplicableError(
                f"no lower model for {describe(m)}: its pair only bounds it and has no thinning "
                f"(lower bounds are not claimed for it).")
        pair = found
    if isinstance(pair, SubsampledPair):
        q, inner = pair.rate, pair.inner
    else:
        q, inner = 1.0, pair
    log1mq = math.log1p(-q) if q < 1.0 else -math.inf
    logq = math.log(q)
    remove = direction == "remove"
    model = LossModel()
    for atom in inner.atoms:
        ell, a_mass, b_mass = atom.loss, atom.a, atom.b
        if remove:
            pmass = (1.0 - q) * a_mass + q * b_mass
            if math.isinf(ell):
                loss = math.inf if ell > 0 else log1mq
            else:
                loss = float(_t_forward(np.array(ell), log1mq, logq))
        else:
            pmass = a_mass
            if math.isinf(ell):
                loss = -math.inf if ell > 0 else -log1mq
            else:
                loss = -float(_t_forward(np.array(ell), log1mq, logq))
        if pmass <= 0.0:
            continue
        if loss == math.inf:
            model.inf_mass += pmass
        elif loss == -math.inf:
            # P-mass with infinite negative loss cannot occur for these pairs (Q = 0 there)
            continue
        else:
            model.atom_loss.append(loss)
            model.atom_mass.append(pmass)
    for part in inner.segments:
        z0, z1, ell_f, ell_inv = part.z0, part.z1, part.loss, part.inverse
        a_f, b_f, ell_inc, gmu = part.a_density, part.b_density, part.increasing, part.normal_mu
        # A = N(0, 1) and B a Gaussian mixture in z (one component: normal_mu)
        normal = part.normal_mixture if part.normal_mixture is not None else (
            ((1.0, gmu),) if gmu is not None else None)
        # the segment's functions bind this iteration's part through default arguments
        dens: Callable[[np.ndarray, np.ndarray], np.ndarray]
        seg_loss: Callable[[np.ndarray], np.ndarray]
        seg_inv: Callable[[np.ndarray], np.ndarray]
        if remove:
            if normal is not None:
                # (1 - q) phi(z) + q B(z) = phi(z) e^{L(z)} for the remove direction
                def dens_normal(z: np.ndarray, L: np.ndarray) -> np.ndarray:
                    return np.exp(L - 0.5 * z * z - LOG_SQRT_2PI)
                dens = dens_normal
            else:
                def dens_mixture(z: np.ndarray, L: np.ndarray, a_f: ArrayFn = a_f, b_f: ArrayFn = b_f) -> np.ndarray:
                    return (1.0 - q) * a_f(z) + q * b_f(z)
                dens = dens_mixture

            def loss_remove(z: np.ndarray, ell_f: ArrayFn = ell_f) -> np.ndarray:
                return _t_forward(ell_f(z), log1mq, logq)

            def inv_remove(v: np.ndarray, ell_inv: ArrayFn = ell_inv) -> np.ndarray:
                return ell_inv(_t_inverse(v, q, logq))
            seg_loss, seg_inv = loss_remove, inv_remove
            inc = ell_inc
            comps = [(1.0 - q, 0.0)] + [(q * w, c) for w, c in normal] if normal is not None else None
        else:
            def dens_add(z: np.ndarray, L: np.ndarray, a_f: ArrayFn = a_f) -> np.ndarray:
                return a_f(z)
            dens = dens_add

            def loss_add(z: np.ndarray, ell_f: ArrayFn = ell_f) -> np.ndarray:
                return -_t_forward(ell_f(z), log1mq, logq)

            def inv_add(v: np.ndarray, ell_inv: ArrayFn = ell_inv) -> np.ndarray:
                return ell_inv(_t_inverse(-np.asarray(v, dtype=float), q, logq))
            seg_loss, seg_inv = loss_add, inv_add
            inc = not ell_inc
            comps = [(1.0, 0.0)] if normal is not None else None
        seg = Segment(z0, z1, seg_loss, seg_inv, dens, inc)
        if comps is not None:
            # Gaussian mixture in z: cut each side where the mass beyond is <= tail
            comps = [(w, c) for w, c in comps if w > 0.0]
            share = tail / len(comps)
            z_lo = min(c + float(ndtri(share / w)) for w, c in comps)
            z_hi = max(c - float(ndtri(share / w)) for w, c in comps)
            seg.z0, seg.z1 = z_lo, z_hi
            seg.tail_low_z = float(sum(w * math.exp(log_ndtr(z_lo - c)) for w, c in comps))
            seg.tail_high_z = float(sum(w * math.exp(log_ndtr(c - z_hi)) for w, c in comps))
        else:
            _cut_low_loss_tail(seg, tail)
        model.segments.append(seg)
    return model


def _cut_low_loss_tail(seg: Segment, tail: float) -> None:
    """Cut the low-loss end of a (non-Gaussian) segment where its P-mass is at most ``tail``.

    A Laplace pair with a huge epsilon (``Laplace(1e-3)`` is 1000-DP) has losses on all of
    ``[-eps, eps]``, but all except ``e^{-z}``-small mass within a few dozen of ``eps``:
    without the cut its grid spans ``2 eps`` (millions of points). The cut is the Gaussian
    segments' (see the module docstring): the upper model moves the cut mass to an atom
    at the cut's loss (losses only move up, so the pair still dominates), the lower model
    drops it (a smaller P only lowers every hockey-stick divergence). The cut mass is
    measured by the same 4-node Gauss-Legendre rule on pieces of width :data:`MAX_DZ`
    as the bins (relative error far below :data:`MASS_SAFETY`, by which the upper masses
    are raised); ``tail`` only decides where to cut, never what is certified.
    Pieces are summed from the low-loss end in chunks, stopping at the first chunk whose
    running sum exceeds ``tail``, so the work is that of the part cut away (segments
    longer than :data:`_CUT_MAX_PIECES` pieces are left whole: ``pld`` refuses them).
    """
    width = seg.z1 - seg.z0
    if not (math.isfinite(width) and width > 2 * MAX_DZ and tail > 0.0):
        return  # nothing to cut (or an unbounded segment: none is, here, but never guess)
    n = math.ceil(width / MAX_DZ)
    if n > _CUT_MAX_PIECES:
        return
    zs = np.linspace(seg.z0, seg.z1, n + 1)
    if not seg.increasing:
        zs = zs[::-1]  # from the low-loss end (z1 for a decreasing loss) inwards
    run, cut = 0.0, 0
    for i in range(0, n, _CHUNK_CUT):
        m = min(_CHUNK_CUT, n - i)
        za, zb = zs[i:i + m], zs[i + 1:i + 1 + m]
        mid, half = 0.5 * (za + zb), 0.5 * np.abs(zb - za)
        nodes = mid[:, None] + half[:, None] * _GL_X[None, :]
        mass = (half[:, None] * _GL_W[None, :] * seg.density(nodes, seg.loss(nodes))).sum(axis=1)
        cum = run + np.cumsum(mass)
        j = int(np.searchsorted(cum, tail, side="right"))  # pieces of this chunk that fit
        cut = i + j
        if j < mass.size:
            if j:
                run = float(cum[j - 1])
            break
        run = float(cum[-1])
    if cut == 0 or cut >= n:
        return
    if seg.increasing:
        seg.z0, seg.tail_low_z = float(zs[cut]), seg.tail_low_z + run
    else:
        seg.z1, seg.tail_high_z = float(zs[cut]), seg.tail_high_z + run


# ---------------------------------------------------------------------------
# discretization


@dataclass
class Discretized:
    """A measure on the grid: mass ``p[j]`` at loss ``(start + j) h`` plus ``inf`` at +inf."""

    start: int
    p: np.ndarray
    inf: float


def _segment_sums(seg: Segment, h: float):
    """Gauss-Legendre sums of P, a and b over the pieces of one segment (kind-independent)."""
    z0, z1 = seg.z0, seg.z1
    l0 = float(seg.loss(np.array(z0)))
    l1 = float(seg.loss(np.array(z1)))
    lmin, lmax = min(l0, l1), max(l0, l1)
    i_lo, i_hi = math.floor(lmin / h), math.ceil(lmax / h)
    grid = np.arange(i_lo, i_hi + 1, dtype=float) * h
    grid = grid[(grid > lmin) & (grid < lmax)]
    zg = seg.inverse(grid) if grid.size else np.empty(0)
    n_uni = max(2, int(math.ceil((z1 - z0) / MAX_DZ)) + 1)
    zs = np.concatenate([zg, np.linspace(z0, z1, n_uni)])
    zs = sorted_unique(zs[(zs >= z0) & (zs <= z1)])
    za, zb = zs[:-1], zs[1:]
    keep = zb > za
    za, zb = za[keep], zb[keep]
    # in chunks, so that the (pieces x 4) node arrays stay small
    parts = [_piece_sums(seg, za[i:i + _CHUNK], zb[i:i + _CHUNK], h)
             for i in range(0, za.size, _CHUNK)] or [_piece_sums(seg, za, zb, h)]
    return tuple(np.concatenate(x) for x in zip(*parts))


def _piece_sums(seg: Segment, za: np.ndarray, zb: np.ndarray, h: float):
    """(bin, P, a, b) of each piece [za, zb] by 4-node Gauss-Legendre quadrature."""
    mid, half = 0.5 * (za + zb), 0.5 * (zb - za)
    bins = np.ceil(seg.loss(mid) / h).astype(np.int64)
    nodes = mid[:, None] + half[:, None] * _GL_X[None, :]
    ln = seg.loss(nodes)
    wts = half[:, None] * _GL_W[None, :] * seg.density(nodes, ln)
    lb = bins.astype(float)[:, None] * h
    # one exponential for both weights; e^{l_i - L} lies in [1, e^h), so the
    # differences lose at most ~1e-12 relative for h >= 1e-5 (covered by MASS_SAFETY)
    ex = np.exp(lb - ln)
    wa = np.clip(1.0 - ex * math.exp(-h), 0.0, None)
    wb = np.clip(ex - 1.0, 0.0, None)
    return bins, wts.sum(axis=1), (wts * wa).sum(axis=1), (wts * wb).sum(axis=1)


def _bin_sums(model: LossModel, h: float, kind: str):
    """Per-bin (P_i, a_i, b_i, G_i) for bins i = base .. base + n - 1, plus the upper inf mass.

    ``G_i`` is the part of ``P_i`` that sits in atoms exactly on the grid point ``l_i``
    (it needs no splitting); ``P_i, a_i, b_i`` exclude it.
    """
    idx_parts: list[np.ndarray] = []
    g_idx: list[int] = []
    g_mass: list[float] = []
    p_parts: list[np.ndarray] = []
    a_parts: list[np.ndarray] = []
    b_parts: list[np.ndarray] = []
    inf_extra = 0.0
    atom_loss = list(model.atom_loss)
    atom_mass = list(model.atom_mass)
    for seg in model.segments:
        z0, z1 = seg.z0, seg.z1
        if kind == "upper":
            # cut tails: high-loss side -> +inf, low-loss side -> atom at the cut's loss
            lo_tail, hi_tail = (seg.tail_low_z, seg.tail_high_z) if seg.increasing else (
                seg.tail_high_z, seg.tail_low_z)
            inf_extra += hi_tail
            if lo_tail > 0.0:
                z_cut = z0 if seg.increasing else z1
                atom_loss.append(float(seg.loss(np.array(z_cut))))
                atom_mass.append(lo_tail)
        if h not in seg.cache:
            seg.cache[h] = _segment_sums(seg, h)
        bins, sp, sa, sb = seg.cache[h]
        idx_parts.append(bins)
        p_parts.append(sp)
        a_parts.append(sa)
        b_parts.append(sb)
    if atom_loss:
        al = np.asarray(atom_loss, dtype=float)
        am = np.asarray(atom_mass, dtype=float)
        if kind == "upper":
            # exact placement: an upper bound must never move mass below its loss
            ai = np.array([grid_index_up(x, h) for x in al], dtype=np.int64)
            on = np.array([on_grid(float(x), int(i), h) for x, i in zip(al, ai)], dtype=bool)
        else:
            # lower bound: placement in double arithmetic; an atom within 4 ulps below its
            # grid point is put on it (a lattice thinning on an aligned grid, e.g. the
            # discrete Gaussian's, would otherwise be rounded down a whole step): raising a
            # loss by at most 4 ulps of itself is covered, with the losses' own rounding, by
            # the lower query's shift (16 ulps per copy: GridPLD.slack, Curve._shift)
            ai = np.array([_grid_index_up_float(x, h) for x in al], dtype=np.int64)
            on = np.abs(ai.astype(float) * h - al) <= 4.0 * MACHINE_EPSILON * np.abs(al)
        lb = ai.astype(float) * h
        g_idx.extend(int(i) for i in ai[on])
        g_mass.extend(float(x) for x in am[on])
        al, am, ai, lb = al[~on], am[~on], ai[~on], lb[~on]
        idx_parts.append(ai)
        p_parts.append(am)
        a_parts.append(am * np.clip(-np.expm1((lb - h) - al), 0.0, None))
        b_parts.append(am * np.clip(np.expm1(lb - al), 0.0, None))
    idx_parts.append(np.asarray(g_idx, dtype=np.int64))
    idx = np.concatenate(idx_parts)
    if idx.size == 0:
        z = np.zeros(0)
        return 0, z, z, z, z, inf_extra
    base = int(idx.min())
    n = int(idx.max()) - base + 1
    rel = np.concatenate(idx_parts[:-1]).astype(np.int64) - base if len(idx_parts) > 1 else np.zeros(0, np.int64)
    P = np.bincount(rel, weights=np.concatenate(p_parts) if p_parts else None, minlength=n)
    A = np.bincount(rel, weights=np.concatenate(a_parts) if a_parts else None, minlength=n)
    B = np.bincount(rel, weights=np.concatenate(b_parts) if b_parts else None, minlength=n)
    G = np.bincount(np.asarray(g_idx, dtype=np.int64) - base, weights=np.asarray(g_mass, dtype=float),
                    minlength=n)
    return base, P.astype(float), A.astype(float), B.astype(float), G.astype(float), inf_extra


def _balanced_split(A: np.ndarray, B: np.ndarray, P: np.ndarray) -> np.ndarray:
    """Fractions u_i of bin i merged up into the cell of l_i (the rest goes down).

    The cell of l_i receives the down-part of bin i + 1 (surplus
    ``(1 - u_{i+1}) a_{i+1}``) and the up-part of bin i (deficit ``u_i b_i``); it must
    have surplus >= deficit (then its merged loss is >= l_i), and any surplus is
    removed afterwards, so we balance the cells exactly where possible. The balance
    recursion is stable in the direction of increasing density, so it runs from the
    top down to the bin of largest mass and from the bottom up to it; the meeting cell
    (and any cell where the recursion would leave [0, 1]) keeps a surplus. It runs over
    the bins holding at least 1e-13 of the largest bin mass; outside them the local rule
    ``u_i = min(a_i/(a_i+b_i), (1 - u^loc_{i+1}) a_{i+1}/b_i)`` keeps every cell's surplus
    non-negative at a negligible cost in mass.
    """
    n = A.size
    if n == 0:
        return np.zeros(0)
    with np.errstate(divide="ignore", invalid="ignore"):
        u_loc = np.where(A + B > 0.0, A / (A + B), 1.0)
        a_next = np.append(A[1:], 0.0)
        u_loc_next = np.append(u_loc[1:], 0.0)
        cap = np.where(B > 0.0, (1.0 - u_loc_next) * a_next / B, np.inf)
    u_arr = np.minimum(u_loc, cap)
    peak = int(np.argmax(P))
    sig = np.flatnonzero(P >= 1e-13 * P[peak])
    j0, i1 = int(sig[0]), int(sig[-1])
    a = A.tolist()
    b = B.tolist()
    u = u_arr.tolist()
    # top down over (peak, i1]: u_i = min(1, (1 - u_{i+1}) a_{i+1} / b_i)
    nxt = (1.0 - u_loc[i1 + 1]) * a[i1 + 1] if i1 + 1 < n else 0.0
    for i in range(i1, peak, -1):
        bi = b[i]
        if bi > 0.0:
            ui = nxt / bi
            if ui > 1.0:
                ui = 1.0
        else:
            ui = 1.0
        u[i] = ui
        nxt = (1.0 - ui) * a[i]
    from_above = nxt if peak < i1 else (1.0 - u_loc[peak + 1]) * a[peak + 1] if peak + 1 < n else 0.0
    # bottom up over [j0, peak]: cell j - 1 balances: (1 - u_j) a_j = u_{j-1} b_{j-1}
    if j0 == 0:
        u[0] = 1.0
        start = 1
    else:
        start = j0
    for j in range(start, peak + 1):
        need = u[j - 1] * b[j - 1]
        aj = a[j]
        if need <= aj:
            u[j] = 1.0 - need / aj if aj > 0.0 else 1.0
        else:
            # bin j cannot cover the deficit below: send all of it down and lower u_{j-1}
            u[j] = 0.0
            u[j - 1] = aj / b[j - 1]
    # meeting cell at the peak: deficit u_peak b_peak must not exceed the surplus from above
    if u[peak] * b[peak] > from_above and b[peak] > 0.0:
        u[peak] = from_above / b[peak]
    return np.asarray(u)


def discretize(model: LossModel, h: float, kind: str, *, round_down: bool = False) -> Discretized:
    """Put a loss law on the grid ``h Z``: ``kind="upper"`` dominates, ``"lower"`` is dominated.

    ``round_down`` (lower kind only): instead of the balanced coarsening, every loss
    is rounded down to the grid point at or below it, keeping its :math:`P`-mass (see
    :func:`_round_down`). First order in ``h``, but it keeps all of the mass, where the
    balanced coarsening removes a second-order surplus per copy that compounds over huge
    counts (``Laplace(1e-3)`` x 10^6 keeps ``e^{-4.7}`` of its mass at h = 0.0087).
    """
    base, P, A, B, G, inf_extra = _bin_sums(model, h, kind)
    if round_down and kind == "lower":
        return _round_down(model, base, P, G)
    if P.size == 0:
        inf = model.inf_mass + (inf_extra if kind == "upper" else 0.0)
        return Discretized(0, np.zeros(0), inf * (1.0 + MASS_SAFETY) if kind == "upper" else inf)
    n = P.size
    if kind == "upper":
        # bin i = base + j covers (l_{i-1}, l_i]; mass to l_{i-1} and l_i
        down = B / math.expm1(h)
        up = A / -math.expm1(-h)
        p = np.zeros(n + 1)
        p[:n] += down          # index base - 1 + j
        p[1:] += up + G        # index base + j
        p *= 1.0 + MASS_SAFETY
        start = base - 1
        inf = (model.inf_mass + inf_extra) * (1.0 + MASS_SAFETY)
    else:
        u2 = _balanced_split(A, B, P)
        u2_next = np.append(u2[1:], 0.0)
        eq = P + B                      # e^{l_i} Q_i
        eq_next = np.append(eq[1:], 0.0)
        # cell at l_i (index base + j): up-part of bin i, down-part of bin i + 1
        cell = G + u2 * eq + (1.0 - u2_next) * math.exp(-h) * eq_next
        # the down-part of the lowest bin goes to the cell at l_{base - 1}
        first = (1.0 - u2[0]) * math.exp(-h) * eq[0]
        p = np.concatenate([[first], cell]) * (1.0 - MASS_SAFETY)
        start = base - 1
        inf = model.inf_mass
    nz = np.flatnonzero(p > 0.0)
    if nz.size == 0:
        return Discretized(0, np.zeros(0), inf)
    p = p[nz[0]: nz[-1] + 1]
    return Discretized(start + int(nz[0]), np.ascontiguousarray(p), inf)


def _round_down(model: LossModel, base: int, P: np.ndarray, G: np.ndarray) -> Discretized:
    r"""The lower model that rounds every loss down to the grid, keeping its :math:`P`-mass.

    Bin ``i`` (losses in :math:`(l_{i-1}, l_i]`, ``P``) goes to :math:`l_{i-1}`; the atoms
    exactly on :math:`l_i` (``G``) stay. Why it is a lower bound, for the composition too:
    :math:`\delta(\varepsilon) = E_P[(1 - e^{\varepsilon - L})_+]` with
    :math:`L = \sum_t L_t` under the product of the :math:`P`'s (Balle et al. 2020's
    privacy-loss form of the hockey stick, :math:`L = +\infty` where :math:`Q = 0`). Coupling
    each :math:`L_t` with its rounded value :math:`L'_t \le L_t` gives
    :math:`\sum_t L'_t \le L` pointwise, and :math:`(1 - e^{\varepsilon - x})_+` is
    non-decreasing in :math:`x`, so the rounded measure's profile is at most the true one
    at every :math:`\varepsilon` and every count. The rounded measure need not be the
    loss law of a pair (its :math:`Q`-mass may exceed one): only this pointwise order is
    used. As in the balanced lower model, masses are rounded down by ``MASS_SAFETY``
    (relative), a cut tail is dropped and the atom at :math:`+\infty` is the model's own.
    """
    n = P.size
    if n == 0:
        return Discretized(0, np.zeros(0), model.inf_mass)
    p = np.zeros(n + 1)
    p[:n] += P       # bin base + j -> grid index base - 1 + j
    p[1:] += G       # atoms on grid index base + j stay there
    p *= 1.0 - MASS_SAFETY
    nz = np.flatnonzero(p > 0.0)
    if nz.size == 0:
        return Discretized(0, np.zeros(0), model.inf_mass)
    p = p[nz[0]: nz[-1] + 1]
    return Discretized(base - 1 + int(nz[0]), np.ascontiguousarray(p), model.inf_mass)

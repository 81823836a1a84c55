r"""Privacy loss distributions (``method="pld"``): certified upper *and* lower bounds.

The privacy loss distribution (PLD) of a dominating pair :math:`(P, Q)` is the law of
:math:`L = \log(dP/dQ)(X)` for :math:`X \sim P`; composition multiplies pairs, so PLDs
convolve, and the privacy profile is

.. math:: \delta(\varepsilon) = E\big[(1 - e^{\varepsilon - L})_+\big]
          = \sum_{l > \varepsilon} p(l)\,(1 - e^{\varepsilon - l}) + p(+\infty).

(Meiser and Mohammadi, "Tight on Budget?", CCS 2018; Sommer, Meiser and Mohammadi,
"Privacy Loss Classes", PoPETs 2019; Koskela, Jälkö and Honkela, "Computing Tight
Differential Privacy Guarantees Using FFT", AISTATS 2020.)

How dpcompose computes it (modules :mod:`.discretize`, :mod:`.grid` and :mod:`.curve` hold
the details; :mod:`.composition` keeps the grids of one composition, :mod:`.method` is
the registered method):

1. **Dominating pairs** for every mechanism. Mechanisms that are not subsampled have
   symmetric pairs (one direction suffices). Poisson subsampling (add/remove
   neighbours): the *remove* and the *add* direction are composed separately and kept
   apart until query time; the guarantee is the maximum over both (one pair of
   datasets has one orientation in every invocation). The add direction is first
   evaluated on a grid 8 times coarser (a valid, looser upper bound) and refined only
   where it could decide the maximum. Sampling without replacement (substitution
   neighbours): the orientation may change from one invocation to the next, even
   adaptively, so the upper bound composes one pair per invocation valid for both, the
   hull with profile :math:`\max(\delta_{\mathrm{remove}}, \delta_{\mathrm{add}})`
   (:mod:`.substitution`, proof in ``docs/theory.md``); the lower bound
   is the largest over four attained deterministic mixes (:func:`_directions`).
   Poisson and without-replacement members in one composition are refused
   (:func:`dpcompose.subsampling.composition_relation`).
2. **Two discretizations** on the grid :math:`h\mathbb{Z}`: ``upper`` (connect the
   dots: a randomised refinement, so the discrete pair *dominates* the true one) and
   ``lower`` (a randomised coarsening with surplus mass removed, so it *is dominated*).
   Both errors are second order in :math:`h` for continuous loss laws; atomic
   mechanisms use their epsilon rounded down to the grid for the lower bound (exact when
   the grid is aligned to it, as the automatic grid is for the smallest epsilon).
3. **Composition**: ``(mechanism, count)`` by one FFT, an elementwise complex power
   (binary powering) and one inverse FFT (the Fourier form of repeated squaring, with
   no re-discretization between squarings), on a window sized by a Chernoff bound of
   the discrete measure; different groups by linear FFT (or direct) convolution in a balanced tree.
   Tails of at most ``tail_mass`` in total are cut: in the upper bound the high tail
   goes to the infinity atom and the low tail is moved up; in the lower bound both are
   dropped or, where aliasing folds them into the window, subtracted.
4. **Queries** :math:`\delta(\varepsilon)` sum positive terms
   :math:`p_j\,(-\mathrm{expm1}(\varepsilon - l_j))` (a sum of non-negative doubles,
   accurate to a relative :math:`n u`, so no log space is needed down to the smallest
   normal double); :math:`\varepsilon(\delta)` is solved in closed form between two
   grid points and then checked on the passing side.

Error analysis (what the bracket contains). For every :math:`\varepsilon`:

.. math:: \delta_{\mathrm{lower}}(\varepsilon) - e_{\mathrm{num}}
          \le \delta_{\mathrm{true}}(\varepsilon)
          \le \delta_{\mathrm{upper}}(\varepsilon) + e_{\mathrm{num}}

where :math:`\delta_{\mathrm{upper}}` / :math:`\delta_{\mathrm{lower}}` are the exact
profiles of the discretized pairs (valid bounds by data processing, which composition
preserves) and :math:`e_{\mathrm{num}}` collects (a) FFT round-off, bounded a priori
(:data:`.grid.FFT_C`), (b) aliasing mass (Chernoff), (c) the relative
safety factor :data:`.discretize.MASS_SAFETY` on every discretized mass.
Both :math:`e_{\mathrm{num}}` terms are added on the safe side of every answer. The
*width* of the bracket is dominated by the discretization: for a k-fold composition of
a continuous PLD it behaves like :math:`k h^2` times a curvature term (not a
certified quantity; the certified quantity is the bracket itself). With
``tolerance`` set, the grid is sized from it (:math:`h \approx
\sqrt{\mathrm{tolerance}/(3k)}` for k continuous mechanisms, an empirical rule: the
bracket itself is the certified quantity and is *not* guaranteed to meet the
tolerance). The grids are fixed when the guarantee is built, so every query is a pure
function of its argument. Measured: DP-SGD (q = 256/60000, sigma 1.1, 14,062 steps,
delta 1e-5) gives [2.381547, 2.381626] in about 0.1 s; see ``benchmarks/README.md``.

Size and time are bounded before the work starts (see :func:`_accountant`): one
mechanism's grid holds at most ``max_points / 2`` points, a composed grid at most
``max_points`` (default :math:`2^{22}`, 32 MiB of doubles per array; peak memory is
linear in it, measured at about 200 bytes per point, 850 MiB at the default, for
1000 x Laplace(2e-3), Laplace(1e-4) and three groups of 10^6 Laplace copies), and at
most :data:`_MAX_ATTEMPTS` grids are tried, each coarser by the factor the previous one
needed; a mechanism whose loss spans too wide a range for any such grid (Laplace with
epsilon in the tens of thousands) is refused, and ``method="auto"`` answers from the
methods that can. A coarsened grid is named in ``g.provenance["pld"]["coarsened"]``
and in ``g.provenance["caveats"]``.

Numerical error floor: ``g.provenance["error_budget"]["delta"]`` bounds what the
numerics (tail truncation, aliasing, FFT round-off, ``inf_err``) add to an upper delta,
over the curves built so far (they are built lazily, so the value can grow with the
first queries). Where it is not small against a target delta, the answer there is
dominated by it (epsilon(delta) is then the composition's largest loss, or inf);
reports mark such rows with a caveat.

Closed form: one Laplace mechanism (count 1, nothing else) is answered by its exact
profile :math:`\delta(e) = 1 - e^{(e - \varepsilon)/2}` (``exact=True``, any epsilon).
A composition of Gaussian mechanisms only is exactly the Gaussian
mechanism with :math:`\mu = \sqrt{\sum_i \mu_i^2}` (Dong, Roth and Su, "Gaussian
Differential Privacy", JRSS-B 2022, Cor. 3.3), answered by the exact profile of Balle
and Wang (``exact=True``). Plain Gaussians inside a mixed list are merged the same way
before discretization.

Neighbour relation: as stated by each mechanism; ``Subsampled(..., "poisson")`` is
add/remove-one (both directions), ``"without_replacement"`` is substitution, for which
each invocation is described by the hull of the two orders (Dong, Roth and Su,
"Gaussian Differential Privacy", JRSS-B 2022, Thm 4.2; its (eps, delta) consequence is
Balle, Barthe and Gaboardi 2018, Thm 9).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from .method import pld

if TYPE_CHECKING:
    from .composition import PLDAccountant
    from .grid import GridMismatchError

__all__ = ["pld", "PLDAccountant", "GridMismatchError"]


def __getattr__(name: str) -> Any:
    """``PLDAccountant`` and ``GridMismatchError``, imported on first access: registering
    the method must not load the grid machinery (cold start of other methods' queries)."""
    if name == "PLDAccountant":
        from .composition import PLDAccountant
        return PLDAccountant
    if name == "GridMismatchError":
        from .grid import GridMismatchError
        return GridMismatchError
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")

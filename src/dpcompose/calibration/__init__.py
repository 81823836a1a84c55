r"""Calibration: the noise that meets a privacy target.

Three layers:

- :func:`laplace_scale` -- the Laplace scale :math:`b = \Delta/\varepsilon` of one
  :math:`\varepsilon`-DP release.
- :func:`gaussian_sigma` -- the Gaussian :math:`\sigma` of one
  :math:`(\varepsilon, \delta)`-DP release, by the exact analytic Gaussian mechanism
  (Balle and Wang 2018) or by any of the closed-form bounds of the blog post "A Tail of
  Two Densities" (Claim 9: (6.8), (6.81)-(6.84)) and Dwork and Roth's Thm A.1 as the
  blog states it; :func:`gaussian_sigmas` puts them side by side.
- :func:`calibrate` -- the Laplace scale or Gaussian :math:`\sigma` (also subsampled,
  for DP-SGD) that makes a ``count``-fold composition meet a target
  :math:`(\varepsilon, \delta)` under a chosen :func:`~dpcompose.compose` method, by
  bracketing and a safeguarded secant/bisection search that always ends on the
  passing side: the returned parameter was itself fed into ``compose`` and passed.

Rounding rule everywhere here: a returned noise parameter is one at which the
certified check was evaluated and passed (bisection), or a closed form rounded *up*
by 16 ulps (strict inequalities of the sources are then met too). More noise is never
less private for the families here, so rounding up is the safe side.

Example::

    >>> import dpcompose as dpc
    >>> r = dpc.calibrate("gaussian", epsilon=1.0, delta=1e-5, count=14062,
    ...                   rate=256 / 60000, method="pld")          # doctest: +SKIP
    >>> r.parameter, r.epsilon, r.method_used                       # doctest: +SKIP

The package, one job per module: :mod:`.closed_forms` (one release: Laplace scale,
Gaussian sigma), :mod:`.composition` (:func:`calibrate` a composition of a family or a
factory) and :mod:`.search` (the monotone search that ends on the passing side, also
:func:`solve`). The names below are re-exported here, so ``dpcompose.calibration`` keeps
every import path it had.
"""

from .closed_forms import (
    GAUSSIAN_BOUNDS,
    analytic_gaussian_sigma,
    blog_gaussian_delta,
    gaussian_sigma,
    gaussian_sigmas,
    laplace_scale,
)
from .composition import CalibrationResult, _resolve_family, calibrate
from .search import SolveResult, _returns_list, solve

__all__ = [
    "laplace_scale",
    "gaussian_sigma",
    "gaussian_sigmas",
    "analytic_gaussian_sigma",
    "blog_gaussian_delta",
    "GAUSSIAN_BOUNDS",
    "calibrate",
    "CalibrationResult",
    "solve",
    "SolveResult",
]

r"""Renyi differential privacy (``method="rdp"``): Renyi curves, their composition and conversion.

A mechanism is :math:`(\alpha, \tau)`-RDP (Mironov, "Renyi Differential Privacy", CSF 2017,
Def. 4) when :math:`D_\alpha(M(x) \| M(x')) \le \tau` for all neighbours, with the Renyi
divergence :math:`D_\alpha(P\|Q) = \frac{1}{\alpha-1}\log E_Q[(P/Q)^\alpha]`. Its *Renyi
curve* is the function :math:`\alpha \mapsto \tau(\alpha)` on a grid of orders
:math:`\alpha > 1`. The pipeline of this module is

1. a Renyi curve per mechanism (:func:`rdp_curve`, dispatched per mechanism class):

   - ``Gaussian``: :math:`\alpha\mu^2/2` with :math:`\mu = \Delta/\sigma` (Mironov 2017,
     Table II);
   - ``Laplace``: closed form, :func:`rdp_laplace` (Mironov 2017, Table II);
   - ``RandomizedResponse``: closed form, :func:`rdp_randomized_response` (Mironov 2017,
     Table II);
   - ``PureDP``, ``Exponential`` and ``ApproxDP`` with delta = 0: the randomized-response
     curve, which is tight for the class of :math:`\varepsilon`-DP mechanisms (Steinke,
     "Sharp RDP & zCDP from Pure DP", DifferentialPrivacy.org 2024, Thm 4);
   - Poisson ``Subsampled(Gaussian)``: :func:`rdp_subsampled_gaussian`, the exact binomial
     sum at integer orders and a certified series upper bound at fractional orders
     (Mironov, Talwar and Zhang, "Renyi Differential Privacy of the Sampled Gaussian
     Mechanism", 2019, Sec. 3).

   ``ApproxDP`` with :math:`\delta > 0` has no finite Renyi curve, and no rule is
   implemented for sampling without replacement or for subsampled mechanisms other than
   the Gaussian; these raise :class:`~dpcompose.errors.MethodNotApplicableError`.

2. composition: Renyi curves add (Mironov 2017, Prop. 1, which holds for adaptive
   composition), so a composition's curve is :math:`\sum_i k_i \tau_i(\alpha)` at every
   order of the grid (:func:`compose_rdp`);

3. conversion to :math:`(\varepsilon, \delta)`-DP, minimised over the grid
   (:func:`rdp_to_epsilon`, :func:`rdp_to_delta`) with the conversion of Canonne, Kamath and
   Steinke, "The Discrete Gaussian for Differential Privacy" (NeurIPS 2020), Prop. 12:

       *Suppose M is* :math:`(\alpha, \tau)`-*RDP with* :math:`\alpha > 1`. *Then M is*
       :math:`(\varepsilon, \delta)`-*DP for every* :math:`\varepsilon \ge 0` *with*
       :math:`\delta = \frac{e^{(\alpha-1)(\tau-\varepsilon)}}{\alpha-1}\left(1-\frac1\alpha\right)^{\alpha}`.

   Solved for :math:`\varepsilon` it is the same statement as Balle, Barthe, Gaboardi, Hsu
   and Sato, "Hypothesis Testing Interpretations and Renyi Differential Privacy"
   (AISTATS 2020), Thm 21:
   :math:`\varepsilon = \tau + \log\frac{\alpha-1}{\alpha} - \frac{\log\delta + \log\alpha}{\alpha-1}`.
   It is never worse than Mironov's original :math:`\tau + \log(1/\delta)/(\alpha-1)`
   (Mironov 2017, Prop. 3), since :math:`\log(1-1/\alpha) - \log(\alpha)/(\alpha-1) < 0`. Where every mechanism is pure DP the order
   :math:`\alpha = \infty` is also used: the composition is :math:`(\sum_i k_i\varepsilon_i, 0)`-DP.

The neighbour relation is the one under which each mechanism's sensitivity is stated; for
the Poisson-subsampled Gaussian it is adding or removing one record (both directions are
covered, see :func:`rdp_subsampled_gaussian`).

Floating-point rounding: every curve is rounded up by a margin that covers the rounding
error of its evaluation (a few hundred units in the last place of the quantities involved),
and the conversion rounds up again, so results are certified upper bounds.

Modules: :mod:`.conversion` (Renyi to (epsilon, delta)), :mod:`.method` (composition
and the registered method). The Renyi curve of each mechanism is a rule of its family
(:data:`dpcompose.representations.renyi_curve`, closed forms in the family files, the
orders in :mod:`dpcompose.representations.renyi`, the sampled Gaussian in
:mod:`dpcompose.representations._sampled_gaussian`); this package re-exports them under
their ``rdp_*`` names (``rdp_curve`` is ``renyi_curve``, ``pure_dp_epsilon`` is
``pure_epsilon``).
"""

from __future__ import annotations

from ...representations import pure_epsilon as pure_dp_epsilon
from ...representations import renyi_curve as rdp_curve
from ...representations._sampled_gaussian import rdp_subsampled_gaussian
from ...representations.gaussian import rdp_gaussian
from ...representations.laplace import rdp_laplace
from ...representations.pure import rdp_pure_dp, rdp_randomized_response
from ...representations.renyi import DEFAULT_ORDERS, check_orders
from .conversion import rdp_to_delta, rdp_to_epsilon
from .method import compose_rdp, rdp

__all__ = [
    "DEFAULT_ORDERS",
    "check_orders",
    "rdp_gaussian",
    "rdp_laplace",
    "rdp_randomized_response",
    "rdp_pure_dp",
    "rdp_subsampled_gaussian",
    "rdp_curve",
    "pure_dp_epsilon",
    "compose_rdp",
    "rdp_to_epsilon",
    "rdp_to_delta",
    "rdp",
]

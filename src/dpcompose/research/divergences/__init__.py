r"""Divergences between discrete distributions, and the lemmas that link them to DP.

Every function here takes distributions on a finite set as numpy arrays (any shape,
read flat; both arrays the same shape), non-negative, each summing to 1 within
``1e-9``; anything else raises :class:`~dpcompose.errors.InvalidParameterError`.

Notation. :math:`p, q` are two distributions on a finite set :math:`Y`; the *divergence
variable* or *privacy loss* of the pair (blog "A Tail of Two Densities", Definition
(Divergence Variable)) is

.. math:: L(p \| q) = \log \frac{p(\xi)}{q(\xi)}, \qquad \xi \sim p,

with value :math:`+\infty` where :math:`q(\xi) = 0`. Two distributions are
:math:`(\varepsilon, \delta)`-*indistinguishable* when for every set :math:`S`,
:math:`p(S) \le e^\varepsilon q(S) + \delta` and :math:`q(S) \le e^\varepsilon p(S) +
\delta` (same blog, Definition (Indistinguishability), inequalities (3) and (4));
:math:`\varepsilon`-indistinguishable when :math:`\delta = 0`. A mechanism is
:math:`(\varepsilon, \delta)`-DP iff its output distributions on every pair of
neighbours are :math:`(\varepsilon, \delta)`-indistinguishable (blog Claim 0).

What is here:

- divergences: :func:`kl_divergence`, :func:`max_divergence`,
  :func:`approx_max_divergence`, :func:`hockey_stick`, :func:`pair_privacy_profile`,
  :func:`total_variation`, :func:`renyi_divergence`;
- the indistinguishability check :func:`indistinguishable` (and its mechanism form
  :func:`mechanism_delta`);
- the privacy loss: :func:`privacy_loss`, :func:`sample_privacy_loss`,
  :func:`privacy_loss_tail`;
- the conversions of the blog's Claims 1-7 between tail bounds of the privacy loss and
  indistinguishability: :func:`delta_from_loss_tails` (Claim 1),
  :func:`claim2_counterexample` (Claim 2), :func:`kasiviswanathan_smith_tail_bound`
  (Claim 3), :func:`conditioning_events` (Claim 4),
  :func:`conditional_conditioning_events` (Claim 5),
  :func:`mechanism_delta_from_loss_tails` (Claim 6), :func:`mechanism_delta_via_events`
  (Claim 7);
- bounds on the KL divergence of an :math:`\varepsilon`-indistinguishable pair:
  :func:`kl_bound_dp` (:math:`\varepsilon(e^\varepsilon - 1)`), :func:`kl_bound_stability`
  (:math:`2\varepsilon^2`) and :func:`a_of_epsilon` (the blog's :math:`a(\varepsilon)`).

Numerics: losses are differences of logarithms; hockey-stick terms are
:math:`p \cdot (-\mathrm{expm1}(\varepsilon - L))`, so :math:`\varepsilon` up to 700 and
beyond neither overflows nor loses relative precision; KL uses
``scipy.special.rel_entr`` and Renyi divergences ``logsumexp``. Values are exact up to
floating-point rounding (a few ulps relative); no function returns NaN.

Layout (issue 15), one module per family: :mod:`.validation` (the distributions taken),
:mod:`.renyi` (KL and Renyi), :mod:`.max_divergence` (max and approximate max),
:mod:`.hockey_stick` (hockey-stick, pair profile, total variation, indistinguishability),
:mod:`.loss` (the privacy loss), :mod:`.claims` (Claims 1-5), :mod:`.mechanisms` (mechanism
delta, Claims 6-7), :mod:`.kl_bounds` (KL bounds of indistinguishable pairs).
"""

from __future__ import annotations

# one module per family (issue 15); every public name stays importable from here
from .claims import (
    ConditioningEvents,
    claim2_counterexample,
    conditional_conditioning_events,
    conditioning_events,
    delta_from_loss_tails,
    kasiviswanathan_smith_tail_bound,
)
from .hockey_stick import hockey_stick, indistinguishable, pair_privacy_profile, total_variation
from .kl_bounds import a_of_epsilon, kl_bound_dp, kl_bound_stability
from .loss import privacy_loss, privacy_loss_tail, sample_privacy_loss
from .max_divergence import approx_max_divergence, max_divergence
from .mechanisms import mechanism_delta, mechanism_delta_from_loss_tails, mechanism_delta_via_events
from .renyi import kl_divergence, renyi_divergence
from .validation import SUM_TOLERANCE, check_distribution  # noqa: F401  (SUM_TOLERANCE: the old module's)

__all__ = [
    "check_distribution",
    "kl_divergence",
    "max_divergence",
    "approx_max_divergence",
    "hockey_stick",
    "pair_privacy_profile",
    "total_variation",
    "renyi_divergence",
    "indistinguishable",
    "privacy_loss",
    "sample_privacy_loss",
    "privacy_loss_tail",
    "delta_from_loss_tails",
    "claim2_counterexample",
    "kasiviswanathan_smith_tail_bound",
    "ConditioningEvents",
    "conditioning_events",
    "conditional_conditioning_events",
    "mechanism_delta",
    "mechanism_delta_from_loss_tails",
    "mechanism_delta_via_events",
    "kl_bound_dp",
    "kl_bound_stability",
    "a_of_epsilon",
]

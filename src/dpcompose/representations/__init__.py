r"""Representations: what each composition method needs to know about a mechanism.

One generic function per representation (:mod:`.rules`), and one file per mechanism
family that registers *all* of its rules:

- :mod:`.pure` -- ``PureDP``, ``RandomizedResponse``, ``Exponential``, ``ApproxDP``;
- :mod:`.laplace` -- ``Laplace``;
- :mod:`.gaussian` -- ``Gaussian``;
- :mod:`.discrete_laplace` -- ``DiscreteLaplace``;
- :mod:`.subsampled` -- ``Subsampled`` (amplification of the inner mechanism's rules);
- :mod:`.discrete_gaussian` -- ``DiscreteGaussian`` (exact pair on the lattice);
- :mod:`.zcdp` -- ``ZCDP`` (a rho-zCDP mechanism: Renyi curve and converted profile);
- :mod:`.group` -- ``Group`` (group privacy: the rules of an equivalent mechanism);
- :mod:`.bounded_range` -- ``BoundedRange`` (epsilon-bounded-range: the exponential mechanism, tight);
- :mod:`.selection` -- ``ReportNoisyMax``, ``ReportNoisyMaxGumbel``, ``PermuteAndFlip`` (rules of an
  equivalent ``Exponential`` or ``BoundedRange``);
- :mod:`.random_allocation` -- ``RandomAllocation`` (an epoch as k un-amplified invocations: the
  rules of the k-fold composition where a closed form exists);
- :mod:`.mixture` -- ``MixtureOfGaussians`` (an asymmetric pair, both orientations; exact profile).

The rules: :data:`eps_delta_pair`, :data:`privacy_profile`, :data:`is_class_worst_case`,
:data:`dominating_pair` (atoms and segments, :mod:`.pairs`; it serves ``pld``,
``optimal`` and hypothesis DP's exact enumeration through :func:`finite_pair`),
:data:`pure_epsilon`, :data:`renyi_curve`, :data:`dominance_key`, the exact descriptions
:data:`exact_pair`, :data:`zcdp_rho`, :data:`gdp_mu` (a :class:`Quotient` of the parameters
as given; read by the ledger), and the mechanism
syntax (:mod:`.syntax`: expression name, parameters, calibration parameter). A family
exactly as private as another mechanism registers once with :func:`register_equivalent`. A
mechanism whose class registered no implementation of a rule gets
:class:`~dpcompose.errors.NoRuleError` naming the rule, never a silent fallback.

Privacy profile convention: :math:`\delta(\varepsilon) = \sup_{x \sim x'}
H_{e^\varepsilon}(M(x) \| M(x'))` with the hockey-stick divergence
:math:`H_\gamma(P\|Q) = \int (p - \gamma q)_+`; a mechanism is
:math:`(\varepsilon, \delta)`-DP iff :math:`\delta(\varepsilon) \le \delta`.
"""

from __future__ import annotations

import importlib

from .finite import LossAtoms, finite_pair, has_finite_pair
from .pairs import DominatingPair, PairAtom, PairSegment, SubsampledPair, lower_pair
from .rules import (
    RULES,
    DominanceKey,
    Quotient,
    Rule,
    dominance_key,
    dominating_pair,
    eps_delta_pair,
    exact_pair,
    gdp_mu,
    is_class_worst_case,
    privacy_profile,
    pure_epsilon,
    register_equivalent,
    register_like,
    renyi_curve,
    zcdp_of_pure,
    zcdp_rho,
)
from .syntax import MechanismSyntax, Parameter, all_syntax, syntax_named, syntax_of

#: the family files: each registers all its rules on import; their order is the order of
#: the mechanism syntax (expression names, plan table types). A new family is a file
#: here plus one entry in this list.
FAMILY_MODULES: tuple[str, ...] = ("laplace", "gaussian", "pure", "subsampled", "discrete_laplace", "discrete_gaussian", "zcdp",
                                   "group", "bounded_range", "selection", "tree_aggregation", "random_allocation",
                                   "mixture")
for _family in FAMILY_MODULES:
    importlib.import_module(f"{__name__}.{_family}")
del _family

from .discrete_laplace import discrete_laplace_profile  # noqa: E402
from .gaussian import gaussian_log_delta, gaussian_log_delta_lower, gaussian_profile  # noqa: E402
from .laplace import laplace_profile  # noqa: E402
from .pure import accounted_as_class, approx_dp_profile, pure_dp_profile  # noqa: E402

__all__ = [
    "FAMILY_MODULES",
    "eps_delta_pair",
    "privacy_profile",
    "is_class_worst_case",
    "dominating_pair",
    "pure_epsilon",
    "renyi_curve",
    "dominance_key",
    "exact_pair",
    "zcdp_rho",
    "gdp_mu",
    "zcdp_of_pure",
    "Quotient",
    "register_like",
    "register_equivalent",
    "finite_pair",
    "has_finite_pair",
    "Rule",
    "RULES",
    "DominanceKey",
    "DominatingPair",
    "SubsampledPair",
    "lower_pair",
    "PairAtom",
    "PairSegment",
    "LossAtoms",
    "MechanismSyntax",
    "Parameter",
    "all_syntax",
    "syntax_of",
    "syntax_named",
    "pure_dp_profile",
    "accounted_as_class",
    "approx_dp_profile",
    "laplace_profile",
    "gaussian_profile",
    "discrete_laplace_profile",
    "gaussian_log_delta",
    "gaussian_log_delta_lower",
]

r"""Private selection: every rule of ``ReportNoisyMax``, ``ReportNoisyMaxGumbel``, ``PermuteAndFlip``, ``SparseVector``.

Each rule is the rule of one *equivalent* mechanism (:func:`selection_equivalent`), whose
own file holds the mathematics:

- ``ReportNoisyMax(b, sensitivity=Delta, monotone=...)`` (Laplace noise):
  :math:`\varepsilon`-DP with :math:`\varepsilon = \Delta/b` (monotone) or :math:`2\Delta/b`
  (Dwork and Roth, "The Algorithmic Foundations of Differential Privacy", Claim 3.9; Ding,
  Wang, Zhang and Kifer, "Free Gap Information from the Differentially Private Sparse
  Vector and Noisy Max Mechanisms", VLDB 2019): accounted as ``Exponential(eps)``, the
  epsilon-DP class's pair, not attained (upper bounds only);
- ``ReportNoisyMaxGumbel(b, ...)``: the exponential mechanism with weights
  :math:`e^{u/b}` (Gumbel-max trick), :math:`\varepsilon`-bounded-range with the same
  :math:`\varepsilon` (Durfee and Rogers, NeurIPS 2019; arXiv:1905.04273, Sec. 4.1): accounted as
  ``BoundedRange(eps)`` (:mod:`.bounded_range`);
- ``PermuteAndFlip(eps)``: :math:`\varepsilon`-DP (McKenna and Sheldon, "Permute-and-Flip:
  A New Mechanism for Differentially Private Selection", NeurIPS 2020; theorem number not
  verified): accounted as
  ``Exponential(eps)`` (upper bounds only; no bounded-range property is claimed);
- ``SparseVector(eps1, eps2, c=..., monotone=...)``: :math:`(\varepsilon_1+\varepsilon_2)`-DP
  (Lyu, Su and Li, "Understanding the Sparse Vector Technique for Differential Privacy",
  VLDB 2017, Alg. 1; theorem number not verified): accounted as ``Exponential(eps1 + eps2)``
  (upper bounds only).
"""

from __future__ import annotations


from ..mechanisms import (
    BoundedRange,
    Exponential,
    Mechanism,
    PermuteAndFlip,
    ReportNoisyMax,
    ReportNoisyMaxGumbel,
    SparseVector,
)
from .pure import _EPSILON
from .rules import register_equivalent
from .syntax import MechanismSyntax, Parameter, register_syntax

__all__ = ["selection_equivalent"]


def selection_equivalent(m: Mechanism) -> Mechanism:
    """The mechanism whose rules serve a selection mechanism (module docstring)."""
    # exact types (a subclass gets no rule by inheritance); isinstance only tells the type checker
    if type(m) is ReportNoisyMaxGumbel and isinstance(m, ReportNoisyMaxGumbel):
        return BoundedRange(m.epsilon)
    if isinstance(m, (ReportNoisyMax, PermuteAndFlip, ReportNoisyMaxGumbel, SparseVector)):
        return Exponential(m.epsilon)  # the others: the epsilon-DP class, not attained
    raise TypeError(f"selection_equivalent: {type(m).__name__} is not a selection mechanism")


for _cls in (ReportNoisyMax, ReportNoisyMaxGumbel, PermuteAndFlip, SparseVector):
    # none is the worst case of its class (is_class_worst_case keeps its default, False)
    register_equivalent(_cls, selection_equivalent, without=("is_class_worst_case",))
del _cls


def _noise_parameters(what: str) -> tuple[Parameter, ...]:
    return (Parameter("scale", f"{what} scale b > 0", f"the {what} scale b must be a finite number > 0, e.g. scale = 10", gt=0),
            Parameter("sensitivity", "utility sensitivity > 0", "the sensitivity must be a finite number > 0 (default 1)",
                      default=1.0, gt=0),
            Parameter("monotone", "1 if every utility moves the same way between neighbours, else 0",
                      "monotone is 0 or 1 (1 only when all utilities move the same way, e.g. counts)",
                      default=0.0, ge=0, lt=2))


register_syntax(MechanismSyntax(
    "report_noisy_max", ReportNoisyMax, _noise_parameters("Laplace noise"),
    "Report-noisy-max with Laplace noise (eps = Delta/b monotone, else 2 Delta/b; eps-DP).", "ReportNoisyMaxSpec",
    aliases=("noisy_max", "rnm"), noise="scale"))
register_syntax(MechanismSyntax(
    "report_noisy_max_gumbel", ReportNoisyMaxGumbel, _noise_parameters("Gumbel noise"),
    "Report-noisy-max with Gumbel noise: the exponential mechanism, eps-bounded-range.", "ReportNoisyMaxGumbelSpec",
    aliases=("gumbel_max", "rnm_gumbel"), noise="scale"))
register_syntax(MechanismSyntax(
    "permute_and_flip", PermuteAndFlip, (_EPSILON,), "Permute-and-flip selection (eps-DP).", "PermuteAndFlipSpec",
    aliases=("pf",)))
register_syntax(MechanismSyntax(
    "sparse_vector", SparseVector,
    (Parameter("epsilon1", "threshold budget >= 0", "epsilon1 is a finite budget >= 0 for the threshold noise", ge=0),
     Parameter("epsilon2", "query budget >= 0", "epsilon2 is a finite budget >= 0 for the query noise", ge=0),
     Parameter("c", "positive answers before halting, >= 1", "c is a whole number >= 1 (default 1)", default=1.0, ge=1),
     Parameter("monotone", "1 if the noise was calibrated for monotone queries, else 0",
               "monotone is 0 or 1", default=0.0, ge=0, lt=2)),
    "The sparse vector technique (AboveThreshold, halting after c positives): (eps1 + eps2)-DP.", "SparseVectorSpec",
    aliases=("svt", "above_threshold")))

r"""Parallel composition (McSherry) as Hartmann, Bindschaedler and West apply it (Sec. V-A1).

This is the only implementation; reports and plans call it.
"""

from __future__ import annotations

import math
from fractions import Fraction
from typing import Any, Iterable, Sequence

from .._numerics.rounding import frac_up
from ..errors import MethodNotApplicableError
from ..guarantee import Guarantee, perfect_privacy
from ..mechanisms import describe
from ..representations import eps_delta_pair, pure_dp_profile
from .membership import Membership, as_membership, check_neighbors
from .release import Release

__all__ = ["parallel_composition"]


def parallel_composition(mechanisms: Iterable[Any], *, membership: Membership | None = None,
                         neighbors: str = "unbounded", databases: Sequence[int] | None = None) -> Guarantee:
    r"""Parallel composition (McSherry, Thm 2 of the paper) applied as in Sec. V-A1.

    The databases are merged into one; a person changes at most :math:`s` of the
    parts (:math:`s` = the largest difference set of the constraint: :math:`m` for
    ``AtMost(m)`` unbounded, :math:`\min(2m, n)` bounded), so McSherry's definition gives
    :math:`s \cdot \max_d \varepsilon_d`-DP, where :math:`\varepsilon_d` is the simple
    composition of the invocations on database :math:`d`.

    Guarantee:
        pure :math:`\varepsilon`-DP upper bound (computed exactly, rounded up once); only for
        mechanisms with a pure-DP description (``PureDP``, ``Laplace``,
        ``RandomizedResponse``, ``Exponential``).

    Raises:
        InvalidParameterError: bad mechanisms, databases, constraint or neighbours.
        MethodNotApplicableError: a mechanism has no pure-DP description (delta > 0 or
            a Gaussian), as parallel composition is stated for pure DP only.

    References:
        McSherry, "Privacy Integrated Queries", SIGMOD 2009 (parallel composition);
        Hartmann, Bindschaedler and West, Sec. V-A1, Thm 2 and Def. 5.
    """
    check_neighbors(neighbors)
    constraint = as_membership(membership)
    release = Release(mechanisms, databases)
    if release.n == 0:
        return perfect_privacy("parallel")
    # s * max_d sum_m c_m eps_m in exact rational arithmetic (each eps_m is a double, so a
    # rational), rounded up once at the end
    totals: list[Fraction] = []
    infinite = False
    for d, items in enumerate(release.items):
        total = Fraction(0)
        for m, c in items:
            pair = eps_delta_pair(m)
            if pair is None or pair[1] > 0.0:
                raise MethodNotApplicableError(
                    f"parallel composition needs pure-DP mechanisms; database {d} runs {describe(m)}, "
                    f"which has no (epsilon, 0) description. Use hdp(...) instead."
                )
            if math.isinf(pair[0]):
                infinite = True
            else:
                total += c * Fraction(pair[0])
        totals.append(total)
    size = min(s.largest for s in constraint.difference_structure(release.n, neighbors))
    max_eps = math.inf if infinite else frac_up(max(totals))
    if size == 0 or max_eps == 0.0:
        eps = 0.0
    else:
        eps = math.inf if infinite else frac_up(size * max(totals))
    return Guarantee("parallel", delta_upper=pure_dp_profile(eps), epsilon_upper=lambda d: eps,
                     provenance={"symmetric_difference": size, "max_epsilon": max_eps,
                                 "neighbors": neighbors})

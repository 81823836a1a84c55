r"""Dominance between databases: which subsets of databases can be the worst case.

A database's release is a multiset of mechanisms (``Groups``: ``((m, count), ...)``). For
the worst case over a membership constraint (DESIGN note 2) hdp needs the pointwise
maximum, over the allowed *difference sets*, of the composed privacy profile. Under a
cap (at most ``c`` databases of a group) the candidates are the ``c``-subsets of each
group, which are far too many to compose one by one (``C(12, 2) = 66`` for twelve
regions, ``C(1000, 365)`` for the hospitals). Two facts shrink them exactly:

1. **Identical databases are interchangeable.** Databases with the same multiset of
   mechanisms are one *class*; a candidate is then a count per class (how many of the
   class it takes), and candidates with the same counts compose to the same profile.
   Twelve identical regions under "at most 2" are one candidate.
2. **Dominance.** Mechanism :math:`A` *dominates* :math:`B` when :math:`B`'s dominating
   pair is a post-processing of :math:`A`'s; then every composition containing :math:`A`
   in place of :math:`B` has a pointwise larger privacy profile, in both orientations
   (post-processing commutes with products). Within one *family* the pairs are ordered
   by one parameter:

   ============================  ==================================================
   family                        parameter (larger dominates)
   ============================  ==================================================
   ``Laplace``                   :math:`\varepsilon = \Delta / b`
   ``Gaussian``                  :math:`\mu = \Delta / \sigma`
   ``PureDP``, randomized resp.  :math:`\varepsilon` (the class worst case is RR)
   ``Exponential``               :math:`\varepsilon` (accounted as pure DP)
   ``Subsampled(M, q, scheme)``  M's parameter, for one ``(q, scheme)`` and M's family
   ============================  ==================================================

   Each family states its order (these rows and any new family's) in its
   representations file, with the rule :data:`~dpcompose.representations.dominance_key`.

   A database :math:`A` dominates :math:`B` when :math:`B`'s mechanisms can be matched one
   to one into dominating mechanisms of :math:`A`. For a totally ordered family this is
   the threshold test :math:`N_A(\ge t) \ge N_B(\ge t)` for every parameter value
   :math:`t` (the number of units at or above :math:`t`). ``ApproxDP`` descriptions
   (ordered by two parameters) and mechanisms of different families are matched only
   to *equal* mechanisms: no cross-family order is claimed.

   Replacing a database of a candidate by an unused one that dominates it never lowers
   the profile, and adding a database never lowers it (drop its outputs). So among the
   count vectors only *maximal* ones (as many databases as the cap allows) in which no
   class is used while a class beating it is not used up can be the worst; the others
   are dominated element-wise by one of them. :func:`class_candidates` enumerates those.

When they are still too many, :func:`dominating_release` builds one multiset that
dominates every ``c``-subset of a group (for each family and each threshold :math:`t`,
the sum of the ``c`` largest :math:`N_d(\ge t)`; equal mechanisms of other kinds by the
sum of the ``c`` largest counts): composing it is a certified upper bound, exact when
the group is totally ordered or its databases identical.

Validity does not depend on the inner accountant: the truth of a dominated candidate is
at most the truth of the dominating one, which its certified upper bound covers; lower
bounds are only ever taken from real candidates.

References:
    Hartmann, Bindschaedler and West, "On the Choice of Databases in Differential
    Privacy Composition", Sec. V-A (constraints) and V-B (only differing databases are
    composed); Blackwell's theorem for binary experiments (pointwise dominance of privacy
    profiles is post-processing); Dong, Roth and Su, "Gaussian Differential Privacy",
    JRSS-B 2022, Sec. 2 (trade-off functions, post-processing) and Sec. 3 (composition
    preserves the order).
"""

from __future__ import annotations

import math
from functools import lru_cache
from typing import Any, Callable, Iterable, Iterator, Sequence

from ..compose import Groups
from ..errors import NoRuleError
from ..mechanisms import Laplace, Mechanism, describe
from ..representations import dominance_key
from ..representations.laplace import laplace_epsilons

__all__ = [
    "unit_params",
    "UnitOrder",
    "canonical",
    "dominates",
    "DatabaseClasses",
    "class_candidates",
    "dominating_release",
    "merge",
]

UnitKey = tuple[str, float]


def unit_params(m: Mechanism) -> tuple[str, tuple[float, ...]] | None:
    """``(family, parameters)``: within a family, larger parameters (all of them) dominate.

    Read from the mechanism family's :data:`~dpcompose.representations.dominance_key`
    rule; a mechanism whose family registered none is matched only to equal mechanisms.
    """
    try:
        key = dominance_key(m)
    except NoRuleError:
        return None  # no order claimed: equal mechanisms only
    return (key.family, key.params)


@lru_cache(maxsize=1 << 16)
def _cached_unit_params(m: Mechanism) -> tuple[str, tuple[float, ...]] | None:
    """:func:`unit_params`, remembered across calls (mechanisms are frozen values; hdp asks
    for the same thousands of mechanisms once per composition)."""
    return unit_params(m)


#: "not looked up yet" in UnitOrder's caches (None is a value there: no order claimed);
#: one dict look-up per mechanism instead of a membership test and a read (each hashes
#: the mechanism's fields, 10,000 hospitals)
_UNSEEN: Any = object()


def _leq(a: tuple[float, ...], b: tuple[float, ...]) -> bool:
    return all(x <= y for x, y in zip(a, b))


class UnitOrder:
    """Maps the mechanisms of some releases to ``(family, rank)`` where their family is a chain.

    One-parameter families are always chains (rank = the parameter). The values of a
    two-parameter family (``ApproxDP``: epsilon and delta) that occur in these releases
    get ranks 0, 1, 2, ... when they are totally ordered componentwise; otherwise the
    family is not ordered here and its mechanisms are matched only to equal ones.
    """

    def __init__(self, releases: Iterable[Groups]) -> None:
        values: dict[str, set[tuple[float, ...]]] = {}
        #: unit_params of each mechanism seen, computed once (key() is asked per unit, often)
        self._params: dict[Mechanism, tuple[str, tuple[float, ...]] | None] = {}
        for items in releases:
            for m, _ in items:
                key = self._params[m] = _cached_unit_params(m)
                if key is not None:
                    values.setdefault(key[0], set()).add(key[1])
        self._rank: dict[str, dict[tuple[float, ...], float] | None] = {}
        for fam, vals in values.items():
            ordered = sorted(vals)
            if all(len(v) == 1 for v in ordered):
                self._rank[fam] = {v: v[0] for v in ordered}
            elif all(_leq(a, b) for a, b in zip(ordered, ordered[1:])):
                self._rank[fam] = {v: float(i) for i, v in enumerate(ordered)}
            else:
                self._rank[fam] = None
        #: key() of each mechanism asked, computed once (asked per unit, several times per class)
        self._keys: dict[Mechanism, UnitKey | None] = {}

    def key(self, m: Mechanism) -> UnitKey | None:
        """``(family, rank)``, or None where no order is claimed."""
        out = self._keys.get(m, _UNSEEN)
        if out is _UNSEEN:
            out = self._keys[m] = self._key(m)
        return out

    def _key(self, m: Mechanism) -> UnitKey | None:
        key = self._params.get(m, _UNSEEN)
        if key is _UNSEEN:
            key = unit_params(m)
        if key is None:
            return None
        ranks = self._rank.get(key[0])
        if ranks is None or key[1] not in ranks:
            return None
        return (key[0], ranks[key[1]])


def merge(parts: Iterable[Groups]) -> Groups:
    """The multiset union of several releases, in a canonical order (a dict key)."""
    counts: dict[Mechanism, int] = {}
    for g in parts:
        for m, c in g:
            counts[m] = counts.get(m, 0) + c
    return tuple(sorted(counts.items(), key=lambda mc: (describe(mc[0]), mc[1])))


def canonical(items: Groups) -> Groups:
    """A database's release in canonical order (equal releases give equal tuples)."""
    return tuple(items) if len(items) == 1 else merge((items,))


def scaled(items: Groups, k: int) -> Groups:
    """``k`` copies of a release."""
    return tuple((m, c * k) for m, c in items)


class _Profile:
    """Units of a release split by family: threshold counts for ordered families, counts otherwise."""

    __slots__ = ("ordered", "other", "size_key", "single")

    def __init__(self, items: Groups, order: UnitOrder) -> None:
        self.other: dict[Mechanism, int] = {}
        if len(items) == 1:
            (m, c), = items
            key = order.key(m)
            if key is not None:  # one ordered unit (one hospital's Laplace): the loop below, unrolled
                self.ordered: dict[str, list[tuple[float, int]]] = {key[0]: [(key[1], c)]}
                self.size_key = (0.0 + key[1] * c, c)
                self.single: tuple[str, float, int] | None = (key[0], key[1], c)
                return
        self.ordered = {}
        s, n = 0.0, 0
        for m, c in items:
            key = order.key(m)
            if key is None:
                self.other[m] = self.other.get(m, 0) + c
            else:
                self.ordered.setdefault(key[0], []).append((key[1], c))
                s += key[1] * c
            n += c
        #: (sum of ordered ranks, number of units): never decreases along dominance
        self.size_key = (s, n)
        #: ``(family, rank, count)`` when the release is one ordered unit (set above):
        #: :func:`_dominates` then compares two numbers
        self.single = None

    def at_least(self, family: str, t: float) -> int:
        return sum(c for p, c in self.ordered.get(family, ()) if p >= t)


def dominates(a: Groups, b: Groups, order: UnitOrder | None = None) -> bool:
    """Whether release ``a`` dominates release ``b`` (see the module docstring)."""
    order = order if order is not None else UnitOrder((a, b))
    return _dominates(_Profile(a, order), _Profile(b, order))


def _dominates(pa: _Profile, pb: _Profile) -> bool:
    if pa.single is not None and pb.single is not None:
        # the loop below for one unit each: b's only threshold is its rank t_b, where a
        # counts c_a if t_a >= t_b and a's family is b's (else 0), and b counts c_b
        (fa, ta, ca), (fb, tb, cb) = pa.single, pb.single
        return cb <= 0 or (fa == fb and ta >= tb and ca >= cb)
    for m, c in pb.other.items():
        if pa.other.get(m, 0) < c:
            return False
    for fam, units in pb.ordered.items():
        for t, _ in units:
            if pa.at_least(fam, t) < pb.at_least(fam, t):
                return False
    return True


#: the one parameter of a family's dominance_key rule for many mechanisms of one type at
#: once (equal to the rule's, mechanism by mechanism): 10,000 hospitals' Laplace epsilons
_BATCH_PARAMS: dict[type, Callable[[list[Any]], list[float]]] = {Laplace: laplace_epsilons}

#: above this many classes of one group, dominance is only checked along a sorted chain
MAX_DOMINANCE_CLASSES = 200


#: from this many single-unit classes on, the chain is ranked with NumPy (:func:`_rank_chain`)
_ARRAY_RANK = 64


def _rank_chain(params: list[float], c: int) -> list[int] | None:
    """:meth:`DatabaseClasses._single_unit_chain`'s ranking in NumPy: the same list.

    The sorted key there is ``(-t c, -c, i)``; ``-c`` is the same for every class, so it is
    the order of ``-t c`` with ties by index, which a stable argsort of the same doubles
    ``-(t * c)`` gives (each product is rounded as in Python). The chain test is the same
    comparison of neighbours. The caller passes finite parameters only (a NaN would sort
    differently; infinite ones stay on the Python path).
    """
    import numpy as np

    t = np.asarray(params, dtype=float)
    size = t * float(c)
    ranked = np.argsort(-size, kind="stable")
    if c > 0:
        r = t[ranked]
        if not bool(np.all(r[:-1] >= r[1:])):
            return None
    return ranked.tolist()


class DatabaseClasses:
    """The databases of one group, split into classes of identical releases.

    Attributes:
        items: the canonical release of each class.
        members: the database indices of each class (ascending).
        chain: True when the classes are totally ordered by dominance; ``order`` then
            lists them from the most dominating down.
        beats: ``beats[j]`` = the classes that strictly beat class j (dominate it; of two
            mutually dominating classes, the one listed first beats the other). Computed
            when the classes are not a chain and at most :data:`MAX_DOMINANCE_CLASSES`.
        order: every class comes after the classes that beat it.
    """

    def __init__(self, databases: Sequence[int], release_items: Sequence[Groups]) -> None:
        by_items: dict[Groups, list[int]] = {}
        ascending = True  # databases in ascending order: each class's members come sorted
        last = -1
        for d in databases:
            it = release_items[d]
            if d <= last:
                ascending = False
            last = d
            if it:
                key = it if len(it) == 1 else canonical(it)  # one (m, count): canonical already
                # one hash per database (setdefault), not a look-up and then an insertion
                by_items.setdefault(key, []).append(d)
        self.items: list[Groups] = list(by_items)
        self.members: list[list[int]] = (list(by_items.values()) if ascending
                                         else [sorted(v) for v in by_items.values()])
        n = len(self.items)
        self._units: UnitOrder | None = None
        self._profiles: list[_Profile] | None = None
        self.beats: list[set[int]] = [set() for _ in range(n)]
        ranked = self._single_unit_chain()
        if ranked is not None:
            self.chain = True
            self.order = ranked  # class_candidates takes the top of the chain; beats is not needed
            return
        keys = [pr.size_key for pr in self.profiles]  # _size_key of each class, computed with it
        # along dominance the key never decreases, so a chain sorted by it is checked pairwise
        ranked = sorted(range(n), key=lambda i: (-keys[i][0], -keys[i][1], i))
        self.chain = all(_dominates(self.profiles[a], self.profiles[b]) for a, b in zip(ranked, ranked[1:]))
        if self.chain:
            self.order = ranked  # class_candidates takes the top of the chain; beats is not needed
            return
        if n <= MAX_DOMINANCE_CLASSES:
            dom = [[i != j and _dominates(self.profiles[i], self.profiles[j]) for j in range(n)] for i in range(n)]
            self.beats = [{i for i in range(n) if dom[i][j] and (not dom[j][i] or i < j)} for j in range(n)]
        depth = [len(self._ancestors(j)) for j in range(n)]
        self.order = sorted(range(n), key=lambda j: (depth[j], j))

    @property
    def units(self) -> UnitOrder:
        """The order of the classes' mechanisms (built on first use)."""
        if self._units is None:
            self._units = UnitOrder(self.items)
        return self._units

    @property
    def profiles(self) -> list[_Profile]:
        """Each class's units by family (built on first use)."""
        if self._profiles is None:
            self._profiles = [_Profile(it, self.units) for it in self.items]
        return self._profiles

    def _single_unit_chain(self) -> list[int] | None:
        """The chain order when every class is one unit of one one-parameter family with one
        count (10,000 hospitals, one Laplace each), else None.

        The general path's result without building a profile per class: a single unit's
        ``size_key`` is ``(t c, c)`` (``t`` its parameter, which is its rank in a
        one-parameter family), so the same ranking, and :func:`_dominates` of two single
        units of one family with equal counts is ``t_a >= t_b``.
        """
        items = self.items
        if not items or any(len(it) != 1 for it in items):
            return None
        c = items[0][0][1]
        if any(k != c for (_, k), in items):
            return None
        mechs = [m for (m, _), in items]
        kind = type(mechs[0])
        batch = _BATCH_PARAMS.get(kind)
        params: list[float] = []
        if batch is not None and all(type(m) is kind for m in mechs):
            first = _cached_unit_params(mechs[0])
            if first is None or len(first[1]) != 1:
                return None
            params = batch(mechs)  # the rule's one parameter of each, in one pass
        else:
            family = None
            for m in mechs:
                key = _cached_unit_params(m)
                if key is None or len(key[1]) != 1 or (family is not None and key[0] != family):
                    return None
                family = key[0]
                params.append(key[1][0])
        if len(items) >= _ARRAY_RANK and all(map(math.isfinite, params)):
            return _rank_chain(params, c)
        size = [t * c for t in params]
        ranked = sorted(range(len(items)), key=lambda i: (-size[i], -c, i))
        if c > 0 and not all(params[a] >= params[b] for a, b in zip(ranked, ranked[1:])):
            return None  # not a chain (ties in t c between different t): the general path says why
        return ranked

    def _ancestors(self, j: int) -> set[int]:
        seen: set[int] = set()
        stack = list(self.beats[j])
        while stack:
            i = stack.pop()
            if i not in seen:
                seen.add(i)
                stack.extend(self.beats[i])
        return seen

    def __len__(self) -> int:
        return len(self.items)

    @property
    def n_databases(self) -> int:
        """How many databases the classes hold (the group's queried databases)."""
        return sum(map(len, self.members))

    def size(self, i: int) -> int:
        return len(self.members[i])

    def release(self, counts: dict[int, int]) -> Groups:
        """The composed release of a candidate given as ``{class: how many of its databases}``."""
        return merge(scaled(self.items[i], k) for i, k in counts.items() if k)

    def databases(self, counts: dict[int, int]) -> list[int]:
        """One real subset of databases with these class counts."""
        return sorted(d for i, k in counts.items() for d in self.members[i][:k])


def class_candidates(classes: DatabaseClasses, cap: int, limit: int) -> list[dict[int, int]] | None:
    """The count vectors that can be the worst ``cap``-subset of a group, or None if more than ``limit``.

    Every subset of at most ``cap`` databases of the group is dominated element-wise by
    the subset of one returned count vector (module docstring), so the maximum over
    them is the exact worst case of the group.
    """
    n = len(classes)
    total = classes.n_databases
    target = min(cap, total)
    if classes.chain:  # the top of the chain dominates every other choice
        chosen: dict[int, int] = {}
        left = target
        for j in classes.order:
            if left == 0:
                break
            chosen[j] = min(left, classes.size(j))
            left -= chosen[j]
        return [chosen]
    if n > MAX_DOMINANCE_CLASSES:
        return None  # at least n candidates, and no dominance information to prune them
    order = classes.order
    suffix = [0] * (n + 1)
    for p in range(n - 1, -1, -1):
        suffix[p] = suffix[p + 1] + classes.size(order[p])
    out: list[dict[int, int]] = []

    def rec(pos: int, left: int, chosen: dict[int, int]) -> bool:
        if left == 0:
            out.append({j: k for j, k in chosen.items() if k})
            return len(out) <= limit
        j = order[pos]  # left <= suffix[pos], so pos < n here
        # j may be used only if every class beating it is used up
        full = all(chosen.get(i, 0) == classes.size(i) for i in classes.beats[j])
        hi = min(classes.size(j), left) if full else 0
        for k in range(hi, -1, -1):
            if left - k > suffix[pos + 1]:
                break  # the later classes cannot fill the rest
            chosen[j] = k
            if not rec(pos + 1, left - k, chosen):
                return False
        chosen.pop(j, None)
        return True

    return out if rec(0, target, {}) else None


def dominating_release(classes: DatabaseClasses, cap: int) -> Groups:
    r"""One release that dominates the composition of every ``cap``-subset of the group.

    For an ordered family and each parameter value :math:`t`, the release has
    :math:`M(t) = ` the sum of the ``cap`` largest :math:`N_d(\ge t)` units at or above
    :math:`t`; any subset :math:`S` has :math:`N_S(\ge t) \le M(t)`, which is the threshold
    test. Other mechanisms: the sum of the ``cap`` largest counts of each. Exact (equal
    to the worst subset) when the databases are identical or form a chain.
    """
    profiles = [(classes.profiles[i], classes.size(i)) for i in range(len(classes))]
    reps: dict[UnitKey, Mechanism] = {}
    for i in range(len(classes)):
        for m, _ in classes.items[i]:
            key = classes.units.key(m)
            if key is not None and (key not in reps or describe(m) < describe(reps[key])):
                reps[key] = m

    def top_sum(values_with_mult: Iterable[tuple[int, int]]) -> int:
        """The sum of the ``cap`` largest values, each value repeated ``mult`` times."""
        left, total = cap, 0
        for v, mult in sorted(values_with_mult, reverse=True):
            take = min(left, mult)
            total += v * take
            left -= take
            if left == 0:
                break
        return total

    counts: dict[Mechanism, int] = {}
    others = {m for p, _ in profiles for m in p.other}
    for m in others:
        counts[m] = top_sum((p.other.get(m, 0), n) for p, n in profiles)
    families = {f for p, _ in profiles for f in p.ordered}
    for fam in families:
        params = sorted({t for p, _ in profiles for t, _ in p.ordered.get(fam, ())}, reverse=True)
        prev = 0
        for t in params:
            m_t = top_sum((p.at_least(fam, t), n) for p, n in profiles)
            if m_t > prev:
                rep = reps[(fam, t)]
                counts[rep] = counts.get(rep, 0) + (m_t - prev)
                prev = m_t
    return merge((tuple((m, c) for m, c in counts.items() if c),))


def best_scored(classes: DatabaseClasses, cap: int, score) -> list[int]:
    """A real subset of at most ``cap`` databases, the highest-scoring classes first (for lower bounds)."""
    ranked = sorted(range(len(classes)), key=lambda i: (-score(classes.items[i]), i))
    chosen: dict[int, int] = {}
    left = cap
    for i in ranked:
        if left == 0:
            break
        k = min(left, classes.size(i))
        chosen[i] = k
        left -= k
    return classes.databases(chosen)


def iter_product(options: Sequence[Sequence[Groups]]) -> Iterator[Groups]:
    """Merged releases of every combination of one option per group."""
    if not options:
        yield ()
        return

    def rec(i: int, acc: list[Groups]) -> Iterator[Groups]:
        if i == len(options):
            yield merge(acc)
            return
        for o in options[i]:
            acc.append(o)
            yield from rec(i + 1, acc)
            acc.pop()

    yield from rec(0, [])

r"""The release and its inner composition (the paper's "CompGuarantee").

A :class:`Release` says which mechanisms run on which database. An
:class:`InnerComposition` composes the mechanisms of a set of databases (the databases
where two b-vectors differ, Sec. V-B) with the chosen method, caching by the multiset of
mechanisms, so pairs whose differing databases have the same releases share one
composition.

Orientation: for a pair (b0, b1) the target is *added* in the databases where b1 has it
and b0 not, and *removed* in the others. The descriptions of dpcompose hold in both
orientations except for Poisson subsampling; a pair in mixed orientations with a
Poisson-subsampled mechanism is composed only by methods that do not compose the add and
the remove direction separately (:func:`dpcompose.compose.directional_methods`, declared
by each method at registration).

References:
    Hartmann, Bindschaedler and West, "On the Choice of Databases in Differential
    Privacy Composition", Alg. 2 and Sec. V-B.
"""

from __future__ import annotations

import numbers
from typing import Any, Callable, Iterable, Sequence, cast

from .._groups import normalize_one
from ..compose import Groups, available_methods, compose, directional_methods, normalize
from ..errors import InvalidParameterError, MethodNotApplicableError
from ..guarantee import Guarantee, perfect_privacy, tightest
from ..mechanisms import Mechanism, Subsampled, TruncatedPoisson, describe
from .dominance import merge
from .exact import MAX_ATOMS, atoms_guarantee, finite_atoms, finite_estimate

__all__ = ["Release", "InnerComposition", "Composer", "DELTA_NATIVE_METHODS", "differing", "mixed"]

#: a user-supplied inner composition: grouped mechanisms -> a certified Guarantee
Composer = Callable[[Groups], Guarantee]

#: for coupling costs, "auto" composes with these methods only: their delta(eps) is computed
#: directly, while the closed-form theorems invert epsilon(delta) numerically at each call
#: (0.2 s and more), which a coupling bound needs for every pair at every epsilon it tries
DELTA_NATIVE_METHODS = ("optimal", "pld", "rdp")


class Release:
    """Invocations grouped by database: ``items[d]`` is the grouped ``((m, count), ...)`` run on d."""

    __slots__ = ("items", "n")

    def __init__(self, mechanisms: Iterable[Any], databases: Sequence[int] | None = None) -> None:
        if isinstance(mechanisms, Mechanism):
            mechanisms = [mechanisms]
        mechs = list(mechanisms)
        if databases is None:
            dbs = list(range(len(mechs)))
        else:
            if isinstance(databases, (str, bytes)) or not isinstance(databases, Iterable):
                raise InvalidParameterError(
                    f"databases = {databases!r} must be a list with one database index per item."
                )
            dbs = list(databases)
            if len(dbs) != len(mechs):
                raise InvalidParameterError(
                    f"databases has {len(dbs)} entries but there are {len(mechs)} mechanisms; "
                    f"give one database index per mechanism (item i runs on databases[i])."
                )
            for i, d in enumerate(dbs):
                if isinstance(d, bool) or not isinstance(d, numbers.Integral) or int(d) < 0:
                    raise InvalidParameterError(
                        f"databases[{i}] = {d!r} is not a database index (an integer >= 0)."
                    )
        n = (max(dbs) + 1) if dbs else 0
        per: list[list[Any]] = [[] for _ in range(n)]
        for item, d in zip(mechs, dbs):
            per[int(d)].append(item)
        try:
            # one item on a database (the common case, 10,000 hospitals: m or (m, count)) is
            # grouped as normalize groups it, without its per-call work
            self.items: tuple[Groups, ...] = tuple(
                (normalize_one(p[0]) if len(p) == 1 else None) or normalize(p) for p in per)
        except (InvalidParameterError, TypeError):
            # name the first bad item by its position in the input (checked one by one only here)
            for i, item in enumerate(mechs):
                try:
                    normalize([item])
                except (InvalidParameterError, TypeError) as exc:
                    raise type(exc)(f"mechanisms[{i}]: {exc}") from None
            raise
        self.n = n

    def groups_for(self, dbset: Iterable[int]) -> Groups:
        """The grouped mechanisms of the databases in ``dbset``."""
        return merge(self.items[d] for d in dbset)

    @property
    def has_subsampled(self) -> bool:
        """Whether some invocation is subsampled (its description depends on the orientation)."""
        return any(isinstance(m, (Subsampled, TruncatedPoisson)) or m.asymmetric_pair
                   for items in self.items for m, _ in items)


def differing(b0: Sequence[int], b1: Sequence[int]) -> list[int]:
    """The databases where two b-vectors differ (the only ones composed, Sec. V-B)."""
    return [d for d, (x, y) in enumerate(zip(b0, b1)) if x != y]


def mixed(b0: Sequence[int], b1: Sequence[int]) -> bool:
    """Whether the target is added in some differing databases and removed in others."""
    return any(x > y for x, y in zip(b0, b1)) and any(x < y for x, y in zip(b0, b1))


def _has_poisson(groups: Groups) -> bool:
    # an asymmetric family pair (the mixture of Gaussians) differs between add and remove too
    # a truncated Poisson batch is composed as its untruncated Subsampled (truncation.py): the same rule
    return any((isinstance(m, (Subsampled, TruncatedPoisson)) and m.scheme == "poisson") or m.asymmetric_pair
               for m, _ in groups)


class InnerComposition:
    """Composes the mechanisms of a set of databases, with a cache keyed by the multiset.

    Args:
        release: the release.
        method: ``"auto"`` (every registered method, plus the exact enumeration where the
            mechanisms have finite pairs), ``"exact"``, a method name, or a callable
            ``groups -> Guarantee``.
        options: passed to :func:`dpcompose.compose`.
        delta_native: with method "auto", compose with :data:`DELTA_NATIVE_METHODS` only
            (and the exact enumeration), falling back to every method when none applies.
            Any subset of methods gives a valid bound; this one keeps coupling bounds
            affordable.

    Attributes:
        mixed: the default orientation of :meth:`of` (True under bounded neighbours).
    """

    def __init__(self, release: Release, method: str | Composer, options: dict,
                 delta_native: bool = False) -> None:
        if not (callable(method) or isinstance(method, str)):
            raise InvalidParameterError(
                f"method = {method!r} must be a composition method name or a callable groups -> Guarantee."
            )
        self.release = release
        self.method = method
        self.options = options
        self.mixed = False
        self.delta_native = delta_native
        self.cache: dict[tuple[Groups, bool], Guarantee] = {}

    def for_costs(self) -> "InnerComposition":
        """The same inner composition for coupling costs (see ``delta_native``)."""
        return InnerComposition(self.release, self.method, self.options, delta_native=True)

    def key(self, dbset: Iterable[int], mixed: bool) -> tuple[Groups, bool]:
        """Pairs with equal keys have the same inner composition."""
        groups = self.release.groups_for(dbset)
        return (groups, bool(mixed and _has_poisson(groups)))

    def pair_key(self, b0: Sequence[int], b1: Sequence[int]) -> tuple[Groups, bool]:
        """:meth:`key` of a pair of b-vectors."""
        return self.key(differing(b0, b1), mixed(b0, b1))

    def of_groups(self, groups: Groups, mixed: bool | None = None) -> Guarantee:
        """The inner composition of ``groups``.

        ``mixed``: whether the pair of b-vectors has invocations in both orientations (the
        target added in some, removed in others); default ``self.mixed``. It matters only for
        Poisson-subsampled mechanisms, whose add and remove directions differ.
        """
        mixed = self.mixed if mixed is None else mixed
        key = (groups, bool(mixed and _has_poisson(groups)))
        if key in self.cache:
            return self.cache[key]
        g = self._compute(groups, key[1])
        self.cache[key] = g
        return g

    def of(self, dbset: Iterable[int], mixed: bool | None = None) -> Guarantee:
        """The inner composition of the databases in ``dbset``."""
        return self.of_groups(self.release.groups_for(dbset), mixed)

    def of_pair(self, b0: Sequence[int], b1: Sequence[int]) -> Guarantee:
        """The deterministic pair (b0, b1), both directions: its differing databases composed."""
        return self.of(differing(b0, b1), mixed(b0, b1))

    def _compose(self, groups: Groups, mixed: bool) -> Guarantee:
        # The directional methods compose the add and the remove direction separately, each
        # with every invocation in that orientation; a pair whose orientations are mixed
        # needs descriptions that hold in both orientations per invocation.
        directional = directional_methods() if mixed else frozenset()
        if self.delta_native and self.method == "auto":
            skip = (set(available_methods()) - set(DELTA_NATIVE_METHODS)) | directional
            try:
                return compose(list(groups), method="auto", exclude=skip, **self.options)
            except MethodNotApplicableError:
                pass  # none of them applies: every method below
        if self.method in directional:
            raise MethodNotApplicableError(
                f"method {self.method!r} composes the add and remove directions separately; this pair "
                f"of b-vectors adds the target to some Poisson-subsampled invocations and removes it "
                f"from others. Use 'rdp', 'optimal', 'advanced' or 'auto' (which skips {self.method!r} here)."
            )
        method = cast(str, self.method)  # a callable is called by _compute instead
        return compose(list(groups), method=method, exclude=directional, **self.options)

    def _compute(self, groups: Groups, mixed: bool = False) -> Guarantee:
        if not groups:
            return perfect_privacy("hdp-inner")
        if callable(self.method):
            g = self.method(groups)
            if not isinstance(g, Guarantee):
                raise InvalidParameterError("a callable method must return a dpcompose Guarantee.")
            return g
        results: list[Guarantee] = []
        if self.method == "exact" or (self.method == "auto" and finite_estimate(groups) <= MAX_ATOMS):
            try:
                atoms = finite_atoms(groups)
            except MethodNotApplicableError:
                atoms = None  # too many atoms: the composition methods below
            if atoms is not None:
                results.append(atoms_guarantee(atoms, None, "exact-enumeration",
                                               {"input": [(describe(m), c) for m, c in groups]}))
            elif self.method == "exact":
                raise MethodNotApplicableError(
                    "method 'exact' (enumeration of finite dominating pairs) needs PureDP, "
                    "RandomizedResponse or ApproxDP mechanisms and a small number of distinct "
                    "losses; use method='auto' or a composition method name."
                )
        if self.method != "exact":
            try:
                results.append(self._compose(groups, mixed))
            except MethodNotApplicableError:
                if not results:
                    raise
        return tightest(results, name="auto") if len(results) > 1 else results[0]

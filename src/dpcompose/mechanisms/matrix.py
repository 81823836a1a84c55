"""Matrix-mechanism families of DP-FTRL: tree aggregation and random allocation (issue 12)."""

from __future__ import annotations

from dataclasses import KW_ONLY, dataclass

from .._validation import (
    check_count,
    check_positive,
)
from ..errors import InvalidParameterError, UnsupportedMechanismError
from .base import Mechanism, _sqrt_up, _whole
from .composite import Group, Subsampled
from .noise import Gaussian


@dataclass(frozen=True, slots=True)
class TreeAggregation(Mechanism):
    r"""Single-epoch DP-FTRL: tree aggregation of ``steps`` clipped gradients, each example in one step.

    Binary-tree aggregation (Dwork, Naor, Pitassi and Rothblum 2010; Chan, Shi and Song
    2011) releases every complete dyadic node :math:`[k2^j + 1, (k+1)2^j]` of the leaves
    (steps) seen so far, each with fresh noise :math:`N(0, \sigma^2 C^2 I)`, where
    :math:`C` is the clip norm and :math:`\sigma` the noise multiplier. Over
    ``steps`` = :math:`n` leaves a leaf lies in at most
    :math:`\lceil\log_2(n+1)\rceil = \lfloor\log_2 n\rfloor + 1` released nodes (leaf 1 lies in
    :math:`[1, 2^j]` for every :math:`2^j \le n`), available as :attr:`nodes`.

    Args:
        noise_multiplier: :math:`\sigma > 0`, the noise standard deviation per node over the
            clip norm (the L2 sensitivity of one example's contribution to one leaf).
        steps: :math:`n \ge 1`, the number of leaves (steps) in the one tree.
        participations: how often one example may appear in the tree; only 1 is covered.

    Neighbouring relation: that of the paper (Def. 1.1), one record replaced by the zero
    record (its clipped gradient by 0), so one node's sensitivity is the clip norm; this
    also covers adding or removing a record when the data order gives every other
    record the same step either way. Under replacing one record by an arbitrary one a
    node's sensitivity is twice the clip norm: describe that as
    ``TreeAggregation(noise_multiplier / 2, steps)``, or equivalently
    ``Group(TreeAggregation(noise_multiplier, steps), 2)`` (a replacement is two zero-outs;
    a person's g records: ``Group(..., g)``, the Gaussian with
    :math:`\mu = g\sqrt{\text{nodes}}/\sigma`, see :mod:`dpcompose.representations.group`).

    Guarantee:
        When each example contributes to exactly one leaf of one tree (one pass, a fixed
        data order, no restart needed), the released nodes are an adaptive composition of
        Gaussian mechanisms of which at most :attr:`nodes` have sensitivity :math:`\le C`
        (the others do not depend on the example), so the whole run is
        :math:`\mu`-GDP with :math:`\mu = \sqrt{\text{nodes}}/\sigma` (Dong, Roth and Su,
        "Gaussian Differential Privacy", 2019/2022, Cor. 3.3), equivalently
        :math:`\alpha\,\text{nodes}/(2\sigma^2)`-RDP, i.e. :math:`\rho = \text{nodes}/(2\sigma^2)`-zCDP,
        the bound of Kairouz, McMahan, Song, Thakkar, Thakurta and Xu for one pass
        (theorem number not verified; its Appendix D is the accounting cited by
        dp_accounting's ``SingleEpochTreeAggregationDpEvent``, which uses the same
        :math:`\lceil\log_2(n+1)\rceil`). Every rule is that of
        ``Gaussian(noise_multiplier, sensitivity=sqrt(nodes))`` (:attr:`gaussian`), with
        :math:`\sqrt{\text{nodes}}` rounded up. Several epochs with the tree restarted each
        epoch are the composition of one ``TreeAggregation`` per epoch; several
        participations in one tree are refused (their worst-case node count needs the
        dynamic program of the paper's Appendix D, not implemented here).

    References:
        Kairouz, McMahan, Song, Thakkar, Thakurta and Xu, "Practical and Private (Deep)
        Learning without Sampling or Shuffling", ICML 2021 (arXiv:2103.00039), privacy
        analysis of DP-FTRL and Appendix D (theorem number not verified).
    """

    noise_multiplier: float
    steps: int
    _: KW_ONLY
    participations: int = 1

    def __post_init__(self) -> None:
        object.__setattr__(self, "noise_multiplier", check_positive(
            "TreeAggregation.noise_multiplier", self.noise_multiplier,
            remedy="the noise standard deviation per node over the clip norm must be > 0."))
        given: tuple[object, object] = (self.steps, self.participations)  # plan files give floats
        steps, k = (int(v) if isinstance(v, float) and v.is_integer() else v for v in given)
        object.__setattr__(self, "steps", check_count("TreeAggregation.steps", steps, minimum=1))
        k = check_count("TreeAggregation.participations", k, minimum=1)
        if k != 1:
            raise InvalidParameterError(
                f"TreeAggregation.participations = {k} is not covered: only single-epoch use (each "
                f"example in one leaf of the tree, participations = 1) has a verified bound here. For "
                f"several epochs restart the tree each epoch and compose one TreeAggregation per epoch "
                f"(e.g. [TreeAggregation(sigma, steps)] * epochs).")
        object.__setattr__(self, "participations", k)

    @property
    def nodes(self) -> int:
        """The most released tree nodes one leaf lies in: ceil(log2(steps + 1)) = floor(log2(steps)) + 1."""
        return self.steps.bit_length()

    @property
    def gaussian(self) -> Gaussian:
        """The equivalent Gaussian mechanism, sensitivity sqrt(nodes) rounded up."""
        return Gaussian(self.noise_multiplier, sensitivity=_sqrt_up(self.nodes))

    @property
    def mu(self) -> float:
        """The Gaussian-DP parameter sqrt(nodes) / noise_multiplier, rounded up."""
        return self.gaussian.mu


@dataclass(frozen=True, slots=True)
class RandomAllocation(Mechanism):
    r"""One epoch of random allocation: each record is used in exactly ``per_epoch`` of ``steps`` steps.

    Each record's set of steps is a uniformly random ``k``-subset of the ``t`` steps
    (``k = 1``: balls-in-bins), drawn independently of the other records' sets; the
    mechanism ``mechanism`` runs at every step on the records allocated to it, each step
    may depend on the earlier steps' outputs. Compose ``(RandomAllocation(...), epochs)``
    for several epochs (independent allocations).

    Accounted **without amplification** by every rule but one: an epoch is dominated by
    ``k`` un-amplified invocations of ``mechanism`` (the rules are those of the k-fold
    composition, see :mod:`dpcompose.representations.random_allocation`), an upper bound,
    never attained in general. The exception: for ``k = 1`` and a ``Gaussian`` step the
    Renyi curve is amplified, certified from the exact balls-in-bins pair in both directions
    (:mod:`dpcompose.representations.random_allocation_rdp`), so ``method="rdp"`` and
    ``"auto"`` certify the amplification; pld and the theorems stay un-amplified.

    Proof (one epoch; the neighbouring relation is the inner mechanism's). Let the record
    that differs be x, its step set S (uniform k-subset) and A the allocation of the other
    records. Add/remove: S is independent of A, so conditioned on (S, A) both databases
    give the same batches at the steps outside S and batches differing in x at the steps in
    S; substitution (x -> x'): couple x' to x's step set S. For fixed (S, A) the outputs
    are an adaptive composition of t steps of which the t - k outside S have the same
    conditional law under both databases, so
    :math:`H_\gamma(P_{S,A} \| Q_{S,A}) \le H_\gamma(\text{k-fold dominating pair})`
    (Zhu, Dong and Wang 2022, Thm 10: dominating pairs compose adaptively; an identical
    step is dominated by the pair (Dirac, Dirac)). The epoch's output laws are the mixtures
    :math:`P = \sum_{S,A} w_{S,A} P_{S,A}`, :math:`Q = \sum_{S,A} w_{S,A} Q_{S,A}` with the
    same weights, and the hockey-stick divergence is jointly convex (an f-divergence,
    :math:`(p - \gamma q)_+` is jointly convex), so :math:`H_\gamma(P\|Q) \le
    \max_{S,A} H_\gamma(P_{S,A}\|Q_{S,A})`, the k-fold bound, for every gamma >= 0.

    Args:
        mechanism: the mechanism run at each step (not ``Subsampled``, not another
            ``RandomAllocation``).
        steps: :math:`t`, the number of steps of an epoch, an integer >= 1.
        per_epoch: :math:`k`, the steps each record is allocated to, an integer in [1, t].

    Guarantee:
        every rule is that of the k-fold composition of ``mechanism`` where a closed
        form of it exists (``k = 1``: the mechanism itself; ``Gaussian``: sensitivity times
        :math:`\sqrt{k}`; ``ZCDP``: :math:`k\rho`); any other inner mechanism with
        k > 1 is refused with :class:`~dpcompose.errors.NoRuleError` (compose the inner
        mechanism ``k * epochs`` times instead). For ``k = 1`` and a ``Gaussian`` step the
        Renyi curve is the smaller of that and the amplified balls-in-bins curve. No lower
        bound is claimed.

    References:
        Chua, Ghazi, Harrison, Leeman, Kamath, Kumar, Manurangsi, Sinha and Zhang,
        "Balls-and-Bins Sampling for DP-SGD" (AISTATS 2025) (the sampler);
        Zhu, Dong and Wang, "Optimal Accounting of Differential Privacy via Characteristic
        Function" (AISTATS 2022), Thm 10 (adaptive composition of dominating pairs).
    """

    mechanism: Mechanism
    steps: int
    per_epoch: int = 1

    def __post_init__(self) -> None:
        if not isinstance(self.mechanism, Mechanism):
            raise UnsupportedMechanismError(
                f"RandomAllocation.mechanism must be a dpcompose mechanism, got {self.mechanism!r}; "
                f"wrap e.g. Gaussian(sigma, sensitivity=C)."
            )
        if isinstance(self.mechanism, (Subsampled, RandomAllocation)):
            raise UnsupportedMechanismError(
                f"RandomAllocation.mechanism is {type(self.mechanism).__name__}: a sampler inside random "
                f"allocation has no certified rule here; state the per-step mechanism itself "
                f"(e.g. RandomAllocation(Gaussian(sigma), steps=t))."
            )
        if isinstance(self.mechanism, Group):
            # A person's g records are allocated one by one, so the person can sit in up to
            # g * per_epoch steps, not per_epoch: the k-invocation bound of the proof above
            # does not cover it. Refuse rather than under-report.
            raise UnsupportedMechanismError(
                f"RandomAllocation.mechanism is {self.mechanism!r}: each of a person's "
                f"{self.mechanism.size} records is allocated on its own, so the person can be in up to "
                f"{self.mechanism.size} x per_epoch steps and no certified rule covers it here. Remedy: "
                f"account the person as Group(mechanism, size) in every step, an upper bound."
            )
        steps = check_count("RandomAllocation.steps", _whole(self.steps), minimum=1)
        k = check_count("RandomAllocation.per_epoch", _whole(self.per_epoch), minimum=1)
        if k > steps:
            raise InvalidParameterError(
                f"RandomAllocation.per_epoch = {k!r} is above steps = {steps!r}; a record is used in at "
                f"most every step of an epoch (valid range 1 <= per_epoch <= steps; e.g. per_epoch = 1)."
            )
        object.__setattr__(self, "steps", steps)
        object.__setattr__(self, "per_epoch", k)

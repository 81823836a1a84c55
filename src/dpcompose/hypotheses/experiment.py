r"""The composition experiments as executable simulators, with Monte Carlo privacy loss.

- :func:`classic_experiment` -- Alg. 1 (Dwork, Rothblum and Vadhan's k-fold composition
  experiment as given in Roth's CIS 800 lecture 4 "Composition Theorems" and in
  Hartmann, Bindschaedler and West): one secret bit b; in round i the adversary returns
  neighbouring databases :math:`x_i^0, x_i^1`, parameters and a mechanism, and receives
  :math:`M_i(x_i^b)`. The view is :math:`(r, y_1, \dots, y_k)`.
- :func:`generalized_experiment` -- Alg. 2 (the generalized composition experiment): a
  b-vector, round i runs on :math:`x_i^{b_i}`.
- :func:`privacy_loss` -- the log-likelihood ratio of a view between two hypotheses
  (point masses or mixtures over b-vectors), computed from the recorded choices (the
  adversary's choices are a function of r and the earlier outputs, so the likelihood
  of a view factorises over rounds).
- :func:`estimate_delta` -- a Monte Carlo estimate of
  :math:`H_{e^\varepsilon}(V^{p_0}\|V^{p_1}) = E_{V \sim p_0}[(1 - e^{\varepsilon - L})_+]`
  with its standard error: a check that no analytical guarantee is violated beyond
  sampling error. It is an *estimate*, never a guarantee.

Mechanisms here run on small in-memory databases (tuples of records):
:class:`LaplaceQuery`, :class:`GaussianQuery`, :class:`RandomizedResponseQuery`.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Any, Callable, Protocol, Sequence

import numpy as np

from .._numerics.lazy import lazy_function
from .._validation import check_count, check_epsilon, check_positive
from ..errors import InvalidParameterError
from .hypothesis import Hypothesis

logsumexp = lazy_function("scipy.special", "logsumexp")  # imported on first use (cold start)

__all__ = [
    "LaplaceQuery",
    "GaussianQuery",
    "RandomizedResponseQuery",
    "count_query",
    "Step",
    "View",
    "FixedAdversary",
    "FunctionAdversary",
    "classic_experiment",
    "generalized_experiment",
    "privacy_loss",
    "estimate_delta",
    "DeltaEstimate",
]

Database = tuple


class Runnable(Protocol):
    """A mechanism that can run on a database and report the density of an output."""

    def sample(self, db: Database, rng: np.random.Generator) -> Any: ...

    def log_density(self, output: Any, db: Database) -> float: ...


def count_query(predicate: Callable[[Any], bool] = lambda r: True) -> Callable[[Database], float]:
    """A counting query: the number of records satisfying ``predicate`` (sensitivity 1)."""
    return lambda db: float(sum(1 for r in db if predicate(r)))


@dataclass(frozen=True)
class LaplaceQuery:
    """``query(db) + Lap(scale)``; epsilon-DP with epsilon = sensitivity / scale."""

    query: Callable[[Database], float]
    scale: float

    def __post_init__(self) -> None:
        check_positive("LaplaceQuery.scale", self.scale)

    def sample(self, db: Database, rng: np.random.Generator) -> float:
        return float(self.query(db) + rng.laplace(0.0, self.scale))

    def log_density(self, output: float, db: Database) -> float:
        return -abs(output - self.query(db)) / self.scale - math.log(2.0 * self.scale)


@dataclass(frozen=True)
class GaussianQuery:
    """``query(db) + N(0, sigma^2)``."""

    query: Callable[[Database], float]
    sigma: float

    def __post_init__(self) -> None:
        check_positive("GaussianQuery.sigma", self.sigma)

    def sample(self, db: Database, rng: np.random.Generator) -> float:
        return float(self.query(db) + rng.normal(0.0, self.sigma))

    def log_density(self, output: float, db: Database) -> float:
        z = (output - self.query(db)) / self.sigma
        return -0.5 * z * z - math.log(self.sigma * math.sqrt(2.0 * math.pi))


@dataclass(frozen=True)
class RandomizedResponseQuery:
    """Report the bit ``predicate(db)`` truthfully with probability e^eps / (1 + e^eps)."""

    predicate: Callable[[Database], bool]
    epsilon: float

    def __post_init__(self) -> None:
        check_epsilon("RandomizedResponseQuery.epsilon", self.epsilon)

    def _log_truth(self) -> tuple[float, float]:
        e = self.epsilon
        return -math.log1p(math.exp(-e)), -math.log1p(math.exp(e))

    def sample(self, db: Database, rng: np.random.Generator) -> int:
        truth = int(bool(self.predicate(db)))
        keep = rng.random() < math.exp(self._log_truth()[0])
        return truth if keep else 1 - truth

    def log_density(self, output: int, db: Database) -> float:
        truth = int(bool(self.predicate(db)))
        lt, lf = self._log_truth()
        return lt if output == truth else lf


@dataclass(frozen=True)
class Step:
    """What the adversary returns in one round: two neighbouring databases and a mechanism."""

    x0: Database
    x1: Database
    mechanism: Runnable
    params: Any = None


@dataclass
class View:
    """The adversary's view (r, y_1, ..., y_k), with the choices it made (for likelihoods)."""

    r: int
    outputs: list = field(default_factory=list)
    steps: list = field(default_factory=list)


class FixedAdversary:
    """A non-adaptive adversary: round i returns ``steps[i]``."""

    def __init__(self, steps: Sequence[Step]) -> None:
        self.steps = list(steps)

    def __call__(self, i: int, history: Sequence[Any], r: np.random.Generator) -> Step:
        return self.steps[i]


class FunctionAdversary:
    """An adaptive adversary ``fn(i, history, r) -> Step`` (r: its own coin tosses)."""

    def __init__(self, fn: Callable[[int, Sequence[Any], np.random.Generator], Step]) -> None:
        self.fn = fn

    def __call__(self, i: int, history: Sequence[Any], r: np.random.Generator) -> Step:
        return self.fn(i, history, r)


def _run(adversary: Callable, k: int, bits: Sequence[int], r: int, rng: np.random.Generator) -> View:
    coins = np.random.default_rng(r)
    view = View(r)
    for i in range(k):
        step = adversary(i, tuple(view.outputs), coins)
        if not isinstance(step, Step):
            raise InvalidParameterError(f"the adversary returned {step!r} in round {i}; it must return a Step.")
        db = step.x1 if bits[i] else step.x0
        view.outputs.append(step.mechanism.sample(db, rng))
        view.steps.append(step)
    return view


def classic_experiment(adversary: Callable, k: int, b: int, *, r: int = 0,
                       rng: np.random.Generator | None = None) -> View:
    """Alg. 1 (Compose(A, (M_1..M_k), k, b)): every round runs on x_i^b.

    References:
        Roth, CIS 800 lecture 4 "Composition Theorems" (the k-fold composition
        experiment); Hartmann, Bindschaedler and West, Alg. 1.
    """
    k = check_count("k", k)
    if b not in (0, 1):
        raise InvalidParameterError(f"b = {b!r} must be 0 or 1.")
    return _run(adversary, k, [b] * k, r, rng or np.random.default_rng())


def generalized_experiment(adversary: Callable, k: int, b: Sequence[int], *, r: int = 0,
                           rng: np.random.Generator | None = None) -> View:
    """Alg. 2 (ComposeGeneralized(A, (M_1..M_k), k, b)): round i runs on x_i^{b_i}.

    References:
        Hartmann, Bindschaedler and West, Alg. 2.
    """
    k = check_count("k", k)
    bits = list(b)
    if len(bits) != k or any(x not in (0, 1) for x in bits):
        raise InvalidParameterError(f"b = {b!r} must be a 0/1 vector of length k = {k}.")
    return _run(adversary, k, bits, r, rng or np.random.default_rng())


def _log_lik(view: View, bits: Sequence[int]) -> float:
    return sum(s.mechanism.log_density(y, s.x1 if bit else s.x0)
               for s, y, bit in zip(view.steps, view.outputs, bits))


def _expand(b: Sequence[int], databases: Sequence[int] | None) -> list[int]:
    return list(b) if databases is None else [b[d] for d in databases]


def privacy_loss(view: View, p0: Hypothesis, p1: Hypothesis, databases: Sequence[int] | None = None) -> float:
    r"""The privacy loss :math:`\ln(\Pr[V^{p_0} = v] / \Pr[V^{p_1} = v])` of a view.

    ``databases[i]`` maps round i to the database whose bit it uses (default: round i
    uses bit i).
    """
    def log_mix(h: Hypothesis) -> float:
        terms = [math.log(w) + _log_lik(view, _expand(b, databases)) for b, w in h.support()]
        return float(logsumexp(terms))

    return log_mix(p0) - log_mix(p1)


@dataclass(frozen=True)
class DeltaEstimate:
    """A Monte Carlo estimate of a hockey-stick divergence (not a guarantee)."""

    estimate: float
    standard_error: float
    samples: int


def estimate_delta(adversary: Callable, k: int, p0: Hypothesis, p1: Hypothesis, epsilon: float, *,
                   samples: int = 2000, databases: Sequence[int] | None = None,
                   seed: int = 0) -> DeltaEstimate:
    r"""Monte Carlo estimate of :math:`H_{e^\varepsilon}(V^{p_0}\|V^{p_1})` by the generalized experiment.

    Draws :math:`b \sim p_0` and the adversary's coins, runs Alg. 2, and averages
    :math:`(1 - e^{\varepsilon - L})_+` with L the privacy loss of the view. Each term lies
    in [0, 1]; the standard error is the sample standard deviation over sqrt(samples).

    Guarantee:
        None: an estimate with sampling error, for checking analytical guarantees.
    """
    epsilon = check_epsilon("epsilon", epsilon)
    samples = check_count("samples", samples, minimum=2)
    rng = np.random.default_rng(seed)
    support = list(p0.support())
    weights = np.array([w for _, w in support])
    weights = weights / weights.sum()
    vals = np.empty(samples)
    for s in range(samples):
        b = support[rng.choice(len(support), p=weights)][0]
        r = int(rng.integers(2 ** 31))
        view = generalized_experiment(adversary, k, _expand(b, databases), r=r, rng=rng)
        loss = privacy_loss(view, p0, p1, databases)
        vals[s] = 0.0 if loss <= epsilon else -math.expm1(epsilon - loss)
    return DeltaEstimate(float(vals.mean()), float(vals.std(ddof=1) / math.sqrt(samples)), samples)

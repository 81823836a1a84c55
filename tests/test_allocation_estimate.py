"""The Monte Carlo estimate of random allocation (research.allocation_estimate): labelled, opt-in.

Truth: the exact t = 2 Gaussian epoch pair by mpmath quadrature (tests/oracles/random_allocation.py)
and, at t = 1 (no randomness in the allocation), the Gaussian closed form (oracles
gaussian_delta_mp). Fixed seeds: the statistical statements are checked on fixed draws, so the
tests are deterministic (a failure would be a 1 - confidence event for that seed, reproducible).
"""

import math

import mpmath as mp
import pytest
from oracles import gaussian_delta_mp
from oracles.allocation_directions import t2_directions
from oracles.random_allocation import gaussian_epoch_delta_t2

import dpcompose as dpc
from dpcompose.errors import InvalidParameterError
from dpcompose.research.allocation_estimate import (
    AllocationEstimate,
    allocation_delta_estimate,
    allocation_epsilon_estimate,
)

SAMPLES = 20_000


@pytest.fixture(autouse=True, scope="module")
def _mp_precision():
    with mp.workdps(20):
        yield


@pytest.mark.parametrize("seed", [0, 7])
@pytest.mark.parametrize("mu", [0.5, 1.0, 2.0])
def test_t2_exact_pair_lies_in_the_interval(mu, seed):
    for eps in (0.0, 0.5, 1.0):
        r = allocation_delta_estimate(1.0 / mu, 2, eps, samples=SAMPLES, seed=seed)
        exact = float(gaussian_epoch_delta_t2(mu, eps))
        assert r.delta_lower <= exact <= r.delta_upper, (mu, eps, r)
        assert r.delta_lower <= r.delta <= r.delta_upper


@pytest.mark.parametrize("mu", [0.5, 2.0, 3.0])
def test_t2_each_direction_lies_in_its_interval(mu):
    """Add and remove separately, against the exact t = 2 pair of each direction."""
    for eps in (0.0, 0.5, 1.5):
        r = allocation_delta_estimate(1.0 / mu, 2, eps, samples=SAMPLES, seed=5)
        for (_, lower, upper), exact in zip((r.add, r.remove), t2_directions(mu, eps)):
            assert lower <= float(exact) <= upper, (mu, eps, r)
        assert r.delta == max(r.add[0], r.remove[0]) and r.delta_upper == max(r.add[2], r.remove[2])


@pytest.mark.parametrize("eps", [0.0, 1.0])
def test_one_step_is_the_gaussian(eps):
    """t = 1: the allocation is deterministic and the pair is the Gaussian's (sensitivity 2, sigma 3)."""
    r = allocation_delta_estimate(3.0, 1, eps, sensitivity=2.0, samples=SAMPLES, seed=3)
    assert r.delta_lower <= float(gaussian_delta_mp(2.0 / 3.0, eps)) <= r.delta_upper


def test_epsilon_search_meets_its_target_on_the_exact_pair():
    """The t = 2 exact delta at the returned epsilon is at most the target (the upper limit holds)."""
    mu, target = 1.0, 0.01
    r = allocation_epsilon_estimate(1.0 / mu, 2, target, samples=SAMPLES, seed=11)
    assert r.target_delta == target and r.delta_upper <= target
    assert float(gaussian_epoch_delta_t2(mu, r.epsilon)) <= target
    assert r.epsilon_estimate is not None and r.epsilon_estimate <= r.epsilon
    # the same draws give the same answer as a delta query at that epsilon
    again = allocation_delta_estimate(1.0 / mu, 2, r.epsilon, samples=SAMPLES, seed=11)
    assert (again.delta, again.delta_upper) == (r.delta, r.delta_upper)


def test_estimate_is_below_the_certified_unamplified_bound():
    """DP-SGD-like: sigma 1, t = 100 steps, 2 epochs; un-amplified: one invocation per epoch."""
    certified = dpc.compose([(dpc.Gaussian(1.0), 2)]).epsilon(1e-3)
    r = allocation_epsilon_estimate(1.0, 100, 1e-3, epochs=2, samples=SAMPLES, seed=0)
    assert r.epsilon < certified / 2, (r, certified)
    amplified = dpc.compose([(dpc.RandomAllocation(dpc.Gaussian(1.0), steps=100), 2)]).epsilon(1e-3)
    assert r.epsilon_estimate <= amplified < certified  # the certified amplified bound is above the estimate


def test_labelled_never_a_guarantee():
    r = allocation_delta_estimate(1.0, 2, 1.0, samples=1000, seed=0)
    assert isinstance(r, AllocationEstimate) and not isinstance(r, dpc.Guarantee)
    assert "Monte Carlo estimate, not a certified bound" in repr(r)
    assert "not a certified bound" in (AllocationEstimate.__doc__ or "")
    for f in (allocation_delta_estimate, allocation_epsilon_estimate):
        assert "not a certified bound" in (f.__doc__ or "")
    with pytest.raises(AttributeError):
        r.delta = 0.0  # type: ignore[misc]


@pytest.mark.parametrize(
    ("kwargs", "name"),
    [
        ({"sigma": 0.0}, "sigma"),
        ({"sigma": -1.0}, "sigma"),
        ({"sigma": math.nan}, "sigma"),
        ({"steps": 0}, "steps"),
        ({"steps": 2.0}, "steps"),
        ({"epochs": 0}, "epochs"),
        ({"samples": 999}, "samples"),
        ({"seed": -1}, "seed"),
        ({"confidence": 1.0}, "confidence"),
        ({"confidence": 0.0}, "confidence"),
        ({"sensitivity": 0.0}, "sensitivity"),
    ],
)
def test_bad_input_is_refused_by_name(kwargs, name):
    args = {"sigma": 1.0, "steps": 2, "samples": 1000} | kwargs
    for query in ({"epsilon": 1.0}, {"delta": 1e-2}):
        f = allocation_delta_estimate if "epsilon" in query else allocation_epsilon_estimate
        with pytest.raises(InvalidParameterError, match=name):
            f(**args, **query)


@pytest.mark.parametrize("delta", [0.0, 1.0, -0.1, math.nan])
def test_delta_outside_the_open_unit_interval_is_refused(delta):
    with pytest.raises(InvalidParameterError, match="delta"):
        allocation_epsilon_estimate(1.0, 2, delta, samples=1000)


@pytest.mark.parametrize("eps", [-0.5, math.inf, math.nan])
def test_bad_epsilon_is_refused(eps):
    with pytest.raises(InvalidParameterError, match="epsilon"):
        allocation_delta_estimate(1.0, 2, eps, samples=1000)


def test_too_few_samples_for_the_target_delta_says_how_many():
    with pytest.raises(InvalidParameterError, match="raise samples"):
        allocation_epsilon_estimate(1.0, 2, 1e-6, samples=1000)


# ---------------------------------------------------------------------------
# the CLI command (interfaces/allocation_command.py), registered on a bare app here


def _cli():
    import functools

    import typer
    from rich.console import Console
    from typer.testing import CliRunner

    from dpcompose.errors import DPComposeError
    from dpcompose.interfaces import allocation_command

    # the CLI's own guard, number parser and console live in interfaces/cli (being split):
    # minimal stand-ins with the same contract (bad input -> exit 2 with the message)
    def _guard(fn):
        @functools.wraps(fn)
        def wrapper(*args, **kwargs):
            try:
                return fn(*args, **kwargs)
            except DPComposeError as exc:
                typer.echo(f"error: {exc}", err=True)
                raise typer.Exit(2) from None

        return wrapper

    def _number(option):
        return lambda text: float(text)

    def _console(stderr=False):
        return Console(stderr=stderr, width=200, color_system=None)

    app = typer.Typer()

    @app.callback()
    def _root() -> None:
        """dpcompose (test app)."""

    allocation_command.register(app, _guard, _number, _console)
    return lambda *args: CliRunner().invoke(app, ["allocation-estimate", *args])


def test_cli_json_equals_python_api_and_is_labelled():
    import json

    r = _cli()("--sigma", "1", "--steps", "10", "--epochs", "2", "--delta", "1e-2", "--samples", "5000", "--json")
    assert r.exit_code == 0, r.output
    d = json.loads(r.stdout)
    est = allocation_epsilon_estimate(1.0, 10, 1e-2, epochs=2, samples=5000, seed=0)
    assert d["kind"] == "Monte Carlo estimate, not a certified bound"
    assert (d["epsilon"], d["epsilon_estimate"], d["delta_upper"]) == (est.epsilon, est.epsilon_estimate,
                                                                      est.delta_upper)
    certified = dpc.compose([(dpc.RandomAllocation(dpc.Gaussian(1.0), steps=10), 2)]).epsilon(1e-2)
    assert d["certified_amplified"] == certified
    assert d["certified_unamplified"] == dpc.compose([(dpc.Gaussian(1.0), 2)]).epsilon(1e-2)
    assert d["certified_amplified"] < d["certified_unamplified"]


def test_cli_text_says_not_a_guarantee_and_refuses_bad_input():
    run = _cli()
    r = run("--sigma", "1", "--steps", "2", "--epsilon", "0.5", "--samples", "2000")
    assert r.exit_code == 0, r.output
    assert "not a certified bound" in r.stdout and "not a guarantee" in r.stdout
    bad = run("--sigma", "0", "--steps", "2", "--delta", "1e-2", "--samples", "2000")
    assert bad.exit_code == 2 and "sigma" in bad.output
    both = run("--sigma", "1", "--steps", "2", "--samples", "2000")
    assert both.exit_code == 2 and "--delta" in both.output


def test_the_dpcompose_cli_has_the_command_and_labels_it():
    from typer.testing import CliRunner

    from dpcompose.cli import app

    result = CliRunner().invoke(app, ["allocation-estimate", "--sigma", "1", "--steps", "4",
                                      "--delta", "1e-2", "--samples", "2000"])
    assert result.exit_code == 0, result.output
    assert "not a certified bound" in result.output and "certified upper bound, amplified" in result.output

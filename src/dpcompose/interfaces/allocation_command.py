"""CLI command ``allocation-estimate``: the Monte Carlo estimate of random allocation (not registered by itself).

``dpcompose allocation-estimate --sigma 1 --steps 1000 --epochs 5 --delta 1e-5`` prints the
labelled Monte Carlo estimate of :mod:`dpcompose.research.allocation_estimate` (point
estimate and upper confidence limit, never called a guarantee) beside dpcompose's certified
bounds for ``RandomAllocation(Gaussian(sigma), steps)``: the amplified one (``compose``'s
best method; Renyi DP certifies the balls-in-bins amplification,
:mod:`dpcompose.representations.random_allocation_rdp`) and the un-amplified one (one
Gaussian invocation per epoch); ``--epsilon`` asks for delta instead, ``--json`` prints JSON. Register it with
``register(app, _guard, _number, _console)`` as :mod:`dpcompose.interfaces.cli_fdp` is.
"""

from __future__ import annotations

import dataclasses
import json
from collections.abc import Callable
from typing import Any

import typer

__all__ = ["register"]

LABEL = "Monte Carlo estimate, not a certified bound"


def _certified(sigma: float, sensitivity: float, steps: int, epochs: int) -> tuple[Any, Any]:
    """(amplified, un-amplified) certified guarantees of ``epochs`` epochs."""
    from ..compose import compose
    from ..mechanisms import Gaussian, RandomAllocation

    step = Gaussian(sigma, sensitivity=sensitivity)
    return compose([(RandomAllocation(step, steps=steps), epochs)]), compose([(step, epochs)])


def register(app: typer.Typer, guard: Callable, number: Callable, console: Callable) -> None:
    """Add ``allocation-estimate`` to ``app`` (``guard``: the CLI's error mapping; ``number``: its float parser)."""

    @app.command("allocation-estimate")
    @guard
    def allocation_estimate_command(
        sigma: float = typer.Option(..., "--sigma", parser=number("--sigma"), metavar="FLOAT",
                                    help="Gaussian noise standard deviation of each step."),
        steps: int = typer.Option(..., "--steps", help="Steps per epoch (each record in exactly one)."),
        epochs: int = typer.Option(1, "--epochs", help="Epochs (independent allocations)."),
        delta: float | None = typer.Option(None, "--delta", parser=number("--delta"), metavar="FLOAT",
                                              help="Target delta: estimate epsilon."),
        epsilon: float | None = typer.Option(None, "--epsilon", parser=number("--epsilon"), metavar="FLOAT",
                                                help="Estimate delta at this epsilon instead."),
        sensitivity: float = typer.Option(1.0, "--sensitivity", parser=number("--sensitivity"), metavar="FLOAT",
                                          help="L2 sensitivity of each step's sum (the clipping norm)."),
        samples: int = typer.Option(1_000_000, "--samples", help="Draws per direction (about 1/delta needed)."),
        seed: int = typer.Option(0, "--seed", help="Seed of the draws (the result is reproducible)."),
        confidence: float = typer.Option(0.95, "--confidence", parser=number("--confidence"), metavar="FLOAT",
                                         help="Probability that the interval holds, in (0, 1)."),
        as_json: bool = typer.Option(False, "--json", help="Print JSON."),
    ) -> None:
        """Random allocation (balls-in-bins) of a Gaussian: a Monte Carlo estimate, NOT a certified bound.

        Example: dpcompose allocation-estimate --sigma 1 --steps 1000 --epochs 5 --delta 1e-5
        """
        from ..errors import InvalidParameterError
        from ..research import allocation_estimate as ae

        if (delta is None) == (epsilon is None):
            raise InvalidParameterError("give exactly one of --delta (estimate epsilon) and --epsilon "
                                        "(estimate delta), e.g. --delta 1e-5.")
        if delta is not None:
            est = ae.allocation_epsilon_estimate(sigma, steps, delta, epochs=epochs, sensitivity=sensitivity,
                                                 samples=samples, seed=seed, confidence=confidence)
            amplified, unamplified = (g.epsilon(delta) for g in _certified(est.sigma, est.sensitivity, est.steps,
                                                                           est.epochs))
        elif epsilon is not None:
            est = ae.allocation_delta_estimate(sigma, steps, epsilon, epochs=epochs, sensitivity=sensitivity,
                                               samples=samples, seed=seed, confidence=confidence)
            amplified, unamplified = (g.delta(est.epsilon) for g in _certified(est.sigma, est.sensitivity,
                                                                               est.steps, est.epochs))
        if as_json:
            typer.echo(json.dumps({"kind": LABEL, **dataclasses.asdict(est), "certified_amplified": amplified,
                                   "certified_unamplified": unamplified}, indent=2))
            return
        out = console()
        out.print(f"random allocation of Gaussian(sigma={est.sigma:g}, sensitivity={est.sensitivity:g}): "
                  f"{est.steps} steps per epoch, {est.epochs} epochs, each record in one step per epoch",
                  markup=False)
        out.print(f"{LABEL} ({est.samples} draws per direction, seed {est.seed}):", markup=False)
        if est.target_delta is not None:
            out.print(f"  ε ≈ {est.epsilon_estimate:.6g}  (point estimate) at δ = {est.target_delta:g}", markup=False)
            out.print(f"  ε ≤ {est.epsilon:.6g}  with confidence {est.confidence:g} (an estimate, not a guarantee)",
                      markup=False)
            name = "ε"
        else:
            out.print(f"  δ ≈ {est.delta:.6g} at ε = {est.epsilon:g}; {est.confidence:g} interval "
                      f"[{est.delta_lower:.6g}, {est.delta_upper:.6g}] (an estimate, not a guarantee)", markup=False)
            name = "δ"
        out.print(f"certified upper bound, amplified (Renyi DP, balls-in-bins): {name} ≤ {amplified:.6g}",
                  markup=False)
        out.print(f"certified upper bound, un-amplified (one step per epoch): {name} ≤ {unamplified:.6g}",
                  markup=False)

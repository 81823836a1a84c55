"""Build, validate and report a plan from Python (the same pipeline as `dpcompose report`).

Run: python examples/release_plan.py [OUTPUT.svg]

Prints the compact table; with OUTPUT it also writes the plot and, beside it, the review
document (OUTPUT with the suffix .md) that shows the plot.
"""

from __future__ import annotations

import sys
from pathlib import Path

from rich.console import Console

from dpcompose.plan import parse_plan
from dpcompose.report import build_report, fmt_upper, render_table, to_markdown, write_plot

PLAN = """
title = "Quarterly release: 4 x 25 Laplace counts and one DP-SGD model"

[[invocations]]
label = "counts"
mechanism = "laplace(scale=50)"
count = 100

[[invocations]]
label = "model"
mechanism = "gaussian(sigma=1.1) @ poisson(0.01) x 1000"

[targets]
deltas = [1e-6]
epsilons = [2.0]
"""


def main(argv: list[str]) -> int:
    plan = parse_plan(PLAN, source="examples/release_plan.py")
    report = build_report(plan)
    render_table(report, Console(width=80, highlight=False))
    best = report.best("epsilon", 1e-6)
    if best is not None:
        print(f"tightest certified epsilon at delta = 1e-6: {fmt_upper(best.upper)} ({best.method})")
    if len(argv) > 1:
        plot = write_plot(report, argv[1])
        doc = Path(argv[1]).with_suffix(".md")
        doc.write_text(to_markdown(report, plot=plot.name), encoding="utf-8")
        print(f"plot written to {plot}\nreview document written to {doc}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv))

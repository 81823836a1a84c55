"""The demo's cold start (issue 14, "the demo under 2 s"): what it loads and how it draws.

No timings here (speed belongs in ``benchmarks/bench_cold_start.py --only demo``): these
tests check which modules a fresh interpreter loads and what the figure contains, which is
deterministic.
"""

from __future__ import annotations

import subprocess
import sys


def _loaded_after(code: str) -> set[str]:
    probe = f"{code}\nimport sys\nprint(' '.join(sorted(m for m in sys.modules)))"
    out = subprocess.run([sys.executable, "-c", probe], check=True, capture_output=True, text=True)
    return set(out.stdout.split())


def test_hospitals_report_loads_no_scipy():
    """The demo's third part (hdp on 1000 Laplace hospitals) needs no SciPy: the hypotheses
    package imports ``logsumexp`` lazily (it costs 0.4 s to import ``scipy.special``)."""
    code = ("from dpcompose.interfaces import report as R\n"
            "from dpcompose.interfaces.plan import bundled_plan\n"
            "rep = R.build_report(bundled_plan('hospitals'))\n"
            "assert rep.rows")
    assert {m for m in _loaded_after(code) if m.split(".")[0] == "scipy"} == set()

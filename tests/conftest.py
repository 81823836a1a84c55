"""Shared test configuration: a deterministic hypothesis profile by default, and ``--runslow``.

The README's test command is deterministic (the ``ci`` profile: derandomized examples), so
it passes or fails the same way on every run; ``HYPOTHESIS_PROFILE=dev`` draws fresh random
examples on each run for local exploration.

``--runslow`` also runs the long randomized suites (tests marked ``long``, e.g. the long
run of tests/test_never_under_report.py); tests marked ``slow`` run by default as before.
"""

import os

from hypothesis import HealthCheck, settings

settings.register_profile(
    "ci",
    derandomize=True,
    max_examples=60,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow],
    print_blob=True,
)
settings.register_profile("dev", max_examples=60, deadline=None,
                          suppress_health_check=[HealthCheck.too_slow])
settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE", "ci"))


def pytest_addoption(parser):
    parser.addoption("--runslow", action="store_true", default=False,
                     help="also run the long randomized suites (tests marked long)")

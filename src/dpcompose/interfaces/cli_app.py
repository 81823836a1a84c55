"""The assembled ``dpcompose`` application: the commands in their help order (report, schema,
methods, mechanisms from ``cli_report``; epsilon, delta, calibrate from ``cli_query``; dpsgd,
demo from ``cli_demo``), then the f-DP commands, the ledger group and allocation-estimate.
"""

from __future__ import annotations

# importing a module registers its commands: this order is the order of ``dpcompose --help``
from . import cli_report  # noqa: F401  # isort: skip
from . import cli_query  # noqa: F401  # isort: skip
from . import cli_demo  # noqa: F401  # isort: skip
from .cli import _console
from .cli_common import _guard, _number, app

# ---------------------------------------------------------------------------
# ledger: the group (dpcompose.ledger.cli) imports only typer; the store, its database
# drivers and the web service load when a ledger command runs


def _add_ledger() -> None:
    from ..ledger.cli import app as ledger_app

    app.add_typer(ledger_app, name="ledger")


_add_ledger()


def _add_fdp() -> None:
    """tradeoff, audit and calibrate-risk (dpcompose.cli_fdp)."""
    from .cli_fdp import register

    register(app, _guard, _number, _console)


_add_fdp()


def _add_allocation_estimate() -> None:
    """allocation-estimate (interfaces/allocation_command.py): a labelled Monte Carlo estimate,
    never a guarantee; the research module it calls loads only when the command runs."""
    from .allocation_command import register

    register(app, _guard, _number, _console)


_add_allocation_estimate()

"""``python -m dpcompose``: the command line (see :mod:`dpcompose.cli`)."""

from .cli import main

main()

"""Moved to :mod:`dpcompose.interfaces.report` (issue 15); this old path stays an alias of that module.

``import dpcompose.report`` gives the very same module object (so attributes, monkeypatching
and ``isinstance`` checks agree), not a copy.
"""

import sys as _sys

from .interfaces import report as _moved

# its submodules too (the package imports them all), so dpcompose.report.model is the same module
for _sub in ("model", "records", "rows", "constrained", "plot", "render"):
    _sys.modules[f"{__name__}.{_sub}"] = getattr(_moved, _sub)

_sys.modules[__name__] = _moved

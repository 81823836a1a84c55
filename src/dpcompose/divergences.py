"""Moved to :mod:`dpcompose.research.divergences` (issue 15); this old path stays an alias of that module.

``import dpcompose.divergences`` gives the very same module object (so attributes, monkeypatching
and ``isinstance`` checks agree), not a copy.
"""

import sys as _sys

from .research import divergences as _moved

# its submodules too (the package imports them all), so dpcompose.divergences.renyi is the same module
for _sub in ("validation", "renyi", "max_divergence", "hockey_stick", "loss", "claims", "mechanisms",
             "kl_bounds"):
    _sys.modules[f"{__name__}.{_sub}"] = getattr(_moved, _sub)

_sys.modules[__name__] = _moved

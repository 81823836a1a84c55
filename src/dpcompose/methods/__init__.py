"""Composition methods: one module (or package) per family of theorems, and their registry.

:data:`METHOD_MODULES` is the one list of method modules, in the order ``method="auto"``
tries them; :mod:`.registry` imports them on first use (``import dpcompose`` does not).
A new method is a module here that decorates its entry point with
:func:`~dpcompose.methods.registry.register_method`, plus one entry in this list and one
per method name in :data:`METHOD_NAMES`.
"""

from __future__ import annotations

__all__ = ["METHOD_MODULES", "METHOD_NAMES"]

#: modules whose import registers methods, in the order auto tries them
METHOD_MODULES: tuple[str, ...] = ("theorems", "optimal", "pld", "rdp")
#: the module that registers each method: ``compose(..., method=name)`` imports only that
#: one (``method="auto"`` and the listings import them all; cold start, issue 14).
#: ``tests/test_registry.py`` checks it against the registrations.
METHOD_NAMES: dict[str, str] = {
    "simple": "theorems", "advanced": "theorems", "stability": "theorems", "tail_independent": "theorems",
    "tail_adaptive": "theorems", "optimal": "optimal", "pld": "pld", "rdp": "rdp",
}

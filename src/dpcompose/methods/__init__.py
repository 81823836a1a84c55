"""Composition methods: one module (or package) per family of theorems, and their registry.

:data:`METHOD_MODULES` is the one list of method modules, in the order ``method="auto"``
tries them; :mod:`.registry` imports them on first use (``import dpcompose`` does not).
A new method is a module here that decorates its entry point with
:func:`~dpcompose.methods.registry.register_method`, plus one entry in this list.
"""

from __future__ import annotations

__all__ = ["METHOD_MODULES"]

#: modules whose import registers methods, in the order auto tries them
METHOD_MODULES: tuple[str, ...] = ("theorems", "optimal", "pld", "rdp")

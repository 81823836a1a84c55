"""The exceptions dpcompose raises.

Every error names the parameter, the value, the valid range and a remedy. Domain
errors form a small hierarchy so callers can catch exactly what they expect:

- :class:`InvalidParameterError` (also a ``ValueError``): a bad number or object was
  passed in (NaN, negative scale, delta >= 1, a rate outside (0, 1], ...).
- :class:`MethodNotApplicableError` (also a ``ValueError``): a composition method was
  asked for on input it cannot certify (e.g. ``"advanced"`` on a Gaussian-only list
  that has no pure-DP description).
- :class:`UnsupportedMechanismError` (also a ``TypeError``): an object that is not a
  dpcompose mechanism, or a mechanism a representation has no rule for.
- :class:`CalibrationError` (also a ``RuntimeError``): no parameter in the searched
  range meets the target.
- :class:`NoRuleError`: a representation (a rule of :mod:`dpcompose.representations`,
  e.g. the dominating pair or the Renyi curve) is not registered for a mechanism. It is
  both a :class:`MethodNotApplicableError` (a method that needs the rule refuses, and
  ``method="auto"`` moves on) and an :class:`UnsupportedMechanismError`.
"""

from __future__ import annotations

__all__ = [
    "DPComposeError",
    "InvalidParameterError",
    "MethodNotApplicableError",
    "UnsupportedMechanismError",
    "CalibrationError",
    "NoRuleError",
]


class DPComposeError(Exception):
    """Base class of every error dpcompose raises on purpose."""


class InvalidParameterError(DPComposeError, ValueError):
    """A parameter is outside its valid range."""


class MethodNotApplicableError(DPComposeError, ValueError):
    """A composition method cannot certify a guarantee for this input."""


class UnsupportedMechanismError(DPComposeError, TypeError):
    """An object is not a mechanism this part of dpcompose knows how to handle."""


class CalibrationError(DPComposeError, RuntimeError):
    """Calibration found no parameter in the searched range that meets the target."""


class NoRuleError(MethodNotApplicableError, UnsupportedMechanismError):
    """A mechanism has no registered rule for a representation (see :mod:`dpcompose.representations`).

    Attributes:
        rule: the representation asked for (e.g. ``"dominating_pair"``).
        mechanism: the mechanism it was asked for.
    """

    def __init__(self, message: str, *, rule: str = "", mechanism: object = None) -> None:
        super().__init__(message)
        self.rule = rule
        self.mechanism = mechanism

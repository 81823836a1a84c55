"""The grouped input every method receives: ``((mechanism, count), ...)``.

:func:`normalize` turns a list of mechanisms and ``(mechanism, count)`` pairs into it
(public as :func:`dpcompose.compose.normalize`); it sits below the methods so that they
can group input of their own without importing the front door.
"""

from __future__ import annotations

import itertools
from typing import Any, Iterable

from ._validation import check_count
from .errors import UnsupportedMechanismError
from .mechanisms import Mechanism

__all__ = ["Groups", "normalize", "normalize_one"]

Groups = tuple[tuple[Mechanism, int], ...]


def normalize(mechanisms: Iterable[Any]) -> Groups:
    """Group a list of mechanisms and ``(mechanism, count)`` pairs into ``((m, k), ...)``.

    Equal mechanisms are merged (first-seen order kept); zero counts are dropped; a mechanism
    whose :meth:`~dpcompose.mechanisms.Mechanism.composition` is not None is replaced by it.
    Raises :class:`InvalidParameterError` / :class:`UnsupportedMechanismError` with the
    position of the bad item.
    """
    if isinstance(mechanisms, Mechanism):
        mechanisms = [mechanisms]
    counts: dict[Mechanism, int] = {}
    pos = 0
    # runs of one object (``[m] * k``) are taken whole: grouped by identity at C speed,
    # validated and hashed once per run
    for _, run in itertools.groupby(mechanisms, key=id):
        item = next(run)
        i, size = pos, 1 + len(list(run))
        pos += size
        if isinstance(item, Mechanism):
            m, k = item, size
        elif isinstance(item, tuple) and len(item) == 2 and isinstance(item[0], Mechanism):
            m, c = item
            # a plain int count is valid as it is (check_count's message is built only where needed)
            k = (c if type(c) is int and c >= 0 else check_count(f"mechanisms[{i}] count", c)) * size
        else:
            raise UnsupportedMechanismError(
                f"mechanisms[{i}] = {item!r} is neither a dpcompose mechanism nor a "
                f"(mechanism, count) pair; e.g. dpc.Laplace(scale=20.0) or (dpc.Gaussian(1.1), 1000)."
            )
        # a mechanism that stands for a proven composition (BandedMF) is recorded as that composition
        for part, j in m.composition() or ((m, 1),):
            if k and j:
                counts[part] = counts.get(part, 0) + k * j
    return tuple(counts.items())


def normalize_one(item: Any) -> Groups | None:
    """``normalize([item])`` for one plain item, without its per-call work; None where it
    does not say (anything else: call :func:`normalize`, which also names the error).

    Plain: a mechanism, or a ``(mechanism, count)`` tuple with an ``int`` count >= 1, whose
    mechanism stands for itself (:meth:`~dpcompose.mechanisms.Mechanism.composition` is None).
    A release of 10,000 databases groups each database's one item this way
    (``tests/test_groups_fast.py`` checks it equals :func:`normalize`).
    """
    if isinstance(item, Mechanism):
        m, k = item, 1
    elif type(item) is tuple and len(item) == 2 and isinstance(item[0], Mechanism) \
            and type(item[1]) is int and item[1] >= 1:
        m, k = item
    else:
        return None
    return ((m, k),) if m.composition() is None else None

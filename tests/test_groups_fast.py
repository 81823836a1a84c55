"""``normalize_one`` (one plain item grouped without ``normalize``'s per-call work) gives what
``normalize`` gives, and ``Release`` groups each database as ``normalize`` does (issue 14:
the demo's hospitals are ``(mechanism, count)`` items, one per database)."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

import dpcompose as dpc
from dpcompose._groups import normalize_one
from dpcompose.compose import normalize
from dpcompose.errors import DPComposeError
from dpcompose.hypotheses.release import Release

MECHS = [dpc.Laplace(1.0), dpc.Laplace(2.0), dpc.Laplace(scale=1.0, sensitivity=1.0), dpc.PureDP(0.1),
         dpc.Gaussian(1.1), dpc.ApproxDP(0.05, 1e-8),
         dpc.BandedMF(noise_multiplier=1.0, steps=8, bands=2, sampling_probability=0.1),
         dpc.BandedMF(noise_multiplier=2.0, steps=4, bands=4, sampling_probability=1.0)]
COUNTS = [0, 1, 2, 7, 10**6, -1, True, False, 2.0, np.int64(3), np.int64(0), "3", None]

mechanisms = st.sampled_from(MECHS)
items = st.one_of(
    mechanisms,
    st.tuples(mechanisms, st.sampled_from(COUNTS)),
    st.builds(lambda m, k: [m, k], mechanisms, st.sampled_from(COUNTS)),   # a list, not a pair
    st.tuples(mechanisms),
    st.tuples(mechanisms, st.sampled_from(COUNTS), st.just(1)),
    st.sampled_from(["laplace", 3, None, (3, 1), ("x", 2)]),
)


def _normalized(item):
    try:
        return normalize([item])
    except (DPComposeError, TypeError) as exc:
        return type(exc)


@given(items)
def test_normalize_one_equals_normalize(item):
    fast = normalize_one(item)
    if fast is not None:
        assert fast == _normalized(item)


@pytest.mark.parametrize("m", MECHS)
@pytest.mark.parametrize("k", [1, 2, 365, 10**9])
def test_normalize_one_takes_plain_items(m, k):
    """The fast path is taken for every plain item (and left to normalize for a mechanism
    that stands for a composition, whose groups normalize expands)."""
    for item in (m, (m, k)) if k == 1 else ((m, k),):
        fast = normalize_one(item)
        if m.composition() is None:
            assert fast == normalize([item]) == ((m, k),)
        else:
            assert fast is None and normalize([item]) != ((m, k),)


@given(st.lists(st.tuples(items, st.integers(0, 5)), max_size=12))
def test_release_groups_each_database_as_normalize_does(pairs):
    mechs = [p[0] for p in pairs]
    dbs = [p[1] for p in pairs]
    per = [[m for m, d in zip(mechs, dbs) if d == j] for j in range(max(dbs, default=-1) + 1)]
    try:
        expected = tuple(normalize(p) for p in per)
    except (DPComposeError, TypeError):
        # the first bad item in input order is named, with its own error
        bad = next(i for i, m in enumerate(mechs) if not isinstance(_normalized(m), tuple))
        with pytest.raises(_normalized(mechs[bad]), match=rf"^mechanisms\[{bad}\]: "):
            Release(mechs, dbs)
        return
    r = Release(mechs, dbs)
    assert r.items == expected and r.n == len(per)


def test_release_of_one_item_per_database():
    """The hospitals shape: 1000 databases, one (mechanism, count) item each (equal mechanisms
    are equal groups, so the inner compositions share their cache entries)."""
    hospitals = [(dpc.Laplace(scale=100.0), 1)] * 999 + [(dpc.Laplace(scale=50.0), 3)]
    r = Release(hospitals)
    assert r.items == tuple(normalize([h]) for h in hospitals)
    assert r.groups_for([0, 1, 999]) == ((dpc.Laplace(scale=100.0), 2), (dpc.Laplace(scale=50.0), 3))


def _grouped_by_hand(items):
    """Equal mechanisms merged in first-seen order by a linear scan; zero counts dropped; a
    mechanism with a composition replaced by it (None: some item is not valid)."""
    out: list[list] = []
    for item in items:
        if isinstance(item, dpc.Mechanism):
            m, k = item, 1
        elif (isinstance(item, tuple) and len(item) == 2 and isinstance(item[0], dpc.Mechanism)
              and not isinstance(item[1], bool) and isinstance(item[1], (int, np.integer)) and item[1] >= 0):
            m, k = item[0], int(item[1])
        else:
            return None
        for part, j in m.composition() or ((m, 1),):
            if k * j:
                for entry in out:
                    if entry[0] == part:
                        entry[1] += k * j
                        break
                else:
                    out.append([part, k * j])
    return tuple((m, k) for m, k in out)


@given(st.lists(st.one_of(items, st.just(MECHS[0]), st.just((MECHS[0], 2))), max_size=30))
def test_normalize_groups_as_by_hand(items_list):
    expected = _grouped_by_hand(items_list)
    got = _normalized_list(items_list)
    if expected is None:
        assert not isinstance(got, tuple)
    else:
        assert got == expected and [type(k) for _, k in got] == [int] * len(got)


def _normalized_list(items_list):
    try:
        return normalize(items_list)
    except (DPComposeError, TypeError) as exc:
        return type(exc)


@pytest.mark.parametrize("method", ["simple", "rdp", "optimal", "pld"])
def test_report_grouped_input_composes_as_the_list(method):
    """A report groups a plan's invocations once (``rows.grouped``) before every method's
    ``compose``: the same guarantee and provenance as composing the list."""
    from dpcompose.interfaces.report.rows import grouped

    mechs = [(dpc.Laplace(scale=100.0), 1)] * 5 + [(dpc.Laplace(scale=100.0), 2), (dpc.PureDP(0.1), 3),
                                                   (dpc.Laplace(scale=100.0), 1)]
    assert grouped(mechs) == ((dpc.Laplace(scale=100.0), 8), (dpc.PureDP(0.1), 3))
    # a mechanism that stands for a composition (expanded by normalize; p = 1: a Gaussian)
    bmf = [dpc.BandedMF(noise_multiplier=2.0, steps=4, bands=4, sampling_probability=1.0), dpc.Gaussian(2.0)]
    for items in (mechs, bmf):
        a, b = _composed(items, method), _composed(grouped(items), method)
        assert a == b


def _composed(items, method):
    """What composing ``items`` gives: the numbers and provenance, or the error."""
    try:
        g = dpc.compose(items, method=method)
    except DPComposeError as exc:
        return type(exc), str(exc)
    return g.epsilon(1e-6), g.delta(1.0), g.provenance

"""The upper grid's joint error bound (issue 14, hdp06): ``err + inf_err`` covers the finite
entries and the atom at +inf together, so a high tail cut (which moves computed entries, errors
included, to the atom) adds nothing to it; an FFT result's noisy far ends are trimmed into
``err``; batched singles' ``fin`` bounds their mass.

Truth: the same chain of compositions replayed in exact rational arithmetic (``fractions``) on
the same double inputs, with the computed grids' tail cuts (the reference the error terms refer
to, :mod:`dpcompose.methods.pld.grid`); the l1 distance of the whole extended measure must be at
most ``err + inf_err``. Then end to end against the truth oracle (``tests/oracles/truth.py``),
and exact rational sums for ``fin``.
"""

from __future__ import annotations

import contextlib
from fractions import Fraction

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import dpcompose as dpc
from dpcompose.methods.pld import grid as grid_mod
from dpcompose.methods.pld.grid import GridPLD, compose_pair, self_compose

from oracles.truth import truth


class _Exact:
    """An exact extended measure: Fractions on [start, start + len) plus an atom at +inf."""

    def __init__(self, start: int, p: list[Fraction], inf: Fraction) -> None:
        self.start, self.p, self.inf = start, p, inf

    @classmethod
    def of(cls, g: GridPLD) -> "_Exact":
        return cls(g.start, [Fraction(float(x)) for x in g.p], Fraction(g.inf))

    def compose(self, other: "_Exact") -> "_Exact":
        out = [Fraction(0)] * (len(self.p) + len(other.p) - 1)
        for i, x in enumerate(self.p):
            if x:
                for j, y in enumerate(other.p):
                    out[i + j] += x * y
        fa, fb = sum(self.p), sum(other.p)
        inf = self.inf * fb + other.inf * fa + self.inf * other.inf
        return _Exact(self.start + other.start, out, inf)

    def cut_like(self, g: GridPLD) -> "_Exact":
        """The computed grid's window: the low tail moved onto its first entry, the high one to +inf."""
        lo, hi = g.start - self.start, g.start - self.start + g.p.size
        assert 0 <= lo <= hi <= len(self.p)
        kept = self.p[lo:hi]
        if kept:
            kept = [kept[0] + sum(self.p[:lo])] + kept[1:]
        return _Exact(g.start, kept, self.inf + sum(self.p[hi:]))

    def distance(self, g: GridPLD) -> Fraction:
        assert g.start == self.start and g.p.size == len(self.p)
        d = sum(abs(Fraction(float(x)) - y) for x, y in zip(g.p, self.p))
        return d + abs(Fraction(g.inf) - self.inf)


@contextlib.contextmanager
def _every_pair_through_the_fft():
    """compose_pair takes the FFT for every pair (its round-off is what these tests bound)."""
    old = grid_mod._DIRECT_MAX
    grid_mod._DIRECT_MAX = 0
    try:
        yield
    finally:
        grid_mod._DIRECT_MAX = old


def _laplace_like(rng: np.random.Generator, n: int) -> GridPLD:
    """An upper grid with a heavy low atom and a bump whose tails fall to ~1e-16 (FFT noise is
    large against them, and a tail cut moves noisy entries to +inf)."""
    x = np.linspace(-6.0, 6.0, n - 1)
    bump = rng.uniform(0.5, 1.5, n - 1) * np.exp(-x * x / 2)
    p = np.concatenate([[0.3], bump / bump.sum() * 0.7])
    return GridPLD("upper", 0.01, -(n // 2), p)


@settings(max_examples=12, deadline=None)
@given(st.lists(st.integers(33, 60), min_size=3, max_size=5), st.integers(0, 2 ** 32 - 1),
       st.sampled_from([0.0, 1e-14, 1e-10, 1e-6]))
def test_fft_chain_error_terms_bound_the_exact_chain(sizes, seed, tau):
    """Pairwise FFT compositions with tail cuts: |computed - exact| <= err + inf_err, jointly."""
    rng = np.random.default_rng(seed)
    grids = [_laplace_like(rng, n) for n in sizes]
    with _every_pair_through_the_fft():
        g, ref = grids[0], _Exact.of(grids[0])
        for other in grids[1:]:
            g = compose_pair(g, other, tau)
            ref = ref.compose(_Exact.of(other)).cut_like(g)
            assert ref.distance(g) <= Fraction(g.err) + Fraction(g.inf_err)


def test_a_cut_high_tail_adds_nothing_to_inf_err():
    """The cut moves mass to +inf; the bound is still err + inf_err (checked exactly above)."""
    rng = np.random.default_rng(7)
    a, b = _laplace_like(rng, 200), _laplace_like(rng, 300)
    with _every_pair_through_the_fft():
        c = compose_pair(a, b, 1e-8)
    assert c.inf > 0.0 and c.err > 0.0
    assert c.inf_err <= 1e-12 * c.inf  # only the atom's own rounding
    ref = _Exact.of(a).compose(_Exact.of(b)).cut_like(c)
    assert ref.distance(c) <= Fraction(c.err) + Fraction(c.inf_err)


def test_self_compose_of_a_grid_with_errors_on_both_parts():
    """k-fold power of a grid with err and inf: the joint bound (|C| + e)^k - |C|^k holds."""
    rng = np.random.default_rng(3)
    a, b = _laplace_like(rng, 40), _laplace_like(rng, 45)
    with _every_pair_through_the_fft():
        c = compose_pair(a, b, 1e-6)
    assert c.inf > 0.0 and c.err > 0.0
    k = 3
    pw = self_compose(c, k, 0.0, 1 << 16)
    ref = _Exact.of(a).compose(_Exact.of(b)).cut_like(c)
    exact = ref
    for _ in range(k - 1):
        exact = exact.compose(ref)
    assert pw.start == exact.start and pw.p.size == len(exact.p)
    assert exact.distance(pw) <= Fraction(pw.err) + Fraction(pw.inf_err)


@pytest.mark.parametrize("scales", [[2.0, 3.0, 5.0, 7.0] * 3, [1.5, 4.0] * 4])
def test_pld_laplace_lists_through_the_fft_stay_above_the_truth(scales, monkeypatch):
    """End to end, every pair through the FFT with tail cuts: pld's epsilon and delta stay at or
    above the truth's lower end (tests/oracles/truth.py, an independent grid in mpmath)."""
    monkeypatch.setattr(grid_mod, "_DIRECT_MAX", 0)
    mechs = [dpc.Laplace(s) for s in scales]
    g = dpc.compose(mechs, method="pld")
    t = truth(mechs)
    for delta in (1e-3, 1e-6, 1e-9):
        lo, _ = t.epsilon_bounds(delta)
        assert g.epsilon(delta) >= float(lo) * (1 - 1e-12)
    for e in (0.5, 2.0, 4.0):
        lo, _ = t.delta_bounds(e)
        assert g.delta(e) >= float(lo) * (1 - 1e-12)


@settings(max_examples=60, deadline=None)
@given(st.lists(st.floats(0.0, 1.0), min_size=0, max_size=3000), st.integers(-60, 0))
def test_mass_upper_is_above_the_exact_sum(xs, exp2):
    """grid.mass_upper >= the exact rational sum of the doubles (and within a relative 1e-12)."""
    p = np.asarray(xs, dtype=float) * 2.0 ** exp2
    exact = sum((Fraction(float(x)) for x in p), Fraction(0))
    up = grid_mod.mass_upper(p)
    assert Fraction(up) >= exact
    assert up <= float(exact) * (1 + 1e-12) + 1e-300


def test_batched_laplace_singles_bound_their_mass():
    """The batched Laplace singles' fin (mass_upper) is above the exact sum of their masses."""
    from dpcompose.methods.pld.composition import PLDAccountant

    mechs = [dpc.Laplace(s) for s in (5.0, 7.0, 11.0, 13.0)]
    acc = PLDAccountant([(m, 1) for m in mechs], h0=1e-3, tolerance=1e-4, tail_mass=1e-14,
                        max_points=1 << 20)
    for m in mechs:
        g = acc._singles[(m, "remove", "upper", 1e-3, 1)]
        assert Fraction(g.fin) >= sum((Fraction(float(x)) for x in g.p), Fraction(0))


def test_fft_noise_at_the_ends_is_trimmed_into_err():
    """An FFT result's far tails (round-off, ~1e-21 per entry) are dropped, their sum added to err:
    the array is shorter than the full convolution with no tail cut (tau = 0), and the exact
    replay is still within err + inf_err."""
    rng = np.random.default_rng(1)
    grids = [_laplace_like(rng, n) for n in (120, 150, 170, 130)]
    with _every_pair_through_the_fft():
        g, ref = grids[0], _Exact.of(grids[0])
        for other in grids[1:]:
            full = g.p.size + other.p.size - 1
            g = compose_pair(g, other, 0.0)
            assert g.p.size < full and g.inf == 0.0
            ref = ref.compose(_Exact.of(other)).cut_like(g)
            assert ref.distance(g) <= Fraction(g.err) + Fraction(g.inf_err)


@settings(max_examples=30, deadline=None)
@given(st.integers(min_value=2, max_value=4000), st.integers(min_value=2, max_value=60),
       st.sampled_from([1e-3, 1e-9, 1e-15]), st.integers(min_value=0, max_value=2**31))
def test_self_compose_atom_is_above_the_exact_power_of_the_exact_mass(n, k, atom, seed):
    """The atom at +inf of C^k is (|C| + inf)^k - |C|^k with |C| the *exact* finite mass; the
    code's sum of the entries (numpy, n u) may be low, so the atom is taken from the sum raised
    by its rounding bound: never below the exact value (Fractions), upper kind."""
    rng = np.random.default_rng(seed)
    p = rng.uniform(0.0, 1.0, n)
    p *= (1.0 - atom) / p.sum()
    g = GridPLD("upper", 0.01, 0, p, inf=atom)
    out = self_compose(g, k, 1e-30, 2**22)
    fa = sum(Fraction(float(x)) for x in p)
    exact_atom = (fa + Fraction(atom)) ** k - fa ** k
    assert Fraction(out.inf) + Fraction(out.inf_err) >= exact_atom

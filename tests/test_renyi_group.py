"""The Renyi group rule (representations/renyi_group.py) against independent truth.

- Gaussian: the exact group curve is g^2 alpha / (2 sigma^2) (the Gaussian with sensitivity
  g); the rule, fed only the one-record curve, must be above it and close to it.
- Poisson-subsampled Gaussian: g records, each sampled independently with probability q,
  each adding 1 to a one-dimensional sum with N(0, sigma^2) noise, give the pair
  P = N(0, sigma^2), Q = sum_j Binom(g, q)_j N(j, sigma^2): a database pair that differs in
  g records, so its Renyi divergences (mpmath quadrature, both directions:
  tests/oracles/sampled_group.py) are LOWER bounds
  of the true group curve; the rule must be above them.
"""

from __future__ import annotations

import math

import mpmath as mp
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from dpcompose.representations.renyi_group import group_renyi_curve
from oracles.sampled_group import renyi_divergences

ORDERS = np.array([1.01, 1.1, 1.5, 2.0, 3.0, 4.0, 8.0, 16.0, 32.0, 64.0, 256.0])


@pytest.fixture(scope="module", autouse=True)
def _precision():
    with mp.workdps(20):
        yield


def _gaussian(sigma: float):
    return lambda orders: np.asarray(orders, dtype=float) / (2.0 * sigma * sigma)


@pytest.mark.parametrize("size", [1, 2, 3, 5, 8, 16])
def test_gaussian_group_curve_is_above_the_exact_and_within_three_percent(size):
    sigma = 3.0
    exact = size * size * ORDERS / (2.0 * sigma * sigma)
    got = group_renyi_curve(_gaussian(sigma), size, ORDERS)
    assert np.all(got >= exact), (got, exact)
    assert np.all(got <= 1.03 * exact), got / exact  # the grid's spacing; measured <= 2.2%


@settings(max_examples=15)
@given(sigma=st.floats(0.3, 50.0), size=st.integers(2, 12))
def test_gaussian_group_law_for_any_sigma(sigma, size):
    orders = np.array([1.5, 2.0, 8.0, 32.0])
    exact = size * size * orders / (2.0 * sigma * sigma)
    got = group_renyi_curve(_gaussian(sigma), size, orders)
    assert np.all(got >= exact)
    assert np.all(got <= 1.03 * exact)


@pytest.mark.parametrize("sigma, q, size", [(1.0, 0.05, 2), (2.0, 0.1, 4)])
def test_subsampled_gaussian_group_curve_is_above_a_g_record_instance(sigma, q, size):
    from dpcompose.mechanisms import Gaussian, Subsampled
    from dpcompose.representations.rules import renyi_curve

    inner = Subsampled(Gaussian(sigma), q)
    orders = np.array([2.0, 4.0, 8.0])
    got = group_renyi_curve(lambda o: renyi_curve(inner, o), size, orders)
    for alpha, bound in zip(orders, got):
        forward, backward = renyi_divergences(sigma, q, size, int(alpha))
        assert bound >= float(forward) and bound >= float(backward), (alpha, bound, forward, backward)


def test_one_record_is_the_curve_itself():
    curve = _gaussian(2.0)
    assert np.array_equal(group_renyi_curve(curve, 1, ORDERS), curve(ORDERS))


def test_an_infinite_one_record_curve_gives_infinite_group_curve():
    got = group_renyi_curve(lambda o: np.full(np.shape(o), math.inf), 4, ORDERS)
    assert np.all(np.isinf(got)) and not np.any(np.isnan(got))

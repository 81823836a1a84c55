"""dpc.from_dp_event: dp_accounting's DpEvent trees as dpcompose input.

Translation is checked event by event, and the numbers against dp_accounting's own PLD
accountant on the same events (pessimistic estimate, fine grid: an upper bound up to its
grid): our certified lower bound is never above it, our upper bound is within 0.1% of
it. Where dp_accounting 0.6.0 is wrong (it ignores the count of a
SelfComposedDpEvent around RandomizedResponseDpEvent), the check uses the equivalent
ComposedDpEvent and the KOV closed form.
"""

from __future__ import annotations

import math

import attr
import mpmath as mp
import pytest

import dpcompose as dpc
from dpcompose.errors import InvalidParameterError, UnsupportedMechanismError
from dpcompose.integrations.dp_accounting import SUPPORTED_EVENTS, KaryRandomizedResponse

from oracles import kov_delta_mp

dpa = pytest.importorskip("dp_accounting")
from dp_accounting.pld import PLDAccountant  # noqa: E402

NR = dpa.NeighboringRelation
Q = 256 / 60000


@pytest.fixture(autouse=True)
def _mp_precision():
    """mpmath precision for the oracles, restored afterwards (other test modules set their own)."""
    with mp.workdps(40):
        yield


def _epsilon_delta_event():
    """dp_accounting's EpsilonDeltaDpEvent (newer releases), or the same fields where absent."""
    cls = getattr(dpa.dp_event, "EpsilonDeltaDpEvent", None)
    if cls is not None:
        return cls

    @attr.s(frozen=True, slots=True, auto_attribs=True)
    class EpsilonDeltaDpEvent(dpa.DpEvent):
        epsilon: float
        delta: float

    return EpsilonDeltaDpEvent


def theirs(event, delta, relation=NR.ADD_OR_REMOVE_ONE, h=1e-4):
    acc = PLDAccountant(relation, value_discretization_interval=h)
    acc.compose(event)
    return acc.get_epsilon(delta)


def test_translation_event_by_event():
    f = dpc.from_dp_event
    assert f(dpa.GaussianDpEvent(1.5)) == [(dpc.Gaussian(1.5), 1)]
    assert f(dpa.GaussianDpEvent(1.5), neighbors="replace_one") == [(dpc.Gaussian(1.5, sensitivity=2.0), 1)]
    assert f(dpa.LaplaceDpEvent(3.0)) == [(dpc.Laplace(3.0), 1)]
    assert f(dpa.SelfComposedDpEvent(dpa.PoissonSampledDpEvent(Q, dpa.GaussianDpEvent(1.1)), 7)) == [
        (dpc.Subsampled(dpc.Gaussian(1.1), Q, "poisson"), 7)]
    assert f(dpa.ComposedDpEvent([dpa.GaussianDpEvent(2.0), dpa.NoOpDpEvent(), dpa.GaussianDpEvent(2.0)])) == [
        (dpc.Gaussian(2.0), 2)]
    assert f(dpa.NonPrivateDpEvent()) == [(dpc.PureDP(math.inf), 1)]
    assert f(dpa.NoOpDpEvent()) == []
    assert f(_epsilon_delta_event()(0.5, 1e-6)) == [(dpc.ApproxDP(0.5, 1e-6), 1)]
    wor = f(dpa.SampledWithoutReplacementDpEvent(1000, 10, dpa.GaussianDpEvent(1.0)), neighbors="replace_one")
    assert wor == [(dpc.Subsampled(dpc.Gaussian(1.0, sensitivity=2.0), 0.01, "without_replacement"), 1)]
    # randomized response: p = noise probability over k buckets, replace one
    (rr, n), = f(dpa.RandomizedResponseDpEvent(0.3, 2), neighbors="replace_one")
    assert isinstance(rr, dpc.RandomizedResponse) and n == 1
    assert rr.epsilon == pytest.approx(math.log((1 - 0.3 + 0.15) / 0.15), rel=1e-14)
    assert rr.epsilon >= math.log((1 - 0.3 + 0.15) / 0.15)         # rounded up
    (kr, _), = f(dpa.RandomizedResponseDpEvent(0.3, 5), neighbors="replace_one")
    assert isinstance(kr, KaryRandomizedResponse) and kr.num_buckets == 5
    assert kr.epsilon == pytest.approx(math.log(1 + 5 * 0.7 / 0.3), rel=1e-14)
    assert f(dpa.RandomizedResponseDpEvent(0.3, 1), neighbors="replace_one") == []
    assert f(dpa.RandomizedResponseDpEvent(0.0, 4), neighbors="replace_one") == [(dpc.PureDP(math.inf), 1)]
    # Gaussians on one sample are one Gaussian (mu adds in squares)
    (m, _), = f(dpa.PoissonSampledDpEvent(0.1, dpa.ComposedDpEvent([dpa.GaussianDpEvent(3.0),
                                                                    dpa.GaussianDpEvent(4.0)])))
    assert m.rate == 0.1 and m.mechanism.mu == pytest.approx(math.hypot(1 / 3, 1 / 4), rel=1e-14)
    assert m.mechanism.mu >= math.hypot(1 / 3, 1 / 4)
    # Poisson inside Poisson is Poisson at the product rate
    (pp, _), = f(dpa.PoissonSampledDpEvent(0.5, dpa.PoissonSampledDpEvent(0.2, dpa.LaplaceDpEvent(1.0))))
    assert pp == dpc.Subsampled(dpc.Laplace(1.0), 0.1)


@pytest.mark.parametrize("event, relation, words", [
    (dpa.ZCDpEvent(0.1), "add_remove", ["ZCDpEvent", "GaussianDpEvent"]),
    (dpa.UnsupportedDpEvent(), "add_remove", ["UnsupportedDpEvent"]),
    (dpa.SampledWithReplacementDpEvent(100, 10, dpa.GaussianDpEvent(1.0)), "add_remove",
     ["SampledWithReplacementDpEvent"]),
    (dpa.ComposedDpEvent([dpa.GaussianDpEvent(1.0), dpa.ZCDpEvent(0.1)]), "add_remove",
     ["event.events[1]", "ZCDpEvent"]),
    (dpa.PoissonSampledDpEvent(0.1, dpa.ComposedDpEvent([dpa.GaussianDpEvent(1.0), dpa.LaplaceDpEvent(1.0)])),
     "add_remove", ["one sample"]),
    (dpa.SampledWithoutReplacementDpEvent(100, 10, dpa.PoissonSampledDpEvent(0.5, dpa.GaussianDpEvent(1.0))),
     "replace_one", ["event.event", "Poisson sampling under add/remove"]),
    (3.0, "add_remove", ["float"]),
])
def test_unsupported_events_are_refused_by_name(event, relation, words):
    with pytest.raises((UnsupportedMechanismError, InvalidParameterError)) as info:
        dpc.from_dp_event(event, neighbors=relation)
    for w in words:
        assert w in str(info.value)


@pytest.mark.parametrize("event, relation, words", [
    (dpa.RandomizedResponseDpEvent(0.3, 2), "add_remove", ["replace_one"]),
    (dpa.SampledWithoutReplacementDpEvent(100, 10, dpa.GaussianDpEvent(1.0)), "add_remove", ["replace_one"]),
    (dpa.PoissonSampledDpEvent(0.1, dpa.GaussianDpEvent(1.0)), "replace_one", ["add_remove"]),
    (dpa.GaussianDpEvent(-1.0), "add_remove", ["noise_multiplier"]),
    (dpa.GaussianDpEvent(math.nan), "add_remove", ["noise_multiplier", "NaN"]),
    (dpa.PoissonSampledDpEvent(1.5, dpa.GaussianDpEvent(1.0)), "add_remove", ["sampling_probability"]),
    (dpa.SelfComposedDpEvent(dpa.GaussianDpEvent(1.0), -2), "add_remove", ["count"]),
    (dpa.SampledWithoutReplacementDpEvent(10, 20, dpa.GaussianDpEvent(1.0)), "replace_one", ["sample_size"]),
    (dpa.GaussianDpEvent(1.0), "zero_out", ["neighbors"]),
])
def test_bad_fields_and_relations(event, relation, words):
    with pytest.raises(InvalidParameterError) as info:
        dpc.from_dp_event(event, neighbors=relation)
    for w in words:
        assert w in str(info.value)


def test_supported_list_is_the_documented_one():
    assert set(SUPPORTED_EVENTS) == {
        "GaussianDpEvent", "LaplaceDpEvent", "RandomizedResponseDpEvent", "EpsilonDeltaDpEvent",
        "SelfComposedDpEvent", "ComposedDpEvent", "PoissonSampledDpEvent",
        "SampledWithoutReplacementDpEvent", "NoOpDpEvent", "NonPrivateDpEvent"}


@pytest.mark.parametrize("event, delta", [
    (dpa.SelfComposedDpEvent(dpa.PoissonSampledDpEvent(Q, dpa.GaussianDpEvent(1.1)), 2000), 1e-5),
    (dpa.ComposedDpEvent([dpa.GaussianDpEvent(3.0), dpa.SelfComposedDpEvent(dpa.LaplaceDpEvent(20.0), 10)]), 1e-6),
    (dpa.SelfComposedDpEvent(dpa.PoissonSampledDpEvent(0.05, dpa.LaplaceDpEvent(2.0)), 100), 1e-6),
    (dpa.SelfComposedDpEvent(dpa.GaussianDpEvent(5.0), 10), 1e-6),
])
def test_numbers_against_dp_accounting_add_remove(event, delta):
    lo, hi = dpc.compose(dpc.from_dp_event(event), method="pld").epsilon_bounds(delta)
    ref = theirs(event, delta, h=1e-5)
    assert lo <= ref                       # their pessimistic value is an upper bound
    assert ref * (1 - 1e-3) <= hi <= ref * (1 + 1e-3)


def test_numbers_against_dp_accounting_replace_one():
    ev = dpa.SelfComposedDpEvent(dpa.GaussianDpEvent(5.0), 10)
    lo, hi = dpc.compose(dpc.from_dp_event(ev, neighbors="replace_one")).epsilon_bounds(1e-6)
    ref = theirs(ev, 1e-6, NR.REPLACE_ONE, h=1e-5)
    assert lo <= ref and ref * (1 - 1e-3) <= hi <= ref * (1 + 1e-3)
    # binary randomized response, 20 times: ComposedDpEvent (dp_accounting 0.6.0 drops the
    # count of SelfComposedDpEvent for randomized response; see the module docstring)
    rr = dpa.RandomizedResponseDpEvent(0.3, 2)
    ours = dpc.compose(dpc.from_dp_event(dpa.SelfComposedDpEvent(rr, 20), neighbors="replace_one"))
    lo, hi = ours.epsilon_bounds(1e-6)
    ref = theirs(dpa.ComposedDpEvent([rr] * 20), 1e-6, NR.REPLACE_ONE, h=1e-5)
    assert lo <= ref and ref * (1 - 1e-3) <= hi <= ref * (1 + 1e-3)
    eps = math.log(0.85 / 0.15)
    for e in (1.0, 10.0, 30.0):
        truth = float(kov_delta_mp(eps, 20, e))
        d_lo, d_hi = ours.delta_bounds(e)
        assert d_lo <= truth * (1 + 1e-9) and truth <= d_hi


def test_kary_randomized_response_is_an_upper_bound_only():
    ev = dpa.ComposedDpEvent([dpa.RandomizedResponseDpEvent(0.6, 5)] * 10)
    g = dpc.compose(dpc.from_dp_event(ev, neighbors="replace_one"))
    assert not g.has_lower_bound or g.epsilon_bounds(1e-6)[0] == 0.0
    ref = theirs(ev, 1e-6, NR.REPLACE_ONE, h=1e-5)
    assert g.epsilon(1e-6) >= ref * (1 - 1e-3)


def test_compose_replaces_the_pld_accountant_call():
    """The README's migration: one call changes."""
    event = dpa.SelfComposedDpEvent(dpa.PoissonSampledDpEvent(Q, dpa.GaussianDpEvent(1.1)), 500)
    before = theirs(event, 1e-5)
    after = dpc.compose(dpc.from_dp_event(event)).epsilon(1e-5)
    assert after == pytest.approx(before, rel=1e-3)

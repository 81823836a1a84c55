"""The report plot's curve sampler keeps upper and lower values aligned with their x."""

from dpcompose.interfaces.report.plot import _sample_all


def test_sample_all_aligns_upper_and_lower_with_x():
    xs = [0.5 * i for i in range(9)]
    fns = [(lambda x: 2.0 * x + 1.0, lambda x: x - 1.0), (lambda x: x * x, None)]
    (x1, up1, low1, done1), (x2, up2, low2, done2) = _sample_all(fns, xs, seconds=60.0)
    assert done1 and done2
    assert x1 == xs and x2 == xs
    assert up1 == [2.0 * x + 1.0 for x in xs]
    assert low1 == [x - 1.0 for x in xs]
    assert up2 == [x * x for x in xs]
    assert low2 is None

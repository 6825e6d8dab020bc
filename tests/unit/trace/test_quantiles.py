"""engine/trace/quantiles.py: nearest-rank quantiles within 0.1% in constant memory."""

from __future__ import annotations

import math
import random

import pytest

from regime.engine.trace.quantiles import LogHistogram


def _hist(values) -> LogHistogram:
    h = LogHistogram()
    for v in values:
        h.add(v)
    return h


def test_an_empty_histogram_has_no_quantile():
    assert LogHistogram().quantile(0.5) is None


def test_zeros_are_counted_exactly():
    h = _hist([0, 0, 0, 5])
    assert h.quantile(0.5) == 0.0 and h.quantile(0.75) == 0.0
    assert h.quantile(1.0) == pytest.approx(5, rel=1e-3)


@pytest.mark.parametrize("q", [0.0, 0.1, 0.5, 0.9, 0.99, 1.0])
def test_a_quantile_is_the_nearest_rank_value_within_a_tenth_of_a_percent(q):
    rng = random.Random(7)
    values = [rng.lognormvariate(3, 2) for _ in range(5000)]
    exact = sorted(values)[max(1, math.ceil(q * len(values))) - 1]
    assert _hist(values).quantile(q) == pytest.approx(exact, rel=1e-3)


def test_memory_is_buckets_not_values():
    h = _hist([10.0] * 100_000 + [20.0] * 100_000)
    assert h.count == 200_000 and len(h.buckets) == 2
    assert h.quantile(0.5) == pytest.approx(10, rel=1e-3)
    assert h.quantile(0.5001) == pytest.approx(20, rel=1e-3)

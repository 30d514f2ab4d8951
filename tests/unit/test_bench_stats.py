"""The benchmarks' one percentile: nearest rank."""

import pytest

from tools.bench.stats import percentile, summary


def test_the_median_of_an_even_count_is_the_lower_middle_value() -> None:
    assert percentile([4.0, 1.0, 3.0, 2.0], 0.5) == 2.0


def test_p99_of_a_hundred_values_is_the_ninety_ninth() -> None:
    assert percentile([float(v) for v in range(1, 101)], 0.99) == 99.0


def test_p100_is_the_maximum_and_p0_the_minimum() -> None:
    values = [5.0, 9.0, 1.0]
    assert percentile(values, 1.0) == 9.0
    assert percentile(values, 0.0) == 1.0


def test_a_percentile_is_always_a_measured_value() -> None:
    values = [1.0, 10.0]
    assert percentile(values, 0.75) in values


def test_no_values_give_zero_and_a_quantile_outside_zero_to_one_is_refused() -> None:
    assert percentile([], 0.5) == 0.0
    with pytest.raises(ValueError, match="outside"):
        percentile([1.0], 99)


def test_summary_names_the_count() -> None:
    assert summary([1.0, 2.0, 3.0]).endswith("(n=3)")
    assert summary([]) == "none measured"

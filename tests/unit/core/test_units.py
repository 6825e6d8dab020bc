"""core/units.py: quantities as people write them, into canonical units and back."""

from __future__ import annotations

import pytest

from regime.core import units


@pytest.mark.parametrize("raw, canonical, value", [
    ("26 GB", "byte", 26e9),
    ("3.35 TB/s", "byte/s", 3.35e12),
    ("4%", units.FRACTION, 0.04),
    ("11 us", "s", 11e-6),
    ("1.5 ms", "s", 1.5e-3),
    (0.5, units.FRACTION, 0.5),
    (128, "token", 128.0),
])
def test_a_written_quantity_is_read_into_canonical_units(raw, canonical, value):
    assert units.parse_quantity(raw, canonical).value == pytest.approx(value, rel=1e-12)


def test_a_range_is_its_midpoint_with_both_ends_kept():
    p = units.parse_quantity("6-30 us", "s")
    assert (p.value, p.low, p.high) == pytest.approx((18e-6, 6e-6, 30e-6))
    assert p.written == "6-30 us"


@pytest.mark.parametrize("raw, canonical, words", [
    (26, "byte", "has no unit"),
    ("26", "byte", "has no unit"),
    ("26 GB", "s", "not a quantity in s"),
    ("30-6 us", "s", "runs backwards"),
    (True, units.FRACTION, "expected a number"),
    ("lots", "byte", "not a number with a unit"),
    ("1e400 GB", "byte", "not a plausible value"),
])
def test_what_cannot_be_read_says_why(raw, canonical, words):
    with pytest.raises(ValueError, match=words):
        units.parse_quantity(raw, canonical)


def test_conversion_factors_and_dimensions():
    assert units.factor("GB", "byte") == pytest.approx(1e9)
    assert units.factor("byte/s", "TB/s") == pytest.approx(1e-12)
    assert units.conversion("GB", "s") is None
    assert units.same_dimension("TFLOP/s", "FLOP/s") and not units.same_dimension("GB", "GB/s")
    with pytest.raises(ValueError):
        units.factor("GB", "s")


@pytest.mark.parametrize("text, words", [("degC", "offset unit"), ("x" * 41, "is not a unit"),
                                         ("wibble", "unknown unit"), ("dB", "logarithmic")])
def test_only_plain_multiplicative_units_are_units(text, words):
    with pytest.raises(ValueError, match=words):
        units.parse_unit(text)


@pytest.mark.parametrize("x, text", [(12345.6, "12,346"), (123.4, "123"), (0, "0"), (1.23456, "1.23"),
                                     (0.012345, "0.0123"), (20.0, "20"), (-5.5, "-5.5")])
def test_numbers_are_rounded_for_people(x, text):
    assert units.format_number(x) == text


@pytest.mark.parametrize("value, canonical, display, text", [
    (0.12, units.FRACTION, "%", "12%"),
    (0.004, units.FRACTION, "%", "0.4%"),
    (0.59312, units.FRACTION, "%", "59.3%"),    # as the tables show it: one rule for every figure
    (0.039712, units.FRACTION, "%", "3.97%"),
    (0.99996, units.FRACTION, "%", "100%"),
    (3.35e12, "byte/s", "GB/s", "3350 GB/s"),
    (3.35e13, "byte/s", "GB/s", "33,500 GB/s"),
    (1.0, "token", "tokens", "1 token"),
    (2.0, "token/s", "tokens/s", "2 tokens/s"),
])
def test_quantities_are_shown_in_their_display_unit(value, canonical, display, text):
    assert units.format_quantity(value, canonical, display) == text


def test_untrusted_text_in_messages_is_bounded():
    assert units.short("x" * 100) == "x" * 60 + "..."
    assert "digits" in units.short(10**100)
    assert units.short({"a": 1}) == "dict"

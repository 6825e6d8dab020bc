"""core/numbers.py and core/names.file_id: numbers and file names as people write them."""

from __future__ import annotations

import pytest

from regime.core import numbers
from regime.core.names import file_id


@pytest.mark.parametrize(("text", "suffix", "want"), [
    ("2,048", None, 2048), ("2048", None, 2048), ("1,234,567.5", None, 1234567.5), (".5", None, 0.5),
    ("2", "k", 2000), ("1.5", "M", 1.5e6), ("3", "K", 3000),
])
def test_value(text, suffix, want):
    assert numbers.value(text, suffix) == want


@pytest.mark.parametrize("text", ["2,04", "1,2345", "2k", "abc", "1e5e5", ""])
def test_not_a_number(text):
    with pytest.raises(ValueError, match="not a number"):
        numbers.value(text)


def test_spelled_units():
    assert numbers.spelled("tokens per second") == "tokens/second"
    assert numbers.spelled("GB Per s") == "GB/s"
    assert numbers.spelled("tokens/s") == "tokens/s"
    assert numbers.spelled("percent") == "percent"  # 'per' only as a word


@pytest.mark.parametrize(("stem", "want"), [
    ("My-Case", "my-case"), ("my case", "my_case"), ("Run 3 (H100)", "run_3_h100"),
    ("a_chatbot", "a_chatbot"), ("--x--", "x"), ("a  +  b", "a_b"), ("!!!", ""),
])
def test_file_id(stem, want):
    assert file_id(stem) == want

"""engine/lang/intervals.py and the Interval of facts/vocabulary.py: ranges, proved conservatively."""

from __future__ import annotations

import math
import re

import pytest
from langkit import cond, ctx, formula

from regime.core.limits import MAX_INTERMEDIATE, MAX_MAGNITUDE, MIN_MAGNITUDE
from regime.engine import lang
from regime.facts.vocabulary import Interval


@pytest.mark.parametrize("text, lo, hi, lo_open, hi_open", [
    ("[0, 1]", 0, 1, False, False),
    ("(0, inf)", 0, math.inf, True, True),
    ("[-inf, 5)", -math.inf, 5, False, True),
])
def test_an_interval_is_read_with_its_open_and_closed_ends(text, lo, hi, lo_open, hi_open):
    iv = Interval.parse(text)
    assert (iv.lo, iv.hi, iv.lo_open, iv.hi_open) == (lo, hi, lo_open, hi_open)
    assert str(iv) == text.replace("inf", "inf")


@pytest.mark.parametrize("text", ["[1, 0]", "0..1", "[a, 1]"])
def test_a_bad_interval_is_refused(text):
    with pytest.raises(ValueError):
        Interval.parse(text)


def test_contains_respects_open_ends():
    iv = Interval(0, 1, lo_open=True)
    assert not iv.contains(0) and iv.contains(1e-300) and iv.contains(1) and not iv.contains(1.0000001)


def test_held_caps_declared_ranges_at_what_memory_holds():
    assert lang.held(Interval(-math.inf, math.inf)) == Interval(-MAX_MAGNITUDE, MAX_MAGNITUDE)
    tiny = lang.held(Interval(0, 5, lo_open=True))  # excludes zero: a divisor stays away from it
    assert tiny.lo == MIN_MAGNITUDE and not tiny.lo_open and tiny.hi == 5


@pytest.mark.parametrize("text, lo, hi", [
    ("batch + 1", 2, 100001),
    ("share - batch", -100000, 0),
    ("share * level", -10, 10),
    ("min(batch, 4)", 1, 4),
    ("max(share, level)", 0, 10),
    ('dtype_bytes["fp16"]', 2, 2),   # a table entry named by a literal is that entry
])
def test_the_range_of_an_expression_follows_from_declared_ranges(text, lo, hi):
    iv = lang.interval_of(formula(text).tree, ctx())
    assert (iv.lo, iv.hi) == (lo, hi)


def test_division_ranges_use_the_reciprocal_and_refuse_a_divisor_that_could_be_zero():
    iv = lang.interval_of(formula("share / batch").tree, ctx())
    assert (iv.lo, iv.hi) == (0, 1)
    with pytest.raises(lang.ExprError, match="could be by zero"):
        formula("batch / share")           # share's range [0, 1] includes 0
    formula("bytes / bw")                  # bw's (0, 1e14] does not


def test_a_condition_whose_intermediate_could_overflow_is_refused_a_formula_is_not():
    with pytest.raises(lang.ExprError, match=re.escape(f"beyond {MAX_INTERMEDIATE:g}")):
        cond("flops * flops * flops * flops * flops * flops * flops * flops * flops * flops * flops"
             " * flops * flops * flops * flops * flops * flops > 1")  # (1e18)**17 > 1e300
    formula("flops * flops")  # formulas run in Python; their results are checked when derived


def test_a_when_guard_narrows_a_facts_range_for_the_formula():
    from regime.engine.knowledge.load import load_knowledge
    from regime.engine.knowledge.paths import RULES_DIR
    from regime.engine.lang import Context, narrowed_by, parse
    from regime.facts.vocabulary import load_vocabulary
    k = load_knowledge(load_vocabulary(), [RULES_DIR])
    ctx = Context(k.vocabulary)
    when = parse("zero_flop_share < 1 and 0.5 <= zero_flop_share", ctx, "condition")
    iv = narrowed_by(when.tree, ctx)["zero_flop_share"]
    assert (iv.lo, iv.hi, iv.lo_open, iv.hi_open) == (0.5, 1.0, False, True)
    assert narrowed_by(parse("zero_flop_share < 1 or batch > 2", ctx, "condition").tree, ctx) == {}

"""engine/lang: parsing, type checks, and the two back ends agreeing on absent facts."""

from __future__ import annotations

import pytest
from langkit import cond, formula

from regime.engine import lang


@pytest.mark.parametrize("text, facts, truth, negated", [
    ("batch > 8", {"batch": 16}, True, False),
    ("batch > 8", {"batch": 8}, False, True),
    ("batch >= 8", {"batch": 8}, True, False),
    ("batch > 8", {}, False, False),                  # absent: the comparison is false ...
    ("not (batch > 8)", {}, False, False),            # ... and so is its negation
    ("not (batch > 8)", {"batch": 4}, True, False),
    ("absent(batch)", {}, True, False),
    ("present(batch) and batch < 2", {"batch": 1}, True, False),
    ('phase == "decode" or share > 0.5', {"phase": "prefill", "share": 0.6}, True, False),
    ('phase != "decode"', {}, False, False),
])
def test_truth_follows_the_absent_is_false_semantics(text, facts, truth, negated):
    assert lang.truth(cond(text).tree, facts) is truth
    assert lang.truth(cond(text).tree, facts, negate=True) is negated


def test_formulas_compute_and_an_absent_fact_or_zero_divisor_is_missing():
    f = formula("bytes / bw")
    assert lang.value(f.tree, {"bytes": 26e9, "bw": 2e12}) == pytest.approx(0.013)
    with pytest.raises(lang.Missing):
        lang.value(f.tree, {"bytes": 26e9})
    assert lang.value(formula("min(batch, 4) * dtype_bytes[\"fp16\"]").tree, {"batch": 16}) == 8.0
    assert lang.value(formula("total(kernel_share, parts)").tree,
                      {"kernel_share__gemm": 0.5, "kernel_share__attention": 0.25,
                       "kernel_share": 1}) == 0.75


def test_the_durable_form_guards_every_fact_it_reads():
    assert lang.to_durable(cond("batch > 8").tree) == {
        "$and": [{"$ex": {"batch": 1}}, {"$gt": {"batch": 8.0}}]}
    # not is pushed down: not (batch > 8) is batch <= 8, still guarded
    assert lang.to_durable(cond("not (batch > 8)").tree) == {
        "$and": [{"$ex": {"batch": 1}}, {"$lte": {"batch": 8.0}}]}
    # a fact on the right is flipped onto the left: share < bytes / bw
    assert lang.to_durable(cond("bytes / bw > share").tree)["$and"] == [
        {"$ex": {"bytes": 1}}, {"$ex": {"bw": 1}}, {"$ex": {"share": 1}},
        {"$lt": {"share": {"$div": {"$l": {"$m": "bytes"}, "$r": {"$m": "bw"}}}}}]
    # two expressions: a op b is 0 op (b - a), a test of the constant zero field
    assert lang.to_durable(cond("bytes / bw > share * 2").tree)["$and"][-1] == {
        "$gt": {lang.ZERO_FIELD: {"$sub": {"$l": {"$mul": {"$l": {"$m": "share"}, "$r": 2.0}},
                                           "$r": {"$div": {"$l": {"$m": "bytes"}, "$r": {"$m": "bw"}}}}}}}


@pytest.mark.parametrize("text, decided", [("2 > 1", lang.ALWAYS), ("1 > 2", lang.NEVER),
                                           ("limit * 2 >= 4", lang.ALWAYS)])
def test_a_comparison_without_facts_is_decided_at_compile_time(text, decided):
    assert lang.to_durable(cond(text, limit=2.0).tree) == decided


@pytest.mark.parametrize("text, mode, words", [
    ("batch + phase", "formula", "arithmetic needs numbers"),
    ('phase < "decode"', "condition", "categories compare only with == and !="),
    ("batch", "condition", "must be true/false"),
    ("batch > 1", "formula", "must give a value"),
    ("batch > 50%", "condition", "a share is a plain number"),
    ("batch = 1", "condition", "compare with '=='"),
    ("batch > 1 && share > 0", "condition", "join tests with 'and'"),
    ("__import__('os')", "formula", "not allowed"),
    ("batchh > 1", "condition", "did you mean 'batch'"),
    ("not " * 40 + "batch > 1", "condition", "too large or too deeply nested"),
])
def test_what_the_language_refuses_says_why(text, mode, words):
    with pytest.raises(lang.ExprError, match=words):
        (cond if mode == "condition" else formula)(text)


def test_check_category_literals_names_the_declared_values():
    from langkit import VOCABULARY
    parsed = lang.Expression('phase == "decod"', lang.Cmp("==", lang.Ref("phase", kind="category"),
                                                          lang.Str("decod")), "condition")
    with pytest.raises(lang.ExprError, match="did you mean 'decode'"):
        lang.check_category_literals(parsed, VOCABULARY)


def test_a_tree_knows_what_it_reads_and_renders_as_written():
    e = formula("bytes / bw + limit", limit=1.0)
    assert e.facts() == ["bytes", "bw"]
    assert [n.name for n in e.constants()] == ["limit"]
    assert lang.render(e.tree) == "((bytes / bw) + limit)"


def _with_levers():
    from dataclasses import replace

    from langkit import ctx
    return replace(ctx(), flag_ids={"levers": frozenset({"cuda_graphs", "raise_batch"})})


def test_judged_reads_the_engines_record_of_verdicts_and_renders_as_written():
    e = lang.parse('batch > 8 and not judged("cuda_graphs")', _with_levers(), "condition")
    field = lang.Ref(lang.JUDGED, "cuda_graphs", kind="flags").field
    assert field.startswith("_")  # bookkeeping: kept out of facts, trace and output
    assert lang.reads_verdicts(e.tree) and not lang.reads_verdicts(cond("batch > 8").tree)
    assert lang.truth(e.tree, {"batch": 16}) is True
    assert lang.truth(e.tree, {"batch": 16, field: True}) is False
    assert lang.to_durable(e.tree)["$and"][-1] == {"$nex": {field: 1}}
    assert lang.render(e.tree).endswith('not (judged("cuda_graphs"))')


@pytest.mark.parametrize("text, words", [
    ('judged("cuda_graph")', "did you mean 'cuda_graphs'"),
    ("judged(cuda_graphs)", "one quoted lever id"),
    ('judged("cuda_graphs", "raise_batch")', "one quoted lever id"),
])
def test_judged_takes_one_declared_lever(text, words):
    with pytest.raises(lang.ExprError, match=words):
        lang.parse(text, _with_levers(), "condition")


def test_judged_is_not_a_formula_function():
    with pytest.raises(lang.ExprError, match="not allowed in a formula"):
        lang.parse('judged("cuda_graphs")', _with_levers(), "formula")

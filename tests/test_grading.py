"""Grading: the solution's answers score full marks, wrong answers lose the right points with
the right feedback, free text is read by concept, numbers by value and unit."""

from __future__ import annotations

import json
import sys

import pytest
from conftest import ROOT, write

from regime.engine.grading import output
from regime.engine.grading.answer import read_answer
from regime.engine.grading.figures import matches, quantities
from regime.engine.grading.grader import Grader

ANSWERS = sorted((ROOT / "answers").iterdir())


@pytest.fixture(scope="module")
def grader() -> Grader:
    return Grader()


def _grade(grader: Grader, name: str):
    r = grader.grade(ROOT / "answers" / name)
    assert r.graded, r.errors
    return r


def _part(r, name):
    return next(p for p in r.parts if p.part == name)


def _feedback(r) -> str:
    return "\n".join([f for p in r.parts for f in p.feedback] + [p.feedback for p in r.penalties])


@pytest.mark.parametrize("path", [p for p in ANSWERS if ".solution." in p.name], ids=lambda p: p.name)
def test_the_solutions_answers_score_full_marks(grader, path):
    r = grader.grade(path)
    assert r.graded and r.score == r.max_score == 100, output.text(r)
    assert not r.penalties and not r.wrong_levers


@pytest.mark.parametrize("path", ANSWERS, ids=lambda p: p.name)
def test_grading_report_snapshot(grader, path, snapshot):
    r = grader.grade(path)
    assert output.text(r).replace(str(ROOT) + "/", "") == snapshot


@pytest.mark.parametrize(("name", "penalty", "quoted"), [
    ("a_chatbot.tempting_fuse.yaml", "fusion_at_small_batch", ["0.04%", "1 token per pass"]),
    ("b_training_run.tempting_compute_excuse.md", "memory_ops_dismissed_when_compute_bound", ["22%", "61%"]),
    ("c_document_summarizer.tempting_batch.yaml", "recommends_rejected_lever", ["25,000 FLOP/byte", "247"]),
    ("d_high_throughput_api.tempting_int4.md", "int4_past_the_ridge", ["71% of compute", "30% of bandwidth"]),
    ("e_doesnt_add_up.tempting_batch.yaml", "batching_an_idle_gpu", ["14% of bandwidth", "3% of compute"]),
])
def test_each_tempting_answer_gets_its_named_penalty_quoting_the_keys_numbers(grader, name, penalty, quoted):
    r = _grade(grader, name)
    applied = {p.id: p for p in r.penalties}
    assert penalty in applied, [p.id for p in r.penalties]
    for text in quoted:
        assert text in applied[penalty].feedback


def test_penalty_points_come_off_the_parts_exactly(grader):
    r = _grade(grader, "a_chatbot.tempting_fuse.yaml")
    earned = sum(p.points for p in r.parts)
    assert r.score == pytest.approx(max(0.0, earned - sum(p.points for p in r.penalties)), abs=0.011)
    assert [p.id for p in r.penalties] == ["fusion_at_small_batch"]  # the catch-all does not charge twice
    assert r.wrong_levers == ["fuse_elementwise"]


def test_a_negated_lever_under_fixes_is_a_rejection(grader):
    r = _grade(grader, "e_doesnt_add_up.wrong_ambiguous.md")
    assert "You reject torch_compile; the key recommends it" in _feedback(r)
    assert "fuse_elementwise" not in r.wrong_levers


def test_an_ambiguous_alias_is_reported_and_never_credited(grader):
    r = _grade(grader, "e_doesnt_add_up.wrong_ambiguous.md")
    assert "'batching' under fixes (line 16) could mean continuous_batching or raise_batch" in _feedback(r)
    assert "raise_batch" not in r.wrong_levers  # not silently read as the tempting lever either


def test_context_resolves_an_ambiguous_alias(grader, tmp_path):
    body = ("---\ncase: a_chatbot\n---\n## Fixes\n\n1. Batching: fold arriving requests into the in-flight "
            "decode batch instead of queueing them.\n")
    a = read_answer(write(tmp_path, "x.md", body), grader.concepts, 10_000)
    assert [m.concepts for m in a.fixes] == [("continuous_batching",)]


def test_reject_section_reads_claims_as_subject_or_as_a_reason(grader, tmp_path):
    reason = "---\ncase: b_training_run\n---\n## Reject\n\n- Hand-fused kernels: we're compute-bound, so " \
             "memory-bound ops don't matter.\n"
    a = read_answer(write(tmp_path, "r.md", reason), grader.concepts, 10_000)
    assert a.endorsed == ["memory_ops_irrelevant_when_compute_bound"]
    subject = "---\ncase: b_training_run\n---\n## Reject\n\n- The claim that memory-bound ops don't matter.\n"
    b = read_answer(write(tmp_path, "s.md", subject), grader.concepts, 10_000)
    assert [m.concepts for m in b.rejects] == [("memory_ops_irrelevant_when_compute_bound",)]
    assert not b.endorsed


@pytest.mark.parametrize("written", ["204 tok/s", "0.204 ktok/s", "204 tokens per second", "204 tokens/s",
                                     "2.04e2 token/s"])
def test_one_figure_many_spellings(written):
    (q,) = quantities(written)
    assert matches(q, 204.09, "token/s", 0.02)


@pytest.mark.parametrize(("written", "value", "unit", "ok"), [
    ("200 tokens/s", 204.09, "token/s", False),      # rounding is judged by the digits written
    ("~0.04%", 0.000435, "1", True),
    ("62×", 62.4, "1", True),
    ("78%", 0.7839, "fraction", True),
    ("78 GB", 0.7839, "fraction", False),             # wrong dimension never matches
    ("5.12 TB", 5.12e12, "byte", True),
    ("5120 GB", 5.12e12, "byte", True),
])
def test_figure_tolerance(written, value, unit, ok):
    assert any(matches(q, value, unit, 0.02) for q in quantities(written)) is ok


def test_a_named_figure_with_a_wrong_value_is_called_out_with_the_formula(grader, tmp_path):
    body = ("case: a_chatbot\nregime: bandwidth-bound\nevidence:\n"
            "  - {figure: weight_ceiling_tokens_per_s, value: 160 tok/s}\n")
    r = grader.grade(write(tmp_path, "w.yaml", body))
    said = "weight_ceiling_tokens_per_s: you give 160 tok/s (line 4); the key has 204 tokens/s = "
    assert said in _feedback(r)


def test_order_credit_is_pairwise(grader):
    r = _grade(grader, "b_training_run.wrong_order.md")  # key order 1,2,3; given 2,3,1 without 3 read
    assert _part(r, "order").points == 0
    assert "the key puts torch_compile (#1) before fix_dtype_casts (#2)" in _feedback(r)


def test_regrading_is_byte_identical_and_traceable(grader):
    first = output.to_json([grader.grade(p) for p in ANSWERS])
    grader._keys.clear()  # keys recomputed by the engine, not reused
    second = output.to_json([grader.grade(p) for p in ANSWERS])
    assert first == second
    doc = json.loads(first)
    assert all(r["fingerprint"] == grader.fingerprint and len(r["fingerprint"]) == 16 for r in doc["results"])


def test_the_fingerprint_changes_with_the_rubric(grader, tmp_path):
    (tmp_path / "grading").mkdir()
    write(tmp_path / "grading", "rubric.yaml", "weights: {asks: 50}\n")
    other = Grader([tmp_path])
    assert other.fingerprint != grader.fingerprint
    assert other.rubric.weight("asks") == 50 and other.rubric.weight("regime") == 20


@pytest.mark.e2e
def test_import_regime_stays_cheap():
    import subprocess
    code = ("import sys, regime; print(sorted(m for m in sys.modules if m.startswith('regime'))); "
            "print(callable(regime.grade))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert out.split() == ["['regime']", "True"]

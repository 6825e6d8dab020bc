"""Labels as students write them (engine/grading/labels.py): misspelled, qualified, run in bold at
the head of a paragraph; and steps numbered inline. Each answer-level test names the answer that
showed the rule (issue 27), the instructor's grade and the grader's before it."""

from __future__ import annotations

import pytest
from conftest import read_body

from regime.engine.grading.labels import RUN_IN, section, steps


@pytest.mark.parametrize(("head", "named"), [
    ("Reject", "reject"), ("rejct", "reject"), ("evidnce", "evidence"),       # misspelled
    ("Reject for now", "reject"), ("Rejected for now", "reject"), ("Fixes in order", "fixes"),
    ("Evidence of overhead", "evidence"),                                    # qualified
    ("Fix the batch", None),            # a qualifier naming a lever: an instruction, not a label
    ("Fixes and rejections", None),     # two sections joined: neither
    ("Why", None), ("Check", None), ("Do", None),
])
def test_the_section_a_label_names(grader, head, named):
    assert section(grader.concepts, head) == named


@pytest.mark.parametrize(("line", "head", "rest"), [
    ("**Reject.** Raising the batch", "Reject", "Raising the batch"),
    ("**Regime:** compute-bound", "Regime", "compute-bound"),
    ("**Reject**: int4", "Reject", "int4"),
    ("**Fixes, in order.**", "Fixes, in order", ""),
])
def test_a_bold_label_run_in(line, head, rest):
    m = RUN_IN.match(line)
    assert m is not None and (m["head"], m["rest"]) == (head, rest)


def test_bold_without_a_stop_is_emphasis_not_a_label():
    assert RUN_IN.match("**Don't** push the batch higher") is None


def test_steps_numbered_inline_are_items_of_their_own():
    assert steps("1. graphs (static shapes) 2. torch.compile 3. remeasure vs 215, then batching") == [
        "graphs (static shapes)", "torch.compile", "remeasure vs 215, then batching"]
    assert steps("plan: 1) graphs 2) compile") == ["plan:", "graphs", "compile"]


@pytest.mark.parametrize("text", ["batch 8 x 4096 = 32,768 tokens", "gaps 8-15 us. 2. is not a step",
                                  "1.6x from gaps"])
def test_text_that_numbers_no_steps_stays_whole(text):
    assert steps(text) == [text]


def _levers(ms) -> set[str]:
    return {c for m in ms for c in m.concepts}


def test_a_run_in_bold_reject_label_in_an_essay(grader, tmp_path):
    """sealed183 e.s1851 (instructor 100, graded 55): '**Rejected for now.** Raising the batch and
    quantizing the weights. Both are remedies for a saturated memory system' was read as
    recommending both, charged twice."""
    body = ("This one is a trap. It is bound by launch overhead.\n\n"
            "**Fixes, in order.**\n1. Capture the decode step as a CUDA graph.\n2. torch.compile.\n\n"
            "**Rejected for now.** Raising the batch and quantizing the weights. Both are remedies for a "
            "saturated memory system; this one is idle 38% of the time.\n")
    a = read_body(grader, tmp_path, "e_doesnt_add_up", body)
    assert {"raise_batch", "quantize_int8"} <= _levers(a.rejects)
    assert not {"raise_batch", "quantize_int8"} & _levers(a.fixes)


def test_a_memo_of_run_in_bold_labels(grader, tmp_path):
    """sealed174 e.s1769 (instructor 95, graded 55): '**Regime.**', '**Evidence.**', '**Fixes.**',
    '**Reject.** Raising the batch or quantizing now: ...' label every paragraph; read as prose,
    the Reject paragraph was only discussion and the deferred step 3 a recommendation."""
    body = ("**Regime.** It is limited by kernel-launch overhead.\n\n"
            "**Evidence.** Bandwidth at 14% and FLOPs at 3% of peak: nothing is saturated.\n\n"
            "**Fixes.**\n1. Graph capture of the decode step.\n"
            "2. torch.compile to fuse the small kernels.\n\n"
            "**Reject.** Raising the batch or quantizing now: the GPU is idle between kernels.\n")
    a = read_body(grader, tmp_path, "e_doesnt_add_up", body)
    assert {"raise_batch", "quantize_int8"} <= _levers(a.rejects)


def test_a_misspelled_qualified_label_and_inline_steps(grader, tmp_path):
    """sealed178 e.s1803 (instructor 100, graded 52.5): 'fix: 1. ... 2. ... 3. remeasure vs 215,
    then batching/quant if its actualy BW bound' and 'rejct for now: bigger batch, weight quant':
    the steps ran together, so the deferral swallowed nothing, and the misspelled Reject label
    was read as more fixes."""
    body = ("regime: launch-overhead bound\n"
            "evidnce: BW 14%, flops 3% -> nothing saturated\n"
            "fix: 1. CUDA graph capture of decode step 2. torch.compile to cut kernel count "
            "3. remeasure vs 215, then batching/quant if its actualy BW bound\n"
            "rejct for now: bigger batch, weight quant — gaps arent bytes\n")
    a = read_body(grader, tmp_path, "e_doesnt_add_up", body)
    assert [m.concepts[0] for m in a.fixes] == ["cuda_graphs", "torch_compile"]
    assert {"raise_batch", "quantize_int8"} <= _levers(a.rejects)


def test_a_condition_after_the_lever_defers_it(grader, tmp_path):
    """sealed172 e.s1743 (instructor 100): '3. remeasure vs 215 tok/s; then batching / quant once its
    really BW bound' waits for its condition, as 'once it is, batching' does."""
    body = ("## Fixes\n1. cuda graphs\n2. torch.compile\n"
            "3. remeasure vs 215 tok/s; then batching / quant once its really BW bound\n")
    a = read_body(grader, tmp_path, "e_doesnt_add_up", body)
    assert not {"raise_batch", "quantize_int8"} & _levers(a.fixes)
    assert {"raise_batch", "quantize_int8"} <= _levers(a.deferred)


def test_a_claim_is_not_deferred(grader, tmp_path):
    """sealed128 b.s1310 (instructor 25): 'The second engineer probably has a point that memory-bound
    ops matter less once you're compute bound' states the claim; a condition after it does not
    postpone a proposition (only an action waits for its turn)."""
    body = ("This is a compute bound training step, 61% of peak. The second engineer probably has a point "
            "that memory-bound ops matter less once you're compute bound.\n")
    a = read_body(grader, tmp_path, "b_training_run", body)
    assert not any(m.kind == "claim" for m in a.rejects)


def test_a_label_over_levers_under_the_regime_is_not_more_regime(grader, tmp_path):
    """sealed125 a.s1274 (instructor 68, graded 39 with the run-in labels read): '**Do:** continuous
    batching; then int8.' under '**Regime:**' is the plan, not more of the regime."""
    body = ("**Regime:** BW-bound (decode, bs=1)\n**Why:** MBU 0.78, MFU 0.04.\n"
            "**Do:** continuous batching; then int8.\n"
            "**Don't:** fuse elementwise (tiny bytes), bigger GPU.\n")
    a = read_body(grader, tmp_path, "a_chatbot", body)
    assert [m.concepts[0] for m in a.fixes][:1] == ["continuous_batching"]


def test_a_verdict_on_a_lever_under_an_evidence_heading(grader, tmp_path):
    """sealed121 d.s1235 (instructor 68): '## Evidence / reasoning' over 'Int4: no. Bytes aren't our
    limit' refuses int4; under an Evidence heading a lever's label is a verdict, as in a memo."""
    body = ("## Regime\nCompute-bound: MFU 71%, MBU 30%.\n\n## Evidence / reasoning\n"
            "Int4: no. Bytes aren't our limit; bandwidth is mostly idle.\n\n## Fixes\n1. fp8 GEMMs.\n")
    a = read_body(grader, tmp_path, "d_high_throughput_api", body)
    assert "quantize_int4" in _levers(a.rejects)

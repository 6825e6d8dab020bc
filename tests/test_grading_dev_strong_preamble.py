"""Reading rules found in strong answers the grader scored too low (instructor 85 or more, the
grader more than 10 points less, on the dev sets up to sealed155), each with the answer that
showed it."""

from __future__ import annotations

from conftest import lever_statuses, read_body

_SIGNALS = ("Regime: compute-bound (decode at batch 256 has crossed the ridge).\n\n"
            "| signal | value | meaning |\n|---|---|---|\n"
            "| FLOP rate | 71% of peak | compute nearly saturated |\n"
            "| HBM bandwidth | 30% of peak | memory mostly idle |\n\n"
            "## Fixes\n1. fp8 matrix-core GEMMs (raise the compute roof).\n")


def test_a_verdict_line_and_table_before_the_first_heading_are_read(grader, tmp_path):
    """sealed148 d.s1503 (instructor 100, graded 45): a first line "Regime: compute-bound (...)"
    over a heading-less table of signals, then '## Fixes'. Nothing before the first heading was
    read: no regime, no figures. What stands before the template's sections is the student's
    too, read as prose."""
    a = read_body(grader, tmp_path, "d_high_throughput_api", _SIGNALS)
    assert a.regime == "compute_bound"
    assert "71%" in [s.q.written for s in a.numbers]


def test_text_before_headings_does_not_turn_an_essay_into_sections(grader, tmp_path):
    """An answer with no template heading keeps being read as an essay (its paragraphs, its
    introduced lists): the preamble is read only beside template sections."""
    a = read_body(grader, tmp_path, "d_high_throughput_api",
                  "# My answer\n\nIt is compute-bound: 71% of peak FLOPs against 30% of bandwidth.\n")
    assert a.prose and a.regime == "compute_bound"


def test_a_regime_that_wastes_time_is_still_the_verdict(grader, tmp_path):
    """sealed149 c.s1513 (instructor 92, graded 61.5): "Regime: compute-bound prefill (TTFT
    complaint; 4 ms ITL is fine) that wastes most of its time on memory traffic." 'waste' refuses
    a thing done ("hand-fusing is a waste"); a regime is a state, which it does not deny."""
    a = read_body(grader, tmp_path, "c_document_summarizer",
                  "Regime: compute-bound prefill (TTFT complaint; 4 ms ITL is fine) that wastes most of its "
                  "time on memory traffic.\n\nFixes:\n1. flash attn — never materialize the scores.\n")
    assert a.regime == "compute_bound"
    assert lever_statuses(grader, "Hand-fusing the norms is a waste.") == {"hand_fused_kernels": "negated"}


def test_a_numbered_section_label_opens_that_section(grader, tmp_path):
    """sealed152 a.s1549 (instructor 72, graded 41.9): a memo of label lines, "Fix 1: continous
    batching. ..." and "Fix 2: int8 weights, ...", with no blank line between them. 'Fix 1' was no
    label, so both fixes ran on inside the Evidence item and none was read."""
    a = read_body(grader, tmp_path, "a_chatbot",
                  "Regime: decode, bandwith-bound at batch 1 (memroy bound).\n"
                  "Evidence: 78% of peak HBM bandwith vs 4% of peak FLOPs.\n"
                  "Fix 1: continous batching. New requests join the running batch.\n"
                  "Fix 2: int8 weights, halves the bytes so the ceiling doubles.\n")
    assert [m.concepts for m in a.fixes] == [("continuous_batching",), ("quantize_int8",)]
    assert grader.concepts.heading("Fix #2") == "fixes" and grader.concepts.heading("Step 1") is None


def test_also_between_would_and_leave_still_refuses(grader):
    """sealed155 b.s1571 (instructor 100, graded 77.5): "I'd also leave attention alone: it is
    already flash-attention and only 7% of the time" was a recommendation of attention fusion."""
    said = "I'd also leave attention alone: it is already flash-attention and only 7% of the time."
    assert lever_statuses(grader, said)["fuse_attention"] == "negated"


def test_a_claim_that_mixes_two_things_up_is_refuted(grader):
    """sealed145 b.s1471 (instructor 100, graded 69.2): the particle after its object, "mixes two
    things up", refutes the claim in parentheses before it, as "mixes up two things" does."""
    from regime.engine.grading.context import judge
    said = ("So the second engineer's line (memory-bound ops can be ignored because the step is "
            "compute-bound) mixes two things up.")
    c = grader.concepts
    assert [j.status for j in judge(c, c.context, ("claim",), said)] == ["negated"]

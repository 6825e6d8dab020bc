"""Reading rules found among case D's dev disagreements (issue 27), each with the answer that
showed it."""

from __future__ import annotations

from conftest import read_body


def _rejected(a) -> set[str]:
    return {c for m in a.rejects for c in m.concepts}


def test_a_labelled_lever_line_after_evidence_is_read_for_its_verdict(grader, tmp_path):
    """sealed141 d.s1440 (instructor 93, graded 79.4): in a terse labelled answer the line
    'int4: no. ...' came right after 'evidence: ...' and was read as more evidence, so the
    refusal went unread. A line whose label names a lever is an item of its own."""
    body = ("regime: compute-bound\nevidence: MFU 71% / MBU 30%; AI ~256 > ridge 247\n"
            "int4: no. bytes aren't the bottleneck, dequant costs compute\n"
            "fixes: fp8 GEMM, spec decoding, smaller model\n")
    assert "quantize_int4" in _rejected(read_body(grader, tmp_path, "d_high_throughput_api", body))


def test_a_counterfactual_first_mention_leaves_the_refusal_after_it(grader, tmp_path):
    """sealed70 d.s729 (instructor 100, graded 88.2): 'If we were serving at batch 1, int4 would
    be close to a 4x win ... So no int4 for throughput here.' The first mention supposes another
    world; the later refusal is the student's verdict, not commentary on it."""
    body = ("## Regime\nCompute-bound.\n\n## Int4\nIf we were serving at batch 1, int4 would be close "
            "to a 4x win, because decode there is all weight bytes. We're not: at batch 256 the bytes "
            "are 70% idle. So no int4 for throughput here.\n")
    assert "quantize_int4" in _rejected(read_body(grader, tmp_path, "d_high_throughput_api", body))


def test_a_reported_claim_granted_elsewhere_and_denied_here_is_refused(grader, tmp_path):
    """sealed169 d.s1719 (instructor 100, graded 88.2): 'The vendor says "int4 gives you up to
    4x on decode". That's true for small-batch decode, not here: ... dequantizing int4 ...'.
    'not here' refutes the report, though the refuting sentence names int4 again later."""
    body = ("## Regime\nCompute-bound.\n\n## On the vendor\nThe vendor says \"int4 gives you up to 4x on "
            "decode\". That's true for small-batch, bandwidth-limited decode, not here: bandwidth is 70% "
            "idle, and dequantizing int4 before each GEMM puts extra load on the compute units.\n")
    assert "quantize_int4" in _rejected(read_body(grader, tmp_path, "d_high_throughput_api", body))


def test_a_report_granted_without_a_denial_is_not_refused(grader, tmp_path):
    """The other side: 'That's true for small-batch decode.' grants the vendor's claim; nothing
    in the sentence denies it here, so int4 is not read as refused."""
    body = ("## Regime\nCompute-bound.\n\n## On the vendor\nThe vendor says \"int4 gives you up to 4x on "
            "decode\". That's true for small-batch decode, and dequantizing int4 is cheap.\n")
    assert "quantize_int4" not in _rejected(read_body(grader, tmp_path, "d_high_throughput_api", body))

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


def _fixes(a) -> set[str]:
    return {c for m in a.fixes for c in m.concepts}


def test_what_freed_memory_would_be_spent_on_is_no_step_of_its_own(grader, tmp_path):
    """sealed64 d.s670 (instructor 88, graded 77.3 with the batching trap charged): 'It might be
    worth it for HBM capacity (it frees ~51 GB for bigger batches or longer contexts)' names the
    gain of int4, not a proposal to raise the batch."""
    body = ("## Regime\nCompute-bound.\n\n## On int4\nSo: no int4 for throughput on this endpoint. It "
            "might be worth it for HBM capacity (it frees ~51 GB for bigger batches or longer contexts), "
            "to be benchmarked with an accuracy eval.\n\n## Fixes\n1. fp8 GEMMs.\n")
    a = read_body(grader, tmp_path, "d_high_throughput_api", body)
    assert "raise_batch" not in _fixes(a) and "fp8_gemm" in _fixes(a)


def test_a_refusal_after_a_mention_of_what_is_already_done_stands(grader, tmp_path):
    """sealed155 d.s1574 (instructor 100): '"batching has already done its job here" is right,
    which is also why I would not push the batch higher'. The first mention says what is in
    place; the refusal after it is the student's verdict."""
    body = ("Decode at batch 256 is compute-bound.\n\nOur SRE's summary — \"batching has already done its "
            "job here\" — is right, which is also why I would not push the batch higher: beyond the ridge "
            "each extra sequence costs about as much time as it adds.\n")
    assert "raise_batch" in _rejected(read_body(grader, tmp_path, "d_high_throughput_api", body))

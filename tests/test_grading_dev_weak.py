"""Over-grades of weak answers (issue 27: instructor under 40, graded more than 10 higher), each
rule with the dev answer that showed it."""

from __future__ import annotations

import pytest
from conftest import answer_file, read_body


@pytest.mark.parametrize("line", [
    "Compute-bound I believe, since FLOP utilisation (71%) is much higher than bandwidth (30%).",
    "Mostly compute-bound I think (71% FLOPs vs 30% BW).",
    "Compute-bound, I think — 71% FLOPs vs 30% bandwidth.",
    "I think it is compute-bound.",
])
def test_an_opinion_marker_beside_the_regime_qualifies_the_verdict(grader, tmp_path, line):
    """sealed9 d.s116 (instructor 33, graded 50.2: "-10: regime hedged ('I believe')"), sealed74
    d.s770 (23 vs 33.6: "-8: hedged ('mostly ... I think')"): the student's opinion marker offers
    the regime; it keeps its verdict, qualified, and costs a part of the regime's points."""
    a = read_body(grader, tmp_path, "d_high_throughput_api", f"## Regime\n{line}\n")
    assert a.regime == "compute_bound" and a.regime_opined and not a.regime_hedged


@pytest.mark.parametrize("body", [
    "## Regime\nCompute-bound. I think the vendor's int4 pitch is wrong.\n",
    "At 71% of peak FLOPs this endpoint is clearly compute-bound, and I think the vendor is wrong.\n",
])
def test_an_opinion_about_something_else_leaves_the_verdict_committed(grader, tmp_path, body):
    """Only the verdict's own clause, or an 'I think' standing alone beside it, qualifies it."""
    a = read_body(grader, tmp_path, "d_high_throughput_api", body)
    assert a.regime == "compute_bound" and not a.regime_opined


def test_an_opined_regime_earns_less_than_a_committed_one_more_than_a_hedged_one(grader, tmp_path):
    """sealed87 d.s895 (40): "-2: regime hedged ('I think')" against 6-10 for "probably"."""
    rest = "\n## Evidence\n- 71% FLOPs, 30% bandwidth.\n"
    lines = ["Compute-bound.", "Compute-bound, I think.", "Probably compute-bound."]
    files = [answer_file(tmp_path, "d_high_throughput_api", f"## Regime\n{x}\n{rest}", name=f"{i}.md")
             for i, x in enumerate(lines)]
    got = [next(p.points for p in grader.grade(f).parts if p.part == "regime") for f in files]
    assert got[0] > got[1] > got[2], got


def _fixes(a) -> set[str]:
    return {c for m in a.fixes for c in m.concepts}


def test_a_lever_described_then_recommended_in_its_paragraph_is_a_fix(grader, tmp_path):
    """sealed117 a.s1197 (instructor 26, graded 46.9: "-10: penalty: the elementwise-fusion trap"):
    "the residual adds" first describes the ops; the paragraph then recommends fusing them."""
    body = ("The chatbot is memory bound: 78% HBM bandwidth and only 4% of the FLOPs. Each step launches "
            "lots of little kernels for the norms, RoPE, the residual adds and the SiLU. Since memory is "
            "the bottleneck, the fix is to stop doing extra memory traffic: fuse the elementwise ops into "
            "the GEMM epilogues.\n")
    assert "fuse_elementwise" in _fixes(read_body(grader, tmp_path, "a_chatbot", body))


@pytest.mark.parametrize("later", [
    # sealed100 d.s1027 (instructor 66): an opinion, not a plan
    "I'd say int4 probably won't give us anything like 4x.",
    # sealed67 d.s692 (instructor 100): "need" after the lever describes it
    "On top of that, int4 weights need dequantizing before the GEMM, which is extra work.",
    # sealed125 d.s1271 (instructor 100): 'plain' is no misspelt 'plan'
    "Worse, an int4 kernel can come out slower than plain fp16 unless it is very carefully written.",
])
def test_a_lever_described_twice_is_no_fix(grader, tmp_path, later):
    body = f"That makes me skeptical of the int4 pitch: we are compute-bound at 71% FLOPs. {later}\n"
    assert "quantize_int4" not in _fixes(read_body(grader, tmp_path, "d_high_throughput_api", body))


def test_plain_is_read_as_written(grader):
    assert "plain" in grader.concepts.words("slower than plain fp16")

"""Classes from the sealed273-280 sets, now development data (issue 27), each with the student's
own sentences."""

from __future__ import annotations

from conftest import read_body


def _fixes(grader, tmp_path, case: str, body: str) -> set[str]:
    return {c for m in read_body(grader, tmp_path, case, body).fixes for c in m.concepts}


def test_instead_heads_the_fixes(grader, tmp_path):
    """sealed276 d.s2790 (instructor 95, graded 74 with no compute fix): after refusing int4, a line
    labelled 'instead:' lists what to do in its place, as 'Fixes:' would."""
    said = ("regime: compute bound\n- MFU 71% / MBU 30% -> compute saturated, memory mostly idel\n"
            "- AI @ bs256 fp16 ≈ 256 flop/B > ridge 247. past the ridge\n"
            "int4: NO for thruput. bytes arnt the bottleneck; dequant adds work on the busy matrix "
            "cores, could even be slower\n"
            "instead: fp8 gemms (higher compute roof), spec decoding, smaller model\n"
            "dont raise batch more - past ridge, just adds latency\n")
    assert _fixes(grader, tmp_path, "d_high_throughput_api", said) >= {"fp8_gemm", "speculative_decoding"}

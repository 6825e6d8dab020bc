"""Reading rules for weak answers the grader credited too generously (issue 27): the instructor
gave under 50 and the grader more than 10 points more. Each test holds the sentence that showed
its rule; all measured on the dev pool (answers up to sealed147)."""

from __future__ import annotations

from conftest import lever_statuses, read_body


def test_nothing_under_reject_rejects_nothing(grader, tmp_path):
    """sealed36 d.s383 (instructor 0, graded 13.8): int4 as fix #1, then "- nothing, int4 is the
    obvious win." under Reject was read as rejecting int4. A Reject item opening with "nothing"
    rejects nothing; what follows is the student's own view."""
    a = read_body(grader, tmp_path, "d_high_throughput_api",
                  "## Regime\nDecode, so bandwidth-bound.\n\n## Fixes\n1. Go with the vendor: int4 "
                  "quantization cuts the weights from 68 GB to 17 GB.\n\n## Reject\n"
                  "- nothing, int4 is the obvious win.\n")
    assert not a.rejects
    assert [m.concepts for m in a.fixes] == [("quantize_int4",)]


def test_nothing_really_then_a_refusal_still_refuses(grader, tmp_path):
    """sealed15 a.s174: "- nothing really, batching doesnt apply since traffic is low volume"
    still refuses batching: only the opening "nothing" is no rejection, and "doesn't apply"
    refuses what it follows."""
    said = "batching doesnt apply since traffic is low volume"
    assert set(lever_statuses(grader, said).values()) == {"negated"}
    a = read_body(grader, tmp_path, "a_chatbot",
                  "## Regime\nBandwidth-bound.\n\n## Reject\n"
                  "- nothing really, batching doesnt apply since traffic is low volume\n")
    assert any("continuous_batching" in m.concepts for m in a.rejects)


def test_the_ridge_point_is_no_sign_of_this_case(grader, tmp_path):
    """sealed102 c.s1048 (instructor 53, graded 67.5): case D's 256 FLOP/byte and 71% beside the
    ridge point, 247 FLOP/byte, which every case states. The ridge does not count as this case's
    own figure, so the two borrowed figures outnumber the one of its own (40 GB)."""
    from conftest import answer_file
    body = ("regime: compute-bound\nevidence:\n  - {figure: arithmetic intensity, value: 256 FLOP/byte}\n"
            "  - {figure: ridge point, value: 247 FLOP/byte}\n  - {figure: flop_util, value: 71%}\n"
            "  - {figure: transient_memory, value: 40 GB}\nfixes:\n  - flash_attention\n  - chunked_prefill\n"
            "reject:\n  - {lever: raise_batch, reason: makes TTFT worse}\n  - quantize_int8\n")
    r = grader.grade(answer_file(tmp_path, "c_document_summarizer", body, "x.yaml"))
    assert "figures_from_another_case" in [p.id for p in r.penalties]


def test_int8_instead_of_int4_makes_int4s_argument(grader, tmp_path):
    """sealed47 d.s497 (instructor 5, graded 25.3): "1. int8 instead of int4 - safer for accuracy
    and still halves bytes." beside "- int4: too aggressive for accuracy." Past the ridge the key
    rejects int4 for cutting bytes; int8 cuts bytes too (concepts.yaml `kin`): the fix makes the
    argument the key rejects, and the refusal on accuracy does not stand."""
    from regime.engine.grading.reading import read_against
    a = read_body(grader, tmp_path, "d_high_throughput_api",
                  "## Regime\nBandwidth-bound.\n\n## Fixes\n1. int8 instead of int4 - safer for accuracy "
                  "and still halves bytes.\n2. fp8 GEMMs.\n\n## Reject\n"
                  "- int4: too aggressive for accuracy.\n")
    key, _ = grader.key(a, None)
    read = read_against(a, key, 1.0, grader.concepts)
    assert "quantize_int4" in read.fixes and "quantize_int4" not in read.rejects

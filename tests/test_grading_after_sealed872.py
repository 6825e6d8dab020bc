"""Classes from the development pool through sealed872 (issue 27), each with the student's own
sentences."""

from __future__ import annotations

import pytest
from conftest import named, read_body

from regime.engine.grading.reasons import RIGHT, WRONG, judge

CLAIM = "memory_ops_irrelevant_when_compute_bound"


def _verdicts(grader, tmp_path, case: str, written: str, concept: str, reasons: list[str]) -> list[str]:
    """How the grader judges each reason given for `concept` in `case`."""
    g = grader
    key = g.key(read_body(g, tmp_path, case, "Regime: compute-bound.\n"), None)[0]
    return [judge(r, written, concept, key, g.concepts, g.concepts.reasons, 0.1) for r in reasons]


@pytest.mark.parametrize("body", [
    # sealed862 b.s8644 (instructor 1, graded 17.5)
    "Compute-bound at 61%. The second engineer's point is that since we are compute-bound, the "
    "memory-bound kernels are not what limits us. I agree with him.\n",
    # sealed606 b.s6084 (instructor 5)
    "I side with the second engineer here. At 61% of peak FLOP rate the run is clearly compute-bound, and "
    "when you are compute-bound the memory-bound ops are not what is holding you back.\n",
    # sealed860 b.s8624 (instructor 5, graded 20)
    'Compute-bound at 61%. As the second engineer put it, "we\'re compute-bound, memory-bound ops can\'t '
    'matter much", and I agree.\n',
    # sealed868 b.s8709 (instructor 5, graded 25)
    "Compute-bound at 61%. The second engineer said that since we are compute-bound the memory-bound "
    "ops don't matter much. I think that's fair.\n",
])
def test_the_claim_agreed_with_in_other_words_is_endorsed(grader, tmp_path, body):
    """The second engineer's claim reported in words the claim list did not hold, or agreed with
    as "fair": each instructor charged the endorsement; the grader charged nothing."""
    assert CLAIM in read_body(grader, tmp_path, "b_training_run", body).endorsed


def test_the_claim_in_other_words_refuted_is_not_endorsed(grader, tmp_path):
    """The same words refuted stay a refusal."""
    body = ("Compute-bound at 61%. The second engineer says the memory-bound ops are a side issue. "
            "He is wrong: the 22% is time in which no GEMM runs.\n")
    assert CLAIM not in read_body(grader, tmp_path, "b_training_run", body).endorsed


def test_torch_compile_argued_by_the_gemms_is_the_wrong_reason(grader, tmp_path):
    """sealed416 b.s4186, sealed441 b.s4437, sealed370 b.s3727 (instructors: torch.compile 'for a
    wrong reason', half the item; graded with the reason right): compile fuses the small kernels,
    it does not pick better GEMM kernels or move them onto the matrix cores (rubric.yaml
    reasons.misreads). Fusing the elementwise ops is its mechanism, and stays right."""
    wrong = ["it picks better GEMM kernels and schedules the matmuls more tightly, so the 61% rises.",
             "the compiler picks better GEMM kernels and tiling for the 22% of the step.",
             "so the kernels use the matrix cores better and the 61% FLOP rate goes up."]
    right = "it fuses the elementwise ops automatically, capturing much of the 22% for a day of work."
    got = _verdicts(grader, tmp_path, "b_training_run", "torch.compile", "torch_compile", [*wrong, right])
    assert got == [WRONG] * len(wrong) + [RIGHT]


def test_chunked_prefill_argued_by_a_sooner_first_token_is_the_wrong_reason(grader, tmp_path):
    """sealed804 c.s8066, sealed827 c.s8300 (instructors 51 and 51, chunked prefill 'for the wrong
    reason', half the item; graded 72.5 and 71.5): chunking does the same prefill work in pieces;
    it keeps a long prompt from stalling other users' decode steps and bounds peak memory, and
    gets no first token out sooner (rubric.yaml reasons.misreads). The worked solution's reason
    stays right."""
    wrong = ["splitting the 25k prompt into chunks gets the first token out sooner, which lowers TTFT.",
             "it splits the prompt into pieces so the first token comes out sooner."]
    right = "a long prefill can no longer monopolize the GPU and stall other users' decode steps."
    got = _verdicts(grader, tmp_path, "c_document_summarizer", "chunked prefill", "chunked_prefill",
                    [*wrong, right])
    assert got == [WRONG] * len(wrong) + [RIGHT]


def test_a_lever_parked_is_refused(grader, tmp_path):
    """sealed839 d.s8419 (instructor 100, graded 67.4): "int4: considered it, parked it." refuses
    int4 as "set it aside" does; it was read as recommended and charged the trap."""
    body = "Compute-bound: 71% of FLOPs against 30% of bandwidth.\n\nint4: considered it, parked it.\n"
    read = read_body(grader, tmp_path, "d_high_throughput_api", body)
    assert "quantize_int4" in named(read.rejects) - named(read.fixes)


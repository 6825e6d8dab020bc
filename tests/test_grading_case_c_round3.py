"""Case C disagreements read by general rules (issue 27, round 3): a verdict label inside a
heading-less answer, hedged refusals, and announced rejections. Each answer-level test names the
answer that showed the rule, the instructor's grade and the grader's before the change."""

from __future__ import annotations

from conftest import read_body


def _levers(ms) -> set[str]:
    return {c for m in ms for c in m.concepts}


def test_a_dont_line_after_a_step_is_its_own_verdict(grader, tmp_path):
    """sealed179 c.s1819 (instructor 92, graded 58.5): 'Dont: batch prefils - ...' and 'Dont:
    quantise weights - ...' right under '2. then chunked prefil ...' ran on into that step in an
    answer with no template heading, so chunked prefill was read as refused and quantization
    as a fix."""
    body = ("regime: prefil, compute bound\n\n"
            "fixes\n1. flashattn - scores stay on chip, no 40GB\n"
            "2. then chunked prefil so one 25k doc doesnt stall other ppl's decode\n"
            "Dont: batch prefils - already compute bound at 1 seq, TTFT only gets worse\n"
            "Dont: quantise weights - 16GB amortised over 25k toks, not the bottleneck\n")
    a = read_body(grader, tmp_path, "c_document_summarizer", body)
    assert {"flash_attention", "chunked_prefill"} <= _levers(a.fixes)
    assert {"raise_batch", "quantize_int8"} <= _levers(a.rejects)
    assert not {"raise_batch", "quantize_int8"} & _levers(a.fixes)


def test_a_hedged_verdict_in_the_students_voice_after_a_topic(grader, tmp_path):
    """sealed180 c.s1823 (instructor 92, graded 66): '7. Weight quantization: I probably wouldn't
    bother; ...' and sealed177 c.s1795 (instructor 65, graded 47.4): 'Batching: I'd probably hold
    off, since ...' were read as recommending the lever: the hedge between the student's 'I' and
    the verdict hid it. A refusal so hedged leans to refusing, as the blind grades read it."""
    body = ("1. It's the prefill: TTFT is the complaint, ITL = 4 ms is normal.\n"
            "2. Fix: FlashAttention, the scores stay in on-chip memory.\n"
            "3. Weight quantization: I probably wouldn't bother; the weight read is spread thin.\n"
            "4. Batching: I'd probably hold off, since it makes each long prompt wait on the others.\n")
    a = read_body(grader, tmp_path, "c_document_summarizer", body)
    assert "quantize_int8" in _levers(a.rejects) and "raise_batch" in _levers(a.deferred)
    assert not {"raise_batch", "quantize_int8"} & _levers(a.fixes)


def test_but_only_if_after_a_lever_is_a_condition_on_it(grader, tmp_path):
    """sealed143 c.s1460 (instructor 77, graded 60.5) and sealed169 c.s1719 (77, 61.5): 'Quantize
    the weights to int8, but only if the 40 GB spike is still a memory problem after flash
    attention' offers int8 on a condition; the 'but' ended the condition's scope before it
    reached the lever, so it read as a plain fix and was charged as recommending the trap."""
    body = ("## Fixes\n1. FlashAttention: no materialized score matrix.\n"
            "2. Quantize the weights to int8, but only if the 40 GB spike is still a memory problem "
            "after flash attention.\n")
    a = read_body(grader, tmp_path, "c_document_summarizer", body)
    assert "quantize_int8" not in _levers(a.fixes)
    assert "quantize_int8" in _levers(a.deferred)


def test_a_hedged_bare_no_answers_the_question_before_it(grader, tmp_path):
    """sealed164 c.s1666 (instructor 100, graded 85.5): '7. **Batching?** Probably not - each
    prompt is already enough work ...' answers its own question; a bare 'no' did, a hedged one
    left batching neither refused nor recommended. A hedged refusal leans to refusing."""
    body = ("1. **Fix first: FlashAttention.** Tiled, on-chip scores.\n"
            "2. **Batching?** Probably not - each prompt is already enough work to saturate the GPU.\n")
    a = read_body(grader, tmp_path, "c_document_summarizer", body)
    assert "raise_batch" in _levers(a.rejects)

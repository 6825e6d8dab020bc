"""Classes from the blind sets sealed213-224 after their one measurement (issue 27), each with the
student's own sentences: a cause is no verdict, a cause clause carries no deferral, "What I
would skip:" refuses what follows it, "has it right" sides with a claim, and a fix's figure
written wrong is a wrong reason."""

from __future__ import annotations

from conftest import answer_file, read_body


def test_a_cause_after_the_nominal_regime_is_no_verdict(grader, tmp_path):
    """sealed216 c.s2181 (instructor 100, graded 76): only the nominal regime named; the words of
    a clause from 'because of' on are the cause, not the verdict ("memory traffic")."""
    a = read_body(grader, tmp_path, "c_document_summarizer",
                  "## Regime\nPrefill, compute-bound in principle, but running far below that because of "
                  "attention memory traffic. The complaint is TTFT.\n")
    assert a.regime == "compute_bound"
    b = read_body(grader, tmp_path, "e_doesnt_add_up",
                  "## Regime\nBandwidth-bound in principle, but the 14% / 3% profile suggests overhead.\n")
    assert b.regime == "overhead_bound"   # the verdict in the word a regime shortens to, as before


def test_a_cause_clause_carries_no_deferral_to_the_verdict_after_its_colon(grader, tmp_path):
    """sealed215 a.s2171 (instructor 100, graded 30): 'after' in '... since it changes how
    everything after it reads:' is the cause's, not a deferral of what follows."""
    a = read_body(grader, tmp_path, "a_chatbot",
                  "I'll lead with the conclusion, since it changes how everything after it reads: this "
                  "deployment is a bandwidth-bound decode loop, and it is already running close to the best "
                  "a one-request-at-a-time server can do on this card.\n")
    assert a.regime == "bandwidth_bound"
    b = read_body(grader, tmp_path, "a_chatbot",
                  "After the graphs are in: batch the requests.\n")   # a condition still carries
    assert not [m for m in b.fixes if "continuous_batching" in m.concepts or "raise_batch" in m.concepts]


def test_what_i_would_skip_refuses_what_follows_the_colon(grader, tmp_path):
    """sealed215 a.s2171: 'What I would skip: fusing the elementwise ops.' was read as a fix; the
    refusal ends its head, and its object is after the colon. 'What's wrong:' names a problem."""
    a = read_body(grader, tmp_path, "a_chatbot",
                  "What I would skip: fusing the elementwise ops. At batch 1 they touch 0.04% of bytes.\n")
    assert [m.concepts for m in a.rejects] == [("fuse_elementwise",)] and not a.fixes
    b = read_body(grader, tmp_path, "c_document_summarizer",
                  "What's wrong: users wait for the first token, so this is about prefill, and prefill of a "
                  "25,000-token document should be compute-bound.\n")
    assert b.regime == "compute_bound"


def test_the_second_engineer_has_it_right_endorses_the_claim_stated_after_it(grader, tmp_path):
    """sealed206 b.s2085 (instructor 1, graded 27.5): siding with the second engineer, then the
    claim in the student's own words, negative as the claim is: endorsed, not refused."""
    a = read_body(grader, tmp_path, "b_training_run",
                  "At 61% of peak this step is compute-bound, and I think the second engineer has it right: "
                  "when the GEMMs are the bottleneck, the small memory-bound kernels are off the critical "
                  "path and speeding them up won't move the step time much.\n")
    assert a.endorsed == ["memory_ops_irrelevant_when_compute_bound"]
    b = read_body(grader, tmp_path, "b_training_run",
                  "The first engineer has it right: the small memory-bound kernels are 22% of the step, and "
                  "the second engineer's claim that they don't matter mixes up two things.\n")
    assert not b.endorsed


def _fix_credit(grader, tmp_path, case: str, body: str) -> str:
    """The feedback on the answer's fixes and rejections, one string."""
    r = grader.grade(answer_file(tmp_path, case, body))
    return " ".join(line for p in r.parts if p.part in ("fixes", "rejections") for line in p.feedback)


def test_a_fixs_figure_written_wrong_is_a_wrong_reason_and_a_rounding_is_not(grader, tmp_path):
    """sealed215 a.s2177 (instructor 42, graded 65): 'Quantize to int8 - the ceiling goes to 430
    tokens/s' (the key has 408; 430 is case E's 215 doubled) earned the whole item. rubric.yaml
    reasons.off_value: more than 3% and at most 50% from the cited figure, and none of the key's."""
    wrong = _fix_credit(grader, tmp_path, "a_chatbot",
                        "## Fixes\n1. Continuous batching, one weight read serves many users.\n"
                        "2. Quantize to int8: the ceiling goes to 430 tokens/s.\n")
    assert "Right fix, not its reason: quantize int8" in wrong
    rounded = _fix_credit(grader, tmp_path, "a_chatbot",
                          "## Fixes\n1. Continuous batching, one weight read serves many users.\n"
                          "2. Quantize to int8: the ceiling goes to around 410 tokens/s.\n")
    assert "quantize int8" not in rounded
    other = _fix_credit(grader, tmp_path, "c_document_summarizer",
                        "## Reject\n- Quantizing weights: 0.6 MB of weights per token is nowhere near the "
                        "bottleneck at 25k tokens per pass.\n")
    assert "quantize" not in other.lower()   # another quantity in bytes, not 16 GB written wrong


def test_six_levers_listed_under_fixes_commit_to_none(grader, tmp_path):
    """sealed218 a.s2210 (instructor 0, graded 18): six bare levers under Fixes, traps among them,
    earned the fixes and their order; `commit.max_fixes` levers named is a list. Five commit."""
    six = read_body(grader, tmp_path, "a_chatbot",
                    "## Fixes\n- continuous batching\n- int8 quantization\n- fuse elementwise ops\n"
                    "- bigger GPU\n- tensor parallel\n- CUDA graphs\n")
    assert not six.fixes and len(six.stuffed) == 6
    five = read_body(grader, tmp_path, "a_chatbot",
                     "## Fixes\n- continuous batching\n- int8 quantization\n- fuse elementwise ops\n"
                     "- bigger GPU\n- CUDA graphs\n")
    assert len(five.fixes) == 5 and not five.stuffed

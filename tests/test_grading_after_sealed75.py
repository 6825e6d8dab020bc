"""Readings from the blind sets sealed68-75 after their one measurement (issue 27): excellent
essays read short - a comparison read as a refusal, an early limiter that blocked the essay's
own verdict, a part of the step read as its regime, a scope running past the student's own
"I would", and a step put second read as refused."""

from __future__ import annotations

from conftest import read_body


def _statuses(grader, said: str, kinds: tuple[str, ...] = ("lever", "claim")):
    from regime.engine.grading.context import judge
    c = grader.concepts
    return [(j.match.concepts, j.status) for j in judge(c, c.context, kinds, said)]


def test_against_before_a_figure_compares(grader, tmp_path):
    """sealed69 a.s713 (instructor 100, graded 65): "78% of peak HBM bandwidth against only 4% of
    peak FLOPs is the bandwidth-bound signature" affirms bandwidth-bound; "against" before a
    lever still refuses it."""
    body = ("At batch 1 every decode step reads the 26 GB of weights. The profiler agrees, because 78% of "
            "peak HBM bandwidth against only 4% of peak FLOPs is the bandwidth-bound signature.\n")
    assert read_body(grader, tmp_path, "a_chatbot", body).regime == "bandwidth_bound"
    assert _statuses(grader, "I am against int4 weight quantization here.") == \
        [(("quantize_int4",), "negated")]


def test_a_limiter_is_the_verdict_only_where_no_regime_is_named(grader, tmp_path):
    """sealed70 d.s722 (instructor 100, graded 66): "Int4 ... is a big win when a decode loop is
    waiting on memory" came first and kept "we have crossed into compute-bound territory" from
    being the verdict. An essay naming no regime still takes its limiter."""
    body = ("Short answer: not for this endpoint. Int4 makes the weights smaller, which is a big win when a "
            "decode loop is waiting on memory. We are not in that situation. At batch 256 each weight byte "
            "does about 256 FLOPs, so we have crossed into compute-bound territory.\n")
    assert read_body(grader, tmp_path, "d_high_throughput_api", body).regime == "compute_bound"
    limiter = ("Decode at batch 1 is limited by how fast we can stream the weights out of HBM, not by "
               "arithmetic.\n")
    assert read_body(grader, tmp_path, "a_chatbot", limiter).regime == "bandwidth_bound"


def test_something_bound_is_a_part_of_the_step(grader, tmp_path):
    """sealed75 c.s773 (instructor 97, graded 71): "compute-bound in principle, yet ... only 20% of
    peak FLOP rate - so something memory-bound is eating the time" is a compute-bound answer
    with a memory-bound part; "the step is memory-bound" is a verdict."""
    body = ("Prefill of a 25k-token prompt is compute-bound in principle, yet the profiler shows only 20% "
            "of peak FLOP rate, so something memory-bound is eating the time.\n")
    assert read_body(grader, tmp_path, "c_document_summarizer", body).regime == "compute_bound"
    plain = body.replace("so something memory-bound is eating the time", "so the step is memory-bound")
    assert read_body(grader, tmp_path, "c_document_summarizer", plain).regime == "bandwidth_bound"


def test_a_forward_scope_ends_at_the_students_own_clause(grader):
    """sealed73 a.s753 (instructor 94, graded 72): "rather than queueing requests I would use
    continuous batching" recommends the batching; "rather than continuous batching" refuses it."""
    said = "Traffic is bursty, so rather than queueing requests I would use continuous batching."
    assert _statuses(grader, said) == [(("continuous_batching",), "affirmed")]
    said = "Traffic is bursty, so I would queue requests rather than use continuous batching."
    assert _statuses(grader, said) == [(("continuous_batching",), "negated")]


def test_not_as_the_first_move_puts_a_step_later(grader, tmp_path):
    """sealed68 b.s705 (instructor 85, graded 57): "If that leaves a gap, hand-fused kernels ...,
    but not as the first move" is the worked solution's later step, not a refusal of it."""
    body = ("## Regime\nCompute bound -- 61% of peak flops.\n\n## Fixes\n"
            "1. torch.compile to fuse the elementwise/norm ops automatically.\n"
            "2. If that leaves a gap, hand-fused kernels (what engineer 1 proposes), but not as the first "
            "move.\n")
    a = read_body(grader, tmp_path, "b_training_run", body)
    assert ("hand_fused_kernels",) not in [m.concepts for m in a.rejects]
    assert ("hand_fused_kernels",) in [m.concepts for m in a.fixes + a.deferred]


def test_non_flop_kernels_name_the_zero_flop_share(grader):
    """sealed73 b.s758 (instructor 100, graded 87.5): a table row "non-FLOP kernels | 8% + 9% + 5%
    = 22%" names the share of kernel time in ops that do no FLOPs; "FLOP rate" does not."""
    c = grader.concepts
    assert c.near("zero_flop_share", tuple(c.words("non-FLOP kernels 8% + 9% + 5% = 22%")))
    assert not c.near("zero_flop_share", tuple(c.words("FLOP rate 61%")))


def test_a_lever_described_in_its_own_words_gives_no_other_reason(grader):
    """sealed14 b.s165, sealed42 b.s450 and three more (instructors 100, graded 88-89):
    "torch.compile - auto-fuses norms/adds/silu" describes what the compiler fuses, the lever's
    own meaning, so it is no wrong reason; "to cut the FLOPs of the norms" argues another one."""
    from regime.engine.grading import reasons
    key = grader.key_for_case(grader._case_paths()["b_training_run"])

    def judged(reason: str) -> str:
        return reasons.judge(reason, "torch.compile", "torch_compile", key, grader.concepts,
                             grader.concepts.reasons, grader.rubric.evidence.relative_tolerance)
    assert judged("fuses norm + pointwise") == reasons.NONE
    assert judged("to fuse the norm/activation/residual chain") == reasons.NONE
    assert judged("so fewer FLOPs are executed in the norms, since we are compute-bound") == reasons.WRONG

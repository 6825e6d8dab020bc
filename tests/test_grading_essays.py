"""How essays and memos say things the template would say in a heading (issue 27): classes from
the blind sets sealed20-23 after their one measurement, each with the student's own sentence."""

from __future__ import annotations

import pytest
from conftest import answer_file, lever_statuses, read_body


def test_what_limits_the_step_names_its_regime(grader, tmp_path):
    """sealed22 a.s241 (instructor 100): no '-bound' anywhere, the regime said by its limiter."""
    a = read_body(grader, tmp_path, "a_chatbot",
                  "It is a decode workload at batch 1, and decode at batch 1 is limited by how fast we can "
                  "stream the weights out of HBM, not by arithmetic.\n")
    assert a.regime == "bandwidth_bound"
    b = read_body(grader, tmp_path, "a_chatbot", "The step is not limited by compute at all.\n")
    assert b.regime is None


def test_a_conclusion_cue_concludes_only_the_clause_it_is_in(grader, tmp_path):
    """sealed21 d.s231 (instructor 100): '70% of the bandwidth is sitting idle - so the most it can
    win is ...' concluded nothing about the regime, and overturned the verdict before it."""
    a = read_body(grader, tmp_path, "d_high_throughput_api",
                  "Why: this service is compute-bound, not bandwidth-bound.\n\n"
                  "We're not short of bytes — 70% of the bandwidth is sitting idle — so the most it can win "
                  "is the small fraction of time that is actually memory-stalled.\n")
    assert a.regime == "compute_bound"


def test_an_arrow_ends_the_premise_and_its_negation(grader, tmp_path):
    """sealed22 e.s246 (instructor 92): 'neither BW- nor compute-bound → launch/overhead-bound'."""
    a = read_body(grader, tmp_path, "e_doesnt_add_up",
                  "## Regime\nneither BW- nor compute-bound → launch/overhead-bound (nominally BW-bound, "
                  "bs=1 decode)\n")
    assert (a.regime, a.nominal_regime) == ("overhead_bound", "bandwidth_bound")


@pytest.mark.parametrize(("line", "regime"), [
    ("Probably bandwidth-bound, though it could partly be latency/launch bound too.",   # sealed22 a.s246
     "bandwidth_bound"),
    ("Probably bandwidth-bound, I think, since it's decode at batch 1 (could be partly latency-bound "
     "too).", "bandwidth_bound"),                                                          # sealed21 a.s235
    ("probably compute-bound since it is prefill, though the 20% FLOP rate makes me think it could "
     "also be memory-bound.", None),                                                       # sealed6 c.s86
    ("Maybe compute-bound, maybe memory — hard to say with 20% FLOPs.", None),             # sealed4 c.s68
])
def test_a_secondary_factor_is_not_an_alternative(grader, tmp_path, line, regime):
    """The blind grades read the first as a hedged verdict (6-8 of 20 off), the last two as none."""
    a = read_body(grader, tmp_path, "a_chatbot", f"## Regime\n{line}\n")
    assert a.regime == regime
    assert a.regime is None or a.regime_hedged


def test_a_lever_named_to_set_off_another_is_neither_fix_nor_rejection(grader):
    """sealed21 a.s231: 'unlike batching it also helps a lone user'; sealed14 d.s161: 'fp8 GEMMs
    (raises the compute ceiling, unlike weight-only int4)'."""
    got = lever_statuses(grader, "int8 doubles the ceiling, and unlike batching it also helps a lone user.")
    assert got["quantize_int8"] == "affirmed" and got["continuous_batching"] == "contrasted"
    got = lever_statuses(grader, "fp8 GEMMs raise the compute ceiling, unlike weight-only int4.")
    assert got["quantize_int4"] == "contrasted"


def test_a_claim_quoted_in_the_evidence_is_not_endorsed(grader, tmp_path):
    """sealed21 b.s234 (instructor 100) quoted the second engineer to refute him, and was charged
    for endorsing the claim."""
    a = read_body(grader, tmp_path, "b_training_run",
                  "## Evidence\nThe second engineer says \"we're compute-bound, so memory-bound ops don't "
                  "matter.\" The kernel breakdown says otherwise: 22% of the time is in zero-FLOP kernels.\n")
    assert a.endorsed == []


def test_not_where_i_would_start_defers(grader):
    """sealed21 b.s231: 'two weeks of hand-written kernels is not where I'd start'."""
    got = lever_statuses(grader, "Two weeks of hand-written fused kernels is not where I'd start.")
    assert got["hand_fused_kernels"] == "deferred"


def test_the_ceiling_said_as_what_removing_the_time_gives(grader, tmp_path):
    """sealed20 b.s221: 'removing all 22% takes us from 61% to about 61/0.78 ≈ 78% of peak'."""
    p = answer_file(tmp_path, "b_training_run",
                    "## Regime\ncompute-bound\n\n## Evidence\n- Removing all "
                    "22% takes us from 61% to about 61/0.78 ≈ 78% of peak, roughly a 28% shorter step.\n")
    ev = next(x for x in grader.grade(p).parts if x.part == "evidence")
    assert not any("78%" in f and "Missing" in f for f in ev.feedback)


def test_deferring_a_lever_the_key_refuses_outright_rejects_nothing(grader, tmp_path):
    """sealed23 c.s257: 'Once FlashAttention is in, quantize the weights to int8 to bring ITL down'
    keeps int8 as a later step the worked solution rejects outright (instructor: not rejected).
    E's rejections hold only until the overhead is gone (`for_now:`): deferring them agrees."""
    def rejections(case: str, body: str) -> float:
        r = grader.grade(answer_file(tmp_path, case, body))
        assert not r.penalties
        return next(x for x in r.parts if x.part == "rejections").points
    c = "## Fixes\n1. FlashAttention.\n2. Once FlashAttention is in, quantize the weights to int8.\n"
    assert rejections("c_document_summarizer", c) == 0
    e = ("## Fixes\n1. CUDA graphs.\n2. torch.compile.\n3. Once the gaps are gone, re-measure; only then "
         "quantize the weights to int8.\n")
    assert rejections("e_doesnt_add_up", e) > 0


def test_an_imperative_plan_item_recommends(grader, tmp_path):
    """sealed21 b.s240: a prose plan's '3. Look at the to_copy casts.' is its third fix."""
    a = read_body(grader, tmp_path, "b_training_run",
                  "Compute-bound at 61%.\n\nPlan:\n1. torch.compile to fuse "
                  "the norm and activation kernels.\n2. Look at the to_copy casts.\n")
    fixes = [c for m in a.fixes for c in m.concepts]
    assert fixes[0] == "torch_compile" and "fix_dtype_casts" in fixes


def test_what_usually_holds_is_the_nominal_regime(grader, tmp_path):
    """sealed17 d.s197: 'although decode is usually memory-bound' states theory, not the verdict;
    "I'm" reads as "I am"."""
    a = read_body(grader, tmp_path, "d_high_throughput_api",
                  "## Regime\nLooks compute-bound at 71 % of peak FLOP, although decode is usually "
                  "memory-bound.\n")
    assert (a.regime, a.nominal_regime) == ("compute_bound", "bandwidth_bound")
    assert grader.concepts.words("I'm sure") == ["i", "am", "sure"]


def test_another_cases_figures_carry_no_reason(grader, tmp_path):
    """sealed20 a.s228 (instructor 39): case E's 14%/3% and 215 tok/s, then bare fixes; the
    instructor charged 'batching with no reason', which the wrong evidence does not supply."""
    p = answer_file(tmp_path, "a_chatbot",
                    "## Regime\nBandwidth bound decode, batch 1.\n\n## Evidence\n"
                    "- ceiling = 5.3 TB/s / 24.65 GB = 215 tokens/s, measured 160 tokens/s is ~74%.\n"
                    "- bw 14% vs flops 3%, 450 kernels, 8-15 us gaps.\n\n"
                    "## Fixes\n1. Batch requests together (continuous batching).\n2. int8 quantization.\n")
    r = grader.grade(p)
    fixes = next(x for x in r.parts if x.part == "fixes")
    assert fixes.points < fixes.max_points and any(x["status"] == "foreign_figures" for x in r.readings)


def test_a_bare_negation_before_a_quotation_refuses_it(grader):
    """sealed22 d.s241 (instructor 100): 'And not "just raise the batch further": past the ridge ...'."""
    got = lever_statuses(grader, 'And not "just raise the batch further": past the ridge it only '
                                 'adds latency.')
    assert got["raise_batch"] == "negated"


def test_a_regime_naming_kernels_describes_them_not_the_step(grader, tmp_path):
    """sealed22 b.s245: 'these memory-bound kernels are also stalling the GEMMs' then 'Regime:
    compute bound, 61% MFU.' The first is a property of the kernels."""
    a = read_body(grader, tmp_path, "b_training_run",
                  "Hand-write fused kernels: these memory-bound kernels are also stalling the GEMMs "
                  "around them.\n\nRegime: compute bound, 61% MFU.\n")
    assert a.regime == "compute_bound"


@pytest.mark.parametrize(("said", "lever", "status"), [
    # sealed25 a.s278 (instructor 100): someone else's proposal, then the student's no
    ('Someone said "let\'s fuse the elementwise ops" — I wouldn\'t: at batch 1 the win is invisible.',
     "fuse_elementwise", "negated"),
    ("Int4: I'd say no, we're not bandwidth limited.", "quantize_int4", "negated"),   # sealed24 d.s265
    # sealed17 d.s191: a dismissal
    ("Pushing the batch much above 256 won't do much: past the ridge, extra batch costs time.",
     "raise_batch", "negated"),
    ('And the "GPU with more FLOPs" idea is backwards, we use 4% of the FLOPs we have.',
     "buy_more_flops", "negated"),
])
def test_refusals_in_students_words(grader, said, lever, status):
    assert lever_statuses(grader, said)[lever] == status


def test_a_negation_inside_a_clause_does_not_carry_past_it(grader, tmp_path):
    """sealed25 a.s278: 'So the regime, not the code, is the limit: bandwidth-bound decode.'"""
    a = read_body(grader, tmp_path, "a_chatbot",
                  "So the regime, not the code, is the limit: bandwidth-bound decode.\n")
    assert a.regime == "bandwidth_bound"


def test_a_lever_refused_in_passing_then_made_conditional_is_the_conditional(grader, tmp_path):
    """sealed25 b.s271 (instructor 100): '1. torch.compile first ... instead of two weeks of hand-
    written kernels' then '3. Hand-fused kernels only if 1 and 2 leave a real gap'."""
    p = answer_file(tmp_path, "b_training_run",
                    "## Regime\ncompute-bound\n\n## Fixes\n"
                    "1. torch.compile first, instead of two weeks of hand-written kernels.\n"
                    "2. Look at to_copy.\n3. Hand-fused kernels only if 1 and 2 leave a real gap.\n")
    r = grader.grade(p)
    assert not r.penalties and next(x for x in r.parts if x.part == "order").points > 0


def test_an_empty_reject_section_is_no_unread_lever(grader, tmp_path):
    """sealed24 c.s265: '## Reject' then '- (none)' says nothing to read, not a lever to guess."""
    p = answer_file(tmp_path, "c_document_summarizer",
                    "## Regime\ncompute-bound\n\n"
                    "## Fixes\n1. FlashAttention.\n\n## Reject\n- (none)\n")
    r = grader.grade(p)
    assert not any("could not tell" in f for part in r.parts for f in part.feedback)

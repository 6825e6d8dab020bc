"""Layouts and sentence shapes from the blind sets sealed28-31 after their one measurement
(issue 27): table headers, lines that introduce a list, counterfactual conditions, what a
deferral waits for, a refusal pointing back, and verdicts said around their commas."""

from __future__ import annotations

import pytest
from conftest import answer_file, lever_statuses, read_body

from regime.engine.grading.context import judge


def test_a_tables_header_row_is_no_item(grader, tmp_path):
    """sealed29 d.s319 (instructor 95): '| lever | verdict | reason |' is no unread lever."""
    a = read_body(grader, tmp_path, "d_high_throughput_api",
                  "## Fixes\n| lever | verdict | reason |\n|---|---|---|\n"
                  "| int4 (vendor) | no | cuts bytes, bytes are idle |\n"
                  "| fp8 GEMM | yes | higher compute ceiling |\n")
    assert not a.unread
    assert [m.concepts for m in a.fixes] == [("fp8_gemm",)]
    assert [m.concepts for m in a.rejects] == [("quantize_int4",)]


def test_a_line_ending_in_a_colon_introduces_the_list(grader, tmp_path):
    """sealed30 d.s321 (instructor 100): 'For more throughput here, attack compute:' names no
    lever of its own, so it is no unread item (and no extra entry in a keyword list)."""
    a = read_body(grader, tmp_path, "d_high_throughput_api",
                  "## Fixes\nWhat I would tell the director:\n\nFor more throughput here, attack compute:\n"
                  "1. fp8 GEMMs on the matrix cores.\n2. Fused attention and better GEMM tiling.\n")
    assert not a.unread
    assert [m.concepts for m in a.fixes] == [("fp8_gemm",), ("fuse_attention",), ("better_gemm_tiling",)]


@pytest.mark.parametrize(("said", "lever", "status"), [
    # sealed29 d.s316 (instructor 100): the condition does not hold, so nothing is recommended
    ("If we were serving at batch 1-32, int4 would be a ~4x win on a bandwidth-bound decode.",
     "quantize_int4", "counterfactual"),
    # sealed30 e.s330 (instructor 99): graphs and compile are what the deferral waits for
    ("Only after graphs + compile, if it's truly BW-bound, do batching/int8 make sense.",
     "cuda_graphs", "prerequisite"),
    ("Only after graphs + compile, if it's truly BW-bound, do batching/int8 make sense.",
     "quantize_int8", "hypothetical"),
    # sealed31 e.s336 (instructor 88): a refusal in a later clause points back at both
    ("Batching and int8 are the usual decode fixes, but they target bytes, and bytes aren't the "
     "limit right now, so I wouldn't do them.", "quantize_int8", "negated"),
    # ... but "rather than queueing them" refuses the queueing, not the batching (sealed25 a.s278)
    ("First, continuous batching: requests are bursty, so rather than queueing them, slot each new "
     "one into the decode batch in flight.", "continuous_batching", "affirmed"),
    # sealed29 d.s316: a different lever from int4 is said to set fp8 off from it
    ("fp8 GEMMs (doubles the compute roof - a different lever from weight-only int4).",
     "quantize_int4", "contrasted"),
])
def test_conditions_and_refusals_of_real_sentences(grader, said, lever, status):
    assert lever_statuses(grader, said).get(lever) == status, lever_statuses(grader, said)


def test_a_counterfactual_reject_item_stays_a_rejection(grader, tmp_path):
    """The item's subject is rejected; its counterfactual sentence does not postpone it."""
    a = read_body(grader, tmp_path, "d_high_throughput_api",
                  "## Reject\n- Int4. If we were serving at batch 1-32, int4 would be a ~4x win. We aren't: "
                  "bytes aren't the limit.\n- Raising the batch past 256: past the ridge.\n")
    assert ("quantize_int4",) in [m.concepts for m in a.rejects]
    assert ("raise_batch",) in [m.concepts for m in a.rejects]
    assert not a.deferred and not a.fixes


def test_prerequisites_under_reject_are_not_rejected(grader, tmp_path):
    a = read_body(grader, tmp_path, "e_doesnt_add_up",
                  "## Reject\n- If we quantized now, fewer bytes wouldn't touch the 38 % idle. No.\n"
                  "Only after graphs + compile, if it's truly BW-bound, do batching/int8 make sense.\n")
    assert ("cuda_graphs",) not in [m.concepts for m in a.rejects]
    assert ("torch_compile",) not in [m.concepts for m in a.rejects]


def test_the_limit_said_before_its_phrase_names_the_regime(grader, tmp_path):
    """sealed7 d.s91 (instructor 100): 'arithmetic, not memory, is the limit'."""
    a = read_body(grader, tmp_path, "d_high_throughput_api",
                  "Continuous batching has already pushed us just past the point where arithmetic, "
                  "not memory, is the limit.\n")
    assert a.regime == "compute_bound"
    b = read_body(grader, tmp_path, "d_high_throughput_api", "Here, not memory, is the limit.\n")
    assert b.regime is None


def test_a_nominal_cue_before_the_first_regime_of_a_sentence_qualifies_it(grader, tmp_path):
    """sealed31 e.s336 (instructor 88): the expectation is nominal; the verdict follows."""
    a = read_body(grader, tmp_path, "e_doesnt_add_up",
                  "On paper this is batch-1 decode, so you'd expect it to look like the chatbot - "
                  "bandwidth-bound, near the ceiling. It isn't. So the step is dominated by launch overhead "
                  "and the gaps.\n")
    assert (a.nominal_regime, a.regime) == ("bandwidth_bound", "overhead_bound")
    b = read_body(grader, tmp_path, "e_doesnt_add_up", "Nominally BW-bound, actually overhead-bound.\n")
    assert (b.nominal_regime, b.regime) == ("bandwidth_bound", "overhead_bound")


def test_a_condition_after_a_refusal_makes_it_conditional(grader):
    """sealed31 b.s339 (instructor 100): 'Don't: ... - only if 1+2 leave a gap' keeps hand
    fusion for later; 'not even if' stays a refusal."""
    said = "Don't: hand-fuse for two weeks up front - only if 1+2 leave a gap; the prize is ~78 % of peak."
    assert lever_statuses(grader, said)["hand_fused_kernels"] == "hypothetical"
    assert lever_statuses(grader, "No int4 - not even if accuracy allows.")["quantize_int4"] == "negated"


def test_a_reject_item_closer_to_a_claim_than_a_lever_rejects_the_claim(grader, tmp_path):
    """sealed28 b.s304: the second engineer's claim disputed in other words."""
    a = read_body(grader, tmp_path, "b_training_run",
                  "## Reject\n- The second engineer: memory-bound ops do take time, 22% of it in "
                  "fact, so they matter.\n")
    assert [m.concepts for m in a.rejects] == [("memory_ops_irrelevant_when_compute_bound",)]


def test_hand_fusion_refused_for_the_compiler_is_no_trap(grader, tmp_path):
    """sealed21 b.s240 (instructor 54, -2 for it): refused because torch.compile covers it, hand
    fusion costs its item, not the penalty for dismissing fusion; refused for being compute-bound
    (corpus b.s03, instructor 5), it is the trap."""
    def penalties(body: str) -> list[str]:
        return [p.id for p in grader.grade(answer_file(tmp_path, "b_training_run", body)).penalties]

    fine = ("## Regime\nCompute-bound.\n\n## Fixes\n1. torch.compile.\n\n## Reject\n"
            "- I wouldn't bother hand-writing kernels for two weeks, torch.compile should cover it.\n")
    trap = ("## Regime\nCompute-bound.\n\n## Fixes\n1. torch.compile.\n\n## Reject\n"
            "- Two weeks of hand-fused kernels: not worth it for a compute-bound step.\n")
    assert "fusion_dismissed_when_compute_bound" not in penalties(fine)
    assert "fusion_dismissed_when_compute_bound" in penalties(trap)


def test_a_memo_labelling_each_paragraph_is_read_by_section(grader, tmp_path):
    """sealed30 c.s328: 'Regime —', 'Evidence —', 'Fixes:' over a list, 'Reject:' label every
    paragraph: the Fixes list recommends as under a heading. One unlabelled paragraph makes the
    whole answer prose again (sealed24 b.s269: '(Ran out of time ... I'd start with torch.compile.)')."""
    memo = ("Regime — compute bound (prefill of a 25k-token prompt).\n\nFixes:\n"
            "1. FlashAttention (tiled, no N² buffer in HBM).\n2. Chunked prefill.\n\n"
            "Reject: batching (TTFT gets worse).\n")
    a = read_body(grader, tmp_path, "c_document_summarizer", memo)
    assert not a.prose and a.regime == "compute_bound"
    assert [m.concepts for m in a.fixes] == [("flash_attention",), ("chunked_prefill",)]
    b = read_body(grader, tmp_path, "b_training_run",
                  "Regime: compute-bound.\n\n(Ran out of time for fixes — I'd start with torch.compile.)\n")
    assert b.prose and [m.concepts for m in b.fixes] == [("torch_compile",)]


def test_a_label_naming_what_its_negation_covers_keeps_the_name_before_it(grader, tmp_path):
    """sealed28 e.s307: 'Overhead-bound: neither bandwidth (14%) nor compute (3%) is saturated'
    states the regime; 'Int4: not for this endpoint' still refuses int4."""
    a = read_body(grader, tmp_path, "e_doesnt_add_up",
                  "## Regime\nOverhead-bound: neither bandwidth (14%) nor compute (3%) is saturated.\n")
    assert a.regime == "overhead_bound"
    assert lever_statuses(grader, "Int4: not for this endpoint now.")["quantize_int4"] == "negated"


def test_a_regime_and_its_synonym_either_side_of_a_slash_is_one_verdict(grader, tmp_path):
    """sealed29 e.s319: 'launch-bound / overhead-bound (nominally BW-bound decode)'."""
    a = read_body(grader, tmp_path, "e_doesnt_add_up",
                  "## Regime\nlaunch-bound / overhead-bound (nominally BW-bound decode)\n")
    assert (a.regime, a.nominal_regime) == ("overhead_bound", "bandwidth_bound")


def test_lever_names_after_a_short_label_recommend_in_prose(grader, tmp_path):
    """sealed31 d.s335: 'For throughput: fp8 GEMMs, better tiling, fused attention.'; a hedge
    among the names ('Other ideas: fp8, maybe bigger batch.') commits to nothing."""
    a = read_body(grader, tmp_path, "d_high_throughput_api",
                  "It is compute-bound.\n\nFor throughput: fp8 GEMMs, better tiling, fused attention.\n")
    assert {c for m in a.fixes for c in m.concepts} == {"fp8_gemm", "better_gemm_tiling", "fuse_attention"}
    b = read_body(grader, tmp_path, "d_high_throughput_api",
                  "It is compute-bound.\n\nOther ideas: fp8, maybe bigger batches.\n")
    assert not b.fixes


def test_a_verdict_with_another_regime_kept_open_is_hedged(grader, tmp_path):
    """sealed26 d.s287 (instructor: 'regime hedged between compute- and bandwidth-bound')."""
    a = read_body(grader, tmp_path, "d_high_throughput_api",
                  "## Regime\n71% FLOPs looks compute-bound, but it might be bandwidth-bound.\n")
    assert (a.regime, a.regime_hedged) == ("compute_bound", True)
    b = read_body(grader, tmp_path, "d_high_throughput_api", "## Regime\nCompute-bound.\n")
    assert (b.regime, b.regime_hedged) == ("compute_bound", False)


def test_a_hedged_fix_has_its_reason_judged(grader, tmp_path):
    """sealed4 e.s66: 'If the gaps are host launch latency, CUDA graphs could help.' gives the
    key's reason; the feedback says it is hedged, not that it lacks a reason."""
    body = ("## Regime\nOverhead-bound.\n\n## Fixes\n"
            "1. If the gaps are host launch latency, CUDA graphs could help.\n")
    r = grader.grade(answer_file(tmp_path, "e_doesnt_add_up", body))
    lines = "\n".join(f for p in r.parts for f in p.feedback)
    assert "Hedged: cuda graphs" in lines
    assert "Cuda graphs: say why" not in lines


def test_a_reject_item_headed_by_who_said_it_answers_their_claim(grader, tmp_path):
    """sealed6 b.s90: 'The second engineer.' heads an argument against the claim; the to_copy
    kernels it names argue, they are not refused. 'engineer' is no misspelt 'engine'."""
    a = read_body(grader, tmp_path, "b_training_run",
                  "## Reject\n- The second engineer. Compute-bound only describes the matmuls; the "
                  "layer_norm / "
                  "elementwise / to_copy kernels (22% together) have no FLOPs, so they absolutely matter.\n")
    assert [m.concepts for m in a.rejects] == [("memory_ops_irrelevant_when_compute_bound",)]
    assert grader.concepts.words("engineer 2") == ["engineer", "2"]


@pytest.mark.parametrize(("said", "regime", "status"), [
    # sealed32 d.s341 (instructor 100): a regime named to contrast with this one
    ("At batch 256 we run at 71 % of compute, the opposite of the usual memory-bound decode picture.",
     "bandwidth_bound", "negated"),
    ("We are at 71% of FLOPs, the mirror image of a memory-bound server.", "bandwidth_bound", "negated"),
    # sealed37 d.s391: what a proposal is built for is not the verdict
    ("The vendor's int4 pitch is built for a bandwidth-bound decode loop.", "bandwidth_bound",
     "hypothetical"),
])
def test_a_regime_named_for_contrast_is_no_verdict(grader, said, regime, status):
    got = {c: j.status for j in judge(grader.concepts, grader.concepts.context, ("regime",), said)
           for c in j.match.concepts}
    assert got.get(regime) == status, got


def test_a_question_recommends_nothing(grader):
    """sealed34 d.s361 (instructor 100): its title asks whether to buy int4; the memo says no."""
    assert lever_statuses(grader, "Memo to the director — should we buy the vendor's int4 quantization?") == {
        "quantize_int4": "asked"}


def test_a_paragraph_ending_in_a_colon_introduces_the_list_after_it(grader, tmp_path):
    """sealed38 a.s401 (instructor 100) and a.s410 (90): 'What I would do, in this order:' and
    'Fixes:' over numbered items recommend them; 'What I would not do:' refuses its items; a
    refusal that is only 'I don't agree' points back at the suggestion before it."""
    a = read_body(grader, tmp_path, "a_chatbot",
                  "So this is bandwidth-bound decode.\n\nWhat I would do, in this order:\n\n"
                  "1. Continuous (in-flight) batching. Traffic is bursty.\n2. int8 weight-only "
                  "quantization.\n\n"
                  "What I would not do:\n- Fuse the norms/RoPE/residual kernels.\n")
    assert [m.concepts for m in a.fixes] == [("continuous_batching",), ("quantize_int8",)]
    assert ("fuse_elementwise",) in [m.concepts for m in a.rejects]
    assert lever_statuses(grader, 'Someone suggested "fusing the elementwise ops". I don\'t agree: they are '
                          "a rounding error.") == {"fuse_elementwise": "negated"}


def test_an_essay_that_names_a_regime_only_to_deny_it(grader, tmp_path):
    """sealed39 e.s414 (instructor 100): 'calling it "bandwidth-bound" would be naming a
    bottleneck it never reaches', '... actually bandwidth-bound, and this one is not'; sealed32
    e.s341: 'On paper a batch-1 decode, so bandwidth-bound — but right now ...' is nominal."""
    a = read_body(grader, tmp_path, "e_doesnt_add_up",
                  'Neither resource is busy, so calling it "bandwidth-bound" would be naming a bottleneck it '
                  "never reaches. What it is bound by is launch overhead.\n\nBatching is the right "
                  "tool for a decode loop that is actually bandwidth-bound, and this one is not.\n")
    assert a.regime == "overhead_bound"
    b = read_body(grader, tmp_path, "e_doesnt_add_up",
                  "## Regime\nOn paper a batch-1 decode, so bandwidth-bound — but right now it's neither. "
                  "It is launch-overhead bound.\n")
    assert (b.nominal_regime, b.regime) == ("bandwidth_bound", "overhead_bound")


def test_two_regimes_joined_by_and_commit_to_neither(grader, tmp_path):
    """sealed33 d.s360 (instructor: 'no regime committed'); a nominal one and a verdict joined
    by 'and' keep the verdict."""
    a = read_body(grader, tmp_path, "d_high_throughput_api",
                  "## Regime\nCompute bound and bandwith bound, its a big model at a big batch\n")
    assert a.regime is None
    b = read_body(grader, tmp_path, "e_doesnt_add_up",
                  "## Regime\nNominally bandwidth-bound, and actually overhead-bound.\n")
    assert (b.nominal_regime, b.regime) == ("bandwidth_bound", "overhead_bound")

"""Classes from the sealed313-320 sets, now development data (issue 27), each with the student's
own sentences."""

from __future__ import annotations

from conftest import lever_statuses, read_body


def _levers(group) -> set[str]:
    return {c for m in group for c in m.concepts}


def test_one_after_another_is_an_order_of_arrival_not_a_deferral(grader, tmp_path):
    """sealed318 a.s3209 (instructor 94, batching recommended; graded 64.4 with it deferred):
    'requests are handled strictly one after another ..., and we should switch that to continuous
    batching'. 'after' there orders requests; it puts nothing after anything (context.yaml
    `pseudo`). 'After that, continuous batching' still defers."""
    said = "Requests are handled one after another, and we should switch that to continuous batching."
    assert lever_statuses(grader, said) == {"continuous_batching": "affirmed"}
    later = "Fix the loop first. After that, continuous batching."
    assert lever_statuses(grader, later) == {"continuous_batching": "deferred"}


def test_the_textbook_move_named_to_be_argued_away_is_not_recommended(grader, tmp_path):
    """sealed319 a.s3218 (instructor 81: 'talks itself out of the biggest win'; graded 100):
    'The textbook move would be continuous batching, but ... there would be nothing to batch.'
    The textbook move that 'would be' is a condition the student sets against the case, as 'would
    be the textbook move' after the name already was."""
    for said in ("The textbook move would be continuous batching, but traffic is low-volume.",
                 "Continuous batching would be the textbook move, but traffic is low-volume."):
        assert lever_statuses(grader, said) == {"continuous_batching": "hypothetical"}, said
    assert lever_statuses(grader, "The move is continuous batching.") == {"continuous_batching": "affirmed"}


def test_the_thing_to_ship_is_a_recommendation(grader, tmp_path):
    """sealed315 c.s3180 (instructor 87, FlashAttention first; graded 69 with it described): 'Most of
    the team's attention has been on the proposals, but the thing to actually ship is
    FlashAttention, which avoids ever writing that score matrix to HBM' (context.yaml `recommend`)."""
    head = "Regime: compute-bound prefill.\n\n"
    said = ("Most of the team's attention has been on the proposals, but the thing to actually ship is "
            "FlashAttention, which avoids ever writing that score matrix to HBM.\n")
    case = "c_document_summarizer"
    assert "flash_attention" in _levers(read_body(grader, tmp_path, case, head + said).fixes)
    told = "FlashAttention avoids ever writing that score matrix to HBM.\n"
    assert "flash_attention" not in _levers(read_body(grader, tmp_path, case, head + told).fixes)


def test_a_name_then_a_dash_and_the_students_own_hedged_verdict(grader):
    """sealed319 c.s3217 (instructor 92: batching refused with a hedge; graded 73 with it raised):
    'Batching — I'd probably hold off.' A dash heads the verdict as a colon does when the student
    gives it in their own voice; 'FlashAttention — no materialised scores' describes the fix."""
    for said in ("Batching — I'd probably hold off.", "Batching—I'd probably hold off.",
                 "Batching - we'd probably hold off."):
        assert set(lever_statuses(grader, said).values()) == {"deferred"}, said
    described = "FlashAttention — no materialised scores, the 40 GB and the 5 TB disappear."
    assert lever_statuses(grader, described) == {"flash_attention": "affirmed"}


def test_compressing_the_weights_names_quantization(grader):
    """sealed318 c.s3209 (instructor 84, both proposals declined; graded with int8 not refused):
    'compressing the weights does nothing for a prompt this long, so I'd skip both'."""
    said = "Compressing the weights does nothing for a prompt this long, so I'd skip it."
    assert lever_statuses(grader, said) == {"quantize_int8": "negated", "quantize_int4": "negated"}


def test_a_shared_labels_refusal_of_another_lever_leaves_the_offer_open(grader):
    """sealed316 e.s3186 (instructor 81: the batch raised 'if users are queueing up', conditional):
    under "Batch / quant:" the words 'quantizing doesn't help ..., skip it' refuse quantization,
    not the batch the label shares with it; the batch's own sentence offers it on a condition. A
    label naming only the lever still carries the words after it ('Int4: if the eval passes, roll
    it out; it frees 51 GB for more batch' offers int4)."""
    from regime.engine.grading.offers import offered_if
    c = grader.concepts
    shared = ("**Batch / quant:** quantizing doesn't help while the GPU is idle, skip it. If users are "
              "queueing up, though, raising the batch is an easy win, so I'd do that now as well.")
    assert offered_if(c, shared, "raise_batch")
    own = "Int4: if the accuracy evaluation passes, roll it out; it frees about 51 GB for more batch."
    assert offered_if(c, own, "quantize_int4")


def test_a_claim_refuted_under_evidence_is_rejected(grader, tmp_path):
    """sealed300 b.s3027 (instructor 100, the claim refuted; graded 87.5 without the rejection): '##
    Evidence / - The second engineer's "we're compute-bound, so ... doesn't matter" mixes two things
    up.' A refutation is a verdict wherever it stands; stated as the student's own it endorses."""
    claim = "memory_ops_irrelevant_when_compute_bound"
    head = ("## Regime\nCompute-bound, 61% of peak FLOP rate.\n\n"
            "## Evidence\n- 22% of kernel time has no FLOPs.\n")
    refuted = head + ("- The second engineer's \"we're compute-bound, so memory ops don't matter\" mixes two "
                      "things up: the 22% carries no FLOPs.\n")
    a = read_body(grader, tmp_path, "b_training_run", refuted)
    assert claim in _levers(a.rejects) and claim not in a.endorsed
    own = read_body(grader, tmp_path, "b_training_run",
                    head + "- We're compute-bound, so memory ops don't matter.\n")
    assert claim in own.endorsed and claim not in _levers(own.rejects)


def test_calling_the_claim_a_confusion_refutes_it(grader):
    """sealed210 b.s2122 (instructor 87): "the second engineer's line, compute-bound means the
    memory ops don't matter, is a confusion: the compute-bound label describes the matmuls"."""
    from regime.engine.grading.context import judge
    said = ("The second engineer's line, that memory ops don't matter, is a confusion: the label "
            "describes the matmuls.")
    found = judge(grader.concepts, grader.concepts.context, ("claim",), said)
    assert [j.status for j in found] == ["negated"]


def test_a_yaml_entry_setting_two_figures_against_each_other_states_both(grader, tmp_path):
    """sealed315 d.s3175, sealed298 d.s3002 (instructors 100; graded 86.8 with both figures
    missing): '{figure: flop_util vs bw_util, value: 71% vs 30%}' states two figures, as 'and'
    between them already did."""
    for joint in ("vs", "vs.", "versus", "and"):
        body = (f"regime: compute_bound\nevidence:\n  - {{figure: flop_util {joint} bw_util, "
                f"value: 71% {joint} 30%}}\n")
        a = read_body(grader, tmp_path, "d_high_throughput_api", body, name="x.yaml")
        assert {"flop_util", "bw_util"} <= set(a.named), joint


def test_a_possible_lever_set_aside_in_the_next_clause_is_refused(grader):
    """sealed305 d.s3077 (instructor 90: the batch named and set aside; graded 75.4 with it left
    open): 'We could raise the batch again, but I'd set that aside: we're already past the ridge.'
    The student's own refusal after 'but' re-judges a possibility as it does a statement; 'that'
    is filler to the reader, so the refusal is elliptical rather than pointing back."""
    for said in ("We could raise the batch again, but I'd set that aside: we're already past the ridge.",
                 "We could raise the batch again, but I'd set it aside."):
        assert lever_statuses(grader, said) == {"raise_batch": "negated"}, said
    assert lever_statuses(grader, "We could raise the batch again.") == {"raise_batch": "possible"}


def test_doubting_a_lever_is_worth_anyones_time_refuses_it(grader):
    """sealed301 b.s3033 (instructor 97: attention fusion refused; graded 81 with it left open):
    "I'm not sure fusing attention is worth anyone's time: it's flash-attention already". A doubt
    of its worth in time refuses, as 'not sure it is wise' does; 'not sure it is worth it' stays a
    hedge (sealed262 b.s2650, sealed128 b.s1310)."""
    said = "I'm not sure fusing attention is worth anyone's time: it's flash-attention already."
    assert lever_statuses(grader, said)["fuse_attention"] == "negated"
    hedge = "I'm not sure fusing attention is worth it."
    assert lever_statuses(grader, hedge) == {"fuse_attention": "possible"}


def test_it_after_what_is_already_in_place_refuses_nothing_before(grader):
    """sealed284 d.s2869 (instructor 70: fp8 and speculative decoding recommended; graded 51.5
    with both refused): "What would help is ...: fp8 matrix multiplies, or speculative decoding.
    The batch of 256 already does its job, so I'd leave it alone." The 'it' left alone is the
    batch in place, not the levers of the sentence before; 'I'd leave it alone' alone still is."""
    levers = "What would help is making the compute side cheaper: fp8 matrix multiplies."
    kept = levers + " The batch of 256 already does its job, so I'd leave it alone."
    assert lever_statuses(grader, kept) == {"fp8_gemm": "affirmed"}
    assert lever_statuses(grader, levers + " I'd leave it alone.") == {"fp8_gemm": "negated"}


def test_considered_and_set_aside_after_a_topic_refuses_it(grader):
    """sealed326 c.s3309 (instructor 100; graded 57.5 with both proposals recommended, measured
    once and then development data): '7. Batching the prefills: considered and set aside — already
    compute-bound ...', '8. Weight quantization: also set aside; ...'."""
    said = "Batching the prefills: considered and set aside — already compute-bound at one sequence."
    assert lever_statuses(grader, said) == {"raise_batch": "negated"}
    also = "Weight quantization: also set aside; 16 GB over 25k tokens is nothing."
    assert set(lever_statuses(grader, also).values()) == {"negated"}

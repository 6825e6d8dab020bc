"""Classes from the sealed289-296 sets, now development data (issue 27), each with the student's
own sentences."""

from __future__ import annotations

from conftest import answer_file, read_body

from regime.engine.grading.submission import read_answer

_CLAIM = "memory_ops_irrelevant_when_compute_bound"


def _levers(found) -> set[str]:
    return {c for m in found for c in m.concepts}


def test_an_agreement_with_a_degree_word_still_agrees(grader, tmp_path):
    """sealed293 b.s2954 (instructor 8, graded 26 with the claim rejected): 'The second engineer
    made the point that ... the memory-bound ops don't really matter. I think that's basically
    right.' A degree word changes nothing; a hedge ('probably right', sealed163 b.s1655) stays one."""
    said = ("Regime: compute-bound. 61% of peak FLOP rate is high for training.\n\nThe second engineer made "
            "the point that since we're compute-bound, the memory-bound ops don't really matter. I think "
            "that's basically right.\n")
    a = read_body(grader, tmp_path, "b_training_run", said)
    assert _CLAIM in a.endorsed and _CLAIM not in _levers(a.rejects)
    hedged = said.replace("basically", "probably")
    assert _CLAIM not in read_body(grader, tmp_path, "b_training_run", hedged).endorsed


def test_a_framed_refusal_points_back(grader, tmp_path):
    """sealed289 c.s2917 (instructor 75, graded 37 with batching left unjudged): 'You suggested "just
    batch the prefills ...". For this workload I'd advise against it: ...' A frame opening on a
    preposition is not a subject of its own; "Tuning kernels won't do it" still is."""
    said = ('You suggested "just batch the prefills, like we did for the chat API". For this workload I\'d '
            "advise against it: a single 25,000-token prompt already fills the GPU with matrix work.\n")
    assert "raise_batch" in _levers(read_body(grader, tmp_path, "c_document_summarizer", said).rejects)


def test_a_time_word_inside_a_subject_puts_nothing_off(grader, tmp_path):
    """sealed295 c.s2973 and sealed296 c.s2988 (instructors 95 and 92, graded 60 and 54 with no
    regime): 'the 4 ms inter-token latency afterwards is perfectly healthy' and '(the 4 ms between
    later tokens is fine)' describe the latency; the regime after them is stated. A condition
    after 'and only if' still covers what follows it (sealed254 b.s2562)."""
    for aside in ("— the 4 ms inter-token latency afterwards is perfectly healthy —",
                  "(the 4 ms between later tokens is fine),"):
        said = (f"That wait is the prefill phase {aside} and prefill on a prompt this long is "
                "compute-bound work.\n")
        assert read_body(grader, tmp_path, "c_document_summarizer", said).regime == "compute_bound"
    cond = ("Regime: compute-bound.\n\nFirst turn on torch.compile. Then, and only if a meaningful gap is "
            "left, let Alex hand-fuse what compile missed.\n")
    assert "hand_fused_kernels" not in _levers(read_body(grader, tmp_path, "b_training_run", cond).fixes)


def test_a_yaml_entry_with_two_names_and_two_values(grader, tmp_path):
    """sealed290 e.s2922, sealed244 e.s2468, sealed256 e.s2584 (instructors 100, 95, 100; graded 82
    with both figures missing): '{figure: bw_util and flop_util, value: 14% and 3%}' states two
    figures, in turn."""
    p = tmp_path / "e.yaml"
    p.write_text("case: e_doesnt_add_up\nstudent: s1\nregime: launch_overhead_bound\nevidence:\n"
                 "  - {figure: bw_util and flop_util, value: 14% and 3%, note: nothing saturated}\n",
                 encoding="utf-8")
    a = read_answer(p, grader.concepts, 1 << 20, p.read_text(encoding="utf-8"))
    assert {k: q.value for k, (q, _) in a.named.items()} == {"bw_util": 14.0, "flop_util": 3.0}


def test_a_lever_named_with_a_step_word_alone_is_in_the_plan(grader, tmp_path):
    """sealed294 b.s2969 (instructor 94, graded 55 with compile only mentioned): '... before anyone
    has tried torch.compile, which fuses exactly these ops for almost no effort. Compile first;
    hand-write kernels only for what is still left.' The later mention commits to it; a later
    description ("Shrinking the bytes attacks a resource ...", sealed70 d.s722) does not."""
    said = ("Regime: compute-bound.\n\nI'm not sure two weeks of hand-fusing is wise before anyone has tried "
            "torch.compile, which fuses exactly these ops for almost no effort. Compile first; hand-write "
            "kernels only for what is still left.\n")
    a = read_body(grader, tmp_path, "b_training_run", said)
    assert "torch_compile" in _levers(a.fixes) and "hand_fused_kernels" not in _levers(a.fixes)
    described = said.replace("Compile first;", "Compiling is cheap;")
    assert "torch_compile" not in _levers(read_body(grader, tmp_path, "b_training_run", described).fixes)


def test_not_on_my_list_refuses(grader, tmp_path):
    """sealed294 b.s2969: 'Fusing attention isn't on my list; it already runs as flash-attention
    and is only 7% of the step.'"""
    said = ("Regime: compute-bound.\n\nFusing attention isn't on my list; it already runs as flash-attention "
            "and is only 7% of the step.\n")
    a = read_body(grader, tmp_path, "b_training_run", said)
    assert "fuse_attention" in _levers(a.rejects) and "fuse_attention" not in _levers(a.fixes)


def _refused_as_prose_and_row(grader, tmp_path, cells: str) -> set[str]:
    """What both readings refuse, and recommend none of: 'NAME | VERDICT' as a sentence of prose
    ('NAME: VERDICT', or 'NAME? VERDICT' for a question) and as a row of a headerless table."""
    head, verdict = (c.strip() for c in cells.split("|"))
    prose = f"{head}{'' if head.endswith('?') else ':'} {verdict}.\n"
    table = f"| | |\n|---|---|\n| Regime | compute-bound |\n| {head} | {verdict} |\n"
    read = [read_body(grader, tmp_path, "d_high_throughput_api", said) for said in (prose, table)]
    refused = _levers(read[0].rejects) & _levers(read[1].rejects)
    return refused - _levers(read[0].fixes) - _levers(read[1].fixes)


def test_a_bare_no_answers_the_question_before_it(grader, tmp_path):
    """sealed291 d.s2939 (instructor 100, graded 70 with batching unjudged): a table row '| Raise
    batch? | no — past the ridge, more batch adds step time about 1:1 and hurts latency |'. The
    'no' answers the question though its sentence goes on to name the lever."""
    said = "Raise batch? | no — past the ridge, more batch adds step time about 1:1 and hurts latency"
    assert _refused_as_prose_and_row(grader, tmp_path, said) == {"raise_batch"}


def test_the_students_refusal_of_it_after_a_modal_and_a_hedge(grader, tmp_path):
    """sealed291 d.s2939: '| int4 for throughput | I probably wouldn't buy it: it trims bytes and
    bytes aren't the limit |', as 'Int4 for throughput: I wouldn't buy it' (read as recommending
    int4 before): a verb and the word pointing back after the student's refusal."""
    said = "int4 for throughput | I probably wouldn't buy it: it trims bytes and bytes aren't the limit"
    assert _refused_as_prose_and_row(grader, tmp_path, said) == {"quantize_int4"}


def test_the_way_to_close_them_recommends(grader, tmp_path):
    """sealed296 e.s2988 (instructor 48 with the graph credited, graded 12.5 with it only
    described): '... the gaps between kernels add up to a big part of the step, and the way to close
    them is to record the step once as a CUDA graph and replay it'."""
    said = ("Regime: overhead-bound.\n\nThe gaps between kernels add up to a big part of the step, and "
            "the way to close them is to record the step once as a CUDA graph and replay it.\n")
    assert "cuda_graphs" in _levers(read_body(grader, tmp_path, "e_doesnt_add_up", said).fixes)


def test_holding_both_refuses_them_and_holding_until_waits_for_the_other(grader, tmp_path):
    """sealed286 e.s2883 (instructor 100, graded 70 with the fixes read as a keyword list): 'A
    colleague suggested we raise the batch right away, and the quantization proposal is still on
    the table. I'd hold both for now.' And sealed113 a.s1160 (instructor 100): "I'd hold int8
    until batching is in" puts off int8, not the batching it waits for."""
    said = ("Regime: overhead-bound.\n\nA colleague suggested we raise the batch right away, and the "
            "quantization proposal is still on the table. I'd hold both for now.\n")
    a = read_body(grader, tmp_path, "e_doesnt_add_up", said)
    assert {"raise_batch", "quantize_int8"} <= _levers(a.rejects) and not a.fixes
    until = "Regime: bandwidth-bound.\n\nI'd hold int8 until batching is in.\n"
    a = read_body(grader, tmp_path, "a_chatbot", until)
    assert "raise_batch" not in _levers(a.rejects) and "quantize_int8" in _levers(a.deferred)


def test_a_regime_said_of_a_share_of_the_step(grader, tmp_path):
    """sealed289 b.s2915 (instructor 95, graded 68 as bandwidth-bound): 'Compute-bound in principle,
    but with a fat tail of memory-bound work that matters.' The tail is memory-bound, the step is
    not; "Kernel-launch bound." (sealed48 e.s507) is still a verdict."""
    said = "## Regime\nCompute-bound in principle, but with a fat tail of memory-bound work that matters.\n"
    assert read_body(grader, tmp_path, "b_training_run", said).regime == "compute_bound"
    assert read_body(grader, tmp_path, "e_doesnt_add_up", "Regime: kernel-launch bound.\n").regime \
        == "overhead_bound"


def test_what_a_lever_would_help_is_not_this_step(grader, tmp_path):
    """sealed282 e.s2850 (instructor 95, graded 64 as bandwidth-bound): 'Batching or quantizing the
    weights would help a loop that is actually limited by memory bandwidth, but here ...'."""
    said = ("About 38% of the time the GPU is simply waiting for the host to hand it the next kernel. "
            "Batching or quantizing the weights would help a loop that is actually limited by memory "
            "bandwidth, but here they would shave bytes off kernels while the gaps stay the same.\n")
    assert read_body(grader, tmp_path, "e_doesnt_add_up", said).regime == "overhead_bound"


def test_a_backward_refusal_after_a_new_subject_is_its_own(grader, tmp_path):
    """sealed286 d.s2889 (instructor 50, graded 20 with compute-bound denied): "I would not raise the
    batch past 256, since we're already compute-limited and it would only lengthen each request."
    'would only' is said of 'it', not of the regime before it."""
    said = ("I would not raise the batch past 256, since we're already compute-limited and it would only "
            "lengthen each request.\n")
    a = read_body(grader, tmp_path, "d_high_throughput_api", said)
    assert "compute_bound" not in a.regimes_denied and "raise_batch" in _levers(a.rejects)


def test_tiny_next_to_the_weight_read_is_the_fusions_reason(grader, tmp_path):
    """sealed266 a.s2685 (instructor 63 with the fusion's rejection in full): 'I doubt fusing the
    elementwise ops would buy much, since those ops are tiny next to the weight read.' 'tiny' says
    what 'negligible' says (rubric.yaml reasons.synonyms)."""
    said = ("Regime: bandwidth-bound.\n\nReject: I doubt fusing the elementwise ops would buy much, since "
            "those ops are tiny next to the weight read.\n")
    r = grader.grade(answer_file(tmp_path, "a_chatbot", said))
    feedback = "\n".join(line for p in r.parts for line in p.feedback)
    assert "not its reason: fuse elementwise" not in feedback


def test_the_regime_of_the_work_dragging_the_average_is_a_parts(grader, tmp_path):
    """sealed276 c.s2783 (instructor 92, graded 71 as bandwidth-bound): 'prefill over 25k tokens
    ought to be compute-bound ... That is the memory-bound work dragging the average to 20%'."""
    said = ("Prefill over 25k tokens ought to be compute-bound. The score matrix goes through HBM several "
            "times. That is the memory-bound work dragging the average to 20%.\n")
    assert read_body(grader, tmp_path, "c_document_summarizer", said).regime == "compute_bound"


def test_batching_up_the_launches_batches_no_requests(grader, tmp_path):
    """sealed261 e.s2639 (instructor 36, no batching charged; graded 13 with the idle-GPU batching
    penalty): 'Fixes: CUDA graphs to batch up the launches.' (concepts.yaml `not_objects`)."""
    a = read_body(grader, tmp_path, "e_doesnt_add_up", "Fixes: CUDA graphs to batch up the launches.\n")
    assert _levers(a.fixes) == {"cuda_graphs"}
    b = read_body(grader, tmp_path, "e_doesnt_add_up", "Fixes: batch up the requests.\n")
    assert "raise_batch" in _levers(b.fixes)


def test_a_hedge_right_after_but_reopens_a_lever(grader, tmp_path):
    """sealed269 d.s2717 (instructor 49, int4 'not rejected', graded 72 with it refused): 'int4 -
    vendor says 4x. prob not 4x here but int4 might still give a decent speedup, worth piloting for
    throughput'. The hedge after 'but' leaves int4 open, as one opening on 'Still,' does."""
    said = ("regime: compute bound i think, 71% flops / 30% bw\nint4 - vendor says 4x. prob not 4x here but "
            "int4 might still give a decent speedup, worth piloting for throughput\n")
    a = read_body(grader, tmp_path, "d_high_throughput_api", said)
    assert "quantize_int4" in _levers(a.hedged) and "quantize_int4" not in _levers(a.rejects)
    turned = ("In general int4 is a bandwidth fix, and we are not bandwidth-limited, so on its own it won't "
              "deliver the promised speedup. However, if the vendor can demonstrate int4 GEMM kernels whose "
              "dequantization is essentially free, then we should adopt int4 for this endpoint.\n")
    assert "quantize_int4" in _levers(read_body(grader, tmp_path, "d_high_throughput_api", turned).hedged)


def test_a_condition_after_the_levers_label_offers_it(grader, tmp_path):
    """sealed277 d.s2796 and sealed288 d.s2910 (instructors 15 and 72, each charging int4 adopted on
    a condition): 'On int4: if the accuracy eval comes back clean, roll int4 out'. And 'Plain
    answer: compute-bound.' names the regime: 'plain' is no misspelt 'plan' heading."""
    said = ("Plain answer: compute-bound. 71% of peak FLOPs vs 30% of peak bandwidth.\n\nOn int4: if the "
            "accuracy eval comes back clean, roll int4 out — the weights drop from 68 GB to 17 GB.\n")
    r = grader.grade(answer_file(tmp_path, "d_high_throughput_api", said))
    assert "leans_to_a_rejected_lever" in {p.id for p in r.penalties}
    assert read_body(grader, tmp_path, "d_high_throughput_api", said).regime == "compute_bound"


def test_agree_with_and_i_am_with_take_a_side(grader, tmp_path):
    """sealed245 b.s2477 and sealed253 b.s2556 (instructors 1 and 12, graded 27.5 and 31.5 with the
    claim rejected): 'agree w/ 2nd engineer: were compute bound so the memory-bound ops ... arent the
    bottleneck' and "I'm with the second engineer here. ... they aren't worth two weeks." Both
    endorse the claim they state."""
    for said in ("regime: compute bound, 61% MFU.\nagree w/ 2nd engineer: were compute bound so the "
                 "memory-bound ops (layernorm, silu, copies) arent the bottleneck, matmuls are.\n",
                 "**Regime:** compute-bound.\n\n**Diagnosis:** I'm with the second engineer here. When a "
                 "step is compute-bound the GEMMs set the pace, and the memory-bound ops aren't worth "
                 "two weeks.\n"):
        assert _CLAIM in read_body(grader, tmp_path, "b_training_run", said).endorsed


def test_the_way_to_use_it_recommends_and_ish_hedges(grader, tmp_path):
    """sealed244 d.s2465 (instructor 22: the regime hedged, batching the main fix; graded 48.5):
    'Regime: compute-bound-ish. ... So the memory system has 70% headroom we're not using. The way
    to use it is to push the batch higher — 512 or more'."""
    said = ("Regime: compute-bound-ish.\n\nThe numbers: 71% of peak FLOP rate, 30% of peak bandwidth. So the "
            "memory system has 70% headroom we're not using. The way to use it is to push the batch higher — "
            "512 or more — so that more requests are in flight.\n\nInt4: no. Bandwidth isn't saturated.\n")
    a = read_body(grader, tmp_path, "d_high_throughput_api", said)
    assert a.regime == "compute_bound" and a.regime_hedged and "raise_batch" in _levers(a.fixes)


def test_someone_elses_fix_taken_up_in_the_same_clause(grader, tmp_path):
    """sealed269 e.s2717 (instructor 0: int8 the main fix, 'agreeing with a colleague'; graded 21
    with it reported only): 'A colleague suggested quantizing the weights to int8 and I agree:
    halving the bytes per step should roughly double tokens/s.'"""
    said = ("We're 6x below the 215 tok/s ceiling on a batch-1 decode loop, which is a bandwidth-bound "
            "workload. A colleague suggested quantizing the weights to int8 and I agree: halving the bytes "
            "per step should roughly double tokens/s.\n")
    assert "quantize_int8" in _levers(read_body(grader, tmp_path, "e_doesnt_add_up", said).fixes)


def test_a_proposing_question_answered_yes_is_taken_up(grader, tmp_path):
    """sealed294 e.s2965 (instructor 0, batching adopted as the main fix; graded 26 with it
    refused): 'The director asked, "can't we just batch more users together?" Yes — that's the
    right call.' The quotation's question ends a sentence; its "can't we" proposes; the yes takes
    it up. A concession's "Yes, the step is compute-bound" (sealed16 b.s183) takes up nothing."""
    said = ("Regime: memory-bandwidth-bound (batch-1 decode).\n\nThe director asked, \"can't we just batch "
            "more users together?\" Yes — that's the right call. At batch 1 the bandwidth counter shows "
            "14%.\n")
    a = read_body(grader, tmp_path, "e_doesnt_add_up", said)
    assert "raise_batch" in _levers(a.fixes) and "raise_batch" not in _levers(a.rejects)
    conceded = ('The second engineer says "we\'re compute-bound, so memory-bound ops don\'t matter." That is '
                "a confusion of two things. Yes, the step is compute-bound, 61% of peak FLOP rate.\n")
    assert _CLAIM not in read_body(grader, tmp_path, "b_training_run", conceded).endorsed


def test_a_question_answered_not_yet_and_a_when_clause_put_levers_off(grader, tmp_path):
    """sealed300 e.s3022 (instructor 100, graded 30 with its plan read as a keyword list and
    batching charged): 'The director asked, "Can't we just batch more users ...?" Not yet.' and
    '...; when the loop is truly bandwidth-bound, batching and int8 weights become the right next
    steps.' Both put batching off; "When nothing is saturated, the loop is overhead-bound" is
    still the verdict."""
    said = ('Regime: overhead-bound.\n\nThe director asked, "Can\'t we just batch more users together?" Not '
            "yet.\n\nWhat I'd do: first, capture the decode step in a CUDA graph. Second, use torch.compile. "
            "Third, measure again; when the loop is truly bandwidth-bound, batching and int8 weights become "
            "the right next steps.\n")
    a = read_body(grader, tmp_path, "e_doesnt_add_up", said)
    assert {"cuda_graphs", "torch_compile"} <= _levers(a.fixes) and not {"raise_batch", "quantize_int8"} \
        & _levers(a.fixes)
    assert "raise_batch" in _levers(a.deferred)
    verdict = "When nothing is saturated, the loop is overhead-bound.\n"
    assert read_body(grader, tmp_path, "e_doesnt_add_up", verdict).regime == "overhead_bound"

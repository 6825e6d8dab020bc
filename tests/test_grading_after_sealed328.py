"""Classes from the sealed321-328 sets, now development data (issue 27), each with the student's
own sentences."""

from __future__ import annotations

from conftest import lever_statuses, read_body


def test_what_cannot_help_is_refused(grader):
    """sealed327 e.s3337 (instructor 81: batching and quantization refused; graded 30 with both
    recommended): '... until then they can't help'. 'can't help' refuses as 'won't help' does
    (context.yaml `negated.backward`)."""
    for said in ("Batching can't help.", "Batching cannot help here.", "Batching could not help."):
        assert set(lever_statuses(grader, said).values()) == {"negated"}, said
    assert set(lever_statuses(grader, "Batching can help.").values()) == {"affirmed"}


def test_a_lever_for_another_kind_of_loop_is_a_condition(grader):
    """The same answer: 'Batching and quantization are for a loop that's really bandwidth-bound'
    says what kind of loop they treat, not that this one gets them (`hypothetical.backward`)."""
    said = "Quantization is for a loop that's really bandwidth-bound."
    assert set(lever_statuses(grader, said).values()) == {"hypothetical"}
    assert set(lever_statuses(grader, "Quantization is the fix for this loop.").values()) == {"affirmed"}


def test_the_gpu_doing_compute_bound_work_is_a_verdict(grader, tmp_path):
    """sealed318 c.s3209 (instructor 84, graded 44 with no regime found): 'the GPU is doing
    compute-bound work on a 25,000-token prompt'. After 'doing' a regime names a part of the step
    unless the step itself does it (context.yaml `whole`); 'attention is doing memory-bound work'
    still names a part (test_grading_after_sealed115)."""
    case = "c_document_summarizer"
    said = "The GPU is doing compute-bound work on a 25,000-token prompt.\n"
    assert read_body(grader, tmp_path, case, said).regime == "compute_bound"
    part = "Attention is doing memory-bound work.\n"
    assert read_body(grader, tmp_path, case, part).regime != "bandwidth_bound"


def _claims(grader, said: str) -> dict[str, str]:
    from regime.engine.grading.context import judge
    return {c: j.status for j in judge(grader.concepts, grader.concepts.context, ("claim",), said)
            for c in j.match.concepts}


def test_what_the_engineer_argued_is_reported(grader):
    """sealed328 b.s3317 (instructor 95: the claim refuted; graded 57.5 with it taken up): 'Our
    second engineer argued that since we're compute-bound the memory-bound ops don't matter.' The
    past of a verb of arguing reports, as its present does (`attributed.forward`)."""
    for verb in ("argued", "claimed", "insisted"):
        said = f"Our second engineer {verb} that since we're compute-bound the memory-bound ops don't matter."
        assert set(_claims(grader, said).values()) == {"attributed"}, said
    own = "Since we're compute-bound the memory-bound ops don't matter."
    assert set(_claims(grader, own).values()) == {"affirmed"}


def test_a_topic_framed_before_a_comma_heads_the_students_verdict(grader):
    """The same answer: 'On fusing attention, I'm not sure that's wise: it is already flash-attention'.
    A topic opener and a comma head the student's own verdict as a colon does (context.yaml
    `topic_openers`, `heading`); "On balance, I would fuse attention" frames nothing."""
    for said in ("On fusing attention, I'm not sure that's wise: it is already flash-attention.",
                 "As for fusing attention, I'm not sure that's wise."):
        assert lever_statuses(grader, said)["fuse_attention"] == "negated", said
    assert lever_statuses(grader, "On balance, I would fuse attention.") == {"fuse_attention": "affirmed"}


def test_a_share_spelled_out_is_a_figure(grader, tmp_path):
    """sealed313 b.s3159 (instructor 34, the 22% share credited; graded 2.4 without it): 'the
    elementwise kernels ... are about a fifth of the time'. A share spelled out is the percent it
    names (context.yaml `fractions`), round when hedged: 20 ± 2 reaches 22."""
    said = "Regime: compute-bound.\n\nThe elementwise kernels are about a fifth of the time.\n"
    found = [n.q for n in read_body(grader, tmp_path, "b_training_run", said).numbers]
    assert [(q.value, q.unit, q.slack) for q in found] == [(20, "%", 2)]
    plain = "Regime: compute-bound.\n\nThe elementwise kernels take some time.\n"
    assert read_body(grader, tmp_path, "b_training_run", plain).numbers == []


def test_a_gpu_saturating_nothing_is_overhead_bound(grader, tmp_path):
    """sealed322 e.s3286 (instructor 58, the regime in full; graded 24.3 with none found):
    'nominally bandwidth-bound, but the 14% bandwidth / 3% FLOPs combination means the GPU is not
    saturating anything — there's overhead in the way' (concepts.yaml `overhead_bound`)."""
    said = ("Regime: nominally bandwidth-bound, but the 14% bandwidth / 3% FLOPs combination means the "
            "GPU is not saturating anything — there's overhead in the way.\n")
    assert read_body(grader, tmp_path, "e_doesnt_add_up", said).regime == "overhead_bound"


def test_a_memory_bound_leak_is_a_part_of_the_step(grader, tmp_path):
    """sealed314 b.s3169 (instructor 87, compute-bound credited; graded as bandwidth-bound): 'I'd
    call this compute-bound in principle, but with a real memory-bound leak' (`described`)."""
    said = "I'd call this compute-bound in principle, but with a real memory-bound leak.\n"
    assert read_body(grader, tmp_path, "b_training_run", said).regime == "compute_bound"


def test_going_after_compute_pursues_it(grader):
    """sealed325 d.s3309 (instructor 85: fp8 GEMMs and fused attention recommended; graded with
    both deferred): 'For throughput I'd go after compute with fp8 GEMMs and fused attention'. 'go
    after' pursues (context.yaml `pseudo`); 'After that, fp8 GEMMs' still defers."""
    said = "For throughput I'd go after compute with fp8 GEMMs and fused attention."
    assert lever_statuses(grader, said) == {"fp8_gemm": "affirmed", "fuse_attention": "affirmed"}
    assert lever_statuses(grader, "After that, fp8 GEMMs.") == {"fp8_gemm": "deferred"}


def test_a_yaml_figures_commentary_says_what_it_is(grader, tmp_path):
    """sealed320 c.s3225 (instructor 72: the 40 GB identified as the N^2 scores, 8 of 12; graded
    without it): '{figure: transient_memory, value: 40 GB, note: attention scores, N^2 per head}'.
    An entry's commentary is read with its figure's name as the words that say what the value is."""
    from regime.engine.grading.submission import read_answer
    body = ("case: c_document_summarizer\nstudent: s1\nregime: compute_bound\nevidence:\n"
            "  - {figure: transient_memory, value: 40 GB, note: attention scores, N^2 per head}\n")
    path = tmp_path / "a.yaml"
    path.write_text(body, encoding="utf-8")
    a = read_answer(path, grader.concepts, grader.rubric.limits.max_bytes)
    forty = [n for n in a.numbers if n.q.value == 40]
    assert forty and all({"attention", "score"} <= set(n.context) for n in forty)
    graded = grader.grade(path)
    missing = "Missing figure: the attention score matrix"
    assert not [x for p in graded.parts for x in p.feedback if x.startswith(missing)]


def test_it_wont_after_a_reported_claim_refutes_it(grader):
    """sealed318 d.s3205 (instructor 95: int4 refused; graded with it unrefused): 'The vendor claims
    int4 will speed up this API. It won't: int4 reduces weight bytes.' The reported verb denied
    refutes the report (context.yaml `refutes`), as 'That's wrong' does."""
    said = "The vendor claims int4 will speed up this API. It won't: int4 reduces weight bytes."
    assert "negated" in {j.status for j in _judged(grader, said)}
    agreed = "The vendor claims int4 will speed up this API. It will, for small batches."
    assert "negated" not in {j.status for j in _judged(grader, agreed)}


def _judged(grader, said: str):
    from regime.engine.grading.context import judge
    return judge(grader.concepts, grader.concepts.context, ("lever",), said)


def _fixes(grader, tmp_path, case: str, body: str) -> list[tuple[str, ...]]:
    return [m.concepts for m in read_body(grader, tmp_path, case, body).fixes]


def test_agreeing_with_a_reported_fix_that_the_sentence_names_again(grader, tmp_path):
    """sealed318 d.s3209 (instructor 65: fp8 recommended; graded without it): 'A colleague suggested
    fp8 matmuls instead. I agree with her, since fp8 raises the math throughput'. A sentence that
    takes up the words before it recommends the lever both name; a lever only it names is still
    described ('I think that's right — ... to_copy kernels ride along', sealed322 b.s3254)."""
    case = "d_high_throughput_api"
    said = ("Compute-bound.\n\nA colleague suggested fp8 GEMMs instead. I agree with her, since fp8 GEMMs "
            "raise the math throughput.\n")
    assert _fixes(grader, tmp_path, case, said) == [("fp8_gemm",)]
    alone = "Compute-bound.\n\nA colleague suggested fp8 GEMMs instead.\n"
    assert _fixes(grader, tmp_path, case, alone) == []


def test_a_sentence_wrapped_before_not_is_not_a_label(grader, tmp_path):
    """sealed326 b.s3293 (instructor 94: the second engineer refuted; graded 66.7 with the claim
    taken up): '... because we are compute-bound, does' over 'not hold up: being compute-bound
    only describes ...'. A line that ends on a word no sentence ends on goes on into the next one,
    whose 'not ...:' is then no label (breaks.wraps_into); 'reject (for now): ...' under a long
    terse line is still one (sealed271 e.s2732)."""
    said = ("Compute-bound.\n\nSo the second engineer's line, that memory-bound ops don't matter because "
            "we are compute-bound, does\nnot hold up: being compute-bound only describes the FLOP kernels.\n")
    a = read_body(grader, tmp_path, "b_training_run", said)
    assert [m.concepts for m in a.rejects] == [("memory_ops_irrelevant_when_compute_bound",)]
    assert "memory_ops_irrelevant_when_compute_bound" not in a.endorsed


def test_the_cheapest_real_gain_recommends_it(grader, tmp_path):
    """sealed321 a.s3233 (instructor 94: batching then int8; graded 67.4 with batching described):
    '... the cheapest real gain is to fold new requests into the running batch as they arrive
    (continuous batching)' (context.yaml `recommend`); the same lever only described is not."""
    case = "a_chatbot"
    said = ("Bandwidth-bound.\n\nThe cheapest real gain is to fold new requests into the running batch as "
            "they arrive (continuous batching).\n")
    assert _fixes(grader, tmp_path, case, said) == [("continuous_batching",)]
    told = "Bandwidth-bound.\n\nContinuous batching folds new requests into the running batch.\n"
    assert _fixes(grader, tmp_path, case, told) == []


def test_behaving_like_a_memory_bound_job_describes_it(grader, tmp_path):
    """sealed310 c.s3122 (instructor 100, graded 74.2 as bandwidth-bound): 'in principle a
    compute-bound one ... But it is behaving like a memory-bound job, because the attention
    implementation is materializing its scores' (`described_after`); 'looks like BW-bound decode
    on paper' still names the nominal regime (sealed34 e.s365)."""
    said = ("This is a prefill problem, and in principle a compute-bound one. But it is behaving like a "
            "memory-bound job, because attention is materializing its scores.\n")
    assert read_body(grader, tmp_path, "c_document_summarizer", said).regime == "compute_bound"
    looks = "Launch-overhead bound (looks like BW-bound decode on paper).\n"
    a = read_body(grader, tmp_path, "e_doesnt_add_up", looks)
    assert (a.regime, a.nominal_regime) == ("overhead_bound", "bandwidth_bound")


def test_a_lever_that_should_be_dropped_is_refused(grader):
    """sealed318 b.s3203 (instructor 94: attention fusion refused; graded as recommended): 'Fusing
    attention should be dropped from the list — it is flash-attention already' (the passive in
    `negated.backward`)."""
    for said in ("Fusing attention should be dropped from the list.", "Fusing attention should be skipped."):
        assert lever_statuses(grader, said) == {"fuse_attention": "negated"}, said
    assert lever_statuses(grader, "Fusing attention should be done first.") == {"fuse_attention": "affirmed"}


def test_a_topic_whose_later_clause_refuses_it(grader):
    """sealed316 d.s3190 (instructor 77: int4 refused for throughput; graded with it recommended):
    'On int4: it reduces the bytes we move, but we are not short of bandwidth, so don't expect a
    throughput win'. After a topic's colon, a later clause naming nothing that refuses refuses the
    topic (turns.turns_to_refusing; 'do not expect a win' in `negated.forward`)."""
    said = ("On int4: it reduces the bytes we move, but we are not short of bandwidth, so don't expect a "
            "throughput win.")
    assert lever_statuses(grader, said) == {"quantize_int4": "negated"}
    assert lever_statuses(grader, "Int4: it reduces the bytes we move.") == {"quantize_int4": "affirmed"}


def test_bound_by_kernel_launches_is_overhead_bound(grader, tmp_path):
    """sealed326 e.s3329 and sealed317 e.s3198 (instructors 100, graded ~70 as bandwidth-bound):
    'bandwidth-bound on paper, but right now it's bound by kernel launches', 'It's nominally a
    bandwidth-bound decode at batch 1, but what actually limits it is the time between kernels'
    (concepts.yaml `overhead_bound`): the nominal regime, then the real one."""
    for said in ("Verdict: bandwidth-bound on paper, but right now it's bound by kernel launches.\n",
                 "It's nominally a bandwidth-bound decode at batch 1, but what actually limits it is the "
                 "time between kernels.\n"):
        a = read_body(grader, tmp_path, "e_doesnt_add_up", said)
        assert (a.regime, a.nominal_regime) == ("overhead_bound", "bandwidth_bound"), said


def test_a_plan_tables_change_column_holds_its_fixes(grader, tmp_path):
    """sealed326 a.s3284 (instructor 86: int8 then batching; graded 64.4 with no fix): a **Plan**
    table '| step | change | why |' names its fixes in the 'change' column (`plan_columns`)."""
    said = ("**Regime:** bandwidth-bound\n\n**Plan**\n\n| step | change | why |\n|---|---|---|\n"
            "| 1 | int8 weights | 26 -> 13 GB |\n| 2 | continuous batching | one weight read for all |\n")
    assert _fixes(grader, tmp_path, "a_chatbot", said) == [("quantize_int8",), ("continuous_batching",)]


def test_that_is_what_i_would_do_first_recommends_what_came_before(grader, tmp_path):
    """sealed324 e.s3309 (instructor 47, the graph recommended; graded with no fix): '... the
    cleanest remedy I found is capturing the whole decode step as a CUDA graph ...; that is what I
    would do first'. 'that' as written, in the student's own voice, points back to it; 'that is a
    neat trick' does not recommend, nor does 'That should win back ...' (sealed109 b.s1113)."""
    def said(tail: str) -> str:
        return ("The timeline shows a gap after almost every kernel, so I'd call it launch-overhead-bound. "
                "I read about how PyTorch dispatches kernels, and the cleanest remedy I found "
                f"is capturing the decode step as a CUDA graph so the host submits it once; {tail}\n")
    case = "e_doesnt_add_up"
    assert _fixes(grader, tmp_path, case, said("that is what I would do first.")) == [("cuda_graphs",)]
    assert _fixes(grader, tmp_path, case, said("that is a neat trick.")) == []

"""Classes from the sealed289-320 sets, now development data (issue 27), each with the student's
own sentences."""

from __future__ import annotations

import pytest
from conftest import answer_file, lever_statuses, read_body

from regime.engine.grading.figures import quantities
from regime.engine.grading.reasons import RIGHT, WRONG, judge


def _judge(grader, tmp_path, case: str, reason: str, written: str, concept: str) -> str:
    g = grader
    key = g.key(read_body(g, tmp_path, case, "Regime: overhead-bound.\n"), None)[0]
    return judge(reason, written, concept, key, g.concepts, g.concepts.reasons, 0.1)


def test_a_reason_crediting_a_lever_with_a_mechanism_it_lacks_is_wrong(grader, tmp_path):
    """sealed311 e.s3135, sealed312 e.s3145 (instructors 69 and 78, graphs 'for a wrong reason',
    half the item; graded 95 and 86 with the reason right): 'graph-launched kernels run faster on
    the GPU than ones launched from Python' shares 'launch' and 'Python' with the graph's
    justification, but a graph removes the launches between kernels and speeds up none
    (rubric.yaml reasons.misreads). Faster launches are its mechanism, and stay right."""
    case = "e_doesnt_add_up"
    for wrong in ("graph-launched kernels run faster on the GPU than ones launched from Python.",
                  "graph-captured kernels execute faster on the GPU than eagerly launched ones.",
                  "graph replay runs each kernel faster because the driver can optimise the whole graph."):
        assert _judge(grader, tmp_path, case, wrong, "CUDA graphs", "cuda_graphs") == WRONG, wrong
    for right in ("the ~450 launches go out as one submission, so kernels run back to back without gaps.",
                  "it launches the kernels from the GPU side, removing the Python overhead between them."):
        assert _judge(grader, tmp_path, case, right, "CUDA graphs", "cuda_graphs") == RIGHT, right


def test_flash_attention_argued_by_fewer_flops_is_the_wrong_reason(grader, tmp_path):
    """sealed316 c.s3185, sealed319 c.s3216 (instructors: FlashAttention 'for fewer FLOPs', half the
    item): FlashAttention keeps the scores on chip and does the same FLOPs; a figure it cites ('so
    the 55% shrinks') does not make that reason right. 'far less HBM traffic and the FLOP rate
    climbs' is the key's own argument."""
    case, c = "c_document_summarizer", "flash_attention"
    for wrong in ("it computes attention with fewer FLOPs, so the 55% shrinks.",
                  "We are at 20% of peak and attention is 55% of prefill time. The fix is FlashAttention, "
                  "which cuts the attention FLOPs from quadratic to linear."):   # (sealed115 c.s1174)
        assert _judge(grader, tmp_path, case, wrong, "FlashAttention", c) == WRONG, wrong
    right = "the score matrix stays on chip, so there is far less HBM traffic and the FLOP rate climbs."
    assert _judge(grader, tmp_path, case, right, "FlashAttention", c) == RIGHT


def test_he_has_a_point_takes_up_the_claim_reported_before_it(grader, tmp_path):
    """sealed307 b.s3094, sealed304 b.s3065 (instructors 8 and 6: the claim endorsed as the main
    argument; graded 33.5 and 27.5 with it read as refused): 'The second engineer pointed out that
    in a compute-bound step the memory-bound kernels aren't on the critical path. He has a point:
    the GEMMs set the pace.' Conceding a point sides with the speaker (context.yaml `agree`)."""
    body = ("The step runs at 61% of peak FLOP rate, so it's compute-bound. The second engineer pointed "
            "out that in a compute-bound step the memory-bound kernels aren't on the critical path. "
            "{} the GEMMs set the pace, and layer_norm and the casts just ride along.\n")
    agreed = grader.grade(answer_file(tmp_path, "b_training_run", body.format("He has a point:")))
    assert "memory_ops_dismissed_when_compute_bound" in {p.id for p in agreed.penalties}


def test_wrong_after_a_reported_claim_in_an_item_refutes_it(grader, tmp_path):
    """sealed305 b.s3079 (instructor 100; graded 75.2 with the claim left unrefuted): in a list
    read as fixes, each sentence is read on its own, so 'Second engineer said memory-bound ops don't
    matter because we're compute-bound. Wrong: that label is about the FLOP-carrying kernels' lost
    its refutation to the next sentence. A sentence opening on a refutation and naming nothing new
    joins the report before it (turns._joins)."""
    body = ("Regime: compute-bound.\n\n6. Hand-fused kernels: not yet, only if compile leaves a gap.\n"
            "8. Second engineer said memory-bound ops don't matter because we're compute-bound. Wrong: "
            "that label is about the FLOP-carrying kernels, not the 22% with no FLOPs.\n")
    a = read_body(grader, tmp_path, "b_training_run", body)
    assert "memory_ops_irrelevant_when_compute_bound" in {c for m in a.rejects for c in m.concepts}


def test_a_lever_and_now_alone_recommends_it_in_prose(grader, tmp_path):
    """sealed305 b.s3079 (instructor 100; graded 75.2 with torch.compile read as described):
    '4. torch.compile now. It fuses exactly this kind of elementwise chain' is the name and when,
    a recommendation as the name alone is. 'Not now' still refuses."""
    def levers(group) -> set[str]:
        return {c for m in group for c in m.concepts}
    head = "Regime: compute-bound overall. MFU = 61%.\n3. Tokens/pass = 8 x 4096 = 32,768.\n"
    now = read_body(grader, tmp_path, "b_training_run", head + "4. torch.compile now. It fuses this chain.\n")
    assert "torch_compile" in levers(now.fixes)
    later = read_body(grader, tmp_path, "b_training_run", head + "4. torch.compile: not now.\n")
    assert "torch_compile" not in levers(later.fixes)


def test_an_adverb_after_the_copula_keeps_the_refusal_of_an_appositive(grader):
    """sealed308 a.s3104 (instructor 97; graded 77.5 with the GPU bought): 'The other suggestion, a
    GPU with more FLOPs, is also off the table, since we use 4% of the compute' refuses what the
    appositive names, as the same sentence without 'also' does."""
    for said in ("The other suggestion, a GPU with more FLOPs, is also off the table.",
                 "The other suggestion, a GPU with more FLOPs, is likewise off the table.",
                 "The other suggestion, a GPU with more FLOPs, is off the table."):
        assert lever_statuses(grader, said) == {"buy_more_flops": "negated"}, said


def test_a_lever_that_is_out_is_refused(grader):
    """sealed305 c.s3079 (instructor 91; graded 63 with both refusals missed): 'Batching is out
    (already compute-bound with one prompt; ...)'. So is 'ruled out' and 'out of the question';
    'figure out the batch' refuses nothing."""
    for said in ("Batching is out (already compute-bound with one prompt).", "Batching is ruled out.",
                 "Batching is out of the question."):
        assert set(lever_statuses(grader, said).values()) == {"negated"}, said
    found = lever_statuses(grader, "Batching: figure out the batch that fills the GPU.")
    assert "negated" not in found.values()


def test_thousands_set_off_by_spaces_and_formula_symbols():
    """'8 × 4096 = 32 768 tokens per pass' (sealed57 b.s600) is 32,768 tokens, not 768; the '2d' of
    'crossover N = p_layer / 2d' (sealed32 c.s341) is a symbol, not two days."""
    spaced = quantities("8 × 4096 = 32 768 tokens per pass.")
    assert (32768.0, "tokens") in [(q.value, q.unit) for q in spaced]
    assert [q.unit for q in quantities("N = p_layer / 2d ≈ 26.6k tokens")] == ["", "tokens"]
    assert [q.value for q in quantities("batch 1 and 256, 25,000 tokens")] == [1.0, 256.0, 25000.0]


def test_an_item_stated_right_and_contradicted_by_its_other_figure_is_not_credited(grader, tmp_path):
    """sealed312 b.s3146 (instructor 82: '-13: wrong crossover: ~8,000 tokens and ~4x past it, not
    ~2,300 and ~14x'; graded 95): the tokens per pass right and the crossover they are weighed
    against written wrong is the item's argument wrong. The feedback gives the right value."""
    head = ("## Regime\nCompute-bound overall.\n\n## Evidence\n- 61% of peak FLOPs.\n- 22% of kernel time "
            "in zero-FLOP kernels (layer_norm 8, add/mul/silu 9, to_copy 5).\n- 8 × 4096 = 32,768 tokens "
            "per pass")
    right = grader.grade(answer_file(tmp_path, "b_training_run", head + ", ~14x past the ~2,300-token "
                                     "elementwise crossover.\n"))
    wrong = grader.grade(answer_file(tmp_path, "b_training_run", head + ", so the elementwise crossover "
                                     "is ~8,000 tokens and we are ~4x past it.\n", "y.md"))
    ev = {p.part: p for p in right.parts}["evidence"], {p.part: p for p in wrong.parts}["evidence"]
    assert ev[1].points < ev[0].points
    assert any("8,000 tokens" in line and "2300 tokens" in line for line in ev[1].feedback)


def test_a_value_of_one_figure_of_an_item_is_not_another_written_wrong(grader, tmp_path):
    """The batch-1 ceiling of case A is one item of two figures, 204 tokens/s from the weights and
    201 with the KV cache read: '204 tokens/s' states the first and is no wrong value of the second
    (answers/a_chatbot.tempting_fuse.yaml)."""
    body = ("regime: bandwidth_bound\nevidence:\n  - {figure: ceiling_tokens_per_s, value: 204 tokens/s}\n"
            "  - {figure: ceiling_fraction, value: 78%}\n")
    r = grader.grade(answer_file(tmp_path, "a_chatbot", body, "x.yaml"))
    assert not any("you give" in line for p in r.parts for line in p.feedback)


def test_something_other_than_memory_or_math_is_the_idle_regime(grader, tmp_path):
    """sealed310 e.s3127, sealed307 e.s3095 (instructors 65 and 71; graded 28 and 50 as
    bandwidth-bound, the nominal regime taken for the verdict): 'a batch-1 decode loop that ought
    to be bandwidth-bound. Something other than memory or math is holding it back.' Neither
    resource is the limit: the regime of nothing saturated, as 'neither resource is saturated' is."""
    said = ("Both utilizations are tiny, which is strange for a batch-1 decode loop that ought to be "
            "bandwidth-bound. Something other than memory or math is holding it back.\n")
    a = read_body(grader, tmp_path, "e_doesnt_add_up", said)
    assert (a.regime, a.nominal_regime) == ("overhead_bound", "bandwidth_bound")


def test_siding_on_what_while_calling_the_claim_a_confusion_refutes_it(grader, tmp_path):
    """sealed303 b.s3056 (instructor 100; graded 61.7 with the claim endorsed and the cast fix
    read as described): 'So I side with the first engineer on what, not on how. The "compute-bound,
    so it doesn't matter" argument confuses where the FLOP work bottlenecks with where the time
    goes' refutes the claim; 'Have someone chase the to_copy kernels' hands the fix to someone."""
    body = ("The step is compute-bound: 61% of peak FLOP rate. 22% of the step is layer_norm, add/mul/silu "
            "and to_copy.\n\nSo I side with the first engineer on what, not on how. The \"compute-bound, so "
            "it doesn't matter\" argument confuses where the FLOP work bottlenecks with where the time goes."
            "\n\nMy recommendation: turn on torch.compile this week. Have someone chase the to_copy kernels, "
            "which smell like an fp32 upcast inside the norm.\n")
    a = read_body(grader, tmp_path, "b_training_run", body)
    assert "memory_ops_irrelevant_when_compute_bound" not in a.endorsed
    assert "fix_dtype_casts" in {c for m in a.fixes for c in m.concepts}


def test_the_batch_kept_where_it_is_refuses_raising_it(grader):
    """sealed304 d.s3070 (instructor 100; graded 54.7): 'For throughput on this endpoint, the levers
    are on the compute side: fp8 GEMMs, fused attention, and speculative decoding. I'd also leave the
    batch where it is rather than raise it' named no lever in its second sentence, so its refusal
    went back to the compute fixes. The batch left as it is is raising it refused (concepts.yaml
    `kept`); refused in turn, it is taken up."""
    said = ("For throughput on this endpoint, the levers are on the compute side: fp8 GEMMs, fused "
            "attention, and speculative decoding. I'd also leave the batch where it is rather than raise it.")
    assert lever_statuses(grader, said) == {"fp8_gemm": "affirmed", "fuse_attention": "affirmed",
                                            "speculative_decoding": "affirmed", "raise_batch": "negated"}
    for kept in ("Keep the batch at 256.", "I'd hold the batch at 256 — we're past the ridge."):
        assert lever_statuses(grader, kept) == {"raise_batch": "negated"}, kept
    assert lever_statuses(grader, "Don't keep the batch at 256: raise it.") == {"raise_batch": "affirmed"}


@pytest.mark.parametrize(("case", "said"), [
    # sealed300 c.s3028 (instructor 63; graded 37.7 as bandwidth-bound): what "the kernels that ..."
    # are is said of those kernels, not the step
    ("c_document_summarizer", "Prefill over 25k tokens should be compute-bound, yet the profiler only shows "
     "20% of peak FLOPs. That buffer is the score matrix, and the kernels that write and re-read it are "
     "memory-bound, dragging the FLOP rate down.\n"),
    # sealed289 c.s2917 (instructor 75, the regime in full; graded 46.7 with none): what limits the step
    ("c_document_summarizer", "You suggested batching the prefills. For this workload I'd advise against "
     "it: a single 25,000-token prompt already fills the GPU with matrix work, so putting more documents "
     "in the same pass only makes each of them wait longer for its first token.\n"),
])
def test_a_compute_bound_verdict_read_through_what_the_sentences_say_of_parts(grader, tmp_path, case, said):
    """A regime said of a part a relative clause restricts describes the part; a prompt that fills
    the GPU with matrix work names the step's limit."""
    assert read_body(grader, tmp_path, case, said).regime == "compute_bound"


def test_a_later_clause_setting_it_aside_refuses_the_item_named_before(grader, tmp_path):
    """sealed301 e.s3036 (instructor 71; graded 47.5 with the batch recommended): '3. A bigger batch.
    I looked at it, but I'm setting it aside: it speeds up a bandwidth-bound loop'. The refusal
    pointing back comes after a first clause that only looks; it still refuses the item's name."""
    body = ("## Regime\noverhead-bound\n\n## Fixes\n1. CUDA graphs, so the launches go out as one.\n"
            "2. torch.compile, fewer and bigger kernels.\n3. A bigger batch. I looked at it, but I'm setting "
            "it aside: it speeds up a bandwidth-bound loop, and this one leaves the GPU idle.\n")
    a = read_body(grader, tmp_path, "e_doesnt_add_up", body)
    assert "raise_batch" in {c for m in a.rejects for c in m.concepts}
    assert "raise_batch" not in {c for m in a.fixes for c in m.concepts}

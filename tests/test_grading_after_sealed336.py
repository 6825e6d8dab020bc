"""Classes from the sealed329-336 sets, now development data (issue 27), each with the student's
own sentences."""

from __future__ import annotations

from conftest import lever_statuses, read_body


def test_a_clause_opened_by_a_deferral_defers_all_of_it(grader, tmp_path):
    """sealed334 e.s3361 (instructor 100, graded 61 with bandwidth-bound as the verdict): 'Once the
    graphs and compile are in and the loop is actually bandwidth-bound, batching and quantization
    become the next steps.' A condition or deferral that opens its clause reaches the whole clause,
    past the word window, so the regime it waits for is no verdict."""
    case = "e_doesnt_add_up"
    verdict = "It isn't bound by anything right now. The diagnosis is launch/overhead-bound.\n"
    later = ("Once the graphs and compile are in and the loop is actually bandwidth-bound, batching "
             "and quantization become the next steps.\n")
    assert read_body(grader, tmp_path, case, verdict + later).regime == "overhead_bound"
    stated = "The graphs and compile are in and the loop is actually bandwidth-bound.\n"
    assert read_body(grader, tmp_path, case, stated).regime == "bandwidth_bound"


def test_etc_before_a_small_letter_ends_no_sentence(grader):
    """sealed336 a.s3384 (instructor 98, graded 80 with the FLOPs upgrade not refused): 'Not worth
    it: elementwise fusion (norms, RoPE etc. are a negligible slice of the bytes at batch 1) and a
    higher-FLOP GPU (4% of the FLOPs are in use).' The label reaches both."""
    said = ("Not worth it: elementwise fusion (norms, RoPE etc. are a negligible slice of the bytes at "
            "batch 1) and a higher-FLOP GPU (4% of the FLOPs are in use).")
    assert lever_statuses(grader, said) == {"fuse_elementwise": "negated", "buy_more_flops": "negated"}
    two = "Fuse the norms, RoPE etc. Buy a higher-FLOP GPU."
    assert lever_statuses(grader, "Not worth it: elementwise fusion. " + two)["buy_more_flops"] == "affirmed"


def test_the_effort_on_attention_is_the_attention_work(grader):
    """sealed330 b.s3326 (instructor 100: attention softly declined; graded 87.5 with it not
    refused): "I'm not sure spending effort on attention is wise." The effort named by where it
    goes is the attention work the key refuses (concepts.yaml `fuse_attention`)."""
    said = "I'm not sure spending effort on attention is wise."
    assert lever_statuses(grader, said) == {"fuse_attention": "negated"}
    assert lever_statuses(grader, "Spend the effort on attention instead.") == {"fuse_attention": "affirmed"}


def _fixes(a) -> set[str]:
    return {c for m in a.fixes for c in m.concepts}


def test_other_fixes_label_the_fixes(grader, tmp_path):
    """sealed329 d.s3315 (instructor 17: the batch pushed to ~384 charged as recommended; graded
    as only discussed): '**Other fixes:** fp8 GEMMs to raise the compute ceiling. Also push the
    batch up to ~384 so the idle 70% of bandwidth gets used.' The label heads every sentence of
    its paragraph as Fixes does (concepts.yaml `headings`)."""
    body = ("**Regime:** compute-bound.\n\n**Other fixes:** fp8 GEMMs to raise the compute ceiling. Also "
            "push the batch up to ~384 so the idle 70% of bandwidth gets used.\n")
    assert _fixes(read_body(grader, tmp_path, "d_high_throughput_api", body)) == {"fp8_gemm", "raise_batch"}



def test_a_regime_stated_before_a_colon_is_no_topic(grader, tmp_path):
    """sealed344 d.s3461 (instructor 100, graded 61 with compute-bound denied): 'That is
    compute-bound: the opposite pattern to a single-user chatbot.' A regime said with a copula
    before the colon is a statement, not a topic the words after the colon judge; a bare topic
    still is ('Bandwidth-bound: no.')."""
    case = "d_high_throughput_api"
    said = "That is compute-bound: the opposite pattern to a single-user chatbot.\n"
    assert read_body(grader, tmp_path, case, said).regime == "compute_bound"
    assert "bandwidth_bound" in read_body(grader, tmp_path, case, "Bandwidth-bound: no.\n").regimes_denied


def test_what_limited_the_step_before_is_left(grader, tmp_path):
    """sealed342 d.s3442 (instructor 100, graded 61 as bandwidth-bound): 'we have crossed over
    from being limited by memory to being limited by math.' A limiter after `left`'s word is the
    one the step has left; the other is its limit."""
    case = "d_high_throughput_api"
    said = "We have crossed over from being limited by memory to being limited by math.\n"
    assert read_body(grader, tmp_path, case, said).regime == "compute_bound"
    assert read_body(grader, tmp_path, case, "We are limited by memory.\n").regime == "bandwidth_bound"


def test_levers_that_become_the_right_tools_are_put_off(grader):
    """sealed341 e.s3431 (instructor 100, graded 70 with its plan read as a keyword list): '... the
    loop should really be bandwidth-bound, and then batching and weight quantization become the
    right tools.' What becomes the right tool later is deferred (`deferred.backward`)."""
    said = "Then batching and weight quantization become the right tools."
    assert set(lever_statuses(grader, said).values()) == {"deferred"}
    now = "Batching and weight quantization are the right tools."
    assert set(lever_statuses(grader, now).values()) == {"affirmed"}


def test_what_has_stopped_is_denied(grader, tmp_path):
    """sealed344 d.s3461: 'Batching worked: at this size, decode has stopped waiting on memory.'"""
    said = "At this size, decode has stopped waiting on memory.\n"
    assert read_body(grader, tmp_path, "d_high_throughput_api", said).regime != "bandwidth_bound"


def _rejects(a) -> set[str]:
    return {c for m in a.rejects for c in m.concepts}


def test_a_hedged_refusal_in_a_table_cell_is_the_rows_verdict(grader, tmp_path):
    """sealed343 c.s3453 (instructor 100, graded 70.5 with quantization recommended): '| Weight
    quantization | Probably not worth it — 16 GB of weights amortized over 25k tokens is tiny |'. A
    cell that opens with a hedge and refuses leans to refusing, as after a colon (tables._verdict_cell)."""
    table = ("| Item | My answer |\n|---|---|\n| Regime | Prefill, compute-bound |\n"
             "| Weight quantization | Probably not worth it — 16 GB of weights over 25k tokens is tiny |\n")
    a = read_body(grader, tmp_path, "c_document_summarizer", table)
    assert _rejects(a) == {"quantize_int4", "quantize_int8"} and not _fixes(a)


def test_another_levers_name_the_key_argues_with_is_a_reason(grader):
    """sealed343 b.s3460 (instructor 81, the rejection in full; graded 'not its reason'): 'Attention
    fusion I'd leave alone; it is already flash-attention.' A lever's name is no argument, unless the
    key's own argument names it: attention is already flash-attention (reasons.judge)."""
    from pathlib import Path

    from regime.engine.grading import reasons
    key = grader.key_for_case(Path(__file__).parents[1] / "cases" / "b_training_run.yaml")
    c = grader.concepts
    said = "Attention fusion I'd leave alone; it is already flash-attention."
    assert reasons.judge(said, "attention fusion", "fuse_attention", key, c, c.reasons, 0.05) == reasons.RIGHT
    bare = "Attention fusion I'd leave alone."
    assert reasons.judge(bare, "attention fusion", "fuse_attention", key, c, c.reasons, 0.05) != reasons.RIGHT


def test_a_doubt_with_an_adverb_refuses(grader):
    """sealed339 c.s3412 (instructor 92, graded 68.5 with quantization recommended): 'I also doubt
    quantizing the weights is worth it — 16 GB of weights spread over 25,000 tokens is a tiny cost.'"""
    said = "I also doubt quantizing the weights is worth it."
    assert set(lever_statuses(grader, said).values()) == {"negated"}


def test_the_bigger_step_recommends_what_the_next_sentence_names(grader, tmp_path):
    """sealed340 a.s3422 (instructor 94, graded 75 with batching only described): 'The bigger step
    is to stop serving one request at a time. With continuous batching, new requests join the decode
    batch already in flight ...' (context.yaml `recommend`)."""
    body = ("We are limited by memory bandwidth.\n\nThe bigger step is to stop serving one request at a "
            "time. With continuous batching, new requests join the decode batch already in flight.\n")
    assert "continuous_batching" in _fixes(read_body(grader, tmp_path, "a_chatbot", body))


def test_not_for_after_what_it_is_for_contrasts_the_purpose(grader):
    """sealed342 c.s3446 (instructor 92: chunked prefill recommended; graded as refused): 'After
    that, chunked prefill so a single long document doesn't block everyone else's decode (good for
    their ITL, not for this TTFT).' An elliptical 'not for X' after a clause naming nothing that
    says what it is for contrasts the two; after the lever's own clause it still refuses."""
    said = "Chunked prefill, good for their ITL, not for TTFT."
    assert lever_statuses(grader, said) == {"chunked_prefill": "affirmed"}
    assert set(lever_statuses(grader, "Batching might help, but not for TTFT.").values()) == {"negated"}
    row = "int4 weights for throughput: not for this endpoint"
    assert lever_statuses(grader, row) == {"quantize_int4": "negated"}


def test_splitting_the_prompt_into_chunks_is_chunked_prefill(grader):
    """sealed341 c.s3432: 'splitting the prompt into chunks and interleaving them with decode keeps
    everyone else's latency steady' names chunked prefill (concepts.yaml `chunked_prefill`)."""
    said = "Splitting the prompt into chunks keeps everyone else's latency steady."
    assert set(lever_statuses(grader, said)) == {"chunked_prefill"}

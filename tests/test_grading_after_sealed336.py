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

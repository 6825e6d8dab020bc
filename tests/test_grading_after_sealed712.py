"""Classes from the development pool through sealed712 (issue 27), each with the student's own
sentences."""

from __future__ import annotations

from conftest import named, read_body


def test_an_affirmation_that_rules_the_rest_out_is_not_a_negation(grader, tmp_path):
    """sealed710 a.s7122 (instructor 100, graded 65): "Decode, memory-bandwidth-bound. Batch 1, so
    not much else it could be." negated the verdict before it. The phrase says nothing else fits
    (a pseudo-trigger): the verdict stands; a plain negation in the next sentence still names its
    own regime."""
    read = read_body(grader, tmp_path, "a_chatbot", "## Regime\nDecode, memory-bandwidth-bound. Batch 1, so "
                     "not much else it could be.\n")
    assert read.regime == "bandwidth_bound"
    read = read_body(grader, tmp_path, "a_chatbot", "## Regime\nBandwidth-bound. It is not compute-bound.\n")
    assert read.regime == "bandwidth_bound" and "compute_bound" in read.regimes_denied


def test_a_lever_refused_by_likeness_to_one_refused_before(grader, tmp_path):
    """sealed703 e.s7060 (instructor 90, graded 32.5): "Raising the batch has the same problem: it
    puts more work inside each kernel and nothing in between them" refuses the batch as the
    sentence before refused quantization."""
    body = ("## Fixes\n1. CUDA graphs.\n2. torch.compile.\n\n## Notes\nQuantizing halves the bytes but "
            "leaves every gap where it is. Raising the batch has the same problem: it puts more work "
            "inside each kernel and nothing in between them.\n")
    read = read_body(grader, tmp_path, "e_doesnt_add_up", body)
    assert "raise_batch" in named(read.rejects) - named(read.fixes)


def test_an_adverb_does_not_end_the_nominal_frame(grader, tmp_path):
    """sealed693 e.s6952 (instructor 100, graded 53.5): "Nominally this is still a bandwidth-bound
    batch-1 decode, but what limits it today is launch overhead." The "still" ended the nominal
    cue's frame (it is also a contrast word), so the nominal regime was read as the verdict."""
    sentence = ("Nominally this is {} a bandwidth-bound batch-1 decode, but what limits it today is "
                "launch overhead.")
    for adverb in ("still", ""):
        read = read_body(grader, tmp_path, "e_doesnt_add_up", sentence.format(adverb).replace("  ", " "))
        assert (read.regime, read.nominal_regime) == ("overhead_bound", "bandwidth_bound"), adverb


def test_the_batch_already_in_progress_is_where_a_lever_puts_requests(grader, tmp_path):
    """sealed686 a.s6888 (instructor 100, graded 56): "Continuous batching: fold requests that
    arrive during a burst into the decode batch already in progress" is the fix, not a lever
    already in place ("already in flight" was known; "in progress" and "under way" say the same)."""
    for words in ("already in progress", "already under way", "already in flight"):
        body = f"## Fixes\n1. Continuous batching: fold arriving requests into the decode batch {words}.\n"
        read = read_body(grader, tmp_path, "a_chatbot", body)
        assert "continuous_batching" in named(read.fixes), words


def test_a_lever_in_place_left_alone_is_refused(grader, tmp_path):
    """sealed678 b.s6809 (instructor 95, graded 52.5): "Attention is already flash-attention, so I'd
    leave it alone" refuses more attention fusion (it was read as in place only), and "running the
    model under torch.compile would fuse most of these chains for us, which is a lot cheaper than
    two weeks of hand-written kernels" recommends compile in an essay."""
    body = ("The step is compute-bound at 61% of peak. Running the model under torch.compile would fuse most "
            "of these norm and activation chains for us, which is a lot cheaper than two weeks of "
            "hand-written kernels. Attention is already flash-attention, so I'd leave it alone.\n")
    read = read_body(grader, tmp_path, "b_training_run", body)
    assert "torch_compile" in named(read.fixes)
    assert named(read.rejects) & {"fuse_attention", "flash_attention"}   # the key's attention fusion


def test_a_limit_a_claim_holds_for_is_not_this_steps(grader, tmp_path):
    """sealed673 d.s6751 (instructor 100, graded 58.4 as bandwidth-bound): 'The vendor says "int4 will
    give you 4x the throughput." That holds for decode that is limited by memory bandwidth, but it
    isn't our situation.' names where the claim holds; the verdict is the one stated after it."""
    body = ('The vendor says "int4 will give you 4x the throughput." That holds for decode that is limited '
            "by memory bandwidth, but it isn't our situation. At batch 256 the profiler shows 71% of peak "
            "FLOP rate against 30% of bandwidth. That's compute-bound.\n")
    read = read_body(grader, tmp_path, "d_high_throughput_api", body)
    assert read.regime == "compute_bound"


def test_a_table_row_with_a_verdict_under_a_heading_of_its_own(grader, tmp_path):
    """sealed712 d.s7143 (instructor 95, graded 57.4): under "### Diagnosis", not a template heading,
    a table with a Verdict column ("| profiler | 71% of peak | 30% of peak | compute-bound |"): its
    rows were read as fixes naming no lever. A row naming a regime and no lever states it."""
    body = ("### Diagnosis\n\n| | FLOP rate | HBM bandwidth | Verdict |\n|---|---|---|---|\n"
            "| profiler | 71% of peak | 30% of peak | compute-bound |\n"
            "| theory | AI ≈ 256 FLOP/byte at batch 256 | ridge 247 FLOP/byte | past the ridge |\n\n"
            "### Fixes\n1. fp8 GEMMs: raises the compute ceiling.\n2. Speculative decoding.\n")
    read = read_body(grader, tmp_path, "d_high_throughput_api", body)
    assert read.regime == "compute_bound"
    assert "fp8_gemm" in named(read.fixes)


def test_someone_elses_claim_refuted_in_its_own_sentence(grader, tmp_path):
    """sealed681 b.s6839 (instructor 72, graded 33.3 with the claim endorsed): "The second engineer's
    line that memory-bound ops don't matter once you're compute-bound I don't agree with". The
    possessive names the claim as theirs, and the student's refusal after it in the same clause
    refutes it, as "..., which is wrong" does after a comma."""
    for body in ("The second engineer's line that memory-bound ops don't matter once you're compute-bound "
                 "I don't agree with.",
                 "The second engineer said that memory-bound ops don't matter, which is wrong."):
        read = read_body(grader, tmp_path, "b_training_run", body)
        assert "memory_ops_irrelevant_when_compute_bound" in named(read.rejects), body
        assert not read.endorsed
    read = read_body(grader, tmp_path, "b_training_run", "The second engineer argued that memory-bound ops "
                     "don't matter.")
    assert not named(read.rejects) and not read.endorsed


def test_a_lever_label_line_is_an_item_of_its_own(grader, tmp_path):
    """sealed693 c.s6958 (instructor 29, graded 5.4): "fix 2: flashattention so the 40 GB score
    buffer is never written" over "batching: no, batching wont help one document's TTFT": the
    second line was joined to the first as its next line, and its "no" refused FlashAttention."""
    body = ("regime: memory-bound (40 GB transient, only 20% FLOPs)\n"
            "- 40 GB transient = the attention scores\n"
            "fix 1: int8 weights -> 8 GB, halves the weight bytes\n"
            "fix 2: flashattention so the 40 GB score buffer is never written\n"
            "batching: no, batching wont help one document's TTFT\n")
    read = read_body(grader, tmp_path, "c_document_summarizer", body)
    assert "flash_attention" in named(read.fixes) - named(read.rejects)
    assert "raise_batch" in named(read.rejects)

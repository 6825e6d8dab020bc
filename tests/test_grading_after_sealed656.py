"""Classes from the development pool through sealed656 (issue 27), each with the student's own
sentences."""

from __future__ import annotations

from conftest import named, read_body


def test_an_outline_with_numbered_items_under_numbered_headings(grader, tmp_path):
    """sealed594 e.s5961 (instructor 100, graded 45): "3. Fixes, in order" over three numbered
    steps, then "4. Reject (for now)" over two: the steps ran on through the Reject heading (its
    "4." went on from their "3.") and the refused levers were read as five listed fixes. A numbered
    step list ends at an item outdented from it, and a heading qualified after a comma or in
    brackets introduces the items under it as a bare one does."""
    body = ("1. Regime\n   1. Launch-overhead-bound: neither bandwidth nor compute is saturated.\n"
            "2. {fixes}\n   1. Capture the decode step as a CUDA graph: one submission per step.\n"
            "   2. torch.compile to merge the many small elementwise kernels.\n"
            "   3. Re-measure against 215 tok/s.\n"
            "3. {reject}\n   1. Raising the batch: nothing is saturated, so more sequences fill no gap.\n"
            "   2. Quantizing the weights: fewer bytes cannot fill gaps in which no kernel runs.\n")
    for fixes, reject in (("Fixes, in order", "Reject (for now)"), ("Fixes", "Reject")):
        read = read_body(grader, tmp_path, "e_doesnt_add_up", body.format(fixes=fixes, reject=reject))
        assert named(read.fixes) >= {"cuda_graphs", "torch_compile"}, fixes
        assert named(read.rejects) >= {"raise_batch", "quantize_int8"}, reject
        assert not named(read.fixes) & {"raise_batch", "quantize_int8"}


def test_a_bare_heading_with_a_full_stop_introduces_its_list(grader, tmp_path):
    """sealed549 a.s5518 (instructor 90) and ten more memos: "4. Not recommended." over "- Elementwise
    fusion: ... we'd see no difference" read the fusion as a recommendation, since the heading's
    full stop made it a sentence. A few words and a full stop alone on their line head the list
    under them, as they do without the stop."""
    body = ("1. Diagnosis. Bandwidth-bound decode at 78% of HBM peak.\n\n"
            "3. Actions.\n   a. Continuous batching: every sequence shares one weight read.\n"
            "   b. Int8 weights: 13 GB instead of 26 GB.\n\n"
            "4. Not recommended.\n   - Elementwise fusion: the norms move a negligible share of the bytes, "
            "so we'd see no difference.\n")
    read = read_body(grader, tmp_path, "a_chatbot", body)
    assert "fuse_elementwise" in named(read.rejects) - named(read.fixes)


def test_a_long_head_refused_in_the_students_own_voice(grader, tmp_path):
    """sealed560 c.s5622 and sealed584 c.s5862 (instructors 92 and 100): "Two suggestions from the
    team I'd turn down: batching several documents together ..., and quantizing the model" refused
    both, but its head runs past a label's 40 characters and the levers after the colon were read
    as recommended. A longer head refuses what follows its colon when the refusal ends it in the
    student's own voice and it names nothing itself; a long head that only reports does not."""
    body = "## Fixes\n- FlashAttention first.\n\n## Notes\n{line}\n"
    refused = ("Two suggestions from the team I'd turn down: batching several documents, and quantizing "
               "the model.")
    read = read_body(grader, tmp_path, "c_document_summarizer", body.format(line=refused))
    assert named(read.rejects) >= {"raise_batch", "quantize_int8"}
    reported = "Two suggestions the team has written up for us to try: batching several documents."
    read = read_body(grader, tmp_path, "c_document_summarizer", body.format(line=reported))
    assert not named(read.rejects) & {"raise_batch"}


def test_a_conclusion_reported_and_an_order_called_sensible(grader, tmp_path):
    """sealed645 b.s6479 (instructor 87, graded 43): "The second engineer concluded from that that
    the memory-bound ops can be ignored. That doesn't follow." was read as the student's own claim,
    and "the sensible order is to turn on torch.compile this week" as compile only mentioned. A
    conclusion someone else drew is reported speech, and the sensible order recommends."""
    claim = "memory_ops_irrelevant_when_compute_bound"
    read = read_body(grader, tmp_path, "b_training_run",
                     "The run is compute-bound. The second engineer concluded from that that the "
                     "memory-bound ops can be ignored. That doesn't follow.\n")
    assert claim not in read.endorsed and claim in named(read.rejects)
    read = read_body(grader, tmp_path, "b_training_run",
                     "The sensible order is to turn on torch.compile this week and see what it buys.\n")
    assert "torch_compile" in named(read.fixes)

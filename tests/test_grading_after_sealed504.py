"""Classes from the development pool through sealed504 (issue 27), each with the student's own
sentences."""

from __future__ import annotations

from conftest import read_body


def test_a_predicate_after_therefore_judges_what_the_sentence_named(grader, tmp_path):
    """sealed492 e.s4941 (instructor 100, graded 50): "The two proposals on the table — raise the
    batch, quantize the weights — are therefore "not yet"." read both as recommended, so the
    answer's fixes named six levers and were read as a keyword list."""
    for said in ('The two proposals on the table — raise the batch, quantize the weights — are therefore '
                 '"not yet".', "The two proposals (raise the batch, quantize the weights) are therefore "
                 "not yet."):
        a = read_body(grader, tmp_path, "e_doesnt_add_up", said)
        assert {c for m in a.deferred for c in m.concepts} >= {"raise_batch", "quantize_int8"}
        assert not a.fixes


def test_shrinking_the_weights_and_one_batch_name_their_levers(grader, tmp_path):
    """sealed469 c.s4718 (instructor 84: both proposals refused): "Two suggestions I'd turn down:
    running several documents as one batch (...) and shrinking the weights (...)" named neither."""
    said = ("Two suggestions I'd turn down: running several documents as one batch (each document already "
            "saturates the GPU) and shrinking the weights (a small cost spread over 25k tokens).")
    a = read_body(grader, tmp_path, "c_document_summarizer", said)
    assert {c for m in a.rejects for c in m.concepts} >= {"raise_batch", "quantize_int8"}


def test_the_slice_of_time_spent_waiting_on_memory_is_a_part(grader, tmp_path):
    """sealed479 d.s4811 (a compute-bound memo, instructor 100, graded 57 as bandwidth-bound):
    "shrinking them can only speed up the small slice of time spent waiting on memory" names the
    part of the time that waits, not the step's limit; "most of the time is spent waiting on
    memory" still does."""
    part = "Shrinking them can only speed up the small slice of time spent waiting on memory."
    assert read_body(grader, tmp_path, "d_high_throughput_api", part).regime is None
    whole = "Most of the time is spent waiting on memory."
    assert read_body(grader, tmp_path, "d_high_throughput_api", whole).regime == "bandwidth_bound"


def test_where_that_leaves_us_reports_and_whose_weights_are_read_says_bandwidth(grader, tmp_path):
    """sealed478 a.s4805 (instructor 76, graded 31): "Where that leaves us: bandwidth-bound decode."
    was a label ("Where int4 would pay:") putting its verdict in doubt, and "with continuous
    batching we would add arriving requests to the decode batch already in flight" a batching in
    place. sealed486 a.s4889 (instructor 90, graded 48): "limited by how fast the GPU can read the
    model's weights, not by arithmetic" named no regime."""
    def read(said: str):
        return read_body(grader, tmp_path, "a_chatbot", said)
    assert read("Where that leaves us: bandwidth-bound decode.").regime == "bandwidth_bound"
    assert read("It is limited by how fast the GPU can read the model's weights, not by arithmetic.").regime \
        == "bandwidth_bound"
    said = ("What would move it is serving more than one request per pass. With continuous batching we would "
            "add arriving requests to the decode batch already in flight.")
    assert "continuous_batching" in {c for m in read(said).fixes for c in m.concepts}

"""Classes from the development pool through sealed792 (issue 27), each with the student's own
sentences."""

from __future__ import annotations

from conftest import named, read_body


def test_a_lever_refused_as_the_same_story_as_the_one_before(grader, tmp_path):
    """sealed750 a.s7529 (instructor 94, graded 74.4): "A higher-FLOP GPU is the same story: we are
    using 4% of the compute we have, so I would not buy one" refuses the GPU as fusion was refused
    in the sentence before; it was read as recommended and charged."""
    body = ("Bandwidth-bound: 78% of bandwidth, 4% of compute.\n\nI looked at fusing the small elementwise "
            "kernels; I'm setting it aside. A higher-FLOP GPU is the same story: we are using 4% of the "
            "compute we have, so I would not buy one.\n")
    read = read_body(grader, tmp_path, "a_chatbot", body)
    assert "buy_more_flops" in named(read.rejects) - named(read.fixes)


def test_the_obvious_plan_named_to_be_set_aside_is_not_recommended(grader, tmp_path):
    """sealed722 d.s7249 (instructor 70, graded 48.8): "The obvious plan would be to take the
    vendor's int4 ..., but that only helps when reading the weights is what takes the time" names
    int4 to set it aside, as "the obvious move would be" does; it was read as recommended."""
    body = ("This endpoint is compute-bound: 71% of the FLOP rate against 30% of bandwidth. The obvious "
            "plan would be to take the vendor's int4 and cut the weights from 68 GB to 17 GB, but that "
            "only helps when reading the weights is what takes the time.\n")
    read = read_body(grader, tmp_path, "d_high_throughput_api", body)
    assert "quantize_int4" not in named(read.fixes)


def test_not_ruling_a_lever_out_hedges_it_and_refuses_nothing(grader, tmp_path):
    """sealed776 d.s7789 (instructor 29, graded 48.5): "I wouldn't rule out that int4 helps; let's
    benchmark it" leaves int4 open (a hedge, as "it wouldn't hurt" is); the "not" read it as
    refused and credited the rejection. A plain "I would not use int4" still refuses it."""
    read = read_body(grader, tmp_path, "d_high_throughput_api",
                     "Compute-bound: 71% of FLOPs against 30% of bandwidth. I wouldn't rule out int4.\n")
    assert "quantize_int4" in named(read.hedged) and "quantize_int4" not in named(read.rejects)
    read = read_body(grader, tmp_path, "d_high_throughput_api",
                     "Compute-bound: 71% of FLOPs against 30% of bandwidth. I would not use int4.\n")
    assert "quantize_int4" in named(read.rejects)

"""Classes from the development pool through sealed576 (issue 27), each with the student's own
sentences."""

from __future__ import annotations

from conftest import lever_statuses


def test_after_each_kernel_places_a_gap_not_a_step(grader):
    """sealed574 e.s5769 (instructor 79: graphs recommended first): "with 450 kernels per step and
    a gap of 8-15 us after nearly every one, ..., and the obvious cure for that, recording the step
    once as a CUDA graph and replaying it, is what I'd put in first" was read as graphs deferred,
    since "after" ("after that" less its filler) puts off what follows. "after" before a
    quantifier says where in the timeline; "after" before a step still defers."""
    for said in ("There is a gap after each kernel, and a CUDA graph is what I'd put in first.",
                 "A gap of 8-15 us after nearly every one, so I'd put in a CUDA graph first.",
                 "Idle time after every launch: capture the step as a CUDA graph."):
        assert lever_statuses(grader, said)["cuda_graphs"] != "deferred", said
    assert lever_statuses(grader, "After the graphs are in, raise the batch.")["raise_batch"] == "deferred"

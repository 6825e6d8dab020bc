"""Classes from the development pool through sealed576 (issue 27), each with the student's own
sentences."""

from __future__ import annotations

from conftest import lever_statuses, read_body


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


def test_a_lever_reason_under_reject_refuses_no_claim(grader, tmp_path):
    """sealed566 b.s5684 (instructor 5: the second engineer agreed with) and sealed532 b.s5344
    (10): a Reject item's second sentence giving the refused lever's reason ("Those kernels are
    memory-bound and we are not, so speeding them up would not change the step time") argues the
    claim; read by meaning it had rejected it, worth 10 points. A sentence that refutes someone,
    or names the speaker, still answers the claim."""
    claim = "memory_ops_irrelevant_when_compute_bound"
    reason = ("## Reject\n- Two weeks of hand-fusing layer_norm and silu. Those kernels are memory-bound "
              "and we are not, so speeding them up would not change the step time.\n")
    read = read_body(grader, tmp_path, "b_training_run", reason)
    assert not any(claim in m.concepts for m in read.rejects)
    assert any("hand_fused_kernels" in m.concepts for m in read.rejects)
    for answers in ("The second engineer has it backwards: the 22% is real time whether or not the "
                    "GEMMs are compute-bound.",
                    "That view is wrong: compute-bound describes the matmuls, not the 22% of time in "
                    "kernels with no FLOPs."):
        said = f"## Reject\n- Hand-fusing before torch.compile. {answers}\n"
        assert any(claim in m.concepts for m in read_body(grader, tmp_path, "b_training_run", said).rejects), answers

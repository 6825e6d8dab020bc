"""Classes from the sealed305-312 sets, now development data (issue 27), each with the student's
own sentences."""

from __future__ import annotations

from conftest import answer_file, read_body

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

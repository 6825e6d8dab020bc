"""Classes from the sealed289-296 sets, now development data (issue 27), each with the student's
own sentences."""

from __future__ import annotations

from conftest import read_body

from regime.engine.grading.submission import read_answer

_CLAIM = "memory_ops_irrelevant_when_compute_bound"


def _levers(found) -> set[str]:
    return {c for m in found for c in m.concepts}


def test_an_agreement_with_a_degree_word_still_agrees(grader, tmp_path):
    """sealed293 b.s2954 (instructor 8, graded 26 with the claim rejected): 'The second engineer
    made the point that ... the memory-bound ops don't really matter. I think that's basically
    right.' A degree word changes nothing; a hedge ('probably right', sealed163 b.s1655) stays one."""
    said = ("Regime: compute-bound. 61% of peak FLOP rate is high for training.\n\nThe second engineer made "
            "the point that since we're compute-bound, the memory-bound ops don't really matter. I think "
            "that's basically right.\n")
    a = read_body(grader, tmp_path, "b_training_run", said)
    assert _CLAIM in a.endorsed and _CLAIM not in _levers(a.rejects)
    hedged = said.replace("basically", "probably")
    assert _CLAIM not in read_body(grader, tmp_path, "b_training_run", hedged).endorsed


def test_a_framed_refusal_points_back(grader, tmp_path):
    """sealed289 c.s2917 (instructor 75, graded 37 with batching left unjudged): 'You suggested "just
    batch the prefills ...". For this workload I'd advise against it: ...' A frame opening on a
    preposition is not a subject of its own; "Tuning kernels won't do it" still is."""
    said = ('You suggested "just batch the prefills, like we did for the chat API". For this workload I\'d '
            "advise against it: a single 25,000-token prompt already fills the GPU with matrix work.\n")
    assert "raise_batch" in _levers(read_body(grader, tmp_path, "c_document_summarizer", said).rejects)


def test_a_time_word_inside_a_subject_puts_nothing_off(grader, tmp_path):
    """sealed295 c.s2973 and sealed296 c.s2988 (instructors 95 and 92, graded 60 and 54 with no
    regime): 'the 4 ms inter-token latency afterwards is perfectly healthy' and '(the 4 ms between
    later tokens is fine)' describe the latency; the regime after them is stated. A condition
    after 'and only if' still covers what follows it (sealed254 b.s2562)."""
    for aside in ("— the 4 ms inter-token latency afterwards is perfectly healthy —",
                  "(the 4 ms between later tokens is fine),"):
        said = (f"That wait is the prefill phase {aside} and prefill on a prompt this long is "
                "compute-bound work.\n")
        assert read_body(grader, tmp_path, "c_document_summarizer", said).regime == "compute_bound"
    cond = ("Regime: compute-bound.\n\nFirst turn on torch.compile. Then, and only if a meaningful gap is "
            "left, let Alex hand-fuse what compile missed.\n")
    assert "hand_fused_kernels" not in _levers(read_body(grader, tmp_path, "b_training_run", cond).fixes)


def test_a_yaml_entry_with_two_names_and_two_values(grader, tmp_path):
    """sealed290 e.s2922, sealed244 e.s2468, sealed256 e.s2584 (instructors 100, 95, 100; graded 82
    with both figures missing): '{figure: bw_util and flop_util, value: 14% and 3%}' states two
    figures, in turn."""
    p = tmp_path / "e.yaml"
    p.write_text("case: e_doesnt_add_up\nstudent: s1\nregime: launch_overhead_bound\nevidence:\n"
                 "  - {figure: bw_util and flop_util, value: 14% and 3%, note: nothing saturated}\n",
                 encoding="utf-8")
    a = read_answer(p, grader.concepts, 1 << 20, p.read_text(encoding="utf-8"))
    assert {k: q.value for k, (q, _) in a.named.items()} == {"bw_util": 14.0, "flop_util": 3.0}


def test_a_lever_named_with_a_step_word_alone_is_in_the_plan(grader, tmp_path):
    """sealed294 b.s2969 (instructor 94, graded 55 with compile only mentioned): '... before anyone
    has tried torch.compile, which fuses exactly these ops for almost no effort. Compile first;
    hand-write kernels only for what is still left.' The later mention commits to it; a later
    description ("Shrinking the bytes attacks a resource ...", sealed70 d.s722) does not."""
    said = ("Regime: compute-bound.\n\nI'm not sure two weeks of hand-fusing is wise before anyone has tried "
            "torch.compile, which fuses exactly these ops for almost no effort. Compile first; hand-write "
            "kernels only for what is still left.\n")
    a = read_body(grader, tmp_path, "b_training_run", said)
    assert "torch_compile" in _levers(a.fixes) and "hand_fused_kernels" not in _levers(a.fixes)
    described = said.replace("Compile first;", "Compiling is cheap;")
    assert "torch_compile" not in _levers(read_body(grader, tmp_path, "b_training_run", described).fixes)


def test_not_on_my_list_refuses(grader, tmp_path):
    """sealed294 b.s2969: 'Fusing attention isn't on my list; it already runs as flash-attention
    and is only 7% of the step.'"""
    said = ("Regime: compute-bound.\n\nFusing attention isn't on my list; it already runs as flash-attention "
            "and is only 7% of the step.\n")
    a = read_body(grader, tmp_path, "b_training_run", said)
    assert "fuse_attention" in _levers(a.rejects) and "fuse_attention" not in _levers(a.fixes)

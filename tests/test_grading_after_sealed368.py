"""Classes from the sealed353-368 sets, development data once measured (issue 27), each with the
student's own sentences."""

from __future__ import annotations

from conftest import lever_statuses, read_body

_NOT_NOW = ("**Regime.** Launch-bound: neither memory nor compute is anywhere near busy.\n\n"
            "**Fixes.**\n1. Graph capture of the decode step.\n"
            "2. torch.compile to fuse the small kernels.\n\n"
            "**Not now.** Raising the batch and quantizing the weights: both are right for a loop that "
            "is truly bandwidth-bound, but here the GPU sits idle a third of the time.\n")


def test_a_bold_label_run_in_reads_as_a_label_before_a_colon(grader, tmp_path):
    """sealed353 e.s3556 (instructor 100, graded 45 with batching and quantization recommended):
    '**Not now.** Raising the batch and quantizing the weights: both are right for a loop that is
    truly bandwidth-bound, but ...' puts both off, as 'Not now: raising the batch ...' does."""
    a = read_body(grader, tmp_path, "e_doesnt_add_up", _NOT_NOW)
    assert {c for m in a.fixes for c in m.concepts} >= {"cuda_graphs", "torch_compile"}
    assert not {c for m in a.fixes for c in m.concepts} & {"raise_batch", "quantize_int8", "quantize_int4"}
    assert {c for m in a.rejects + a.deferred for c in m.concepts} >= {"raise_batch", "quantize_int8"}


def test_at_that_point_puts_what_follows_off(grader):
    """sealed353 e.s3556: '3. Then measure again against 215 tok/s; at that point the usual bandwidth
    playbook (batching, fewer weight bytes) applies.' The instructor read it as the solution's own
    order (batching after the gaps are gone), not as recommending batching now."""
    said = "Then measure again against 215 tok/s; at that point the usual playbook (batching) applies."
    assert lever_statuses(grader, said).get("raise_batch") == "deferred"


def test_someone_on_the_team_said_reports_it(grader):
    """sealed353 e.s3556: 'Someone on the team said we should just get a GPU with more FLOPs. That
    doesn't follow: we use 3% of the FLOPs we have.' The suggestion is the team's, refuted."""
    said = "Someone on the team said we should just get a GPU with more FLOPs."
    assert lever_statuses(grader, said).get("buy_more_flops") != "affirmed"


def test_a_limit_said_of_a_part_of_the_step_is_not_the_steps(grader, tmp_path):
    """sealed358 d.s3610 (instructor 90, graded 51 as bandwidth-bound): under 'Compute-bound in
    principle, but int4 still has a place', 'Fewer weight bytes only helps the part of the step that
    waits on memory' says what limits a part, not the step."""
    said = ("## Regime\nCompute-bound in principle, but int4 still has a place.\n\n## Int4\nFor throughput: "
            "no. Fewer weight bytes only helps the part of the step that waits on memory.\n")
    assert read_body(grader, tmp_path, "d_high_throughput_api", said).regime == "compute_bound"


def test_a_label_asking_what_limits_the_step_is_answered_after_its_colon(grader, tmp_path):
    """sealed353 a.s3551 (instructor 100, graded 65 with no regime): '**What is limiting it.** Memory
    bandwidth. The profiler shows the matrix cores at 4% of their peak ...'."""
    said = "Hi Priya,\n\n**What is limiting it.** Memory bandwidth. The matrix cores sit at 4% of peak.\n"
    assert read_body(grader, tmp_path, "a_chatbot", said).regime == "bandwidth_bound"


def test_a_limit_someone_else_assumes_is_not_the_steps(grader, tmp_path):
    """sealed367 d.s3700 (instructor 85, graded 49 as bandwidth-bound): 'Compute-bound in principle,
    but only just ... his claim of a big speedup assumes weight reads are the bottleneck, and here
    they aren't'. The vendor's assumption says nothing of this step."""
    said = ("Compute-bound in principle, but only just: 71% of the FLOP rate against 30% of bandwidth.\n\n"
            "So on the vendor: his claim of a big speedup assumes weight reads are the bottleneck, and here "
            "they aren't.\n")
    assert read_body(grader, tmp_path, "d_high_throughput_api", said).regime == "compute_bound"


def test_a_limiter_after_only_the_nominal_regime_is_the_verdict(grader, tmp_path):
    """sealed366 e.s3687 (instructor 100, graded 69 as bandwidth-bound): 'on paper it is
    bandwidth-bound, but right now it isn't limited by bandwidth or by compute - it is limited by how
    we launch work on the GPU.' With only the nominal regime named, what limits it is the verdict."""
    said = "Hi Tom,\n\nOn paper it is bandwidth-bound, but right now it is limited by how we launch work.\n"
    a = read_body(grader, tmp_path, "e_doesnt_add_up", said)
    assert (a.regime, a.nominal_regime) == ("overhead_bound", "bandwidth_bound")


def test_someone_else_wants_reports_a_suggestion(grader):
    """sealed362 e.s3642 (instructor 100, graded 70 with int8 recommended): 'A colleague suggested
    raising the batch, and someone else wants to quantize the weights. Not yet.'"""
    said = "A colleague suggested raising the batch, and someone else wants to quantize the weights."
    assert "affirmed" not in set(lever_statuses(grader, said).values())


def test_what_to_change_heads_the_fixes(grader, tmp_path):
    """sealed359 a.s3617 (instructor 96, graded 66 with no fix): '### What to change' over
    '1. Continuous batching: fold each arriving request into the in-flight batch ...'."""
    said = ("## Regime\nBandwidth-bound.\n\n### What to change\n1. Continuous batching: fold each arriving "
            "request into the in-flight batch.\n2. int8 weights: 13 GB instead of 26.\n")
    a = read_body(grader, tmp_path, "a_chatbot", said)
    assert "continuous_batching" in {c for m in a.fixes for c in m.concepts}


def test_a_teammates_suggestion_is_reported_not_recommended(grader):
    """sealed363 e.s3651 (instructor 100, graded 70 as a keyword list): 'My teammate's suggestion to
    raise the batch, and the other one to quantize the weights, are both fixes for a loop that is
    saturating bandwidth. ... Not now.'"""
    said = ("My teammate's suggestion to raise the batch, and the other one to quantize the weights, are "
            "both fixes for a loop that is saturating bandwidth.")
    assert "affirmed" not in set(lever_statuses(grader, said).values())


def test_the_director_wants_reports_a_request(grader):
    """sealed357 e.s3593 (instructor 100, graded 72 with batching recommended): 'Director wants us to
    just raise the batch. No: batching (and int8) are for a loop that saturates bandwidth'."""
    said = "Director wants us to just raise the batch."
    assert lever_statuses(grader, said) == {"raise_batch": "attributed"}


def test_the_colleague_who_said_reports_the_claim(grader):
    """sealed361 b.s3639 (instructor 96, graded 68 with the claim taken up): 'The colleague who said
    memory-bound ops don't matter because we are compute-bound has it backwards': theirs, and
    refuted in its own clause (sealed681 b.s6839: tests/test_grading_after_sealed712.py)."""
    said = ("The colleague who said memory-bound ops don't matter because we are compute-bound has it "
            "backwards.")
    from regime.engine.grading.context import judge
    claims = judge(grader.concepts, grader.concepts.context, ("claim",), said)
    assert [j.status for j in claims] == ["negated"]

"""Case d (the high-throughput API) read as an instructor reads it, by general rules (issue 27,
round 3). Each answer-level test names the answer that showed the rule, the instructor's grade
and the grader's before it."""

from __future__ import annotations

from conftest import read_body


def test_what_limits_the_step_reads_where_the_named_regime_is_ruled_out(grader, tmp_path):
    """sealed179 d.s1811 (instructor 100, graded 58.8 with no regime): 'This is the mirror image
    of a bandwidth-bound decode: compute is the busy resource, memory is mostly idle.' rules
    bandwidth-bound out and names what is busy; the sentence's one regime, negated, kept its
    limiter from being read."""
    body = ("The API decodes at batch 256 at 71% of peak FLOP rate and 30% of peak HBM bandwidth.\n\n"
            "This is the mirror image of a bandwidth-bound decode: compute is the busy resource, "
            "memory is mostly idle.\n\nSo int4 does not pay off here: it shrinks idle bytes.\n")
    a = read_body(grader, tmp_path, "d_high_throughput_api", body)
    assert a.regime == "compute_bound"


def test_a_ruled_out_regime_still_gives_no_verdict_of_its_own(grader, tmp_path):
    """The same reading gives nothing where no limiter follows: 'This is not a bandwidth-bound
    decode.' states no regime."""
    body = "The API decodes at batch 256.\n\nThis is not a bandwidth-bound decode.\n"
    a = read_body(grader, tmp_path, "d_high_throughput_api", body)
    assert a.regime is None


def _levers(ms) -> set[str]:
    return {c for m in ms for c in m.concepts}


def test_a_limiter_in_a_when_clause_is_where_a_lever_pays(grader, tmp_path):
    """sealed180 d.s1821 (instructor 100, graded 59.2 as bandwidth-bound): 'Weight quantization
    makes decode faster when decode is waiting on memory' says when int4 pays, not what limits
    this step; the essay's own reading comes later."""
    body = ("Weight quantization makes decode faster when decode is waiting on memory.\n\n"
            "The profiler shows 71% of peak FLOP rate and 30% of HBM bandwidth: compute is the busy "
            "resource here.\n")
    a = read_body(grader, tmp_path, "d_high_throughput_api", body)
    assert a.regime == "compute_bound"


def test_the_kind_of_fix_a_lever_is_does_not_recommend_it(grader, tmp_path):
    """sealed184 d.s1861 (instructor 100, graded 73.2 with int4 a fix): 'Int4 is a bandwidth fix
    and this endpoint isn't short of bandwidth' classifies int4; it does not call for it."""
    body = ("We are compute-bound: 71% of peak FLOP rate, 30% of bandwidth.\n\n"
            "Note to the director: Int4 is a bandwidth fix and this endpoint isn't short of bandwidth.\n")
    a = read_body(grader, tmp_path, "d_high_throughput_api", body)
    assert "quantize_int4" not in _levers(a.fixes)

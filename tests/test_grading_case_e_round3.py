"""Case E (the decode loop that doesn't add up), round 3 of issue 27: readings that carry over to
answers by new people - a verdict set beside the nominal regime, a list in parentheses under its
clause's condition, and a key fix put off behind a wrong first step. Each answer-level test names
the answer that showed the rule, the instructor's grade and the grader's before it."""

from __future__ import annotations

from conftest import answer_file, lever_statuses, read_body


def test_a_verdict_beside_the_nominal_regime_overrides_a_first_instinct(grader, tmp_path):
    """sealed182 e.s1841 (instructor 100, graded 70.8): 'My first instinct was "batch-1 decode, so
    bandwidth-bound", and on paper it is.' then 'So the diagnosis is launch-overhead-bound,
    nominally bandwidth-bound.': the later sentence, setting the nominal regime aside, is the
    verdict (sealed179 e.s1811 the same, after 'a compute-bound one pins the FLOPs')."""
    body = ('My first instinct was "batch-1 decode, so bandwidth-bound", and on paper it is. But '
            "bandwidth is at 14% of peak and compute at 3%.\n\n"
            "So the diagnosis is launch-overhead-bound, nominally bandwidth-bound.\n")
    a = read_body(grader, tmp_path, "e_doesnt_add_up", body)
    assert (a.regime, a.nominal_regime) == ("overhead_bound", "bandwidth_bound")


def test_a_regime_said_twice_beside_its_nominal_cue_is_no_verdict(grader, tmp_path):
    """sealed61 e.s633 (instructor 100): 'A batch-1 decode loop ought to be bandwidth-bound, and in a
    bandwidth-bound loop the bandwidth figure would be high' names only the nominal regime; the
    verdict comes later ('So: nominally bandwidth-bound, really launch-overhead-bound.')."""
    body = ("A batch-1 decode loop ought to be bandwidth-bound, and in a bandwidth-bound loop the "
            "bandwidth figure would be high. Here it is 14%.\n\n"
            "So: nominally bandwidth-bound, really launch-overhead-bound.\n")
    a = read_body(grader, tmp_path, "e_doesnt_add_up", body)
    assert (a.regime, a.nominal_regime) == ("overhead_bound", "bandwidth_bound")


def test_a_list_in_parentheses_stays_under_its_clauses_condition(grader):
    """sealed175 e.s1771 (instructor 100, graded 77.5): 'Only when the loop is genuinely
    bandwidth-bound does the usual decode toolkit (bigger batches, fewer weight bytes) come into
    play.' deferred the batch but recommended the weight bytes, charged as a trap."""
    said = ("Only when the loop is genuinely bandwidth-bound does the usual decode toolkit "
            "(bigger batches, fewer weight bytes) come into play.")
    statuses = lever_statuses(grader, said)
    assert statuses["raise_batch"] == "deferred"
    assert statuses["quantize_int8"] == "deferred"


def test_a_key_fix_put_off_behind_a_wrong_first_step_is_placed_not_hedged(grader, tmp_path):
    """sealed168 e.s1705 (instructor 40, graded 29): 'Quantize the weights to int8 now ... Graph
    capture can wait until after the int8 rollout; then do CUDA graphs' - the blind grade credits
    graphs and takes 2 for the order, as for sealed176 e.s1787 (28, graded 15); the grader read
    the graphs as only hedged (half)."""
    body = ("## Regime\nOverhead-bound: lots of small kernels with gaps between them.\n\n"
            "## Evidence\n~450 kernels per step with 8-15 us gaps; 14% bandwidth, 3% FLOPs.\n\n"
            "## Fixes\n1. Quantize the weights to int8 now - a quick config change, halves the bytes.\n"
            "2. Graph capture can wait until after the int8 rollout; then do CUDA graphs to remove the "
            "launch gaps.\n\n"
            "## Reject\n- Raising the batch: we only have one stream of requests.\n")
    r = grader.grade(answer_file(tmp_path, "e_doesnt_add_up", body))
    fixes = next(p for p in r.parts if p.part == "fixes")
    assert not any("Hedged" in f for f in fixes.feedback)


def test_a_hedged_deferral_behind_a_trap_stays_a_hedge(grader, tmp_path):
    """sealed109 c.s1114 (instructor 2): 'Batch the prefills ... Maybe FlashAttention later.' - put
    off with a hedge, not placed: no credit as the key's first fix."""
    body = ("## Regime\nPrefill, compute-bound.\n\n"
            "## Fixes\n1. Batch the prefills: several documents per forward pass raise utilization.\n"
            "2. Maybe FlashAttention later.\n")
    r = grader.grade(answer_file(tmp_path, "c_document_summarizer", body))
    fixes = next(p for p in r.parts if p.part == "fixes")
    assert any("Hedged" in f for f in fixes.feedback)


def test_a_trailing_only_if_after_but_conditions_the_lever_before_it(grader):
    """sealed143 e.s1455 (instructor 56, graded 29.5): 'Raise the batch to 8, but only if there's
    enough concurrent traffic' recommends the batch on a condition (the blind grade takes the
    rejection and 3 more), not outright: the grader charged the batching trap's 15."""
    said = ("Raise the batch to 8, but only if there's enough concurrent traffic — it will amortize "
            "the weight reads.")
    assert lever_statuses(grader, said)["raise_batch"] == "hypothetical"

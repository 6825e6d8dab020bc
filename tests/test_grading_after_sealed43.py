"""Readings and scoring rules from the blind sets sealed36-43 after their one measurement
(issue 27): a limiter under a condition, idleness of one resource, and an answer built on a
wrong regime."""

from __future__ import annotations

from conftest import answer_file, lever_statuses, read_body


def test_a_limiter_under_a_condition_is_no_verdict(grader, tmp_path):
    """sealed39 d.s412 (instructor 100): 'int4 ... helps when a model is waiting on memory' says
    where int4 pays; the memo's verdict is the later 'limited by compute, not bytes'."""
    a = read_body(grader, tmp_path, "d_high_throughput_api",
                  "Int4 makes the weights smaller, which helps when a model is waiting on memory. We run "
                  "at batch 256, past the ridge; we are limited by compute, not bytes.\n")
    assert a.regime == "compute_bound"


def test_one_resource_sitting_idle_is_no_verdict(grader, tmp_path):
    """sealed40 d.s421 (instructor 100): '70 % of our bandwidth is sitting idle' is a finding
    about bandwidth, not 'the GPU is sitting idle'."""
    a = read_body(grader, tmp_path, "d_high_throughput_api",
                  "Bytes aren't what's limiting us — roughly 70 % of our bandwidth is sitting idle — so "
                  "cutting them buys little.\n")
    assert a.regime is None
    b = read_body(grader, tmp_path, "e_doesnt_add_up",
                  "When nothing is saturated the GPU must be sitting idle between kernels.\n")
    assert b.regime == "overhead_bound"


def _parts(grader, path) -> dict[str, float]:
    return {p.part: p.points for p in grader.grade(path).parts}


def test_figures_read_to_another_regime_earn_part_of_the_evidence(grader, tmp_path):
    """sealed42 e.s450 (instructor 5): E's own figures under a bandwidth-bound verdict. The
    evidence part is scaled by the rubric's `evidence.wrong_regime`, less still for the 14%/3%
    item read for another regime (`evidence.read_wrong_way`), and a bare fix takes no reason from
    an argument for another regime."""
    body = ("## Evidence\n- 36 tok/s against a 215 tok/s ceiling.\n- 14% of bandwidth, 3% of FLOPs.\n"
            "- 450 kernels with gaps between them; the GPU is idle about 38% of the time.\n"
            "## Fixes\n1. CUDA graphs.\n")
    right = _parts(grader, answer_file(tmp_path, "e_doesnt_add_up", "## Regime\nOverhead-bound.\n" + body,
                                       "right.md"))
    wrong = _parts(grader, answer_file(tmp_path, "e_doesnt_add_up", "## Regime\nBandwidth-bound.\n" + body,
                                       "wrong.md"))
    share = grader.rubric.evidence.wrong_regime
    assert 0 < share < 1
    assert 0 < wrong["evidence"] < share * right["evidence"] - 0.11
    assert wrong["fixes"] < right["fixes"]


def test_the_regime_a_step_has_left_is_no_verdict(grader, tmp_path):
    """sealed42 d.s441 (instructor 100): 'crossed from bandwidth-bound into compute-bound'
    states compute-bound."""
    a = read_body(grader, tmp_path, "d_high_throughput_api",
                  "At 256 FLOPs per byte, just past the ridge, the workload has crossed from bandwidth-bound "
                  "into compute-bound.\n")
    assert a.regime == "compute_bound"


def test_a_lever_said_to_be_for_now_takes_no_carried_condition(grader):
    """sealed38 e.s408 (instructor 11, 'raises the batch now'): the condition before it is one the
    student says holds, and 'we should do it now' recommends the lever."""
    said = ("If the loop is bandwidth-bound, as batch-1 decode always is, then raising the batch is the "
            "standard answer and we should do it now.")
    assert lever_statuses(grader, said)["raise_batch"] == "affirmed"
    conditional = lever_statuses(grader, "If the loop is bandwidth-bound, then raise the batch.")
    assert conditional["raise_batch"] == "hypothetical"


def test_a_yaml_bound_that_sizes_the_fix_does_not_defer_it(grader, tmp_path):
    """sealed37 e.s398 (instructor: 'a condition on how, not a deferral'): the bound 'if we go to
    batch 8 ...' is how much the fix buys; 'if the gaps are gone' would wait for something."""
    body = ("regime: overhead_bound\nfixes:\n"
            "  - {lever: raise_batch, bound: \"if we go to batch 8 we use ~8x the bandwidth per step\"}\n"
            "  - {lever: quantize_int8, bound: \"if the gaps are gone, ~2x\"}\n")
    a = read_body(grader, tmp_path, "e_doesnt_add_up", body, "x.yaml")
    assert [m.concepts for m in a.fixes] == [("raise_batch",)]
    assert [m.concepts for m in a.deferred] == [("quantize_int8",)]


def test_a_denial_with_a_subject_of_its_own_denies_nothing_before_it(grader, tmp_path):
    """sealed42 b.s450 (instructor 100): 'compute bound overall (61 % of peak), engineer #1 is
    right, #2 is not' denies engineer #2, not the verdict; 'and right now it isn't' (sealed6
    e.s84) still denies the regime it follows."""
    a = read_body(grader, tmp_path, "b_training_run",
                  "## Regime\ncompute bound overall (61 % of peak), engineer #1 is right, #2 is not.\n")
    assert a.regime == "compute_bound"
    b = read_body(grader, tmp_path, "e_doesnt_add_up",
                  "## Regime\nThe proposals assume this loop is bandwidth-bound, and right now it isn't.\n")
    assert b.regime is None


def test_a_longer_refusing_label_refuses_what_follows_it(grader):
    """sealed41 a.s437 (instructor 81): 'The fusion proposal I would drop: the elementwise ops
    are a rounding error ...' rejects fusion; 'Focus on the compute side instead: fuse
    attention ...' (sealed22 b.s244) recommends what follows its 'instead'."""
    said = ("The fusion proposal I would drop: the elementwise ops are a rounding error next to the "
            "weight read at batch 1.")
    assert lever_statuses(grader, said)["fuse_elementwise"] == "negated"
    turned = "Focus on the compute side instead: fuse attention into a single kernel."
    assert lever_statuses(grader, turned)["fuse_attention"] == "affirmed"


def test_not_starting_with_a_key_fix_under_reject_keeps_it_for_later(grader, tmp_path):
    """sealed43 b.s451 (instructor 100): under Reject, 'just not about starting with hand-written
    kernels', after 'Only if a meaningful gap is left after 1 and 2, hand-write fused kernels'
    under Fixes, is the key's order, not fusion dismissed."""
    path = answer_file(tmp_path, "b_training_run",
                       "## Regime\nCompute-bound.\n## Fixes\n1. torch.compile first.\n"
                       "2. Only if a gap is left after 1, hand-write fused norm kernels.\n## Reject\n"
                       "- The first engineer is right about the target, just not about starting with "
                       "hand-written kernels.\n")
    assert not [p.id for p in grader.grade(path).penalties]


def test_a_yaml_fix_kept_as_a_fallback_is_still_recommended(grader, tmp_path):
    """sealed43 e.s458 (instructor: raising the batch 'listed as a fix if that is still not
    enough, not deferred to after a re-measure')."""
    body = ("regime: overhead-bound\nfixes:\n  - cuda_graphs\n"
            "  - {lever: raise_batch, bound: \"if that is still not enough\"}\n")
    a = read_body(grader, tmp_path, "e_doesnt_add_up", body, "x.yaml")
    assert [m.concepts for m in a.fixes] == [("cuda_graphs",), ("raise_batch",)]


def test_several_terms_between_slashes_commit_to_no_regime(grader, tmp_path):
    """sealed40 a.s427 (instructor: 'four regimes listed, none committed to'), even where two of
    them are one regime's names; one synonym beside another stays a verdict."""
    a = read_body(grader, tmp_path, "a_chatbot",
                  "## Regime\nbandwidth-bound / memory-bound / decode / latency bound\n")
    assert a.regime is None
    b = read_body(grader, tmp_path, "a_chatbot", "## Regime\nbandwidth-bound / memory-bound\n")
    assert b.regime == "bandwidth_bound"


def test_an_arrow_reads_as_its_word(grader):
    """sealed41 e.s440 (instructor 100): under Reject, 'batch ↑ now: idle gpu, doesnt fill gaps'
    names raising the batch; 'up' alone does not pick which batching an answer means (sealed29
    a.s314: 'batching later if traffic goes up')."""
    assert grader.concepts.words("batch ↑ now") == ["batch", "up", "now"]
    assert "raise_batch" in lever_statuses(grader, "batch ↑ now: idle gpu, doesnt fill gaps")
    later = lever_statuses(grader, "Maybe batching later if traffic goes up.")
    assert "continuous_batching" in later and "raise_batch" in later


def test_and_a_name_before_a_colon_goes_on_refusing(grader):
    """sealed37 c.s391 (instructor 100): 'And weight quantization: ...' after 'What I'd turn
    down: batching the prefills.' and a sentence of argument refuses quantization too."""
    said = ("What I'd turn down: batching the prefills. One 25k-token prefill is already compute-bound. "
            "And weight quantization: at 25,000 tokens per pass the weight read is amortized.")
    assert lever_statuses(grader, said)["quantize_int8"] == "negated"
    assert lever_statuses(grader, "Batching is right. And weight quantization: it halves the bytes.")[
        "quantize_int8"] == "affirmed"


def test_the_fixes_heading_inline_in_prose_recommends(grader, tmp_path):
    """sealed45 e.s474 (instructor 93): 'Fixes: (1) CUDA graphs for the decode step to kill launch
    overhead; (2) torch.compile ...' in an answer without template headings."""
    a = read_body(grader, tmp_path, "e_doesnt_add_up",
                  "Neither bound - it's overhead: the GPU sits idle between ~450 tiny kernels.\n\n"
                  "Fixes: (1) CUDA graphs for the decode step to kill launch overhead; (2) torch.compile to "
                  "merge the small kernels so there are fewer gaps.\n")
    assert [m.concepts for m in a.fixes] == [("cuda_graphs",), ("torch_compile",)]


def test_a_verdict_in_one_word_beside_the_nominal_regime(grader, tmp_path):
    """sealed45 e.s478 (instructor: 'regime hedged', 14 of 20): 'Bandwidth-bound in principle,
    but the 14% / 3% profile suggests overhead' names overhead as the verdict; 'Maybe
    compute-bound? ..., though decode is usually bandwidth-bound' (sealed21 d.s238) commits to none."""
    a = read_body(grader, tmp_path, "e_doesnt_add_up",
                  "## Regime\nBandwidth-bound in principle, but the 14% / 3% profile suggests overhead.\n")
    assert (a.nominal_regime, a.regime) == ("bandwidth_bound", "overhead_bound")
    b = read_body(grader, tmp_path, "d_high_throughput_api",
                  "## Regime\nMaybe compute-bound? 71% FLOPs seems high, though decode is usually "
                  "bandwidth-bound, so it might be a mix.\n")
    assert b.regime is None

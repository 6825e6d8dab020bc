"""Key figures an answer states but the grader did not read (issue 27, dev pool): each rule with
the answer that showed it, the instructor's grade against the grader's before the rule."""

from __future__ import annotations

from conftest import answer_file

from regime.engine.grading.figures import quantities


def _evidence(grader, tmp_path, case: str, body: str) -> str:
    """The evidence part's feedback for `body` written as an answer to `case`, as one text."""
    result = grader.grade(answer_file(tmp_path, case, body))
    part = next(p for p in result.parts if p.part.startswith("evidence"))
    return "\n".join(part.feedback)


def test_a_share_of_peak_is_the_utilization_it_matches(grader, tmp_path):
    """corpus c.s02_prose (instructor 96, graded 91) and sealed40 c.s428_table (100, 90.5):
    'compute-bound ... at only 20% of peak' states the achieved FLOP rate; 'peak' says which
    share it is as well as 'FLOP' does (the value still has to be the case's own)."""
    body = ("Prefill of the 25,000-token prompt is compute-bound. It is running badly, at only 20% of "
            "peak.\n\nUse FlashAttention.\n")
    assert "achieved FLOP rate" not in _evidence(grader, tmp_path, "c_document_summarizer", body)
    wrong = body.replace("20% of", "35% of")
    assert "achieved FLOP rate" in _evidence(grader, tmp_path, "c_document_summarizer", wrong)


def test_the_zero_flop_share_written_with_its_kind_of_op(grader, tmp_path):
    """sealed82 b.s848 (instructor 97, graded 84): '8% + 9% + 5% = 22% in ops with ~0 FLOPs';
    sealed116 b.s1185 (87, 78.5): '~22% of the time lost to memory-bound glue'."""
    for line in ("- 8% + 9% + 5% = 22% in ops with ~0 FLOPs.",
                 "- ~22% of the time lost to memory-bound glue."):
        body = f"## Regime\nCompute-bound at 61% MFU.\n\n## Evidence\n{line}\n\n## Fixes\n1. torch.compile\n"
        assert "no FLOPs" not in _evidence(grader, tmp_path, "b_training_run", body), line


def test_a_rate_written_with_an_article_for_per(grader, tmp_path):
    """sealed43 a.s453 (instructor 100, graded 84.4): 'the hard limit is roughly 204 tokens a
    second' is the batch-1 ceiling, 204 tokens/s; 'a' is 'per' between a unit and a unit only."""
    assert quantities("roughly 204 tokens a second")[0].unit == "tokens/second"
    assert quantities("16 GB a layer")[0].unit == "GB"
    assert quantities("4 ms a token")[0].unit == "ms/token"
    body = ("At batch 1 every token streams all 26 GB of weights at 5.3 TB/s, so the hard limit is "
            "roughly 204 tokens a second. We get 160.\n")
    assert "batch-1 ceiling" not in _evidence(grader, tmp_path, "a_chatbot", body)


def test_a_hedged_round_number_is_read_to_its_last_nonzero_digit(grader, tmp_path):
    """sealed71 e.s738 (instructor 92, graded 80) 'about 40% of the ms-scale step is idle',
    sealed28 e.s309 (90, 73.5) 'idle ~40% of the step': the blind grades call '~40%' the 37.9%
    idle share (sealed38 e.s406: 'the ~40% fraction is right'); 'about a third' stays a figure
    missed (sealed120 e.s1228: -2 for it)."""
    for said in ("about 40% of the step is idle", "the GPU is idle ~40% of the step",
                 "close to 40% of the wall clock has nothing running"):
        body = f"Overhead-bound: 14% of bandwidth, 3% of FLOPs. With 11 us gaps per 18 us of work, {said}.\n"
        assert "sits idle" not in _evidence(grader, tmp_path, "e_doesnt_add_up", body), said
    third = "Overhead-bound: 14% of bandwidth, 3% of FLOPs. About a third of each step is idle.\n"
    assert "sits idle" in _evidence(grader, tmp_path, "e_doesnt_add_up", third)


def test_only_a_hedged_round_number_reaches_further():
    """Written digits keep their rounding: an unhedged '40%' is 39.5-40.5%, a hedged '38.5%' its
    own half digit, and a hedged round number reaches at most a tenth of its value."""
    def hedged(before: str) -> bool:
        return before.rstrip().endswith("about")
    assert quantities("40% idle", hedged, 0.1)[0].slack == 0.5
    assert quantities("about 38.5% idle", hedged, 0.1)[0].slack == 0.05
    assert quantities("about 40% idle", hedged, 0.1)[0].slack == 4.0
    assert quantities("~100 tokens/s", hedged, 0.1)[0].slack == 10.0
    assert quantities("~100 tokens/s")[0].slack == 0.5

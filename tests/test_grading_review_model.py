"""The review model (engine/grading/risk.py, context.yaml `review_model`): who is reviewed is
decided by boosted decision trees fitted to the blind grades (bench/fit_review.py); the unsure
readings are among its features and stay the lines shown."""

from __future__ import annotations

import dataclasses

import pytest

from regime.core.errors import RegimeError
from regime.engine.grading import review, risk
from regime.engine.grading.answer import Answer
from regime.engine.grading.review import Reading
from regime.engine.grading.score import Part
from regime.engine.grading.triggers import load_triggers


def test_features_name_the_band_each_part_and_capped_status_counts():
    f = risk.features(0.47, [("regime", 20.0, 20.0), ("fixes", 5.0, 20.0)],
                      ["affirmed"] * 5 + ["possible"], unsure=True, penalties=7, words=99, fmt="markdown")
    assert f["band_4"] == 1.0 and not any(k.startswith("band_") and k != "band_4" for k in f)
    assert f["part_regime"] == 1.0 and f["part_fixes"] == 0.25
    assert f["status_affirmed"] == 3 and f["status_possible"] == 1      # counts above 3 say no more
    assert f["unsure"] == 1.0 and f["penalties"] == 3 and f["format_markdown"] == 1.0
    assert risk.features(1.0, [], [], False, 0, 0, "yaml")["band_9"] == 1.0   # full marks: the top band


def _decide(grader, model: risk.Model | None, statuses: list[tuple[str, float]], share: float = 0.5):
    t = dataclasses.replace(grader.concepts.context, review_model=model)
    rs = [Reading(3, s, c, f"sentence read as {s}") for s, c in statuses]
    parts = [Part("regime", 20.0, 20.0), Part("fixes", 10.0, 20.0)]
    answer = Answer(path="x.md", format="markdown", case="a", text="a b c")
    return review.decide(rs, t, share, parts, 0, answer)


def test_without_a_model_any_unsure_reading_is_reviewed(grader):
    assert _decide(grader, None, [("unread", 0.2)]) == ["line 3: unread: sentence read as unread"]
    assert _decide(grader, None, [("affirmed", 1.0)]) == []


def test_the_model_decides_and_the_unsure_readings_are_what_it_shows(grader):
    weighs_unsure = risk.Model({"unsure": 2.0}, bias=-1.0, threshold=0.0)
    assert _decide(grader, weighs_unsure, [("unread", 0.2)]) == ["line 3: unread: sentence read as unread"]
    assert _decide(grader, weighs_unsure, [("affirmed", 1.0)]) == []
    never = risk.Model({"unsure": 2.0}, bias=-1.0, threshold=5.0)
    assert _decide(grader, never, [("guessed", 0.5)]) == []     # an unsure reading the model lets pass


def test_a_reading_the_grader_could_not_read_at_all_is_reviewed_whatever_the_model_says(grader):
    """context.yaml `review_always_below`: an item tied to nothing ('fixs:', '204 bananas', 0.2)
    is shown even where the model would let the answer pass; a merely unsure one (0.5) is not."""
    never = risk.Model({"unsure": 2.0}, bias=-1.0, threshold=5.0)
    floor = grader.concepts.context.review_always_below
    assert 0.2 < floor <= 0.5
    assert _decide(grader, never, [("unread", 0.2)]) == ["line 3: unread: sentence read as unread"]
    assert _decide(grader, never, [("guessed", 0.5)]) == []


def test_an_answer_the_model_flags_with_every_reading_sure_is_checked_whole(grader):
    mid_band = risk.Model({"band_5": 3.0}, bias=-1.0, threshold=0.0)
    lines = _decide(grader, mid_band, [("affirmed", 1.0)], share=0.55)
    assert len(lines) == 1 and lines[0].startswith("uncertain:") and "check it whole" in lines[0]
    assert _decide(grader, mid_band, [("affirmed", 1.0)], share=0.95) == []


def test_a_tree_walks_to_one_leaf_and_the_leaves_add_to_the_log_odds():
    """Each node is a leaf (what it adds) or [feature, threshold, node if at most, node if above];
    a feature the answer lacks reads 0, as in the fit."""
    middle = (("share", 0.35, 1, 2), -1.0, ("share", 0.75, 3, 4), 2.0, -0.5)
    missing = (("part_rejections", 0.0, 1, 2), 0.75, 0.0)
    m = risk.Model(bias=-0.25, trees=(middle, missing))
    assert risk.log_odds(m, {"share": 0.2}) == -0.25 - 1.0 + 0.75
    assert risk.log_odds(m, {"share": 0.6, "part_rejections": 0.5}) == -0.25 + 2.0
    assert risk.log_odds(m, {"share": 0.9, "part_rejections": 1.0}) == -0.25 - 0.5
    both = risk.Model({"unsure": 1.0}, bias=0.0, trees=(missing,))
    assert risk.log_odds(both, {"unsure": 1.0}) == 1.75      # weights and trees add up


def test_a_tree_written_as_one_string_is_the_same_tree():
    """bench/fit_review.py writes each tree as one string, nodes between '|' (hundreds of trees
    load several times faster than nested YAML lists); a hand-written list reads the same."""
    nodes = [["share", 0.35, 1, 2], -1.0, ["share", 0.75, 3, 4], 2.0, -0.5]
    listed = risk.load({"bias": -0.25, "trees": [nodes]})
    written = risk.load({"bias": -0.25, "trees": ["share 0.35 1 2 | -1.0 | share 0.75 3 4 | 2.0 | -0.5"]})
    assert written == listed and written is not None
    assert risk.log_odds(written, {"share": 0.6}) == -0.25 + 2.0


def test_the_built_in_model_is_fitted_and_flags_by_its_threshold(grader):
    m = grader.concepts.context.review_model
    assert m is not None and len(m.trees) >= 10
    used = {n[0] for t in m.trees for n in t if not isinstance(n, float)}
    assert {"share", "unsure"} <= used and all(not k.startswith("case_") for k in used)
    f = risk.features(0.5, [("regime", 20.0, 20.0)], ["unread"], True, 0, 100, "markdown")
    assert risk.flagged(m, f) == (risk.log_odds(m, f) > m.threshold)


@pytest.mark.parametrize("block", ["review_model: [1, 2]\n", "review_model: {weights: {band_1: high}}\n",
                                   "review_model: {bias: 1}\n", "review_model: {trees: [[]]}\n",
                                   "review_model: {trees: [[[share, 0.5, 0, 1], 1.0]]}\n",
                                   "review_model: {trees: [[[share, 0.5, 1, 7], 1.0]]}\n",
                                   "review_model: {trees: [[[share, high, 1, 2], 1.0, 2.0]]}\n",
                                   "review_model: {trees: [[1e-06]]}\n", "review_model: {trees: 3}\n",
                                   "review_model: {trees: ['share 0.5 1 | 1.0']}\n",
                                   "review_model: {trees: ['share high 1 2 | 1.0 | 2.0']}\n",
                                   "review_model: {trees: ['share 0.5 1 7 | 1.0']}\n"])
def test_a_malformed_review_model_is_a_located_error(grader, tmp_path, block):
    bad = tmp_path / "context.yaml"
    bad.write_text("statuses: {negated: {forward: [not]}}\n" + block, encoding="utf-8")
    with pytest.raises(RegimeError) as e:
        load_triggers(bad, grader.concepts)
    assert e.value.field == "review_model" and e.value.file == str(bad)


def test_the_fit_finds_what_predicts_a_disagreement_and_flags_its_target_share():
    """bench/fit_review.py on made-up rows: disagreements go with an unsure reading in the middle
    band (neither alone), which trees can say; the exported trees flag those rows, not the noise,
    and about the share asked."""
    import sys
    from pathlib import Path
    sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "bench"))
    import fit_review
    rows = [fit_review.Row({"unsure": float(i % 4 == 0), "share": (i % 10) / 10, "noise": float(i % 3 == 0)},
                           i % 4 == 0 and 3 <= i % 10 <= 6, False, "a", "", 0.5, 0.5, i % 7)
            for i in range(800)]   # seven folders: the threshold is set on scores read out of fold
    m = fit_review.fit(rows, ["noise", "share", "unsure"], target=0.1)
    used = {n[0] for t in m.trees for n in t if not isinstance(n, float)}
    assert {"share", "unsure"} <= used
    flags = [risk.flagged(m, r.feats) for r in rows]
    assert 0.05 <= sum(flags) / len(rows) <= 0.15
    assert all(r.differs for f, r in zip(flags, rows, strict=True) if f)     # only the disagreements

"""The second reading (engine/grading/second_reading.py, rules/grading/second_reading.yaml): an
answer read from its words alone by a model fitted to the blind grades, which the review model
weighs against the grader's score. It never grades; it only moves the review queue."""

from __future__ import annotations

import dataclasses
import math
import sys
from pathlib import Path

import pytest

from regime.core.errors import RegimeError
from regime.engine.grading import review, risk, second_reading
from regime.engine.grading.answer import Answer
from regime.engine.grading.review import Reading
from regime.engine.grading.score import Part

ROOT = Path(__file__).resolve().parent.parent


def test_a_reading_is_tf_idf_with_sublinear_counts_scaled_to_unit_length():
    """'Batch now, batch later': 'batch' twice, 'batch now' once, the rest unknown terms."""
    r = second_reading.Reader(0.5, 2, {"batch": (2.0, 0.1), "batch now": (1.0, -0.2)})
    batch, now = (1 + math.log(2)) * 2.0, 1.0
    norm = math.hypot(batch, now)
    assert r.share("Batch now, batch later.") == pytest.approx(0.5 + (0.1 * batch - 0.2 * now) / norm)
    assert r.share("nothing it knows") == 0.5 and r.share("") == 0.5
    assert r.share("a b I x") == 0.5     # one-character tokens are no terms


def test_the_gap_model_reads_the_same_vector_with_its_own_weights():
    """How far instructors' grades ran from the grader's on answers worded like this one: the
    same unit TF-IDF vector, its own intercept and weights; absent, the reading has no gap."""
    r = second_reading.Reader(0.5, 2, {"batch": (2.0, 0.1), "batch now": (1.0, -0.2)},
                              gap_intercept=-0.01, gap={"batch": 0.3, "batch now": 0.05})
    batch, now = (1 + math.log(2)) * 2.0, 1.0
    norm = math.hypot(batch, now)
    share, gap = r.read("Batch now, batch later.")
    assert share == pytest.approx(0.5 + (0.1 * batch - 0.2 * now) / norm)
    assert gap == pytest.approx(-0.01 + (0.3 * batch + 0.05 * now) / norm)
    assert r.read("nothing it knows") == (0.5, -0.01)
    assert second_reading.Reader(0.5, 1, {"batch": (2.0, 0.1)}).read("batch") == (pytest.approx(0.6), None)


def test_a_reading_matches_scikit_learn_on_answers_it_was_fitted_to():
    """The fit's exporter checks every row; here the same on a few made-up answers."""
    sys.path.insert(0, str(ROOT / "bench"))
    import fit_review
    texts = ["batch the requests, quantize to int8", "fuse the elementwise ops", "buy more flops",
             "continuous batching then int8 weights", "do not fuse, batch instead", "int8 and batching"] * 3
    rows = [fit_review.Row({}, False, False, "a_case", t, 0.5, (i % 5) / 4, i % 3)
            for i, t in enumerate(texts)]
    readers = fit_review.fit_readers(rows)
    mine = second_reading.parse(__import__("yaml").safe_load(fit_review.exported(readers, rows)))
    want = fit_review.read_with(readers, rows)
    assert all(abs(a - b) < 1e-6 for r, w in zip(rows, want, strict=True)
               for a, b in zip(mine["a_case"].read(r.text), w, strict=True))
    assert any(abs(w[1]) > 0.01 for w in want)   # the gap model learned something to check


def _site(tmp_path: Path, body: str) -> Path:
    site = tmp_path / "grading"
    site.mkdir(exist_ok=True)
    (site / "second_reading.yaml").write_text(body, encoding="utf-8")
    return tmp_path


def test_a_site_layer_adds_an_exercise_and_keeps_the_built_in_ones(tmp_path):
    site = _site(tmp_path, "exercises:\n  my_case: {intercept: 0.4, ngrams: 1, terms: 'int8|fuse', "
                           "idf: '1.5 2.5', weights: '0.3 -0.3'}\n")
    built_in = second_reading.load([ROOT / "rules" / "grading" / second_reading.FILE])
    both = second_reading.load([ROOT / "rules" / "grading" / second_reading.FILE,
                                site / "grading" / "second_reading.yaml"])
    assert set(both) == set(built_in) | {"my_case"}
    assert both["my_case"].share("int8") == pytest.approx(0.7)
    assert second_reading.load([tmp_path / "absent.yaml"]) == {}


_OK = {"intercept": "0.4", "ngrams": "1", "terms": "'a1'", "idf": "'1.5'", "weights": "'0.3'"}


def _exercise(**change: str) -> str:
    fields = {k: v for k, v in (_OK | change).items() if v}
    return "exercises:\n  c: {" + ", ".join(f"{k}: {v}" for k, v in fields.items()) + "}\n"


@pytest.mark.parametrize(("body", "field"), [
    (_exercise(terms="'a1|b1'"), "exercises.c"),          # two terms, one idf
    (_exercise(idf="'high'"), "exercises.c"),
    (_exercise(weights="'nan'"), "exercises.c"),
    (_exercise(ngrams="9"), "exercises.c.ngrams"),
    (_exercise(ngrams=""), "exercises.c.ngrams"),         # missing
    (_exercise(bias="2"), "exercises.c.bias"),            # not a field
    (_exercise(gap_weights="'0.1'"), "exercises.c"),      # a gap model without its intercept
    (_exercise(gap_intercept="0.1", gap_weights="'0.1 0.2'"), "exercises.c"),   # two weights, one term
    ("exercises: [c]\n", "exercises"),
])
def test_a_malformed_second_reading_is_a_located_error(tmp_path, body, field):
    site = _site(tmp_path, body)
    with pytest.raises(RegimeError) as e:
        second_reading.load([site / "grading" / "second_reading.yaml"])
    assert e.value.file == str(site / "grading" / "second_reading.yaml")
    assert (e.value.field or "").startswith(field)


def _decide(grader, second: tuple[float, float | None] | None, share: float = 0.9) -> list[str]:
    apart = risk.Model({"second_apart": 10.0}, bias=-3.0, threshold=0.0)   # flags 0.3 apart or more
    t = dataclasses.replace(grader.concepts.context, review_model_second=apart,
                            review_model=risk.Model({}, bias=-5.0, threshold=0.0))   # flags nothing
    parts = [Part("regime", 20.0, 20.0)]
    rs = [Reading(1, "affirmed", 1.0, "sentence")]
    return review.decide(rs, t, share, parts, 0, Answer(path="x.md", format="markdown", case="a", text="a b"),
                         second)


def test_where_the_readings_part_the_answer_is_reviewed_with_both_shares(grader):
    lines = _decide(grader, (0.45, None))
    assert lines == ["second reading: instructors gave answers worded like this one about 45% of the points "
                     "(graded 90%): check it whole"]
    assert _decide(grader, (0.85, None)) == []          # the readings agree
    assert _decide(grader, None) == []          # no second reading: the model without one decides


def test_the_gap_model_is_a_feature_of_its_own():
    """Where the grader has misread such words before, the trees may flag an answer whose two
    readings agree: `misread` and `misread_apart` join the features only with a gap model."""
    feats = risk.features(0.9, [], [], False, 0, 10, "markdown", (0.85, -0.3))
    assert feats["second_apart"] == pytest.approx(0.05)
    assert (feats["misread"], feats["misread_apart"]) == (-0.3, 0.3)
    assert "misread" not in risk.features(0.9, [], [], False, 0, 10, "markdown", (0.85, None))


def test_a_variant_or_an_exercise_it_was_not_fitted_to_has_no_second_reading(grader, tmp_path):
    """A student's variant may land in another regime: the exercise's reader does not apply."""
    from regime.engine.grading.submission import read_answer
    answer = read_answer(ROOT / "answers" / "corpus" / "a_chatbot.s01_terse.md", grader.concepts, 1 << 20)
    share, gap = grader.second_reading(answer)
    assert isinstance(share, float) and (gap is None or isinstance(gap, float))
    assert grader.second_reading(answer, tmp_path) is None
    assert grader.second_reading(dataclasses.replace(answer, case="site_case")) is None


def test_the_shipped_reading_ranks_a_full_answer_over_a_keyword_list(grader):
    corpus = ROOT / "answers" / "corpus"
    full = (corpus / "a_chatbot.s02_prose.md").read_text(encoding="utf-8")
    reader = grader.second["a_chatbot"]
    listed = "batching, int8, int4, fusion, FlashAttention, CUDA graphs, torch.compile, more FLOPs, bandwidth"
    assert reader.share(full) > 0.8 > 0.4 > reader.share(listed)

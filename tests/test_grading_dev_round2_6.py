"""Scoring rules found in the dev pool's wrong-regime over-grades (issue 27, round 2 helper 6),
each with the answer that showed it."""

from __future__ import annotations

from conftest import answer_file, read_body

from regime.engine.grading.wrong_way import credited

WRONG_WAY = ("## Regime\nBandwidth-bound (decode).\n\n## Evidence\n- FLOP rate 71%, bandwidth 30%.\n"
             "- Intensity at batch 256 is about 256 FLOP/byte, basically at the 247 ridge, so we sit on the "
             "roofline's sloped (memory) side.\n\n## Fixes\n1. Speculative decoding.\n")


def _evidence(result) -> float:
    return next(p.points for p in result.parts if p.part == "evidence")


def test_the_verdicts_own_figures_read_to_another_regime_earn_less(grader, tmp_path):
    """sealed142 d.s1445 (instructor 7, graded 38.4): 'FLOP rate 71%, bandwidth 30%' under
    'Bandwidth-bound': "-15: 71%/30% quoted but read as a memory bottleneck". The regime rule's
    deciding pair read to another regime earns half its item; the intensity and ridge, which
    the answer places on the ridge, keep theirs."""
    a = read_body(grader, tmp_path, "d_high_throughput_api", WRONG_WAY)
    key = grader.key(a, None)[0]
    ev = grader.rubric.evidence
    items = [[key.figures[n] for n in names] for names in key.decided(ev.decided_by, ev.thresholds)]
    stated = [None] * len(items)
    assert a.regime != key.regime
    got = credited(key, items, stated, ev.read_wrong_way, a.regime)
    verdict = {n for x in key.decisive if x.kind == "regime" for n in x.names}
    halves = sum({f.name for f in item} <= verdict for item in items)
    assert halves == 2 and got == len(items) - halves * (1 - ev.read_wrong_way.share) < len(items)
    assert credited(key, items, stated, ev.read_wrong_way, key.regime) == len(items)


def test_the_same_figures_under_the_right_regime_earn_in_full(grader, tmp_path):
    """The same answer naming the key's regime: nothing is read the wrong way, and the evidence
    part earns more than the wrong-way answer's by more than `wrong_regime` alone gives."""
    wrong = grader.grade(answer_file(tmp_path, "d_high_throughput_api", WRONG_WAY, name="w.md"))
    body = WRONG_WAY.replace("Bandwidth-bound (decode)", "Compute-bound")
    right = grader.grade(answer_file(tmp_path, "d_high_throughput_api", body, name="r.md"))
    assert _evidence(wrong) < grader.rubric.evidence.wrong_regime * _evidence(right) - 1


def test_a_balanced_verdict_does_not_read_the_figures_the_wrong_way(grader, tmp_path):
    """Case D answers that call the step balanced, on the ridge (28 in the dev pool, instructors 24.6
    on average, graded 3 points under before this rule and 7 under with it): '71% and 30%, right
    at the ridge' places the deciding pair between the regimes, not against the key's reading.
    Its items keep their whole credit (rubric `read_wrong_way.spared`)."""
    a = read_body(grader, tmp_path, "d_high_throughput_api", WRONG_WAY)
    key = grader.key(a, None)[0]
    ev = grader.rubric.evidence
    items = [[key.figures[n] for n in names] for names in key.decided(ev.decided_by, ev.thresholds)]
    assert "balanced" in ev.read_wrong_way.spared
    assert credited(key, items, [None] * len(items), ev.read_wrong_way, "balanced") == len(items)

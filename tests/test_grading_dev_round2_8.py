"""Hedged fixes and hedged rejections (issue 27, dev round 2, class 8): the blind grades credit
a hedged recommendation or refusal that carries the worked solution's reason, and refuse to read
a hedged "won't buy much" as a recommendation. Each test names the answer that showed it."""

from __future__ import annotations

from conftest import answer_file, lever_statuses, read_body


def _rejected(a) -> set[str]:
    return {c for m in a.rejects for c in m.concepts}


def test_wont_buy_much_refuses_the_lever_even_when_hedged(grader):
    """sealed160 a.s1625 (instructor 56, graded 19.7 with the batch-1 fusion trap charged): 'fusing
    the elementwise ops probably won't buy much here, though it could be worth a quick test' is a
    hedged refusal ("-8: fusion rejection hedged"), not a recommendation; so is sealed149 a.s1514."""
    said = "Fusing the elementwise ops probably won't buy much here, though it could be worth a quick test."
    assert lever_statuses(grader, said) == {"fuse_elementwise": "negated"}
    assert lever_statuses(grader, "Fusing the elementwise ops would not buy anything.") == {
        "fuse_elementwise": "negated"}


def test_a_more_powerful_gpu_is_the_gpu_with_more_flops(grader, tmp_path):
    """sealed169 a.s1716 (instructor 94, graded 55.3): 'A more powerful GPU probably wouldn't help
    either - we're using about 4% of the compute' rejects buying more FLOPs; sealed160 a.s1625's
    'A faster-compute GPU seems unnecessary' too (both read as naming no lever before)."""
    body = ("## Reject\n- A more powerful GPU probably wouldn't help either: we use 4% of the compute.\n"
            "- A faster-compute GPU seems unnecessary given the low compute utilization.\n")
    a = read_body(grader, tmp_path, "a_chatbot", body)
    assert "buy_more_flops" in _rejected(a)
    assert {m.line for m in a.rejects if "buy_more_flops" in m.concepts} == {5, 6}


HEDGED = """## Regime
Bandwidth-bound: 78% of peak bandwidth against 4% of peak FLOPs.

## Fixes
1. Batching might be the best lever: probably continuous batching, so the {why}.
"""


def _fixes(grader, tmp_path, why: str, name: str) -> float:
    result = grader.grade(answer_file(tmp_path, "a_chatbot", HEDGED.format(why=why), name=name))
    return next(p for p in result.parts if p.part.startswith("fixes")).points


def test_a_hedged_fix_with_the_keys_reason_earns_more_than_a_bare_hedge(grader, tmp_path):
    """sealed169 a.s1716 (instructor 94: "a hedged recommendation of the right lever with the
    right reason gets full credit"), sealed167 a.s1700 (85, int8 "might help" yet with its
    reason): a hedge with the key's reason earns `fixes.hedged_argued`, one without `hedged`."""
    rules = grader.rubric.fixes
    assert rules.hedged_argued is not None and rules.hedged_argued > rules.hedged
    argued = _fixes(grader, tmp_path, "weights are read once for several users", "argued.md")
    bare = _fixes(grader, tmp_path, "queue stays short", "bare.md")
    assert argued > bare > 0
    assert abs(argued / bare - rules.hedged_argued / (rules.hedged * grader.rubric.reasons.wrong)) < 0.02


def test_a_topic_head_may_name_the_levers_object(grader):
    """sealed173 c.s1756 (instructor 80, graded 51.5 with int8 charged as recommended): 'Quantizing
    the weights: probably not worth it - the weights get reused across all 25k tokens' is a hedged
    refusal with its reason, as 'Quantizing: probably not worth it' already was."""
    said = "Quantizing the weights: probably not worth it, the weights get reused across all 25k tokens."
    assert set(lever_statuses(grader, said).values()) == {"negated"}
    assert set(lever_statuses(grader, "Quantizing the model: not worth it.").values()) == {"negated"}

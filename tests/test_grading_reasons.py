"""Reasons, not names (engine/grading/reasons.py): the right lever earns its full credit only
with the key's reason (a deciding figure, or the words of the rule's justification); with
another reason it earns the rubric's part. Also: a YAML keyword list commits to nothing, figures
without a regime support nothing, and feedback writes decimals as the worked solution does."""

from __future__ import annotations

import pytest
from conftest import ROOT

from regime.engine.grading import reasons
from regime.engine.grading.figures import as_taught
from regime.engine.grading.grader import Grader
from regime.engine.grading.submission import read_answer


@pytest.fixture(scope="module")
def grader() -> Grader:
    return Grader()


def _judge(grader: Grader, case: str, concept: str, reason: str, written: str = "") -> str:
    key = grader.key_for_case(grader._case_paths()[case])
    return reasons.judge(reason, written, concept, key, grader.concepts, grader.concepts.reasons,
                         grader.rubric.evidence.relative_tolerance)


@pytest.mark.parametrize(("case", "concept", "reason", "state"), [
    # the key's words (answers/corpus, answers/new)
    ("c_document_summarizer", "raise_batch", "makes one prompt's TTFT worse", reasons.RIGHT),
    ("e_doesnt_add_up", "quantize_int8", "bytes are not the limit", reasons.RIGHT),
    ("a_chatbot", "buy_more_flops", "the matrix cores sit idle", reasons.RIGHT),   # the regime's argument
    # a deciding figure the rule cites
    ("c_document_summarizer", "flash_attention", "removes the 40 GB score matrix", reasons.RIGHT),
    ("b_training_run", "fuse_attention", "already at 7%", reasons.RIGHT),
    # the key's argument in a student's words (rubric.yaml reasons.synonyms: sealed21 e.s237,
    # sealed43 e.s455)
    ("e_doesnt_add_up", "raise_batch", "doesn't fill the gaps", reasons.RIGHT),
    ("e_doesnt_add_up", "raise_batch", "the GPU isn't busy anyway", reasons.RIGHT),
    # another argument (answers/sealed/*right_lever_wrong_reason*)
    ("a_chatbot", "quantize_int8", "frees memory so we could load a larger model", reasons.WRONG),
    ("a_chatbot", "fuse_elementwise", "custom fused kernels are hard to maintain", reasons.WRONG),
    ("c_document_summarizer", "flash_attention", "cuts the attention FLOPs", reasons.WRONG),
    ("e_doesnt_add_up", "raise_batch", "the product requires batch 1", reasons.WRONG),
    # none: only the lever's own name or description, or other levers named
    ("b_training_run", "hand_fused_kernels", "Write hand-fused norm/activation kernels in Triton.",
     reasons.NONE),
    ("e_doesnt_add_up", "cuda_graphs", "Use CUDA graphs, then torch.compile.", reasons.NONE),
    ("a_chatbot", "continuous_batching", "", reasons.NONE),
    # a rank is no argument (sealed73 c.s757: "FlashAttention - the main fix.")
    ("c_document_summarizer", "flash_attention", "FlashAttention - the main fix.", reasons.NONE),
])
def test_a_reason_is_the_keys_by_its_words_or_its_figure(grader, case, concept, reason, state):
    assert _judge(grader, case, concept, reason) == state


def _yaml(tmp_path, name: str, body: str):
    p = tmp_path / name
    p.write_text(body, encoding="utf-8")
    return p


_EVIDENCE = """evidence:
  - {figure: flop_util, value: 4%}
  - {figure: bw_util, value: 78%}
"""
_A = """case: a_chatbot
student: s
regime: bandwidth_bound
evidence:
  - {{figure: flop_util, value: 4%}}
  - {{figure: bw_util, value: 78%}}
fixes:
  - {{lever: continuous_batching, reason: "{batch}"}}
  - {{lever: quantize_int8, reason: "{quant}"}}
reject:
  - {{lever: fuse_elementwise, reason: "{fuse}"}}
  - {{lever: buy_more_flops, reason: "{flops}"}}
"""


def test_the_right_lever_with_another_reason_earns_the_rubrics_part(grader, tmp_path):
    right = grader.grade(_yaml(tmp_path, "right.yaml", _A.format(
        batch="each added sequence reuses the same 26 GB weight read",
        quant="doubles the ceiling to 408 tokens/s",
        fuse="invisible: ~0.04% of the bytes", flops="we use 4% of the FLOPs we own")))
    wrong = grader.grade(_yaml(tmp_path, "wrong.yaml", _A.format(
        batch="it makes the GPU compute-bound, so it is faster",
        quant="frees memory so we could load a larger model",
        fuse="custom fused kernels are hard to maintain", flops="too expensive")))
    bare_text = _A.format(batch="", quant="", fuse="", flops="")
    bare = grader.grade(_yaml(tmp_path, "bare.yaml", bare_text.replace(_EVIDENCE, "evidence: []\n")))
    evidenced = grader.grade(_yaml(tmp_path, "carried.yaml", bare_text))   # '4%' stated, no reason given
    part = {r: {p.part: p for p in g.parts} for r, g in (("right", right), ("wrong", wrong), ("bare", bare))}
    share = grader.rubric.reasons.wrong
    for name in ("fixes", "rejections"):
        top = part["right"][name].max_points
        assert part["right"][name].points == top
        assert part["wrong"][name].points == pytest.approx(share * top, abs=0.1)
        assert part["bare"][name].points == pytest.approx(grader.rubric.reasons.missing * top, abs=0.1)
    assert any("not its reason" in line for line in part["wrong"]["fixes"].feedback)
    # a rejection with no words of its own is not argued by a figure in the evidence (sealed22
    # d.s247: "int4 rejected with no reason"); it was, before 3d486a4
    rejections = next(p for p in evidenced.parts if p.part == "rejections")
    assert part["bare"]["rejections"].points == rejections.points < rejections.max_points


def test_a_yaml_keyword_list_commits_to_nothing(grader):
    """It earns nothing for its levers, and the traps it lists cost one penalty, not one each: the
    blind grades charge a stuffed list once (sealed19 a.s217: "the two traps ... -10")."""
    for name in ("b_training_run.s20_keyword_soup.yaml", "c_document_summarizer.s18_keyword_soup.yaml"):
        path = ROOT / "answers" / "sealed" / name
        a = read_answer(path, grader.concepts, grader.rubric.limits.max_bytes)
        assert a.fixes == [] and any(s == "listed" for _, s, _ in a.statuses)
        r = grader.grade(path)
        fixes = next(p for p in r.parts if p.part == "fixes")
        assert r.graded and r.score <= 20 and fixes.points == 0, (name, r.score)
        assert len(r.penalties) == 1, [p.id for p in r.penalties]


def test_figures_that_support_no_regime_earn_the_rubrics_share(grader, tmp_path):
    body = _A.format(batch="", quant="", fuse="", flops="")
    named = grader.grade(_yaml(tmp_path, "named.yaml", body))
    vague = body.replace("bandwidth_bound", "memory or compute")
    unnamed = grader.grade(_yaml(tmp_path, "unnamed.yaml", vague))
    ev = {g: next(p for p in r.parts if p.part == "evidence") for g, r in (("n", named), ("u", unnamed))}
    assert ev["u"].points == pytest.approx(ev["n"].points * grader.rubric.evidence.without_regime, abs=0.1)


@pytest.mark.parametrize(("text", "shown"), [
    ("intensity 0.989 FLOP/byte", "intensity ~1 FLOP/byte"),
    ("move ~0.0435% of the bytes", "move ~0.04% of the bytes"),
    ("78.2% of peak, a real 28.2% step-time improvement", "~78% of peak, a real ~28% step-time improvement"),
    ("0.64 MB/token", "~0.6 MB/token"),
    ("26,624 tokens, 247 FLOP/byte, 0.04%", "26,624 tokens, 247 FLOP/byte, 0.04%"),
])
def test_feedback_writes_decimals_as_the_worked_solution_does(text, shown):
    assert as_taught(text, 2) == shown


def test_figures_for_a_hedged_regime_earn_the_rubrics_share(grader, tmp_path):
    """"Probably bandwidth-bound, I think" with the right figures: the blind grades give hedged
    answers less for evidence argued toward no committed verdict (sealed10 a.s125, sealed44
    a.s466: "cannot give full credit to statements the student will not commit to")."""
    body = ("---\ncase: a_chatbot\nstudent: s\n---\n## Regime\n{verdict}\n\n## Evidence\n"
            "- 4% of peak FLOP rate, 78% of peak bandwidth.\n")
    got = {}
    for name, verdict in (("sure", "Bandwidth-bound."), ("hedged", "Probably bandwidth-bound, I think."),
                          ("hedged_wrong", "Probably compute-bound, I think.")):
        p = tmp_path / f"{name}.md"
        p.write_text(body.format(verdict=verdict), encoding="utf-8")
        got[name] = next(x for x in grader.grade(p).parts if x.part == "evidence")
    share = grader.rubric.evidence.hedged_regime
    assert share < 1
    assert got["hedged"].points == pytest.approx(got["sure"].points * share, abs=0.1)
    assert any("only hedge" in line for line in got["hedged"].feedback)
    # a hedged wrong regime is first a wrong one: its figures earn the wrong-regime share, and the
    # FLOP and bandwidth shares, the figures that decide the regime, read for another earn
    # `read_wrong_way.share` of their item
    ev = grader.rubric.evidence
    assert got["hedged_wrong"].points == pytest.approx(
        got["sure"].points * ev.wrong_regime * ev.read_wrong_way.share, abs=0.1)

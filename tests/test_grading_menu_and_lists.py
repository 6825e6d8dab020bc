"""Classes the fresh blind sets sealed16-19 showed misgraded (issue 27), one test each, with the
students' own sentences: a menu step of the worked solution, traps in a keyword list, scare
quotes, a goal given as a fix's "reason", and the wording of "more batch"."""

from __future__ import annotations

import pytest
from conftest import answer_file

from regime.engine.grading.grader import Grader
from regime.engine.grading.key import Item, Key
from regime.engine.grading.reading import Read
from regime.engine.grading.score import _order
from regime.engine.grading.submission import read_answer

D = "d_high_throughput_api"


def _grade(grader: Grader, tmp_path, case: str, body: str, name: str = "x.md"):
    return grader.grade(answer_file(tmp_path, case, body, name))


def _parts(r) -> dict:
    return {p.part: p for p in r.parts}


def test_the_compute_menu_is_one_step_of_the_key(grader):
    """The worked solution's D: "Attack compute: fp8 matrix-core GEMMs, fused attention, better
    GEMM tiling, and reducing FLOPs via speculative decoding or a smaller model" is one step."""
    from conftest import ROOT
    key = grader.key_for_case(ROOT / "cases" / f"{D}.yaml")
    steps = key.steps()
    assert len(steps) == 1 and len(steps[0]) == len(key.fixes) >= 4
    assert len({i.group for i in key.fixes}) == 1 and key.fixes[0].group


def test_one_item_of_a_menu_earns_most_of_it_and_more_earn_the_rest(grader, tmp_path):
    """sealed16 d.s187, sealed19 d.s215: "only fp8 from the compute menu" costs 3-7 of ~15."""
    head = "## Regime\ncompute-bound\n\n## Fixes\n"
    alt = grader.rubric.fixes.alternatives
    one = _parts(_grade(grader, tmp_path, D, head + "1. fp8 GEMMs: they raise the compute ceiling 2×.\n"))
    two = _parts(_grade(grader, tmp_path, D, head + "1. fp8 GEMMs: they raise the compute ceiling 2×.\n"
                        "2. Speculative decoding: fewer FLOPs per accepted token.\n"))
    assert one["fixes"].points == pytest.approx(one["fixes"].max_points * (1 - alt), abs=0.1)
    assert one["fixes"].points < two["fixes"].points <= two["fixes"].max_points
    assert any("is a menu" in f for f in one["fixes"].feedback)


def test_the_items_of_one_step_are_in_no_order(grader):
    """A menu in any order agrees with the key; a later step before an earlier one does not."""
    key = Key("c", "t", "compute_bound", None, fixes=[
        Item("fp8", "r1", "", 1, group="menu"), Item("tiling", "r2", "", 2, group="menu"),
        Item("graphs", "r3", "", 3)])
    rubric = grader.rubric
    argued = {"fp8": "right", "tiling": "right", "graphs": "right"}   # (a bare list earns less: order.argued)
    assert _order(Read(fixes=["tiling", "fp8"], reasons=argued), key, rubric).share == 1.0
    assert _order(Read(fixes=["graphs", "tiling"], reasons=argued), key, rubric).share == 0.0


def test_a_keyword_list_is_charged_once_for_the_traps_it_names(grader, tmp_path):
    """sealed19 a.s217 (instructor 10): nine levers "with no order or reasons"; "fuse_elementwise
    and buy_more_flops are listed among the fixes ... the two traps recommended (by listing them)
    -10". The list earns nothing, and costs one penalty, not one per trap."""
    body = ("regime: bandwidth_bound\nfixes:\n" + "".join(
        f"  - {c}\n" for c in ("continuous_batching", "quantize_int8", "quantize_int4", "fuse_elementwise",
                               "torch_compile", "cuda_graphs", "flash_attention", "speculative_decoding",
                               "buy_more_flops")))
    r = _grade(grader, tmp_path, "a_chatbot", body, "x.yaml")
    assert _parts(r)["fixes"].points == 0
    assert len(r.penalties) == 1 and r.score <= 20


def test_a_rejected_trap_in_a_list_is_not_charged(grader, tmp_path):
    """A list that also refuses the trap elsewhere falls into nothing."""
    r = _grade(grader, tmp_path, "a_chatbot",
               "## Regime\nbandwidth-bound\n\n## Fixes\n- batching, int8, int4, fp8, CUDA graphs, "
               "torch.compile, speculative decoding, fusion\n\n## Reject\n- Fusing the elementwise "
               "kernels: invisible at one token per pass.\n- A GPU with more FLOPs.\n")
    assert not r.penalties


def test_a_scare_quoted_word_is_emphasis_not_a_quotation(grader, tmp_path):
    """sealed17 e.s191 (instructor 100): 'so it "should" be bandwidth-bound' is the nominal regime;
    the quotes split the clause from its cue and made it the verdict."""
    p = answer_file(tmp_path, "e_doesnt_add_up",
                    "On paper this is a batch-1 decode loop, so it "
                    "\"should\" be bandwidth-bound. Nothing is saturated: this loop is bound by "
                    "kernel-launch overhead.\n")
    a = read_answer(p, grader.concepts, grader.rubric.limits.max_bytes)
    assert (a.regime, a.nominal_regime) == ("overhead_bound", "bandwidth_bound")


def test_a_goal_is_not_a_wrong_reason(grader, tmp_path):
    """sealed16 d.s188 (instructor 86): "For more throughput I'd try fp8 GEMMs and speculative
    decoding" gives no reason; it does not give a wrong one."""
    r = _grade(grader, tmp_path, D, "The workload is compute-bound: 71% of FLOPs, 30% of bandwidth.\n\n"
               "For more throughput I'd try fp8 GEMMs and speculative decoding.\n")
    assert not any("not its reason" in f for f in _parts(r)["fixes"].feedback)


@pytest.mark.parametrize("said", [
    "And don't just crank the batch further: past the ridge it only adds latency.",   # sealed18 d.s201
    "I would not push the batch much higher either: past the ridge it costs latency.",   # sealed7 d.s91
])
def test_more_batch_in_students_words_is_refused(grader, tmp_path, said):
    p = answer_file(tmp_path, D,
                    f"## Regime\ncompute-bound\n\n## Reject\n- {said}\n")
    a = read_answer(p, grader.concepts, grader.rubric.limits.max_bytes)
    assert any("raise_batch" in m.concepts for m in a.rejects)


def test_a_single_menu_step_weighs_the_fixes_and_order_parts_in_proportion(grader, tmp_path):
    """D's compute menu is one step: the blind grades give D's compute fixes 15 of 100 where A's,
    C's and E's two or three steps get 25; the fixes and order parts weigh fixes.full_at's share."""
    body = "## Regime\ncompute-bound\n\n## Fixes\n1. fp8 GEMMs.\n2. Better GEMM tiling.\n"
    d = _parts(_grade(grader, tmp_path, D, body))
    a = _parts(_grade(grader, tmp_path, "a_chatbot", "## Regime\nbandwidth-bound\n\n## Fixes\n1. Continuous "
                      "batching.\n2. int8 weights.\n"))
    share = 1 / grader.rubric.fixes.full_at
    assert d["fixes"].max_points / d["regime"].max_points == pytest.approx(
        share * a["fixes"].max_points / a["regime"].max_points, rel=0.03)   # points shown to 0.1
    assert d["order"].max_points / d["regime"].max_points == pytest.approx(
        share * a["order"].max_points / a["regime"].max_points, rel=0.03)

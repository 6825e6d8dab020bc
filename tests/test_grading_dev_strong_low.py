"""Reading rules found in strong answers the grader scored too low (instructor 85 or more, the
grader more than 10 points less, on the dev sets up to sealed147), each with the answer that
showed it."""

from __future__ import annotations

from conftest import lever_statuses, read_body

_KERNELS = ("Regime: compute-bound, 61% of peak FLOP rate.\n\n"
            "| kernel | share | what to do |\n|---|---|---|\n| layer_norm | 8% | fuse (torch.compile) |\n")


def test_nothing_in_a_plans_action_column_refuses_its_row(grader, tmp_path):
    """sealed114 b.s1166 (instructor 92, graded 70.7): '| flash_attention | 7% | nothing — it's
    already fused |' under '| kernel | share | what to do |' does nothing with attention: it
    refuses more attention fusion, as 'leave it alone' does."""
    a = read_body(grader, tmp_path, "b_training_run",
                  _KERNELS + "| flash_attention | 7% | nothing — it's already fused |\n")
    assert ("flash_attention",) in [m.concepts for m in a.rejects]


def test_leave_it_in_a_plans_action_column_refuses_its_row(grader, tmp_path):
    """sealed112 b.s1144 (instructor 99, graded 83.2): '| flash_attention | 7% | leave it: already
    fused, <7% to gain |'."""
    a = read_body(grader, tmp_path, "b_training_run",
                  _KERNELS + "| flash_attention | 7% | leave it: already fused, <7% to gain |\n")
    assert ("flash_attention",) in [m.concepts for m in a.rejects]


def test_none_in_an_effect_column_is_no_action(grader, tmp_path):
    """sealed127 a.s1295 (instructor 83, -2 for rejections "only implicit"): under '| Lever | Bytes
    read | Effect on tokens/s |' a 'none' is the effect, not the plan's action: the row's name is
    the plan column, so no action column follows it."""
    a = read_body(grader, tmp_path, "a_chatbot",
                  "| Lever | Bytes read per decode step | Effect on tokens/s |\n|---|---|---|\n"
                  "| int8 weights | 13 GB | ceiling 204 → 408 tok/s |\n"
                  "| GPU with more FLOPs | still 26 GB | none, FLOPs are at 4% |\n")
    assert ("buy_more_flops",) not in [m.concepts for m in a.rejects]


def test_leaving_attention_alone_refuses_attention_fusion(grader):
    """sealed64 b.s664 (instructor 100, graded 87.5): "I would leave attention alone: it is
    already flash attention and only 7% of the time." The attention work left alone is the fusion
    the key rejects; so is "Don't bother with attention, it's flash already" (sealed75 b.s775)."""
    said = "I would leave attention alone: it is already flash attention and only 7% of the time."
    assert lever_statuses(grader, said)["fuse_attention"] == "negated"
    assert lever_statuses(grader, "Don't bother with attention, it's flash already.") == {
        "fuse_attention": "negated"}

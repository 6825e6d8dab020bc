"""Case A's first key fix (continuous batching) read as missing in answers that give it (issue 27,
dev round 2): a head ranking it first, the sentence before it naming the way out, or the
adjective form of the lever's name. Each test names the answer that showed the rule."""

from __future__ import annotations

from conftest import read_body


def _fixes(a) -> set[str]:
    return {c for m in a.fixes for c in m.concepts}


def test_a_head_ranking_the_lever_first_recommends_it(grader, tmp_path):
    """sealed154 a.s1563 (instructor 100, graded 80.5): 'Two things can move it. The biggest is
    continuous batching: ...' recommends batching, as 'Second, weight quant to int8' does int8."""
    body = ("So the implementation is fine; the regime is the limit. Two things can move it. The biggest is\n"
            "continuous batching: requests arrive in bursts, so slot each new one into the decode batch\n"
            "that is already running. Second, weight quant to int8: 26 -> 13 GB lifts the ceiling.\n")
    a = read_body(grader, tmp_path, "a_chatbot", body)
    assert {"continuous_batching", "quantize_int8"} <= _fixes(a), (a.fixes, a.discussed)


def test_the_way_out_before_a_lever_recommends_it(grader, tmp_path):
    """sealed79 a.s813 (instructor 96, graded 72.2): 'The way out is to change the regime or the
    bytes. Since traffic is bursty, continuous batching is the big win: ...'."""
    body = ("The way out is to change the regime or the bytes. Since traffic is bursty, continuous batching\n"
            "is the big win: new requests join the running batch and share the one weight read.\n")
    a = read_body(grader, tmp_path, "a_chatbot", body)
    assert "continuous_batching" in _fixes(a), (a.fixes, a.discussed)


def test_a_big_win_said_of_a_condition_describes(grader, tmp_path):
    """Not 'big win' alone (sealed70 d.s722, instructor 100): 'Int4 makes the weights smaller, which
    is a big win when a decode loop is waiting on memory' describes int4, it does not recommend it."""
    body = ("Short answer: not for this endpoint. Int4 makes the weights smaller, which is a big win when\n"
            "a decode loop is waiting on memory. We are not in that situation.\n")
    a = read_body(grader, tmp_path, "d_high_throughput_api", body)
    assert "quantize_int4" not in _fixes(a), a.fixes


def test_continuously_batched_names_continuous_batching(grader, tmp_path):
    """sealed136 a.s1383 (instructor 94, graded 72.3): 'fold incoming requests into a continuously
    batched decode loop' is continuous batching under its adjective form."""
    body = ("What I'd do: first, stop serving one request at a time and fold incoming requests into a\n"
            "continuously batched decode loop. The weight read is paid once per step.\n")
    a = read_body(grader, tmp_path, "a_chatbot", body)
    assert "continuous_batching" in _fixes(a), a.fixes


def test_a_list_after_the_goal_it_serves_recommends_its_names(grader, tmp_path):
    """sealed127 d.s1300 (instructor 100, graded 82.4, 'Missing fix #1'): 'For throughput on this
    endpoint: fp8 matrix-core GEMMs (a higher compute roof, not fewer bytes), fused attention,
    better GEMM tiling.' The head names the goal; each aside in brackets is its item's reason."""
    body = ("Int4 shrinks bytes, and bytes are not what we are short of here.\n\n"
            "For throughput on this endpoint: fp8 matrix-core GEMMs (a higher compute roof, not fewer "
            "bytes), fused attention, better GEMM tiling.\n")
    a = read_body(grader, tmp_path, "d_high_throughput_api", body)
    assert {"fp8_gemm", "fuse_attention", "better_gemm_tiling"} <= _fixes(a), (a.fixes, a.discussed)


def test_asides_after_a_short_label_still_refuse(grader, tmp_path):
    """Not after a short label: 'Rejct: batching (longer TTFT), weight quant (weights not the
    bottlenek at 25k tokens).' (sealed142 c.s1450, instructor 76) refuses in its asides; stripped,
    it read as two names recommended."""
    body = ("Rejct: batching (longer TTFT), weight quant (weights not the bottlenek at 25k tokens).\n")
    a = read_body(grader, tmp_path, "c_document_summarizer", body)
    assert not {"raise_batch", "quantize_int8"} & _fixes(a), a.fixes


MENU = ("Int4 shrinks bytes, and bytes are not what we are short of: the compute side is busy.\n\n"
        "If we want more throughput from this endpoint, the levers are on the compute side: fp8 GEMMs "
        "(these raise the compute ceiling, which is a different mechanism from int4 weight-only), "
        "better GEMM tiling, fused attention, and cutting FLOPs with speculative decoding or a "
        "smaller model.\n")


def test_a_lever_set_off_in_an_aside_is_no_item_of_the_menu(grader, tmp_path):
    """sealed166 d.s1681 and sealed68 d.s703 (instructor 100, graded 82.4, 'Missing fix #1'): the
    int4 named in fp8's aside to set it off made the key's menu a keyword list naming a rejected
    lever; the list's own items are the key's compute fixes."""
    from conftest import answer_file
    result = grader.grade(answer_file(tmp_path, "d_high_throughput_api", MENU))
    fixes = next(p for p in result.parts if p.part.startswith("fixes"))
    assert not any("Missing fix" in f for f in fixes.feedback), fixes.feedback


def test_an_aside_of_names_alone_is_more_of_the_menu(grader, tmp_path):
    """sealed149 d.s1511 (instructor 100): '..., and fewer FLOPs altogether (speculative decoding,
    or a smaller model)' lists two more items in its brackets; they stay in the menu."""
    from regime.engine.grading.reading import _members
    from regime.engine.grading.submission import read_answer
    body = ("Work on compute: fp8 GEMMs on the matrix cores (this raises the compute ceiling; it is not "
            "the same argument as int4 weight-only), fused attention, better GEMM tiling, and fewer "
            "FLOPs altogether (speculative decoding, or a smaller model).\n")
    from conftest import answer_file
    a = read_answer(answer_file(tmp_path, "d_high_throughput_api", body), grader.concepts,
                    grader.rubric.limits.max_bytes)
    members = {c for g in a.listed for m in _members(g, grader.concepts) for c in m.concepts}
    assert {"speculative_decoding", "smaller_model"} <= members and "quantize_int4" not in members, a.listed


def test_flash_attention_under_its_short_names(grader, tmp_path):
    """sealed134 c.s1364 (instructor 76, graded 51): '1. FlashAttn - scores stay in SRAM'; sealed156
    c.s1583 (100 vs 78): 'a tiled, FA2-style fused attention kernel so the scores never hit HBM'."""
    body = ("## Fixes\n1. FlashAttn - scores stay in SRAM, no 40GB\n"
            "2. go to a tiled, FA2-style fused attention kernel so the scores never hit HBM\n")
    a = read_body(grader, tmp_path, "c_document_summarizer", body)
    lines = {m.line for m in a.fixes if "flash_attention" in m.concepts}
    assert len(lines) == 2, a.fixes

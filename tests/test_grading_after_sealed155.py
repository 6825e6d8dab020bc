"""Reading rules found in sealed148-155 after their one measurement (issue 27), each with the
answer that showed it."""

from __future__ import annotations

from pathlib import Path

from conftest import answer_file, read_body

ROOT = Path(__file__).resolve().parent.parent

FIX_PER_LINE = ("**Regime:** compute-bound.\n\n"
                "**Fix:** FlashAttention, because it reduces the number of FLOPs attention needs, so the N² "
                "term shrinks.\nChunked prefill to make the 25k prompt faster.\n")


def test_a_fix_on_its_own_line_keeps_its_argument_to_itself(grader, tmp_path):
    """sealed153 c.s1557 (instructor 54, graded 86): under one label, a fix per line. The second
    line's figure (the 25k prompt) argued FlashAttention too, so its wrong reason (fewer FLOPs)
    was graded right; the instructor charged it."""
    from regime.engine.grading import reasons
    p = answer_file(tmp_path, "c_document_summarizer", FIX_PER_LINE)
    a = read_body(grader, tmp_path, "c_document_summarizer", FIX_PER_LINE)
    flash = next(m for m in a.fixes if "flash_attention" in m.concepts)
    assert "Chunked" not in flash.reason and "FLOPs" in flash.reason
    key, _ = grader.key(a, None)
    got = reasons.states(a, key, grader.concepts, grader.rubric.evidence.relative_tolerance)
    assert got["flash_attention"] == "wrong", got
    assert grader.grade(p).graded


def test_a_sentence_in_the_same_line_still_shares_its_argument(grader, tmp_path):
    """corpus d.s02 (instructor 94): 'Int4 ... bandwidth is 70% idle. ... Pushing the batch even
    higher would also not help much.' in one line: the batch's rejection leans on the int4 one."""
    body = ("## Reject\n- Int4 quantization reduces bytes, and bytes are not the bottleneck here: bandwidth "
            "is 70% idle. Pushing the batch even higher would also not help much.\n")
    a = read_body(grader, tmp_path, "d_high_throughput_api", body)
    batch = next(m for m in a.rejects if "raise_batch" in m.concepts)
    assert "70% idle" in batch.reason


def test_a_name_joined_after_an_aside_shares_the_verdict_before_it(grader):
    """sealed154 c.s1563 (instructor 92, graded 80.5): 'Reject batching (more work, longer TTFT)
    and weight quant (16 GB amortised over 25k tokens, irrelevant).' The aside between the two
    names ends the first clause; the clause that is only 'and' and a name is the verdict's next object."""
    from conftest import lever_statuses
    got = lever_statuses(grader, "Reject batching (more work, longer TTFT) and weight quant (16 GB amortised "
                                 "over 25k tokens, irrelevant).")
    assert got["raise_batch"] == "negated" and got["quantize_int8"] == "negated", got
    assert lever_statuses(grader, "Don't fuse the elementwise ops (tiny), and use int8 weights instead.") \
        .get("quantize_int8") == "affirmed"


MEMO_D = ("---\ncase: d_high_throughput_api\n---\n## Regime\nCompute-bound: 71% of peak FLOPs, 30% of "
          "bandwidth; "
          "~256 FLOP/byte against the 247 ridge.\n\n## Int4\nQuantization cuts bytes, and bytes are not what "
          "limits us: bandwidth is 70% idle. Worse, int4 weights must be expanded back to fp16 ahead of the "
          "GEMM, extra work on the axis that is already saturated.\n\n## Fixes\n1. fp8 GEMMs on the matrix "
          "cores: they raise the compute ceiling that binds.\n")


def test_a_discussion_that_argues_against_a_rejected_lever_rejects_it(grader):
    """sealed155 d.s1571 (instructor 100, graded 88.2): under a heading of its own, 'Quantization
    cuts bytes, and bytes are not what limits us: bandwidth is 70% idle' argues the key's refusal
    without a verdict word; the blind grades credit it as the rejection."""
    r = grader.grade(ROOT / "answers" / "sealed155" / "d_high_throughput_api.s1571_director_memo.md")
    rejections = next(x for x in r.parts if x.part == "rejections")
    assert not any("Not rejected: quantize int4" in f for f in rejections.feedback), rejections.feedback
    assert rejections.points == rejections.max_points


def test_a_discussion_that_agrees_with_a_rejected_lever_rejects_nothing(grader, tmp_path):
    """sealed152 d.s1546 (instructor 20): 'The vendor is right that int4 cuts the weight read by
    4x' argues for int4; no negation, no refusal."""
    p = tmp_path / "memo.md"
    p.write_text(MEMO_D.replace("Quantization cuts bytes, and bytes are not what limits us: bandwidth is 70% "
                                "idle. Worse, int4 weights must be expanded back to fp16 ahead of the GEMM, "
                                "extra work on the axis that is already saturated.",
                                "The vendor is right that int4 cuts the weight read by 4x: 68 GB of fp16 "
                                "weights become 17 GB."), encoding="utf-8")
    rejections = next(x for x in grader.grade(p).parts if x.part == "rejections")
    assert any("Not rejected: quantize int4" in f for f in rejections.feedback), rejections.feedback


def test_names_joined_after_an_aside_under_reject_are_all_rejected(grader, tmp_path):
    """sealed151 e.s1534 (instructor 81): 'Reject: batching (it can't fill gaps where the GPU isn't
    running anything) and int8 weights (this isn't bandwidth-bound yet, so fewer bytes buys
    nothing).' The aside after the first name does not end the list the section rejects."""
    a = read_body(grader, tmp_path, "e_doesnt_add_up",
                  "## Reject\nbatching (it can't fill gaps where the GPU isn't running anything) and int8 "
                  "weights (this isn't bandwidth-bound yet, so fewer bytes buys nothing).\n")
    rejected = {c for m in a.rejects for c in m.concepts}
    assert {"raise_batch", "quantize_int8"} <= rejected, rejected


def test_the_idle_share_in_other_words_is_the_idle_share(grader, tmp_path):
    """sealed151 e.s1534 (instructor 81): 'around 38% of each step is empty timeline' states the
    share of the step the GPU sits idle, as 'dead time' does (sealed136 e.s1387)."""
    for said in ("around 38% of each step is empty timeline.", "38% of the step is dead time."):
        p = answer_file(tmp_path, "e_doesnt_add_up", f"## Regime\nlaunch-bound.\n\n## Evidence\n{said}\n")
        evidence = next(x for x in grader.grade(p).parts if x.part == "evidence")
        assert not any("sits idle" in f for f in evidence.feedback), (said, evidence.feedback)


def test_a_topic_then_it_and_a_hedge_hedges_the_topic(grader):
    """sealed151 d.s1532 (instructor 77, graded 49.7): 'int4: it might still be worth a pilot' is
    a hedge on int4 (a lean the key rejects), not its recommendation and the trap's full charge."""
    from conftest import lever_statuses
    said = "int4: it might still be worth a pilot — it could help some, even though we are past the ridge."
    assert lever_statuses(grader, said) == {"quantize_int4": "possible"}
    assert lever_statuses(grader, "Int4: not for this endpoint now.") == {"quantize_int4": "negated"}


def test_a_label_saying_what_its_items_are_for_heads_fixes(grader, tmp_path):
    """sealed151 d.s1532: 'To speed things up: fp8 GEMMs to lift the compute ceiling, and
    speculative decoding to cut the FLOPs per accepted token.' lists the fixes."""
    a = read_body(grader, tmp_path, "d_high_throughput_api",
                  "Regime: compute bound.\n\nTo speed things up: fp8 GEMMs to lift the compute ceiling, and "
                  "speculative decoding to cut the FLOPs per accepted token.\n")
    assert [c for m in a.fixes for c in m.concepts][:2] == ["fp8_gemm", "speculative_decoding"]

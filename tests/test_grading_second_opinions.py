"""Readings found where two blind instructors agreed and the grader did not (answers/sealed13-15,
each graded a second time, blind, in answers/second/): one test per class of writing, with the
student's own sentence."""

from __future__ import annotations

import pytest
from conftest import answer_file

from regime.engine.grading.context import judge
from regime.engine.grading.figures import quantity
from regime.engine.grading.grader import Grader
from regime.engine.grading.reasons import stem
from regime.engine.grading.submission import read_answer


def _read(grader: Grader, tmp_path, case: str, body: str, name: str = "x.md"):
    p = answer_file(tmp_path, case, body, name)
    return read_answer(p, grader.concepts, grader.rubric.limits.max_bytes)


def test_the_wrong_tools_refuses_what_it_follows(grader):
    """sealed14 e.s170: "Batching and weight quant are the wrong tools right now" was read as
    recommending both, which made the answer's fixes a keyword list (both instructors: 96, 98)."""
    said = "Batching and weight quant are the wrong tools right now: they make each step move fewer bytes."
    got = {c: j.status for j in judge(grader.concepts, grader.concepts.context, ("lever",), said)
           for c in j.match.concepts}
    assert got["raise_batch"] == got["quantize_int8"] == "negated"


def test_the_clause_with_a_conclusion_cue_states_the_verdict(grader, tmp_path):
    """sealed14 e.s170: "A real bandwidth-bound decode would sit at 70-80% BW, so nominally it's
    bandwidth bound but in practice its overhead-bound" concludes overhead-bound."""
    a = _read(grader, tmp_path, "e_doesnt_add_up",
              "A real bandwidth-bound decode would sit at 70-80% BW, so nominally it's bandwidth bound "
              "but in practice its overhead-bound: the GPU simply isnt doing anything much of the time.\n")
    assert (a.regime, a.nominal_regime) == ("overhead_bound", "bandwidth_bound")


@pytest.mark.parametrize(("written", "regime"), [
    ("Prefill-bound (compute).", "compute_bound"),   # sealed13 c.s158 (instructors 61, 64)
    ("Memory.", "bandwidth_bound"),
])
def test_a_regime_section_shortened_to_one_word(grader, tmp_path, written, regime):
    body = f"## Regime\n{written}\n\n## Fixes\n1. FlashAttention.\n"
    a = _read(grader, tmp_path, "c_document_summarizer", body)
    assert a.regime == regime


def test_one_word_names_no_regime_outside_the_regime_section(grader, tmp_path):
    a = _read(grader, tmp_path, "d_high_throughput_api", "## Fixes\n1. Attack compute: fp8 GEMMs.\n")
    assert a.regime is None


def test_an_explicit_rejection_stands_over_a_mention_under_fixes(grader):
    """sealed15 d.s171 (both instructors: 100): a memo under Fixes says "int4 shrinks bytes" and
    "Where int4 would pay: it frees ~51 GB (more batch / longer contexts)"; the Reject section
    refuses both. Read as fixes they made seven levers, a keyword list, and the menu earned 0."""
    from conftest import ROOT
    r = grader.grade(ROOT / "answers" / "sealed15" / "d_high_throughput_api.s171_director_memo.md")
    parts = {p.part: p for p in r.parts}
    assert not r.penalties
    assert parts["fixes"].points == parts["fixes"].max_points
    assert parts["rejections"].points == parts["rejections"].max_points
    assert r.score >= 90


def test_a_yaml_name_holding_one_alias_is_that_concept(grader, tmp_path):
    """sealed14 b.s162 (both instructors: 100): `claim: "memory-bound ops don't matter when
    compute-bound"` was unknown, with the right did-you-mean."""
    a = _read(grader, tmp_path, "b_training_run",
              "regime: compute_bound\nreject:\n"
              "  - {claim: \"memory-bound ops don't matter when compute-bound\", "
              "reason: \"the zero-FLOP kernels are 22% of the time\"}\n", name="x.yaml")
    assert [m.concepts for m in a.rejects] == [("memory_ops_irrelevant_when_compute_bound",)]
    assert not a.unread


@pytest.mark.parametrize(("written", "value", "unit"), [
    ("~900 tokens", 900, "tokens"),                             # sealed14 b.s162: '~' was unreadable
    ("12% (norm 4 + add 3 + cast 5)", 12, "%"),                 # the working, in parentheses
    ("≈ 40 GB", 40, "GB"),
    ("55% of prefill time", 55, "%"),                          # sealed15 c.s178: words after the unit
])
def test_a_yaml_figure_with_its_working_is_read(written, value, unit):
    q = quantity(written)
    assert (q.value, q.unit) == (value, unit)


@pytest.mark.parametrize("written", ["61% -> 78%", "9 bananas", "4 or 5 GB"])
def test_two_figures_or_an_unknown_unit_are_still_refused(written):
    with pytest.raises(ValueError):
        quantity(written)


def test_inflections_share_a_stem_and_a_two_letter_word_is_no_reason(grader):
    """corpus b.s06 "so the small ops get fused" against "it fuses exactly this class of op"."""
    assert stem("fuse") == stem("fused") == stem("fuses")
    assert not grader.concepts.reasons.stems(grader.concepts, "ops")


def test_a_lever_heading_a_topic_before_a_colon_takes_the_verdict_after_it(grader):
    """sealed13 d.s151 (both instructors: 100) opens its memo with the verdict on the pitch."""
    said = "To the director, on the vendor's int4 pitch: not for this endpoint."
    got = [j.status for j in judge(grader.concepts, grader.concepts.context, ("lever",), said)]
    assert got == ["negated"]


def test_an_abbreviation_does_not_end_a_sentence():
    """sealed13 b.s152: "... ~22% of the time, i.e. 61% -> ~78% of peak." lost the 78%'s words."""
    from regime.engine.grading.answer import SENTENCE
    assert len(SENTENCE.split("The most we can win is ~22% of the time, i.e. 61% to ~78% of peak. "
                              "E.g. 5 things. Next.")) == 3


def test_each_trap_fallen_into_is_charged(grader, tmp_path):
    """sealed13 c.s152 recommends batching the prefills and quantizing the weights: two traps,
    and the catch-all penalty charges each (both instructors: 0)."""
    p = tmp_path / "two.md"
    p.write_text("---\ncase: c_document_summarizer\n---\n## Regime\ncompute bound prefill\n\n"
                 "## Fixes\n1. Batch the prefills to fill the GPU.\n2. Quantize the weights to int8.\n",
                 encoding="utf-8")
    r = grader.grade(p)
    assert len(r.penalties) == 2 and r.score <= 5


def test_a_wrong_verdict_is_not_also_the_nominal_regime(grader, tmp_path):
    """sealed14 e.s168 says bandwidth-bound as its verdict; nominally bandwidth-bound is the key's
    nominal regime, but the answer never says 'nominally' (both instructors: no regime credit)."""
    p = tmp_path / "bw.md"
    p.write_text("---\ncase: e_doesnt_add_up\n---\n## Regime\nBandwidth-bound.\n", encoding="utf-8")
    regime = next(x for x in grader.grade(p).parts if x.part == "regime")
    assert regime.points == 0
    p.write_text("---\ncase: e_doesnt_add_up\n---\n## Regime\n"
                 "Nominally bandwidth-bound, but overhead-bound.\n", encoding="utf-8")
    regime = next(x for x in grader.grade(p).parts if x.part == "regime")
    assert regime.points == regime.max_points


@pytest.mark.parametrize("written", ["compute-bound / memory-bound", "compute-bound/memory-bound"])
def test_two_regimes_either_side_of_a_slash_are_no_verdict(grader, tmp_path, written):
    """sealed12 b.s150 opens with 'compute-bound / memory-bound' (instructor: no verdict)."""
    a = _read(grader, tmp_path, "b_training_run", f"{written}\nfusion, torch.compile, fp8\nMFU 61%\n")
    assert a.regime is None


def test_a_menu_framed_by_the_regime_carries_its_reason(grader, tmp_path):
    """sealed11 d.s135 (instructor: 100): '1. If we need more throughput, attack compute: fp8
    GEMMs, fused attention, better GEMM tiling, speculative decoding.' argues all four at once
    with the regime; each was read as given for another reason."""
    p = tmp_path / "menu.md"
    p.write_text("---\ncase: d_high_throughput_api\n---\n## Regime\nCompute-bound.\n\n## Fixes\n"
                 "1. If we need more throughput, attack compute: fp8 GEMMs, fused attention, better GEMM "
                 "tiling, speculative decoding.\n", encoding="utf-8")
    fixes = next(x for x in grader.grade(p).parts if x.part == "fixes")
    assert fixes.points == fixes.max_points


def test_a_yaml_regime_spelled_like_an_id_is_its_alias(grader, tmp_path):
    """sealed13 a.s159 wrote `regime: memory_bound` (an alias of bandwidth-bound, with the
    underscore of an id); it was an unknown regime and cost the whole part."""
    a = _read(grader, tmp_path, "a_chatbot", "regime: memory_bound\n", name="x.yaml")
    assert a.regime == "bandwidth_bound" and not a.unread


def test_a_yaml_fix_whose_bound_hedges_commits_to_nothing(grader, tmp_path):
    """sealed14 d.s164 (instructors 38, 37): `{lever: quantize_int4, bound: "might give some
    speedup, worth a pilot"}` named the trap without recommending it: not the trap's penalty, no
    credit, only the lean's few points (the answer grades 38.8 with them, 42.8 without)."""
    body = ("regime: compute_bound\nfixes:\n  - {lever: quantize_int4, bound: \"might give some speedup, "
            "worth a pilot\"}\n  - fp8_gemm\n")
    p = tmp_path / "h.yaml"
    p.write_text(f"case: d_high_throughput_api\n{body}", encoding="utf-8")
    r = grader.grade(p)
    assert [p.id for p in r.penalties] == ["leans_to_a_rejected_lever"]
    assert "quantize_int4" not in r.wrong_levers


@pytest.mark.parametrize(("said", "lever", "status"), [
    # sealed19 d.s213 (instructor 100): a pseudo-cleft refusal
    ("What I would not do is keep raising the batch - past the ridge it only adds latency.",
     "raise_batch", "negated"),
    # sealed17 b.s191 (both instructors 100): hand-fusion is not refused, it is not first
    ("Two weeks of hand-written kernels is the wrong place to start.", "hand_fused_kernels", "deferred"),
])
def test_refusals_and_deferrals_found_in_memos(grader, said, lever, status):
    got = {c: j.status for j in judge(grader.concepts, grader.concepts.context, ("lever",), said)
           for c in j.match.concepts}
    assert got[lever] == status


def test_an_essay_weighs_regimes_sentence_by_sentence(grader, tmp_path):
    """sealed19 d.s213 (instructor 100): 'our decode is compute-bound', then 'the mirror image
    of a memory-starved decode loop' and '70% of the bandwidth is sitting idle': three regimes
    over the essay made it a list, and the verdict was lost (42)."""
    a = _read(grader, tmp_path, "d_high_throughput_api",
              "At batch 256 our decode is compute-bound. The profiler says 71% of peak FLOP rate, the mirror "
              "image of a memory-starved decode loop. 70% of the bandwidth is sitting idle. A small-batch "
              "endpoint, where decode really is bandwidth-bound, would gain.\n")
    assert a.regime == "compute_bound"


def test_an_unreadable_bullet_counts_toward_a_keyword_list(grader, tmp_path):
    """sealed17 a.s200 (both instructors 0): seven bare bullets, 'fusion' among them unreadable,
    were six levers, one short of a list, and earned the fixes part."""
    bullets = ["continuous batching", "int8", "int4", "fusion", "torch.compile", "CUDA graphs", "bigger GPU"]
    body = "## Fixes\n" + "".join(f"- {b}\n" for b in bullets)
    a = _read(grader, tmp_path, "a_chatbot", body)
    assert a.fixes == [] and any(s == "listed" for _, s, _ in a.statuses)


def test_the_biggest_one_recommends(grader, tmp_path):
    """sealed17 a.s191 (both instructors 100): 'The biggest one is to stop serving one request at a
    time: with continuous batching, ...' was read as describing continuous batching."""
    a = _read(grader, tmp_path, "a_chatbot",
              "That tells us which levers can move. The biggest one is to stop serving one request at a "
              "time: with continuous batching, requests that arrive while others are decoding join.\n")
    assert [m.concepts for m in a.fixes][:1] == [("continuous_batching",)]


def test_a_noun_phrase_is_no_imperative_and_does_not_touch_refuses(grader):
    """sealed16 b.s183 and c.s183 (instructors 100): 'the add/mul/silu elementwise kernels (9%)'
    read 'add' as an order, making a description of the profile a fix; 'weight quantization
    doesn't touch the problem' was read as describing it."""
    from regime.engine.grading.recommending import recommends
    t = grader.concepts.context
    assert not recommends(grader.concepts, "It tells you nothing about the time spent in layer_norm (8%), "
                                           "the add/mul/silu elementwise kernels (9%) and to_copy (5%).", t)
    assert recommends(grader.concepts, "Add a CUDA graph around the decode step.", t)
    said = "And weight quantization doesn't touch the problem, since the weights are amortized."
    got = {c: j.status for j in judge(grader.concepts, t, ("lever",), said) for c in j.match.concepts}
    assert set(got.values()) == {"negated"}

"""Assertion status (engine/grading/context.py, ConText after Harkema et al. 2009): one test per
status with sentences taken from real answers (answers/new, answers/corpus), and the scope rules
(contrast words, clause ends, labels, elliptical clauses, lists that commit to nothing)."""

from __future__ import annotations

import pytest
from conftest import ROOT

from regime.engine.grading.context import judge
from regime.engine.grading.grader import Grader


@pytest.fixture(scope="module")
def grader() -> Grader:
    return Grader()


def _graded(grader: Grader, tmp_path, case: str, body: str, name: str = "x.md"):
    """A written answer to `case`, `body` under its front matter, graded."""
    p = tmp_path / name
    p.write_text(f"---\ncase: {case}\n---\n{body}", encoding="utf-8")
    return grader.grade(p)


def _parts(result) -> dict:
    return {x.part: x for x in result.parts}


def _statuses(grader: Grader, text: str, kinds=("claim", "lever")) -> dict[str, str]:
    return {c: j.status for j in judge(grader.concepts, grader.concepts.context, kinds, text)
            for c in j.match.concepts}


@pytest.mark.parametrize(("text", "concept", "status"), [
    # affirmed (answers/new/a_chatbot.s19_deferred_batching.md)
    ("Quantize the weights to int8: 26 GB -> 13 GB, ceiling ~408 tokens/s, helps every single request.",
     "quantize_int8", "affirmed"),
    # negated (answers/new/d_high_throughput_api.s21_table_dont_lines.md): a label before a colon
    ("Don't: push the batch above 256 - past the ridge it's linear time for linear work, plus latency.",
     "raise_batch", "negated"),
    ("No attention fusion: flash-attention already, 7%.", "fuse_attention", "negated"),
    # deferred (answers/new/b_training_run.s19_deferred_handfuse.md): 'not yet' is one trigger
    ("Hand-fused kernels: not yet. Once compile and the cast fix are measured, spend the two weeks "
     "only on the gap that's left.", "hand_fused_kernels", "deferred"),
    # hypothetical (answers/new/b_training_run.s25_conditional_negated.md): 'if ..., X'
    ("If compile + the cast fix get us to ~75%, skip the two weeks; if a real gap is left, hand-fuse "
     "the norm/activation kernels.", "torch_compile", "hypothetical"),
    # possible / hedged, then re-judged by the contrast (answers/new/e_doesnt_add_up.s17_hedged.md)
    ("Batching might help", "raise_batch", "possible"),
    ("Batching might help, but not yet", "raise_batch", "deferred"),
    ("Batching might help, but not yet - the GPU is idle between kernels, so not that.",
     "raise_batch", "negated"),
    # attributed (answers/new/b_training_run.s15_quoted_engineers.md)
    ("The first engineer wants two weeks of hand fusion.", "hand_fused_kernels", "attributed"),
])
def test_each_status_is_read_from_real_sentences(grader, text, concept, status):
    assert _statuses(grader, text).get(concept) == status, _statuses(grader, text)


def test_a_contrast_word_ends_the_scope(grader):
    said = _statuses(grader, "Don't fuse the elementwise ops, but do batch the requests together.")
    assert said["fuse_elementwise"] == "negated" and said["continuous_batching"] == "affirmed"


def test_a_negation_in_one_table_cell_stays_in_it(grader):
    said = _statuses(grader, "| no elementwise fusion | 0.04% of bytes | "
                             "| continuous batching | biggest win |")
    assert said["fuse_elementwise"] == "negated" and said["continuous_batching"] == "affirmed"


def test_a_keyword_list_commits_to_nothing(grader):
    text = ("Options to consider: batching / continuous batching, int8 or int4 quantization, kernel fusion, "
            "torch.compile, CUDA/HIP graphs, FlashAttention.")
    assert set(_statuses(grader, text).values()) == {"listed"}


def test_regimes_ruled_out_are_not_a_list(grader, tmp_path):
    """'Neither bandwidth- nor compute-bound; launch-overhead-bound' names one regime and rules two
    out (answers/sealed2 e.s47): only a section naming more regimes than it commits to is a list."""
    regime = ("Neither bandwidth- nor compute-bound; launch-overhead-bound. "
              "(Nominally it's a BW-bound decode.)")
    listed = "Bandwidth-bound, compute-bound, overhead-bound, balanced."
    for text, points in ((regime, 1.0), (listed, 0.0)):
        path = tmp_path / "a.md"
        path.write_text(f"---\ncase: e_doesnt_add_up\n---\n## Regime\n{text}\n", encoding="utf-8")
        part = next(p for p in grader.grade(path).parts if p.part == "regime")
        assert part.points == pytest.approx(points * part.max_points), text


def test_keyword_stuffed_answers_score_at_most_20(grader, tmp_path):
    soup = ROOT / "answers" / "new" / "a_chatbot.s21_keyword_soup.md"
    assert grader.grade(soup).score <= 20
    for case in ("b_training_run", "d_high_throughput_api", "e_doesnt_add_up"):
        p = tmp_path / f"{case}.md"
        p.write_text(soup.read_text(encoding="utf-8").replace("a_chatbot", case), encoding="utf-8")
        r = grader.grade(p)
        assert r.graded and r.score <= 20, (case, r.score)


def test_a_quoted_claim_under_reject_is_rejected_not_endorsed(grader):
    r = grader.grade(ROOT / "answers" / "new" / "b_training_run.s15_quoted_engineers.md")
    assert r.graded and not r.penalties
    assert next(p for p in r.parts if p.part == "rejections").points == \
        next(p for p in r.parts if p.part == "rejections").max_points


def test_a_comma_in_yaml_free_text_costs_nothing_and_is_noted(grader):
    r = grader.grade(ROOT / "answers" / "new" / "d_high_throughput_api.s15_yaml_flow_commas.yaml")
    assert r.graded and r.score >= 80, r.errors
    assert any("split it into YAML keys" in n for n in r.notes)


HEDGED = ("---\ncase: a_chatbot\nstudent: h\n---\n## Regime\nBandwidth-bound.\n\n## Fixes\n"
          "- Batching might help if the traffic allows it, though with bursty low-volume traffic there "
          "may not be much to batch.\n")   # answers/sealed2/a_chatbot.s46_hedged.md, line 12


UNREAD = ("---\ncase: a_chatbot\nstudent: h\n---\n## Regime\nBandwidth-bound.\n\n## Fixes\n"
          "- Rewrite the kernels with vectorized loads to reach higher bandwidth.\n")   # sealed5 e.s80


def test_a_hedge_is_a_decided_reading_and_needs_no_review_on_its_own(grader, tmp_path):
    """A hedged fix is scored as the blind grades score it (part credit), so it is sure enough;
    its confidence is still reported with the reading."""
    p = tmp_path / "hedged.md"
    p.write_text(HEDGED, encoding="utf-8")
    r = grader.grade(p)
    hedge = next(x for x in r.readings if x["status"] == "possible")
    assert "Batching might help" in hedge["sentence"] and 0.6 <= hedge["confidence"] < 1
    assert not any("possible" in x for x in r.review)


def test_an_unread_item_marks_the_submission_for_review_in_every_format(grader, tmp_path, monkeypatch):
    """Readings alone (no review model): an unsure reading queues the answer with its sentence.
    With the fitted model the same sentence is what it shows when it flags the answer."""
    from regime.engine.grading import output
    monkeypatch.setattr(grader.concepts.context, "review_model", None)
    monkeypatch.setattr(grader.concepts.context, "review_model_second", None)
    p = tmp_path / "unread.md"
    p.write_text(UNREAD, encoding="utf-8")
    r = grader.grade(p)
    assert r.needs_review and any("unread" in x and "vectorized loads" in x for x in r.review)
    assert all(0.0 <= x["confidence"] <= 1.0 for x in r.readings) and r.readings
    assert '"needs_review": true' in output.to_json([r])
    row = output.to_csv([r]).splitlines()[1]
    assert row.endswith(output.to_csv([r]).splitlines()[1].split(",")[-1]) and "vectorized loads" in row
    assert "Needs review" in output.gradescope(r)["output"]
    assert "Needs review" in output.prairielearn(r)["output"]
    assert "Needs review" in output.prairielearn(r)["message"]


def test_a_keyword_list_is_read_surely_and_needs_no_review(grader):
    """The list rule commits a keyword list to nothing, and its score agrees with the blind grade:
    its unreadable keywords ('Depends on the measurements.') are as sure as the list."""
    r = grader.grade(ROOT / "answers" / "new" / "a_chatbot.s21_keyword_soup.md")
    assert {x["status"] for x in r.readings} >= {"listed", "unread"} and not r.needs_review


def test_a_plain_solution_needs_no_review(grader):
    r = grader.grade(ROOT / "answers" / "a_chatbot.solution.md")
    assert not r.needs_review and not r.review


@pytest.mark.parametrize(("written", "value", "unit"), [
    ("a 25k-token prompt", 25000, "token"), ("~2.3k-token crossover", 2300, "token"),
    ("tokens/pass = 8 x 4096 = 32,768", 32768, "token"), ("0.78 of the roofline", 0.78, "%"),
    ("8×4096 = 32k tokens per step", 32768, "token"), ("~33k tokens", 32768, "token"),
])
def test_numbers_as_students_write_them(written, value, unit):
    from regime.engine.grading.figures import matches, quantities
    assert any(matches(q, value, unit, 0.005) for q in quantities(written)), quantities(written)


@pytest.mark.parametrize(("written", "value", "unit"), [
    ("32k tokens", 34000, "token"), ("32,000 tokens", 32768, "token"), ("32 kB", 32768, "B"),
])
def test_a_binary_k_is_read_only_on_a_k_multiplier(written, value, unit):
    from regime.engine.grading.figures import matches, quantities
    assert not any(matches(q, value, unit, 0.005) for q in quantities(written)), quantities(written)


def test_a_wrong_value_in_markdown_is_called_wrong_with_the_right_one(grader, tmp_path):
    p = tmp_path / "a.md"
    p.write_text("---\ncase: a_chatbot\nstudent: wv\n---\n## Regime\nBandwidth-bound.\n\n## Evidence\n"
                 "- 4% of peak FLOPs, 78% of peak bandwidth.\n"
                 "- batch-1 ceiling: 5300 GB/s / 26 GB = 240 tok/s.\n", encoding="utf-8")
    r = grader.grade(p)
    lines = [f for part in r.parts for f in part.feedback]
    key = grader.key_for_case(ROOT / "cases" / "a_chatbot.yaml")
    right = key.figures["weight_ceiling_tokens_per_s"].text
    assert any("you give 240 tok/s" in f and right in f for f in lines), lines


def test_a_number_that_is_another_key_figure_is_not_called_wrong(grader, tmp_path):
    """sealed4 a.s66: 'ceiling 5300/26 = 204 tok/s' is the batch-1 ceiling, not a wrong value of
    the int8 ceiling that shares its words."""
    p = tmp_path / "a.md"
    p.write_text("---\ncase: a_chatbot\n---\n## Regime\nBandwidth-bound.\n\n## Evidence\n"
                 "- ceiling 5300/26 = 204 tok/s, measured 160.\n", encoding="utf-8")
    lines = [f for part in grader.grade(p).parts for f in part.feedback]
    assert not any("you give 204" in f for f in lines), lines


def test_a_levers_first_mention_in_an_item_sets_its_status(grader, tmp_path):
    """answers/sealed/d_high_throughput_api.s14_essay.md: int4 named again as commentary after
    it was set aside is not a recommendation."""
    p = tmp_path / "d.md"
    p.write_text("---\ncase: d_high_throughput_api\n---\n## Regime\ncompute-bound\n## Fixes\n"
                 "1. Move the GEMMs to fp8. This is not the same argument as 4-bit weights: fp8 adds "
                 "FLOPs, int4 removes bytes.\n", encoding="utf-8")
    r = grader.grade(p)
    assert r.graded and not r.penalties and "quantize_int4" not in r.wrong_levers


# ---- reading classes the blind grades showed misread (answers/sealed2, a dev set since issue 27's
# third session): one test per class, with the sentences of the real answers -------------------------

def _part(grader, tmp_path, case: str, body: str, part: str) -> tuple[float, float]:
    p = tmp_path / f"{case}.md"
    p.write_text(f"---\ncase: {case}\nstudent: t\n---\n{body}", encoding="utf-8")
    r = grader.grade(p)
    assert r.graded, r.errors
    got = next(x for x in r.parts if x.part == part)
    return got.points, got.max_points


@pytest.mark.parametrize(("case", "regime", "share"), [
    # keyword lists (sealed2 b.s49, c.s49, e.s49): bare names in a row commit to none of them
    ("b_training_run", "compute-bound, bandwidth-bound", 0.0),
    ("c_document_summarizer", "prefill, compute-bound, memory-bound", 0.0),
    ("e_doesnt_add_up", "overhead-bound, bandwidth-bound", 0.0),
    # a regime with its qualifier is a verdict (answers/corpus, sealed)
    ("e_doesnt_add_up", "Overhead-bound; nominally bandwidth-bound.", 1.0),
    ("c_document_summarizer", "Prefill, compute-bound (25k tokens per pass vs ridge 247).", 1.0),
])
def test_bare_regime_names_in_a_row_are_a_list(grader, tmp_path, case, regime, share):
    got, top = _part(grader, tmp_path, case, f"## Regime\n{regime}\n", "regime")
    assert got == pytest.approx(share * top), regime


def test_keyword_lists_with_two_bare_regimes_score_at_most_5(grader, tmp_path):
    """The blind grades give these 0 (sealed2 b.s49, e.s49): nothing committed, nothing argued."""
    soups = {"b_training_run": ("compute-bound, bandwidth-bound", "MFU, kernel breakdown, crossover",
                                "torch.compile, hand-fused kernels, fuse attention, to_copy, fp8"),
             "c_document_summarizer": ("prefill, compute-bound, memory-bound", "40 GB, 20%, 55%, 4 ms",
                                       "flash attention, chunked prefill, batching, int8, torch.compile"),
             "e_doesnt_add_up": ("overhead-bound, bandwidth-bound", "450 kernels, gaps, 14%, 3%",
                                 "CUDA graphs, torch.compile, batching, int8, int4, fp8")}
    for case, (regime, evidence, fixes) in soups.items():
        p = tmp_path / f"{case}.md"
        p.write_text(f"---\ncase: {case}\n---\n## Regime\n{regime}\n\n## Evidence\n{evidence}\n\n"
                     f"## Fixes\n{fixes}\n\n## Reject\n", encoding="utf-8")
        assert grader.grade(p).score <= 5, case


@pytest.mark.parametrize(("text", "kinds", "concept", "status"), [
    # a trigger before another word names that word, it re-judges nothing (sealed2 c.s50)
    ("Compute-bound prefill (TTFT problem, not ITL — ITL is 4 ms).", ("regime",), "compute_bound",
     "affirmed"),
    # ... but a trigger with only an elliptical word still does (sealed c.s22; a guard)
    ("Batching: only once TTFT is fixed and we care about aggregate throughput, maybe then.",
     ("claim", "lever"), "raise_batch", "possible"),
    # a modal after its subject hedges it (sealed2 a.s46)
    ("Quantization could possibly help too.", ("claim", "lever"), "quantize_int8", "possible"),
    # the tempting batch, in the words students use for it (sealed c.s16, sealed2 c.s44)
    ("Batch the prefills: the GPU is only at 20% of its FLOPs, so running several documents together "
     "should fill it up.", ("claim", "lever"), "raise_batch", "affirmed"),
    ("Batch several documents' prefills together so the GPU is better utilized.", ("claim", "lever"),
     "raise_batch", "affirmed"),
])
def test_scope_and_paraphrase_of_real_sentences(grader, text, kinds, concept, status):
    said = _statuses(grader, text, kinds)
    assert said.get(concept) == status, said


def test_a_typo_in_the_nominal_cue_is_read_as_it(grader, tmp_path):
    """sealed2 e.s43: 'nominaly bandwidht-bound' is the nominal regime, as an instructor reads it."""
    got, top = _part(grader, tmp_path, "e_doesnt_add_up", "## Regime\nlaunch overhead bound (nominaly "
                     "bandwidht-bound, batch 1 decode) — nothing is saturated\n", "regime")
    assert got == pytest.approx(top)


def test_names_listed_before_a_rejections_reason_are_all_rejected(grader, tmp_path):
    """sealed2 e.s43: 'bigger batch, int8: ...' rejects both; a later clause's lever is commentary."""
    body = "## Reject\n- bigger batch, int8: not bandwidth bound yet, GPU is idle between kernals\n"
    p = tmp_path / "e.md"
    p.write_text(f"---\ncase: e_doesnt_add_up\n---\n{body}", encoding="utf-8")
    r = grader.grade(p)
    rej = next(x for x in r.parts if x.part == "rejections")
    assert not any("Not rejected: raise batch" in f or "Not rejected: quantize int8" in f
                   for f in rej.feedback), rej.feedback


def test_a_hedge_a_contrast_settles_needs_no_review(grader):
    """new e.s17: 'Batching might help, but not yet - ..., so not that.' is read surely as a
    rejection (the blind grade agrees); the hedge it started with is no reading of its own."""
    r = grader.grade(ROOT / "answers" / "new" / "e_doesnt_add_up.s17_hedged.md")
    assert r.graded and not any("Batching might help" in x for x in r.review), r.review


def test_a_deferral_read_as_a_rejection_is_reported_with_its_confidence(grader, tmp_path):
    """sealed2 c.s50: 'not yet; once TTFT is fixed, int8 would be worth doing' defers a lever the
    key rejects; it is read as the rejection for now, the blind grades' reading, and reported."""
    p = tmp_path / "c.md"
    p.write_text("---\ncase: c_document_summarizer\n---\n## Regime\nCompute-bound prefill.\n\n## Fixes\n"
                 "1. FlashAttention.\n2. Quantizing weights: not yet. Once TTFT is fixed, int8 weights would "
                 "be worth doing to bring ITL down further.\n", encoding="utf-8")
    r = grader.grade(p)
    said = next(x for x in r.readings if x["status"] == "deferred_reject")
    assert "quantizing" in said["sentence"] and said["confidence"] < 1


def test_figures_from_another_case_need_review(grader, tmp_path, monkeypatch):
    """sealed2 a.s49: case E's figures in an answer to case A (read as such; readings alone queue it)."""
    monkeypatch.setattr(grader.concepts.context, "review_model", None)
    monkeypatch.setattr(grader.concepts.context, "review_model_second", None)
    p = tmp_path / "a.md"
    p.write_text("---\ncase: a_chatbot\n---\n## Regime\nBandwidth-bound (decode at batch 1).\n\n"
                 "## Evidence\n- Bandwidth utilisation 14%, FLOP utilisation 3%.\n"
                 "- Ceiling: 5.3 TB/s / 24.65 GB = 215 tokens/s. We measure 160 tokens/s = 74% of the "
                 "ceiling.\n- ~450 kernels, 8-15 us gaps, 6-30 us kernels.\n", encoding="utf-8")
    r = grader.grade(p)
    assert any("foreign_figures" in x for x in r.review), r.review


WHOLE = ("partial:", "second reading:")   # review lines about the answer as a whole, no sentence


def test_a_bound_or_a_remeasure_under_fixes_is_no_unread_lever(grader, tmp_path):
    """sealed2 e.s43, b.s48: these comment on the fixes; they name no lever to look for."""
    p = tmp_path / "e.md"
    p.write_text("---\ncase: e_doesnt_add_up\n---\n## Regime\noverhead-bound\n\n## Fixes\n"
                 "1. CUDA graphs for the decode step.\n2. then re-measure vs 215 tok/s\n"
                 "3. Payoff: removing the gaps adds it straight onto throughput.\n", encoding="utf-8")
    r = grader.grade(p)
    assert r.graded and not [x for x in r.review if not x.startswith(WHOLE)], r.review


def test_a_claim_argued_in_one_sentence_of_a_reject_paragraph_is_rejected(grader, tmp_path):
    """sealed b.s22: the paragraph names fuse attention in its second sentence; its first answers
    the second engineer's claim without naming it."""
    p = tmp_path / "b.md"
    p.write_text("---\ncase: b_training_run\n---\n## Reject\nThe second engineer's argument conflates "
                 "where the bottleneck lies for the FLOP-carrying work with the time spent in kernels that "
                 "carry no FLOPs at all, so it doesn't hold. And fusing attention isn't worth anything here: "
                 "it already runs as flash-attention and takes only 7% of the time.\n", encoding="utf-8")
    r = grader.grade(p)
    rej = next(x for x in r.parts if x.part == "rejections")
    assert rej.points == pytest.approx(rej.max_points), rej.feedback
    assert not [x for x in r.review if not x.startswith(WHOLE)]   # (its score may fall in a band)
    assert any(x["status"] == "meaning" for x in r.readings)


# An answer written as prose, with no template heading (sealed3 d.s58, b.s57, a.s51 were refused
# with "no template heading found" and scored 0 against blind grades of 100, 80 and 100).
ESSAY = ("The profile says compute-bound: 71% of peak FLOPs and just 30% of peak bandwidth. At batch "
         "256 each weight byte is used for ~256 FLOPs, a hair past the ridge at 247 FLOP/byte.\n\n"
         "If this endpoint ran at batch 1, int4 would be the right call. It doesn't.\n\n"
         "To go faster I'd attack compute: fp8 GEMMs, fused attention, better tiling, and speculative "
         "decoding. I wouldn't push the batch higher: we're past the ridge, so it mostly adds latency.\n")


def test_prose_without_headings_is_read_sentence_by_sentence(grader, tmp_path):
    p = tmp_path / "d.md"
    p.write_text(f"---\ncase: d_high_throughput_api\n---\n{ESSAY}", encoding="utf-8")
    r = grader.grade(p)
    assert r.graded, r.errors
    parts = {x.part: x for x in r.parts}
    assert parts["regime"].points == parts["regime"].max_points > 0      # "the profile says" is theirs
    assert parts["fixes"].points == parts["fixes"].max_points > 0        # a menu of four, one sentence
    assert not any("Not rejected: raise batch" in f for f in parts["rejections"].feedback)
    assert not r.penalties                                               # the conditional int4 is no fix


@pytest.mark.parametrize(("text", "kinds", "concept", "status"), [
    ("The profile says compute-bound: 71% of peak FLOPs.", ("regime",), "compute_bound", "affirmed"),
    ("The second engineer says memory ops don't matter.", ("claim",),
     "memory_ops_irrelevant_when_compute_bound", "attributed"),
    ("I disagree that int4 helps at batch 256.", ("lever",), "quantize_int4", "negated"),
])
def test_a_measurement_speaks_in_the_students_voice(grader, text, kinds, concept, status):
    assert _statuses(grader, text, kinds)[concept] == status


def test_prose_that_disputes_a_claim_without_naming_it_rejects_it(grader, tmp_path):
    """sealed3 b.s57: 'I disagree with the second engineer. Being compute-bound is about the GEMMs;
    it doesn't make the other 22 % free.'"""
    p = tmp_path / "b.md"
    p.write_text("---\ncase: b_training_run\n---\nThe step is compute-bound at 61% of peak.\n\n"
                 "I disagree with the second engineer. Being compute-bound is about the GEMMs; it "
                 "doesn't make the other 22 % of memory-bound kernel time free.\n", encoding="utf-8")
    rej = next(x for x in grader.grade(p).parts if x.part == "rejections")
    assert not any("Not rejected: memory ops irrelevant" in f for f in rej.feedback), rej.feedback


@pytest.mark.parametrize(("text", "concept", "status"), [
    # sealed4 e.s67: the condition stands mid-clause, after a clause that names nothing, and
    # "that's when" (read "that is when" since a pronoun's 's is "is") defers what follows it:
    # the worked solution's own "then, not before", which the key places as it places a condition
    ("Only after that, measure again against the 215 tok/s ceiling, and if we are finally "
     "bandwidth-bound, that's when batching and int8 come in.", "quantize_int8", "deferred"),
    # sealed3 e.s57: "only then" defers what follows, across the parenthesis
    ("Re-measure vs the 215 tok/s ceiling; only then (when it's truly bandwidth-bound) batching / int8.",
     "quantize_int8", "deferred"),
    # sealed4 a.s64: someone else's suggestion, then refused by a pronoun in the next sentence
    ("People suggested fusing the elementwise kernels.", "fuse_elementwise", "attributed"),
    ("People suggested fusing the elementwise kernels; I'd skip it, those ops are tiny.",
     "fuse_elementwise", "negated"),
    # sealed4 b.s68: a claim in quotation marks, then judged by the clause after it
    ("the second engineer's \"we're compute-bound so memory ops don't matter\" is a category mistake.",
     "memory_ops_irrelevant_when_compute_bound", "negated"),
    # sealed4 b.s65: fusing flash attention is attention fusion, not FlashAttention (typo included)
    ("Fusing flash-atention — it's already fused, 7% max.", "fuse_attention", "affirmed"),
    # sealed4 e.s67: a dismissal after the lever ("would just ...")
    ("Batching or quantizing today would just make idle steps move fewer or more bytes.",
     "quantize_int8", "negated"),
    # sealed5 c.s73: "won't" is "will not" (it read "wo not"), and a consequence after "so" is
    # not a verdict on the lever before it
    ("Batching the prefills won't help TTFT, the single prompt is already compute-bound.",
     "raise_batch", "negated"),
    ("Fix: FlashAttention, which keeps the scores on chip, so no 40 GB allocation and far less "
     "memory traffic.", "flash_attention", "affirmed"),
    ("Batching might help, so not that.", "raise_batch", "negated"),
    # sealed5 c.s80: "it" in the next clause points at nothing the trigger refuses
    ("Flash attention. Don't batch, it's TTFT.", "flash_attention", "affirmed"),
])
def test_conditions_quotes_and_pronouns_of_real_prose(grader, text, concept, status):
    assert _statuses(grader, text).get(concept) == status, _statuses(grader, text)


def test_a_nominal_cue_qualifies_only_its_own_part_of_the_clause(grader, tmp_path):
    """sealed4 e.s67: 'It's launch-overhead bound even though batch-1 decode is nominally
    bandwidth-bound' gives overhead-bound, nominally bandwidth-bound (it gave nominal overhead)."""
    p = tmp_path / "e.md"
    p.write_text("---\ncase: e_doesnt_add_up\n---\nNeither bandwidth (14%) nor compute (3%) is busy. "
                 "It's launch-overhead bound even though batch-1 decode is nominally bandwidth-bound.\n",
                 encoding="utf-8")
    reg = next(x for x in grader.grade(p).parts if x.part == "regime")
    assert reg.points == reg.max_points > 0, reg.feedback


def test_a_terse_answer_with_swapped_letters_and_a_remeasure_step(grader, tmp_path):
    """sealed4 e.s64 (blind 95): 'cuda grpahs' is CUDA graphs (two letters swapped), and
    're-measure vs 0.215 ktok/s, then batch/quantize' defers both until after the measurement."""
    p = tmp_path / "e.md"
    p.write_text("---\ncase: e_doesnt_add_up\n---\n## Regime\noverhead bound (launch latency), nominally "
                 "bandwith-bound\n\n## Fixes\n1. cuda grpahs\n2. torch.compile\n3. re-measure vs "
                 "0.215 ktok/s, then batch/quantize\n", encoding="utf-8")
    r = grader.grade(p)
    parts = {x.part: x for x in r.parts}
    fixes = parts["fixes"]   # both read; bare, each argued only in the answer's words elsewhere
    assert fixes.points == grader.rubric.reasons.carried * fixes.max_points > 0, fixes.feedback
    assert not any("Missing fix" in f for f in fixes.feedback)
    assert not r.penalties, [x.feedback for x in r.penalties]


def test_a_yaml_fix_whose_bound_defers_it_is_a_later_step(grader, tmp_path):
    """sealed4 e.s63 (blind 93): a fix whose bound reads 'then, not before: only after
    re-measuring against 215 tok/s' is the worked solution's step 3, not a trap recommended now."""
    p = tmp_path / "e.yaml"
    p.write_text("case: e_doesnt_add_up\nregime: overhead_bound\nfixes:\n  - {lever: cuda_graphs}\n"
                 "  - {lever: torch_compile}\n  - {lever: raise_batch, bound: \"then, not before: only "
                 "after re-measuring against 215 tok/s\"}\n", encoding="utf-8")
    r = grader.grade(p)
    assert r.graded and not r.penalties, [x.feedback for x in r.penalties]


B_ESSAY = ("The step is compute-bound at 61% of peak FLOPs, but that figure hides 22% of kernel time "
           "(8% layer_norm, 9% add/mul/silu, 5% to_copy) in kernels that do essentially no arithmetic.\n\n"
           "I'd start with torch.compile, not two weeks of hand-fusing. Then chase the to_copy casts. "
           "Hand-fused kernels only if something meaningful is left.\n")


def test_an_essay_names_profile_entries_and_postpones_what_it_first_refused(grader, tmp_path):
    """sealed4 b.s68 (blind 95): '5% to_copy' reads the profile (the casts come second, after
    torch.compile), and hand fusion refused as a first step, then allowed 'only if' a gap is left,
    is a later step: not the trap of dismissing fusion."""
    p = tmp_path / "b.md"
    p.write_text(f"---\ncase: b_training_run\n---\n{B_ESSAY}", encoding="utf-8")
    r = grader.grade(p)
    parts = {x.part: x for x in r.parts}
    assert parts["order"].points == parts["order"].max_points > 0, parts["order"].feedback
    assert not r.penalties, [x.feedback for x in r.penalties]


@pytest.mark.parametrize(("case", "regimes", "fixes"), [
    # sealed3 a.s56 and sealed4 b.s70 (blind 0): regimes separated by slashes, a list of levers
    ("a_chatbot", "bandwidth-bound / compute-bound / latency-bound",
     "batching, continuous batching, int8, int4, fp8, fusion, torch.compile, CUDA graphs"),
    ("b_training_run", "compute-bound / memory-bound",
     "torch.compile, hand fused kernels, flash attention, fp8, to_copy, fusing attention, cuda graphs"),
])
def test_regimes_between_slashes_are_alternatives_not_a_verdict(grader, tmp_path, case, regimes, fixes):
    p = tmp_path / "k.md"
    p.write_text(f"---\ncase: {case}\n---\n## Regime\n{regimes}\n\n## Fixes\n- {fixes}\n", encoding="utf-8")
    r = grader.grade(p)
    assert r.graded and r.score <= 5, [(x.part, x.points) for x in r.parts]


def test_a_regime_hedged_between_alternatives_commits_to_none(grader, tmp_path):
    """sealed4 c.s68 (blind 6, '-15: regime hedged between compute and memory'): 'Maybe
    compute-bound, maybe memory' names one regime alias but weighs two answers."""
    p = tmp_path / "c.md"
    p.write_text("---\ncase: c_document_summarizer\n---\n## Regime\nMaybe compute-bound, maybe memory — "
                 "hard to say with 20% FLOPs.\n", encoding="utf-8")
    reg = next(x for x in grader.grade(p).parts if x.part == "regime")
    assert reg.points == 0, reg.feedback


@pytest.mark.parametrize(("text", "concept", "status"), [
    # sealed3 b.s57, sealed5 b.s73: a lever already in place is ConText's "historical" value ("..., so
    # I'd leave it alone" after it refuses more of it: tests/test_grading_after_sealed712.py)
    ("Attention is already flash-attention at 7% of the step.", "flash_attention", "historical"),
    ("Continuous batching has done its job so well that decode isn't bandwidth-bound any more.",
     "continuous_batching", "historical"),
    # sealed5 b.s73: a dismissal after the lever
    ("Fusing attention again makes no sense, it is already flash attention at 7%.", "fuse_attention",
     "negated"),
])
def test_what_is_already_in_place_is_neither_a_fix_nor_a_rejection(grader, text, concept, status):
    assert _statuses(grader, text).get(concept) == status, _statuses(grader, text)


def test_an_already_reached_regime_is_still_the_verdict(grader):
    assert _statuses(grader, "The single prompt is already compute-bound.", ("regime",)) == {
        "compute_bound": "affirmed"}


# sealed5 d.s71, a memo to the director: one sentence names the key's whole menu (five levers,
# more than a sentence commits to), and "Int4 shrinks bytes." describes int4, it recommends nothing.
MEMO = ("Short answer for the director: no, not on this endpoint. At batch 256 we are compute-bound: "
        "71% of peak FLOP rate but only 30% of HBM bandwidth.\n\n"
        "Int4 shrinks bytes. Bytes are not what we are short of.\n\n"
        "If we want more throughput here, attack compute: fp8 GEMMs on the matrix cores, fused attention, "
        "better GEMM tiling, and cutting FLOPs via speculative decoding or a smaller model.\n")


def test_prose_names_the_keys_menu_and_describes_without_recommending(grader, tmp_path):
    r = _graded(grader, tmp_path, "d_high_throughput_api", MEMO)
    parts = _parts(r)
    assert parts["fixes"].points > 0 and not any("Missing fix" in f for f in parts["fixes"].feedback)
    assert parts["order"].points == parts["order"].max_points > 0
    assert not r.penalties, r.penalties                    # int4 described, not recommended
    # the same menu with a trap in it is a keyword list: it commits to none of them
    trapped = MEMO.replace("fused attention", "int4")
    parts = _parts(_graded(grader, tmp_path, "d_high_throughput_api", trapped))
    assert parts["fixes"].points == 0


def test_a_hedged_fix_earns_part_of_its_credit_and_orders_nothing(grader, tmp_path):
    """sealed4 e.s66: 'CUDA graphs could help', 'torch.compile might also reduce kernel count'."""
    body = ("## Regime\n{regime} overhead-bound: 14% bandwidth and 3% FLOPs, so nothing is saturated.\n\n"
            "## Fixes\n1. CUDA graphs {verb}, the gaps are launch latency.\n"
            "2. torch.compile {verb} by cutting the kernel count.\n")
    parts = {}
    for name, regime, verb in (("sure", "It is", "will remove them"), ("hedged", "Probably", "could help")):
        p = tmp_path / f"{name}.md"
        text = "---\ncase: e_doesnt_add_up\n---\n" + body.format(regime=regime, verb=verb)
        p.write_text(text, encoding="utf-8")
        parts[name] = {x.part: x for x in grader.grade(p).parts}
    sure, hedged = parts["sure"], parts["hedged"]
    assert 0 < hedged["fixes"].points < sure["fixes"].points
    assert hedged["order"].points == 0 < sure["order"].points
    assert 0 < hedged["regime"].points < sure["regime"].points
    assert any(f.startswith("Hedged: cuda graphs") for f in hedged["fixes"].feedback)


def test_partial_written_answers_are_queued_and_prose_is_only_recorded(grader, tmp_path, monkeypatch):
    """Where the grades differ most (issue 27's dev sets): written answers scoring in the context
    file's review band. An answer without the template's headings is recorded as read that way,
    but is no likelier than any other to be graded wrong, so it is not queued on that alone.
    (Readings alone: with the review model the band is one of its features.)"""
    monkeypatch.setattr(grader.concepts.context, "review_model", None)
    monkeypatch.setattr(grader.concepts.context, "review_model_second", None)
    p = tmp_path / "memo.md"
    p.write_text(f"---\ncase: d_high_throughput_api\n---\n{MEMO}", encoding="utf-8")
    memo = grader.grade(p)
    assert any(x["status"] == "prose" for x in memo.readings)
    assert not any(x.startswith("prose:") for x in memo.review)
    p.write_text(UNREAD.replace("- Rewrite the kernels with vectorized loads to reach higher bandwidth.",
                                "- Continuous batching."), encoding="utf-8")
    share = grader.grade(p).score / 100
    near, above = ((0.0, 0.01), (share - 0.01, share + 0.01)), ((share + 0.01, 1.0),)
    for bands, queued in ((near, True), (above, False)):
        monkeypatch.setattr(grader.concepts.context, "review_bands", bands)
        assert any(x.startswith("partial:") for x in grader.grade(p).review) == queued, bands


def test_no_to_the_cases_one_question_rejects_its_proposal(grader, tmp_path):
    """sealed3 d.s58, sealed5 d.s71: 'So my answer to the director is no, not for throughput.'
    names nothing, and answers the one thing case D asks about (int4)."""
    said = ("Compute-bound: 71% of peak FLOPs, 30% of bandwidth, ~256 FLOP/byte against the 247 ridge.\n\n"
            "So my answer to the director is {answer}.\n")
    parts = {}
    for answer in ("no, not for throughput", "yes"):
        p = tmp_path / f"{answer[:2]}.md"
        p.write_text("---\ncase: d_high_throughput_api\n---\n" + said.format(answer=answer), encoding="utf-8")
        parts[answer] = {x.part: x for x in grader.grade(p).parts}
    no, yes = parts["no, not for throughput"], parts["yes"]
    assert no["rejections"].points > yes["rejections"].points
    assert not any("Not rejected: quantize int4" in f for f in no["rejections"].feedback)
    assert any("Not rejected: quantize int4" in f for f in yes["rejections"].feedback)


@pytest.mark.parametrize(("text", "concept", "status"), [
    # sealed7 d.s91: the student's own "I'd say no" is no one else's statement
    ("Short version: I'd say no to the int4 pitch for this endpoint.", "quantize_int4", "negated"),
    # sealed7 d.s91, sealed5 d.s71: a goal, not a condition (ConText's pseudo-trigger)
    ("If we want more throughput here, the levers are on the compute side: fp8 GEMMs.", "fp8_gemm",
     "affirmed"),
    ("If the gaps are launch latency, CUDA graphs help.", "cuda_graphs", "hypothetical"),
    # sealed7 d.s100: a name alone before a colon takes the trigger that opens what follows
    ("Int4: not for this endpoint now.", "quantize_int4", "negated"),
    ("Int8: if quality allows.", "quantize_int8", "hypothetical"),
    # sealed7 b.s96: a label stops at a subordinate clause; "touch attention" is re-fusing it
    ("Don't: hand-fuse before seeing what compile leaves.", "torch_compile", "affirmed"),
    ("Don't: hand-fuse before seeing what compile leaves.", "hand_fused_kernels", "deferred"),   # not before
    ("Don't: touch attention, already flash, 7%.", "fuse_attention", "negated"),
    # sealed6 d.s81: a lever set against another is not recommended
    ("fp8 GEMMs (this raises the compute ceiling, a different thing from int4 weight-only quant)",
     "quantize_int4", "negated"),
    # sealed12 d.s141 and every director memo since sealed5: the conditional mood after the lever
    ("Where int4 would be worth something: it frees around 51 GB of HBM.", "quantize_int4", "hypothetical"),
    # sealed12 b.s141: the object first, the refusal after it
    ("Fusing attention I would skip: it already runs as flash-attention.", "fuse_attention", "negated"),
    # sealed4 a.s64 still: a pointing-back refusal, now a longer trigger
    ("People suggested fusing the elementwise kernels; I'd skip it, those ops are tiny.",
     "fuse_elementwise", "negated"),
])
def test_statuses_of_sentences_from_the_fresh_sets(grader, text, concept, status):
    """Pseudo-triggers, the student's own voice, colon verdicts, labels that stop, the conditional
    mood and refusals after the lever, each from a spent sealed set."""
    assert _statuses(grader, text).get(concept) == status, _statuses(grader, text)


def test_a_table_under_a_heading_of_its_own_is_read_row_by_row(grader, tmp_path):
    """sealed7 a.s97: '## Verdicts' (not a template heading) over a table of levers was skipped
    whole; it is read as prose now, one row at a time, so a "don't" stays in its row."""
    p = tmp_path / "a.md"
    p.write_text("---\ncase: a_chatbot\n---\n## Regime\nBandwidth-bound decode at batch 1.\n\n## Verdicts\n\n"
                 "| proposal | verdict | why |\n|---|---|---|\n"
                 "| continuous batching | do first | the weight read serves every sequence |\n"
                 "| int8 weights | do second | 13 GB instead of 26 GB: the ceiling doubles to 408 tok/s |\n"
                 "| fuse elementwise ops | don't | a tiny fraction of the bytes at batch 1 |\n",
                 encoding="utf-8")
    r = grader.grade(p)
    parts = {x.part: x for x in r.parts}
    assert parts["fixes"].points == parts["fixes"].max_points > 0, parts["fixes"].feedback
    assert parts["order"].points == parts["order"].max_points
    assert not any("fuse elementwise" in f for f in parts["rejections"].feedback if "Not rejected" in f)
    assert any("read as prose" in n for n in r.notes) and not any(x.startswith("prose:") for x in r.review)


def test_a_description_of_a_lever_is_no_recommendation_in_prose(grader, tmp_path):
    """sealed6 d.s81: 'int4 is a bytes lever.' read as a fix ('the lever' was a cue, and filler
    words drop out of cues, so it cued any 'lever')."""
    body = "We are compute-bound.\n\nint4 is a bytes lever.\n"
    r = _graded(grader, tmp_path, "d_high_throughput_api", body)
    assert not r.penalties


def test_a_sentence_announcing_refusals_opens_a_list_of_rejections(grader, tmp_path):
    """sealed6 c.s81: 'Two proposals I would turn down. Batching the prefills: ... makes each
    user's TTFT worse. Quantizing the weights: ... nowhere near the bottleneck.'"""
    r = _graded(grader, tmp_path, "c_document_summarizer",
                "Prefill of 25k tokens is compute-bound.\n\nTwo proposals I would turn down. Batching the "
                "prefills: a single long prefill is already compute-bound, so more prompts in the pass make "
                "each TTFT worse. Quantizing the weights: 16 GB over 25,000 tokens is well under a MB per "
                "token.\n")
    rejections = _parts(r)["rejections"]
    assert rejections.points == rejections.max_points > 0, rejections.feedback
    assert not r.penalties


def test_an_imperative_verb_recommends_only_opening_a_clause(grader, tmp_path):
    """sealed6 a.s81: 'And a GPU with more FLOPs is money spent on the resource we use 4% of.'
    ('use' mid-sentence describes), against 'Use FlashAttention.' (an imperative)."""
    from regime.engine.grading.recommending import recommends
    c = grader.concepts
    spent = "And a GPU with more FLOPs is money spent on the resource we use 4% of."
    assert not recommends(c, spent, c.context)
    assert recommends(c, "Use FlashAttention so the matrix stays on chip.", c.context)
    assert recommends(c, "Then chase the to_copy casts.", c.context)
    assert not recommends(c, "Int4 shrinks bytes.", c.context)


@pytest.mark.parametrize(("case", "text", "part", "fragment"), [
    # sealed9 d.s111: a refusing head before a colon covers what follows it
    ("d_high_throughput_api", "At batch 256 we are compute-bound. One more thing I would not do: push the "
     "batch much higher.", "rejections", "raise batch"),
    # sealed9 c.s120: the later 'batching' is commentary on the refused 'batch the prefills'
    ("c_document_summarizer", "Prefill is compute-bound. I would not batch the prefills: the problem is one "
     "long prompt, and batching only adds work in front of it.", "rejections", "raise batch"),
])
def test_a_refusal_covers_what_it_goes_on_to_say(grader, tmp_path, case, text, part, fragment):
    r = _graded(grader, tmp_path, case, f"{text}\n")
    assert not r.penalties, r.penalties
    got = next(x for x in r.parts if x.part == part)
    assert not any(f"Not rejected: {fragment}" in f for f in got.feedback), got.feedback


def test_a_verdict_cell_recommends_its_row(grader, tmp_path):
    """sealed9 d.s120: '| fp8 GEMMs | do | raises compute ceiling |' under '## Levers'."""
    p = tmp_path / "d.md"
    p.write_text("---\ncase: d_high_throughput_api\n---\n## Regime\nCompute-bound.\n\n## Levers\n"
                 "| lever | verdict |\n|---|---|\n| fp8 GEMMs | do |\n| fused attention | do |\n"
                 "| int4 | no |\n", encoding="utf-8")
    fixes = next(x for x in grader.grade(p).parts if x.part == "fixes")
    assert fixes.points > 0 and not any("Missing fix #1" in f for f in fixes.feedback), fixes.feedback


def test_a_bit_width_is_no_figure_of_the_argument(grader):
    """sealed8 d.s105: 'int4: 4-bit weights lose too much accuracy' matched the 4 of 'the
    bandwidth gain from int4, 4x' and made accuracy the key's reason."""
    from regime.engine.grading.figures import quantities
    assert [q.unit for q in quantities("4-bit weights lose accuracy")] == ["bit"]
    assert [q.unit for q in quantities("a 256-token pass")] == ["token"]


def test_two_regimes_offered_as_alternatives_commit_to_neither(grader, tmp_path):
    """sealed9 d.s118: 'Regime: compute-bound or bandwidth-bound depending on batch.'"""
    p = tmp_path / "d.md"
    for text, points in (("compute-bound or bandwidth-bound depending on batch", 0.0),
                         ("compute-bound, not bandwidth-bound", 1.0)):
        p.write_text(f"---\ncase: d_high_throughput_api\n---\n## Regime\n{text}.\n", encoding="utf-8")
        part = next(x for x in grader.grade(p).parts if x.part == "regime")
        assert part.points == pytest.approx(points * part.max_points), text


@pytest.mark.parametrize(("text", "regime"), [
    # sealed9 e.s114: a nominal regime first, the verdict later in the essay
    ("Batch-1 decode should be bandwidth-bound, yet the profiler shows 14% of bandwidth and 3% of "
     "compute.\n\nI'd call this launch-overhead bound.", "overhead-bound"),
    # sealed9 e.s120: 'the GPU is idle' says overhead-bound
    ("Not really bandwidth-bound: both bandwidth (14%) and FLOPs (3%) are low, so the GPU is idle.",
     "overhead-bound"),
])
def test_the_verdict_is_the_regime_the_answer_settles_on(grader, tmp_path, text, regime):
    part = _parts(_graded(grader, tmp_path, "e_doesnt_add_up", f"{text}\n"))["regime"]
    assert not any(f.startswith("Regime:") for f in part.feedback), part.feedback


def test_launch_overhead_named_plainly_is_the_overhead_regime(grader, tmp_path):
    """sealed8 e.s105: 'So on paper this is a bandwidth-bound workload, but what is actually
    limiting it today is kernel launch overhead.'"""
    p = tmp_path / "e.md"
    p.write_text("---\ncase: e_doesnt_add_up\n---\nSo on paper this is a bandwidth-bound workload, but what "
                 "is actually limiting it today is kernel launch overhead.\n", encoding="utf-8")
    part = next(x for x in grader.grade(p).parts if x.part == "regime")
    assert part.points == part.max_points, part.feedback


@pytest.mark.parametrize(("text", "kinds", "concept", "status"), [
    # sealed10 e.s121: a statement after "but" is no elliptical re-judging of the verdict before it
    ("Launch-overhead-bound (nominally bandwidth-bound decode, but neither bandwidth nor compute is "
     "saturated).", ("regime",), "overhead_bound", "affirmed"),
    # sealed11 d.s140: a dismissal after the lever; a bare "no" answering the sentence before
    ("Pushing the batch higher isn't one of them: we are past the ridge.", ("lever",), "raise_batch",
     "negated"),
    ("A naive int4 kernel can end up slower at batch 256. So, no for throughput.", ("lever",),
     "quantize_int4", "negated"),
    # sealed6 c.s88: "no 5 TB of traffic" negates a quantity, not FlashAttention
    ("FlashAttention (no 40 GB, no 5 TB/s traffic... er, no 5 TB of traffic)", ("lever",),
     "flash_attention", "affirmed"),
])
def test_elliptical_refusals_have_a_short_reach(grader, text, kinds, concept, status):
    assert _statuses(grader, text, kinds).get(concept) == status, _statuses(grader, text, kinds)


def test_the_regime_an_essay_concludes_with_stands_over_one_named_in_passing(grader, tmp_path):
    """sealed11 e.s134: 'a bandwidth-bound loop would have HBM busy, and here it is at 14% ...
    So the real regime is launch/overhead-bound.'"""
    p = tmp_path / "e.md"
    p.write_text("---\ncase: e_doesnt_add_up\n---\nOn paper this is a bandwidth-bound decode, but the "
                 "numbers don't fit: a bandwidth-bound loop would have HBM busy, and here it is at 14% with "
                 "compute at 3%. So the real regime is launch/overhead-bound.\n", encoding="utf-8")
    part = next(x for x in grader.grade(p).parts if x.part == "regime")
    assert part.points == part.max_points, part.feedback


def test_a_hedged_fix_is_not_upgraded_by_a_later_condition_naming_it(grader, tmp_path):
    """sealed13 c.s160: 'FlashAttention could possibly help ...' then 'Once FlashAttention is in,
    we could quantize ...': the fix stays hedged; 'I'd guess compute-bound' is a hedge too."""
    body = ("## Regime\nI'd guess compute-bound, maybe partly memory-bound because of the 40 GB.\n\n"
            "## Fixes\n- FlashAttention could possibly help with the 40 GB.\n"
            "- Once FlashAttention is in, we could quantize the weights to int8.\n")
    fixes = _parts(_graded(grader, tmp_path, "c_document_summarizer", body))["fixes"]
    assert any(f.startswith("Hedged: flash attention") for f in fixes.feedback), fixes.feedback

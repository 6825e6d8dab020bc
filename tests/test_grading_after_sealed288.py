"""Classes from the sealed281-288 sets, now development data (issue 27), each with the student's
own sentences."""

from __future__ import annotations

from conftest import read_body

from regime.engine.grading.reading import read_against
from regime.engine.grading.submission import read_answer

_CLAIM = "memory_ops_irrelevant_when_compute_bound"


def _rejected(grader, tmp_path, case: str, body: str) -> set[str]:
    return {c for m in read_body(grader, tmp_path, case, body).rejects for c in m.concepts}


def test_a_claim_pointed_out_then_agreed_with_is_endorsed(grader, tmp_path):
    """sealed281 b.s2834 and sealed282 b.s2844 (instructors 1 and 5, graded 12 and 38 with the
    claim rejected): the second engineer 'pointed out' a claim negative in itself, and the
    student agrees with it in the same sentence or the next ('I think that's right'). The
    negation is the claim's, not the student's."""
    same = ("The step reaches 61% of peak, which makes it compute-bound. The second engineer pointed out "
            "that in a compute-bound job the memory-bound kernels are not on the critical path, and I "
            "think that is right: the GEMMs set the pace.\n")
    a = read_body(grader, tmp_path, "b_training_run", same)
    assert _CLAIM in a.endorsed and _CLAIM not in {c for m in a.rejects for c in m.concepts}
    nxt = ("The run is compute-bound at 61% of peak FLOPs. The second engineer pointed out that since we "
           "are compute-bound, the memory-bound ops shouldn't matter much. I think that's right: the "
           "GEMMs dominate the step.\n")
    assert _CLAIM not in _rejected(grader, tmp_path, "b_training_run", nxt)


def test_an_agreement_a_contrast_takes_back_agrees_with_nothing(grader, tmp_path):
    """sealed151 b.s1534 (instructor 100): 'I agree with the first engineer's diagnosis, though not
    with the first step of the plan' after refuting the second engineer endorses no claim."""
    said = ('The second engineer\'s line was, roughly: "we are compute-bound, so the memory-bound ops '
            'can\'t matter." The first half is true and the second half doesn\'t follow from it. I agree '
            "with the first engineer's diagnosis, though not with the first step of the plan.\n")
    assert _CLAIM not in read_body(grader, tmp_path, "b_training_run", said).endorsed


def test_an_agreement_whose_reason_names_a_lever_still_agrees(grader, tmp_path):
    """sealed288 b.s2910 (instructor 8, graded 30 with the claim rejected): 'I think that's right:
    ... so two weeks of hand-fusion would be mostly wasted.' The lever named after the colon is the
    agreement's reason; the agreement is with the claim reported before it."""
    said = ("The step is compute-bound at 61% of peak. One of the engineers pointed out that because we are "
            "compute-bound, the memory-bound ops don't really matter. I think that's right: the norms and "
            "elementwise ops are cheap kernels, and the matmuls are where the time goes, so two weeks of "
            "hand-fusion would be mostly wasted.\n")
    a = read_body(grader, tmp_path, "b_training_run", said)
    assert _CLAIM in a.endorsed and _CLAIM not in {c for m in a.rejects for c in m.concepts}


def test_set_aside_refuses(grader, tmp_path):
    """sealed281 c.s2837 and sealed284 d.s2869 (instructors 100 and 70, graded 78 and 25 with the
    refused lever recommended): 'Considered, set aside: batching the prefills.' and '... int4 was
    the first one I looked at, ... but I'd set it aside' refuse what they set aside."""
    label = ("1. **Fix 1: FlashAttention** — tiles stay in on-chip memory.\n"
             "2. **Considered, set aside: batching the prefills.** It sounds like it would raise "
             "utilization, but one prompt already saturates compute.\n")
    a = read_body(grader, tmp_path, "c_document_summarizer", label)
    assert "raise_batch" not in {c for m in a.fixes for c in m.concepts}
    assert "raise_batch" in _rejected(grader, tmp_path, "c_document_summarizer", label)
    said = ("The API is compute-bound: 71% of peak FLOPs and only 30% of bandwidth. int4 was the first one "
            "I looked at, since it's what the vendor is pushing, but I'd set it aside — it saves memory "
            "traffic, and memory traffic isn't what's slowing us down.\n")
    assert "quantize_int4" in _rejected(grader, tmp_path, "d_high_throughput_api", said)


def test_a_refusal_pointing_back_across_a_semicolon(grader, tmp_path):
    """sealed285 c.s2880 (instructor 100, graded 78 with batching recommended): under Fixes,
    'Batching was my first thought, ...; I'm setting it aside — ... so batching only stretches
    every request's TTFT.' The second sentence refuses what the first named, and names nothing
    new; one that names another lever ('no - bigger batch or int8 weights cut bytes/step ...',
    sealed212 e.s2142) is read on its own."""
    said = ("## Fixes\nBatching was my first thought, because 20% sounds like an idle GPU; I'm setting it "
            "aside — a 25k prefill is already compute-bound, so batching only stretches every request's "
            "TTFT.\n\n1. FlashAttention: the scores live in on-chip tiles.\n")
    a = read_body(grader, tmp_path, "c_document_summarizer", said)
    assert [m.concepts for m in a.fixes] == [("flash_attention",)]


def _read(grader, tmp_path, case: str, body: str):
    a = read_body(grader, tmp_path, case, body)
    return read_against(a, grader.key(a, None)[0], grader.concepts.context.menu_share, grader.concepts)


def test_a_sentence_opening_on_a_condition_offers_the_lever(grader, tmp_path):
    """sealed286 c.s2887 (instructor 76, graded 93 with batching read as refused for now): 'If
    several long documents tend to arrive at the same moment, batching their prefills into one pass
    would be worth turning on too.' A lever the key rejects outright, offered on a condition: left
    open, as 'only if' leaves it. A condition contrary to fact ('If this endpoint were running at
    batch 1 I'd say yes to the vendor', sealed97 d.s997, instructor 100) offers nothing."""
    said = ("Prefill is compute-bound. The main fix is FlashAttention, which keeps the scores on chip.\n\n"
            "If several long documents tend to arrive at the same moment, batching their prefills into one "
            "pass would be worth turning on too.\n")
    read = _read(grader, tmp_path, "c_document_summarizer", said)
    assert "raise_batch" in read.leans and "raise_batch" not in read.rejects
    counterfactual = ("The endpoint is compute-bound: 71% of peak FLOPs, 30% of bandwidth.\n\n"
                      "If this endpoint were running at batch 1 I'd say yes to the vendor straight away: "
                      "int4 cuts the weight bytes 4x and batch-1 decode is all bytes.\n")
    assert "quantize_int4" not in _read(grader, tmp_path, "d_high_throughput_api", counterfactual).leans


def test_a_wrong_value_beside_a_right_one_is_the_wrong_reason(grader, tmp_path):
    """sealed283 a.s2856 (instructor 88: 'a wrong value loses the int8 item', graded 100): 'int8
    weights: 26 GB → 13 GB, which takes the ceiling to about 300 tok/s.' The right 13 GB does not
    excuse the ceiling the item gets wrong (the key's is ~408 tokens/s)."""
    body = ("## Regime\nMemory-bandwidth-bound decode at batch 1: 78% of peak bandwidth, 4% of FLOPs.\n\n"
            "## Fixes\n1. Continuous batching: one weight read per step serves many users.\n"
            "2. int8 weights: 26 GB → 13 GB, which takes the ceiling to about {} tok/s.\n")
    fb = {}
    for ceiling in ("300", "408"):
        p = tmp_path / f"a{ceiling}.md"
        p.write_text(f"---\ncase: a_chatbot\nstudent: s1\n---\n{body.format(ceiling)}", encoding="utf-8")
        fb[ceiling] = " ".join(f for x in grader.grade(p).parts if x.part == "fixes" for f in x.feedback)
    assert "quantize int8" in fb["300"] and "quantize int8" not in fb["408"]


def test_an_item_labelled_with_another_part_in_a_plan(grader, tmp_path):
    """sealed282 c.s2850 (instructor 92, graded 48 with no regime): under 'Plan for the summarizer'
    (a Fixes heading), '1. Diagnosis: prefill, compute-bound.' is the Regime part's item; the items
    after it are still the plan's."""
    said = ("Plan for the summarizer\n\n1. Diagnosis: prefill, compute-bound. TTFT is the prefill metric.\n"
            "2. Fix: FlashAttention — the score tiles stay on chip.\n3. Then chunked prefill.\n")
    a = read_body(grader, tmp_path, "c_document_summarizer", said)
    assert a.regime == "compute_bound"
    assert [m.concepts for m in a.fixes][:1] == [("flash_attention",)]


def test_doubling_the_batch_is_raising_it(grader, tmp_path):
    """sealed281 d.s2838 (instructor 100, graded 72 with the batch left unrefused): 'A colleague
    suggested we simply double the batch to 512. I don't think that buys much: past the ridge ...'"""
    said = ("The endpoint is compute-bound: 71% of FLOPs, 30% of bandwidth.\n\nA colleague suggested we "
            "simply double the batch to 512. I don't think that buys much: past the ridge, extra batch "
            "adds step time about as fast as it adds tokens.\n")
    assert "raise_batch" in _rejected(grader, tmp_path, "d_high_throughput_api", said)


def test_a_suggestion_taken_up_in_prose_is_recommended_unless_on_a_condition(grader, tmp_path):
    """sealed288 e.s2904 (instructor 95, graded 68 with graph capture only described): 'A colleague
    suggested capturing the step in a CUDA graph. I agree — it's the first thing to do: ...' An
    agreement on a condition ('I agree, if the users can accept slightly higher latency', sealed238
    e.s2407, instructor 73) takes up nothing outright."""
    said = ("1. Regime: overhead-bound.\n2. A colleague suggested capturing the step in a CUDA graph. "
            "I agree — it's the first thing to do: the step is static in shape, so it can be replayed as "
            "one launch.\n"
            "3. Second, torch.compile.\n")
    a = read_body(grader, tmp_path, "e_doesnt_add_up", said)
    assert [m.concepts for m in a.fixes] == [("cuda_graphs",), ("torch_compile",)]
    iffy = ("1. Regime: overhead-bound.\n2. Fix: CUDA graphs.\n3. A colleague suggested raising the batch. "
            "I agree, if the users can accept slightly higher latency.\n")
    a = read_body(grader, tmp_path, "e_doesnt_add_up", iffy)
    assert "raise_batch" not in {c for m in a.fixes for c in m.concepts}


def test_a_yaml_defer_verdict_overrides_the_fixes_list(grader, tmp_path):
    """sealed290 e.s2922 and sealed296 e.s2982 (instructors 100, graded 62 and 67 with int8
    recommended): 'fixes:' lists int8 with a 'when:' the format does not define, and 'verdicts:
    {quantize_int8: defer}' puts it later: the verdict is the student's."""
    p = tmp_path / "e.yaml"
    p.write_text("case: e_doesnt_add_up\nstudent: s1\nregime: launch_overhead_bound\nfixes:\n"
                 "  - {lever: cuda_graphs, why: one submission for hundreds of launches}\n"
                 "  - {lever: quantize_int8, when: same, after graphs and compile}\n"
                 "verdicts: {quantize_int8: defer}\n", encoding="utf-8")
    a = read_answer(p, grader.concepts, 1 << 20, p.read_text(encoding="utf-8"))
    assert "quantize_int8" not in {c for m in a.fixes for c in m.concepts}
    assert "quantize_int8" in {c for m in a.deferred for c in m.concepts}


def test_not_a_good_use_of_time_refuses(grader, tmp_path):
    """sealed294 b.s2964 (instructor 5, graded 30 with hand fusion recommended): '... so spending two
    weeks hand-fusing them (the first engineer's plan) is not a good use of time.'"""
    said = ("The run is compute-bound at 61% of peak.\n\nThe kernels come to only 22%, so spending two weeks "
            "hand-fusing them (the first engineer's plan) is not a good use of time.\n")
    a = read_body(grader, tmp_path, "b_training_run", said)
    assert "hand_fused_kernels" not in {c for m in a.fixes for c in m.concepts}
    assert "hand_fused_kernels" in {c for m in a.rejects for c in m.concepts}

"""Reading rules found in sealed156-161 after their one measurement (issue 27), each with the
answer that showed it."""

from __future__ import annotations

from conftest import read_body


def _rejected(a) -> set[str]:
    return {c for m in a.rejects for c in m.concepts}


def test_names_listed_after_their_asides_share_the_verdict(grader, tmp_path):
    """sealed159 c.s1612 (instructor 100, graded 85): 'Reject: batching (...; more work, longer
    TTFT), weight quant (16 GB over 25k tokens is nothing).' The aside, semicolon and all, ends the
    first clause; the name after it and a comma is the verdict's next object."""
    body = ("Regime: prefill, compute-bound.\nReject: batching (TTFT of one long prompt; more work, longer "
            "TTFT), weight quant (16 GB over 25k tokens is nothing).\n")
    a = read_body(grader, tmp_path, "c_document_summarizer", body)
    assert {"raise_batch", "quantize_int8"} <= _rejected(a)


def test_a_name_after_a_quoted_claim_and_its_aside_is_rejected_too(grader, tmp_path):
    """sealed160 b.s1624 (instructor 100, graded 85): the second engineer's quoted claim, its
    refutation in brackets, then '; attention fusion (already flash, 7% cap)'."""
    body = ("Regime: compute-bound.\nReject: engineer 2's \"compute-bound ⇒ memory ops irrelevant\" "
            "(it's about the FLOP kernels, not zero-FLOP ones); attention fusion (already flash, 7% cap).\n")
    assert "fuse_attention" in _rejected(read_body(grader, tmp_path, "b_training_run", body))


def test_an_aside_that_recommends_ends_the_list(grader, tmp_path):
    """The clause after the aside must be only names: 'batching (adds latency), int8 would help
    though' refuses batching alone."""
    body = ("Regime: prefill, compute-bound.\n"
            "Reject: batching (adds latency), int8 weights would help though.\n")
    got = _rejected(read_body(grader, tmp_path, "c_document_summarizer", body))
    assert "raise_batch" in got and "quantize_int8" not in got


YAML_MFU = ("regime: compute_bound\nmfu: 0.61\nevidence:\n"
            "  - {figure: tokens per pass, value: 8 x 4096 = 32768}\n"
            "fixes:\n  - {lever: torch_compile, reason: fuses the norms and activations}\n")


def test_a_figure_under_a_key_the_format_lacks_is_still_stated(grader, tmp_path):
    """sealed161 b.s1634 (instructor 100, graded 85): 'mfu: 0.61' is the 61% of peak the
    instructor credits; the key is named in the feedback, its figure counts as evidence."""
    a = read_body(grader, tmp_path, "b_training_run", YAML_MFU, name="x.yaml")
    assert any(abs(s.q.value - 0.61) < 1e-9 for s in a.numbers), a.numbers
    assert any("'mfu'" in n and "figures were read" in n for n in a.notes), a.notes
    from conftest import answer_file
    result = grader.grade(answer_file(tmp_path, "b_training_run", YAML_MFU, name="y.yaml"))
    evidence = next(p for p in result.parts if p.part.startswith("evidence"))
    assert not any("61%" in f for f in evidence.feedback), evidence.feedback


def test_a_mapping_two_levels_under_a_key_the_format_lacks_is_not_graded(grader, tmp_path):
    """A key's own text, or the texts of a mapping under it, are read for figures (sealed408
    d.s4102: 'int4_note: {capacity: frees about 51 GB}', credited by its instructor); anything
    deeper is left out."""
    body = "regime: compute_bound\nextra: {a: {mfu: 0.61}}\n"
    a = read_body(grader, tmp_path, "b_training_run", body, name="x.yaml")
    assert not a.numbers and any("not graded" in n for n in a.notes), (a.numbers, a.notes)


VENDOR_ESSAY = (
    "The vendor's pitch, as relayed to me: \"int4 will give you up to 4x more tokens per second.\" That's "
    "true for the workload the vendor is picturing - bandwidth-bound decode at small batch - and false for "
    "ours.\n\nLook at the profile: 71% of peak FLOP rate, 30% of peak bandwidth. We're compute-bound; "
    "batching has already done its job.\n\nAnd pushing the batch much beyond 256 won't pay: past the ridge "
    "it adds time in proportion to the work.\n")


def test_a_speaker_label_may_say_how_it_was_relayed(grader):
    """sealed157 d.s1599 (instructor 100, graded 23.4): "The vendor's pitch, as relayed to me:"
    names the speaker before the quotation; 'to' after the speaker does not address anyone, as
    'Note to the director:' does before any speaker."""
    from conftest import lever_statuses
    said = "The vendor's pitch, as relayed to me: \"int4 will give you 4x more tokens per second.\""
    assert lever_statuses(grader, said)["quantize_int4"] == "attributed"
    note = "Note to the director: \"int4 is the way to go.\""
    assert lever_statuses(grader, note)["quantize_int4"] == "affirmed"


def test_we_are_states_the_verdict_over_a_regime_pictured_earlier(grader, tmp_path):
    """The same essay: the vendor's 'bandwidth-bound decode' comes first, 'We're compute-bound'
    is the student's verdict; 'won't pay' after the batch refuses it."""
    a = read_body(grader, tmp_path, "d_high_throughput_api", VENDOR_ESSAY)
    assert a.regime == "compute_bound", a.regime
    assert {"quantize_int4", "raise_batch"} <= _rejected(a), a.rejects


def test_agreeing_before_a_colon_endorses_a_claim_that_is_negative_in_itself(grader, tmp_path):
    """sealed158 b.s1607 (instructor 2, graded 27.5): "I agree with the second engineer: ... the
    memory-bound kernels are not what's limiting it" endorses the claim; its 'not' belongs to the
    claim, after the colon, and did read as a refusal. A refusal before the colon still refuses,
    and "I agree with the diagnosis but not with the plan" agrees with no one."""
    claim = "memory_ops_irrelevant_when_compute_bound"
    body = ("We're compute bound at 61% of peak. I agree with the second engineer: once a step is "
            "compute-bound, the memory-bound kernels are not what's limiting it, so hand-tuning them is "
            "wasted effort.\n")
    a = read_body(grader, tmp_path, "b_training_run", body)
    assert claim in a.endorsed and claim not in _rejected(a), (a.endorsed, a.rejects)
    mixed = ("The second engineer says \"we're compute-bound, so the memory-bound stuff doesn't matter.\" "
             "I agree with the diagnosis but not with the plan.\n")
    assert claim not in read_body(grader, tmp_path, "b_training_run", mixed).endorsed


def test_tensor_parallelism_is_a_lever_of_its_own_charged_as_an_extra(grader, tmp_path):
    """Issue 27 class 6: "add GPUs with tensor parallel" for case A got a did-you-mean, and 27
    dev answers' tensor parallelism was guessed as int8, int4, chunked prefill or a bigger GPU
    (sealed133 a.s1358: "Split the model across two MI300X with tensor parallelism", read as
    nothing, then as the closest lever). levers.yaml names it; recommended where no rule asks
    for it, it is an unsupported extra, as the blind grades charge it (-4)."""
    from conftest import answer_file
    body = ("## Regime\nBandwidth-bound decode.\n\n## Fixes\n1. Continuous batching so users share the "
            "weight read.\n2. Split the model across two GPUs with tensor parallelism to double the "
            "aggregate bandwidth.\n")
    a = read_body(grader, tmp_path, "a_chatbot", body)
    assert any("tensor_parallel" in m.concepts for m in a.fixes), a.fixes
    assert not any("quantize_int8" in m.concepts or "quantize_int4" in m.concepts for m in a.fixes)
    result = grader.grade(answer_file(tmp_path, "a_chatbot", body, name="y.md"))
    assert any("tensor parallel" in p.feedback for p in result.penalties), result.penalties


def test_a_bold_label_naming_a_lever_takes_the_refusal_after_it(grader, tmp_path):
    """sealed167 b.s1693 (instructor 100, graded 46.7), a numbered answer read as a plan of fixes:
    '7. **Fusing attention.** Probably not worth it - it's flash-attention already at 7%'. Each
    sentence is judged on its own there, so the bare label was a fix; a refusal opening the next
    sentence is the label's verdict, as 'Name: verdict' is. A label followed by a sentence that
    does not refuse stays as read."""
    body = ("1. **Regime.** Compute-bound (MFU 61%).\n"
            "7. **Fusing attention.** Probably not worth it - it is flash-attention already at 7%.\n")
    a = read_body(grader, tmp_path, "b_training_run", body)
    assert "fuse_attention" in _rejected(a) and not any("fuse_attention" in m.concepts for m in a.fixes)
    kept = "1. **Regime.** Compute-bound.\n2. **torch.compile.** It fuses the small kernels for free.\n"
    a = read_body(grader, tmp_path, "b_training_run", kept)
    assert any("torch_compile" in m.concepts for m in a.fixes), a.fixes

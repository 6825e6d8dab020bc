"""Readings from the spent blind sets after sealed99 (issue 27): a table with no verdict column
whose "why" cell holds the verdict ("| 3 | Quantize weights | not until the gaps are gone |"), and
a deferral whose condition names a regime ("Raise batch: not until it is really bandwidth-bound")."""

from __future__ import annotations

from conftest import read_body


def _ids(mentions) -> list[tuple[str, ...]]:
    return [m.concepts for m in mentions]


E_PLAN = ("## Plan\n\n| Step | What | Why |\n|---|---|---|\n"
          "| 1 | CUDA graphs | launch the whole step at once |\n"
          "| 2 | torch.compile | fuse small kernels, fewer launches |\n"
          "| 3 | Quantize weights | not until the gaps are gone |\n")


def test_a_why_cell_opening_with_a_deferral_is_the_rows_verdict(grader, tmp_path):
    """sealed94 e.s965 (instructor 80, graded 27.5 with both traps charged): the third row defers
    the quantization; the first two rows' reasons stay reasons and their levers stay fixes."""
    a = read_body(grader, tmp_path, "e_doesnt_add_up", E_PLAN)
    assert ("quantize_int4", "quantize_int8") not in _ids(a.fixes)
    assert _ids(a.fixes) == [("cuda_graphs",), ("torch_compile",)]


def test_a_cell_saying_what_a_fix_avoids_is_no_verdict(grader, tmp_path):
    """sealed24 c.s269 (instructor 100): "| 1 | FlashAttention | no materialized scores |" is the
    fix's reason; "| quantize now | no, idle time isn't fixed by fewer bytes |" (sealed87 e.s897)
    refuses its row."""
    fix = ("## Fixes\n| order | fix | reason |\n|---|---|---|\n"
           "| 1 | FlashAttention | no materialized scores |\n")
    assert ("flash_attention",) in _ids(read_body(grader, tmp_path, "c_document_summarizer", fix).fixes)
    refused = ("## Plan\n| step | action | why |\n|---|---|---|\n| 1 | CUDA graphs | one submission |\n"
               "| – | quantize now | no, idle time isn't fixed by fewer bytes |\n")
    a = read_body(grader, tmp_path, "e_doesnt_add_up", refused)
    assert not {("quantize_int4", "quantize_int8"), ("quantize_int8",)} & set(_ids(a.fixes))


def test_a_deferral_whose_condition_names_a_regime_defers_the_name_before_it(grader, tmp_path):
    """sealed94 e.s965: "Raise batch: not until it is really bandwidth-bound" waits for the regime
    it names; "Overhead-bound: neither bandwidth nor compute is saturated" (sealed28 e.s307) still
    denies what follows its colon, not its head."""
    body = "## Fixes\n1. CUDA graphs\n2. Raise batch: not until it is really bandwidth-bound\n"
    a = read_body(grader, tmp_path, "e_doesnt_add_up", body)
    assert ("raise_batch",) not in _ids(a.fixes)
    said = "## Regime\nOverhead-bound: neither bandwidth (14%) nor compute (3%) is saturated.\n"
    assert read_body(grader, tmp_path, "e_doesnt_add_up", said).regime == "overhead_bound"


def test_a_verdict_cell_status_the_reader_lacks_is_a_located_error(grader, tmp_path):
    """A site context.yaml naming a status that does not exist under `verdict_cells`."""
    import pytest

    from regime.core.errors import RegimeError
    from regime.engine.grading.triggers import load_triggers
    bad = tmp_path / "context.yaml"
    bad.write_text("statuses: {negated: {forward: [not]}}\nverdict_cells: [negated, refused]\n",
                   encoding="utf-8")
    with pytest.raises(RegimeError, match="unknown status 'refused'") as e:
        load_triggers(bad, grader.concepts)
    assert e.value.field == "verdict_cells" and e.value.file == str(bad)


C_PLAN = ("Prefill is the problem: 40 GB of scores per layer, compute-bound work at 20% of peak.\n\n"
          "| step | fix | when |\n|---|---|---|\n"
          "| 1 | FlashAttention (tiled, scores stay on-chip) | now |\n"
          "| 2 | chunked prefill | when long prompts share the GPU with other users' decode |\n"
          "| – | batch the prefills | no — already compute-bound at one sequence, TTFT gets worse |\n")


def test_a_plan_table_in_an_essay_recommends_its_rows(grader, tmp_path):
    """sealed102 c.s1050 (instructor 100, graded 70 with no fix read): an essay's '| step | fix |
    when |' table is its Fixes, row by row; the 'no —' row refuses its lever."""
    a = read_body(grader, tmp_path, "c_document_summarizer", C_PLAN)
    assert _ids(a.fixes) == [("flash_attention",), ("chunked_prefill",)]
    assert ("raise_batch",) in _ids(a.rejects)


def test_a_table_with_a_verdict_column_is_no_plan(grader, tmp_path):
    """'| Item | Verdict | Why |' with a 'Regime' row (sealed84 a.s864): the regime row still
    states the regime in an answer with no headings."""
    body = ("| Item | Verdict | Why |\n|---|---|---|\n"
            "| Regime | bandwidth-bound decode | 78% of peak BW vs 4% of peak FLOPs |\n"
            "| Continuous batching | Yes, first | weights are read once for the whole batch |\n")
    assert read_body(grader, tmp_path, "a_chatbot", body).regime == "bandwidth_bound"


def test_a_list_of_names_before_a_condition_takes_the_condition(grader, tmp_path):
    """sealed105 e.s1077 (instructor 97, graded 52.5 with both traps charged): "| 4 | batching,
    int8 weights | only if step 3 shows it's really bandwidth-bound |" is 'batching, int8 weights:
    only if ...'; "int8 quantization: int8 has twice the TOPS" (sealed59 a.s619) keeps its fix."""
    body = ("## Fixes\n1. CUDA graphs\n"
            "2. batching, int8 weights: only if step 3 shows it's really bandwidth-bound\n")
    a = read_body(grader, tmp_path, "e_doesnt_add_up", body)
    assert not {("continuous_batching", "raise_batch"), ("quantize_int8",)} & set(_ids(a.fixes))
    said = "## Fixes\n1. int8 quantization: int8 has twice the TOPS of fp16, so the GEMMs finish faster.\n"
    assert ("quantize_int8",) in _ids(read_body(grader, tmp_path, "a_chatbot", said).fixes)


def test_a_plan_rows_step_number_does_not_hide_an_aside(grader, tmp_path):
    """sealed105 e.s1077: '| 3 | re-measure vs 215 tok/s | after 1–2 |' comments on the fixes; it
    names no lever to guess at (it was 'did you mean flash_attention?')."""
    body = ("## Fixes\n| step | fix | when |\n|---|---|---|\n| 1 | CUDA graph capture | now |\n"
            "| 2 | re-measure vs 215 tok/s | after 1 |\n")
    assert not read_body(grader, tmp_path, "e_doesnt_add_up", body).unread


def test_a_regime_where_a_lever_pays_across_an_aside_is_not_the_verdict(grader, tmp_path):
    """sealed106 d.s1082 and sealed103 d.s1051 (instructor 100 each, graded bandwidth-bound, 65.9):
    "Int4 gives a big win (up to ~4×) on bandwidth-bound decode" says where int4 pays across its
    aside; "30% of peak HBM bandwidth — the inverse of a bandwidth-bound decode loop" denies it."""
    for said in ("The vendor's pitch is about bytes. Int4 gives a big win (up to ~4×) on bandwidth-bound "
                 "decode, roughly batch 1 to ~32. We're compute-bound at batch 256.\n",
                 "We are at 71% of peak FLOP rate and 30% of peak HBM bandwidth — the inverse of a "
                 "bandwidth-bound decode loop. We are compute-bound.\n"):
        assert read_body(grader, tmp_path, "d_high_throughput_api", said).regime == "compute_bound"


def test_a_numbered_list_of_levers_in_an_essay_is_its_fixes(grader, tmp_path):
    """sealed101 a.s1040: 'On the software side:' over '1. Continuous batching so that several chats
    share one decode step.' - numbered steps that open with a lever are recommendations."""
    body = ("The profiler says 4% of FLOPs and 78% of bandwidth, so this is bandwidth-bound decode.\n\n"
            "On the software side:\n1. Continuous batching so that several chats share one decode step.\n"
            "2. Move to int8, which halves the bytes.\n")
    a = read_body(grader, tmp_path, "a_chatbot", body)
    assert ("continuous_batching",) in _ids(a.fixes) and ("quantize_int8",) in _ids(a.fixes)


def test_a_quoted_suggestion_is_someone_elses_until_the_student_takes_it_up(grader, tmp_path):
    """sealed101 a.s1040 (instructor 56, graded 9.2 with the fusion charged as recommended):
    'Someone suggested "just fuse the elementwise ops".' reports it; sealed105 a.s1076 ('... and I
    think they're right', instructor 32 for recommending the fusion) takes it up."""
    reported = 'Someone suggested "just fuse the elementwise ops". It is a rounding error here.\n'
    assert ("fuse_elementwise",) not in _ids(read_body(grader, tmp_path, "a_chatbot", reported).fixes)
    from conftest import lever_statuses
    taken = 'Someone on the team suggested "fuse the elementwise ops" and I think they\'re right.'
    assert lever_statuses(grader, taken)["fuse_elementwise"] == "affirmed"
    # the next sentence refutes what was reported ('a rounding error' refuses, a8d8eae)
    assert lever_statuses(grader, reported)["fuse_elementwise"] == "negated"
    assert lever_statuses(grader, reported.split(".")[0] + ".")["fuse_elementwise"] == "attributed"


def test_a_regime_label_in_an_essay_states_the_verdict(grader, tmp_path):
    """sealed106 d.s1088: "That's true at batch 1 to a few dozen, where decode is bandwidth-bound.
    ... Regime: compute-bound." - the labelled line is the verdict."""
    body = ('The vendor claims "int4 gives up to 4x decode throughput." That\'s true at batch 1 to a few '
            "dozen, where decode is bandwidth-bound. It isn't true for us.\n\nRegime: compute-bound.\n")
    assert read_body(grader, tmp_path, "d_high_throughput_api", body).regime == "compute_bound"


def test_a_nominal_regime_in_parentheses_is_no_second_verdict(grader, tmp_path):
    """sealed102 e.s1047 (instructor 100, graded 65 with no regime): "Launch/overhead-bound.
    Nominally it's batch-1 decode (bandwidth-bound), but ... nothing is saturated." commits to
    overhead-bound and names the nominal regime beside it."""
    body = ("## Regime\nLaunch/overhead-bound. Nominally it's batch-1 decode (bandwidth-bound), but at 14% "
            "of bandwidth and 3% of FLOPs nothing is saturated.\n")
    a = read_body(grader, tmp_path, "e_doesnt_add_up", body)
    assert (a.regime, a.nominal_regime) == ("overhead_bound", "bandwidth_bound")


def test_holding_off_defers_and_both_miss_refuses_what_follows(grader, tmp_path):
    """sealed105 e.s1072 ('I would hold off on batching or quantization, because those attack
    bandwidth', instructor 80, graded 40 with both traps charged) and sealed102 a.s1043 ('So the
    two suggestions on the table both miss. Fusing the elementwise kernels doesn't change the
    weight read, ...', instructor 100, graded 65 with the fusion charged)."""
    from conftest import lever_statuses
    held = "I would hold off on batching or quantization, because those attack bandwidth."
    assert set(lever_statuses(grader, held).values()) == {"deferred"}
    body = ("So the two suggestions on the table both miss. Fusing the elementwise kernels doesn't change "
            "the weight read. And a bigger-FLOPs GPU is buying the one resource we're leaving 96% idle.\n")
    a = read_body(grader, tmp_path, "a_chatbot", body)
    assert {("fuse_elementwise",), ("buy_more_flops",)} <= set(_ids(a.rejects))


def test_instead_alone_refuses_nothing_instead_of_does(grader):
    """sealed104 a.s1063 (instructor 94, graded 61.8 with continuous batching read as rejected):
    "What I would do instead is start batching." The filler word 'of' was dropped from the
    trigger 'instead of', so 'instead' alone refused what followed it."""
    from conftest import lever_statuses
    assert lever_statuses(grader, "What I would do instead is start batching.")["continuous_batching"] == \
        "affirmed"
    assert lever_statuses(grader, "Use continuous batching instead of raising the batch.") == {
        "continuous_batching": "affirmed", "raise_batch": "negated"}


def test_same_for_judges_a_lever_as_the_one_before(grader):
    """sealed104 a.s1063: 'I don't think that is worth anyone's week: ... even a perfect fusion
    would not show up in tokens/s. Same for the idea of moving to a GPU with more FLOP/s'."""
    from conftest import lever_statuses
    said = ("Someone suggested fusing the elementwise ops. I don't think that is worth anyone's week: even "
            "a perfect fusion would not show up in tokens/s. Same for the idea of moving to a GPU with "
            "more FLOP/s — we use 4% of the current one.")
    assert lever_statuses(grader, said)["buy_more_flops"] == "negated"
    kept = "Start with CUDA graphs. Same for torch.compile: it cuts the kernel count."
    assert lever_statuses(grader, kept)["torch_compile"] == "affirmed"


def test_a_compound_is_two_words(grader, tmp_path):
    """A site concepts.yaml with a one-word compound is a located error."""
    import pytest

    from regime.core.errors import RegimeError
    from regime.engine.grading.concepts import load_concepts
    site = tmp_path / "concepts.yaml"
    site.write_text("compounds: [instead]\n", encoding="utf-8")
    with pytest.raises(RegimeError, match="a compound is two words") as e:
        load_concepts(grader.k, [grader_concepts_file(), site])
    assert str(site) in str(e.value)


def grader_concepts_file():
    from pathlib import Path
    return Path(__file__).resolve().parent.parent / "rules" / "grading" / "concepts.yaml"


def test_tokens_per_pass_and_no_math_tie_their_figures(grader, tmp_path):
    """sealed105 b.s1072 (instructor 91, graded 64.2 with both decisive figures missing): "With
    tokens/pass = 8 x 4096 = 32,768 we're far beyond the point ..." and "That is 22% of the step
    in kernels that do next to no math"."""
    from pathlib import Path

    from regime.engine.grading.stated import stated as _stated
    body = ("The step runs at 61% of peak FLOP rate, so it is compute-bound. That is 22% of the step in "
            "kernels that do next to no math. With tokens/pass = 8 x 4096 = 32,768 we're far beyond the "
            "point where elementwise traffic exceeds the weight read.\n")
    a = read_body(grader, tmp_path, "b_training_run", body)
    key = grader.key_for_case(Path(__file__).resolve().parent.parent / "cases" / "b_training_run.yaml")
    tol = grader.rubric.evidence.relative_tolerance
    for name in ("tokens_per_pass", "zero_flop_share"):
        assert _stated(a, key.figures[name], tol, grader.concepts, key) is True, name


def test_leaving_a_lever_alone_refuses_it(grader):
    """sealed107 a.s1093 (instructor 95, graded 46.8 with the fusion charged as recommended): "I
    would leave the elementwise-fusion idea alone: those ops are a rounding error"."""
    from conftest import lever_statuses
    said = "I would leave the elementwise-fusion idea alone: those ops are a rounding error."
    assert lever_statuses(grader, said)["fuse_elementwise"] == "negated"


def test_i_would_only_x_if_makes_x_conditional(grader):
    """sealed107 c.s1100 (instructor 95, graded 70.5 with int8 charged as recommended): "I would
    only quantize the weights if the weight read were the bottleneck, which ... it clearly isn't"."""
    from conftest import lever_statuses
    said = ("I would only quantize the weights if the weight read were the bottleneck, which at 25,000 "
            "tokens per pass it clearly isn't.")
    assert lever_statuses(grader, said)["quantize_int8"] != "affirmed"


def test_a_paragraph_labelled_with_a_section_name_is_that_sections_item(grader, tmp_path):
    """sealed65 b.s677 (instructor 88, graded 74.2): a memo's 'Recommendation: start with
    torch.compile ... Look separately at to_copy, which smells like an fp32 upcast inside the
    norm.' - every lever of the labelled paragraph is read as under Fixes."""
    body = ("We're at 61% MFU, so the step is compute-bound in aggregate.\n\n"
            "Recommendation: start with torch.compile rather than two weeks of hand-written kernels. Look "
            "separately at to_copy, which smells like an fp32 upcast inside the norm.\n")
    a = read_body(grader, tmp_path, "b_training_run", body)
    assert ("fix_dtype_casts",) in _ids(a.fixes)


def test_neither_resource_is_busy_names_the_idle_regime(grader, tmp_path):
    """sealed65 e.s672 (instructor 100, graded 76 as bandwidth-bound): "This one looks like
    bandwidth-bound decode on paper — ... — but the profile says neither resource is busy: 14% of
    bandwidth and 3% of compute." ('nothing is saturated' was an alias; its siblings were not.)"""
    body = ("This one looks like bandwidth-bound decode on paper, with a ceiling of 215 tokens/s, but the "
            "profile says neither resource is busy: 14% of bandwidth and 3% of compute.\n")
    assert read_body(grader, tmp_path, "e_doesnt_add_up", body).regime == "overhead_bound"


def test_a_lever_named_with_its_profile_share_reads_the_profile(grader, tmp_path):
    """sealed107 b.s1091 (instructor 100, graded 83.2 with the casts first): "layer_norm (8%),
    add/mul/silu (9%) and to_copy (5%) add up to 22% of kernel time" reads the profile, so the
    dtype casts are not a fix ahead of torch.compile; "int8 weights (13 GB)" is still a fix."""
    body = ("Compute-bound at 61%. Look at the kernel breakdown. layer_norm (8%), add/mul/silu (9%) and "
            "to_copy (5%) add up to 22% of kernel time.\n\nWhat I'd do, in order: first turn on "
            "torch.compile. Second, look at to_copy on its own: an fp32 upcast inside RMSNorm.\n")
    a = read_body(grader, tmp_path, "b_training_run", body)
    assert _ids(a.fixes)[:2] == [("torch_compile",), ("fix_dtype_casts",)]
    kept = "Batch-1 decode is bandwidth-bound. I would use int8 weights (13 GB) so each token reads half.\n"
    assert ("quantize_int8",) in _ids(read_body(grader, tmp_path, "a_chatbot", kept).fixes)


def test_no_real_math_ties_the_zero_flop_share(grader, tmp_path):
    """sealed105 b.s1076: "22% of the step is spent in kernels that do no real math"."""
    from pathlib import Path

    from regime.engine.grading.stated import stated as _stated
    body = "Compute-bound (61% MFU), but 22% of the step is spent in kernels that do no real math.\n"
    a = read_body(grader, tmp_path, "b_training_run", body)
    key = grader.key_for_case(Path(__file__).resolve().parent.parent / "cases" / "b_training_run.yaml")
    assert _stated(a, key.figures["zero_flop_share"], grader.rubric.evidence.relative_tolerance,
                   grader.concepts, key) is True


def test_a_time_per_token_states_the_rate_it_inverts(grader, tmp_path):
    """sealed106 a.s1090 (instructor 94, graded 78.7 with the ceiling missing): "26 GB / 5.3 TB/s =
    4.9 ms per token minimum" is the 204 tokens/s ceiling; a bare time ('6 ms') is no rate."""
    from pathlib import Path

    from regime.engine.grading.figures import Quantity, reciprocal
    from regime.engine.grading.stated import stated as _stated
    body = "## Evidence\n- 26 GB / 5.3 TB/s = 4.9 ms per token minimum at batch 1.\n"
    a = read_body(grader, tmp_path, "a_chatbot", body)
    key = grader.key_for_case(Path(__file__).resolve().parent.parent / "cases" / "a_chatbot.yaml")
    assert _stated(a, key.figures["weight_ceiling_tokens_per_s"], grader.rubric.evidence.relative_tolerance,
                   grader.concepts, key) is True
    assert reciprocal(Quantity(6.0, "ms", 0.5, "6 ms"), "token/s") is None


def test_agreeing_before_a_quotation_takes_it_up(grader, tmp_path):
    """sealed106 b.s1083 (instructor 1, graded 21.8): 'The second engineer has it right: "we're
    compute-bound, so memory-bound ops don't matter."' endorses the claim it quotes."""
    body = ('Compute-bound at 61%. The second engineer has it right: "we\'re compute-bound, so memory-bound '
            'ops don\'t matter." The GEMMs are the bottleneck.\n')
    a = read_body(grader, tmp_path, "b_training_run", body)
    assert "memory_ops_irrelevant_when_compute_bound" in a.endorsed


def test_a_comma_in_an_asides_text_joins_back_onto_it(grader, tmp_path):
    """sealed105 d.s1072 (instructor 96, graded 80.9 with the intensity and ridge unread): a YAML
    evidence entry `{figure: arithmetic_intensity, value: 256 FLOP/byte, note: batch 256 in fp16,
    ridge 247}` - the comma split 'ridge 247' off the note as a key with no value."""
    body = ("student: x\nregime: compute-bound\nevidence:\n"
            "  - {figure: flop_util, value: 71%}\n"
            "  - {figure: arithmetic_intensity, value: 256 FLOP/byte, note: batch 256 in fp16, ridge 247}\n"
            "fixes: [fp8_gemm]\n")
    a = read_body(grader, tmp_path, "d_high_throughput_api", body, name="x.yaml")
    assert not a.unread
    assert any(s.q.value == 247 for s in a.numbers)

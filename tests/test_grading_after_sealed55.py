"""Readings and scoring rules from the blind sets sealed56-59 after their one measurement
(issue 27): YAML verdicts in the student's own words."""

from __future__ import annotations

from conftest import answer_file, read_body

_B = ("regime: compute_bound\nfixes:\n  - torch_compile\n"
      "  - {lever: hand_fused_kernels, bound: only if a gap remains}\nverdicts: VERDICTS\n")


def _verdicts(grader, tmp_path, said: str):
    return read_body(grader, tmp_path, "b_training_run", _B.replace("VERDICTS", said), "v.yaml")


def test_a_verdict_in_words_reads_as_fix_reject_or_later(grader, tmp_path):
    """sealed59 b.s612 (instructor 93) wrote `{hand_fused_kernels: adopt, fuse_attention: reject}`
    and e.s620 (95) `{raise_batch: defer}`: both were refused whole."""
    a = _verdicts(grader, tmp_path, "{hand_fused_kernels: adopt, fuse_attention: reject}")
    assert a.verdicts == {"hand_fused_kernels": "fix", "fuse_attention": "reject"}
    assert not a.unread
    later = _verdicts(grader, tmp_path, "{hand_fused_kernels: not yet}")
    said = later.deferred[-1]
    assert said.concepts == ("hand_fused_kernels",) and said.later and said.reason == "not yet"
    maybe = _verdicts(grader, tmp_path, "{fuse_attention: maybe}")
    assert [m.concepts for m in maybe.hedged] == [("fuse_attention",)]
    no = _verdicts(grader, tmp_path, "{fuse_attention: \"no, already flash\"}")
    assert no.verdicts == {"fuse_attention": "reject"}


def test_an_unreadable_verdict_costs_that_verdict_only(grader, tmp_path):
    """docs/grading.md: one bad item costs only that item; the rest of the answer is graded."""
    path = answer_file(tmp_path, "b_training_run",
                       _B.replace("VERDICTS", "{fuse_attention: banana, hand_fused_kernels: fix}"), "u.yaml")
    r = grader.grade(path)
    assert r.graded and r.score > 0
    said = " ".join(line for p in r.parts for line in p.feedback)
    assert "could not read this verdict: 'banana'" in said


def test_a_deferred_verdict_on_a_lever_refused_for_now_is_its_rejection(grader, tmp_path):
    """sealed59 e.s620: `{raise_batch: defer}` for the overhead-bound case, whose key refuses
    batching only until the gaps are gone, is that rejection."""
    body = ("regime: overhead_bound\nfixes: [cuda_graphs, torch_compile]\n"
            "verdicts: {raise_batch: defer}\n")
    r = grader.grade(answer_file(tmp_path, "e_doesnt_add_up", body, "e.yaml"))
    assert r.graded
    assert not r.penalties
    rejections = next(p for p in r.parts if p.part == "rejections")
    assert rejections.points > 0


def _memo(grader, tmp_path, body: str):
    return grader.grade(answer_file(tmp_path, "d_high_throughput_api", body, "memo.md"))


_MEMO = ("Our API decodes at batch 256, and the profiler shows 71% of peak FLOP rate against only 30% of "
         "peak bandwidth. The back-of-envelope agrees: at batch 256 in fp16 each weight byte fetched does "
         "roughly 256 FLOPs, and the ridge point is 247 FLOP/byte, so we are past the crossover and "
         "compute-bound.\n\n"
         "Int4's ~4x shows up on bandwidth-bound decode, batch 1 to about 32.\n")


def test_a_concluding_clause_is_the_verdict_whatever_frame_opened_it(grader, tmp_path):
    """sealed57 d.s592 (instructor 100): 'The back-of-envelope agrees: ..., so we are past the
    crossover and compute-bound' is the verdict, not the nominal regime; the later sentence on
    where int4 pays ('bandwidth-bound decode') is not."""
    a = read_body(grader, tmp_path, "d_high_throughput_api", _MEMO)
    assert a.regime == "compute_bound"


def test_a_rate_in_words_is_the_rate(grader, tmp_path):
    """sealed57 d.s592 and fourteen earlier director memos: 'each weight byte fetched does roughly
    256 FLOPs' states the 256 FLOP/byte intensity; the same count with no per-byte words does not."""
    evidence = next(p for p in _memo(grader, tmp_path, _MEMO).parts if p.part == "evidence")
    assert evidence.points == evidence.max_points
    bare = _MEMO.replace("each weight byte fetched does roughly 256 FLOPs", "the GEMMs do 256 FLOPs")
    evidence = next(p for p in _memo(grader, tmp_path, bare).parts if p.part == "evidence")
    assert evidence.points < evidence.max_points


def test_a_paragraph_on_a_refused_lever_argues_its_refusal(grader, tmp_path):
    """sealed57 d.s592: 'On the vendor's int4 pitch: not for this endpoint.' refuses int4; its
    reason is the paragraph that discusses int4 later ('Int4 reduces bytes. Bytes are not what we
    are short of - bandwidth is 70% idle ...'), not the refusal's own words."""
    head = "To the director, on the vendor's int4 pitch: not for this endpoint.\n\n"
    why = ("Int4 reduces bytes. Bytes are not what we are short of - bandwidth is 70% idle - so the win is "
           "bounded by the small fraction of time that is memory-stalled.\n")
    memo = _MEMO.split("\n\n")[0] + "\n"
    argued = _memo(grader, tmp_path, head + memo + "\n" + why)
    bare = _memo(grader, tmp_path, head + memo)
    said = [line for p in bare.parts for line in p.feedback]
    assert any(line.startswith("Right rejection, not its reason: quantize int4") for line in said)
    assert not any("quantize int4" in line for p in argued.parts for line in p.feedback)


_TABLE = ("## Regime\nCompute-bound.\n\n## Proposals\n| option | verdict | reason |\n|---|---|---|\n"
          "| int4 (vendor) | not for throughput | bandwidth is 70% idle; dequant adds compute on the "
          "saturated axis |\n"
          "| fp8 GEMMs | yes | raises the compute ceiling |\n"
          "| batch > 256 | no | past the ridge, only adds latency |\n")


def test_a_verdict_column_judges_its_own_row(grader, tmp_path):
    """sealed57 d.s600 (instructor 100): under '| option | verdict | reason |' the row '| int4
    (vendor) | not for throughput | ... |' refuses int4, as 'Int4: not for throughput.' does, and
    '| batch > 256 | no | ... |' refuses more batch."""
    a = read_body(grader, tmp_path, "d_high_throughput_api", _TABLE)
    assert {c for m in a.rejects for c in m.concepts} == {"quantize_int4", "raise_batch"}
    assert [m.concepts for m in a.fixes] == [("fp8_gemm",)]


def test_a_table_without_a_verdict_column_reads_cell_by_cell(grader, tmp_path):
    """sealed24 c.s269 (instructor 100): under '| order | fix | reason |' the row '| 1 |
    FlashAttention | no materialized scores |' recommends FlashAttention; its reason's 'no' is
    the reason's, not a verdict."""
    body = ("## Fixes\n| order | fix | reason |\n|---|---|---|\n"
            "| 1 | FlashAttention | no materialized scores |\n| 2 | chunked prefill | other users' ITL |\n")
    a = read_body(grader, tmp_path, "c_document_summarizer", body)
    assert [m.concepts for m in a.fixes] == [("flash_attention",), ("chunked_prefill",)]
    assert not a.rejects


_BORROWED = ("## Regime\nBandwidth bound.\n\n## Evidence\n- Ceiling is 215 tok/s and we are 6x below it.\n"
             "- 14% of bandwidth, 3% of FLOPs.\n\n## Fixes\n1. Continuous batching.\n2. Quantize the weights "
             "to int8.\n\n## Reject\n- fusing the elementwise ops\n")


def test_an_answer_on_another_cases_figures_is_charged(grader, tmp_path):
    """sealed50 a.s528 (instructor 41, graded 67.6): case E's figures (215 tok/s, 6x, 14%, 3%)
    under case A. The rubric's `borrowed` penalty names them and their case, and the bare fixes
    take no reason from them."""
    r = grader.grade(answer_file(tmp_path, "a_chatbot", _BORROWED, "b.md"))
    took = [p for p in r.penalties if p.id == "figures_from_another_case"]
    assert len(took) == 1 and took[0].points == grader.rubric.borrowed.points > 0
    assert "215 tok/s" in took[0].feedback and "e_doesnt_add_up" in took[0].feedback
    own = _BORROWED.replace("215 tok/s and we are 6x below it", "204 tok/s and we get 160, 78% of it")
    own = own.replace("14% of bandwidth, 3% of FLOPs", "78% of bandwidth, 4% of FLOPs")
    mine = grader.grade(answer_file(tmp_path, "a_chatbot", own, "own.md"))
    assert not [p for p in mine.penalties if p.id == "figures_from_another_case"]
    assert mine.score > r.score + grader.rubric.borrowed.points


def test_the_exercise_cases_come_from_the_variants_files(tmp_path):
    """The exercise is what rules/grading/variants.yaml lists; a site file that cannot be read
    adds none and stops nothing."""
    from regime.engine.grading.borrowed import exercise_cases
    from regime.engine.grading.grader import GRADING_DIR
    cases = exercise_cases([GRADING_DIR / "variants.yaml"])
    assert "a_chatbot" in cases and "e_doesnt_add_up" in cases
    bad = tmp_path / "variants.yaml"
    bad.write_text("cases: [unclosed\n", encoding="utf-8")
    site = tmp_path / "site.yaml"
    site.write_text("cases:\n  my_case: {}\n", encoding="utf-8")
    assert exercise_cases([GRADING_DIR / "variants.yaml", bad, site]) == [*cases, "my_case"]


def test_names_under_no_verdict_are_a_keyword_list(grader, tmp_path):
    """sealed56 c.s589 (instructor 0): 'Prefill / TTFT / compute-bound / memory-bound' over a
    bullet list of lever names commits to none of them; the same names under a verdict are the
    fixes a terse answer gives."""
    names = "- FlashAttention\n- chunked prefill\n- int8 quantization\n"
    listed = read_body(grader, tmp_path, "c_document_summarizer",
                       "Prefill / TTFT / compute-bound / memory-bound\n\n" + names)
    assert not listed.fixes and listed.stuffed
    terse = read_body(grader, tmp_path, "c_document_summarizer", "Prefill, compute-bound.\n\n" + names)
    assert [m.concepts for m in terse.fixes][:2] == [("flash_attention",), ("chunked_prefill",)]

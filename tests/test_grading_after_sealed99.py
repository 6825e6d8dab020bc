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

"""Rules drawn from the fresh sets sealed174-184 after their one measurement (issue 27): each
with the answer that showed it, the instructor's grade and the grader's before it."""

from __future__ import annotations

from conftest import read_body


def test_a_line_that_is_only_a_sections_name_opens_it_in_a_labelled_memo(grader, tmp_path):
    """sealed175 b.s1776 (instructor 95, graded 45): 'regime - ...' and 'evidence - ...' label a
    terse memo, then 'fixes' and 'reject' stand alone on their lines over the items; they were
    read as more evidence, so every fix and rejection was missing."""
    body = ("regime - compute bound overall (61% of peak flops)\n"
            "evidence - layernorm 8 + elementwise 9 + to_copy 5 = 22%\n"
            "fixes\n1) torch.compile first, fuses exactly these ops\n"
            "2) to_copy 5% = dtype casts, an fp32 upcast not fused back\n"
            "reject\n- fusing attn: already flash, 7% max\n")
    a = read_body(grader, tmp_path, "b_training_run", body)
    assert [m.concepts[0] for m in a.fixes][:2] == ["torch_compile", "fix_dtype_casts"]
    assert any("fuse_attention" in m.concepts for m in a.rejects)

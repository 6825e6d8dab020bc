"""Readings and scoring rules from the spent blind sets sealed100-115 (issue 27), kept as the
sentences students wrote them."""

from __future__ import annotations

from conftest import answer_file


def _feedback(grader, tmp_path, case: str, body: str) -> str:
    r = grader.grade(answer_file(tmp_path, case, body))
    return "\n".join(line for p in r.parts for line in p.feedback)


def test_a_key_fix_put_off_behind_no_earlier_step_is_a_hedge(grader, tmp_path):
    """sealed109 c.s1114 (instructor 2): "Maybe FlashAttention later" after two traps puts off the
    key's first step; the instructors take 13-15 of its points. "Once compile is in, hand-fused
    kernels only if a gap remains" (the worked solution's own order) stays a fix."""
    put_off = ("## Fixes\n1. Batch the prefills: several documents per forward pass.\n"
               "2. int8 weights.\n3. Maybe FlashAttention later.\n")
    assert "Hedged: flash attention" in _feedback(grader, tmp_path, "c_document_summarizer", put_off)
    placed = ("## Fixes\n1. torch.compile the step.\n"
              "2. Later, hand-fused kernels, only if a gap remains.\n")
    assert "Hedged" not in _feedback(grader, tmp_path, "b_training_run", placed)

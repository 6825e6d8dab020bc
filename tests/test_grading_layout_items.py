"""Items and lines as students lay them out (engine/grading/items.py): list items marked by number,
letter or cross, a sub-item under an item for its reason, a list introduced by an item and
indented under it. An instructor grades content, not layout: the same answer with its items laid
out otherwise gets the same grade. Each answer-level test names the answer that showed the rule
(issue 27, found by rewriting strong dev answers' layout only), the instructor's grade and the
grader's on the rewritten answer before the rule."""

from __future__ import annotations

import re

import pytest
from conftest import ROOT, read_body

from regime.engine.grading.items import ITEM, crossed, joined
from regime.engine.grading.labels import steps
from regime.engine.grading.submission import read_answer


@pytest.mark.parametrize(("line", "text"), [
    ("- batching", "batching"), ("1. batching", "batching"), ("1) batching", "batching"),
    ("(1) batching", "batching"), ("a) batching", "batching"), ("(a) batching", "batching"),
    ("b. batching", "batching"), ("• batching", "batching"), ("   - why", "why"),
])
def test_the_marks_of_a_list_item(line, text):
    m = ITEM.match(line)
    assert m is not None and m["text"] == text


@pytest.mark.parametrize("line", ["Batching helps.", "(see above) batching", "ab) x", "1.6x from gaps"])
def test_a_line_that_is_no_item(line):
    assert ITEM.match(line) is None


def test_a_cross_opens_an_item_of_its_own():
    assert crossed("✗ A GPU with more FLOPs: we use 4%")
    assert not crossed("✗") and not crossed("x marks")


def test_a_sub_item_joins_its_parent_as_its_reason():
    assert joined("FlashAttention", "scores stay on-chip") == "FlashAttention — scores stay on-chip"
    assert joined("FlashAttention:", "scores stay on-chip") == "FlashAttention: scores stay on-chip"


def _levers(ms) -> set[str]:
    return {c for m in ms for c in m.concepts}


def test_crossed_lines_among_the_fixes_refuse(grader, tmp_path):
    """sealed4 a.s61 (instructor 100, graded 100) with its Reject items moved under Fixes as '✗ ...'
    lines: each was read as the last fix's next line, and recommended (graded 55)."""
    body = ("## Fixes\n1. Continuous batching: fold requests into the running decode batch.\n"
            "2. int8 weights: 26 → 13 GB, ceiling roughly 408 tok/s.\n"
            "✗ Fusing the norms/RoPE/residual elementwise ops: at batch 1 they move 0.04 % of the bytes.\n"
            "✗ A GPU with more FLOPs: we use 4 % of the FLOPs we already have.\n")
    a = read_body(grader, tmp_path, "a_chatbot", body)
    assert _levers(a.fixes) == {"continuous_batching", "quantize_int8"}
    assert {"fuse_elementwise", "buy_more_flops"} <= _levers(a.rejects)


def test_a_sub_item_gives_its_items_reason(grader, tmp_path):
    """sealed4 c.s61 (instructor 100, graded 100) with each item's reason as a sub-bullet: 'tiles the
    computation so scores never leave on-chip memory', read as an item of its own, refused
    FlashAttention (graded 64)."""
    body = ("## Fixes\n1. FlashAttention\n   - tiles the computation so scores never leave on-chip memory "
            "— removes the 40 GB buffer.\n2. Chunked prefill\n   - split the 25k prompt so it can't hog "
            "the GPU and stall other users' decode.\n\n## Reject\n- Batching the prefills\n"
            "  - one 25k-token prompt is already compute-bound.\n")
    a = read_body(grader, tmp_path, "c_document_summarizer", body)
    assert _levers(a.fixes) == {"flash_attention", "chunked_prefill"}
    assert not {"flash_attention", "chunked_prefill"} & _levers(a.rejects)
    assert "raise_batch" in _levers(a.rejects)


def test_a_list_introduced_by_an_item_ends_where_its_indent_does(grader, tmp_path):
    """sealed168 b.s1702 (instructor 100, graded 94.2; 84.2 once its 'a.' items were read as items):
    '4. Fix order:' over '   a. torch.compile ...' introduces the fixes; '6. Reject the "compute-
    bound so memory ops don't matter" argument', back at the outer list's indent, is no fix."""
    answer = ROOT / "answers/sealed168/b_training_run.s1702_numbered.md"
    a = read_body(grader, tmp_path, "b_training_run", answer.read_text().split("---\n", 2)[2])
    assert "memory_ops_irrelevant_when_compute_bound" in _levers(a.rejects)
    assert "torch_compile" in _levers(a.fixes)


# ---- metamorphic: the same strong answers, their items laid out otherwise ----

STRONG = ["sealed4/a_chatbot.s61_fresh_full.md", "sealed4/c_document_summarizer.s61_fresh_full.md",
          "sealed18/a_chatbot.s203_terse_bullets.md", "sealed171/c_document_summarizer.s1732_terse_25k.md",
          "sealed164/e_doesnt_add_up.s1663_terse_typos.md"]
_MARK = re.compile(r"^(?:[-*+]|\d{1,3}[.)])\s+(?P<text>.*)$")
_SEP = re.compile(r"\s+(?:—|–|-)\s+|:\s+")
_LABEL = re.compile(r"(?i)(don'?t|not|no|skip)$")


def _relabel(text: str, mark) -> str:
    """Each top-level item marked `mark(k)`, k counting from 1 within each run of items."""
    out, k = [], 0
    for line in text.split("\n"):
        m = _MARK.match(line)
        k = k + 1 if m else (k if not line.strip() else 0)
        out.append(f"{mark(k)} {m['text']}" if m else line)
    return "\n".join(out)


def _sub_bullets(text: str) -> str:
    """Each item's reason, after its first dash or colon, as a sub-bullet under it."""
    out = []
    for line in text.split("\n"):
        m = _MARK.match(line)
        sep = _SEP.search(m["text"]) if m else None
        if m and sep and sep.start() > 2 and not _LABEL.match(m["text"][:sep.start()]):
            out += [f"- {m['text'][:sep.start()]}", f"  - {m['text'][sep.end():]}"]
        else:
            out.append(line)
    return "\n".join(out)


def _crossed_into_fixes(text: str) -> str:
    """The Reject section's items moved under Fixes as '✗ ...' lines."""
    head, sep, reject = text.partition("## Reject\n")
    if not sep:
        return text
    crosses = [f"✗ {m['text']}" for line in reject.split("\n") if (m := _MARK.match(line))]
    return head.rstrip("\n") + "\n" + "\n".join(crosses) + "\n"


def _one_line(text: str) -> str:
    """Each run of items (blank lines between them aside) on one line, numbered '1. a 2. b'."""
    out: list[str] = []
    run: list[str] = []
    for line in [*text.split("\n"), "."]:
        m = _MARK.match(line)
        if m:
            run.append(m["text"])
            continue
        if line.strip() or not run:
            if run:
                out.append(" ".join(f"{k}. {t}" for k, t in enumerate(run, 1)))
            run = []
            out.append(line)
    return "\n".join(out[:-1])


STYLES = {
    "one line": _one_line,
    "(1)": lambda t: _relabel(t, lambda k: f"({k})"),
    "a)": lambda t: _relabel(t, lambda k: "abcdefgh"[k - 1] + ")"),
    "sub-bullets": _sub_bullets,
    "✗ lines": _crossed_into_fixes,
}


@pytest.mark.parametrize("style", list(STYLES))
@pytest.mark.parametrize("name", STRONG)
def test_layout_does_not_move_the_grade(grader, tmp_path, name, style):
    """Strong dev answers (instructor >= 85, graded within 10) rewritten in layout only: the grade
    moves by a few points at most (before items.py: 35 to 65 points for most of them). Evidence
    run onto one line may tie one more figure to its words (sealed18 a.s203: +6, nearer the
    instructor's 94), hence 6."""
    original = (ROOT / "answers" / name).read_text()
    body = STYLES[style](original)
    assert body != original or style == "✗ lines"
    path = tmp_path / name.split("/")[1]
    path.write_text(body)
    moved = grader.grade(path).score - grader.grade(ROOT / "answers" / name).score
    assert abs(moved) <= 6, f"{style} moved {name} by {moved:+.1f}"


def test_steps_numbered_inline_after_the_items_own_mark():
    """'1. graphs 2. compile 3. remeasure' as one list item: its '1.' is the item's mark, so its
    steps count from 2 (sealed59 e.s611, instructor 100, graded 100; its Fixes and Reject items on
    one line, '1. Capture ... 4. Don't: raise the batch now ...', graded 80: all one fix)."""
    assert steps("graphs (static shapes) 2. torch.compile 3. remeasure") == [
        "graphs (static shapes)", "torch.compile", "remeasure"]
    assert steps("gaps 8-15 us. 2. is not a step") == ["gaps 8-15 us. 2. is not a step"]


def test_fixes_and_refusals_numbered_on_one_line(grader):
    """sealed59 e.s611 (instructor 100, graded 100) with each run of items on one line, '1. Capture
    ... 3. Re-measure ... 4. Don't: raise the batch now ...': the steps ran together, so the
    re-measure's 'then more batch, fewer weight bytes' and the refusals after it were read as one
    item: int8 recommended (graded 80)."""
    answer = ROOT / "answers/sealed59/e_doesnt_add_up.s611_terse_dont_lines.md"
    body = _one_line(answer.read_text())
    assert "1. Capture the decode step" in body and "4. Don't: raise the batch now" in body
    path = answer.parent.parent.parent / "x"   # (not written: read from the text)
    a = read_answer(path.with_suffix(".md"), grader.concepts, grader.rubric.limits.max_bytes, body)
    assert {"cuda_graphs", "torch_compile"} <= _levers(a.fixes)
    assert {"raise_batch", "quantize_int8"} <= _levers(a.rejects)

"""Layout invariance (issue 27): an instructor grades content, not layout, so the same answer
written all in lower case, with curly quotes, or with its sections run into labelled paragraphs
gets the same grade. Found by metamorphic testing: strong dev answers (instructor >= 85, graded
within 10) rewritten in layout only, then regraded. Each answer-level test names the answer
that showed the rule, the instructor's grade and the grader's on the rewritten answer before."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from conftest import lever_statuses

from regime.engine.grading.answer import SENTENCE
from regime.engine.grading.figures import quantities

ROOT = Path(__file__).resolve().parents[1]


def _body(text: str) -> tuple[str, str]:
    """Front matter (kept as written) and the rest."""
    if not text.startswith("---"):
        return "", text
    end = text.index("\n---", 3)
    end = text.index("\n", end + 1) + 1
    return text[:end], text[end:]


def lower(text: str) -> str:
    head, body = _body(text)
    return head + body.lower()


def curly(text: str) -> str:
    head, body = _body(text)
    body = re.sub(r"(^|(?<=[\s(]))\"", "“", body).replace('"', "”")
    body = re.sub(r"(^|(?<=[\s(]))'", "‘", body).replace("'", "’")
    return head + body


_LEADS = {"regime": "Diagnosis:", "evidence": "The evidence:", "fixes": "What I'd do, in order:",
          "reject": "What I would not do:"}


def prose(text: str) -> str:
    """Each '## Section' and its items as one paragraph opening with a lead-in of its role:
    numbered steps as 'first ..., then ...', other items joined by semicolons."""
    head, body = _body(text)
    out: list[str] = []
    for chunk in re.split(r"^## ", body, flags=re.M)[1:]:
        title, _, rest = chunk.partition("\n")
        steps = [s.rstrip(".") for s in re.findall(r"^\d+\.\s+(.*)$", rest, re.M)]
        others = [s.rstrip(".;") for s in re.findall(r"^-\s+(.*)$", rest, re.M)]
        plain = " ".join(ln.strip() for ln in rest.splitlines()
                         if ln.strip() and not re.match(r"(\d+\.|-)\s", ln))
        said = []
        if plain:
            said.append(plain)
        if steps:
            said.append("first " + ", then ".join(steps) + ".")
        if others:
            said.append("; ".join(others) + ".")
        out.append(_LEADS.get(title.strip().lower(), title.strip() + ":") + " " + " ".join(said))
    return head + "\n\n".join(out) + "\n"


@pytest.mark.parametrize(("answer", "style"), [
    # lower case: sealed17 e.s191 (instructor 100, graded 100; 20 in lower case): 'isn't
    # bandwidth-bound at all' ran into the sentence before, and "for now i'd reject both
    # proposals. raising the batch ..." into the one after
    ("sealed17/e_doesnt_add_up.s191_essay_full.md", lower),
    ("sealed88/e_doesnt_add_up.s903_essay_not_yet.md", lower),       # 100; 45 in lower case
    # sealed22 b.s248 (instructor 87.5, graded 87.5; 27.5 as prose)
    # curly quotes, opening and closing (a guard: these held already; a closing ” before the
    # next sentence is the case SENTENCE now splits at too)
    ("sealed108/b_training_run.s1104_quoted_deferred.md", curly),     # instructor 95, graded 95
    ("sealed151/a_chatbot.s1535_essay_quoted.md", curly),            # instructor 94, graded 94
    # sections into paragraphs: sealed17 b.s196 (instructor 92.5, graded 92.5; 47.5 as prose):
    # "... then hand fusion later. Don't: fuse attention ..." refused the steps before it
    ("sealed17/b_training_run.s196_dont_lines.md", prose),
    ("sealed22/b_training_run.s248_dont_lines.md", prose),
])
def test_layout_alone_does_not_move_the_grade(grader, tmp_path, answer, style):
    original = ROOT / "answers" / answer
    moved = tmp_path / original.name
    moved.write_text(style(original.read_text(encoding="utf-8")), encoding="utf-8")
    assert abs(grader.grade(moved).score - grader.grade(original).score) <= 5


def test_a_lower_case_answer_still_ends_its_sentences():
    assert SENTENCE.split("it runs slow. then we fix it, e.g. with graphs. 160 tok/s. done, etc. and "
                          "so on") == ["it runs slow.", "then we fix it, e.g. with graphs.", "160 tok/s.",
                                       "done, etc. and so on"]


def test_a_sentence_ends_before_a_curly_quote():
    assert SENTENCE.split("It is compute-bound. “Hand-fuse it” is wrong.") == [
        "It is compute-bound.", "“Hand-fuse it” is wrong."]


def test_a_label_over_its_own_lever_refuses_only_that(grader):
    """sealed17 b.s196 as one paragraph: "... then hand fusion later, if compile leaves a gap.
    Don't: fuse attention" refused torch.compile and the casts with fused attention."""
    said = lever_statuses(grader, "What I'd do, in order: first torch.compile, then chase the to_copy "
                                  "casts. Don't: fuse attention, it is already flash-attention.")
    assert said["torch_compile"] == "affirmed" and said["fuse_attention"] == "negated"


def test_steps_in_order_in_one_sentence_are_a_plan_not_a_list(grader):
    """sealed117 e.s1197 (instructor 100, graded 97.5) with its numbered Fixes run into
    one paragraph: 'first HIP graph capture ..., then torch.compile ..., then ...' named more
    levers than a sentence commits to and every step was 'listed'."""
    said = lever_statuses(grader, "What I'd do, in order: first HIP graph capture of the decode step, then "
                                  "torch.compile to merge small elementwise kernels, then hand fusion, "
                                  "then fix the dtype casts.")
    assert said["cuda_graphs"] == "affirmed" and said["torch_compile"] == "affirmed"
    keywords = lever_statuses(grader, "graphs, torch.compile, hand fusion, casts, batching, int8.")
    assert set(keywords.values()) == {"listed"}


@pytest.mark.parametrize(("said", "unit"), [("40 gb", "GB"), ("~5 tb", "TB"), ("5300 gb/s", "GB/s"),
                                            ("80 gib", "GiB"), ("312 tflops", "TFLOPs"), ("8 ms", "ms")])
def test_a_unit_in_lower_case_is_still_a_unit(said, unit):
    """sealed10 c.s129 (instructor 100, graded 100; 83.5 in lower case): 'kills the 40 gb and
    the ~5 tb' gave no figure, so the evidence lost both key figures."""
    assert [q.unit for q in quantities(said)] == [unit]

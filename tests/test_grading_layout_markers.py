"""Section markers as students write them, found by metamorphic testing (issue 27): the same answer
with its '## Fixes' written as '**Fixes.**', 'FIXES', 'Fixes:' alone on a line, '### 3. Fixes',
'## Step 3 - Fixes', '## Fixes (in priority order)', "## What I'd do" or '## Fxes' is the same
answer, and an instructor grades it the same. Each answer-level test names the answer that showed
the rule, the instructor's grade and the grader's on the rewritten answer before the rule."""

from __future__ import annotations

import re

import pytest
from conftest import ROOT, read_body

from regime.engine.grading.labels import section
from regime.engine.grading.openers import qualified, refusing

_HEADING = re.compile(r"^##[ \t]+(Regime|Evidence|Fixes|Reject|Ask)[ \t]*$", re.M)
_ORDER = {"Regime": 1, "Evidence": 2, "Fixes": 3, "Reject": 4, "Ask": 5}
_TYPO = {"Regime": "Regmie", "Evidence": "Evidnce", "Fixes": "Fxes", "Reject": "Rejcet", "Ask": "Ask"}
_SAID = {"Regime": "Diagnosis", "Evidence": "Working", "Fixes": "What I'd do",
         "Reject": "What I would not do", "Ask": "What to measure"}
_WITH = {"Regime": "Regime (my read)", "Evidence": "Evidence (the numbers)",
         "Fixes": "Fixes (in priority order)", "Reject": "Reject (for now)", "Ask": "Ask (next)"}

# Each style rewrites the template's headings only: every word of the answer stays as written.
STYLES = {
    "bold": lambda name: f"**{name}.**",
    "label": lambda name: f"{name}:",
    "upper": lambda name: name.upper(),
    "numbered": lambda name: f"### {_ORDER[name]}. {name}",
    "step": lambda name: f"## Step {_ORDER[name]} - {name}",
    "qualified": lambda name: f"## {_WITH[name]}",
    "synonym": lambda name: f"## {_SAID[name]}",
    "typo": lambda name: f"## {_TYPO[name]}",
}

# Strong answers of the development pool, read right with '## Fixes' (instructor, graded), that
# a rewritten heading moved by 20 to 65 points before the rules below.
ANSWERS = {
    "sealed26/e_doesnt_add_up.s288_conditional.md": (100, 97.5),   # bold 47.5, upper 47.5
    "new/a_chatbot.s13_terse_abbrev.md": (96, 100),                # numbered, step, typo, synonym 70
    "sealed19/e_doesnt_add_up.s211_essay.md": (100, 100),          # numbered 50.5, qualified 65
    "sealed159/e_doesnt_add_up.s1611_headed_us.md": (100, 100),    # bold 35, qualified 65
}
_MOVES = 5   # points a rewritten heading may move the grade (a qualifier may read one more word)


def _rewrite(text: str, style: str) -> str:
    return _HEADING.sub(lambda m: STYLES[style](m[1]), text)


@pytest.mark.parametrize("style", sorted(STYLES))
@pytest.mark.parametrize("name", sorted(ANSWERS))
def test_a_section_marker_written_another_way_grades_the_same(grader, tmp_path, name, style):
    original = ROOT / "answers" / name
    rewritten = tmp_path / original.name
    rewritten.write_text(_rewrite(original.read_text(), style))
    assert rewritten.read_text() != original.read_text()
    assert abs(grader.grade(rewritten).score - grader.grade(original).score) <= _MOVES


@pytest.mark.parametrize(("head", "named"), [
    ("3. Fixes", "fixes"), ("Step 3 - Fixes", "fixes"), ("Part 2: Evidence", "evidence"),
    ("Q4) Reject", "reject"),                                   # a number before the name
    ("Fxes", "fixes"), ("Rejcet", "reject"), ("Regmie", "regime"),   # a letter dropped or swapped
    ("Evidence numbers", "evidence"),        # a qualifier naming the same section again
    ("int4 - reject", None),                 # a lever's verdict, not a numbered heading
    ("Fix 2", "fixes"), ("Why", None),
])
def test_the_section_a_numbered_or_misspelled_heading_names(grader, head, named):
    assert section(grader.concepts, head) == named


def test_a_qualifier_naming_the_same_section_keeps_it(grader):
    assert qualified(grader.concepts, "Evidence (the numbers)") == "evidence"
    assert qualified(grader.concepts, "Fixes, Reject") is None


def test_the_template_sections_in_a_students_words(grader):
    """new a.s13 (instructor 96, graded 100; 70 with "## What I'd do" over its fixes): the template's
    Fixes in the student's words, as '## What I would not do' is its Reject."""
    assert section(grader.concepts, "What I'd do") == "fixes"
    assert refusing(grader.concepts, "What I would not do") == "reject"
    assert refusing(grader.concepts, "Fixes / Reject") is None


def _levers(ms) -> set[str]:
    return {c for m in ms for c in m.concepts}


def test_bold_labels_alone_on_their_lines_are_headings(grader, tmp_path):
    """sealed26 e.s288 (instructor 100, graded 97.5; 47.5 with '**Regime.**' ... '**Reject.**' alone
    on their lines): the paragraphs under them carry no label of their own, so the answer was read as
    an essay and its fixes as a keyword list."""
    text = (ROOT / "answers" / "sealed26" / "e_doesnt_add_up.s288_conditional.md").read_text()
    a = read_body(grader, tmp_path, "e_doesnt_add_up", _rewrite(text, "bold").split("---\n", 2)[2])
    assert {"cuda_graphs", "torch_compile"} <= _levers(a.fixes)
    assert "raise_batch" in _levers(a.rejects)


def test_a_bold_label_alone_between_hash_headings(grader, tmp_path):
    """sealed110 d.s1129 (instructor 100, graded 100; 78 with '**Reject:**' alone on its line after
    '## Fixes (for throughput)'): the rejections were read as more fixes."""
    body = ("## Regime\nCompute-bound.\n\n## Fixes (for throughput)\n1. fp8 GEMMs.\n\n"
            "**Reject:**\n- Raising the batch further: past the ridge, more batch costs step time.\n")
    a = read_body(grader, tmp_path, "d_high_throughput_api", body)
    assert "raise_batch" in _levers(a.rejects) and "raise_batch" not in _levers(a.fixes)


def test_a_label_alone_with_one_of_no_section_stays_prose(grader, tmp_path):
    """sealed162 a.s1643 (instructor 100, graded 90): 'Evidnce:' and 'Fixs:' alone, then 'Nope:' over
    the rejections. 'Nope' names no section, so the memo is read as before, sentence by sentence,
    and the fusion it refuses is not a fix under 'Fixs:' (a guard: the first try of the rule above
    read it so, 90 -> 55)."""
    path = ROOT / "answers" / "sealed162" / "a_chatbot.s1643_terse_typos.md"
    assert grader.grade(path).score >= 85
    a = read_body(grader, tmp_path, "a_chatbot", path.read_text().split("---\n", 2)[2])
    assert "fuse_elementwise" not in _levers(a.fixes)


def test_the_rewrites_leave_every_word(tmp_path):
    text = (ROOT / "answers" / "new" / "a_chatbot.s13_terse_abbrev.md").read_text()
    words = re.findall(r"\w+", _HEADING.sub("", text))
    for style in STYLES:
        assert re.findall(r"\w+", _HEADING.sub("", _rewrite(text, style))) != [] and all(
            w in _rewrite(text, style) for w in words)

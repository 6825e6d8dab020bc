"""Whatever a user writes in a title, a name or an answer, the documents Regime writes keep their
structure: no new heading, link, tag, cell, row or terminal escape sequence (core/escape.py and
the writers that call it). Property-based: hypothesis draws the strings, biased towards the
characters each format treats specially."""

from __future__ import annotations

import csv
import dataclasses
import io
import json
from html.parser import HTMLParser

import pytest
from conftest import ROOT
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from markdown_it import MarkdownIt
from rich.console import Console

from regime.core.escape import csv_cell, html_text, markdown_inline, one_line, terminal_text
from regime.engine import api
from regime.engine.grading import output as grading_output
from regime.engine.grading.grader import Result
from regime.engine.grading.score import Applied, Part
from regime.engine.report import model, render_html, render_markdown, render_text

SPECIAL = [*"=+-@\t\r\n#*_`[]()<>!&|\\\"'~:.;/{}", "\x1b", "\x07", "\x9b", "\u202e", "\u2066", "\u2028",
           "javascript:", "<script>", "](", "\r\n", "&lt;", "&#60;", "1.", "> "]
TEXT = st.lists(st.one_of(st.sampled_from(SPECIAL), st.text(max_size=6)), max_size=20).map("".join)
FAST = settings(max_examples=100, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
UNSAFE = [chr(c) for c in (*range(0x00, 0x09), *range(0x0B, 0x20), *range(0x7F, 0xA0))] + \
    ["\u202a", "\u202b", "\u202c", "\u202d", "\u202e", "\u2066", "\u2067", "\u2068", "\u2069"]
REPORT = settings(FAST, max_examples=20)  # a whole report per example: fewer
MD = MarkdownIt("commonmark")


@pytest.fixture(scope="module")
def chatbot():
    k = api.knowledge()
    return model.build(api.diagnose(ROOT / "cases" / "a_chatbot.yaml", k), k)


# ---- terminal text -------------------------------------------------------------------------------

@FAST
@given(TEXT)
def test_terminal_text_carries_no_control_or_bidi_character(text):
    shown = terminal_text(text)
    assert not any(c in shown for c in UNSAFE)
    assert shown.count("\n") == text.count("\n")  # lines kept: no line is added or taken away
    assert "\n" not in one_line(text) and "\t" not in one_line(text)


@REPORT
@given(TEXT)
def test_a_report_printed_to_a_terminal_carries_no_escape_from_the_title(chatbot, text):
    out = io.StringIO()
    render_text.print_report(dataclasses.replace(chatbot, title=terminal_text(text)),
                             Console(file=out, width=120, color_system=None, force_terminal=False))
    assert not any(c in out.getvalue() for c in UNSAFE if c not in "\t")


# ---- Markdown ------------------------------------------------------------------------------------

def _inline_kinds(markdown: str) -> list[str]:
    [block] = [t for t in MD.parse(markdown) if t.type == "inline"] or [None]
    return [] if block is None else [c.type for c in block.children or []]


@FAST
@given(TEXT)
def test_markdown_inline_renders_as_exactly_the_text(text):
    escaped = markdown_inline(text)
    assert "\n" not in escaped
    kinds = set(_inline_kinds(escaped))
    assert kinds <= {"text"}, (escaped, kinds)  # no link, image, emphasis, code, tag, break
    rendered = "".join(c.content for t in MD.parse(escaped) if t.type == "inline" for c in t.children or [])
    assert rendered == one_line(text)


def _structure(markdown: str) -> list[tuple[str, str]]:
    """Block structure (headings, paragraphs, lists, tables) and every inline token but text."""
    out = []
    for t in MD.parse(markdown):
        out.append((t.type, t.tag))
        out += [(c.type, c.tag) for c in t.children or [] if c.type != "text"]
    return out


@REPORT
@given(TEXT, TEXT)
def test_a_markdown_report_keeps_its_structure_whatever_the_title_and_summary(chatbot, title, summary):
    blank = "x" if one_line(summary) else ""  # a summary of only blanks is left out
    plain = dataclasses.replace(chatbot, title="x", inputs=dataclasses.replace(chatbot.inputs, summary=blank))
    hostile = dataclasses.replace(chatbot, title=title,
                                  inputs=dataclasses.replace(chatbot.inputs, summary=summary))
    assert _structure(render_markdown.to_markdown(hostile)) == _structure(render_markdown.to_markdown(plain))


@FAST
@given(TEXT)
def test_gradescope_feedback_quoting_a_student_keeps_its_structure(text):
    def result(quote: str) -> Result:
        return Result("s.md", True, "s", "a_chatbot", "markdown", 1.0, 2.0,
                      [Part("fixes", 1.0, 2.0, [f"I could not tell which lever '{quote}' means"])],
                      [Applied("p", 1.0, f"you wrote '{quote}'")])
    for fmt in (grading_output.gradescope, grading_output.prairielearn):
        hostile, plain = fmt(result(text)), fmt(result("x"))
        for a, b in zip(hostile["tests"], plain["tests"], strict=True):
            assert _structure(a["output"]) == _structure(b["output"])


# ---- HTML ----------------------------------------------------------------------------------------

class _Tags(HTMLParser):
    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.tags: list[str] = []
        self.text = ""

    def handle_starttag(self, tag, attrs):
        self.tags.append(tag)

    def handle_endtag(self, tag):
        self.tags.append("/" + tag)

    def handle_data(self, data):
        self.text += data


def _tags(html: str) -> list[str]:
    p = _Tags()
    p.feed(html)
    p.close()
    return p.tags


@FAST
@given(TEXT)
def test_html_text_is_text(text):
    p = _Tags()
    p.feed(f"<p title=\"{html_text(text)}\">{html_text(text)}</p>")
    p.close()
    assert p.tags == ["p", "/p"] and p.text == terminal_text(text)


@REPORT
@given(TEXT)
def test_an_html_report_keeps_its_tags_whatever_the_title(chatbot, text):
    hostile = dataclasses.replace(chatbot, title=text, case=text or "x")
    plain = dataclasses.replace(chatbot, title="x", case="x")
    assert _tags(render_html.to_html(hostile, None)) == _tags(render_html.to_html(plain, None))


# ---- CSV -----------------------------------------------------------------------------------------

FORMULA = ("=", "+", "-", "@", "\t", "\r")


@FAST
@given(TEXT, TEXT, TEXT, st.floats(-100, 100, allow_nan=False))
def test_grades_csv_keeps_its_cells_and_runs_no_formula(student, case, submission, points):
    r = Result(submission or "s", True, student, case, "yaml", points, 100.0,
               [Part("regime", points, 100.0)], wrong_levers=[student])
    rows = list(csv.reader(io.StringIO(grading_output.to_csv([r, r]), newline="")))
    assert len(rows) == 3 and {len(row) for row in rows} == {len(grading_output.CSV_COLUMNS)}
    cells = dict(zip(rows[0], rows[1], strict=True))
    for column in ("submission", "student", "case", "wrong_levers"):
        assert not cells[column].startswith(FORMULA), (column, cells[column])
    for column in ("regime", "total"):
        assert float(cells[column]) == pytest.approx(float(f"{points:g}"))  # numbers stay numbers
    summary = list(csv.reader(io.StringIO(grading_output.summary_csv([r]), newline="")))
    assert all(not row[0].startswith(FORMULA) for row in summary)


@FAST
@given(TEXT)
def test_csv_cell_is_the_text_or_the_text_quoted(text):
    cell = csv_cell(text)
    assert cell in (terminal_text(text), "'" + terminal_text(text)) and not cell.startswith(FORMULA)


# ---- JSON ----------------------------------------------------------------------------------------

@FAST
@given(TEXT, TEXT)
def test_json_is_one_document_holding_the_raw_values(student, case):
    r = Result("s.md", False, student, case, errors=[f"s.md: case: unknown case '{case}'"])
    doc = json.loads(grading_output.to_json([r]))
    assert doc["results"][0]["student"] == student and doc["results"][0]["case"] == case
    for line in grading_output.to_json([r]).splitlines():
        assert "\x1b" not in line and "\x07" not in line  # the encoder escapes controls

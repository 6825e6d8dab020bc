"""The writers, one per format (engine/cli/writers/): what a user, a case or a pack wrote is
escaped for the format it is written into, and the structured formats parse."""

from __future__ import annotations

import io
import json

import jsonschema
from conftest import ROOT
from typer.testing import CliRunner

from regime.engine.cli import writers
from regime.engine.cli.app import app
from regime.engine.cli.writers import envelope, jsonl, markdown, text

SCHEMA = json.loads((ROOT / "schemas" / "envelope.schema.json").read_text(encoding="utf-8"))
HOSTILE = "[click](javascript:alert(1)) <b>x</b> | # \x1b[31mred\u202e"
ERROR = {"file": "c.yaml", "line": 3, "field": "facts.batch", "message": HOSTILE}


def test_markdown_cells_headings_and_errors_render_as_the_text_written():
    doc = markdown.heading(HOSTILE) + markdown.table(("name",), [[HOSTILE]]) + markdown.errors([ERROR])
    for raw in ("](", "<b>", "\x1b", "\u202e", "| # "):
        assert raw not in doc
    [row] = [line for line in doc.splitlines() if line.startswith("| \\[click")]
    assert row.replace("\\|", "").count("|") == 2  # the cell's pipe did not open a column
    assert "**error:** c.yaml:3: facts.batch: " in doc


def test_text_lines_show_control_and_bidi_characters_as_escapes():
    shown = text.lines([HOSTILE, "plain"])
    assert "\x1b" not in shown and "\u202e" not in shown
    assert "\\x1b[31mred\\u202e" in shown and shown.endswith("plain\n")


def test_json_keeps_what_was_written_as_data():
    doc = json.loads(envelope.document([{"title": HOSTILE}], [ERROR], {"items": 1}))
    jsonschema.validate(doc, SCHEMA)
    assert doc["results"][0]["title"] == HOSTILE and list(doc) == list(envelope.KEYS)


def test_jsonl_is_each_result_then_each_error_one_per_line():
    lines = jsonl.document([{"b": 1, "a": HOSTILE}], [ERROR]).splitlines()
    assert [json.loads(line) for line in lines] == [{"a": HOSTILE, "b": 1}, {"error": ERROR}]
    assert lines[0].startswith('{"a":')  # keys sorted, no spaces


def test_a_refused_command_says_so_in_every_structured_format(capsys):
    for fmt in ("json", "jsonl", "markdown"):
        writers.refusal("no such folder", fmt)
    out = capsys.readouterr().out
    assert '"message": "no such folder"' in out and '{"error":' in out
    assert "**error:** &lt;input&gt;: no such folder\n" in out and "```" not in out
    writers.refusal("no such folder", "text")  # text: stderr only (core.refuse writes it)
    assert capsys.readouterr().out == ""


def test_no_color_means_no_style_and_a_pipe_is_plain(monkeypatch):
    monkeypatch.delenv("FORCE_COLOR", raising=False)
    monkeypatch.delenv("NO_COLOR", raising=False)
    assert text.Style.of(io.StringIO()).color_system is None  # not a terminal
    monkeypatch.setenv("FORCE_COLOR", "1")
    forced = text.Style.of(io.StringIO())
    assert forced.terminal and forced.color_system is not None
    monkeypatch.setenv("NO_COLOR", "1")
    assert text.Style.of(io.StringIO()).color_system is None  # NO_COLOR wins over FORCE_COLOR


def test_a_refused_case_named_by_its_user_is_escaped_in_text_and_markdown(tmp_path):
    case = tmp_path / "[x](javascript:alert(1))\x1b[31m.yaml"
    case.write_text("title: [unclosed\n", encoding="utf-8")
    for fmt in ("text", "markdown"):
        done = CliRunner().invoke(app, ["diagnose", str(case), "--format", fmt], prog_name="regime")
        assert done.exit_code == 2
        assert "\x1b[31m" not in done.stdout
        if fmt == "markdown":
            assert "](javascript" not in done.stdout and "— refused" in done.stdout

"""What a person reads at 80 columns (rich's width), pinned as text: `regime diagnose` of one
case and `regime why`, whose first line is the answer. A change here is a change people see;
update with --snapshot-update only after reading the diff."""

from __future__ import annotations

import io

import pytest
from conftest import write
from rich.console import Console
from typer.testing import CliRunner

from regime.engine import api
from regime.engine.cli.app import app
from regime.engine.knowledge.paths import CASES_DIR
from regime.engine.report import model, render_text

PLAN = "title: Llama-3-8B decode, a plan\nhardware: H100\nmodel: llama-3-8b\nfacts:\n  phase: decode\n"


def _text(path, knowledge, full: bool = True) -> str:
    buffer = io.StringIO()
    console = Console(file=buffer, width=80, force_terminal=False, color_system=None, highlight=False)
    render_text.print_report(model.build(api.diagnose(path, knowledge), knowledge), console, full=full)
    return buffer.getvalue()


@pytest.mark.parametrize("name", ["a_chatbot", "e_doesnt_add_up", "r_decode_b256"])
def test_the_default_view_fits_one_screen(knowledge, snapshot, name):
    """Verdict, fixes with their bounds, rejections, asks, then what --full adds."""
    text = _text(CASES_DIR / f"{name}.yaml", knowledge, full=False)
    lines = text.splitlines()
    assert lines[1].startswith("Verdict: ") and lines[-2].startswith("more: --full")
    assert len(lines) <= 50 and "How each figure was derived" not in text
    assert text == snapshot


@pytest.mark.parametrize("name", ["a_chatbot", "e_doesnt_add_up"])
def test_diagnose_at_80_columns(knowledge, snapshot, name):
    assert _text(CASES_DIR / f"{name}.yaml", knowledge) == snapshot


def test_a_plan_at_80_columns_leads_with_what_is_missing(tmp_path, knowledge, snapshot):
    text = _text(write(tmp_path, "plan.yaml", PLAN), knowledge)
    assert text.splitlines()[1].startswith("Verdict: undetermined; the dtypes are missing")
    assert text == snapshot


@pytest.mark.parametrize("question", ["a_chatbot raise_batch", "e_doesnt_add_up raise_batch",
                                      "a_chatbot regime"])
def test_why_answers_in_its_first_line(snapshot, question):
    done = CliRunner().invoke(app, ["why", *question.split()], env={"COLUMNS": "80"}, prog_name="regime")
    assert done.exit_code == 0
    first = done.stdout.splitlines()[0]
    assert first.startswith(question.split()[1] + ": ")
    assert done.stdout == snapshot

"""What a terminal shows: tables that cut no word, lines that end in no space, a short demo.

Checked in a pipe (COLUMNS set) and in a real terminal (tmux) at 80 and 120 columns: every word
of a table at that width is a whole word of the same table printed with room to spare.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import uuid

import pytest
from conftest import ROOT

from regime.engine.report import terminal
from regime.engine.report.terminal import Column

REGIME = [sys.executable, "-m", "regime.engine.cli.entry"]
SUMMARY = ["diagnose", "--quiet"]
SWEEP = ["sweep", "cases/a_chatbot.yaml", "--vary", "batch=1..512"]
NOTE = "(not shown at "


def piped(args: list[str], width: int) -> str:
    env = {**os.environ, "COLUMNS": str(width)}
    done = subprocess.run([*REGIME, *args], capture_output=True, text=True, env=env, cwd=ROOT, timeout=300)
    assert done.returncode == 0, done.stderr
    return done.stdout


def in_tmux(args: list[str], width: int) -> str:
    """The screen lines of `regime ARGS` run in a tmux pane `width` columns wide."""
    sock, signal = f"regime-test-{uuid.uuid4().hex[:8]}", f"done-{uuid.uuid4().hex[:8]}"
    tmux = ["tmux", "-L", sock]
    command = " ".join([*(f"'{a}'" for a in [*REGIME, *args]), f"; tmux -L {sock} wait-for -S {signal}"])
    try:
        subprocess.run([*tmux, "-f", "/dev/null", "new-session", "-d", "-x", str(width), "-y", "50",
                        f"cd '{ROOT}' && {command}; sleep 30"], check=True, timeout=30)
        subprocess.run([*tmux, "set-option", "-g", "history-limit", "10000"], check=True, timeout=30)
        subprocess.run([*tmux, "wait-for", signal], check=True, timeout=300)
        return subprocess.run([*tmux, "capture-pane", "-p", "-S", "-", "-E", "-"], check=True,
                              capture_output=True, text=True, timeout=30).stdout
    finally:
        subprocess.run([*tmux, "kill-server"], capture_output=True, timeout=30)


def cut_words(narrow: str, wide: str) -> list[str]:
    """Words of the narrow rendering that are not whole words of the wide one."""
    whole = set(wide.split())
    return [w for line in narrow.splitlines() if not line.startswith(NOTE) for w in line.split()
            if w not in whole and set(w) != {"─"}]


@pytest.fixture(scope="module")
def wide() -> dict[str, str]:
    return {"summary": piped(SUMMARY, 1000), "sweep": piped(SWEEP, 1000)}


@pytest.mark.e2e
@pytest.mark.parametrize("width", [80, 120])
@pytest.mark.parametrize("what", ["summary", "sweep"])
def test_tables_in_a_pipe_cut_no_word(what, width, wide):
    text = piped(SUMMARY if what == "summary" else SWEEP, width)
    assert cut_words(text, wide[what]) == []
    assert all(len(line) <= width and line == line.rstrip() for line in text.splitlines())
    if width == 80 and what == "summary":  # names stay whole because a column went instead
        assert NOTE in text


@pytest.mark.e2e
@pytest.mark.skipif(shutil.which("tmux") is None, reason="tmux is not installed (apt-get install tmux)")
@pytest.mark.parametrize("width", [80, 120])
@pytest.mark.parametrize("what", ["summary", "sweep"])
def test_tables_in_a_terminal_cut_no_word(what, width, wide):
    screen = in_tmux(SUMMARY if what == "summary" else SWEEP, width)
    table = screen[screen.index("Summary" if what == "summary" else "ceiling"):]
    assert cut_words(table, wide[what]) == []
    assert "case" in table or "batch" in table


@pytest.mark.e2e
def test_the_word_check_can_fail(wide):
    assert cut_words("continuous_ba tching", wide["summary"]) == ["continuous_ba", "tching"]


@pytest.mark.parametrize("width", [40, 60, 80, 100, 140])
def test_fit_gives_each_column_its_longest_word_or_drops_it(width):
    columns = [Column("case", keep=9), Column("regime", keep=5), Column("top fix", keep=4),
               Column("bound", keep=2), Column("n", keep=1, right=True)]
    rows = [("g_batch256_h100_bandwidth_bound", "bandwidth-bound", "continuous_batching",
             "ceiling_fp8_kv_tokens_per_s = 9600 tokens/s", "2"), ("a", "b", "c", "d", "1")]
    table, dropped = terminal.fit(columns, rows, width)
    from rich.console import Console
    console = Console(width=width, record=True, file=open(os.devnull, "w"), color_system=None)  # noqa: SIM115
    console.print(table)
    text = console.export_text()
    headers = {"case", "regime", "top", "fix", "bound", "n"}
    wide_words = {w for r in rows for c in r for w in c.split()} | headers
    assert [w for w in text.split() if w not in wide_words and set(w) != {"─"}] == []
    assert all(c.header not in dropped for c in columns[:1])
    shown = [c for c in columns if c.header not in dropped]
    if width >= 110:
        assert dropped == []
    assert len(shown) >= 1


def test_strip_removes_spaces_before_a_line_end_and_its_closing_codes():
    assert terminal.trim("a  \nb\x1b[1m  \x1b[0m\nc") == "a\nb\x1b[1m\x1b[0m\nc"


@pytest.mark.e2e
def test_make_demo_is_short_and_ends_no_line_in_a_space():
    bin_dir = os.path.dirname(sys.executable)
    make = shutil.which("make")
    if make is None or not os.path.exists(os.path.join(bin_dir, "regime")):
        pytest.skip("make or the regime entry point beside this interpreter is missing")
    done = subprocess.run([make, "-s", "--no-print-directory", "-o", f"{bin_dir}/regime", "demo",
                           f"BIN={bin_dir}"], capture_output=True, text=True, cwd=ROOT, timeout=300,
                          env={**os.environ, "COLUMNS": "80"})
    assert done.returncode == 0, done.stderr
    lines = done.stdout.splitlines()
    assert len(lines) < 200
    assert [n for n, line in enumerate(lines, 1) if line != line.rstrip()] == []
    assert "Summary" in done.stdout and "Verdict:" in done.stdout
    assert "regime diagnose cases/" in done.stdout  # says how to see each case

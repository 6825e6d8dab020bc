"""Colour follows the reader (engine/cli/writers/text.py): styles in a terminal, none in a pipe,
none at all with NO_COLOR set (no-color.org), styles into a pipe with FORCE_COLOR. Each command
runs in a fresh interpreter, on a pseudo-terminal where the test needs a terminal."""

from __future__ import annotations

import os
import pty
import re
import select
import subprocess
import sys

import pytest
from conftest import ROOT

pytestmark = pytest.mark.e2e

ESC = "\x1b["
STYLE = re.compile(r"\x1b\[[0-9;]*m")  # SGR: colour, bold, dim (a progress bar's cursor moves are not)
COMMANDS = [("diagnose", "a_chatbot"), ("diagnose", "a_chatbot", "b_training_run", "-q"),
            ("sweep", "a_chatbot", "--vary", "batch=1..8", "--engine", "compiled"),
            ("why", "a_chatbot", "raise_batch"), ("list", "levers")]
STYLED = COMMANDS[:4]  # the rich reports and why; list is plain lines


def _env(**extra: str) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if k not in ("NO_COLOR", "FORCE_COLOR", "TERM", "COLUMNS")}
    return {**env, "TERM": "xterm-256color", "COLUMNS": "100", **extra}


def _on_terminal(args: tuple[str, ...], env: dict[str, str]) -> str:
    """What `regime ARGS` writes to a (pseudo-)terminal on stdout and stderr."""
    leader, follower = pty.openpty()
    proc = subprocess.Popen([sys.executable, "-m", "regime.engine.cli.entry", *args], cwd=ROOT, env=env,
                            stdin=subprocess.DEVNULL, stdout=follower, stderr=follower)
    os.close(follower)
    out = b""
    while True:
        ready, _, _ = select.select([leader], [], [], 120)
        if not ready:
            proc.kill()
            break
        try:
            chunk = os.read(leader, 65536)
        except OSError:  # the terminal closed: the command is done
            break
        if not chunk:
            break
        out += chunk
    os.close(leader)
    assert proc.wait(timeout=120) == 0, out.decode(errors="replace")
    return out.decode("utf-8", errors="replace")


def _piped(args: tuple[str, ...], env: dict[str, str]) -> str:
    done = subprocess.run([sys.executable, "-m", "regime.engine.cli.entry", *args], cwd=ROOT, env=env,
                          capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr
    return done.stdout + done.stderr


@pytest.mark.parametrize("args", STYLED, ids=" ".join)
def test_a_terminal_gets_colour(args):
    assert ESC in _on_terminal(args, _env())


@pytest.mark.parametrize("args", COMMANDS, ids=" ".join)
def test_no_color_means_no_style_in_a_terminal(args):
    shown = _on_terminal(args, _env(NO_COLOR="1"))
    assert not STYLE.search(shown), STYLE.findall(shown)[:5]


@pytest.mark.parametrize("args", COMMANDS, ids=" ".join)
def test_a_pipe_gets_plain_text(args):
    assert "\x1b" not in _piped(args, _env())


@pytest.mark.parametrize("args", STYLED, ids=" ".join)
def test_force_color_styles_a_pipe_and_no_color_still_wins(args):
    assert ESC in _piped(args, _env(FORCE_COLOR="1"))
    assert "\x1b" not in _piped(args, _env(FORCE_COLOR="1", NO_COLOR="1"))


def test_why_styles_only_add_colour():
    """`why` in colour is the plain text with styles: no line wrapped, moved or changed."""
    args = ("why", "a_chatbot", "raise_batch")
    coloured = _piped(args, _env(FORCE_COLOR="1", COLUMNS="80"))
    assert ESC in coloured
    assert STYLE.sub("", coloured) == _piped(args, _env(COLUMNS="80"))

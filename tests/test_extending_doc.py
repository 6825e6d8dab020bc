"""docs/extending.md, followed literally: its files written, its commands run, its output found."""

from __future__ import annotations

import os
import re
import shlex
import subprocess
import sys

import pytest
from conftest import ROOT

DOC = ROOT / "docs" / "extending.md"
BLOCK = re.compile(r"```(yaml|console)\n(.*?)```", re.S)


def _norm(text: str) -> str:
    return " ".join(text.split())


def _run(line: str, cwd) -> tuple[str, int]:
    command, _, note = line.partition("  # exits ")
    args = shlex.split(command)
    assert args[0] == "regime"
    env = {**os.environ, "COLUMNS": "200"}
    env.pop("REGIME_RULES", None)
    done = subprocess.run([sys.executable, "-m", "regime.engine.cli", *args[1:]], cwd=cwd, env=env,
                          capture_output=True, text=True, timeout=300)
    assert done.returncode == int(note or 0), f"{line}\n{done.stdout}\n{done.stderr}"
    return done.stdout + done.stderr, done.returncode


@pytest.mark.e2e
def test_the_tutorial_works_as_written(tmp_path):
    blocks = BLOCK.findall(DOC.read_text(encoding="utf-8"))
    assert sum(kind == "console" for kind, _ in blocks) >= 6
    for kind, body in blocks:
        if kind == "yaml":
            first = body.splitlines()[0]
            assert first.startswith("# file: "), first
            path = tmp_path / first.removeprefix("# file: ")
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_text(body, encoding="utf-8")
            continue
        command, out = None, ""
        for line in [*body.splitlines(), "$ "]:
            if line.startswith("$ "):
                if command:
                    got = _norm(_run(command, tmp_path)[0])
                    for want in out.splitlines():
                        assert _norm(want) in got, f"{command}: {want!r} not in\n{got}"
                command, out = line[2:].strip(), ""
            else:
                out += line + "\n"

"""Shared fixtures: the built-in knowledge is loaded once per test session."""

from __future__ import annotations

import atexit
import os
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

import pytest
from regime.core.errors import RegimeError
from regime.engine import api
from regime.engine.packs import Knowledge, load_knowledge
from regime.facts.vocabulary import load_vocabulary

# The knowledge cache of this test run (and of the CLIs it starts) is its own, never the user's.
_CACHE_HOME = tempfile.mkdtemp(prefix="regime-test-cache-")
os.environ["XDG_CACHE_HOME"] = _CACHE_HOME
os.environ.pop("REGIME_CACHE", None)
atexit.register(shutil.rmtree, _CACHE_HOME, True)

TESTS = Path(__file__).parent
ROOT = TESTS.parent
TOY = TESTS / "toy"


@pytest.fixture(scope="session")
def knowledge() -> Knowledge:
    return api.knowledge()


@pytest.fixture(scope="session")
def toy_knowledge() -> Knowledge:
    return load_knowledge(load_vocabulary(), [TOY / "toy_pack.yaml"])


# A small valid decode case; tests break one line of it at a time.
GOOD_CASE = """\
title: ok
hardware: MI300X
facts:
  phase: decode
  batch: 1
  weight_dtype: fp16
  compute_dtype: fp16
  weight_bytes: 26 GB
  flop_util: 4%
  bw_util: 78%
"""


def write(tmp_path: Path, name: str, text: str) -> Path:
    path = tmp_path / name
    path.write_text(text, encoding="utf-8")
    return path


def case_error(tmp_path: Path, knowledge: Knowledge, text: str) -> RegimeError:
    """Diagnose `text` as a case file and return the RegimeError it must raise, for that file."""
    path = write(tmp_path, "bad.yaml", text)
    with pytest.raises(RegimeError) as info:
        api.diagnose(path, knowledge)
    assert info.value.file == str(path)
    return info.value


def run_cli(*args: str, cwd: Path | None = None,
            env: dict[str, str] | None = None) -> subprocess.CompletedProcess:
    """Run `regime` in a fresh interpreter, as a user would (`env`: added to the environment)."""
    return subprocess.run([sys.executable, "-m", "regime.engine.cli.entry", *args], capture_output=True,
                          text=True, cwd=cwd or ROOT, timeout=300, env={**os.environ, **(env or {})})

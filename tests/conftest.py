"""Shared fixtures: the built-in knowledge is loaded once per test session."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from engine import api
from engine.packs import Knowledge, load_knowledge
from facts.vocabulary import load_vocabulary

TESTS = Path(__file__).parent
ROOT = TESTS.parent
TOY = TESTS / "toy"


@pytest.fixture(scope="session")
def knowledge() -> Knowledge:
    return api.knowledge()


@pytest.fixture(scope="session")
def toy_knowledge() -> Knowledge:
    return load_knowledge(load_vocabulary(), [TOY / "toy_pack.yaml"])


def run_cli(*args: str, cwd: Path | None = None) -> subprocess.CompletedProcess:
    """Run `regime` in a fresh interpreter, as a user would."""
    return subprocess.run([sys.executable, "-m", "engine.cli", *args], capture_output=True,
                          text=True, cwd=cwd or ROOT, timeout=300)

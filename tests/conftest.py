"""Shared fixtures: the built-in knowledge is loaded once per test session.

A test that starts a process (the CLI in a fresh interpreter, pip, a browser) is marked `e2e`;
unmarked tests cannot start one, so `make test-fast` (-m "not slow and not e2e") stays in-process.
"""

from __future__ import annotations

import atexit
import contextlib
import os
import shutil
import subprocess
import sys
import tempfile
from collections.abc import Iterator
from pathlib import Path

import pytest

from regime.core.errors import RegimeError
from regime.engine import api
from regime.engine.knowledge.load import load_knowledge
from regime.engine.knowledge.model import Knowledge
from regime.facts.vocabulary import load_vocabulary

# The knowledge cache of this test run (and of the CLIs it starts) is its own, never the user's.
_CACHE_HOME = tempfile.mkdtemp(prefix="regime-test-cache-")
os.environ["XDG_CACHE_HOME"] = _CACHE_HOME
os.environ.pop("REGIME_CACHE", None)
atexit.register(shutil.rmtree, _CACHE_HOME, True)

TESTS = Path(__file__).parent
ROOT = TESTS.parent
TOY = TESTS / "toy"


class _NotMarkedE2E(subprocess.Popen):
    def __init__(self, *args, **kwargs):
        raise AssertionError("this test starts a process: mark it @pytest.mark.e2e so that "
                             "`make test-fast` leaves it out")


@pytest.fixture(scope="session", autouse=True)
def _fonts_listed():
    """matplotlib lists the system fonts (with fc-list, a subprocess) the first time it needs
    them in a fresh cache, which this run's is: do it once before any test, so that the first
    chart an in-process test draws starts no process."""
    from matplotlib import font_manager
    font_manager.findfont("DejaVu Sans")


@pytest.fixture(autouse=True)
def _processes_only_in_e2e(request, monkeypatch):
    """The fast loop never starts an interpreter: a test that does must say so with `e2e`."""
    if request.node.get_closest_marker("e2e") is None:
        monkeypatch.setattr(subprocess, "Popen", _NotMarkedE2E)


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


def answer_file(tmp_path: Path, case: str, body: str, name: str = "x.md") -> Path:
    """A student's answer to `case`: Markdown with its front matter, or YAML naming the case."""
    head = f"---\ncase: {case}\n---\n" if name.endswith(".md") else f"case: {case}\n"
    return write(tmp_path, name, head + body)


def read_body(grader, tmp_path: Path, case: str, body: str, name: str = "x.md"):
    """What the grader's reader takes from `body` written as a student's answer to `case`."""
    from regime.engine.grading.submission import read_answer
    return read_answer(answer_file(tmp_path, case, body, name), grader.concepts,
                       grader.rubric.limits.max_bytes)


def named(matches) -> set[str]:
    """Every concept the matches name (a lever's several ids included)."""
    return {c for m in matches for c in m.concepts}


def lever_statuses(grader, said: str) -> dict[str, str]:
    """Each lever `said` names -> its assertion status (context.judge)."""
    from regime.engine.grading.context import judge
    return {c: j.status for j in judge(grader.concepts, grader.concepts.context, ("lever",), said)
            for c in j.match.concepts}


@pytest.fixture(scope="module")
def grader():
    """The built-in grader, once per test module (grading tests read many answers with it)."""
    from regime.engine.grading.grader import Grader
    return Grader()


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


@pytest.fixture(scope="session")
def installed_regime(tmp_path_factory) -> Path:
    """`regime` from a wheel of this checkout in a fresh venv, built once per test session, shared
    by xdist's workers (a lock: two builds at once would race in the checkout's build/). The venv
    borrows the test venv's dependencies through a .pth file: no network."""
    base = tmp_path_factory.getbasetemp()
    shared = base.parent if os.environ.get("PYTEST_XDIST_WORKER") else base  # one session's root
    work = shared / "installed-regime"
    regime = work / "venv" / "bin" / "regime"
    with wheel_build_lock():
        if not regime.exists():
            _install_wheel(work)
    return regime


@contextlib.contextmanager
def wheel_build_lock() -> Iterator[None]:
    """Held while a wheel of this checkout is built: `pip wheel` writes into the checkout's build/,
    so two builds at once (xdist workers) would race there."""
    import fcntl
    import hashlib
    name = f"regime-wheel-{hashlib.sha256(str(ROOT).encode()).hexdigest()[:12]}.lock"
    with open(Path(tempfile.gettempdir()) / name, "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        yield


def _install_wheel(work: Path) -> None:
    import site
    import sysconfig
    wheels, fresh = work / "wheels", work / "venv"

    def run(*cmd: object) -> str:
        done = subprocess.run([str(c) for c in cmd], capture_output=True, text=True, timeout=600)
        assert done.returncode == 0, f"{cmd}\n{done.stdout}{done.stderr}"
        return done.stdout

    run(sys.executable, "-m", "pip", "wheel", "--no-deps", "--no-build-isolation", "-w", wheels, ROOT)
    run(sys.executable, "-m", "venv", fresh)
    py = fresh / "bin" / "python"
    run(py, "-m", "pip", "install", "--quiet", "--no-deps", "--no-index", *wheels.glob("regime-*.whl"))
    purelib = Path(run(py, "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])").strip())
    deps = [p for p in {*site.getsitepackages(), sysconfig.get_paths()["purelib"]} if Path(p).is_dir()]
    (purelib / "regime_test_deps.pth").write_text("\n".join(deps) + "\n", encoding="utf-8")


# A case as a new user writes it from scratch (the first-hour tests and the installed-wheel test
# each break it one way at a time).
NEW_USER_CASE = """\
title: Llama-3-8B decode on an H100
hardware: H100
model: llama-3-8b
facts:
  phase: decode
  batch: 8
  weight_dtype: bf16
  compute_dtype: bf16
  throughput: 900 tokens/s
"""

"""`pip install .` (not editable) gives a `regime` that finds its knowledge from any directory,
and every example line of the README runs there."""

from __future__ import annotations

import json
import os
import re
import shlex
import shutil
import site
import subprocess
import sys
import sysconfig
import zipfile
from pathlib import Path

import pytest
from conftest import NEW_USER_CASE, ROOT, wheel_build_lock

pytestmark = pytest.mark.e2e

CHECKOUT_ONLY = "# in a checkout"  # README examples that need files the wheel does not ship


def _run(*cmd, cwd=None, env=None) -> subprocess.CompletedProcess:
    done = subprocess.run([str(c) for c in cmd], capture_output=True, text=True, cwd=cwd, timeout=600,
                          env=env)
    assert done.returncode == 0, f"{' '.join(map(str, cmd))}\n{done.stdout}{done.stderr}"
    return done


def readme_examples() -> list[str]:
    """Every `regime ...` line of the README's sh blocks, but those marked as needing a checkout."""
    blocks = re.findall(r"```sh\n(.*?)```", (ROOT / "README.md").read_text(encoding="utf-8"), re.S)
    return [line for block in blocks for line in block.splitlines()
            if line.startswith("regime ") and CHECKOUT_ONLY not in line]


def _inputs(work: Path) -> None:
    """The files the README's examples name, as a user would have them."""
    shutil.copy(ROOT / "cases" / "a_chatbot.yaml", work / "my_case.yaml")
    (work / "runs").mkdir()
    for name in ("a_chatbot", "d_high_throughput_api"):
        shutil.copy(ROOT / "cases" / f"{name}.yaml", work / "runs")
    shutil.copytree(ROOT / "tests" / "layers" / "site_kv", work / "site")
    shutil.copy(ROOT / "tests" / "data" / "v100_rank0_train_trimmed.json.gz", work / "run.pt.trace.json.gz")
    (work / "roster.csv").write_text("id\ns1\ns2\n", encoding="utf-8")
    (work / "submissions").mkdir()
    answer = (ROOT / "answers" / "a_chatbot.tempting_fuse.yaml").read_text(encoding="utf-8")
    (work / "submissions" / "s1.yaml").write_text(answer.replace("student: tempting", "student: s1"),
                                                  encoding="utf-8")


def test_wheel_in_a_fresh_venv_works_from_any_directory(tmp_path):
    wheels = tmp_path / "wheels"
    with wheel_build_lock():  # the corpus replay's installed_regime builds one too
        built = _run(sys.executable, "-m", "pip", "wheel", "--no-deps", "--no-build-isolation",
                     "-w", wheels, ROOT)
    assert "would be ignored" not in built.stdout + built.stderr
    fresh = tmp_path / "fresh"
    _run(sys.executable, "-m", "venv", fresh)
    py = fresh / "bin" / "python"
    _run(py, "-m", "pip", "install", "--quiet", "--no-deps", "--no-index", *wheels.glob("regime-*.whl"))
    # Dependencies come from the test venv (no network needed); its editable hook for this
    # checkout is not processed, so only the wheel can provide `regime`.
    purelib = Path(_run(py, "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])").stdout.strip())
    deps = [p for p in {*site.getsitepackages(), sysconfig.get_paths()["purelib"]} if Path(p).is_dir()]
    (purelib / "regime_test_deps.pth").write_text("\n".join(deps) + "\n", encoding="utf-8")
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    where = _run(py, "-c", "import regime.engine; print(regime.engine.__file__)", cwd=elsewhere).stdout
    assert str(fresh) in where
    done = _run(fresh / "bin" / "regime", "diagnose", "--format", "json", cwd=elsewhere)
    doc = json.loads(done.stdout)
    assert {d["case"] for d in doc["results"]} >= {"a_chatbot", "e_doesnt_add_up"}
    # One namespace: the wheel installs `regime` and its metadata, nothing else at the top.
    wheel = next(wheels.glob("regime-*.whl"))
    with zipfile.ZipFile(wheel) as zf:
        tops = {name.split("/")[0] for name in zf.namelist()}
    assert {t for t in tops if not t.endswith(".dist-info")} == {"regime"}
    shown = _run(py, "-m", "pip", "show", "-f", "regime").stdout
    files = shown.split("Files:", 1)[1].split()
    assert {f.split("/")[0] for f in files if ".dist-info" not in f and not f.startswith("../")} == {"regime"}
    version = _run(fresh / "bin" / "regime", "--version", cwd=elsewhere).stdout
    assert version.startswith("regime ") and "durable-rules 2.0.28 (vendored" in version
    assert "classify sha256:" in version or "classify " in version
    installed = _run(py, "-c", "import regime; print(regime.__version__)").stdout.strip()
    assert version.splitlines()[0] == f"regime {installed}"  # one version, wherever it is read
    work = tmp_path / "work"  # not the checkout: the examples find their knowledge in the wheel
    work.mkdir()
    _inputs(work)
    env = {**os.environ, "XDG_CACHE_HOME": str(tmp_path / "cache"), "COLUMNS": "100"}
    examples = readme_examples()
    assert len(examples) >= 15
    for line in examples:
        args = shlex.split(line.split("#")[0])
        _run(fresh / "bin" / "regime", *args[1:], cwd=work, env=env)
    assert "Examples:" in _run(fresh / "bin" / "regime", "sweep", "--help", cwd=work, env=env).stdout
    missing = subprocess.run([fresh / "bin" / "regime", "diagnose", "cases/a_chatbot.yaml"], cwd=work,
                             capture_output=True, text=True, env=env)
    assert missing.returncode == 2 and "'a_chatbot' works from anywhere" in missing.stderr
    _case_mistakes(fresh / "bin" / "regime", work, env)


# A case written from scratch, then each mistake a new user makes, with the words the message
# must hold (exit 2) or, for the ways people write numbers and names, exit 0.
WRITTEN = NEW_USER_CASE
MISTAKES = [
    ("no_hardware.yaml", ("hardware: H100\n", ""), ":8: facts.throughput: ", "no hardware: add `hardware:`"),
    ("no_phase.yaml", ("  phase: decode\n", ""), ":5: facts.batch: ", "phase is missing"),
    ("no_model.yaml", ("model: llama-3-8b\n", ""), ":8: facts.throughput: ", "model's size is missing"),
    ("share.yaml", ("  batch: 8\n", "  batch: 8\n  bw_util: 78\n"), ":7: facts.bw_util: ",
     "did you mean 78%?"),
]
AS_PEOPLE_WRITE = [
    ("My-Case.yaml", ("  batch: 8\n", "  batch: 8\n  context_tokens: 2,048 tokens\n")),
    ("my case.yaml", ("900 tokens/s", "900 tokens per second")),
    ("k.yaml", ("  batch: 8\n", "  batch: 8\n  context_tokens: 2k\n")),
]


def _case_mistakes(regime: Path, work: Path, env: dict[str, str]) -> None:
    for name, (old, new), where, words in MISTAKES:
        (work / name).write_text(WRITTEN.replace(old, new), encoding="utf-8")
        done = subprocess.run([regime, "diagnose", name], cwd=work, capture_output=True, text=True, env=env)
        assert done.returncode == 2 and f"error: {name}{where}" in done.stderr and words in done.stderr, \
            done.stderr
    for name, (old, new) in AS_PEOPLE_WRITE:
        (work / name).write_text(WRITTEN.replace(old, new), encoding="utf-8")
        _run(regime, "diagnose", name, cwd=work, env=env)

"""`pip install .` (not editable) gives a `regime` that finds its knowledge from any directory."""

from __future__ import annotations

import json
import site
import subprocess
import sys
import sysconfig
import zipfile
from pathlib import Path

import pytest
from conftest import ROOT

pytestmark = pytest.mark.e2e


def _run(*cmd, cwd=None) -> subprocess.CompletedProcess:
    done = subprocess.run([str(c) for c in cmd], capture_output=True, text=True, cwd=cwd, timeout=600)
    assert done.returncode == 0, done.stdout + done.stderr
    return done


def test_wheel_in_a_fresh_venv_works_from_any_directory(tmp_path):
    wheels = tmp_path / "wheels"
    _run(sys.executable, "-m", "pip", "wheel", "--quiet", "--no-deps", "--no-build-isolation",
         "-w", wheels, ROOT)
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

"""The knowledge cache: same answers as a fresh load, rebuilt when anything it depends on
changes, ignored when corrupt or not the user's own, off with REGIME_CACHE=0."""

from __future__ import annotations

import os
import subprocess
import sys

import pytest
from conftest import ROOT, write

from regime.engine import api
from regime.engine.knowledge import cache as knowledge_cache
from regime.engine.knowledge import load as packs
from regime.engine.knowledge.paths import builtin_cases
from regime.engine.report import output

SITE = "pack: site\ndescription: site\noverrides:\n  parameters: {near_ceiling: 0.9}\n"


@pytest.fixture
def cache(tmp_path, monkeypatch):
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "xdg"))
    monkeypatch.delenv("REGIME_CACHE", raising=False)
    return tmp_path / "xdg" / "regime"


def _entries(cache):
    return sorted(cache.glob("knowledge-*.pickle"))


def _json(k) -> list[str]:
    return [output.to_json(output.to_dict(api.diagnose(p, k), k)) for p in builtin_cases()]


def _never(*_):
    raise AssertionError("rebuilt although a valid cache entry exists")


def test_cached_knowledge_gives_the_same_diagnoses(cache, monkeypatch):
    fresh = api.knowledge()
    assert len(_entries(cache)) == 1 and oct(_entries(cache)[0].stat().st_mode & 0o777) == "0o600"
    monkeypatch.setattr(packs, "load_knowledge", _never)
    cached = api.knowledge()
    assert cached is not fresh
    assert _json(cached) == _json(fresh)


def test_any_change_to_a_pack_is_a_new_key(cache, tmp_path, monkeypatch):
    site = write(tmp_path, "site.yaml", SITE)
    first = api.knowledge([site])
    site.write_text(SITE.replace("0.9", "0.8"), encoding="utf-8")
    second = api.knowledge([site])
    assert first.parameters["near_ceiling"].value == 0.9 and second.parameters["near_ceiling"].value == 0.8
    assert len(_entries(cache)) == 2


@pytest.mark.parametrize("damage", ["truncate", "flip", "group_writable", "garbage"])
def test_a_damaged_or_foreign_entry_is_ignored_and_rewritten(cache, damage):
    api.knowledge()
    [entry] = _entries(cache)
    data = entry.read_bytes()
    if damage == "truncate":
        entry.write_bytes(data[: len(data) // 2])
    elif damage == "flip":
        entry.write_bytes(data[:-10] + bytes([data[-10] ^ 0xFF]) + data[-9:])
    elif damage == "group_writable":
        entry.chmod(0o664)
    else:
        entry.write_bytes(b"\x80\x04not a pickle at all")
    k = api.knowledge()
    assert len(k.rules) > 10
    assert _entries(cache)[0].read_bytes() == data  # rewritten whole


def test_disabled_by_environment(cache, monkeypatch):
    monkeypatch.setenv("REGIME_CACHE", "0")
    api.knowledge()
    assert not cache.exists()


PROBE = """
import sys
from regime.engine.cli import entry
try:
    entry.main(["diagnose", CASE, "--format", "json"])
except SystemExit as done:
    assert done.code == 0
print(sorted({m.split(".")[0] for m in sys.modules} & {"pint", "typer", "click", "rich"}), file=sys.stderr)
"""


@pytest.mark.e2e
def test_json_diagnosis_loads_neither_pint_nor_typer_nor_rich(cache):
    script = PROBE.replace("CASE", repr(str(ROOT / "cases" / "a_chatbot.yaml")))
    env = {**os.environ, "XDG_CACHE_HOME": str(cache.parent)}
    runs = [subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, env=env,
                           timeout=300) for _ in range(2)]
    assert runs[0].stdout == runs[1].stdout and '"regime": "bandwidth_bound"' in runs[1].stdout
    assert runs[1].stderr.strip().splitlines()[-1] == "[]", runs[1].stderr  # 2nd run: from the cache
    assert knowledge_cache.MAGIC in _entries(cache)[0].read_bytes()[:64]

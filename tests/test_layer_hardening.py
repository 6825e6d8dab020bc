"""Layers and pack tests are untrusted input: hostile ones are refused, located, in bounded time."""

from __future__ import annotations

import pytest
from conftest import write
from typer.testing import CliRunner

from regime.core import yamlsrc
from regime.core.errors import RegimeError
from regime.engine import api
from regime.engine.cli.app import app

HEAD = "pack: site\ndescription: d\n"


@pytest.mark.parametrize("body, line, words", [
    ("overrides:\n  parameters:\n    util_high: '9**9**9'\n", 5, "is not a unit"),
    ("overrides:\n  parameters:\n    util_high: 1e400\n", 5, "util_high"),
    ("overrides:\n  parameters:\n    util_high: [1, 2]\n", 5, "util_high"),
    ("overrides:\n  and_when:\n    ridge_point: '" + "not " * 300 + "batch > 1'\n", 5, "too deeply nested"),
    ("overrides:\n  and_when:\n    ridge_point: '__import__(\"os\")'\n", 5, "not allowed"),
    ("overrides:\n  disable: '*'\n", 4, "disable"),
    ("rules:\n  - id: x\n    replaces: [ridge_point]\n    description: d\n    finding: f\n    because: b\n",
     5, "replaces"),
    ("hardware:\n  evil: {peak_bw: '1e999 TB/s'}\n", 4, "peak_bw"),
    ("hardware:\n  evil: 5\n", 4, "must be a mapping"),
    ("precedence: 1\n", 3, "unknown key"),
])
def test_hostile_layers_are_located_errors(tmp_path, body, line, words):
    layer = tmp_path / "site"
    layer.mkdir()
    path = write(layer, "site.yaml", HEAD + body)
    with pytest.raises(RegimeError) as info:
        api.knowledge([layer])
    assert info.value.file == str(path) and info.value.line == line, str(info.value)
    assert words in str(info.value)


def test_a_huge_layer_file_is_refused_before_parsing(tmp_path):
    layer = tmp_path / "site"
    layer.mkdir()
    write(layer, "big.yaml", HEAD + "rules: []\n" + "# padding\n" * (yamlsrc.MAX_BYTES // 10 + 1))
    with pytest.raises(RegimeError, match="larger than"):
        api.knowledge([layer])


def test_a_huge_pack_test_file_is_refused(tmp_path):
    path = write(tmp_path, "big.test.yaml", "tests: []\n" + "#" * (yamlsrc.MAX_BYTES + 1) + "\n")
    done = CliRunner().invoke(app, ["test", str(path)])
    assert done.exit_code == 2 and "larger than" in done.stderr


def test_a_pack_test_cannot_reach_outside_through_case_paths(tmp_path):
    path = write(tmp_path, "t.test.yaml", "tests:\n  - name: t\n    case: /etc/passwd\n")
    done = CliRunner().invoke(app, ["test", str(path)])
    assert done.exit_code == 2 and "Traceback" not in done.output
    assert done.stderr.startswith(f"error: {path}:3: case: case '/etc/passwd': name a built-in case id")
    (tmp_path / "cases").mkdir()
    write(tmp_path / "cases", "list.yaml", "- a\n- b\n")
    path = write(tmp_path, "u.test.yaml", "tests:\n  - name: t\n    case: cases/list.yaml\n")
    done = CliRunner().invoke(app, ["test", str(path)])
    assert done.exit_code == 2 and "a case file is a mapping" in done.stderr

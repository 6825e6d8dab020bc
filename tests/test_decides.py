"""`decides:` in the rule language: which of the facts a rule cites its conclusion turns on (the
grading key's decisive evidence), checked where it is written."""

from __future__ import annotations

import pytest
from conftest import write
from typer.testing import CliRunner

from regime.core.errors import RegimeError
from regime.engine import api, lang
from regime.engine.cli.app import app
from regime.engine.knowledge.compile import parse_context


@pytest.fixture(scope="module")
def knowledge():
    return api.knowledge()


def test_a_diagnosis_that_says_nothing_turns_on_what_its_condition_compares(knowledge):
    rule = next(r for r in knowledge.rules if r.id == "measured_bandwidth_bound")
    assert rule.decides is None and rule.deciding() == (("bw_util",), ("flop_util",))
    e = lang.parse('flop_util >= 0.5 and present(bw_util) and phase == "decode" and '
                   'kernel_share["to_copy"] > 0.01', parse_context(knowledge), "condition")
    assert lang.compared(e.tree) == ["flop_util", "kernel_share__to_copy"]


def test_a_finding_that_says_nothing_decides_nothing(knowledge):
    rule = next(r for r in knowledge.rules if r.id == "kv_headroom")
    assert rule.decides is None and rule.deciding() == ()


HEAD = "pack: site\ndescription: d\nrules:\n  - id: x\n    description: d\n"


@pytest.mark.parametrize("body, words", [
    ("    when: batch > 1\n    finding: f\n    decides: [no_such_fact]\n    because: b\n", "unknown fact"),
    ("    when: batch > 1\n    finding: f\n    decides: [ridge_point]\n    because: b\n",
     "'ridge_point' is not a fact this rule reads or cites"),
    ("    when: batch > 1\n    finding: f\n    decides: [[]]\n    because: b\n", "at least one fact"),
    ("    when: batch > 1\n    finding: f\n    decides: [phase]\n    because: b\n",
     "must name a number fact"),
])
def test_a_bad_decides_is_a_located_error(tmp_path, body, words):
    layer = tmp_path / "site"
    layer.mkdir()
    path = write(layer, "site.yaml", HEAD + body)
    with pytest.raises(RegimeError) as info:
        api.knowledge([layer])
    assert info.value.file == str(path) and info.value.line == 8 and info.value.field == "decides"
    assert words in str(info.value)


def test_decides_belongs_to_concluding_rules(tmp_path):
    layer = tmp_path / "site"
    layer.mkdir()
    write(layer, "site.yaml", HEAD + "    ask: batch\n    order: 1\n    decides: [batch]\n    because: b\n")
    with pytest.raises(RegimeError, match="'decides' belongs to diagnose, finding, fix, reject rules"):
        api.knowledge([layer])


def test_regime_check_reports_a_bad_decides_as_one_line(tmp_path):
    layer = tmp_path / "site"
    layer.mkdir()
    path = write(layer, "site.yaml", HEAD + "    when: batch > 1\n    finding: f\n"
                 "    decides: [ridge_point]\n    because: b\n")
    done = CliRunner().invoke(app, ["check", "--rules", str(layer)])
    assert done.exit_code == 2 and "Traceback" not in done.output
    assert f"{path}:8" in done.output and "decides" in done.output


def test_a_layer_may_say_what_its_rule_decides(tmp_path):
    layer = tmp_path / "site"
    layer.mkdir()
    write(layer, "site.yaml", HEAD + "    when: batch > 1 and ridge_point > 0\n    finding: f\n"
          "    decides: [[ridge_point, ridge_batch]]\n    because: b\n")
    rule = next(r for r in api.knowledge([layer]).rules if r.id == "x")
    assert rule.deciding() == (("ridge_point", "ridge_batch"),)

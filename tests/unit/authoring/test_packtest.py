"""`regime test`: pack tests in YAML, their failures, and coverage of the built-in rules."""

from __future__ import annotations

import re

import pytest
from conftest import run_cli, write
from typer.testing import CliRunner

from regime.engine.cli.app import app


@pytest.mark.e2e
def test_builtin_pack_tests_pass_and_fire_every_builtin_rule():
    done = run_cli("test")
    assert done.returncode == 0, done.stdout + done.stderr
    n, total = map(int, re.search(r"rules fired by tests: (\d+)/(\d+)", done.stdout).groups())
    assert n == total and total > 100, done.stdout
    assert " 0 failed" in done.stdout


FAILING = """\
tests:
  - name: wrong on purpose
    case: a_chatbot
    expect:
      regime: compute_bound
      fixes: [quantize_int8, continuous_batching]
      fired: [batch_past_the_ridge]
      figures:
        ceiling_tokens_per_s: {value: 300 tokens/s, tolerance: 5 tokens/s}
      because:
        quantize_int8: halves nothing
"""


@pytest.mark.e2e
def test_failures_show_expected_actual_and_the_why_trace(tmp_path):
    layer = tmp_path / "site"
    layer.mkdir()
    write(layer, "wrong.test.yaml", FAILING)
    done = run_cli("test", str(layer))
    assert done.returncode == 1
    out = done.stdout
    assert f"FAIL {layer / 'wrong.test.yaml'}:2 wrong on purpose" in out
    assert "regime: expected compute_bound, got bandwidth_bound" in out
    assert "fixes (in priority order): expected [quantize_int8, continuous_batching], got " \
           "[continuous_batching, quantize_int8]" in out
    assert "rule batch_past_the_ridge fires: expected True, got False" in out
    assert "ceiling_tokens_per_s (± 5 tokens/s): expected 300 tokens/s, got 201 tokens/s" in out
    assert "justification of quantize_int8 contains 'halves nothing'" in out
    # the why / why-not trace of the rules concerned, clause by clause
    assert "batch_past_the_ridge (reject raise_batch)" in out and "did NOT fire" in out
    assert '[ ] regime == "compute_bound"   (regime=bandwidth_bound)' in out
    assert "0 passed, 1 failed" in out


@pytest.mark.parametrize("text, line, words", [
    ("tests:\n  - name: t\n    case: no_such_case\n", 3, "no built-in case with that id"),
    ("tests:\n  - name: t\n    case: a_chatbot\n    expect: {fired: [no_such_rule]}\n", 2,
     "no rule with the id 'no_such_rule' in the loaded knowledge"),
    ("tests:\n  - name: t\n    case: a_chatbot\n    expect: {regim: x}\n", 4,
     "unknown key (did you mean 'regime'"),
    ("tests:\n  - name: t\n    facts: {batch: 5 GB}\n", 3, "batch"),
    ("tests:\n  - name: t\n    case: a_chatbot\n    expect: {figures: {ridge_point: 3 GB}}\n", 2,
     "figure ridge_point"),
    ("tests: &a [1]\nx: *a\n", 1, "anchors and aliases"),
    ("tests: " + "[" * 5000 + "]" * 5000 + "\n", 1, "nesting depth"),
])
def test_bad_pack_tests_are_located_errors(tmp_path, text, line, words):
    path = write(tmp_path, "bad.test.yaml", text)
    done = CliRunner().invoke(app, ["test", str(path)])
    assert done.exit_code == 2, done.output
    first = done.stderr.splitlines()[0]
    assert first.startswith(f"error: {path}" + (f":{line}:" if line else "")), first
    assert words in first


def test_a_refused_file_is_counted_beside_the_tests_that_ran(tmp_path):
    """The tests before a bad entry still run and count; the summary says a file was refused,
    so '1 passed, 0 failed' never reads as a clean run (and the exit status is 2)."""
    path = write(tmp_path, "half.test.yaml", "tests:\n"
                 "  - {name: good, case: b_training_run, expect: {fired: [compile_fuses_elementwise]}}\n"
                 "  - {name: typo, case: b_training_run, expect: {fired: [no_such_rule]}}\n")
    done = CliRunner().invoke(app, ["test", str(path)])
    assert done.exit_code == 2, done.output
    assert "no rule with the id 'no_such_rule'" in done.stderr
    assert "1 passed, 0 failed, 1 file(s) refused (see their error: lines), 1 file(s)" in done.stdout


@pytest.mark.e2e
def test_hostile_layer_is_refused_fast(tmp_path):
    layer = tmp_path / "site"
    layer.mkdir()
    write(layer, "bomb.yaml", "pack: p\ndescription: d\nrules:\n  - id: x\n    description: d\n"
          "    when: " + "not " * 200 + "batch > 1" + "\n    finding: f\n    because: b\n")
    done = run_cli("test", str(layer))
    assert done.returncode == 2 and "too large or too deeply nested" in done.stderr

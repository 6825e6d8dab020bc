"""Regressions for an independent review: hangs, blow-ups, divergences and unlocated errors."""

from __future__ import annotations

import json

import pytest
from conftest import GOOD_CASE as CASE
from conftest import ROOT, case_error, run_cli, write

from regime.core.errors import RegimeError, did_you_mean
from regime.engine import lang
from regime.engine.knowledge.load import load_knowledge
from regime.facts.vocabulary import load_vocabulary


def pack_error(tmp_path, text: str) -> RegimeError:
    path = write(tmp_path, "p.yaml", "pack: p\ndescription: d\n" + text)
    with pytest.raises(RegimeError) as info:
        load_knowledge(load_vocabulary(), [path])
    assert info.value.file == str(path), str(info.value)
    return info.value


@pytest.mark.parametrize("unit", ["1 (9**9**9)", "1 (10^10^10)", "2 GB**9**9", "3 (GB)"])
def test_unit_strings_cannot_make_pint_compute(tmp_path, knowledge, unit):
    err = case_error(tmp_path, knowledge, CASE.replace("26 GB", unit))
    assert err.field == "facts.weight_bytes"


def test_pack_units_are_checked_not_evaluated(tmp_path):
    err = pack_error(tmp_path, 'facts:\n  x_rate: {unit: "1/0", meaning: m}\n')
    assert "x_rate" in (err.field or "")


def test_yaml_aliases_are_refused(tmp_path, knowledge):
    bomb = "title: t\nfacts:\n  phase: &a [x, x, x]\n  batch: *a\n"
    err = case_error(tmp_path, knowledge, bomb)
    assert "anchors and aliases" in str(err) and err.line == 3


def test_deeply_nested_yaml_is_an_error(tmp_path, knowledge):
    err = case_error(tmp_path, knowledge, "title: t\nsummary: " + "{a: " * 900 + "1" + "}" * 900 + "\n")
    assert err.file and ("nested" in str(err) or "malformed" in str(err))


@pytest.mark.parametrize("condition", [
    "(" * 25 + "batch" + ")**3" * 25 + " > 1",
    "batch > " + "-" * 1900 + "1",
    "batch > " + "+".join(["1"] * 900),
    "batch > " + "+".join(["batch"] * 300),
    "not " * 450 + "batch > 1",
])
def test_expression_size_is_bounded(condition):
    with pytest.raises(lang.ExprError):
        lang.parse(condition, lang.Context(load_vocabulary()), "condition")


@pytest.mark.parametrize("name", ["sid", "id", "batch__extra"])
def test_reserved_fact_names(tmp_path, name):
    err = pack_error(tmp_path, f'facts:\n  {name}: {{unit: "1", meaning: m}}\n')
    assert name in (err.field or "")


def test_case_too_large_for_durable_is_a_located_error(tmp_path, knowledge):
    members = ", ".join(f"k{i}: 0.1%" for i in range(260))
    err = case_error(tmp_path, knowledge, CASE + f"  kernel_share: {{{members}}}\n")
    assert "durable-rules" in str(err) and err.file.endswith("bad.yaml")


@pytest.mark.parametrize("value", [".nan", ".inf", "1e300"])
def test_parameters_must_be_finite(tmp_path, value):
    err = pack_error(tmp_path, f"parameters:\n  thr: {{value: {value}, meaning: m, source: s}}\n")
    assert err.line == 4


@pytest.mark.e2e
def test_constant_only_comparison_agrees_with_python(tmp_path):
    site = write(tmp_path, "site.yaml", "pack: site\ndescription: d\nrules:\n  - id: site_toggle\n"
                 "    description: d\n    when: util_high > 0.4 and phase == \"decode\"\n"
                 "    finding: site_on\n    because: x\n  - id: site_never\n    description: d\n"
                 "    when: not (1 < 2) and phase == \"decode\"\n    finding: site_off\n    because: x\n")
    case_a = str(ROOT / "cases" / "a_chatbot.yaml")
    done = run_cli("diagnose", case_a, "--format", "json", "--rules", str(site))
    assert done.returncode == 0, done.stderr
    ids = {c["id"] for c in json.loads(done.stdout)["results"][0]["conclusions"]}
    assert "site_on" in ids and "site_off" not in ids


def test_tiny_values_are_refused(tmp_path, knowledge):
    err = case_error(tmp_path, knowledge, CASE + "  kernel_duration: 1e-200 s\n")
    assert err.field == "facts.kernel_duration"


@pytest.mark.parametrize(("facts", "rule"), [
    ('  my_num: {unit: "1", meaning: m}\n', "derive: my_num\n    formula: phase"),
    ("  my_dtype: {kind: category, values: [fp16, bf16], meaning: m}\n",
     "derive: my_dtype\n    formula: weight_dtype"),
    ("", "derive: phase\n    formula: batch * 2"),
])
def test_derivations_are_type_checked(tmp_path, facts, rule):
    text = (f"facts:\n{facts}" if facts else "") + \
        f"rules:\n  - id: r1\n    description: d\n    {rule}\n    because: x\n"
    pack_error(tmp_path, text)


def test_a_parameter_cannot_shadow_a_fact(tmp_path):
    err = pack_error(tmp_path, "parameters:\n  batch: {value: 1, meaning: m, source: s}\n")
    assert err.field == "batch" and "declared fact" in str(err)


def test_list_parameters_are_nonempty_and_distinct(tmp_path):
    pack_error(tmp_path, "parameters:\n  none: {list: [], meaning: m, source: s}\n")
    pack_error(tmp_path, "parameters:\n  twice: {list: [add/mul, add_mul], meaning: m, source: s}\n")


@pytest.mark.parametrize("because", ['"{batch@zzzq}"', '"{peak_bw@%}"', '"{kernel_share}"', '"{phase:.1f}"'])
def test_template_fields_are_checked(tmp_path, because):
    err = pack_error(tmp_path, "rules:\n  - id: r1\n    description: d\n    finding: f\n"
                               f"    because: {because}\n")
    assert err.field == "because"


def test_override_of_unknown_rule_names_its_file(tmp_path):
    err = pack_error(tmp_path, "overrides:\n  disable: [no_such_rule]\n")
    assert err.field == "overrides.disable"


def test_inline_hardware_errors_have_a_line(tmp_path, knowledge):
    inline = "hardware:\n  peak_bw: 5 GB\n  peak_flops_by_dtype: {fp16: 1 TFLOP/s}"
    text = CASE.replace("hardware: MI300X", inline)
    err = case_error(tmp_path, knowledge, text)
    assert err.line == 3 and err.field == "hardware.peak_bw"


@pytest.mark.e2e
def test_json_is_one_envelope_whatever_the_inputs(tmp_path):
    bad = write(tmp_path, "bad.yaml", CASE.replace("78%", "178%"))
    good = str(ROOT / "cases" / "a_chatbot.yaml")
    for args, kinds in (([str(bad)], ["error"]), ([str(bad), good], ["error", "regime"]),
                        ([good], ["regime"])):
        doc = json.loads(run_cli("diagnose", *args, "--format", "json").stdout)
        assert list(doc) == ["regime_version", "schema_version", "results", "errors", "summary"]
        assert [next(k for k in ("error", "regime") if k in r) for r in doc["results"]] == kinds


def test_suggestions_do_not_depend_on_container_order():
    as_set = did_you_mean("bytez", {"bytes", "bits", "bytez_x"})
    assert as_set == did_you_mean("bytez", ["bytez_x", "bits", "bytes"])

"""Knowledge layers: a site amends the built-in packs in YAML alone, and every output says how."""

from __future__ import annotations

import json
import os
import subprocess
import sys

import pytest
from conftest import ROOT, TESTS, run_cli, write

from regime.core.errors import RegimeError
from regime.engine import api
from regime.engine.knowledge.paths import CASES_DIR
from regime.engine.report import output

SITE_KV = TESTS / "layers" / "site_kv"
KV_CASE = """\
title: chatbot at batch 16 with its KV cache
hardware: MI300X
facts:
  phase: decode
  batch: 16
  weight_dtype: fp16
  compute_dtype: fp16
  weight_bytes: 26 GB
  site_kv_bytes_per_seq: 1 GB
  throughput: 1300 tokens/s
  flop_util: 4%
  bw_util: 78%
"""


def _site(tmp_path, body: str, name: str = "site"):
    layer = tmp_path / name
    layer.mkdir(exist_ok=True)
    write(layer, "site.yaml", "pack: site\ndescription: a site layer\n" + body)
    return layer


def _load_error(*layers) -> RegimeError:
    with pytest.raises(RegimeError) as info:
        api.knowledge(list(layers))
    return info.value


def test_replacement_is_used_by_everything_that_depends_on_its_fact(tmp_path):
    k = api.knowledge([SITE_KV])
    d = api.diagnose(write(tmp_path, "kv.yaml", KV_CASE), k)
    ceiling = d.facts["ceiling_tokens_per_s"]
    assert ceiling.rule == "decode_bandwidth_ceiling" and ceiling.layer == str(SITE_KV)
    assert "site_kv_bytes_per_pass" in ceiling.formula
    kv = d.fact_value("site_kv_bytes_per_pass")
    expected = d.fact_value("tokens_per_pass") * d.fact_value("peak_bw") / (d.fact_value("weight_bytes") + kv)
    assert ceiling.value == pytest.approx(expected)
    # downstream figures read the replacement; only the weights-only facts stay weights-only
    assert d.fact_value("traffic_fraction") == pytest.approx(d.fact_value("throughput") / ceiling.value)
    int8 = d.fact_value("ceiling_int8_tokens_per_s")
    assert int8 == pytest.approx(d.fact_value("tokens_per_pass") * d.fact_value("peak_bw")
                                 / (d.fact_value("int8_weight_bytes") + kv))
    fix = next(c for c in d.of_kind("fix") if c.lever == "quantize_int8")
    assert next(b for b in fix.bound if b.fact == "ceiling_int8_tokens_per_s").value == pytest.approx(int8)
    text = output.to_markdown(d, k)
    shown = output.show_fact
    assert f"from {shown('ceiling_tokens_per_s', d, k)} to {shown('ceiling_int8_tokens_per_s', d, k)}" in text
    weights_only = d.fact_value("tokens_per_pass") * d.fact_value("peak_bw") / d.fact_value("weight_bytes")
    assert all(abs(rec.value - weights_only) > 1 for name, rec in d.facts.items()
               if isinstance(rec.value, float) and rec.unit == "token/s" and rec.source == "derived"
               and not name.startswith(("weight_ceiling", "class_ceiling")))
    # weight_ceiling*: kept weights-only on purpose (issue 7); class_ceiling: each operator class on its
    # own roof reads device_kv_bytes, which this layer does not replace (the roofline ceiling takes the
    # lower of it and the replaced whole-pass figure)


@pytest.mark.e2e
def test_site_pack_tests_pass_from_the_cli():
    done = run_cli("test", str(SITE_KV))
    assert done.returncode == 0, done.stdout + done.stderr
    assert "rules fired by tests: 6/6" in done.stdout and "3 passed, 0 failed" in done.stdout


@pytest.mark.parametrize("written", ["60%", "0.6", 0.6, "60 %"])
def test_parameter_override_is_unit_aware(tmp_path, written):
    layer = _site(tmp_path, f"overrides:\n  parameters:\n    util_high: {written!r}\n"
                  if isinstance(written, str) else f"overrides:\n  parameters:\n    util_high: {written}\n")
    k = api.knowledge([layer])
    assert k.parameters["util_high"].value == pytest.approx(0.6)
    assert k.parameters["util_high"].layer == str(layer)
    assert [(a.kind, a.target) for a in k.amendments] == [("override", "util_high")]


@pytest.mark.parametrize("written, words", [
    ("6", "outside util_high's range [0%, 100%]"),
    ("160%", "outside util_high's range"),
    ("60 GB", "not a plain number or percentage"),
])
def test_parameter_override_out_of_range_or_unit_is_refused(tmp_path, written, words):
    layer = _site(tmp_path, f"overrides:\n  parameters:\n    util_high: {written}\n")
    err = _load_error(layer)
    assert words in err.message and err.line == 5 and err.field == "overrides.parameters.util_high"
    assert str(err).startswith(str(layer / "site.yaml") + ":5:")


def test_disable_by_glob_and_unknown_glob(tmp_path):
    k = api.knowledge([_site(tmp_path, "overrides:\n  disable: ['ask_*']\n")])
    assert not any(r.id.startswith("ask_") for r in k.rules)
    assert sum(a.kind == "disable" for a in k.amendments) >= 3
    err = _load_error(_site(tmp_path, "overrides:\n  disable: ['nothing_*']\n", "other"))
    assert "unknown rule 'nothing_*'" in err.message and err.line == 4


def test_and_when_narrows_a_builtin_rule(tmp_path):
    layer = _site(tmp_path, "overrides:\n  and_when:\n    near_bandwidth_ceiling: batch > 1\n")
    k = api.knowledge([layer])
    rule = next(r for r in k.rules if r.id == "near_bandwidth_ceiling")
    assert rule.when.source.endswith("and (batch > 1)")
    d = api.diagnose(CASES_DIR / "a_chatbot.yaml", k)
    assert "near_bandwidth_ceiling" not in {f.rule for f in d.trace}
    bad = "overrides:\n  and_when:\n    near_bandwidth_ceiling: batch > 1 GB\n"
    err = _load_error(_site(tmp_path, bad, "bad"))
    assert err.line == 5 and "and_when of 'near_bandwidth_ceiling'" in err.message


DUPLICATE = """\
rules:
  - id: my_ceiling
    description: a second opinion on the ceiling
    when: phase == "decode"
    derive: ceiling_tokens_per_s
    formula: tokens_per_pass * peak_bw / weight_bytes
    because: "{ceiling_tokens_per_s}"
"""


def test_two_rules_deriving_one_fact_is_an_error_naming_both(tmp_path):
    err = _load_error(_site(tmp_path, DUPLICATE))
    assert err.code == "RG007" and err.line == 4
    assert "'decode_bandwidth_ceiling' (derive_traffic.yaml:" in err.message
    assert "'my_ceiling'" in err.message


def test_precedence_or_exclusive_conditions_make_two_derivations_legal(tmp_path):
    k = api.knowledge([_site(tmp_path, DUPLICATE.replace("    derive:", "    precedence: 1\n    derive:"))])
    assert next(r for r in k.rules if r.id == "my_ceiling").precedence == 1
    api.knowledge([_site(tmp_path, DUPLICATE.replace('phase == "decode"', 'phase == "prefill"'), "x")])


@pytest.mark.parametrize("body, words", [
    ("  - id: x\n    replaces: no_such_rule\n    description: d\n    derive: ridge_point\n"
     "    formula: peak_flops / peak_bw\n    because: b\n", "replaces unknown rule 'no_such_rule'"),
    ("  - id: ridge_point\n    replaces: ridge_point\n    description: d\n    derive: ridge_ratio\n"
     "    formula: 1\n    because: b\n", "which derives ridge_point; a replacement concludes the same thing"),
])
def test_bad_replacements_are_located(tmp_path, body, words):
    err = _load_error(_site(tmp_path, "rules:\n" + body))
    assert words in err.message and err.line == 5 and err.field == "replaces"


@pytest.mark.e2e
def test_every_output_states_layers_and_amendments(tmp_path):
    case = write(tmp_path, "kv.yaml", KV_CASE)
    args = ["diagnose", str(case), "--rules", str(SITE_KV)]
    doc = json.loads(run_cli(*args, "--format", "json").stdout)["results"][0]
    assert doc["knowledge"]["layers"] == ["built-in", str(SITE_KV)]
    kinds = {(a["kind"], a["target"]) for a in doc["knowledge"]["amendments"]}
    assert {("override", "near_ceiling"), ("replace", "decode_bandwidth_ceiling")} <= kinds
    layers = {t["rule"]: t["layer"] for t in doc["trace"]}
    assert layers["decode_bandwidth_ceiling"] == str(SITE_KV) and layers["ridge_point"] == "built-in"
    assert doc["facts"]["near_ceiling"]["layer"] == str(SITE_KV)
    text = run_cli(*args).stdout
    md = run_cli(*args, "--format", "markdown").stdout
    for out in (text, md):
        assert f"knowledge: built-in + {SITE_KV}" in " ".join(out.split())
        assert "override near_ceiling (70% -> 60%)" in " ".join(out.split())


@pytest.mark.e2e
def test_regime_rules_environment_variable_adds_layers(tmp_path):
    layer = _site(tmp_path, "overrides:\n  parameters:\n    near_ceiling: 90%\n")
    env = {**os.environ, "REGIME_RULES": os.pathsep.join([str(layer), ""])}
    done = subprocess.run([sys.executable, "-m", "regime.engine.cli", "diagnose", "a_chatbot", "--format",
                           "json"], capture_output=True, text=True, cwd=ROOT, env=env, timeout=300)
    doc = json.loads(done.stdout)["results"][0]
    assert doc["knowledge"]["layers"] == ["built-in", str(layer)]
    assert "near_bandwidth_ceiling" not in {c["rule"] for c in doc["conclusions"]}


def test_a_layer_adds_hardware(tmp_path):
    layer = _site(tmp_path, "hardware:\n  site_gpu:\n    aliases: [our gpu]\n    peak_bw: 2 TB/s\n"
                  "    hbm_capacity: 80 GB\n    peak_flops_by_dtype: {fp16: 500 TFLOP/s}\n")
    k = api.knowledge([layer])
    case = write(tmp_path, "c.yaml", (CASES_DIR / "a_chatbot.yaml").read_text().replace("MI300X", "our gpu"))
    d = api.diagnose(case, k)
    assert d.fact_value("peak_bw") == 2e12 and d.facts["peak_bw"].source == "catalogue"
    err = _load_error(_site(tmp_path, "hardware:\n  bad_gpu:\n    peak_bw: 2 GB\n", "bad"))
    assert err.field == "peak_bw" and err.line == 5


def test_template_fact_not_guaranteed_is_refused_at_load(tmp_path):
    body = ("rules:\n  - id: talk\n    description: d\n    when: phase == \"decode\"\n    finding: talk\n"
            "    because: \"{ttft} to first token\"\n")
    err = _load_error(_site(tmp_path, body))
    assert err.code == "RG006" and err.line == 4 and "present(ttft)" in err.message


@pytest.mark.e2e
def test_builtin_cases_are_named_by_id():
    done = run_cli("diagnose", "a_chatbot", "--format", "json")
    assert done.returncode == 0 and json.loads(done.stdout)["results"][0]["case"] == "a_chatbot"
    done = run_cli("diagnose", "a_chatbo")
    assert done.returncode == 2 and "did you mean 'a_chatbot'" in done.stderr

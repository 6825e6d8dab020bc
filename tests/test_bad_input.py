"""Bad input gets a clear error naming file, line and field; a batch loses nothing."""

from __future__ import annotations

from pathlib import Path

import pytest
from conftest import GOOD_CASE, TOY, case_error, run_cli, write

from regime.core.errors import RegimeError
from regime.engine import api
from regime.engine.knowledge.load import load_knowledge
from regime.facts.vocabulary import load_vocabulary


@pytest.mark.parametrize(("replace", "line", "field", "words"), [
    ("bw_util: 78%", 10, "facts.bw_util", ["178%", "outside the valid range", "[0%, 100%]"]),
    ("batch: 1", 5, "facts.batch", ["-1", "outside the valid range"]),
    ("flop_util: 4%", 9, "facts.flop_util", ["5 GB", "not a plain number or percentage"]),
    ("weight_bytes: 26 GB", 8, "facts.weight_bytes", ["26", "no unit"]),
    ("phase: decode", 4, "facts.phase", ["decod", "did you mean 'decode'"]),
    ("flop_util: 4%", 9, "facts.flop_util", ["True"]),
])
def test_bad_values_name_line_and_field(tmp_path, knowledge, replace, line, field, words):
    bad = {"bw_util: 78%": "bw_util: 178%", "batch: 1": "batch: -1",
           "flop_util: 4%": "flop_util: 5 GB", "weight_bytes: 26 GB": "weight_bytes: 26",
           "phase: decode": "phase: decod"}[replace]
    if words == ["True"]:
        bad = "flop_util: true"
    err = case_error(tmp_path, knowledge, GOOD_CASE.replace(replace, bad))
    assert (err.line, err.field) == (line, field)
    for w in words:
        assert w.lower() in str(err).lower()


def test_unknown_fact_suggests_nearest(tmp_path, knowledge):
    err = case_error(tmp_path, knowledge, GOOD_CASE.replace("bw_util: 78%", "bw_utl: 78%"))
    assert err.line == 10 and "did you mean 'bw_util'" in str(err)


def test_unknown_gpu_and_model_suggest_nearest(tmp_path, knowledge):
    err = case_error(tmp_path, knowledge, GOOD_CASE.replace("MI300X", "MI300"))
    assert (err.line, err.field) == (2, "hardware") and "MI300X" in str(err)
    err = case_error(tmp_path, knowledge, GOOD_CASE + "model: lama-2-13b\n")
    assert err.field == "model" and "llama-2-13b" in str(err)


def test_malformed_yaml_names_the_line(tmp_path, knowledge):
    err = case_error(tmp_path, knowledge, GOOD_CASE.replace("  batch: 1", "  batch: [1"))
    assert "malformed YAML" in str(err) and err.line is not None


def test_unknown_proposal_is_an_error(tmp_path, knowledge):
    err = case_error(tmp_path, knowledge, GOOD_CASE + "proposals: [quantise_int4]\n")
    assert err.field == "proposals[0]" and "quantize_int4" in str(err)


def test_group_members_cannot_add_past_the_whole(tmp_path, knowledge):
    err = case_error(tmp_path, knowledge, GOOD_CASE + "  kernel_share: {a: 60%, b: 50%}\n")
    assert err.field == "facts.kernel_share" and "110%" in str(err)


# ---- packs -------------------------------------------------------------------------------

PACK_HEAD = """\
pack: bad
description: a pack with one mistake
resources: {toy_resource: r}
levers:
  toy_lever: {meaning: m, attacks: [toy_resource]}
rules:
"""


def pack_error(tmp_path: Path, rules: str) -> RegimeError:
    path = write(tmp_path, "pack.yaml", PACK_HEAD + rules)
    with pytest.raises(RegimeError) as info:
        load_knowledge(load_vocabulary(), [path])
    assert info.value.file == str(path)
    return info.value


def rule(when: str, **extra: str) -> str:
    body = {"id": "r1", "description": "d", "when": when, "finding": "f", "because": "x"} | extra
    return "  - " + "\n    ".join(f"{k}: {v}" for k, v in body.items()) + "\n"


@pytest.mark.parametrize(("when", "words"), [
    ("bw_utl > 0.5", "did you mean 'bw_util'"),
    ("open('x') == 1", "function 'open' is not allowed"),
    ("__import__('os').system('x') == 0", "not allowed"),
    ("bw_util.real > 0", "not allowed"),
    ("__class__ > 1", "not allowed"),
    ("flop_util / throughput > 1 and flop_util / (1 - bw_util) > 2", "could be by zero"),
    ("phase == 'decod'", "did you mean 'decode'"),
    ("phase > 3", "cannot compare"),
    ("bw_util + phase > 1", "arithmetic needs numbers"),
    ("bw_util", "must be true/false"),
    ("[x for x in (1,)] == 1", "not allowed"),
    ("lambda: 1", "not allowed"),
])
def test_bad_conditions_are_rejected_at_load(tmp_path, when, words):
    err = pack_error(tmp_path, rule(f'"{when}"'))
    assert err.line == 9 and err.field == "when", str(err)
    assert words in str(err)


def test_template_naming_unknown_fact(tmp_path):
    err = pack_error(tmp_path, rule("bw_util > 0.5", because='"{bw_utl} is high"'))
    assert err.field == "because" and "did you mean 'bw_util'" in str(err)


def test_duplicate_rule_ids(tmp_path):
    err = pack_error(tmp_path, rule("bw_util > 0.5") + rule("bw_util > 0.6"))
    assert err.field == "id" and "already used" in str(err) and err.line == 12


def test_unknown_lever_and_missing_conclusion(tmp_path):
    err = pack_error(tmp_path, "  - {id: r1, description: d, fix: toy_leverr, priority: 1, because: x}\n")
    assert "did you mean 'toy_lever'" in str(err)
    err = pack_error(tmp_path, "  - {id: r1, description: d, because: x}\n")
    assert "exactly one conclusion" in str(err) and err.line == 7


def test_derive_into_a_group_or_undeclared_fact(tmp_path):
    err = pack_error(tmp_path, "  - {id: r1, description: d, derive: tokens_per_pas, formula: batch,"
                               " because: x}\n")
    assert "did you mean 'tokens_per_pass'" in str(err)


# ---- batches and the CLI ------------------------------------------------------------------

def test_batch_reports_each_failure_and_runs_the_rest(tmp_path, knowledge):
    good = write(tmp_path, "good.yaml", GOOD_CASE)
    broken = write(tmp_path, "broken.yaml", GOOD_CASE.replace("bw_util: 78%", "bw_util: 178%"))
    missing = tmp_path / "missing.yaml"
    outcomes = api.diagnose_all([broken, good, missing], knowledge)
    assert [o.diagnosis is not None for o in outcomes] == [False, True, False]
    assert outcomes[1].diagnosis.fact_value("regime") == "bandwidth_bound"
    assert "bw_util" in str(outcomes[0].error) and "missing.yaml" in str(outcomes[2].error)


@pytest.mark.e2e
def test_cli_exit_code_2_without_traceback(tmp_path):
    good = write(tmp_path, "good.yaml", GOOD_CASE)
    broken = write(tmp_path, "broken.yaml", GOOD_CASE.replace("batch: 1", "batch: -1"))
    done = run_cli("diagnose", str(broken), str(good), "--format", "json")
    assert done.returncode == 2
    assert "Traceback" not in done.stderr
    assert f"{broken}:5: facts.batch:" in done.stderr
    assert '"case": "good"' in done.stdout


@pytest.mark.e2e
def test_cli_bad_pack_exit_code_2(tmp_path):
    bad = write(tmp_path, "site.yaml", PACK_HEAD + rule("open('x') == 1"))
    done = run_cli("check", "--rules", str(bad))
    assert done.returncode == 2 and "Traceback" not in done.stderr
    assert f"{bad}:9: when:" in done.stderr


def test_toy_dir_is_not_a_builtin_pack():
    assert (TOY / "toy_pack.yaml").exists()


def test_misspelled_top_level_key_suggests_the_right_one(tmp_path, knowledge):
    err = case_error(tmp_path, knowledge, GOOD_CASE.replace("hardware:", "hardwre:"))
    assert (err.line, err.field) == (2, "hardwre") and "did you mean 'hardware'" in str(err)


def test_bad_parameter_and_lever_declarations_name_their_line(tmp_path):
    path = write(tmp_path, "p.yaml", "pack: p\ndescription: d\nparameters:\n  x: {value: 1, meaning: m}\n")
    with pytest.raises(RegimeError) as info:
        load_knowledge(load_vocabulary(), [path])
    assert (info.value.line, info.value.field) == (4, "x.source")

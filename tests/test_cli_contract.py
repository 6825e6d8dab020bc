"""The output contract of `regime diagnose`, what-ifs included (fuzz classes set-* and
slow-refusal-*): json is one envelope, jsonl one object per line, a refused input takes its
place with exit code 2 and the rest still run; an input with thousands of mistakes is refused
with a capped, counted list. And the commands the CLI issue's 'done when' names."""

from __future__ import annotations

import json

import pytest
from conftest import ROOT, TESTS, run_cli

from regime.core.errors import MAX_REPORTED, Collector, RegimeError, RegimeErrors

pytestmark = pytest.mark.e2e  # these start the CLI in a fresh interpreter


def _errors(stderr: str) -> list[str]:
    return [line for line in stderr.splitlines() if line.startswith("error: ")]


def test_set_json_is_one_envelope_with_each_refusal_in_its_place(tmp_path):
    empty = tmp_path / "empty"
    empty.mkdir()
    done = run_cli("diagnose", "nope_case", str(empty), "a_chatbot", "--set", "batch=8", "--format", "json")
    assert done.returncode == 2
    doc = json.loads(done.stdout)
    assert [r["case"] for r in doc["results"]] == ["nope_case", "empty", "a_chatbot"]
    assert doc["summary"] == {"cases": 3, "diagnosed": 1, "refused": 2}
    assert [r["error"]["file"] for r in doc["results"][:2]] == ["nope_case", str(empty)]
    assert doc["results"][2]["what_if"]["set"] == ["batch=8"]
    assert len(_errors(done.stderr)) == 2


def test_set_jsonl_is_one_object_per_case_and_line():
    done = run_cli("diagnose", "a_chatbot", "b_training_run", "--set", "batch=8", "--format", "jsonl")
    assert done.returncode == 0, done.stderr
    rows = [json.loads(line) for line in done.stdout.splitlines()]
    assert [r["case"] for r in rows] == ["a_chatbot", "b_training_run"]
    assert all(r["what_if"]["set"] == ["batch=8"] for r in rows)


def test_a_bad_set_is_refused_once_before_any_case_runs():
    done = run_cli("diagnose", "a_chatbot", "b_training_run", "--set", "nope=3", "--format", "json")
    doc = json.loads(done.stdout)  # the envelope still comes, with no results and the refusal
    assert done.returncode == 2 and doc["results"] == [] and doc["errors"][0]["field"] == "--set nope=3"
    [line] = _errors(done.stderr)
    assert "--set nope=3" in line


def test_many_mistakes_in_one_input_are_capped_and_counted(tmp_path):
    facts = tmp_path / "many_facts.yaml"
    facts.write_text("\n".join(["title: t", "hardware: MI300X", "facts:", "  phase: decode",
                                *(f"  unknown_{i}: {i}" for i in range(2000))]) + "\n", encoding="utf-8")
    keys = tmp_path / "many_keys.yaml"
    keys.write_text(json.dumps({f"k{i}": i for i in range(2000)}) + "\n", encoding="utf-8")
    hardware = tmp_path / "many_hardware_keys.yaml"  # inline hardware, and unknown proposals
    hardware.write_text(json.dumps({"title": "t", "hardware": {f"k{i}": i for i in range(2000)},
                                    "proposals": [f"lever_{i}" for i in range(2000)]}), encoding="utf-8")
    done = run_cli("diagnose", str(facts), str(keys), str(hardware), "--format", "jsonl")
    assert done.returncode == 2
    facts_doc, keys_doc, hardware_doc = (json.loads(line) for line in done.stdout.splitlines())
    assert len(hardware_doc["errors"]) == MAX_REPORTED + 1
    assert hardware_doc["errors"][-1]["message"] == f"… and {4000 - MAX_REPORTED:,} more errors"
    assert len(facts_doc["errors"]) == MAX_REPORTED + 1
    assert facts_doc["errors"][-1]["message"] == f"… and {2000 - MAX_REPORTED:,} more unknown facts"
    # the one-off error (title is required) is kept over the many of one kind
    assert any(e["field"] == "title" for e in keys_doc["errors"])
    assert keys_doc["errors"][-1]["message"] == f"… and {2000 - MAX_REPORTED + 1:,} more unknown keys"
    assert len(_errors(done.stderr)) == 3 * (MAX_REPORTED + 1)


def test_a_collector_past_the_cap_counts_instead_of_keeping():
    errors = Collector()
    for i in range(MAX_REPORTED + 5):
        errors.errors.append(RegimeError(f"unknown fact 'x{i}'", file="f", kind="unknown fact"))
    assert errors.full
    errors.count("unknown fact")
    try:
        errors.raise_if_any()
    except RegimeErrors as err:
        got = err.all()
    assert len(got) == MAX_REPORTED + 1 and got[-1].message == "… and 6 more unknown facts"


def test_the_vary_error_names_vary():
    done = run_cli("sweep", "a_chatbot", "--vary", "nope=1..8")
    assert done.returncode == 2
    [line] = _errors(done.stderr)
    assert "--vary" in line and "--set" not in line


def test_sweep_takes_a_built_in_case_name():
    done = run_cli("sweep", "a_chatbot", "--vary", "batch=1..64", "--format", "json", "--engine", "compiled")
    assert done.returncode == 0, done.stderr
    [data] = json.loads(done.stdout)["results"]
    assert data["case"] == "a_chatbot" and data["points"][0]["value"] == 1


def test_report_reads_a_trace(tmp_path):
    out = tmp_path / "out"
    trace = TESTS / "data" / "v100_rank0_train_trimmed.json.gz"
    done = run_cli("report", "--trace", str(trace), "-o", str(out))
    assert done.returncode == 0, done.stderr
    assert (out / "index.html").is_file() and list(out.glob("*.md"))


def test_pack_tests_take_rules_layers():
    site = ROOT / "tests" / "layers" / "site_kv"
    done = run_cli("test", "--rules", str(site))
    assert done.returncode == 0, done.stdout + done.stderr
    assert "failed" in done.stdout and " 0 failed" in done.stdout

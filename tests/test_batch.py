"""Batch diagnosis: directories, one JSON envelope, JSON Lines, stable order for any --jobs,
each refused input reported in its place, and a pool that survives a dying worker."""

from __future__ import annotations

import json
import os
import shutil

import pytest
from conftest import GOOD_CASE, ROOT, run_cli, write

from regime.engine import batch
from regime.engine.knowledge.paths import builtin_cases


def _batch_dir(tmp_path):
    """Three good cases, a broken one and a file that is not a case, in one directory."""
    cases = tmp_path / "cases"
    cases.mkdir()
    for name in ("a_chatbot", "b_training_run", "e_doesnt_add_up"):
        shutil.copy(ROOT / "cases" / f"{name}.yaml", cases / f"{name}.yaml")
    write(cases, "c_broken.yaml", GOOD_CASE.replace("bw_util: 78%", "bw_util: 178%"))
    write(cases, "notes.txt", "not a case")
    return cases


@pytest.mark.e2e
def test_json_envelope_streams_in_order_with_refusals_in_place(tmp_path):
    cases = _batch_dir(tmp_path)
    one = run_cli("diagnose", str(cases), "--format", "json")
    two = run_cli("diagnose", str(cases), "--format", "json", "--jobs", "2")
    assert one.returncode == two.returncode == 2
    assert one.stdout == two.stdout  # the same bytes whatever the number of workers
    doc = json.loads(one.stdout)
    # the envelope's members in their fixed order (errors after the streamed results), each
    # result with sorted keys: the bytes json would write for the document read back
    assert one.stdout == json.dumps(doc, indent=2, ensure_ascii=False) + "\n"
    assert list(doc) == ["regime_version", "schema_version", "results", "errors", "summary"]
    assert [r["case"] for r in doc["results"]] == ["a_chatbot", "b_training_run", "c_broken",
                                                   "e_doesnt_add_up"]
    broken = doc["results"][2]
    assert broken["error"] == {"file": str(cases / "c_broken.yaml"), "line": 10, "field": "facts.bw_util",
                               "message": broken["error"]["message"]}
    assert "178%" in broken["error"]["message"] and "regime" not in broken
    assert doc["summary"] == {"cases": 4, "diagnosed": 3, "refused": 1}
    assert doc["errors"] == broken["errors"]  # every refusal also gathered at the top
    assert one.stderr.count("error: ") == 1 and f"error: {cases / 'c_broken.yaml'}:10: facts.bw_util:" \
        in one.stderr


@pytest.mark.e2e
def test_jsonl_is_one_object_per_case_and_matches_the_envelope(tmp_path):
    cases = _batch_dir(tmp_path)
    lines = run_cli("diagnose", str(cases), "--format", "jsonl", "--jobs", "2").stdout.splitlines()
    envelope = json.loads(run_cli("diagnose", str(cases), "--format", "json").stdout)
    assert [json.loads(line) for line in lines] == envelope["results"]


@pytest.mark.e2e
def test_text_and_markdown_show_the_refusal_in_its_place(tmp_path):
    cases = _batch_dir(tmp_path)
    for fmt in ("text", "markdown"):
        done = run_cli("diagnose", str(cases), "--format", fmt, "--jobs", "2")
        assert done.returncode == 2 and "Traceback" not in done.stderr
        out = done.stdout
        assert out.index("b_training_run") < out.index("refused") < out.index("178%") \
            < out.index("e_doesnt_add_up")


@pytest.mark.e2e
def test_empty_directory_and_missing_file_are_refused_inputs(tmp_path):
    empty = tmp_path / "empty"
    empty.mkdir()
    done = run_cli("diagnose", str(empty), str(tmp_path / "nope.yaml"), str(builtin_cases()[0]),
                   "--format", "jsonl")
    assert done.returncode == 2
    entries = [json.loads(line) for line in done.stdout.splitlines()]
    assert ["error" in e for e in entries] == [True, True, False]
    assert "no case files" in entries[0]["error"]["message"]


def test_ordered_map_is_lazy_and_ordered():
    pulled = []

    def items():
        for i in range(1000):
            pulled.append(i)
            yield i

    out = batch.ordered_map(_square, items(), jobs=2)
    assert [next(out) for _ in range(3)] == [0, 1, 4]
    assert len(pulled) <= 3 + 2 * batch.WINDOW_PER_JOB  # a bounded window, not the whole input
    assert list(out) == [i * i for i in range(3, 1000)]


def _square(i: int) -> int:
    return i * i


def _die_on_seven(i: int) -> int:
    if i == 7:
        os._exit(3)  # a crash in native code, as far as the pool can tell
    return i


def test_a_dying_worker_costs_only_its_own_case():
    out = list(batch.ordered_map(_die_on_seven, range(20), jobs=2, lost=lambda i, why: f"lost {i}"))
    assert out == [*range(7), "lost 7", *range(8, 20)]

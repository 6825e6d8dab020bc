"""One output contract: every command's `--format json` writes one envelope on stdout, valid
against schemas/envelope.schema.json, for valid input and for refused input alike (with the
refusal in `errors`, located, and exit code 2); `jsonl` is one JSON object per line and
`markdown` a document, from the same writers (engine/cli/writers/).

Formats owned by other tools are theirs, not checked here: Gradescope and PrairieLearn
results.json (tests/test_grading_io.py), the case file `regime trace -o` writes, a JSON Schema
(`regime schema`). `init` and `exercise make` write files for people and say so on stderr;
they have no --format."""

from __future__ import annotations

import json

import jsonschema
import pytest
from conftest import ROOT, TESTS, write
from typer.testing import CliRunner

from regime.engine.cli.app import app

SCHEMA = json.loads((ROOT / "schemas" / "envelope.schema.json").read_text(encoding="utf-8"))
BAD_CASE = "title: no hardware\nmodel: llama-3-8b\nfacts:\n  phase: decode\n  batch: 8\n" \
           "  weight_dtype: bf16\n  compute_dtype: bf16\n  throughput: 900 tokens/s\n"
BAD_ANSWER = "case: [unclosed\n"
TRACE = TESTS / "data" / "v100_rank0_train_trimmed.json.gz"

# command line -> exit code; BAD stands for a case file refused for a missing essential, ANSWER
# for a student's answer, BAD_ANSWER for one that cannot be read, TMP for a fresh folder
CALLS = [
    ("diagnose a_chatbot", 0), ("diagnose BAD", 2), ("diagnose a_chatbot --set nonsense=1", 2),
    ("why a_chatbot raise_batch", 0), ("why a_chatbot no_such_subject", 2), ("why BAD regime", 2),
    ("why a_chatbot quantize_int4 --set batch=512", 0), ("why a_chatbot raise_batch --set nope=1", 2),
    ("list levers", 0), ("list cases", 0), ("list levers --rules MISSING_DIR", 2),
    ("check", 0), ("check --rules MISSING_DIR", 2), ("check --codes", 0), ("check --select NOPE", 2),
    ("test ROOT/tests/layers/site_kv", 0), ("test MISSING_DIR", 2),
    ("sweep a_chatbot --vary batch=1..8", 0), ("sweep a_chatbot --vary nonsense=1..8", 2),
    ("sweep a_chatbot --vary batch=1..8 --set weight_dtype=int8", 0),
    ("compare a_chatbot a_chatbot", 0), ("compare a_chatbot BAD", 2),
    ("report a_chatbot -o TMP/out", 0), ("report a_chatbot BAD -o TMP/out", 2),
    ("report a_chatbot --set batch=8 -o TMP/out", 0), ("report a_chatbot --set nope=1 -o TMP/out", 2),
    ("grade ANSWER", 0), ("grade ANSWER BAD_ANSWER", 2), ("grade TMP/empty", 2),
    ("trace TRACE", 0), ("trace MISSING_DIR/t.json", 2),
]


def _args(line: str, tmp_path) -> list[str]:
    bad = write(tmp_path, "bad.yaml", BAD_CASE)
    bad_answer = write(tmp_path, "bad_answer.yaml", BAD_ANSWER)
    (tmp_path / "empty").mkdir(exist_ok=True)
    names = {"BAD_ANSWER": bad_answer, "BAD": bad, "ANSWER": ROOT / "answers" / "a_chatbot.solution.md",
             "MISSING_DIR": tmp_path / "none", "ROOT": ROOT, "TMP": tmp_path, "TRACE": TRACE}
    out = []
    for arg in line.split():
        for name, value in names.items():  # BAD_ANSWER before BAD
            arg = arg.replace(name, str(value))
        out.append(arg)
    return out


def _run(args: list[str]):
    return CliRunner().invoke(app, args, prog_name="regime")


@pytest.mark.parametrize(("line", "code"), CALLS, ids=[c for c, _ in CALLS])
def test_every_command_writes_one_envelope(tmp_path, line, code):
    done = _run([*_args(line, tmp_path), "--format", "json"])
    assert done.exit_code == code, done.output
    doc = json.loads(done.stdout)
    jsonschema.validate(doc, SCHEMA)
    assert bool(doc["errors"]) == (code == 2)
    for error in doc["errors"]:  # each error also an `error: FILE:LINE: ...` line on stderr
        assert error["message"] in done.stderr
    if line.startswith("diagnose BAD") or line.startswith("why BAD"):
        assert doc["errors"][0]["file"] == str(tmp_path / "bad.yaml") and doc["errors"][0]["line"] == 8
        assert doc["errors"][0]["field"] == "facts.throughput"
    if "BAD_ANSWER" in line:
        [error] = doc["errors"]
        assert error["file"] == str(tmp_path / "bad_answer.yaml") and error["line"] == 2


FOUR = [c for c in CALLS if c[0].split()[0] in ("why", "list", "check", "test", "sweep", "compare", "report",
                                               "grade")]


@pytest.mark.parametrize(("line", "code"), FOUR, ids=[c for c, _ in FOUR])
def test_jsonl_is_the_envelopes_results_and_errors_one_per_line(tmp_path, line, code):
    args = _args(line, tmp_path)
    doc = json.loads(_run([*args, "--format", "json"]).stdout)
    done = _run([*args, "--format", "jsonl"])
    assert done.exit_code == code, done.output
    rows = [json.loads(row) for row in done.stdout.splitlines()]
    # report and grade: a refused input is a result in its place; a refused command has none
    in_place = line.split()[0] in ("report", "grade") and doc["results"]
    assert rows == _sorted(doc["results"]) + [{"error": e} for e in doc["errors"] if not in_place]


def _sorted(results: list) -> list:
    return [json.loads(json.dumps(r, sort_keys=True)) for r in results]


@pytest.mark.parametrize(("line", "code"), FOUR, ids=[c for c, _ in FOUR])
def test_markdown_is_a_document_with_each_error_said(tmp_path, line, code):
    done = _run([*_args(line, tmp_path), "--format", "markdown"])
    assert done.exit_code == code, done.output
    assert done.stdout.strip() and "\x1b" not in done.stdout
    if code == 2 and not line.startswith("grade"):  # grade's errors are in each student's feedback
        assert "**error:**" in done.stdout


def test_the_streamed_envelope_has_the_same_shape_as_the_written_one(tmp_path):
    """diagnose streams its envelope; its keys and order are those of writers.envelope.document."""
    from regime.engine.cli.writers import envelope
    bad = write(tmp_path, "bad.yaml", BAD_CASE)
    done = _run(["diagnose", "a_chatbot", str(bad), "--format", "json"])
    streamed = json.loads(done.stdout)
    written = json.loads(envelope.document([], [], {}))
    assert list(streamed) == list(written) == list(envelope.KEYS)
    assert streamed["summary"] == {"cases": 2, "diagnosed": 1, "refused": 1}
    assert streamed["results"][1]["errors"] == streamed["errors"]


def test_json_files_regime_writes_are_envelopes_too(tmp_path):
    """A report's CASE.json and grade's grades.json: the same envelope, each result in it."""
    out = tmp_path / "rep"
    assert _run(["report", "a_chatbot", "-o", str(out)]).exit_code == 0
    doc = json.loads((out / "a_chatbot.json").read_text(encoding="utf-8"))
    jsonschema.validate(doc, SCHEMA)
    assert doc["results"][0]["case"] == "a_chatbot"
    grades = tmp_path / "grades"
    done = _run(["grade", str(ROOT / "answers" / "a_chatbot.solution.md"), "-f", "json", "-o", str(grades)])
    assert done.exit_code == 0 and f"{grades}/: grades.json" in done.stderr and not done.stdout
    doc = json.loads((grades / "grades.json").read_text(encoding="utf-8"))
    jsonschema.validate(doc, SCHEMA)
    assert doc["summary"] == {"submissions": 1, "graded": 1, "not_graded": 0}
    assert doc["statistics"]["a_chatbot"]["mean_score"] == doc["results"][0]["score"] / 100


def test_trace_o_writes_the_case_and_json_on_stdout_is_the_envelope(tmp_path):
    case = tmp_path / "t.json"
    done = _run(["trace", str(TRACE), "-o", str(case), "-f", "json"])
    assert done.exit_code == 0, done.output
    [result] = json.loads(done.stdout)["results"]
    written = json.loads(case.read_text(encoding="utf-8"))  # a case file, as every case is written
    assert "regime_version" not in written and written["facts"] == result["facts"]

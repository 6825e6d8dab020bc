"""One JSON contract: every command's `--format json` writes one envelope on stdout, valid
against schemas/envelope.schema.json, for valid input and for refused input alike (with the
refusal in `errors`, located, and exit code 2). Formats owned by other tools (Gradescope and
PrairieLearn results.json, the case `regime trace` writes) are theirs, not checked here."""

from __future__ import annotations

import json

import jsonschema
import pytest
from conftest import ROOT, write
from typer.testing import CliRunner

from regime.engine.cli.app import app

SCHEMA = json.loads((ROOT / "schemas" / "envelope.schema.json").read_text(encoding="utf-8"))
BAD_CASE = "title: no hardware\nmodel: llama-3-8b\nfacts:\n  phase: decode\n  batch: 8\n" \
           "  weight_dtype: bf16\n  compute_dtype: bf16\n  throughput: 900 tokens/s\n"

# command line -> exit code; BAD stands for a case file refused for a missing essential
CALLS = [
    ("diagnose a_chatbot", 0), ("diagnose BAD", 2), ("diagnose a_chatbot --set nonsense=1", 2),
    ("why a_chatbot raise_batch", 0), ("why a_chatbot no_such_subject", 2), ("why BAD regime", 2),
    ("list levers", 0), ("list cases", 0),
    ("check", 0), ("check --rules MISSING_DIR", 2),
    ("test ROOT/tests/layers/site_kv", 0), ("test MISSING_DIR", 2),
    ("sweep a_chatbot --vary batch=1..8", 0), ("sweep a_chatbot --vary nonsense=1..8", 2),
    ("why a_chatbot quantize_int4 --set batch=512", 0), ("why a_chatbot raise_batch --set nope=1", 2),
    ("sweep a_chatbot --vary batch=1..8 --set weight_dtype=int8", 0),
]


@pytest.mark.parametrize(("line", "code"), CALLS, ids=[c for c, _ in CALLS])
def test_every_command_writes_one_envelope(tmp_path, line, code):
    bad = write(tmp_path, "bad.yaml", BAD_CASE)
    args = [a.replace("BAD", str(bad)).replace("MISSING_DIR", str(tmp_path / "none"))
            .replace("ROOT", str(ROOT)) for a in line.split()]
    done = CliRunner().invoke(app, [*args, "--format", "json"], prog_name="regime")
    assert done.exit_code == code, done.output
    doc = json.loads(done.stdout)
    jsonschema.validate(doc, SCHEMA)
    assert bool(doc["errors"]) == (code == 2)
    if "BAD" in line:
        assert doc["errors"][0]["file"] == str(bad) and doc["errors"][0]["line"] == 8
        assert doc["errors"][0]["field"] == "facts.throughput"


def test_the_streamed_envelope_has_the_same_shape_as_the_written_one(tmp_path):
    """diagnose streams its envelope; its keys and order are those of core.envelope."""
    from regime.engine.cli import core
    bad = write(tmp_path, "bad.yaml", BAD_CASE)
    done = CliRunner().invoke(app, ["diagnose", "a_chatbot", str(bad), "--format", "json"])
    streamed = json.loads(done.stdout)
    written = json.loads(core.envelope([], [], {}))
    assert list(streamed) == list(written)
    assert streamed["summary"] == {"cases": 2, "diagnosed": 1, "refused": 1}
    assert streamed["results"][1]["errors"] == streamed["errors"]

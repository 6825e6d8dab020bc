"""A new user's first hour: cases written as people write them, what is missing named.

Each case here is one a person writes from scratch (a Llama-3-8B decode on an H100) with one
thing left out or written their way; the expectation is what the person needs to read.
"""

from __future__ import annotations

import pytest
from conftest import NEW_USER_CASE as LLAMA
from conftest import case_error, write

from regime.core.errors import RegimeError
from regime.engine import api


@pytest.mark.parametrize(("drop", "line", "field", "words"), [
    # no GPU: the throughput cannot become a share of a peak
    ("hardware: H100\n", 8, "facts.throughput", ["no hardware", "`hardware:`", "regime list hardware"]),
    # no phase: batch and throughput mean nothing without what a pass does (batch comes first)
    ("  phase: decode\n", 5, "facts.batch", ["phase is missing", "decode, prefill or training",
                                            "batch and throughput cannot be used"]),
    # no dtypes: neither bytes per weight nor the peak FLOP rate
    ("  weight_dtype: bf16\n  compute_dtype: bf16\n", 7, "facts.throughput", ["dtypes are missing"]),
    # no model: no per-token counts
    ("model: llama-3-8b\n", 8, "facts.throughput", ["model's size is missing", "regime list models"]),
])
def test_a_missing_essential_is_a_located_error(tmp_path, knowledge, drop, line, field, words):
    err = case_error(tmp_path, knowledge, LLAMA.replace(drop, ""))
    assert (err.line, err.field) == (line, field)
    for w in words:
        assert w in str(err)


def test_an_inline_model_without_params_is_named(tmp_path, knowledge):
    text = LLAMA.replace("model: llama-3-8b", "model: {name: mine, hidden_size: 4096, n_layers: 32}")
    err = case_error(tmp_path, knowledge, text)
    assert err.field == "facts.throughput" and "`params:`" in str(err)


def test_missing_hardware_with_nothing_measured_leads_the_report(tmp_path, knowledge):
    """No number measured goes unused (phase and dtypes say what runs), so the case is
    diagnosed, and the ask leads the verdict."""
    left_out = ("hardware", "  throughput")
    path = write(tmp_path, "plan.yaml", "".join(
        line + "\n" for line in LLAMA.splitlines() if not line.startswith(left_out)))
    d = api.diagnose(path, knowledge)
    asks = d.of_kind("ask")
    assert asks[0].id == "peak_bw" and asks[0].order == 0
    from regime.engine.report.model import build
    assert build(d, knowledge).verdict.line.startswith("undetermined; no hardware: add `hardware:`")


@pytest.mark.parametrize(("written", "fact", "value"), [
    ("2,048 tokens", "context_tokens", 2048),        # thousands separators, as Regime prints them
    ("2k", "context_tokens", 2000),                   # a count suffix
    ("1.5M tokens", "context_tokens", 1.5e6),
    ("900 tokens per second", "throughput", 900),     # a unit spelled out
    ("14,284 tokens/s", "throughput", 14284),
    ("1,000-2,000 tokens", "context_tokens", 1500),   # a range, separators on both ends
])
def test_numbers_as_people_write_them(tmp_path, knowledge, written, fact, value):
    text = LLAMA.replace("  batch: 8\n", f"  batch: 8\n  {fact}: {written}\n") if fact != "throughput" \
        else LLAMA.replace("900 tokens/s", written)
    d = api.diagnose(write(tmp_path, "c.yaml", text), knowledge)
    assert d.facts[fact].value == pytest.approx(value) and d.facts[fact].written == written


def test_units_stay_units_after_a_number(tmp_path, knowledge):
    """'2 kB' is kilobytes and '2 ms' milliseconds: a suffix is read only straight after the number."""
    from regime.core.units import parse_quantity
    assert parse_quantity("2 kB", "byte").value == 2000
    assert parse_quantity("2ms", "s").value == pytest.approx(0.002)
    with pytest.raises(ValueError, match="not a unit"):
        parse_quantity("2kk tokens", "token")


def test_a_bare_number_where_a_share_is_expected_suggests_the_percentage(tmp_path, knowledge):
    err = case_error(tmp_path, knowledge, LLAMA + "  bw_util: 78\n")
    assert err.field == "facts.bw_util" and str(err).endswith("did you mean 78%?")
    err = case_error(tmp_path, knowledge, LLAMA + "  bw_util: 178\n")
    assert "did you mean" not in str(err)  # 178% is no share either


@pytest.mark.parametrize(("name", "case_id"), [
    ("My-Case.yaml", "my-case"), ("my case.yaml", "my_case"), ("Run 3 (H100).yaml", "run_3_h100"),
])
def test_file_names_become_ids_by_one_rule(tmp_path, knowledge, name, case_id):
    d = api.diagnose(write(tmp_path, name, LLAMA), knowledge)
    assert d.case == case_id


def test_a_file_name_that_gives_no_id_says_so(tmp_path, knowledge):
    path = write(tmp_path, "!!!.yaml", LLAMA)
    with pytest.raises(RegimeError, match=r"gives the id ''.*write an `id:`"):
        api.diagnose(path, knowledge)


def test_set_reads_numbers_the_same_way(knowledge):
    from regime.engine import whatif
    from regime.engine.knowledge.paths import CASES_DIR
    case = whatif.load(CASES_DIR / "a_chatbot.yaml", knowledge)
    changed, _ = whatif.apply(case, whatif.parse_sets(["context_tokens=2,048 tokens", "batch=2k"], knowledge),
                              knowledge)
    assert changed.facts["context_tokens"].value == 2048 and changed.facts["batch"].value == 2000


def test_init_writes_a_case_that_runs_and_asks_for_what_is_missing(tmp_path, knowledge):
    """`regime init MODEL GPU`: names resolved through the catalogues, the phase given, nothing
    invented; the file diagnoses at once, and its first line says what to add first."""
    from regime.engine.cli.init import case_text
    text, name = case_text("Llama-3-8B", "h100", "prefill")
    assert name == "llama-3-8b_h100_sxm_prefill"
    d = api.diagnose(write(tmp_path, f"{name}.yaml", text), knowledge)
    assert d.facts["phase"].value == "prefill" and d.hardware and d.model
    assert d.of_kind("ask")[0].order == 0  # the dtypes, commented out in the template
    filled = text.replace("# weight_dtype", "weight_dtype").replace("# compute_dtype", "compute_dtype")
    d = api.diagnose(write(tmp_path, "filled.yaml", filled), knowledge)
    assert all(a.order != 0 for a in d.of_kind("ask"))


def test_init_names_an_unknown_model_or_gpu():
    from regime.engine.cli.init import case_text
    with pytest.raises(RegimeError, match="did you mean 'llama-3-8b'"):
        case_text("lama-3-8b", "H100", None)
    with pytest.raises(RegimeError, match="not one of decode, prefill, training"):
        case_text("llama-3-8b", "H100", "inference")


def test_report_says_so_when_out_names_a_file_but_makes_a_folder(tmp_path):
    from typer.testing import CliRunner

    from regime.engine.cli.app import app
    out = tmp_path / "review.html"
    done = CliRunner().invoke(app, ["report", "a_chatbot", "-o", str(out)], prog_name="regime")
    assert done.exit_code == 0 and f"note: {out} is a folder" in done.stderr
    assert (out / "index.html").is_file()


def test_why_takes_set_as_diagnose_does():
    """--set on every command that reads one case: why answers for the changed case."""
    from typer.testing import CliRunner

    from regime.engine.cli.app import app
    asked = ["why", "a_chatbot", "quantize_int4"]
    before = CliRunner().invoke(app, asked, prog_name="regime").stdout.splitlines()[0]
    after = CliRunner().invoke(app, [*asked, "--set", "batch=512"], prog_name="regime").stdout.splitlines()[0]
    assert before.startswith("quantize_int4: a fix by ") and after.startswith("quantize_int4: not concluded")


def test_version_lists_the_packs_not_their_tests():
    from regime.engine.knowledge.version import version_text
    text = version_text()
    assert "  classify sha256:" in text and ".test" not in text


def test_list_facts_puts_inputs_first_and_names_files_in_the_package(knowledge):
    from regime.engine.cli.listing import facts
    rows = facts(knowledge)
    roles = [r["role"] for r in rows]
    assert roles == sorted(roles, key=lambda r: r == "derived") and {"input", "derived"} <= set(roles)
    assert {r["name"]: r["role"] for r in rows}["phase"] == "input"
    assert {r["name"]: r["role"] for r in rows}["ridge_point"] == "derived"
    for r in rows:
        assert not r["where"].startswith("/"), r["where"]  # `rules/x.yaml:3`, no site-packages path


def test_the_case_schema_lists_the_input_facts_and_their_values(knowledge):
    from regime.engine.authoring.schema import schema
    listed = schema("case")["properties"]["facts"]["properties"]
    assert listed["phase"]["enum"] == list(knowledge.vocabulary.get("phase").values)
    assert knowledge.vocabulary.get("batch").meaning in listed["batch"]["description"]
    assert "ridge_point" not in listed  # derived: a case does not give it

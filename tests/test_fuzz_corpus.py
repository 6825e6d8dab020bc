"""Every class of input the fuzzer broke, fixed as a class: each input ends as a diagnosis or as
one-line `error: FILE:LINE: FIELD: message` errors with exit code 2, and a batch loses nothing."""

from __future__ import annotations

import csv
import io
import json
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from conftest import GOOD_CASE, ROOT, TESTS, run_cli, write
from rich.console import Console

from regime.core.errors import RegimeError
from regime.engine import api
from regime.engine.knowledge.load import load_knowledge
from regime.engine.knowledge.paths import RULES_DIR
from regime.engine.report import output
from regime.facts.vocabulary import load_vocabulary

CORPUS = TESTS / "fuzz_corpus"

# file -> the errors it must give: (line, field, words in the message); [] means it is diagnosed.
CASES: dict[str, list[tuple[int, str | None, str]]] = {
    "tag_timestamp_in_flow.yaml": [(1, "t", "'!!timestamp' is not supported")],
    "tag_binary_model.yaml": [(2, "model", "'!!binary' is not supported")],
    "tag_bool_empty.yaml": [(1, "y", "not a valid !!bool value")],
    "tag_bool_top_level.yaml": [(1, None, "not a valid !!bool value")],
    "int_too_many_digits.yaml": [(3, "facts.batch", "integer with thousands of digits")],
    "int_beyond_float.yaml": [(5, "facts.tokens_per_seq", "about 309 digits is not a plausible value")],
    "hex_int_beyond_float.yaml": [(3, "facts.batch", "not a plausible value")],
    "inline_category_flow.yaml": [(2, "hardware.regime", "'regime' is a category fact")],
    "inline_category_hardware.yaml": [(5, "hardware.regime", "'regime' is a category fact")],
    "inline_category_full_hardware.yaml": [(26, "hardware.regime", "'regime' is a category fact")],
    "inline_category_cli.yaml": [(12, "hardware.regime", "'regime' is a category fact")],
    "log_and_angle_units.yaml": [(6, "facts.flop_util", "'dB' is a logarithmic unit"),
                                 (7, "facts.bw_util", "in radian, which is not a plain number")],
    "control_char.yaml": [(1, None, "character U+0000 is not allowed")],
    "markup_title.yaml": [],
    "edge_huge.yaml": [],
    "edge_tiny.yaml": [],
}

PACKS: dict[str, tuple[int, str]] = {  # pack -> (line, words) of the error that refuses it
    "offset_unit.yaml": (4, "'degC' is an offset unit"),
    "underflow_manual.yaml": (9, "constant 1e-300 is out of range"),
    "underflow_220.yaml": (11, "constant 1e-200 is out of range"),
    "underflow_denormal_184.yaml": (19, "constant 5e-324 is out of range"),
    "underflow_json_955.yaml": (1, "constant 1e-300 is out of range"),
    "underflow_json_1553.yaml": (1, "constant 1e-200 is out of range"),
    "markup_category_value.yaml": (22, "constant 7e-300 is out of range"),
}


def one_line_located(text: str, file: str) -> bool:
    return "\n" not in text and re.match(rf"^{re.escape(file)}:[1-9]\d*: \S", text) is not None


@pytest.mark.parametrize("name", sorted(CASES))
def test_corpus_case_is_diagnosed_or_refused_with_every_error_located(name, knowledge):
    path = CORPUS / name
    outcome = api.diagnose_all([path], knowledge)[0]
    expected = CASES[name]
    if not expected:
        assert outcome.error is None, str(outcome.error)
        return
    assert outcome.error is not None
    errors = outcome.error.all()
    assert [(e.line, e.field) for e in errors] == [(line, field) for line, field, _ in expected]
    for err, (_, _, words) in zip(errors, expected, strict=True):
        assert words in err.message and one_line_located(str(err), str(path))


@pytest.mark.e2e
@pytest.mark.parametrize("fmt", ["text", "json", "markdown"])
def test_a_batch_of_corpus_cases_drops_no_result(fmt):
    names = sorted(CASES)
    files = [str(CORPUS / n) for n in names] + [str(ROOT / "cases" / "a_chatbot.yaml")]
    proc = run_cli("diagnose", *files, "--format", fmt)
    assert proc.returncode == 2 and "Traceback" not in proc.stderr
    lines = [ln for ln in proc.stderr.splitlines() if ln.startswith("error: ")]
    assert len(lines) == sum(len(v) for v in CASES.values())
    for name in names:
        for line, field, words in CASES[name]:
            prefix = f"error: {CORPUS / name}:{line}: " + (f"{field}: " if field else "")
            assert any(ln.startswith(prefix) and words in ln for ln in lines), (prefix, words)
    diagnosed = [Path(n).stem for n in names if not CASES[n]] + ["a_chatbot"]
    for case_id in diagnosed:
        assert case_id in proc.stdout  # text, JSON and Markdown all name each case


@pytest.mark.parametrize("name", sorted(PACKS))
def test_corpus_pack_is_refused_at_load_with_its_line(name):
    path = CORPUS / "packs" / name
    with pytest.raises(RegimeError) as info:
        load_knowledge(load_vocabulary(), [RULES_DIR, path])
    line, words = PACKS[name]
    assert (info.value.file, info.value.line) == (str(path), line)
    assert words in info.value.message and one_line_located(str(info.value), str(path))


def test_markup_in_titles_and_category_values_prints_as_written():
    k = api.knowledge([CORPUS / "packs" / "markup_category_value_loads.yaml"])
    d = api.diagnose(ROOT / "cases" / "a_chatbot.yaml", k)
    titled = api.diagnose(CORPUS / "markup_title.yaml", k)
    out = io.StringIO()
    console = Console(file=out, width=200, highlight=False)
    for diagnosis in (d, titled):
        output.print_text(diagnosis, k, console)
    text = out.getvalue()
    assert "[/]: " in text and "markup_title — [/]" in text
    output.to_markdown(d, k)


def test_rich_emoji_codes_and_markup_in_a_title_are_not_interpreted(tmp_path, knowledge):
    title = "title: '[bold]x[/bold] :fire: [link=y]z'"
    path = write(tmp_path, "t.yaml", GOOD_CASE.replace("title: ok", title))
    out = io.StringIO()
    output.print_text(api.diagnose(path, knowledge), knowledge, Console(file=out, width=200))
    assert "[bold]x[/bold] :fire: [link=y]z" in out.getvalue()


# ---- the classes behind the corpus, beyond its files ---------------------------------------

def case_errors(tmp_path: Path, knowledge, text: str | bytes) -> list[RegimeError]:
    path = tmp_path / "c.yaml"
    if isinstance(text, bytes):
        path.write_bytes(text)
    else:
        path.write_text(text, encoding="utf-8")
    outcome = api.diagnose_all([path], knowledge)[0]
    assert outcome.error is not None
    errors = outcome.error.all()
    for err in errors:
        assert one_line_located(str(err), str(path)), str(err)
    return errors


@pytest.mark.parametrize(("text", "line", "words"), [
    ("", 1, "got an empty file"),
    ("- a\n- b\n", 1, "got a list"),
    ("\n\njust text\n", 1, "got a plain value"),
    ("title: a\nfacts:\n  batch: 1\n  phase: \x1b[2Jdecode\n", 4, "U+001B"),
    (b"title: a\nfacts:\n  phase: \xff\n", 3, "0xff is not valid UTF-8"),
    ("title: a\nfacts: " + "[" * 40 + "]" * 40 + "\n", 2, "nested more than"),
    ("title: a\ndate: 2024-05-01\n", 2, "unknown key"),
    ("title: !!python/object:os.system x\n", 1, "not supported"),
    ("title: !custom x\n", 1, "'!custom' is not supported"),
    ("title: a\nfacts: !!set {a, b}\n", 2, "'!!set' is not supported"),
    ("title: a\nfacts: {batch: !!int x1}\n", 2, "not a valid !!int value"),
    ("title: a\nfacts: {batch: !!float x}\n", 2, "not a valid !!float value"),
    ("title: a\nfacts: {batch: !!map [1]}\n", 2, "needs a mapping"),
    ("title: a\nfacts:\n  batch: 1\n  batch: 2\n", 4, "duplicate key 'batch'"),
    ("title: a\nfacts:\n  [1, 2]: 3\n", 3, "mapping key must be text"),
    ("summary: no title\n", 1, "title: 'title' is required"),
    ("title: a\nhardware:\n  peak_bw: {source: s}\n", 3, "{value: '3.35 TB/s', source: '...'}"),
])
def test_unreadable_yaml_is_one_located_line(tmp_path, knowledge, text, line, words):
    errors = case_errors(tmp_path, knowledge, text)
    assert errors[0].line == line and words in str(errors[0]), str(errors[0])


def test_an_error_message_stays_on_one_line_whatever_it_quotes(tmp_path, knowledge):
    errors = case_errors(tmp_path, knowledge, GOOD_CASE + '  "bw\\nutil\\u2028x\\ry": 5%\n')
    assert "\n" not in str(errors[0]) and "\u2028" not in str(errors[0]) and errors[0].line == 11


@pytest.mark.e2e
def test_every_error_of_a_case_is_reported_together(tmp_path, knowledge):
    text = (GOOD_CASE.replace("bw_util: 78%", "bw_util: 178%").replace("batch: 1", "batch: -1")
            .replace("phase: decode", "phase: decod") + "proposals: [quantise_int4]\nhardwre: x\n")
    errors = case_errors(tmp_path, knowledge, text)
    assert [(e.line, e.field) for e in errors] == [
        (12, "hardwre"), (4, "facts.phase"), (5, "facts.batch"), (10, "facts.bw_util"),
        (11, "proposals[0]")]
    proc = run_cli("diagnose", str(tmp_path / "c.yaml"))
    lines = proc.stderr.splitlines()
    assert proc.returncode == 2 and len([ln for ln in lines if ln.startswith("error: ")]) == 5


def test_units_that_do_not_scale_are_refused(tmp_path, knowledge):
    for written in ("0.5 dB", "0.5 radian", "3 degree", "1 count", "0.5 Np"):
        errors = case_errors(tmp_path, knowledge, GOOD_CASE.replace("flop_util: 4%", f"flop_util: {written}"))
        assert errors[0].field == "facts.flop_util", written
    errors = case_errors(tmp_path, knowledge, GOOD_CASE.replace("26 GB", "26 degC"))
    assert "offset unit" in str(errors[0])
    ok = write(tmp_path, "ok.yaml", GOOD_CASE.replace("flop_util: 4%", "flop_util: 4 percent"))
    assert api.diagnose(ok, knowledge).fact_value("flop_util") == pytest.approx(0.04)


def test_a_non_mapping_rule_names_its_line(tmp_path):
    path = write(tmp_path, "p.yaml", "pack: p\ndescription: d\nrules:\n  - id: a\n    description: d\n"
                                     "    finding: f\n    because: x\n  - just text\n")
    with pytest.raises(RegimeError) as info:
        load_knowledge(load_vocabulary(), [path])
    assert (info.value.line, info.value.field) == (8, "rules[1]")
    assert "rule #2 must be a mapping" in str(info.value)


PACK = """\
pack: p
description: d
facts:
  tiny_x: {{unit: "1", range: "(0, 1]", meaning: m}}
rules:
  - id: make_tiny
    description: d
    derive: tiny_x
    formula: {formula}
    because: "{{tiny_x}}"
  - id: uses_tiny
    description: d
    when: {when}
    finding: tiny_seen
    because: "x"
"""


@pytest.mark.parametrize(("formula", "when", "line", "words"), [
    ("1e-300", "batch > 1", 9, "constant 1e-300 is out of range"),
    ("phase", "batch > 1", 9, "is a number; the formula gives a category"),
    ("batch * 1e-10", "batch / (tiny_x * tiny_x * tiny_x * tiny_x * tiny_x * tiny_x * tiny_x "
     "* tiny_x * tiny_x * tiny_x * tiny_x * tiny_x * tiny_x * tiny_x * tiny_x * tiny_x * tiny_x "
     "* tiny_x) > 1", 13, "could be by zero"),
    ("batch * 1e-10", "batch < " + " * ".join(["batch ** 3"] * 15), 13, "beyond 1e+300"),
    ("batch * 1e-10", "batch / (1 - gap_fraction) > 1", 13, "could reach inf"),  # a [0, 1) fact
])
def test_conditions_that_could_overflow_or_underflow_are_refused_at_load(tmp_path, formula, when, line,
                                                                         words):
    path = write(tmp_path, "p.yaml", PACK.format(formula=formula, when=when))
    with pytest.raises(RegimeError) as info:
        load_knowledge(load_vocabulary(), [RULES_DIR, path])
    assert info.value.line == line and words in str(info.value), str(info.value)


def test_a_derivation_outside_plausible_magnitudes_is_a_finding_not_a_fault(tmp_path):
    pack = write(tmp_path, "p.yaml", PACK.format(formula="batch * 1e-18 * 1e-18",
                                                 when="batch / (tiny_x * tiny_x) > 1"))
    k = api.knowledge([pack])
    d = api.diagnose(ROOT / "cases" / "a_chatbot.yaml", k)
    failed = [c for c in d.conclusions if c.id == "derivation_failed" and c.rule == "make_tiny"]
    assert failed and "outside the valid range 0 or 1e-18 <= |x| <= 1e+18" in failed[0].because
    assert "tiny_x" not in d.facts and not [c for c in d.conclusions if c.id == "tiny_seen"]


# ---- every folder of the (shared) fuzz corpus, through the CLI, against its README's contract --------
# Each folder is a class with its reproducers and HOW.txt (tests/fuzz_corpus/SHARED_README.md states the
# contract). A run: (arguments, the exit codes the contract allows). "{cases}" is the project's cases/.

Run = tuple[tuple[str, ...], frozenset[int]]
OK, REFUSED, EITHER = frozenset({0}), frozenset({2}), frozenset({0, 2})
FORMATS = ("text", "json", "markdown")


def diag(*files: str, rc: frozenset[int] = EITHER, extra: tuple[str, ...] = ()) -> list[Run]:
    return [(("diagnose", *files, *extra, "--format", f), rc) for f in FORMATS]


def pack_runs(*files: str) -> list[Run]:
    return [(("check", "--rules", "pack"), EITHER),
            *(run for f in files for run in diag(f, extra=("--rules", "pack")))]


def trace(*files: str, rc: frozenset[int] = REFUSED) -> list[Run]:
    return [(("trace", f), rc) for f in files] + [(("diagnose", "--trace", files[0]), rc)]


FOLDERS: dict[str, list[Run]] = {
    "crash_AttributeError_engine_yamlsrc_py_50_construct_mapping": diag("fz_001418.yaml"),
    "crash_AttributeError_facts_catalogue_py_52_entry_facts": diag("fz_001483.yaml"),
    "crash_KeyError_engine_yamlsrc_py_50_construct_mapping": diag("fz_003765.yaml"),
    "crash_MarkupError_engine_report_py_108_section": pack_runs("{cases}/a_chatbot.yaml", "edge_huge.yaml"),
    "crash_MarkupError_engine_report_py_89_print_text": diag("fz_000734.yaml"),
    "crash_OverflowError_engine_units_py_92_parse_quantity": diag("fz_006935.yaml"),
    "crash_TypeError_engine_expr_py_705_compare": diag("fz_001729.yaml"),
    "crash_cli_rc_1_KeyError": diag("fz_cli_00085.yaml"),
    "engine_fault_EngineFault_engine_fault_please_report_case_fz_N_TypeErro": diag("fz_000176.yaml"),
    "engine_fault_EngineFault_engine_fault_please_report_case_g_balanced_ne":
        pack_runs("{cases}/g_balanced_near_ridge_h100.yaml", "edge_tiny.yaml"),
    "engine_fault_EngineFault_engine_fault_please_report_case_g_batchN_hN_b":
        pack_runs("{cases}/g_batch256_h100_bandwidth_bound.yaml", "edge_huge.yaml"),
    "engine_fault_EngineFault_engine_fault_please_report_case_g_fpN_wNaN_bN":
        pack_runs("{cases}/g_fp8_w8a8_b200.yaml", "edge_tiny.yaml"),
    "engine_fault_EngineFault_engine_fault_please_report_case_g_overhead_de":
        pack_runs("{cases}/g_overhead_decode_h100_pcie.yaml", "edge_huge.yaml"),
    "engine_fault_cli_engine_fault": diag("fz_cli_00102.yaml"),
    "manual_bigint_yaml": diag("c.yaml", rc=REFUSED),
    "manual_hexint_overflow": diag("c.yaml", rc=REFUSED),
    "manual_inline_category": diag("c.yaml", rc=REFUSED),
    "manual_log_unit_case": diag("c.yaml", rc=REFUSED),
    "manual_offset_unit_pack": [(("check", "--rules", "pack"), REFUSED)],
    "manual_underflow_pack": [(("check", "--rules", "pack"), REFUSED),
                              (("diagnose", "{cases}/a_chatbot.yaml", "--rules", "pack", "--format", "json"),
                               REFUSED)],
    "multiline_error_cli_error_message_spans_several_lines": diag("fz_cli_00157.yaml"),
    "set-drops-refused-inputs-exit0": [
        (("diagnose", "nope_case", "--set", "batch=8", "--format", "json"), REFUSED),
        (("diagnose", "emptydir", "--set", "batch=8"), REFUSED),
        (("diagnose", "nope_case", "a_chatbot", "--set", "batch=8", "--format", "json"), REFUSED)],
    "set-json-not-an-envelope": [
        (("diagnose", "a_chatbot", "b_training_run", "--set", "batch=8", "--format", "json"), OK),
        (("diagnose", "a_chatbot", "--set", "batch=8", "--format", "jsonl"), OK)],
    "slow-refusal-many-unknown-keys": [(("diagnose", "many_unknown_facts.yaml", "--format", "json"), REFUSED),
                                       (("diagnose", "many_unknown_keys.yaml"), REFUSED)],
    "trace-args-not-a-mapping": trace("trace.json", "trace_runtime.json"),
    "trace-huge-header-memory": trace("header2m.json.gz", "evname10m.json.gz", rc=EITHER),
    "trace-args-number-out-of-range": [
        *trace("counter_1e400.json", "kernel_correlation_1e400.json", "runtime_correlation_400digits.json"),
        (("trace", "ranks", "--jobs", "2"), REFUSED)],
    # read, or refused at the event: which depends on the Python's decoder depth (its HOW.txt)
    "trace-deep-args-recursion": trace("deep_args_1000.json", "deep_cpu_op_args_1000.json", rc=EITHER),
    "trace-ranks-jobs-error-lost": [(("trace", "ranks", "--jobs", "1"), REFUSED),
                                    (("trace", "ranks", "--jobs", "2"), REFUSED)],
    "trace-ranks-output-unwritable": [
        (("trace", "rank0.json.gz", "rank1.json.gz", "-o", "missing_dir/fleet.yaml"), REFUSED),
        (("trace", "rank0.json.gz", "-o", "missing_dir/case.yaml"), REFUSED)],
    "trace-trailing-header-quadratic": trace("empties_then_device.json", "sampled_device_after.json.gz",
                                             rc=OK),
    "trace-counter-values-unchecked": trace("ffma_1e308.json", "dram_negative.json", "ffma_30digits.json",
                                            "counters_null.json"),
    "grade-number-exponent-overflow": [(("grade", "answer.md"), REFUSED),
                                       (("grade", "answer.yaml"), REFUSED)],
    "grade-long-item-quadratic": [(("grade", "batching_x8000.md"), OK),
                                  (("grade", "{answers}/a_chatbot.solution.md", "batching_x8000.md", "--jobs",
                                    "2", "--format", "csv"), OK)],
    "grade-csv-formula-injection": [
        (("grade", "class", "--format", "csv", "-o", "out"), REFUSED),  # one answer names an unknown case
        (("grade", "class/=HYPERLINK(\"http:__evil.example\").yaml", "class/at_student.yaml",
          "--format", "csv"), OK)],
    "grade-feedback-markdown-injection": [(("grade", "html_answer.md", "--format", f, "-o", f), OK)
                                          for f in ("gradescope", "prairielearn")],
    "report-markdown-title-injection": [(("report", "injected_title.yaml", "-o", "rep"), OK),
                                        *diag("injected_title.yaml", rc=OK)],
    "report-title-control-chars": [
        *diag("ansi_title.yaml", rc=OK), *diag("bidi_title.yaml", rc=OK),
        (("diagnose", "--quiet", "ansi_title.yaml", "bidi_title.yaml"), OK),
        (("report", "ansi_title.yaml", "bidi_title.yaml", "-o", "rep"), OK),
        (("trace", "esc_device_trace.json"), OK)],
    "exercise-student-folder-collision": [
        (("exercise", "make", "a_chatbot", "--students", f"roster_{r}.csv", "--seed", "7", "-o", f"v_{r}"),
         REFUSED) for r in ("umlaut", "separators", "long")],
}


def _setup(folder: str, work: Path) -> None:
    """What HOW.txt builds by hand before its commands (git keeps no empty folder)."""
    if folder == "set-drops-refused-inputs-exit0":
        (work / "emptydir").mkdir(exist_ok=True)
    if folder == "trace-args-number-out-of-range":
        (work / "ranks").mkdir()
        shutil.copy(work / "counter_1e400.json", work / "ranks" / "r1.json")
        shutil.copy(work / "kernel_correlation_1e400.json", work / "ranks" / "r0.json")


def test_every_corpus_folder_is_in_the_table():
    assert sorted(p.name for p in CORPUS.iterdir() if (p / "HOW.txt").is_file()) == sorted(FOLDERS)


_LOCATED = re.compile(r"^error: [^\s:][^:]*:")  # error: FILE:... (FILE: an input, a path, an option)
# The corpus's payloads as they would read unescaped (Regime's own pages hold <svg> charts).
_TAGS = re.compile(r"<script>|<img src|<svg onload", re.I)  # the corpus's payloads, unescaped
_MD_MARKUP = re.compile(r"\]\((?:javascript|https?):|^#+ Verdict", re.I | re.M)  # a link; a forged heading
_BIDI = re.compile("[\u202a-\u202e\u2066-\u2069]")
_FORMULA = ("=", "+", "-", "@", "\t", "\r")


def _number(cell: str) -> bool:
    try:
        float(cell)
    except ValueError:
        return False
    return True


def assert_nothing_injected(name: str, text: str) -> None:
    """What Regime wrote: no raw terminal control, no bidi override outside JSON data, no markup
    from the inputs in Markdown/HTML, no CSV cell a spreadsheet would run."""
    assert "\x1b" not in text and "\x07" not in text, name
    if name.endswith(".json") and not name.endswith("results.json"):
        return  # JSON is data: the raw value, its control characters escaped by the encoder
    assert not _BIDI.search(text), name
    markdown = name.endswith((".md", "results.json"))  # Gradescope/PrairieLearn fields are Markdown
    if markdown or name.endswith(".html"):
        assert not _TAGS.search(text), (name, _TAGS.search(text))
    if markdown:
        assert not _MD_MARKUP.search(text), (name, _MD_MARKUP.search(text))
    if name.endswith(".csv"):
        for row in csv.reader(io.StringIO(text)):
            for cell in row:
                assert _number(cell) or not cell.startswith(_FORMULA), (name, cell)


def check_contract(proc: subprocess.CompletedProcess, args: tuple[str, ...], allowed: frozenset[int],
                   work: Path, before: set[Path]) -> None:
    said = proc.stdout + proc.stderr
    assert proc.returncode in allowed, (args, proc.returncode, said[-2000:])
    assert "Traceback" not in said and "engine fault" not in said.lower(), (args, said[-2000:])
    errors = [ln for ln in proc.stderr.splitlines() if ln.startswith("error:")]
    assert all(_LOCATED.match(ln) for ln in errors), (args, errors)
    if proc.returncode == 2:
        assert errors, (args, proc.stderr[-2000:])
    fmt = args[args.index("--format") + 1] if "--format" in args else "text"
    if fmt == "json" and "-o" not in args and proc.stdout:  # (knowledge refused: no envelope yet)
        json.loads(proc.stdout)  # one envelope
    if fmt == "jsonl":
        assert all(json.loads(ln) is not None for ln in proc.stdout.splitlines())
    out_name = {"csv": "stdout.csv", "json": "stdout.json", "jsonl": "stdout.json",
                "markdown": "stdout.md"}.get(fmt, "stdout.txt")
    assert_nothing_injected(out_name, proc.stdout)
    assert "\x1b" not in proc.stderr and not _BIDI.search(proc.stderr), args
    for path in sorted(set(work.rglob("*")) - before):
        if path.is_file() and path.suffix in (".md", ".html", ".csv", ".json", ".yaml", ".txt"):
            assert_nothing_injected(path.name, path.read_text(encoding="utf-8"))


def replay(folder: str, tmp_path: Path, regime: list[str], runs: list[Run]) -> None:
    work = tmp_path / folder
    shutil.copytree(CORPUS / folder, work)
    _setup(folder, work)
    errors_without_jobs: dict[tuple[str, ...], list[str]] = {}
    for args, allowed in runs:
        argv = [a.replace("{cases}", str(ROOT / "cases")).replace("{answers}", str(ROOT / "answers"))
                for a in args]
        before = set(work.rglob("*"))
        proc = subprocess.run([*regime, *argv], capture_output=True, text=True, cwd=work, timeout=300,
                              env={**os.environ, "COLUMNS": "120"})  # a kill limit, not a timed assert
        check_contract(proc, args, allowed, work, before)
        # `--jobs N` reports what `--jobs 1` does
        jobs = args.index("--jobs") if "--jobs" in args else len(args)
        errors = [ln for ln in proc.stderr.splitlines() if ln.startswith("error:")]
        assert errors_without_jobs.setdefault(args[:jobs] + args[jobs + 2:], errors) == errors, args


@pytest.mark.e2e
@pytest.mark.parametrize("folder", sorted(FOLDERS))
def test_corpus_folder_keeps_the_contract(folder, tmp_path):
    replay(folder, tmp_path, [sys.executable, "-m", "regime.engine.cli.entry"], FOLDERS[folder])


@pytest.mark.e2e
@pytest.mark.parametrize("folder", sorted(FOLDERS))
def test_corpus_folder_keeps_the_contract_installed(folder, tmp_path, installed_regime):
    """The same through the wheel (one install per session): its first runs, so every folder is
    replayed on the installed package without doubling the suite's time."""
    replay(folder, tmp_path, [str(installed_regime)], FOLDERS[folder][:2])


# hostile profiler outputs (issue 29) -> (where the error points, words in it)
PROFILER_FILES: dict[str, tuple[str, str]] = {
    "truncated_nsys.sqlite": ("table sqlite_master", "damaged or truncated"),
    "missing_tables_nsys.sqlite": ("sqlite_master", "schema 3.13.2) has no GPU activity tables"),
    "end_before_start_nsys.sqlite": ("table CUPTI_ACTIVITY_KIND_KERNEL row 2", "ends 500 ns before"),
    "huge_string_rocprof.json.gz": ("byte 70", "larger than the 16,000,000-byte limit"),
}


@pytest.mark.parametrize("name", sorted(PROFILER_FILES))
def test_a_hostile_profiler_output_is_one_located_error(name, knowledge):
    from regime.engine.trace.merge import diagnose_all
    path = CORPUS / "profilers" / name
    outcome = diagnose_all(path, [], knowledge)[0]
    where, words = PROFILER_FILES[name]
    assert outcome.error is not None and len(outcome.error.all()) == 1
    text = str(outcome.error)
    assert text.startswith(f"{path}:{where}:") and words in text and "\n" not in text


def test_a_rocprof_element_nested_thousands_deep_is_refused_by_the_guard_or_read(knowledge):
    """rocprof JSON elements decode through the trace reader's guard (engine/trace/guards.py): where
    the decoder stops on the depth (3.11's msgspec does) the element is refused, located; where it
    does not (3.13's), the file reads on to its next located refusal. Never a RecursionError."""
    from regime.engine.trace.merge import diagnose_all
    path = CORPUS / "profilers" / "deep_nesting_rocprof.json"
    outcome = diagnose_all(path, [], knowledge)[0]
    assert outcome.error is not None and len(outcome.error.all()) == 1
    text = str(outcome.error)
    assert text.startswith(f"{path}:") and "\n" not in text
    assert ("byte 70" in text and "nested too deep to read" in text) or "no kernel dispatches" in text


@pytest.mark.e2e
def test_hostile_profiler_outputs_exit_2_with_one_line_each():
    for name in sorted(PROFILER_FILES):
        path = CORPUS / "profilers" / name
        proc = run_cli("trace", str(path))
        assert proc.returncode == 2 and proc.stdout == "" and "Traceback" not in proc.stderr
        assert proc.stderr.startswith(f"error: {path}:") and proc.stderr.count("\n") == 1


GRADING = CORPUS / "grading"
# grading layer -> (file under DIR/grading/, line, field, words): nulls and lists where mappings
# belong, a null alias, an unknown lever; each refused at the layer's own FILE:LINE.
GRADING_LAYERS: dict[str, tuple[str, int, str, str]] = {
    "concepts_negation_null": ("concepts.yaml", 2, "negation", "valid dictionary"),
    "concepts_cue_list_null": ("concepts.yaml", 2, "negation.before", "valid list"),
    "concepts_levers_list": ("concepts.yaml", 2, "levers", "valid dictionary"),
    "concepts_alias_null": ("concepts.yaml", 4, "levers.raise_batch.1", "valid string"),
    "concepts_figure_words_map": ("concepts.yaml", 2, "figures.bw_util.words", "valid list"),
    "concepts_unknown_lever": ("concepts.yaml", 2, "levers.raise_batchh", "did you mean 'raise_batch'"),
    "concepts_guess_text": ("concepts.yaml", 2, "guess.min_score", "valid number"),
    "rubric_weights_null": ("rubric.yaml", 2, "weights", "valid dictionary"),
    "variants_cases_list": ("variants.yaml", 1, "cases", "valid dictionary"),
}


@pytest.mark.parametrize("name", sorted(GRADING_LAYERS))
def test_a_bad_grading_layer_is_refused_at_its_own_line(name):
    from regime.engine.grading import exercise
    from regime.engine.grading.grader import Grader

    layer = GRADING / name
    file, line, field, words = GRADING_LAYERS[name]
    with pytest.raises(RegimeError) as info:
        if file == "variants.yaml":
            exercise.load_spec(exercise.spec_files([layer]))
        else:
            Grader([layer])
    path = str(layer / "grading" / file)
    assert (info.value.file, info.value.line, info.value.field) == (path, line, field)
    assert words in info.value.message and one_line_located(str(info.value), path)


@pytest.mark.e2e
def test_regime_grade_with_a_null_in_a_concepts_layer_is_one_located_line():
    layer = GRADING / "concepts_negation_null"
    proc = run_cli("grade", str(ROOT / "answers" / "a_chatbot.solution.md"), "--rules", str(layer))
    assert proc.returncode == 2 and "Traceback" not in proc.stderr
    assert proc.stderr.startswith(f"error: {layer / 'grading' / 'concepts.yaml'}:2: negation: ")

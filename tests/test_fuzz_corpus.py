"""Every class of input the fuzzer broke, fixed as a class: each input ends as a diagnosis or as
one-line `error: FILE:LINE: FIELD: message` errors with exit code 2, and a batch loses nothing."""

from __future__ import annotations

import io
import re
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


@pytest.mark.e2e
def test_hostile_profiler_outputs_exit_2_with_one_line_each():
    for name in sorted(PROFILER_FILES):
        path = CORPUS / "profilers" / name
        proc = run_cli("trace", str(path))
        assert proc.returncode == 2 and proc.stdout == "" and "Traceback" not in proc.stderr
        assert proc.stderr.startswith(f"error: {path}:") and proc.stderr.count("\n") == 1

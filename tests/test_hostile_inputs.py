"""The classes of issue 25 in process (the CLI replay of every corpus folder is in
test_fuzz_corpus.py, e2e): bounded numbers and nesting at the trace reader's boundary, counters
checked where they are read, errors that cross processes intact, ids that would share a folder."""

from __future__ import annotations

import json
import pickle
import shutil
from pathlib import Path

import pytest
from conftest import TESTS

from regime.core.errors import RegimeError, RegimeErrors
from regime.engine.grading import exercise
from regime.engine.grading import variants as vfiles
from regime.engine.trace import guards
from regime.engine.trace.kernels import load_classifier
from regime.engine.trace.measure import measure
from regime.engine.trace.ranks import measure_ranks
from regime.engine.trace.settings import settings
from regime.engine.trace.source import TraceError

CORPUS = TESTS / "fuzz_corpus"


def measured(path: Path):
    return measure(path, load_classifier(), settings())


@pytest.mark.parametrize(("folder", "name", "where", "field", "words"), [
    ("trace-args-number-out-of-range", "counter_1e400.json", "event 0", "traceEvents[0].args",
     "number out of range"),
    ("trace-args-number-out-of-range", "kernel_correlation_1e400.json", "event 0", "traceEvents[0].args",
     "number out of range"),
    ("trace-args-number-out-of-range", "runtime_correlation_400digits.json", "event 1",
     "traceEvents[1].args.correlation", "integer of 401 digits"),
    ("trace-counter-values-unchecked", "ffma_1e308.json", "event 0",
     "traceEvents[0].args.smsp__sass_thread_inst_executed_op_ffma_pred_on.sum", "not a plausible counter"),
    ("trace-counter-values-unchecked", "ffma_30digits.json", "event 0",
     "traceEvents[0].args.smsp__sass_thread_inst_executed_op_ffma_pred_on.sum", "1.23457e+29 is not a"),
    ("trace-counter-values-unchecked", "dram_negative.json", "event 0", "traceEvents[0].args.dram__bytes.sum",
     "cannot be negative"),
])
def test_a_hostile_trace_is_refused_at_its_event(folder, name, where, field, words):
    path = CORPUS / folder / name
    with pytest.raises(TraceError) as info:
        measured(path)
    err = info.value
    assert (err.where, err.field) == (where, field) and words in err.message, str(err)
    assert str(err).startswith(f"{path}:{where}: {field}: ")


@pytest.mark.parametrize("name", ["deep_args_1000.json", "deep_cpu_op_args_1000.json"])
def test_args_nested_a_thousand_deep_are_read_or_refused_at_their_event(name):
    """The class's HOW.txt allows either: whether 1,000 levels reach the decoder's depth limit
    depends on the Python (3.11's msgspec stops there, 3.13's does not); what may never happen is
    a RecursionError, or a refusal that names nothing."""
    path = CORPUS / "trace-deep-args-recursion" / name
    try:
        m = measured(path)
    except TraceError as err:
        assert (err.where, err.field) == ("event 0", "traceEvents[0]") and "nested too deep" in err.message
        assert str(err).startswith(f"{path}:event 0: traceEvents[0]: ")
    else:
        assert m.kernels == 1


def test_a_null_counter_is_not_measured_and_gives_no_rate(tmp_path):
    ffma = "smsp__sass_thread_inst_executed_op_ffma_pred_on.sum"
    events = [{"ph": "X", "cat": "cuda_profiler_range", "name": "k", "ts": 10, "dur": 5,
               "args": {ffma: None, "dram__bytes.sum": None}}]
    path = tmp_path / "t.json"
    path.write_text(json.dumps({"traceEvents": events}), encoding="utf-8")
    c = measured(path).counters
    assert c.ranges == 1 and c.flop_ranges == 0 and c.flop_rate is None and c.dram_bandwidth is None
    events[0]["args"][ffma] = 3
    path.write_text(json.dumps({"traceEvents": events}), encoding="utf-8")
    assert measured(path).counters.flop_rate == pytest.approx(6 / 5e-6)  # an FMA counts two


def test_a_header_after_the_events_reads_as_one_before_them():
    folder = CORPUS / "trace-trailing-header-quadratic"
    after, before = measured(folder / "empties_then_device.json"), measured(folder / "empties_control.json")
    assert (after.events, after.kernels, after.header) == (before.events, before.kernels, before.header)
    assert after.devices[0].name == before.devices[0].name


def test_load_json_refuses_what_would_overflow_or_recurse():
    for data, words in ((b"1e400", "out of range"), (b"[" * 5000 + b"]" * 5000, "nested too deep"),
                        (b"[" * 2000 + b"]" * 2000, "nested too deep"), (b"{", "")):
        with pytest.raises(guards.BadJSON) as info:
            guards.load_json(data)
        assert words in info.value.message
    assert guards.load_json(b"12345678901234567890") == 12345678901234567890


def test_ids_and_counters_are_bounded():
    assert guards.event_id("42", "f", 3, "stream") == 42
    with pytest.raises(TraceError, match="401 digits"):
        guards.event_id(10 ** 400, "f", 3, "correlation")
    assert guards.measured_value(None, "f", 1, "c") is None and guards.measured_value(7, "f", 1, "c") == 7.0
    for bad in (-1, 1e300, True, "12", 10 ** 30):
        with pytest.raises(TraceError) as info:
            guards.measured_value(bad, "f", 1, "c")
        assert (info.value.where, info.value.field) == ("event 1", "traceEvents[1].args.c")


def test_errors_cross_process_boundaries_intact():
    one = TraceError("truncated JSON", "r.json", "byte 17", "traceEvents[0]")
    many = RegimeErrors([RegimeError("a", file="c.yaml", line=3, field="x", kind="unknown key"),
                         RegimeError("b", file="c.yaml", line=4)], {"unknown key": 2})
    for err in (one, many, RegimeError("plain", file="f", line=1)):
        back = pickle.loads(pickle.dumps(err))
        assert type(back) is type(err) and str(back) == str(err)
        assert back.__dict__.keys() == err.__dict__.keys()
    assert [str(e) for e in pickle.loads(pickle.dumps(many)).all()] == [str(e) for e in many.all()]


def test_ranks_report_the_same_errors_with_any_number_of_jobs(tmp_path):
    ranks = tmp_path / "ranks"
    shutil.copytree(CORPUS / "trace-ranks-jobs-error-lost" / "ranks", ranks)
    one, two = measure_ranks([ranks], jobs=1), measure_ranks([ranks], jobs=2)
    errors = [str(r) for r in one if isinstance(r, RegimeError)]
    assert len(errors) == 2 and errors == [str(r) for r in two if isinstance(r, RegimeError)]
    assert "died" not in " ".join(errors) and "rank1.json:byte 0:" in errors[0]


@pytest.mark.parametrize(("roster", "line", "names"), [
    ("roster_umlaut.csv", 3, ("möller@uni.de", "müller@uni.de", "m_ller@uni.de")),
    ("roster_separators.csv", 3, ("a_b", "a/b")),
    ("roster_long.csv", 3, ("x" * 64 + "2", "x" * 64 + "1")),
])
def test_roster_ids_that_would_share_a_folder_are_refused_with_both_names(roster, line, names):
    path = CORPUS / "exercise-student-folder-collision" / roster
    with pytest.raises(RegimeError) as info:
        exercise.read_roster(path)
    assert (info.value.file, info.value.line) == (str(path), line)
    assert all(f"'{n}'" in info.value.message for n in names), info.value.message


def test_the_folder_rule_is_one_rule():
    for a, b in (("Alice", "alice"), (".alice", "alice"), ("a b", "a_b")):
        with pytest.raises(RegimeError, match="would share the folder"):
            vfiles.check_folders([a, b])
    vfiles.check_folders(["alice", "bob", "alice2"])

"""Bad traces: one located line (`FILE:WHERE: FIELD: message`), exit 2, no traceback, bounded."""

from __future__ import annotations

import gzip
import json
import os

import orjson
import pytest
from conftest import TESTS, run_cli
from hypothesis import HealthCheck, given
from hypothesis import settings as settings_h
from hypothesis import strategies as st

from regime.engine.trace.kernels import load_classifier
from regime.engine.trace.measure import measure
from regime.engine.trace.reader import TraceError
from regime.engine.trace.settings import settings

MI250 = TESTS / "data" / "mi250_minitoy_train_rocm6.json.gz"


def _kernel(ts, dur=2.0, stream=7, corr=1, **extra):
    ev = {"ph": "X", "cat": "kernel", "name": "volta_sgemm_64x64_nt", "pid": 0, "tid": stream, "ts": ts,
          "dur": dur, "args": {"device": 0, "stream": stream, "correlation": corr}}
    ev.update(extra)
    return ev


def _trace(events, **top) -> bytes:
    return orjson.dumps({"schemaVersion": 1, **top, "traceEvents": events})


def _error(tmp_path, data: bytes, name: str = "t.json", **kw) -> TraceError:
    path = tmp_path / name
    path.write_bytes(data)
    with pytest.raises(TraceError) as info:
        measure(path, load_classifier(), settings(), **kw)
    text = str(info.value)
    assert text.startswith(f"{path}:") and "\n" not in text
    return info.value


GOOD = [_kernel(100.0), _kernel(103.0, corr=2)]


@pytest.mark.parametrize(("data", "where", "field", "words"), [
    (_trace([*GOOD, _kernel(110.0, dur=-1.0)]), "event 2", "traceEvents[2].dur", ["negative duration"]),
    (_trace([*GOOD, {"ph": "X", "cat": "kernel", "ts": 5.0, "args": {}}]), "event 2", "traceEvents[2].dur",
     ["missing"]),
    (_trace([*GOOD, _kernel("soon")]), "event 2", "traceEvents[2].ts", ["not a number"]),
    (_trace([*GOOD, _kernel(200.0, dur=5000.0, corr=3), _kernel(1300.0, corr=4)]), "event 3",
     "traceEvents[3].ts", ["overlaps event 2", "stream 7", "by 3900.000 µs", "jitter"]),
    (_trace([*GOOD, _kernel(5e9, corr=3),
             {"ph": "X", "cat": "Trace", "name": "PyTorch Profiler (0)", "ts": 0.0, "dur": 1000.0}]),
     "event 2", "traceEvents[2].ts", ["outside the profiled window", "clock reset"]),
    (_trace([*GOOD, _kernel(-4.0, corr=3)]), "event 2", "traceEvents[2].ts", ["negative timestamp"]),
    (_trace([{"ph": "X", "cat": "cpu_op", "name": "aten::mm", "ts": 1.0, "dur": 2.0}]), "traceEvents", "cat",
     ["no GPU activity", "1 events"]),
    (_trace([*GOOD, 7]), None, "traceEvents[2]", ["expected an event object"]),
    (_trace([*GOOD, _kernel(110.0, corr=3, args={"device": "gpu", "stream": 7})]), "event 2",
     "traceEvents[2].args.device", ["integer device"]),
    (orjson.dumps({"hello": "world"}), "byte 0", None, ["no 'traceEvents'"]),
    (orjson.dumps([1, 2, 3]), None, "traceEvents[0]", ["expected an event object"]),  # a 2020-era bare array
    (b"not json at all", "byte 0", None, ["neither a JSON object nor an array"]),
    (_trace(GOOD)[:-30], None, "traceEvents[1]", ["truncated JSON"]),
    (_trace(GOOD).replace(b'"dur":2.0', b'"dur":2.0,,', 1), "event 0", "traceEvents[0]", ["malformed JSON"]),
])
def test_located_errors(tmp_path, data, where, field, words):
    err = _error(tmp_path, data)
    if where:
        assert err.where == where
    assert err.field == field
    for w in words:
        assert w in err.message


def test_truncated_gzip(tmp_path):
    whole = MI250.read_bytes()
    err = _error(tmp_path, whole[: len(whole) // 2], "t.json.gz")
    assert "truncated gzip" in err.message and err.where.startswith("byte ")


def test_corrupt_gzip(tmp_path):
    whole = bytearray(MI250.read_bytes())
    whole[100:140] = b"\x00" * 40
    assert "gzip" in _error(tmp_path, bytes(whole), "t.json.gz").message


def test_a_huge_file_is_refused_before_it_is_read(tmp_path):
    path = tmp_path / "huge.json"
    with open(path, "wb") as f:  # a sparse 10 GB file: no disk, no time
        f.truncate(10 * 10**9)
    with pytest.raises(TraceError) as info:
        measure(path, load_classifier(), settings())
    err = info.value
    assert "10.0 GB" in err.message and "--max-bytes" in err.message and err.where == "byte 0"
    os.remove(path)


def test_decompressed_size_is_bounded(tmp_path):
    bomb = gzip.compress(_trace([_kernel(100.0 + 3 * i, corr=i) for i in range(20000)]))
    err = _error(tmp_path, bomb, "t.json.gz", max_bytes=100_000)
    assert "decompresses to more than" in err.message and "--max-bytes" in err.message


def test_an_event_larger_than_the_limit(tmp_path, monkeypatch):
    from regime.engine.trace import reader
    monkeypatch.setattr(reader, "BLOCK", 4096)
    big = _kernel(100.0, name="x" * 200_000)
    path = tmp_path / "t.json"
    path.write_bytes(_trace([big]))
    s = settings()
    limits = s.limits.model_copy(update={"max_event_bytes": 50_000})
    with pytest.raises(TraceError) as info:
        measure(path, load_classifier(), s.model_copy(update={"limits": limits}))
    assert "larger than" in info.value.message and info.value.field == "traceEvents[0]"


@pytest.mark.e2e
def test_cli_prints_one_line_and_exits_2(tmp_path):
    path = tmp_path / "t.json.gz"
    path.write_bytes(MI250.read_bytes()[:3000])
    r = run_cli("trace", str(path))
    assert r.returncode == 2 and r.stdout == ""
    assert r.stderr.startswith(f"error: {path}:byte ") and r.stderr.count("\n") == 1
    assert "Traceback" not in r.stderr
    r = run_cli("diagnose", "--trace", str(path))
    assert r.returncode == 2 and "truncated gzip" in r.stderr and "Traceback" not in r.stderr


@pytest.mark.parametrize(("event", "index"), [
    (_kernel(110.0, corr=3, args=5), 2),
    (_kernel(110.0, corr=3, args="device 0"), 2),
    ({"ph": "X", "cat": "cuda_runtime", "name": "cudaLaunchKernel", "ts": 99.0, "dur": 1.0, "args": [1]}, 2),
])
def test_args_that_are_not_an_object(tmp_path, event, index):
    err = _error(tmp_path, _trace([*GOOD, event]))
    assert (err.where, err.field) == (f"event {index}", f"traceEvents[{index}].args")
    assert "expected an object" in err.message


@pytest.mark.parametrize("where", ["header", "name"])
def test_one_long_string_costs_its_own_bytes_not_a_hundred_times_them(tmp_path, monkeypatch, where):
    """The value scan is resumable and uses bytes.find: memory stays near the string's own size
    (the buffer that must hold it), not the ~120 B/byte of a backtracking regex."""
    import tracemalloc

    from regime.engine.trace import reader
    monkeypatch.setattr(reader, "BLOCK", 1 << 16)  # many blocks per string: no rescans either
    size = 3_000_000
    text = "x" * (size - 10) + '\\"\\\\'  # escapes at the end, across the last block boundary
    events = [_kernel(100.0, name=text)] if where == "name" else GOOD
    top = {"schemaVersion": text} if where == "header" else {}
    path = tmp_path / "t.json.gz"
    path.write_bytes(gzip.compress(_trace(events, **top), 1))
    tracemalloc.start()
    m = measure(path, load_classifier(), settings())
    peak = tracemalloc.get_traced_memory()[1]
    tracemalloc.stop()
    assert m.kernels == len(events)
    if where == "header":
        assert m.header["schemaVersion"] == text
    assert peak < 6 * size


def test_a_long_header_value_over_the_limit_is_refused_early(tmp_path):
    path = tmp_path / "t.json.gz"
    path.write_bytes(gzip.compress(_trace(GOOD, schemaVersion="x" * 400_000), 1))
    s = settings()
    limits = s.limits.model_copy(update={"max_event_bytes": 100_000})
    with pytest.raises(TraceError) as info:
        measure(path, load_classifier(), s.model_copy(update={"limits": limits}))
    assert "larger than" in info.value.message and info.value.field == "schemaVersion"


_ANY = st.recursive(st.none() | st.booleans() | st.integers(-2**70, 2**70) | st.floats(allow_nan=False)
                    | st.text(max_size=20), lambda inner: st.lists(inner, max_size=3)
                    | st.dictionaries(st.text(max_size=8), inner, max_size=3), max_leaves=6)


@settings_h(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(event=st.integers(0, 2), value=_ANY, cut=st.one_of(st.none(), st.integers(1, 400)),
       field=st.sampled_from(["ph", "cat", "name", "ts", "dur", "pid", "tid", "args"]))
def test_any_mutated_trace_is_measured_or_refused_with_one_line(tmp_path, event, field, value, cut):
    """One field of one event set to any JSON value, and perhaps the text cut short: a
    measurement or one located TraceError, never another exception."""
    events = [*GOOD, {"ph": "X", "cat": "cuda_runtime", "name": "cudaLaunchKernel", "ts": 99.0, "dur": 1.0,
                      "args": {"correlation": 1}}]
    events[event] = {**events[event], field: value}
    data = json.dumps({"traceEvents": events}).encode()  # json: integers past 64 bits too
    if cut is not None:
        data = data[:cut]
    path = tmp_path / "m.json"
    path.write_bytes(data)
    try:
        measure(path, load_classifier(), settings())
    except TraceError as err:
        assert str(err).startswith(f"{path}:") and "\n" not in str(err)


@settings_h(max_examples=100, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(key=st.sampled_from(["deviceProperties", "distributedInfo", "schemaVersion"]), value=_ANY,
       entry=st.dictionaries(st.sampled_from(["id", "name"]), _ANY, max_size=2))
def test_any_header_value_is_measured_or_refused_with_one_line(tmp_path, knowledge, key, value, entry):
    from regime.engine.trace.merge import trace_case
    from regime.engine.trace.ranks import compare, measure_ranks
    path = tmp_path / "h.json"
    for v in (value, [entry]):
        path.write_bytes(json.dumps({key: v, "traceEvents": GOOD}).encode())
        try:
            trace_case(path, knowledge)
            compare(measure_ranks([path, path]))
        except TraceError as err:
            assert str(err).startswith(f"{path}:") and "\n" not in str(err)

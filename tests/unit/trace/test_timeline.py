"""The GPU timeline (engine/trace/timeline.py), one concern at a time.

The first tests run measure() on traces of a few events, one figure each (exact idle, HTA's
rounded idle, gaps, same-stream order, kernel categories, durations, steps, devices); the
last hold each accumulator alone on intervals in start order.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from regime.engine.trace.kernels import load_classifier
from regime.engine.trace.measure import Measurement, measure
from regime.engine.trace.reader import TraceError
from regime.engine.trace.settings import settings
from regime.engine.trace.timeline import Busy, Step, StepTimes, StreamOrder, StreamOverlaps, Union, hta_round

GEMM, ELEMENTWISE = "volta_sgemm_128x64_nn", "vectorized_elementwise_kernel"


def kernel(ts: float, dur: float, stream: int = 7, device: int = 0, corr: int | None = None,
           name: str = GEMM, cat: str = "kernel") -> dict:
    args = {"device": device, "stream": stream, **({"correlation": corr} if corr is not None else {})}
    return {"ph": "X", "cat": cat, "name": name, "pid": device, "tid": stream, "ts": ts, "dur": dur,
            "args": args}


def launch(ts: float, corr: int) -> dict:
    return {"ph": "X", "cat": "cuda_runtime", "name": "cudaLaunchKernel", "pid": 1, "tid": 1, "ts": ts,
            "dur": 2, "args": {"correlation": corr}}


def step(number: int, ts: float, dur: float) -> dict:
    return {"ph": "X", "cat": "user_annotation", "name": f"ProfilerStep#{number}", "pid": 1, "tid": 1,
            "ts": ts, "dur": dur}


def run(tmp_path: Path, events: list[dict]) -> Measurement:
    path = tmp_path / "trace.json"
    path.write_text(json.dumps({"traceEvents": events}), encoding="utf-8")
    return measure(path, load_classifier(), settings())


def test_exact_idle_is_the_uncovered_share_of_first_start_to_last_end(tmp_path):
    m = run(tmp_path, [kernel(0, 10), kernel(20, 10)])
    assert (m.window_us, m.devices[0].busy_us) == (30, 20)
    assert m.idle_share == pytest.approx(1 / 3)


def test_overlap_across_streams_is_busy_once(tmp_path):
    m = run(tmp_path, [kernel(0, 10, stream=7), kernel(5, 10, stream=8), kernel(40, 10)])
    assert (m.window_us, m.devices[0].busy_us) == (50, 25)


def test_hta_idle_rounds_float_timestamps_inward(tmp_path):
    m = run(tmp_path, [kernel(0.5, 9.7), kernel(20.7, 9.4)])  # [0.5, 10.2] and [20.7, 30.1]
    assert m.float_timestamps
    d = m.devices[0]
    assert (d.hta_window_us, d.hta_busy_us) == (29, 18)       # [1, 10] and [21, 30]
    assert d.idle_share == pytest.approx(1 - 19.1 / 29.6)


def test_gaps_are_the_idle_stretches_and_an_overlap_is_a_zero_gap(tmp_path):
    m = run(tmp_path, [kernel(0, 10, stream=7), kernel(5, 10, stream=8), kernel(115, 5)])
    assert m.gap.count == 2 and m.gap.zeros == 1
    assert m.gap.quantile(1.0) == pytest.approx(100, rel=1e-3)


def test_kernels_on_one_stream_may_overlap_by_timestamp_jitter_only(tmp_path):
    """Real CUPTI timestamps overlap on one stream by a few µs: merged into the busy union and
    counted; past facts/trace_reading.yaml's bound (1,000 µs) the trace is refused."""
    m = run(tmp_path, [kernel(0, 10), kernel(5, 10)])
    assert m.devices[0].busy_us == 15 and m.overlaps.total_us == 5
    with pytest.raises(TraceError, match="overlaps event 0 on stream 7"):
        run(tmp_path, [kernel(0, 3000), kernel(1000, 3000)])


def test_gpu_time_is_split_by_kernel_category_and_copies_are_not_kernels(tmp_path):
    m = run(tmp_path, [kernel(0, 10), kernel(10, 4, name=ELEMENTWISE),
                       kernel(20, 6, name="Memcpy HtoD", cat="gpu_memcpy")])
    assert (m.category_us["gemm"], m.category_us["elementwise"], m.category_us["memcpy"]) == (10, 4, 6)
    assert sum(m.category_us.values()) == 20
    assert (m.kernels, m.devices[0].events, m.gpu_events_in_file) == (2, 3, 3)


def test_kernel_durations_feed_the_quantiles(tmp_path):
    m = run(tmp_path, [kernel(100 * i, d) for i, d in enumerate([1, 2, 3, 4, 100])])
    assert m.kernel_duration.count == 5
    assert m.kernel_duration.quantile(0.5) == pytest.approx(3, rel=1e-3)
    assert m.kernel_duration.quantile(0.9) == pytest.approx(100, rel=1e-3)


def test_each_device_has_its_own_window(tmp_path):
    m = run(tmp_path, [kernel(0, 10, device=0), kernel(100, 10, device=1), kernel(200, 10, device=1)])
    assert [(d.id, d.window_us, d.busy_us) for d in m.devices] == [(0, 10, 10), (1, 110, 20)]
    assert m.idle_share == pytest.approx(1 - 30 / 120)


def test_steps_collect_their_kernels_and_the_last_step_is_left_out(tmp_path):
    m = run(tmp_path, [
        step(1, 0, 100), launch(1, corr=1), launch(5, corr=2),
        step(2, 100, 100), launch(101, corr=3),
        step(3, 200, 100), launch(201, corr=4),
        kernel(10, 10, corr=1), kernel(30, 10, corr=2), kernel(110, 20, corr=3), kernel(210, 5, corr=4)])
    assert m.excluded_step == 3 and m.excluded_events == 1
    assert [(s.number, s.kernels, s.busy_us, s.span_us) for s in m.steps[:2]] == [(1, 2, 20, 30),
                                                                                (2, 1, 20, 20)]
    assert m.window_us == 120 and m.devices[0].busy_us == 40
    assert (m.launches, m.runtime_us, m.host_window_us) == (3, 6, 200)


# The accumulators of engine/trace/timeline.py, each alone on intervals in start order.

def test_busy_unions_intervals_and_returns_each_gap():
    b = Busy(0, 10)
    assert [b.add(*iv) for iv in [(5, 12), (20, 25), (25, 30), (40, 41)]] == [0.0, 8, 0.0, 10]
    assert (b.busy, b.window) == (23, 41)  # [0,12] [20,30] [40,41]: 12 + 10 + 1


def test_busy_of_one_interval_inside_another_is_the_outer_one():
    b = Busy(0, 100)
    assert b.add(10, 20) == 0.0 and (b.busy, b.window) == (100, 100)


def test_union_starts_empty_and_restarts_after_close():
    u = Union()
    assert u.close() == 0.0
    u.add(0, 4)
    u.add(2, 6)
    u.add(10, 11)
    assert u.close() == 7


def test_hta_round_moves_float_timestamps_inward_only_when_asked():
    assert hta_round(0.5, 10.2, True) == (1, 10)
    assert hta_round(0.5, 10.2, False) == (0.5, 10.2)


def test_stream_order_counts_jitter_and_keeps_the_latest_end():
    seen = StreamOverlaps()
    order = StreamOrder(5.0, seen, "t.json")
    order.add(7, 0, 10, 0)
    order.add(7, 8, 9, 1)     # 2 µs of jitter, ends before the first: the first still holds the stream
    order.add(7, 7, 20, 2)    # 3 µs against event 0
    order.add(8, 0, 30, 3)    # another stream: no overlap
    assert (seen.count, seen.total_us, seen.largest_us, seen.largest_at) == (2, 5, 3, 2)
    with pytest.raises(TraceError, match=r"overlaps event 2 on stream 7 by 6\.000 µs"):
        order.add(7, 14, 30, 4)


def test_step_times_match_records_to_steps_by_correlation_range():
    steps = [Step(1, 0, 100, corr_lo=1, corr_hi=2), Step(2, 100, 100, corr_lo=5, corr_hi=6)]
    t = StepTimes(steps)
    for corr, start, end, kernel in [(1, 10, 20, True), (2, 15, 30, False), (2, 40, 45, True),
                                     (3, 50, 60, True),   # between the steps' ranges: neither
                                     (0, 0, 1, True),     # before the first: neither
                                     (5, 110, 130, True)]:
        t.add(corr, start, end, kernel)
    t.close()
    figures = [(s.busy_us, s.span_us, s.kernels, s.gpu_events) for s in steps]
    assert figures == [(25, 35, 2, 3), (20, 20, 1, 1)]


def test_a_gpu_event_without_a_stream_id_is_busy_but_not_on_htas_timeline(tmp_path):
    """MTIA traces carry DMA events whose args name no stream; HTA gives them stream −1 and
    leaves them out. They are busy time in the exact figure (placed by thread id), not in the
    HTA-rounded one; a trace where no event names a stream keeps them in both."""
    streamless = {**kernel(40, 10), "args": {"device": 0}}
    m = run(tmp_path, [kernel(0, 10), kernel(20, 10), streamless])
    d = m.devices[0]
    assert m.gpu_events_without_stream == 1
    assert (d.window_us, d.busy_us) == (50, 30)
    assert (d.hta_window_us, d.hta_busy_us) == (30, 20)
    only = run(tmp_path, [{**kernel(0, 10), "args": {}}, {**kernel(20, 10), "args": {}}])
    assert (only.devices[0].hta_window_us, only.devices[0].hta_busy_us) == (30, 20)


def test_htas_choice_of_events_follows_the_events_kept_not_the_file(tmp_path):
    """The one kernel with a stream id runs after the last step and is left out: every kept
    event is streamless, so both figures keep them (HTA would measure nothing)."""
    nameless = {"args": {"device": 0, "correlation": 1}}
    m = run(tmp_path, [
        step(1, 0, 100), launch(1, corr=1), step(2, 100, 100), launch(101, corr=2),
        {**kernel(10, 10), **nameless}, {**kernel(30, 10), **nameless}, kernel(110, 5, corr=2)])
    d = m.devices[0]
    assert m.excluded_events == 1 and m.gpu_events_without_stream == 2
    assert (d.hta_window_us, d.hta_busy_us, d.on_hta_timeline) == (30, 20, True)


def test_a_device_with_only_streamless_events_is_not_on_htas_timeline(tmp_path):
    m = run(tmp_path, [kernel(0, 10, device=0), kernel(20, 10, device=0),
                       {**kernel(0, 10, device=1), "args": {"device": 1, "stream": -1}}])
    d0, d1 = m.devices
    assert m.gpu_events_without_stream == 1   # stream −1 is HTA's "no stream"
    assert (d0.on_hta_timeline, d1.on_hta_timeline) == (True, False)
    assert (d1.window_us, d1.busy_us) == (10, 10)   # still busy time on the exact timeline
    assert m.hta_idle_share == pytest.approx(1 / 3)

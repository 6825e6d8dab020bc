"""Several ranks of one job: per-rank facts and cross-rank findings, checked against HTA."""

from __future__ import annotations

import orjson
import pytest
from conftest import TESTS

from regime.engine.trace.kernels import load_classifier
from regime.engine.trace.measure import measure
from regime.engine.trace.ranks import compare, measure_ranks
from regime.engine.trace.settings import settings

DATA = TESTS / "data"
RANK0, RANK1 = DATA / "sampled_rank0_nodevice.json.gz", DATA / "sampled_rank1_nodevice.json.gz"

# HolisticTraceAnalysis 0.5.0 on HTA's trace_filter/sampled_rank-{0,1}.json.gz as one job:
# TraceAnalysis(trace_dir).get_temporal_breakdown() idle_time_pctg and get_comm_comp_overlap()
# comp_comm_overlap_pctg, per rank.
HTA_TWO_RANKS = {0: (53.56, 11.81), 1: (54.72, 20.05)}


def test_two_ranks_agree_with_hta():
    report = compare(measure_ranks([RANK0, RANK1], jobs=2))
    for row in report["ranks"]:
        idle_pct, overlap_pct = HTA_TWO_RANKS[row["rank"]]
        assert abs(row["hta_idle_share"] * 100 - idle_pct) <= 0.5
        assert abs(row["idle_share"] * 100 - idle_pct) <= 0.5
        assert abs(row["comm_comp_overlap"] * 100 - overlap_pct) <= 1.0
        assert row["facts"]["kernel_count"] == row["kernels"]
    spread = report["idle_spread"]
    assert spread["spread"] == pytest.approx(spread["max"] - spread["min"], abs=1e-6)
    assert report["findings"] == []  # 1.2 points apart, steps within 0.1%: neither finding


def test_a_directory_is_its_traces_in_name_order(tmp_path):
    for name in ("b.json.gz", "a.json.gz"):
        (tmp_path / name).write_bytes((RANK0 if name[0] == "a" else RANK1).read_bytes())
    (tmp_path / "notes.txt").write_text("not a trace")
    got = measure_ranks([tmp_path], jobs=1)
    assert [r.path for r in got] == [str(tmp_path / "a.json.gz"), str(tmp_path / "b.json.gz")]


def _rank(tmp_path, rank: int, gap: float, comm: bool = True) -> object:
    """Three steps of gemm + allreduce; `gap` µs between kernels sets step time and idle."""
    ev, t, corr = [], 1000.0, 0
    for step in range(3):
        start = t
        for name, dur in (("volta_sgemm_128x64_nn", 50.0), ("ncclKernel_AllReduce_RING", 20.0)):
            if name.startswith("nccl") and not comm:
                continue
            corr += 1
            ev.append({"ph": "X", "cat": "cuda_runtime", "name": "cudaLaunchKernel", "ts": t - 1, "dur": 1,
                       "args": {"correlation": corr}})
            ev.append({"ph": "X", "cat": "kernel", "name": name, "ts": t, "dur": dur,
                       "args": {"device": 0, "stream": 7, "correlation": corr}})
            t += dur + gap
        ev.append({"ph": "X", "cat": "user_annotation", "name": f"ProfilerStep#{step}", "ts": start - 2,
                   "dur": t - start + 1})
    path = tmp_path / f"rank{rank}.json"
    path.write_bytes(orjson.dumps({"distributedInfo": {"rank": rank}, "traceEvents": ev}))
    return path


def test_a_straggler_is_named_with_what_differs_on_it(tmp_path):
    paths = [_rank(tmp_path, 0, 5.0), _rank(tmp_path, 1, 5.0), _rank(tmp_path, 2, 60.0)]
    report = compare(measure_ranks(paths, jobs=1))
    rule = settings().ranks
    [straggler] = [f for f in report["findings"] if f["id"] == rule.straggler_finding]
    assert straggler["rank"] == 2
    assert "rank 2's median step time" in straggler["because"] and "idle" in straggler["because"]
    assert any(f["id"] == rule.idle_spread_finding for f in report["findings"])


def test_a_bad_rank_is_reported_in_its_place(tmp_path):
    bad = tmp_path / "rank9.json"
    bad.write_text("{")
    got = measure_ranks([_rank(tmp_path, 0, 5.0), bad], jobs=1)
    assert got[0].kernels == 4 and "truncated JSON" in str(got[1])  # the last step left out


def test_overlap_is_communication_time_under_computation(tmp_path):
    ev = [{"ph": "X", "cat": "kernel", "name": n, "ts": ts, "dur": d, "args": {"device": 0, "stream": s}}
          for n, ts, d, s in (("ncclKernel_AllReduce", 100.0, 40.0, 20), ("volta_sgemm", 110.0, 10.0, 7),
                              ("volta_sgemm", 130.0, 20.0, 7))]
    path = tmp_path / "o.json"
    path.write_bytes(orjson.dumps({"traceEvents": ev}))
    m = measure(path, load_classifier(), settings())
    assert m.comm_comp_overlap == pytest.approx(20 / 40)  # [110,120] and [130,140] of [100,140]


@pytest.mark.e2e
def test_cli_compares_ranks_and_reports_a_bad_one(tmp_path):
    import yaml
    from conftest import run_cli
    missing = tmp_path / "gone.json.gz"
    r = run_cli("trace", str(RANK0), str(RANK1), str(missing), "--jobs", "2")
    assert r.returncode == 2
    assert r.stderr.startswith(f"error: {missing}:") and r.stderr.count("\n") == 1
    report = yaml.safe_load(r.stdout)
    assert [row["rank"] for row in report["ranks"]] == [0, 1]


def _float_trace(tmp_path, kernels) -> object:
    ev = [{"ph": "X", "cat": "kernel", "name": name, "ts": ts, "dur": dur,
           "args": {"device": 0, "stream": stream, "correlation": i}}
          for i, (name, ts, dur, stream) in enumerate(kernels)]
    path = tmp_path / "t.json"
    path.write_bytes(orjson.dumps({"traceEvents": ev}))
    return measure(path, load_classifier(), settings())


def test_comm_comp_overlap_has_an_hta_rounded_variant_as_idle_does(tmp_path):
    # exact: the allreduce [100.5, 110.5] overlaps the gemm [110.2, 120.0] by 0.3 µs of 10;
    # HTA rounds inward to [101, 110] and [111, 120], which do not overlap
    m = _float_trace(tmp_path, [("ncclKernel_AllReduce_RING", 100.5, 10.0, 8),
                                ("volta_sgemm_128x64_nn", 110.2, 9.8, 7)])
    assert m.comm_comp_overlap == pytest.approx(0.3 / 10)
    assert m.hta_comm_comp_overlap == 0.0


def test_where_hta_rounding_empties_every_interval_it_gives_no_idle_figure(tmp_path):
    from regime.engine.trace import case_out
    m = _float_trace(tmp_path, [("elementwise_kernel", 100.2, 0.5, 7), ("elementwise_kernel", 101.3, 0.4, 7)])
    assert m.idle_share == pytest.approx(1 - 0.9 / 1.5)
    assert m.hta_idle_share is None
    mapping = case_out.case_mapping(m)
    assert "HTA gives no idle figure" in mapping["summary"] and "gives 0.00%" not in mapping["summary"]
    assert mapping["profile"]["hta_idle_share"] is None

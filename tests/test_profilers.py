"""Nsight Systems, rocprofv3 and Nsight Compute outputs read into the same Measurement as a
Kineto trace, checked against figures computed independently of Regime
(tests/data/profilers/EXPECTED.json: hand-written SQL and json, agreeing with pipit)."""

from __future__ import annotations

import gzip
import itertools
import json
import shutil
import sqlite3

import pytest
from conftest import TESTS

from regime.engine.trace import case_out
from regime.engine.trace.kernels import load_classifier
from regime.engine.trace.profilers.detect import measure_any
from regime.engine.trace.settings import settings
from regime.engine.trace.source import TraceError

DATA = TESTS / "data" / "profilers"
EXPECTED = json.loads((DATA / "EXPECTED.json").read_text())["files"]
POINT = 0.005   # ±0.5 point on shares


def _measure(path, **kw):
    return measure_any(path, load_classifier(), settings(), **kw)


TIMELINES = {  # file -> (expected entry, its block of all GPU activity)
    "nsys_sqlite/perlmutter-cloverleaf-cuda.sqlite.gz": ("per_device", "0", "all"),
    "nsys_sqlite/saxpy-mpi-cuda_nsys_perlmutter0.sqlite.gz": ("per_device", "0", "all"),
    "rocpd/constructed/kernel_trace_as_rocpd.db": ("per_agent", "1", "all"),
    "rocprof_csv/kernel_trace.csv": ("per_device", "Agent 4", "kernels"),
}


@pytest.mark.parametrize("name", sorted(TIMELINES))
def test_timeline_figures_equal_the_independent_reading(name):
    exp = EXPECTED[name]
    key, dev, block = TIMELINES[name]
    want = exp[key][dev][block]
    m = _measure(DATA / name)
    assert len(m.devices) == 1
    d = m.devices[0]
    assert d.events == want["count"]
    assert m.kernels == exp["kernel_count"] if "kernel_count" in exp else exp["kernel_dispatch_count"]
    assert d.busy_us == pytest.approx(want["busy_ns"] / 1e3, abs=1e-3)
    assert d.window_us == pytest.approx(want["span_ns"] / 1e3, abs=1e-3)
    assert abs(m.idle_share - want["idle_share"]) < POINT
    assert m.idle_share == pytest.approx(want["idle_share"], abs=1e-6)


def test_rocprof_json_is_streamed_and_its_busy_time_is_the_union_of_overlapping_queues():
    name = "rocprof_json/908_results.json.gz"
    exp = EXPECTED[name]
    proc = exp["processes"][0]
    m = _measure(DATA / name)
    assert m.kernels == proc["kernel_dispatch_count"] == 43_915
    dev = next(iter(proc["per_device"].values()))["kernels"]
    assert m.devices[0].busy_us == pytest.approx(dev["busy_ns"] / 1e3, abs=1e-3)
    assert m.idle_share == pytest.approx(dev["idle_share"], abs=1e-6)
    assert sum(m.category_us.values()) == pytest.approx(proc["kernel_total_ns_sum"] / 1e3, rel=1e-9)
    assert m.devices[0].name == "AMD Instinct MI350X"
    assert "HSA queues" in case_out.case_mapping(m)["summary"]


def test_the_nsys_schema_version_is_named_and_each_device_is_said_to_be_a_process_gpu():
    for name, version in (("perlmutter-cloverleaf-cuda", "3.13.2"),
                          ("saxpy-mpi-cuda_nsys_perlmutter0", "2.9.1")):
        m = _measure(DATA / "nsys_sqlite" / f"{name}.sqlite.gz")
        summary = case_out.case_mapping(m)["summary"]
        assert f"schema {version}" in summary and "one GPU of one process" in summary
        assert "HTA" not in summary   # HTA reads Kineto traces only


def test_nsys_kernel_shares_use_the_demangled_names_and_runtime_calls_give_launch_share():
    m = _measure(DATA / "nsys_sqlite/perlmutter-cloverleaf-cuda.sqlite.gz")
    kernels = sum(us for c, us in m.category_us.items() if c != "memcpy")
    assert kernels == pytest.approx(EXPECTED["nsys_sqlite/perlmutter-cloverleaf-cuda.sqlite.gz"]
                                    ["kernel_total_ns_sum"] / 1e3, rel=1e-9)
    assert m.launches > 0 and m.runtime_us > m.launch_us > 0


@pytest.mark.parametrize("stage", ["all-stage", "clip", "decode", "prefill", "projector", "sam"])
def test_a_kernel_summary_gives_kernel_shares_only(stage):
    name = f"nsys_csv/llm-perf-opt_dsocr/{stage}.cuda_gpu_kern_sum.csv"
    exp = EXPECTED[name]
    m = _measure(DATA / name)
    assert m.kernels_in_file == exp["kernel_count"] and m.events == exp["distinct_kernel_names"]
    assert sum(m.category_us.values()) == pytest.approx(exp["kernel_total_ns"] / 1e3, rel=1e-12)
    facts = case_out.case_mapping(m)["facts"]
    assert set(facts) == {"kernel_share"}   # never idle, gaps or a kernel count over a window
    assert not m.devices


@pytest.mark.parametrize("name", ["ncu_csv/cublaslt_ncu.log"] + [
    f"ncu_csv/llm-perf-opt_dsocr/kernel_{i:04d}.details.csv" for i in (1, 2, 7, 20)])
def test_ncu_sol_percentages_are_time_weighted_into_utilizations(name):
    if name.startswith("ncu_csv/llm"):
        exp = next(k for k in EXPECTED["ncu_csv/llm-perf-opt_dsocr"]["kernels"] if k["file"] in name)
    else:
        exp = EXPECTED[name]["kernels"][0]
    m = _measure(DATA / name)
    assert m.utilization["bw_util"][0] == pytest.approx(exp["dram_pct"] / 100, abs=1e-9)
    assert m.utilization["flop_util"][0] == pytest.approx(exp["sm_pct"] / 100, abs=1e-9)
    assert sum(m.category_us.values()) == pytest.approx(exp["duration"] / 1e3, rel=1e-9)
    facts = case_out.case_mapping(m)["facts"]
    assert facts["bw_util"].endswith("%") and "gpu_idle_share" not in facts


def test_several_ncu_launches_are_weighted_by_duration(tmp_path):
    files = sorted((DATA / "ncu_csv/llm-perf-opt_dsocr").glob("kernel_*.details.csv"))
    lines = files[0].read_text().splitlines()
    header = next(i for i, line in enumerate(lines) if line.startswith('"ID",'))
    out = lines[:header + 1]
    for i, f in enumerate(files):   # one launch per file: give each its own ID
        rows = [ln for ln in f.read_text().splitlines() if ln.startswith('"0",')]
        out += [f'"{i}",' + ln[4:] for ln in rows]
    path = tmp_path / "all.csv"
    path.write_text("\n".join(out) + "\n")
    exp = EXPECTED["ncu_csv/llm-perf-opt_dsocr"]
    m = _measure(path)
    assert m.kernels_in_file == exp["kernel_count"]
    bw, flop = m.utilization["bw_util"][0], m.utilization["flop_util"][0]
    assert bw == pytest.approx(exp["dram_pct_duration_weighted_mean"] / 100, abs=1e-8)
    assert flop == pytest.approx(exp["sm_pct_duration_weighted_mean"] / 100, abs=1e-8)


def test_ncu_raw_page_from_documented_column_names(tmp_path):
    """No public raw-page file was found: this one is built from the documented shape (units on
    the second line, thousands separators)."""
    path = tmp_path / "raw.csv"
    path.write_text('"ID","Kernel Name","gpu__time_duration.sum",'
                    '"dram__throughput.avg.pct_of_peak_sustained_elapsed","sm__throughput.avg.pct_of_peak_sustained_elapsed"\n'
                    '"","","usecond","%","%"\n'
                    '"0","ampere_sgemm_128x64_nn","3,000","10","80"\n'
                    '"1","vectorized_elementwise_kernel","1,000","90","5"\n')
    m = _measure(path)
    assert m.utilization["bw_util"][0] == pytest.approx((3000 * 10 + 1000 * 90) / 4000 / 100)
    assert m.utilization["flop_util"][0] == pytest.approx((3000 * 80 + 1000 * 5) / 4000 / 100)
    assert m.category_us["gemm"] == 3000 and m.category_us["elementwise"] == 1000


@pytest.mark.parametrize(("name", "words"), [
    ("ncu_csv/llm-perf-opt_error_only_raw.csv", "only errors"),
    ("nsys_csv/nbody-nvtx_trace.csv", "NVTX push/pop trace holds no GPU activity"),
])
def test_reports_without_gpu_activity_are_refused_with_what_they_are(name, words):
    with pytest.raises(TraceError) as info:
        _measure(DATA / name)
    assert words in info.value.message


def test_the_format_is_found_by_content_not_by_name(tmp_path):
    for src, name in (("nsys_sqlite/saxpy-mpi-cuda_nsys_perlmutter0.sqlite.gz", "trace.json"),
                      ("rocprof_csv/kernel_trace.csv", "run.pt.trace.json"),
                      ("rocpd/constructed/kernel_trace_as_rocpd.db", "x.csv")):
        path = tmp_path / name
        shutil.copy(DATA / src, path)
        assert _measure(path).kernels > 0


def test_an_nsight_report_is_named_with_the_command_that_exports_it(tmp_path):
    binary = b"\x00\x01\x02\x03" + bytes(range(256)) * 4
    for name, words in (("run.nsys-rep", "nsys export --type sqlite"), ("k.ncu-rep", "ncu --import"),
                        ("run.json", "unknown binary file")):
        path = tmp_path / name
        path.write_bytes(binary)
        with pytest.raises(TraceError) as info:
            _measure(path)
        assert words in info.value.message and str(info.value).startswith(f"{path}:byte 0:")
    path = tmp_path / "real.nsys-rep"   # the name never picks a reader: content does
    shutil.copy(DATA / "rocprof_csv/kernel_trace.csv", path)
    assert _measure(path).kernels == 9


def test_an_nsys_stats_gpu_trace_goes_on_the_timeline(tmp_path):
    """The cuda_gpu_trace header as parsers on GitHub expect it (no real file was found)."""
    path = tmp_path / "gpu_trace.csv"
    path.write_text("Processing [report.sqlite] with [cuda_gpu_trace.py]...\n\n"
                    "Start (ns),Duration (ns),CorrId,GrdX,GrdY,GrdZ,BlkX,BlkY,BlkZ,Reg/Trd,StcSMem (MB),"
                    "DymSMem (MB),Bytes (MB),Throughput (MBps),SrcMemKd,DstMemKd,Device,Ctx,Strm,Name\n"
                    "1000,500,1,,,,,,,,,,0.1,200,Pageable,Device,NVIDIA H100 80GB HBM3 (0),1,7,"
                    "[CUDA memcpy HtoD]\n"
                    "2000,1000,2,1,1,1,128,1,1,32,0,0,,,,,NVIDIA H100 80GB HBM3 (0),1,7,"
                    "ampere_sgemm_128x64_nn\n"
                    "4000,1000,3,1,1,1,128,1,1,32,0,0,,,,,NVIDIA H100 80GB HBM3 (0),1,7,"
                    "vectorized_elementwise\n")
    m = _measure(path)
    assert m.kernels == 2 and m.devices[0].events == 3
    assert m.idle_share == pytest.approx(1 - 2500 / 4000)
    assert m.devices[0].name == "NVIDIA H100 80GB HBM3"


# ---- hostile inputs: one located error each ----------------------------------------------

def _plain_sqlite(tmp_path, name="x.sqlite"):
    path = tmp_path / name
    src = DATA / "nsys_sqlite/saxpy-mpi-cuda_nsys_perlmutter0.sqlite.gz"
    path.write_bytes(gzip.decompress(src.read_bytes()))
    return path


def test_a_truncated_sqlite_file_is_a_located_error(tmp_path):
    path = _plain_sqlite(tmp_path)
    path.write_bytes(path.read_bytes()[:200_000])
    with pytest.raises(TraceError) as info:
        _measure(path)
    assert "damaged or truncated" in info.value.message and str(info.value).startswith(f"{path}:table ")


def test_a_locked_sqlite_file_is_a_located_error(tmp_path):
    path = _plain_sqlite(tmp_path)
    holder = sqlite3.connect(path)
    holder.execute("PRAGMA locking_mode = EXCLUSIVE")
    holder.execute("BEGIN EXCLUSIVE")
    try:
        with pytest.raises(TraceError) as info:
            _measure(path)
        assert "locked" in info.value.message
    finally:
        holder.close()


def test_a_schema_with_missing_tables_or_columns_names_the_version(tmp_path):
    path = tmp_path / "bare.sqlite"
    db = sqlite3.connect(path)
    db.execute("CREATE TABLE META_DATA_EXPORT (name TEXT, value TEXT)")
    db.execute("INSERT INTO META_DATA_EXPORT VALUES ('EXPORT_SCHEMA_VERSION', '3.99.0')")
    db.commit()
    with pytest.raises(TraceError) as info:
        _measure(path)
    assert "schema 3.99.0" in info.value.message and "no GPU activity tables" in info.value.message
    db.execute("CREATE TABLE CUPTI_ACTIVITY_KIND_KERNEL (start INT, end INT)")
    db.commit()
    db.close()
    with pytest.raises(TraceError) as info:
        _measure(path)
    assert "schema 3.99.0" in info.value.message and info.value.field == "deviceId"


def test_a_rocprof_json_with_a_huge_string_is_refused_where_it_is(tmp_path):
    path = tmp_path / "huge.json.gz"
    name = "x" * int(settings().limits.max_event_bytes + 10)
    doc = {"rocprofiler-sdk-tool": [
        {"metadata": {"pid": 1}, "kernel_symbols": [{"kernel_id": 1, "formatted_kernel_name": name}]}]}
    path.write_bytes(gzip.compress(json.dumps(doc).encode()))
    with pytest.raises(TraceError) as info:
        _measure(path)
    assert "larger than" in info.value.message
    assert info.value.field == "rocprofiler-sdk-tool.*.kernel_symbols[0]"


def test_a_number_out_of_range_in_a_sqlite_row_is_located(tmp_path):
    path = _plain_sqlite(tmp_path)
    db = sqlite3.connect(path)
    db.execute("UPDATE CUPTI_ACTIVITY_KIND_KERNEL SET end = start - 5 WHERE rowid = 2")
    db.commit()
    db.close()
    with pytest.raises(TraceError) as info:
        _measure(path)
    assert str(info.value).startswith(f"{path}:table CUPTI_ACTIVITY_KIND_KERNEL row 2: end:")


@pytest.mark.parametrize(("name", "category"), [
    ("Cijk_Ailk_Bljk_BBS_BH_Bias_HA_S_SAV_UserArgs_MT64x32x256_MI16x16x1_SN", "gemm"),   # hipBLASLt
    ("Cijk_Alik_Bljk_HHS_BH_MT128x128x32_MI32x32x8x1_SN_1LDSB0_APM1", "gemm"),  # rocBLAS/Tensile
    ("void ck::kernel_gemm_xdl_cshuffle_v3<ck::GridwiseGemm_xdl_cshuffle_v3<...>>", "gemm"),  # CK GEMM
    ("ck_tile::FmhaFwdKernel<ck_tile::BlockFmhaPipelineQRKSVSAsync<...>>", "attention"),  # CK
    ("attn_fwd", "attention"), ("bwd_kernel_fuse", "attention"),  # Triton FA on ROCm
    ("triton_poi_fused_add_mul_0", "elementwise"), ("triton_red_fused_sum_1", "reduction"),
    ("__amd_rocclr_copyBuffer", "memcpy"), ("__amd_rocclr_fillBufferAligned", "memcpy"),
    ("void at::native::(anonymous namespace)::cuComputeGradGammaBeta<float, float, false>(...)",
     "normalization"),
    ("mscclKernel_Sum_float_LL128_false(ncclDevComm*, mscclAlgo*, mscclWork*)", "communication"),
])
def test_amd_kernel_names_are_classified(name, category):
    c = load_classifier()
    assert c.names[c.index(name, "kernel")] == category


def test_the_mi350x_trace_leaves_little_kernel_time_unclassified():
    m = _measure(DATA / "rocprof_json/908_results.json.gz")
    total = sum(m.category_us.values())
    assert m.category_us["other"] / total < 0.01 and m.category_us["memcpy"] > 0


def test_nvtx_ranges_named_as_steps_are_steps(tmp_path):
    """The saxpy export with an NVTX push/pop range `train step N` around each kernel's launch
    and run (its own ranges are MPI calls, which are not steps)."""
    path = _plain_sqlite(tmp_path)
    db = sqlite3.connect(path)
    kernels = list(db.execute("SELECT start, end FROM CUPTI_ACTIVITY_KIND_KERNEL ORDER BY start"))
    bounds = [kernels[0][0] - 100_000_000] + [end for _, end in kernels]
    for n, (lo, hi) in enumerate(itertools.pairwise(bounds)):
        db.execute("INSERT INTO NVTX_EVENTS (start, end, eventType, text) VALUES (?, ?, 59, ?)",
                   (lo, hi, f"train_step {n}"))
    db.commit()
    db.close()
    m = _measure(path)
    assert [st.number for st in m.steps] == [0, 1, 2, 3, 4]
    assert m.excluded_step is None   # nsys does not cut the last step short, as Kineto does
    facts = case_out.case_mapping(m)["facts"]
    assert facts["kernels_per_step"] == 1
    durations = sorted((hi - lo) / 1e3 for lo, hi in itertools.pairwise(bounds))
    assert float(facts["step_time"].split()[0]) == pytest.approx(durations[2], rel=1e-5)


def test_a_window_of_only_zero_flop_kernels_does_not_fail_a_derivation(tmp_path, knowledge):
    """Two elementwise kernels are 100% of kernel time: zero_flop_share is 1, and the Amdahl
    bounds (which divide by 1 − share, guarded by `when: zero_flop_share < 1`) are not derived."""
    from conftest import ROOT

    from regime.engine import api
    text = (ROOT / "cases" / "b_training_run.yaml").read_text()
    start = text.index("  kernel_share:\n")
    end = text.index("\n", text.index("flash_attention", start))
    case = tmp_path / "all_elementwise.yaml"
    case.write_text(text[:start] + "  kernel_share:\n    elementwise: 100%" + text[end:])
    d = api.diagnose(case, knowledge)
    assert not [c for c in d.conclusions if c.id == "derivation_failed"]
    assert d.facts["zero_flop_share"].value == 1.0
    assert "amdahl_flop_util" not in d.facts and "fusion_speedup_bound" not in d.facts


def test_the_track_layout_of_rocpd_reads_to_the_same_figures(tmp_path):
    """The same 9 real dispatches in the rocpd layout whose rows point at rocpd_track and
    rocpd_timestamp (rocpd/build_rocpd_track_fixture.py, from rocprofiler-sdk's schema SQL)."""
    want = EXPECTED["rocpd/constructed/kernel_trace_as_rocpd.db"]["per_agent"]["1"]["all"]
    path = DATA / "rocpd/constructed/kernel_trace_as_rocpd_track_layout.db"
    m = _measure(path)
    assert [d.events for d in m.devices] == [want["count"]] and m.kernels == want["count"]
    assert m.devices[0].busy_us == pytest.approx(want["busy_ns"] / 1e3, abs=1e-3)
    assert m.window_us == pytest.approx(want["span_ns"] / 1e3, abs=1e-3)
    assert m.idle_share == pytest.approx(want["idle_share"], abs=1e-6)
    broken = tmp_path / "no_timestamps.db"
    shutil.copy(path, broken)
    db = sqlite3.connect(broken)
    db.execute("DROP VIEW rocpd_timestamp")
    db.commit()
    db.close()
    with pytest.raises(TraceError) as info:
        _measure(broken)
    assert "rocpd_timestamp" in info.value.message and "schema 3" in info.value.message

#!/usr/bin/env python3
"""Reference figures for the profiler-output fixtures in this folder.

Standard library only (sqlite3, json, csv, gzip).  This code shares nothing
with Regime: it is an independent second computation, so that a Regime reader
of these formats can be checked against numbers that were not produced by the
code under test.

Usage (from the repository root or from this folder):

    python3 tests/data/profilers/reference_figures.py            # print YAML
    python3 tests/data/profilers/reference_figures.py --write    # (re)write EXPECTED.yaml
    python3 tests/data/profilers/reference_figures.py --check    # recompute, compare with EXPECTED.yaml

Definitions used throughout (all times in nanoseconds, integers, exact):

* interval: an activity record is the half-open interval [start, end).
* busy (union): the length of the union of the intervals, so overlapping
  activities (concurrent streams, copy/compute overlap) are counted once.
* span: last end minus first start over the same set of intervals.
* idle_share: 1 - busy / span (rounded to 6 decimals; 0.0 when span is 0).
* per-stream gaps: within one (device, stream) the intervals are sorted by
  (start, end); a gap is counted whenever the next start is strictly later
  than the latest end seen so far on that stream; its length is that
  difference.  gap_count and gap_total_ns are reported per stream.
* "all" = kernels + memcpy + memset (Nsight Systems) or kernels + memory
  copies (rocprofiler-sdk; this fixture has no copy records); "kernels" =
  kernels only.
* top-5 kernels: grouped by the full (demangled) name, ranked by the summed
  duration (end - start), ties broken by name.

Nothing here rounds a time; only shares/percentages are rounded (6 decimals).
"""

from __future__ import annotations

import argparse
import csv
import gzip
import io
import json
import os
import sqlite3
import sys
from collections import defaultdict

HERE = os.path.dirname(os.path.abspath(__file__))


# --------------------------------------------------------------------------
# generic interval arithmetic
# --------------------------------------------------------------------------

def union_length(intervals):
    """Length of the union of half-open [start, end) intervals."""
    total = 0
    cur_s = cur_e = None
    for s, e in sorted(intervals):
        if e <= s:
            continue
        if cur_e is None or s > cur_e:
            if cur_e is not None:
                total += cur_e - cur_s
            cur_s, cur_e = s, e
        elif e > cur_e:
            cur_e = e
    if cur_e is not None:
        total += cur_e - cur_s
    return total


def gaps(intervals):
    """(count, total) of idle gaps between consecutive intervals of one stream."""
    count = total = 0
    max_end = None
    for s, e in sorted(intervals):
        if max_end is not None and s > max_end:
            count += 1
            total += s - max_end
        if max_end is None or e > max_end:
            max_end = e
    return count, total


def busy_block(intervals):
    """busy / span / idle_share for one set of intervals."""
    if not intervals:
        return {"count": 0, "busy_ns": 0, "span_ns": 0, "idle_share": 0.0}
    first = min(s for s, _ in intervals)
    last = max(e for _, e in intervals)
    busy = union_length(intervals)
    span = last - first
    return {
        "count": len(intervals),
        "busy_ns": busy,
        "first_start_ns": first,
        "last_end_ns": last,
        "span_ns": span,
        "idle_share": round(1 - busy / span, 6) if span else 0.0,
    }


def top_kernels(named_intervals, n=5):
    """named_intervals: iterable of (name, start, end)."""
    tot = defaultdict(int)
    cnt = defaultdict(int)
    for name, s, e in named_intervals:
        tot[name] += e - s
        cnt[name] += 1
    ranked = sorted(tot, key=lambda k: (-tot[k], k))[:n]
    return [{"name": k, "total_ns": tot[k], "count": cnt[k]} for k in ranked]


def stream_gap_table(records):
    """records: iterable of (device, stream, start, end) -> list of dicts."""
    per = defaultdict(list)
    for dev, stream, s, e in records:
        per[(dev, stream)].append((s, e))
    out = []
    for (dev, stream) in sorted(per):
        c, t = gaps(per[(dev, stream)])
        out.append({"device": dev, "stream": stream, "activities": len(per[(dev, stream)]),
                    "gap_count": c, "gap_total_ns": t})
    return out


# --------------------------------------------------------------------------
# Nsight Systems SQLite export
# --------------------------------------------------------------------------

NSYS_SQL = {
    "tables": "SELECT name FROM sqlite_master WHERE type='table' ORDER BY name",
    "export_meta_new": "SELECT name, value FROM META_DATA_EXPORT",     # schema >= 3.x
    "export_meta_old": "SELECT name, value FROM EXPORT_META_DATA",     # schema 2.x
    "gpus": "SELECT id, name, busLocation, smCount, totalMemory, chipName FROM TARGET_INFO_GPU ORDER BY id",
    "kernels": (
        "SELECT k.deviceId, k.streamId, k.globalPid, k.start, k.end, d.value AS demangled, s.value AS short "
        "FROM CUPTI_ACTIVITY_KIND_KERNEL AS k "
        "LEFT JOIN StringIds AS d ON d.id = k.demangledName "
        "LEFT JOIN StringIds AS s ON s.id = k.shortName"
    ),
    "memcpy": "SELECT deviceId, streamId, globalPid, start, end FROM CUPTI_ACTIVITY_KIND_MEMCPY",
    "memset": "SELECT deviceId, streamId, globalPid, start, end FROM CUPTI_ACTIVITY_KIND_MEMSET",
    "runtime_count": "SELECT count(*) FROM CUPTI_ACTIVITY_KIND_RUNTIME",
    "nvtx_count": "SELECT count(*) FROM NVTX_EVENTS",
    # process id as nsys encodes it: globalPid = (vmId<<56)|(pid<<24) ; pid = (globalPid >> 24) & 0xFFFFFF
    "pid_expr": "(globalPid >> 24) & 0xFFFFFF",
}

NSYS_KEY_TABLES = [
    "CUPTI_ACTIVITY_KIND_KERNEL", "CUPTI_ACTIVITY_KIND_MEMCPY", "CUPTI_ACTIVITY_KIND_MEMSET",
    "CUPTI_ACTIVITY_KIND_RUNTIME", "CUPTI_ACTIVITY_KIND_SYNCHRONIZATION", "NVTX_EVENTS",
    "StringIds", "TARGET_INFO_GPU", "TARGET_INFO_CUDA_STREAM", "TARGET_INFO_SESSION_START_TIME",
    "ThreadNames", "ENUM_CUDA_MEMCPY_OPER", "META_DATA_EXPORT", "EXPORT_META_DATA",
]


def _open_sqlite(path):
    """Open a .sqlite, or a .sqlite.gz decompressed into memory."""
    if path.endswith(".gz"):
        data = gzip.open(path).read()
        con = sqlite3.connect(":memory:")
        con.deserialize(data)  # Python >= 3.11
        return con
    return sqlite3.connect(f"file:{path}?mode=ro", uri=True)


def nsys_sqlite_figures(path):
    con = _open_sqlite(path)
    tables = [r[0] for r in con.execute(NSYS_SQL["tables"])]
    tset = set(tables)
    fig = {"format": "nsys_sqlite", "tables_present": tables, "table_count": len(tables)}

    meta = {}
    for key in ("export_meta_new", "export_meta_old"):
        tname = "META_DATA_EXPORT" if key == "export_meta_new" else "EXPORT_META_DATA"
        if tname in tset:
            meta = dict(con.execute(NSYS_SQL[key]).fetchall())
            fig["export_meta_table"] = tname
    fig["export_schema_version"] = meta.get("EXPORT_SCHEMA_VERSION")
    fig["export_product_version"] = meta.get("EXPORT_PRODUCT_VERSION")

    fig["row_counts"] = {t: con.execute(f'SELECT count(*) FROM "{t}"').fetchone()[0]
                         for t in NSYS_KEY_TABLES if t in tset}
    fig["key_tables_absent"] = [t for t in NSYS_KEY_TABLES if t not in tset]
    fig["columns"] = {t: [r[1] for r in con.execute(f'PRAGMA table_info("{t}")')]
                      for t in NSYS_KEY_TABLES if t in tset and not t.endswith("META_DATA") and t != "META_DATA_EXPORT"}

    fig["gpus_in_TARGET_INFO_GPU"] = [
        {"id": r[0], "name": r[1], "busLocation": r[2], "smCount": r[3], "totalMemory": r[4], "chipName": r[5]}
        for r in con.execute(NSYS_SQL["gpus"])] if "TARGET_INFO_GPU" in tset else []

    kernels = con.execute(NSYS_SQL["kernels"]).fetchall() if "CUPTI_ACTIVITY_KIND_KERNEL" in tset else []
    copies = con.execute(NSYS_SQL["memcpy"]).fetchall() if "CUPTI_ACTIVITY_KIND_MEMCPY" in tset else []
    sets = con.execute(NSYS_SQL["memset"]).fetchall() if "CUPTI_ACTIVITY_KIND_MEMSET" in tset else []

    fig["kernel_count"] = len(kernels)
    fig["memcpy_count"] = len(copies)
    fig["memset_count"] = len(sets)

    gpids = {r[2] for r in kernels} | {r[2] for r in copies} | {r[2] for r in sets}
    fig["processes_with_gpu_activity"] = sorted((g >> 24) & 0xFFFFFF for g in gpids)
    devices = sorted({r[0] for r in kernels} | {r[0] for r in copies} | {r[0] for r in sets})
    fig["devices_with_gpu_activity"] = devices
    fig["gpu_count_with_activity"] = len(devices)
    fig["gpu_count_in_TARGET_INFO_GPU"] = len(fig["gpus_in_TARGET_INFO_GPU"])

    per_dev = {}
    for dev in devices:
        k = [(r[3], r[4]) for r in kernels if r[0] == dev]
        a = k + [(r[3], r[4]) for r in copies if r[0] == dev] + [(r[3], r[4]) for r in sets if r[0] == dev]
        per_dev[dev] = {"kernels": busy_block(k), "all": busy_block(a)}
    fig["per_device"] = per_dev

    all_recs = ([(r[0], r[1], r[3], r[4]) for r in kernels] + [(r[0], r[1], r[3], r[4]) for r in copies]
                + [(r[0], r[1], r[3], r[4]) for r in sets])
    fig["per_stream_gaps_all"] = stream_gap_table(all_recs)
    fig["per_stream_gaps_kernels"] = stream_gap_table([(r[0], r[1], r[3], r[4]) for r in kernels])
    fig["kernel_total_ns_sum"] = sum(r[4] - r[3] for r in kernels)
    fig["top5_kernels_by_total_time_demangled"] = top_kernels((r[5], r[3], r[4]) for r in kernels)
    fig["top5_kernels_by_total_time_shortName"] = top_kernels((r[6], r[3], r[4]) for r in kernels)
    if "CUPTI_ACTIVITY_KIND_RUNTIME" in tset:
        fig["cuda_runtime_api_calls"] = con.execute(NSYS_SQL["runtime_count"]).fetchone()[0]
    if "NVTX_EVENTS" in tset:
        fig["nvtx_events"] = con.execute(NSYS_SQL["nvtx_count"]).fetchone()[0]
    con.close()
    return fig


# --------------------------------------------------------------------------
# rocprofiler-sdk (rocprofv3) JSON:  {"rocprofiler-sdk-tool": [ {...} ]}
# --------------------------------------------------------------------------
# Fields used (per kernel_dispatch buffer record):
#   start_timestamp, end_timestamp              ns (same clock as metadata.init_time)
#   dispatch_info.agent_id.handle               -> agents[i].id.handle (device)
#   dispatch_info.queue_id.handle               HSA queue (the "stream" for gaps)
#   stream_id.handle                            HIP stream (0 = none / legacy)
#   dispatch_info.kernel_id                     -> kernel_symbols[i].kernel_id
#   correlation_id.internal, thread_id, kind (11 = KERNEL_DISPATCH), operation
# kernel_symbols[i]: kernel_name (mangled, with ".kd"), formatted_kernel_name,
#   demangled_kernel_name, truncated_kernel_name.


def _load_json(path):
    opener = gzip.open if path.endswith(".gz") else open
    with opener(path, "rt") as fh:
        return json.load(fh)


def rocprof_json_figures(path):
    doc = _load_json(path)
    tools = doc["rocprofiler-sdk-tool"]
    fig = {"format": "rocprofiler-sdk json", "tool_entries": len(tools), "processes": []}
    for tool in tools:
        meta = tool["metadata"]
        agents = {a["id"]["handle"]: a for a in tool["agents"]}
        syms = {k["kernel_id"]: k for k in tool["kernel_symbols"]}
        disp = tool["buffer_records"].get("kernel_dispatch", [])
        copies = tool["buffer_records"].get("memory_copy", [])
        pfig = {
            "pid": meta.get("pid"),
            "hostname": meta.get("node", {}).get("hostname"),
            "command": meta.get("command"),
            "gpu_agents": [{"handle": h, "name": a.get("name"), "product_name": a.get("product_name"),
                            "gpu_index": a.get("gpu_index"), "node_id": a.get("node_id")}
                           for h, a in sorted(agents.items()) if a.get("type") == 2],
            "kernel_dispatch_count": len(disp),
            "memory_copy_count": len(copies),
            "buffer_record_counts": {k: len(v) for k, v in sorted(tool["buffer_records"].items())},
        }
        rows = [(r["dispatch_info"]["agent_id"]["handle"], r["dispatch_info"]["queue_id"]["handle"],
                 r["stream_id"]["handle"], r["start_timestamp"], r["end_timestamp"],
                 r["dispatch_info"]["kernel_id"]) for r in disp]
        crow = [(r["dst_agent_id"]["handle"], None, r.get("stream_id", {}).get("handle"),
                 r["start_timestamp"], r["end_timestamp"]) for r in copies] if copies else []
        devices = sorted({r[0] for r in rows} | {r[0] for r in crow})
        pfig["devices_with_activity"] = [
            {"handle": d, "product_name": agents.get(d, {}).get("product_name")} for d in devices]
        per = {}
        for d in devices:
            k = [(r[3], r[4]) for r in rows if r[0] == d]
            a = k + [(r[3], r[4]) for r in crow if r[0] == d]
            per[d] = {"kernels": busy_block(k), "all": busy_block(a)}
        pfig["per_device"] = per
        pfig["per_queue_gaps_kernels"] = stream_gap_table((r[0], r[1], r[3], r[4]) for r in rows)
        pfig["per_hip_stream_gaps_kernels"] = stream_gap_table((r[0], r[2], r[3], r[4]) for r in rows)
        pfig["kernel_total_ns_sum"] = sum(r[4] - r[3] for r in rows)
        pfig["distinct_kernel_ids_dispatched"] = len({r[5] for r in rows})

        def nm(kid, field):
            s = syms.get(kid)
            return s.get(field) if s else f"<kernel_id {kid}>"
        pfig["top5_kernels_by_total_time_formatted"] = top_kernels(
            (nm(r[5], "formatted_kernel_name"), r[3], r[4]) for r in rows)
        pfig["top5_kernels_by_total_time_kernel_name"] = top_kernels(
            (nm(r[5], "kernel_name"), r[3], r[4]) for r in rows)
        pfig["profiler_window_ns"] = {"init_time": meta.get("init_time"), "fini_time": meta.get("fini_time")}
        fig["processes"].append(pfig)
    return fig


# --------------------------------------------------------------------------
# rocprofv3 CSV kernel trace (<pid>_kernel_trace.csv)
# --------------------------------------------------------------------------

def rocprof_kernel_trace_csv_figures(path):
    with open(path, newline="") as fh:
        rows = list(csv.DictReader(fh))
    recs = [(r["Agent_Id"], int(r["Queue_Id"]), int(r["Stream_Id"]), int(r["Start_Timestamp"]),
             int(r["End_Timestamp"]), r["Kernel_Name"]) for r in rows if r["Kind"] == "KERNEL_DISPATCH"]
    devices = sorted({r[0] for r in recs})
    return {
        "format": "rocprofv3 kernel_trace.csv",
        "columns": list(rows[0].keys()) if rows else [],
        "kernel_dispatch_count": len(recs),
        "devices": devices,
        "per_device": {d: {"kernels": busy_block([(r[3], r[4]) for r in recs if r[0] == d])} for d in devices},
        "per_queue_gaps_kernels": stream_gap_table((r[0], r[1], r[3], r[4]) for r in recs),
        "kernel_total_ns_sum": sum(r[4] - r[3] for r in recs),
        "top5_kernels_by_total_time": top_kernels((r[5], r[3], r[4]) for r in recs),
    }


# --------------------------------------------------------------------------
# rocpd SQLite (rocprofiler-sdk >= 1.0 / ROCm 7.0, schema_version "3")
# --------------------------------------------------------------------------
# Read through the un-suffixed views (rocpd_kernel_dispatch -> rocpd_kernel_dispatch_<uuid>),
# which exist in every rocpd file; agent_id / kernel_id / queue_id / stream_id are ROW IDS
# into rocpd_info_* (OS pid is rocpd_info_process.pid, not rocpd_kernel_dispatch.pid).

ROCPD_SQL = {
    "metadata": "SELECT tag, value FROM rocpd_metadata",
    "kernels": (
        "SELECT K.agent_id, A.absolute_index, A.type, K.queue_id, K.stream_id, K.start, K.end, "
        "S.display_name, S.kernel_name FROM rocpd_kernel_dispatch K "
        "JOIN rocpd_info_agent A ON A.id = K.agent_id AND A.guid = K.guid "
        "JOIN rocpd_info_kernel_symbol S ON S.id = K.kernel_id AND S.guid = K.guid"),
    "copies": "SELECT dst_agent_id, start, end FROM rocpd_memory_copy",
    "upstream_busy_view": "SELECT agent_id, type, GpuTime, WallTime, Busy FROM busy",
    "upstream_top_kernels_view": "SELECT name, total_calls, total_duration FROM top_kernels",
}


def rocpd_figures(path):
    con = sqlite3.connect(f"file:{path}?mode=ro", uri=True)
    meta = dict(con.execute(ROCPD_SQL["metadata"]).fetchall())
    ks = con.execute(ROCPD_SQL["kernels"]).fetchall()
    cps = con.execute(ROCPD_SQL["copies"]).fetchall()
    devs = sorted({r[0] for r in ks} | {r[0] for r in cps})
    fig = {
        "format": "rocpd sqlite",
        "schema_version": meta.get("schema_version"),
        "uuid_suffix": meta.get("uuid"),
        "tables": [r[0] for r in con.execute("SELECT name FROM sqlite_master WHERE type='table' ORDER BY name")],
        "views": [r[0] for r in con.execute("SELECT name FROM sqlite_master WHERE type='view' ORDER BY name")],
        "kernel_dispatch_count": len(ks),
        "memory_copy_count": len(cps),
        "per_agent": {d: {"kernels": busy_block([(r[5], r[6]) for r in ks if r[0] == d]),
                          "all": busy_block([(r[5], r[6]) for r in ks if r[0] == d]
                                            + [(r[1], r[2]) for r in cps if r[0] == d])} for d in devs},
        "per_queue_gaps_kernels": stream_gap_table((r[0], r[3], r[5], r[6]) for r in ks),
        "kernel_total_ns_sum": sum(r[6] - r[5] for r in ks),
        "top5_kernels_by_total_time": top_kernels((r[7], r[5], r[6]) for r in ks),
        "upstream_busy_view_rows": [list(r) for r in con.execute(ROCPD_SQL["upstream_busy_view"])],
        "upstream_top_kernels_view_rows": [list(r) for r in con.execute(ROCPD_SQL["upstream_top_kernels_view"])],
        "note": "CONSTRUCTED here by rocpd/build_rocpd_fixture.py from the upstream schema and the real "
                "rocprof_csv/kernel_trace.csv; figures must equal that CSV's.  Upstream 'busy' view SUMS "
                "durations (no union) and uses one global wall time.",
    }
    con.close()
    return fig


# --------------------------------------------------------------------------
# Nsight Compute CSV (ncu --csv), details page (long form) or raw page (wide)
# --------------------------------------------------------------------------

_TIME_TO_NS = {"ns": 1, "nsecond": 1, "us": 1e3, "usecond": 1e3, "ms": 1e6, "msecond": 1e6,
               "s": 1e9, "second": 1e9}
_DETAILS_NAMES = {"duration": "Duration", "dram_pct": "DRAM Throughput",
                  "sm_pct": "Compute (SM) Throughput", "mem_pct": "Memory Throughput"}
_RAW_NAMES = {"duration": "gpu__time_duration.sum",
              "dram_pct": ("dram__throughput.avg.pct_of_peak_sustained_elapsed",
                           "gpu__dram_throughput.avg.pct_of_peak_sustained_elapsed"),
              "sm_pct": ("sm__throughput.avg.pct_of_peak_sustained_elapsed",),
              "mem_pct": ("gpu__compute_memory_throughput.avg.pct_of_peak_sustained_elapsed",)}


def _num(text):
    return float(text.replace(",", ""))


def _conv(key, value, unit):
    """Durations to ns (rounded to 1e-3 ns to shed float noise); percentages as they are."""
    if key == "duration":
        return round(_num(value) * _TIME_TO_NS[unit], 3)
    return _num(value)


def _ncu_csv_text(path):
    """Drop ncu's '==PROF==' lines and the application's own stdout before the header."""
    with open(path, newline="") as fh:
        lines = fh.read().splitlines()
    start = next((i for i, l in enumerate(lines) if l.startswith('"ID",')), None)
    if start is None:
        return None, lines
    return "\n".join(l for l in lines[start:] if not l.startswith("==")) + "\n", start


def ncu_csv_figures(path):
    text, skipped = _ncu_csv_text(path)
    if text is None:  # ncu wrote only its own messages (e.g. an option error), no CSV at all
        return {"format": "ncu --csv", "page": None, "kernel_count": 0, "csv_header_found": False,
                "error_lines": [l for l in skipped if l.startswith("==ERROR==")]}
    rows = list(csv.reader(io.StringIO(text)))
    header = rows[0]
    fig = {"format": "ncu --csv", "preamble_lines_skipped": skipped, "columns": header}
    kernels = {}
    if "Metric Name" in header:                       # details page, one metric per row
        fig["page"] = "details"
        ix = {h: i for i, h in enumerate(header)}
        fig["rows"] = len(rows) - 1
        for r in rows[1:]:
            if len(r) < len(header) - 5:  # rows may omit trailing empty rule columns
                continue
            kid = r[ix["ID"]]
            k = kernels.setdefault(kid, {"id": kid, "name": r[ix["Kernel Name"]],
                                         "device": r[ix["Device"]], "cc": r[ix["CC"]],
                                         "grid": r[ix["Grid Size"]], "block": r[ix["Block Size"]]})
            name, unit, value = r[ix["Metric Name"]], r[ix["Metric Unit"]], r[ix["Metric Value"]]
            section = r[ix["Section Name"]]
            if value == "":
                continue
            # The friendly names are taken from the Speed-Of-Light section only: "Memory Throughput"
            # also appears in "Memory Workload Analysis" in Gbyte/s.
            if section == "GPU Speed Of Light Throughput":
                for key, want in _DETAILS_NAMES.items():
                    if name == want:
                        k[key] = _conv(key, value, unit)
                        if key == "duration":
                            k["duration_unit_in_file"] = unit
            # raw metric names requested with --metrics land in "Command line profiler metrics"
            for key, want in _RAW_NAMES.items():
                for w in ([want] if isinstance(want, str) else want):
                    if name == w:
                        k["raw_" + key] = _conv(key, value, unit)
    else:                                             # raw page: row 2 holds the units
        fig["page"] = "raw"
        units = rows[1]
        ix = {h: i for i, h in enumerate(header)}
        for r in rows[2:]:
            kid = r[ix["ID"]]
            k = kernels.setdefault(kid, {"id": kid, "name": r[ix["Kernel Name"]]})
            for key, want in _RAW_NAMES.items():
                for w in ([want] if isinstance(want, str) else want):
                    if w in ix and r[ix[w]] != "":
                        k[key] = _conv(key, r[ix[w]], units[ix[w]])
    ks = [kernels[k] for k in sorted(kernels, key=int)]
    fig["kernel_count"] = len(ks)
    fig["kernels"] = ks
    fig.update(_ncu_summary(ks))
    return fig


def _ncu_summary(ks):
    out = {"duration_total_ns": sum(k.get("duration", 0) for k in ks)}
    for key in ("dram_pct", "sm_pct", "mem_pct"):
        have = [k for k in ks if key in k and "duration" in k]
        out[f"{key}_duration_weighted_mean"] = (
            round(sum(k[key] * k["duration"] for k in have) / sum(k["duration"] for k in have), 6)
            if have else None)
    return out


def ncu_csv_set_figures(folder):
    """A folder of one-launch details-page CSVs (kernel_NNNN.details.csv), taken together,
    plus agreement with the folder's third-party summary (metrics_summary.by_llm-perf-opt.csv)."""
    names = sorted(f for f in os.listdir(folder) if f.endswith(".details.csv"))
    ks = []
    for n in names:
        f = ncu_csv_figures(os.path.join(folder, n))
        assert f["kernel_count"] == 1, n
        k = dict(f["kernels"][0])
        k["file"] = n
        ks.append(k)
    fig = {"format": "ncu --csv details page, one launch per file", "files": len(names), "kernel_count": len(ks),
           "kernels": ks}
    fig.update(_ncu_summary(ks))
    fig["raw_equals_friendly"] = all(
        k.get("raw_duration") == k.get("duration") and k.get("raw_dram_pct") == k.get("dram_pct")
        and k.get("raw_sm_pct") == k.get("sm_pct") for k in ks)
    summ = os.path.join(folder, "metrics_summary.by_llm-perf-opt.csv")
    if os.path.exists(summ):
        with open(summ, newline="") as fh:
            theirs = {r["kernel_id"].split("_")[0] + "_" + r["kernel_id"].split("_")[1]: r for r in csv.DictReader(fh)}
        agree = []
        for k in ks:
            t = theirs.get(k["file"].split(".")[0])
            agree.append(t is not None
                         and abs(float(t["duration_us"]) * 1e3 - k["duration"]) < 1e-6 * max(1.0, k["duration"])
                         and abs(float(t["sm_throughput_pct"]) - k["sm_pct"]) < 1e-9
                         and abs(float(t["dram_throughput_pct"]) - k["dram_pct"]) < 1e-9)
        fig["agrees_with_llm_perf_opt_metrics_summary"] = {"kernels_compared": len(agree),
                                                            "kernels_agreeing": sum(agree)}
    return fig


# --------------------------------------------------------------------------
# nsys-related CSV files
# --------------------------------------------------------------------------

def nsys_nvtx_pptrace_csv_figures(path):
    """`nsys stats -r nvtxpptrace --format csv` (NVTX push/pop trace)."""
    with open(path, newline="") as fh:
        rows = list(csv.DictReader(fh))
    by = defaultdict(lambda: [0, 0])
    for r in rows:
        by[r["Name"]][0] += 1
        by[r["Name"]][1] += int(r["Duration (ns)"])
    top = sorted(by, key=lambda n: (-by[n][1], n))[:5]
    lvl0 = [r for r in rows if r["Lvl"] == "0"]
    return {
        "format": "nsys stats nvtxpptrace csv",
        "columns": list(rows[0].keys()),
        "range_count": len(rows),
        "kernel_count": 0,
        "note": "NVTX ranges only; this report holds no kernels",
        "top_level_ranges": len(lvl0),
        "top_level_total_ns": sum(int(r["Duration (ns)"]) for r in lvl0),
        "pids": sorted({int(r["PID"]) for r in rows}),
        "max_level": max(int(r["Lvl"]) for r in rows),
        "top5_ranges_by_total_time": [{"name": n, "count": by[n][0], "total_ns": by[n][1]} for n in top],
    }


def nsys_kern_sum_csv_figures(path):
    """`nsys stats -r cuda_gpu_kern_sum --format csv`: one row per kernel name."""
    with open(path, newline="") as fh:
        lines = fh.read().splitlines()
    start = next(i for i, l in enumerate(lines) if l.startswith("Time (%)"))
    rows = list(csv.DictReader(io.StringIO("\n".join(lines[start:]) + "\n")))
    num = lambda v: float(v.replace(",", ""))  # noqa: E731
    tot = [int(num(r["Total Time (ns)"])) for r in rows]
    inst = [int(num(r["Instances"])) for r in rows]
    ranked = sorted(range(len(rows)), key=lambda i: (-tot[i], rows[i]["Name"]))[:5]
    return {
        "format": "nsys stats cuda_gpu_kern_sum csv",
        "columns": list(rows[0].keys()),
        "preamble_lines_skipped": start,
        "distinct_kernel_names": len(rows),
        "kernel_count": sum(inst),
        "kernel_total_ns": sum(tot),
        "time_pct_sum": round(sum(num(r["Time (%)"]) for r in rows), 6),
        "max_abs_avg_x_instances_minus_total_ns": round(max(
            abs(num(r["Avg (ns)"]) * i - t) for r, i, t in zip(rows, inst, tot)), 3),
        "top5_kernels_by_total_time": [{"name": rows[i]["Name"], "total_ns": tot[i], "count": inst[i]}
                                       for i in ranked],
    }


def pipit_event_csv_figures(path):
    """pipit's own Trace.events dump (Enter/Leave rows); NOT an nsys stats report."""
    with open(path, newline="") as fh:
        rows = list(csv.DictReader(fh))
    enters = [r for r in rows if r["Event Type"] == "Enter"]
    fig = {"format": "pipit Trace.events csv (derived from the nsys sqlite by pipit)",
           "columns": list(rows[0].keys()), "rows": len(rows), "enter_rows": len(enters)}
    if "type" in rows[0]:
        ivs = [(int(r["Timestamp (ns)"]), int(float(r["_matching_timestamp"])), r["type"], r["Name"], r["streamId"])
               for r in enters]
        kern = [(s, e) for s, e, t, _, _ in ivs if t == "kernel"]
        fig["kernel_count"] = len(kern)
        fig["kernel_total_ns_sum"] = sum(e - s for s, e in kern)
        fig["kernels_busy"] = busy_block(kern)
        fig["all_busy"] = busy_block([(s, e) for s, e, *_ in ivs])
        fig["type_counts"] = dict(sorted(defaultdict(int, {t: sum(1 for x in ivs if x[2] == t)
                                                           for t in {x[2] for x in ivs}}).items()))
    else:
        fig["trace_types"] = sorted({r["Trace Type"] for r in rows})
        fig["distinct_names"] = len({r["Name"] for r in rows})
    return fig


# --------------------------------------------------------------------------
# driver
# --------------------------------------------------------------------------

FILES = [
    ("nsys_sqlite/perlmutter-cloverleaf-cuda.sqlite.gz", nsys_sqlite_figures),
    ("nsys_sqlite/saxpy-mpi-cuda_nsys_perlmutter0.sqlite.gz", nsys_sqlite_figures),
    ("nsys_csv/nbody-nvtx_trace.csv", nsys_nvtx_pptrace_csv_figures),
    ("nsys_csv/llm-perf-opt_dsocr/all-stage.cuda_gpu_kern_sum.csv", nsys_kern_sum_csv_figures),
    ("nsys_csv/llm-perf-opt_dsocr/clip.cuda_gpu_kern_sum.csv", nsys_kern_sum_csv_figures),
    ("nsys_csv/llm-perf-opt_dsocr/decode.cuda_gpu_kern_sum.csv", nsys_kern_sum_csv_figures),
    ("nsys_csv/llm-perf-opt_dsocr/prefill.cuda_gpu_kern_sum.csv", nsys_kern_sum_csv_figures),
    ("nsys_csv/llm-perf-opt_dsocr/projector.cuda_gpu_kern_sum.csv", nsys_kern_sum_csv_figures),
    ("nsys_csv/llm-perf-opt_dsocr/sam.cuda_gpu_kern_sum.csv", nsys_kern_sum_csv_figures),
    ("nsys_csv/pipit_derived/cloverleaf_gpu_trace.csv", pipit_event_csv_figures),
    ("nsys_csv/pipit_derived/cloverleaf-cuda_api_trace.csv", pipit_event_csv_figures),
    ("rocprof_json/908_results.json.gz", rocprof_json_figures),
    ("rocprof_csv/kernel_trace.csv", rocprof_kernel_trace_csv_figures),
    ("rocpd/constructed/kernel_trace_as_rocpd.db", rocpd_figures),
    ("ncu_csv/cublaslt_ncu.log", ncu_csv_figures),
    ("ncu_csv/llm-perf-opt_dsocr", ncu_csv_set_figures),
    ("ncu_csv/llm-perf-opt_error_only_raw.csv", ncu_csv_figures),
]


def compute_all():
    out = {}
    for rel, fn in FILES:
        p = os.path.join(HERE, rel)
        if os.path.exists(p):
            out[rel] = fn(p)
    return out


# minimal YAML emitter (block style; strings JSON-quoted, which is valid YAML)
def _scalar(v):
    if v is None:
        return "null"
    if isinstance(v, bool):
        return "true" if v else "false"
    if isinstance(v, (int, float)):
        return repr(v)
    return json.dumps(str(v), ensure_ascii=False)


def to_yaml(obj, indent=0):
    pad = "  " * indent
    lines = []
    if isinstance(obj, dict):
        if not obj:
            return pad + "{}"
        for k, v in obj.items():
            key = json.dumps(str(k), ensure_ascii=False)  # keys always strings, as in JSON
            if isinstance(v, (dict, list)) and v:
                lines.append(f"{pad}{key}:")
                lines.append(to_yaml(v, indent + 1))
            else:
                lines.append(f"{pad}{key}: {_scalar(v) if not isinstance(v, (dict, list)) else ('{}' if isinstance(v, dict) else '[]')}")
    elif isinstance(obj, list):
        if not obj:
            return pad + "[]"
        for v in obj:
            if isinstance(v, (dict, list)) and v:
                sub = to_yaml(v, indent + 1).splitlines()
                lines.append(f"{pad}- {sub[0].strip()}")
                lines.extend(sub[1:])
            else:
                lines.append(f"{pad}- {_scalar(v)}")
    else:
        lines.append(pad + _scalar(obj))
    return "\n".join(lines)


HEADER = """\
# EXPECTED.yaml -- reference figures for tests/data/profilers/*
# Generated by reference_figures.py (standard library only, independent of Regime):
#     python3 tests/data/profilers/reference_figures.py --write
# Definitions (busy = union of [start,end) intervals; span = last end - first start;
# idle_share = 1 - busy/span; per-stream gaps; top-5 by summed duration) are in the
# docstring of reference_figures.py.  All times are integer nanoseconds unless named *_share/*_pct.
# Keys are file paths relative to tests/data/profilers/.
"""


# Recorded by hand from pipit_crosscheck.py (pipit @ ad30bc8 run with pandas 3.1.1, numpy 2.4.6);
# kept here so that EXPECTED.yaml carries it.  Not recomputed by this script.
PIPIT_AGREEMENT = {
    "pipit_commit": "hpcgroup/pipit ad30bc8498bdd16cc93b4eb8397d5d5bbae3e33b (pipit/readers/nsight_sqlite_reader.py)",
    "compared": ["kernel_count", "kernel_total_ns_sum", "kernels_busy_ns (union)", "gpu_events", "all_busy_ns (union)"],
    "nsys_sqlite/perlmutter-cloverleaf-cuda.sqlite.gz": {
        "result": "all five figures agree exactly",
        "pipit": {"kernel_count": 1312, "kernel_total_ns_sum": 294404540, "kernels_busy_ns": 294404540,
                  "gpu_events": 1591, "all_busy_ns": 303795463},
    },
    "nsys_sqlite/saxpy-mpi-cuda_nsys_perlmutter0.sqlite.gz": {
        "result": "pipit's reader fails: its memcpy query joins ENUM_CUDA_MEMCPY_OPER, which export schema 2.9.1 "
                  "(nsys 2022.2) does not have ('no such table: ENUM_CUDA_MEMCPY_OPER'); no figures to compare",
    },
    "also": "nsys_csv/pipit_derived/cloverleaf_gpu_trace.csv (pipit's own dump, committed upstream) gives the same "
            "kernel count/total/busy as the sqlite; see its entry under files.",
}


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--write", action="store_true", help="write EXPECTED.yaml")
    ap.add_argument("--check", action="store_true", help="compare with the JSON twin EXPECTED.json")
    a = ap.parse_args(argv)
    figs = compute_all()
    doc = {"sql_used_for_nsys_sqlite": NSYS_SQL, "sql_used_for_rocpd": ROCPD_SQL, "pipit_agreement": PIPIT_AGREEMENT, "files": figs}
    text = HEADER + to_yaml(doc) + "\n"
    if a.write:
        with open(os.path.join(HERE, "EXPECTED.yaml"), "w") as fh:
            fh.write(text)
        with open(os.path.join(HERE, "EXPECTED.json"), "w") as fh:
            json.dump(json.loads(json.dumps(doc)), fh, indent=1, sort_keys=False)
            fh.write("\n")
        print("wrote EXPECTED.yaml and EXPECTED.json", file=sys.stderr)
    elif a.check:
        with open(os.path.join(HERE, "EXPECTED.json")) as fh:
            want = json.load(fh)
        got = json.loads(json.dumps(doc))
        if got != want:
            print("MISMATCH between recomputed figures and EXPECTED.json", file=sys.stderr)
            return 1
        print("ok: recomputed figures equal EXPECTED.json", file=sys.stderr)
    else:
        sys.stdout.write(text)
    return 0


if __name__ == "__main__":
    sys.exit(main())

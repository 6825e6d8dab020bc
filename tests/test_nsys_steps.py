"""NVTX steps in Nsight Systems exports of several processes (engine/trace/profilers/nvtx_steps.py).

The exports are built here, with the columns nsys writes (globalPid / globalTid hold the process
id in bits 24–47), so the expected figures follow from how they are built:
- two ranks, each with its own `step N` ranges, the same correlation ids in both processes:
  rank A runs 2 kernels per 10 ms step, rank B 3 per 12 ms step; per-process steps give six
  steps, a median of 11 ms and 2.5 kernels (one list of ranges keyed by number and raw ids
  would keep rank A's three steps and give B's kernels to them by id);
- a driver process that marks the steps and launches nothing, two workers that launch: each
  worker's kernels belong to the step during which it launched them;
- two processes with ranges and a third without: its kernels are in no step, and the note says so.
"""

from __future__ import annotations

import sqlite3

import pytest

from regime.engine.trace import case_out
from regime.engine.trace.kernels import load_classifier
from regime.engine.trace.profilers.detect import measure_any
from regime.engine.trace.settings import settings

MS = 1_000_000   # ns


def _export(path, nvtx, launches):
    """nvtx: (pid, start, end, text); launches: (pid, launch start ns, kernel start ns, dur ns, corr)."""
    db = sqlite3.connect(path)
    db.executescript("""
        CREATE TABLE META_DATA_EXPORT (name TEXT, value TEXT);
        INSERT INTO META_DATA_EXPORT VALUES ('EXPORT_SCHEMA_VERSION', '3.13.2');
        CREATE TABLE StringIds (id INTEGER PRIMARY KEY, value TEXT);
        INSERT INTO StringIds VALUES (1, 'void gemm_kernel<float>(float*)'), (2, 'cudaLaunchKernel_v7000');
        CREATE TABLE CUPTI_ACTIVITY_KIND_KERNEL (start INT, end INT, deviceId INT, streamId INT,
            correlationId INT, globalPid INT, demangledName INT, shortName INT);
        CREATE TABLE CUPTI_ACTIVITY_KIND_RUNTIME (start INT, end INT, correlationId INT, nameId INT,
            globalTid INT);
        CREATE TABLE NVTX_EVENTS (start INT, end INT, eventType INT, text TEXT, textId INT,
            globalTid INT);""")
    for pid, lo, hi, text in nvtx:
        db.execute("INSERT INTO NVTX_EVENTS VALUES (?, ?, 59, ?, NULL, ?)", (lo, hi, text, (pid << 24) + 1))
    for pid, at, start, dur, corr in launches:
        db.execute("INSERT INTO CUPTI_ACTIVITY_KIND_RUNTIME VALUES (?, ?, ?, 2, ?)",
                   (at, at + 1000, corr, (pid << 24) + 1))
        db.execute("INSERT INTO CUPTI_ACTIVITY_KIND_KERNEL VALUES (?, ?, 0, 7, ?, ?, 1, 1)",
                   (start, start + dur, corr, pid << 24))
    db.commit()
    db.close()
    return path


def _rank(pid, t0, step_ms, per_step, steps=3, marked=True):
    """A rank's NVTX ranges and launches: `per_step` kernels launched early in each step,
    correlation ids from 1 in every process, as CUPTI counts them."""
    nvtx, launches, corr = [], [], 0
    for n in range(1, steps + 1):
        lo = t0 + (n - 1) * step_ms * MS
        if marked:
            nvtx.append((pid, lo, lo + step_ms * MS, f"step {n}"))
        for k in range(per_step):
            corr += 1
            at = lo + (k + 1) * 100_000
            launches.append((pid, at, at + 50_000, 200_000, corr))
    return nvtx, launches


def _measure(path):
    return measure_any(path, load_classifier(), settings())


def test_each_rank_keeps_its_own_steps_with_colliding_correlation_ids(tmp_path):
    a_nvtx, a_launch = _rank(100, 0, 10, 2)
    b_nvtx, b_launch = _rank(200, 5 * MS, 12, 3)
    m = _measure(_export(tmp_path / "ranks.sqlite", a_nvtx + b_nvtx, a_launch + b_launch))
    assert sorted((st.number, st.dur, st.kernels) for st in m.steps) == sorted(
        [(n, 10_000.0, 2) for n in (1, 2, 3)] + [(n, 12_000.0, 3) for n in (1, 2, 3)])
    facts = case_out.case_mapping(m)["facts"]
    assert facts["step_time"] == "11000 us"      # median of 10, 10, 10, 12, 12, 12 ms
    assert facts["kernels_per_step"] == 2.5      # median of 2, 2, 2, 3, 3, 3
    assert any("process 100: its own ranges" in n and "process 200: its own ranges" in n for n in m.notes)


def test_steps_marked_in_a_driver_process_own_the_workers_launches(tmp_path):
    driver, _ = _rank(300, 0, 10, 0)
    _, w1 = _rank(100, 0, 10, 2, marked=False)
    _, w2 = _rank(200, 0, 10, 4, marked=False)
    m = _measure(_export(tmp_path / "driver.sqlite", driver, w1 + w2))
    assert sorted((st.number, st.kernels) for st in m.steps) == sorted(
        [(n, 2) for n in (1, 2, 3)] + [(n, 4) for n in (1, 2, 3)])
    assert all(st.dur == 10_000.0 for st in m.steps)
    note = next(n for n in m.notes if n.startswith("Steps are NVTX ranges per process"))
    assert all(f"process {w}: the ranges of process 300" in note for w in (100, 200))


def test_a_process_without_ranges_among_several_that_have_some_is_in_no_step(tmp_path):
    a_nvtx, a_launch = _rank(100, 0, 10, 2)
    b_nvtx, b_launch = _rank(200, 0, 10, 3)
    _, c_launch = _rank(400, 0, 10, 5, marked=False)
    m = _measure(_export(tmp_path / "three.sqlite", a_nvtx + b_nvtx, a_launch + b_launch + c_launch))
    assert sorted(st.kernels for st in m.steps) == [2, 2, 2, 3, 3, 3]
    assert m.kernels == 3 * (2 + 3 + 5)          # on the timeline all the same
    assert any("process 400 has no step ranges of its own" in n for n in m.notes)


@pytest.mark.parametrize("corr", [1 << 40, -(1 << 41)])
def test_a_correlation_id_past_40_bits_belongs_to_no_step(tmp_path, corr):
    nvtx, launches = _rank(100, 0, 10, 2)
    launches[0] = (*launches[0][:4], corr)
    m = _measure(_export(tmp_path / "big.sqlite", nvtx, launches))
    assert sorted(st.kernels for st in m.steps) == [1, 2, 2]

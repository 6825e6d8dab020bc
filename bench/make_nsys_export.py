"""A synthetic Nsight Systems SQLite export of any size, in the columns the reader needs.

    .venv/bin/python bench/make_nsys_export.py OUT.sqlite --rows 16000000   # about 1 GB

Kernels of 50 names on 2 GPUs of one process, 4 streams, each with the runtime launch that
carries its correlation id; rows written in start order, as nsys writes them, 100k at a time
(the generator's memory stays flat too). bench/profiler_readers.py reads what this writes.
"""

from __future__ import annotations

import argparse
import random
import sqlite3
from pathlib import Path

SCHEMA = """
    CREATE TABLE META_DATA_EXPORT (name TEXT, value TEXT);
    INSERT INTO META_DATA_EXPORT VALUES ('EXPORT_SCHEMA_VERSION', '3.13.2');
    CREATE TABLE StringIds (id INTEGER PRIMARY KEY, value TEXT);
    CREATE TABLE TARGET_INFO_GPU (id INTEGER, name TEXT);
    INSERT INTO TARGET_INFO_GPU VALUES (0, 'NVIDIA H100 80GB HBM3'), (1, 'NVIDIA H100 80GB HBM3');
    CREATE TABLE CUPTI_ACTIVITY_KIND_KERNEL (start INT, end INT, deviceId INT, streamId INT,
        correlationId INT, globalPid INT, demangledName INT, shortName INT);
    CREATE TABLE CUPTI_ACTIVITY_KIND_RUNTIME (start INT, end INT, correlationId INT, nameId INT,
        globalTid INT);"""
BATCH = 100_000


def make_nsys(path: Path, rows: int) -> None:
    """Write `rows` kernels (and as many launches) to a new export at `path`."""
    db = sqlite3.connect(path)
    db.execute("PRAGMA journal_mode = OFF")
    db.execute("PRAGMA synchronous = OFF")
    db.executescript(SCHEMA)
    names = [f"void kernel_{i}<float>(float*, int)" for i in range(50)] + ["cudaLaunchKernel_v7000"]
    db.executemany("INSERT INTO StringIds VALUES (?, ?)", enumerate(names))
    rng, t = random.Random(7), 1_000_000
    for lo in range(0, rows, BATCH):
        kernels, launches = [], []
        for i in range(lo, min(rows, lo + BATCH)):
            dur = rng.randint(2_000, 40_000)
            kernels.append((t, t + dur, i % 2, 7 + i % 4, i, 4242 << 24, rng.randrange(50), 0))
            launches.append((t - 3_000, t - 1_000, i, 50, (4242 << 24) + 1))
            t += dur // 2 + rng.randint(0, 5_000)
        db.executemany("INSERT INTO CUPTI_ACTIVITY_KIND_KERNEL VALUES (?,?,?,?,?,?,?,?)", kernels)
        db.executemany("INSERT INTO CUPTI_ACTIVITY_KIND_RUNTIME VALUES (?,?,?,?,?)", launches)
    db.commit()
    db.close()


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("out", type=Path)
    ap.add_argument("--rows", type=int, default=500_000)
    a = ap.parse_args()
    make_nsys(a.out, a.rows)
    print(f"{a.out}: {a.rows:,} kernels, {a.out.stat().st_size / 1e6:,.0f} MB")


if __name__ == "__main__":
    main()

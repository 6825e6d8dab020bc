#!/usr/bin/env python3
"""Build a rocpd SQLite database from the upstream rocpd schema and the REAL
rocprofv3 kernel trace in ../rocprof_csv/kernel_trace.csv.

No public rocpd database (rocprofv3 --output-format rocpd, "results.db") was
found anywhere (see ../README.md).  This script is therefore the next best
thing: the tables, indexes and views are created by executing the schema SQL
copied verbatim from ROCm (./schema/*.sql, origin in ../README.md), with the
placeholders substituted the way rocprofiler-sdk does it
(projects/rocprofiler-sdk/source/lib/output/generateRocpd.cpp, replace_uuid):

    {{uuid}} -> "_" + <uuid v7 with '-' replaced by '_'>   (table-name suffix)
    {{guid}} -> <uuid v7>                                   (value of every "guid" column)

and the rows come from the 9 kernel dispatches of the real CSV.  The result is
CONSTRUCTED HERE, not written by a profiler: it shows the layout a reader must
handle (uuid-suffixed tables + un-suffixed views, row-id foreign keys), and
its figures must equal those of rocprof_csv/kernel_trace.csv.

Values the CSV does not carry were filled in and are marked "assumed" below:
OS pid (taken = Thread_Id), node/machine id, agent type index, queue/stream
names, the uuid.  Standard library only.

    python3 tests/data/profilers/rocpd/build_rocpd_fixture.py [OUT.db]
    (default OUT: tests/data/profilers/rocpd/constructed/kernel_trace_as_rocpd.db)
"""

import csv
import os
import sqlite3
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
SCHEMA_ORDER = ["rocpd_tables.sql", "rocpd_indexes.sql", "rocpd_views.sql", "data_views.sql",
                "summary_views.sql", "marker_views.sql"]  # the order of rocpd/schema.py
GUID = "0192f0a0-0000-7000-8000-000000000000"            # assumed (fixed, uuid v7 layout)
UUID = "_" + GUID.replace("-", "_")


def schema_sql():
    parts = []
    for name in SCHEMA_ORDER:
        with open(os.path.join(HERE, "schema", name)) as fh:
            parts.append(fh.read().replace("{{uuid}}", UUID).replace("{{guid}}", GUID))
    return "\n".join(parts)


def build(out_path, csv_path=os.path.join(HERE, "..", "rocprof_csv", "kernel_trace.csv")):
    with open(csv_path, newline="") as fh:
        rows = [r for r in csv.DictReader(fh) if r["Kind"] == "KERNEL_DISPATCH"]
    if os.path.exists(out_path):
        os.remove(out_path)
    con = sqlite3.connect(out_path)
    con.executescript(schema_sql())
    T = lambda name: f"`{name}{UUID}`"  # noqa: E731

    strings = {}

    def sid(text):
        if text not in strings:
            cur = con.execute(f"INSERT INTO {T('rocpd_string')} (string) VALUES (?)", (text,))
            strings[text] = cur.lastrowid
        return strings[text]

    os_tid = int(rows[0]["Thread_Id"])
    nid = con.execute(f"INSERT INTO {T('rocpd_info_node')} (hash, machine_id, hostname, system_name) "
                      "VALUES (1, 'assumed-machine-id', 'assumed-host', 'Linux')").lastrowid
    pid = con.execute(f"INSERT INTO {T('rocpd_info_process')} (nid, ppid, pid, command) VALUES (?, 0, ?, ?)",
                      (nid, os_tid, "assumed")).lastrowid
    tid = con.execute(f"INSERT INTO {T('rocpd_info_thread')} (nid, ppid, pid, tid) VALUES (?, 0, ?, ?)",
                      (nid, pid, os_tid)).lastrowid
    agents = {}
    for a in sorted({r["Agent_Id"] for r in rows}):
        idx = int(a.split()[-1])
        agents[a] = con.execute(
            f"INSERT INTO {T('rocpd_info_agent')} (nid, pid, type, absolute_index, logical_index, type_index, name) "
            "VALUES (?, ?, 'GPU', ?, ?, 0, ?)", (nid, pid, idx, idx, a)).lastrowid
    queues, streams = {}, {}
    for r in rows:
        q, s = int(r["Queue_Id"]), int(r["Stream_Id"])
        if q not in queues:
            queues[q] = con.execute(f"INSERT INTO {T('rocpd_info_queue')} (id, nid, pid, name) VALUES (?, ?, ?, ?)",
                                    (q, nid, pid, f"Queue {q}")).lastrowid
        if s not in streams:
            streams[s] = con.execute(f"INSERT INTO {T('rocpd_info_stream')} (id, nid, pid, name) VALUES (?, ?, ?, ?)",
                                     (s, nid, pid, f"Stream {s}")).lastrowid
    co = con.execute(f"INSERT INTO {T('rocpd_info_code_object')} (nid, pid, agent_id, uri, storage_type) "
                     "VALUES (?, ?, ?, 'assumed', 'MEMORY')", (nid, pid, next(iter(agents.values())))).lastrowid
    syms = {}
    for r in rows:
        k = int(r["Kernel_Id"])
        if k not in syms:
            syms[k] = con.execute(
                f"INSERT INTO {T('rocpd_info_kernel_symbol')} (id, nid, pid, code_object_id, kernel_name, display_name, "
                "group_segment_size, private_segment_size, sgpr_count, arch_vgpr_count, accum_vgpr_count) "
                "VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
                (k, nid, pid, co, r["Kernel_Name"], r["Kernel_Name"], int(r["LDS_Block_Size"]),
                 int(r["Scratch_Size"]), int(r["SGPR_Count"]), int(r["VGPR_Count"]),
                 int(r["Accum_VGPR_Count"]))).lastrowid
    cat = sid("KERNEL_DISPATCH")
    for r in rows:
        ev = con.execute(f"INSERT INTO {T('rocpd_event')} (category_id, stack_id, parent_stack_id, correlation_id) "
                         "VALUES (?, ?, 0, ?)", (cat, int(r["Correlation_Id"]), int(r["Correlation_Id"]))).lastrowid
        con.execute(
            f"INSERT INTO {T('rocpd_kernel_dispatch')} (nid, pid, tid, agent_id, kernel_id, dispatch_id, queue_id, "
            "stream_id, start, end, private_segment_size, group_segment_size, workgroup_size_x, workgroup_size_y, "
            "workgroup_size_z, grid_size_x, grid_size_y, grid_size_z, region_name_id, event_id) "
            "VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
            (nid, pid, tid, agents[r["Agent_Id"]], syms[int(r["Kernel_Id"])], int(r["Dispatch_Id"]),
             queues[int(r["Queue_Id"])], streams[int(r["Stream_Id"])], int(r["Start_Timestamp"]),
             int(r["End_Timestamp"]), int(r["Scratch_Size"]), int(r["LDS_Block_Size"]),
             int(r["Workgroup_Size_X"]), int(r["Workgroup_Size_Y"]), int(r["Workgroup_Size_Z"]),
             int(r["Grid_Size_X"]), int(r["Grid_Size_Y"]), int(r["Grid_Size_Z"]), sid(r["Kernel_Name"]), ev))
    con.commit()
    con.execute("VACUUM")
    con.close()
    return out_path


if __name__ == "__main__":
    out = sys.argv[1] if len(sys.argv) > 1 else os.path.join(HERE, "constructed", "kernel_trace_as_rocpd.db")
    os.makedirs(os.path.dirname(os.path.abspath(out)), exist_ok=True)
    print(build(out))

#!/usr/bin/env python3
"""Build a rocpd database in the track/timestamp layout from the rocprofiler-sdk schema SQL in
./schema_track/ (ROCm/rocprofiler-sdk @ 19d33bb304b35d94a2a082f6771d918408e0c848, copied verbatim;
see ../README.md) and the REAL rocprofv3 kernel trace in ../rocprof_csv/kernel_trace.csv.

That layout says `schema_version` "3" too, but a dispatch row holds no agent, queue or times:
it points at a `rocpd_track` row (node, process, thread, agent, queue, stream) and at two
`rocpd_timestamp` rows (phase 1 = start, 2 = end). The rows are the same 9 dispatches as
build_rocpd_fixture.py writes in the inline layout, with the same assumed values (OS pid =
Thread_Id, node, uuid), so both databases must read to the same figures as the CSV.
CONSTRUCTED HERE, not written by a profiler. Standard library only.

    python3 tests/data/profilers/rocpd/build_rocpd_track_fixture.py [OUT.db]
    (default OUT: tests/data/profilers/rocpd/constructed/kernel_trace_as_rocpd_track_layout.db)
"""

import csv
import os
import sqlite3
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
GUID = "0192f0a0-0000-7000-8000-000000000001"            # assumed (fixed, uuid v7 layout)
UUID = "_" + GUID.replace("-", "_")


def schema_sql():
    parts = []
    for name in ("rocpd_tables.sql", "rocpd_views.sql"):
        with open(os.path.join(HERE, "schema_track", name)) as fh:
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

    def insert(table, **cols):
        sql = f"INSERT INTO {T(table)} ({', '.join(cols)}) VALUES ({', '.join('?' * len(cols))})"
        return con.execute(sql, tuple(cols.values())).lastrowid

    os_tid = int(rows[0]["Thread_Id"])
    nid = insert("rocpd_info_node", hash=1, machine_id="assumed-machine-id", hostname="assumed-host",
                 system_name="Linux")
    pid = insert("rocpd_info_process", nid=nid, ppid=0, pid=os_tid, command="assumed")
    tid = insert("rocpd_info_thread", nid=nid, ppid=0, pid=pid, tid=os_tid)
    agents = {a: insert("rocpd_info_agent", nid=nid, pid=pid, type="GPU", absolute_index=int(a.split()[-1]),
                        logical_index=int(a.split()[-1]), type_index=0, name=a)
              for a in sorted({r["Agent_Id"] for r in rows})}
    queues, streams, syms, tracks = {}, {}, {}, {}
    co = insert("rocpd_info_code_object", nid=nid, pid=pid, agent_id=next(iter(agents.values())),
                uri="assumed", storage_type="MEMORY")
    name_ids = {}
    for r in rows:
        q, s, k = int(r["Queue_Id"]), int(r["Stream_Id"]), int(r["Kernel_Id"])
        if q not in queues:
            queues[q] = insert("rocpd_info_queue", id=q, nid=nid, pid=pid, name=f"Queue {q}")
        if s not in streams:
            streams[s] = insert("rocpd_info_stream", id=s, nid=nid, pid=pid, name=f"Stream {s}")
        if k not in syms:
            syms[k] = insert("rocpd_info_kernel_symbol", id=k, nid=nid, pid=pid, code_object_id=co,
                             kernel_name=r["Kernel_Name"], display_name=r["Kernel_Name"],
                             group_segment_size=int(r["LDS_Block_Size"]),
                             private_segment_size=int(r["Scratch_Size"]), sgpr_count=int(r["SGPR_Count"]),
                             arch_vgpr_count=int(r["VGPR_Count"]), accum_vgpr_count=int(r["Accum_VGPR_Count"]))
        if r["Kernel_Name"] not in name_ids:
            name_ids[r["Kernel_Name"]] = insert("rocpd_string", string=r["Kernel_Name"])
        key = (r["Agent_Id"], q, s)
        if key not in tracks:
            tracks[key] = insert("rocpd_track", nid=nid, pid=pid, tid=tid, agent_id=agents[r["Agent_Id"]],
                                 queue_id=queues[q], stream_id=streams[s])
    cat = insert("rocpd_string", string="KERNEL_DISPATCH")
    for r in rows:
        track = tracks[(r["Agent_Id"], int(r["Queue_Id"]), int(r["Stream_Id"]))]
        start = insert("rocpd_timestamp", value=int(r["Start_Timestamp"]), phase=1, track_id=track)
        end = insert("rocpd_timestamp", value=int(r["End_Timestamp"]), phase=2, track_id=track)
        ev = insert("rocpd_event", category_id=cat, stack_id=int(r["Correlation_Id"]), parent_stack_id=0,
                    correlation_id=int(r["Correlation_Id"]))
        insert("rocpd_kernel_dispatch", track_id=track, kernel_id=syms[int(r["Kernel_Id"])],
               dispatch_id=int(r["Dispatch_Id"]), start_id=start, end_id=end,
               private_segment_size=int(r["Scratch_Size"]), group_segment_size=int(r["LDS_Block_Size"]),
               workgroup_size_x=int(r["Workgroup_Size_X"]), workgroup_size_y=int(r["Workgroup_Size_Y"]),
               workgroup_size_z=int(r["Workgroup_Size_Z"]), grid_size_x=int(r["Grid_Size_X"]),
               grid_size_y=int(r["Grid_Size_Y"]), grid_size_z=int(r["Grid_Size_Z"]),
               region_name_id=name_ids[r["Kernel_Name"]], event_id=ev)
    con.commit()
    con.execute("VACUUM")
    con.close()
    return out_path


if __name__ == "__main__":
    out = sys.argv[1] if len(sys.argv) > 1 else os.path.join(HERE, "constructed",
                                                             "kernel_trace_as_rocpd_track_layout.db")
    os.makedirs(os.path.dirname(os.path.abspath(out)), exist_ok=True)
    print(build(out))

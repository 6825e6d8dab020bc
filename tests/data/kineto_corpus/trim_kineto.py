"""Trim a Kineto trace to what a GPU timeline reader needs, with the standard library only.

    python3 trim_kineto.py IN.json.gz OUT.json.gz

Kept: the header (every top-level key but traceEvents), complete ('X') events of the GPU,
runtime and step categories below, with their args cut to the ids that link them
(device, stream, correlation), and the process name (first one) of each process those events are on. Dropped: CPU operators, flow arrows ('s'/'f', ac2g/fwdbwd), instant events,
Python frames and other metadata. HTA's temporal breakdown and `regime trace` read the same
GPU events, launches and steps from the trimmed file as from the original (checked for each
file in EXPECTED.json, where HTA was run on both).
"""

import gzip
import json
import sys

GPU = {"kernel", "gpu_memcpy", "gpu_memset", "mtia_ccp_events", "cuda_sync"}
HOST = {"cuda_runtime", "cuda_driver", "mtia_runtime", "runtime"}
SPAN = {"trace"}
IDS = ("device", "stream", "correlation")


def keep(e: dict) -> bool:
    cat = str(e.get("cat", "")).lower()
    if e.get("ph") != "X":
        return False
    if cat in GPU or cat in HOST or cat in SPAN:
        return True
    return str(e.get("name", "")).startswith("ProfilerStep#")


def trimmed(e: dict) -> dict:
    args = e.get("args")
    if isinstance(args, dict):
        e = {**e, "args": {k: args[k] for k in IDS if k in args}}
        if not e["args"]:
            del e["args"]
    return e


def main() -> None:
    src, out = sys.argv[1], sys.argv[2]
    with gzip.open(src) as f:
        doc = json.load(f)
    events = doc["traceEvents"] if isinstance(doc, dict) else doc
    kept = [trimmed(e) for e in events if keep(e)]
    pids = {e.get("pid") for e in kept}
    meta = {e.get("pid"): e for e in reversed(events)
            if e.get("ph") == "M" and e.get("name") == "process_name" and e.get("pid") in pids}
    body = [meta[p] for p in sorted(meta, key=str)] + kept
    new = {**doc, "traceEvents": body} if isinstance(doc, dict) else body
    with gzip.GzipFile(out, "wb", compresslevel=9, mtime=0) as f:
        f.write(json.dumps(new, separators=(",", ":")).encode())
    print(f"{src}: {len(events):,} events -> {len(body):,}")


if __name__ == "__main__":
    main()

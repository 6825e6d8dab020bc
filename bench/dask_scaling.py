"""Benchmark: `--scheduler` on a Dask LocalCluster of 1 and 2 workers against the local run
(`--jobs 1`, `--jobs 2`), in the same run, for `regime trace` over a folder of ranks,
`regime diagnose` over generated cases and `regime sweep` of one case (no --jobs: its local run
is serial). Prints figures (ratios against the local run measured here, and the bytes each unit
moves) and, for the sweep, what its grid and each bisection round cost on the cluster against
a point diagnosed here; asserts nothing.

    python bench/dask_scaling.py [--ranks 32] [--cases 400] [--vary batch=1..4096]

The ranks are HTA's two sampled ranks (tests/data) copied `--ranks` times; the cases come from
tests/casegen.py. Every run's output is checked to be the same bytes as `--jobs 1`'s. The per-rank
rate measured here is what docs/distributed.md's capacity plan for 4,096 ranks scales from.
"""

from __future__ import annotations

import argparse
import contextlib
import io
import logging
import pickle
import shutil
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "tests"))

RANKS = ("sampled_rank0_nodevice.json.gz", "sampled_rank1_nodevice.json.gz")


def cli(*args: str) -> str:
    from regime.engine.cli.entry import main
    out = io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(io.StringIO()), \
            contextlib.suppress(SystemExit):
        main(list(args))
    return out.getvalue()


def timed(args: list[str], reference: str | None) -> tuple[float, str]:
    start = time.perf_counter()
    out = cli(*args)
    took = time.perf_counter() - start
    if reference is not None and out != reference:
        raise SystemExit(f"different output: {' '.join(args)}")
    return took, out


def folders(work: Path, ranks: int, cases: int) -> tuple[Path, Path]:
    from casegen import generated, write
    job, fleet = work / "job", work / "fleet"
    job.mkdir()
    fleet.mkdir()
    for i in range(ranks):
        shutil.copy(ROOT / "tests" / "data" / RANKS[i % 2], job / f"rank{i:04d}.json.gz")
    for name, case in generated(cases, seed=30):
        write(case, fleet / f"{name}.yaml")
    return job, fleet


def unit_bytes(job: Path, fleet: Path) -> dict[str, int]:
    """What crosses the network: the setup once per worker, then each unit and its result."""
    from regime.engine.cli import core, diagnose
    from regime.engine.trace import ranks
    reading = ranks.reading()
    [item] = ranks.inputs([next(job.iterdir())])
    summary = ranks.measure_input(reading, item)
    k = core.knowledge([], "compiled")
    setup = diagnose.Setup(k, "jsonl", None, "compiled")
    case = next(core.case_texts([next(fleet.iterdir())]))
    return {"trace setup (classifier)": len(pickle.dumps(reading)),
            "trace unit (path)": len(pickle.dumps(item)),
            "trace result (summary)": len(pickle.dumps(summary)),
            "diagnose setup (knowledge)": len(pickle.dumps(setup)),
            "diagnose unit (case text)": len(pickle.dumps(case)),
            "diagnose result (jsonl)": len(pickle.dumps(diagnose.diagnose_one(setup, case)))}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--ranks", type=int, default=32)
    parser.add_argument("--cases", type=int, default=400)
    parser.add_argument("--vary", default="batch=1..4096", help="a_chatbot's sweep")
    a = parser.parse_args()
    from distributed import LocalCluster
    with tempfile.TemporaryDirectory() as tmp:
        job, fleet = folders(Path(tmp), a.ranks, a.cases)
        work = {"trace": (["trace", str(job), "-f", "json"], a.ranks, job),
                "diagnose": (["diagnose", str(fleet), "--quiet", "--engine", "compiled"], a.cases, fleet),
                "sweep": (["sweep", "a_chatbot", "--vary", a.vary, "-f", "json"], sweep_points(a.vary), None)}
        rows: dict[str, dict[str, float]] = {name: {} for name in work}
        refs = {name: timed(args, None) for name, (args, _, _) in work.items()}
        for name, (took, _) in refs.items():
            rows[name]["local --jobs 1"] = took
        for name, (args, _, _) in work.items():
            if name != "sweep":  # one case's sweep has no --jobs: its local run is serial
                rows[name]["local --jobs 2"] = timed([*args, "--jobs", "2"], refs[name][1])[0]
        one = ["diagnose", "a_chatbot", "--quiet", "--engine", "compiled"]
        start = {"local": timed(one, None)[0]}
        rounds: dict[int, list[tuple[int, float]]] = {}
        for n in (1, 2):
            with LocalCluster(n_workers=n, threads_per_worker=1, processes=True, dashboard_address=None,
                              silence_logs=logging.ERROR) as c:
                for name, (args, _, _) in work.items():
                    rows[name][f"dask {n} worker(s)"] = timed([*args, "--scheduler", c.scheduler_address],
                                                              refs[name][1])[0]
                start[f"dask {n}"] = timed([*one, "--scheduler", c.scheduler_address], None)[0]
                rounds[n] = sweep_rounds(c.scheduler_address, a.vary)
        rounds[0] = sweep_rounds(None, a.vary)
        report(rows, work, unit_bytes(job, fleet), job)
        report_rounds(rounds)
        print(f"start-up, one built-in case: local {start['local']:.2f} s, "
              f"dask 1 worker {start['dask 1']:.2f} s, 2 workers {start['dask 2']:.2f} s "
              "(connect, load the setup on each worker, close)")


def sweep_points(vary: str) -> int:
    from regime.engine import sweep
    from regime.engine.cli import core
    k = core.knowledge([], "compiled")
    return len(sweep.run(core.loaded(core.case("a_chatbot"), k, None, []), vary, k, "compiled").points)


def sweep_rounds(address: str | None, vary: str) -> list[tuple[int, float]]:
    """a_chatbot's sweep, each call for points timed: (points asked, seconds), the grid first,
    then the bisections' rounds; here (address None) or on the cluster, the setup loaded first."""
    from regime.engine import sweep
    from regime.engine.cli import core
    from regime.engine.distributed import cluster
    k = core.knowledge([], "compiled")
    name, lo, hi, integer = sweep.parse_range(vary)
    setup = sweep.Probe(core.loaded(core.case("a_chatbot"), k, None, []), name, k, "compiled")
    calls: list[tuple[int, float]] = []

    class Timed:
        def __init__(self, inner) -> None:
            self.inner, self.width = inner, inner.width

        def __call__(self, values: list[float]) -> list:
            start = time.perf_counter()
            got = list(self.inner(values))
            calls.append((len(values), time.perf_counter() - start))
            return got

    if address is None:
        setup.warm()
        sweep._run(setup, lo, hi, integer, Timed(sweep._Here(setup)))
        return calls
    with cluster.session(address, setup) as there:
        sweep._run(setup, lo, hi, integer, Timed(sweep._There(there, name)))
    return calls


def report_rounds(rounds: dict[int, list[tuple[int, float]]]) -> None:
    """Where a sweep's time goes: the grid in one map, then one call per bisection round."""
    print("sweep, setup loaded (grid: one map; then one round per bisection step, flips side by side):")
    for n, calls in sorted(rounds.items()):
        (grid, t_grid), steps = calls[0], calls[1:]
        probes, t_steps = sum(c for c, _ in steps), sum(t for _, t in steps)
        where = "here (serial)" if n == 0 else f"dask {n} worker(s)"
        per_round = t_steps / max(1, len(steps))
        print(f"  {where:18s} grid: {grid} points {t_grid * 1e3:5.0f} ms ({t_grid / grid * 1e3:5.1f} ms/pt); "
              f"bisections: {len(steps)} rounds, {probes} probes {t_steps * 1e3:5.0f} ms "
              f"({per_round * 1e3:5.1f} ms/round)")


def report(rows: dict[str, dict[str, float]], work: dict, sizes: dict[str, int], job: Path) -> None:
    print("same bytes as --jobs 1: every run below (checked)\n")
    for name, times in rows.items():
        units = work[name][1]
        base = times["local --jobs 1"]
        print(f"{name}: {units} units")
        for label, t in times.items():
            print(f"  {label:18s} {t:7.2f} s  {t / units * 1e3:7.1f} ms/unit  {base / t:5.2f}x of --jobs 1")
        scaling = times["dask 1 worker(s)"] / times["dask 2 worker(s)"]
        local = "local --jobs 2" if "local --jobs 2" in times else "local --jobs 1"
        overhead = (times["dask 2 worker(s)"] - times[local]) / units
        print(f"  dask 2 workers vs 1: {scaling:.2f}x; "
              f"over the {local}: {overhead * 1e3:+.1f} ms/unit\n")
    trace_bytes = sum(p.stat().st_size for p in job.iterdir())
    per_rank, size = rows["trace"]["local --jobs 1"] / work["trace"][1], trace_bytes / work["trace"][1]
    print(f"trace: {size / 1e6:.2f} MB per rank (gzip), {per_rank * 1e3:.0f} ms per rank serially "
          f"= {size / per_rank / 1e6:.1f} MB/s of gzip per worker")
    print("bytes moved (pickled):")
    for label, n in sizes.items():
        print(f"  {label:28s} {n:>9,}")


if __name__ == "__main__":
    main()

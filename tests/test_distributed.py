"""`--scheduler`: the same bytes as the local run, on a Dask LocalCluster (2 worker processes,
1 thread each, working in a folder of their own, so a path that only the client can resolve
fails). Marked `dask`: `make test` runs these in one pytest process of their own, apart from
the xdist workers (one cluster for the module, not one per xdist worker on two cores)."""

from __future__ import annotations

import contextlib
import io
import logging
import os
import shutil
from pathlib import Path

import orjson
import pytest
from conftest import ROOT, TESTS

distributed = pytest.importorskip("distributed")

from regime.engine.cli.entry import main  # noqa: E402

pytestmark = [pytest.mark.dask, pytest.mark.e2e]

DATA = TESTS / "data"
HTA_RANKS = ("sampled_rank0_nodevice.json.gz", "sampled_rank1_nodevice.json.gz")


class _WorkIn(distributed.WorkerPlugin):
    """Each worker works in its own folder, elsewhere than the client's."""

    def __init__(self, where: str) -> None:
        self.where = where

    def setup(self, worker) -> None:
        os.chdir(self.where)


class _DieOnce(distributed.WorkerPlugin):
    """The first worker to start its `nth` regime task exits at once (a lost node), once."""

    name = "die-once"

    def __init__(self, marker: str, nth: int) -> None:
        self.marker, self.nth, self.started = marker, nth, 0

    def transition(self, key, start, finish, **kwargs) -> None:
        if finish == "executing" and str(key).startswith("regime-"):
            self.started += 1
            if self.started == self.nth and not os.path.exists(self.marker):
                Path(self.marker).touch()
                os._exit(1)


@pytest.fixture(scope="module")
def cluster(tmp_path_factory):
    workdir = tmp_path_factory.mktemp("dask-workers")
    with distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=True,
                                  dashboard_address=None, local_directory=str(workdir),
                                  silence_logs=logging.ERROR) as c, distributed.Client(c) as client:
        client.register_plugin(_WorkIn(str(workdir)), name="work-in")
        yield c, client


def cli(*args: str) -> tuple[int, str, str]:
    """`regime ARGS` in this process: exit code, stdout, stderr."""
    out, err = io.StringIO(), io.StringIO()
    code = 0
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        try:
            main(list(args))
        except SystemExit as e:
            code = e.code if isinstance(e.code, int) else 1
    return code, out.getvalue(), err.getvalue()


@pytest.fixture
def here(tmp_path, monkeypatch) -> Path:
    """Work in tmp_path with relative paths: only the client can resolve them as given."""
    monkeypatch.chdir(tmp_path)
    return tmp_path


@contextlib.contextmanager
def a_worker_dies(cluster, marker: Path, nth: int = 4):
    """Within: the first worker to start its `nth` regime task exits (once); after: both back."""
    client = cluster[1]
    client.register_plugin(_DieOnce(str(marker), nth))
    try:
        yield
    finally:
        client.unregister_worker_plugin("die-once")
    assert marker.exists()  # a worker did die mid-run
    client.wait_for_workers(2, timeout=60)


def same_both_ways(cluster, *args: str, jobs: tuple[str, ...] = ("--jobs", "2")) -> tuple[int, str, str]:
    """The local run (two processes: the output is the same for any --jobs; `jobs=()` for a
    command without them) and the cluster's."""
    local = cli(*args, *jobs)
    remote = cli(*args, "--scheduler", cluster[0].scheduler_address)
    assert remote[0] == local[0]
    assert remote[2] == local[2]
    assert remote[1] == local[1]  # last: a long diff is the least readable
    return local


# ---- trace ------------------------------------------------------------------------------------

def test_hta_two_ranks_and_a_missing_one(cluster, here):
    for name in HTA_RANKS:
        shutil.copy(DATA / name, here / name)
    code, out, err = same_both_ways(cluster, "trace", *HTA_RANKS, "gone.json.gz", "-f", "json")
    assert code == 2 and err.startswith("error: gone.json.gz:") and err.count("\n") == 1
    [report] = orjson.loads(out)["results"]  # the envelope: one result, the job's ranks
    assert [r["trace"] for r in report["ranks"]] == list(HTA_RANKS)


def _rank(folder: Path, rank: int, gap_us: float) -> None:
    """Three steps of gemm + allreduce; `gap_us` between kernels sets the step time."""
    ev, t, corr = [], 1000.0, 0
    for step in range(3):
        start = t
        for name, dur in (("volta_sgemm_128x64_nn", 50.0), ("ncclKernel_AllReduce_RING", 20.0)):
            corr += 1
            ev.append({"ph": "X", "cat": "cuda_runtime", "name": "cudaLaunchKernel", "ts": t - 1, "dur": 1,
                       "args": {"correlation": corr}})
            ev.append({"ph": "X", "cat": "kernel", "name": name, "ts": t, "dur": dur,
                       "args": {"device": 0, "stream": 7, "correlation": corr}})
            t += dur + gap_us
        ev.append({"ph": "X", "cat": "user_annotation", "name": f"ProfilerStep#{step}", "ts": start - 2,
                   "dur": t - start + 1})
    (folder / f"rank{rank:02d}.json").write_bytes(
        orjson.dumps({"distributedInfo": {"rank": rank}, "traceEvents": ev}))


def test_sixty_four_ranks_with_one_straggler(cluster, here):
    ranks = here / "job"
    ranks.mkdir()
    straggler = 37
    for r in range(64):
        _rank(ranks, r, 60.0 if r == straggler else 5.0 + (r % 3))
    code, out, _ = same_both_ways(cluster, "trace", "job", "-f", "json")
    [report] = orjson.loads(out)["results"]
    assert code == 0 and len(report["ranks"]) == 64
    assert [f.get("rank") for f in report["findings"] if "rank" in f] == [straggler]


# ---- diagnose ---------------------------------------------------------------------------------

def _cases(folder: Path, n: int) -> Path:
    from casegen import generated, write
    folder.mkdir()
    for name, case in generated(n, seed=30):
        write(case, folder / f"{name}.yaml")
    (folder / "gen_zz_broken.yaml").write_text("title: [unclosed\n")
    (folder / "gen_zz_latin1.yaml").write_bytes(b"title: caf\xe9\nfacts: {}\n")
    return folder


def test_two_thousand_generated_cases(cluster, here):
    _cases(here / "fleet", 2000)
    # text, --quiet: the summary table, a row per case (its regime, ceiling, first fix); the
    # full reports' bytes are compared on the built-in cases and in the test that kills a worker
    code, out, err = same_both_ways(cluster, "diagnose", "fleet", "gone.yaml", "--quiet",
                                    "--engine", "compiled")
    assert code == 2 and out.count("\n") > 2000
    assert err.count("error: ") >= 3  # the two broken files and the missing one, each in place


def test_text_and_json_of_the_built_in_cases(cluster):
    assert same_both_ways(cluster, "diagnose", "-f", "json")[0] == 0
    assert same_both_ways(cluster, "diagnose", "b_training_run", "a_chatbot")[0] == 0


def test_a_worker_killed_mid_run_loses_no_case(cluster, here):
    _cases(here / "fleet", 120)
    local = cli("diagnose", "fleet", "-f", "jsonl", "--engine", "compiled")
    with a_worker_dies(cluster, here / "died"):
        remote = cli("diagnose", "fleet", "-f", "jsonl", "--engine", "compiled",
                     "--scheduler", cluster[0].scheduler_address)
    assert remote == local  # every result once, in order


# ---- grade ------------------------------------------------------------------------------------

def test_a_thousand_submissions(cluster, here):
    answers = sorted(p for p in (ROOT / "answers").iterdir() if p.is_file())
    klass = here / "class"
    klass.mkdir()
    for i in range(998):
        src = answers[i % len(answers)]
        shutil.copy(src, klass / f"s{i:04d}.{src.name}")
    (klass / "s0998.bad.yaml").write_text("case: [unclosed\n")
    (klass / "s0999.notes.txt").write_text("not an answer format")
    code, out, _ = same_both_ways(cluster, "grade", "class", "-f", "json")
    rows = orjson.loads(out)["results"]
    assert code == 2 and len(rows) == 1000 and sum(1 for r in rows if not r["graded"]) >= 2


# ---- sweep ------------------------------------------------------------------------------------

@pytest.mark.parametrize(("vary", "code"), [("batch=1..4096", 0),  # 13 grid points, two flips
                                            ("batch=1..100000000", 2)])  # a point out of range
def test_a_sweep_and_its_chart(cluster, here, vary, code):
    args = ("sweep", "a_chatbot", "--vary", vary)
    assert same_both_ways(cluster, *args, jobs=())[0] == code  # text
    local = cli(*args, "-f", "json", "--chart", "here.svg")
    remote = cli(*args, "-f", "json", "--chart", "there.svg", "--scheduler", cluster[0].scheduler_address)
    assert remote == local
    if code == 0:
        assert len(orjson.loads(local[1])["results"][0]["flips"]) == 2
        assert (here / "there.svg").read_bytes() == (here / "here.svg").read_bytes()
    else:
        assert local[2].count("\n") == 1 and "outside the valid range" in local[2]


def test_a_worker_killed_mid_sweep_loses_no_point(cluster, here):
    args = ("sweep", "a_chatbot", "--vary", "batch=1..4096", "-f", "json")
    local = cli(*args)
    with a_worker_dies(cluster, here / "died"):
        remote = cli(*args, "--scheduler", cluster[0].scheduler_address)
    assert remote == local  # every point once, the same flips

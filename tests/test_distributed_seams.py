"""The units of work `--scheduler` sends (issue 30), in this process: each is a pure function of
its input and a setup that pickles, content read here gives what the path gives, and without
the dask extra the flag says how to install it."""

from __future__ import annotations

import contextlib
import io
import pickle
import sys
from pathlib import Path

import pytest
from conftest import ROOT, TESTS

from regime.core.errors import RegimeError
from regime.engine import sweep
from regime.engine.cli import core, diagnose
from regime.engine.cli.entry import main
from regime.engine.grading import batch as grading
from regime.engine.grading.grader import Grader
from regime.engine.trace import ranks

RANK0 = TESTS / "data" / "sampled_rank0_nodevice.json.gz"


def cli(*args: str) -> tuple[int, str, str]:
    out, err = io.StringIO(), io.StringIO()
    code = 0
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        try:
            main(list(args))
        except SystemExit as e:
            code = e.code if isinstance(e.code, int) else 1
    return code, out.getvalue(), err.getvalue()


@pytest.mark.parametrize(("command", "where"), [
    (["diagnose", "a_chatbot"], "<input>"), (["trace", str(RANK0), str(RANK0)], "<input>"),
    (["grade", str(ROOT / "answers" / "a_chatbot.solution.md")], "<input>"),
    (["sweep", "a_chatbot", "--vary", "batch=1..4"], "a_chatbot")])  # sweep names its case in every error
def test_without_the_extra_the_flag_says_how_to_install_it(monkeypatch, command, where):
    monkeypatch.setitem(sys.modules, "distributed", None)  # `import distributed` fails
    code, out, err = cli(*command, "--scheduler", "tcp://127.0.0.1:1")
    assert (code, out) == (2, "")
    assert err.count("\n") == 1 and err.startswith(f"error: {where}: --scheduler:")
    assert "pip install 'regime[dask]'" in err


def test_the_environment_names_the_scheduler_too(monkeypatch):
    monkeypatch.setitem(sys.modules, "distributed", None)
    monkeypatch.setenv("REGIME_SCHEDULER", "tcp://127.0.0.1:1")
    code, _, err = cli("diagnose", "a_chatbot")
    assert code == 2 and "regime[dask]" in err


def test_a_rank_measured_by_its_absolute_path_is_named_as_given(tmp_path, monkeypatch):
    (tmp_path / "r0.json.gz").write_bytes(RANK0.read_bytes())
    (tmp_path / "bad.json").write_text("{")
    monkeypatch.chdir(tmp_path)
    reading = pickle.loads(pickle.dumps(ranks.reading()))
    items = ranks.inputs([Path("r0.json.gz"), Path("bad.json")])
    assert all(i.path.is_absolute() for i in items if isinstance(i, ranks.RankInput))
    here = [ranks.measure_rank(reading, Path(n)) for n in ("r0.json.gz", "bad.json")]
    there = [pickle.loads(pickle.dumps(ranks.measure_input(reading, i))) for i in items]
    assert there[0] == here[0] and there[0].path == "r0.json.gz"
    assert str(there[1]) == str(here[1]) and str(there[1]).startswith("bad.json:")


def test_a_case_as_content_is_the_case_as_a_path(knowledge, tmp_path):
    setup = pickle.loads(pickle.dumps(diagnose.Setup(knowledge, "jsonl", None, "compiled")))
    latin1 = tmp_path / "latin1.yaml"
    latin1.write_bytes(b"title: caf\xe9\n")
    for path in (ROOT / "cases" / "a_chatbot.yaml", latin1):
        [content] = core.case_texts([path])
        assert diagnose.diagnose_one(setup, content) == diagnose.diagnose_one(setup, path)


def test_a_submission_as_content_is_the_submission_as_a_path(tmp_path):
    grader = Grader()
    marking = pickle.loads(pickle.dumps(grading.Marking(Grader().portable())))
    binary = tmp_path / "x.yaml"
    binary.write_bytes(b"case: a\x00")
    paths = [ROOT / "answers" / "a_chatbot.solution.md", binary, tmp_path / "missing.md"]
    got = [grading.grade_one(marking, s) for s in grading.submitted(paths, grader.rubric.limits.max_bytes)]
    assert got == [grader.grade(p) for p in paths]


def test_variants_as_content_grade_as_the_folder_does(tmp_path):
    from regime.engine.grading import exercise
    from regime.engine.grading import variants as variant_files
    grader = Grader()
    out = tmp_path / "variants"
    exercise.make(grader, ROOT / "cases" / "a_chatbot.yaml", ["s1", "s2", "s3"], "42", out)
    next((out / variant_files.KEYS / "s2").glob("*.key.json")).unlink()  # recomputed from the hand-out
    src = next((ROOT / "answers").glob("a_chatbot.solution.*"))
    paths = []
    for student in ("s1", "s2", "s3", "s4"):  # s4 has no variant
        p = tmp_path / "subs" / f"{student}{src.suffix}"
        p.parent.mkdir(exist_ok=True)
        p.write_text(src.read_text(encoding="utf-8").replace("student: solution", f"student: {student}"))
        paths.append(p)
    marking = pickle.loads(pickle.dumps(grading.Marking(Grader().portable(), variant_files.Copied.of(out))))
    got = [grading.grade_one(marking, s) for s in grading.submitted(paths, grader.rubric.limits.max_bytes)]
    want = [grader.grade(p, out) for p in paths]
    assert got == want
    assert [r.graded for r in got] == [True, True, True, False] and "/s2/" in (got[1].variant or "")


# ---- sweep: the points a cluster diagnoses, and the bisections' rounds -------------------------

class _Wide:
    """Points diagnosed here, `width` at a time as a cluster would (sweep's look-ahead), with
    refusals put in at chosen values; counts the rounds."""

    def __init__(self, setup: sweep.Probe, width: int, refuse: tuple[float, ...] = ()) -> None:
        self.setup, self.width, self.refuse, self.rounds = setup, width, refuse, 0

    def __call__(self, values: list[float]) -> list[sweep.Probed | RegimeError]:
        self.rounds += 1
        return [RegimeError(f"refused at {v:g}", field="--set x") if v in self.refuse
                else sweep.probe(self.setup, v) for v in values]


def _swept(setup: sweep.Probe, vary: str, width: int,
           refuse: tuple[float, ...] = ()) -> tuple[dict | str, int]:
    """The sweep's JSON, or the refusal it stops at; and how many rounds it took."""
    _, lo, hi, integer = sweep.parse_range(vary)
    wide = _Wide(setup, width, refuse)
    try:
        return sweep._run(setup, lo, hi, integer, wide).to_dict(), wide.rounds
    except RegimeError as err:
        return str(err), wide.rounds


@pytest.mark.parametrize("vary", ["batch=1..512", "batch=1..4096",  # two flips each
                                  "flop_util=0.01..0.9"])  # one, on a float range
def test_a_sweep_looking_ahead_finds_the_same_points_in_fewer_rounds(knowledge, vary):
    setup = pickle.loads(pickle.dumps(sweep.Probe(case_named("a_chatbot", knowledge), vary.split("=")[0],
                                                  knowledge, "compiled")))
    serial, one_by_one = _swept(setup, vary, 1)
    assert serial == sweep.run(case_named("a_chatbot", knowledge), vary, knowledge, "compiled").to_dict()
    flips = len(serial["flips"])
    for width in (flips * 3, flips * 7, 64):
        got, rounds = _swept(setup, vary, width)
        assert got == serial
        assert flips == 0 or rounds < one_by_one


def test_a_refusal_during_the_bisections_is_the_one_the_serial_run_meets_first(knowledge):
    vary = "batch=1..512"
    setup = sweep.Probe(case_named("a_chatbot", knowledge), "batch", knowledge, "compiled")
    serial, _ = _swept(setup, vary, 1)
    grid = set(sweep._grid(1, 512, True))
    bisected = [p["value"] for p in serial["points"] if p["value"] not in grid]
    first, last = bisected[0], bisected[-1]  # on the first flip's path, on the last one's
    assert len(serial["flips"]) >= 2
    for refuse, said in (((first, last), first), ((last,), last)):
        for width in (1, 3, 64):
            assert _swept(setup, vary, width, refuse)[0] == f"<input>: --set x: refused at {said:g}"


def case_named(name: str, knowledge):
    return core.loaded(core.case(name), knowledge, None, [])

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


@pytest.mark.parametrize("command", [["diagnose", "a_chatbot"], ["trace", str(RANK0), str(RANK0)],
                                     ["grade", str(ROOT / "answers" / "a_chatbot.solution.md")]])
def test_without_the_extra_the_flag_says_how_to_install_it(monkeypatch, command):
    monkeypatch.setitem(sys.modules, "distributed", None)  # `import distributed` fails
    code, out, err = cli(*command, "--scheduler", "tcp://127.0.0.1:1")
    assert (code, out) == (2, "")
    assert err.count("\n") == 1 and err.startswith("error: <input>: --scheduler:")
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

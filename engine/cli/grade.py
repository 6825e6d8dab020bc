"""`regime grade` and `regime exercise make`: the instructor's commands. Registered on the main
CLI by `register(app)`; everything heavy is imported when a command runs."""

from __future__ import annotations

import sys
from enum import StrEnum
from pathlib import Path
from typing import Annotated

import typer

from regime.core.escape import markdown_inline, one_line
from regime.engine.cli import core, writers
from regime.engine.cli.options import JobsOpt, RulesOpt, SchedulerOpt


class GradeFormat(StrEnum):
    text = "text"
    json = "json"
    jsonl = "jsonl"
    markdown = "markdown"
    csv = "csv"
    gradescope = "gradescope"
    prairielearn = "prairielearn"


def _fail(message, fmt: str = "text") -> typer.Exit:
    """A refusal before any answer is graded: one `error:` line, and in json its envelope."""
    return typer.Exit(core.refuse(message, fmt if fmt in writers.FORMATS else "text"))


def _grader(rules: list[Path] | None, fmt: str = "text"):
    from regime.core.errors import RegimeError
    from regime.engine.grading.grader import Grader
    try:
        return Grader(rules or [])
    except RegimeError as err:
        raise _fail(err, fmt) from None


def grade(
    answers: Annotated[list[Path], typer.Argument(
        metavar="ANSWER", help="Answer files (.yaml, .md) or folders of them.")],
    variants: Annotated[Path | None, typer.Option(
        "--variants", metavar="FOLDER",
        help="Folder written by `regime exercise make`: grade each student on their variant.")] = None,
    fmt: Annotated[GradeFormat, typer.Option("--format", "-f", help=(
        "text, json (one envelope), jsonl, markdown (the feedback students read), csv (grades and "
        "a class summary), gradescope or prairielearn (their results.json)."))] = GradeFormat.text,
    out: Annotated[Path | None, typer.Option("-o", "--out", metavar="FOLDER", help=(
        "Write results into this folder (made if missing; it says which files it wrote).")
    )] = None,
    jobs: JobsOpt = core.JOBS.default,
    rules: RulesOpt = None,
    scheduler: SchedulerOpt = None,
) -> None:
    """Grade answers against the engine's own diagnosis: one answer or a whole class."""
    from regime.core.errors import RegimeError
    from regime.engine.grading import batch, output
    try:
        address = core.scheduler(scheduler)
    except RegimeError as err:
        raise _fail(err, fmt.value) from None
    grader = _grader(rules, fmt.value)
    paths = batch.expand(answers)
    if not paths:
        raise _fail("no answer files found in " + ", ".join(str(a) for a in answers), fmt.value)
    if fmt in (GradeFormat.gradescope, GradeFormat.prairielearn) and out is None and len(paths) > 1:
        raise _fail(f"--format {fmt.value} with several submissions writes one results.json each: "
                    "give -o DIR")
    try:
        results = batch.grade_with_progress(grader, paths, variants, core.workers(jobs), address)
    except RegimeError as err:  # the cluster could not be used
        raise _fail(err, fmt.value) from None
    _write(results, fmt, out, output)
    warned = [r for r in results if any(n.startswith("WARNING:") for n in r.notes)]
    for r in warned[:20]:
        sys.stderr.write(one_line(f"warning: {r.submission}: {r.notes[0].removeprefix('WARNING: ')}") + "\n")
    if len(warned) > 20:
        sys.stderr.write(f"warning: ... and {len(warned) - 20} more answer(s) look written on a variant\n")
    failed = [r for r in results if not r.graded]
    for r in failed:
        for e in r.errors:
            core.error(e)
    if failed:
        sys.stderr.write(f"{len(failed)} of {len(results)} submission(s) not graded\n")
        raise typer.Exit(core.EXIT_BAD_INPUT)


def _write(results, fmt: GradeFormat, out: Path | None, output) -> None:
    if fmt in (GradeFormat.gradescope, GradeFormat.prairielearn):
        if out is None:
            make = output.gradescope if fmt is GradeFormat.gradescope else output.prairielearn
            sys.stdout.write(output._dumps(make(results[0])))
        else:
            _wrote(out, output.write_per_submission(results, _folder(out), fmt.value))
        return
    if fmt is GradeFormat.csv:
        if out is None:
            sys.stdout.write(output.to_csv(results))
            sys.stderr.write(output.summary_csv(results))
        else:
            files = {"grades.csv": output.to_csv(results), "summary.csv": output.summary_csv(results)}
            _wrote(out, [_put(_folder(out) / name, body) for name, body in files.items()])
        return
    body = writers.render(_output(results, output), fmt.value)
    if out is None:
        sys.stdout.write(body)
    else:
        name = {"json": "grades.json", "jsonl": "grades.jsonl", "markdown": "grades.md"}.get(fmt.value,
                                                                                         "grades.txt")
        _wrote(out, [_put(_folder(out) / name, body)])


def _output(results, output) -> writers.Output:
    """The class's grades for the writers: one result per submission, each not-graded one's
    errors located, the counts, and the class statistics (per case) beside them."""
    graded = sum(1 for r in results if r.graded)
    return writers.Output(
        [writers.envelope.sorted_keys(r.to_dict()) for r in results],
        {"submissions": len(results), "graded": graded, "not_graded": len(results) - graded},
        [e for r in results for e in r.error_at],
        text=lambda: "".join(output.text(r) for r in results),
        markdown=lambda: "\n".join(f"## {markdown_inline(r.submission)}\n\n{output.markdown(r)}"
                                   for r in results),
        statistics=output.summary(results), in_place=True)


def _folder(out: Path) -> Path:
    out.mkdir(parents=True, exist_ok=True)
    return out


def _put(path: Path, body: str) -> Path:
    path.write_text(body, encoding="utf-8")
    return path


def _wrote(out: Path, files: list[Path]) -> None:
    """`-o` names a folder here: say so, and what went into it."""
    shown = ", ".join(str(f.relative_to(out)) for f in files[:3]) + (f", ... ({len(files)} files)"
                                                                     if len(files) > 3 else "")
    sys.stderr.write(one_line(f"wrote into the folder {out}/: {shown}") + "\n")


exercise_app = typer.Typer(no_args_is_help=True, rich_markup_mode=None,
                           help="Exercises for a class: per-student variants of a case.")


@exercise_app.command("make")
def make(
    case: Annotated[Path, typer.Argument(metavar="CASE", help=core.CASE_HELP)],
    students: Annotated[Path, typer.Option("--students", metavar="ROSTER_CSV", help=(
        "Roster CSV: a Canvas export (SIS Login ID), or a column id/student/sid/email; "
        "see docs/grading.md."))],
    seed: Annotated[str, typer.Option("--seed", metavar="SEED",
                                      help="Seed: the same seed gives the same variants.")],
    out: Annotated[Path, typer.Option("-o", "--out", metavar="FOLDER",
                                                help="Folder for the variants and their keys.")],
    cover: Annotated[list[str] | None, typer.Option(
        "--cover", metavar="REGIME",
        help="Regime the variant set must include (repeatable). Default: the case's own.")] = None,
    rules: RulesOpt = None,
) -> None:
    """Write one variant of CASE per student, each with its key, and state the regime coverage."""
    from regime.core.errors import RegimeError
    from regime.engine.grading import exercise
    grader = _grader(rules)
    try:
        path = core.case(case)
        roster = exercise.read_roster(students)
        sys.stderr.write(one_line(f"roster: {len(roster)} student id(s) from column '{roster.column}' of "
                                  f"{students}") + "\n")
        spec_files = exercise.spec_files(rules or [])
        ex = exercise.make(grader, path, roster, seed, out, cover, spec_files)
    except RegimeError as err:
        raise _fail(err) from None
    sys.stdout.write(writers.text.lines([ex.statement()]))
    sys.stderr.write(f"wrote into the folder {out}/: handout/ (one variant per student), keys/ "
                     "(their keys and the manifest)\n")


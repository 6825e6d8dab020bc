"""What every `regime` command means by a case, an option, an error and an exit code; no typer.

The typer app (cli/app.py) declares its options from the specs here, and `regime diagnose`'s fast
path (cli/entry.py) parses them with `parse` without importing typer, so the two cannot
disagree on a name, a default or a help line. Case references are resolved once, here: a file,
a folder (its *.yaml files, sorted), a built-in case's name, or with none, every built-in case
(the trace alone under `--trace`). A reference that cannot be read becomes a RegimeError in its
place, so a batch reports it where it stood and still runs the rest.

What a command writes, in each format, is the writers' (cli/writers/): this module only says
what went wrong and with which exit code.
"""

from __future__ import annotations

import sys
from collections.abc import Iterable, Iterator, Sequence
from pathlib import Path
from typing import Any

from regime.core.errors import RegimeError, one_line
from regime.core.record import Record, record

EXIT_OK = 0
EXIT_FAILED = 1      # the command ran and found problems (failing pack tests, lint errors)
EXIT_BAD_INPUT = 2   # an input was refused: every one is reported, the rest still ran
ENGINES = ("durable", "compiled")


@record
class Opt(Record):
    """One option as every command spells it. `metavar` None means a flag (no value)."""

    flags: tuple[str, ...]
    help: str
    metavar: str | None = None
    default: Any = None
    choices: tuple[str, ...] = ()
    repeat: bool = False
    kind: type = str

    @property
    def dest(self) -> str:
        return self.flags[0].lstrip("-").replace("-", "_")


CASES_HELP = ("Case files, folders of them (*.yaml, sorted) or built-in case names "
              "(`regime list cases`).")
CASE_HELP = "Case file or built-in case name (`regime list cases`)."
RULES = Opt(("--rules",), "Extra pack directory or file: site packs and overrides (its kernels.yaml "
            "names kernels for traces, its grading/ folder overrides the rubric). Repeatable; loaded "
            "after REGIME_RULES.", "DIR_OR_FILE",
            default=(), repeat=True, kind=Path)
JOBS = Opt(("--jobs", "-j"), "Worker processes; 0 for one per CPU. The output is the same for any N.",
           "N", default=1, kind=int)
SCHEDULER = Opt(("--scheduler",), "Dask scheduler (tcp://HOST:8786, tls://...): send the work to that "
                "cluster instead of this machine (--jobs processes, or one for sweep); the same "
                "output. Needs the dask extra (pip install 'regime[dask]'); default "
                "$REGIME_SCHEDULER. See docs/distributed.md.", "ADDRESS")
ENGINE = Opt(("--engine",), "durable (the engine of record) or compiled (the same packs as a Python "
             "fixpoint: byte-identical output, several times faster).", "ENGINE", default="durable",
             choices=ENGINES)
TRACE = Opt(("--trace",), "PyTorch profiler (Kineto) trace, .json or .json.gz: its measured facts go "
            "beneath each case's (the case's win; disagreements become findings). With no case, the "
            "trace alone is diagnosed.", "TRACE", kind=Path)
DIAGNOSE_FORMAT = Opt(("--format", "-f"), "text (people), json (one envelope), jsonl (one JSON object "
                      "per case and line), markdown (a review document).", "FORMAT", default="text",
                      choices=("text", "json", "jsonl", "markdown"))
FORMAT = Opt(("--format", "-f"), "text (people), json (one envelope), jsonl (one JSON object per "
             "line), markdown (a document).", "FORMAT", default="text",
             choices=("text", "json", "jsonl", "markdown"))
SET = Opt(("--set",), "What-if: re-diagnose with a changed fact and show what changed. Repeatable.",
          "NAME=VALUE", default=(), repeat=True)
QUIET = Opt(("--quiet", "-q"), "Text: print only the summary table that ends a batch.", default=False)
FULL = Opt(("--full",), "Text: the whole report (evidence, findings, inputs, how each figure was "
           "derived, the appendix); by default one screen: verdict, fixes, rejections, asks.",
           default=False)
DIAGNOSE = (DIAGNOSE_FORMAT, RULES, ENGINE, TRACE, SET, QUIET, FULL, JOBS, SCHEDULER)


# ---- the fast parser: what it does not understand, typer parses (and explains) ---------------

def parse(args: Sequence[str], options: Sequence[Opt]) -> dict[str, Any] | None:
    """`args` as {dest: value, 'refs': [...]}, or None when they ask for help or break a rule
    (the caller then hands them to typer, which prints help or the usage error)."""
    by_flag = {f: o for o in options for f in o.flags}
    out: dict[str, Any] = {o.dest: list(o.default) if o.repeat else o.default for o in options}
    refs: list[str] = []
    it = iter(args)
    for arg in it:
        if arg == "--":
            refs.extend(it)
            break
        if not arg.startswith("-") or arg == "-":
            refs.append(arg)
            continue
        flag, eq, value = arg.partition("=")
        opt = by_flag.get(flag)
        if opt is None or (opt.metavar is None and eq):
            return None
        if opt.metavar is None:
            out[opt.dest] = True
            continue
        given = value if eq else next(it, None)
        parsed = _value(opt, given)
        if parsed is None:
            return None
        if opt.repeat:
            out[opt.dest].append(parsed)
        else:
            out[opt.dest] = parsed
    out["refs"] = refs
    return out


def _value(opt: Opt, text: str | None) -> Any:
    if text is None or (opt.choices and text not in opt.choices):
        return None
    if opt.kind is int:
        return int(text) if text.isdigit() else None
    return opt.kind(text)


# ---- inputs ---------------------------------------------------------------------------------

def workers(jobs: int) -> int:
    """`--jobs N` for every command: N worker processes, 0 for one per CPU."""
    from regime.engine import batch
    return batch.jobs_wanted(jobs)


def scheduler(given: str | None) -> str | None:
    """`--scheduler ADDRESS` (trace, diagnose, grade, sweep): the Dask scheduler to send the
    work to (else $REGIME_SCHEDULER), or None to run here. Raises RegimeError, before any work
    starts, when the dask extra is not installed."""
    from regime.engine.distributed import cluster
    address = cluster.scheduler(given)
    if address is not None:
        cluster.require()
    return address


def knowledge(rules: Sequence[Path] = (), engine: str = "durable"):
    """The packs (built-in, REGIME_RULES, --rules), compiled for `engine` now, so durable's limits
    surface as pack errors before any case runs. Raises RegimeError."""
    from regime.engine import api
    k = api.knowledge(list(rules))
    api.runner(k, engine)
    return k


def settled() -> None:
    """The long-lived objects (modules, knowledge, evaluators) are made: keep the collector off
    them from now on (and, forked, out of the workers' copy-on-write pages), and turn it on."""
    import gc
    gc.freeze()
    gc.enable()


def cases(refs: Sequence[Path | str], trace: Path | None = None) -> list[Path | RegimeError]:
    """Each reference as the case files it stands for, in order; a reference that names nothing
    is a RegimeError in its place. No reference: every built-in case, or the trace alone."""
    from regime.engine import batch
    from regime.engine.knowledge.paths import builtin_cases
    if not refs:
        return [trace] if trace is not None else list(builtin_cases())
    return list(batch.expand(_resolve(Path(r)) for r in refs))


def case(ref: Path | str) -> Path:
    """One case reference (`why`, `sweep`): a file or a built-in name. Raises RegimeError."""
    found = _resolve(Path(ref))
    if isinstance(found, RegimeError):
        raise found
    if found.is_dir():
        raise RegimeError("a folder: this command takes one case file or built-in case name",
                          file=str(ref))
    return found


def diagnosis(path: Path, k, engine: str = "durable", trace: Path | None = None,
              rules: Sequence[Path] = (), sets: Sequence[str] = ()):
    """One case's diagnosis, with the trace's measured facts beneath when there is one, and
    with `--set` changes made (a what-if). Raises RegimeError."""
    if sets:
        from regime.engine import whatif
        base = loaded(path, k, trace, rules)
        return whatif.run(base, whatif.parse_sets(list(sets), k), k, engine).diagnosis
    done = outcome(path, k, engine, measured(trace, k, rules))
    if done.error is not None:
        raise done.error
    return done.diagnosis


def outcome(path: Path, k, engine: str = "durable", measured=None, text: str | None = None):
    """One case's api.Outcome; `measured` is a trace's case to merge beneath, `text` the case
    file's text when it was read elsewhere (never raises)."""
    from regime.engine import api
    if measured is None:
        return api.outcome(path, k, engine, text)
    from regime.engine.trace import merge
    return merge.outcome(path, measured, k, engine, text)


@record
class CaseText(Record):
    """A case file as a worker elsewhere gets it: its path as the user gave it (what the output
    names) and its text, read here (the worker need not see this file system)."""

    path: Path
    text: str


def case_texts(items: Iterable[Path | RegimeError], trace: Path | None = None
               ) -> Iterator[Path | CaseText | RegimeError]:
    """Each case as content, read lazily (as many as are in flight); a file that cannot be read
    is its error in place, as loading it would have said. The trace itself (diagnosed alone) is
    measured here already and stays a path."""
    from regime.core.yamlsrc import read_source
    for item in items:
        if isinstance(item, RegimeError) or (trace is not None and str(item) == str(trace)):
            yield item
            continue
        try:
            yield CaseText(item, read_source(item))
        except RegimeError as err:
            yield err


def measured(trace: Path | None, k, rules: Sequence[Path] = ()):
    """A trace's facts as a case (None without a trace); only `--trace` pays for the reader.
    Raises RegimeError."""
    if trace is None:
        return None
    from regime.engine.trace import merge
    return merge.measured_case(trace, k, list(rules))


def loaded(path: Path, k, trace: Path | None = None, rules: Sequence[Path] = ()):
    """One case, validated, with a trace's facts beneath when given (what-ifs and sweeps start
    from it). Raises RegimeError."""
    from regime.engine import whatif
    case = whatif.load(path, k)
    beneath = measured(trace, k, rules)
    if beneath is None:
        return case
    from regime.engine.trace import merge
    return merge.merge(case, beneath, merge.settings().disagreement, k)[0]


def _resolve(path: Path) -> Path | RegimeError:
    from regime.engine import api
    try:
        return api.resolve_case(path)
    except RegimeError as err:
        return err


# ---- errors -----------------------------------------------------------------------------------

def error(err: RegimeError | str) -> None:
    """Every error goes to stderr as `error: FILE:LINE: FIELD: message`, one line each (an input
    with three mistakes gets three), so they can be grepped and parsed."""
    write_errors(lines(err))


def write_errors(text: Iterable[str]) -> None:
    """Error lines (from `lines`, maybe made in a worker) to stderr, each as `error: ...`."""
    sys.stderr.write("".join(f"error: {line}\n" for line in text))
    sys.stderr.flush()


def lines(err: RegimeError | str) -> tuple[str, ...]:
    """Each error of an input, one line each (text, so it crosses between processes); a pack error
    that `regime check` also flags carries its lint code as a lint finding does."""
    if not isinstance(err, RegimeError):
        return (one_line(str(err)),)
    return tuple(_coded(e) if e.code else str(e) for e in err.all())


def _coded(e: RegimeError) -> str:
    field = f"{e.field}: " if e.field else ""
    return one_line(f"{e.file or '<input>'}:{e.line or 0}: {e.code} error: {field}{e.message}")


def refuse(err: RegimeError | str, fmt: str = "text") -> int:
    """Report `err` on stderr and give the exit code of a refused input; a structured format
    still gets its document on stdout (json: the envelope with the error in `errors`)."""
    from regime.engine.cli import writers
    error(err)
    writers.refusal(err, fmt)
    return EXIT_BAD_INPUT


def error_dicts(err: RegimeError | str, file: str | None = None) -> list[dict[str, Any]]:
    """Each error of an input as the envelope's `errors` hold them: file, line, field, message."""
    from regime.engine.cli.writers import envelope
    return envelope.error_dicts(err, file)

"""`regime diagnose`: many cases, streamed in input order, each refused input reported in place.

Options and case references are cli/core.py's; `regime diagnose` is parsed there without typer
when it can be (cli/entry.py), since this is the command people run in loops. Each case is
rendered where it was diagnosed (in a worker with `--jobs N`), so only text crosses between
processes and nothing outlives its case: memory stays flat over any number of cases. A what-if
(`--set`) is one more way to render a case, through the same envelope.
"""

from __future__ import annotations

import io
import os
import sys
from pathlib import Path
from typing import IO, Any

from regime.core.errors import RegimeError
from regime.core.record import Record, record
from regime.engine import batch
from regime.engine.cli import core, writers
from regime.engine.cli.writers.streamed import Done, write
from regime.engine.cli.writers.text import Style
from regime.engine.knowledge.model import Knowledge
from regime.engine.report import output


def run_diagnose(opts: dict) -> int:
    """`regime diagnose` on parsed options, whichever parser read them."""
    try:
        return main(opts)
    except BrokenPipeError:  # `regime diagnose ... | head`: the reader has what it wanted
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return 1
    except KeyboardInterrupt:
        return 130


def main(opts: dict[str, Any]) -> int:
    """Run `regime diagnose` on options parsed by core.parse (or typer, into the same dict)."""
    rules, engine, trace, sets, fmt = (opts["rules"], opts["engine"], opts["trace"], opts["set"],
                                       opts["format"])
    try:
        address = core.scheduler(opts.get("scheduler"))
        k = core.knowledge(rules, engine)
        measured = core.measured(trace, k, rules) if trace else None
        if sets:
            _check_sets(sets, k, trace)
        jobs = core.workers(opts["jobs"])
    except RegimeError as err:
        return core.refuse(err, fmt)
    finally:
        core.settled()
    inputs = core.cases(opts["refs"], trace)
    setup = Setup(k, fmt, Style.of(sys.stdout) if fmt == "text" else None, engine, opts["quiet"],
                  tuple(sets), measured, bool(opts.get("full")))
    _WORKER["setup"] = setup
    if address is not None:
        from regime.engine.distributed import cluster
        results = cluster.ordered_map(address, diagnose_one, core.case_texts(inputs, trace), setup, lost,
                                      chunk=CHUNK)
    else:
        results = batch.ordered_map(_local_one, inputs, jobs, init=_setup,
                                    init_args=(rules, fmt, setup.style, engine, trace, opts["quiet"], sets,
                                               setup.full),
                                    lost=lost)
    rows: list[tuple[str, ...]] = []
    try:
        refused = write(results, fmt, len(inputs), rows)
    except RegimeError as err:  # the cluster went away mid-run
        return core.refuse(err, fmt)
    if setup.style is not None and (len(inputs) > 1 or opts["quiet"]):
        from regime.engine.report import review_text
        review_text.summary(rows, setup.style.console(sys.stdout))
    return core.EXIT_BAD_INPUT if refused else core.EXIT_OK


def _check_sets(sets: list[str], k, trace: Path | None) -> None:
    """A bad --set is the same mistake for every case: refuse it once, before any case runs."""
    from regime.engine import whatif
    if trace is not None:
        raise RegimeError("a what-if re-diagnoses case files; --set does not combine with --trace",
                          field="--set")
    whatif.parse_sets(sets, k)


@record
class Setup(Record):
    """What rendering one case needs besides the case: made once by the command, inherited by
    forked `--jobs` workers, pickled once to each `--scheduler` worker (content, not paths)."""

    k: Knowledge
    fmt: str
    style: Style | None
    engine: str
    quiet: bool = False
    sets: tuple[str, ...] = ()
    trace: Any = None  # a --trace's measured case (trace.merge.Measured), merged beneath each
    full: bool = False  # text: the whole report, not one screen

    def warm(self) -> None:
        """Build the evaluator now, once per worker, not inside the first case."""
        from regime.engine import api
        api.runner(self.k, self.engine)


_WORKER: dict[str, Setup] = {}  # this process's setup (inherited on fork)
CHUNK = 8  # cases per Dask task: a case takes milliseconds, a task's round trip about as long


def _setup(rules: list[Path], fmt: str, style: Style | None, engine: str, trace: Path | None = None,
           quiet: bool = False, sets: list[str] | None = None, full: bool = False) -> None:
    if "setup" not in _WORKER:  # a spawned worker: load (from the knowledge cache) and compile
        k = core.knowledge(rules, engine)
        measured = core.measured(trace, k, rules) if trace is not None else None
        _WORKER["setup"] = Setup(k, fmt, style, engine, quiet, tuple(sets or ()), measured, full)


def _local_one(item: Path | RegimeError) -> Done:
    return diagnose_one(_WORKER["setup"], item)


# ---- one case, in whichever process runs it ---------------------------------------------------

def diagnose_one(setup: Setup, item: Path | core.CaseText | RegimeError) -> Done:
    """One case diagnosed and rendered in the run's format: the unit of work of `regime
    diagnose` (here, in a `--jobs` process or on a Dask worker), a pure function of the case
    and `setup`. A refused case is its refusal, rendered in its place; never raises."""
    path, text = (item.path, item.text) if isinstance(item, core.CaseText) else (item, None)
    file = str(path.file) if isinstance(path, RegimeError) else str(path)
    try:
        if isinstance(path, RegimeError):
            raise path
        if setup.sets:
            return _what_if(setup, path, file, text)
        outcome = core.outcome(path, setup.k, setup.engine, setup.trace, text)
        if outcome.error is not None:
            raise outcome.error
        if setup.fmt == "text":
            return _text(setup, outcome.diagnosis)
        return Done(_render(setup, outcome.diagnosis, file))
    except RegimeError as err:
        return _refused(setup, err, file)
    except Exception as err:  # a bug must cost one case, not the batch, and never a traceback
        return _refused(setup, RegimeError(f"internal error (please report): {type(err).__name__}: {err}",
                                           file=file), file)


def lost(item: Path | core.CaseText | RegimeError, why: str) -> Done:
    """The refusal of a case whose worker died on it (run here, with the run's setup)."""
    path = item.path if isinstance(item, core.CaseText) else item
    file = str(path.file) if isinstance(path, RegimeError) else str(path)
    return _refused(_WORKER["setup"], RegimeError(f"engine fault (please report): {why}", file=file), file)


def _render(setup: Setup, d, file: str) -> str:
    k, fmt = setup.k, setup.fmt
    if fmt in ("json", "jsonl"):
        return writers.body(output.entry(d, k, file), fmt)
    if fmt == "markdown":
        return output.to_markdown(d, k)
    buffer = io.StringIO()
    output.print_text(d, k, _console(setup, buffer))
    return buffer.getvalue()


def _text(setup: Setup, d) -> Done:
    """The review report as rich text (none with --quiet) and its summary row, from one model."""
    from regime.engine.report import model, render_text, review_text
    m = model.build(d, setup.k)
    buffer = io.StringIO()
    if not setup.quiet:
        render_text.print_report(m, _console(setup, buffer), full=setup.full)
    return Done(buffer.getvalue(), row=review_text.summary_row(m))


def _what_if(setup: Setup, path: Path, file: str, text: str | None) -> Done:
    """The changed case's report, led by what changed (engine/report/review_text.py)."""
    from regime.engine import whatif
    from regime.engine.report import review_text
    k, fmt = setup.k, setup.fmt
    model, w, diff = whatif.compare(path, list(setup.sets), k, text)
    if fmt in ("json", "jsonl"):
        entry = output.entry(w.diagnosis, k, file)
        entry["what_if"] = review_text.what_if_doc(w, diff)
        return Done(writers.body(entry, fmt))
    if fmt == "markdown":
        return Done(review_text.what_if_markdown(model, w, diff))
    buffer = io.StringIO()
    if not setup.quiet:
        review_text.print_what_if(model, w, diff, _console(setup, buffer), setup.full)
    return Done(buffer.getvalue(), row=review_text.summary_row(model))


def _console(setup: Setup, buffer: IO[str]):
    """A console rendering into `buffer` as the user's terminal would (text format only)."""
    assert setup.style is not None, "text is rendered with the terminal's style"
    return setup.style.console(buffer)


def _refused(setup: Setup, err: RegimeError, file: str) -> Done:
    fmt, errors = setup.fmt, tuple(core.error_dicts(err, file))
    if fmt in ("json", "jsonl"):
        return Done(writers.body(output.refused_entry(err, file), fmt), core.lines(err), errors=errors)
    if fmt == "markdown":
        return Done(writers.markdown.refused(file, errors), core.lines(err), errors=errors)
    from regime.engine.report import review_text
    buffer = io.StringIO()
    if not setup.quiet:
        output.print_refused(err, file, _console(setup, buffer))
    return Done(buffer.getvalue(), core.lines(err), review_text.refused_row(file), errors)

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
from dataclasses import dataclass
from pathlib import Path
from typing import IO, Any

from regime.core.errors import RegimeError
from regime.engine import batch
from regime.engine.cli import core
from regime.engine.cli.core import Done
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
        k = core.knowledge(rules, engine)
        if trace:
            _SETUP["trace"] = core.measured(trace, k, rules)
        if sets:
            _check_sets(sets, k, trace)
        jobs = core.workers(opts["jobs"])
    except RegimeError as err:
        return core.refuse(err, fmt)
    finally:
        core.settled()
    inputs = core.cases(opts["refs"], trace)
    style = _Style.of(sys.stdout) if fmt == "text" else None
    full = bool(opts.get("full"))
    _SETUP.update(k=k, fmt=fmt, style=style, engine=engine, quiet=opts["quiet"], sets=sets, full=full)
    results = batch.ordered_map(_diagnose_one, inputs, jobs, init=_setup,
                                init_args=(rules, fmt, style, engine, trace, opts["quiet"], sets, full),
                                lost=_lost)
    rows: list[tuple[str, ...]] = []
    refused = core.write(results, fmt, len(inputs), rows)
    if style is not None and (len(inputs) > 1 or opts["quiet"]):
        from regime.engine.report import review_text
        review_text.summary(rows, style.console(sys.stdout))
    return core.EXIT_BAD_INPUT if refused else core.EXIT_OK


def _check_sets(sets: list[str], k, trace: Path | None) -> None:
    """A bad --set is the same mistake for every case: refuse it once, before any case runs."""
    from regime.engine import whatif
    if trace is not None:
        raise RegimeError("a what-if re-diagnoses case files; --set does not combine with --trace",
                          field="--set")
    whatif.parse_sets(sets, k)


@dataclass(frozen=True)
class _Style:
    """How the parent's terminal renders rich text, so a worker can render for it."""

    width: int
    terminal: bool
    color_system: str | None

    @classmethod
    def of(cls, stream: Any) -> _Style:
        from rich.console import Console
        c = Console(file=stream)
        return cls(c.width, c.is_terminal, c.color_system)

    def console(self, buffer: IO[str]):
        from rich.console import Console
        return Console(file=buffer, width=self.width, force_terminal=self.terminal,
                       # rich reads color_system back as str; it is one of the names it takes
                       color_system=self.color_system, highlight=False)  # type: ignore[arg-type]


_SETUP: dict[str, Any] = {}  # this process's knowledge, format and style (inherited on fork)


def _setup(rules: list[Path], fmt: str, style: _Style | None, engine: str, trace: Path | None = None,
           quiet: bool = False, sets: list[str] | None = None, full: bool = False) -> None:
    if "k" not in _SETUP:  # a spawned worker: load (from the knowledge cache) and compile
        k = core.knowledge(rules, engine)
        _SETUP.update(k=k, fmt=fmt, style=style, engine=engine, quiet=quiet, sets=sets or [], full=full)
        if trace is not None:
            _SETUP["trace"] = core.measured(trace, k, rules)


# ---- one case, in whichever process runs it ---------------------------------------------------

def _diagnose_one(item: Path | RegimeError) -> Done:
    file = str(item.file) if isinstance(item, RegimeError) else str(item)
    try:
        if isinstance(item, RegimeError):
            raise item
        if _SETUP.get("sets"):
            return _what_if(item, file)
        outcome = core.outcome(item, _SETUP["k"], _SETUP["engine"], _SETUP.get("trace"))
        if outcome.error is not None:
            raise outcome.error
        if _SETUP["fmt"] == "text":
            return _text(outcome.diagnosis)
        return Done(_render(outcome.diagnosis, file))
    except RegimeError as err:
        return _refused(err, file)
    except Exception as err:  # a bug must cost one case, not the batch, and never a traceback
        return _refused(RegimeError(f"internal error (please report): {type(err).__name__}: {err}",
                                    file=file), file)


def _lost(item: Path | RegimeError, why: str) -> Done:
    file = str(item.file) if isinstance(item, RegimeError) else str(item)
    return _refused(RegimeError(f"engine fault (please report): {why}", file=file), file)


def _render(d, file: str) -> str:
    k, fmt = _SETUP["k"], _SETUP["fmt"]
    if fmt in ("json", "jsonl"):
        return core.json_body(output.entry(d, k, file), fmt)
    if fmt == "markdown":
        return output.to_markdown(d, k)
    buffer = io.StringIO()
    output.print_text(d, k, _SETUP["style"].console(buffer))
    return buffer.getvalue()


def _text(d) -> Done:
    """The review report as rich text (none with --quiet) and its summary row, from one model."""
    from regime.engine.report import model, render_text, review_text
    m = model.build(d, _SETUP["k"])
    buffer = io.StringIO()
    if not _SETUP.get("quiet"):
        render_text.print_report(m, _SETUP["style"].console(buffer), full=_SETUP.get("full", False))
    return Done(buffer.getvalue(), row=review_text.summary_row(m))


def _what_if(path: Path, file: str) -> Done:
    """The changed case's report, led by what changed (engine/report/review_text.py)."""
    from regime.engine import whatif
    from regime.engine.report import review_text
    k, fmt = _SETUP["k"], _SETUP["fmt"]
    model, w, diff = whatif.compare(path, _SETUP["sets"], k)
    if fmt in ("json", "jsonl"):
        entry = output.entry(w.diagnosis, k, file)
        entry["what_if"] = review_text.what_if_doc(w, diff)
        return Done(core.json_body(entry, fmt))
    if fmt == "markdown":
        return Done(review_text.what_if_markdown(model, w, diff))
    buffer = io.StringIO()
    if not _SETUP.get("quiet"):
        review_text.print_what_if(model, w, diff, _SETUP["style"].console(buffer))
    return Done(buffer.getvalue(), row=review_text.summary_row(model))


def _refused(err: RegimeError, file: str) -> Done:
    fmt, errors = _SETUP["fmt"], tuple(core.error_dicts(err, file))
    if fmt in ("json", "jsonl"):
        return Done(core.json_body(output.refused_entry(err, file), fmt), core.lines(err), errors=errors)
    if fmt == "markdown":
        return Done(output.refused_markdown(err, file), core.lines(err), errors=errors)
    from regime.engine.report import review_text
    buffer = io.StringIO()
    if not _SETUP.get("quiet"):
        output.print_refused(err, file, _SETUP["style"].console(buffer))
    return Done(buffer.getvalue(), core.lines(err), review_text.refused_row(file), errors)

"""`regime diagnose`: many cases, streamed in input order, each refused input reported in place.

It is parsed with argparse rather than typer: this is the command people run in loops and
scripts, and typer (with click) costs about a third of the cold start. Each case is rendered
where it was diagnosed (in a worker with `--jobs N`), so only text crosses between processes
and nothing outlives its case: memory stays flat over any number of cases.
"""

from __future__ import annotations

import argparse
import io
import json
import os
import sys
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import regime
from regime.core.errors import RegimeError, did_you_mean
from regime.engine import api, batch, report
from regime.engine.paths import CASES_DIR, builtin_cases

EXIT_BAD_INPUT = 2
FORMATS = ("text", "json", "jsonl", "markdown")


def parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(
        prog="regime diagnose", formatter_class=_Help,
        description="Diagnose each case: regime, evidence, fixes in priority order, rejections, "
                    "next measurements. Results stream in input order; refused inputs are "
                    "reported in their place (and as 'error:' lines on stderr), exit code 2.")
    p.add_argument("cases", nargs="*", type=Path, metavar="DIR_OR_FILE",
                   help="Case files, directories of them (*.yaml, sorted) or names of built-in cases. "
                        "Default: every built-in case.")
    p.add_argument("-f", "--format", choices=FORMATS, default="text",
                   help="text (people), json (one envelope), jsonl (one JSON object per case and "
                        "line), markdown (a review document). Default: text.")
    p.add_argument("--rules", action="append", type=Path, default=[], metavar="DIR_OR_FILE",
                   help="Extra pack directory or file (site packs, overrides). Repeatable.")
    p.add_argument("--engine", choices=api.ENGINES, default="durable",
                   help="durable (the engine of record) or compiled (the same packs as a Python "
                        "fixpoint, byte-identical output, several times faster). Default: durable.")
    p.add_argument("--trace", type=Path, metavar="TRACE",
                   help="PyTorch profiler (Kineto) trace, .json or .json.gz: its measured facts go "
                        "beneath each case's (the case's win; disagreements become findings). "
                        "With no case, the trace alone is diagnosed.")
    p.add_argument("--set", action="append", default=[], metavar="NAME=VALUE", dest="sets",
                   help="What-if: re-diagnose with a changed fact and show what changed. Repeatable.")
    p.add_argument("-q", "--quiet", action="store_true",
                   help="Text: print only the summary table that ends a batch.")
    p.add_argument("-j", "--jobs", type=_jobs, default=1, metavar="N",
                   help="Worker processes (0: one per CPU). The output is the same for any N. Default: 1.")
    return p


class _Help(argparse.HelpFormatter):
    """argparse's formatter, told the width so that it does not import shutil on every run."""

    def __init__(self, prog: str) -> None:
        try:
            width = int(os.environ.get("COLUMNS") or os.get_terminal_size().columns)
        except (OSError, ValueError):
            width = 80
        super().__init__(prog, width=max(width - 2, 40))


def _jobs(text: str) -> int:
    n = int(text)
    if n < 0:
        raise argparse.ArgumentTypeError("must be 0 (one per CPU) or more")
    return n


def main(argv: list[str]) -> int:
    args = parser().parse_args(argv)
    try:
        k = api.knowledge(args.rules)
        api.runner(k, args.engine)  # compile now, so durable's limits surface as pack errors
        if args.trace:
            _SETUP["trace"] = _measured(args.trace, k, args.rules)
    except RegimeError as err:
        _error(_lines(err))
        return EXIT_BAD_INPUT
    named = map(_builtin_by_name, args.cases) if args.cases else None
    inputs = list(batch.expand(named or ([args.trace] if args.trace else builtin_cases())))
    if args.sets:  # a what-if: engine/review_text.py
        from regime.engine import review_text
        return review_text.what_if([p for p in inputs if isinstance(p, Path)], args.sets, k, args.format)
    style = _Style.of(sys.stdout) if args.format == "text" else None
    _SETUP.update(k=k, fmt=args.format, style=style, engine=args.engine, quiet=args.quiet)
    results = batch.ordered_map(_diagnose_one, inputs, batch.jobs_wanted(args.jobs),
                                init=_setup,
                                init_args=(args.rules, args.format, style, args.engine, args.trace,
                                           args.quiet),
                                lost=_lost)
    rows: list[tuple[str, ...]] = []
    refused = _write(results, _Writer(args.format), len(inputs), rows)
    if style is not None and (len(inputs) > 1 or args.quiet):
        from regime.engine import review_text
        review_text.summary(rows, style.console(sys.stdout))  # type: ignore[arg-type]
    if refused:
        sys.stderr.write(f"{refused} of {len(inputs)} case(s) could not be diagnosed\n")
    return EXIT_BAD_INPUT if refused else 0


def _builtin_by_name(path: Path) -> Path | RegimeError:
    """A bare name is the built-in case of that name, unless a file or directory is so named."""
    if path.exists() or path.suffix or len(path.parts) != 1:
        return path
    builtin = CASES_DIR / f"{path.name}.yaml"
    if builtin.is_file():
        return builtin
    names = [p.stem for p in builtin_cases()]
    return RegimeError(f"no such file, nor a built-in case of that name{did_you_mean(path.name, names)}",
                       file=str(path))


def _error(lines: str) -> None:
    """Errors go to stderr unwrapped, one per line, so they can be grepped and parsed."""
    sys.stderr.write("".join(f"error: {line}\n" for line in lines.split("\n")))
    sys.stderr.flush()


def _lines(err: RegimeError) -> str:
    """Each error of an input (a case with three bad facts has three), one line each."""
    return "\n".join(str(e) for e in err.all())


# ---- one case, in whichever process runs it ---------------------------------------------------

@dataclass(frozen=True)
class Done:
    """One input's output in the chosen format; `error` is its error lines when refused (one per
    error, each on one line)."""

    body: str
    error: str | None = None
    row: tuple[str, ...] | None = None  # text: this case's row of the summary table


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

    def console(self, buffer: io.StringIO):
        from rich.console import Console
        return Console(file=buffer, width=self.width, force_terminal=self.terminal,
                       color_system=self.color_system, highlight=False)  # type: ignore[arg-type]


_SETUP: dict[str, Any] = {}  # this process's knowledge, format and style (inherited on fork)


def _setup(rules: list[Path], fmt: str, style: _Style | None, engine: str, trace: Path | None = None,
           quiet: bool = False) -> None:
    if "k" not in _SETUP:  # a spawned worker: load (from the knowledge cache) and compile
        k = api.knowledge(rules)
        api.runner(k, engine)
        _SETUP.update(k=k, fmt=fmt, style=style, engine=engine, quiet=quiet)
        if trace is not None:
            _SETUP["trace"] = _measured(trace, k, rules)


def _measured(trace: Path, k, rules: list[Path]):
    from regime.engine.trace import merge  # only `--trace` pays for the trace reader
    return merge.measured_case(trace, k, rules)


def _diagnose_one(item: Path | RegimeError) -> Done:
    file = str(item.file) if isinstance(item, RegimeError) else str(item)
    try:
        if isinstance(item, RegimeError):
            raise item
        if "trace" in _SETUP:
            from regime.engine.trace import merge
            outcome = merge.outcome(item, _SETUP["trace"], _SETUP["k"], _SETUP["engine"])
        else:
            outcome = api.outcome(item, _SETUP["k"], _SETUP["engine"])
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
        return _json(report.entry(d, k, file), fmt)
    if fmt == "markdown":
        return report.to_markdown(d, k)
    buffer = io.StringIO()
    report.print_text(d, k, _SETUP["style"].console(buffer))
    return buffer.getvalue()


def _text(d) -> Done:
    """The review report as rich text (none with --quiet) and its summary row, from one model."""
    from regime.engine import render_text, report_model, review_text
    m = report_model.build(d, _SETUP["k"])
    buffer = io.StringIO()
    if not _SETUP.get("quiet"):
        render_text.print_report(m, _SETUP["style"].console(buffer))
    return Done(buffer.getvalue(), row=review_text.summary_row(m))


def _refused(err: RegimeError, file: str) -> Done:
    fmt = _SETUP["fmt"]
    if fmt in ("json", "jsonl"):
        return Done(_json(report.refused_entry(err, file), fmt), _lines(err))
    if fmt == "markdown":
        return Done(report.refused_markdown(err, file), _lines(err))
    from regime.engine import review_text
    buffer = io.StringIO()
    if not _SETUP.get("quiet"):
        report.print_refused(err, file, _SETUP["style"].console(buffer))
    return Done(buffer.getvalue(), _lines(err), review_text.refused_row(file))


def _json(entry: dict[str, Any], fmt: str) -> str:
    if fmt == "jsonl":
        return json.dumps(entry, sort_keys=True, ensure_ascii=False, separators=(",", ":"))
    # an entry of the envelope's "results" array, indented as json.dumps(indent=2) would
    return "\n".join("    " + line for line in report.to_json(entry).rstrip("\n").split("\n"))


# ---- the parent: write each result as it comes, in input order --------------------------------

class _Writer:
    """Frames the per-case bodies: nothing for text and jsonl, separators for the others."""

    def __init__(self, fmt: str) -> None:
        self.fmt = fmt
        self.count = 0

    def head(self) -> str:
        if self.fmt == "json":
            return f'{{\n  "regime_version": {json.dumps(regime.__version__)},\n  "results": ['
        return ""

    def item(self, body: str) -> str:
        self.count += 1
        if self.fmt == "json":
            return ("\n" if self.count == 1 else ",\n") + body
        if self.fmt == "jsonl":
            return body + "\n"
        if self.fmt == "markdown" and self.count > 1:
            return "\n" + body
        return body

    def tail(self, summary: dict[str, int]) -> str:
        if self.fmt != "json":
            return ""
        close = "\n  ]" if self.count else "]"
        counts = json.dumps(summary, indent=2, sort_keys=True).replace("\n", "\n  ")
        return f'{close},\n  "summary": {counts}\n}}\n'


def _write(results: Iterator[Done], writer: _Writer, total: int, rows: list[tuple[str, ...]]) -> int:
    sys.stdout.write(writer.head())
    refused = 0
    with _progress(total) as advance:  # sys.stdout is looked up each time: the bar may proxy it
        for done in results:
            if done.error is not None:
                refused += 1
                _error(done.error)
            if done.row is not None:
                rows.append(done.row)
            sys.stdout.write(writer.item(done.body))
            sys.stdout.flush()
            advance()
    sys.stdout.write(writer.tail({"cases": total, "diagnosed": total - refused, "refused": refused}))
    sys.stdout.flush()
    return refused


class _progress:
    """A rich progress bar on stderr, only when stderr is a terminal and there is a batch."""

    def __init__(self, total: int) -> None:
        self.total = total
        self.bar: Any = None

    def __enter__(self):
        if self.total < 2 or not sys.stderr.isatty():
            return lambda: None
        from rich.console import Console
        from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeRemainingColumn
        self.bar = Progress(TextColumn("diagnosing"), BarColumn(), MofNCompleteColumn(),
                            TimeRemainingColumn(), console=Console(stderr=True), transient=True,
                            redirect_stdout=sys.stdout.isatty())
        self.bar.start()
        task = self.bar.add_task("cases", total=self.total)
        return lambda: self.bar.advance(task)

    def __exit__(self, *exc: object) -> None:
        if self.bar is not None:
            self.bar.stop()

"""A batch written as it runs (`regime diagnose`): each case's output in input order as soon as
it is ready, framed by its format's writer, each refusal also an `error:` line on stderr, and
a progress bar on stderr when that is a terminal."""

from __future__ import annotations

import sys
from collections.abc import Iterable
from typing import Any

from regime.core.record import Record, record
from regime.engine.cli import writers


@record
class Done(Record):
    """One input's output in the chosen format; `error` is set when it was refused."""

    body: str
    error: tuple[str, ...] | None = None  # its error lines, when refused
    row: tuple[str, ...] | None = None  # text: this case's row of the summary table
    errors: tuple[dict[str, Any], ...] = ()  # when refused: its errors, for the envelope's `errors`


def write(results: Iterable[Done], fmt: str, total: int, rows: list[tuple[str, ...]]) -> int:
    """Write each result as it comes, in input order, each refusal also on stderr; returns how
    many were refused."""
    from regime.engine.cli import core
    frame = writers.stream(fmt)
    sys.stdout.write(frame.head())
    refused = 0
    with _progress(total) as advance:  # sys.stdout is looked up each time: the bar may proxy it
        for done in results:
            if done.error is not None:
                refused += 1
                frame.errors.extend(done.errors)
                if not (done.body and _one_terminal()):  # the report shows it in its place
                    core.write_errors(done.error)
            if done.row is not None:
                rows.append(done.row)
            sys.stdout.write(frame.item(done.body))
            sys.stdout.flush()
            advance()
    sys.stdout.write(frame.tail({"cases": total, "diagnosed": total - refused, "refused": refused}))
    sys.stdout.flush()
    if refused:
        sys.stderr.write(f"{refused} of {total} case(s) could not be diagnosed\n")
    return refused


def _one_terminal() -> bool:
    """stdout and stderr are the same terminal: an error shown in the report is not shown twice."""
    try:
        return sys.stdout.isatty() and sys.stderr.isatty()
    except (AttributeError, ValueError):
        return False


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

"""`regime why CASE SUBJECT`: why (or why not) a conclusion, answered in the first line, then
each rule about SUBJECT clause by clause, on the case's facts; in every format."""

from __future__ import annotations

from typing import Annotated, Any

import typer

from regime.core.errors import RegimeError
from regime.engine.cli import core, writers
from regime.engine.cli.options import (
    CaseArg,
    EngineOpt,
    FormatOpt,
    RulesOpt,
    SetOpt,
    TraceOpt,
    exit_with,
    value,
)


def why(
    case: CaseArg,
    subject: Annotated[str, typer.Argument(help="Rule id, lever, claim, finding id or fact name.",
                                           metavar="SUBJECT")],
    rules: RulesOpt = None,
    engine: EngineOpt = core.ENGINE.default,
    trace: TraceOpt = None,
    sets: SetOpt = None,
    fmt: FormatOpt = core.FORMAT.default,
) -> None:
    """Why (or why not) a conclusion: each rule about SUBJECT, clause by clause, on CASE's facts
    (with --set, on the changed case's). The first line is the answer."""
    from regime.engine import explain
    try:
        k = core.knowledge(rules or [], value(engine))
        about = explain.rules_about(subject, k)
        d = core.diagnosis(core.case(case), k, value(engine), trace, rules or [], list(sets or []))
    except RegimeError as err:
        exit_with(core.refuse(err, value(fmt)))
        return
    said = [{"rule": rule.id, "lines": explain.explain(rule, d, k)} for rule in about]
    result = {"case": d.case, "subject": subject, "answer": explain.answer(subject, about, d, k),
              "rules": said}
    writers.emit(writers.Output([result], {"rules": len(said)}, text=lambda: _text(result),
                                markdown=lambda: _markdown(result)), value(fmt))


# How each kind of line and mark reads in a terminal with colour (rich styles).
ANSWER, HEADER = "bold", "bold cyan"
MARKS = ((r"\bFIRED\b", "bold green"), (r"did NOT fire", "yellow"), (r"\[x\]", "green"),
         (r"\[ \]", "red"), (r"^\s*=> ", "bold"), (r"^\s*when: ", "dim"))


def _text(result: dict[str, Any]) -> str:
    """The answer, then each rule's block; styled where the reader's terminal shows colour."""
    import sys

    from regime.engine.cli.writers import text
    blocks = [[result["answer"]], *(r["lines"] for r in result["rules"])]
    style = text.Style.of(sys.stdout)
    if not style.terminal or style.color_system is None:
        return "\n".join(text.lines(block) for block in blocks) + "\n"
    return _styled(blocks, style)


def _styled(blocks: list[list[str]], style) -> str:
    """The same lines with rich styles: never wrapped (soft_wrap), shown safely (terminal_text)."""
    import io

    from rich.text import Text

    from regime.core.escape import terminal_text
    buffer = io.StringIO()
    console = style.console(buffer)
    for b, block in enumerate(blocks):
        if b:
            console.print()
        for i, line in enumerate(block):
            shown = Text(terminal_text(line))
            if i == 0:
                shown.stylize(ANSWER if b == 0 else HEADER)
            for pattern, mark in MARKS:
                shown.highlight_regex(pattern, mark)
            console.print(shown, soft_wrap=True)
    console.print()  # as the plain text ends
    return buffer.getvalue()


def _markdown(result: dict[str, Any]) -> str:
    """The answer first, then each rule's clause tree verbatim under its id."""
    from regime.engine.cli.writers import markdown as md
    out = md.heading(f"Why {result['subject']} ({result['case']})") + md.bullets([result["answer"]])
    for r in result["rules"]:
        out += md.heading(r["rule"], 2) + md.code("\n".join(r["lines"]))
    return out

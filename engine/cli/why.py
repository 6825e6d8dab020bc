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


def _text(result: dict[str, Any]) -> str:
    from regime.engine.cli.writers import text
    blocks = [[result["answer"]], *(r["lines"] for r in result["rules"])]
    return "\n".join(text.lines(block) for block in blocks) + "\n"


def _markdown(result: dict[str, Any]) -> str:
    """The answer first, then each rule's clause tree verbatim under its id."""
    from regime.engine.cli.writers import markdown as md
    out = md.heading(f"Why {result['subject']} ({result['case']})") + md.bullets([result["answer"]])
    for r in result["rules"]:
        out += md.heading(r["rule"], 2) + md.code("\n".join(r["lines"]))
    return out

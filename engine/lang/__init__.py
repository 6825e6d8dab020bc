"""The rule language: the safe expression language, message templates, and analyses of both.

Rule text is parsed with `ast.parse(mode="eval")` and only a whitelist of node types is
accepted (`parser`); the result is a small tree of our own (`nodes`), type-checked
(`typecheck`) and range-checked (`intervals`). The same tree is evaluated in Python
(`evaluate`: formulas, why / why-not, the compiled engine) and compiled to durable-rules JSON
(`durable_compile`). Nothing is ever passed to `eval`.

Semantics shared by both back ends: a comparison that involves an absent fact is false, and
`not` is pushed down to the comparisons (negation normal form), so `not (x > 1)` with `x`
absent is false too. `present(x)` and `absent(x)` test presence explicitly.

`from regime.engine import lang` gives the expression API below (`lang.parse`, `lang.truth`,
...). `template` (the `{fact}` messages), `dimensions` (units of an expression) and `overlap`
(can two conditions hold at once) are modules of their own, imported by name.
"""

from regime.engine.lang.durable_compile import ALWAYS, NEVER, ZERO_FIELD, to_durable
from regime.engine.lang.evaluate import Evaluator, Facts, compile_truth, compile_value, truth, value
from regime.engine.lang.intervals import held, interval_of, narrowed_by
from regime.engine.lang.nodes import (
    JUDGED,
    NEGATED,
    Bin,
    BoolOp,
    Call,
    Cmp,
    Context,
    ExprError,
    Expression,
    Lookup,
    Missing,
    Node,
    Not,
    Num,
    Pick,
    Presence,
    Ref,
    Str,
    Unlisted,
    compared,
    picked,
    picked_member,
    picks,
    reads_verdicts,
    render,
    walk_refs,
)
from regime.engine.lang.parser import parse
from regime.engine.lang.typecheck import check_category_literals, type_of

__all__ = [
    "ALWAYS", "JUDGED", "NEGATED", "NEVER", "ZERO_FIELD", "Bin", "BoolOp", "Call", "Cmp", "Context",
    "Evaluator", "ExprError", "Expression", "Facts", "Lookup", "Missing", "Node", "Not", "Num", "Pick",
    "Presence",
    "Ref", "Str", "Unlisted", "check_category_literals", "compared", "compile_truth", "compile_value", "held",
    "interval_of", "narrowed_by", "parse", "picked", "picked_member", "picks", "reads_verdicts",
    "render", "to_durable", "truth", "type_of", "value", "walk_refs",
]

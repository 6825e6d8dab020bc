"""The Python evaluator: a tree compiles once to nested closures (no eval, no source text).

Both engines call them per firing; `value`/`truth` wrap them for one-off use (why / why not).
Semantics shared with the durable compiler: a comparison that involves an absent fact is false,
and `not` is pushed down to the comparisons, so `not (x > 1)` with `x` absent is false too.
"""

from __future__ import annotations

import math
import operator
from collections.abc import Callable, Mapping
from typing import Any

from regime.engine.lang.nodes import (
    NEGATED,
    Bin,
    BoolOp,
    Call,
    Cmp,
    ExprError,
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
    member_key,
)

Facts = Mapping[str, Any]
Evaluator = Callable[[Facts], Any]


def value(node: Node, facts: Facts) -> float | str:
    """Numeric (or category) value of an expression; raises Missing for absent facts."""
    return compile_value(node)(facts)


def truth(node: Node, facts: Facts, negate: bool = False) -> bool:
    """Truth of a condition under the engine's semantics (absent -> comparison false)."""
    return compile_truth(node, negate)(facts)


def compile_value(node: Node) -> Evaluator:
    """A function of the facts giving the expression's value; raises Missing for absent facts."""
    match node:
        case Num(value=v) | Str(value=v):
            return lambda facts: v
        case Ref(field=key):
            return _fetch(key)
        case Lookup(entries=entries, key=key):
            table, index = dict(entries), compile_value(key)
            return lambda facts: table[index(facts)]
        case Pick(group=group, key=key):
            return _pick(group, compile_value(key))
        case Call(fn="count", args=(a,)):
            return compile_value(a)
        case Call(fn="total", args=args):
            # mypy cannot see it: total()'s arguments are the group's member Refs
            return _total(tuple(a.field for a in args))  # type: ignore[union-attr]
        case Call(fn="pow", args=(base, exponent)):
            b, e = compile_value(base), compile_value(exponent)
            return lambda facts: _power(float(b(facts)), float(e(facts)))
        case Call(fn=fn, args=args):
            parts, pick = tuple(compile_value(a) for a in args), (min if fn == "min" else max)
            return lambda facts: pick([p(facts) for p in parts])
        case Bin(op=op, left=a, right=b):
            x, y = compile_value(a), compile_value(b)
            return lambda facts: arith(op, x(facts), y(facts))
    raise ExprError(f"not a value: {node!r}")


def _fetch(key: str) -> Evaluator:
    def fetch(facts: Facts) -> Any:
        if key in facts:
            return facts[key]
        raise Missing(key)
    return fetch


def _pick(group: str, index: Evaluator) -> Evaluator:
    def pick(facts: Facts) -> Any:
        member = f"{group}__{member_key(str(index(facts)))}"
        if member not in facts:
            raise Missing(member)
        return facts[member]
    return pick


def _total(fields: tuple[str, ...]) -> Evaluator:
    # the sum of the members the profile lists; with none of them listed the total is unknown
    # (no finding, no zero)
    def total(facts: Facts) -> float:
        listed = [facts[f] for f in fields if f in facts]
        if not listed:
            raise Unlisted("no member of the group is listed")
        return math.fsum(listed)  # correctly rounded: the same on every Python (3.12 changed sum)
    return total


def compile_truth(node: Node, negate: bool = False) -> Callable[[Facts], bool]:
    """A function of the facts giving the condition's truth (`negate`: of its negation)."""
    match node:
        case BoolOp(op=op, items=items):
            parts = tuple(compile_truth(i, negate) for i in items)
            return _all(parts) if (op == "and") != negate else _any(parts)
        case Not(item=item):
            return compile_truth(item, not negate)
        case Presence(ref=ref, present=present):
            key, want = ref.field, present != negate
            return lambda facts: (key in facts) == want
        case Ref(kind="flags", field=key):
            return lambda facts: (key in facts) != negate
        case Cmp(op=op, left=a, right=b):
            op = NEGATED[op] if negate else op
            if isinstance(a, Ref) and isinstance(b, Num | Str):  # the common shape, in one call
                return _field_vs_constant(_comparator(op), a.field, b.value)
            return _comparison(op, compile_value(a), compile_value(b))
    raise ExprError(f"not a condition: {node!r}")


def _all(parts: tuple[Callable[[Facts], bool], ...]) -> Callable[[Facts], bool]:
    def every(facts: Facts) -> bool:
        for part in parts:  # noqa: SIM110 (a loop: no generator per call on the hot path)
            if not part(facts):
                return False
        return True
    return every


def _any(parts: tuple[Callable[[Facts], bool], ...]) -> Callable[[Facts], bool]:
    def some(facts: Facts) -> bool:
        for part in parts:  # noqa: SIM110 (a loop: no generator per call on the hot path)
            if part(facts):
                return True
        return False
    return some


def _field_vs_constant(test: Callable[[Any, Any], bool], key: str, constant: Any) -> Callable[[Facts], bool]:
    def check(facts: Facts) -> bool:
        return key in facts and test(facts[key], constant)  # absent: false, as for any comparison
    return check


def _comparison(op: str, x: Evaluator, y: Evaluator) -> Callable[[Facts], bool]:
    def test(facts: Facts) -> bool:
        try:
            left, right = x(facts), y(facts)
        except Missing:
            return False
        return compare(op, left, right)
    return test


def _power(base: float, exponent: float) -> float:
    """A real power of a non-negative base; anything else is unknown rather than complex."""
    if base < 0 or (base == 0 and exponent <= 0) or abs(exponent) > 1e9:
        raise Missing("pow() outside its domain")
    try:
        return math.pow(base, exponent)
    except OverflowError:
        raise Missing("pow() overflows") from None


def arith(op: str, x: float, y: float) -> float:
    if op == "+":
        return x + y
    if op == "-":
        return x - y
    if op == "*":
        return x * y
    if y == 0:
        raise Missing("division by zero")
    return x / y


_COMPARE = {"<": operator.lt, "<=": operator.le, ">": operator.gt, ">=": operator.ge,
            "==": operator.eq, "!=": operator.ne}


def _comparator(op: str) -> Callable[[Any, Any], bool]:
    return _COMPARE[op]


def compare(op: str, x: Any, y: Any) -> bool:
    return _comparator(op)(x, y)

"""Compiling conditions to durable-rules JSON over one working-memory fact.

Same semantics as the Python evaluator (see regime.engine.lang.evaluate): absent facts make a
comparison false, and `not` is pushed down. Constant arithmetic is folded here because durable
cannot do arithmetic on two constants.
"""

from __future__ import annotations

from typing import Any

from regime.core.limits import describe, plausible
from regime.engine.lang.evaluate import arith, compare
from regime.engine.lang.nodes import (
    NEGATED,
    Bin,
    BoolOp,
    Cmp,
    ExprError,
    Node,
    Not,
    Num,
    Presence,
    Ref,
    Str,
    render,
    walk_refs,
)

ZERO_FIELD = "_zero"
ALWAYS = {"$gte": {ZERO_FIELD: 0.0}}   # the zero field is always 0
NEVER = {"$gt": {ZERO_FIELD: 0.0}}
_DURABLE_CMP = {"<": "$lt", "<=": "$lte", ">": "$gt", ">=": "$gte", "==": "$eq", "!=": "$neq"}
_FLIP = {"<": ">", "<=": ">=", ">": "<", ">=": "<=", "==": "==", "!=": "!="}
_DURABLE_ARITH = {"+": "$add", "-": "$sub", "*": "$mul", "/": "$div"}


def to_durable(node: Node, negate: bool = False) -> dict:
    """Compile a condition to a durable-rules expression over one working-memory fact.

    durable only compares a *field* with an expression, so `a/b > c` becomes
    `_zero > c - a/b` against a constant zero field. Every fact read gets an `$ex` guard so
    absent facts make the comparison false, as in `truth`.
    """
    match node:
        case BoolOp(op=op, items=items):
            key = "$and" if (op == "and") != negate else "$or"
            return {key: [to_durable(i, negate) for i in items]}
        case Not(item=item):
            return to_durable(item, not negate)
        case Presence(ref=ref, present=present):
            return _presence(ref, present != negate)
        case Ref(kind="flags"):
            return _presence(node, not negate)
        case Cmp(op=op, left=a, right=b):
            op = NEGATED[op] if negate else op
            guards = [{"$ex": {f: 1}} for f in _fields(a) + _fields(b)]
            if not guards:  # no fact on either side: decide it now, as Python would
                return ALWAYS if compare(op, _operand(a), _operand(b)) else NEVER
            test = _durable_cmp(op, a, b)
            return {"$and": [*guards, test]}
    raise ExprError(f"cannot compile {node!r}")


def _presence(ref: Ref, present: bool) -> dict:
    return {"$ex" if present else "$nex": {ref.field: 1}}


def _fields(node: Node) -> list[str]:
    out: list[str] = []
    walk_refs(node, lambda r: out.append(r.field))
    return out


def _durable_cmp(op: str, a: Node, b: Node) -> dict:
    if isinstance(a, Ref):
        return _field_test(op, a.field, _operand(b))
    if isinstance(b, Ref):
        return _field_test(_FLIP[op], b.field, _operand(a))
    # a op b  <=>  0 op (b - a)
    return _field_test(op, ZERO_FIELD, {"$sub": {"$l": _operand(b), "$r": _operand(a)}})


def _field_test(op: str, fieldname: str, rhs: Any) -> dict:
    if op == "==":
        return {fieldname: rhs}
    return {_DURABLE_CMP[op]: {fieldname: rhs}}


def _operand(node: Node) -> Any:
    match node:
        case Num(value=v):
            return float(v)
        case Str(value=v):
            return v
        case Ref(field=f):
            return {"$m": f}
        case Bin(op=op, left=a, right=b):
            left, right = _operand(a), _operand(b)
            if isinstance(left, float) and isinstance(right, float):
                folded = arith(op, left, right)  # durable cannot do arithmetic on two constants
                if not plausible(folded):
                    raise ExprError(f"constant arithmetic '{render(node)}' is out of range ({describe()})")
                return folded
            return {_DURABLE_ARITH[op]: {"$l": left, "$r": right}}
    raise ExprError(f"'{render(node)}' cannot be used in a condition (tables and total() are "
                    "for formulas; derive a fact first)")

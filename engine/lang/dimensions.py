"""Dimension checks of pack expressions at load time, with pint.

A derive rule's formula must produce its target's unit (tokens/s is not 1/s), both sides of a
comparison must agree, and only like quantities are added. Plain numbers written in a rule are
dimensionless, except 0, which compares with anything. `count(x)` turns a quantity into a plain
number on purpose (N tokens -> N² score entries).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from regime.core import units
from regime.engine.lang import (
    Bin,
    BoolOp,
    Call,
    Cmp,
    Context,
    ExprError,
    Expression,
    Lookup,
    Node,
    Not,
    Num,
    Pick,
    Ref,
    Str,
    render,
)
from regime.engine.lang.nodes import group_of

if TYPE_CHECKING:  # pint itself is loaded by units.registry(), only when a pack is compiled
    import pint

_ANY = "any"  # the literal 0


def unit_quantity(unit: str) -> pint.Quantity:
    """1.0 in `unit` ('%' is a fraction): what dimension checks multiply and compare."""
    return units.registry().Quantity(1.0, units.parse_unit(units.FRACTION if unit == "%" else unit))


def dims_of(node: Node, ctx: Context) -> pint.Quantity | str | None:
    """A unit-carrying 1.0 for numeric nodes; None for categories and strings."""
    match node:
        case Num(value=v, unit=None):
            return _ANY if v == 0 else unit_quantity("1")
        case Num(unit=str() as u):
            return unit_quantity(u)
        case Str():
            return None
        case Ref(name=name):
            spec = ctx.vocabulary.get(name)
            return unit_quantity(spec.unit) if spec.numeric else None
        case Lookup(unit=u):
            return unit_quantity(u)
        case Pick(group=group):
            return unit_quantity(ctx.vocabulary.get(group).unit)
        case Call(fn="count"):
            return unit_quantity("1")
        case Call(fn="pow", args=args):
            for a in args:  # a power of a quantity has no single unit: only plain numbers
                d = dims_of(a, ctx)
                if d is None or (not isinstance(d, str) and not d.dimensionless):  # str: only _ANY
                    raise ExprError(f"pow() takes plain numbers; '{render(a)}' is "
                                    f"{'not a number' if d is None else _name(d)} (use count())")
            return unit_quantity("1")
        case Call(fn="total"):
            return unit_quantity(ctx.vocabulary.get(group_of(node)).unit)
        case Call(args=args):
            return _same([dims_of(a, ctx) for a in args], node)
        case Bin(op=op, left=a, right=b):
            x, y = dims_of(a, ctx), dims_of(b, ctx)
            if op in "+-":
                return _same([x, y], node)
            if _ANY in (x, y):
                return unit_quantity("1") if op == "*" else x
            # mypy cannot see it: x and y are quantities here: None and the literal 0 are handled above
            return x * y if op == "*" else x / y  # type: ignore[operator]
    raise ExprError(f"no dimension for {render(node)}")


def _same(items: list, node: Node):
    known = [i for i in items if i is not _ANY and i is not None]
    for other in known[1:]:
        if other.dimensionality != known[0].dimensionality:
            verb = "compares" if isinstance(node, Cmp) else "mixes"
            raise ExprError(f"'{render(node)}' {verb} {_name(known[0])} with {_name(other)}: "
                            "these quantities are in different units and cannot be compared or added")
    return known[0] if known else _ANY


def _name(q) -> str:
    """'bytes/s', 'bytes', 'FLOP/byte': units as people say them, not pint's 'B / s'."""
    if q.dimensionless:
        return "a plain number"
    text = f"{q.units:~C}".replace("B", "bytes").replace("tok", "tokens")
    return text.replace("*", "·")


def check_formula(formula: Expression, target_unit: str, ctx: Context) -> None:
    got = dims_of(formula.tree, ctx)
    if got is None or isinstance(got, str):  # str: only _ANY, the literal 0
        return
    want = unit_quantity(target_unit)
    if got.dimensionality != want.dimensionality:
        raise ExprError(f"formula '{formula.source}' gives {_name(got)}, but the target is in "
                        f"{_name(want)}")


def check_condition(condition: Expression, ctx: Context) -> None:
    _check_node(condition.tree, ctx)


def _check_node(node: Node, ctx: Context) -> None:
    match node:
        case Cmp(left=a, right=b):
            _same([dims_of(a, ctx), dims_of(b, ctx)], node)
        case BoolOp(items=items):
            for item in items:
                _check_node(item, ctx)
        case Not(item=item):
            _check_node(item, ctx)

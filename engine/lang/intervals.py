"""Interval analysis: the conservative range of a numeric expression from declared ranges.

The parser uses it to refuse a division whose divisor could be zero and a condition whose
intermediates could overflow (durable and Python would then disagree); the lint uses it too.
"""

from __future__ import annotations

import math

from regime.core.limits import MAX_INTERMEDIATE, MAX_MAGNITUDE, MIN_MAGNITUDE
from regime.engine.lang.nodes import (
    Bin,
    BoolOp,
    Call,
    Cmp,
    Context,
    ExprError,
    Lookup,
    Node,
    Not,
    Num,
    Pick,
    Ref,
    group_of,
    render,
)
from regime.facts.vocabulary import Interval


def interval_of(node: Node, ctx: Context) -> Interval:
    """Conservative range of a numeric expression, from declared fact ranges and the magnitudes
    that working memory can hold (see regime.core.limits)."""
    match node:
        case Num(value=v):
            return Interval.point(v)
        case Ref(name=name, member=None):
            return held(ctx.narrowed.get(name) or ctx.vocabulary.get(name).interval)
        case Ref(name=name):
            return held(ctx.vocabulary.get(name).interval)
        case Lookup(entries=entries):
            vals = [v for _, v in entries]
            return Interval(min(vals), max(vals))
        case Pick(group=group):
            return held(ctx.vocabulary.get(group).interval)
        case Call(fn="count", args=(a,)):
            return interval_of(a, ctx)
        case Call(fn="total", args=args):
            spec = held(ctx.vocabulary.get(group_of(node)).interval) if args else Interval.point(0.0)
            return Interval(min(0.0, spec.lo * len(args)), max(0.0, spec.hi * len(args)))
        case Call(fn="pow", args=(base, _)):  # formulas only: a real power, unbounded above
            low = 0.0 if interval_of(base, ctx).lo >= 0 else -MAX_MAGNITUDE
            return Interval(low, MAX_MAGNITUDE)
        case Call(fn=fn, args=args):
            ivs = [interval_of(a, ctx) for a in args]
            pick = min if fn == "min" else max
            return Interval(pick(i.lo for i in ivs), pick(i.hi for i in ivs))
        case Bin(op=op, left=a, right=b):
            return _interval_bin(op, interval_of(a, ctx), interval_of(b, ctx))
    raise ExprError(f"no range for {node!r}")


_FLIP = {"<": ">", "<=": ">=", ">": "<", ">=": "<="}


def narrowed_by(when: Node | None, ctx: Context) -> dict[str, Interval]:
    """Facts' ranges where `when` holds: each top-level conjunct `fact < number` (or <=, >, >=,
    either way round) cuts the fact's declared range. Anything else narrows nothing."""
    items = when.items if isinstance(when, BoolOp) and when.op == "and" else (when,)
    out: dict[str, Interval] = {}
    for item in items:
        if not isinstance(item, Cmp) or item.op not in _FLIP:
            continue
        ref, num, op = item.left, item.right, item.op
        if isinstance(num, Ref) and isinstance(ref, Num):
            ref, num, op = num, ref, _FLIP[op]
        if not isinstance(ref, Ref) or not isinstance(num, Num) or ref.member is not None \
                or ref.kind != "number":
            continue
        iv = out.get(ref.name) or ctx.vocabulary.get(ref.name).interval
        v = num.value
        if op in ("<", "<=") and (v < iv.hi or (v == iv.hi and op == "<")):
            iv = Interval(iv.lo, v, iv.lo_open, op == "<")
        elif op in (">", ">=") and (v > iv.lo or (v == iv.lo and op == ">")):
            iv = Interval(v, iv.hi, op == ">", iv.hi_open)
        out[ref.name] = iv
    return out


def held(iv: Interval) -> Interval:
    """The part of a declared range that working memory can hold: magnitudes at most
    MAX_MAGNITUDE, and at least MIN_MAGNITUDE where the range excludes zero."""
    lo, lo_open = (iv.lo, iv.lo_open) if iv.lo >= -MAX_MAGNITUDE else (-MAX_MAGNITUDE, False)
    hi, hi_open = (iv.hi, iv.hi_open) if iv.hi <= MAX_MAGNITUDE else (MAX_MAGNITUDE, False)
    if not iv.contains(0.0) and lo >= 0 and lo < MIN_MAGNITUDE:
        lo, lo_open = MIN_MAGNITUDE, False
    if not iv.contains(0.0) and hi <= 0 and hi > -MIN_MAGNITUDE:
        hi, hi_open = -MIN_MAGNITUDE, False
    return Interval(lo, hi, lo_open, hi_open)


def _interval_bin(op: str, a: Interval, b: Interval) -> Interval:
    if op == "+":
        return Interval(a.lo + b.lo, a.hi + b.hi, a.lo_open or b.lo_open, a.hi_open or b.hi_open)
    if op == "-":
        return _interval_bin("+", a, Interval(-b.hi, -b.lo, b.hi_open, b.lo_open))
    if op == "/":
        if b.contains(0.0):
            raise ZeroDivisionError
        b = Interval(*_recip(b))
    ends = [(_mul(x, y), xo or yo) for x, xo in ((a.lo, a.lo_open), (a.hi, a.hi_open))
            for y, yo in ((b.lo, b.lo_open), (b.hi, b.hi_open))]
    lo = min(ends, key=lambda e: (e[0], e[1]))
    hi = max(ends, key=lambda e: (e[0], not e[1]))
    return Interval(lo[0], hi[0], lo[1], hi[1])


def _recip(b: Interval) -> tuple[float, float, bool, bool]:
    lo = 1.0 / b.hi if b.hi != 0 else -math.inf
    hi = 1.0 / b.lo if b.lo != 0 else math.inf
    return lo, hi, b.hi_open or math.isinf(b.hi), b.lo_open or math.isinf(b.lo)


def _mul(x: float, y: float) -> float:
    return 0.0 if x == 0 or y == 0 else x * y


def checked_range(node: Node, ctx: Context, bounded: bool) -> Interval | None:
    """Range of a numeric node, refusing (bottom-up) any division whose divisor could be zero
    and, when `bounded`, any intermediate that could leave MAX_INTERMEDIATE.

    Conditions are bounded: durable evaluates them with IEEE arithmetic, where an overflow is
    infinity and a divisor that underflowed to zero gives infinity, while Python treats a zero
    divisor as an absent value. With both refused, the two agree on every condition. Formulas
    run in Python only, and their results are checked when derived."""
    match node:
        case Bin(op=op, left=a, right=b):
            left, right = checked_range(a, ctx, bounded), checked_range(b, ctx, bounded)
            if left is None or right is None:
                return None
            if op == "/" and right.contains(0.0):
                raise ExprError(f"division by '{render(b)}' could be by zero: its range {right} "
                                "(from the declared ranges of its facts) includes 0")
            out = _interval_bin(op, left, right)
            if bounded and max(abs(out.lo), abs(out.hi)) > MAX_INTERMEDIATE:
                raise ExprError(f"'{render(node)}' could reach {max(abs(out.lo), abs(out.hi)):.3g}, "
                                f"beyond {MAX_INTERMEDIATE:g}: derive smaller facts first")
            return out
        case Cmp(left=a, right=b):
            checked_range(a, ctx, bounded)
            checked_range(b, ctx, bounded)
        case BoolOp(items=items):
            for item in items:
                checked_range(item, ctx, bounded)
        case Not(item=item):
            checked_range(item, ctx, bounded)
        case Call(args=args):
            if all(checked_range(a, ctx, bounded) is not None for a in args):
                return interval_of(node, ctx)
        case Num() | Ref(kind="number") | Ref(kind="group") | Lookup() | Pick():
            return interval_of(node, ctx)
    return None

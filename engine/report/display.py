"""Names and numbers as people read them: `group[member]`, `5.3 TB/s`, `x-bound`.

Internal field names (`group__member`, `table["key"]`) and raw floats never reach a report;
formulas are rendered from their parsed tree, symbolically and with values substituted.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from regime.core import units
from regime.core.names import member_id
from regime.engine import lang
from regime.engine.knowledge.model import Knowledge

_PREC = {"+": 1, "-": 1, "*": 2, "/": 2}
_SYM = {"+": "+", "-": "−", "*": "×", "/": "/"}


def label(field: str) -> str:
    """`group__member` -> `group[member]`; `table["key"]` -> `table[key]`."""
    group, sep, member = field.partition("__")
    if sep:
        return f"{group}[{member}]"
    return field.replace('["', "[").replace('"]', "]")


def category(value: object) -> str:
    """A category value for people: `x_bound` -> `x-bound`."""
    return str(value).replace("_", "-") if value is not None else "undetermined"


def base(field: str) -> str:
    return field.split("__")[0].split("[")[0]


def value_text(field: str, value: Any, k: Knowledge) -> str:
    """A value rounded for people in its display unit."""
    return _value_text(field, value, k).replace("**2", "²").replace("**3", "³")


def _value_text(field: str, value: Any, k: Knowledge) -> str:
    if isinstance(value, bool):
        return "yes" if value else "no"
    if isinstance(value, str):
        return value
    canonical, shown = unit_of(field, k)
    return units.format_quantity(float(value), canonical, shown)


def unit_of(field: str, k: Knowledge) -> tuple[str, str | None]:
    """A fact's or parameter's canonical unit and the unit people read it in."""
    name = base(field)
    param = k.parameters.get(name)
    if param is not None and name not in k.vocabulary:
        unit = units.FRACTION if param.unit in ("%", units.FRACTION) else param.unit
        return unit, param.display or ("%" if unit == units.FRACTION else None)
    spec = k.vocabulary.get(name)
    return spec.unit, spec.display


def sum_text(fields: list[str], facts: dict[str, Any], k: Knowledge) -> tuple[str, str]:
    """The non-zero terms of a sum and its total, rounded alike so the terms add up to the
    total as shown (`14.4% + 18.2% = 32.6%`, not `14% + 0% + 18% = 33%`)."""
    terms = [f for f in fields if float(facts[f]) != 0]
    if not terms:
        return "0", value_text(fields[0], 0.0, k) if fields else "0"
    canonical, unit = unit_of(terms[0], k)
    unit = unit or canonical
    bare = unit in (units.FRACTION, "1")
    scale = 100.0 if unit == "%" else 1.0 if bare else units.factor(canonical, unit)
    suffix = "%" if unit == "%" else "" if bare else f" {unit}"
    text, total = units.format_terms([float(facts[f]) * scale for f in terms])
    return " + ".join(t + suffix for t in text), total + suffix


def say(field: str, k: Knowledge) -> str:
    """A fact in words, as its declaration's `say` gives them (the words grading feedback uses
    too), or a pack parameter's; "" where it has none (a fact only the derivation shows)."""
    param = k.parameters.get(base(field))
    return k.vocabulary.say(field) or (param.say if param is not None else "")


def meaning(field: str, k: Knowledge) -> str:
    name = base(field)
    if name in k.vocabulary:
        return k.vocabulary.get(name).meaning
    param = k.parameters.get(name)
    return param.meaning if param is not None else ""


# ---- formulas --------------------------------------------------------------------------------

Leaf = Callable[[lang.Node], str]


def render(node: lang.Node, leaf: Leaf, parent: str = "", right: bool = False) -> str:
    """Infix text of a formula tree with the fewest parentheses; leaves via `leaf`."""
    match node:
        case lang.Bin(op=op, left=a, right=b):
            text = f"{render(a, leaf, op)} {_SYM[op]} {render(b, leaf, op, right=True)}"
            outer = _PREC.get(parent, 0)
            wrap = _PREC[op] < outer or (right and _PREC[op] == outer and parent in "-/")
            return f"({text})" if wrap else text
        case lang.Call(fn=fn, args=args) if fn in ("min", "max"):
            return f"{fn}({', '.join(render(a, leaf) for a in args)})"
    return leaf(node)


def symbolic(node: lang.Node) -> str:
    """`a × b / c`, with the names people read."""
    def leaf(n: lang.Node) -> str:
        match n:
            case lang.Ref():
                return label(n.field)
            case lang.Num(name=str() as name):
                return label(name)
            case lang.Num(value=v):
                return units.format_number(v)
            case lang.Lookup(table=t, key=key) | lang.Pick(group=t, key=key):
                inner = key.value if isinstance(key, lang.Str) else label(key.field)
                return f"{t}[{inner}]"
            case lang.Call(fn="count", args=(a,)):
                return symbolic(a)
            case lang.Call(fn="total", args=args):
                # mypy cannot see it: the type check admits only fact references as total()'s arguments
                return f"total({label(args[0].field).split('[')[0] if args else ''})"  # type: ignore[union-attr]
        return lang.render(n)
    return render(node, leaf)


def substituted(node: lang.Node, facts: dict[str, Any], k: Knowledge) -> str:
    """Every leaf replaced by its value, rounded for people: `1 token × 3 TB/s / 7 GB`."""
    def leaf(n: lang.Node) -> str:
        match n:
            case lang.Ref(field=f) if f in facts:
                return value_text(f, facts[f], k)
            case lang.Num(name=str() as name):
                return value_text(name, n.value, k)
            case lang.Num(value=v):
                return units.format_number(v)
            case lang.Lookup(table=t, entries=entries, key=key):
                member = key.value if isinstance(key, lang.Str) else facts.get(key.field)
                hit = dict(entries).get(str(member))
                return value_text(t, hit, k) if hit is not None else symbolic(n)
            case lang.Pick(group=g, key=key) if key.field in facts:
                f = f"{g}__{member_id(str(facts[key.field]))}"
                return value_text(f, facts[f], k) if f in facts else symbolic(n)
            case lang.Call(fn="count", args=(a,)):
                got = lang.value(a, facts) if isinstance(a, lang.Ref) and a.field in facts else None
                return units.format_number(float(got)) if isinstance(got, int | float) else symbolic(a)
            case lang.Call(fn="total", args=args):
                # mypy cannot see it: the type check admits only fact references as total()'s arguments
                listed = [a.field for a in args if a.field in facts]  # type: ignore[union-attr]
                return "(" + sum_text(listed, facts, k)[0] + ")"
        return symbolic(n)
    return render(node, leaf)


def inputs(node: lang.Node, facts: dict[str, Any]) -> list[str]:
    """The fact fields and parameter names a formula reads on these facts, in reading order."""
    out: dict[str, None] = {}

    def visit(n: lang.Node) -> None:
        match n:
            case lang.Ref(field=f):
                if f in facts:
                    out.setdefault(f, None)
            case lang.Num(name=str() as name):
                out.setdefault(name, None)
            case lang.Lookup(table=t, key=key):
                if isinstance(key, lang.Ref):
                    visit(key)
                    member = facts.get(key.field)
                else:
                    member = key.value
                if member is not None:
                    out.setdefault(f'{t}["{member}"]', None)
            case lang.Pick(group=g, key=key):
                visit(key)
                if key.field in facts:
                    out.setdefault(f"{g}__{member_id(str(facts[key.field]))}", None)
            case lang.Bin(left=a, right=b):
                visit(a)
                visit(b)
            case lang.Call(args=args):
                for a in args:
                    visit(a)
    visit(node)
    return list(out)


def factor(x: float) -> str:
    """A speedup factor as people read it, by the one rounding rule, so it reads as the bound
    fact does in the same report (three significant figures, not a coarser rounding of its own)."""
    return f"{units.format_number(x)}×"


def speedup(c: Any, short: bool = False) -> str | None:
    """A fix's comparable figure: 'at most 7.5× faster (trace; expected 5.2×)', or for a table
    cell (`short`) '≤ 7.5× (trace)'."""
    if c.speedup_bound is None:
        return None
    if short:
        return f"≤ {factor(c.speedup_bound)} ({c.speedup_basis})"
    expected = f"; expected {factor(c.speedup_expected)}" if c.speedup_expected is not None else ""
    return f"at most {factor(c.speedup_bound)} faster ({c.speedup_basis}{expected})"

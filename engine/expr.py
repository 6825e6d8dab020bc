"""The safe expression language of rule packs.

Source text is parsed with `ast.parse(mode="eval")` and only a whitelist of node types is
accepted; the result is a small tree of our own (`Node`s). The same tree is compiled to
durable-rules JSON (conditions) and evaluated in Python (formulas, why/why-not). Nothing is
ever passed to `eval`.

Semantics shared by both back ends: a comparison that involves an absent fact is false, and
`not` is pushed down to the comparisons (negation normal form), so `not (x > 1)` with `x`
absent is false too. `present(x)` and `absent(x)` test presence explicitly.
"""

from __future__ import annotations

import ast
import json
import math
import operator
import re
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any

from regime.core.errors import RegimeError, did_you_mean
from regime.core.limits import MAX_INTERMEDIATE, MAX_MAGNITUDE, MIN_MAGNITUDE, describe, plausible
from regime.core.names import member_id
from regime.facts.vocabulary import FactSpec, Interval, Vocabulary

MAX_SOURCE = 2000
MAX_DEPTH = 32     # nesting of the parsed expression
MAX_NODES = 400    # size of the parsed expression
CMP_OPS = {ast.Lt: "<", ast.LtE: "<=", ast.Gt: ">", ast.GtE: ">=", ast.Eq: "==", ast.NotEq: "!="}
BIN_OPS = {ast.Add: "+", ast.Sub: "-", ast.Mult: "*", ast.Div: "/"}
NEGATED = {"<": ">=", "<=": ">", ">": "<=", ">=": "<", "==": "!=", "!=": "=="}
CONDITION_CALLS = {"present", "absent"}
FORMULA_CALLS = {"min", "max", "total", "count", "pow"}


class ExprError(RegimeError):
    """A rejected expression; the pack loader adds file, line and field."""


class Missing(Exception):
    """Evaluation touched a fact that is not known."""


class Unlisted(Missing):
    """total() found none of its members: the quantity is unknown, which is not an error."""


# ---- the tree -------------------------------------------------------------------------------

@dataclass(frozen=True)
class Num:
    value: float
    unit: str | None = None  # a parameter's unit; None for a literal written in the rule
    name: str | None = None  # the parameter it came from, for explanations


@dataclass(frozen=True)
class Str:
    value: str


@dataclass(frozen=True)
class Ref:
    """A fact, or one member of a group/flags fact."""

    name: str
    member: str | None = None
    kind: str = "number"

    @property
    def field(self) -> str:
        return self.name if self.member is None else f"{self.name}__{self.member}"


@dataclass(frozen=True)
class Lookup:
    """A parameter table indexed by a category fact or a string: dtype_bytes[weight_dtype]."""

    table: str
    entries: tuple[tuple[str, float], ...]
    key: Ref | Str
    unit: str = "1"


@dataclass(frozen=True)
class Pick:
    """A group member chosen by a category fact: peak_flops_by_dtype[compute_dtype]."""

    group: str
    key: Ref


@dataclass(frozen=True)
class Bin:
    op: str
    left: Node
    right: Node


@dataclass(frozen=True)
class Cmp:
    op: str
    left: Node
    right: Node


@dataclass(frozen=True)
class BoolOp:
    op: str  # "and" | "or"
    items: tuple[Node, ...]


@dataclass(frozen=True)
class Not:
    item: Node


@dataclass(frozen=True)
class Presence:
    ref: Ref
    present: bool


@dataclass(frozen=True)
class Call:
    fn: str
    args: tuple[Node, ...]
    members: tuple[str, ...] = ()


Node = Num | Str | Ref | Lookup | Pick | Bin | Cmp | BoolOp | Not | Presence | Call


@dataclass
class Context:
    """What names mean while parsing: declared facts and pack parameters."""

    vocabulary: Vocabulary
    scalars: Mapping[str, float] = field(default_factory=dict)
    tables: Mapping[str, Mapping[str, float]] = field(default_factory=dict)
    param_units: Mapping[str, str] = field(default_factory=dict)
    lists: Mapping[str, tuple[str, ...]] = field(default_factory=dict)
    flag_ids: Mapping[str, frozenset[str]] = field(default_factory=dict)
    findings: frozenset[str] = frozenset()  # finding ids the packs conclude (not facts)

    def known_names(self) -> list[str]:
        return [*self.vocabulary.specs, *self.scalars, *self.tables, *self.lists]


@dataclass(frozen=True)
class Expression:
    source: str
    tree: Node
    mode: str  # "condition" | "formula"

    def facts(self) -> list[str]:
        """Fact fields the expression reads, in first-use order (worked out once, and kept
        with the expression in the knowledge cache)."""
        memo = self.__dict__.get("_facts")
        if memo is None:
            seen: dict[str, None] = {}
            _walk_refs(self.tree, lambda r: seen.setdefault(r.field, None))
            memo = self.__dict__["_facts"] = tuple(seen)
        return list(memo)

    def constants(self) -> list[Num]:
        """The named constants (pack parameters, table entries) the expression uses."""
        return _named(self.tree)

    def required(self) -> list[str]:
        """Fields that must be present for a formula to be evaluated: every fact it reads,
        except total()'s members, whose group only needs to be present (its marker field)."""
        totals = {a.name for c in _calls(self.tree, "total") for a in c.args}  # type: ignore[union-attr]
        fields = [f for f in self.facts() if f.partition("__")[0] not in totals or "__" not in f]
        return fields + [g for g in totals if g not in fields]


def _named(node: Node) -> list[Num]:
    match node:
        case Num(name=str()):
            return [node]
        case Bin(left=a, right=b) | Cmp(left=a, right=b):
            return _named(a) + _named(b)
        case BoolOp(items=items) | Call(args=items):
            return [n for i in items for n in _named(i)]
        case Not(item=item):
            return _named(item)
    return []


def _calls(node: Node, fn: str) -> list[Call]:
    match node:
        case Call(fn=name, args=args):
            found = [node] if name == fn else []
            return found + [c for a in args for c in _calls(a, fn)]
        case Bin(left=a, right=b) | Cmp(left=a, right=b):
            return _calls(a, fn) + _calls(b, fn)
    return []


def picked(node: Node, facts: Mapping[str, Any]) -> list[str]:
    """Group members a formula picks by a category fact, as they resolve on these facts."""
    return [picked_member(p, facts) for p in picks(node) if p.key.field in facts]


def picks(node: Node) -> list[Pick]:
    """The group members a formula picks by a category fact, in evaluation order."""
    match node:
        case Pick():
            return [node]
        case Bin(left=a, right=b):
            return picks(a) + picks(b)
        case Call(args=args):
            return [p for a in args for p in picks(a)]
    return []


def picked_member(pick: Pick, facts: Mapping[str, Any]) -> str:
    return f"{pick.group}__{_member(str(facts[pick.key.field]))}"


def _walk_refs(node: Node, visit: Callable[[Ref], Any]) -> None:
    match node:
        case Ref():
            visit(node)
        case Lookup(key=Ref() as key):
            visit(key)
        case Pick(group=group, key=key):
            visit(Ref(group, kind="group"))
            visit(key)
        case Bin(left=a, right=b) | Cmp(left=a, right=b):
            _walk_refs(a, visit)
            _walk_refs(b, visit)
        case BoolOp(items=items) | Call(args=items):
            for item in items:
                _walk_refs(item, visit)
        case Not(item=item):
            _walk_refs(item, visit)
        case Presence(ref=ref):
            visit(ref)


# ---- parsing --------------------------------------------------------------------------------

def parse(source: object, ctx: Context, mode: str) -> Expression:
    """Parse and check `source`; raise ExprError on anything outside the language."""
    if isinstance(source, bool) or not isinstance(source, str | int | float):
        raise ExprError(f"expected an expression, got {type(source).__name__}")
    text = " ".join(str(source).split())  # YAML folded blocks leave line breaks
    if len(text) > MAX_SOURCE:
        raise ExprError(f"expression longer than {MAX_SOURCE} characters")
    try:
        tree = ast.parse(text, mode="eval")
    except (SyntaxError, RecursionError, MemoryError) as err:
        raise ExprError(f"cannot parse '{text[:80]}': {getattr(err, 'msg', 'too deeply nested')}"
                        f"{_syntax_hint(text)}") from None
    _check_size(tree)
    node = _Builder(ctx, mode).build(tree.body)
    kind = _type_of(node)
    if mode == "condition" and kind != "bool":
        raise ExprError(f"condition '{text}' must be true/false, not a {kind}")
    if mode == "formula" and kind == "bool":
        raise ExprError(f"formula '{text}' must give a value, not true/false")
    _checked_range(node, ctx, bounded=mode == "condition")
    return Expression(text, node, mode)


def _syntax_hint(text: str) -> str:
    """What people most often write that Python syntax does not allow, and what to write."""
    if re.search(r"\d\s*%", text):
        return "; in a rule a share is a plain number (50% is 0.5), or name a parameter declared with a unit"
    if re.search(r"\d\s*[A-Za-z]", text):
        return "; numbers in rules carry no unit: name a parameter declared with its unit instead"
    if re.search(r"(?<![<>=!])=(?!=)", text):
        return "; compare with '==' (a single '=' assigns)"
    if "&&" in text or "||" in text:
        return "; join tests with 'and' / 'or'"
    return ""


def _check_size(tree: ast.AST) -> None:
    """Bound nesting and size before any recursive walk (iteratively, so it cannot overflow)."""
    stack, count = [(tree, 0)], 0
    while stack:
        node, depth = stack.pop()
        count += 1
        if depth > MAX_DEPTH or count > MAX_NODES:
            raise ExprError(f"expression is too large or too deeply nested (at most {MAX_DEPTH} "
                            f"levels and {MAX_NODES} parts); split it into derived facts")
        stack.extend((child, depth + 1) for child in ast.iter_child_nodes(node))


class _Builder:
    def __init__(self, ctx: Context, mode: str) -> None:
        self.ctx = ctx
        self.mode = mode

    def build(self, n: ast.AST) -> Node:
        method = getattr(self, f"_{type(n).__name__}", None)
        if method is None:
            raise ExprError(f"'{_describe(n)}' is not allowed in rule expressions")
        return method(n)

    def _Constant(self, n: ast.Constant) -> Node:
        v = n.value
        if isinstance(v, bool) or v is None:
            raise ExprError(f"constant {v!r} is not allowed; compare facts to numbers or names")
        if isinstance(v, int | float):
            value = float(v) if isinstance(v, float) or abs(v) < 2**1000 else math.inf
            if not plausible(value):
                shown = repr(v) if value != math.inf or isinstance(v, float) else "a huge integer"
                raise ExprError(f"constant {shown[:40]} is out of range ({describe()})")
            return Num(value)
        if isinstance(v, str):
            return Str(v)
        raise ExprError(f"constant {v!r} is not allowed")

    def _Name(self, n: ast.Name) -> Node:
        name = n.id
        if name.startswith("_") or "__" in name:
            raise ExprError(f"name '{name}' is not allowed (names may not start with '_' or contain '__')")
        if name in self.ctx.scalars:
            return Num(float(self.ctx.scalars[name]), self.ctx.param_units.get(name, "1"), name)
        if name in self.ctx.vocabulary:
            spec = self.ctx.vocabulary.get(name)
            if spec.kind in ("group", "flags"):
                raise ExprError(f"'{name}' is a {spec.kind}; name a member, e.g. {name}[\"...\"]")
            return Ref(name, kind=spec.kind)
        if name in self.ctx.tables or name in self.ctx.lists:
            raise ExprError(f"parameter '{name}' is a table or list; index it or pass it to total()")
        raise ExprError(self._unknown(name))

    def _unknown(self, name: str) -> str:
        """Say what a name is when it is not a fact: findings, levers and claims are conclusions
        and case lists, which conditions test differently."""
        if name in self.ctx.findings:
            return (f"'{name}' is a finding, not a fact: conditions test facts; test the facts that "
                    f"the rule concluding {name} tests, or derive a fact and test that")
        for group, what in (("levers", "lever"), ("claims", "claim")):
            if name in self.ctx.flag_ids.get(group, ()):
                flags = next((s.name for s in self.ctx.vocabulary.specs.values() if s.of == group), group)
                return f"'{name}' is a {what}, not a fact: test {flags}[\"{name}\"]"
        return f"unknown name '{name}'{did_you_mean(name, self.ctx.known_names())}"

    def _Subscript(self, n: ast.Subscript) -> Node:
        if not isinstance(n.value, ast.Name):
            raise ExprError("only a fact group or parameter table can be indexed")
        base = n.value.id
        index = self.build(n.slice)
        if base in self.ctx.tables:
            table = self.ctx.tables[base]
            if isinstance(index, Str):
                if index.value not in table:
                    raise ExprError(f"table '{base}' has no entry '{index.value}'"
                                    f"{did_you_mean(index.value, table)}")
                return Num(float(table[index.value]), self.ctx.param_units.get(base, "1"),
                           f'{base}["{index.value}"]')
            if isinstance(index, Ref) and index.kind == "category":
                spec = self.ctx.vocabulary.get(index.name)
                missing = [v for v in spec.values if v not in table]
                if missing:
                    raise ExprError(f"table '{base}' lacks entries for {index.name} values {missing}")
                return Lookup(base, tuple(sorted(table.items())), index, self.ctx.param_units.get(base, "1"))
            raise ExprError(f"table '{base}' must be indexed by a string or a category fact")
        spec = self._group_spec(base)
        if isinstance(index, Ref) and index.kind == "category" and spec.kind == "group":
            if self.mode != "formula":
                raise ExprError(f"'{base}[{index.name}]' picks a member by a fact: formulas only")
            return Pick(base, index)
        if not isinstance(index, Str):
            raise ExprError(f"'{base}[...]' needs a quoted member name or a category fact")
        member = _member(index.value)
        if spec.kind == "flags":
            allowed = self.ctx.flag_ids.get(spec.of or "", frozenset())
            if member not in allowed:
                raise ExprError(f"'{member}' is not a declared {spec.of[:-1] if spec.of else 'id'}"
                                f"{did_you_mean(member, allowed)}")
        return Ref(base, member, kind=spec.kind)

    def _group_spec(self, base: str) -> FactSpec:
        if base not in self.ctx.vocabulary:
            raise ExprError(self._unknown(base))
        spec = self.ctx.vocabulary.get(base)
        if spec.kind not in ("group", "flags"):
            raise ExprError(f"'{base}' is a single {spec.kind} fact and cannot be indexed")
        return spec

    def _UnaryOp(self, n: ast.UnaryOp) -> Node:
        inner = self.build(n.operand)
        if isinstance(n.op, ast.Not):
            return Not(inner)
        if isinstance(n.op, ast.USub):
            return Num(-inner.value, inner.unit) if isinstance(inner, Num) else Bin("*", Num(-1.0), inner)
        if isinstance(n.op, ast.UAdd):
            return inner
        raise ExprError(f"operator '{_describe(n)}' is not allowed")

    def _BinOp(self, n: ast.BinOp) -> Node:
        if isinstance(n.op, ast.Pow) and not isinstance(n.left, ast.Name | ast.Constant | ast.Subscript
                                                             | ast.Call):
            raise ExprError("'**' applies to a name, a number or a call; derive a fact for the base")
        left, right = self.build(n.left), self.build(n.right)
        if isinstance(n.op, ast.Pow):
            if not isinstance(right, Num) or right.value not in (2.0, 3.0):
                raise ExprError("only the constant powers ** 2 and ** 3 are allowed")
            out = left
            for _ in range(int(right.value) - 1):
                out = Bin("*", out, left)
            return out
        op = BIN_OPS.get(type(n.op))
        if op is None:
            raise ExprError(f"operator '{_describe(n.op)}' is not allowed (use + - * / **)")
        return Bin(op, left, right)

    def _Compare(self, n: ast.Compare) -> Node:
        items = [self.build(n.left), *(self.build(c) for c in n.comparators)]
        parts = []
        for op, a, b in zip(n.ops, items, items[1:], strict=False):
            sym = CMP_OPS.get(type(op))
            if sym is None:
                raise ExprError(f"comparison '{_describe(op)}' is not allowed")
            parts.append(Cmp(sym, a, b))
        return parts[0] if len(parts) == 1 else BoolOp("and", tuple(parts))

    def _BoolOp(self, n: ast.BoolOp) -> Node:
        op = "and" if isinstance(n.op, ast.And) else "or"
        return BoolOp(op, tuple(self.build(v) for v in n.values))

    def _Call(self, n: ast.Call) -> Node:
        if not isinstance(n.func, ast.Name):
            raise ExprError(f"calling '{_describe(n.func)}' is not allowed: only present/absent "
                            "(conditions) and min/max/total/count/pow (formulas) may be called")
        fn = n.func.id
        allowed = CONDITION_CALLS if self.mode == "condition" else FORMULA_CALLS
        if fn not in allowed:
            raise ExprError(f"function '{fn}' is not allowed in a {self.mode}; "
                            f"allowed: {', '.join(sorted(allowed))}")
        if n.keywords:
            raise ExprError(f"{fn}() takes no keyword arguments")
        if fn in CONDITION_CALLS:
            if len(n.args) != 1:
                raise ExprError(f"{fn}() takes one fact")
            ref = self._presence_ref(n.args[0])
            return Presence(ref, fn == "present")
        if fn == "total":
            return self._total(n)
        if fn == "count":
            if len(n.args) != 1:
                raise ExprError("count() takes one quantity: count(tokens_per_seq)")
            return Call(fn, (self.build(n.args[0]),))
        if fn == "pow":
            if len(n.args) != 2:
                raise ExprError("pow() takes a base and an exponent: pow(1 - share, count(tokens))")
            return Call(fn, tuple(self.build(a) for a in n.args))
        if len(n.args) < 2:
            raise ExprError(f"{fn}() needs at least two arguments")
        return Call(fn, tuple(self.build(a) for a in n.args))

    def _presence_ref(self, arg: ast.AST) -> Ref:
        if isinstance(arg, ast.Name) and arg.id in self.ctx.vocabulary:
            spec = self.ctx.vocabulary.get(arg.id)
            return Ref(arg.id, kind=spec.kind)
        node = self.build(arg)
        if not isinstance(node, Ref):
            raise ExprError("present()/absent() take a fact name or a group member")
        return node

    def _total(self, n: ast.Call) -> Node:
        if len(n.args) != 2 or not isinstance(n.args[0], ast.Name) or not isinstance(n.args[1], ast.Name):
            raise ExprError("total() takes a group fact and a list parameter: total(kernel_share, names)")
        spec = self._group_spec(n.args[0].id)
        if spec.kind != "group":
            raise ExprError("total() sums a group fact")
        members = self.ctx.lists.get(n.args[1].id)
        if members is None:
            raise ExprError(f"'{n.args[1].id}' is not a list parameter"
                            f"{did_you_mean(n.args[1].id, self.ctx.lists)}")
        refs = tuple(Ref(spec.name, _member(m), kind="group") for m in members)
        return Call("total", refs, tuple(members))


def _member(name: str) -> str:
    try:
        return member_id(name)
    except ValueError as err:
        raise ExprError(str(err)) from None


def _describe(n: ast.AST) -> str:
    try:
        return ast.unparse(n)
    except Exception:
        return type(n).__name__


# ---- static checks --------------------------------------------------------------------------

def _type_of(node: Node) -> str:
    """'number', 'category', 'string', 'bool' or 'flag'; raises on mixed types."""
    match node:
        case Num() | Lookup() | Pick():
            return "number"
        case Str():
            return "string"
        case Ref(kind="category"):
            return "category"
        case Ref(kind="flags"):
            return "bool"
        case Ref():
            return "number"
        case Bin(left=a, right=b):
            for side in (a, b):
                if _type_of(side) != "number":
                    raise ExprError(f"arithmetic needs numbers; got a {_type_of(side)}")
            return "number"
        case Call(args=args):
            for a in args:
                if _type_of(a) != "number":
                    raise ExprError("min/max/total take numbers")
            return "number"
        case Cmp():
            _check_compare(node)
            return "bool"
        case BoolOp(items=items):
            for item in items:
                if _type_of(item) != "bool":
                    raise ExprError("'and'/'or' join true/false tests, not values")
            return "bool"
        case Not(item=item):
            if _type_of(item) != "bool":
                raise ExprError("'not' applies to a true/false test")
            return "bool"
        case Presence():
            return "bool"
    raise ExprError(f"unsupported expression {node!r}")


def _check_compare(node: Cmp) -> None:
    kinds = {_type_of(node.left), _type_of(node.right)}
    if kinds == {"number"}:
        return
    if kinds <= {"category", "string"} and "category" in kinds:
        if node.op not in ("==", "!="):
            raise ExprError("categories compare only with == and !=")
        return
    raise ExprError(f"cannot compare a {_type_of(node.left)} with a {_type_of(node.right)}")


def check_category_literals(expr: Expression, vocabulary: Vocabulary) -> None:
    """A string compared to a category must be one of its declared values."""
    def visit(node: Node) -> None:
        match node:
            case Cmp(left=Ref(kind="category") as r, right=Str(value=v)) | \
                 Cmp(left=Str(value=v), right=Ref(kind="category") as r):
                values = vocabulary.get(r.name).values
                if v not in values:
                    raise ExprError(f"'{v}' is not a value of {r.name}{did_you_mean(v, values)}; "
                                    f"declared: {', '.join(values)}")
            case BoolOp(items=items):
                for item in items:
                    visit(item)
            case Not(item=item):
                visit(item)
    visit(expr.tree)


def interval_of(node: Node, ctx: Context) -> Interval:
    """Conservative range of a numeric expression, from declared fact ranges and the magnitudes
    that working memory can hold (see regime.core.limits)."""
    match node:
        case Num(value=v):
            return Interval.point(v)
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
            spec = held(ctx.vocabulary.get(args[0].name).interval) if args else Interval.point(0.0)  # type: ignore[union-attr]
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


def _checked_range(node: Node, ctx: Context, bounded: bool) -> Interval | None:
    """Range of a numeric node, refusing (bottom-up) any division whose divisor could be zero
    and, when `bounded`, any intermediate that could leave MAX_INTERMEDIATE.

    Conditions are bounded: durable evaluates them with IEEE arithmetic, where an overflow is
    infinity and a divisor that underflowed to zero gives infinity, while Python treats a zero
    divisor as an absent value. With both refused, the two agree on every condition. Formulas
    run in Python only, and their results are checked when derived."""
    match node:
        case Bin(op=op, left=a, right=b):
            left, right = _checked_range(a, ctx, bounded), _checked_range(b, ctx, bounded)
            if left is None or right is None:
                return None
            if op == "/" and right.contains(0.0):
                raise ExprError(f"division by '{_show(b)}' could be by zero: its range {right} "
                                "(from the declared ranges of its facts) includes 0")
            out = _interval_bin(op, left, right)
            if bounded and max(abs(out.lo), abs(out.hi)) > MAX_INTERMEDIATE:
                raise ExprError(f"'{_show(node)}' could reach {max(abs(out.lo), abs(out.hi)):.3g}, "
                                f"beyond {MAX_INTERMEDIATE:g}: derive smaller facts first")
            return out
        case Cmp(left=a, right=b):
            _checked_range(a, ctx, bounded)
            _checked_range(b, ctx, bounded)
        case BoolOp(items=items):
            for item in items:
                _checked_range(item, ctx, bounded)
        case Not(item=item):
            _checked_range(item, ctx, bounded)
        case Call(args=args):
            if all(_checked_range(a, ctx, bounded) is not None for a in args):
                return interval_of(node, ctx)
        case Num() | Ref(kind="number") | Ref(kind="group") | Lookup() | Pick():
            return interval_of(node, ctx)
    return None


def _show(node: Node) -> str:
    match node:
        case Num(name=str() as name):
            return name
        case Num(value=v):
            return f"{v:g}"
        case Str(value=v):
            return json.dumps(v)
        case Ref():
            return node.name if node.member is None else f'{node.name}["{node.member}"]'
        case Lookup(table=t, key=k):
            return f"{t}[{_show(k)}]"
        case Pick(group=g, key=k):
            return f"{g}[{_show(k)}]"
        case Bin(op=op, left=a, right=b):
            return f"({_show(a)} {op} {_show(b)})"
        case Call(fn=fn, args=args):
            return f"{fn}({', '.join(_show(a) for a in args)})"
        case Cmp(op=op, left=a, right=b):
            return f"{_show(a)} {op} {_show(b)}"
        case BoolOp(op=op, items=items):
            return f" {op} ".join(_show(i) for i in items)
        case Not(item=item):
            return f"not ({_show(item)})"
        case Presence(ref=ref, present=present):
            return f"{'present' if present else 'absent'}({_show(ref)})"
    return type(node).__name__


# ---- Python evaluation ----------------------------------------------------------------------
#
# A tree compiles once to nested closures (no eval, no source text): the evaluators call them
# per firing, `value`/`truth` wrap them for one-off use (why / why not). One semantics for all.

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
            return _total(tuple(a.field for a in args))  # type: ignore[union-attr]
        case Call(fn="pow", args=(base, exponent)):
            b, e = compile_value(base), compile_value(exponent)
            return lambda facts: _power(float(b(facts)), float(e(facts)))  # type: ignore[arg-type]
        case Call(fn=fn, args=args):
            parts, pick = tuple(compile_value(a) for a in args), (min if fn == "min" else max)
            return lambda facts: pick([p(facts) for p in parts])
        case Bin(op=op, left=a, right=b):
            x, y = compile_value(a), compile_value(b)
            return lambda facts: _arith(op, x(facts), y(facts))
    raise ExprError(f"not a value: {node!r}")


def _fetch(key: str) -> Evaluator:
    def fetch(facts: Facts) -> Any:
        if key in facts:
            return facts[key]
        raise Missing(key)
    return fetch


def _pick(group: str, index: Evaluator) -> Evaluator:
    def pick(facts: Facts) -> Any:
        member = f"{group}__{_member(str(index(facts)))}"
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
    def compare(facts: Facts) -> bool:
        return key in facts and test(facts[key], constant)  # absent: false, as for any comparison
    return compare


def _comparison(op: str, x: Evaluator, y: Evaluator) -> Callable[[Facts], bool]:
    def compare(facts: Facts) -> bool:
        try:
            left, right = x(facts), y(facts)
        except Missing:
            return False
        return _compare(op, left, right)
    return compare


def _power(base: float, exponent: float) -> float:
    """A real power of a non-negative base; anything else is unknown rather than complex."""
    if base < 0 or (base == 0 and exponent <= 0) or abs(exponent) > 1e9:
        raise Missing("pow() outside its domain")
    try:
        return math.pow(base, exponent)
    except OverflowError:
        raise Missing("pow() overflows") from None


def _arith(op: str, x: float, y: float) -> float:
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


def _compare(op: str, x: Any, y: Any) -> bool:
    return _comparator(op)(x, y)


# ---- durable-rules compilation --------------------------------------------------------------

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
                return ALWAYS if _compare(op, _operand(a), _operand(b)) else NEVER
            test = _durable_cmp(op, a, b)
            return {"$and": [*guards, test]}
    raise ExprError(f"cannot compile {node!r}")


def _presence(ref: Ref, present: bool) -> dict:
    return {"$ex" if present else "$nex": {ref.field: 1}}


def _fields(node: Node) -> list[str]:
    out: list[str] = []
    _walk_refs(node, lambda r: out.append(r.field))
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
                folded = _arith(op, left, right)  # durable cannot do arithmetic on two constants
                if not plausible(folded):
                    raise ExprError(f"constant arithmetic '{_show(node)}' is out of range ({describe()})")
                return folded
            return {_DURABLE_ARITH[op]: {"$l": left, "$r": right}}
    raise ExprError(f"'{_show(node)}' cannot be used in a condition (tables and total() are "
                    "for formulas; derive a fact first)")


def render(node: Node) -> str:
    """Readable text of a tree (used in traces)."""
    return _show(node)

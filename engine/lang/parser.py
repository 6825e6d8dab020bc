"""Parsing rule text into the language's tree: `ast.parse(mode="eval")` and a whitelist.

Only the node types the language names are accepted, sizes are bounded before any recursive
walk, and the result is type-checked and range-checked before it is returned. Nothing is ever
passed to `eval`.
"""

from __future__ import annotations

import ast
import math
import re

from regime.core.errors import did_you_mean
from regime.core.limits import describe, plausible
from regime.engine.lang.intervals import checked_range
from regime.engine.lang.nodes import (
    JUDGED,
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
    Presence,
    Ref,
    Str,
    member_key,
)
from regime.engine.lang.typecheck import type_of
from regime.facts.vocabulary import FactSpec

MAX_SOURCE = 2000
MAX_DEPTH = 32     # nesting of the parsed expression
MAX_NODES = 400    # size of the parsed expression
CMP_OPS = {ast.Lt: "<", ast.LtE: "<=", ast.Gt: ">", ast.GtE: ">=", ast.Eq: "==", ast.NotEq: "!="}
BIN_OPS = {ast.Add: "+", ast.Sub: "-", ast.Mult: "*", ast.Div: "/"}
CONDITION_CALLS = {"present", "absent", "judged"}
FORMULA_CALLS = {"min", "max", "total", "count", "pow"}


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
    node = Builder(ctx, mode).build(tree.body)
    kind = type_of(node)
    if mode == "condition" and kind != "bool":
        raise ExprError(f"condition '{text}' must be true/false, not a {kind}")
    if mode == "formula" and kind == "bool":
        raise ExprError(f"formula '{text}' must give a value, not true/false")
    checked_range(node, ctx, bounded=mode == "condition")
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


class Builder:
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
        member = member_key(index.value)
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
        if fn == "judged":
            return self._judged(n)
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

    def _judged(self, n: ast.Call) -> Node:
        """judged("lever"): a fix or a rejection on the lever has fired (the engine keeps it)."""
        levers = self.ctx.flag_ids.get("levers", frozenset())
        arg = n.args[0] if len(n.args) == 1 else None
        if not isinstance(arg, ast.Constant) or not isinstance(arg.value, str):
            raise ExprError('judged() takes one quoted lever id: judged("<lever>")')
        member = member_key(arg.value)
        if member not in levers:
            raise ExprError(f"'{arg.value}' is not a declared lever{did_you_mean(arg.value, levers)}")
        return Ref(JUDGED, member, kind="flags")

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
        refs = tuple(Ref(spec.name, member_key(m), kind="group") for m in members)
        return Call("total", refs, tuple(members))




def _describe(n: ast.AST) -> str:
    try:
        return ast.unparse(n)
    except Exception:
        return type(n).__name__

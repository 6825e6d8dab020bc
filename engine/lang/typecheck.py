"""Static type checks: numbers, categories, strings and true/false tests do not mix."""

from __future__ import annotations

from regime.core.errors import did_you_mean
from regime.engine.lang.nodes import (
    Bin,
    BoolOp,
    Call,
    Cmp,
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
)
from regime.facts.vocabulary import Vocabulary


def type_of(node: Node) -> str:
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
                if type_of(side) != "number":
                    raise ExprError(f"arithmetic needs numbers; got a {type_of(side)}")
            return "number"
        case Call(args=args):
            for a in args:
                if type_of(a) != "number":
                    raise ExprError("min/max/total take numbers")
            return "number"
        case Cmp():
            check_compare(node)
            return "bool"
        case BoolOp(items=items):
            for item in items:
                if type_of(item) != "bool":
                    raise ExprError("'and'/'or' join true/false tests, not values")
            return "bool"
        case Not(item=item):
            if type_of(item) != "bool":
                raise ExprError("'not' applies to a true/false test")
            return "bool"
        case Presence():
            return "bool"
    raise ExprError(f"unsupported expression {node!r}")


def check_compare(node: Cmp) -> None:
    kinds = {type_of(node.left), type_of(node.right)}
    if kinds == {"number"}:
        return
    if kinds <= {"category", "string"} and "category" in kinds:
        if node.op not in ("==", "!="):
            raise ExprError("categories compare only with == and !=")
        return
    raise ExprError(f"cannot compare a {type_of(node.left)} with a {type_of(node.right)}")


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

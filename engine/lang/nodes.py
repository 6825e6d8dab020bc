"""The expression language's tree: node types, the parse context, and walks over a tree.

Every other part of the language (parser, type checks, intervals, evaluator, durable compiler)
works on these frozen dataclasses, never on Python's `ast`.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Mapping
from dataclasses import field
from typing import Any

from regime.core.errors import RegimeError
from regime.core.names import member_id
from regime.core.record import Fields, Record, mutable_record, record
from regime.facts.vocabulary import Vocabulary

# The working-memory group the engine fills as verdicts fire: `_judged__<lever>` once a fix or a
# rejection on the lever has concluded. Conditions read it as judged("lever"); the leading '_'
# keeps it out of the case's facts, the trace and the output (it is bookkeeping, not a fact).
JUDGED = "_judged"
NEGATED = {"<": ">=", "<=": ">", ">": "<=", ">=": "<", "==": "!=", "!=": "=="}


class ExprError(RegimeError):
    """A rejected expression; the pack loader adds file, line and field."""


class Missing(Exception):
    """Evaluation touched a fact that is not known."""


class Unlisted(Missing):
    """total() found none of its members: the quantity is unknown, which is not an error."""


# ---- the tree -------------------------------------------------------------------------------

@record
class Num(Record):
    """A number: a literal, or a pack parameter's value with its unit."""

    value: float
    unit: str | None = None  # a parameter's unit; None for a literal written in the rule
    name: str | None = None  # the parameter it came from, for explanations


@record
class Str(Record):
    """A quoted string: a category value compared against."""

    value: str


@record
class Ref(Record):
    """A fact, or one member of a group/flags fact."""

    name: str
    member: str | None = None
    kind: str = "number"

    @property
    def field(self) -> str:
        return self.name if self.member is None else f"{self.name}__{self.member}"


@record
class Lookup(Record):
    """A parameter table indexed by a category fact or a string: dtype_bytes[weight_dtype]."""

    table: str
    entries: tuple[tuple[str, float], ...]
    key: Ref | Str
    unit: str = "1"


@record
class Pick(Record):
    """A group member chosen by a category fact: peak_flops_by_dtype[compute_dtype]."""

    group: str
    key: Ref


@record
class Bin(Record):
    """Arithmetic on two operands: + - * / and **."""

    op: str
    left: Node
    right: Node


@record
class Cmp(Record):
    """A comparison of two operands; chained comparisons are nested in BoolOp."""

    op: str
    left: Node
    right: Node


@record
class BoolOp(Record):
    """`and` / `or` over two or more conditions."""

    op: str  # "and" | "or"
    items: tuple[Node, ...]


@record
class Not(Record):
    """`not` of a condition."""

    item: Node


@record
class Presence(Record):
    """present(fact) / absent(fact): whether the fact is known, not its value."""

    ref: Ref
    present: bool


@record
class Call(Record):
    """A whitelisted function (min, max, ...) over its operands."""

    fn: str
    args: tuple[Node, ...]
    members: tuple[str, ...] = ()


Node = Num | Str | Ref | Lookup | Pick | Bin | Cmp | BoolOp | Not | Presence | Call


@mutable_record
class Context(Fields):
    """What names mean while parsing: declared facts and pack parameters."""

    vocabulary: Vocabulary
    scalars: Mapping[str, float] = field(default_factory=dict)
    tables: Mapping[str, Mapping[str, float]] = field(default_factory=dict)
    param_units: Mapping[str, str] = field(default_factory=dict)
    lists: Mapping[str, tuple[str, ...]] = field(default_factory=dict)
    flag_ids: Mapping[str, frozenset[str]] = field(default_factory=dict)
    findings: frozenset[str] = frozenset()  # finding ids the packs conclude (not facts)
    # facts' ranges as a derive rule's `when` guard narrows them (intervals.narrowed_by), so a
    # formula may divide by (1 - share) where the rule only fires on share < 1
    narrowed: Mapping[str, Any] = field(default_factory=dict)

    def known_names(self) -> list[str]:
        return [*self.vocabulary.specs, *self.scalars, *self.tables, *self.lists]


@record
class Expression(Record):
    """A parsed rule expression with the text it came from, for traces and errors."""

    source: str
    tree: Node
    mode: str  # "condition" | "formula"

    def facts(self) -> list[str]:
        """Fact fields the expression reads, in first-use order (worked out once, and kept
        with the expression in the knowledge cache)."""
        memo = self.__dict__.get("_facts")
        if memo is None:
            seen: dict[str, None] = {}
            walk_refs(self.tree, lambda r: seen.setdefault(r.field, None))
            memo = self.__dict__["_facts"] = tuple(seen)
        return list(memo)

    def constants(self) -> list[Num]:
        """The named constants (pack parameters, table entries) the expression uses."""
        return _named(self.tree)

    def required(self) -> list[str]:
        """Fields that must be present for a formula to be evaluated: every fact it reads,
        except total()'s members, whose group only needs to be present (its marker field)."""
        totals = {group_of(c) for c in _calls(self.tree, "total")}
        fields = [f for f in self.facts() if f.partition("__")[0] not in totals or "__" not in f]
        return fields + [g for g in totals if g not in fields]


def group_of(total: Call) -> str:
    """The group a total() sums: the parser gives it one Ref per listed member."""
    first = total.args[0]
    assert isinstance(first, Ref), "total() takes group members"
    return first.name


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
    return f"{pick.group}__{member_key(str(facts[pick.key.field]))}"


def walk_refs(node: Node, visit: Callable[[Ref], Any]) -> None:
    match node:
        case Ref():
            visit(node)
        case Lookup(key=Ref() as key):
            visit(key)
        case Pick(group=group, key=key):
            visit(Ref(group, kind="group"))
            visit(key)
        case Bin(left=a, right=b) | Cmp(left=a, right=b):
            walk_refs(a, visit)
            walk_refs(b, visit)
        case BoolOp(items=items) | Call(args=items):
            for item in items:
                walk_refs(item, visit)
        case Not(item=item):
            walk_refs(item, visit)
        case Presence(ref=ref):
            visit(ref)



def compared(node: Node) -> list[str]:
    """Number facts a condition compares (`flop_util >= util_high`), in first-use order; not
    those it only tests for presence, nor category facts compared with a value."""
    seen: dict[str, None] = {}

    def visit(n: Node, inside: bool) -> None:
        match n:
            case Ref(kind="number" | "group") if inside:
                seen.setdefault(n.field, None)
            case Cmp(left=a, right=b) | Bin(left=a, right=b):
                inside = inside or isinstance(n, Cmp)
                visit(a, inside)
                visit(b, inside)
            case BoolOp(items=items) | Call(args=items):
                for item in items:
                    visit(item, inside)
            case Not(item=item):
                visit(item, inside)

    visit(node, False)
    return list(seen)


def member_key(name: str) -> str:
    """A group member's field key from its written name; a bad name is an ExprError."""
    try:
        return member_id(name)
    except ValueError as err:
        raise ExprError(str(err)) from None



def render(node: Node) -> str:
    """Readable text of a tree (used in traces and error messages)."""
    match node:
        case Num(name=str() as name):
            return name
        case Num(value=v):
            return f"{v:g}"
        case Str(value=v):
            return json.dumps(v)
        case Ref(name=name, member=str() as member) if name == JUDGED:
            return f'judged("{member}")'
        case Ref():
            return node.name if node.member is None else f'{node.name}["{node.member}"]'
        case Lookup(table=t, key=k):
            return f"{t}[{render(k)}]"
        case Pick(group=g, key=k):
            return f"{g}[{render(k)}]"
        case Bin(op=op, left=a, right=b):
            return f"({render(a)} {op} {render(b)})"
        case Call(fn=fn, args=args):
            return f"{fn}({', '.join(render(a) for a in args)})"
        case Cmp(op=op, left=a, right=b):
            return f"{render(a)} {op} {render(b)}"
        case BoolOp(op=op, items=items):
            return f" {op} ".join(render(i) for i in items)
        case Not(item=item):
            return f"not ({render(item)})"
        case Presence(ref=ref, present=present):
            return f"{'present' if present else 'absent'}({render(ref)})"
    return type(node).__name__


def reads_verdicts(node: Node) -> bool:
    """Whether a condition tests judged(...): whether a verdict on some lever has fired."""
    found: list[str] = []
    walk_refs(node, lambda r: found.append(r.name) if r.name == JUDGED else None)
    return bool(found)

"""What a condition guarantees and when two conditions can both hold, decided statically.

The loader and the lint ask three questions of parsed conditions: which facts must be present
when a condition is true (a template may only name those), can a condition ever be true, and
can two conditions be true together. Conditions are put in disjunctive normal form (bounded)
and each conjunction is checked for contradictions: a fact both present and absent, bounds on
one quantity that leave no room, a category equal to two values. "Not provably disjoint" is
the safe answer whenever the analysis gives up.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from regime.engine import lang
from regime.engine.lang import NEGATED, Bin, BoolOp, Cmp, Node, Not, Num, Presence, Ref, Str

MAX_TERMS = 64
_FLIP = {"<": ">", "<=": ">=", ">": "<", ">=": "<=", "==": "==", "!=": "!="}


@dataclass(frozen=True)
class Atom:
    """One leaf of a condition in negation normal form."""

    kind: str           # "present" | "bound" | "label"
    key: str            # a field, or 'left ? right' for a comparison of two expressions
    op: str = ""
    value: float | str | bool = True


def guaranteed(node: Node | None, negate: bool = False) -> set[str]:
    """Fields present whenever the condition is true (a comparison with an absent fact is false)."""
    match node:
        case None:
            return set()
        case BoolOp(op=op, items=items):
            sets = [guaranteed(i, negate) for i in items]
            return set.union(*sets) if (op == "and") != negate else set.intersection(*sets)
        case Not(item=item):
            return guaranteed(item, not negate)
        case Presence(ref=ref, present=present):
            return {ref.field} if present != negate else set()
        case Ref(kind="flags"):
            return {node.field} if not negate else set()
        case Cmp():
            out: set[str] = set()
            lang.walk_refs(node, lambda r: out.add(r.field))
            return out
    return set()


def terms(node: Node | None, negate: bool = False) -> list[frozenset[Atom]] | None:
    """Disjunctive normal form as sets of atoms; None when it would exceed MAX_TERMS."""
    match node:
        case None:
            return [frozenset()]
        case BoolOp(op=op, items=items):
            parts = [terms(i, negate) for i in items]
            if any(p is None for p in parts):
                return None
            if (op == "and") != negate:
                out: list[frozenset[Atom]] = [frozenset()]
                for p in parts:
                    # mypy cannot see it: a None part returned early above
                    out = [a | b for a in out for b in p]  # type: ignore[union-attr]
                    if len(out) > MAX_TERMS:
                        return None
                return out
            # mypy cannot see it: a None part returned early above
            flat = [t for p in parts for t in p]  # type: ignore[union-attr]
            return flat if len(flat) <= MAX_TERMS else None
        case Not(item=item):
            return terms(item, not negate)
        case Presence(ref=ref, present=present):
            return [frozenset({Atom("present", ref.field, value=present != negate)})]
        case Ref(kind="flags"):
            return [frozenset({Atom("present", node.field, value=not negate)})]
        case Cmp(op=op, left=a, right=b):
            return [_compare(NEGATED[op] if negate else op, a, b)]
    return [frozenset()]


def _compare(op: str, a: Node, b: Node) -> frozenset[Atom]:
    fields: set[str] = set()
    lang.walk_refs(Cmp(op, a, b), lambda r: fields.add(r.field))
    atoms = {Atom("present", f) for f in fields}
    if _const(a) is not None and _const(b) is None:
        a, b, op = b, a, _FLIP[op]
    const, text = _const(b), lang.render(a)
    if isinstance(b, Str):
        atoms.add(Atom("label", text, op, b.value))
    elif const is not None:
        atoms.add(Atom("bound", text, op, const))
    else:
        left, right = text, lang.render(b)
        if left > right:
            left, right, op = right, left, _FLIP[op]
        atoms.add(Atom("bound", f"{left} ? {right}", op, 0.0))  # left - right op 0
    return frozenset(atoms)


def _const(node: Node) -> float | None:
    match node:
        case Num(value=v):
            return v
        case Bin(op=op, left=x, right=y):
            a, b = _const(x), _const(y)
            if a is None or b is None or (op == "/" and b == 0):
                return None
            return {"+": a + b, "-": a - b, "*": a * b, "/": a / b if b else math.nan}[op]
    return None


def unsatisfiable(term: frozenset[Atom]) -> bool:
    """True when the conjunction contradicts itself."""
    presence: dict[str, set] = {}
    bounds: dict[str, list[tuple[str, float]]] = {}
    labels: dict[str, list[tuple[str, str]]] = {}
    for a in term:
        if a.kind == "present":
            presence.setdefault(a.key, set()).add(a.value)
        elif a.kind == "bound":
            bounds.setdefault(a.key, []).append((a.op, float(a.value)))
        else:
            labels.setdefault(a.key, []).append((a.op, str(a.value)))
    if any(len(v) > 1 for v in presence.values()):
        return True
    return any(_no_number(cs) for cs in bounds.values()) or any(_no_label(cs) for cs in labels.values())


def _no_number(constraints: list[tuple[str, float]]) -> bool:
    lo, hi, lo_open, hi_open = -math.inf, math.inf, False, False
    for op, v in constraints:
        if op in (">", ">=", "==") and (v > lo or (v == lo and op == ">")):
            lo, lo_open = v, op == ">"
        if op in ("<", "<=", "==") and (v < hi or (v == hi and op == "<")):
            hi, hi_open = v, op == "<"
    if lo > hi or (lo == hi and (lo_open or hi_open)):
        return True
    return lo == hi and any(op == "!=" and v == lo for op, v in constraints)


def _no_label(constraints: list[tuple[str, str]]) -> bool:
    equal = {v for op, v in constraints if op == "=="}
    unequal = {v for op, v in constraints if op == "!="}
    return len(equal) > 1 or bool(equal & unequal)


def never_true(node: Node | None) -> bool:
    dnf = terms(node)
    return dnf is not None and all(unsatisfiable(t) for t in dnf)


def disjoint(a: Node | None, b: Node | None, extra: frozenset[Atom] = frozenset()) -> bool:
    """True only when the two conditions provably cannot both hold."""
    ta, tb = terms(a), terms(b)
    if ta is None or tb is None:
        return False
    return all(unsatisfiable(x | y | extra) for x in ta for y in tb)


def presence_atoms(fields: list[str]) -> frozenset[Atom]:
    """Facts a rule needs before it can conclude, as atoms (they must be present)."""
    return frozenset(Atom("present", f) for f in fields)

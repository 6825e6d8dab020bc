"""The pack lint behind `regime check`: mistakes that load fine but give silently wrong answers.

Each finding has a stable code (like ruff's), a severity, and the file, line and rule it is
about. Three codes also guard loading (RG002, RG006, RG007): the loader refuses those packs,
and `regime check` reports its refusal under the same code. (Over 400 lines because every code
is one short check here, with the registry, as ruff keeps its rule table in one place.)
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass
from pathlib import Path

import pint

from regime.core import units
from regime.core.yamlsrc import line_of, load_yaml
from regime.engine import lang
from regime.engine.knowledge.model import TEST_SUFFIX, Knowledge, Rule
from regime.engine.lang import Bin, BoolOp, Call, Cmp, Lookup, Node, Not, Num, Ref, dimensions, overlap
from regime.facts import hf_config
from regime.facts.catalogue import CATALOGUE_DIR
from regime.facts.kernels import KERNELS_FILE, read_kernels


@dataclass(frozen=True)
class Code:
    code: str
    name: str
    severity: str  # "error" | "warning"
    summary: str


CODES = {c.code: c for c in (
    Code("RG001", "unit-scale", "error", "quantities compared or added by raw number across units"),
    Code("RG002", "out-of-range", "error", "parameter value or override outside its range (loader)"),
    Code("RG003", "derivation-cycle", "error", "facts derived only from each other"),
    Code("RG004", "never-provided", "warning", "a rule needs a fact that nothing provides"),
    Code("RG005", "contradiction", "warning", "a condition that can never be true"),
    Code("RG006", "template-unguaranteed", "error", "text names a fact the condition does not guarantee"
         " (loader)"),
    Code("RG007", "duplicate-derivation", "error", "two rules derive one fact, no precedence (loader)"),
    Code("RG008", "shadowed-derivation", "warning", "a derivation that always loses to another"),
    Code("RG009", "unused-parameter", "warning", "a parameter no rule or text uses"),
    Code("RG010", "conflicting-conclusions", "error",
         "one fact set to different values under overlapping conditions without precedence"),
    Code("RG011", "fix-and-reject", "warning",
         "a lever recommended and rejected under overlapping conditions"),
    Code("RG012", "unjudged-lever", "warning", "a lever no rule recommends or rejects"),
    Code("RG013", "untested-rule", "warning",
         "a rule beside pack tests that no test expects to fire (fired:) and one not to (not_fired:)"),
    Code("RG014", "unclassified-kernel", "error",
         "a kernel category (facts/kernels.yaml) neither FLOP-carrying nor memory-bound in the packs, "
         "nor declared unclassified"),
)}


@dataclass(frozen=True)
class Finding:
    code: str
    file: str
    line: int | None
    rule: str | None
    message: str

    @property
    def severity(self) -> str:
        return CODES[self.code].severity

    def __str__(self) -> str:
        about = f" [{self.rule}]" if self.rule else ""
        return f"{self.file}:{self.line or 0}: {self.code} {self.severity}{about}: {self.message}"


def selected(code: str, select: Iterable[str], ignore: Iterable[str]) -> bool:
    """ruff-style prefixes: '--select RG00' picks RG001..RG009, '--ignore RG012' drops one."""
    select, ignore = [s.upper() for s in select], [s.upper() for s in ignore]
    return (not select or any(code.startswith(s) for s in select)) and \
        not any(code.startswith(s) for s in ignore)


def lint(k: Knowledge, inputs: Iterable[Path] = ()) -> list[Finding]:
    """Every finding on loaded knowledge; `inputs` are case and pack-test files that give facts."""
    inputs = list(inputs)
    given = _given_facts(inputs)
    checks: list[Callable[[], Iterator[Finding]]] = [
        lambda: _unit_scale(k), lambda: _cycles(k), lambda: _never_provided(k, given),
        lambda: _contradictions(k), lambda: _shadowed(k), lambda: _unused_parameters(k),
        lambda: _conflicts(k), lambda: _fix_and_reject(k), lambda: _unjudged(k),
        lambda: _untested(k, inputs), lambda: _kernel_classes(k)]
    found = [f for check in checks for f in check()]
    return sorted(found, key=lambda f: (CODES[f.code].severity != "error", f.file, f.line or 0, f.code))


# ---- RG001: units compared by raw number -------------------------------------------------------

def _unit_scale(k: Knowledge) -> Iterator[Finding]:
    ctx = _context(k)
    for rule in k.rules:
        for e in (rule.when, rule.formula):
            if e is not None:
                for node, why in _scale_problems(e.tree, k, ctx):
                    yield Finding("RG001", rule.file, rule.line, rule.id, f"'{_text(node)}': {why}")
        if rule.kind == "derive" and rule.formula is not None:
            # mypy cannot see it: a derive rule always names its target (the loader requires it)
            spec = k.vocabulary.get(rule.target)  # type: ignore[arg-type]
            got = _quantity(rule.formula.tree, ctx)
            if spec.kind == "number" and got is not None:
                scale = _scale(got, dimensions.unit_quantity(spec.unit))
                if scale not in (None, 1.0):
                    yield Finding("RG001", rule.file, rule.line, rule.id,
                                  f"the formula gives {got.units:~} but {rule.target} is held in "
                                  f"{spec.unit}: the number is off by a factor {1 / scale:g}")


def _scale_problems(node: Node, k: Knowledge, ctx: lang.Context) -> Iterator[tuple[Node, str]]:
    match node:
        case Cmp(left=a, right=b) | Bin(op="+" | "-", left=a, right=b):
            qa, qb = _quantity(a, ctx), _quantity(b, ctx)
            scale = _scale(qa, qb) if qa is not None and qb is not None else None
            if scale not in (None, 1.0):
                # mypy cannot see it: scale is set only when both quantities are
                ua, ub = _unit_text(qa), _unit_text(qb)  # type: ignore[arg-type]
                yield node, (f"{_text(a)} ({ua}) and {_text(b)} ({ub}) are compared by raw number, but "
                             f"1 {ua} = {scale:g} {ub}; declare the parameter in the fact's unit or "
                             "write the value as the fact holds it")
            elif isinstance(node, Cmp):
                yield from _raw_percent(node, k)
            yield from _scale_problems(a, k, ctx)
            yield from _scale_problems(b, k, ctx)
        case BoolOp(items=items) | Call(args=items):
            for item in items:
                yield from _scale_problems(item, k, ctx)
        case Not(item=item):
            yield from _scale_problems(item, k, ctx)
        case Bin(left=a, right=b):
            yield from _scale_problems(a, k, ctx)
            yield from _scale_problems(b, k, ctx)


def _raw_percent(node: Cmp, k: Knowledge) -> Iterator[tuple[Node, str]]:
    """A share (0..1) compared with a plain number above 1: a percentage written as a number."""
    for fact, other in ((node.left, node.right), (node.right, node.left)):
        if isinstance(fact, Ref) and isinstance(other, Num) and other.value > 1:
            spec = k.vocabulary.get(fact.name)
            if spec.unit in (units.FRACTION, "%") and spec.interval.hi <= 1:
                shown = f"{other.name} = {other.value:g}" if other.name else f"{other.value:g}"
                yield node, (f"{fact.name} is a share between 0 and 1, so {shown} reads as "
                                       f"{other.value * 100:g}%; write {other.value / 100:g} (or "
                                       f"{other.value:g}% in a case or override)")


def _text(node: Node) -> str:
    match node:
        case Cmp(op=op, left=a, right=b):
            return f"{_text(a)} {op} {_text(b)}"
        case Bin(op=op, left=a, right=b):
            return f"{_text(a)} {op} {_text(b)}"
    return lang.render(node)


def _unit_text(q: pint.Quantity) -> str:
    return "fraction" if q.dimensionless and str(q.units) == "dimensionless" else f"{q.units:~}"


def _quantity(node: Node, ctx: lang.Context) -> pint.Quantity | None:
    try:
        q = dimensions.dims_of(node, ctx)
    except Exception:
        return None
    return q if isinstance(q, pint.Quantity) else None


def _scale(a: pint.Quantity, b: pint.Quantity) -> float | None:
    if a.dimensionality != b.dimensionality:
        return None
    return float(a.to(b.units).magnitude)


# ---- RG003: derivation cycles ---------------------------------------------------------------

def _cycles(k: Knowledge) -> Iterator[Finding]:
    deps: dict[str, set[str]] = {}
    first: dict[str, Rule] = {}
    for rule in k.rules:
        if rule.kind == "derive":
            # mypy cannot see it: a derive rule always names its target (the loader requires it)
            deps.setdefault(rule.target, set()).update(f.partition("__")[0] for f in rule.reads())  # type: ignore[arg-type]
            # mypy cannot see it: a derive rule always names its target (the loader requires it)
            first.setdefault(rule.target, rule)  # type: ignore[arg-type]
    for cycle in _strong_components(deps):
        rule = min((first[f] for f in cycle), key=lambda r: (r.file, r.line))
        path = " -> ".join([*sorted(cycle), sorted(cycle)[0]])
        yield Finding("RG003", rule.file, rule.line, rule.id,
                      f"derivation cycle {path}: none of these can be derived unless a case gives one")


def _strong_components(graph: dict[str, set[str]]) -> list[set[str]]:
    """Tarjan's algorithm, iteratively; components of one node count only with a self-loop."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on: set[str] = set()
    out: list[set[str]] = []
    for root in sorted(graph):
        if root in index:
            continue
        work = [(root, iter(sorted(graph.get(root, ()))))]
        index[root] = low[root] = len(index)
        stack.append(root)
        on.add(root)
        while work:
            node, children = work[-1]
            child = next(children, None)
            if child is not None:
                if child not in index:
                    index[child] = low[child] = len(index)
                    stack.append(child)
                    on.add(child)
                    work.append((child, iter(sorted(graph.get(child, ())))))
                elif child in on:
                    low[node] = min(low[node], index[child])
                continue
            work.pop()
            if work:
                low[work[-1][0]] = min(low[work[-1][0]], low[node])
            if low[node] == index[node]:
                comp = set()
                while True:
                    n = stack.pop()
                    on.discard(n)
                    comp.add(n)
                    if n == node:
                        break
                if len(comp) > 1 or node in graph.get(node, ()):
                    out.append(comp)
    return out


# ---- RG004 / RG005: rules that can never fire -------------------------------------------------

def _never_provided(k: Knowledge, given: set[str]) -> Iterator[Finding]:
    provided = given | _catalogue_facts() | {r.target for r in k.rules if r.target}
    provided |= {n for n, s in k.vocabulary.specs.items() if s.origin == "vocabulary" or s.kind == "flags"}
    for rule in k.rules:
        needs = overlap.guaranteed(rule.when.tree if rule.when else None) | set(rule.required())
        missing = sorted({f.partition("__")[0] for f in needs} - provided)
        if missing:
            yield Finding("RG004", rule.file, rule.line, rule.id,
                          f"can never fire: it needs {', '.join(missing)}, which no rule derives, no "
                          "catalogue holds and no case or pack test gives")


def _contradictions(k: Knowledge) -> Iterator[Finding]:
    for rule in k.rules:
        if rule.when is not None and overlap.never_true(rule.when.tree):
            yield Finding("RG005", rule.file, rule.line, rule.id,
                          f"can never fire: its condition '{rule.when.source}' contradicts itself")


# ---- RG008: shadowed derivations ------------------------------------------------------------

def _shadowed(k: Knowledge) -> Iterator[Finding]:
    for target, rules in _by(k, "derive").items():
        for low in rules:
            for high in rules:
                if high.precedence > low.precedence and _implies(low, high):
                    yield Finding("RG008", low.file, low.line, low.id,
                                  f"never used: whenever it could derive {target}, '{high.id}' "
                                  f"({Path(high.file).name}:{high.line}) has precedence and derives it")


def _implies(low: Rule, high: Rule) -> bool:
    """Every time `low` can fire, `high` can too (checked on the atoms of single conjunctions)."""
    lt, ht = overlap.terms(_tree(low)), overlap.terms(_tree(high))
    if lt is None or ht is None or len(ht) != 1:
        return False
    needs = overlap.presence_atoms(high.required())
    have = overlap.presence_atoms(low.required())
    return all((ht[0] | needs) <= (term | have) for term in lt)


# ---- RG009: unused parameters ---------------------------------------------------------------

def _unused_parameters(k: Knowledge) -> Iterator[Finding]:
    used: set[str] = set()
    for rule in k.rules:
        for e in (rule.when, rule.formula):
            if e is not None:
                _uses(e.tree, used, k)
        used |= {f.name for f in rule.text_fields()}
    for name, p in k.parameters.items():
        if name not in used:
            yield Finding("RG009", p.file, p.line, None, f"parameter '{name}' is used by no rule or text")


def _uses(node: Node, used: set[str], k: Knowledge) -> None:
    match node:
        case Num(name=str() as name):
            used.add(name.split("[")[0])
        case Lookup(table=table):
            used.add(table)
        case Call(fn="total", members=members):
            used.update(n for n, p in k.parameters.items() if p.items == members)
    for child in _children(node):
        _uses(child, used, k)


def _children(node: Node) -> tuple[Node, ...]:
    match node:
        case Bin(left=a, right=b) | Cmp(left=a, right=b):
            return (a, b)
        case BoolOp(items=items) | Call(args=items):
            return tuple(items)
        case Not(item=item):
            return (item,)
    return ()


# ---- RG010 / RG011 / RG012: conclusions that disagree ------------------------------------------

def _conflicts(k: Knowledge) -> Iterator[Finding]:
    for target, rules in _by(k, "diagnose").items():
        for i, a in enumerate(rules):
            for b in rules[i + 1:]:
                if a.precedence != b.precedence or _agree(a, b) or _exclusive(a, b):
                    continue
                yield Finding("RG010", b.file, b.line, b.id,
                              f"sets {target} to {_says(b)} where '{a.id}' ({Path(a.file).name}:{a.line}) "
                              f"sets it to {_says(a)}, and both can hold; make the conditions exclusive "
                              "or give one a higher 'precedence:'")


def _agree(a: Rule, b: Rule) -> bool:
    if a.value is not None and a.value == b.value:
        return True
    for copier, setter in ((a, b), (b, a)):  # copying a fact the other rule's condition pins
        if copier.copy_from and setter.value is not None:
            atom = overlap.Atom("label", copier.copy_from, "==", setter.value)
            terms = overlap.terms(_tree(setter))
            if terms is not None and all(atom in t for t in terms):
                return True
    return False


def _says(rule: Rule) -> str:
    return repr(rule.value) if rule.value is not None else f"the value of {rule.copy_from}"


def _fix_and_reject(k: Knowledge) -> Iterator[Finding]:
    fixes = [r for r in k.rules if r.kind == "fix"]
    for reject in (r for r in k.rules if r.kind == "reject" and r.subject in k.levers):
        for fix in fixes:
            if fix.subject == reject.subject and not _exclusive(fix, reject) \
                    and not _owed(fix) and not _owed(reject):
                yield Finding("RG011", reject.file, reject.line, reject.id,
                              f"rejects {reject.subject}, which '{fix.id}' ({Path(fix.file).name}:"
                              f"{fix.line}) recommends, and both conditions can hold at once")


def _owed(rule: Rule) -> bool:
    """A verdict that holds only while its lever is unjudged fires only where no other verdict
    on the lever did (firing.OWED_PRI), so it never contradicts one."""
    field = lang.Ref(lang.JUDGED, rule.subject or "", kind="flags").field
    terms = overlap.terms(_tree(rule))
    return terms is not None and all(overlap.Atom("present", field, value=False) in t for t in terms)


def _unjudged(k: Knowledge) -> Iterator[Finding]:
    judged = {r.subject for r in k.rules if r.kind in ("fix", "reject")}
    for lever in k.levers:
        if lever not in judged:
            file, line = k.where.get(f"lever:{lever}", ("<knowledge>", None))
            yield Finding("RG012", file, line, None,
                          f"lever '{lever}' is neither recommended nor rejected by any rule: a case "
                          "proposing it gets no verdict")


def _untested(k: Knowledge, inputs: Iterable[Path]) -> Iterator[Finding]:
    """Semgrep's ruleid/ok pair: in a directory with pack tests, each rule is asserted both ways
    (a rule without a condition only firing: it fires wherever its inputs are known)."""
    tests = [p for p in inputs if p.name.endswith(TEST_SUFFIX)]
    tested_dirs = {p.parent.resolve() for p in tests}
    said: dict[str, set[str]] = {"fired": set(), "not_fired": set()}
    for body in _test_bodies(tests):
        expect = body.get("expect")
        for key, ids in said.items():
            if isinstance(expect, dict) and isinstance(expect.get(key), list):
                ids.update(str(i) for i in expect[key])
    for rule in k.rules:
        if Path(rule.file).parent.resolve() not in tested_dirs:
            continue
        keys = ["fired", "not_fired"] if rule.when is not None else ["fired"]
        missing = [key for key in keys if rule.id not in said[key]]
        if missing:
            what = " or to ".join("fire" if key == "fired" else "not fire" for key in missing)
            yield Finding("RG013", rule.file, rule.line, rule.id, f"no pack test expects it to {what} "
                          f"({'/'.join(f'expect.{key}' for key in missing)})")


# ---- RG014: kernel categories the packs do not classify ----------------------------------------

def _kernel_classes(k: Knowledge, path: Path = KERNELS_FILE) -> Iterator[Finding]:
    """Each kernel category of facts/kernels.yaml is in exactly one of the pack lists its
    `classified_by` names (FLOP-carrying, memory-bound), or listed under `unclassified`: a new
    category in none would count as neither work nor waiting in every kernel share. Categories
    and those lists are built-in only (a layer adds kernel rules, not categories or lists)."""
    table = read_kernels(path)
    doc = load_yaml(path)
    file = str(path)
    lists: dict[str, set[str]] = {}
    for name in table.classified_by:
        param = k.parameters.get(name)
        if param is None or param.items is None:
            yield Finding("RG014", file, line_of(doc, "classified_by"), None,
                          f"classified_by names '{name}', which is not a list parameter of the loaded packs")
        else:
            lists[name] = set(param.items)
    for category in table.categories:
        where = line_of(doc["categories"], category)
        homes = [name for name, items in lists.items() if category in items]
        if len(homes) > 1:
            yield Finding("RG014", file, where, None,
                          f"kernel category '{category}' is in {' and '.join(homes)}: its time would "
                          "count twice")
        elif category in table.unclassified and homes:
            yield Finding("RG014", file, where, None,
                          f"kernel category '{category}' is declared unclassified but is in {homes[0]}")
        elif not homes and category not in table.unclassified and lists:
            yield Finding("RG014", file, where, None,
                          f"kernel category '{category}' is in none of {', '.join(lists)}: add it to one "
                          "(rules/trace_evidence.yaml) or list it under `unclassified` with the reason")


# ---- helpers --------------------------------------------------------------------------------

def _by(k: Knowledge, kind: str) -> dict[str, list[Rule]]:
    out: dict[str, list[Rule]] = {}
    for rule in k.rules:
        if rule.kind == kind:
            out.setdefault(rule.target or "", []).append(rule)
    return out


def _tree(rule: Rule) -> Node | None:
    return rule.when.tree if rule.when is not None else None


def _exclusive(a: Rule, b: Rule) -> bool:
    return overlap.disjoint(_tree(a), _tree(b), overlap.presence_atoms([*a.required(), *b.required()]))


def _context(k: Knowledge) -> lang.Context:
    from regime.engine.knowledge.load import parse_context  # pydantic pack models: only when linting
    return parse_context(k)


def _catalogue_facts() -> set[str]:
    out: set[str] = set()
    for path in CATALOGUE_DIR.glob("*.yaml"):
        doc = load_yaml(path)
        for section in doc.values() if isinstance(doc, dict) else ():
            for entry in section.values() if isinstance(section, dict) else ():
                out.update(entry if isinstance(entry, dict) else ())
    return out | hf_config.given_facts()  # a model read from a config.json


def _test_bodies(inputs: Iterable[Path]) -> Iterator[dict]:
    """Each case file's mapping, and each test of a pack-test file; unreadable files are skipped."""
    for path in inputs:
        try:
            doc = load_yaml(path)
        except Exception:
            continue
        bodies = doc.get("tests", []) if isinstance(doc, dict) and "tests" in doc else [doc]
        yield from (b for b in (bodies if isinstance(bodies, list) else ()) if isinstance(b, dict))


def _given_facts(inputs: Iterable[Path]) -> set[str]:
    """Fact names that cases and pack tests give (a test's inline facts, or its case's)."""
    out: set[str] = set()
    for body in _test_bodies(inputs):
        out.update(body.get("facts") or {} if isinstance(body.get("facts"), dict) else {})
        for key in ("hardware", "model"):
            if isinstance(body.get(key), dict):
                out.update(body[key])
    return out

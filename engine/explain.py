"""Why and why not: replay a rule's condition on a case's final facts, clause by clause.

Reviewers ask "why this conclusion?" and "why not that fix?". Both are answered from the same
parsed condition the engine compiled, evaluated with the engine's semantics (an absent fact
makes a comparison false, `not` pushed down to the comparisons).
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

from regime.core import units
from regime.core.errors import RegimeError, did_you_mean
from regime.engine import lang
from regime.engine.knowledge.model import Knowledge, Rule
from regime.engine.run.diagnosis import Diagnosis


def rules_about(subject: str, k: Knowledge) -> list[Rule]:
    """Rules with this id, or concluding about this lever, claim, finding or fact."""
    found = [r for r in k.rules if subject in (r.id, r.subject, r.target)]
    if not found:
        known = {*(r.id for r in k.rules), *k.levers, *k.claims, *(r.subject or "" for r in k.rules)}
        raise RegimeError(f"no rule is about '{subject}'{did_you_mean(subject, known)}")
    return found


_DONE = {"fix": "a fix", "reject": "rejected", "diagnose": "diagnosed", "derive": "derived",
         "finding": "found", "ask": "asked for", "claim": "judged"}


def answer(subject: str, rules: list[Rule], d: Diagnosis, k: Knowledge) -> str:
    """The first line of `regime why`: the answer, before the rule-by-rule evidence. A
    conclusion or fact that stands says so and by which rule; one that does not names the rule
    that came closest and the clauses it lacks."""
    fired = [r for r in rules if any(f.rule == r.id for f in d.trace)]
    if fired:
        rule = fired[0]
        said = next((c.because for c in d.conclusions if c.rule == rule.id), None)
        rec = d.facts.get(rule.target or "")
        what = " ".join(said.split()) if said else (
            f"{rule.target} = {_show(rule.target, rec.value, k)}" if rule.target and rec else "fired")
        return f"{subject}: {_DONE.get(rule.kind, rule.kind)} by {rule.id}: {what}"
    rec = d.facts.get(subject)
    if rec is not None:
        return (f"{subject} = {_show(subject, rec.value, k)}, given ({rec.source}: {rec.origin}); "
                "no rule derived it")
    lacking = {r.id: _lacking(r, d, k) for r in rules}
    closest = min(rules, key=lambda r: len(lacking[r.id]))
    return (f"{subject}: not concluded; the closest rule, {closest.id}, lacks "
            + ("; ".join(lacking[closest.id]) or "nothing in its condition (it was pre-empted)"))


def _lacking(rule: Rule, d: Diagnosis, k: Knowledge) -> list[str]:
    """What stopped `rule`: its false clauses (leaves only) and its blockers."""
    leaves = [] if rule.when is None else [
        " ".join(line.split()[2:]) for line in _clauses(rule.when.tree, _memory(d), k, negate=False, depth=0)
        if line.strip().startswith("[ ]") and not line.endswith(" of:")]
    return [*leaves, *_blockers(rule, d)]


def explain(rule: Rule, d: Diagnosis, k: Knowledge) -> list[str]:
    """Lines of text saying whether `rule` fired on `d` and which clauses decided it."""
    firing = next((f for f in d.trace if f.rule == rule.id), None)
    about = f" {rule.subject or rule.target}" if (rule.subject or rule.target) else ""
    lines = [f"{rule.id} ({rule.kind}{about}) — {Path(rule.file).name}:{rule.line}",
             f"  {' '.join(rule.description.split())}"]
    if firing is not None:
        lines.append(f"  FIRED at step {firing.step}, matching "
                     + (", ".join(f"{n}={_show(n, v, k)}" for n, v in sorted(firing.matched.items()))
                        or "no facts"))
        lines += [f"  => {c.because}" for c in d.conclusions if c.rule == rule.id]
    else:
        lines.append("  did NOT fire")
        lines += [f"  {why}" for why in _blockers(rule, d)]
    if rule.when is not None:
        lines.append(f"  when: {rule.when.source}")
        lines += [f"    {line}" for line in _clauses(rule.when.tree, _memory(d), k, negate=False, depth=0)]
    return lines


def _memory(d: Diagnosis) -> dict:
    """The final facts, with the levers a verdict judged (the engine's bookkeeping for judged())."""
    judged = {lang.Ref(lang.JUDGED, c.lever, kind="flags").field: True
              for c in d.conclusions if c.kind in ("fix", "reject") and c.lever}
    return {**d.memory, **judged}


def _blockers(rule: Rule, d: Diagnosis) -> Iterator[str]:
    if rule.target and rule.target in d.memory:
        rec = d.facts.get(rule.target)
        by = f"rule {rec.rule}" if rec is not None and rec.rule else "the case"
        yield f"{rule.target} was already known (from {by})"
    for f in (rule.formula.facts() if rule.formula else []):
        if f not in d.memory and "__" not in f:
            yield f"formula input {f} is unknown"


def _clauses(node: lang.Node, wm: dict, k: Knowledge, negate: bool, depth: int) -> Iterator[str]:
    pad = "  " * depth
    match node:
        case lang.BoolOp(op=op, items=items):
            word = op if not negate else ("or" if op == "and" else "and")
            ok = lang.truth(node, wm, negate)
            yield f"{pad}{_mark(ok)} {'all' if word == 'and' else 'any'} of:"
            for item in items:
                yield from _clauses(item, wm, k, negate, depth + 1)
        case lang.Not(item=item):
            yield from _clauses(item, wm, k, not negate, depth)
        case _:
            ok = lang.truth(node, wm, negate)
            yield f"{pad}{_mark(ok)} {'not ' if negate else ''}{_leaf(node)}{_values(node, wm, k)}"


def _mark(ok: bool) -> str:
    return "[x]" if ok else "[ ]"


def _leaf(node: lang.Node) -> str:
    match node:
        case lang.Cmp(op=op, left=a, right=b):
            return f"{lang.render(a)} {op} {lang.render(b)}"
        case lang.Presence(ref=ref, present=present):
            return f"{'present' if present else 'absent'}({lang.render(ref)})"
    return lang.render(node)


def _values(node: lang.Node, wm: dict, k: Knowledge) -> str:
    refs: dict[str, None] = {}
    lang.walk_refs(node, lambda r: refs.setdefault(r.field, None))
    shown = [f"{f}={_show(f, wm[f], k)}" if f in wm else f"{f} unknown" for f in refs
             if not f.startswith(lang.JUDGED)]
    shown += [f"{n.name}={_param(n)}" for n in _params(node)]
    return f"   ({', '.join(shown)})" if shown else ""


def _params(node: lang.Node) -> list[lang.Num]:
    match node:
        case lang.Num(name=str()):
            return [node]
        case lang.Bin(left=a, right=b) | lang.Cmp(left=a, right=b):
            return _params(a) + _params(b)
    return []


def _param(n: lang.Num) -> str:
    unit = n.unit or "1"
    display = "%" if unit in ("fraction", "%") else None
    return units.format_quantity(n.value, "fraction" if unit == "%" else unit, display)


def _show(field: str, value: object, k: Knowledge) -> str:
    if isinstance(value, str | bool):
        return str(value)
    spec = k.vocabulary.get(field.split("__")[0])
    if spec.kind in ("group", "flags") and "__" not in field:
        # mypy cannot see it: a group's or flags' own field holds its member count
        return f"{int(value)} member(s)"  # type: ignore[call-overload]
    # mypy cannot see it: numeric facts hold numbers
    return units.format_quantity(float(value), spec.unit, spec.display)  # type: ignore[arg-type]

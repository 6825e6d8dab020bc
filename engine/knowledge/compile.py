"""One rule compiled: its condition parsed and type-checked (and proved to compile for
durable-rules), its template, its conclusion against the knowledge declared so far."""

from __future__ import annotations

import re
from dataclasses import replace
from pathlib import Path
from typing import Any

from regime.core.errors import RegimeError, did_you_mean
from regime.core.names import member_id
from regime.core.yamlsrc import line_at, line_of, validated
from regime.engine import lang
from regime.engine.knowledge.model import (
    BUILTIN,
    Knowledge,
    Rule,
)
from regime.engine.knowledge.shapes import ID, RuleModel
from regime.engine.lang import dimensions
from regime.engine.lang.template import parse_template
from regime.facts.vocabulary import FactSpec, Vocabulary


def parse_context(k: Knowledge) -> lang.Context:
    """What names mean in this knowledge's expressions: its facts, parameters, levers and claims."""
    return lang.Context(
        vocabulary=k.vocabulary,
        scalars=k.scalar_values(),
        tables={n: p.table for n, p in k.parameters.items() if p.table is not None},
        param_units={n: p.unit for n, p in k.parameters.items()},
        lists={n: p.items for n, p in k.parameters.items() if p.items is not None},
        flag_ids={"levers": frozenset(k.levers), "claims": frozenset(k.claims)},
        findings=frozenset(k.findings),
    )


def compile_rule(k: Knowledge, path: Path, pack: str, section: list, index: int, body: Any,
                  layer: str = BUILTIN) -> Rule:
    file = str(path)
    line = getattr(body, "line", None) or line_at(section, index) or 0
    if not isinstance(body, dict):
        raise RegimeError(f"rule #{index + 1} must be a mapping", file=file, line=line or None,
                          field=f"rules[{index}]")
    rid = body.get("id", f"#{index + 1}")
    m = validated(RuleModel, body, file, line=line or None, message=f"rule '{rid}': ")
    ctx = parse_context(k)

    def located(key: str, fn):
        try:
            return fn()
        except RegimeError as err:
            where = err.field or key
            raise RegimeError(f"rule '{m.id}': {err.message}", file=file,
                              line=line_of(body, where) or line, field=where) from None

    when = located("when", lambda: condition(m.when, ctx)) if m.when is not None else None
    if when is not None and m.kind not in ("fix", "reject", "ask") and lang.reads_verdicts(when.tree):
        raise RegimeError(f"rule '{m.id}': judged() is for verdicts and asks: a {m.kind} rule fires "
                          "before any verdict", file=file, line=line_of(body, "when") or line, field="when")
    scalars = {n: p.unit for n, p in k.parameters.items() if p.value is not None}
    rule = Rule(id=m.id, kind=m.kind, pack=pack, file=file, line=line, layer=layer,
                precedence=m.precedence, description=m.description, refs=m.refs, when=when,
                holds=m.holds,
                because=located("because", lambda: parse_template(m.because, k.vocabulary, scalars)),
                condition=located("condition", lambda: parse_template(m.condition, k.vocabulary, scalars))
                if m.condition is not None else None,
                because_if=located("because_if", lambda: tuple(
                    (condition(v.when, ctx), parse_template(v.because, k.vocabulary, scalars))
                    for v in m.because_if)))
    located("bound", lambda: [_bound_field(b, k.vocabulary) for b in m.bound])
    concluded = located("claim" if m.claim is not None else m.kind, lambda: _conclusion(k, ctx, m, rule))
    if m.decides is None:
        return concluded
    return replace(concluded, decides=located("decides", lambda: _decides(m.decides or (), concluded, k)))


def _decides(given: tuple[str | tuple[str, ...], ...], rule: Rule,
             k: Knowledge) -> tuple[tuple[str, ...], ...]:
    """`decides:` as fields, each entry a tuple of alternatives (number facts, group members or
    a pack's number parameters); every entry names at least one figure the rule itself reads or
    cites, so its alternatives argue what the rule does."""
    cited = rule.cites()
    out = []
    for entry in given:
        names = (entry,) if isinstance(entry, str) else entry
        if not names:
            raise RegimeError("an entry names at least one fact")
        fields = tuple(n if k.parameters.get(n) and k.parameters[n].value is not None
                       else _figure_field(n, k.vocabulary, "decides") for n in names)
        if not cited.intersection(fields):
            raise RegimeError(f"'{names[0]}' is not a fact this rule reads or cites; name one "
                              f"it does (alternatives may follow it in a list)"
                              f"{did_you_mean(names[0], sorted(cited))}")
        out.append(fields)
    return tuple(out)


def condition(source: str, ctx: lang.Context) -> lang.Expression:
    e = lang.parse(source, ctx, "condition")
    lang.check_category_literals(e, ctx.vocabulary)
    dimensions.check_condition(e, ctx)
    lang.to_durable(e.tree)  # proves it compiles; raises on tables/total() in conditions
    return e


def _conclusion(k: Knowledge, ctx: lang.Context, m: RuleModel, rule: Rule) -> Rule:
    if m.kind == "derive":
        # mypy cannot see it: this branch is taken only when m.derive is set
        spec = k.vocabulary.get(m.derive)  # type: ignore[arg-type]
        if spec.kind not in ("number", "category"):
            raise RegimeError(f"cannot derive a {spec.kind} fact")
        try:
            narrowed = lang.narrowed_by(rule.when.tree if rule.when is not None else None, ctx)
            formula = lang.parse(m.formula, replace(ctx, narrowed=narrowed) if narrowed else ctx, "formula")
            _check_derived_type(formula, spec, k.vocabulary)
            if spec.kind == "number":
                dimensions.check_formula(formula, spec.unit, ctx)
        except RegimeError as err:
            raise err.located(field="formula") from None
        return replace(rule, formula=formula, target=m.derive)
    if m.kind == "diagnose":
        # mypy cannot see it: this branch is taken only when m.diagnose is set
        spec = k.vocabulary.get(m.diagnose)  # type: ignore[arg-type]
        if spec.kind != "category":
            raise RegimeError(f"diagnose sets a category fact; '{m.diagnose}' is a {spec.kind}")
        value = m.value or ""
        if value in spec.values:
            return replace(rule, target=m.diagnose, value=value)
        other = k.vocabulary.specs.get(value)
        if other is None or other.values != spec.values:
            raise RegimeError(f"'{value}' is neither a value of {m.diagnose} nor a fact with the "
                              f"same values{did_you_mean(value, [*spec.values, *k.vocabulary.specs])}")
        return replace(rule, target=m.diagnose, copy_from=value)
    if m.kind == "finding":
        return replace(rule, subject=_id(m.finding, "finding"))
    if m.kind == "fix":
        _known(m.fix, k.levers, "lever")
        return replace(rule, subject=m.fix, priority=m.priority, alternatives=m.alternatives,
                       bound=tuple(_bound_field(b, k.vocabulary) for b in m.bound),
                       speedup_bound=_speedup(m.speedup_bound, k.vocabulary, "speedup_bound"),
                       speedup_expected=_speedup(m.speedup_expected, k.vocabulary, "speedup_expected"))
    if m.kind == "reject":
        if m.reject is not None:
            _known(m.reject, k.levers, "lever")
            return replace(rule, subject=m.reject, for_now=m.for_now)
        _known(m.claim, k.claims, "claim")
        return replace(rule, subject=m.claim)
    # mypy cannot see it: this branch is taken only when m.ask is set
    k.vocabulary.get(m.ask)  # type: ignore[arg-type]
    return replace(rule, subject=m.ask, order=m.order)


def _check_derived_type(formula: lang.Expression, spec: FactSpec, vocabulary: Vocabulary) -> None:
    """A number fact gets a number; a category fact gets a category whose values it accepts."""
    tree = formula.tree
    if spec.kind == "number":
        if isinstance(tree, lang.Str) or (isinstance(tree, lang.Ref) and tree.kind != "number"
                                          and tree.kind != "group"):
            kind = getattr(tree, "kind", "text")
            raise RegimeError(f"'{spec.name}' is a number; the formula gives a {kind}")
        return
    if not isinstance(tree, lang.Ref) or tree.kind != "category":
        raise RegimeError(f"'{spec.name}' is a category; its formula must name a category fact")
    extra = set(vocabulary.get(tree.name).values) - set(spec.values)
    if extra:
        raise RegimeError(f"{tree.name} can be {sorted(extra)}, which {spec.name} does not allow")


def _bound_field(text: str, vocabulary: Vocabulary) -> str:
    """'amdahl_flop_util' or 'kernel_share[to_copy]' -> the working-memory field it names."""
    return _figure_field(text, vocabulary, "bound")


def _figure_field(text: str, vocabulary: Vocabulary, what: str) -> str:
    """A number fact or one group member, as written -> the working-memory field it names."""
    m = re.match(r"^([a-z][a-z0-9_]*)(?:\[([^\]]+)\])?$", text)
    if not m:
        raise RegimeError(f"{what} '{text}' must name a fact or a group member")
    spec = vocabulary.get(m[1])
    if spec.kind not in ("number", "group") or (spec.kind == "group") != bool(m[2]):
        raise RegimeError(f"{what} '{text}' must name a number fact or one group member")
    return m[1] if not m[2] else f"{m[1]}__{member_id(m[2])}"


BASIS = "speedup_bases"  # the vocabulary's category of bases, best first


def _speedup(given: dict[str, str], vocabulary: Vocabulary, key: str) -> tuple[tuple[str, str], ...]:
    """A fix's speedup facts by basis: each a dimensionless number fact (N×), the bases values of
    the speedup_bases category and written in its order, so the best evidence present is used."""
    bases = list(vocabulary.get(BASIS).values)
    for basis, name in given.items():
        if basis not in bases:
            raise RegimeError(f"{key}: basis '{basis}' is not one of {bases}{did_you_mean(basis, bases)}")
        spec = vocabulary.get(name)
        if spec.kind != "number" or spec.unit != "1":
            raise RegimeError(f"{key}: '{name}' must be a dimensionless number fact (a factor, ×)")
    order = [bases.index(b) for b in given]
    if order != sorted(order):
        raise RegimeError(f"{key}: bases must be written best first, in the order {bases}")
    return tuple(given.items())


def _id(value: str | None, what: str) -> str:
    if value is None or not ID.match(value):
        raise RegimeError(f"{what} id '{value}' must be lower_snake_case")
    return value


def _known(name: str | None, table: dict, what: str) -> None:
    if name not in table:
        raise RegimeError(f"unknown {what} '{name}'{did_you_mean(name or '', table)}; a new {what} is "
                          f"declared under '{what}s:' in a pack (see regime list {what}s)")

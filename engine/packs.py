"""Rule packs: load YAML, validate every rule, and build the Knowledge the sessions run.

All validation happens here, so a pack error names the file, line, rule id and field, and
durable-rules only ever sees rulesets that were checked first.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from pathlib import Path
from typing import Any

from pydantic import BaseModel, ConfigDict, Field, StrictFloat, StrictInt, StrictStr, model_validator
from regime.core import limits, units
from regime.core.errors import RegimeError, did_you_mean
from regime.core.names import member_id
from regime.core.yamlsrc import expect_mapping, line_at, line_of, load_yaml, validated
from regime.engine import dimensions, expr
from regime.engine.knowledge import Claim, Knowledge, Lever, Parameter, Rule, pack_files
from regime.engine.template import parse_template
from regime.facts.vocabulary import FactSpec, Vocabulary, parse_specs

KINDS = ("derive", "diagnose", "finding", "fix", "reject", "ask")
ID = re.compile(r"^[a-z][a-z0-9_]{0,63}$")


# ---- YAML shapes -----------------------------------------------------------------------------

class _Strict(BaseModel):
    model_config = ConfigDict(extra="forbid")


class ParamModel(_Strict):
    meaning: str
    source: str
    value: float | None = None
    unit: str = "1"
    display: str | None = None
    table: dict[str, float] | None = None
    list: tuple[str, ...] | None = Field(default=None, alias="list")

    @model_validator(mode="after")
    def _one_shape(self) -> ParamModel:
        shapes = [x is not None for x in (self.value, self.table, self.list)]
        if sum(shapes) != 1:
            raise ValueError("a parameter has exactly one of value, table or list")
        for v in [self.value, *(self.table or {}).values()]:
            _plausible(v)
        if self.list is not None:
            ids = [member_id(m) for m in self.list]
            if not ids or len(set(ids)) != len(ids):
                raise ValueError("a list parameter names at least one member, each once")
        return self


def _plausible(v: float | None) -> None:
    if v is not None and not limits.plausible(v):
        raise ValueError(f"{v!r} is out of range ({limits.describe()})")


class LeverModel(_Strict):
    meaning: str
    attacks: tuple[str, ...]  # resource ids, declared in a pack's `resources:` section
    aliases: tuple[str, ...] = ()


class ClaimModel(_Strict):
    text: str
    aliases: tuple[str, ...] = ()


class RuleModel(_Strict):
    id: str
    description: str
    when: str | None = None
    because: str
    refs: tuple[str, ...] = ()
    derive: str | None = None
    formula: StrictStr | StrictFloat | StrictInt | None = None
    diagnose: str | None = None
    value: str | None = None
    finding: str | None = None
    fix: str | None = None
    priority: int | None = Field(default=None, ge=1, le=99)
    bound: tuple[str, ...] = ()
    reject: str | None = None
    claim: str | None = None
    ask: str | None = None
    order: int | None = Field(default=None, ge=1, le=99)

    @model_validator(mode="after")
    def _one_conclusion(self) -> RuleModel:
        if not ID.match(self.id):
            raise ValueError(f"rule id '{self.id}' must be lower_snake_case")
        given = [k for k in KINDS if getattr(self, k) is not None]
        if self.claim is not None and "reject" not in given:
            given.append("reject")
        if len(given) != 1:
            raise ValueError(f"a rule has exactly one conclusion ({', '.join(KINDS)}); got "
                             f"{', '.join(given) or 'none'}")
        kind = given[0]
        needs = {"derive": ["formula"], "diagnose": ["value"], "fix": ["priority"], "ask": ["order"]}
        for key in needs.get(kind, []):
            if getattr(self, key) is None:
                raise ValueError(f"a {kind} rule needs '{key}'")
        if kind == "reject" and (self.reject is None) == (self.claim is None):
            raise ValueError("a reject rule names exactly one of 'reject' (a lever) or 'claim'")
        if kind != "fix" and (self.priority is not None or self.bound):
            raise ValueError("'priority' and 'bound' belong to fix rules")
        return self

    @property
    def kind(self) -> str:
        return next(k for k in KINDS if getattr(self, k) is not None) if self.claim is None \
            else "reject"


class OverrideModel(_Strict):
    parameters: dict[str, float] = {}
    disable: tuple[str, ...] = ()

    @model_validator(mode="after")
    def _finite(self) -> OverrideModel:
        for v in self.parameters.values():
            _plausible(v)
        return self


class PackModel(_Strict):
    pack: str
    version: str | None = None  # optional; `regime --version` adds a hash of the file either way
    description: str
    resources: dict[str, str] = {}
    parameters: dict[str, Any] = {}
    facts: dict[str, Any] = {}
    levers: dict[str, Any] = {}
    claims: dict[str, Any] = {}
    rules: list[Any] = []
    overrides: OverrideModel | None = None


# ---- loading (the compiled types and pack_files live in regime.engine.knowledge) ----------------

__all__ = ["Claim", "Knowledge", "Lever", "Parameter", "Rule", "load_knowledge", "pack_files"]


def load_knowledge(vocabulary: Vocabulary, dirs: Iterable[Path]) -> Knowledge:
    """Read every pack in `dirs` (in order), declare what they declare, compile their rules."""
    docs = [(p, _read_pack(p)) for p in pack_files(dirs)]
    k = Knowledge(vocabulary)
    for path, (raw, model) in docs:
        _declare(k, path, raw, model)
    for path, (raw, model) in docs:
        if model.overrides:
            _apply_overrides(k, path, raw, model.overrides)
    disabled = {rid for _, (_, m) in docs if m.overrides for rid in m.overrides.disable}
    seen: dict[str, str] = {}
    for path, (raw, model) in docs:
        for i, body in enumerate(model.rules):
            rule = _compile_rule(k, path, model.pack, raw["rules"], i, body)
            if rule.id in seen:
                raise RegimeError(f"rule id '{rule.id}' is already used in {seen[rule.id]}",
                                  file=str(path), line=rule.line, field="id")
            seen[rule.id] = f"{path.name}:{rule.line}"
            if rule.id not in disabled:
                k.rules.append(rule)
    for path, (raw, model) in docs:
        unknown = sorted(set(model.overrides.disable) - set(seen)) if model.overrides else []
        if unknown:
            raise RegimeError(f"override disables unknown rule '{unknown[0]}'"
                              f"{did_you_mean(unknown[0], seen)}", file=str(path),
                              line=line_of(raw, "overrides"), field="overrides.disable")
    _check_names(k)
    return k


def _check_names(k: Knowledge) -> None:
    """A name means one thing: a fact or a parameter, never both; levers attack known resources."""
    for name in k.parameters:
        if name in k.vocabulary:
            file, line = k.where[f"parameter:{name}"]
            raise RegimeError(f"parameter '{name}' has the name of a declared fact "
                              f"({k.vocabulary.get(name).origin})", file=file, line=line, field=name)
    for lever in k.levers.values():
        for r in lever.attacks:
            if r not in k.resources:
                file, line = k.where[f"lever:{lever.id}"]
                raise RegimeError(f"lever '{lever.id}' attacks unknown resource '{r}'"
                                  f"{did_you_mean(r, k.resources)}", file=file, line=line,
                                  field=f"{lever.id}.attacks")


def _read_pack(path: Path) -> tuple[dict, PackModel]:
    raw = expect_mapping(load_yaml(path), str(path),
                         "a pack is a mapping with 'pack', 'description' and 'rules'")
    return raw, validated(PackModel, raw, str(path))


def _declare(k: Knowledge, path: Path, raw: dict, model: PackModel) -> None:
    file = str(path)
    k.packs.append(model.pack)
    if model.facts:
        specs: dict[str, FactSpec] = parse_specs(raw["facts"], file, origin=f"{path.name} ({model.pack})")
        k.vocabulary = k.vocabulary.extended(specs, file=file, lines=raw["facts"])
    for name, meaning in model.resources.items():
        if not ID.match(name) or name in k.resources:
            raise RegimeError(f"resource '{name}' must be a new lower_snake_case id", file=file,
                              line=line_of(raw["resources"], name), field=f"resources.{name}")
        k.resources[name] = meaning
    for name, body in model.parameters.items():
        _declare_one(k.parameters, name, raw["parameters"], file, "parameter",
                     lambda n, b, f, ln: _parameter(n, validated(ParamModel, b, f, line=ln, prefix=n),
                                                    model.pack, k.vocabulary), body, k.where)
    for name, body in model.levers.items():
        _declare_one(k.levers, name, raw["levers"], file, "lever",
                     lambda n, b, f, ln: Lever(n, **validated(LeverModel, b, f, line=ln, prefix=n)
                                               .model_dump()), body, k.where)
    for name, body in model.claims.items():
        _declare_one(k.claims, name, raw["claims"], file, "claim",
                     lambda n, b, f, ln: Claim(n, **validated(ClaimModel, b, f, line=ln, prefix=n)
                                               .model_dump()), body, k.where)


def _declare_one(into: dict, name: str, section: dict, file: str, what: str, make, body,
                 where: dict) -> None:
    line = line_of(section, name)
    where[f"{what}:{name}"] = (file, line)
    if not ID.match(name):
        raise RegimeError(f"{what} id '{name}' must be lower_snake_case", file=file, line=line, field=name)
    if name in into:
        raise RegimeError(f"{what} '{name}' is declared twice", file=file, line=line, field=name)
    if not isinstance(body, dict):
        raise RegimeError(f"{what} '{name}' must be a mapping", file=file, line=line, field=name)
    try:
        into[name] = make(name, body, file, line)
    except (RegimeError, ValueError) as err:
        if isinstance(err, RegimeError) and err.file:
            raise
        raise RegimeError(str(getattr(err, "message", err)), file=file, line=line, field=name) from None


def _parameter(name: str, m: ParamModel, pack: str, vocabulary: Vocabulary) -> Parameter:
    if name in vocabulary:
        raise ValueError(f"parameter '{name}' shadows a declared fact")
    if m.unit not in ("1", "%", units.FRACTION):
        units.check_unit(m.unit)
    return Parameter(name, m.meaning, m.source, pack, m.unit, m.display, m.value, m.table, m.list)


def _apply_overrides(k: Knowledge, path: Path, raw: dict, ov: OverrideModel) -> None:
    for name, value in ov.parameters.items():
        p = k.parameters.get(name)
        line = line_of(raw.get("overrides", {}), "parameters")
        if p is None or p.value is None:
            raise RegimeError(f"override of unknown scalar parameter '{name}'"
                              f"{did_you_mean(name, k.scalar_values())}", file=str(path),
                              line=line, field=f"overrides.parameters.{name}")
        k.parameters[name] = Parameter(name, p.meaning, f"{p.source}; overridden by {path.name}",
                                       p.pack, p.unit, p.display, float(value))


def _context(k: Knowledge) -> expr.Context:
    return expr.Context(
        vocabulary=k.vocabulary,
        scalars=k.scalar_values(),
        tables={n: p.table for n, p in k.parameters.items() if p.table is not None},
        param_units={n: p.unit for n, p in k.parameters.items()},
        lists={n: p.items for n, p in k.parameters.items() if p.items is not None},
        flag_ids={"levers": frozenset(k.levers), "claims": frozenset(k.claims)},
    )


def _compile_rule(k: Knowledge, path: Path, pack: str, section: list, index: int, body: Any) -> Rule:
    file = str(path)
    line = getattr(body, "line", None) or line_at(section, index) or 0
    if not isinstance(body, dict):
        raise RegimeError(f"rule #{index + 1} must be a mapping", file=file, line=line or None,
                          field=f"rules[{index}]")
    rid = body.get("id", f"#{index + 1}")
    m = validated(RuleModel, body, file, line=line or None, message=f"rule '{rid}': ")
    ctx = _context(k)

    def located(key: str, fn):
        try:
            return fn()
        except RegimeError as err:
            where = err.field or key
            raise RegimeError(f"rule '{m.id}': {err.message}", file=file,
                              line=line_of(body, where) or line, field=where) from None

    when = located("when", lambda: _condition(m.when, ctx)) if m.when is not None else None
    rule = Rule(id=m.id, kind=m.kind, pack=pack, file=file, line=line,
                description=m.description, refs=m.refs, when=when,
                because=located("because", lambda: parse_template(
                    m.because, k.vocabulary, {n: p.unit for n, p in k.parameters.items()
                                              if p.value is not None})))
    located("bound", lambda: [_bound_field(b, k.vocabulary) for b in m.bound])
    return located("claim" if m.claim is not None else m.kind, lambda: _conclusion(k, ctx, m, rule))


def _condition(source: str, ctx: expr.Context) -> expr.Expression:
    e = expr.parse(source, ctx, "condition")
    expr.check_category_literals(e, ctx.vocabulary)
    dimensions.check_condition(e, ctx)
    expr.to_durable(e.tree)  # proves it compiles; raises on tables/total() in conditions
    return e


def _conclusion(k: Knowledge, ctx: expr.Context, m: RuleModel, rule: Rule) -> Rule:
    from dataclasses import replace
    if m.kind == "derive":
        spec = k.vocabulary.get(m.derive)  # type: ignore[arg-type]
        if spec.kind not in ("number", "category"):
            raise RegimeError(f"cannot derive a {spec.kind} fact")
        try:
            formula = expr.parse(m.formula, ctx, "formula")
            _check_derived_type(formula, spec, k.vocabulary)
            if spec.kind == "number":
                dimensions.check_formula(formula, spec.unit, ctx)
        except RegimeError as err:
            raise err.located(field="formula") from None
        return replace(rule, formula=formula, target=m.derive)
    if m.kind == "diagnose":
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
        return replace(rule, subject=m.fix, priority=m.priority,
                       bound=tuple(_bound_field(b, k.vocabulary) for b in m.bound))
    if m.kind == "reject":
        if m.reject is not None:
            _known(m.reject, k.levers, "lever")
            return replace(rule, subject=m.reject)
        _known(m.claim, k.claims, "claim")  # type: ignore[arg-type]
        return replace(rule, subject=m.claim)
    k.vocabulary.get(m.ask)  # type: ignore[arg-type]
    return replace(rule, subject=m.ask, order=m.order)


def _check_derived_type(formula: expr.Expression, spec: FactSpec, vocabulary: Vocabulary) -> None:
    """A number fact gets a number; a category fact gets a category whose values it accepts."""
    tree = formula.tree
    if spec.kind == "number":
        if isinstance(tree, expr.Str) or (isinstance(tree, expr.Ref) and tree.kind != "number"
                                          and tree.kind != "group"):
            kind = getattr(tree, "kind", "text")
            raise RegimeError(f"'{spec.name}' is a number; the formula gives a {kind}")
        return
    if not isinstance(tree, expr.Ref) or tree.kind != "category":
        raise RegimeError(f"'{spec.name}' is a category; its formula must name a category fact")
    extra = set(vocabulary.get(tree.name).values) - set(spec.values)
    if extra:
        raise RegimeError(f"{tree.name} can be {sorted(extra)}, which {spec.name} does not allow")


def _bound_field(text: str, vocabulary: Vocabulary) -> str:
    """'amdahl_flop_util' or 'kernel_share[to_copy]' -> the working-memory field it names."""
    m = re.match(r"^([a-z][a-z0-9_]*)(?:\[([^\]]+)\])?$", text)
    if not m:
        raise RegimeError(f"bound '{text}' must name a fact or a group member")
    spec = vocabulary.get(m[1])
    if spec.kind not in ("number", "group") or (spec.kind == "group") != bool(m[2]):
        raise RegimeError(f"bound '{text}' must name a number fact or one group member")
    return m[1] if not m[2] else f"{m[1]}__{member_id(m[2])}"


def _id(value: str | None, what: str) -> str:
    if value is None or not ID.match(value):
        raise RegimeError(f"{what} id '{value}' must be lower_snake_case")
    return value


def _known(name: str | None, table: dict, what: str) -> None:
    if name not in table:
        raise RegimeError(f"unknown {what} '{name}'{did_you_mean(name or '', table)}")

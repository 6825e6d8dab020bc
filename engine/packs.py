"""Rule packs: load YAML, validate every rule, and build the Knowledge the sessions run.

All validation happens here, so a pack error names the file, line, rule id and field, and
durable-rules only ever sees rulesets that were checked first. (It is over 400 lines for that
reason: the pack's pydantic shapes, the passes over a layer and each check the loader makes sit
beside the step that needs them. The shapes could move to a module of their own next.)
"""

from __future__ import annotations

import fnmatch
import math
import re
from collections.abc import Iterable
from dataclasses import replace
from pathlib import Path
from typing import Any

from pydantic import BaseModel, ConfigDict, Field, StrictFloat, StrictInt, StrictStr, model_validator

from regime.core import limits, units
from regime.core.errors import RegimeError, did_you_mean
from regime.core.names import member_id
from regime.core.yamlsrc import expect_mapping, line_at, line_of, load_yaml, validated
from regime.engine import lang
from regime.engine.knowledge import (
    BUILTIN,
    TEST_SUFFIX,
    Amendment,
    Claim,
    Knowledge,
    Lever,
    Parameter,
    Rule,
    layer_name,
    pack_files,
)
from regime.engine.lang import dimensions, overlap
from regime.engine.lang.template import parse_template
from regime.engine.report.spec import compile_sections
from regime.facts import catalogue
from regime.facts.vocabulary import FactSpec, Interval, Vocabulary, parse_specs

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
    range: str | None = None  # valid values, checked at declaration and on every override

    @model_validator(mode="after")
    def _one_shape(self) -> ParamModel:
        shapes = [x is not None for x in (self.value, self.table, self.list)]
        if sum(shapes) != 1:
            raise ValueError("a parameter has exactly one of value, table or list")
        if self.range is not None:
            Interval.parse(self.range)
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
    escalates: str | None = None  # a stronger form of this lever: same verdicts are said once


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
    replaces: str | None = None      # a layer rule taking the place of a loaded rule
    precedence: int = Field(default=0, ge=0, le=50)  # among rules concluding about one fact
    holds: tuple[str, ...] = ()     # finding: verdict kinds it makes conditional
    condition: str | None = None    # fix/reject: what the verdict depends on (a template)

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
        if self.holds and (kind != "finding" or set(self.holds) - {"fix", "reject"}):
            raise ValueError("'holds' belongs to finding rules and lists fix and/or reject")
        if self.condition is not None and kind not in ("fix", "reject"):
            raise ValueError("'condition' belongs to fix and reject rules")
        return self

    @property
    def kind(self) -> str:
        return next(k for k in KINDS if getattr(self, k) is not None) if self.claim is None \
            else "reject"


class OverrideModel(_Strict):
    parameters: dict[str, StrictFloat | StrictInt | StrictStr] = {}  # '60%', 0.6: unit-aware
    disable: tuple[str, ...] = ()     # rule ids or globs ('advise_*')
    and_when: dict[str, str] = {}     # rule id -> extra condition, joined with 'and'


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
    hardware: dict[str, Any] = {}    # catalogue entries this layer adds (same shape as the catalogue)
    models: dict[str, Any] = {}
    report: dict[str, Any] | None = None  # engine/report/spec.py


# ---- loading (the compiled types and pack_files live in regime.engine.knowledge) ----------------

__all__ = ["TEST_SUFFIX", "Amendment", "Claim", "Knowledge", "Lever", "Parameter", "Rule", "layer_name",
           "load_knowledge", "pack_files"]


Doc = tuple[Path, str, dict, "PackModel"]  # file, layer, raw mapping, validated shape


def load_knowledge(vocabulary: Vocabulary, dirs: Iterable[Path]) -> Knowledge:
    """Read each layer (a directory or file of packs) in order; later layers amend earlier ones.

    Declarations come first (facts, parameters, levers, claims, catalogue entries), then
    parameter overrides, then rules in load order: a rule with `replaces:` takes the place of
    the rule it names, `disable:` removes rules by id or glob, `and_when:` narrows a condition.
    """
    k = Knowledge(vocabulary)
    docs: list[Doc] = []
    for d in dirs:
        name = layer_name(d)
        if name not in k.layers:
            k.layers.append(name)
        docs += [(p, name, *_read_pack(p)) for p in pack_files([d])]
    for path, layer, raw, model in docs:
        _declare(k, path, layer, raw, model)
    for kind, entries in k.catalogue.items():  # checked now, not when a case first names one
        for name, (entry, file) in entries.items():
            catalogue.entry_facts(entry, k.vocabulary, "catalogue", f"{kind}: {name}", file)
    for path, layer, raw, model in docs:
        if model.overrides:
            _apply_overrides(k, path, layer, raw, model.overrides)
    k.findings = {b["finding"] for *_, m in docs for b in m.rules
                  if isinstance(b, dict) and isinstance(b.get("finding"), str)}
    placed: dict[str, Rule] = {}
    for path, layer, raw, model in docs:
        for i, body in enumerate(model.rules):
            _place(k, placed, _compile_rule(k, path, model.pack, raw["rules"], i, body, layer), body)
    for path, layer, raw, model in docs:
        if model.overrides:
            _disable(k, placed, path, layer, raw, model.overrides)
            _narrow(k, placed, path, layer, raw, model.overrides)
    k.rules = list(placed.values())
    _check_names(k)
    _check_derivations(k)
    for rule in k.rules:
        _check_template_guaranteed(rule, k.vocabulary)
    k.report = compile_sections([(str(p), raw["report"]) for p, _, raw, m in docs if m.report is not None],
                                parse_context(k))
    return k


def _place(k: Knowledge, placed: dict[str, Rule], rule: Rule, body: dict) -> None:
    """Add a compiled rule; with `replaces:` it takes the named rule's place (and id slot)."""
    old_id = body.get("replaces")
    if old_id is None:
        if rule.id in placed:
            prev = placed[rule.id]
            raise RegimeError(f"rule id '{rule.id}' is already used in {Path(prev.file).name}:{prev.line}"
                              f" ({prev.layer}); to amend it write 'replaces: {rule.id}'",
                              file=rule.file, line=rule.line, field="id")
        placed[rule.id] = rule
        return
    line = line_of(body, "replaces") or rule.line
    old = placed.get(old_id)
    if old is None:
        raise RegimeError(f"rule '{rule.id}' replaces unknown rule '{old_id}'{did_you_mean(old_id, placed)}"
                          "; a replacement names a rule loaded before it", file=rule.file, line=line,
                          field="replaces")
    if (old.kind, old.target) != (rule.kind, rule.target):
        what = f"derives {old.target}" if old.target else f"is a {old.kind} rule"
        raise RegimeError(f"rule '{rule.id}' replaces '{old_id}', which {what}; a replacement "
                          "concludes the same thing", file=rule.file, line=line, field="replaces")
    if rule.id != old_id and rule.id in placed:
        raise RegimeError(f"rule id '{rule.id}' is already used", file=rule.file, line=rule.line, field="id")
    placed[old_id] = rule  # keeps its place in load order
    if rule.id != old_id:
        placed[rule.id] = placed.pop(old_id)
    k.amendments.append(Amendment("replace", old_id, rule.layer, rule.file, line,
                                  f"{rule.id} ({Path(rule.file).name}:{rule.line}) replaces {old_id} "
                                  f"({Path(old.file).name}:{old.line}, {old.layer})"))


def _disable(k: Knowledge, placed: dict[str, Rule], path: Path, layer: str, raw: dict,
             ov: OverrideModel) -> None:
    line = line_of(raw.get("overrides"), "disable")
    for pattern in ov.disable:
        hits = [rid for rid in placed if fnmatch.fnmatchcase(rid, pattern)]
        if not hits:
            raise RegimeError(f"override disables unknown rule '{pattern}'{did_you_mean(pattern, placed)}",
                              file=str(path), line=line, field="overrides.disable")
        for rid in hits:
            del placed[rid]
            k.amendments.append(Amendment("disable", rid, layer, str(path), line,
                                          f"disabled by '{pattern}'"))


def _narrow(k: Knowledge, placed: dict[str, Rule], path: Path, layer: str, raw: dict,
            ov: OverrideModel) -> None:
    section = raw["overrides"].get("and_when") if ov.and_when else None
    for rid, extra in ov.and_when.items():
        line = line_of(section, rid)
        rule = placed.get(rid)
        if rule is None:
            raise RegimeError(f"and_when names unknown rule '{rid}'{did_you_mean(rid, placed)}",
                              file=str(path), line=line, field=f"overrides.and_when.{rid}")
        try:
            cond = _condition(extra, parse_context(k))
        except RegimeError as err:
            raise RegimeError(f"and_when of '{rid}': {err.message}", file=str(path), line=line,
                              field=f"overrides.and_when.{rid}") from None
        joined = cond if rule.when is None else lang.Expression(
            f"({rule.when.source}) and ({cond.source})", lang.BoolOp("and", (rule.when.tree, cond.tree)),
            "condition")
        placed[rid] = replace(rule, when=joined)
        k.amendments.append(Amendment("and_when", rid, layer, str(path), line, f"and {cond.source}"))


def _check_names(k: Knowledge) -> None:
    """A name means one thing: a fact or a parameter, never both; levers attack known resources."""
    for name in k.parameters:
        if name in k.vocabulary:
            file, line = k.where[f"parameter:{name}"]
            raise RegimeError(f"parameter '{name}' has the name of a declared fact "
                              f"({k.vocabulary.get(name).origin})", file=file, line=line, field=name)
    for lever in k.levers.values():
        if lever.escalates is not None and (lever.escalates not in k.levers or lever.escalates == lever.id):
            file, line = k.where[f"lever:{lever.id}"]
            raise RegimeError(f"lever '{lever.id}' escalates unknown lever '{lever.escalates}'"
                              f"{did_you_mean(lever.escalates, k.levers)}", file=file, line=line,
                              field=f"{lever.id}.escalates")
        for r in lever.attacks:
            if r not in k.resources:
                file, line = k.where[f"lever:{lever.id}"]
                raise RegimeError(f"lever '{lever.id}' attacks unknown resource '{r}'"
                                  f"{did_you_mean(r, k.resources)}", file=file, line=line,
                                  field=f"{lever.id}.attacks")


def _check_derivations(k: Knowledge) -> None:
    """Two rules deriving one fact must be exclusive or ordered by `precedence:`; otherwise
    which one wins would depend on firing order, silently."""
    by_target: dict[str, list[Rule]] = {}
    for rule in k.rules:
        if rule.kind == "derive":
            # mypy cannot see it: derive rules always name their target
            by_target.setdefault(rule.target, []).append(rule)  # type: ignore[arg-type]
    for target, rules in by_target.items():
        for i, a in enumerate(rules):
            for b in rules[i + 1:]:
                needs = overlap.presence_atoms([*a.required(), *b.required()])
                if a.precedence == b.precedence and not overlap.disjoint(_tree(a), _tree(b), needs):
                    raise RegimeError(
                        f"rules '{a.id}' ({Path(a.file).name}:{a.line}) and '{b.id}' "
                        f"({Path(b.file).name}:{b.line}) both derive {target} under overlapping "
                        "conditions; write 'replaces:' to amend one, give one a higher "
                        "'precedence:', or make their conditions exclusive",
                        file=b.file, line=b.line, field="derive", code="RG007")


def _tree(rule: Rule) -> lang.Node | None:
    return rule.when.tree if rule.when is not None else None


def _check_template_guaranteed(rule: Rule, vocabulary: Vocabulary) -> None:
    """A justification may only name facts the rule is sure to have when it fires."""
    sure = overlap.guaranteed(_tree(rule)) | set(rule.required())
    if rule.target:
        sure.add(rule.target)
    for f in rule.because.fields():
        if f.name not in vocabulary or f.key in sure:  # parameters are always known
            continue
        raise RegimeError(f"rule '{rule.id}': the justification names {{{_field_text(f)}}}, which its "
                          f"condition does not guarantee; add 'present({_field_ref(f)})' to 'when' or "
                          "take it out of the text", file=rule.file, line=rule.line, field="because",
                          code="RG006")


def _field_text(f) -> str:
    return f.name if f.member is None else f"{f.name}[{f.member}]"


def _field_ref(f) -> str:
    return f.name if f.member is None else f'{f.name}["{f.member}"]'


def _read_pack(path: Path) -> tuple[dict, PackModel]:
    raw = expect_mapping(load_yaml(path), str(path),
                         "a pack is a mapping with 'pack', 'description' and 'rules'")
    return raw, validated(PackModel, raw, str(path))


def _declare(k: Knowledge, path: Path, layer: str, raw: dict, model: PackModel) -> None:
    file = str(path)
    k.packs.append(model.pack)
    for kind, key in (("hardware", "hardware"), ("models", "models")):
        for name, entry in getattr(model, key).items():
            if not isinstance(entry, dict):
                raise RegimeError(f"{key} entry '{name}' must be a mapping of fact -> value", file=file,
                                  line=line_of(raw[key], name), field=f"{key}.{name}")
            k.catalogue.setdefault(kind, {})[name] = (entry, file)
            k.where[f"{kind}:{name}"] = (file, line_of(raw[key], name))
    if model.facts:
        specs: dict[str, FactSpec] = parse_specs(raw["facts"], file, origin=f"{path.name} ({model.pack})")
        k.vocabulary = k.vocabulary.extended(specs, file=file, lines=raw["facts"])
        k.where.update({f"fact:{n}": (file, line_of(raw["facts"], n)) for n in specs})
    for name, meaning in model.resources.items():
        if not ID.match(name) or name in k.resources:
            raise RegimeError(f"resource '{name}' must be a new lower_snake_case id", file=file,
                              line=line_of(raw["resources"], name), field=f"resources.{name}")
        k.resources[name] = meaning
    for name, body in model.parameters.items():
        _declare_one(k.parameters, name, raw["parameters"], file, "parameter",
                     lambda n, b, f, ln: _parameter(n, validated(ParamModel, b, f, line=ln, prefix=n),
                                                    model.pack, k.vocabulary, layer, f, ln), body, k.where)
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


def _parameter(name: str, m: ParamModel, pack: str, vocabulary: Vocabulary, layer: str, file: str,
               line: int | None) -> Parameter:
    if name in vocabulary:
        raise ValueError(f"parameter '{name}' shadows a declared fact")
    if m.unit not in ("1", "%", units.FRACTION):
        units.check_unit(m.unit)
    p = Parameter(name, m.meaning, m.source, pack, m.unit, m.display, m.value, m.table, m.list,
                  layer, m.range, file, line)
    if m.value is not None and not p.interval.contains(m.value):
        raise RegimeError(f"{m.value:g} is outside the parameter's range {_show_range(p)}", field=name,
                          code="RG002")
    return p


def _show_range(p: Parameter) -> str:
    iv, unit = p.interval, _canonical(p.unit)
    ends = [units.format_quantity(x, unit, p.display or _percent(unit)) if abs(x) != math.inf
            else ("-inf" if x < 0 else "inf") for x in (iv.lo, iv.hi)]
    return f"{'(' if iv.lo_open else '['}{ends[0]}, {ends[1]}{')' if iv.hi_open else ']'}"


def _canonical(unit: str) -> str:
    return units.FRACTION if unit == "%" else unit


def _percent(unit: str) -> str | None:
    return "%" if unit == units.FRACTION else None


def _apply_overrides(k: Knowledge, path: Path, layer: str, raw: dict, ov: OverrideModel) -> None:
    """A parameter override is read like a case value: '60%' and 0.6 alike, range-checked."""
    section = raw["overrides"].get("parameters") if ov.parameters else None
    for name, written in ov.parameters.items():
        p = k.parameters.get(name)
        line = line_of(section, name)
        where = f"overrides.parameters.{name}"
        if p is None or p.value is None:
            raise RegimeError(f"override of unknown scalar parameter '{name}'"
                              f"{did_you_mean(name, k.scalar_values())}", file=str(path),
                              line=line, field=where)
        try:
            value = units.parse_quantity(written, _canonical(p.unit)).value
        except ValueError as err:
            raise RegimeError(str(err), file=str(path), line=line, field=where) from None
        if not p.interval.contains(value):
            raise RegimeError(f"{units.short(written)} is outside {name}'s range {_show_range(p)}",
                              file=str(path), line=line, field=where, code="RG002")
        k.parameters[name] = replace(p, value=value, layer=layer, file=str(path), line=line,
                                     source=f"{p.source}; overridden by {path.name} ({layer})")
        was = units.format_quantity(p.value, _canonical(p.unit), p.display or _percent(_canonical(p.unit)))
        now = units.format_quantity(value, _canonical(p.unit), p.display or _percent(_canonical(p.unit)))
        k.amendments.append(Amendment("override", name, layer, str(path), line, f"{was} -> {now}"))


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


def _compile_rule(k: Knowledge, path: Path, pack: str, section: list, index: int, body: Any,
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

    when = located("when", lambda: _condition(m.when, ctx)) if m.when is not None else None
    scalars = {n: p.unit for n, p in k.parameters.items() if p.value is not None}
    rule = Rule(id=m.id, kind=m.kind, pack=pack, file=file, line=line, layer=layer,
                precedence=m.precedence, description=m.description, refs=m.refs, when=when,
                holds=m.holds,
                because=located("because", lambda: parse_template(m.because, k.vocabulary, scalars)),
                condition=located("condition", lambda: parse_template(m.condition, k.vocabulary, scalars))
                if m.condition is not None else None)
    located("bound", lambda: [_bound_field(b, k.vocabulary) for b in m.bound])
    return located("claim" if m.claim is not None else m.kind, lambda: _conclusion(k, ctx, m, rule))


def _condition(source: str, ctx: lang.Context) -> lang.Expression:
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
            formula = lang.parse(m.formula, ctx, "formula")
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
        return replace(rule, subject=m.fix, priority=m.priority,
                       bound=tuple(_bound_field(b, k.vocabulary) for b in m.bound))
    if m.kind == "reject":
        if m.reject is not None:
            _known(m.reject, k.levers, "lever")
            return replace(rule, subject=m.reject)
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
        raise RegimeError(f"unknown {what} '{name}'{did_you_mean(name or '', table)}; a new {what} is "
                          f"declared under '{what}s:' in a pack (see regime list {what}s)")

"""Rule packs loaded: each layer read, declared, amended and checked, in order, into the
Knowledge the sessions run. Shapes are knowledge/shapes.py, each rule's compile knowledge/compile.py;
a pack error names the file, line, rule id and field."""

from __future__ import annotations

import fnmatch
import math
from collections.abc import Iterable
from dataclasses import replace
from pathlib import Path

from regime.core import units
from regime.core.errors import RegimeError, did_you_mean
from regime.core.yamlsrc import expect_mapping, line_of, load_yaml, validated
from regime.engine import lang
from regime.engine.knowledge.compile import compile_rule, condition, parse_context
from regime.engine.knowledge.model import (
    Amendment,
    Claim,
    FixOrder,
    Knowledge,
    Lever,
    Parameter,
    Rule,
    layer_name,
    pack_files,
)
from regime.engine.knowledge.shapes import ID, ClaimModel, LeverModel, OverrideModel, PackModel, ParamModel
from regime.engine.knowledge.spec import compile_sections
from regime.engine.lang import overlap
from regime.facts import catalogue
from regime.facts.vocabulary import FactSpec, Vocabulary, parse_specs

__all__ = ["load_knowledge", "parse_context"]


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
            _place(k, placed, compile_rule(k, path, model.pack, raw["rules"], i, body, layer), body)
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
    for path, _, raw, model in docs:
        if model.fix_order is not None:
            k.fix_order = _fix_order(k, path, raw, model)
    return k


def _fix_order(k: Knowledge, path: Path, raw: dict, model: PackModel) -> FixOrder:
    """A pack's `fix_order:`: a category fact, and per value the levers that lead and trail."""
    spec, line = model.fix_order, line_of(raw, "fix_order")
    assert spec is not None
    fact = k.vocabulary.specs.get(spec.by)
    if fact is None or fact.kind != "category":
        raise RegimeError(f"'{spec.by}' is not a category fact", file=str(path), line=line,
                          field="fix_order.by")
    for value, order in spec.orders.items():
        where = f"fix_order.orders.{value}"
        if value not in fact.values:
            raise RegimeError(f"'{value}' is not a value of {spec.by} ({', '.join(fact.values)})",
                              file=str(path), line=line, field=where)
        for lever in (*order.first, *order.last):
            if lever not in k.levers:
                raise RegimeError(f"unknown lever '{lever}'{did_you_mean(lever, k.levers)}",
                                  file=str(path), line=line, field=where)
        if set(order.first) & set(order.last) or len(set(order.first)) < len(order.first) \
                or len(set(order.last)) < len(order.last):
            raise RegimeError("a lever is listed twice", file=str(path), line=line, field=where)
    return FixOrder(spec.by, {v: o.first for v, o in spec.orders.items()},
                    {v: o.last for v, o in spec.orders.items()})


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
            cond = condition(extra, parse_context(k))
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
    """A justification may only name facts the rule is sure to have when it fires (a variant:
    also those its own condition guarantees)."""
    sure = overlap.guaranteed(_tree(rule)) | set(rule.required())
    if rule.target:
        sure.add(rule.target)
    texts = [(rule.because, sure, "because")] + [
        (text, sure | overlap.guaranteed(when.tree), f"because_if[{i}]")
        for i, (when, text) in enumerate(rule.because_if)]
    for template, known, key in texts:
        for f in template.fields():
            if f.name not in vocabulary or f.key in known:  # parameters are always known
                continue
            raise RegimeError(f"rule '{rule.id}': the justification names {{{_field_text(f)}}}, which "
                              f"its condition does not guarantee; add 'present({_field_ref(f)})' to "
                              "'when' or take it out of the text", file=rule.file, line=rule.line,
                              field=key, code="RG006")


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
                  layer, m.range, file, line, m.say)
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
            parsed = units.parse_quantity(written, _canonical(p.unit))
        except ValueError as err:
            raise RegimeError(str(err), file=str(path), line=line, field=where) from None
        value = parsed.value
        if not p.interval.contains(value):
            raise RegimeError(f"{units.short(written)} is outside {name}'s range {_show_range(p)}"
                              f"{parsed.share_hint(_canonical(p.unit))}",
                              file=str(path), line=line, field=where, code="RG002")
        k.parameters[name] = replace(p, value=value, layer=layer, file=str(path), line=line,
                                     source=f"{p.source}; overridden by {path.name} ({layer})")
        was = units.format_quantity(p.value, _canonical(p.unit), p.display or _percent(_canonical(p.unit)))
        now = units.format_quantity(value, _canonical(p.unit), p.display or _percent(_canonical(p.unit)))
        k.amendments.append(Amendment("override", name, layer, str(path), line, f"{was} -> {now}"))

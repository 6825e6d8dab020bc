"""`regime list WHAT`: what the loaded knowledge holds, with where each item is declared."""

from __future__ import annotations

import contextlib
from enum import StrEnum
from pathlib import Path
from typing import Annotated, Any

import typer

from regime.core import units
from regime.core.errors import RegimeError
from regime.core.escape import one_line
from regime.core.yamlsrc import line_of, load_yaml
from regime.engine import api
from regime.engine.cli import core, writers
from regime.engine.cli.options import FormatOpt, RulesOpt, exit_with, value
from regime.engine.knowledge.model import Knowledge
from regime.engine.knowledge.paths import builtin_cases
from regime.facts.catalogue import CATALOGUE_DIR
from regime.facts.vocabulary import VOCABULARY_FILE

PACKAGE_ROOT = Path(VOCABULARY_FILE).resolve().parent.parent  # where rules/, facts/, cases/ live


class What(StrEnum):
    facts = "facts"
    hardware = "hardware"
    models = "models"
    levers = "levers"
    claims = "claims"
    rules = "rules"
    parameters = "parameters"
    cases = "cases"


def list_(
    what: Annotated[What, typer.Argument(help="What to list.")],
    fmt: FormatOpt = core.FORMAT.default,
    rules: RulesOpt = None,
) -> None:
    """List facts, hardware, models, levers, claims, rules, parameters or built-in cases."""
    try:
        k = api.knowledge(rules or [])
        items = ITEMS[what](k)
    except RegimeError as err:
        exit_with(core.refuse(err, value(fmt)))
        return
    writers.emit(writers.Output(items, {"items": len(items)}, text=lambda: _text(what, items),
                                markdown=lambda: _markdown(what, items)), value(fmt))


def _text(what: What, items: list[dict[str, Any]]) -> str:
    """One line per item: its name, its non-empty fields, where it is declared."""
    from regime.engine.cli.writers import text
    return text.lines(one_line(_line(what, item)) for item in items)


def _line(what: What, item: dict[str, Any]) -> str:
    extra = [f"{key}: {_cell(item[key])}" for key in TEXT_FIELDS[what] if _cell(item.get(key))]
    return "  ".join([item["name"], *extra, f"({item['where']})"])


def _markdown(what: What, items: list[dict[str, Any]]) -> str:
    """A table: name, the fields the text shows, where."""
    from regime.engine.cli.writers import markdown
    columns = ("name", *TEXT_FIELDS[what], "where")
    return markdown.heading(f"regime list {what.value}") + markdown.table(
        columns, ([_cell(item.get(c)) for c in columns] for item in items))


def _cell(value: Any) -> str:
    if value in (None, "", []):
        return ""
    return ", ".join(map(str, value)) if isinstance(value, list) else str(value)


def _where(file: str | None, line: int | None) -> str:
    """file:line, a built-in file relative to the package (`rules/x.yaml:3`, not a site-packages path)."""
    shown = file or "<unknown>"
    with contextlib.suppress(ValueError):
        shown = Path(shown).resolve().relative_to(PACKAGE_ROOT).as_posix()
    return f"{shown}:{line or 0}"


def facts(k: Knowledge) -> list[dict[str, Any]]:
    """Inputs (what a case, catalogue or trace gives) first, then what rules derive."""
    base = load_yaml(VOCABULARY_FILE)["facts"]
    derived = {r.target for r in k.rules if r.kind in ("derive", "diagnose")}
    out = []
    for name, s in sorted(k.vocabulary.specs.items(), key=lambda kv: (kv[0] in derived, kv[0])):
        file, line = k.where.get(f"fact:{name}", (str(VOCABULARY_FILE), line_of(base, name)))
        out.append({"name": name, "role": "derived" if name in derived else "input", "kind": s.kind,
                    "unit": s.display or s.unit, "range": s.range, "values": list(s.values) or None,
                    "meaning": s.meaning, "source": s.origin, "where": _where(file, line)})
    return out


def _catalogue(kind: str, k: Knowledge) -> list[dict[str, Any]]:
    path = CATALOGUE_DIR / f"{kind}.yaml"
    doc = load_yaml(path)
    section = doc["gpus" if kind == "hardware" else "models"]
    entries = {n: (e, str(path), line_of(section, n)) for n, e in section.items()}
    for n, (e, file) in k.catalogue.get(kind, {}).items():
        entries[n] = (e, file, k.where.get(f"{kind}:{n}", (file, None))[1])
    out = []
    for name, (entry, file, line) in sorted(entries.items()):
        facts = [key for key in entry if key not in ("name", "aliases", "source")]
        out.append({"name": name, "display": entry.get("name"), "aliases": list(entry.get("aliases", [])),
                    "facts": facts, "source": entry.get("source"), "where": _where(file, line)})
    return out


def levers(k: Knowledge) -> list[dict[str, Any]]:
    return [{"name": n, "meaning": v.meaning, "attacks": list(v.attacks), "aliases": list(v.aliases),
             "where": _where(*k.where.get(f"lever:{n}", (None, None)))} for n, v in sorted(k.levers.items())]


def claims(k: Knowledge) -> list[dict[str, Any]]:
    return [{"name": n, "text": c.text, "aliases": list(c.aliases),
             "where": _where(*k.where.get(f"claim:{n}", (None, None)))} for n, c in sorted(k.claims.items())]


def rules(k: Knowledge) -> list[dict[str, Any]]:
    return [{"name": r.id, "kind": r.kind, "about": r.subject or r.target, "layer": r.layer, "pack": r.pack,
             "when": r.when.source if r.when else None, "meaning": " ".join(r.description.split()),
             "where": _where(r.file, r.line)} for r in k.rules]


def parameters(k: Knowledge) -> list[dict[str, Any]]:
    out = []
    for name, p in sorted(k.parameters.items()):
        unit = units.FRACTION if p.unit == "%" else p.unit
        value = (units.format_quantity(p.value, unit, p.display or ("%" if unit == units.FRACTION else None))
                 if p.value is not None else p.table or list(p.items or ()))
        out.append({"name": name, "value": value, "unit": p.unit, "range": str(p.interval),
                    "meaning": p.meaning, "source": p.source, "pack": p.pack, "layer": p.layer,
                    "where": _where(p.file, p.line)})
    return out


def cases(k: Knowledge) -> list[dict[str, Any]]:
    out = []
    for path in builtin_cases():
        doc = load_yaml(path)
        out.append({"name": path.stem, "title": doc.get("title") if isinstance(doc, dict) else None,
                    "where": _where(str(path), 1)})
    return out


ITEMS = {What.facts: facts, What.hardware: lambda k: _catalogue("hardware", k),
         What.models: lambda k: _catalogue("models", k), What.levers: levers, What.claims: claims,
         What.rules: rules, What.parameters: parameters, What.cases: cases}
TEXT_FIELDS = {What.facts: ("role", "kind", "unit", "range", "values", "meaning"),
               What.hardware: ("display", "aliases"),
               What.models: ("display", "aliases"), What.levers: ("meaning", "aliases"),
               What.claims: ("text",), What.rules: ("kind", "about", "layer"),
               What.parameters: ("value", "range", "meaning", "layer"), What.cases: ("title",)}

"""Hardware and model catalogues: YAML data with a source for every number."""

from __future__ import annotations

from functools import cache
from pathlib import Path
from typing import Any

from regime.core import units
from regime.core.errors import RegimeError, did_you_mean
from regime.core.names import member_id
from regime.core.yamlsrc import line_of, load_yaml
from regime.facts.record import FactRecord, Source
from regime.facts.vocabulary import Vocabulary

CATALOGUE_DIR = Path(__file__).with_name("catalogue")
_META = {"name", "aliases", "source"}


@cache
def _load(kind: str) -> tuple[str, dict[str, Any]]:
    path = CATALOGUE_DIR / f"{kind}.yaml"
    doc = load_yaml(path)
    top = "gpus" if kind == "hardware" else "models"
    if not isinstance(doc, dict) or not isinstance(doc.get(top), dict):
        raise RegimeError(f"catalogue must have a top-level '{top}' mapping", file=str(path))
    return str(path), doc[top]


def names(kind: str) -> list[str]:
    return sorted(_load(kind)[1])


def lookup(kind: str, name: str) -> tuple[str, dict]:
    """Find a catalogue entry by key, display name or alias (case-insensitive)."""
    _, entries = _load(kind)
    wanted = name.strip().lower()
    for key, entry in entries.items():
        spellings = {key.lower(), str(entry.get("name", "")).lower(),
                     *(str(a).lower() for a in entry.get("aliases", []))}
        if wanted in spellings:
            return key, entry
    every = [*entries, *(str(e.get("name")) for e in entries.values())]
    what = "GPU" if kind == "hardware" else "model"
    raise RegimeError(f"unknown {what} '{name}'{did_you_mean(name, every)}; "
                      f"known: {', '.join(sorted(entries))}")


def entry_facts(entry: dict, vocabulary: Vocabulary, source: Source, origin: str,
                file: str) -> list[FactRecord]:
    """Turn a catalogue (or inline) entry into fact records; field names are fact names."""
    default_source = str(entry.get("source", origin))
    out: list[FactRecord] = []
    for key, raw in entry.items():
        if key in _META:
            continue
        line = line_of(entry, key)
        spec = vocabulary.get(key, file=file, line=line, field=key)
        if spec.kind == "group":
            if not isinstance(raw, dict):
                raise RegimeError("expected a mapping of member -> value", file=file, line=line, field=key)
            for member, body in raw.items():
                out.append(_record(f"{key}__{member_id(member)}", body, spec.unit, spec.range,
                                   source, default_source, file, line_of(raw, member), f"{key}.{member}"))
        else:
            out.append(_record(key, raw, spec.unit, spec.range, source, default_source, file, line, key))
    return out


def _record(name: str, raw: Any, unit: str, rng: str, source: Source, default_source: str,
            file: str, line: int | None, where: str) -> FactRecord:
    src = default_source
    if isinstance(raw, dict):
        src = str(raw.get("source", default_source))
        raw = raw.get("value")
    try:
        parsed = units.parse_quantity(raw, unit)
    except ValueError as err:
        raise RegimeError(str(err), file=file, line=line, field=where) from None
    from regime.facts.vocabulary import Interval
    if not Interval.parse(rng).contains(parsed.value):
        raise RegimeError(f"{parsed.written} is outside the valid range {rng} {unit}",
                          file=file, line=line, field=where)
    return FactRecord(name, parsed.value, unit, source, src, written=parsed.written)

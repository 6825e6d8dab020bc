"""Hardware and model catalogues: YAML data with a source for every number."""

from __future__ import annotations

import contextlib
import functools
from pathlib import Path
from typing import Any

from regime.core import units
from regime.core.errors import Collector, RegimeError, did_you_mean
from regime.core.names import member_id
from regime.core.yamlsrc import line_of, load_yaml
from regime.facts.record import FactRecord, Source
from regime.facts.vocabulary import Interval, Vocabulary

CATALOGUE_DIR = Path(__file__).with_name("catalogue")
# Profilers' device names → hardware entries. Beside the catalogue rather than in it: it holds
# no entries, so it is neither schema-checked as one nor part of what grades a case.
DEVICE_NAMES_FILE = Path(__file__).with_name("device_names.yaml")
_META = {"name", "aliases", "source"}


KINDS = ("hardware", "models")
_LOADED: dict[str, tuple[str, dict[str, Any]]] = {}  # kind -> (file, entries), read once


def _load(kind: str) -> tuple[str, dict[str, Any]]:
    if kind not in _LOADED:
        path = CATALOGUE_DIR / f"{kind}.yaml"
        doc = load_yaml(path)
        top = "gpus" if kind == "hardware" else "models"
        if not isinstance(doc, dict) or not isinstance(doc.get(top), dict):
            raise RegimeError(f"catalogue must have a top-level '{top}' mapping", file=str(path), line=1)
        _LOADED[kind] = (str(path), doc[top])
    return _LOADED[kind]


def loaded() -> dict[str, tuple[str, dict[str, Any]]]:
    """Every catalogue that reads cleanly, parsed (the knowledge cache keeps them)."""
    for kind in KINDS:
        with contextlib.suppress(RegimeError):  # reported, with its line, when a case needs it
            _load(kind)
    return dict(_LOADED)


def preload(parsed: dict[str, tuple[str, dict[str, Any]]]) -> None:
    """Take catalogues parsed by an earlier run from the same files (see knowledge_cache)."""
    _LOADED.update(parsed)


def names(kind: str) -> list[str]:
    return sorted(_load(kind)[1])


def lookup(kind: str, name: str, extra: dict[str, dict] | None = None) -> tuple[str, dict]:
    """Find a catalogue entry by key, display name or alias (case-insensitive); `extra` holds
    entries that knowledge layers add (they win over built-in entries of the same key)."""
    entries = {**_load(kind)[1], **(extra or {})}
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


@functools.cache
def _device_patterns() -> tuple[tuple[tuple[str, ...], tuple[str, ...], str, str], ...]:
    path = DEVICE_NAMES_FILE
    doc = load_yaml(path)
    rows = doc.get("patterns") if isinstance(doc, dict) else None
    if not isinstance(rows, list):
        raise RegimeError("a device-name table has a 'patterns' list", file=str(path), line=1)
    out = []
    for i, row in enumerate(rows):
        ok = (isinstance(row, dict) and isinstance(row.get("all"), list) and row["all"]
              and all(isinstance(x, str) and x for x in [*row["all"], *row.get("none", [])])
              and isinstance(row.get("entry"), str) and isinstance(row.get("because"), str))
        if not ok:
            raise RegimeError("a pattern has `all` (non-empty substrings), optional `none`, `entry` and "
                              "`because`", file=str(path), line=getattr(row, "line", None),
                              field=f"patterns[{i}]")
        out.append((tuple(x.lower() for x in row["all"]), tuple(x.lower() for x in row.get("none", [])),
                    row["entry"], " ".join(row["because"].split())))
    return tuple(out)


def device_pattern(name: str) -> tuple[str, str] | None:
    """(hardware entry, why) for a device name a profiler wrote that no entry names or aliases,
    by the substring table in facts/device_names.yaml; None when no pattern matches."""
    low = name.lower()
    for every, none, entry, because in _device_patterns():
        if all(s in low for s in every) and not any(s in low for s in none):
            return entry, because
    return None


def entry_facts(entry: dict, vocabulary: Vocabulary, source: Source, origin: str,
                file: str, prefix: str = "") -> list[FactRecord]:
    """Turn a catalogue (or inline) entry into fact records; field names are fact names.

    An entry describes a device or a model: its facts are numbers and groups of numbers.
    Categories (what phase, which regime) belong to a case's `facts:`. Every bad field is
    reported, not just the first.
    """
    default_source = str(entry.get("source", origin))
    errors = Collector()
    out: list[FactRecord] = []
    for key, raw in entry.items():
        if key not in _META:
            out.extend(errors.run(_entry_field, key, raw, entry, vocabulary, source, default_source,
                                  file, prefix) or ())
    errors.raise_if_any()
    return out


def _entry_field(key: str, raw: Any, entry: dict, vocabulary: Vocabulary, source: Source,
                 default_source: str, file: str, prefix: str) -> list[FactRecord]:
    line = line_of(entry, key)
    spec = vocabulary.get(key, file=file, line=line, field=prefix + key)
    if not spec.numeric:
        raise RegimeError(f"'{key}' is a {spec.kind} fact; hardware and model entries hold numbers "
                          "(set categories under the case's facts:)", file=file, line=line,
                          field=prefix + key)
    if spec.kind != "group":
        return [_record(key, raw, spec.unit, spec.range, source, default_source, file, line, prefix + key)]
    if not isinstance(raw, dict) or not raw:
        raise RegimeError("expected a mapping of member -> value", file=file, line=line, field=prefix + key)
    out = []
    for member, body in raw.items():
        where, member_line = f"{prefix}{key}.{member}", line_of(raw, member) or line
        try:
            name = f"{key}__{member_id(member)}"
        except ValueError as err:
            raise RegimeError(str(err), file=file, line=member_line, field=where) from None
        out.append(_record(name, body, spec.unit, spec.range, source, default_source, file, member_line,
                           where))
    return out


def _record(name: str, raw: Any, unit: str, rng: str, source: Source, default_source: str,
            file: str, line: int | None, where: str) -> FactRecord:
    src = default_source
    if isinstance(raw, dict):
        unknown = sorted(set(raw) - {"value", "source"})
        if unknown or "value" not in raw:
            raise RegimeError("a sourced value is written {value: '3.35 TB/s', source: '...'}"
                              + (f"; unknown key '{unknown[0]}'" if unknown else ""),
                              file=file, line=line, field=where)
        src = str(raw.get("source", default_source))
        raw = raw["value"]
    try:
        parsed = units.parse_quantity(raw, unit)
    except ValueError as err:
        raise RegimeError(str(err), file=file, line=line, field=where) from None
    if not Interval.parse(rng).contains(parsed.value):
        raise RegimeError(f"{parsed.written} is outside the valid range {rng} {unit}"
                          f"{parsed.share_hint(unit)}",
                          file=file, line=line, field=where)
    return FactRecord(name, parsed.value, unit, source, src, written=parsed.written)

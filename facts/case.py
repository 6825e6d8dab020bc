"""Case files: the pydantic schema and the conversion to validated, canonical facts."""

from __future__ import annotations

import math
import re
from dataclasses import field
from pathlib import Path
from typing import Any

from regime.core import units
from regime.core.errors import Collector, RegimeError, did_you_mean, one_input
from regime.core.names import file_id, member_id
from regime.core.record import Fields, mutable_record
from regime.core.shape import Key, checked
from regime.core.yamlsrc import LineDict, expect_mapping, line_at, line_of, load_yaml
from regime.facts import catalogue, hf_config
from regime.facts.record import FactRecord
from regime.facts.vocabulary import FactSpec, Vocabulary

CASE_ID = re.compile(r"^[a-z0-9][a-z0-9_\-]{0,63}$")


_EMPTY = type(None)
# The shape of a case file; values are checked against the vocabulary afterwards.
CASE_KEYS = {
    "id": Key((str, _EMPTY), None),
    "title": Key((str,)),
    "summary": Key((str,), ""),
    "hardware": Key((str, dict, _EMPTY), None),
    "model": Key((str, dict, _EMPTY), None),
    "facts": Key((dict,), {}),
    "proposals": Key((list,), [], items=str),
    "claims": Key((list,), [], items=str),
    "sources": Key((dict,), {}),   # fact -> where it was measured (`regime trace` writes these)
    "profile": Key((dict,), {}),   # what a measuring tool saw, for people; the engine ignores it
}


@mutable_record
class Case(Fields):
    """A case as loaded: its facts, proposals and where each was written. (A docstring also keeps
    `dataclasses` from building one from the signature: 2-3 ms of tokenizer at every start.)"""

    id: str
    title: str
    path: str
    summary: str = ""
    hardware: str | None = None
    model: str | None = None
    facts: dict[str, FactRecord] = field(default_factory=dict)


def load_case(path: Path, vocabulary: Vocabulary, levers: dict[str, Any],
              claims: dict[str, Any], extra: dict[str, dict[str, tuple[dict, str]]] | None = None,
              raw: dict | None = None, text: str | None = None) -> Case:
    """Parse and validate one case file. Raises RegimeError naming file, line and field; a case
    with several mistakes raises RegimeErrors with one error for each.

    `extra` maps 'hardware'/'models' to catalogue entries added by knowledge layers, each with
    the file it came from. `raw` is a case body already read (a pack test's inline case);
    `text` is the file's text read elsewhere (a cluster worker is sent content, not paths)."""
    with one_input():  # a case with 20,000 mistakes is refused as fast as one with ten
        return _load_case(path, vocabulary, levers, claims, extra, raw, text)


def _load_case(path: Path, vocabulary: Vocabulary, levers: dict[str, Any], claims: dict[str, Any],
               extra: dict[str, dict[str, tuple[dict, str]]] | None, raw: dict | None,
               text: str | None = None) -> Case:
    file = str(path)
    raw = expect_mapping(load_yaml(path, text) if raw is None else raw, file,
                         "a case file is a mapping with at least 'title' and 'facts'")
    errors = Collector()
    model = errors.run(checked, raw, CASE_KEYS, file)
    case_id = str(raw.get("id") or file_id(path.stem))
    if not CASE_ID.match(case_id):
        said = (f"case id '{case_id}' must be" if raw.get("id") else
                f"the file name '{path.name}' gives the id '{case_id}', which is not; write an `id:` of")
        errors.errors.append(RegimeError(f"{said} 1-64 lower case letters, digits, _ or -",
                                         file=file, line=line_of(raw, "id") or 1, field="id"))
    case = Case(case_id, str(raw.get("title", "")), file, " ".join(str(raw.get("summary", "")).split()))
    for kind, key in (("hardware", "hardware"), ("models", "model")):
        if isinstance(raw.get(key), str | dict):  # the raw mapping keeps its lines for errors
            found = errors.run(_catalogue_facts, kind, raw[key], vocabulary, raw, key, file,
                               (extra or {}).get(kind, {}))
            _add_all(case, found)
            if found is not None:
                setattr(case, key, _entry_name(kind, raw[key], (extra or {}).get(kind, {}), file))
    facts = raw.get("facts") or LineDict()
    if isinstance(facts, dict):
        given = raw.get("sources")
        sources: dict[str, Any] = given if isinstance(given, dict) else {}
        _add_all(case, _case_facts(facts, vocabulary, file, errors, sources))
    for spec in vocabulary.specs.values():  # flags facts say which list fills them
        if spec.kind == "flags":
            key = "proposals" if spec.of == "levers" else "claims"
            listed = raw.get(key) or []
            if isinstance(listed, list) and all(isinstance(x, str) for x in listed):
                known = levers if spec.of == "levers" else claims
                _add_all(case, _flags(spec.name, listed, known, raw, key, file, errors))
    errors.raise_if_any()
    assert model is not None  # no error was collected, so validation succeeded
    return case


def _add_all(case: Case, records: list[FactRecord] | None) -> None:
    for r in records or ():
        case.facts[r.name] = r  # case facts come last: measured beats catalogue


def _catalogue_facts(kind: str, ref: str | dict, vocabulary: Vocabulary, raw: dict, key: str,
                     file: str, extra: dict[str, tuple[dict, str]]) -> list[FactRecord]:
    line = line_of(raw, key)
    if kind == "models" and hf_config.is_config_ref(ref):
        return _config_facts(str(ref), vocabulary, file, line, key)
    if isinstance(ref, str):
        try:
            name, entry = catalogue.lookup(kind, ref, {n: e for n, (e, _) in extra.items()})
        except RegimeError as err:
            raise err.located(file=file, line=line, field=key) from None
        cat_file = extra[name][1] if name in extra else str(catalogue.CATALOGUE_DIR / f"{kind}.yaml")
        records = catalogue.entry_facts(entry, vocabulary, "catalogue", f"{kind} catalogue: {name}",
                                        cat_file)
        return records
    return catalogue.entry_facts(ref, vocabulary, "measured", f"{Path(file).name} (inline {key})", file,
                                 prefix=f"{key}.")


def _config_facts(ref: str, vocabulary: Vocabulary, file: str, line: int | None,
                  key: str) -> list[FactRecord]:
    """A model named by its Hugging Face config.json, relative to the case."""
    try:
        shape = hf_config.read(hf_config.resolve(ref, file))
        return hf_config.records(shape, vocabulary, f"{ref} ({shape.arch})")
    except RegimeError as err:
        raise err.located(file=file, line=line, field=key) from None


def _entry_name(kind: str, ref: str | dict, extra: dict[str, tuple[dict, str]], file: str = "") -> str:
    """What a report calls the hardware or model: the catalogue's name, the config's, or 'inline'."""
    if kind == "models" and hf_config.is_config_ref(ref):
        return hf_config.display_name(hf_config.read(hf_config.resolve(str(ref), file)))
    if isinstance(ref, str):
        key, entry = catalogue.lookup(kind, ref, {n: e for n, (e, _) in extra.items()})
        return str(entry.get("name", key))
    return str(ref.get("name", "inline"))


def _case_facts(section: dict, vocabulary: Vocabulary, file: str, errors: Collector,
                sources: dict[str, Any]) -> list[FactRecord]:
    out: list[FactRecord] = []
    for name, raw in section.items():
        if errors.full and name not in vocabulary:  # past the cap: counted, no did-you-mean search
            errors.count("unknown fact")
            continue
        line = line_of(section, name)
        origin = str(sources.get(name) or f"{Path(file).name}:{line}")  # `sources:` says where measured
        out.extend(errors.run(_case_fact, name, raw, vocabulary, file, line, origin) or ())
    return out


def _case_fact(name: str, raw: Any, vocabulary: Vocabulary, file: str, line: int | None,
               origin: str) -> list[FactRecord]:
    where = f"facts.{name}"
    spec = vocabulary.get(name, file=file, line=line, field=where)
    try:
        return one_fact(spec, raw, origin)
    except ValueError as err:
        raise RegimeError(str(err), file=file, line=line, field=where) from None
    except RegimeError as err:
        raise err.located(file=file, line=line, field=where) from None


def one_fact(spec: FactSpec, raw: Any, origin: str) -> list[FactRecord]:
    """The records one written value gives a fact (a group gives one per member); ValueError if bad."""
    if spec.kind == "category":
        if not isinstance(raw, str) or raw not in spec.values:
            raise ValueError(f"{units.short(raw)!r} is not one of {', '.join(spec.values)}"
                             f"{did_you_mean(units.short(raw), spec.values)}")
        return [FactRecord(spec.name, raw, "category", "measured", origin, written=raw)]
    if spec.kind == "flags":
        raise ValueError(f"'{spec.name}' is set by the case's '{spec.of}' list, not under facts")
    if spec.kind == "group":
        if not isinstance(raw, dict) or not raw:
            raise ValueError("expected a mapping of member -> value, e.g. {layer_norm: 8%}")
        records = [_number(spec, body, origin, f"{spec.name}__{member_id(m)}", m)
                   for m, body in raw.items()]
        _check_sum(spec, records)
        return records
    return [_number(spec, raw, origin, spec.name)]


def _number(spec: FactSpec, raw: Any, origin: str, name: str, member: str | None = None) -> FactRecord:
    label = f"{member}: " if member else ""
    low = high = None
    if isinstance(raw, dict):
        unknown = set(raw) - {"range", "typical"}
        if unknown or "range" not in raw:
            raise ValueError("a range is written {range: '8-15 us', typical: '11 us'} (typical optional)")
        span = units.parse_quantity(raw["range"], spec.unit)
        low, high = span.low, span.high
        parsed = units.parse_quantity(raw["typical"], spec.unit) if "typical" in raw else span
        written = f"{raw['range']} (typical {raw.get('typical', 'midpoint')})"
    else:
        parsed = units.parse_quantity(raw, spec.unit)
        low, high, written = parsed.low, parsed.high, parsed.written
    for v in (parsed.value, low, high):
        if v is not None and not spec.interval.contains(v):
            raise ValueError(f"{label}{written} is outside the valid range {_show_range(spec)}"
                             f"{parsed.share_hint(spec.unit)}")
    return FactRecord(name, parsed.value, spec.unit, "measured", origin, low=low, high=high,
                      written=written)


def _show_range(spec: FactSpec) -> str:
    iv = spec.interval
    ends = [units.format_quantity(x, spec.unit, spec.display) if abs(x) != float("inf") else
            ("-inf" if x < 0 else "inf") for x in (iv.lo, iv.hi)]
    return f"{'(' if iv.lo_open else '['}{ends[0]}, {ends[1]}{')' if iv.hi_open else ']'}"


def _check_sum(spec: FactSpec, records: list[FactRecord]) -> None:
    if spec.sum_max is None:
        return
    total = math.fsum(float(r.value) for r in records)
    if total > spec.sum_max + 1e-9:
        raise ValueError(f"members add up to {units.format_quantity(total, spec.unit, spec.display)}, "
                         f"more than {units.format_quantity(spec.sum_max, spec.unit, spec.display)}")


def _flags(fact: str, ids: list[str], known: dict[str, Any], raw: dict, key: str,
           file: str, errors: Collector) -> list[FactRecord]:
    out = []
    spellings = _spellings(known)
    for i, given in enumerate(ids):
        line = line_at(raw.get(key), i) or line_of(raw, key)
        resolved = given if given in known else spellings.get(given.strip().lower())
        if resolved is None:
            errors.errors.append(RegimeError(f"unknown {key[:-1]} '{given}'{did_you_mean(given, known)}",
                                             file=file, line=line, field=f"{key}[{i}]"))
            continue
        out.append(FactRecord(f"{fact}__{resolved}", True, "flag", "measured",
                              f"{Path(file).name}:{line}", written=str(given)))
    return out


def _spellings(known: dict[str, Any]) -> dict[str, str]:
    """Each id and alias, lower case, to its id (made once per list, however long the list)."""
    out: dict[str, str] = {}
    for key, item in known.items():
        for spelling in (key, *(a.lower() for a in getattr(item, "aliases", ()))):
            out.setdefault(spelling, key)
    return out

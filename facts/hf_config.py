"""A model given as a Hugging Face `config.json`: its shape facts, read with facts/hf_config.yaml.

Every architecture, key name and count formula is in the YAML map; this module only reads the
file (bounded, untrusted JSON), looks the symbols up and evaluates the map's integer formulas
(parsed with `ast` against a whitelist, never eval'd). Keys the map does not know, and keys
it knows but does not model, become `config_unread_fields`, which a rule turns into a finding.
"""

from __future__ import annotations

import ast
import json
from dataclasses import field
from pathlib import Path
from typing import Any

from regime.core.errors import RegimeError
from regime.core.record import Fields, mutable_record
from regime.core.yamlsrc import load_yaml
from regime.facts.record import FactRecord
from regime.facts.vocabulary import Vocabulary

MAP_FILE = Path(__file__).with_name("hf_config.yaml")
_MAP: dict[str, Any] = {}
_LIMIT = 10 ** 15  # no count in a real model comes near; bounds an untrusted file's arithmetic


def is_config_ref(ref: object) -> bool:
    """Does a case's `model:` name a config file rather than a catalogue entry?"""
    return isinstance(ref, str) and ref.strip().lower().endswith(".json")


def field_map() -> dict[str, Any]:
    if not _MAP:
        _MAP.update(load_yaml(MAP_FILE))
    return _MAP


@mutable_record
class Shape(Fields):
    """One config read: its symbols, the keys used, and what each fact came from."""

    file: str
    arch: str
    config: dict[str, Any]
    env: dict[str, int] = field(default_factory=dict)
    formulas: dict[str, str] = field(default_factory=dict)
    used: set[str] = field(default_factory=set)


def resolve(ref: str, case_file: str) -> Path:
    """A config path is relative to the case file that names it."""
    path = Path(ref.strip()).expanduser()
    return path if path.is_absolute() else Path(case_file).parent / path


def read(path: Path) -> Shape:
    """Read and check one config file; RegimeError (with the config's name) when it cannot be used."""
    m = field_map()
    where = str(path)
    if not path.is_file():
        raise RegimeError(f"model config '{path}' is not a file")
    if path.stat().st_size > int(m["max_bytes"]):
        raise RegimeError(f"model config '{path}' is over {m['max_bytes']} bytes; a config.json is a few kB")
    try:
        config = json.loads(path.read_bytes().decode("utf-8"))
    except (ValueError, RecursionError) as err:
        raise RegimeError(f"model config '{path}' is not JSON: {str(err)[:120]}") from None
    if not isinstance(config, dict) or len(config) > int(m["max_keys"]):
        raise RegimeError(f"model config '{path}' must be one JSON object of at most {m['max_keys']} keys")
    archs = config.get("architectures")
    arch = archs[0] if isinstance(archs, list) and archs and isinstance(archs[0], str) else None
    if arch is None or arch not in m["architectures"]:
        raise RegimeError(f"model config '{path}': architecture {arch!r} is not in facts/hf_config.yaml "
                          f"(known: {', '.join(sorted(m['architectures']))})")
    shape = Shape(where, arch, config)
    _symbols(shape, m)
    _requires(shape, m)
    return shape


def _symbols(shape: Shape, m: dict[str, Any]) -> None:
    spec = m["architectures"][shape.arch]
    keys = {**m["symbols"], **spec.get("symbols", {})}
    for name, tried in keys.items():
        for key in tried:
            value = shape.config.get(key)
            if key in shape.config:
                shape.used.add(key)  # null means "the default", which the trace then names
            if value is not None:
                shape.env[name] = _integer(value, key, shape)
                shape.formulas[name] = f"config {key}"
                shape.used.add(key)
                break
    for name, value in spec.get("set", {}).items():
        shape.env[name] = _integer(value, name, shape)
        shape.formulas[name] = f"{shape.arch} fixes {name}"
    for name, expr in [*spec.get("defaults", {}).items(), *m["defaults"].items()]:
        if name not in shape.env:
            shape.env[name] = evaluate(str(expr), shape, name)
            shape.formulas[name] = f"default {expr}"
    form = m["attention_forms"][spec["form"]]
    for name in ("kv_width", "kv_heads", "attention_width"):
        shape.env[name] = evaluate(str(form[name]), shape, name)
        shape.formulas[name] = f"{spec['form']} attention: {form[name]}"
    terms = {n: str(form["params"] if e == "form" else e) for n, e in m["params"].items()}
    for name, expr in terms.items():
        shape.env[name] = evaluate(expr, shape, name)
    shape.env["params"] = sum(shape.env[n] for n in terms)
    shape.formulas["params"] = " + ".join(f"{n} {e}" for n, e in terms.items())


def _requires(shape: Shape, m: dict[str, Any]) -> None:
    for key, wanted in m["architectures"][shape.arch].get("requires", {}).items():
        got = shape.config.get(key)
        if got is None:
            continue
        want = evaluate(wanted, shape, key) if isinstance(wanted, str) else wanted
        if (_integer(got, key, shape) if not isinstance(got, list) else got) != want:
            raise RegimeError(f"model config '{shape.file}': {key} is {json.dumps(got)}; the counts in "
                              f"facts/hf_config.yaml for {shape.arch} hold only for {json.dumps(want)}")
        shape.used.add(key)


def unread(shape: Shape) -> list[str]:
    """Keys the counts did not use: unknown to the map, or known but not modelled (when set)."""
    m = field_map()
    spec = m["architectures"][shape.arch]
    skipped = set(m["ignored"]) | set(spec.get("ignored", ()))
    out = []
    for key, value in shape.config.items():
        if key in shape.used or key in skipped:
            continue
        if key in m["not_modelled"] and value in (None, False, 0):
            continue
        out.append(key)
    return sorted(out)


def given_facts() -> set[str]:
    """The facts a config can give (for the lint: a catalogue source like the YAML catalogues)."""
    return {*field_map()["facts"], "config_unread_fields"}


def records(shape: Shape, vocabulary: Vocabulary, name: str) -> list[FactRecord]:
    """The model facts the map's `facts:` section gives, each with the formula it came from."""
    out = []
    for fact, spec in field_map()["facts"].items():
        options = spec if isinstance(spec, list) else [{"value": spec}]
        for option in options:
            if "when" in option and not evaluate(str(option["when"]), shape, fact):
                continue
            expr = str(option["value"])
            value = evaluate(expr, shape, fact)
            how = shape.formulas.get(expr, expr) if expr in shape.env else expr
            out.append(_record(fact, value, vocabulary, f"{name}: {fact} = {how} = {value:,}"))
            break
    missing = unread(shape)
    if missing:
        listed = ", ".join(missing)
        out.append(_record("config_unread_fields", len(missing), vocabulary,
                           f"{name}: not used by the counts: {listed}", written=listed))
    return out


def _record(fact: str, value: int, vocabulary: Vocabulary, origin: str,
            written: str | None = None) -> FactRecord:
    spec = vocabulary.get(fact)
    if not spec.interval.contains(value):
        raise RegimeError(f"{origin}: outside the valid range {spec.range} of {fact}")
    return FactRecord(fact, float(value), spec.unit, "catalogue", origin, written=written or f"{value:,}")


def display_name(shape: Shape) -> str:
    given = shape.config.get("_name_or_path")
    base = given if isinstance(given, str) and given else Path(shape.file).parent.name
    return f"{base[:80]} (config.json)"


def _integer(value: Any, key: str, shape: Shape) -> int:
    if isinstance(value, bool):
        return int(value)
    if isinstance(value, int) and 0 <= value <= _LIMIT:
        return value
    raise RegimeError(f"model config '{shape.file}': {key} is {json.dumps(value)[:40]}; "
                      f"expected a whole number in [0, {_LIMIT:.0e}]")


_BINARY = {ast.Add: int.__add__, ast.Sub: int.__sub__, ast.Mult: int.__mul__}


def evaluate(expr: str, shape: Shape, target: str) -> int:
    """An integer formula of the map: symbols, whole numbers, + - * /, min(a, b)."""
    try:
        tree = ast.parse(expr, mode="eval").body
    except SyntaxError:
        raise RegimeError(f"facts/hf_config.yaml: {target}: cannot parse {expr!r}") from None
    value = _node(tree, shape, target, expr)
    if abs(value) > _LIMIT:
        raise RegimeError(f"model config '{shape.file}': {target} = {expr} is out of range")
    return value


def _node(node: ast.expr, shape: Shape, target: str, expr: str) -> int:
    if isinstance(node, ast.Constant) and isinstance(node.value, int) and not isinstance(node.value, bool):
        return node.value
    if isinstance(node, ast.Name):
        if node.id not in shape.env:
            keys = field_map()["symbols"].get(node.id, [node.id])
            raise RegimeError(f"model config '{shape.file}': {target} needs {node.id}, but the config has "
                              f"none of {', '.join(keys)}")
        return shape.env[node.id]
    if isinstance(node, ast.BinOp) and type(node.op) in _BINARY:
        return _BINARY[type(node.op)](*(_node(n, shape, target, expr) for n in (node.left, node.right)))
    if isinstance(node, ast.BinOp) and isinstance(node.op, ast.Div):
        num, den = (_node(n, shape, target, expr) for n in (node.left, node.right))
        if den == 0 or num % den:
            raise RegimeError(f"model config '{shape.file}': {target} = {expr} is not a whole number "
                              f"({num} / {den}); the config must state it")
        return num // den
    if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id == "min" \
            and len(node.args) == 2 and not node.keywords:
        return min(_node(n, shape, target, expr) for n in node.args)
    raise RegimeError(f"facts/hf_config.yaml: {target}: {expr!r} uses something other than "
                      "symbols, whole numbers, + - * / and min()")

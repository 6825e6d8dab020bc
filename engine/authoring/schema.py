"""JSON Schemas for every YAML an analyst writes, generated from the loaders' pydantic models,
and for the JSON envelope every command writes (`--format json`).

Editors with the YAML language server complete and check a file that starts with
`# yaml-language-server: $schema=<path>`; every shipped YAML carries that line, and
`regime schema NAME` prints the schema. The schemas under schemas/ are these, committed.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any, Union

from pydantic import BaseModel, ConfigDict, Field, create_model

from regime.core.shape import REQUIRED
from regime.engine.authoring.packtest import PackTestModel
from regime.engine.authoring.packtest import TestFileModel as _TestFile
from regime.engine.knowledge.paths import ROOT
from regime.engine.knowledge.shapes import (
    ClaimModel,
    LeverModel,
    OverrideModel,
    PackModel,
    ParamModel,
    RuleModel,
)
from regime.facts.case import CASE_KEYS
from regime.facts.vocabulary import spec_model

SCHEMA_DIR = ROOT / "schemas"
LINE = "# yaml-language-server: $schema="

# a declared fact: FactSpec without the name and origin the loader adds (create_model's overloads
# cannot see field definitions built at run time)
FactDeclaration = create_model(  # type: ignore[call-overload]
    "FactDeclaration", __config__=ConfigDict(extra="forbid"),
    **{n: (f.annotation, f) for n, f in spec_model().model_fields.items() if n not in ("name", "origin")})


class Pack(PackModel):
    """A rule pack; a layer is a directory of these (it may also override, disable, replace)."""

    parameters: dict[str, ParamModel] = Field(default_factory=dict)
    facts: dict[str, FactDeclaration] = Field(default_factory=dict)
    levers: dict[str, LeverModel] = Field(default_factory=dict)
    claims: dict[str, ClaimModel] = Field(default_factory=dict)
    rules: list[RuleModel] = Field(default_factory=list)
    overrides: OverrideModel | None = None


def _case_model() -> type[BaseModel]:
    """A case file, from the key table the case loader checks (so the two cannot drift)."""
    fields: dict[str, Any] = {}
    for name, key in CASE_KEYS.items():
        # mypy cannot see it: a type built at run time from the case keys
        kinds = [(list[key.items] if t is list and key.items else  # type: ignore[name-defined]
                  dict[str, Any] if t is dict else t) for t in key.types]
        annotation = kinds[0] if len(kinds) == 1 else Union[tuple(kinds)]  # noqa: UP007
        fields[name] = (annotation, ... if key.default is REQUIRED else key.default)
    return create_model("Case", __config__=ConfigDict(extra="forbid"), __doc__="A case file: what was "
                        "measured, on what hardware and model, and what people propose.", **fields)


Case = _case_model()


class PackTests(_TestFile):
    """A pack test file (*.test.yaml) beside the packs."""

    tests: list[PackTestModel]


class Vocabulary(BaseModel):
    model_config = ConfigDict(extra="forbid")
    facts: dict[str, FactDeclaration]


class Catalogue(BaseModel):
    """Hardware (gpus:) or model (models:) entries: fact name -> value with unit, plus metadata."""

    model_config = ConfigDict(extra="forbid")
    gpus: dict[str, dict[str, Any]] | None = None
    models: dict[str, dict[str, Any]] | None = Field(default=None)


class EnvelopeError(BaseModel):
    """One refused input's error, located as the `error:` line on stderr says it."""

    model_config = ConfigDict(extra="forbid")
    file: str | None
    line: int | None
    field: str | None
    message: str


class Envelope(BaseModel):
    """What every command writes on stdout for `--format json` (engine/cli/writers/envelope.py),
    and every JSON file Regime writes of its own (a report's CASE.json, grade's grades.json);
    formats owned by other tools (Gradescope, PrairieLearn, a case from `regime trace -o`) keep
    theirs. `results` hold the command's own items; `summary` its counts; `statistics`, only
    where a command has figures beyond counts (grade: per case, the class's)."""

    model_config = ConfigDict(extra="forbid")
    regime_version: str
    schema_version: int = Field(ge=1)
    results: list[Any]
    errors: list[EnvelopeError]
    summary: dict[str, int]
    statistics: dict[str, Any] | None = None


MODELS: dict[str, type[BaseModel]] = {"pack": Pack, "layer": Pack, "case": Case, "test": PackTests,
                                      "vocabulary": Vocabulary, "catalogue": Catalogue, "envelope": Envelope}
FILES = {"pack", "case", "test", "vocabulary", "catalogue", "envelope"}  # 'layer' is the pack schema


def schema(name: str) -> dict[str, Any]:
    out = MODELS[name].model_json_schema(by_alias=True)
    if name == "case":
        out["properties"]["facts"]["properties"] = _input_facts()
    out["$schema"] = "https://json-schema.org/draft/2020-12/schema"
    return out


def _input_facts() -> dict[str, Any]:
    """The built-in facts a case may give (none a rule derives), each with its meaning and unit,
    a category with its values, so an editor completes and checks them; a site pack's own facts
    (`--rules`) are still accepted, as the loader accepts them."""
    from regime.engine import api
    k = api.knowledge()
    derived = {r.target for r in k.rules if r.kind in ("derive", "diagnose")}
    out: dict[str, Any] = {}
    for name, spec in sorted(k.vocabulary.specs.items()):
        if name in derived:
            continue
        unit = spec.display or spec.unit
        about = spec.meaning + (f" ({unit})" if spec.kind in ("number", "group") and unit != "1" else "")
        # a number may be written many ways (`2,048 tokens`, a range, {typical: ...}): the loader checks it
        out[name] = {"description": about, **({"enum": list(spec.values)} if spec.kind == "category" else {})}
    return out


def text(name: str) -> str:
    return json.dumps(schema(name), indent=2, sort_keys=True, ensure_ascii=False) + "\n"


def path(name: str) -> Path:
    return SCHEMA_DIR / f"{name}.schema.json"


def for_file(yaml_file: Path) -> str | None:
    """Which schema a shipped YAML file follows, by where it lives."""
    parts = yaml_file.resolve().relative_to(ROOT.resolve()).parts
    if yaml_file.name.endswith(".test.yaml"):
        return "test"
    if yaml_file.name == "vocabulary.yaml":
        return "vocabulary"
    return {"rules": "pack", "cases": "case"}.get(parts[0]) or ("catalogue" if "catalogue" in parts else None)


def write_all() -> None:
    SCHEMA_DIR.mkdir(exist_ok=True)
    for name in sorted(FILES):
        path(name).write_text(text(name), encoding="utf-8")

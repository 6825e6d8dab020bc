"""Editor schemas: generated from the loaders' models, committed, named by every shipped YAML."""

from __future__ import annotations

import json
import os

import jsonschema
import pytest
import yaml
from conftest import ROOT, TESTS, run_cli

from regime.engine.authoring import schema

SHIPPED = sorted([*ROOT.glob("rules/*.yaml"), *ROOT.glob("cases/*.yaml"), ROOT / "facts" / "vocabulary.yaml",
                  *ROOT.glob("facts/catalogue/*.yaml")])
WRITTEN_BY_ANALYSTS = sorted([*(TESTS / "layers").rglob("*.yaml"), *(TESTS / "lint_packs").glob("*.yaml")])


@pytest.mark.parametrize("name", sorted(schema.FILES))
def test_committed_schemas_are_the_generated_ones(name):
    assert schema.path(name).read_text(encoding="utf-8") == schema.text(name), \
        "regenerate: python -c 'from regime.engine.authoring import schema; schema.write_all()'"


@pytest.mark.parametrize("path", SHIPPED + WRITTEN_BY_ANALYSTS, ids=lambda p: str(p.relative_to(ROOT)))
def test_every_yaml_names_its_schema_and_follows_it(path):
    first = path.read_text(encoding="utf-8").splitlines()[0]
    assert first.startswith(schema.LINE), f"{path.name}: first line must be '{schema.LINE}...'"
    target = (path.parent / first.removeprefix(schema.LINE)).resolve()
    want = "test" if path.name.endswith(".test.yaml") else schema.for_file(path) or "pack"
    assert target == schema.path(want).resolve()
    jsonschema.validate(yaml.safe_load(path.read_text(encoding="utf-8")),
                        json.loads(target.read_text(encoding="utf-8")))


@pytest.mark.e2e
def test_schema_command_prints_each_schema():
    done = run_cli("schema", "layer")
    doc = json.loads(done.stdout)
    assert done.returncode == 0 and {"rules", "overrides", "hardware"} <= set(doc["properties"])
    assert "replaces" in doc["$defs"]["RuleModel"]["properties"]


def test_schema_catches_a_typo_an_editor_would_underline():
    pack = {"pack": "p", "description": "d", "rules": [{"id": "x", "description": "d", "because": "b",
                                                          "finding": "f", "whne": "batch > 1"}]}
    with pytest.raises(jsonschema.ValidationError, match="whne"):
        jsonschema.validate(pack, schema.schema("pack"))
    assert os.path.basename(schema.path("pack")) == "pack.schema.json"

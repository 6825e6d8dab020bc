"""core/yamlsrc.plain: a loaded document back to plain types, as dumping needs."""

from __future__ import annotations

import yaml

from regime.core.yamlsrc import LineDict, LineList, load_yaml, plain


def test_plain_drops_the_line_numbered_types_and_keeps_the_values(tmp_path):
    path = tmp_path / "d.yaml"
    path.write_text("a: [1, {b: 2}]\n3: x\n", encoding="utf-8")
    doc = load_yaml(path)
    assert isinstance(doc, LineDict) and isinstance(doc["a"], LineList)
    out = plain(doc)
    assert out == {"a": [1, {"b": 2}], "3": "x"}
    assert type(out) is dict and type(out["a"]) is list and type(out["a"][1]) is dict
    assert yaml.safe_load(yaml.safe_dump(out)) == out

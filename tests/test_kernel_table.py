"""facts/kernels.test.yaml: each profiler kernel name lands in the category its row names; one
pytest id per row (`<category> <- <name>`), and the kernels files' shape and classification."""

from __future__ import annotations

import pytest
from conftest import write

from regime.core.errors import RegimeError
from regime.core.yamlsrc import load_yaml
from regime.engine.trace.kernels import load_classifier
from regime.facts.kernels import TABLE_FILE, read_kernels

ROWS = load_yaml(TABLE_FILE)["tests"]


def _id(row: dict) -> str:
    return f"{row['category']} <- {row['name'][:70]}"


@pytest.mark.parametrize("row", ROWS, ids=[_id(r) for r in ROWS])
def test_kernel_name_lands_in_its_category(row):
    c = load_classifier()
    got = c.names[c.index(row["name"], row.get("cat", "kernel"))]
    assert got == row["category"], f"{row['name']}: expected {row['category']} ({row['why']}), got {got}"


def test_the_table_reaches_every_category():
    assert {r["category"] for r in ROWS} == set(read_kernels().categories)


def test_a_rules_layer_adds_kernel_patterns_first(tmp_path):
    layer = tmp_path / "site"
    layer.mkdir()
    write(layer, "kernels.yaml", "rules:\n  - category: attention\n    prefix: [my_fused_]\n"
          "    source: our in-house attention\n")
    assert load_classifier().names[load_classifier().index("my_fused_gemm", "kernel")] == "gemm"
    c = load_classifier([layer])
    assert c.names[c.index("my_fused_gemm", "kernel")] == "attention"


@pytest.mark.parametrize(("text", "line", "field", "words"), [
    ("rules:\n  - category: atention\n    contains: [x]\n    source: s\n", 2, "rules.0.category",
     "did you mean 'attention'"),
    ("rules:\n  - category: gemm\n    source: s\n", 2, "rules.0", "at least one of contains, prefix, cat"),
    ("rules: null\n", 1, "rules", "valid list"),
    ("rules:\n  gemm: [x]\n", 1, "rules", "valid list"),
    ("categories: {gemm: x}\nrules: []\n", 1, "categories", "unknown key"),
])
def test_a_bad_kernels_layer_is_refused_at_its_line(tmp_path, text, line, field, words):
    layer = tmp_path / "site"
    layer.mkdir()
    path = write(layer, "kernels.yaml", text)
    with pytest.raises(RegimeError) as info:
        load_classifier([layer])
    assert (info.value.file, info.value.line, info.value.field) == (str(path), line, field)
    assert words in info.value.message

"""core/layered.py: one merge rule for every layered YAML file, and blame at the layer's line."""

from __future__ import annotations

import pytest
from conftest import write
from pydantic import BaseModel, ConfigDict

from regime.core.errors import RegimeError
from regime.core.layered import merge, read_layers


class _Inner(BaseModel):
    model_config = ConfigDict(extra="forbid")
    words: list[str] = []
    weight: float = 1.0


class _Shape(BaseModel):
    model_config = ConfigDict(extra="forbid")
    name: str
    parts: dict[str, _Inner] = {}


def test_mappings_merge_all_the_way_down_and_everything_else_replaces():
    base = {"a": {"x": [1, 2], "y": {"p": 1, "q": 2}}, "b": [1], "c": {"k": 1}}
    layer = {"a": {"x": [3], "y": {"q": 9}}, "b": [2], "c": None}
    assert merge(base, layer) == {"a": {"x": [3], "y": {"p": 1, "q": 9}}, "b": [2], "c": None}
    assert base["a"]["y"] == {"p": 1, "q": 2}  # the layers below are left as they were


def test_each_layer_is_validated_and_blamed_at_its_own_line(tmp_path):
    built = write(tmp_path, "built.yaml", "name: b\nparts:\n  one: {words: [a], weight: 2}\n")
    good = write(tmp_path, "good.yaml", "parts:\n  one: {weight: 3}\n  two: {words: [c]}\n")
    got = read_layers(_Shape, [built, good], "test")
    assert got.parts["one"] == _Inner(words=["a"], weight=3) and got.parts["two"].words == ["c"]
    bad = write(tmp_path, "bad.yaml", "# a comment\nparts:\n  one:\n    words: null\n")
    with pytest.raises(RegimeError) as info:
        read_layers(_Shape, [built, good, bad], "test")
    assert (info.value.file, info.value.line, info.value.field) == (str(bad), 4, "parts.one.words")


def test_a_layer_that_is_not_a_mapping_is_refused_at_its_file(tmp_path):
    built = write(tmp_path, "built.yaml", "name: b\n")
    bad = write(tmp_path, "bad.yaml", "- a\n- b\n")
    with pytest.raises(RegimeError) as info:
        read_layers(_Shape, [built, bad], "test")
    assert info.value.file == str(bad) and "a test file is a mapping" in info.value.message

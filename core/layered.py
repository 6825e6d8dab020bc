"""Layered YAML: a built-in file and the files that override it (`--rules DIR` layers), read by
one rule.

The merge rule: a mapping in a layer merges into the mapping beneath it key by key, all the way
down; anything else (a list, a number, text, null) replaces what was there. After each layer
the merged document is validated against the file's pydantic shape, so a mistake is reported
against the layer that made it, at that layer's FILE:LINE and field path, and never reaches the
code that uses the settings.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from pathlib import Path
from typing import TYPE_CHECKING, Any, TypeVar

from regime.core.yamlsrc import expect_mapping, load_yaml, validated

if TYPE_CHECKING:  # pydantic's model machinery is imported by the code that defines models
    from pydantic import BaseModel

M = TypeVar("M", bound="BaseModel")


def merge(base: Mapping[str, Any], layer: Mapping[str, Any]) -> dict[str, Any]:
    """`layer` over `base`: mappings merge key by key, recursively; anything else replaces."""
    out = dict(base)
    for key, value in layer.items():
        below = out.get(key)
        out[key] = merge(below, value) if isinstance(value, dict) and isinstance(below, dict) else value
    return out


def read_layers(model: type[M], files: Iterable[Path], what: str,
                context: Mapping[str, Any] | None = None) -> M:
    """The files merged in order (built-in first) and validated after each one; `context` is
    handed to the model's validators (e.g. the lever ids a file may name)."""
    merged: dict[str, Any] = {}
    result: M | None = None
    for path in files:
        doc = expect_mapping(load_yaml(path), str(path), f"a {what} file is a mapping")
        merged = merge(merged, doc)
        result = validated(model, merged, str(path), lines=doc, context=context)
    if result is None:
        raise ValueError(f"no {what} file to read")  # a caller's bug: the built-in file comes first
    return result


def layer_files(layers: Iterable[Path], folder: str, stem: str) -> list[Path]:
    """Each layer directory's `<folder>/<stem>*.yaml`, in layer order then name order."""
    out: list[Path] = []
    for layer in layers:
        sub = layer / folder if layer.is_dir() else None
        if sub is not None and sub.is_dir():
            out += sorted(p for p in sub.iterdir()
                          if p.suffix in (".yaml", ".yml") and p.stem.startswith(stem))
    return out

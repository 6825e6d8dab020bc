"""Safe YAML loading that remembers the line of every mapping key.

Errors must name the file, line and field; PyYAML's safe loader drops positions, so this
loader builds `LineDict`s that keep them. Only `yaml.SafeLoader` is used: files are untrusted.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any, TypeVar

import yaml
from pydantic import BaseModel, ValidationError
from regime.core.errors import RegimeError, did_you_mean


class LineDict(dict):
    """A dict that knows the line of each key (1-based) and of itself."""

    line: int = 0
    key_lines: dict[str, int]

    def line_of(self, key: str) -> int:
        return self.key_lines.get(key, self.line)


# libyaml's parser when present (several times faster); both are the *safe* loaders.
_SafeBase = getattr(yaml, "CSafeLoader", yaml.SafeLoader)


class _Loader(_SafeBase):  # type: ignore[misc, valid-type]
    pass


def _construct_mapping(loader: _Loader, node: yaml.MappingNode) -> LineDict:
    loader.flatten_mapping(node)
    result = LineDict()
    result.line = node.start_mark.line + 1
    result.key_lines = {}
    for key_node, value_node in node.value:
        key = loader.construct_object(key_node, deep=True)
        if not isinstance(key, str | int | float | bool) or isinstance(key, bool):
            raise RegimeError(f"mapping key must be text, got {key!r}",
                              line=key_node.start_mark.line + 1)
        key = str(key)
        if key in result:
            raise RegimeError(f"duplicate key '{key}'", line=key_node.start_mark.line + 1,
                              field=key)
        result[key] = loader.construct_object(value_node, deep=True)
        result.key_lines[key] = key_node.start_mark.line + 1
    return result


_Loader.add_constructor(yaml.resolver.BaseResolver.DEFAULT_MAPPING_TAG, _construct_mapping)


def load_yaml(path: Path | str, text: str | None = None) -> Any:
    """Parse one YAML file; any problem becomes a RegimeError naming the file and line."""
    path = Path(path)
    try:
        if text is None:
            text = path.read_text(encoding="utf-8")
        _refuse_aliases(text)
        return yaml.load(text, Loader=_Loader)
    except RegimeError as err:
        raise err.located(file=str(path)) from None
    except yaml.MarkedYAMLError as err:
        mark = err.problem_mark or err.context_mark
        line = mark.line + 1 if mark else None
        raise RegimeError(f"malformed YAML: {err.problem or err}", file=str(path),
                          line=line) from None
    except (OSError, UnicodeDecodeError, yaml.YAMLError) as err:
        raise RegimeError(f"cannot read YAML: {err}", file=str(path)) from None
    except RecursionError:
        raise RegimeError("YAML nested too deeply", file=str(path)) from None


def _refuse_aliases(text: str) -> None:
    """Anchors and aliases let a few hundred bytes expand to gigabytes; these files need none."""
    for event in yaml.parse(text, Loader=_SafeBase):
        if isinstance(event, yaml.AliasEvent) or getattr(event, "anchor", None):
            mark = event.start_mark
            raise RegimeError("YAML anchors and aliases (&name, *name, <<) are not supported",
                              line=mark.line + 1 if mark else None)


def line_of(mapping: Any, key: str) -> int | None:
    """Line of `key` in a mapping loaded by load_yaml, if known."""
    return mapping.line_of(key) if isinstance(mapping, LineDict) else None


M = TypeVar("M", bound=BaseModel)


def validated(model: type[M], raw: dict, file: str, *, line: int | None = None,
              prefix: str = "", message: str = "") -> M:
    """Build a pydantic model from a mapping read by load_yaml; a failure names file, line, field."""
    try:
        return model(**raw)
    except ValidationError as err:
        first = err.errors()[0]
        loc = [str(p) for p in first["loc"]]
        where = line_of(raw, loc[0]) if loc else None
        field = ".".join([prefix, *loc] if prefix else loc) or prefix or None
        text = first["msg"]
        if first["type"] == "extra_forbidden" and len(loc) == 1:
            text = f"unknown key{did_you_mean(loc[0], model.model_fields)}"
        raise RegimeError(message + text, file=file, line=where or line, field=field) from None

"""The shape of a small YAML mapping, checked without building a pydantic model.

A case file is read on every run, and a pydantic model class costs more to build than the
rest of a cold start; its top level is eight keys of a few types, checked here with the same
error shape as `yamlsrc.validated` (file, line, key; unknown keys get a did-you-mean).
"""

from __future__ import annotations

from types import SimpleNamespace
from typing import Any

from regime.core.errors import MAX_REPORTED, RegimeError, RegimeErrors, did_you_mean
from regime.core.record import Record, record
from regime.core.yamlsrc import line_at, line_of

REQUIRED = object()
_NAMES = {str: "a string", dict: "a mapping", list: "a list", type(None): "empty"}


@record
class Key(Record):
    """Accepted types of a key's value (NoneType: may be empty), its default, and for a list
    the type of its items."""

    types: tuple[type, ...]
    default: Any = REQUIRED
    items: type | None = None


def checked(raw: dict, keys: dict[str, Key], file: str) -> SimpleNamespace:
    """The mapping's values by key, defaults filled in. Every problem is reported, one per key
    (RegimeErrors when there are several)."""
    unknown = [name for name in raw if name not in keys]
    errors = [RegimeError(f"unknown key{did_you_mean(str(name), keys)}", file=file, line=line_of(raw, name),
                          field=str(name), kind="unknown key") for name in unknown[:MAX_REPORTED]]
    more = {"unknown key": len(unknown) - MAX_REPORTED} if len(unknown) > MAX_REPORTED else {}
    out = {}
    for name, key in keys.items():
        if name not in raw:
            if key.default is REQUIRED:
                errors.append(RegimeError(f"'{name}' is required", file=file, line=1, field=name))
            out[name] = key.default
            continue
        out[name] = value = raw[name]
        problem = _problem(value, key)
        if problem is not None:
            at, message = problem
            line = line_of(raw, name) if at is None else line_at(value, at) or line_of(raw, name)
            errors.append(RegimeError(message, file=file, line=line,
                                      field=name if at is None else f"{name}[{at}]"))
    if errors:
        raise errors[0] if len(errors) == 1 and not more else RegimeErrors(errors, more)
    return SimpleNamespace(**out)


def _problem(value: Any, key: Key) -> tuple[int | None, str] | None:
    """(item index or None, message) for a value of the wrong type, else None."""
    if not _fits(value, key.types):
        return None, f"expected {_expected(key.types)}, got {type(value).__name__}"
    for i, item in enumerate(value if key.items is not None else ()):
        if not _fits(item, (key.items,)):
            return i, f"expected {_expected((key.items,))}, got {type(item).__name__}"
    return None


def _fits(value: Any, types: tuple[type | None, ...]) -> bool:
    # mypy cannot see it: None in types stands for YAML null; isinstance accepts NoneType at run time
    return isinstance(value, types) and not (isinstance(value, bool) and bool not in types)  # type: ignore[arg-type]


def _expected(types: tuple[type | None, ...]) -> str:
    return " or ".join(_NAMES.get(t, getattr(t, "__name__", str(t))) for t in types)

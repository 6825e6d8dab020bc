"""`record`: a frozen dataclass whose methods other than `__init__` are shared code, not generated.

Why: on Python 3.11 and 3.12 `@dataclass` compiles each generated method from source with
`exec` at import, and a cached `regime diagnose` imports some forty dataclasses: compiling
their methods was a fifth of its instructions. Only `__init__` needs generating; the rest
behave the same written once here. Equality needs the same class, and compares (and hashes)
the fields as a tuple in declaration order, leaving out those dataclass leaves out
(`compare=False`, `hash=False`); the repr reads `Name(field=value, ...)`. Frozen: a field is
assigned once, by `__init__` (pickle restores `__dict__` directly); assigning it again, any
other attribute, or deleting one raises FrozenInstanceError, as a frozen dataclass does.
"""

from __future__ import annotations

import dataclasses
import reprlib
from typing import Any, TypeVar, dataclass_transform

T = TypeVar("T")


class Record:
    """Base of `record` classes: dataclass's equality, hash, repr and frozenness over the fields."""

    __slots__ = ()

    def __eq__(self, other: object) -> bool:
        if other.__class__ is not self.__class__:
            return NotImplemented
        names = _names(self.__class__)[0]
        return tuple(getattr(self, n) for n in names) == tuple(getattr(other, n) for n in names)

    def __hash__(self) -> int:
        return hash(tuple(getattr(self, n) for n in _names(self.__class__)[1]))

    def __setattr__(self, name: str, value: Any) -> None:
        if name in self.__dict__ or name not in self.__dataclass_fields__:  # type: ignore[attr-defined]  # @record sets it on each subclass
            raise dataclasses.FrozenInstanceError(f"cannot assign to field {name!r}")
        object.__setattr__(self, name, value)

    def __delattr__(self, name: str) -> None:
        raise dataclasses.FrozenInstanceError(f"cannot delete field {name!r}")

    @reprlib.recursive_repr()
    def __repr__(self) -> str:
        shown = ", ".join(f"{n}={getattr(self, n)!r}" for n in _names(self.__class__)[2])
        return f"{self.__class__.__qualname__}({shown})"


@dataclass_transform(frozen_default=True, field_specifiers=(dataclasses.field, dataclasses.Field))
def record(cls: type[T]) -> type[T]:
    """`@dataclass` on `cls` (its `__init__`, fields and `__match_args__`), which must derive from
    Record for the rest."""
    if not issubclass(cls, Record):
        raise TypeError(f"{cls.__name__}: a record derives from core.record.Record")
    return dataclasses.dataclass(eq=False, repr=False)(cls)


_NAMES: dict[type, tuple[tuple[str, ...], tuple[str, ...], tuple[str, ...]]] = {}


def _names(cls: type) -> tuple[tuple[str, ...], tuple[str, ...], tuple[str, ...]]:
    """The fields compared, hashed and shown, as dataclass picks them; worked out once per class."""
    found = _NAMES.get(cls)
    if found is None:
        fields: Any = dataclasses.fields(cls)
        found = _NAMES[cls] = (tuple(f.name for f in fields if f.compare),
                               tuple(f.name for f in fields if (f.compare if f.hash is None else f.hash)),
                               tuple(f.name for f in fields if f.repr))
    return found

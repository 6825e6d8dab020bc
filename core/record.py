"""`record`: a frozen dataclass whose methods, `__init__` included, are shared code, not generated.

Why: `@dataclass` compiles each generated method from source with `exec` at import, and a
cached `regime diagnose` imports some forty dataclasses: compiling their methods was a fifth of
its instructions, and `__init__` alone half of what remained. Here `dataclasses` only collects
the fields; every method is written once. `__init__` takes the fields positionally or by name
in declaration order, with their defaults and default factories, and raises TypeError as the
generated one does for a missing, duplicate or unknown argument. Equality needs the same class,
and compares (and hashes) the fields as a tuple in declaration order, leaving out those
dataclass leaves out (`compare=False`, `hash=False`); the repr reads `Name(field=value, ...)`.
Frozen: a field is assigned once, by `__init__` (pickle restores `__dict__` directly); assigning
it again, any other attribute, or deleting one raises FrozenInstanceError, as a frozen
dataclass does.
"""

from __future__ import annotations

import dataclasses
import reprlib
from typing import Any, TypeVar, dataclass_transform

T = TypeVar("T")


class Fields:
    """Base of `mutable_record` classes: dataclass's equality and repr over the fields; like a
    dataclass that compares, unhashable."""

    __slots__ = ()
    __hash__ = None  # type: ignore[assignment]  # as dataclass leaves a class that defines __eq__

    def __eq__(self, other: object) -> bool:
        if other.__class__ is not self.__class__:
            return NotImplemented
        names = _names(self.__class__)[0]
        return tuple(getattr(self, n) for n in names) == tuple(getattr(other, n) for n in names)

    @reprlib.recursive_repr()
    def __repr__(self) -> str:
        shown = ", ".join(f"{n}={getattr(self, n)!r}" for n in _names(self.__class__)[2])
        return f"{self.__class__.__qualname__}({shown})"


class Record(Fields):
    """Base of `record` classes: the same, frozen and hashable."""

    __slots__ = ()

    def __hash__(self) -> int:  # type: ignore[override]  # Fields: None, as a non-frozen dataclass
        return hash(tuple(getattr(self, n) for n in _names(self.__class__)[1]))

    def __setattr__(self, name: str, value: Any) -> None:
        if name in self.__dict__ or name not in self.__dataclass_fields__:  # type: ignore[attr-defined]  # @record sets it on each subclass
            raise dataclasses.FrozenInstanceError(f"cannot assign to field {name!r}")
        object.__setattr__(self, name, value)

    def __delattr__(self, name: str) -> None:
        raise dataclasses.FrozenInstanceError(f"cannot delete field {name!r}")


@dataclass_transform(frozen_default=True, field_specifiers=(dataclasses.field, dataclasses.Field))
def record(cls: type[T]) -> type[T]:
    """A frozen dataclass: `cls` must derive from Record."""
    if not issubclass(cls, Record):
        raise TypeError(f"{cls.__name__}: a record derives from core.record.Record")
    return _collect(cls)


@dataclass_transform(field_specifiers=(dataclasses.field, dataclasses.Field))
def mutable_record(cls: type[T]) -> type[T]:
    """A dataclass whose fields may be assigned: `cls` must derive from Fields."""
    if not issubclass(cls, Fields) or issubclass(cls, Record):
        raise TypeError(f"{cls.__name__}: a mutable record derives from core.record.Fields")
    return _collect(cls)


def _collect(cls: type[T]) -> type[T]:
    """dataclass's fields and `__match_args__` on `cls`, and the shared `__init__`. A class with
    no docstring gets its name as one: dataclass would build it from the signature, running the
    tokenizer (2-3 ms at the first such class of a start)."""
    if cls.__doc__ is None:
        cls.__doc__ = cls.__name__
    done: Any = dataclasses.dataclass(init=False, eq=False, repr=False)(cls)
    done.__init__ = _initializer(done, dataclasses.fields(done))
    return done


def _initializer(cls: type, fields: tuple[dataclasses.Field, ...]) -> Any:
    """The `__init__` dataclass would generate for these fields, as one shared function."""
    names = tuple(f.name for f in fields if f.init)
    defaults = {f.name: f.default for f in fields if f.default is not dataclasses.MISSING}
    factories = {f.name: f.default_factory for f in fields
                 if f.default_factory is not dataclasses.MISSING}
    count = len(names)
    required = sum(1 for n in names if n not in defaults and n not in factories)
    takes = f"{count + 1}" if required == count else f"from {required + 1} to {count + 1}"
    owner = cls.__qualname__

    def __init__(self: Any, *args: Any, **kwargs: Any) -> None:
        given = len(args)
        if given > count:
            raise TypeError(f"{owner}.__init__() takes {takes} positional arguments "
                            f"but {given + 1} were given")
        state = self.__dict__
        state.update(zip(names, args, strict=False))  # the rest come below
        for name in names[given:]:
            if name in kwargs:
                state[name] = kwargs.pop(name)
            elif name in defaults:
                state[name] = defaults[name]
            elif name in factories:
                state[name] = factories[name]()
            else:
                raise TypeError(f"{owner}.__init__() missing 1 required positional argument: {name!r}")
        if kwargs:
            name = next(iter(kwargs))
            why = ("got multiple values for argument" if name in names
                   else "got an unexpected keyword argument")
            raise TypeError(f"{owner}.__init__() {why} {name!r}")

    __init__.__qualname__ = f"{owner}.__init__"
    return __init__


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

"""core.record: a record behaves as the frozen dataclass it replaces (equality, hash, repr,
frozenness, pickling), without compiling those methods per class."""

from __future__ import annotations

import dataclasses
import pickle

import pytest

from regime.core.record import Record, record


@record
class Pair(Record):
    """Two fields and one left out of comparison, as a knowledge record may have."""

    a: int
    b: tuple[str, ...] = ()
    note: str = dataclasses.field(default="", compare=False)


@dataclasses.dataclass(frozen=True)
class Twin:
    a: int
    b: tuple[str, ...] = ()
    note: str = dataclasses.field(default="", compare=False)


@record
class Other(Record):
    """Same fields as Pair, another class."""

    a: int
    b: tuple[str, ...] = ()
    note: str = ""


def test_equality_and_hash_as_a_frozen_dataclass():
    x, y = Pair(1, ("k",), "one"), Pair(1, ("k",), "two")
    tx, ty = Twin(1, ("k",), "one"), Twin(1, ("k",), "two")
    assert (x == y) == (tx == ty) is True
    assert hash(x) == hash(y) and hash(x) == hash(tx)  # the same tuple of compared fields
    assert x != Pair(2) and x != Other(1, ("k",), "one") and x != (1, ("k",))
    assert len({x, y, Pair(2)}) == 2


def test_repr_as_a_frozen_dataclass():
    assert repr(Pair(1, ("k",), "n")) == repr(Twin(1, ("k",), "n")).replace("Twin", "Pair")


def test_frozen_once_built():
    p = Pair(1)
    for mutate in (lambda: setattr(p, "a", 2), lambda: setattr(p, "extra", 1), lambda: delattr(p, "a")):
        with pytest.raises(dataclasses.FrozenInstanceError):
            mutate()
    assert p.a == 1


def test_pickled_and_back():
    p = Pair(3, ("x", "y"), "kept")
    q = pickle.loads(pickle.dumps(p, protocol=pickle.HIGHEST_PROTOCOL))
    assert q == p and q.note == "kept" and dataclasses.is_dataclass(q)
    with pytest.raises(dataclasses.FrozenInstanceError):
        q.a = 4
    assert dataclasses.replace(p, a=4).a == 4


def test_a_record_derives_from_record():
    with pytest.raises(TypeError):
        record(type("Loose", (), {"__annotations__": {"a": "int"}}))

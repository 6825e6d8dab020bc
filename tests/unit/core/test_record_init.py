"""core.record: `record` and `mutable_record` build `__init__` as the dataclasses they replace do
(defaults, factories, the same TypeErrors), and a mutable record assigns, compares and does not hash."""

from __future__ import annotations

import dataclasses
import pickle
from dataclasses import field

import pytest

from regime.core.record import Fields, Record, mutable_record, record


@record
class Frozen(Record):
    name: str
    value: float = 1.0
    tags: list = field(default_factory=list)
    note: str = field(default="", compare=False)


@dataclasses.dataclass(frozen=True)
class FrozenDC:
    name: str
    value: float = 1.0
    tags: list = field(default_factory=list)
    note: str = field(default="", compare=False)


@mutable_record
class Loose(Fields):
    name: str
    items: dict = field(default_factory=dict)


@dataclasses.dataclass
class LooseDC:
    name: str
    items: dict = field(default_factory=dict)


CALLS = [(("a",), {}), (("a", 2.0), {}), (("a",), {"value": 3.0}), ((), {"name": "b", "tags": [1]}),
         (("a", 2.0, [1], "x"), {})]


@pytest.mark.parametrize(("args", "kwargs"), CALLS)
def test_init_sets_what_the_dataclass_sets(args, kwargs):
    assert vars(Frozen(*args, **kwargs)) == vars(FrozenDC(*args, **kwargs))
    assert list(vars(Frozen(*args, **kwargs))) == [f.name for f in dataclasses.fields(Frozen)]


BAD = [((), {}), (("a", 1.0, [], "", 9), {}), (("a",), {"name": "b"}), (("a",), {"colour": 1})]


@pytest.mark.parametrize(("args", "kwargs"), BAD)
def test_init_refuses_what_the_dataclass_refuses(args, kwargs):
    with pytest.raises(TypeError) as ours:
        Frozen(*args, **kwargs)
    with pytest.raises(TypeError) as theirs:
        FrozenDC(*args, **kwargs)
    # the same complaint, word for word after the class name
    assert str(ours.value).split("__init__() ")[1] == str(theirs.value).split("__init__() ")[1]


def test_factories_give_each_instance_its_own_value():
    a, b = Frozen("a"), Frozen("a")
    assert a.tags == [] and a.tags is not b.tags
    assert Loose("x").items is not Loose("x").items


def test_frozen_equality_hash_repr_replace_and_pickle():
    a = Frozen("a", 2.0, note="x")
    assert a == Frozen("a", 2.0, note="y")  # note is compare=False
    assert a != Frozen("a", 3.0) and a != FrozenDC("a", 2.0)
    assert hash(Frozen("a", 2.0, (1,))) == hash(Frozen("a", 2.0, (1,)))  # type: ignore[arg-type]
    assert repr(a).replace("Frozen(", "X(") == repr(FrozenDC("a", 2.0, note="x")).replace("FrozenDC(", "X(")
    assert dataclasses.replace(a, value=5.0) == Frozen("a", 5.0)
    assert pickle.loads(pickle.dumps(a)) == a
    with pytest.raises(dataclasses.FrozenInstanceError):
        a.value = 3.0  # type: ignore[misc]
    with pytest.raises(dataclasses.FrozenInstanceError):
        del a.name


def test_mutable_records_assign_compare_and_do_not_hash():
    a = Loose("x")
    a.name = "y"
    a.items["k"] = 1
    assert a == Loose("y", {"k": 1}) and vars(a) == vars(LooseDC("y", {"k": 1}))
    with pytest.raises(TypeError):
        hash(a)
    assert dataclasses.asdict(a) == dataclasses.asdict(LooseDC("y", {"k": 1}))


def test_the_decorators_check_their_base():
    with pytest.raises(TypeError):
        record(type("Plain", (), {"__annotations__": {"x": "int"}}))
    with pytest.raises(TypeError):
        mutable_record(type("Frozen2", (Record,), {"__annotations__": {"x": "int"}}))

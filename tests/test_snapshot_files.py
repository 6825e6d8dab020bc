"""Every stored snapshot belongs to a test that still exists, with a parameter it still takes.

syrupy reports unused snapshots only in some runs (not under pytest-xdist, which `make test`
uses, nor for single-file extensions here), so a renamed or deleted case would leave its
reviewed snapshot behind unnoticed. This reads each snapshot's name, `test[param]`, and checks
it against the test function's own parametrize marks in tests/<module>.py.
"""

from __future__ import annotations

import importlib
import importlib.util
import itertools
import re
from pathlib import Path
from types import ModuleType

import pytest

TESTS = Path(__file__).parent
ParameterSet = type(pytest.param(None))   # what pytest.param returns (its class is not public)
_NAME = re.compile(r"^(?P<test>\w+)(?:\[(?P<param>.*)\])?(?:\.\d+)?$")  # .N: a test's Nth snapshot


def _stored() -> list[tuple[Path, str]]:
    """(test module file, snapshot name) for every snapshot under any tests/**/__snapshots__:
    one file each in a folder named for the module, or `# name:` entries in MODULE.ambr."""
    out = []
    for snaps in sorted(TESTS.rglob("__snapshots__")):
        for p in sorted(snaps.iterdir()):
            if p.is_dir():
                out += [(snaps.parent / f"{p.name}.py", f.name.rsplit(".", 1)[0])
                        for f in sorted(p.iterdir()) if f.is_file()]
            elif p.suffix == ".ambr":
                out += [(snaps.parent / f"{p.stem}.py", line[len("# name: "):].strip())
                        for line in p.read_text(encoding="utf-8").splitlines() if line.startswith("# name: ")]
    return out


def _module(path: Path) -> ModuleType:
    """The test module, as pytest imported it when it did (tests/ is on sys.path), else by path."""
    if path.parent == TESTS:
        return importlib.import_module(path.stem)
    spec = importlib.util.spec_from_file_location(f"_snapshot_owner_{path.stem}", path)
    assert spec and spec.loader, path
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def _one_id(value: object, argname: str, index: int) -> str:
    """pytest's default id of one value: the value for strings and numbers, else name + index."""
    if isinstance(value, str | int | float | bool) or value is None:
        return str(value)
    return f"{argname}{index}"


def _mark_ids(mark: pytest.Mark) -> list[str]:
    """The ids one parametrize mark gives: pytest.param ids, an ids list or function, or the
    defaults; several argument names joined with '-'."""
    names = mark.args[0]
    names = [n.strip() for n in names.split(",")] if isinstance(names, str) else list(names)
    ids, out = mark.kwargs.get("ids"), []
    for i, value in enumerate(mark.args[1]):
        if isinstance(value, ParameterSet):
            if value.id is not None:
                out.append(value.id)
                continue
            value = value.values if len(names) > 1 else value.values[0]
        if isinstance(ids, list | tuple) and i < len(ids) and ids[i] is not None:
            out.append(str(ids[i]))
            continue
        values = value if len(names) > 1 else (value,)
        made = [ids(v) if callable(ids) else None for v in values]
        out.append("-".join(m if m is not None else _one_id(v, n, i)
                            for m, v, n in zip(made, values, names, strict=True)))
    return out


def _ids(fn: object) -> set[str]:
    """Every id pytest gives the test: one per combination of its stacked parametrize marks."""
    marks = [m for m in getattr(fn, "pytestmark", []) if m.name == "parametrize"]
    return {"-".join(combo) for combo in itertools.product(*(_mark_ids(m) for m in marks))}


def test_snapshots_were_found():
    assert len(_stored()) >= 40


def test_ids_follow_pytest():
    mark = pytest.mark.parametrize(("a", "b"), [(1, "x"), pytest.param(2, "y", id="two"), (object(), 3)])
    assert _mark_ids(mark.mark) == ["1-x", "two", "a2-3"]
    listed = pytest.mark.parametrize("p", [Path("a"), Path("b")], ids=["first", "second"])
    assert _mark_ids(listed.mark) == ["first", "second"]
    assert _NAME.match("test_x[a-b].1")["param"] == "a-b"


def _show(x: object) -> str:
    return x.name if isinstance(x, Path) else str(x)


@pytest.mark.parametrize(("module", "name"), _stored(), ids=_show)
def test_each_snapshot_has_its_test_and_parameter(module, name):
    m = _NAME.match(name)
    assert m, f"{module.name}: snapshot name {name!r} is not test[param]"
    fn = getattr(_module(module), m["test"], None)
    assert fn is not None, f"{module.name}: no test {m['test']!r} for snapshot {name!r}: delete the snapshot"
    if m["param"] is not None:
        assert m["param"] in _ids(fn), (
            f"{module.name}.{m['test']} no longer takes {m['param']!r}: delete the snapshot "
            "(or restore the case it pinned)")

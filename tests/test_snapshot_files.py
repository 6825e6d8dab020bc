"""Every stored snapshot belongs to a test that still exists, with a parameter it still takes.

syrupy reports unused snapshots only in some runs (not under pytest-xdist, which `make test`
uses, nor for single-file extensions here), so a renamed or deleted case would leave its
reviewed snapshot behind unnoticed. This reads each snapshot's name, `test[param]`, and checks
it against the test function's own parametrize marks in tests/<module>.py.
"""

from __future__ import annotations

import importlib
import re
from pathlib import Path

import pytest

SNAPSHOTS = Path(__file__).parent / "__snapshots__"
_NAME = re.compile(r"^(?P<test>\w+)(?:\[(?P<param>.*)\])?$")


def _stored() -> list[tuple[str, str]]:
    """(module, snapshot name) for every snapshot: one file each in a folder, or `# name:`
    entries in an .ambr file."""
    out = []
    for p in sorted(SNAPSHOTS.iterdir()):
        if p.is_dir():
            out += [(p.name, f.name.rsplit(".", 1)[0]) for f in sorted(p.iterdir()) if f.is_file()]
        elif p.suffix == ".ambr":
            out += [(p.stem, line[len("# name: "):].strip())
                    for line in p.read_text(encoding="utf-8").splitlines() if line.startswith("# name: ")]
    return out


def _ids(fn: object) -> set[str]:
    """The ids pytest gives a test's parametrize values (one-argument parametrize, as here)."""
    ids: set[str] = set()
    for mark in getattr(fn, "pytestmark", []):
        if mark.name != "parametrize":
            continue
        values, make = mark.args[1], mark.kwargs.get("ids")
        ids |= {make(v) if callable(make) else str(v) for v in values}
    return ids


def test_snapshots_were_found():
    assert len(_stored()) >= 40


@pytest.mark.parametrize(("module", "name"), _stored(), ids=lambda x: str(x))
def test_each_snapshot_has_its_test_and_parameter(module, name):
    m = _NAME.match(name)
    assert m, f"{module}: snapshot name {name!r} is not test[param]"
    fn = getattr(importlib.import_module(module), m["test"], None)
    assert fn is not None, f"{module}: no test {m['test']!r} for snapshot {name!r}: delete the snapshot"
    if m["param"] is not None:
        assert m["param"] in _ids(fn), (
            f"{module}.{m['test']} no longer takes {m['param']!r}: delete the snapshot "
            "(or restore the case it pinned)")

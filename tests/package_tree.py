"""Lay the repository out as the installed package: `python tests/package_tree.py DIR`.

pyproject.toml maps one folder per concern onto sub-packages of `regime` (engine/ is
regime.engine, vendor/durable/ is regime.durable, ...). Tools that read source files rather
than import them (mypy) cannot follow the editable install's finder, so this writes a tree of
links, DIR/regime/..., from that same mapping; `make typecheck` runs mypy -p regime in it.
"""

from __future__ import annotations

import shutil
import sys
import tomllib
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def build(into: Path) -> Path:
    mapping = tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"]["setuptools"]["package-dir"]
    shutil.rmtree(into, ignore_errors=True)
    top = into / "regime"
    top.mkdir(parents=True)
    for f in (ROOT / mapping["regime"]).glob("*.py"):
        (top / f.name).symlink_to(f)
    for package, folder in mapping.items():
        if package != "regime" and package.count(".") == 1:
            (top / package.split(".")[1]).symlink_to(ROOT / folder, target_is_directory=True)
    return top


if __name__ == "__main__":
    print(build(Path(sys.argv[1]).resolve()))

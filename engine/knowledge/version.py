"""What `regime --version` reports: the package, each built-in pack, and the durable build.

A pack's version is its optional `version:` key plus a short hash of its bytes, so two
installs that print the same line run the same knowledge even when nobody bumped a number.
"""

from __future__ import annotations

import hashlib
from pathlib import Path

import yaml

import regime
from regime.engine.knowledge.paths import RULES_DIR

DURABLE_RELEASE = "2.0.28"


def pack_versions(rules_dir: Path = RULES_DIR) -> list[tuple[str, str]]:
    """(pack name, 'version sha') for every pack file in `rules_dir`, sorted by file name; a
    pack's tests (`*.test.yaml`) are not knowledge a diagnosis runs, so they are not listed."""
    out = []
    for path in sorted(p for p in rules_dir.glob("*.yaml") if not p.name.endswith(".test.yaml")):
        data = path.read_bytes()
        head = yaml.safe_load(data) if len(data) < 1_000_000 else None
        head = head if isinstance(head, dict) else {}
        name = str(head.get("pack") or path.stem)
        version = f"{head['version']} " if head.get("version") else ""
        out.append((name, f"{version}sha256:{hashlib.sha256(data).hexdigest()[:12]}"))
    return out


def durable_build() -> str:
    import platform

    from regime.durable import durable_rules_engine  # type: ignore[attr-defined]  # C extension, no stub

    so = Path(durable_rules_engine.__file__).name
    return (f"durable-rules {DURABLE_RELEASE} (vendored, patched for CPython 3.13; "
            f"built for {platform.python_implementation()} {platform.python_version()}: {so})")


def version_text() -> str:
    lines = [f"regime {regime.__version__}", durable_build(), "packs:"]
    lines += [f"  {name} {v}" for name, v in pack_versions()]
    return "\n".join(lines) + "\n"

"""Compiled knowledge kept between runs, so a command starts without re-reading every pack.

Loading and compiling the packs (YAML, validation, expression and unit checks, with pint) is
most of a cold start, and parsing the catalogues a noticeable part; the results are the same
for the same inputs, so both are kept. It is cached in the user's
cache directory ($XDG_CACHE_HOME/regime, else ~/.cache/regime), keyed by a SHA-256 over the
bytes and paths of every pack file, the vocabulary and the catalogues, this package's own
source (the engine version), the Python version and the installed pint, pydantic and PyYAML.
Any change gives a new key, so a stale entry is never read; a corrupt, truncated or foreign
one is ignored and rewritten. Entries are written atomically (temporary file, then rename)
and the few newest are kept; deleting the directory is always safe. `REGIME_CACHE=0`
disables the cache.

Why pickle is acceptable here: the file is only ever one this package wrote, from objects its
own compiler built (pack text is data inside them, never pickle opcodes), into a directory of
the user's own (mode 0700, files 0600). It is read only if it is a regular file owned by the
user and writable by no one else, and only after its header (format, key) and the SHA-256 of
its payload check out. Anyone able to write there can already run code as the user. The
cache is never looked for next to packs or cases (`--rules` directories are inputs, not
places to load code-bearing data from).
"""

from __future__ import annotations

import atexit
import contextlib
import importlib.util
import os
import pickle
import stat
import sys
from collections.abc import Callable, Iterable
from pathlib import Path
from typing import Any

import regime
from regime.core import digest as fasthash
from regime.core import units
from regime.facts import catalogue

MAGIC = b"regime-knowledge-cache 1\n"
KEEP = 8
# sub-packages whose code decides what the packs compile to
_SOURCES = ("core", "facts", "engine", "engine.knowledge", "engine.lang", "engine.run", "engine.report")
_DEPENDENCIES = ("pint", "pydantic", "pydantic_core", "yaml")


def directory() -> Path | None:
    """Where entries live, or None when the cache is disabled."""
    if os.environ.get("REGIME_CACHE", "1").strip().lower() in ("0", "off", "no", "false"):
        return None
    base = os.environ.get("XDG_CACHE_HOME", "")
    root = Path(base) if os.path.isabs(base) else Path.home() / ".cache"  # XDG: ignore relative
    return root / "regime"


def key(inputs: Iterable[Path], salt: str = "") -> str:
    """A hash over everything the compiled knowledge depends on (`salt`: e.g. the layer names):
    the packs' bytes, and the code's and dependencies' size and modification time (as Python
    keys its bytecode), so a cold start reads no source file."""
    h = fasthash.new(MAGIC)
    h.update(f"{salt}\0".encode())
    h.update(f"{regime.__version__}\0{sys.version}\0{pickle.HIGHEST_PROTOCOL}\0".encode())
    here = Path(regime.__file__).parent
    for sub in _SOURCES:
        package = importlib.util.find_spec(f"regime.{sub}")
        folder = Path(package.origin).parent if package and package.origin else here
        for path in sorted(folder.glob("*.py")):
            _add_stat(h, str(path))
    for name in _DEPENDENCIES:
        spec = importlib.util.find_spec(name)
        _add_stat(h, spec.origin if spec and spec.origin else "")
    for path in inputs:
        _add_file(h, path)
    return h.hexdigest()


def _add_stat(h: Any, origin: str) -> None:
    st = os.stat(origin) if origin else None
    h.update(f"{origin}\0{st and st.st_size}\0{st and st.st_mtime_ns}\0".encode())


def _add_file(h: Any, path: Path) -> None:
    data = path.read_bytes()
    h.update(f"{os.path.abspath(path)}\0{len(data)}\0".encode())
    h.update(data)


def load_or_build(inputs: list[Path], build: Callable[[], Any], salt: str = "") -> Any:
    """The cached knowledge for `inputs` if a valid entry exists, else `build()`, then cached.

    Unit conversions this process learns that the entry lacks are added to it at exit."""
    folder = directory()
    if folder is None:
        return build()
    digest = key(inputs, salt)
    path = folder / f"knowledge-{digest[:40]}.pickle"
    entry = _read(path, digest)
    if entry is not None:
        blob, table = entry
        knowledge, catalogues = pickle.loads(blob)
        catalogue.preload(catalogues)
        units.remember(table)
    else:
        knowledge = build()
        blob = pickle.dumps((knowledge, catalogue.loaded()), protocol=pickle.HIGHEST_PROTOCOL)
        table = {}
    # the bytes, not the object: holding the knowledge here would keep it alive until exit
    _PENDING[:] = [(path, digest, blob, -1 if entry is None else len(table))]
    if entry is None:
        _save_if_new()
    return knowledge


_PENDING: list[tuple[Path, str, bytes, int]] = []  # the last entry loaded, and its unit count


def _read(path: Path, digest: str) -> tuple[bytes, dict] | None:
    """(pickled knowledge and catalogues, unit conversions) from a valid entry, else None."""
    try:
        fd = os.open(path, os.O_RDONLY | getattr(os, "O_NOFOLLOW", 0))
    except OSError:
        return None
    try:
        with os.fdopen(fd, "rb") as f:
            st = os.fstat(f.fileno())
            if (not stat.S_ISREG(st.st_mode) or st.st_uid != os.getuid()
                    or st.st_mode & (stat.S_IWGRP | stat.S_IWOTH)):
                return None
            data = f.read()
        magic, want, check, payload = data.split(b"\n", 3)
        if (magic + b"\n" != MAGIC or want != digest.encode()
                or fasthash.hexdigest(payload).encode() != check):
            return None
        blob, table = pickle.loads(payload)
        return (blob, table) if isinstance(blob, bytes) and isinstance(table, dict) else None
    except Exception:  # a cache that cannot be read is a cache miss, never a failed run
        return None


@atexit.register
def _save_if_new() -> None:
    """Write the pending entry if this process learned unit conversions it did not have."""
    if not _PENDING:
        return
    path, digest, blob, known = _PENDING[0]
    table = units.conversions()
    if len(table) <= known:
        return
    _PENDING[:] = [(path, digest, blob, len(table))]
    payload = pickle.dumps((blob, table), protocol=pickle.HIGHEST_PROTOCOL)
    data = b"".join([MAGIC, digest.encode(), b"\n", fasthash.hexdigest(payload).encode(), b"\n",
                     payload])
    import tempfile  # only when writing: with shutil, it is a noticeable part of a cold start

    with contextlib.suppress(OSError):  # a read-only home must not fail the run
        path.parent.mkdir(mode=0o700, parents=True, exist_ok=True)
        fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=".tmp-", suffix=".pickle")
        try:
            with os.fdopen(fd, "wb") as f:
                f.write(data)
            os.replace(tmp, path)
        finally:
            with contextlib.suppress(FileNotFoundError):
                os.unlink(tmp)
        _prune(path.parent)


def _prune(folder: Path) -> None:
    """Keep the newest entries only: every edit of a pack makes a new key."""
    entries = sorted(folder.glob("knowledge-*.pickle"), key=lambda p: p.stat().st_mtime, reverse=True)
    for old in entries[KEEP:]:
        with contextlib.suppress(OSError):
            old.unlink()

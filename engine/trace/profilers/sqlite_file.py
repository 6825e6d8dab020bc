"""Open an untrusted SQLite file read-only and ask it about its schema, with located errors.

A gzipped database (as test data ships) is inflated to a temporary file first, counted
against the size limit. Every query goes through `rows`, an ordered cursor read a batch at a
time, so memory stays flat in the number of rows; SQLite's own sorter spills to disk.
"""

from __future__ import annotations

import gzip
import shutil
import sqlite3
import tempfile
import zlib
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from regime.engine.trace.source import TraceError

MAGIC = b"SQLite format 3\x00"
BATCH = 4096


class SqliteFile:
    """A read-only connection, the tables and views it has, and their columns."""

    def __init__(self, path: Path, max_bytes: float, what: str) -> None:
        self.path, self.file, self.what = path, str(path), what
        self.tmp: Any = None
        target = self._plain(path, max_bytes)
        try:
            self.db = sqlite3.connect(f"{target.resolve().as_uri()}?mode=ro", uri=True, timeout=0.5,
                                      check_same_thread=False)
            self.tables = {name: kind for name, kind in self.db.execute(
                "SELECT name, type FROM sqlite_master WHERE type IN ('table', 'view')")}
        except sqlite3.Error as err:
            self.close()
            raise self.error(err, "sqlite_master") from None
        self._columns: dict[str, tuple[str, ...]] = {}

    def _plain(self, path: Path, max_bytes: float) -> Path:
        with open(path, "rb") as f:
            gz = f.read(2) == b"\x1f\x8b"
        if not gz:
            if path.stat().st_size > max_bytes:
                raise TraceError(f"{self.what} is {path.stat().st_size / 1e9:.1f} GB, more than the "
                                 f"{max_bytes / 1e9:.1f} GB limit (--max-bytes)", self.file, "byte 0")
            return path
        self.tmp = tempfile.NamedTemporaryFile(suffix=".sqlite")  # noqa: SIM115 - closed in close()
        done = 0
        try:
            with gzip.open(path, "rb") as src:
                while block := src.read(1 << 20):
                    done += len(block)
                    if done > max_bytes:
                        raise TraceError(f"{self.what} decompresses to more than the {max_bytes / 1e9:.1f} "
                                         "GB limit (--max-bytes)", self.file, f"byte {done}")
                    self.tmp.write(block)
        except (EOFError, OSError, zlib.error) as err:
            self.close()
            raise TraceError(f"corrupt gzip: {err}", self.file, f"byte {done}") from None
        shutil.copystat(path, self.tmp.name)
        self.tmp.flush()
        return Path(self.tmp.name)

    def error(self, err: sqlite3.Error, table: str) -> TraceError:
        text = str(err)
        why = {"database is locked": "the database is locked by another process (is the profiler still "
                                     "writing it?)",
               "file is not a database": "not an SQLite database, or its header is damaged",
               "database disk image is malformed": "the database is damaged or truncated "
                                                   "(copied while still being written?)"}.get(text, text)
        return TraceError(f"{self.what}: {why}", self.file, f"table {table}")

    def has(self, table: str) -> bool:
        return table in self.tables

    def columns(self, table: str) -> tuple[str, ...]:
        if table not in self._columns:
            try:
                self._columns[table] = tuple(r[1] for r in self.db.execute(
                    "SELECT * FROM pragma_table_info(?)", (table,)))
            except sqlite3.Error as err:
                raise self.error(err, table) from None
        return self._columns[table]

    def need(self, table: str, columns: tuple[str, ...], version: str) -> None:
        """Refuse, naming the schema version, a table that lacks a column a query reads."""
        missing = [c for c in columns if c not in self.columns(table)]
        if missing:
            raise TraceError(f"{self.what} (schema {version}): table {table} has no column "
                             f"{', '.join(missing)}; this schema is not one Regime reads", self.file,
                             f"table {table}", missing[0])

    def rows(self, sql: str, table: str, params: tuple = ()) -> Iterator[tuple]:
        """The rows of one query, a batch at a time; a damaged page is a located error."""
        try:
            cur = self.db.execute(sql, params)
            while batch := cur.fetchmany(BATCH):
                yield from batch
        except sqlite3.Error as err:
            raise self.error(err, table) from None

    def close(self) -> None:
        db = getattr(self, "db", None)
        if db is not None:
            db.close()
        if self.tmp is not None:
            self.tmp.close()
            self.tmp = None


def is_sqlite(head: bytes) -> bool:
    return head.startswith(MAGIC)

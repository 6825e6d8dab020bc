"""The bytes of a trace file, inflated when gzipped, counted against the size limit.

Kept apart from the JSON walk in reader.py: this side only opens, inflates (on a read-ahead
thread, as zlib releases the GIL) and refuses files that are unreadable, corrupt or too large.
"""

from __future__ import annotations

import gzip
import queue
import threading
import zlib
from pathlib import Path
from typing import IO

from regime.core.errors import RegimeError

Stream = IO[bytes] | gzip.GzipFile


class TraceError(RegimeError):
    """Bad trace input, located by event index or byte offset rather than by line."""

    def __init__(self, message: str, file: str, where: str, field: str | None = None) -> None:
        super().__init__(message, file=file, field=field)
        self.where = where

    def __reduce__(self) -> tuple:
        """Pickled with its own fields (it crosses to a pool or cluster worker and back)."""
        return (type(self), (self.message, self.file, self.where, self.field))

    def __str__(self) -> str:
        field = f" {self.field}:" if self.field else ""
        return f"{self.file}:{self.where}:{field} {self.message}"


class Source:
    """Decompressed bytes of the trace, counted against the size limit."""

    def __init__(self, path: Path, max_bytes: float, block: int) -> None:
        self.path, self.max_bytes, self.block, self.read_total = path, max_bytes, block, 0
        try:
            raw: IO[bytes] = open(path, "rb")  # noqa: SIM115 - closed in close()
        except OSError as err:
            raise TraceError(f"cannot read: {err.strerror}", str(path), "byte 0") from None
        self.gz = raw.read(2) == b"\x1f\x8b"
        raw.seek(0)
        if not self.gz:
            size = path.stat().st_size
            if size > max_bytes:
                raw.close()
                raise TraceError(f"trace is {size / 1e9:.1f} GB, more than the {max_bytes / 1e9:.1f} GB "
                                 "limit (--max-bytes)", str(path), "byte 0")
        self.stream: Stream = gzip.GzipFile(fileobj=raw) if self.gz else raw
        self.raw = raw
        self.ahead: ReadAhead | None = ReadAhead(self.stream, block) if self.gz else None

    def read(self) -> bytes:
        try:
            block = self.ahead.get() if self.ahead else self.stream.read(self.block)
        except EOFError:
            raise TraceError("truncated gzip: the compressed stream ends before its end marker",
                             str(self.path), f"byte {self.read_total}") from None
        except (OSError, zlib.error) as err:
            raise TraceError(f"corrupt gzip: {err}", str(self.path), f"byte {self.read_total}") from None
        self.read_total += len(block)
        if self.read_total > self.max_bytes:
            raise TraceError(f"trace decompresses to more than the {self.max_bytes / 1e9:.1f} GB limit "
                             "(--max-bytes)", str(self.path), f"byte {self.read_total}")
        return block

    def close(self) -> None:
        if self.ahead is not None:
            self.ahead.stop()
        self.stream.close()
        self.raw.close()


class ReadAhead:
    """Inflate the next blocks on a thread while this one parses: zlib releases the GIL, so
    decompression and parsing overlap on two cores. At most DEPTH blocks wait: memory bounded."""

    DEPTH = 2

    def __init__(self, stream: Stream, block: int) -> None:
        self.queue: queue.Queue = queue.Queue(self.DEPTH)
        self.stopping = threading.Event()
        self.thread = threading.Thread(target=self._run, args=(stream, block), daemon=True)
        self.thread.start()

    def _run(self, stream: Stream, block: int) -> None:
        while not self.stopping.is_set():
            try:
                item: bytes | BaseException = stream.read(block)
            except (EOFError, OSError, zlib.error) as err:
                item = err
            self._put(item)
            if not isinstance(item, bytes) or not item:
                return

    def _put(self, item: bytes | BaseException) -> None:
        while not self.stopping.is_set():
            try:
                self.queue.put(item, timeout=0.1)
                return
            except queue.Full:
                continue

    def get(self) -> bytes:
        item = self.queue.get()
        if isinstance(item, BaseException):
            self.queue.put(item)  # a second read gets the same error
            raise item
        if not item:
            self.queue.put(item)  # and after the end, the end again
        return item

    def stop(self) -> None:
        self.stopping.set()
        self.thread.join()

"""Walk a large JSON document without holding it: the values asked for are decoded, the arrays
asked for are handed over a chunk of elements at a time, and everything else is skipped
element by element, so memory is one block plus the largest single value (bounded).

The Kineto reader (reader.py) walks only a top-level object; rocprofiler-sdk's JSON nests
its records three levels down (`rocprofiler-sdk-tool[i].buffer_records.kernel_dispatch`),
so this walker follows paths, with a depth guard.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

import msgspec

from regime.engine.trace import guards
from regime.engine.trace import reader as kineto
from regime.engine.trace.source import Source, TraceError

MAX_DEPTH = 32
Path_ = tuple[str, ...]   # keys from the top; "*" for any array element


class JsonWalk:
    """`values[path]` receives that value decoded; `arrays[path]` receives (first index, decoded
    elements) a chunk at a time, decoded by its msgspec decoder."""

    def __init__(self, path: Path, max_bytes: float, max_value: float,
                 values: dict[Path_, Callable[[Any], None]],
                 arrays: dict[Path_, tuple[type, Callable[[int, list], None]]]) -> None:
        self.r = kineto.TraceReader(path, max_bytes, max_value)   # its buffer, key and value scanning
        self.values = values
        self.arrays: dict[Path_, tuple[msgspec.json.Decoder, msgspec.json.Decoder, Callable]] = {
            p: (msgspec.json.Decoder(list[t]), msgspec.json.Decoder(t), take)  # type: ignore[valid-type] # t: a runtime type
            for p, (t, take) in arrays.items()}
        self.prefixes = {p[:i] for p in (*values, *arrays) for i in range(len(p) + 1)}

    def run(self) -> None:
        src = Source(self.r.path, self.r.max_bytes, kineto.BLOCK)
        try:
            self.r._fill(src)
            self._any(src, ())
            if self.r._skip_ws(src) != -1:
                raise self.r._fail("unexpected data after the top-level value")
        finally:
            src.close()

    def _where(self, path: Path_) -> str:
        return ".".join(path) or "top level"

    def _any(self, src: Source, path: Path_) -> None:
        if len(path) > MAX_DEPTH:
            raise self.r._fail(f"nested deeper than {MAX_DEPTH} levels", field=self._where(path))
        c = self.r._skip_ws(src)
        if c == -1:
            raise self.r._truncated_or(src, "unterminated value", field=self._where(path))
        if path in self.values:
            self.values[path](self.r._value(src, self._where(path)))
        elif path in self.arrays and c == ord("["):
            self._array(src, path, *self.arrays[path])
        elif path in self.prefixes and c == ord("{"):
            self._object(src, path)
        elif path in self.prefixes and c == ord("["):
            self._elements(src, path)
        elif c == ord("{") or c == ord("["):
            self._object(src, path) if c == ord("{") else self._elements(src, path)   # skip, piecewise
        else:
            self.r._value(src, self._where(path))   # a scalar (bounded), dropped

    def _object(self, src: Source, path: Path_) -> None:
        r = self.r
        r.pos += 1
        while True:
            c = r._skip_ws(src)
            if c == ord("}"):
                r.pos += 1
                return
            key = r._key(src)
            self._any(src, (*path, key))
            c = r._skip_ws(src)
            if c == ord(","):
                r.pos += 1
            elif c != ord("}"):
                raise r._truncated_or(src, "expected ',' or '}' after a value",
                                      field=self._where((*path, key)))

    def _elements(self, src: Source, path: Path_) -> None:
        r = self.r
        r.pos += 1
        i = 0
        while True:
            c = r._skip_ws(src)
            if c == ord("]"):
                r.pos += 1
                return
            if i:
                if c != ord(","):
                    raise r._truncated_or(src, "expected ',' or ']' after an element",
                                          field=f"{self._where(path)}[{i}]")
                r.pos += 1
            self._any(src, (*path, "*"))
            i += 1

    def _array(self, src: Source, path: Path_, decoder: msgspec.json.Decoder, one: msgspec.json.Decoder,
               take: Callable[[int, list], None]) -> None:
        """Elements in chunks cut at element boundaries, decoded at once; a chunk that fails is
        retried element by element, so a bad one is named by its index."""
        r = self.r
        r.pos += 1
        index, after = 0, False
        while True:
            c = r._skip_ws(src)
            if c == ord("]"):
                r.pos += 1
                return
            if after:
                if c != ord(","):
                    raise r._truncated_or(src, "expected ',' or ']'", field=f"{self._where(path)}[{index}]")
                r.pos += 1
                c = r._skip_ws(src)
            r._fill(src)
            cut = r._last_boundary()
            chunk = None
            if cut is not None:  # the trace reader's guard: nesting and bad numbers give None
                chunk = guards.decode_or_none(decoder, b"[" + r.buf[r.pos:cut] + b"]")
            if chunk is None or cut is None:
                chunk = [self._one(src, one, f"{self._where(path)}[{index}]")]
            else:
                r.pos = cut
            take(index, chunk)
            index += len(chunk)
            after = True

    def _one(self, src: Source, one: msgspec.json.Decoder, field: str) -> Any:
        """One element delimited exactly (bounded by the value limit), so an error names it."""
        r = self.r
        end = r.extent(src, "element", field)
        start, r.pos = r.pos, end
        try:
            return guards.decode_typed(one, r.buf[start:end])
        except guards.BadJSON as err:
            raise TraceError(f"unexpected element: {err.message}", r.file, f"byte {r.base + start}",
                             field) from None

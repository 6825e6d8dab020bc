"""Stream a Kineto trace: the small header values, then the events one bounded chunk at a time.

Why not json.load: a trace can be gigabytes, and the whole event list in Python objects is
several times that. Why not ijson: its per-item C loop is ~2.5x slower than orjson on these
files (bench/trace_speed.py). So this module walks the top-level object itself, cuts the
`traceEvents` array at event boundaries and hands msgspec about a megabyte at a time, decoded
into structs that keep only the fields measure.py reads (`args` stays raw until needed);
memory is one block plus the events decoded from it, whatever the trace's size. Opening and
inflating the file is source.py's.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import msgspec
import orjson

from regime.engine.trace.guards import TOO_DEEP, BadJSON, decode_or_none, decode_typed, load_json
from regime.engine.trace.source import Source, TraceError

BLOCK = 1 << 20
_WS = b" \t\r\n"
_KEY = re.compile(rb'"((?:[^"\\]++|\\.)*+)"\s*:')  # possessive: no backtracking stack per byte
_STRUCT = re.compile(rb'["\[\]{}]')
_SCALAR_END = re.compile(rb"[\s,\]}]")
_BOUNDARY = re.compile(rb"\s*(,\s*\{|\])")


class Event(msgspec.Struct, gc=False):
    """The fields of a trace event that are read; the rest are skipped while parsing, and `args`
    stays raw JSON until an event that needs it decodes it (most events never do)."""
    ph: Any = None
    cat: Any = None
    name: Any = None
    ts: Any = None
    dur: Any = None
    pid: Any = None
    tid: Any = None
    args: msgspec.Raw = msgspec.Raw(b"")


class Ids(msgspec.Struct, gc=False):
    """The args of GPU and runtime events that are read: decoding only these skips the rest."""
    device: Any = None
    stream: Any = None
    correlation: Any = None


IDS = msgspec.json.Decoder(Ids)
NO_IDS = Ids()
_EVENTS = msgspec.json.Decoder(list[Event])
_EVENT = msgspec.json.Decoder(Event)


class TraceReader:
    """Iterate a trace's events; `header` holds the other top-level values seen so far."""

    def __init__(self, path: Path, max_bytes: float, max_event_bytes: float) -> None:
        self.path, self.file = path, str(path)
        self.max_event = int(max_event_bytes)
        self.max_bytes = max_bytes
        self.header: dict[str, Any] = {}
        self.buf, self.pos, self.base, self.eof = b"", 0, 0, False
        self.index = 0  # events yielded so far
        self.cap: int | None = None  # absolute offset no cut may pass (set when one failed)

    # ---- buffer --------------------------------------------------------------------------
    def _fill(self, src: Source, need: int | None = None) -> bool:
        """Make at least `need` (default a block) bytes available after pos (fewer at EOF);
        False if none came."""
        need = need or BLOCK
        if self.pos > BLOCK:
            self.base += self.pos
            self.buf, self.pos = self.buf[self.pos:], 0
        grew = False
        while len(self.buf) - self.pos < need and not self.eof:
            block = src.read()
            if not block:
                self.eof = True
                break
            self.buf += block
            grew = True
        return grew

    def _skip_ws(self, src: Source) -> int:
        while True:
            while self.pos < len(self.buf) and self.buf[self.pos] in _WS:
                self.pos += 1
            if self.pos < len(self.buf):
                return self.buf[self.pos]
            if not self._fill(src, 1):
                return -1

    def _fail(self, message: str, offset: int | None = None, field: str | None = None) -> TraceError:
        at = self.base + (self.pos if offset is None else offset)
        return TraceError(message, self.file, f"byte {at}", field)

    # ---- top level -----------------------------------------------------------------------
    def chunks(self) -> Iterator[tuple[int, list[Event]]]:
        """(index of the first event, events) a block at a time: per-event generator hops cost
        more than the work done on most events."""
        src = Source(self.path, self.max_bytes, BLOCK)  # BLOCK as set now (tests shrink it)
        try:
            yield from self._document(src)
        finally:
            src.close()

    def _document(self, src: Source) -> Iterator[tuple[int, list[Event]]]:
        self._fill(src)
        first = self._skip_ws(src)
        if first == ord("["):   # 2020-era traces (tb_plugin samples): the event array alone
            self.pos += 1
            yield from self._event_array(src)
            if self._skip_ws(src) != -1:
                raise self._fail("unexpected data after the top-level array")
            return
        if first != ord("{"):
            raise self._fail("not a Kineto trace: the top level is neither a JSON object nor an array")
        self.pos += 1
        seen_events = False
        while True:
            c = self._skip_ws(src)
            if c == ord("}"):
                self.pos += 1
                break
            key = self._key(src)
            if key == "traceEvents":
                if self._skip_ws(src) != ord("["):
                    raise self._fail("not a Kineto trace: 'traceEvents' is not an array", field=key)
                self.pos += 1
                seen_events = True
                yield from self._event_array(src)
            else:
                self.header[key] = self._value(src, key)
            c = self._skip_ws(src)
            if c == ord(","):
                self.pos += 1
            elif c != ord("}"):
                raise self._truncated_or(src, "expected ',' or '}' after a top-level value")
        if self._skip_ws(src) != -1:
            raise self._fail("unexpected data after the top-level object")
        if not seen_events:
            raise self._fail("not a Kineto trace: no 'traceEvents' array", offset=0)

    def _truncated_or(self, src: Source, message: str, field: str | None = None) -> TraceError:
        if self.eof and _value_end(self.buf, self.pos) is None:
            return self._fail(f"truncated JSON: the trace ends after {self.index:,} events", field=field)
        return self._fail(f"malformed JSON: {message}", field=field)

    def _key(self, src: Source) -> str:
        self._fill(src, 4096)
        m = _KEY.match(self.buf, self.pos)
        if not m:
            raise self._truncated_or(src, "expected a quoted key")
        self.pos = m.end()
        try:
            return orjson.loads(b'"' + m.group(1) + b'"')
        except orjson.JSONDecodeError:
            raise self._fail("malformed JSON: bad key string") from None

    def _value(self, src: Source, key: str) -> Any:
        """One top-level value other than traceEvents (deviceProperties, distributedInfo, ...)."""
        self._skip_ws(src)
        end = self.extent(src, "value", key)
        try:
            value = load_json(self.buf[self.pos:end])
        except BadJSON as err:
            raise self._fail(f"malformed JSON: {err.message}", offset=self.pos + (err.pos or 0),
                             field=key) from None
        self.pos = end
        return value

    def extent(self, src: Source, what: str, field: str | None) -> int:
        """End (exclusive) of the JSON value at pos, however many blocks it spans (scanned once);
        refused past the value limit or at the end of the file. The one bounded scan of every
        value read whole: header values, an event on the slow path, json_walk's elements."""
        scan = _Scan()
        while True:
            end = scan.end(self.buf, self.pos)
            if (len(self.buf) if end is None else end) - self.pos > self.max_event:
                raise self._fail(f"{what} larger than the {self.max_event:,}-byte limit", field=field)
            if end is not None:
                return end
            if not self._fill(src, len(self.buf) - self.pos + BLOCK):
                raise self._truncated_or(src, f"unterminated {what}", field=field)

    # ---- events --------------------------------------------------------------------------
    def _event_array(self, src: Source) -> Iterator[tuple[int, list[Event]]]:
        after_event = False
        while True:
            c = self._skip_ws(src)
            if c == ord("]"):
                self.pos += 1
                return
            if after_event:
                if c != ord(","):
                    raise self._truncated_or(src, "expected ',' or ']' after an event",
                                             field=f"traceEvents[{self.index}]")
                self.pos += 1
                c = self._skip_ws(src)
            if c != ord("{"):
                raise self._truncated_or(src, "expected an event object", field=f"traceEvents[{self.index}]")
            self._fill(src)
            cut = self._last_boundary()
            if cut is None:
                yield from self._careful(src)  # one event, however long, within the limit
            else:
                # None: a boundary inside a string, or bad JSON: find out event by event
                chunk = decode_or_none(_EVENTS, b"[" + self.buf[self.pos:cut] + b"]")
                if chunk is None:
                    self.cap = self.base + self.pos + (cut - self.pos) // 2  # next try: half as far
                    yield from self._careful(src)
                else:
                    yield self.index, chunk
                    self.index += len(chunk)
                    self.pos = cut
            after_event = True

    def _last_boundary(self) -> int | None:
        """End (exclusive) of the last event in the buffer that a ',{' or ']' follows, within
        `cap`. After a cut is not valid JSON, the next try goes half as far (until the read passes
        that point): a '}]' inside a value after the array (deviceProperties written last), or an
        unreadable event, then costs O(log n) block decodes, not one per remaining event."""
        buf, hi = self.buf, len(self.buf)
        if self.cap is not None:
            if self.cap <= self.base + self.pos:
                self.cap = None  # passed
            else:
                hi = min(hi, self.cap - self.base)
        for _ in range(64):
            brace = buf.rfind(b"}", self.pos, hi)
            if brace < 0:
                return None
            m = _BOUNDARY.match(buf, brace + 1)
            if m and (m.end() < len(buf) or m.group(1) == b"]"):
                return brace + 1
            hi = brace
        return None

    def _careful(self, src: Source) -> Iterator[tuple[int, list[Event]]]:
        """Slow path: delimit one event exactly, so a bad one is named by index and byte."""
        end = self.extent(src, "event", f"traceEvents[{self.index}]")
        data = self.buf[self.pos:end]
        try:
            event = decode_typed(_EVENT, data)
        except BadJSON as typed:
            where, field = f"event {self.index}", f"traceEvents[{self.index}]"
            try:
                load_json(data)  # which JSON error, and where
            except BadJSON as err:
                at = "" if err.pos is None else f" (byte {self.base + self.pos + err.pos})"
                raise TraceError(f"malformed JSON: {err.message}{at}", self.file, where, field) from None
            raise TraceError(TOO_DEEP if typed.message == TOO_DEEP else "not an object",
                             self.file, where, field) from None
        yield self.index, [event]
        self.index += 1
        self.pos = end


class _Scan:
    """Where the JSON value at the buffer's position ends, resumable: each call goes on from
    where the last stopped, so a value spanning many blocks is scanned once, not once per block,
    and a long string costs nothing beyond the buffer holding it (bytes.find, not a backtracking
    regex). Offsets are kept relative to the value's start, which _fill may move."""

    __slots__ = ("depth", "in_string", "rel")

    def __init__(self) -> None:
        self.rel, self.depth, self.in_string = 0, 0, False

    def end(self, buf: bytes, start: int) -> int | None:
        """End (exclusive) of the value at `start`, or None if the buffer stops inside it."""
        at = start + self.rel
        if at >= len(buf):
            return None
        if at == start and buf[at] not in b'{["':
            m = _SCALAR_END.search(buf, at)
            return m.start() if m else None
        while True:
            if self.in_string:
                q = _string_end(buf, at)
                if q is None:
                    self.rel = len(buf) - start
                    return None
                at, self.in_string = q, False
                if self.depth == 0:
                    return at
            m = _STRUCT.search(buf, at)
            if m is None:
                self.rel = len(buf) - start
                return None
            c, at = buf[m.start()], m.end()
            if c == 0x22:
                self.in_string = True
            elif c in b"{[":
                self.depth += 1
            else:
                self.depth -= 1
                if self.depth <= 0:
                    return at
            self.rel = at - start


def _string_end(buf: bytes, at: int) -> int | None:
    """End (exclusive) of the string whose body starts at or before `at` (just past its opening
    quote), or None; a quote after an odd run of backslashes is escaped."""
    while True:
        q = buf.find(b'"', at)
        if q < 0:
            return None
        back = q - 1
        while back >= 0 and buf[back] == 0x5C:  # the opening quote stops the walk
            back -= 1
        if (q - 1 - back) % 2 == 0:
            return q + 1
        at = q + 1


def _value_end(buf: bytes, pos: int) -> int | None:
    """End (exclusive) of the JSON value at pos, or None if the buffer stops inside it."""
    return _Scan().end(buf, pos)

"""The bounds every profiler reader applies where untrusted JSON enters, in one place.

A trace is someone else's file: numbers past float range (`1e400`, a 400-digit integer), values
nested a thousand deep, counters that are negative or absurd. Each would otherwise surface far
from its cause (an OverflowError in arithmetic, a RecursionError inside a decoder, a fact
"outside the valid range" that names nothing the user wrote). A reader calls these at its
boundary instead, and every refusal is a TraceError located by event index and field.

Kineto's reader (reader.py, measure.py, counters.py) uses them; a reader for another profiler's
export (Nsight Systems, rocprof) should call the same functions, so a hostile file is refused the
same way whichever profiler wrote it:

- `load_json(data)`: bytes to Python, or `BadJSON` (message, byte position) — never an
  OverflowError or RecursionError, whatever the nesting or the numbers;
- `decode_typed(decoder, data)`: msgspec typed decoding, BadJSON when it cannot be decoded (bad
  JSON, a number out of range, nesting past the decoder's depth: message TOO_DEEP);
  `decode_or_none` the same with None, for a fast path that falls back to a careful one;
- `event_args(raw, file, index)`: an event's raw `args` as a dict, located on failure;
- `event_id(value, file, index, key)`: a device, stream or correlation id as a bounded int;
- `measured_value(value, file, index, key)`: a hardware counter: None when not measured (null or
  absent), else a finite, non-negative, plausible number (core.limits), refused otherwise.

Nesting is bounded by the decoders themselves (orjson and msgspec stop near 1,000 levels, the
standard library at Python's recursion limit): here their depth errors become located refusals.
"""

from __future__ import annotations

import json
import math
from typing import Any

import msgspec
import orjson

from regime.core.limits import MAX_MAGNITUDE
from regime.engine.trace.source import TraceError

# orjson's parser takes about thirteen times a value's bytes; past this the standard library,
# which takes about twice, decodes instead.
ORJSON_MAX = 1 << 20
# Ids are 64-bit in every profiler's schema; a longer one is corrupt, not a bigger id.
MAX_ID = 1 << 63
TOO_DEEP = "nested too deep to read"


class BadJSON(ValueError):
    """JSON that cannot be read: the message and the byte position in the data (or None)."""

    def __init__(self, message: str, pos: int | None = None) -> None:
        super().__init__(message)
        self.message, self.pos = message, pos


def load_json(data: bytes | memoryview) -> Any:
    """Decode JSON bytes; malformed text, numbers beyond float range and excessive nesting all
    raise BadJSON, so a caller needs one except clause to locate any of them."""
    try:
        return orjson.loads(data) if len(data) <= ORJSON_MAX else json.loads(bytes(data))
    except json.JSONDecodeError as err:  # orjson's error is a subclass
        message = TOO_DEEP if "recursion" in err.msg.lower() or "depth" in err.msg.lower() else err.msg
        if "infinity" in message or "out of range" in message:
            message = "number out of range"
        raise BadJSON(message, err.pos) from None
    except RecursionError:
        raise BadJSON(TOO_DEEP) from None
    except (OverflowError, ValueError) as err:  # the standard library on a huge integer
        raise BadJSON(f"number out of range ({str(err)[:60]})") from None


def decode_typed(decoder: msgspec.json.Decoder, data: bytes) -> Any:
    """`decoder.decode(data)`; BadJSON when it cannot be decoded as typed, with TOO_DEEP as the
    message when the nesting is what stopped the decoder (msgspec raises RecursionError there)."""
    try:
        return decoder.decode(data)
    except (msgspec.DecodeError, msgspec.ValidationError) as err:
        raise BadJSON(str(err)) from None
    except RecursionError:
        raise BadJSON(TOO_DEEP) from None


def decode_or_none(decoder: msgspec.json.Decoder, data: bytes) -> Any:
    """`decode_typed`, or None when the data cannot be decoded as typed (the caller then finds
    out which event is at fault, and why)."""
    try:
        return decode_typed(decoder, data)
    except BadJSON:
        return None


def event_args(raw: bytes | memoryview, file: str, index: int) -> dict:
    """The event's raw `args` decoded: a dict ({} when absent or null), or a located refusal."""
    if not raw:
        return {}
    try:
        args = load_json(raw)
    except BadJSON as err:
        raise TraceError(err.message, file, f"event {index}", f"traceEvents[{index}].args") from None
    if type(args) is dict:
        return args
    if args is None:
        return {}
    raise TraceError(f"expected an object, got {type(args).__name__} {str(args)[:40]!r}", file,
                     f"event {index}", f"traceEvents[{index}].args")


def event_id(value: object, file: str, index: int, key: str) -> int:
    """A device, stream or correlation id: an int (or a string of digits) within 64 bits."""
    if type(value) is int and -MAX_ID <= value < MAX_ID:
        return value
    if isinstance(value, str) and value.lstrip("-").isdigit() and len(value) <= 20:
        return event_id(int(value), file, index, key)
    shown = f"an integer of {len(str(value)):,} digits" if type(value) is int else repr(value)[:40]
    raise TraceError(f"expected an integer {key} id, got {shown}", file, f"event {index}",
                     f"traceEvents[{index}].args.{key}")


def measured_value(value: object, file: str, index: int, key: str) -> float | None:
    """A counter as read: None when it was not measured (null or absent), else a finite number in
    [0, core.limits.MAX_MAGNITUDE]; anything else is refused with the event and counter named."""
    if value is None:
        return None
    where, field = f"event {index}", f"traceEvents[{index}].args.{key}"
    if isinstance(value, bool) or not isinstance(value, int | float):
        raise TraceError(f"a counter is a number, got {repr(value)[:40]}", file, where, field)
    if type(value) is int and value.bit_length() > 64:
        raise TraceError(f"an integer of {len(str(value)):,} digits is not a plausible counter value",
                         file, where, field)
    x = float(value)
    if not math.isfinite(x) or x > MAX_MAGNITUDE:
        raise TraceError(f"{x:.6g} is not a plausible counter value (at most {MAX_MAGNITUDE:g})",
                         file, where, field)
    if x < 0:
        raise TraceError(f"a counter cannot be negative, got {value}", file, where, field)
    return x

"""Everything that touches durable-rules directly, and its measured pitfalls.

Regime drives durable's C engine itself (create_ruleset, assert_event, start and complete
action, delete_state, delete_ruleset) rather than through durable's Python Host:
- the Host starts timer threads that call into every registered ruleset concurrently, and it
  keeps every ruleset for the life of the process; a `Ruleset` here starts no thread and is
  deleted from durable when it is dropped;
- the Host parses the whole working memory back into Python (and re-serializes its state) on
  every firing; here the next action's name is read off the front of durable's message and the
  working memory is written once per case and extended by the new fields per firing (`Memory`);
- durable's C JSON parser rejects floats like `1e-07` (exponent, no dot): numbers are written
  here, always with a dot before any exponent, and never NaN or infinity;
- durable is not thread-safe: a lock serializes every call.
"""

from __future__ import annotations

import itertools
import json
import math
import re
import threading
import weakref
from collections.abc import Callable, Mapping
from typing import Any

from regime.core import digest as fasthash
from regime.durable import durable_rules_engine as _dre  # type: ignore[attr-defined]  # C extension, no stub

_LOCK = threading.RLock()
_SERIAL = itertools.count(1)
_POSTED = 0  # RULES_OK; 1 would be "no rule matched", 2 "already observed" (same id)


def number(x: float) -> str:
    """A float as durable's parser accepts it: '1.0e-07', never '1e-07', NaN or Infinity."""
    if not math.isfinite(x):
        raise ValueError(f"non-finite number {x!r} cannot reach durable-rules")
    text = repr(x)
    if "e" in text and "." not in text:
        mantissa, exponent = text.split("e")
        return f"{mantissa}.0e{exponent}"
    return text


# JSON tokens: strings (skipped), numbers, and the non-finite words Python's encoder emits.
_TOKEN = re.compile(r'"(?:[^"\\]|\\.)*"|-?\d+(?:\.\d+)?(?:[eE][-+]?\d+)?|NaN|-?Infinity')


def dumps(obj: Any) -> str:
    """A whole document (a ruleset) as JSON durable accepts: json.dumps, then exponent floats
    given a dot. Working memory never comes here: `Memory` writes it field by field."""
    text = json.dumps(obj, ensure_ascii=False)
    # Python writes every exponent with a sign ('1e-07', '1e+16'); without 'e-', 'e+', NaN or
    # Infinity anywhere (strings included) there is nothing to fix.
    if "e-" not in text and "e+" not in text and "NaN" not in text and "Infinity" not in text:
        return text
    return _TOKEN.sub(_fix_token, text)


def _fix_token(m: re.Match) -> str:
    token = m.group(0)
    if token in ("NaN", "Infinity", "-Infinity"):
        raise ValueError(f"non-finite number {token} cannot reach durable-rules")
    if token[0] == '"' or "." in token or "e" not in token.lower():
        return token
    return number(float(token))


def _key(key: str) -> str:
    if not isinstance(key, str):
        raise TypeError(f"field name {key!r} is not text")
    return json.dumps(key, ensure_ascii=False)


def _value(v: Any) -> str:
    """One working-memory value: a float, a category or name (text), or a flag (true)."""
    if isinstance(v, bool):
        return "true" if v else "false"
    if isinstance(v, float | int):  # always a double: durable divides two ints as integers
        return number(float(v))
    if isinstance(v, str):
        return json.dumps(v, ensure_ascii=False)
    raise TypeError(f"{type(v).__name__} value cannot reach durable-rules")


class Memory:
    """A working memory as durable's JSON: written once, then extended by each firing's new
    fields (working memory only grows), so no firing re-serializes what was already there."""

    def __init__(self, wm: Mapping[str, Any]) -> None:
        self._head = "{" + ",".join(f"{_key(k)}:{_value(v)}" for k, v in wm.items())

    def text(self) -> str:
        return self._head + "}"

    def extended(self, updates: Mapping[str, Any]) -> str:
        self._head += "".join(f",{_key(k)}:{_value(v)}" for k, v in updates.items())
        return self._head + "}"


class RulesetRejected(Exception):
    """durable-rules refused a compiled ruleset; `culprits` maps rule ids to its error text."""

    def __init__(self, culprits: dict[str, str]) -> None:
        super().__init__(", ".join(f"{rule}: {why}" for rule, why in culprits.items()))
        self.culprits = culprits


class Ruleset:
    """One ruleset in durable's C engine, deleted from it when this object is dropped.

    durable has limits of its own (e.g. 31 expressions per join, error 113). When it refuses
    the ruleset, each rule is tried alone so the caller can name the ones at fault.
    """

    def __init__(self, definition: Mapping[str, Mapping] | str) -> None:
        """`definition`: the ruleset, or its text as `dumps` writes it."""
        text = definition if isinstance(definition, str) else dumps(definition)
        self.name = f"regime_{fasthash.hexdigest(text.encode())[:16]}_{next(_SERIAL)}"
        with _LOCK:
            try:
                self._handle = _dre.create_ruleset(self.name, text)
            except Exception as err:  # durable raises its own error type with a bare number
                rules = json.loads(text) if isinstance(definition, str) else definition
                raise RulesetRejected(_culprits(rules) or {"(ruleset)": str(err)}) from None
        self._release = weakref.finalize(self, _delete, self._handle)

    @property
    def alive(self) -> bool:
        return self._release.alive

    def run(self, sid: str, first: str, fire: Callable[[str], str | None]) -> None:
        """Post the first event of session `sid` and run actions until none is left.

        `fire(rule_id)` does the rule's work and returns the successor event's text (or None to
        post nothing); durable consumes the event that started the action when it completes.
        Whatever happens, the session's state is deleted (durable keeps at most 1024 live).
        """
        handle = self._handle
        with _LOCK:
            state = _posted(_dre.assert_event(handle, first))
            try:
                started = _dre.start_action_for_state(handle, state)
                message = started[1] if started else None
                while message is not None:
                    successor = fire(message[2:message.index('"', 2)])  # '{"rule_id":{"m":{...}}}'
                    if successor is not None:
                        _posted(_dre.assert_event(handle, successor))
                    message = _dre.complete_and_start_action(handle, state)
            finally:
                _dre.delete_state(handle, sid)


def _posted(result: tuple[int, int]) -> int:
    code, state = result
    if code != _POSTED:
        raise RuntimeError(f"durable-rules did not take the event (code {code})")
    return state


def _delete(handle: int) -> None:
    with _LOCK:
        _dre.delete_ruleset(handle)


def _culprits(definition: Mapping[str, Mapping]) -> dict[str, str]:
    found = {}
    for rid, rule in definition.items():
        probe = f"regime_probe_{fasthash.hexdigest(rid.encode())[:12]}"
        try:
            handle = _dre.create_ruleset(probe, dumps({rid: rule}))
        except Exception as err:
            found[rid] = str(err)
        else:
            _dre.delete_ruleset(handle)
    return found

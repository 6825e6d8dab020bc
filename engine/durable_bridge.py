"""Everything that touches durable-rules directly, and its measured pitfalls.

- One Host per process (each Host starts timer threads that never stop).
- A ruleset name can be registered once: names are a hash of the compiled definition.
- Its C JSON parser rejects floats like `1e-07` (exponent, no dot): numbers are serialized
  here, always with a dot before any exponent.
- It is not thread-safe, yet its Host starts daemon timer threads that call into every
  registered ruleset every 0.2 s. Regime uses no timers or queued events, so its Host starts
  none, and a lock serializes every call that is left.
"""

from __future__ import annotations

import hashlib
import json
import re
import threading
from typing import Any

from regime.durable import durable_rules_engine
from regime.durable import engine as durable_engine

_LOCK = threading.RLock()
_HOST: durable_engine.Host | None = None
_REGISTERED: set[str] = set()


# JSON tokens: strings (skipped), numbers, and the non-finite words Python's encoder emits.
_TOKEN = re.compile(r'"(?:[^"\\]|\\.)*"|-?\d+(?:\.\d+)?(?:[eE][-+]?\d+)?|NaN|-?Infinity')


def _fix_token(m: re.Match) -> str:
    token = m.group(0)
    if token[0] == '"' or "." in token or "e" not in token.lower():
        if token in ("NaN", "Infinity", "-Infinity"):
            raise ValueError(f"non-finite number {token} cannot reach durable-rules")
        return token
    mantissa, exponent = re.split("[eE]", token)
    return f"{mantissa}.0e{exponent}"


def dumps(obj: Any, **_: Any) -> str:
    """JSON text that durable's parser accepts: exponent floats carry a dot ('1.0e-07')."""
    text = json.dumps(obj, ensure_ascii=False)
    # Python writes every exponent with a sign ('1e-07', '1e+16'); without 'e-', 'e+', NaN or
    # Infinity anywhere (strings included) there is nothing to fix.
    if "e-" not in text and "e+" not in text and "NaN" not in text and "Infinity" not in text:
        return text
    return _TOKEN.sub(_fix_token, text)


class _SafeJson:
    """Stands in for the `json` module inside durable.engine (dumps only is changed)."""

    dumps = staticmethod(dumps)
    loads = staticmethod(json.loads)


durable_engine.json = _SafeJson  # type: ignore[attr-defined]


class _QuietHost(durable_engine.Host):
    """A Host without the background dispatch threads (they would race our calls)."""

    def _run(self) -> None:
        return None


def host() -> durable_engine.Host:
    global _HOST
    with _LOCK:
        if _HOST is None:
            _HOST = _QuietHost()
        return _HOST


def ruleset_name(definition: dict, salt: str = "") -> str:
    """Stable name from the definition (actions excluded) and a salt naming what the actions
    close over, so an identical ruleset is registered once and a different one never clashes."""
    text = dumps({k: {kk: vv for kk, vv in v.items() if kk != "run"} for k, v in sorted(definition.items())})
    return "regime_" + hashlib.sha256((text + salt).encode()).hexdigest()[:16]


class RulesetRejected(Exception):
    """durable-rules refused a compiled ruleset; `culprits` maps rule ids to its error text."""

    def __init__(self, culprits: dict[str, str]) -> None:
        super().__init__(", ".join(f"{rule}: {why}" for rule, why in culprits.items()))
        self.culprits = culprits


def register(definition: dict[str, dict], salt: str = "") -> str:
    """Register a ruleset once per process; `definition` rules carry their 'run' callables.

    durable has limits of its own (e.g. 31 expressions per join, error 113). When it refuses
    the ruleset, each rule is tried alone so the caller can name the ones at fault.
    """
    name = ruleset_name(definition, salt)
    with _LOCK:
        if name not in _REGISTERED:
            bare = {rid: {k: v for k, v in rule.items() if k != "run"} for rid, rule in definition.items()}
            try:
                host().set_rulesets({name: definition})
            except Exception as err:  # durable raises its own error type with a bare number
                raise RulesetRejected(_culprits(bare) or {"(ruleset)": str(err)}) from None
            _REGISTERED.add(name)
    return name


def _culprits(bare: dict[str, dict]) -> dict[str, str]:
    found = {}
    for rid, rule in bare.items():
        probe = f"regime_probe_{hashlib.sha256(rid.encode()).hexdigest()[:12]}"
        try:
            handle = durable_rules_engine.create_ruleset(probe, dumps({rid: rule}))
        except Exception as err:
            found[rid] = str(err)
        else:
            durable_rules_engine.delete_ruleset(handle)
    return found


def run_session(name: str, sid: str, fact: dict) -> None:
    """Assert the first fact of a session, let the rules run to a fixpoint, delete the state.

    Raises if an action raised (durable would otherwise swallow the exception into the state).
    """
    with _LOCK:
        h = host()
        try:
            h.assert_fact(name, fact)
            state = h.get_state(name, sid)
            if state.get("exception"):
                raise RuntimeError(f"rule action failed: {state['exception']}")
        finally:
            h.delete_state(name, sid)

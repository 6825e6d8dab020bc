"""The magnitudes Regime reasons about, shared by the units, the packs and both evaluators.

Every number in working memory is 0 or has a magnitude in [MIN_MAGNITUDE, MAX_MAGNITUDE]:
case values, pack constants and parameters are refused outside it, and a derivation that
lands outside it is reported as failed. Knowing that, the pack loader bounds every
intermediate of every expression, so no expression can overflow to infinity or underflow a
divisor to zero at run time — the two places where durable-rules (IEEE arithmetic) and
Python (division by zero is an absent value) would otherwise disagree.
"""

from __future__ import annotations

import math

MAX_MAGNITUDE = 1e18
MIN_MAGNITUDE = 1e-18
# The largest magnitude an intermediate of an expression may reach (far below float overflow).
MAX_INTERMEDIATE = 1e300


def plausible(x: float) -> bool:
    """Zero, or a finite magnitude Regime can reason about (and durable can parse)."""
    return x == 0 or (math.isfinite(x) and MIN_MAGNITUDE <= abs(x) <= MAX_MAGNITUDE)


def describe() -> str:
    return f"0 or {MIN_MAGNITUDE:g} <= |x| <= {MAX_MAGNITUDE:g}"

"""A fact with its provenance: measured, catalogue, assumed or derived."""

from __future__ import annotations

from dataclasses import field
from typing import Literal

from regime.core.record import Record, record

Source = Literal["measured", "catalogue", "assumed", "derived"]
Value = float | str | bool


@record
class FactRecord(Record):
    """One working-memory field. Group members use the field name `group__member`."""

    name: str
    value: Value
    unit: str
    source: Source
    origin: str                      # case file:line, catalogue source, pack, or rule id
    rule: str | None = None          # derived: the rule that asserted it
    formula: str | None = None       # derived: the formula, as written in the pack
    inputs: tuple[str, ...] = ()     # derived: the facts the formula read
    low: float | None = None         # measured as a range: its ends
    high: float | None = None
    written: str | None = None       # measured: as written in the case
    notes: tuple[str, ...] = field(default=())
    layer: str | None = None         # assumed: the knowledge layer that set the parameter

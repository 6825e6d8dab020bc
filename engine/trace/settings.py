"""What counts as which event, and the limits on a trace: facts/trace_reading.yaml."""

from __future__ import annotations

import math
from functools import cache
from pathlib import Path

from pydantic import BaseModel, ConfigDict, Field

from regime import facts as _facts
from regime.core.errors import RegimeError
from regime.core.yamlsrc import load_yaml, validated

SETTINGS_FILE = Path(_facts.__file__).with_name("trace_reading.yaml")


class _Strict(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)


class Limits(_Strict):
    max_trace_bytes: float = Field(gt=0)
    max_event_bytes: float = Field(gt=0)
    max_kernel_us: float = Field(gt=0)


class Checks(_Strict):
    same_stream_overlap_us: float = Field(ge=0)
    clock_slack_us: float = Field(ge=0)


class Disagreement(_Strict):
    tolerance: float = Field(gt=0)
    finding: str
    because: str


class Counters(_Strict):
    category: str
    flops: dict[str, tuple[str, float]]
    dram_bytes: str
    dram_bytes_parts: tuple[str, ...]
    tensor_prefixes: tuple[str, ...]
    max_listed_ranges: int = Field(ge=0)
    facts: dict[str, str]


class Ranks(_Strict):
    straggler_ratio: float = Field(gt=1)
    straggler_finding: str
    straggler_because: str
    idle_spread_notable: float = Field(gt=0, le=1)
    idle_spread_finding: str
    idle_spread_because: str


class UnknownDevice(_Strict):
    finding: str
    because: str


class Nsys(_Strict):
    step_ranges: tuple[str, ...]
    range_event_types: tuple[int, ...]
    device_key: str


class Ncu(_Strict):
    section: str
    duration: str
    dram: str
    compute: str
    raw_duration: tuple[str, ...]
    raw_dram: tuple[str, ...]
    raw_compute: tuple[str, ...]
    time_units: dict[str, float]


class LongGap(_Strict):
    min_us: float = math.inf
    window_share: float = 1.0


class Settings(_Strict):
    gpu_categories: tuple[str, ...]
    runtime_categories: tuple[str, ...]
    sync_categories: tuple[str, ...]
    communication_category: str
    launch_calls: tuple[str, ...]
    graph_launch_calls: tuple[str, ...] = ()   # launches that replay a captured graph
    long_gap: LongGap = LongGap()              # an idle gap this long is a wait, not a step's work
    step_annotation: str
    step_categories: tuple[str, ...]
    step_cutoff_categories: tuple[str, ...]
    nsys: Nsys
    ncu: Ncu
    limits: Limits
    checks: Checks
    disagreement: Disagreement
    unknown_device: UnknownDevice
    unnamed_device: UnknownDevice
    counters: Counters
    ranks: Ranks


@cache
def settings() -> Settings:
    raw = load_yaml(SETTINGS_FILE)
    if not isinstance(raw, dict):
        raise RegimeError("trace settings must be a mapping", file=str(SETTINGS_FILE))
    return validated(Settings, raw, str(SETTINGS_FILE))

"""Generated cases for differential tests, benchmarks and sweeps.

`generated(n, seed)` yields realistic workloads: any GPU of the hardware catalogue, any model
(or none), each phase, batch and context over orders of magnitude, dtypes the GPU has (and now
and then one it lacks), utilizations, kernel timelines and breakdowns, proposals and claims.
`mutated(n, seed, bases)` bends valid cases the way a fuzzer does: extreme but often valid
values, dropped facts, inline hardware, odd kernel names, aliases. Both are deterministic for
a seed and return plain mappings ready for `write` (YAML); nothing here runs an engine, and no
figure here comes from the worked solution.
"""

from __future__ import annotations

import copy
import math
import random
from collections.abc import Iterator, Mapping, Sequence
from pathlib import Path
from typing import Any

import yaml

from regime.facts import catalogue

PHASES = ("decode", "prefill", "training")
DTYPES = ("fp32", "bf16", "fp16", "fp8", "int8", "int4")
COMPUTE = ("fp32", "bf16", "fp16", "fp8", "int8")
TRAFFIC = ("bursty_low_volume", "steady_high_volume", "single_stream", "offline_batch")
COMPLAINTS = ("ttft", "itl", "throughput", "step_time", "cost")
KERNELS = ("layer_norm", "rms_norm", "add/mul/silu", "to_copy", "gelu", "rope", "residual_add",
           "flash_attention", "gemm", "softmax", "all_reduce", "Custom Kernel #7")
BYTES_PER = {"fp32": 4, "bf16": 2, "fp16": 2, "fp8": 1, "int8": 1, "int4": 0.5}


def generated(n: int, seed: int = 0, levers: Sequence[str] = (), claims: Sequence[str] = ()
              ) -> Iterator[tuple[str, dict[str, Any]]]:
    """`n` realistic cases as (name, mapping)."""
    rng = random.Random(seed)
    gpus, models = catalogue.names("hardware"), catalogue.names("models")
    for i in range(n):
        yield f"gen_{seed}_{i:05d}", _workload(rng, gpus, models, levers, claims, i)


def _workload(rng: random.Random, gpus: list[str], models: list[str], levers: Sequence[str],
              claims: Sequence[str], i: int) -> dict[str, Any]:
    gpu = rng.choice(gpus)
    _, entry = catalogue.lookup("hardware", gpu)
    have = [d for d in COMPUTE if d in entry.get("peak_flops_by_dtype", {})]
    phase = rng.choice(PHASES)
    compute = rng.choice(have) if have and rng.random() < 0.9 else rng.choice(COMPUTE)
    weight = compute if rng.random() < 0.6 else rng.choice(DTYPES)
    batch = _log_int(rng, 1, 4096 if phase == "decode" else 64)
    facts: dict[str, Any] = {"phase": phase, "batch": batch, "weight_dtype": weight,
                             "compute_dtype": compute}
    model = rng.choice(models) if rng.random() < 0.8 else None
    params = _model_params(model) if model else _log_float(rng, 1e9, 4e11)
    if model is None or rng.random() < 0.3:
        facts["weight_bytes"] = _qty(params * BYTES_PER[weight] / 1e9, "GB")
    flop, bw = rng.uniform(0.001, 0.95), rng.uniform(0.005, 0.98)
    facts["flop_util"], facts["bw_util"] = _pct(flop), _pct(bw)
    if rng.random() < 0.15:
        del facts[rng.choice(["flop_util", "bw_util"])]
    if phase == "decode":
        _decode(rng, facts, entry, params * BYTES_PER[weight], bw)
    else:
        facts["tokens_per_seq"] = _log_int(rng, 16, 131072)
        if rng.random() < 0.6:
            facts["attention_impl"] = rng.choice(["naive", "flash"])
        if rng.random() < 0.3:
            facts["transient_memory"] = _qty(_log_float(rng, 0.1, 500), "GB")
        if phase == "training" and rng.random() < 0.5:
            facts["step_time"] = _qty(_log_float(rng, 10, 20000), "ms")
    for name, p in (("traffic", 0.6), ("complaint", 0.4)):
        if rng.random() < p:
            facts[name] = rng.choice(TRAFFIC if name == "traffic" else COMPLAINTS)
    if rng.random() < 0.35:
        facts["kernel_share"] = _shares(rng)
    if rng.random() < 0.3:
        _timeline(rng, facts)
    case: dict[str, Any] = {"title": f"generated workload {i}", "hardware": gpu, "facts": facts}
    if model:
        case["model"] = model
    case["proposals"] = rng.sample(list(levers), k=min(len(levers), rng.randint(0, 3)))
    case["claims"] = rng.sample(list(claims), k=min(len(claims), rng.randint(0, 1)))
    return case


def _decode(rng: random.Random, facts: dict, entry: Mapping, weight_bytes: float, bw: float) -> None:
    peak_bw = _catalogue_value(entry.get("peak_bw"), 3e12)
    ceiling = facts["batch"] * peak_bw / max(weight_bytes, 1.0)
    shape = rng.random()
    tokens = ceiling * bw if shape < 0.6 else ceiling * _log_float(rng, 0.01, 3.0)
    facts["throughput"] = _qty(max(tokens, 0.01), "tokens/s")
    if rng.random() < 0.5:
        facts["context_tokens"] = _log_int(rng, 64, 131072)
    if rng.random() < 0.2:
        facts["itl"] = _qty(_log_float(rng, 2, 500), "ms")


def _timeline(rng: random.Random, facts: dict) -> None:
    facts["kernels_per_step"] = _log_int(rng, 10, 5000)
    lo = _log_float(rng, 1, 200)
    facts["kernel_duration"] = {"range": f"{lo:.3g}-{lo * rng.uniform(1, 8):.3g} us"}
    gap = _log_float(rng, 0.5, 60)
    facts["kernel_gap"] = ({"range": f"{gap:.3g}-{gap * 2:.3g} us", "typical": f"{gap * 1.3:.3g} us"}
                           if rng.random() < 0.5 else _qty(gap, "us"))


def _shares(rng: random.Random) -> dict[str, str]:
    names = rng.sample(KERNELS, k=rng.randint(1, 5))
    weights = [rng.random() for _ in names]
    total = sum(weights) / rng.uniform(0.05, 0.95)
    return {n: f"{100 * w / total:.3g}%" for n, w in zip(names, weights, strict=True)}


# ---- fuzz-style variations of valid cases -------------------------------------------------------

EXTREMES = ("0%", "100%", "0.0000001%", "1e-18", "1e18", "1", "0")


def mutated(n: int, seed: int, bases: Sequence[Mapping[str, Any]], levers: Sequence[str] = ()
            ) -> Iterator[tuple[str, dict[str, Any]]]:
    """`n` variations of `bases` (case mappings), several mutations each."""
    rng = random.Random(seed)
    gpus = catalogue.names("hardware")
    for i in range(n):
        case = copy.deepcopy(dict(rng.choice(bases)))
        for _ in range(rng.randint(1, 4)):
            rng.choice(_MUTATIONS)(rng, case, gpus, levers)
        case["title"] = f"mutated {i}"
        yield f"mut_{seed}_{i:05d}", case


def _scale(rng: random.Random, case: dict, *_: Any) -> None:
    facts = case.setdefault("facts", {})
    numeric = [k for k, v in facts.items() if isinstance(v, int | float | str) and _number_part(v)]
    if numeric:
        name = rng.choice(numeric)
        value, unit = _number_part(facts[name])  # type: ignore[misc]
        facts[name] = f"{value * 10 ** rng.uniform(-9, 9):.4g}{unit}".strip()


def _extreme(rng: random.Random, case: dict, *_: Any) -> None:
    facts = case.setdefault("facts", {})
    numeric = [k for k, v in facts.items() if isinstance(v, int | float | str) and _number_part(v)]
    if numeric:
        name = rng.choice(numeric)
        unit = _number_part(facts[name])[1]  # type: ignore[index]
        pick = rng.choice(EXTREMES)
        facts[name] = pick if "%" in pick or not unit.strip() else f"{pick}{unit}"


def _drop(rng: random.Random, case: dict, *_: Any) -> None:
    facts = case.setdefault("facts", {})
    if facts:
        del facts[rng.choice(sorted(facts))]
    elif "model" in case:
        del case["model"]


def _swap_category(rng: random.Random, case: dict, *_: Any) -> None:
    facts = case.setdefault("facts", {})
    name, values = rng.choice([("phase", PHASES), ("weight_dtype", DTYPES), ("compute_dtype", COMPUTE),
                               ("traffic", TRAFFIC), ("complaint", COMPLAINTS),
                               ("attention_impl", ("naive", "flash"))])
    facts[name] = rng.choice(values)


def _hardware(rng: random.Random, case: dict, gpus: Sequence[str], *_: Any) -> None:
    gpu = rng.choice(gpus)
    if rng.random() < 0.6:
        case["hardware"] = gpu
        return
    _, entry = catalogue.lookup("hardware", gpu)
    inline = {k: _plain(v) for k, v in entry.items() if k not in ("name", "aliases", "source")}
    for key in list(inline):
        if rng.random() < 0.25:
            del inline[key]
    case["hardware"] = inline


def _kernels(rng: random.Random, case: dict, *_: Any) -> None:
    case.setdefault("facts", {})["kernel_share"] = _shares(rng)


def _proposals(rng: random.Random, case: dict, gpus: Sequence[str], levers: Sequence[str]) -> None:
    if levers:
        picked = rng.sample(list(levers), k=min(len(levers), rng.randint(0, 4)))
        case["proposals"] = [p.replace("_", " ") if rng.random() < 0.2 else p for p in picked]


def _batch(rng: random.Random, case: dict, *_: Any) -> None:
    case.setdefault("facts", {})["batch"] = _log_int(rng, 1, 10**6)


_MUTATIONS = (_scale, _extreme, _drop, _swap_category, _hardware, _kernels, _proposals, _batch)


# ---- helpers -------------------------------------------------------------------------------------

def write(case: Mapping[str, Any], path: Path) -> Path:
    path.write_text(yaml.safe_dump(dict(case), sort_keys=False, allow_unicode=True), encoding="utf-8")
    return path


def _plain(v: Any) -> Any:
    """Catalogue data (line-numbered mappings) as plain YAML-ready values."""
    if isinstance(v, Mapping):
        return {str(k): _plain(x) for k, x in v.items()}
    if isinstance(v, list | tuple):
        return [_plain(x) for x in v]
    return v


def _number_part(v: object) -> tuple[float, str] | None:
    if isinstance(v, bool):
        return None
    if isinstance(v, int | float):
        return float(v), ""
    head, _, unit = str(v).partition(" ")
    text = head[:-1] if head.endswith("%") else head
    try:
        value = float(text)
    except ValueError:
        return None
    if not math.isfinite(value):
        return None
    return value, ("%" if head.endswith("%") else "") + (f" {unit}" if unit else "")


def _model_params(name: str) -> float:
    _, entry = catalogue.lookup("models", name)
    return float(entry.get("params", 7e9))


def _catalogue_value(raw: object, default: float) -> float:
    """A catalogue rate ('5.3 TB/s' in a {value: ...} mapping) as a number, roughly."""
    text = raw.get("value", "") if isinstance(raw, Mapping) else str(raw or "")
    scale = {"TB/s": 1e12, "GB/s": 1e9}
    for unit, mult in scale.items():
        if str(text).endswith(unit):
            try:
                return float(str(text)[: -len(unit)]) * mult
            except ValueError:
                break
    return default


def _log_float(rng: random.Random, lo: float, hi: float) -> float:
    return math.exp(rng.uniform(math.log(lo), math.log(hi)))


def _log_int(rng: random.Random, lo: int, hi: int) -> int:
    return max(lo, min(hi, round(_log_float(rng, lo, hi))))


def _qty(x: float, unit: str) -> str:
    return f"{x:.4g} {unit}"


def _pct(x: float) -> str:
    return f"{100 * x:.3g}%"

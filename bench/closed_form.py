"""An independent closed-form decode roofline: no regime import, no YAML, every number written here.

Per pass, each GPU reads its share of the weights (the input embedding is a lookup and is not
read; a mixture of experts reads the shared weights and the experts its tokens touch, expected
n·(1 − (1 − k/n)^T) per layer; weight-only int4/int8 checkpoints keep the embedding and LM head
in fp16 and add an fp16 scale and a 4-bit zero point per 128 weights) and its share of the KV
cache (batch × context × 2 × layers × KV heads × head dim × bytes, split over min(tp, KV heads)).

    ceiling   = batch × bandwidth / bytes per GPU per pass
    intensity = FLOPs per pass / bytes per pass, FLOPs = 2 × active params + 4 × layers × d × ctx per token
    verdict   = bandwidth-bound below the ridge (peak FLOP/s / bandwidth), compute-bound at or past it

Sources: model shapes from each model's HF config.json; GPU figures from the vendors' data sheets
(dense tensor rates): A100 80GB SXM 2.039 TB/s, 312 / 624 (int8) TFLOP/s; H100 SXM 3.35 TB/s,
989.4 / 1978.9; MI300X 5.3 TB/s, 1307.4 / 2614.9.
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Model:
    params: int
    d: int
    layers: int
    heads: int
    kv_heads: int
    vocab: int
    experts: int = 1
    top_k: int = 1
    expert_params: int = 0


@dataclass(frozen=True)
class Gpu:
    bw: float                     # byte/s
    hbm: float                    # byte
    flops: dict[str, float]       # dense FLOP/s by compute dtype


MODELS = {
    "llama-2-7b": Model(6_738_415_616, 4096, 32, 32, 32, 32_000),
    "llama-2-13b": Model(13_015_864_320, 5120, 40, 40, 40, 32_000),
    "llama-2-70b": Model(68_976_648_192, 8192, 80, 64, 8, 32_000),
    "llama-3-8b": Model(8_030_261_248, 4096, 32, 32, 8, 128_256),
    "mixtral-8x7b": Model(46_702_792_704, 4096, 32, 32, 8, 32_000, 8, 2, 32 * 8 * 3 * 4096 * 14336),
}
GPUS = {
    "A100_80GB": Gpu(2.039e12, 80e9, {"fp16": 312e12, "int8": 624e12}),
    "H100_SXM": Gpu(3.35e12, 80e9, {"fp16": 989.4e12, "int8": 1978.9e12}),
    "MI300X": Gpu(5.3e12, 192e9, {"fp16": 1307.4e12, "int8": 2614.9e12}),
}
# name -> (weight dtype, compute dtype); the KV cache stays fp16 in all three
PRECISIONS = {"fp16": ("fp16", "fp16"), "W8A8": ("int8", "int8"), "W4A16": ("int4", "fp16")}
BYTES = {"fp16": 2.0, "int8": 1.0, "int4": 0.5}
KV_BYTES = 2.0
GROUP, GROUP_BYTES = 128, 2.5


@dataclass(frozen=True)
class Point:
    ceiling: float       # tokens/s
    intensity: float     # FLOP/byte, whole pass
    verdict: str
    tp: int


def storage(m: Model, weight_dtype: str, compute_dtype: str) -> tuple[float, float]:
    """Bytes per layer weight and per vocabulary weight."""
    b = BYTES[weight_dtype]
    if b < BYTES[compute_dtype]:                  # weight-only quantized checkpoint
        return b + GROUP_BYTES / GROUP, BYTES[compute_dtype]
    return b, b


def stored_bytes(m: Model, weight_dtype: str, compute_dtype: str) -> float:
    layer_b, vocab_b = storage(m, weight_dtype, compute_dtype)
    vocab = m.vocab * m.d
    return (m.params - 2 * vocab) * layer_b + 2 * vocab * vocab_b


def tp_for(m: Model, gpu: Gpu, weight_dtype: str, compute_dtype: str) -> int:
    """The smallest power-of-two TP degree whose weight shard leaves 10% of HBM free."""
    tp = 1
    while stored_bytes(m, weight_dtype, compute_dtype) / tp > 0.9 * gpu.hbm:
        tp *= 2
    return tp


def decode(model: str, gpu_name: str, precision: str, batch: int, context: int) -> Point:
    m, gpu = MODELS[model], GPUS[gpu_name]
    wdt, cdt = PRECISIONS[precision]
    layer_b, vocab_b = storage(m, wdt, cdt)
    vocab = m.vocab * m.d
    shared = m.params - m.expert_params - vocab                  # everything but experts and embedding
    touched = m.experts * (1 - (1 - m.top_k / m.experts) ** batch) if m.experts > 1 else 1
    read = shared + m.expert_params * touched / m.experts         # parameters read per pass
    active = shared + m.expert_params * m.top_k / m.experts      # parameters multiplied per token
    weights = (read - vocab) * layer_b + vocab * vocab_b
    kv = batch * context * 2 * m.layers * m.kv_heads * (m.d / m.heads) * KV_BYTES
    tp = tp_for(m, gpu, wdt, cdt)
    per_gpu = weights / tp + kv / min(tp, m.kv_heads)
    flops_per_token = 2 * active + 4 * m.layers * m.d * context
    intensity = flops_per_token * batch / (weights + kv)
    ridge = gpu.flops[cdt] / gpu.bw
    return Point(batch * gpu.bw / per_gpu, intensity,
                 "bandwidth_bound" if intensity < ridge else "compute_bound", tp)

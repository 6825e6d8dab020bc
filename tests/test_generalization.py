"""Generalization: the g_* cases put Solution 3's reasoning on other GPUs, models, precisions and batches.

Every expected verdict here is computed from first principles, from datasheet numbers and model shapes
written in this file, and never copied from a run of the tool:

* ridge point = dense peak FLOP/s of the compute dtype / peak bandwidth;
* arithmetic intensity of the weight GEMMs = 2 FLOP × tokens per pass / bytes per weight;
* nominal regime: below the ridge bandwidth-bound, at or past it compute-bound;
* measured regime: Solution 3's synthesis table (FLOP rate and bandwidth, each high at >= 50%);
* the levers follow Solution 3's playbook for the regime so computed (cases A, C, D, E);
* attention's FLOP share at N tokens is N / (N + p_layer / 2d).

Where the tool disagrees with these expectations the single parameter is marked xfail(strict=True), with
the rule believed to be at fault in its reason.
"""

from __future__ import annotations

from dataclasses import dataclass

import pytest
import yaml

from regime.engine import api
from regime.engine.knowledge.paths import CASES_DIR

# --- datasheet numbers ---------------------------------------------------------------------------------
# Dense tensor-core rates (no 2:4 sparsity), decimal units (1 TB = 1e12 B). A dtype missing from `flops`
# has no matrix-core support on that GPU.


@dataclass(frozen=True)
class Gpu:
    peak_bw: float             # byte/s
    hbm: float                 # byte
    flops: dict[str, float]    # FLOP/s by compute dtype


GPUS = {
    # NVIDIA H100 Tensor Core GPU Architecture whitepaper (2022), Table 3, H100 SXM5: FP16/BF16 989.4,
    # FP8 1978.9 TFLOP/s dense; H100 data sheet (2023), SXM: 3.35 TB/s, 80 GB HBM3.
    "H100_SXM": Gpu(3.35e12, 80e9, {"fp16": 989.4e12, "bf16": 989.4e12, "fp8": 1978.9e12}),
    # Same whitepaper, Table 3, H100 PCIe: FP16/BF16 756, FP8 1513 TFLOP/s dense; data sheet: 2.0 TB/s, 80 GB.
    "H100_PCIe": Gpu(2.0e12, 80e9, {"fp16": 756e12, "bf16": 756e12, "fp8": 1513e12}),
    # NVIDIA A100 data sheet (2021), 80GB SXM: FP16/BF16 tensor 312 TFLOP/s dense, 2,039 GB/s, 80 GB HBM2e.
    # Ampere has no FP8 matrix cores.
    "A100_80GB": Gpu(2.039e12, 80e9, {"fp16": 312e12, "bf16": 312e12}),
    # NVIDIA HGX B200 data sheet (2024), per GPU of eight: FP16/BF16 2.25 PFLOP/s dense, FP8 4.5 PFLOP/s
    # dense, 7.7 TB/s HBM3e per GPU (DGX's 64 TB/s / 8 is a system figure), 1,440 GB / 8 = 180 GB.
    "B200": Gpu(7.7e12, 180e9, {"fp16": 2250e12, "bf16": 2250e12, "fp8": 4500e12}),
    # NVIDIA L40S data sheet (2023): FP16/BF16 362.05, FP8 733 TFLOP/s dense, 864 GB/s, 48 GB GDDR6.
    "L40S": Gpu(0.864e12, 48e9, {"fp16": 362.05e12, "bf16": 362.05e12, "fp8": 733e12}),
    # AMD Instinct MI325X data sheet (2024): FP16/BF16 1307.4, FP8 2614.9 TFLOP/s dense, 6.0 TB/s, 256 GB.
    "MI325X": Gpu(6.0e12, 256e9, {"fp16": 1307.4e12, "bf16": 1307.4e12, "fp8": 2614.9e12}),
}


@dataclass(frozen=True)
class Model:
    params: int
    d: int          # hidden size
    heads: int
    kv_heads: int
    ffn: int
    vocab: int
    layers: int

    @property
    def p_layer(self) -> float:
        """GEMM weights one token touches per layer: Q and O (d²), K and V (d² × kv/h), gate/up/down."""
        return 2 * self.d**2 + 2 * self.d**2 * self.kv_heads / self.heads + 3 * self.d * self.ffn


MODELS = {
    # Touvron et al. 2023 (arXiv:2307.09288) Table 1; HF config.json of meta-llama/Llama-2-{7,13,70}b-hf.
    "llama-2-7b": Model(6_738_415_616, 4096, 32, 32, 11008, 32000, 32),
    "llama-2-13b": Model(13_015_864_320, 5120, 40, 40, 13824, 32000, 40),
    "llama-2-70b": Model(68_976_648_192, 8192, 64, 8, 28672, 32000, 80),
    # Dubey et al. 2024 (arXiv:2407.21783) Table 3; HF config.json of meta-llama/Meta-Llama-3-{8,70}B.
    "llama-3-8b": Model(8_030_261_248, 4096, 32, 8, 14336, 128256, 32),
    "llama-3-70b": Model(70_553_706_496, 8192, 64, 8, 28672, 128256, 80),
    # Jiang et al. 2023 (arXiv:2310.06825) Table 1; HF config.json of mistralai/Mistral-7B-v0.1.
    "mistral-7b": Model(7_241_732_096, 4096, 32, 8, 14336, 32000, 32),
    # Roziere et al. 2023 (arXiv:2308.12950); HF config.json of codellama/CodeLlama-34b-hf.
    "codellama-34b": Model(33_743_970_304, 8192, 64, 8, 22016, 32000, 48),
}

BYTES = {"fp32": 4, "fp16": 2, "bf16": 2, "fp8": 1, "int8": 1, "int4": 0.5}  # bytes per element
FLOPS_PER_WEIGHT = 2        # one multiply-accumulate per weight per token
UTIL_HIGH = 0.5             # Solution 3 synthesis table: "high" utilization (the 50% cut-off)
NEAR_RIDGE = 0.1            # within 10% of the ridge the roofline predicts both resources busy (balanced)
NEAR_CEILING = 0.7          # Solution 3, case A: 78% of the ceiling is already a good result
FAR_BELOW = 2               # Solution 3, case E / README §5.3: a large gap to the ceiling is the finding
GAP_HIGH = 0.2              # idle share between kernels that dominates (case E has 38%)
LONG_PROMPT = 8192          # Solution 3, case C: chunk prompts long enough to stall other users
BW_NOISE = 0.15             # profiler rounding allowed between implied and measured bandwidth
KV_MATTERS = 8              # tokens per decode pass from which an unknown context may hide a large KV read

BANDWIDTH, COMPUTE, OVERHEAD, BALANCED = "bandwidth_bound", "compute_bound", "overhead_bound", "balanced"


# --- the cases, as their files state them -------------------------------------------------------------

@dataclass(frozen=True)
class Spec:
    name: str
    gpu: str
    model: str
    phase: str
    batch: int | None
    weight_dtype: str
    compute_dtype: str
    flop_util: float | None = None
    bw_util: float | None = None
    throughput: float | None = None           # token/s
    tokens_per_seq: int = 1                   # prompt length in prefill
    weight_shards: int = 1                    # tp: the weights are split over this many GPUs
    context: int | None = None                # context_tokens per sequence (decode)
    proposals: frozenset[str] = frozenset()
    attention_impl: str | None = None
    flash_share: float | None = None          # profiler share of flash-attention kernels
    kernel_us: tuple[float, float] | None = None  # typical kernel duration and gap between kernels


SPECS = [
    Spec("g_int4_small_batch_h100", "H100_SXM", "llama-2-70b", "decode", 8, "fp16", "fp16",
         flop_util=0.02, bw_util=0.80, throughput=310, weight_shards=2, context=2048,
         proposals=frozenset({"quantize_int4"})),
    Spec("g_int4_past_ridge_h100", "H100_SXM", "llama-2-70b", "decode", 512, "fp16", "fp16",
         flop_util=0.70, bw_util=0.40, proposals=frozenset({"quantize_int4"})),
    Spec("g_batch256_a100_compute_bound", "A100_80GB", "llama-3-8b", "decode", 256, "bf16", "bf16",
         flop_util=0.62, bw_util=0.37, throughput=12050, proposals=frozenset({"quantize_int8"})),
    Spec("g_batch256_h100_bandwidth_bound", "H100_SXM", "llama-3-8b", "decode", 256, "bf16", "bf16",
         flop_util=0.48, bw_util=0.56, throughput=29900, proposals=frozenset({"quantize_int8"})),
    Spec("g_short_prefill_a100", "A100_80GB", "llama-2-7b", "prefill", 1, "fp16", "fp16",
         flop_util=0.55, bw_util=0.10, tokens_per_seq=1024, attention_impl="flash", flash_share=0.06,
         proposals=frozenset({"raise_batch", "quantize_int8", "fuse_attention"})),
    Spec("g_overhead_decode_h100_pcie", "H100_PCIe", "mistral-7b", "decode", 1, "fp16", "fp16",
         flop_util=0.0004, bw_util=0.14, throughput=20, kernel_us=(12, 30),
         proposals=frozenset({"raise_batch", "quantize_int8", "quantize_int4"})),
    Spec("g_balanced_near_ridge_h100", "H100_SXM", "mistral-7b", "decode", 288, "fp16", "fp16",
         flop_util=0.66, bw_util=0.68, throughput=45300, attention_impl="flash",
         proposals=frozenset({"quantize_int4", "raise_batch"})),
    Spec("g_throughput_beats_ceiling_l40s", "L40S", "llama-2-13b", "decode", 4, "fp16", "fp16",
         flop_util=0.01, bw_util=0.85, throughput=210),
    Spec("g_missing_facts_mi325x", "MI325X", "llama-3-70b", "decode", None, "bf16", "bf16"),
    Spec("g_fp8_w8a8_b200", "B200", "llama-3-70b", "decode", 400, "fp8", "fp8",
         flop_util=0.60, bw_util=0.42, throughput=19100,
         proposals=frozenset({"quantize_int4", "raise_batch"})),
    Spec("g_awq_int4_batch128_h100", "H100_SXM", "codellama-34b", "decode", 128, "int4", "fp16",
         flop_util=0.58, bw_util=0.33, throughput=8500, proposals=frozenset({"raise_batch"})),
]
BY_NAME = {s.name: s for s in SPECS}
IDS = [s.name for s in SPECS]


# --- first principles -----------------------------------------------------------------------------------

def peak_flops(s: Spec) -> float:
    return GPUS[s.gpu].flops[s.compute_dtype]


def ridge(s: Spec) -> float:
    return peak_flops(s) / GPUS[s.gpu].peak_bw


def tokens_per_pass(s: Spec) -> int | None:
    return None if s.batch is None else s.batch * s.tokens_per_seq


def intensity(s: Spec, weight_dtype: str | None = None) -> float | None:
    t = tokens_per_pass(s)
    return None if t is None else FLOPS_PER_WEIGHT * t / BYTES[weight_dtype or s.weight_dtype]


def nominal_regime(s: Spec) -> str | None:
    ai = intensity(s)
    if ai is None:
        return None
    return BANDWIDTH if ai < ridge(s) else COMPUTE


def measured_regime(s: Spec) -> str | None:
    """Solution 3's synthesis table; without the pair, what theory predicts."""
    if s.flop_util is None or s.bw_util is None:
        return nominal_regime(s)
    flop_high, bw_high = s.flop_util >= UTIL_HIGH, s.bw_util >= UTIL_HIGH
    return {(False, True): BANDWIDTH, (True, False): COMPUTE,
            (False, False): OVERHEAD, (True, True): BALANCED}[(flop_high, bw_high)]


def weight_bytes(s: Spec) -> float:
    """Bytes of weights each GPU stores (every parameter, the input embedding included)."""
    return MODELS[s.model].params * BYTES[s.weight_dtype] / s.weight_shards


def read_bytes(s: Spec) -> float:
    """Bytes each GPU reads per decode pass: weights but the input embedding (a lookup), and its
    share of the KV cache (2 × layers × KV heads × head dim × context × batch, in the compute dtype).
    Only plain-dtype specs use this (no group scales)."""
    m = MODELS[s.model]
    weights = (m.params - m.vocab * m.d) * BYTES[s.weight_dtype] / s.weight_shards
    kv = 0.0 if s.context is None or s.batch is None else (
        2 * m.layers * m.kv_heads * (m.d / m.heads) * s.context * s.batch * BYTES[s.compute_dtype]
        / min(s.weight_shards, m.kv_heads))
    return weights + kv


def bandwidth_ceiling(s: Spec) -> float:
    """Decode reads its weights and KV cache once per pass: tokens/s <= batch × peak_bw / bytes read."""
    assert s.batch is not None
    return s.batch * GPUS[s.gpu].peak_bw / read_bytes(s)


def compute_ceiling(s: Spec) -> float:
    """Each token costs 2 FLOPs per multiplied weight (not the embedding lookup), split over the GPUs."""
    m = MODELS[s.model]
    return peak_flops(s) / (FLOPS_PER_WEIGHT * (m.params - m.vocab * m.d) / s.weight_shards)


def roofline_ceiling(s: Spec) -> float:
    return min(bandwidth_ceiling(s), compute_ceiling(s))


def attention_flop_share(s: Spec) -> float:
    m = MODELS[s.model]
    crossover = m.p_layer / (2 * m.d)
    return s.tokens_per_seq / (s.tokens_per_seq + crossover)


def expected_verdict(s: Spec, lever: str) -> str | None:
    """Solution 3's playbook for the regime computed above: 'fix', 'reject' or None (not addressed)."""
    regime, nominal = measured_regime(s), nominal_regime(s)
    if regime is None:
        return None
    decode, proposed = s.phase == "decode", lever in s.proposals
    bpw, ai, t = BYTES[s.weight_dtype], intensity(s), tokens_per_pass(s)
    assert ai is not None and t is not None
    past_ridge = ai >= ridge(s)
    int4_below_ridge = intensity(s, "int4") < ridge(s)      # int4 weights would stay bandwidth-bound
    compute_side = regime in (COMPUTE, BALANCED)
    if lever == "continuous_batching":                        # case A, fix 1
        return "fix" if decode and regime == BANDWIDTH and not past_ridge else None
    # Every lever is judged wherever the playbook applies, proposed or not (README, "Verdicts");
    # `proposed` only decides which of two sibling verdicts a report folds (tested on their own).
    if lever == "quantize_int8":
        if decode and regime == BANDWIDTH and bpw > BYTES["int8"]:
            return "fix"                                      # case A, fix 2
        if regime == OVERHEAD:
            return "reject"                                   # case E: bytes do not fill idle gaps
        if decode and regime == COMPUTE and past_ridge and bpw > BYTES["int8"]:
            return "reject"                                   # case D: attacks an idle resource
        if not decode and nominal == COMPUTE:
            return "reject"                                   # case C: weight read amortized
        return None
    if lever == "quantize_int4":
        if decode and regime == BANDWIDTH and bpw > BYTES["int4"] and int4_below_ridge:
            return "fix"                                      # case D: ~4x on bandwidth-bound decode
        if regime == OVERHEAD and bpw > BYTES["int4"]:
            return "reject"                                   # case E: any weight quantization
        if decode and regime == COMPUTE and past_ridge and bpw > BYTES["int4"]:
            return "reject"                                   # case D: the director's answer
        if decode and regime == BALANCED and proposed and bpw > BYTES["int4"] and not int4_below_ridge:
            return "reject"                                   # compute binds as soon as bytes shrink
        if not decode and nominal == COMPUTE and bpw > BYTES["int4"]:
            return "reject"                                   # case C
        return None
    if lever == "raise_batch":
        if regime == OVERHEAD:
            return "reject"                                   # case E
        if decode and regime == COMPUTE and past_ridge:
            return "reject"                                   # case D: gains from batching are behind you
        if decode and regime == BALANCED and proposed:
            return "reject"                                   # at the ridge there is no headroom left
        if s.phase == "prefill" and nominal == COMPUTE:
            return "reject"                                   # case C: batching makes TTFT worse
        return None
    if lever == "fp8_gemm":                                   # case D: raise the ceiling that binds
        fp8_exists = "fp8" in GPUS[s.gpu].flops
        return "fix" if decode and compute_side and fp8_exists and s.compute_dtype != "fp8" else None
    if lever == "fuse_attention":
        if s.attention_impl == "flash" and s.flash_share is not None:
            return "reject"                                   # case B: already flash
        return "fix" if decode and compute_side and s.attention_impl != "flash" else None  # case D
    if lever == "cuda_graphs":                                # case E, fix 1
        return "fix" if decode and regime == OVERHEAD else None
    if lever == "torch_compile":  # case E, fix 2; no g_ case lists zero-FLOP kernels
        return "fix" if regime == OVERHEAD else None
    if lever == "flash_attention":                            # case C, fix 1
        return "fix" if not decode and s.attention_impl == "naive" else None
    if lever == "chunked_prefill":                            # case C, fix 2
        return "fix" if s.phase == "prefill" and s.tokens_per_seq >= LONG_PROMPT else None
    if lever == "buy_more_flops":                             # case A: the FLOPs you own are idle
        flop_low = s.flop_util is not None and s.flop_util < UTIL_HIGH
        return "reject" if flop_low and regime in (BANDWIDTH, OVERHEAD) else None
    raise AssertionError(f"no playbook entry for {lever}")


def expected_findings(s: Spec) -> dict[str, bool]:
    """Findings whose presence follows from the numbers (the agreement finding is tested on its own)."""
    out = {"weights_exceed_device": weight_bytes(s) > GPUS[s.gpu].hbm}
    if s.phase == "decode" and s.throughput is not None:
        weight_read_share = s.throughput / bandwidth_ceiling(s)
        assert s.bw_util is not None
        out["inconsistent_data"] = weight_read_share > 1 or weight_read_share - s.bw_util > BW_NOISE
        of_roofline = s.throughput / roofline_ceiling(s)
        out["near_ceiling"] = NEAR_CEILING <= of_roofline <= 1
        out["far_below_ceiling"] = 1 / of_roofline >= FAR_BELOW
    if s.kernel_us is not None:
        duration, gap = s.kernel_us
        out["idle_gaps"] = gap / (duration + gap) >= GAP_HIGH
    out["int4_for_capacity"] = (s.phase == "decode" and measured_regime(s) == COMPUTE
                                and "quantize_int4" in s.proposals and BYTES[s.weight_dtype] > BYTES["int4"])
    return out


def expected_agreement(s: Spec) -> str | None:
    """theory_agrees when the profiler says what the roofline predicts, else regime_mismatch."""
    if s.flop_util is None or s.bw_util is None:
        return None
    regime, ai = measured_regime(s), intensity(s)
    assert ai is not None
    at_ridge = abs(ai / ridge(s) - 1) <= NEAR_RIDGE
    agrees = regime == nominal_regime(s) or (regime == BALANCED and at_ridge)
    return "theory_agrees" if agrees else "regime_mismatch"


def expected_asks(s: Spec) -> list[str]:
    """Synthesis: tokens per pass first, then the FLOP/bandwidth pair; case E: re-measure after graphs."""
    asks = []
    if tokens_per_pass(s) is None:
        asks.append("tokens_per_pass")
    asks += [name for name in ("flop_util", "bw_util") if getattr(s, name) is None]
    if measured_regime(s) == OVERHEAD:
        asks.append("throughput")
    t = tokens_per_pass(s)
    if s.phase == "decode" and s.context is None and t is not None and t >= KV_MATTERS:
        asks.append("context_tokens")                         # the KV read can rival the weights
    if s.phase == "decode" and measured_regime(s) in (COMPUTE, BALANCED) and s.attention_impl is None \
            and s.flash_share is None:
        asks.append("attention_impl")                         # attention advice needs evidence
    return asks


# --- where the tool is believed wrong -------------------------------------------------------------------

XFAIL: dict[tuple[str, str], str] = {}  # none left: every disagreement was a rule gap, now fixed


def param(name: str, *values: object, key: str) -> object:
    reason = XFAIL.get((name, key))
    marks = [pytest.mark.xfail(strict=True, reason=reason)] if reason else []
    return pytest.param(name, *values, marks=marks, id=f"{name}-{key}")


# --- fixtures -------------------------------------------------------------------------------------------

@pytest.fixture(scope="module")
def knowledge():
    return api.knowledge()


@pytest.fixture(scope="module")
def diagnoses(knowledge):
    return {s.name: api.diagnose(CASES_DIR / f"{s.name}.yaml", knowledge) for s in SPECS}


def verdicts(d, lever: str) -> set[str]:
    return {c.kind for c in d.conclusions if c.kind in ("fix", "reject") and c.lever == lever}


def finding_ids(d) -> set[str]:
    return {c.id for c in d.of_kind("finding")}


# --- the case files say what the specs say --------------------------------------------------------------

def _number(text: object) -> float:
    """'62%' -> 0.62, '12050 tokens/s' -> 12050, '69 GB' -> 69e9, 256 -> 256."""
    if isinstance(text, (int, float)):
        return float(text)
    value, _, unit = str(text).strip().partition(" ")
    if value.endswith("%"):
        return float(value[:-1]) / 100
    return float(value) * {"GB": 1e9}.get(unit, 1)


@pytest.mark.parametrize("s", SPECS, ids=IDS)
def test_case_file_matches_spec(s: Spec):
    raw = yaml.safe_load((CASES_DIR / f"{s.name}.yaml").read_text())
    facts = raw["facts"]
    assert (raw["hardware"], raw["model"], facts["phase"]) == (s.gpu, s.model, s.phase)
    assert (facts["weight_dtype"], facts["compute_dtype"]) == (s.weight_dtype, s.compute_dtype)
    assert facts.get("batch") == s.batch
    assert facts.get("tokens_per_seq", 1) == s.tokens_per_seq
    assert facts.get("attention_impl") == s.attention_impl
    for name in ("flop_util", "bw_util", "throughput"):
        written = facts.get(name)
        assert (None if written is None else _number(written)) == pytest.approx(getattr(s, name)), name
    assert frozenset(raw.get("proposals", [])) == s.proposals
    assert "weight_bytes" not in facts   # every g_ case lets the catalogue size the weights
    assert facts.get("tp", 1) == s.weight_shards
    assert facts.get("context_tokens") == s.context


@pytest.mark.parametrize("s", [s for s in SPECS if s.phase == "decode" and s.bw_util is not None
                               and s.name != "g_throughput_beats_ceiling_l40s"], ids=lambda s: s.name)
def test_case_data_obeys_the_roofline(s: Spec):
    """Decode reads the weights once per pass: flop/bw utilization = AI/ridge, bw = share of the ceiling."""
    assert s.flop_util is not None and s.bw_util is not None
    assert s.flop_util / s.bw_util == pytest.approx(intensity(s) / ridge(s), rel=0.15)
    if s.throughput is not None:
        assert s.throughput / bandwidth_ceiling(s) == pytest.approx(s.bw_util, rel=0.15)


# --- regimes ----------------------------------------------------------------------------------------------

@pytest.mark.parametrize("s", SPECS, ids=IDS)
def test_roofline_numbers(s: Spec, diagnoses):
    d = diagnoses[s.name]
    assert d.fact_value("ridge_point") == pytest.approx(ridge(s), rel=1e-3)
    expected_ai = intensity(s)
    if expected_ai is None:
        assert d.fact_value("arithmetic_intensity") is None
    else:
        assert d.fact_value("arithmetic_intensity") == pytest.approx(expected_ai, rel=1e-6)


@pytest.mark.parametrize("s", SPECS, ids=IDS)
def test_regimes(s: Spec, diagnoses):
    d = diagnoses[s.name]
    assert d.fact_value("nominal_regime") == nominal_regime(s)
    assert d.fact_value("regime") == measured_regime(s)


def test_same_batch_flips_with_the_gpu(diagnoses):
    """Batch 256 in bf16 is 256 FLOP/byte on any GPU: past A100's ridge (~153), below H100's (~295)."""
    a100, h100 = BY_NAME["g_batch256_a100_compute_bound"], BY_NAME["g_batch256_h100_bandwidth_bound"]
    assert intensity(a100) == intensity(h100) == 256
    assert ridge(a100) < 256 < ridge(h100)
    assert [diagnoses[s.name].fact_value("nominal_regime") for s in (a100, h100)] == [COMPUTE, BANDWIDTH]


def test_precision_moves_the_crossover(diagnoses):
    """Int4 weights quadruple the intensity; fp8 W8A8 doubles both the intensity and the ridge."""
    awq = BY_NAME["g_awq_int4_batch128_h100"]
    assert intensity(awq, "fp16") < ridge(awq) <= intensity(awq)  # fp16 would be bandwidth-bound
    assert diagnoses[awq.name].fact_value("nominal_regime") == COMPUTE
    fp8 = BY_NAME["g_fp8_w8a8_b200"]
    fp16_ridge_batch = GPUS["B200"].flops["fp16"] / GPUS["B200"].peak_bw * BYTES["fp16"] / FLOPS_PER_WEIGHT
    fp8_ridge_batch = ridge(fp8) * BYTES["fp8"] / FLOPS_PER_WEIGHT
    assert fp8_ridge_batch == pytest.approx(fp16_ridge_batch)
    assert diagnoses[fp8.name].fact_value("ridge_batch") == pytest.approx(fp8_ridge_batch, rel=1e-3)


# --- levers -------------------------------------------------------------------------------------------

LEVERS = ["continuous_batching", "raise_batch", "quantize_int8", "quantize_int4", "fp8_gemm",
          "fuse_attention", "cuda_graphs", "torch_compile", "flash_attention", "chunked_prefill",
          "buy_more_flops"]


@pytest.mark.parametrize(("name", "lever"),
                         [param(s.name, lever, key=lever) for s in SPECS for lever in LEVERS])
def test_lever_verdict(name: str, lever: str, diagnoses):
    expected = expected_verdict(BY_NAME[name], lever)
    assert verdicts(diagnoses[name], lever) == ({expected} if expected else set())


@pytest.mark.parametrize(("name", "first"), [
    ("g_int4_small_batch_h100", ["continuous_batching", "quantize_int8", "quantize_int4"]),
    ("g_batch256_h100_bandwidth_bound", ["continuous_batching", "quantize_int8"]),
    ("g_throughput_beats_ceiling_l40s", ["continuous_batching", "quantize_int8"]),
    ("g_overhead_decode_h100_pcie", ["cuda_graphs", "torch_compile"]),
])
def test_fix_order(name: str, first: list[str], diagnoses):
    """Bandwidth-bound: batch first, then bytes, int4 last (accuracy risk). Overhead-bound: graph first."""
    assert measured_regime(BY_NAME[name]) in (BANDWIDTH, OVERHEAD)
    assert [c.lever for c in diagnoses[name].of_kind("fix")][: len(first)] == first


# --- findings and questions ------------------------------------------------------------------------------

@pytest.mark.parametrize(("name", "finding", "present"), [
    param(s.name, finding, present, key=finding)
    for s in SPECS for finding, present in expected_findings(s).items()
])
def test_finding(name: str, finding: str, present: bool, diagnoses):
    assert (finding in finding_ids(diagnoses[name])) is present


@pytest.mark.parametrize("name", [param(s.name, key="agreement") for s in SPECS])
def test_theory_against_measurement(name: str, diagnoses):
    expected = expected_agreement(BY_NAME[name])
    got = finding_ids(diagnoses[name]) & {"theory_agrees", "regime_mismatch"}
    assert got == ({expected} if expected else set())


@pytest.mark.parametrize("s", SPECS, ids=IDS)
def test_asks(s: Spec, diagnoses):
    asks = diagnoses[s.name].of_kind("ask")
    expected = expected_asks(s)
    assert sorted(c.id for c in asks) == sorted(expected)
    if expected and expected[0] == "tokens_per_pass":
        assert (asks[0].id, asks[0].order) == ("tokens_per_pass", 1)


def test_missing_facts_stay_partial(diagnoses):
    """Without tokens per pass or the utilization pair there is no regime and nothing to prescribe."""
    d = diagnoses["g_missing_facts_mi325x"]
    assert d.fact_value("regime") is None and d.fact_value("nominal_regime") is None
    assert d.of_kind("fix") == [] and d.of_kind("reject") == []
    first, *rest = d.of_kind("ask")
    assert (first.id, first.order) == ("tokens_per_pass", 1)
    assert {c.id for c in rest} == {"flop_util", "bw_util"}
    assert all(c.order > 1 for c in rest)


def test_short_prefill_is_not_attention_bound(diagnoses):
    """At 1k tokens attention is ~4% of Llama-2-7B's FLOPs: nothing for FlashAttention to fix."""
    s = BY_NAME["g_short_prefill_a100"]
    d = diagnoses[s.name]
    share = attention_flop_share(s)
    assert share == pytest.approx(1024 / (1024 + 24704))   # p_layer / 2d = 202,375,168 / 8192 = 24,704
    assert d.fact_value("attention_flop_share") == pytest.approx(share, rel=1e-6)
    assert share < 0.1
    assert not finding_ids(d) & {"materialized_scores", "attention_traffic", "attention_over_share"}
    assert "prefill_problem" in finding_ids(d)   # TTFT complaint, ITL 12 ms healthy


def test_inconsistent_throughput_breaks_the_bandwidth_ceiling(diagnoses):
    s = BY_NAME["g_throughput_beats_ceiling_l40s"]
    assert s.throughput is not None
    assert s.throughput > bandwidth_ceiling(s)   # 4 × 864 GB/s / 26.0 GB ≈ 133 tokens/s
    assert "inconsistent_data" in finding_ids(diagnoses[s.name])

"""Every proposal gets a verdict (issue 28): a fix, a conditional fix, or a rejection with reasons.

Cases are generated over every lever of the loaded knowledge × phase (decode, prefill, training)
× regime (the measured utilizations that make each one) × hardware capability (one catalogue GPU
for each pair of fp8 / int8 matrix-core facts the catalogue holds, picked by those facts, never
by name) × evidence: none; every measurement the conditional verdicts ask for given at once
(traffic, attention_impl, host time, a kernel breakdown with little elementwise time); or a
trace's idle share alone, below and above idle_notable. The evidence runs on the GPU with both
capabilities only, since it does not touch them. Each case proposes one
lever; the engine's own `no_verdict` finding, or no fix/reject on the lever, fails the
combination by name. The compiled evaluator runs them (tests/test_differential.py holds it
byte-identical to durable).
"""

from __future__ import annotations

import itertools

import pytest
import yaml

from regime.engine import api
from regime.facts import catalogue

MODEL = "llama-3.1-8b"
PHASES = {
    "decode": {"batch": 1, "context_tokens": 1024},
    "prefill": {"batch": 1, "tokens_per_seq": 4096},
    "training": {"batch": 8, "tokens_per_seq": 4096},
}
# measured (FLOP, bandwidth) utilizations that make each regime, whatever the nominal one
REGIMES = {
    "bandwidth_bound": ("2%", "80%"),
    "compute_bound": ("70%", "10%"),
    "overhead_bound": ("3%", "5%"),
    "balanced": ("60%", "60%"),
}
CAPABILITIES = ("fp8_tensor_cores", "int8_tensor_cores")
# the measurements the conditional verdicts ask for, given: an owed verdict must then judge on them
EVIDENCE = {
    "none": {},
    "given": {"traffic": "steady_high_volume", "attention_impl": "flash",
              "host_time_per_step": "1 ms", "kernel_share": {"gemm": "60%", "rms_norm": "5%"}},
    "trace_busy": {"gpu_idle_share": "5%"},
    "trace_idle": {"gpu_idle_share": "30%"},
}


def _capability(entry: dict, fact: str) -> int:
    return int(float(str(entry[fact]["value"])))


def gpus_by_capability() -> dict[str, tuple[str, str]]:
    """One GPU per (fp8, int8) matrix-core pair in the catalogue, with a 16-bit dtype it has."""
    out: dict[str, tuple[str, str]] = {}
    for name in catalogue.names("hardware"):
        _, entry = catalogue.lookup("hardware", name)
        if not all(c in entry for c in CAPABILITIES):
            continue
        label = "_".join(f"{c.split('_')[0]}{_capability(entry, c)}" for c in CAPABILITIES)
        peaks = entry.get("peak_flops_by_dtype", {})
        dtype = next((d for d in ("bf16", "fp16") if d in peaks), None)
        if dtype is not None:
            out.setdefault(label, (name, dtype))
    return out


GPUS = gpus_by_capability()
LEVERS = sorted(api.knowledge().levers)
BOTH_CAPABILITIES = "fp81_int81"
# a GPU idle under idle_notable is not overhead-bound, whatever the utilizations say
INCOHERENT = {("overhead_bound", "trace_busy")}
COMBOS = (list(itertools.product(LEVERS, PHASES, REGIMES, GPUS, ["none"]))
          + [c for c in itertools.product(LEVERS, PHASES, REGIMES, [BOTH_CAPABILITIES],
                                          [e for e in EVIDENCE if e != "none"])
             if (c[2], c[4]) not in INCOHERENT])


def _case(lever: str, phase: str, regime: str, cap: str, evidence: str) -> dict:
    gpu, dtype = GPUS[cap]
    flop, bw = REGIMES[regime]
    facts = {"phase": phase, **PHASES[phase], "weight_dtype": dtype, "compute_dtype": dtype,
             "flop_util": flop, "bw_util": bw, **EVIDENCE[evidence]}
    return {"title": f"proposal of {lever}", "hardware": gpu, "model": MODEL, "facts": facts,
            "proposals": [lever]}


@pytest.fixture(scope="module")
def outcomes(knowledge, tmp_path_factory):
    folder = tmp_path_factory.mktemp("verdict_coverage")
    runner = api.runner(knowledge, engine="compiled")
    del runner  # built once here so a pack the compiled evaluator refuses fails early
    out = {}
    for i, combo in enumerate(COMBOS):
        path = folder / f"c{i:04d}.yaml"
        path.write_text(yaml.safe_dump(_case(*combo)))
        out[combo] = api.diagnose(path, knowledge, engine="compiled")
    return out


def test_the_capabilities_are_all_there():
    """fp8 and no fp8 (with int8), and neither: the catalogue holds each today."""
    assert {"fp80_int81", BOTH_CAPABILITIES, "fp80_int80"} <= set(GPUS)


@pytest.mark.parametrize("lever,phase,regime,cap,evidence", COMBOS,
                         ids=["-".join(c) for c in COMBOS])
def test_every_proposal_gets_a_verdict(outcomes, lever, phase, regime, cap, evidence):
    d = outcomes[(lever, phase, regime, cap, evidence)]
    assert d.fact_value("regime") == regime, "the utilizations no longer make this regime"
    assert not [c for c in d.conclusions if c.id == "no_verdict"], [c.because for c in d.conclusions
                                                                     if c.id == "no_verdict"]
    verdicts = [c for c in d.conclusions if c.kind in ("fix", "reject")
                and lever in (c.lever, c.folded_into)]
    assert verdicts, (f"{lever} proposed in a {regime} {phase} on {GPUS[cap][0]} "
                      f"(evidence {evidence}) gets no verdict")
    assert len({c.kind for c in verdicts}) == 1, [(c.kind, c.rule) for c in verdicts]
    assert all(c.because.strip() for c in verdicts), [c.rule for c in verdicts]


def test_conditional_verdicts_name_what_would_decide_them(outcomes, knowledge):
    """A fix that stands on evidence the case lacks says, in its condition, what would decide it."""
    conditional = {r.id for r in knowledge.rules if r.kind == "fix" and r.condition is not None}
    seen = 0
    for combo, d in outcomes.items():
        for c in d.conclusions:
            if c.kind == "fix" and c.rule in conditional and c.lever == combo[0]:
                seen += 1
                assert c.condition and "if " in c.condition.split(";")[0], (combo, c.rule, c.condition)
    assert seen > len(outcomes) // 4


def test_fp8_gemms_are_judged_on_the_capability_fact(outcomes):
    """Without fp8 matrix cores fp8 GEMMs are rejected for that reason in every phase and regime;
    with them, never for it."""
    for (lever, _, _, cap, _), d in outcomes.items():
        if lever != "fp8_gemm":
            continue
        rules = {c.rule for c in d.conclusions if c.lever == "fp8_gemm"}
        assert ("no_fp8_matrix_cores" in rules) == cap.startswith("fp80"), (cap, rules)

"""A small vocabulary and parse context for the language's unit tests (no packs loaded)."""

from __future__ import annotations

from regime.engine import lang
from regime.facts.vocabulary import FactSpec, Vocabulary

SPECS = [
    FactSpec("batch", "sequences per pass", unit="1", range="[1, 100000]"),
    FactSpec("share", "a share", unit="fraction", range="[0, 1]"),
    FactSpec("bytes", "bytes read", unit="byte", range="[0, 1e15]"),
    FactSpec("bw", "bandwidth", unit="byte/s", range="(0, 1e14]"),
    FactSpec("flops", "FLOPs", unit="FLOP", range="[0, 1e20]"),
    FactSpec("level", "any level, zero included", unit="1", range="[-10, 10]"),
    FactSpec("phase", "phase", kind="category", values=("prefill", "decode")),
    FactSpec("kernel_share", "share by kind", kind="group", unit="fraction", range="[0, 1]"),
]
VOCABULARY = Vocabulary({s.name: s for s in SPECS})


def ctx(**scalars: float) -> lang.Context:
    return lang.Context(VOCABULARY, scalars=scalars, param_units={n: "1" for n in scalars},
                        tables={"dtype_bytes": {"fp16": 2.0, "int8": 1.0}},
                        lists={"parts": ("gemm", "attention")})


def cond(text: str, **scalars: float) -> lang.Expression:
    return lang.parse(text, ctx(**scalars), "condition")


def formula(text: str, **scalars: float) -> lang.Expression:
    return lang.parse(text, ctx(**scalars), "formula")

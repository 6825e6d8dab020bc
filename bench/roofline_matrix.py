"""Benchmark-style check: the packs' decode ceiling, whole-pass intensity and nominal verdict, side
by side with bench/closed_form.py, over models × GPUs × precisions × batches × contexts. Prints
every row, the matrix size and the largest disagreement; exits 1 if a figure differs by more than
0.1% or a verdict differs. Not a test (it diagnoses a few hundred cases).

    python bench/roofline_matrix.py [--quiet]
"""

from __future__ import annotations

import argparse
import itertools
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "bench"))

import closed_form as cf  # noqa: E402

from regime.engine import api  # noqa: E402

BATCHES = (1, 16, 256)
CONTEXTS = (1024, 4096)
TOLERANCE = 1e-3


def case_text(model: str, gpu: str, precision: str, batch: int, context: int, tp: int) -> str:
    wdt, cdt = cf.PRECISIONS[precision]
    return (f"title: {model} {gpu} {precision} b{batch} c{context}\nhardware: {gpu}\nmodel: {model}\n"
            f"facts:\n  phase: decode\n  batch: {batch}\n  context_tokens: {context}\n  tp: {tp}\n"
            f"  weight_dtype: {wdt}\n  compute_dtype: {cdt}\n  kv_dtype: fp16\n")


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--quiet", action="store_true", help="print only the summary")
    args = ap.parse_args()
    grid = list(itertools.product(cf.MODELS, cf.GPUS, cf.PRECISIONS, BATCHES, CONTEXTS))
    expected = {g: cf.decode(*g) for g in grid}
    k = api.knowledge()
    with tempfile.TemporaryDirectory() as tmp:
        paths = []
        for i, g in enumerate(grid):
            path = Path(tmp) / f"m{i:04d}.yaml"
            path.write_text(case_text(*g, expected[g].tp), encoding="utf-8")
            paths.append(path)
        outcomes = api.diagnose_all(paths, k)
    worst = {"ceiling": (0.0, None), "intensity": (0.0, None)}
    mismatched = []
    if not args.quiet:
        print(f"{'model':13} {'gpu':9} {'prec':5} {'batch':>5} {'ctx':>5} {'tp':>2} | {'ceiling':>9} "
              f"{'closed':>9} | {'AI':>7} {'closed':>7} | verdict / closed")
    for g, out in zip(grid, outcomes, strict=True):
        if out.error is not None:
            print(f"error: {g}: {out.error}")
            return 1
        d, want = out.diagnosis, expected[g]
        got = (d.fact_value("ceiling_tokens_per_s"), d.fact_value("pass_intensity"),
               d.fact_value("nominal_regime"))
        for name, value, ref in (("ceiling", got[0], want.ceiling), ("intensity", got[1], want.intensity)):
            rel = abs(value / ref - 1)
            if rel > worst[name][0] or worst[name][1] is None:
                worst[name] = (rel, g)
        if got[2] != want.verdict:
            mismatched.append(g)
        if not args.quiet:
            model, gpu, prec, batch, ctx = g
            print(f"{model:13} {gpu:9} {prec:5} {batch:>5} {ctx:>5} {want.tp:>2} | {got[0]:>9.4g} "
                  f"{want.ceiling:>9.4g} | {got[1]:>7.4g} {want.intensity:>7.4g} | {got[2]} / {want.verdict}")
    print(f"\nmatrix: {len(cf.MODELS)} models × {len(cf.GPUS)} GPUs × {len(cf.PRECISIONS)} precisions × "
          f"{len(BATCHES)} batches × {len(CONTEXTS)} contexts = {len(grid)} decode configurations")
    for name, (rel, g) in worst.items():
        print(f"largest {name} disagreement: {rel:.2e} (relative) at {g}")
    print(f"verdict disagreements: {len(mismatched)}" + (f" {mismatched[:5]}" if mismatched else ""))
    return 1 if mismatched or max(r for r, _ in worst.values()) > TOLERANCE else 0


if __name__ == "__main__":
    sys.exit(main())

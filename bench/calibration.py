"""Calibration: each fix's speedup_bound and speedup_expected against what the fix measured, on
the H200 runs (tests/data/compare, `regime compare`) and on every published measured fix
(tests/data/published/EXPECTED.yaml). Prints a Markdown table and the summary (bounds held,
tightness, expected within 1.5x). Sealed published cases are left out unless --sealed.

    python bench/calibration.py [--sealed]
"""

from __future__ import annotations

import argparse
import re
import statistics
import sys
from pathlib import Path

import yaml

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from regime.engine import api  # noqa: E402
from regime.engine.cli.compare import as_tried, at_batch, comparison  # noqa: E402

H200 = [("r_decode_b1", "decode_b1_graphed", "cuda_graphs"), ("r_decode_b1", "decode_b64", "raise_batch"),
        ("r_decode_b256", "decode_b256_static", "preallocate_kv_cache"),
        ("r_train_1b", "train_1b_compiled", "torch_compile"),
        ("r_prefill_eager_8192", "prefill_sdpa_8192", "flash_attention")]
PUBLISHED = ROOT / "tests" / "data" / "published"  # EXPECTED.yaml; the cases ship in cases/
CASES = ROOT / "cases"


def _diagnose(k, path: Path):
    out = api.outcome(path, k, "compiled")
    if out.error is not None:
        raise SystemExit(f"{path}: {out.error}")
    return out.diagnosis


def h200_rows(k) -> list[dict]:
    rows = []
    for before, after, lever in H200:
        built_in, compare = ROOT / "cases" / f"{before}.yaml", ROOT / "tests" / "data" / "compare"
        b = _diagnose(k, built_in if built_in.exists() else compare / f"{before}.yaml")
        a = _diagnose(k, compare / f"{after}.yaml")
        c = comparison(as_tried(b, a, k, "compiled"), a, lever)
        f = c["fixes"][0]
        rows.append({"case": before, "lever": lever, "bound": f["speedup_bound"], "basis": f["speedup_basis"],
                     "expected": f["speedup_expected"], "measured": c["measured_speedup"], "verdict": "fix"})
    return rows


def published_rows(k, sealed: bool) -> list[dict]:
    expected = yaml.safe_load((PUBLISHED / "EXPECTED.yaml").read_text(encoding="utf-8"))["cases"]
    rows = []
    for case, e in expected.items():
        if e.get("sealed") and not sealed:
            continue
        d0 = _diagnose(k, CASES / f"{case}.yaml")
        for m in e.get("measured_fixes") or []:
            if not isinstance(m["measured_speedup"], int | float):
                continue  # a range ('3-5'): no single figure to hold a bound against
            lever = m.get("lever") or m.get("closest_lever")
            tried = re.search(r"\(batch (\d+)\)", str(m.get("after", "")))  # a batch change: sized there
            d = at_batch(d0, int(tried.group(1)), k, "compiled", "EXPECTED.yaml after") if tried else d0
            fix = next((c for c in d.conclusions if c.kind == "fix" and c.lever == lever), None)
            verdict = "fix" if fix else ("reject" if any(c.kind == "reject" and c.lever == lever
                                                          for c in d.conclusions) else "none")
            rows.append({"case": case, "lever": lever, "measured": float(m["measured_speedup"]),
                         "closest": not m.get("lever"),
                         "bound": fix.speedup_bound if fix else None,
                         "basis": fix.speedup_basis if fix else None,
                         "expected": fix.speedup_expected if fix else None, "verdict": verdict,
                         "sealed": bool(e.get("sealed"))})
    return rows


def _f(x) -> str:
    return "—" if x is None else f"{x:.2f}"


def table(rows: list[dict]) -> str:
    out = ["| case | lever | verdict | basis | bound | expected | measured | bound ≥ measured "
           "| bound/measured | expected/measured |", "|---|---|---|---|---|---|---|---|---|---|"]
    for r in rows:
        ok = r["bound"] is not None and r["bound"] >= r["measured"] * (1 - 1e-9)
        held = "—" if r["bound"] is None else ("yes" if ok else "**no**")
        tight = None if r["bound"] is None else r["bound"] / r["measured"]
        ratio = None if r["expected"] is None else r["expected"] / r["measured"]
        verdict = f"{r['verdict']} (closest lever)" if r.get("closest") else r["verdict"]
        out.append(f"| {r['case']} | {r['lever']} | {verdict} | {r['basis'] or '—'} | "
                   f"{_f(r['bound'])} | {_f(r['expected'])} | {_f(r['measured'])} | {held} | "
                   f"{_f(tight)} | {_f(ratio)} |")
    return "\n".join(out)


def summary(rows: list[dict]) -> str:
    """Bounds are held against the lever that was measured; a row whose change no lever names
    (EXPECTED.yaml's closest_lever) cannot falsify the closest lever's bound and is named apart."""
    closest = [r for r in rows if r.get("closest") and r["bound"] is not None]
    rows = [r for r in rows if not r.get("closest")]
    bounded = [r for r in rows if r["bound"] is not None]
    held = [r for r in bounded if r["bound"] >= r["measured"] * (1 - 1e-9)]
    tight = [r["bound"] / r["measured"] for r in bounded]
    exp = [r for r in rows if r["expected"] is not None]
    within = [r for r in exp if 1 / 1.5 <= r["expected"] / r["measured"] <= 1.5]
    return (f"{len(rows)} measured fixes; {len(bounded)} with a speedup_bound, {len(held)} of them "
            f"≥ measured; median tightness {statistics.median(tight):.2f}" if tight else "no bounds") + \
        (f"; {len(exp)} with speedup_expected, {len(within)} within 1.5× of measured "
         f"({len(within)} of {len(bounded)} fixes with a figure)" if exp else "") + \
        "".join(f"\nclosest lever only: {r['case']} {r['lever']} bound {r['bound']:.2f} against "
                f"{r['measured']:.2f} measured for a change no lever names" for r in closest)


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--sealed", action="store_true", help="include the sealed published cases")
    args = ap.parse_args()
    k = api.knowledge()
    rows = h200_rows(k) + published_rows(k, args.sealed)
    print(table(rows))
    print()
    print(summary(rows))


if __name__ == "__main__":
    main()

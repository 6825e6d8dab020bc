"""Fit the review model (rules/grading/context.yaml `review_model`) to the blind grades.

Grades every answer of the folders with the current grader, labels each one that differs from
its instructor's grade by more than the margin, and fits an L2-regularized logistic regression
over engine/grading/risk.py's features. The threshold is set so the model flags `--target` of
the answers it was fitted on. Before fitting on all of them it reports, held out, what the model
fitted on one half (alternate folders) catches on the other, and what the model fitted on all but
the last `--recent` folders catches on those (the nearest thing to fresh answers: the grader was
tuned least on the latest sets), each beside the readings-only queue:

    python bench/fit_review.py answers/corpus answers/new answers/sealed answers/sealed2 ...

prints the two held-out lines and the YAML block to paste into context.yaml.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

import numpy as np
import yaml

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from regime.engine.grading import risk  # noqa: E402
from regime.engine.grading.grader import Grader  # noqa: E402
from regime.engine.grading.submission import read_answer  # noqa: E402

sys.path.insert(0, str(ROOT / "bench"))
from grading_agreement import answers  # noqa: E402


def rows(g: Grader, folder: Path, margin: float) -> list[tuple[dict[str, float], bool, bool]]:
    """(features, differs by more than the margin, flagged by the readings alone) per answer."""
    t = g.concepts.context
    out = []
    for p in answers(folder):
        expected = yaml.safe_load(p.with_name(p.name + ".expected.yaml").read_text(encoding="utf-8"))["score"]
        r = g.grade(p)
        if not r.graded:
            continue
        a = read_answer(p, g.concepts, g.rubric.limits.max_bytes)
        unsure = any(x["confidence"] < t.review_below for x in r.readings)
        feats = risk.features(r.score / r.max_score if r.max_score else 0.0,
                              [(x.part, x.points, x.max_points) for x in r.parts if x.max_points],
                              [x["status"] for x in r.readings], unsure, len(r.penalties),
                              len(a.text.split()), a.format)
        out.append((feats, abs(r.score - expected) > margin, unsure))
    return out


def fit(data: list[tuple[dict[str, float], bool, bool]], names: list[str], l2: float,
        target: float) -> risk.Model:
    """Gradient descent on standardized features, the weights returned on the raw ones."""
    x = np.array([[f.get(n, 0.0) for n in names] for f, _, _ in data])
    y = np.array([float(d) for _, d, _ in data])
    mu, sd = x.mean(0), x.std(0) + 1e-9
    z = np.c_[np.ones(len(x)), (x - mu) / sd]
    w = np.zeros(z.shape[1])
    for _ in range(4000):
        p = 1 / (1 + np.exp(-z @ w))
        w -= 0.5 * (z.T @ (p - y) + l2 * np.r_[0.0, w[1:]]) / len(y)
    raw = w[1:] / sd
    model = risk.Model(dict(zip(names, raw.round(4).tolist(), strict=True)),
                       round(float(w[0] - (w[1:] * mu / sd).sum()), 4), 0.0)
    logits = [risk.log_odds(model, f) for f, _, _ in data]
    return risk.Model(model.weights, model.bias, round(float(np.quantile(logits, 1 - target)), 4))


def held_out(train: list, test: list, names: list[str], l2: float, target: float) -> str:
    m = fit(train, names, l2, target)
    flags = [risk.flagged(m, f) for f, _, _ in test]
    bad = [d for _, d, _ in test]
    old = [u for _, _, u in test]
    caught = sum(f and d for f, d in zip(flags, bad, strict=True))
    return (f"model flags {sum(flags) / len(test):.1%}, catches {caught}/{sum(bad)}; readings alone flag "
            f"{sum(old) / len(test):.1%}, catch {sum(o and d for o, d in zip(old, bad, strict=True))}")


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("folders", nargs="+", type=Path)
    ap.add_argument("--margin", type=float, default=10.0)
    ap.add_argument("--target", type=float, default=0.10,
                    help="share of the fitted answers to flag (fresh answers flag about twice as often)")
    ap.add_argument("--l2", type=float, default=10.0)
    ap.add_argument("--recent", type=int, default=8, help="the latest folders, held out as if fresh")
    args = ap.parse_args()
    g = Grader()
    per_folder = [rows(g, f, args.margin) for f in args.folders]
    halves = ([r for f in per_folder[0::2] for r in f], [r for f in per_folder[1::2] for r in f])
    data = halves[0] + halves[1]
    names = sorted({n for f, _, _ in data for n in f})
    for a, b, label in ((0, 1, "even -> odd"), (1, 0, "odd -> even")):
        print(f"held out, {label}: {held_out(halves[a], halves[b], names, args.l2, args.target)}")
    if 0 < args.recent < len(per_folder):
        old, new = per_folder[:-args.recent], per_folder[-args.recent:]
        fitted, fresh = [r for f in old for r in f], [r for f in new for r in f]
        result = held_out(fitted, fresh, names, args.l2, args.target)
        print(f"held out, the last {args.recent} folders: {result}")
    m = fit(data, names, args.l2, args.target)
    print(yaml.safe_dump({"review_model": {"bias": m.bias, "threshold": m.threshold, "weights": m.weights}},
                         sort_keys=False, width=100))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())

"""Fit the review model (rules/grading/context.yaml `review_model`) to the blind grades.

Grades every answer of the folders with the current grader, labels each one that differs from
its instructor's grade by more than the margin, and fits gradient-boosted decision trees
(scikit-learn, a dev dependency: the grader only walks the exported trees) over
engine/grading/risk.py's features. The threshold is set so the model flags `--target` of the
answers it was fitted on. Trees, not one weight per feature: where grades differ depends on how
the parts combine (a middle score with the rejections missing, a high one with an unsure
reading), and on the latest sets the trees caught about half again as many disagreements as the
logistic model at the same share flagged. Before fitting on all of them it reports, held out, what the model
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
from sklearn.ensemble import GradientBoostingClassifier

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from regime.engine.grading import risk  # noqa: E402
from regime.engine.grading.grader import Grader  # noqa: E402
from regime.engine.grading.submission import read_answer  # noqa: E402

sys.path.insert(0, str(ROOT / "bench"))
from grading_agreement import answers  # noqa: E402


def rows(g: Grader, folder: Path, margin: float) -> list[tuple[dict[str, float], bool, bool]]:
    """(features, differs by more than the margin, reviewed whatever the model says) per answer:
    a reading below review_always_below."""
    t = g.concepts.context
    out = []
    for p in answers(folder):
        expected = yaml.safe_load(p.with_name(p.name + ".expected.yaml").read_text(encoding="utf-8"))["score"]
        r = g.grade(p)
        if not r.graded:
            continue
        a = read_answer(p, g.concepts, g.rubric.limits.max_bytes)
        unsure = any(x["confidence"] < t.review_below for x in r.readings)
        always = any(x["confidence"] < t.review_always_below for x in r.readings)
        feats = risk.features(r.score / r.max_score if r.max_score else 0.0,
                              [(x.part, x.points, x.max_points) for x in r.parts if x.max_points],
                              [x["status"] for x in r.readings], unsure, len(r.penalties),
                              len(a.text.split()), a.format)
        out.append((feats, abs(r.score - expected) > margin, always))
    return out


TREES = {"n_estimators": 100, "learning_rate": 0.1, "max_leaf_nodes": 8, "min_samples_leaf": 40,
         "max_depth": None, "random_state": 0}


def fit(data: list[tuple[dict[str, float], bool, bool]], names: list[str], target: float,
        trees: dict | None = None) -> risk.Model:
    """Boosted trees on the raw features, exported as risk.Model trees (node 0 the root)."""
    x = np.array([[f.get(n, 0.0) for n in names] for f, _, _ in data])
    y = np.array([float(d) for _, d, _ in data])
    gb = GradientBoostingClassifier(**(trees or TREES)).fit(x, y)
    rate = gb.learning_rate
    exported = tuple(_export(est[0].tree_, names, rate) for est in gb.estimators_)
    bias = float(gb.decision_function(np.zeros((1, len(names))))[0]) - sum(
        risk.log_odds(risk.Model(trees=(t,)), {}) for t in exported)
    model = risk.Model({}, round(bias, 6), 0.0, exported)
    logits = [risk.log_odds(model, f) for f, _, _ in data]
    drift = float(np.abs(np.array(logits) - gb.decision_function(x)).max())
    assert drift < 1e-3, f"the exported trees differ from the fitted ones by {drift}"
    return risk.Model({}, model.bias, round(float(np.quantile(logits, 1 - target)), 6), exported)


def _export(tree, names: list[str], rate: float) -> risk.Tree:
    """sklearn's tree arrays as nodes: a split [feature, threshold, low, high] or a leaf, the
    learning rate folded into it. sklearn numbers children after their parent, as risk.py asks."""
    out: list[risk.Node] = []
    for k in range(tree.node_count):
        low, high = int(tree.children_left[k]), int(tree.children_right[k])
        if low < 0:
            out.append(round(float(tree.value[k][0][0]) * rate, 6))
        else:
            out.append((names[int(tree.feature[k])], round(float(tree.threshold[k]), 6), low, high))
    return tuple(out)


def held_out(train: list, test: list, names: list[str], target: float) -> str:
    m = fit(train, names, target)
    flags = [risk.flagged(m, f) or always for f, _, always in test]
    bad = [d for _, d, _ in test]
    caught = sum(f and d for f, d in zip(flags, bad, strict=True))
    return f"flags {sum(flags) / len(test):.1%}, catches {caught}/{sum(bad)}"


def dumped(m: risk.Model) -> str:
    """The block to paste: one tree per line, each node a leaf or [feature, threshold, low, high]."""
    def node(n: risk.Node) -> str:
        return _num(n) if isinstance(n, float) else f"[{n[0]}, {_num(n[1])}, {n[2]}, {n[3]}]"
    lines = ["review_model:", f"  bias: {_num(m.bias)}", f"  threshold: {_num(m.threshold)}", "  trees:"]
    lines += ["    - [" + ", ".join(node(n) for n in t) + "]" for t in m.trees]
    return "\n".join(lines)


def _num(x: float) -> str:
    """Fixed point: YAML reads '1e-06' as a string."""
    text = f"{x:.6f}".rstrip("0")
    return text + "0" if text.endswith(".") else text


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("folders", nargs="+", type=Path)
    ap.add_argument("--margin", type=float, default=10.0)
    ap.add_argument("--target", type=float, default=0.09,
                    help="share of the fitted answers the model flags (low readings add more)")
    ap.add_argument("--recent", type=int, default=12, help="the latest folders, held out as if fresh")
    args = ap.parse_args()
    g = Grader()
    per_folder = [rows(g, f, args.margin) for f in args.folders]
    halves = ([r for f in per_folder[0::2] for r in f], [r for f in per_folder[1::2] for r in f])
    data = halves[0] + halves[1]
    names = sorted({n for f, _, _ in data for n in f})
    for a, b, label in ((0, 1, "even -> odd"), (1, 0, "odd -> even")):
        print(f"held out, {label}: {held_out(halves[a], halves[b], names, args.target)}")
    if 0 < args.recent < len(per_folder):
        old, new = per_folder[:-args.recent], per_folder[-args.recent:]
        fitted, fresh = [r for f in old for r in f], [r for f in new for r in f]
        result = held_out(fitted, fresh, names, args.target)
        print(f"held out, the last {args.recent} folders: {result}")
    print(dumped(fit(data, names, args.target)))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())

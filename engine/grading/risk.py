"""How likely an instructor's grade is to differ from the grader's by more than the review
margin: a model over what the grader read of the answer (its score band, each part's
share, how many readings of each status it made, whether any was unsure, the answer's length and
format; with a second reading, how far it is from the grader's score). Readings alone flag
what the reader could not parse; the score band and parts carry where
grades differ even when every sentence was read (a partial answer, an argument weighed). The
model is data, fitted to the blind grades by bench/fit_review.py (context.yaml `review_model`):
linear weights, small decision trees whose leaves add to the log-odds (gradient boosting: where
grades differ depends on how the parts combine, e.g. a middle score with the rejections missing,
which no single weight says), or both."""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field

BANDS = 10       # the score's share of the maximum, in tenths: one feature each
_CAP = 3         # counts above this say no more


Split = tuple[str, float, int, int]   # feature, threshold, the node if at most it, the node if above
Node = Split | float                  # a split, or a leaf: what it adds to the log-odds
Tree = tuple[Node, ...]               # node 0 is the root; a split's children come after it


@dataclass(frozen=True)
class Model:
    """Weights by feature name (features not named weigh nothing), the intercept, trees whose
    leaves add to the log-odds, and the log-odds above which an answer is reviewed."""

    weights: Mapping[str, float] = field(default_factory=dict)
    bias: float = 0.0
    threshold: float = 0.0
    trees: tuple[Tree, ...] = ()


def features(share: float, parts: Iterable[tuple[str, float, float]], statuses: Iterable[str],
             unsure: bool, penalties: int, words: int, fmt: str,
             second: tuple[float, float | None] | None = None) -> dict[str, float]:
    """The answer as the model sees it: `parts` are (name, points, max points); `second` what the
    second reading (second_reading.py) gives it, where there is one: its share and expected gap."""
    out = {f"band_{min(int(share * BANDS), BANDS - 1)}": 1.0, "share": share, "share_squared": share * share}
    for name, points, top in parts:
        out[f"part_{name}"] = points / top if top else 1.0
    for status in statuses:
        out[f"status_{status}"] = min(out.get(f"status_{status}", 0.0) + 1.0, _CAP)
    out["unsure"] = float(unsure)
    out["penalties"] = float(min(penalties, _CAP))
    out["log_words"] = math.log1p(words)
    out[f"format_{fmt}"] = 1.0
    return out | (second_features(*second, share) if second is not None else {})


def second_features(second: float, misread: float | None, share: float) -> dict[str, float]:
    """The second reading's share, and how far (and which way) it is from the grader's; with its
    gap model, how far instructors' grades ran from the grader's on answers worded like this one
    (`misread`: the words the grader has read the wrong way before). To four places: on a grid, a
    tree's threshold (a midpoint) never falls within rounding of a value."""
    gap = second - share
    out = {"second": round(second, 4), "second_gap": round(gap, 4), "second_apart": round(abs(gap), 4)}
    if misread is not None:
        out |= {"misread": round(misread, 4), "misread_apart": round(abs(misread), 4)}
    return out


def log_odds(model: Model, feats: Mapping[str, float]) -> float:
    linear = sum(w * feats.get(name, 0.0) for name, w in model.weights.items())
    return model.bias + linear + sum(_leaf(tree, feats) for tree in model.trees)


def _leaf(tree: Tree, feats: Mapping[str, float]) -> float:
    node = tree[0]
    while not isinstance(node, float):
        name, at_most, low, high = node
        node = tree[low if feats.get(name, 0.0) <= at_most else high]
    return node


def flagged(model: Model, feats: Mapping[str, float]) -> bool:
    return log_odds(model, feats) > model.threshold


def load(raw: object) -> Model | None:
    """context.yaml's `review_model` block; None when absent (the readings alone decide)."""
    if raw is None:
        return None
    if not isinstance(raw, dict) or not isinstance(raw.get("weights", {}), dict) \
            or not isinstance(raw.get("trees", []), list) or not ("weights" in raw or "trees" in raw):
        raise ValueError("review_model is a mapping with 'weights' (feature: weight) and/or 'trees', "
                         "'bias' and 'threshold'")
    weights = {str(k): float(v) for k, v in raw.get("weights", {}).items()}
    trees = tuple(_tree(t, i) for i, t in enumerate(raw.get("trees", [])))
    return Model(weights, float(raw.get("bias", 0.0)), float(raw.get("threshold", 0.0)), trees)


def _tree(raw: object, i: int) -> Tree:
    """A tree as written: a list of nodes, each a number (a leaf) or [feature, threshold, low,
    high]; children only point forward, so every walk ends at a leaf. Or the same nodes in one
    string, '|' between them ("share 0.35 1 2 | -1.0 | 2.0"), as bench/fit_review.py writes them:
    hundreds of trees read as strings load several times faster than as nested YAML lists."""
    if isinstance(raw, str):
        raw = [_written(n.split()) for n in raw.split("|")]
    if not isinstance(raw, list) or not raw:
        raise ValueError(f"tree {i} is a non-empty list of nodes")
    return tuple(_node(n, i, j, len(raw)) for j, n in enumerate(raw))


def _written(words: list[str]) -> object:
    """One node of a tree written as a string: a number, or its four words (what _node checks)."""
    try:
        if len(words) == 1:
            return float(words[0])
        if len(words) == 4:
            return [words[0], float(words[1]), int(words[2]), int(words[3])]
    except ValueError:
        pass
    return words


def _node(raw: object, i: int, j: int, size: int) -> Node:
    if isinstance(raw, (int, float)) and not isinstance(raw, bool):
        return float(raw)
    if not isinstance(raw, list) or len(raw) != 4 or not isinstance(raw[0], str) \
            or not all(type(k) is int and j < k < size for k in raw[2:]):
        raise ValueError(f"tree {i} node {j}: a number (a leaf) or [feature, threshold, low, high] "
                         f"with low and high nodes after it, below {size}")
    return (raw[0], float(raw[1]), raw[2], raw[3])

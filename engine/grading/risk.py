"""How likely an instructor's grade is to differ from the grader's by more than the review
margin: a logistic model over what the grader read of the answer (its score band, each part's
share, how many readings of each status it made, whether any was unsure, the answer's length and
format). Readings alone flag what the reader could not parse; the score band and parts carry where
grades differ even when every sentence was read (a partial answer, an argument weighed). The
weights are data, fitted to the blind grades by bench/fit_review.py (context.yaml `review_model`)."""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field

BANDS = 10       # the score's share of the maximum, in tenths: one feature each
_CAP = 3         # counts above this say no more


@dataclass(frozen=True)
class Model:
    """Weights by feature name (features not named weigh nothing), the intercept, and the
    log-odds above which an answer is reviewed."""

    weights: Mapping[str, float] = field(default_factory=dict)
    bias: float = 0.0
    threshold: float = 0.0


def features(share: float, parts: Iterable[tuple[str, float, float]], statuses: Iterable[str],
             unsure: bool, penalties: int, words: int, fmt: str) -> dict[str, float]:
    """The answer as the model sees it: `parts` are (name, points, max points)."""
    out = {f"band_{min(int(share * BANDS), BANDS - 1)}": 1.0, "share": share, "share_squared": share * share}
    for name, points, top in parts:
        out[f"part_{name}"] = points / top if top else 1.0
    for status in statuses:
        out[f"status_{status}"] = min(out.get(f"status_{status}", 0.0) + 1.0, _CAP)
    out["unsure"] = float(unsure)
    out["penalties"] = float(min(penalties, _CAP))
    out["log_words"] = math.log1p(words)
    out[f"format_{fmt}"] = 1.0
    return out


def log_odds(model: Model, feats: Mapping[str, float]) -> float:
    return model.bias + sum(w * feats.get(name, 0.0) for name, w in model.weights.items())


def flagged(model: Model, feats: Mapping[str, float]) -> bool:
    return log_odds(model, feats) > model.threshold


def load(raw: object) -> Model | None:
    """context.yaml's `review_model` block; None when absent (the readings alone decide)."""
    if raw is None:
        return None
    if not isinstance(raw, dict) or not isinstance(raw.get("weights"), dict):
        raise ValueError("review_model is a mapping with 'weights' (feature: weight), 'bias' and 'threshold'")
    weights = {str(k): float(v) for k, v in raw["weights"].items()}
    return Model(weights, float(raw.get("bias", 0.0)), float(raw.get("threshold", 0.0)))

"""A second reading of an answer, from its words alone, for the review queue.

The grader reads sentences with their assertion status; where it reads confidently the wrong way
(a paraphrase it takes for a refusal) nothing in its own readings says so. This reader is
independent of it: a linear model over the answer's words and runs of words (TF-IDF: sublinear term
counts times each term's inverse document frequency, scaled to unit length; ridge regression),
fitted per exercise to the instructors' blind grades by bench/fit_review.py and written to
rules/grading/second_reading*.yaml. It never grades: it says roughly what an instructor gave
answers worded like this one, and the review model (risk.py) flags an answer when the two
readings part. An exercise it was not fitted to (a site's own case, a student's variant, whose
numbers and verdicts may differ) has no second reading.

The arithmetic is scikit-learn's TfidfVectorizer (lowercase, tokens of two or more word
characters, n-grams joined by a space, `sublinear_tf`, l2 norm) and Ridge's prediction, so the
exported model reproduces the fitted one (the fit asserts it)."""

from __future__ import annotations

import math
import re
from collections import Counter
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from pathlib import Path

from pydantic import BaseModel, ConfigDict, Field, model_validator

from regime.core.layered import read_layers

FILE = "second_reading.yaml"
_TOKEN = re.compile(r"(?u)\b\w\w+\b")
_SEP = "|"   # between terms in `terms`: a term is words joined by a space, never this


@dataclass(frozen=True)
class Reader:
    """One exercise's model: each term's (idf, weight) and the share an answer with no known
    term gets; with `gap`, each term's weight toward how far instructors' grades ran from the
    grader's on answers worded like it, and that model's intercept (`gap_intercept`)."""

    intercept: float
    ngrams: int
    terms: Mapping[str, tuple[float, float]]
    gap_intercept: float | None = None
    gap: Mapping[str, float] | None = None

    def share(self, text: str) -> float:
        """The share of the points instructors gave answers worded like `text` (unclamped)."""
        return self.read(text)[0]

    def read(self, text: str) -> tuple[float, float | None]:
        """The share, and the instructors' share less the grader's on answers worded like `text`
        (where the grader has read such words the wrong way before; None without a gap model)."""
        counts = Counter(t for t in _grams(_TOKEN.findall(text.lower()), self.ngrams) if t in self.terms)
        values = {t: (1.0 + math.log(c)) * self.terms[t][0] for t, c in counts.items()}
        norm = math.sqrt(sum(v * v for v in values.values())) or 1.0
        share = self.intercept + sum(self.terms[t][1] * v for t, v in values.items()) / norm
        if self.gap is None or self.gap_intercept is None:
            return share, None
        return share, self.gap_intercept + sum(self.gap[t] * v for t, v in values.items()) / norm


def _grams(tokens: list[str], n: int) -> Iterable[str]:
    for k in range(1, n + 1):
        for i in range(len(tokens) - k + 1):
            yield " ".join(tokens[i:i + k])


class _Exercise(BaseModel):
    """Written by bench/fit_review.py: parallel columns, terms joined by '|', numbers by spaces
    (one line each: a model of thousands of terms loads in milliseconds); the gap model's weights
    are a fourth, optional column over the same terms."""

    model_config = ConfigDict(extra="forbid")
    intercept: float
    ngrams: int = Field(ge=1, le=3)
    terms: str
    idf: str
    weights: str
    gap_intercept: float | None = None
    gap_weights: str | None = None

    @model_validator(mode="after")
    def _columns(self) -> _Exercise:
        n = len(self.terms.split(_SEP))
        if (self.gap_intercept is None) != (self.gap_weights is None):
            raise ValueError("'gap_intercept' and 'gap_weights' come together")
        for name in ("idf", "weights", "gap_weights"):
            if getattr(self, name) is None:
                continue
            column = getattr(self, name).split()
            if len(column) != n:
                raise ValueError(f"'{name}' holds {len(column)} numbers for {n} terms")
            try:
                if not all(math.isfinite(float(x)) for x in column):
                    raise ValueError
            except ValueError:
                raise ValueError(f"'{name}' holds something other than finite numbers") from None
        return self

    def reader(self) -> Reader:
        pairs = zip(self.idf.split(), self.weights.split(), strict=True)
        terms = self.terms.split(_SEP)
        gap = None if self.gap_weights is None else \
            {t: float(w) for t, w in zip(terms, self.gap_weights.split(), strict=True)}
        return Reader(self.intercept, self.ngrams,
                      {t: (float(i), float(w)) for t, (i, w) in zip(terms, pairs, strict=True)},
                      self.gap_intercept, gap)


class _File(BaseModel):
    model_config = ConfigDict(extra="forbid")
    exercises: dict[str, _Exercise] = {}


def load(files: list[Path]) -> dict[str, Reader]:
    """The built-in file with each layer merged over it (a layer adds or replaces exercises);
    no file, no second reading."""
    present = [p for p in files if p.is_file()]
    if not present:
        return {}
    return _readers(read_layers(_File, present, "second reading"))


def parse(raw: Mapping) -> dict[str, Reader]:
    """The readers in a mapping already read (bench/fit_review.py checks what it writes)."""
    return _readers(_File.model_validate(raw))


def _readers(read: _File) -> dict[str, Reader]:
    return {case: e.reader() for case, e in read.exercises.items()}

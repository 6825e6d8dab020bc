"""A reason that credits a lever with a mechanism it lacks ("graph-captured kernels run faster on
the GPU", "FlashAttention computes attention with fewer FLOPs") is a wrong reason whatever words
or figures it shares with the key's: the phrases are knowledge (rubric.yaml `reasons.misreads`),
read here as words in order, a few others allowed among them."""

from __future__ import annotations

import re

from regime.engine.grading.concepts import Concepts, clauses

_SUFFIX = re.compile(r"(?:ing|ed|es|e|ly|ion|ation)$")
_STEM = 6


def stem(word: str) -> str:
    """'fuses', 'fused' and 'fuse' are one stem (a four-letter word drops only its final e)."""
    if len(word) > 4:
        return _SUFFIX.sub("", word)[:_STEM]
    return word[:-1] if len(word) == 4 and word.endswith("e") else word


def stems(concepts: Concepts, text: str) -> list[str]:
    return [stem(w) for w in concepts.words(text)]


def misreads(concepts: Concepts, phrases: tuple[tuple[str, ...], ...], reason: str) -> bool:
    """Whether a clause of the reason spells one of the phrases (as stems)."""
    return bool(phrases) and any(_spelled(stems(concepts, c), p) for c in clauses(reason) for p in phrases)


def _spelled(ws: list[str], phrase: tuple[str, ...], slack: int = 3) -> bool:
    """The phrase's words in order, with at most `slack` other words among them ("kernels
    launched from a graph run faster" spells "kernel run faster")."""
    for i in (i for i, w in enumerate(ws) if phrase and w == phrase[0]):
        at, k = i, 1
        for j in range(i + 1, min(len(ws), i + len(phrase) + slack)):
            if k < len(phrase) and ws[j] == phrase[k]:
                at, k = j, k + 1
        if k == len(phrase) and at - i < len(phrase) + slack:
            return True
    return False

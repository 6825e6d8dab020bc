"""How free text becomes words for matching: lower case, contractions expanded, a plural -s
dropped, arrows and comparisons read as words, and declared compounds joined ('instead of' ->
'instead_of'). Filler words and spelling are the concept index's business (concepts.py)."""

from __future__ import annotations

import re
from dataclasses import dataclass, field

_CONTRACTIONS = (("won't", "will not"), ("can't", "can not"), ("shan't", "shall not"),   # before "n't"
                 ("n't", " not"), ("cannot", "can not"),
                 ("'re", " are"), ("'s", ""), ("'ll", " will"), ("'ve", " have"), ("'d", " would"),
                 ("'m", " am"))
# A pronoun's 's is "is" ("the side that's saturated"), any other word's a possessive.
_PRONOUN_IS = re.compile(r"\b(it|that|what|there|here|who|he|she|where|which)'s\b")
_APOSTROPHELESS = {"dont": ("do", "not"), "doesnt": ("does", "not"), "wont": ("will", "not"),
                   "isnt": ("is", "not"), "cant": ("can", "not"), "shouldnt": ("should", "not"),
                   "wouldnt": ("would", "not"), "arent": ("are", "not"), "didnt": ("did", "not"),
                   "dosnt": ("does", "not")}   # its usual misspelling (sealed148 b.s1509)
# A word keeps inner underscores ('to_copy' is one name, not 'to' + 'copy').
_WORD = re.compile(r"[a-z0-9µ]+(?:_[a-z0-9µ]+)*")


def words(text: str) -> list[str]:
    """Lower-case words with contractions expanded, a plural -s dropped ('kernels' -> 'kernel') and
    arrows and comparisons read as words ('batch ↑' -> 'batch up', 'batch > 256' -> 'batch beyond 256')."""
    t = text.lower().replace("’", "'").replace("‘", "'").replace("↑", " up ").replace("↓", " down ")
    t = t.replace(" > ", " beyond ").replace(" < ", " below ")
    t = _PRONOUN_IS.sub(r"\1 is", t)
    for a, b in _CONTRACTIONS:
        t = t.replace(a, b)
    out: list[str] = []
    for w in _WORD.findall(t):
        out.extend(_APOSTROPHELESS.get(w, (_singular(w),)))
    return out


def compounded(ws: list[str], compounds: frozenset[tuple[str, str]]) -> list[str]:
    """Each declared pair of words joined into one word, so a filler word in it survives."""
    out: list[str] = []
    for w in ws:
        if out and (out[-1], w) in compounds:
            out[-1] = f"{out[-1]}_{w}"
        else:
            out.append(w)
    return out


def _singular(w: str) -> str:
    return w[:-1] if len(w) > 3 and w.endswith("s") and not w.endswith("ss") else w


@dataclass(frozen=True)
class Verbs:
    """Bare words that name levers only where they are verbs (concepts.yaml `verbs`): a word that
    opens its clause or follows one of `before` ('Batch now', 'we would batch and quantize',
    "don't batch"), and is followed by no number and none of `not_after` ('batch 1', 'batch size')."""

    levers: dict[str, tuple[str, ...]] = field(default_factory=dict)
    before: frozenset[str] = frozenset()
    not_after: frozenset[str] = frozenset()

    def levers_at(self, ws: tuple[str, ...], i: int) -> tuple[str, ...]:
        """The levers the word at `i` names as a verb, or none."""
        named = self.levers.get(ws[i], ())
        if not named or (i and ws[i - 1] not in self.before):
            return ()
        after = ws[i + 1] if i + 1 < len(ws) else ""
        return () if after in self.not_after or any(c.isdigit() for c in after) else named

"""Where negation cues occur in one clause of normalized words, found once per clause."""

from __future__ import annotations


class CueSpans:
    """Where negation cues occur in one clause, found once, so judging each match is O(1): a
    'before' cue negates a match it ends before, an 'anywhere' cue one it does not overlap. (Joining
    the words before and after every match was quadratic in a long answer item.)"""

    def __init__(self, ws: tuple[str, ...], before: tuple[tuple[str, ...], ...],
                 anywhere: tuple[tuple[str, ...], ...]) -> None:
        at: dict[str, list[int]] = {}
        for j, w in enumerate(ws):
            at.setdefault(w, []).append(j)

        def spans(cue: tuple[str, ...]) -> list[tuple[int, int]]:
            n = len(cue)
            return [(j, j + n) for j in at.get(cue[0], ()) if ws[j:j + n] == cue] if n else []

        self.first_end = min((e for cue in (*before, *anywhere) for _, e in spans(cue)), default=None)
        self.last_start = max((s for cue in anywhere for s, _ in spans(cue)), default=None)

    def negated(self, i: int, n: int) -> bool:
        return (self.first_end is not None and self.first_end <= i) or \
            (self.last_start is not None and self.last_start >= i + n)

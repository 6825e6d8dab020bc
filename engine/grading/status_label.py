"""A status label at the head of an item: "Don't: int4 ..." refuses what the rest names, "no -
batching, int8: they fix bytes" both levers (sealed247 e.s2494, instructor 95), "Later: batching"
defers it. The labels are data (context.yaml `labels`, `label_openers`)."""

from __future__ import annotations

import re

from regime.engine.grading.concepts import Concepts
from regime.engine.grading.scopes import BEING, points_before, triggers
from regime.engine.grading.sentences import names_a_regime
from regime.engine.grading.triggers import Triggers

_LABEL = re.compile(r"^\s*([^:]{1,40}):\s*(.*)$", re.S)
_DASHED = re.compile(r"^\s*([^:\-–—]{1,20}?)\s+[-–—]+\s+(.*)$", re.S)   # "no - batching, int8: ..."


def _match(concepts: Concepts, t: Triggers, sentence: str) -> re.Match[str] | None:
    """The label and its text: before a colon, or before a dash where the head is one of the
    status labels ("no - batching, int8: they fix bytes", whose colon comes after the levers)."""
    dashed = _DASHED.match(sentence)
    if dashed and any(tuple(concepts.words(dashed[1])) in labels for labels in t.labels.values()):
        return dashed
    return _LABEL.match(sentence)


def labelled_own(concepts: Concepts, t: Triggers, kinds: tuple[str, ...], sentence: str) -> bool:
    """A status label over names of its own ("Don't: fuse attention ..." after "... then hand
    fusion later" in one paragraph) refuses what follows its colon, not the sentence before."""
    m = _match(concepts, t, sentence)
    if m is None:
        return False
    return any(tuple(concepts.words(m[1])) in labels for labels in t.labels.values()) \
        and any(concepts.find(k, m[2]) for k in kinds)


def status_label(concepts: Concepts, t: Triggers, sentence: str,
                 regime: bool = False) -> tuple[str | None, str]:
    """'Don't: int4 weight quant' -> (negated, 'int4 weight quant'); 'Batching: not yet' keeps
    its text whole (the trigger after the colon re-judges it as an elliptical clause). Read for a
    regime, a refusing head that names a regime itself denies that, not what follows: "Neither
    bound: launch/overhead-bound" (sealed89 e.s915); "Not clear from the counters alone: ..."
    still refuses (sealed35 e.s377, instructor: no regime committed)."""
    m = _match(concepts, t, sentence)
    if not m:
        return _own_refusal(concepts, t, sentence)
    head = tuple(concepts.words(m[1]))
    head = head[1:] if head[1:] and head[0] in t.adds_subject else head   # "Also not worth it: fusing
    for status, labels in t.labels.items():                                 # attention" (sealed270 b.s2721)
        if head in labels:
            return status, m[2]
    for status, openers in t.label_openers.items():   # "Where int4 does make sense: it would free 51 GB":
        if any(head[:len(p)] == p for p in openers) and not any(head[:len(p)] == p for p in t.pseudo):
            #   where it pays (sealed34 d.s361); not "Where we are: compute-bound" (a pseudo-trigger)
            return status, sentence
    refusal = any(s == "negated" and not set(head[a:b]) <= t.contrast
                  and ((forward and not (b == len(head) and head[a] in BEING))   # "Engineer 2 is wrong:"
                       or points_before(list(head), a, forward, t)
                       or (b == len(head) and set(head[:a]) <= t.clefts and {"i", "we"} & set(head)))
                  for s, a, b, forward in triggers(list(head), t))   # "What I would skip:"; not "Focus on
    #  the compute side instead:", whose 'instead' turns to what follows (sealed22 b.s244), nor "Engineer 2 is
    #  wrong:", which refuses its own subject (sealed14 b.s166); "Until then both are pointless:" does
    elliptical = head[-1:] == ("not",)   # "We aren't: at batch 256 ... so we've crossed into
    #   compute-bound" answers the sentence before it (sealed81 d.s837), refusing nothing after it
    if regime and names_a_regime(concepts, m[1]):
        return None, sentence
    if refusal and not elliptical and not any(concepts.find(k, m[1]) for k in ("lever", "claim", "regime")):
        return "negated", m[2]   # "One more thing I would not do: push the batch much higher."
    return None, sentence


_LONG = re.compile(r"^\s*([^:]{41,80}):\s*(.*)$", re.S)


def _own_refusal(concepts: Concepts, t: Triggers, sentence: str) -> tuple[str | None, str]:
    """A longer head the student refuses in their own voice ("Two suggestions from the team I'd
    turn down: batching ..., and quantizing ...", sealed584 c.s5862) refuses what follows its
    colon, if it names nothing itself."""
    m = _LONG.match(sentence)
    if not m or any(concepts.find(k, m[1]) for k in ("lever", "claim", "regime")):
        return None, sentence
    head = concepts.words(m[1])
    own = any(s == "negated" and forward and b == len(head) and {"i", "we"} & set(head[max(a - 2, 0):a + 1])
              for s, a, b, forward in triggers(head, t))
    return ("negated", m[2]) if own else (None, sentence)


def carried_label(concepts: Concepts, t: Triggers, kinds: tuple[str, ...], sentence: str,
                  label: str | None) -> str | None:
    """The status label a sentence ending in a semicolon passes on: "No: batching (...); weight
    quant (...)" refuses both (sealed128 c.s1303)."""
    if not sentence.rstrip().endswith(";"):
        return None
    return status_label(concepts, t, sentence, "regime" in kinds)[0] or label

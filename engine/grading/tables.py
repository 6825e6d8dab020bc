"""Tables of verdicts: a row's verdict (a verdict column, or a cell that opens with one) given to
the row's own lever, so that '| int4 (vendor) | not for throughput |' reads as 'int4 (vendor): not
for throughput' does, and a negation stays in its row."""

from __future__ import annotations

import re

from regime.engine.grading.concepts import Concepts
from regime.engine.grading.items import CROSSES
from regime.engine.grading.items import ROW as _ROW
from regime.engine.grading.items import RULE as _RULE
from regime.engine.grading.scopes import hedged_refusal, opening
from regime.engine.grading.triggers import Triggers


def verdict_rows(text: str, concepts: Concepts) -> tuple[str, set[int], set[int]]:
    """A table whose header names a verdict column ('| lever | verdict | why |', context.yaml
    `verdict_columns`) gives each row's verdict to the row's own lever: '| int4 (vendor) | not
    for throughput | ... |' reads as 'int4 (vendor): not for throughput | ...', as 'Int4: not for
    throughput.' does. Other tables and all line numbers are left as they are. Also gives the
    line numbers of the rows it rewrote (such a row is a verdict wherever it stands) and of the
    rows of a plan ('| step | fix | when |', context.yaml `plan_columns`, no verdict column): each
    is an item of Fixes, in an essay too (sealed102 c.s1050)."""
    t = concepts.context
    rows: set[int] = set()
    plans: set[int] = set()
    if t is None or "|" not in text:
        return text, rows, plans
    lines = _headed_figures(text.split("\n"), concepts)
    column: int | None = None
    body = plan = False
    acts = 0
    for i, line in enumerate(lines):
        if not _ROW.match(line):
            column, body, plan = None, False, False
        elif _RULE.match(line):
            above = lines[i - 1] if i and _ROW.match(lines[i - 1]) else ""
            head = [tuple(concepts.words(c)) for c in _cells(above)] if above else []
            column = next((k for k, c in enumerate(head) if c in t.verdict_columns), None)
            plan = column is None and any(c in t.plan_columns for c in head)   # a verdict column decides
            acts = next((k for k, c in enumerate(head) if c in t.plan_columns), 0)   # '| kernel | does
            #   FLOPs? | what to do |': a yes/no before the plan's column is an attribute (sealed125 b.s1274)
            body = True
        elif body:
            cells = _cells(line)
            if any(c in CROSSES for c in cells):   # '| ✗ | batch the prefills | ... |' (sealed134 c.s1365)
                cells = [*(c for c in cells if c not in CROSSES), "no"]   # the mark refuses its row
            if plan and acts:   # 'no' under "does FLOPs?" answers the column, it refuses nothing
                cells = [c if k == 0 or k >= acts or concepts.words(c) not in (["no"], ["yes"]) else ""
                         for k, c in enumerate(cells)]
                lines[i] = "| " + " | ".join(cells) + " |"
            first = acts if plan else 0
            at = column if column is not None else _verdict_cell(cells, concepts, t, first)
            if at is not None:
                if column is None and _refusing(concepts.words(cells[at]), t, at == first > 0):
                    cells = [*cells[:at], f"no: {cells[at]}", *cells[at + 1:]]   # 'little' refuses
                lines[i] = _with_verdict(cells, at)
                rows.add(i + 1)
            if plan:
                plans.add(i + 1)
    return "\n".join(lines), rows, plans


def regime_row(concepts: Concepts, text: str) -> bool:
    """A table row naming a regime and no claim, where items were expected: a diagnosis table's
    verdict ('| profiler | 71% of peak | 30% of peak | compute-bound |', sealed712 d.s7143, instructor
    95, graded 57.4 with its rows read as fixes naming no lever), read as the student's sentence."""
    return text.lstrip().startswith("|") and bool(concepts.find("regime", text)) \
        and not concepts.find("claim", text)


def _headed_figures(lines: list[str], concepts: Concepts) -> list[str]:
    """A bare figure in a table's body is said of its column: under '| | FLOP rate | Bandwidth |',
    '| measured | 71% | 30% |' reads as 'FLOP rate: 71%', 'Bandwidth: 30%' (sealed411 d.s4137,
    instructor 95: both figures given; graded with the bandwidth missing). Not in a lever's row,
    where '| layer_norm | 8% |' gives the lever's share (sealed141 b.s1440)."""
    out = list(lines)
    head: list[str] = []
    for i, line in enumerate(lines):
        if not _ROW.match(line):
            head = []
        elif _RULE.match(line):
            head = _cells(lines[i - 1]) if i and _ROW.match(lines[i - 1]) else []
        elif head and not concepts.find("lever", line):
            cells = _cells(line)
            named = [f"{h}: {c}" if _FIGURE.fullmatch(c) and any(ch.isalpha() for ch in h) else c
                     for c, h in zip(cells, head + [""] * len(cells), strict=False)]
            if named != cells:
                out[i] = "| " + " | ".join(named) + " |"
    return out


_FIGURE = re.compile(r"[~≈<>≤≥]?\s*\d[\d,.]*\s*(?:%|x|×|[A-Za-z]{1,6}(?:\s?/\s?[A-Za-z]{1,6})?)")
#   with a unit: a bare '1' under '| step |' is the step's number (sealed116 e.s1188)


def _verdict_cell(cells: list[str], concepts: Concepts, t: Triggers, first: int = 0) -> int | None:
    """In a table with no verdict column, a cell after the row's name that opens with a trigger of
    context.yaml's `verdict_cells` statuses is that row's verdict: '| 3 | Quantize weights | not
    until the gaps are gone |' (sealed94 e.s965) defers the quantization as 'Quantize weights: not
    until the gaps are gone' does; so is one opening with a `refusing_cells` word ('| bigger batch |
    little, we're past the ridge |', sealed110 d.s1126), or a plan's action column (`first`, after
    the row's name) with a `plan_refusals` phrase, or a hedged refusal ('| Weight quantization |
    Probably not worth it — ... |', sealed343 c.s3453). A cell naming a lever says something else."""
    at = next((k for k, c in enumerate(cells) if any(ch.isalpha() for ch in c)), None)
    if at is None or not any(concepts.find(kind, cells[at]) for kind in ("lever", "claim")):
        return None   # '| HBM BW | 14% | not saturated |': a figure's reading, not a verdict
    for k in range(max(at + 1, first), len(cells)):
        ws = concepts.words(cells[k])
        if (ws and (hedged_refusal([ws], t, opening(ws, t, contrast=False)) in t.verdict_cells
                    or _refusing(ws, t, k == first > 0))
                and not _no_noun(cells[k], ws, t) and not concepts.find("lever", cells[k])):
            return k
    return None


def _refusing(ws: list[str], t: Triggers, action: bool) -> bool:
    """A cell that refuses its row by its first words: a `refusing_cells` word ('little'), or, in
    a plan's action column after the row's name (`action`), a `plan_refusals` phrase: 'nothing' or
    'leave it' under '| what to do |' is the action (sealed114 b.s1166), where under '| FLOPs |' 'none'
    is a count, and under '| lever | effect |' an estimate (sealed127 a.s1295)."""
    return bool(ws) and (ws[0] in t.refusing_cells
                         or (action and any(tuple(ws[:len(p)]) == p for p in t.plan_refusals)))


def _no_noun(cell: str, ws: list[str], t: Triggers) -> bool:
    """'no materialized scores' (sealed24 c.s269) says what a fix avoids: 'no' before a noun, not
    'no — gaps aren't bytes' or 'no for throughput'."""
    return ws[0] == "no" and len(ws) > 1 and ws[1] not in t.after_no and not _BARE_NO.match(cell)


_BARE_NO = re.compile(r"(?i)\W*no\b\s*[,.;:!—–-]")


def _cells(row: str) -> list[str]:
    return [c.strip() for c in row.strip().strip("|").split("|")]


def _with_verdict(cells: list[str], column: int) -> str:
    if column >= len(cells):
        return "| " + " | ".join(cells) + " |"
    verdict = cells[column]
    rest = [c for k, c in enumerate(cells) if k != column]
    at = next((k for k, c in enumerate(rest) if any(ch.isalpha() for ch in c)), None)   # not '1', '–'
    if at is None or not verdict:
        return "| " + " | ".join(cells) + " |"
    rest[at] = f"{rest[at]}: {verdict}"
    return "| " + " | ".join(rest) + " |"

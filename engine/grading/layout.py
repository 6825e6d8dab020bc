"""How a written answer is laid out: front matter, the template's sections and their items (list
entries, paragraphs, table rows), or, with no template heading, its paragraphs. What the words
say is written.py's business."""

from __future__ import annotations

import re
from collections.abc import Callable
from pathlib import Path
from typing import Any

from regime.core.errors import RegimeError, did_you_mean
from regime.engine.grading.answer import Answer, read_text
from regime.engine.grading.breaks import hand_broken, wraps_into
from regime.engine.grading.concepts import Concepts
from regime.engine.grading.items import HEADING as _HEADING
from regime.engine.grading.items import ITEM as _ITEM
from regime.engine.grading.items import NUMBERED as _NUMBERED
from regime.engine.grading.items import ROW as _ROW
from regime.engine.grading.items import RULE as _RULE
from regime.engine.grading.items import crossed, joined, sub_item
from regime.engine.grading.labels import RUN_IN, section

_LABEL_LINE = re.compile(r"^\s{0,3}(?P<head>[*_]{0,2}[A-Za-z][\w /]{0,30}?[*_]{0,2})"
                         r"(?:\s*(?::|—|–|\s-\s|\s=\s)|(?<=\d)\.?\s)\s*(?P<rest>.*)$")   # 'Fixes:', 'fix1 '
_BARE_LABEL = re.compile(r"^\s{0,3}(?P<head>[*_]{0,2}[A-Za-z][\w /]{0,30}?(?:\s*\([\w ]{1,20}\))?[*_]{0,2})"
                         r"\s*:?\s*(?P<rest>)$")   # 'fixes' or 'fixes (in order)' alone on its line
_LEVER_LABEL = re.compile(r"^\s{0,3}(?P<head>[A-Za-z][^:?]{0,40})[:?]\s*\S")   # "int4? No for throughput."
_VERDICT_END = re.compile(r":|\s[-–—]\s")
_NAMED_WORDS = 4                      # 'int4 (vendor pitch):', 'weight quant to int8:': a lever named
_LABEL_WORDS = 2                      # 'Do:', 'Next step:': a label, not a sentence with a colon
_NO_LEVERS = ("regime", "evidence")   # labelled sections whose items read no lever
EMPHASIS = re.compile(r"(?<![A-Za-z0-9])_+|_+(?![A-Za-z0-9])|[*`]+")   # keeps to_copy whole


def outline(path: Path, concepts: Concepts, max_bytes: int) -> dict[str, Any]:
    """What the reader takes from a written answer: front matter and items per template section
    (the shape docs/grading/markdown-answer.schema.json describes)."""
    text = read_text(path, max_bytes)
    meta, start = front_matter(path, text)
    scratch = Answer(str(path), "markdown", "")
    sections = sections_of(text, start, concepts, scratch)
    return {"front_matter": dict(meta),
            "sections": {k: [{"line": ln, "text": t} for ln, t in v] for k, v in sections.items()}}


_META = re.compile(r"^(?P<key>[A-Za-z_][A-Za-z0-9_]*)\s*:\s*(?P<value>.*?)\s*$")


def front_matter(path: Path, text: str) -> tuple[dict, int]:
    """`key: value` lines between '---' lines (plain scalars, optionally quoted; no YAML needed)."""
    lines = text.splitlines()
    if not lines or lines[0].strip() != "---":
        return {}, 0
    meta: dict[str, str] = {}
    for end in range(1, min(len(lines), 50)):
        line = lines[end]
        if line.strip() == "---":
            return meta, end + 1
        if not line.strip() or line.lstrip().startswith("#"):
            continue
        m = _META.match(line)
        if not m:
            raise RegimeError("front matter lines are 'key: value'", file=str(path), line=end + 1)
        if m["key"] not in ("case", "student"):
            raise RegimeError(f"unknown key{did_you_mean(m['key'], ['case', 'student'])}", file=str(path),
                              line=end + 1, field=m["key"])
        meta[m["key"]] = m["value"].strip("'\"")
    raise RegimeError("front matter is not closed by a '---' line", file=str(path), line=1)


def argument(path: Path, text: str, concepts: Concepts) -> str:
    """What the student wrote, for a reason stated anywhere in it: not the front matter, nor the
    template's headings and labels ("## Regime", "- regime: ..."), whose words ("regime") would
    argue every fix whose justification says them."""
    lines = []
    for line in text.splitlines()[front_matter(path, text)[1]:]:
        if _HEADING.match(line):
            continue
        item = _ITEM.match(line)
        head, colon, rest = (item["text"] if item else line).partition(":")
        lines.append(rest if colon and len(head) <= 30 and concepts.heading(head) else line)
    return "\n".join(lines)


def sections_of(text: str, start: int, concepts: Concepts, a: Answer, labels: bool = False,
                intro: Callable[[str], str | None] = lambda _: None) -> dict[str, list[tuple[int, str]]]:
    """Items (list entries or paragraphs) per template section, with their first line. With
    `labels`, a line opening with a section's name and a colon or dash ('Fixes:', 'Regime —
    compute bound ...') opens that section too, the rest of the line its first item. A heading
    not the template's opens the section `intro` names for it ('## Not worth it' -> reject,
    sealed78 b.s802); any other is read as prose."""
    sections: dict[str, list[tuple[int, str]]] = {}
    before: list[tuple[int, str]] = []   # under no section yet: a first line, or text under a title
    current: list[tuple[int, str]] = before
    open_item = False
    reading = ""   # the section a label opened last
    topic = ""   # '## Int4' over '- Reject. ...': the lever the heading names labels its first item
    parent: int | None = None   # the indent of the list item current[-1] opened, if it names a lever
    headed = any((h := _HEADING.match(line)) and (section(concepts, EMPHASIS.sub("", h["text"])) or (
        not line.lstrip().startswith("# ") and intro(EMPHASIS.sub("", h["text"]))))   # a template
        for line in text.splitlines()[start:])   # section under a '##' heading, not under a title
    notes = hand_broken(lines := text.splitlines(), start)
    for lineno, line in enumerate(lines[start:], start + 1):
        label = (_LABEL_LINE.match(line) or RUN_IN.match(line) or _BARE_LABEL.match(line)) if labels \
            else _alone(line) if headed else None
        #   a line that is only a section's name ('fixes' over '1) torch.compile ...', sealed175
        #   b.s1776) opens it, as does a bold one run in ('**Reject.** Raising ...', sealed174 e.s1769);
        #   one alone on its line ('**Fixes:**' between '## Evidence' and '## Reject') is a heading
        if label and (name := section(concepts, EMPHASIS.sub("", label["head"]))):
            current, reading = sections.setdefault(name, []), name
            if label["rest"].strip():
                current.append((lineno, label["rest"].strip()))
            open_item, parent = bool(label["rest"].strip()), None
            continue
        if reading in _NO_LEVERS and _lever_label(concepts, line):   # 'int4 (vendor pitch): no
            current, reading = sections.setdefault(PROSE, []), PROSE   # for thruput.' under 'ev: MFU 71%'
            current.append((lineno, line.strip()))   # is a verdict of its own, not more evidence
            open_item, parent = True, None           # (sealed141 d.s1440, sealed165 d.s1679)
            continue
        head = _HEADING.match(line)
        if head:   # a heading's topic labels the first item under it, never one under the next heading
            name, topic = section(concepts, EMPHASIS.sub("", head["text"])), ""
            if name is None and not line.lstrip().startswith("# "):  # a title is not a section
                name = intro(EMPHASIS.sub("", head["text"]))
                a.notes.append(f"line {lineno}: heading '{head['text'][:60]}' is not one of the template's; "
                               + (f"read as its {name} section" if name else "its text was read as prose"))
                name = name or PROSE   # '## Verdicts' over a table of levers: read sentence by sentence
                named = concepts.find("lever", head["text"])   # '## Int4': the topic of its first item
                topic = EMPHASIS.sub("", head["text"]).rstrip(":?. ") if named else ""
            current = sections.setdefault(name, []) if name else before
            open_item, reading = False, name or ""
            continue
        item = _ITEM.match(line)
        if _ROW.match(line):   # a table row is an item of its own (a negation stays in its row)
            if not _RULE.match(line):
                current.append((lineno, line.strip()))
            elif current and current[-1][0] == lineno - 1 and current[-1][1].startswith("|"):   # a header row
                current.pop()
            open_item = False
        elif item and open_item and current and sub_item(item, parent):   # its reason, under it
            current[-1] = (current[-1][0], joined(current[-1][1], item["text"]))
        elif item:
            current.append((lineno, f"{topic}: {item['text']}" if topic else item["text"]))
            open_item, topic = True, ""
            parent = len(item["indent"].expandtabs(4)) if concepts.find("lever", item["text"]) else None
        elif not line.strip():
            open_item = False
        elif open_item and current and lineno not in notes and not crossed(line) \
                and not _verdict_label(concepts, line, lines[lineno - 2]) \
                and not (_named_label(concepts, line) and not wraps_into(lines[lineno - 2], line)):
            #   'batching: no, batching wont help' under 'fix 2: flashattention so ...' is a verdict of
            #   its own, not more of fix 2 (sealed693 c.s6958, instructor: flash recommended)
            current[-1] = (current[-1][0], current[-1][1] + " " + line.strip())
        else:   # a line of its own, or one that opens with a label ("Don't: fuse ...", sealed112 a.s1150)
            current.append((lineno, f"{topic}: {line.strip()}" if topic else line.strip()))
            open_item, topic, parent = True, "", None
    return _with_preamble(sections, before)


def _lever_label(concepts: Concepts, line: str) -> bool:
    """A line that opens with a label naming a lever ('int4: no.', 'Int4 (vendor pitch): no'), or
    with a label no section has over levers ('**Do:** continuous batching; then int8', sealed125
    a.s1274)."""
    m = _LEVER_LABEL.match(EMPHASIS.sub("", line))
    if not m:
        return False
    rest = EMPHASIS.sub("", line)[m.end("head") + 1:]
    return bool(concepts.find("lever", m["head"])) or (
        len(m["head"].split()) <= _LABEL_WORDS and section(concepts, m["head"]) is None
        and bool(concepts.find("lever", rest)))


def _with_preamble(sections: dict[str, list[tuple[int, str]]],
                   before: list[tuple[int, str]]) -> dict[str, list[tuple[int, str]]]:
    """What stands before the first section (or under a title) is read as prose, first, when the
    answer has template sections: a student may open with their verdict on a line of its own
    ("Regime: compute-bound (...)" over a heading-less table of signals, sealed148 d.s1503).
    Without template sections the whole answer is an essay or a memo, read as such elsewhere."""
    if not before or not any(name != PROSE for name in sections):
        return sections
    if PROSE in sections:
        return {k: before + v if k == PROSE else v for k, v in sections.items()}
    return {PROSE: before, **sections}


def _named_label(concepts: Concepts, line: str) -> bool:
    """A line that opens with a lever's name and a colon ('batching: no, ...'): not "that helps:"
    going on from the line before ("I don't think" over "that helps: ... a bigger batch ...")."""
    m = _LEVER_LABEL.match(EMPHASIS.sub("", line))
    return m is not None and len(m["head"].split()) <= _NAMED_WORDS \
        and bool(concepts.find("lever", m["head"]))


def _verdict_label(concepts: Concepts, line: str, before: str = "") -> bool:
    """A line that opens with one of context.yaml's `labels` and a colon ("Don't: fuse the
    elementwise ops", "Maybe later: int8"): an item of its own, not the last item's next line."""
    head, *said = _VERDICT_END.split(line.strip(), maxsplit=1)   # ':' or ' - ' ("dont go past bs 256 -
    t = concepts.context                                       # past ridge", sealed179 d.s1818)
    ws = tuple(concepts.words(head))   # ... or opens with one: "dont raise batch more: past ridge"
    return bool(said) and t is not None and not wraps_into(before, line) and any(   # (sealed204 d.s2070)
        ws[:len(p)] == p for phrases in t.labels.values() for p in phrases)


def prose(text: str, start: int, intro: Callable[[str], str | None] = lambda _: None,
          steps: Callable[[str], bool] = lambda _: False,
          concepts: Concepts | None = None) -> dict[str, list[tuple[int, str]]]:
    """An answer written as prose, no template heading at all: its paragraphs, each read
    sentence by sentence for what it is about (written.py). A paragraph ending in a colon that
    `intro` names a section for ('What I would do, in this order:' -> fixes, 'What I would not
    do:' -> reject, 'Fixes:') puts the list items right after it in that section (sealed38
    a.s401); one it names none for heads the paragraph after it ("On the int4 pitch:" over "Not
    for this endpoint.", sealed77 d.s791). A line opening with a verdict label ("Dont: batch
    prefils - ...") is a paragraph of its own, as under a heading (sealed179 c.s1819)."""
    paragraphs: list[tuple[int, str]] = []
    listed: dict[str, list[tuple[int, str]]] = {}
    into: list[tuple[int, str]] = paragraphs
    open_paragraph = False
    previous = ""
    last = under = None   # the indent of the last paragraph, if a list item; of the one introducing `into`
    notes = hand_broken(text.splitlines(), start)
    for lineno, line in enumerate(text.splitlines()[start:], start + 1):
        item = _ITEM.match(line)
        if item and into is not paragraphs and under is not None and len(item["indent"]) <= under:
            into, last = paragraphs, None   # '5. Upper bound ...' after '4. Fix order:' over its '   a.
            paragraphs.append((lineno, item["text"]))   # ...' items: a paragraph of its own again
            open_paragraph, previous = True, line
            continue
        if _RULE.match(line) and into and into[-1][0] == lineno - 1 and _ROW.match(previous):
            into.pop()   # the table's header row names columns, not what the student says
            open_paragraph = False
        elif not line.strip() or _HEADING.match(line) or _RULE.match(line):
            open_paragraph = False
        elif _ROW.match(line):   # a table row is a paragraph of its own
            into.append((lineno, line.strip()))
            open_paragraph = False
        elif open_paragraph and not item and lineno not in notes \
                and not (concepts and _verdict_label(concepts, line, previous)):
            into[-1] = (into[-1][0], into[-1][1] + " " + line.strip())
        elif not item and into is paragraphs and paragraphs and paragraphs[-1][1].endswith(":") \
                and intro(_introducing(paragraphs[-1][1])) is None:
            into[-1] = (into[-1][0], into[-1][1] + " " + line.strip())   # "To the director, on the
            open_paragraph = True   # int4 pitch:" over "Not for this endpoint.": the head's topic
        else:
            note = not item and lineno in notes and lineno - 1 in notes   # 'fixes:' over '1 cuda graphs'
            said = item["text"] if item else line.strip()
            if not item and not note:   # a paragraph of prose again; its bold label run in is a label
                into = paragraphs   # as one before a colon is ('**Not now.** Raising the batch ...',
                said = _as_label(said, concepts)   # sealed353 e.s3556: 'Not now: Raising the batch ...')
            elif into is paragraphs and paragraphs and _introducing(paragraphs[-1][1]) \
                    and (section := intro(_introducing(paragraphs[-1][1]))) is not None:
                into, under = listed.setdefault(section, []), last   # the list the paragraph introduces
            elif into is paragraphs and (_NUMBERED.match(line) or _NUMBERED.match(said)) \
                    and steps(said):   # "1. Continuous batching so that ...", "- 1) X so
                into = listed.setdefault("fixes", [])   # big docs don't wait. 2) Y ...": steps,
                under = len(item["indent"].expandtabs(4)) - 1 if item else None   # until an item
                #   outdented from them ('4. Reject' after '   3. Re-measure ...', sealed594 e.s5961)
            into.append((lineno, said))
            open_paragraph, last = True, len(item["indent"]) if item and into is paragraphs else None
        previous = line
    out = {PROSE: paragraphs} if paragraphs else {}
    return {**out, **listed}


def _as_label(paragraph: str, concepts: Concepts | None) -> str:
    """A bold label naming a lever ('**Int4.** ...') stays: it is the paragraph's topic."""
    run_in = RUN_IN.match(paragraph)
    if not run_in or not run_in["rest"].strip() or (concepts and concepts.find("lever", run_in["head"])):
        return paragraph
    return f"{run_in['head']}: {run_in['rest']}"


_BOLD_LINE = re.compile(r"^\s*(\*\*|__)(?P<text>[^*_]{1,60}?)\1\s*:?\s*$")   # '**What I'd do**'


def _introducing(paragraph: str) -> str:
    """The paragraph as an introduction to the list after it: one ending in a colon, a line
    that is bold and nothing else ('**What I'd do**', sealed56 a.s586: a heading written in
    bold) or a few words with no punctuation ('Fixes'), read as its text and a colon; '' for any
    other paragraph."""
    bold = _BOLD_LINE.match(paragraph)
    if bold:
        return bold["text"].strip() + ":"
    if _BARE_HEAD.match(paragraph):   # 'Fixes' alone on its line over '1. torch.compile, ...'
        return paragraph.strip().rstrip(".") + ":"   # (sealed30 b.s325): a heading without its '##'
    return paragraph if paragraph.rstrip().endswith(":") else ""


# a few words, no punctuation but an order after a comma, a qualifier in brackets or a full stop
# ('Fixes, in order' and 'Reject (for now)' over numbered items, sealed594 e.s5961; 'Not
# recommended.' over a memo's list, sealed549 a.s5518)
_BARE_HEAD = re.compile(r"^\s*[A-Za-z][A-Za-z' ]{0,30}"
                        r"(?:,\s*in\s[A-Za-z' ]{1,20}|\s*\([A-Za-z' ]{1,20}\))?\.?\s*$")


def labelled(text: str, start: int, concepts: Concepts, a: Answer) -> dict[str, list[tuple[int, str]]]:
    """A memo whose paragraphs each open with a template section's name as a label ('Regime —
    compute bound ...', 'Fixes:' over its list, sealed30 c.s328): its sections, when it labels two
    or more; else nothing (a paragraph without a label is prose: 'Why: ...', '(Ran out of time
    for fixes — I'd start with torch.compile.)')."""
    lines = text.splitlines()[start:]
    firsts = [ln for i, ln in enumerate(lines) if ln.strip() and (i == 0 or not lines[i - 1].strip())]
    alone = [section(concepts, EMPHASIS.sub("", m["head"])) for m in map(_alone, firsts) if m]
    if len(set(alone)) > 1 and None not in alone:   # headings written without '##' ('**Regime.**',
        # 'FIXES', 'Reject:' on lines of their own): the paragraph right under one needs no label
        last = [next((b for b in reversed(lines[:i]) if b.strip()), "") for i, ln in enumerate(lines)
                if ln.strip() and (i == 0 or not lines[i - 1].strip())]   # the line above each
        firsts = [f for f, above in zip(firsts, last, strict=True) if not _alone(above)]
    for first in firsts:
        label = _LABEL_LINE.match(first) or RUN_IN.match(first) or _alone(first)
        if not label or section(concepts, EMPHASIS.sub("", label["head"])) is None:
            return {}
    sections = sections_of(text, start, concepts, a, labels=True)
    return sections if len(set(sections) - {PROSE}) > 1 else {}


def _alone(line: str) -> re.Match[str] | None:
    """A label on a line of its own, as a heading is: 'Fixes:', '**Reject.**', 'EVIDENCE'."""
    label = RUN_IN.match(line) or _BARE_LABEL.match(line) or _LABEL_LINE.match(line)
    return label if label and not label["rest"].strip() else None


PROSE = "prose"   # the pseudo-section of an answer with no template heading

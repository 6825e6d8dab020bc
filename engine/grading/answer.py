"""Student answers, structured (YAML) or written (Markdown against the template's headings),
read into one shape. Submissions are untrusted: size, encoding and structure are checked first
and every problem is a RegimeError naming the file, line and field.
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from pydantic import BaseModel, ConfigDict, StrictFloat, StrictInt, StrictStr

from regime.core.errors import RegimeError, did_you_mean
from regime.core.yamlsrc import LineDict, line_of, load_yaml, validated
from regime.engine.grading.concepts import Concepts, clauses
from regime.engine.grading.figures import Quantity, quantities, quantity, unreadable_numbers

YAML_SUFFIXES = (".yaml", ".yml")
MARKDOWN_SUFFIXES = (".md", ".markdown", ".txt")
_HEADING = re.compile(r"^\s{0,3}#{1,6}\s+(?P<text>.+?)\s*#*\s*$")
_ITEM = re.compile(r"^\s*(?:[-*+]|\d{1,3}[.)])\s+(?P<text>.*)$")
_EMPHASIS = re.compile(r"(?<![A-Za-z0-9])_+|_+(?![A-Za-z0-9])|[*`]+")   # keeps to_copy whole
_SENTENCE = re.compile(r"(?<=[.!?;])\s+(?=[A-Z0-9(\"'])")


@dataclass(frozen=True)
class Mention:
    """A lever or claim an answer names: one concept, several (ambiguous), with where it was."""

    concepts: tuple[str, ...]
    written: str
    line: int
    kind: str = "lever"


@dataclass(frozen=True)
class Said:
    """A number as written, with the words of its sentence or bullet (what ties it to a figure)."""

    q: Quantity
    context: tuple[str, ...]
    line: int = 0


@dataclass
class Answer:
    path: str
    format: str
    case: str
    student: str | None = None
    regime: str | None = None
    nominal_regime: str | None = None
    named: dict[str, tuple[Quantity, int]] = field(default_factory=dict)   # figure name -> value
    numbers: list[Said] = field(default_factory=list)                       # every number given
    fixes: list[Mention] = field(default_factory=list)
    rejects: list[Mention] = field(default_factory=list)
    endorsed: list[str] = field(default_factory=list)                       # claims used as reasons
    verdicts: dict[str, str] = field(default_factory=dict)
    asks: list[str] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)
    unread: list[tuple[str, str]] = field(default_factory=list)     # (part, why an item did not count)

    def said(self, concepts: Concepts, text: str, line: int = 0, label: str = "") -> None:
        """Record every number in `text`, each with the words of its own sentence (and `label`)."""
        for sentence in _SENTENCE.split(text):
            found = quantities(sentence)
            if found:
                context = tuple(concepts.words(f"{label} {sentence}"))
                self.numbers += [Said(q, context, line) for q in found]


def read_text(path: Path, max_bytes: int) -> str:
    """The submission as text: bounded in size, not binary, UTF-8 (a BOM is allowed)."""
    file = str(path)
    try:
        size = path.stat().st_size
        if size > max_bytes:
            raise RegimeError(f"submission is {size:,} bytes; at most {max_bytes:,} are graded", file=file)
        with path.open("rb") as fh:
            data = fh.read(max_bytes + 1)
    except OSError as err:
        raise RegimeError(f"cannot read submission: {err.strerror or err}", file=file) from None
    if len(data) > max_bytes:
        raise RegimeError(f"submission is over {max_bytes:,} bytes; it is not graded", file=file)
    if data.startswith((b"\xff\xfe", b"\xfe\xff")):
        raise RegimeError("submission is UTF-16; save it as UTF-8", file=file, line=1)
    if b"\x00" in data:
        line = data[:data.index(b"\x00")].count(b"\n") + 1
        raise RegimeError("submission is binary (contains NUL bytes), not text", file=file, line=line)
    try:
        return str(data, "utf-8-sig")
    except UnicodeDecodeError as err:
        line = data[:err.start].count(b"\n") + 1
        raise RegimeError(f"submission is not UTF-8 (byte 0x{data[err.start]:02x} at offset {err.start}); "
                          "save it as UTF-8", file=file, line=line) from None


def read_answer(path: Path, concepts: Concepts, max_bytes: int) -> Answer:
    text = read_text(path, max_bytes)
    if path.suffix.lower() in YAML_SUFFIXES:
        return _yaml_answer(path, text, concepts)
    if path.suffix.lower() in MARKDOWN_SUFFIXES:
        return _markdown_answer(path, text, concepts)
    raise RegimeError(f"unknown answer format '{path.suffix}': use .yaml for a structured answer or .md "
                      "for one written against the template", file=str(path))


# ---- structured answers -------------------------------------------------------------------------

class _Strict(BaseModel):
    model_config = ConfigDict(extra="forbid")


Scalar = StrictStr | StrictFloat | StrictInt


class EvidenceModel(_Strict):
    figure: StrictStr
    value: Scalar
    unit: StrictStr | None = None


class FixModel(_Strict):
    lever: StrictStr
    bound: Scalar | None = None
    reason: StrictStr = ""


class RejectModel(_Strict):
    lever: StrictStr | None = None
    claim: StrictStr | None = None
    reason: StrictStr = ""


class AskModel(_Strict):
    fact: StrictStr
    reason: StrictStr = ""


class AnswerModel(_Strict):
    student: StrictStr | StrictInt | None = None
    case: StrictStr
    regime: StrictStr
    nominal_regime: StrictStr | None = None
    evidence: list[Any] = []
    fixes: list[Any] = []
    reject: list[Any] = []
    verdicts: dict[str, StrictStr] = {}
    ask: list[Any] = []


VERDICTS = ("fix", "reject")


def _yaml_answer(path: Path, text: str, concepts: Concepts) -> Answer:
    file = str(path)
    raw = load_yaml(path, text=text)
    if not isinstance(raw, dict):
        raise RegimeError("a structured answer is a mapping with at least 'case' and 'regime'", file=file)
    m = validated(AnswerModel, raw, file)
    a = Answer(file, "yaml", m.case, None if m.student is None else str(m.student))
    a.regime = _flagged(a, "regime", _one, concepts, "regime", m.regime, raw, "regime", file)
    if m.nominal_regime is not None:
        a.nominal_regime = _flagged(a, "regime", _one, concepts, "regime", m.nominal_regime, raw,
                                    "nominal_regime", file)
    for i, body in enumerate(m.evidence):
        e = _item(EvidenceModel, body, raw, "evidence", i, file)
        where: dict[str, Any] = dict(file=file, line=_line(raw, "evidence", body),
                                     field=f"evidence[{i}].value")
        try:
            q = quantity(e.value, e.unit)
        except ValueError as err:
            raise RegimeError(str(err), **where) from None
        if q.value < 0 or not math.isfinite(q.value):
            raise RegimeError(f"{q.written} is negative; figures here are magnitudes", **where)
        a.numbers.append(Said(q, tuple(concepts.words(e.figure)), where["line"] or 0))
        a.named.setdefault(e.figure, (q, where["line"] or 0))
    for i, body in enumerate(m.fixes):
        f = _item(FixModel, {"lever": body} if isinstance(body, str) else body, raw, "fixes", i, file)
        mention = _flagged(a, "fixes", _mention, concepts, "lever", f.lever, raw, f"fixes[{i}].lever",
                           body, file)
        if mention:
            a.fixes.append(mention)
        a.said(concepts, f"{f.bound or ''} {f.reason}", _line(raw, "fixes", body) or 0, f.lever)
    for i, body in enumerate(m.reject):
        r = _item(RejectModel, body, raw, "reject", i, file)
        if (r.lever is None) == (r.claim is None):
            raise RegimeError("a rejection names exactly one of 'lever' or 'claim'", file=file,
                              line=_line(raw, "reject", body), field=f"reject[{i}]")
        kind = "lever" if r.lever is not None else "claim"
        mention = _flagged(a, "rejections", _mention, concepts, kind, r.lever or r.claim or "", raw,
                           f"reject[{i}].{kind}", body, file)
        if mention:
            a.rejects.append(mention)
        a.said(concepts, r.reason, _line(raw, "reject", body) or 0, r.lever or r.claim or "")
    for name, verdict in m.verdicts.items():
        where = dict(file=file, line=line_of(raw.get("verdicts"), name), field=f"verdicts.{name}")
        if verdict not in VERDICTS:
            raise RegimeError(f"verdict '{verdict}' must be one of {', '.join(VERDICTS)}", **where)
        found = concepts.resolve("lever", name) or concepts.resolve("claim", name)
        if len(found) != 1:
            why = _unknown_text("lever or claim", name, concepts, found)
            a.unread.append(("fixes", f"line {where['line']}: I could not read this verdict: {why}"))
            continue
        a.verdicts[found[0]] = verdict
    for i, body in enumerate(m.ask):
        q = _item(AskModel, {"fact": body} if isinstance(body, str) else body, raw, "ask", i, file)
        asked = _flagged(a, "asks", _one, concepts, "fact", q.fact, raw, f"ask[{i}].fact", file)
        if asked:
            a.asks.append(asked)
    return a


def _flagged(a: Answer, part: str, read: Any, *args: Any) -> Any:
    """One item's reading; an unreadable name is flagged against its part, never the whole answer."""
    try:
        return read(*args)
    except RegimeError as err:
        a.unread.append((part, f"line {err.line}: I could not read this: {err.message}" if err.line
                         else f"I could not read this: {err.message}"))
        return None


def _item(model: type[_Strict], body: Any, raw: dict, key: str, i: int, file: str):
    line = _line(raw, key, body)
    if not isinstance(body, dict):
        raise RegimeError(f"each entry of '{key}' is a mapping", file=file, line=line, field=f"{key}[{i}]")
    return validated(model, body, file, line=line, prefix=f"{key}[{i}]")


def _line(raw: dict, key: str, body: Any) -> int | None:
    return body.line if isinstance(body, LineDict) else line_of(raw, key)


def _one(concepts: Concepts, kind: str, name: str, raw: dict, fieldname: str, file: str) -> str:
    found = concepts.resolve(kind, name)
    if len(found) != 1:
        raise RegimeError(_unknown_text(kind, name, concepts, found), file=file,
                          line=line_of(raw, fieldname.split("[")[0]), field=fieldname)
    return found[0]


def _mention(concepts: Concepts, kind: str, name: str, raw: dict, fieldname: str, body: Any,
             file: str) -> Mention:
    found = concepts.resolve(kind, name)
    if not found:
        raise RegimeError(_unknown_text(kind, name, concepts, found), file=file,
                          line=_line(raw, fieldname.split("[")[0], body), field=fieldname)
    return Mention(found, name, _line(raw, fieldname.split("[")[0], body) or 0, kind)


def _unknown_text(kind: str, name: str, concepts: Concepts, found: tuple[str, ...]) -> str:
    if found:
        return f"'{name}' is ambiguous: it could be {' or '.join(found)}; name one"
    known = {c for k in kind.split(" or ") for table in [concepts.phrases.get(k, {})] for s in table.values()
             for c in s}
    return f"unknown {kind} '{name}'{did_you_mean(name, known)}"


# ---- written answers ----------------------------------------------------------------------------

def _markdown_answer(path: Path, text: str, concepts: Concepts) -> Answer:
    file = str(path)
    meta, body_start = _front_matter(path, text)
    if "case" not in meta:
        raise RegimeError("a written answer starts with front matter naming its case "
                          "(---, case: ..., student: ..., ---)", file=file, line=1, field="case")
    a = Answer(file, "markdown", str(meta["case"]),
               None if meta.get("student") is None else str(meta["student"]))
    sections = _sections(text, body_start, concepts, a)
    if not sections:
        raise RegimeError("no template heading found (## Regime, ## Evidence, ## Fixes, ## Reject, "
                          "## Ask)", file=file, line=body_start + 1)
    for name, items in sections.items():
        for line, item in items:
            for number in unreadable_numbers(item):
                raise RegimeError(f"'{number}' is not a finite number; write the figure as it is",
                                  file=file, line=line, field=name)
            a.said(concepts, _EMPHASIS.sub("", item), line)
            _read_item(a, concepts, name, line, item)
    return a


def outline(path: Path, concepts: Concepts, max_bytes: int) -> dict[str, Any]:
    """What the reader takes from a written answer: front matter and items per template section
    (the shape docs/grading/markdown-answer.schema.json describes)."""
    text = read_text(path, max_bytes)
    meta, start = _front_matter(path, text)
    scratch = Answer(str(path), "markdown", "")
    sections = _sections(text, start, concepts, scratch)
    return {"front_matter": dict(meta),
            "sections": {k: [{"line": ln, "text": t} for ln, t in v] for k, v in sections.items()}}


_META = re.compile(r"^(?P<key>[A-Za-z_][A-Za-z0-9_]*)\s*:\s*(?P<value>.*?)\s*$")


def _front_matter(path: Path, text: str) -> tuple[dict, int]:
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


def _sections(text: str, start: int, concepts: Concepts, a: Answer) -> dict[str, list[tuple[int, str]]]:
    """Items (list entries or paragraphs) per template section, with their first line."""
    sections: dict[str, list[tuple[int, str]]] = {}
    current: list[tuple[int, str]] | None = None
    open_item = False
    for lineno, line in enumerate(text.splitlines()[start:], start + 1):
        head = _HEADING.match(line)
        if head:
            name = concepts.heading(_EMPHASIS.sub("", head["text"]))
            if name is None and not line.lstrip().startswith("# "):  # a title is not a section
                a.notes.append(f"line {lineno}: heading '{head['text'][:60]}' is not one of the template's; "
                               "its text was not read")
            current = sections.setdefault(name, []) if name else None
            open_item = False
            continue
        if current is None:
            continue
        item = _ITEM.match(line)
        if item:
            current.append((lineno, item["text"]))
            open_item = True
        elif not line.strip():
            open_item = False
        elif open_item and current:
            current[-1] = (current[-1][0], current[-1][1] + " " + line.strip())
        else:
            current.append((lineno, line.strip()))
            open_item = True
    return sections


def _read_item(a: Answer, concepts: Concepts, section: str, line: int, item: str) -> None:
    text = _EMPHASIS.sub("", item)
    parts = clauses(text)
    if section == "regime":
        for clause in parts:
            for m in concepts.find("regime", clause):
                if m.negated:
                    continue
                if concepts.is_nominal(clause):
                    a.nominal_regime = a.nominal_regime or m.concepts[0]
                else:
                    a.regime = a.regime or m.concepts[0]
    elif section == "ask":
        for clause in parts:
            for m in concepts.find("fact", clause):
                if not m.negated and m.concepts[0] not in a.asks:
                    a.asks.append(m.concepts[0])
    elif section in ("fixes", "reject"):
        named = [_levers_and_claims(a, concepts, section, line, sentence, clauses(sentence))
                 for sentence in _SENTENCE.split(text)]   # each sentence of a paragraph has its own subject
        if not any(named) and concepts.words(text):
            _unmatched(a, concepts, section, line, text)
    if section in ("regime", "evidence"):
        for clause in parts:
            for m in concepts.find("claim", clause):
                if not m.negated:
                    a.endorsed.extend(c for c in m.concepts if c not in a.endorsed)


def _levers_and_claims(a: Answer, concepts: Concepts, section: str, line: int, text: str,
                       parts: list[str]) -> bool:
    """Under Fixes every lever named without negation is a fix, in the order written ("CUDA
    graphs, then torch.compile" gives both), and negated ones are rejections. Under Reject the
    first clause naming something gives the rejections. A claim is rejected only as the subject
    of a Reject item; named anywhere else it is endorsed. Says whether anything was named."""
    subject_done = named = False
    for clause in parts:
        found = concepts.find("claim", clause) or concepts.find("lever", clause, text)
        for m in found:
            mention = Mention(m.concepts, m.phrase, line, m.kind)
            if m.kind == "claim":
                if section == "reject" and not subject_done:
                    a.rejects.append(mention)
                elif not m.negated:
                    a.endorsed.extend(c for c in m.concepts if c not in a.endorsed)
            elif section == "reject":
                if not subject_done:
                    a.rejects.append(mention)
            elif m.negated:
                a.rejects.append(mention)
            else:
                a.fixes.append(mention)
        subject_done = subject_done or bool(found)
        named = named or bool(found)
    return named


def _unmatched(a: Answer, concepts: Concepts, section: str, line: int, text: str) -> None:
    """An item naming no lever by any alias: read by meaning when its distinctive words point
    clearly to one lever (and said so), else quoted back with the closest guess."""
    shown = text if len(text) <= 60 else text[:57].rstrip() + "…"
    part = "fixes" if section == "fixes" else "rejections"
    meant = concepts.guess("lever", text)
    if meant is not None:
        mention = Mention((meant,), shown, line)
        if section == "reject" or concepts.negates(text):
            a.rejects.append(mention)
        else:
            a.fixes.append(mention)
        a.unread.append((part, f"line {line}: I read '{shown}' as {meant}, the lever closest in meaning; "
                               "name it to be sure"))
        return
    guess = concepts.closest("lever", text)
    hint = f"; did you mean {guess}?" if guess else "; name it as the exercise does (its id or a usual name)"
    a.unread.append((part, f"line {line}: I could not tell which lever '{shown}' means{hint}"))

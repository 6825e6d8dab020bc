"""Structured answers (YAML): a strict schema, every name resolved to a concept of the
exercise, every problem a RegimeError naming the file, line and field. An unreadable lever or
claim is flagged against its part of the answer; the rest is still graded.
"""

from __future__ import annotations

import difflib
import math
import re
from dataclasses import replace
from pathlib import Path
from typing import Any

from pydantic import BaseModel, ConfigDict, StrictFloat, StrictInt, StrictStr

from regime.core.errors import RegimeError, did_you_mean
from regime.core.yamlsrc import LineDict, line_of, load_yaml, validated
from regime.engine.grading.answer import Answer, Mention, Said
from regime.engine.grading.concepts import Concepts
from regime.engine.grading.figures import quantities, quantity, unreadable_numbers
from regime.engine.grading.scopes import cued, hedged, postpones


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


def read_structured(path: Path, text: str, concepts: Concepts) -> Answer:
    file = str(path)
    raw = load_yaml(path, text=text, answer=True)
    if not isinstance(raw, dict):
        raise RegimeError("a structured answer is a mapping with at least 'case' and 'regime'", file=file)
    stated = _stated_figures(raw)
    unknown = _unknown_keys(raw)
    m = validated(AnswerModel, raw, file)
    a = Answer(file, "yaml", m.case, None if m.student is None else str(m.student))
    for part, text in unknown:   # a misspelled key may hold a part's answer: the reviewer looks
        a.unread.append((part, text)) if part else a.notes.append(text)
    for line, text in stated:
        a.said(concepts, text, line)
    a.regime = _flagged(a, "regime", _one, concepts, "regime", m.regime, raw, "regime", file)
    if m.nominal_regime is not None:
        a.nominal_regime = _flagged(a, "regime", _one, concepts, "regime", m.nominal_regime, raw,
                                    "nominal_regime", file)
    for i, body in enumerate(m.evidence):
        e = _flagged(a, "evidence", _item, EvidenceModel, body, raw, "evidence", i, file, a, concepts)
        if e is None:
            continue
        where: dict[str, Any] = dict(file=file, line=_line(raw, "evidence", body),
                                     field=f"evidence[{i}].value")
        try:
            q = quantity(e.value, e.unit)
        except ValueError as err:   # '{value: 450, unit: kernels}' (sealed125 e.s1272) costs that item
            finite = isinstance(e.value, int | float) and e.unit and math.isfinite(e.value)
            written = e.value if isinstance(e.value, str) else f"{e.value} {e.unit}" if finite else None
            if written is not None and not unreadable_numbers(written):
                _figures_in_text(a, concepts, e.figure, written, where["line"] or 0, err)
                continue   # (a non-finite figure is refused)
            raise RegimeError(str(err), **where) from None
        if q.value < 0 or not math.isfinite(q.value):
            raise RegimeError(f"{q.written} is negative; figures here are magnitudes", **where)
        about = f"{e.figure} {a.asides.get(where['line'] or 0, '')}"   # '{figure: transient_memory,
        #   value: 40 GB, note: attention scores, N^2 per head}' says what the 40 GB is (sealed320 c.s3225)
        a.numbers.append(Said(q, tuple(concepts.words(about)), where["line"] or 0))
        a.named.setdefault(e.figure, (q, where["line"] or 0))
        if isinstance(e.value, str) and len(quantities(e.value)) > 1:   # "32 x 25000^2 x 2 B = 40 GB":
            a.said(concepts, e.value, where["line"] or 0, e.figure)      # the derivation's operands too
    for i, body in enumerate(m.fixes):
        f = _flagged(a, "fixes", _item, FixModel, {"lever": body} if isinstance(body, str) else body,
                     raw, "fixes", i, file, a, concepts)
        if f is None:
            continue
        mention = _flagged(a, "fixes", _mention, concepts, "lever", f.lever, raw, f"fixes[{i}].lever",
                           body, file)
        if mention:
            said = f"{f.bound or ''} {f.reason}".strip()
            t = concepts.context
            later = t is not None and postpones(concepts.words(said), t)
            unsure = t is not None and hedged(concepts.words(said), t)
            target = a.deferred if later else a.hedged if unsure else a.fixes
            target.append(replace(mention, reason=said, later=later))
        a.said(concepts, f"{f.bound or ''} {f.reason}", _line(raw, "fixes", body) or 0, f.lever)
    for i, body in enumerate(m.reject):
        r = _flagged(a, "rejections", _item, RejectModel, _named(concepts, body), raw, "reject", i, file, a,
                     concepts)
        if r is None:
            continue
        if (r.lever is None) == (r.claim is None):   # '{note: int4 also has to be dequantized ...}'
            #   among the rejections (sealed529 d.s5315, instructor 80): that item, not the answer
            a.unread.append(("rejections", f"line {_line(raw, 'reject', body)}: I could not read this: "
                             "a rejection names exactly one of 'lever' or 'claim'"))
            continue
        kind = "lever" if r.lever is not None else "claim"
        mention = _flagged(a, "rejections", _mention, concepts, kind, r.lever or r.claim or "", raw,
                           f"reject[{i}].{kind}", body, file)
        if mention:
            a.rejects.append(replace(mention, reason=r.reason))
        a.said(concepts, r.reason, _line(raw, "reject", body) or 0, r.lever or r.claim or "")
    for name, said in m.verdicts.items():
        _verdict(a, concepts, name, said, line_of(raw.get("verdicts"), name) or 0)
    for i, body in enumerate(m.ask):
        q = _item(AskModel, {"fact": body} if isinstance(body, str) else body, raw, "ask", i, file)
        asked = _flagged(a, "asks", _one, concepts, "fact", q.fact, raw, f"ask[{i}].fact", file)
        if asked:
            a.asks.append(asked)
    return a


def _stated_figures(raw: dict) -> list[tuple[int, str]]:
    """The figures of top-level keys the format does not have, as `key: value` text: "mfu: 0.61"
    states the FLOP rate an instructor credits (sealed161 b.s1634), though no lever or verdict
    in such a key is graded."""
    return [(line_of(raw, k) or 0, f"{k}{' ' + sub if sub else ''}: {v}")
            for k, value in list(raw.items())[:_MAX_UNKNOWN * 4] if k not in AnswerModel.model_fields
            for sub, v in _scalars(value) if len(str(v)) <= _MAX_STATED]


def _scalars(value: object) -> list[tuple[str, object]]:
    """A key's text, or the texts of a mapping under it: "int4_note: {dequant: ..., capacity:
    frees about 51 GB}" states the memory int4 would free (sealed408 d.s4102, instructor 93)."""
    if isinstance(value, dict):
        return [(str(k), v) for k, v in list(value.items())[:_MAX_UNKNOWN * 4] if _scalar(v)]
    return [("", value)] if _scalar(value) else []


def _scalar(v: object) -> bool:
    return isinstance(v, (str, int, float)) and not isinstance(v, bool)


def _unknown_keys(raw: dict) -> list[tuple[str, str]]:
    """Top-level keys the answer format does not have ("notes: int4 still worth benchmarking for
    capacity ...", sealed98 d.s1001): each is named in the feedback and left out, and the rest of
    the answer is graded, as one bad item costs only that item (it refused the whole answer). One
    close to a key of the format ('rejects') is also that part's unread item, for review."""
    out = []
    unknown = [k for k in raw if k not in AnswerModel.model_fields]
    for key in unknown[:_MAX_UNKNOWN]:
        near = difflib.get_close_matches(str(key), _PART_OF, n=1, cutoff=0.75)
        hint = did_you_mean(str(key), AnswerModel.model_fields)
        where = f"line {line_of(raw, key)}"
        scalar = bool(_scalars(raw[key]))
        read = "only its figures were read" if scalar else "it was not graded"
        out.append((_PART_OF[near[0]] if near else "",
                    f"{where}: '{key}' is not one of the answer's keys{hint}; {read}"))
    if len(unknown) > _MAX_UNKNOWN:   # a hostile answer's 20,000 keys cost one line, not 20,000
        out.append(("", f"... and {len(unknown) - _MAX_UNKNOWN:,} more keys the format does not have"))
    for key in unknown:
        del raw[key]
    return out


_MAX_UNKNOWN = 5
_JOINT = re.compile(r"\s+(?:and|vs\.?|versus)\s+|\s*[,/&;]\s*")   # names, or values, in one entry
#   ('{figure: flop_util vs bw_util, value: 71% vs 30%}', sealed315 d.s3175, instructor 100)
_MAX_STATED = 400   # characters of an unknown key's text read for figures


_PART_OF = {"regime": "regime", "nominal_regime": "regime", "evidence": "evidence", "fixes": "fixes",
            "verdicts": "fixes", "reject": "rejections", "ask": "asks"}


def _figures_in_text(a: Answer, concepts: Concepts, figure: str, value: str, line: int,
                     err: ValueError) -> None:
    """An evidence value that is not one figure: text stating several, or one with a unit, is read
    as prose is (worked arithmetic ending in a size per layer, or "ITL is healthy" with its
    milliseconds: sealed90 c.s926); text stating none, or a bare number in words ("N bananas"),
    costs that item only."""
    found = quantities(value)
    names, values = _JOINT.split(figure), _JOINT.split(value)
    if len(found) > 1 and len(names) == len(values) == len(found):   # '{figure: bw_util and
        for name, q in zip(names, found, strict=True):                # flop_util, value: 14% and 3%}'
            a.numbers.append(Said(q, tuple(concepts.words(name)), line))   # (sealed290 e.s2922): as
            a.named.setdefault(name.strip(), (q, line))                     # two entries
    elif len(found) > 1 or any(q.unit for q in found):
        a.said(concepts, value, line, label=figure)
    else:
        a.unread.append(("evidence", f"line {line}: I could not read this figure: {err}"))


def _verdict(a: Answer, concepts: Concepts, name: str, said: str, line: int) -> None:
    """One entry of `verdicts:`, in the student's words ("adopt", "defer", "not yet"): read by
    context.yaml's `verdict_words`; a word none of them holds, or a name no concept has, costs
    that verdict only."""
    verdict = _verdict_word(concepts, said)
    if verdict is None:
        a.unread.append(("fixes", f"line {line}: I could not read this verdict: '{said}' "
                                  f"(write one of {', '.join(VERDICTS)})"))
        return
    kind = "lever" if concepts.resolve("lever", name) else "claim"
    found = concepts.resolve(kind, name)
    if len(found) != 1:
        why = _unknown_text("lever or claim", name, concepts, found)
        a.unread.append(("fixes", f"line {line}: I could not read this verdict: {why}"))
        return
    if verdict in VERDICTS:
        a.verdicts[found[0]] = verdict
    else:   # a later step or a hedge, as the same words make a fix's bound one; a later step is the
        #     student's verdict on a lever the fixes list too ("fixes: ... {lever: quantize_int8, when: same,
        #     after graphs and compile}" and "verdicts: {quantize_int8: defer}", sealed290 e.s2922)
        mention = Mention(found, name, line, kind, reason=said, later=verdict == "deferred")
        if mention.later:
            a.fixes = [m for m in a.fixes if not set(m.concepts) & set(found)]
        (a.deferred if mention.later else a.hedged).append(mention)


def _verdict_word(concepts: Concepts, said: str) -> str | None:
    if said.strip().lower() in VERDICTS:
        return said.strip().lower()
    t = concepts.context
    words = concepts.words(said)
    return next((v for v, cues in (t.verdict_words if t is not None else ()) if cued(words, cues)), None)


def _named(concepts: Concepts, body: Any) -> Any:
    """A rejection written as a bare name, as a fix may be: a claim when it names one, else a lever."""
    if not isinstance(body, str):
        return body
    return {"claim": body} if concepts.resolve("claim", body) and not concepts.resolve("lever", body) \
        else {"lever": body}


def _flagged(a: Answer, part: str, read: Any, *args: Any) -> Any:
    """One item's reading; an unreadable name is flagged against its part, never the whole answer."""
    try:
        return read(*args)
    except RegimeError as err:
        a.unread.append((part, f"line {err.line}: I could not read this: {err.message}" if err.line
                         else f"I could not read this: {err.message}"))
        return None


def _item(model: type[_Strict], body: Any, raw: dict, key: str, i: int, file: str,
          a: Answer | None = None, concepts: Concepts | None = None):
    line = _line(raw, key, body)
    if not isinstance(body, dict):
        raise RegimeError(f"each entry of '{key}' is a mapping", file=file, line=line, field=f"{key}[{i}]")
    body, joined = _rejoined(model, body)
    if joined and a is not None:
        a.notes.append(f"line {line}: a comma in '{joined}' split it into YAML keys; I read it as one "
                       "text (quote text that holds commas)")
    if a is not None and concepts is not None:
        body = _asides(model, body, a, concepts, line or 0)
    return validated(model, body, file, line=line, prefix=f"{key}[{i}]")


def _asides(model: type[_Strict], body: dict, a: Answer, concepts: Concepts, line: int) -> dict:
    """Keys the format does not have, holding text or a number (`note: "32 heads x ..."`, `why:
    ...`), are the student's commentary on the entry: read as its reason where it has one, and
    for the figures they state; the entry itself counts (sealed6 c.s83 was refused whole)."""
    fields = model.model_fields
    extra = {k: v for k, v in body.items() if k not in fields and isinstance(k, str)
             and isinstance(v, str | int | float) and not isinstance(v, bool)}
    if not extra:
        return body
    kept = {k: v for k, v in body.items() if k not in extra}
    text = " ".join(str(v) for v in extra.values())
    if "reason" in fields:
        kept["reason"] = f"{kept.get('reason') or ''} {text}".strip()
    a.said(concepts, text, line, str(kept.get("figure") or kept.get("lever") or ""))
    if "figure" in fields:
        a.asides[line] = text
    a.notes.append(f"line {line}: {', '.join(extra)}: not a key of the answer format; I read it as "
                   "commentary on its entry")
    return kept


_THOUSANDS = re.compile(r".*\d\|\d{3}(?!\d)")   # a digit before the comma, a group of three after


def _rejoined(model: type[_Strict], body: dict) -> tuple[dict, str]:
    """`{lever: x, reason: past the ridge, only adds latency}` is a flow mapping whose free text
    held a comma: YAML reads 'only adds latency' as a key with no value. Such keys (not the
    model's, with no value) are joined back onto the text before them, a field's or an aside's,
    as the student meant; anything else unknown is still refused."""
    fields = model.model_fields
    out: dict = {}
    last: str | None = None
    joined = ""
    for k, v in body.items():
        if k not in fields and v is None and isinstance(k, str | int | float) and last is not None:
            sep = "," if _THOUSANDS.match(f"{out[last]}|{k}") else ", "   # '32,768' split at its comma
            out[last] = f"{out[last]}{sep}{k}"
            joined = f"{last}: {out[last]}"
            continue
        if k == "reason" and isinstance(v, bool):   # 'reason: no, ...' is YAML's false
            v = "yes" if v else "no"
        out[k] = v
        last = k if isinstance(v, str) and isinstance(k, str) else None   # 'note: batch 256 in fp16,
        #   ridge 247' (sealed105 d.s1072): an aside's text (see _asides) takes its comma back too
    return out, joined


def _line(raw: dict, key: str, body: Any) -> int | None:
    return body.line if isinstance(body, LineDict) else line_of(raw, key)


def _one(concepts: Concepts, kind: str, name: str, raw: dict, fieldname: str, file: str) -> str:
    found = concepts.resolve(kind, name)
    if not found:   # 'regime: prefill compute-bound' (sealed64 c.s669): one alias, not negated, inside
        spaced = name.replace("_", " ")   # 'regime: X_bound, Y_bound': two regimes, no verdict
        inside = {c for m in concepts.find(kind, spaced) if not m.negated for c in m.concepts}
        named = {c for m in concepts.find(kind, spaced) for c in m.concepts}
        found = tuple(inside) if len(inside) == 1 == len(named) else ()
    if len(found) != 1:
        raise RegimeError(_unknown_text(kind, name, concepts, found), file=file,
                          line=line_of(raw, fieldname.split("[")[0]), field=fieldname)
    return found[0]


def _mention(concepts: Concepts, kind: str, name: str, raw: dict, fieldname: str, body: Any,
             file: str) -> Mention:
    found = concepts.resolve(kind, name)
    if not found:   # a longer name holding one alias: "memory-bound ops don't matter when compute-bound"
        inside = {c for m in concepts.find(kind, name) for c in m.concepts}
        found = tuple(inside) if len(inside) == 1 else ()
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

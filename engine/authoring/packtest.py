"""Pack tests: `<pack>.test.yaml` beside each pack says what a case must conclude.

An analyst who changes a pack wants to know, without pytest, that the cases it is meant for
still come out right and which rules no test exercises. Each test names a case (a built-in id,
a file, or facts written inline) and expectations; a failure shows expected against actual and
the why / why-not trace of the rules concerned.

The shape is Semgrep's and sqlfluff's: a key left out is not checked, while an empty list or
null says "exactly none" (`fixes: []` fails on a case with a fix). A non-empty list must be
present (fixes: in that priority order); `exact: true` compares whole lists instead. Every
expected name is checked against the loaded knowledge, so a typo is an error with a
did-you-mean, never a silent "got []".
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from pydantic import BaseModel, ConfigDict, Field, StrictFloat, StrictInt, StrictStr

from regime.core import units
from regime.core.errors import RegimeError, did_you_mean
from regime.core.yamlsrc import LineDict, load_yaml, validated
from regime.engine import api, explain
from regime.engine.knowledge.model import TEST_SUFFIX, Knowledge, Rule, layer_name
from regime.engine.knowledge.paths import RULES_DIR
from regime.engine.run.diagnosis import Diagnosis
from regime.engine.run.firing import NO_VERDICT
from regime.facts.case import CASE_KEYS, load_case

DEFAULT_TOLERANCE = "1%"
Scalar = StrictFloat | StrictInt | StrictStr


class _Strict(BaseModel):
    model_config = ConfigDict(extra="forbid")


class FigureModel(_Strict):
    value: Scalar
    tolerance: Scalar = DEFAULT_TOLERANCE  # '1%' of the value, or an amount: '5 tokens/s'


class ExpectModel(_Strict):
    """Absent keys are unchecked; `[]` or null means none at all (see the module docstring)."""

    regime: str | None = None             # null: no regime concluded
    nominal_regime: str | None = None
    fixes: list[str] | None = None        # levers in this priority order (others may come between)
    rejections: list[str] | None = None   # levers or claims that must be rejected
    findings: list[str] | None = None
    asks: list[str] | None = None
    exact: bool = False                   # the lists above are whole: nothing else, fixes in order
    fired: list[str] = []                 # rule ids that must fire
    not_fired: list[str] = []             # rule ids that must not fire
    figures: dict[str, Scalar | FigureModel] = {}
    because: dict[str, str | list[str]] = {}  # lever/claim/finding/ask/rule id -> text it must contain


class PackTestModel(_Strict):
    name: str
    case: str | None = None               # built-in case id or a file relative to the test file
    title: str | None = None
    hardware: str | dict[str, Any] | None = None
    model: str | dict[str, Any] | None = None
    facts: dict[str, Any] = {}
    proposals: list[str] = []
    claims: list[str] = []
    expect: ExpectModel = Field(default_factory=ExpectModel)


class TestFileModel(_Strict):
    tests: list[Any]


@dataclass
class Result:
    file: str
    line: int | None
    name: str
    failures: list[str] = field(default_factory=list)
    fired: set[str] = field(default_factory=set)

    @property
    def ok(self) -> bool:
        return not self.failures


def test_files(dirs: Iterable[Path]) -> list[Path]:
    out: list[Path] = []
    for d in dirs:
        if d.is_file():
            out.append(d)
        elif d.is_dir():
            out.extend(sorted(d.glob(f"*{TEST_SUFFIX}")))
        else:
            raise RegimeError("test directory does not exist", file=str(d))
    return out


def layers_for(dirs: list[Path]) -> list[Path]:
    """The knowledge layers a test run loads: each directory (or a test file's directory)."""
    out: list[Path] = []
    for d in dirs:
        layer = d.parent if d.is_file() else d
        if layer_name(layer) != "built-in" and layer not in out:
            out.append(layer)
    return out


def run_file(path: Path, k: Knowledge) -> Iterator[Result]:
    """Run every test of one file; a malformed test is a RegimeError (bad input, exit 2)."""
    for body, test in read_file(path):
        yield run_one(path, body, test, k)


def read_file(path: Path) -> list[tuple[LineDict, PackTestModel]]:
    """Each test of one file, validated in shape (names are checked against knowledge on run)."""
    raw = load_yaml(path)
    if not isinstance(raw, dict):
        raise RegimeError("a pack test file is a mapping with 'tests'", file=str(path))
    validated(TestFileModel, raw, str(path))
    out = []
    for body in raw["tests"]:
        line = getattr(body, "line", None)
        if not isinstance(body, LineDict):  # load_yaml reads every mapping as a LineDict
            raise RegimeError("each test is a mapping with 'name' and 'expect'", file=str(path), line=line)
        out.append((body, validated(PackTestModel, body, str(path), line=line, prefix="tests")))
    return out


def run_one(path: Path, body: LineDict, test: PackTestModel, k: Knowledge) -> Result:
    """One test's result; a bad name or case in it is a RegimeError located at the test."""
    try:
        return _run(path, body, test, k)
    except RegimeError as err:
        raise err.located(file=str(path), line=getattr(body, "line", None)) from None


def _run(path: Path, body: LineDict, test: PackTestModel, k: Knowledge) -> Result:
    check_names(test.expect, k)
    return judge(path, body, test, k, diagnose(path, body, test, k))


def judge(path: Path, body: LineDict, test: PackTestModel, k: Knowledge, d: Diagnosis) -> Result:
    """The test's result on a diagnosis of its case (tests sharing a case can share one)."""
    result = Result(str(path), getattr(body, "line", None), test.name)
    result.fired = {f.rule for f in d.trace}
    for what, expected, actual, subjects in checks(test.expect, d, k):
        if expected != actual:
            result.failures.append(f"{what}: expected {_show(expected)}, got {_show(actual)}")
            result.failures += [f"    {line}" for s in subjects for r in _rules(s, k)
                                for line in explain.explain(r, d, k)]
    return result


def diagnose(path: Path, body: LineDict, test: PackTestModel, k: Knowledge) -> Diagnosis:
    """The test's case: a named file or built-in id, with any inline parts laid over it."""
    case_path, raw = path, LineDict()
    raw.line, raw.key_lines = getattr(body, "line", 0), {}
    if test.case is not None:
        case_path = _case_path(path, test.case, body)
        base = load_yaml(case_path)
        if not isinstance(base, dict):
            raise RegimeError("a case file is a mapping with at least 'title' and 'facts'",
                              file=str(case_path), line=1)
        raw.update(base)
        raw.key_lines = dict(getattr(base, "key_lines", {}))
    for key in CASE_KEYS:
        if key in body and key != "facts":
            raw[key] = body[key]
            raw.key_lines[key] = body.line_of(key)
    if "facts" in body:
        facts = LineDict({**(raw.get("facts") or {}), **body["facts"]})
        facts.line = body.line_of("facts")
        facts.key_lines = {**getattr(raw.get("facts"), "key_lines", {}), **body["facts"].key_lines}
        raw["facts"] = facts
    raw.setdefault("title", test.name)
    raw.setdefault("id", _id(test.name))
    case = load_case(case_path, k.vocabulary, k.levers, k.claims, k.catalogue, raw=raw)
    return api.runner(k).diagnose(case)


def _case_path(path: Path, ref: str, body: LineDict) -> Path:
    if Path(ref).is_absolute():
        raise RegimeError(f"case '{ref}': name a built-in case id or a file relative to the test file",
                          file=str(path), line=body.line_of("case"), field="case")
    beside = path.parent / ref
    if beside.is_file():
        return beside
    try:
        return api.resolve_case(ref)
    except RegimeError as err:
        raise RegimeError(err.message, file=str(path), line=body.line_of("case"), field="case") from None


def _id(name: str) -> str:
    out = "".join(ch if ch.isalnum() else "_" for ch in name.lower()).strip("_")[:60]
    return out or "test"


def checks(e: ExpectModel, d: Diagnosis, k: Knowledge) -> Iterator[tuple[str, Any, Any, list[str]]]:
    """(what, expected, actual, subjects to explain on failure) for each expectation."""
    for fact in ("regime", "nominal_regime"):
        if fact in e.model_fields_set:
            yield fact, getattr(e, fact), d.fact_value(fact), [fact]
    for key, kind in VERDICTS.items():
        if key in e.model_fields_set:
            yield from _verdicts(key, getattr(e, key) or [], _concluded(d, kind), e.exact)
    fired = {f.rule for f in d.trace}
    for rid in e.fired:
        yield f"rule {rid} fires", True, rid in fired, [rid]
    for rid in e.not_fired:
        yield f"rule {rid} does not fire", False, rid in fired, [rid]
    for fact, spec in e.figures.items():
        yield from _figure(fact, spec, d, k)
    for subject, texts in e.because.items():
        said = [c.because for c in d.conclusions if subject in (c.id, c.rule, c.lever, c.claim)]
        said += [n for rec in d.facts.values() if subject in (rec.name, rec.rule) for n in rec.notes]
        for text in [texts] if isinstance(texts, str) else texts:
            if not any(text in s for s in said):
                yield (f"justification of {subject} contains {text!r}", text, said or "(no conclusion)",
                       [subject])


VERDICTS = {"fixes": "fix", "rejections": "reject", "findings": "finding", "asks": "ask"}


def _concluded(d: Diagnosis, kind: str) -> list[str]:
    return [c.lever or c.claim or c.id for c in d.of_kind(kind)]


def _verdicts(key: str, want: list[str], have: list[str], exact: bool):
    """Exactly none, the whole list (exact), fixes as an ordered subsequence, or presence."""
    if not want or exact:
        got = have if key == "fixes" else sorted(have)
        wanted = want if key == "fixes" else sorted(want)
        odd = [x for x in want if x not in have] + [x for x in have if x not in want]
        yield f"{key} (exactly)", wanted, got, odd or want
    elif key == "fixes":
        got = [x for x in have if x in want]
        yield "fixes (in priority order)", want, got, [x for x in want if x not in have] or want
    elif missing := [x for x in want if x not in have]:
        yield key, want, sorted(have), missing


def check_names(e: ExpectModel, k: Knowledge) -> None:
    """Every name a test expects exists in the loaded knowledge: a typo fails with did-you-mean."""
    known = known_names(k)
    named = {"regime": [e.regime], "nominal_regime": [e.nominal_regime], "fixes": e.fixes,
             "rejections": e.rejections, "findings": e.findings, "asks": e.asks, "fired": e.fired,
             "not_fired": e.not_fired, "figures": list(e.figures), "because": list(e.because)}
    for key, names in named.items():
        for name in names or []:
            if name is not None and name not in known[key]:
                raise RegimeError(f"no {NOUNS[key]} '{name}' in the loaded knowledge"
                                  f"{did_you_mean(name, known[key])}", field=f"expect.{key}")


NOUNS = {"regime": "regime value", "nominal_regime": "regime value", "fixes": "lever",
         "rejections": "lever or claim", "findings": "finding", "asks": "asked fact",
         "fired": "rule with the id", "not_fired": "rule with the id", "figures": "fact",
         "because": "rule, lever, claim, finding or fact"}


def known_names(k: Knowledge) -> dict[str, set[str]]:
    """The names each expectation may use, from the packs and vocabulary loaded."""
    by_kind: dict[str, set[str]] = {}
    for r in k.rules:
        by_kind.setdefault(r.kind, set()).add(r.subject or r.target or r.id)
    rules = {r.id for r in k.rules}
    facts = set(k.vocabulary.specs)
    regimes = set(k.vocabulary.get("regime").values)
    out = {"regime": regimes, "nominal_regime": regimes, "fixes": set(k.levers),
           "rejections": set(k.levers) | set(k.claims), "findings": {*k.findings, NO_VERDICT},
           "asks": by_kind.get("ask", set()), "fired": rules, "not_fired": rules, "figures": facts}
    out["because"] = rules | facts | regimes | set(k.levers) | set(k.claims) | out["findings"]
    return out


def _figure(fact: str, spec: Scalar | FigureModel, d: Diagnosis, k: Knowledge):
    fs = k.vocabulary.get(fact)
    fig = spec if isinstance(spec, FigureModel) else FigureModel(value=spec)
    try:
        want = units.parse_quantity(fig.value, fs.unit).value
        tol = _tolerance(fig.tolerance, want, fs.unit)
    except ValueError as err:
        raise RegimeError(f"figure {fact}: {err}", field=f"expect.figures.{fact}") from None
    got = d.fact_value(fact)
    shown = units.format_quantity(want, fs.unit, fs.display)
    if not isinstance(got, int | float) or math.fabs(got - want) > tol:
        actual = (units.format_quantity(got, fs.unit, fs.display) if isinstance(got, int | float)
                  else "unknown")
        if actual == shown:  # outside the tolerance though both round alike: never a pass
            shown, actual = f"{shown} ({want:.6g} {fs.unit})", f"{actual} ({got:.6g} {fs.unit})"
        yield (f"{fact} (± {units.format_quantity(tol, fs.unit, fs.display)})", shown, actual, [fact])


def _tolerance(text: Scalar, want: float, unit: str) -> float:
    if isinstance(text, str) and text.strip().endswith("%"):
        return abs(want) * units.parse_quantity(text, units.FRACTION).value
    return units.parse_quantity(text, unit).value


def _rules(subject: str, k: Knowledge) -> list[Rule]:
    try:
        return explain.rules_about(subject, k)
    except RegimeError:
        return []


def _show(x: Any) -> str:
    if isinstance(x, list):
        return "[" + ", ".join(str(i) for i in x) + "]"
    return str(x)


def coverage(results: list[Result], rules: list[Rule]) -> tuple[int, int, list[str]]:
    fired = set().union(*(r.fired for r in results)) if results else set()
    ids = [r.id for r in rules]
    return sum(1 for i in ids if i in fired), len(ids), [i for i in ids if i not in fired]


def default_dirs() -> list[Path]:
    return [RULES_DIR]

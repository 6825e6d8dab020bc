"""`regime exercise make`: one variant of a case per student, drawn within the ranges declared in
rules/grading/variants.yaml, each with its key computed by the engine.

Draws are deterministic: a student's variant depends only on the seed, the case and the
student id (not on roster order). A variant whose key has a consistency finding is drawn again;
after all students are drawn, the requested regimes must each appear, or students are redrawn
toward the missing ones; if the declared ranges cannot reach a regime, that is an error.
"""

from __future__ import annotations

import csv
import random
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import yaml
from pydantic import BaseModel, ConfigDict, Field

from regime.core import units
from regime.core.errors import RegimeError, did_you_mean
from regime.core.layered import layer_files, read_layers
from regime.core.names import file_id
from regime.core.yamlsrc import load_yaml, plain
from regime.engine.grading import variants as vfiles
from regime.engine.grading.grader import GRADING_DIR, Grader
from regime.engine.grading.key import Key

ID_COLUMNS = ("id", "student", "student_id", "sid", "login", "email", "username")


class _Strict(BaseModel):
    model_config = ConfigDict(extra="forbid")


class Span(_Strict):
    from_: str | float = Field(alias="from")
    to: str | float
    step: str | float


class Scaled(_Strict):
    of: str
    by: str | float | Span


class CaseDraws(_Strict):
    hardware: list[str] = []
    model: list[str] = []
    remove: list[str] = []
    choose: dict[str, list[Any]] = {}
    ranges: dict[str, Span] = {}
    scaled: dict[str, Scaled] = {}


class VariantSpec(_Strict):
    redraw_on: list[str] = []
    max_draws: int = Field(40, ge=1, le=1000)
    cases: dict[str, CaseDraws]


@dataclass
class Made:
    student: str
    case_path: Path
    key: Key
    draws: int
    text: str = ""


@dataclass
class Exercise:
    case: str
    seed: str
    made: list[Made] = field(default_factory=list)
    requested: list[str] = field(default_factory=list)

    def coverage(self) -> dict[str, int]:
        return dict(sorted(Counter(m.key.regime or "undetermined" for m in self.made).items()))

    def statement(self) -> str:
        cov = self.coverage()
        got = ", ".join(f"{r} ×{n}" for r, n in cov.items())
        want = ", ".join(self.requested)
        redrawn = sum(m.draws - 1 for m in self.made)
        return (f"{len(self.made)} variants of {self.case} (seed {self.seed}): regimes {got}. "
                f"Guarantee: every requested regime ({want}) appears at least once, and no variant's key "
                f"has a consistency finding ({redrawn} draws were redrawn).")


def load_spec(files: list[Path]) -> VariantSpec:
    """The built-in variant ranges with each layer merged over them (core/layered.py's rule: a
    layer's case merges into the built-in case key by key)."""
    return read_layers(VariantSpec, files, "variants")


def spec_files(layers: list[Path]) -> list[Path]:
    """Built-in variant ranges, then any layer's grading/variants*.yaml."""
    return [GRADING_DIR / "variants.yaml", *layer_files(layers, "grading", "variants")]


class Roster(list):
    """Student ids in roster order, with the column they were read from (said back to the user)."""

    column: str = ""


# Canvas gradebook exports: the student's own id is the SIS login (or SIS user id); Canvas's
# 'ID' column is its internal number, and a 'Points Possible' row sits under the header.
CANVAS_ID_COLUMNS = ("sis login id", "sis user id")
CANVAS_SKIP_ROWS = ("points possible", "test student", "student, test")


def read_roster(path: Path) -> Roster:
    """Student ids from a CSV roster (docs/grading.md, "Roster"): a Canvas export by its SIS
    columns, else the first column named like an id, else the first column of a headerless file."""
    try:
        text = path.read_text(encoding="utf-8-sig")
    except (OSError, UnicodeDecodeError) as err:
        raise RegimeError(f"cannot read roster: {err}", file=str(path)) from None
    rows = list(csv.reader(text.splitlines()))
    if not rows:
        raise RegimeError("roster is empty", file=str(path))
    header = [h.strip().lower() for h in rows[0]]
    canvas = next((c for c in CANVAS_ID_COLUMNS if c in header), None)
    name = canvas or next((c for c in ID_COLUMNS if c in header), None)
    col = header.index(name) if name else 0
    body = rows[1:] if name else rows
    roster = Roster()
    roster.column = rows[0][col].strip() if name else "the first column (no header)"
    seen: dict[str, int] = {}
    for lineno, row in enumerate(body, 2 if name else 1):
        if not row or col >= len(row) or not row[col].strip():
            continue
        if canvas and row[0].strip().lower() in CANVAS_SKIP_ROWS:
            continue
        sid = row[col].strip()
        if sid in seen:
            raise RegimeError(f"student '{sid}' is listed twice (first on line {seen[sid]})",
                              file=str(path), line=lineno)
        vfiles.safe_name(sid)
        seen[sid] = lineno
    if not seen:
        raise RegimeError(f"roster names no students in column '{roster.column}'", file=str(path))
    vfiles.check_folders(list(seen), str(path), list(seen.values()))
    roster.extend(seen)
    return roster


def make(grader: Grader, case_path: Path, students: list[str], seed: str, out: Path,
         cover: list[str] | None = None, spec_files: list[Path] | None = None) -> Exercise:
    spec = load_spec(spec_files or [GRADING_DIR / "variants.yaml"])
    base = load_yaml(case_path)
    case_id = (base.get("id") if isinstance(base, dict) else None) or file_id(case_path.stem)
    if case_id not in spec.cases:
        raise RegimeError(f"no variant ranges are declared for case '{case_id}'"
                          f"{did_you_mean(case_id, spec.cases)}", file=str(GRADING_DIR / "variants.yaml"))
    draws = spec.cases[case_id]
    base_key = grader.key_for_case(case_path)
    regimes = grader.k.vocabulary.get("regime").values
    requested = list(dict.fromkeys(cover or [base_key.regime or "undetermined"]))
    for r in requested:
        if r not in regimes:
            raise RegimeError(f"unknown regime '{r}'{did_you_mean(r, regimes)}", field="--cover")
    vfiles.check_folders(students)
    ex = Exercise(case_id, seed, requested=requested)
    out.mkdir(parents=True, exist_ok=True)
    for student in students:
        ex.made.append(_draw_until_clean(grader, spec, draws, base, case_id, student, seed, out))
    _ensure_coverage(grader, spec, draws, base, ex, out)
    for m in ex.made:  # drafts overwrote files while drawing: write what was kept
        m.case_path.write_text(m.text, encoding="utf-8")
        vfiles.write_key(vfiles.paths(out, m.student, case_id)[1], m.key, grader.knowledge_hash)
    _write_manifest(ex, out, grader)
    return ex


def _draw_until_clean(grader: Grader, spec: VariantSpec, draws: CaseDraws, base: dict, case_id: str,
                      student: str, seed: str, out: Path) -> Made:
    last = ""
    for attempt in range(spec.max_draws):
        made, last = _attempt(grader, spec, draws, base, case_id, student, seed, out, attempt)
        if made is not None:
            return made
    raise RegimeError(f"no clean variant of '{case_id}' for student '{student}' in {spec.max_draws} draws "
                      f"(last: {last}); widen the ranges in variants.yaml")


def _attempt(grader: Grader, spec: VariantSpec, draws: CaseDraws, base: dict, case_id: str, student: str,
             seed: str, out: Path, attempt: int) -> tuple[Made | None, str]:
    """One draw: the variant and its key, or None and why it was refused."""
    rng = random.Random(f"{seed}\0{case_id}\0{student}\0{attempt}")
    path = vfiles.paths(out, student, case_id)[0]
    try:
        key = _one_variant(grader, draws, base, rng, path,
                           f"{case_id} for {student}, seed {seed}, draw {attempt + 1}")
    except RegimeError as err:
        return None, str(err)
    findings = set(spec.redraw_on) & set(key.findings)
    if findings:
        return None, f"finding {sorted(findings)[0]}"
    return Made(student, path, key, attempt + 1, path.read_text(encoding="utf-8")), ""


def _ensure_coverage(grader: Grader, spec: VariantSpec, draws: CaseDraws, base: dict, ex: Exercise,
                     out: Path) -> None:
    """Redraw students toward each missing regime (students of an over-represented or unrequested
    regime, last first), within max_draws draws per missing regime."""
    for want in ex.requested:
        if want in ex.coverage():
            continue
        counts = ex.coverage()
        donors = [i for i in reversed(range(len(ex.made)))
                  if counts[ex.made[i].key.regime or "undetermined"] > 1
                  or ex.made[i].key.regime not in ex.requested]
        for n in range(spec.max_draws if donors else 0):
            i = donors[n % len(donors)]
            m = ex.made[i]
            made, _ = _attempt(grader, spec, draws, base, ex.case, m.student, ex.seed, out,
                               spec.max_draws + n)
            if made is not None and made.key.regime == want:
                ex.made[i] = made
                break
        else:
            raise RegimeError(f"the ranges declared for '{ex.case}' reach no {want} variant in "
                              f"{spec.max_draws} "
                              f"draws; widen them in variants.yaml or drop --cover {want}")


def _one_variant(grader: Grader, draws: CaseDraws, base: dict, rng: random.Random, path: Path,
                 label: str) -> Key:
    raw = plain(base)
    facts = raw.setdefault("facts", {})
    if draws.hardware:
        raw["hardware"] = rng.choice(draws.hardware)
    if draws.model:
        raw["model"] = rng.choice(draws.model)
    for name in draws.remove:
        facts.pop(name, None)
    for name, options in sorted(draws.choose.items()):
        pick = rng.choice(options)
        updates = pick if isinstance(pick, dict) else {name: pick}
        for name, value in updates.items():
            _set(facts, name, value)
    for name, span in sorted(draws.ranges.items()):
        _set(facts, name, _draw(span, rng))
    raw["title"] = f"{raw.get('title', '')} (variant)"
    raw.pop("summary", None)  # the original story names the original GPU and model
    for name in draws.scaled:
        facts.pop(name, None)
    if draws.scaled:
        values = _write_and_run(grader, raw, path, label)
        for name, sc in sorted(draws.scaled.items()):
            if sc.of not in values:
                raise RegimeError(f"variant gives no {sc.of} to scale {name} by")
            value = float(values[sc.of]) * _factor(sc.by, facts, rng, grader)
            spec = grader.k.vocabulary.get(name)
            facts[name] = _as_people_write(value, spec.unit, getattr(spec, "display", None) or spec.unit)
    return _write_and_key(grader, raw, path, label)


def _write_and_key(grader: Grader, raw: dict, path: Path, label: str) -> Key:
    _write(raw, path, label)
    grader._keys.pop(str(path), None)
    return grader.key_for_case(path)


def _write_and_run(grader: Grader, raw: dict, path: Path, label: str) -> dict[str, Any]:
    """The draft's facts after an engine run (the figures `scaled` multiplies)."""
    from regime.engine import api
    from regime.facts.case import load_case
    _write(raw, path, label)
    case = load_case(path, grader.k.vocabulary, grader.k.levers, grader.k.claims)
    return {n: r.value for n, r in api.runner(grader.k, engine="compiled").diagnose(case).facts.items()}


def _write(raw: dict, path: Path, label: str) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    text = f"# Variant of {label}. Drawn by `regime exercise make`; its key is the engine's diagnosis.\n"
    path.write_text(text + yaml.safe_dump(raw, sort_keys=False, allow_unicode=True), encoding="utf-8")


def _as_people_write(value: float, unit: str, display: str) -> str | float:
    """A drawn measurement as a profiler or a person reports it: in the display unit, rounded to
    what is worth reading ('62 tokens/s', '40 GB', '4.5 ms', '0.85 ms'), never '61.8064 token/s'."""
    if unit in (units.FRACTION, "1"):
        return _people_round(value)
    shown = value * units.factor(unit, display) if display != unit else value
    return f"{_people_round(shown):g} {display}"


def _people_round(x: float) -> float:
    """Whole numbers from 10 up (three significant digits from 1,000), two digits below."""
    if x == 0:
        return 0.0
    if abs(x) >= 1000:
        return float(f"{x:.3g}")
    if abs(x) >= 10:
        return float(round(x))
    return float(f"{x:.2g}")


def _factor(by: str | float | Span, facts: dict, rng: random.Random, grader: Grader) -> float:
    if isinstance(by, Span):
        return _number(_draw(by, rng), "1")
    if isinstance(by, int | float):
        return float(by)
    spec = grader.k.vocabulary.get(by)
    return _number(facts[by], spec.unit)


def _number(written: Any, unit: str) -> float:
    return units.parse_quantity(written, unit).value


def _draw(span: Span, rng: random.Random) -> str | float:
    """A value on the grid from..to by step, written in the unit of `from` (e.g. '63%', '4 ms')."""
    unit = _unit_of(span.from_)
    canonical = units.FRACTION if unit == "%" else unit
    lo_q, hi_q, step_q = (units.parse_quantity(x, canonical) for x in (span.from_, span.to, span.step))
    n = round((hi_q.value - lo_q.value) / step_q.value)
    value = lo_q.value + step_q.value * rng.randint(0, max(0, n))
    if unit == "%":
        return f"{value * 100:.6g}%"
    return f"{value:.6g} {unit}".strip() if unit != "1" else value


def _unit_of(x: str | float) -> str:
    if isinstance(x, int | float):
        return "1"
    text = str(x).strip()
    if text.endswith("%"):
        return "%"
    q = text.split(" ", 1)
    return q[1].strip() if len(q) == 2 else "1"


def _set(facts: dict, name: str, value: Any) -> None:
    group, _, member = name.partition(".")
    if member:
        facts.setdefault(group, {})[member] = value
    else:
        facts[name] = value


def _write_manifest(ex: Exercise, out: Path, grader: Grader) -> None:
    manifest = {"case": ex.case, "seed": ex.seed, "knowledge": grader.knowledge_hash,
                "requested_regimes": ex.requested, "coverage": ex.coverage(), "guarantee": ex.statement(),
                "students": {m.student: {"variant": m.case_path.relative_to(out).as_posix(),
                                         "regime": m.key.regime, "draws": m.draws} for m in ex.made}}
    (out / vfiles.KEYS).mkdir(parents=True, exist_ok=True)
    (out / vfiles.KEYS / f"{vfiles.safe_name(ex.case)}.manifest.yaml").write_text(
        yaml.safe_dump(manifest, sort_keys=True, allow_unicode=True), encoding="utf-8")

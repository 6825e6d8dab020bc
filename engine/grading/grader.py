"""Grade submissions: find each one's key (its case, or the student's variant of it), score it,
and turn any problem with the submission into a "not graded" result that says where."""

from __future__ import annotations

import hashlib
import json
from dataclasses import asdict, dataclass, field
from pathlib import Path

from regime import __version__
from regime.core import units
from regime.core.errors import RegimeError, did_you_mean, one_line
from regime.core.layered import layer_files
from regime.engine import api
from regime.engine.grading import reasons, review, second_reading
from regime.engine.grading import variants as variant_files
from regime.engine.grading.answer import Answer
from regime.engine.grading.borrowed import borrowed, exercise_cases
from regime.engine.grading.concepts import Concepts, load_concepts
from regime.engine.grading.figures import matches
from regime.engine.grading.key import Key, build_key
from regime.engine.grading.rubric import Rubric, load_rubric, rubric_files
from regime.engine.grading.score import Applied, Part, score
from regime.engine.grading.submission import read_answer
from regime.engine.grading.triggers import CONTEXT_FILE, load_triggers
from regime.engine.knowledge.model import Knowledge, pack_files
from regime.engine.knowledge.paths import CASES_DIR, RULES_DIR
from regime.engine.run.session import EngineFault
from regime.facts import catalogue
from regime.facts.case import load_case
from regime.facts.vocabulary import VOCABULARY_FILE

GRADING_DIR = RULES_DIR / "grading"


@dataclass
class Result:
    """One submission's grade, or why it could not be graded. Deterministic: no times, no paths
    beyond the one given, and the fingerprint of everything that decided it."""

    submission: str
    graded: bool
    student: str | None = None
    case: str | None = None
    format: str | None = None
    score: float = 0.0
    max_score: float = 0.0
    parts: list[Part] = field(default_factory=list)
    penalties: list[Applied] = field(default_factory=list)
    wrong_levers: list[str] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)
    errors: list[str] = field(default_factory=list)
    error_at: list[dict] = field(default_factory=list)     # each error's file, line, field, message
    variant: str | None = None
    fingerprint: str = ""
    needs_review: bool = False
    review: list[str] = field(default_factory=list)        # the sentences it could not read surely
    readings: list[dict] = field(default_factory=list)     # line, status, confidence, sentence

    def to_dict(self) -> dict:
        return asdict(self)

    def refuse(self, err: RegimeError | str) -> None:
        """Record why this submission is not graded: its `error:` line and where, as data."""
        if not isinstance(err, RegimeError):
            err = RegimeError(err, file=self.submission)
        self.errors.append(str(err.located(file=self.submission)))  # one line, counting the rest
        self.error_at += [{"file": e.file, "line": e.line, "field": e.field, "message": one_line(e.message)}
                          for e in err.all()]


class Grader:
    """Knowledge, rubric and alias index loaded once; keys computed once per case or variant."""

    def __init__(self, rules: list[Path] | None = None, cases_dir: Path | None = None) -> None:
        layers = list(rules or [])
        self.k: Knowledge = api.knowledge(layers)
        files = rubric_files(GRADING_DIR / "rubric.yaml", layers)
        self.rubric: Rubric = load_rubric(files)
        concept_files = [GRADING_DIR / "concepts.yaml", *layer_files(layers, "grading", "concepts")]
        self.concepts: Concepts = load_concepts(self.k, concept_files)
        context_files = [GRADING_DIR / CONTEXT_FILE, *layer_files(layers, "grading", "context")]
        self.concepts.context = load_triggers(context_files[-1], self.concepts)
        concept_files += context_files
        self.concepts.reasons = reasons.build_index(
            self.concepts, [r.because.text for r in self.k.rules], self.rubric.reasons)
        self.cases_dir = cases_dir or CASES_DIR
        exercise_files = [GRADING_DIR / "variants.yaml", *layer_files(layers, "grading", "variants")]
        second_files = [GRADING_DIR / second_reading.FILE, *layer_files(layers, "grading", "second_reading")]
        self.second = second_reading.load(second_files)   # per exercise: an independent reading
        self.exercise = exercise_cases(exercise_files)   # whose figures another case's answer may borrow
        self.knowledge_hash = _digest([__version__.encode(), *_read_all(
            [*pack_files([RULES_DIR, *layers]), *_catalogue_files()])])
        self.fingerprint = _digest([self.knowledge_hash.encode(),
                                    *_read_all([*files, *concept_files, *exercise_files, *second_files])])
        self._keys: dict[str, Key] = {}
        self._cases: dict[str, Path] | None = None
        units.registry()  # load pint once here, so forked workers share it

    # ---- keys ------------------------------------------------------------------------------------

    def key_for_case(self, path: Path, text: str | RegimeError | None = None) -> Key:
        """Run the case through the engine (once) and reduce the diagnosis to its key. The compiled
        evaluator gives byte-identical diagnoses to durable's (tests/test_differential.py), faster.
        `text`: the case file's text (or why it could not be read), read elsewhere."""
        cached = self._keys.get(str(path))
        if cached is None:
            if isinstance(text, RegimeError):
                raise text
            case = load_case(path, self.k.vocabulary, self.k.levers, self.k.claims, text=text)
            try:
                d = api.runner(self.k, engine="compiled").diagnose(case)
            except EngineFault as err:
                raise RegimeError(f"engine fault while computing the key (please report): {err}",
                                  file=str(path)) from None
            cached = self._keys[str(path)] = build_key(d, self.k)
        return cached

    def portable(self) -> Grader:
        """This grader with every built-in case's key computed, so a worker that cannot see the
        cases folder grades with it (pickled to each `--scheduler` worker). Returns self."""
        for path in self._case_paths().values():
            try:
                self.key_for_case(path)
            except RegimeError:
                continue  # graded as it would be here: the worker meets the same error
        return self

    def key(self, answer: Answer, variants: Path | variant_files.Copied | None) -> tuple[Key, str | None]:
        if variants is None:
            return self.key_for_case(self._case_path(answer)), None
        if not answer.student:
            raise RegimeError("with --variants, an answer names its student", file=answer.path,
                              field="student")
        case_path, key_path = variant_files.paths(variants, answer.student, answer.case)
        if not variant_files.has_case(variants, case_path):
            raise RegimeError(f"no variant of case '{answer.case}' for student '{answer.student}' "
                              f"in {variants}",
                              file=answer.path, field="case")
        stored = variant_files.stored_key(key_path, self.knowledge_hash, variants)
        return (stored or self.key_for_case(case_path, variant_files.case_text(variants, case_path))), \
            str(case_path)

    def _exercise_keys(self) -> dict[str, Key]:
        """The keys of the exercise's cases (variants.yaml `cases`) the cases folder holds, for
        telling another case's figures: none when the rubric does not charge them."""
        if self.rubric.borrowed.points <= 0:
            return {}
        known = self._case_paths()
        out = {}
        for case in self.exercise:
            if case in known:
                try:
                    out[case] = self.key_for_case(known[case])
                except RegimeError:
                    continue   # graded as it would be: that case's own answers meet the error
        return out

    def _case_paths(self) -> dict[str, Path]:
        if self._cases is None:   # listed once per grader, not once per submission
            self._cases = {p.stem: p for p in self.cases_dir.glob("*.yaml")}
        return self._cases

    def _case_path(self, answer: Answer) -> Path:
        known = self._case_paths()
        if answer.case not in known:
            raise RegimeError(f"unknown case '{answer.case}'{did_you_mean(answer.case, known)}",
                              file=answer.path, field="case")
        return known[answer.case]

    def second_reading(self, answer: Answer, variants: object = None) -> tuple[float, float | None] | None:
        """The share the second reading gives the answer and, with a gap model, how far it expects
        the instructor's share from the grader's; None for an exercise it was not fitted to, and
        for a student's variant (it may land in another regime: not what it read)."""
        reader = self.second.get(answer.case) if variants is None else None
        return reader.read(answer.text) if reader is not None else None

    # ---- grading ---------------------------------------------------------------------------------

    def grade(self, submission: Path, variants: Path | variant_files.Copied | None = None,
              text: str | RegimeError | None = None) -> Result:
        """Grade one submission; never raises for a bad submission. Anything unexpected while
        reading or scoring one submission makes that one "not graded" and the batch goes on.
        `text`: the submission's text (or why it could not be read), read elsewhere."""
        result = Result(str(submission), graded=False, max_score=self.rubric.total,
                        fingerprint=self.fingerprint)
        try:
            self._grade_into(result, Path(submission), variants, text)
        except RegimeError as err:
            result.refuse(err)
        except RecursionError:
            result.refuse("answer nested too deeply")
        except Exception as err:  # one submission must never stop a class
            result.refuse(f"internal error while grading (please report): {type(err).__name__}: {err}")
        if result.errors:
            result.graded, result.parts, result.penalties, result.score = False, [], [], 0.0
        return result

    def _grade_into(self, result: Result, submission: Path, variants: Path | variant_files.Copied | None,
                    text: str | RegimeError | None) -> None:
        answer = read_answer(submission, self.concepts, self.rubric.limits.max_bytes, text)
        result.student, result.case, result.format = answer.student, answer.case, answer.format
        key, result.variant = self.key(answer, variants)
        foreign = _looks_like_another_variant(answer, key)
        others = {} if variants is not None else self._exercise_keys()
        took = borrowed(answer, key, others, self.rubric.borrowed.by_name)
        s = score(answer, key, self.rubric, self.concepts, foreign, took)
        result.graded = True
        result.score, result.max_score = s.score, s.max_score
        result.parts, result.penalties, result.wrong_levers = s.parts, s.penalties, s.wrong_levers
        result.notes = list(answer.notes)
        if self.concepts.context is not None:
            full = frozenset(p.part for p in s.parts if p.points >= p.max_points)
            share = s.score / s.max_score if s.max_score else 0.0
            rs = review.readings(answer, self.concepts.context, s.reasons, s.unsure, foreign, full, share)
            result.readings = [asdict(x) for x in rs]
            result.review = review.decide(rs, self.concepts.context, share, s.parts, len(s.penalties), answer,
                                          self.second_reading(answer, variants))
            result.needs_review = bool(result.review)
        if variants is None and foreign:
            result.notes.insert(0, VARIANT_WARNING.format(case=key.case, student=answer.student or "?"))


VARIANT_WARNING = ("WARNING: few of this answer's figures match case {case} as written: is it an answer to "
                   "student {student}'s own variant? It was graded against the base case; grade it with "
                   "--variants DIR (the folder `regime exercise make` wrote)")
_WARN_MIN_NUMBERS = 5      # numbers with units an answer states before the check says anything
_WARN_MATCH_SHARE = 0.34   # below this share of them matching any key figure, warn


def _looks_like_another_variant(answer: Answer, key: Key) -> bool:
    """An answer whose numbers (with units) mostly match none of the key's figures was very
    likely written on someone's variant of the case."""
    stated = [s.q for s in answer.numbers if s.q.unit]
    if len(stated) < _WARN_MIN_NUMBERS:
        return False
    hits = sum(1 for q in stated if any(matches(q, f.value, f.unit, 0.02) for f in key.figures.values()))
    return hits / len(stated) < _WARN_MATCH_SHARE


def _catalogue_files() -> list[Path]:
    return [VOCABULARY_FILE, *sorted(catalogue.CATALOGUE_DIR.glob("*.yaml"))]


def _read_all(paths: list[Path]) -> list[bytes]:
    return [p.name.encode() + b"\0" + p.read_bytes() for p in paths if p.is_file()]


def _digest(parts: list[bytes]) -> str:
    h = hashlib.sha256()
    for p in parts:
        h.update(hashlib.sha256(p).digest())
    return h.hexdigest()[:16]


def result_json(results: list[Result]) -> str:
    return json.dumps([r.to_dict() for r in results], indent=2, sort_keys=True, ensure_ascii=False) + "\n"

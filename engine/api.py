"""The entry points the CLI, tests and benchmarks share: load knowledge, diagnose cases."""

from __future__ import annotations

import os
from collections.abc import Iterable, Sequence
from pathlib import Path
from typing import TYPE_CHECKING

from regime.core.errors import RegimeError, did_you_mean
from regime.core.record import Fields, mutable_record
from regime.engine.knowledge import cache as knowledge_cache
from regime.engine.knowledge.model import Knowledge, layer_name, pack_files
from regime.engine.knowledge.paths import CASES_DIR, RULES_DIR
from regime.engine.run import essentials, session
from regime.engine.run.diagnosis import Diagnosis
from regime.engine.run.session import Runner
from regime.facts.case import load_case
from regime.facts.catalogue import CATALOGUE_DIR
from regime.facts.vocabulary import VOCABULARY_FILE, load_vocabulary

if TYPE_CHECKING:  # the compiled evaluator is imported when it is asked for
    from regime.engine.run.compiled import CompiledRunner


@mutable_record
class Outcome(Fields):
    """One case of a batch: its diagnosis, or the error that stopped it."""

    path: Path
    diagnosis: Diagnosis | None = None
    error: RegimeError | None = None


ENV_LAYERS = "REGIME_RULES"


def env_layers() -> list[Path]:
    """Layers named by REGIME_RULES, a path list like PATH (os.pathsep between entries)."""
    return [Path(p) for p in os.environ.get(ENV_LAYERS, "").split(os.pathsep) if p.strip()]


def knowledge(extra_rules: Sequence[Path] = ()) -> Knowledge:
    """Built-in packs, then the REGIME_RULES layers, then `extra_rules` (--rules), in order;
    from the knowledge cache when nothing it depends on has changed."""
    dirs = [RULES_DIR, *env_layers(), *extra_rules]
    inputs = [*pack_files(dirs), VOCABULARY_FILE, *sorted(CATALOGUE_DIR.glob("*.yaml"))]
    return knowledge_cache.load_or_build(inputs, lambda: _load(dirs),
                                         salt="\0".join(layer_name(d) for d in dirs))


def _load(dirs: list[Path]) -> Knowledge:
    from regime.engine.knowledge.load import load_knowledge  # its pydantic schemas: only when compiling

    k = load_knowledge(load_vocabulary(), dirs)
    for rule in k.rules:  # what each rule reads, worked out now so the cache keeps it
        rule.reads()
    session.prepare(k)
    return k


ENGINES = ("durable", "compiled")


def runner(k: Knowledge, engine: str = "durable") -> Runner | CompiledRunner:
    """The evaluator for this knowledge, built once per knowledge set and engine and dropped
    with it (a durable ruleset is then deleted from durable). `durable` is the engine of
    record; `compiled` gives byte-identical diagnoses faster (tests/test_differential.py).
    Raises RegimeError if durable refuses a rule."""
    if engine not in ENGINES:
        raise ValueError(f"engine must be one of {', '.join(ENGINES)}, not {engine!r}")
    built = k.evaluators.get(engine)
    if built is None:
        if engine == "durable":
            built = Runner(k)
        else:
            from regime.engine.run.compiled import CompiledRunner
            built = CompiledRunner(k)
        k.evaluators[engine] = built
    return built


def diagnose_all(paths: Iterable[Path], k: Knowledge, engine: str = "durable") -> list[Outcome]:
    """Diagnose each case; a broken case is reported and the rest still run."""
    return [outcome(Path(path), k, engine) for path in paths]


def outcome(path: Path, k: Knowledge, engine: str = "durable", text: str | None = None) -> Outcome:
    """One case's diagnosis, or the located error that stopped it (never an exception). `text`:
    the case file's text, read where `path` was (a cluster worker gets content, not paths)."""
    run = runner(k, engine)
    try:
        case = load_case(resolve_case(path) if text is None else path, k.vocabulary, k.levers, k.claims,
                         k.catalogue, text=text)
        diagnosis = run.diagnose(case)
        refused = essentials.refusal(diagnosis)
        if refused is not None:
            raise refused
        return Outcome(path, diagnosis=diagnosis)
    except RegimeError as err:
        return Outcome(path, error=err.located(file=str(path)))
    except Exception as err:  # EngineFault or another bug: one case's bug must not cost the others
        return Outcome(path, error=RegimeError(f"engine fault (please report): {err!r}", file=str(path)))


def resolve_case(path: Path | str) -> Path:
    """A case file, or a built-in case named by its id (the file's stem) when no such file exists.
    A missing file whose name is a built-in case's says that the bare name works from anywhere."""
    path = Path(path)
    if path.exists():
        return path
    named = CASES_DIR / f"{path.stem}.yaml"
    if path.suffix or len(path.parts) > 1:
        hint = (f" (a built-in case is named without a path: '{path.stem}' works from anywhere)"
                if named.is_file() else "")
        raise RegimeError(f"no such file{hint}", file=str(path))
    if named.exists():
        return named
    ids = [p.stem for p in CASES_DIR.glob("*.yaml")]
    raise RegimeError(f"no case file '{path}' and no built-in case with that id"
                      f"{did_you_mean(path.name, ids)}", file=str(path))


def diagnose(path: Path, k: Knowledge | None = None, engine: str = "durable") -> Diagnosis:
    """Diagnose one case file; raises RegimeError on bad input."""
    outcome = diagnose_all([path], k or knowledge(), engine)[0]
    if outcome.error is not None:
        raise outcome.error
    # mypy cannot see it: an outcome without an error has a diagnosis
    return outcome.diagnosis  # type: ignore[return-value]

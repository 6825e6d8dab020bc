"""`regime init MODEL GPU`: a commented case to fill in, the fastest way to a first diagnosis.

The text is data (case_template.yaml); the names come from the catalogues and the values a
category takes from the vocabulary, so the file stays right when either changes.
"""

from __future__ import annotations

import sys
from collections.abc import Callable
from pathlib import Path
from string import Template
from typing import Annotated

import typer

from regime.core.errors import RegimeError
from regime.core.names import file_id
from regime.engine.cli import core
from regime.engine.cli.options import exit_with

TEMPLATE = Path(__file__).with_name("case_template.yaml")


def init(
    model: Annotated[str, typer.Argument(help="A model from `regime list models` (name or alias).",
                                         metavar="MODEL")],
    gpu: Annotated[str, typer.Argument(help="A GPU from `regime list hardware` (name or alias).",
                                       metavar="GPU")],
    phase: Annotated[str | None, typer.Option("--phase", help="What one forward pass does: a value of "
                                              "the fact phase (regime list facts); default: the first.",
                                              metavar="PHASE", show_default=False)] = None,
    out: Annotated[Path | None, typer.Option("--out", "-o", help="The case file to write (one file; "
                                             "'-' for stdout). Default: MODEL_GPU_PHASE.yaml here; "
                                             "an existing file is never overwritten.",
                                             metavar="FILE")] = None,
) -> None:
    """Write a commented case for MODEL on GPU to fill in, then `regime diagnose` it."""
    try:
        text, name = case_text(model, gpu, phase)
        target = out or Path(f"{name}.yaml")
        if str(target) == "-":
            sys.stdout.write(text)
            return
        if target.exists():
            raise RegimeError("exists; choose another name with -o, or remove it", file=str(target))
        target.write_text(text.replace("$file", str(target)), encoding="utf-8")
    except (RegimeError, OSError) as err:
        exit_with(core.refuse(err if isinstance(err, RegimeError) else RegimeError(
            err.strerror or str(err), file=str(err.filename or ""))))
        return
    sys.stderr.write(f"wrote {target}: fill it in, then `regime diagnose {target}`\n")


def case_text(model: str, gpu: str, phase: str | None) -> tuple[str, str]:
    """The case text and the id its names give. Raises RegimeError for an unknown name."""
    from regime.core.errors import did_you_mean
    from regime.engine import api
    from regime.facts import catalogue
    k = api.knowledge()
    model_key, model_entry = _found(catalogue.lookup, "models", model, k.catalogue, "MODEL")
    gpu_key, gpu_entry = _found(catalogue.lookup, "hardware", gpu, k.catalogue, "GPU")
    specs = k.vocabulary.specs
    phases = list(specs["phase"].values)
    phase = phase or phases[0]
    if phase not in phases:
        raise RegimeError(f"'{phase}' is not one of {', '.join(phases)}{did_you_mean(phase, phases)}",
                          field="--phase")
    body = Template(TEMPLATE.read_text(encoding="utf-8")).safe_substitute(
        model=model_key, model_name=model_entry.get("name", model_key), hardware=gpu_key,
        hardware_name=gpu_entry.get("name", gpu_key), phase=phase, phases=", ".join(phases),
        weight_dtypes=", ".join(specs["weight_dtype"].values),
        compute_dtypes=", ".join(specs["compute_dtype"].values))
    return body, file_id(f"{model_key}_{gpu_key}_{phase}")


def _found(lookup: Callable[..., tuple[str, dict]], kind: str, name: str, extra: dict,
           field: str) -> tuple[str, dict]:
    try:
        return lookup(kind, name, {n: e for n, (e, _) in extra.get(kind, {}).items()})
    except RegimeError as err:
        raise err.located(field=field) from None

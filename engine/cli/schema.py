"""`regime schema NAME`: the JSON Schema of a pack, layer, case, pack test, vocabulary, catalogue
or the JSON envelope.

The schemas are pydantic models; they are imported when the command runs (or completes a
name), not when the app starts."""

from __future__ import annotations

import sys
from typing import Annotated

import typer

from regime.core.errors import RegimeError, did_you_mean
from regime.engine.cli import core
from regime.engine.cli.options import exit_with


def _names(incomplete: str = "") -> list[str]:
    from regime.engine.authoring import schema as schemas
    return [n for n in schemas.MODELS if n.startswith(incomplete)]


def schema(name: Annotated[str, typer.Argument(
        metavar="NAME", help="Which format: pack, layer, case, test, vocabulary, catalogue or envelope "
             "(what --format json writes).",
        autocompletion=_names)]) -> None:
    """Print a JSON Schema (editors: '# yaml-language-server: $schema=schemas/NAME.schema.json')."""
    from regime.engine.authoring import schema as schemas
    if name not in schemas.MODELS:
        exit_with(core.refuse(RegimeError(f"no schema '{name}'{did_you_mean(name, schemas.MODELS)}",
                                          field="NAME")))
        return
    sys.stdout.write(schemas.text(name))

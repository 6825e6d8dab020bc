"""`regime schema NAME`: the JSON Schema of a pack, layer, case, pack test, vocabulary or catalogue."""

from __future__ import annotations

import sys
from enum import StrEnum
from typing import Annotated

import typer
from regime.engine import schema as schemas

Name = StrEnum("Name", {n: n for n in schemas.MODELS})  # type: ignore[misc]


def schema(name: Annotated[Name, typer.Argument(help="Which file format.")]) -> None:  # type: ignore[valid-type]
    """Print a JSON Schema (editors: '# yaml-language-server: $schema=schemas/NAME.schema.json')."""
    sys.stdout.write(schemas.text(name.value))

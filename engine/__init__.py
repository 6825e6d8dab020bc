"""Regime engine: loads YAML knowledge, validates facts, runs durable-rules sessions.

Sub-packages follow its seams: `lang` (the rule language), `knowledge` (packs read, checked,
compiled, cached), `run` (running a case), `report` (what people read), `authoring` (lint, pack
tests, schemas), `trace` and `grading` (what they measure and grade), `cli` (every command).
The layers are an import-linter contract in pyproject.toml.
"""

if __name__ != "regime.engine":  # the folder seen from the checkout's root: one name per module
    raise ImportError(f"import regime.engine, not {__name__} (regime/engine links this folder)")

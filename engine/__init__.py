"""Regime engine: loads YAML knowledge, validates facts, runs durable-rules sessions.

Sub-packages follow its seams: `lang` (the rule language), `run` (running a case), `trace`
and `grading` (commands of their own). Layers, lowest first: core <- facts <- engine.lang <-
engine (knowledge, packs) <- engine.run <- reports and the CLI; tests/test_layering.py holds them.
"""

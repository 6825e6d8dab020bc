"""Running the knowledge on a case: the firing logic both evaluators share, and the evaluators.

`firing` decides what a rule's firing does (derived fact, conclusion, trace entry) and whether
a run reached its fixpoint; `session` drives it from durable-rules (the engine of record,
through `durable_bridge`), `compiled` from plain Python in the same order. `settle` applies the
YAML-driven verdict folding after a run, and `diagnosis` holds what a run concludes.
"""

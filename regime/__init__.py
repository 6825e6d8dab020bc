"""Regime: a rule-based expert system for GPU ML workload performance regimes.

Everything lives under this one namespace. In the repository the sub-packages keep their own
top-level folders (core/, facts/, engine/, rules/, cases/, vendor/durable/); pyproject.toml maps
them here, so an installed wheel holds nothing but `regime`.

`regime.grade(...)` grades exercise answers (see regime.engine.grading); it is imported on
first use, so `import regime` stays cheap.
"""

from typing import Any

__version__ = "0.2.0"  # the only place the version is written: pyproject.toml reads it from here


def __getattr__(name: str) -> Any:
    if name == "grade":
        from regime.engine.grading import grade
        return grade
    raise AttributeError(f"module 'regime' has no attribute {name!r}")

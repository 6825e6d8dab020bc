"""Builds the vendored durable-rules C engine as regime.durable.durable_rules_engine.

Metadata lives in pyproject.toml; only the extension needs code. See vendor/durable/PATCHES.md.
"""

from setuptools import Extension, setup

_C = "vendor/durable/csrc"
setup(
    ext_modules=[
        Extension(
            "regime.durable.durable_rules_engine",
            sources=[f"{_C}/rulespy/rules.c",
                     *(f"{_C}/rules/{n}.c" for n in ("json", "rete", "state", "events", "regex"))],
            include_dirs=[f"{_C}/rules"],
            extra_compile_args=["-std=c99", "-D_GNU_SOURCE", "-w"],
        )
    ]
)

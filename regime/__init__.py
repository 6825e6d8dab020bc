"""Regime: a rule-based expert system for GPU ML workload performance regimes.

Everything lives under this one namespace. In the repository the sub-packages keep their own
top-level folders (core/, facts/, engine/, rules/, cases/, vendor/durable/); pyproject.toml maps
them here, so an installed wheel holds nothing but `regime`.
"""

__version__ = "0.2.0"

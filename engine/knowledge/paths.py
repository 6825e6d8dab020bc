"""Where the built-in knowledge lives, in a checkout and in an installed wheel alike."""

from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]  # the checkout, or site-packages/regime
RULES_DIR = ROOT / "rules"
CASES_DIR = ROOT / "cases"


def builtin_cases() -> list[Path]:
    return sorted(CASES_DIR.glob("*.yaml"))

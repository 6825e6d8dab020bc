"""Where the built-in knowledge lives, in a checkout and in an installed wheel alike."""

from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
RULES_DIR = ROOT / "rules"
CASES_DIR = ROOT / "cases"


def builtin_cases() -> list[Path]:
    return sorted(CASES_DIR.glob("*.yaml"))

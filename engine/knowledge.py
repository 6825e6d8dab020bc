"""What the packs compile to: parameters, levers, claims, rules and the Knowledge holding them.

Kept apart from the pack loader (packs.py) so that running cases, rendering reports and
reading the knowledge cache never build the loader's pydantic schemas.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path

from regime.core.errors import RegimeError
from regime.engine import expr
from regime.engine.template import Template
from regime.facts.vocabulary import Vocabulary


@dataclass(frozen=True)
class Parameter:
    name: str
    meaning: str
    source: str
    pack: str
    unit: str = "1"
    display: str | None = None
    value: float | None = None
    table: dict[str, float] | None = None
    items: tuple[str, ...] | None = None


@dataclass(frozen=True)
class Lever:
    id: str
    meaning: str
    attacks: tuple[str, ...]
    aliases: tuple[str, ...]


@dataclass(frozen=True)
class Claim:
    id: str
    text: str
    aliases: tuple[str, ...]


@dataclass(frozen=True)
class Rule:
    id: str
    kind: str
    pack: str
    file: str
    line: int
    description: str
    because: Template
    refs: tuple[str, ...]
    when: expr.Expression | None
    formula: expr.Expression | None = None
    target: str | None = None       # fact set by derive/diagnose
    value: str | None = None        # diagnose: the category value it sets
    copy_from: str | None = None    # diagnose: or the category fact whose value it copies
    subject: str | None = None      # finding id, lever, claim or asked fact
    priority: int | None = None
    order: int | None = None
    bound: tuple[str, ...] = ()

    def required(self) -> list[str]:
        """Fields that must be present before the conclusion can be computed."""
        needed = self.formula.required() if self.formula else []
        return [*needed, self.copy_from] if self.copy_from else needed

    def reads(self) -> list[str]:
        """Working-memory fields this rule's condition and formula read."""
        seen: dict[str, None] = {}
        for e in (self.when, self.formula):
            if e is not None:
                for f in e.facts():
                    seen.setdefault(f, None)
        if self.copy_from:
            seen.setdefault(self.copy_from, None)
        return list(seen)


@dataclass
class Knowledge:
    vocabulary: Vocabulary
    parameters: dict[str, Parameter] = field(default_factory=dict)
    levers: dict[str, Lever] = field(default_factory=dict)
    claims: dict[str, Claim] = field(default_factory=dict)
    rules: list[Rule] = field(default_factory=list)
    packs: list[str] = field(default_factory=list)
    resources: dict[str, str] = field(default_factory=dict)
    where: dict[str, tuple[str, int | None]] = field(default_factory=dict)  # "lever:id" -> file, line

    def scalar_values(self) -> dict[str, float]:
        return {n: p.value for n, p in self.parameters.items() if p.value is not None}


def pack_files(dirs: Iterable[Path]) -> list[Path]:
    """The pack files of each directory (sorted) or file, in the order given."""
    files: list[Path] = []
    for d in dirs:
        if d.is_file():
            files.append(d)
        elif d.is_dir():
            files.extend(sorted(p for p in d.iterdir() if p.suffix in (".yaml", ".yml")))
        else:
            raise RegimeError("rules directory does not exist", file=str(d))
    return files

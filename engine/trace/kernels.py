"""Kernel categories from name patterns kept in YAML (facts/kernels.yaml plus --rules layers)."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from regime.facts.kernels import LAYER_NAME, KernelRule, read_kernels, read_layer

CACHE_LIMIT = 200_000  # distinct kernel names remembered; past it, names are matched afresh


@dataclass(frozen=True)
class _Rule:
    category: str
    contains: tuple[str, ...]
    prefix: tuple[str, ...]
    cat: frozenset[str]


class Classifier:
    """First matching rule wins; layers' rules are tried before the built-in ones."""

    def __init__(self, categories: dict[str, str], rules: list[_Rule]) -> None:
        self.categories = categories
        self.names = list(categories)
        self.rules = rules
        self.other = self.names.index("other")
        self._cache: dict[tuple[str, str], int] = {}

    def index(self, name: str, cat: str) -> int:
        """Category index of a kernel name (with its Kineto cat), cached per distinct name."""
        key = (name, cat)
        hit = self._cache.get(key)
        if hit is not None:
            return hit
        low = name.lower()
        found = self.other
        for rule in self.rules:
            if (cat in rule.cat or low.startswith(rule.prefix)
                    or any(s in low for s in rule.contains)):
                found = self.names.index(rule.category)
                break
        if len(self._cache) < CACHE_LIMIT:
            self._cache[key] = found
        return found


def load_classifier(layers: list[Path] | tuple[Path, ...] = ()) -> Classifier:
    """Built-in categories and rules, with each layer's `kernels.yaml` rules tried first
    (facts/kernels.py reads and validates each file)."""
    built = read_kernels()
    rules = [_rule(r) for r in built.rules]
    for layer in layers:
        path = layer / LAYER_NAME if layer.is_dir() else layer
        if path.name == LAYER_NAME and path.is_file():
            rules = [_rule(r) for r in read_layer(path, built.categories)] + rules
    return Classifier(dict(built.categories), rules)


def _rule(m: KernelRule) -> _Rule:
    return _Rule(m.category, tuple(s.lower() for s in m.contains), tuple(s.lower() for s in m.prefix),
                 frozenset(c.lower() for c in m.cat))

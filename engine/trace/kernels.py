"""Kernel categories from name patterns kept in YAML (facts/kernels.yaml plus --rules layers)."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from pydantic import BaseModel, ConfigDict

from regime import facts as _facts
from regime.core.errors import RegimeError, did_you_mean
from regime.core.yamlsrc import line_of, load_yaml, validated

KERNELS_FILE = Path(_facts.__file__).with_name("kernels.yaml")
LAYER_NAME = "kernels.yaml"
CACHE_LIMIT = 200_000  # distinct kernel names remembered; past it, names are matched afresh


class _RuleModel(BaseModel):
    model_config = ConfigDict(extra="forbid")
    category: str
    contains: list[str] = []
    prefix: list[str] = []
    cat: list[str] = []
    source: str


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
    """Built-in categories and rules, with each layer's `kernels.yaml` rules tried first."""
    categories, rules = _read(KERNELS_FILE, None)
    for layer in layers:
        path = layer / LAYER_NAME if layer.is_dir() else layer
        if path.name == LAYER_NAME and path.is_file():
            _, extra = _read(path, categories)
            rules = extra + rules
    return Classifier(categories, rules)


def _read(path: Path, known: dict[str, str] | None) -> tuple[dict[str, str], list[_Rule]]:
    file = str(path)
    doc = load_yaml(path)
    if not isinstance(doc, dict) or not isinstance(doc.get("rules"), list):
        raise RegimeError("a kernels file has a 'rules' list (and, built in, 'categories')", file=file)
    categories = known if known is not None else doc.get("categories")
    if not isinstance(categories, dict) or "other" not in categories:
        raise RegimeError("'categories' must map names to meanings and include 'other'", file=file,
                          field="categories")
    rules = []
    for i, body in enumerate(doc["rules"]):
        where = f"rules[{i}]"
        if not isinstance(body, dict):
            raise RegimeError("a rule is a mapping", file=file, field=where)
        m = validated(_RuleModel, body, file, line=getattr(body, "line", None), prefix=where)
        if m.category not in categories:
            raise RegimeError(f"unknown category '{m.category}'{did_you_mean(m.category, categories)}",
                              file=file, line=line_of(body, "category"), field=f"{where}.category")
        if not (m.contains or m.prefix or m.cat):
            raise RegimeError("a rule needs at least one of contains, prefix, cat", file=file,
                              line=getattr(body, "line", None), field=where)
        rules.append(_Rule(m.category, tuple(s.lower() for s in m.contains),
                           tuple(s.lower() for s in m.prefix), frozenset(c.lower() for c in m.cat)))
    return dict(categories), rules

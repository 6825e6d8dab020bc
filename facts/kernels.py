"""The shape of facts/kernels.yaml (kernel categories for `regime trace`) and of a `--rules DIR`
layer's kernels.yaml, each file validated and blamed at its FILE:LINE.

A layer holds only `rules`, tried before the built-in ones (the first matching rule wins, so a
site's narrower patterns come first): rule order is matching precedence, not a setting to merge,
and so kernel layers are the one layered file not merged by core/layered.py's rule.
"""

from __future__ import annotations

from pathlib import Path

from pydantic import BaseModel, ConfigDict, ValidationInfo, field_validator, model_validator

from regime.core.errors import did_you_mean
from regime.core.yamlsrc import expect_mapping, load_yaml, validated

KERNELS_FILE = Path(__file__).with_name("kernels.yaml")
TABLE_FILE = Path(__file__).with_name("kernels.test.yaml")
LAYER_NAME = "kernels.yaml"


class _Strict(BaseModel):
    model_config = ConfigDict(extra="forbid")


class KernelRule(_Strict):
    category: str
    contains: list[str] = []
    prefix: list[str] = []
    cat: list[str] = []
    source: str

    @field_validator("category")
    @classmethod
    def _known(cls, name: str, info: ValidationInfo) -> str:
        known = (info.context or {}).get("categories")
        if known is not None and name not in known:
            raise ValueError(f"unknown category '{name}'{did_you_mean(name, known)}")
        return name

    @model_validator(mode="after")
    def _pattern(self) -> KernelRule:
        if not (self.contains or self.prefix or self.cat):
            raise ValueError("a rule needs at least one of contains, prefix, cat")
        return self


class KernelsLayer(_Strict):
    rules: list[KernelRule]


class KernelsFile(KernelsLayer):
    categories: dict[str, str]
    # The packs' list parameters that sort categories by the work they do (FLOP-carrying,
    # memory-bound); `regime check` (RG014) holds that each category is in one of them, or is
    # listed here under `unclassified` with the reason it is in neither.
    classified_by: list[str] = []
    unclassified: dict[str, str] = {}

    @field_validator("categories")
    @classmethod
    def _other(cls, value: dict[str, str]) -> dict[str, str]:
        if "other" not in value:
            raise ValueError("categories include 'other' (what no rule matches)")
        return value


def read_kernels(path: Path = KERNELS_FILE) -> KernelsFile:
    """The built-in kernels file: categories, their rules, how the packs classify them."""
    doc = expect_mapping(load_yaml(path), str(path), "a kernels file is a mapping")
    categories = doc.get("categories")
    context = {"categories": list(categories)} if isinstance(categories, dict) else None
    return validated(KernelsFile, doc, str(path), context=context)


def read_layer(path: Path, categories: dict[str, str]) -> list[KernelRule]:
    """A layer's rules, each naming a built-in category."""
    doc = expect_mapping(load_yaml(path), str(path), "a kernels layer is a mapping with 'rules'")
    return validated(KernelsLayer, doc, str(path), context={"categories": list(categories)}).rules

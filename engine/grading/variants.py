"""Per-student variants of a case: where they live and how their stored keys are trusted.

A variants directory keeps what is handed out apart from what is not: DIR/handout/<student>/
<case>.yaml (the variant, an ordinary case file: copy DIR/handout/<student>/ to that student)
and DIR/keys/<student>/<case>.key.json (its key, computed by the engine when the variant was
made, with the hash of the knowledge that computed it), beside DIR/keys/<case>.manifest.yaml.
A key whose hash differs from the loaded knowledge is ignored and recomputed from the variant.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from pathlib import Path

from regime.core.errors import RegimeError
from regime.core.yamlsrc import read_source
from regime.engine.grading.key import Key

_SAFE = re.compile(r"[^A-Za-z0-9_.@+-]")


def safe_name(name: str) -> str:
    """A student id as a directory name: no separators, no leading dots, bounded."""
    cleaned = _SAFE.sub("_", name.strip())[:64].lstrip(".")
    if not cleaned:
        raise RegimeError(f"student id '{name[:40]}' has no usable characters")
    return cleaned


def check_folders(students: list[str], file: str | None = None, lines: list[int] | None = None) -> None:
    """Refuse two ids that would share one folder: the same safe_name() as a case-insensitive file
    system compares names ('müller@'/'möller@', 'a/b'/'a_b', '.alice'/'alice', 'Bob'/'bob'), so no
    student's variant overwrites another's. `lines`: where each id was read, for the message."""
    seen: dict[str, int] = {}
    for i, sid in enumerate(students):
        key = safe_name(sid).casefold()
        j = seen.setdefault(key, i)
        if j != i:
            where = f" (line {lines[j]})" if lines else ""
            raise RegimeError(f"student '{sid}' would share the folder '{safe_name(sid)}' with "
                              f"'{students[j]}'{where}; ids must differ in their first 64 ASCII "
                              "letters, digits and _ . @ + -",
                              file=file, line=lines[i] if lines else None)


HANDOUT, KEYS = "handout", "keys"


def paths(root: Path | Copied, student: str, case: str) -> tuple[Path, Path]:
    """The student's hand-out (variant case file) and the key kept back from them."""
    root = root.root if isinstance(root, Copied) else root
    who, stem = safe_name(student), safe_name(case)
    return Path(root) / HANDOUT / who / f"{stem}.yaml", Path(root) / KEYS / who / f"{stem}.key.json"


@dataclass(frozen=True)
class Copied:
    """A variants folder as content, for a grader on a cluster worker that cannot see it: each
    hand-out's text (or why it cannot be read) and each key's text, by the path the folder's
    own name gives it, so grades and errors name the same files."""

    root: Path
    cases: dict[str, str | RegimeError]
    keys: dict[str, str]

    @classmethod
    def of(cls, root: Path) -> Copied:
        cases: dict[str, str | RegimeError] = {}
        keys: dict[str, str] = {}
        for p in sorted((Path(root) / HANDOUT).glob("*/*.yaml")):
            try:
                cases[str(p)] = read_source(p)
            except RegimeError as err:
                cases[str(p)] = err
        for p in sorted((Path(root) / KEYS).glob("*/*.key.json")):
            try:
                keys[str(p)] = p.read_text(encoding="utf-8")
            except (OSError, ValueError):
                continue
        return cls(Path(root), cases, keys)

    def __str__(self) -> str:
        return str(self.root)


def case_text(variants: Path | Copied, path: Path) -> str | RegimeError | None:
    """A hand-out's text when the folder was copied (None: read it from `path`)."""
    return variants.cases.get(str(path)) if isinstance(variants, Copied) else None


def has_case(variants: Path | Copied, path: Path) -> bool:
    return str(path) in variants.cases if isinstance(variants, Copied) else path.is_file()


def stored_key(path: Path, knowledge_hash: str, variants: Path | Copied | None = None) -> Key | None:
    """The key stored with a variant, if it was computed by this knowledge."""
    try:
        text = (variants.keys.get(str(path)) if isinstance(variants, Copied)
                else path.read_text(encoding="utf-8"))
        if text is None:
            return None
        raw = json.loads(text)
    except (OSError, ValueError):
        return None
    if not isinstance(raw, dict) or raw.get("knowledge") != knowledge_hash:
        return None
    try:
        return Key.from_dict(raw["key"])
    except (KeyError, TypeError):
        return None


def write_key(path: Path, key: Key, knowledge_hash: str) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    payload = {"knowledge": knowledge_hash, "key": key.to_dict()}
    path.write_text(json.dumps(payload, sort_keys=True, ensure_ascii=False, separators=(",", ":")) + "\n",
                    encoding="utf-8")

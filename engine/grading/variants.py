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
from pathlib import Path

from regime.core.errors import RegimeError
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


def paths(root: Path, student: str, case: str) -> tuple[Path, Path]:
    """The student's hand-out (variant case file) and the key kept back from them."""
    who, stem = safe_name(student), safe_name(case)
    return Path(root) / HANDOUT / who / f"{stem}.yaml", Path(root) / KEYS / who / f"{stem}.key.json"


def stored_key(path: Path, knowledge_hash: str) -> Key | None:
    """The key stored with a variant, if it was computed by this knowledge."""
    try:
        raw = json.loads(path.read_text(encoding="utf-8"))
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

"""A submission read as the answer shape: YAML by the structured reader, Markdown (or plain
text) by the written one, chosen by the file's suffix."""

from __future__ import annotations

from pathlib import Path

from regime.core.errors import RegimeError
from regime.engine.grading.answer import MARKDOWN_SUFFIXES, YAML_SUFFIXES, Answer, read_text
from regime.engine.grading.concepts import Concepts
from regime.engine.grading.layout import argument
from regime.engine.grading.structured import read_structured
from regime.engine.grading.written import read_written


def read_answer(path: Path, concepts: Concepts, max_bytes: int, text: str | RegimeError | None = None
                ) -> Answer:
    """`text`: the file's text as read_text gave it elsewhere (or the error it raised)."""
    if isinstance(text, RegimeError):
        raise text
    if text is None:
        text = read_text(path, max_bytes)
    if path.suffix.lower() in YAML_SUFFIXES:
        a = read_structured(path, text, concepts)
        a.text = " ".join(m.reason for m in [*a.fixes, *a.rejects, *a.deferred])   # its free text
    elif path.suffix.lower() in MARKDOWN_SUFFIXES:
        a = read_written(path, text, concepts)
        a.text = argument(path, text, concepts)
    else:
        raise RegimeError(f"unknown answer format '{path.suffix}': use .yaml for a structured answer or .md "
                      "for one written against the template", file=str(path))
    return _committed(a, concepts)


def _committed(a: Answer, concepts: Concepts) -> Answer:
    """Listing is not committing, in any format: an answer whose fixes name as many levers as
    the context file's `commit.max_fixes`, or more items than that counting those it could not
    read ('fusion': one more in the list), recommends none of them (a keyword list earns nothing
    for them), though a trap it lists is still one it offers (reading.py). A lever it also
    refuses is not listed."""
    limit = concepts.context.max_fixes if concepts.context is not None else None
    rejected = {c for m in a.rejects for c in m.concepts}   # named again to refuse: not listed
    levers = {c for m in a.fixes for c in m.concepts} - rejected
    unread = sum(1 for part, _ in a.unread if part == "fixes")   # 'fusion': listed, if unreadable
    if limit is not None and (len(levers) >= limit or len(levers) + unread > limit):
        a.statuses.append((a.fixes[0].line, "listed", ", ".join(m.written for m in a.fixes)))
        a.stuffed, a.fixes = a.fixes, []
    return a

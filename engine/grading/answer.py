"""One shape for every student answer, structured (YAML) or written (Markdown against the
template's headings): what it names, the numbers it gives and where, and what could not be
read. Submissions are untrusted: read_text checks size, encoding and binary content before
either reader (structured.py, written.py; submission.py picks one) sees a byte.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from pathlib import Path

from regime.core.errors import RegimeError
from regime.engine.grading.concepts import Concepts
from regime.engine.grading.figures import Quantity, quantities

YAML_SUFFIXES = (".yaml", ".yml")
MARKDOWN_SUFFIXES = (".md", ".markdown", ".txt")
# A sentence ends at . ! ? ; (or at one closing a quotation: 'says "... don't matter." That
# mixes up ...') before a capital, digit or quote, but not after "i.e.", "e.g.", "vs.", "cf.";
# an answer written all in lower case ends one at . ! ? before any word, short of "etc." or a
# one-letter abbreviation; nor after a shortened word ('5%, prob. a dtype upcast', sealed201 b.s2033)
SHORTENED = r"(?<!\b[Pp]rob\.)(?<!\b[Aa]pprox\.)(?<!\b[Ee]sp\.)(?<!\b[Ii]ncl\.)" \
    r"(?<!\b[Rr]esp\.)(?<!\b[Ee]st\.)"
NOT_ABBREV = r"(?<!\b[Ii]\.[Ee]\.)(?<!\b[Ee]\.[Gg]\.)(?<!\b[Vv]s\.)(?<!\b[Cc]f\.)" + SHORTENED
SENTENCE = re.compile(rf"(?:(?<=[.!?;]){NOT_ABBREV}|(?<=[.!?;][\"”’]))\s+(?=[A-Z0-9(\"'“‘])"
                      rf"|(?<=[.!?]){NOT_ABBREV}(?<!\betc\.)(?<![\s(][A-Za-z]\.)\s+(?=[a-z])")


@dataclass(frozen=True)
class Mention:
    """A lever or claim an answer names: one concept, several (ambiguous), with where it was."""

    concepts: tuple[str, ...]
    written: str
    line: int
    kind: str = "lever"
    reason: str = ""           # the words given for it: a YAML reason, or its Markdown item
    later: bool = False        # deferred in time ("once ..., then"), not only on a condition
    fallback: bool = False     # on the condition that an earlier step falls short: kept in reserve


@dataclass(frozen=True)
class Said:
    """A number as written, with the words of its sentence or bullet (what ties it to a figure)."""

    q: Quantity
    context: tuple[str, ...]
    line: int = 0


@dataclass
class Answer:
    path: str
    format: str
    case: str
    student: str | None = None
    regime: str | None = None
    regime_hedged: bool = False    # "probably bandwidth-bound, I think": named, not committed to
    regime_opined: bool = False    # "Compute-bound, I think": an opinion marker, a lesser hedge
    regime_concluded: bool = False  # stated as the conclusion ("So the real regime is ..."): it stands
    regime_bare: bool = False       # named alone, as a list item is ("- compute-bound")
    nominal_regime: str | None = None
    limiter: tuple[str, int, str] | None = None   # "limited by HBM" (regime, line, sentence): the
    #   verdict only where the whole answer names no regime (a later "compute-bound" wins)
    named: dict[str, tuple[Quantity, int]] = field(default_factory=dict)   # figure name -> value
    asides: dict[int, str] = field(default_factory=dict)   # line -> a YAML entry's commentary
    numbers: list[Said] = field(default_factory=list)                       # every number given
    fixes: list[Mention] = field(default_factory=list)
    rejects: list[Mention] = field(default_factory=list)
    endorsed: list[str] = field(default_factory=list)                       # claims used as reasons
    verdicts: dict[str, str] = field(default_factory=dict)
    asks: list[str] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)
    unread: list[tuple[str, str]] = field(default_factory=list)     # (part, why an item did not count)
    deferred: list[Mention] = field(default_factory=list)  # "then, not before": placed by the key
    listed: list[list[Mention]] = field(default_factory=list)  # affirmed sentences naming too many levers
    stuffed: list[Mention] = field(default_factory=list)  # a Fixes part naming too many levers
    hedged: list[Mention] = field(default_factory=list)   # "CUDA graphs could help": a fix not committed to
    discussed: list[Mention] = field(default_factory=list)   # "Int4 reduces bytes. ...": why, not a verdict
    topics: list[Mention] = field(default_factory=list)   # fixes read from a name heading a paragraph
    says_no: list[int] = field(default_factory=list)      # lines answering the case's question "no"
    statuses: list[tuple[int, str, str]] = field(default_factory=list)   # (line, status, sentence)
    regimes_named: set[str] = field(default_factory=set)
    regimes_denied: set[str] = field(default_factory=set)   # "not bandwidth-bound": ruled out
    prose: bool = False            # written without the template's headings: read sentence by sentence
    text: str = ""                 # what it argues in its own words (a reason may be anywhere in it)
    lines: list[str] = field(default_factory=list)   # a written answer's lines, as written

    def said(self, concepts: Concepts, text: str, line: int = 0, label: str = "") -> None:
        """Record every number in `text`, each with the words of its own sentence (and `label`)."""
        hedges = getattr(concepts.context, "approximate", ())
        within = getattr(concepts.context, "approximate_within", 0.0)

        def hedged(before: str) -> bool:   # 'close to 40%': the words before end with a hedge
            ws = concepts.words(before)
            return any(tuple(ws[-len(h):]) == h for h in hedges)
        for sentence in SENTENCE.split(text):
            found = quantities(_spelled(sentence, getattr(concepts.context, "fractions", ())), hedged, within)
            if found:
                context = tuple(concepts.words(f"{label} {sentence}"))
                self.numbers += [Said(q, context, line) for q in found]


def _spelled(sentence: str, fractions: tuple[tuple[re.Pattern[str], str], ...]) -> str:
    """The sentence with each share spelled out as the percent it names, for its numbers only:
    "about a fifth of the step" states the 22% share (sealed313 b.s3159, instructor: credited)."""
    for pattern, percent in fractions:
        sentence = pattern.sub(percent, sentence)
    return sentence


def read_text(path: Path, max_bytes: int) -> str:
    """The submission as text: bounded in size, not binary, UTF-8 (a BOM is allowed)."""
    file = str(path)
    try:
        size = path.stat().st_size
        if size > max_bytes:
            raise RegimeError(f"submission is {size:,} bytes; at most {max_bytes:,} are graded", file=file)
        with path.open("rb") as fh:
            data = fh.read(max_bytes + 1)
    except OSError as err:
        raise RegimeError(f"cannot read submission: {err.strerror or err}", file=file) from None
    if len(data) > max_bytes:
        raise RegimeError(f"submission is over {max_bytes:,} bytes; it is not graded", file=file)
    if data.startswith((b"\xff\xfe", b"\xfe\xff")):
        raise RegimeError("submission is UTF-16; save it as UTF-8", file=file, line=1)
    if b"\x00" in data:
        line = data[:data.index(b"\x00")].count(b"\n") + 1
        raise RegimeError("submission is binary (contains NUL bytes), not text", file=file, line=line)
    try:
        return str(data, "utf-8-sig")
    except UnicodeDecodeError as err:
        line = data[:err.start].count(b"\n") + 1
        raise RegimeError(f"submission is not UTF-8 (byte 0x{data[err.start]:02x} at offset {err.start}); "
                          "save it as UTF-8", file=file, line=line) from None

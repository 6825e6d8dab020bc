"""Where an author broke a line by hand: terse notes written one thought per line, with no
blank line between them, are separate statements, not one long sentence wrapped."""

from __future__ import annotations

from regime.engine.grading.items import HEADING, ITEM, ROW


def hand_broken(lines: list[str], start: int) -> set[int]:
    """Lines that open a paragraph of their own though no blank line comes before them: the
    author broke the line by hand. In a block of three or more plain lines none of which ends a
    sentence ('regime: launch overhead bound (...)' over 'both utils low: ...' over 'fix1: graph
    capture ...', sealed232 e.s2343) every line; in any block, the line after one that stops
    short of the block's width with no sentence ended ('fix 3) hand fusion - only if compile
    leaves a gap' over '2nd engineer: prob not right, ...', sealed210 b.s2128). Wrapped prose
    fills its lines and ends some with a full stop. A list item's wrapped lines are its own."""
    out: set[int] = set()
    block: list[int] = []
    under_item = False
    for lineno, line in enumerate([*lines[start:], ""], start + 1):
        if line.strip() and not (ITEM.match(line) or ROW.match(line) or HEADING.match(line)):
            block.append(lineno)
            continue
        if not under_item and not any(lines[n - 1][:1].isspace() for n in block):
            out.update(_broken(block, [lines[n - 1].rstrip(_CLOSERS) for n in block]))
        block, under_item = [], bool(ITEM.match(line))
    return out


def _broken(block: list[int], texts: list[str]) -> list[int]:
    """The lines of one block that open a paragraph of their own (see hand_broken): never one
    the line above goes on into."""
    ended = [t.endswith(_ENDS) for t in texts]
    width = max((len(t) for t in texts), default=0)
    notes = len(block) >= _NOTE_LINES and not any(ended)
    return [block[i + 1] for i in range(len(block) - 1)
            if not ended[i] and not _goes_on(texts[i], texts[i + 1])
            and (notes or (len(texts[i]) < _SHORT * width and len(texts[i].split()) > _LABEL_WORDS))]


def wraps_into(line: str, after: str) -> bool:
    """`line` goes on into `after`, which opens in lower case: it ends on a word that cannot end a
    sentence ("... because we are compute-bound, does" over "not hold up: being compute-bound
    only describes ...", sealed326 b.s3293): a label there is a sentence's words, not a label."""
    last = line.rsplit(None, 1)[-1].lower() if line.strip() else ""
    return last in _UNENDING and after.lstrip()[:1].islower()


def _goes_on(line: str, after: str) -> bool:
    """`line` is wrapped into `after`: it ends on punctuation or a word that cannot end a
    sentence ('... ~38% of' over 'each step, ...', sealed224 e.s2262), or `after` opens with
    punctuation ('gaps 8-15 us' over '(~11us). idle ...'; 'Regime' over ': compute-bound')."""
    last = line.rsplit(None, 1)[-1].lower() if line.strip() else ""
    return line.endswith(_GOES_ON) or last in _UNENDING or after.lstrip()[:1] in _OPENS_ON


_NOTE_LINES = 3   # fewer lines are as likely one sentence wrapped
_SHORT = 0.6      # of the block's widest line: a line this short was broken by hand ...
_LABEL_WORDS = 3  # ... unless it is a label over its text ('Regime' over ': compute-bound ...')
_ENDS = (".", "!", "?")
_GOES_ON = (",", ";", ":", "-", "—", "–", "(", "/", "&", "+", "=", "→", "->", "≈", "×", " x")
_OPENS_ON = frozenset(":;,)]—–-(/&+=→≈×")
_UNENDING = frozenset({"a", "an", "the", "of", "to", "in", "on", "at", "by", "for", "from", "with",
                       "as", "than", "and", "or", "but", "nor", "so", "is", "are", "was", "were", "be",
                       "been", "being", "that", "which", "who", "whose", "whom", "this", "these",
                       "those", "its", "their", "our", "your", "my", "his", "her", "if", "when",
                       "while", "because", "since", "into", "onto", "via", "per",
                       "does", "do", "did", "will", "would", "can", "could", "should", "shall", "must"})
_CLOSERS = " \t\"')]*_”’»"   # a sentence may end inside a quote or brackets ('... quantization."')

"""Text a user wrote, made safe for the document it is written into: one function per format.

Case titles and summaries, device names from a trace, student ids, file names and answers are
untrusted: quoted raw they can start a spreadsheet formula, forge a Markdown heading or link,
inject HTML, or move a terminal's cursor and reverse the text it shows. Every writer passes such
text through the function for its format, and only such text: figures, ids from the knowledge
and the writer's own markup stay as they are.

- `terminal_text`: control characters and bidi overrides shown as visible escapes (`\\x1b`,
  `\\u202e`), newline and tab kept; the others build on it, so no format carries them raw;
- `one_line`: `terminal_text` with every line break and tab folded into a space (a heading, a
  table cell, a CSV cell of a single-line field);
- `markdown_inline`: one line, with Markdown and HTML specials escaped, so it renders as the
  text itself (no heading, link, image, emphasis or tag);
- `html_text`: HTML-escaped (quotes too, so it also fits an attribute value);
- `csv_cell`: OWASP's CSV-injection advice for a text cell: one beginning with `=`, `+`, `-`,
  `@`, tab or CR gets a leading `'` so a spreadsheet reads it as text. Numbers are not text:
  call it on text columns only, and a score of -15 stays a number.
"""

from __future__ import annotations

import re

# C0 controls but tab and newline, DEL, C1 controls (ESC starts every terminal sequence), and the
# Unicode bidi embeddings, overrides, isolates and marks that make displayed text differ from its
# characters (Trojan Source, CVE-2021-42574), plus the line/paragraph separators.
_UNSAFE = re.compile("[\x00-\x08\x0b-\x1f\x7f-\x9f\u061c\u200e\u200f\u2028\u2029\u202a-\u202e"
                     "\u2066-\u2069]")
_BREAKS = re.compile(r"\s*[\r\n\t]+\s*")
# Markdown's inline specials (CommonMark lets a backslash escape any of them); < > & become
# entities instead. A list marker or heading only counts at the start: escaped there.
_MD_SPECIAL = re.compile(r"([\\`*{}\[\]()#!|~])")
# An underscore run between two letters or digits can neither open nor close emphasis (CommonMark's
# intraword rule): left as written, so ids such as a_chatbot read as themselves.
_MD_LEAD = re.compile(r"^(\d*)([-+.)=])")
_CSV_TRIGGERS = ("=", "+", "-", "@", "\t", "\r")


def terminal_text(text: str) -> str:
    """`text` with control and bidi characters replaced by visible escapes (`\\x1b`, `\\u202e`);
    newlines and tabs kept."""
    return _UNSAFE.sub(lambda m: m.group().encode("unicode_escape").decode("ascii"), text)


def one_line(text: str) -> str:
    """`terminal_text` on a single line: runs of line breaks and tabs become one space."""
    return terminal_text(_BREAKS.sub(" ", text)).strip()


def markdown_inline(text: str) -> str:
    """`text` as literal inline Markdown on one line: nothing in it becomes markup."""
    escaped = _MD_SPECIAL.sub(r"\\\1", one_line(text))
    escaped = re.sub(r"_+", _underscores, escaped)
    escaped = _MD_LEAD.sub(r"\1\\\2", escaped)
    import html  # here: importing it loads its entity tables, which JSON and text output never need
    return html.escape(escaped, quote=False)  # < > & as entities: no tag, no entity


def _underscores(m: re.Match[str]) -> str:
    """An underscore run between two letters or digits can neither open nor close emphasis
    (CommonMark's intraword rule): kept as written, so snake_case ids read as themselves."""
    text, a, b = m.string, m.start(), m.end()
    if a > 0 and b < len(text) and text[a - 1].isalnum() and text[b].isalnum():
        return m.group()
    return "\\_" * (b - a)


def html_text(text: str) -> str:
    """`text` for HTML element content or a quoted attribute value."""
    import html
    return html.escape(terminal_text(text), quote=True)


def csv_cell(text: str) -> str:
    """A text cell a spreadsheet will not run: a leading `'` before = + - @ tab CR (OWASP)."""
    text = terminal_text(text)
    return "'" + text if text.startswith(_CSV_TRIGGERS) else text

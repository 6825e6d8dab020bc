"""How students mark the items of a list: a bullet ('-', '*', '•'), a number ('1.', '1)', '(1)'),
a letter ('a)', '(a)', 'a.'), or a cross that refuses the item ('✗ more FLOPs'); and a sub-item
indented under an item, which gives that item's reason ('1. FlashAttention' over '   - scores
stay on-chip'). Layout only: what the words say is read elsewhere."""

from __future__ import annotations

import re

ITEM = re.compile(r"^(?P<indent>\s*)(?:[-*+•▪]|\d{1,3}[.)]|\(\d{1,3}\)|[a-z][.)]|[A-Z]\)|\([a-zA-Z]\))\s+"
                  r"(?P<text>.*)$")
NUMBERED = re.compile(r"^\s*(?:\d{1,3}[.)]|\(\d{1,3}\)|[a-z][.)]|\([a-z]\))\s")
HEADING = re.compile(r"^\s{0,3}#{1,6}\s+(?P<text>.+?)\s*#*\s*$")   # a Markdown heading
RULE = re.compile(r"^\s*\|?\s*:?-{3,}:?\s*(\|\s*:?-{3,}:?\s*)*\|?\s*$")   # a table's |---|---| line
ROW = re.compile(r"^\s*\|")                                            # a Markdown table row
CROSSES = frozenset("✗✘❌✖×")
_SUB = 2   # an item indented this much more than the item above it is that item's sub-item
_JOINS = ":;,.—–-("   # a parent that ends in one of these takes its sub-item after a space


def crossed(line: str) -> bool:
    """A line that opens with a cross ('✗ A GPU with more FLOPs: ...'): an item of its own."""
    s = line.lstrip()
    return s[:1] in CROSSES and bool(s[1:].strip())


def sub_item(item: re.Match[str], parent_indent: int | None) -> bool:
    """An item indented under the list item above it (`parent_indent`, None when the line above
    is no list item)."""
    return parent_indent is not None and len(item["indent"].expandtabs(4)) >= parent_indent + _SUB


def joined(parent: str, sub: str) -> str:
    """A sub-item read as part of its parent item: 'FlashAttention — tiles the computation ...'."""
    parent = parent.rstrip()
    return f"{parent} {sub}" if parent[-1:] in _JOINS else f"{parent} — {sub}"

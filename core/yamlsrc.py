"""Safe YAML loading that remembers the line of every mapping key and sequence item.

Errors must name the file, line and field; PyYAML's safe loader drops positions, so this
loader builds `LineDict`s and `LineList`s that keep them. Files are untrusted: the loader is a
`SafeLoader` restricted further to YAML's core schema (mappings, sequences, text, numbers,
booleans, null). Other tags (`!!binary`, `!!timestamp`, `!!set`, any `!local` tag) are refused
with their line, dates stay text, and a value its constructor cannot build (`!!bool` with no
value, a 5,000-digit integer) is a located error, never an exception from inside PyYAML.
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import TYPE_CHECKING, Any, ClassVar, TypeVar

import yaml

from regime.core.errors import RegimeError, RegimeErrors, did_you_mean

if TYPE_CHECKING:  # pydantic's model machinery is imported by the code that defines models
    from pydantic import BaseModel

MAX_BYTES = 8 * 1024 * 1024  # the largest shipped file, the second reading's model, is about 5 MB
MAX_NESTING = 32             # cases and packs nest four or five levels


class LineDict(dict):
    """A dict that knows the line of each key (1-based) and of itself."""

    line: int = 0
    key_lines: dict[str, int]

    def line_of(self, key: str) -> int:
        return self.key_lines.get(key, self.line)


class LineList(list):
    """A list that knows the line of each item (1-based) and of itself."""

    line: int = 0
    item_lines: list[int]

    def line_at(self, index: int) -> int:
        return self.item_lines[index] if 0 <= index < len(self.item_lines) else self.line


# libyaml's parser when present (several times faster); both are the *safe* loaders.
_SafeBase = getattr(yaml, "CSafeLoader", yaml.SafeLoader)
_CORE = "tag:yaml.org,2002:"


# mypy cannot see it: PyYAML's loader bases carry no type information
class _Loader(_SafeBase):  # type: ignore[misc, valid-type]
    # Implicit typing without timestamps: `date: 2024-05-01` stays the text it looks like.
    yaml_implicit_resolvers: ClassVar[dict] = {
        first: [(tag, rx) for tag, rx in resolvers if tag != _CORE + "timestamp"]
        for first, resolvers in _SafeBase.yaml_implicit_resolvers.items()}
    yaml_constructors: ClassVar[dict] = {}


def _line(node: yaml.Node) -> int:
    return node.start_mark.line + 1


def _construct_mapping(loader: _Loader, node: yaml.Node) -> LineDict:
    if not isinstance(node, yaml.MappingNode):
        raise RegimeError("a '!!map' tag needs a mapping", line=_line(node))
    result = LineDict()
    result.line = _line(node)
    result.key_lines = {}
    for key_node, value_node in node.value:
        key = loader.construct_object(key_node, deep=True)
        if not isinstance(key, str | int | float) or isinstance(key, bool):
            raise RegimeError(f"mapping key must be text, got {type(key).__name__}", line=_line(key_node))
        key = str(key)
        if key in result:
            if _split_text(loader, node, value_node) and result[key] is None:
                continue   # '{note: write, read, write, read}': an answer's text split at its commas
            raise RegimeError(f"duplicate key '{key}'", line=_line(key_node), field=key)
        result[key] = _within(key, lambda v=value_node: loader.construct_object(v, deep=True))
        result.key_lines[key] = _line(key_node)
    return result


class _AnswerLoader(_Loader):
    """Reads a student's answer, where free text in a flow mapping may hold commas."""


def _split_text(loader: _Loader, node: yaml.MappingNode, value: yaml.Node) -> bool:
    """A repeated bare word in a flow mapping of an answer: text YAML split at its commas (the
    grader joins such keys back onto the text before them), not a second value for the key."""
    return (isinstance(loader, _AnswerLoader) and bool(node.flow_style) and isinstance(value, yaml.ScalarNode)
            and value.tag == _CORE + "null" and value.value in ("", "~", "null"))


def _within(step: str, build):
    """Build a child value; an error inside it gets the path from here down as its field."""
    try:
        return build()
    except RegimeError as err:
        inner = err.field or ""
        err.field = step + ("" if not inner else inner if inner.startswith("[") else "." + inner)
        raise


def _construct_sequence(loader: _Loader, node: yaml.Node) -> LineList:
    if not isinstance(node, yaml.SequenceNode):
        raise RegimeError("a '!!seq' tag needs a sequence", line=_line(node))
    result = LineList(_within(f"[{i}]", lambda c=child: loader.construct_object(c, deep=True))
                      for i, child in enumerate(node.value))
    result.line = _line(node)
    result.item_lines = [_line(child) for child in node.value]
    return result


def _scalar(build):
    """A core scalar constructor whose failures become located errors."""
    def construct(loader: _Loader, node: yaml.Node) -> Any:
        if not isinstance(node, yaml.ScalarNode):
            raise RegimeError(f"a '{_short_tag(node.tag)}' tag needs a plain value", line=_line(node))
        try:
            return build(loader, node)
        except ValueError as err:
            if "digits" in str(err):  # Python's int() limit on huge decimal strings
                raise RegimeError("integer with thousands of digits", line=_line(node)) from None
            raise RegimeError(f"'{_short(node.value)}' is not a valid {_short_tag(node.tag)} value",
                              line=_line(node)) from None
        except (KeyError, TypeError, AttributeError, OverflowError):
            raise RegimeError(f"'{_short(node.value)}' is not a valid {_short_tag(node.tag)} value",
                              line=_line(node)) from None
    return construct


def _refuse_tag(loader: _Loader, node: yaml.Node) -> Any:
    raise RegimeError(f"YAML tag '{_short_tag(node.tag)}' is not supported; write plain values "
                      "(text, numbers, true/false, lists, mappings)", line=_line(node))


def _short_tag(tag: str | None) -> str:
    tag = tag or "?"
    return "!!" + tag[len(_CORE):] if tag.startswith(_CORE) else _short(tag, 40)


def _short(text: str, limit: int = 40) -> str:
    return text if len(text) <= limit else text[:limit] + "..."


for _tag in ("null", "bool", "int", "float", "str"):
    _Loader.yaml_constructors[_CORE + _tag] = _scalar(_SafeBase.yaml_constructors[_CORE + _tag])
_Loader.yaml_constructors[_CORE + "map"] = _construct_mapping
_Loader.yaml_constructors[_CORE + "seq"] = _construct_sequence
_Loader.yaml_constructors[None] = _refuse_tag


def load_yaml(path: Path | str, text: str | None = None, answer: bool = False) -> Any:
    """Parse one YAML file; any problem becomes a RegimeError naming the file and line. `answer`:
    a student's, whose flow mappings may repeat a bare word of text split at its commas."""
    path = Path(path)
    try:
        if text is None:
            text = _read(path)
        _prescan(text)
        return yaml.load(text, Loader=_AnswerLoader if answer else _Loader)
    except RegimeError as err:
        raise err.located(file=str(path), line=1) from None
    except yaml.MarkedYAMLError as err:
        mark = err.problem_mark or err.context_mark
        line = mark.line + 1 if mark else 1
        raise RegimeError(f"malformed YAML: {err.problem or err}", file=str(path), line=line) from None
    except yaml.reader.ReaderError as err:  # a control character or non-printable code point
        line = (text or "").count("\n", 0, max(err.position, 0)) + 1
        code = ord(err.character) if isinstance(err.character, str) else int(err.character)
        raise RegimeError(f"character U+{code:04X} is not allowed in YAML (control characters "
                          "cannot appear in a file)", file=str(path), line=line) from None
    except yaml.YAMLError as err:
        raise RegimeError(f"cannot read YAML: {err}", file=str(path), line=1) from None


def read_source(path: Path | str) -> str:
    """A file's text exactly as load_yaml reads it (bounded, UTF-8), to be parsed elsewhere
    with load_yaml(path, text). Raises the RegimeError load_yaml would."""
    try:
        return _read(Path(path))
    except RegimeError as err:
        raise err.located(file=str(path), line=1) from None


def _read(path: Path) -> str:
    """The file as text; bytes that are not UTF-8 are reported at their line."""
    try:
        if path.stat().st_size > MAX_BYTES:
            raise RegimeError(f"file is larger than {MAX_BYTES // (1024 * 1024)} MB", line=1)
        data = path.read_bytes()
    except OSError as err:
        raise RegimeError(f"cannot read file: {err.strerror or err}", line=1) from None
    try:
        return str(data, "utf-8").removeprefix("\ufeff")
    except UnicodeDecodeError as err:
        line = data.count(b"\n", 0, err.start) + 1
        raise RegimeError(f"not UTF-8 text: byte 0x{data[err.start]:02x} is not valid UTF-8 here",
                          line=line) from None


def _prescan(text: str) -> None:
    """Refuse what would make loading expensive, before anything is built.

    Anchors and aliases let a few hundred bytes expand to gigabytes; deep nesting makes the
    (recursive) constructor overflow the stack. These files need neither.
    """
    depth = 0
    for event in yaml.parse(text, Loader=_SafeBase):
        if isinstance(event, yaml.AliasEvent) or getattr(event, "anchor", None):
            raise RegimeError("YAML anchors and aliases (&name, *name, <<) are not supported",
                              line=event.start_mark.line + 1)
        if isinstance(event, yaml.CollectionStartEvent):
            depth += 1
            if depth > MAX_NESTING:
                raise RegimeError(f"YAML nested more than {MAX_NESTING} levels deep",
                                  line=event.start_mark.line + 1)
        elif isinstance(event, yaml.CollectionEndEvent):
            depth -= 1


def plain(x: Any) -> Any:
    """A loaded document as plain dicts, lists and scalars (no line-numbered subclasses, string
    keys), ready for yaml.safe_dump or json."""
    if isinstance(x, dict):
        return {str(k): plain(v) for k, v in x.items()}
    if isinstance(x, list):
        return [plain(v) for v in x]
    return x


def line_of(mapping: Any, key: str) -> int | None:
    """Line of `key` in a mapping loaded by load_yaml, if known."""
    return mapping.line_of(key) if isinstance(mapping, LineDict) else None


def line_at(sequence: Any, index: int) -> int | None:
    """Line of item `index` of a sequence loaded by load_yaml, if known."""
    return sequence.line_at(index) if isinstance(sequence, LineList) else None


def expect_mapping(doc: Any, file: str, message: str) -> LineDict:
    """The top level of a file must be a mapping; otherwise a located error (line 1 if empty)."""
    if isinstance(doc, dict):
        # mypy cannot see it: load_yaml reads every mapping as a LineDict
        return doc  # type: ignore[return-value]
    line = getattr(doc, "line", 0) or 1
    got = "an empty file" if doc is None else f"a {'list' if isinstance(doc, list) else 'plain value'}"
    raise RegimeError(f"{message}; got {got}", file=file, line=line)


M = TypeVar("M", bound="BaseModel")


def validated(model: type[M], raw: dict, file: str, *, line: int | None = None,
              prefix: str = "", message: str = "", lines: dict | None = None,
              context: Mapping[str, Any] | None = None) -> M:
    """Build a pydantic model from a mapping read by load_yaml; every failure names file, line, field.

    One error per field: a value that fits no member of a union is one mistake, not one per member.
    `lines` is the mapping whose lines locate a failure when `raw` is a merge of several files
    (core/layered.py: the layer just merged); `context` goes to the model's validators.
    """
    from pydantic import ValidationError

    try:
        return model.model_validate(raw, context=context)
    except ValidationError as err:
        errors: dict[str | None, RegimeError] = {}
        for e in err.errors():
            one = _one(e, model, raw, file, line, prefix, message, raw if lines is None else lines)
            errors.setdefault(one.field, one)
        found = list(errors.values())
        raise (found[0] if len(found) == 1 else RegimeErrors(found)) from None


def _one(e: Any, model: type[BaseModel], raw: dict, file: str, line: int | None, prefix: str,
         message: str, lines: dict) -> RegimeError:
    loc = [str(p) for p in e["loc"]]
    where, known = _deep_line(raw, loc)
    if lines is not raw:
        where = _deep_line(lines, loc)[0]
    missing = e["type"] == "missing" and known == len(loc) - 1   # the key absent is the field
    loc = loc if missing else loc[:known] or loc
    field = ".".join([prefix, *loc] if prefix else loc) or prefix or None
    text = "required, and missing" if missing else e["msg"].removeprefix("Value error, ")
    if e["type"] == "extra_forbidden" and loc:
        text = f"unknown key{did_you_mean(loc[-1], _fields_at(model, loc[:-1]))}"
    return RegimeError(message + text, file=file, line=where or line, field=field)


def _deep_line(raw: Any, loc: list[str]) -> tuple[int | None, int]:
    """The most precise known line along a pydantic error location, and how many parts of the
    location name keys or items of the input (the rest are pydantic's type names)."""
    found, node, known = None, raw, 0
    for part in loc:
        if isinstance(node, dict) and part in node:
            found, node = line_of(node, part) or found, node[part]
        elif isinstance(node, list) and part.isdigit() and int(part) < len(node):
            found, node = line_at(node, int(part)) or found, node[int(part)]
        else:
            break
        known += 1
    return found or getattr(node, "line", None) or getattr(raw, "line", None), known


def _fields_at(model: type[BaseModel], loc: list[str]) -> list[str]:
    """Field names of the (nested) model at `loc`, for did-you-mean on an unknown key."""
    current: Any = model
    for key in loc:
        field = getattr(current, "model_fields", {}).get(key)
        if field is None:
            break
        current = field.annotation
    return list(getattr(current, "model_fields", {}))

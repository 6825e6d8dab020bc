"""Hypothesis strategies over cases and packs, and the property every input must satisfy.

Shared by tests/test_fuzz.py (bounded, derandomized, in CI) and bench/fuzz.py (the long
profile). Inputs are mutations of the shipped cases and packs plus hostile YAML text. The
property: every input ends as a diagnosis (rendered in every format, byte-identical from both
evaluators) or as errors that each read `FILE:LINE: FIELD: message` on one line — never an
exception, an engine fault, a hang or a dropped result.
"""

from __future__ import annotations

import io
import re
import shutil
import signal
import traceback
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from functools import cache
from pathlib import Path
from typing import Any

import yaml
from hypothesis import strategies as st

from regime.core.errors import RegimeError
from regime.engine import api
from regime.engine.knowledge.load import load_knowledge
from regime.engine.knowledge.model import Knowledge
from regime.engine.knowledge.paths import RULES_DIR
from regime.engine.report import output
from regime.facts.vocabulary import load_vocabulary

ROOT = Path(__file__).resolve().parent.parent
TOY = ROOT / "tests" / "toy"
CORPUS = ROOT / "tests" / "fuzz_corpus"
SECONDS = 120  # one input taking longer than this (wall clock, on a loaded machine) is a hang

VOCABULARY = load_vocabulary()
NUMBER_FACTS = sorted(n for n, s in VOCABULARY.specs.items() if s.kind == "number")
CATEGORY_FACTS = sorted(n for n, s in VOCABULARY.specs.items() if s.kind == "category")
GROUP_FACTS = sorted(n for n, s in VOCABULARY.specs.items() if s.kind == "group")
ALL_FACTS = sorted(VOCABULARY.specs)
CASE_FILES = [*sorted((ROOT / "cases").glob("*.yaml")), CORPUS / "edge_huge.yaml", CORPUS / "edge_tiny.yaml"]
PACK_FILES = sorted(RULES_DIR.glob("*.yaml"))


def _load(path: Path) -> Any:
    return yaml.safe_load(path.read_text(encoding="utf-8"))


BASE_CASES = [_load(p) for p in CASE_FILES]
BASE_PACKS = {p.name: _load(p) for p in PACK_FILES}
LEVERS = sorted({lever for doc in BASE_PACKS.values() for lever in (doc.get("levers") or {})})
CLAIMS = sorted({claim for doc in BASE_PACKS.values() for claim in (doc.get("claims") or {})})
TOY_LEVERS = ["quantize_int8", "raise_batch"]
PARAMETERS = sorted({p for doc in BASE_PACKS.values() for p in (doc.get("parameters") or {})})

# ---- values --------------------------------------------------------------------------------

UNITS = ["", "%", "percent", "GB", "TB/s", "GB/s", "B/s", "TFLOP/s", "FLOP/s", "tokens/s", "us", "ms",
         "s", "dB", "Np", "degC", "degF", "radian", "degree", "count", "kelvin", "byte", "MiB", "bit",
         "token", "GB/s/s", "s**2", "m", "W", "FLOP", "9**9**9", "1/0", "[/]", "tokens per s"]
HOSTILE_TEXT = ["[/]", "[bold]", "[/bold]x", "[link=file:///etc/passwd]x", ":fire:", "[red", "\x1b[2J",
                "a\nb", "a\rb", "\u2028", "\x00", "\x7f", "{x}", "{{", "%s", "\\", "'", '"', "", " ",
                "é", "日本", "🙂", "\ufeff", "-", "~", "null", "yes", "1e400", "nan", "inf", "-inf",
                "0x1p3", "1_000", "2024-05-01", "12:30:00", "<<", "*a", "&a", "!!binary", "a" * 300]
NUMBERS = [0, 1, -1, 2, 0.5, 1e-18, 1e18, 1e-19, 1e19, 1e-300, 1e300, 5e-324, 1.7e308, 10**20, 10**400,
           -(10**30), 0.1, 3.35e12, 7e-3]
SPECIALS = ["1e-300 GB", "5e-324 s", "1e300 TB/s", "1 TB/s - 2 TB/s", "5-3 us", "6-30 us", "4%-9%",
            "0.5 dB", "0.5 radian", "20 degC", "78%", "178%", "-1%", "26 GB", "26", "160 tokens/s",
            "1e18 FLOP/s", "1e-18 s", "0 s", "3 to 2 ms", "1e2e3 s", "1.5.2 GB", "+-1 GB", "∞ GB"]


def numbers() -> st.SearchStrategy:
    return st.one_of(st.sampled_from(NUMBERS), st.integers(min_value=-(10**25), max_value=10**25),
                     st.floats(allow_nan=True, allow_infinity=True))


def quantities() -> st.SearchStrategy[str]:
    return st.one_of(st.sampled_from(SPECIALS),
                     st.builds(lambda n, u: f"{n} {u}".strip(), numbers(), st.sampled_from(UNITS)))


def scalars() -> st.SearchStrategy:
    return st.one_of(quantities(), numbers(), st.sampled_from(HOSTILE_TEXT), st.text(max_size=12),
                     st.none(), st.booleans())


def values() -> st.SearchStrategy:
    return st.one_of(
        scalars(), scalars(),
        st.lists(scalars(), max_size=3),
        st.dictionaries(st.sampled_from(["range", "typical", "value", "source", "x"]), scalars(), max_size=3),
        st.dictionaries(st.one_of(st.sampled_from(["gemm", "to_copy", "layer_norm", "%%", ""]),
                                  st.text(max_size=6)), scalars(), max_size=3),
    )


# ---- cases ---------------------------------------------------------------------------------

@st.composite
def case_docs(draw) -> Any:
    """A shipped case with a few structural mutations."""
    doc = dict(draw(st.sampled_from(BASE_CASES)))
    doc["facts"] = dict(doc.get("facts") or {})
    for _ in range(draw(st.integers(0, 4))):
        what = draw(st.sampled_from(["fact", "fact", "fact", "drop_fact", "top", "drop_top",
                                     "hardware", "lists"]))
        if not isinstance(doc.get("facts"), dict):
            doc["facts"] = {}
        if what == "fact":
            name = draw(st.one_of(st.sampled_from(ALL_FACTS), st.sampled_from(HOSTILE_TEXT),
                                  st.text(max_size=8)))
            doc["facts"][name] = draw(values())
        elif what == "drop_fact" and doc["facts"]:
            doc["facts"].pop(draw(st.sampled_from(sorted(doc["facts"]))))
        elif what == "top":
            key = draw(st.sampled_from(["title", "summary", "id", "hardware", "model", "facts",
                                        "proposals", "claims", "unknown_key"]))
            doc[key] = draw(values())
        elif what == "drop_top" and doc:
            doc.pop(draw(st.sampled_from(sorted(doc))))
        elif what == "hardware":
            keys = st.one_of(st.sampled_from(ALL_FACTS), st.sampled_from(["name", "source", "aliases"]))
            doc[draw(st.sampled_from(["hardware", "model"]))] = draw(
                st.dictionaries(keys, values(), max_size=4))
        else:
            ids = st.one_of(st.sampled_from(LEVERS + CLAIMS), st.sampled_from(HOSTILE_TEXT), st.integers())
            doc[draw(st.sampled_from(["proposals", "claims"]))] = draw(st.lists(ids, max_size=3))
    return doc


TAGS = ["!!binary", "!!timestamp", "!!bool", "!!int", "!!float", "!!str", "!!null", "!!set", "!!omap",
        "!!pairs", "!!map", "!!seq", "!custom", "!!python/object:os.system", "!<tag:x>"]
SNIPPETS = ["\x00", "\x1b", "\t", "\r", "\u2028", "\ufeff", "&a ", "*a", "<<: *a", "---\n", "...\n",
            "%YAML 1.1\n",
            "? ", ": ", "- ", "[", "]", "{", "}", "'", '"', "#", "|", ">", "\\", "\n  ", "\n    x: 1\n"]


@st.composite
def yaml_text(draw, doc_strategy) -> bytes:
    """A document dumped as YAML, then perhaps mangled as text (tags, stray characters,
    truncation, deep nesting, other top-level shapes, bytes that are not UTF-8)."""
    doc = draw(doc_strategy)
    style = draw(st.sampled_from([None, True, False]))
    text = yaml.safe_dump(doc, allow_unicode=True, sort_keys=False, default_flow_style=style, width=1000)
    for _ in range(draw(st.sampled_from([0, 0, 0, 1, 2]))):
        how = draw(st.sampled_from(["tag", "insert", "truncate", "nest", "top", "dup", "bytes"]))
        at = draw(st.integers(0, max(0, len(text))))
        if how == "tag":
            spots = [m.end() for m in re.finditer(r": |- ", text)]
            if spots:
                spot = draw(st.sampled_from(spots))
                text = text[:spot] + draw(st.sampled_from(TAGS)) + " " + text[spot:]
        elif how == "insert":
            text = text[:at] + draw(st.one_of(st.sampled_from(SNIPPETS), st.text(max_size=3))) + text[at:]
        elif how == "truncate":
            text = text[:at]
        elif how == "nest":
            depth = draw(st.integers(1, 200))
            text += "deep: " + "[" * depth + "1" + "]" * depth + "\n"
        elif how == "top":
            text = draw(st.sampled_from(["", "- a\n- b\n", "just text\n", "42\n", "!!bool\n", "null\n",
                                         "[1, {a: b}]\n", "{}\n", "~\n"]))
        elif how == "dup":
            lines = text.splitlines(keepends=True)
            if lines:
                text += draw(st.sampled_from(lines))
        else:
            return text.encode("utf-8")[:at] + draw(st.sampled_from([b"\xff", b"\xc3", b"\xed\xa0\x80"])) \
                + text.encode("utf-8")[at:]
    return text.encode("utf-8")


# ---- packs ---------------------------------------------------------------------------------

CONSTANTS = ["0", "1", "2", "0.5", "1e-18", "1e18", "1e-300", "7e-300", "5e-324", "1e300", "1e400",
             "1e19", "3", "-1", "10 ** 30", "\"decode\"", "\"[/]\""]


def expressions(names: list[str]) -> st.SearchStrategy[str]:
    """Anything expression-like, hostile included."""
    leaf = st.one_of(st.sampled_from(names), st.sampled_from(CONSTANTS),
                     st.sampled_from(["kernel_share[\"to_copy\"]", "peak_flops_by_dtype[compute_dtype]",
                                      "proposed[\"raise_batch\"]", "dtype_bytes[weight_dtype]",
                                      "__import__('os')", "x.y", "f(x)", "[1]", "{}", "lambda: 1"]))

    def grow(inner: st.SearchStrategy[str]) -> st.SearchStrategy[str]:
        two = st.tuples(inner, inner)
        ops = st.sampled_from(["+", "-", "*", "/", "//"])
        return st.one_of(
            st.builds(lambda ab, op: f"({ab[0]} {op} {ab[1]})", two, ops),
            st.builds(lambda ab, op: f"{ab[0]} {op} {ab[1]}", two, st.sampled_from(["<", ">=", "==", "!="])),
            st.builds(lambda ab, op: f"({ab[0]}) {op} ({ab[1]})", two, st.sampled_from(["and", "or"])),
            st.builds(lambda a: f"not ({a})", inner),
            st.builds(lambda a, p: f"{a} ** {p}", st.sampled_from(names), st.sampled_from(["2", "3", "4"])),
            st.builds(lambda ab, fn: f"{fn}({ab[0]}, {ab[1]})", two, st.sampled_from(["min", "max"])),
            st.builds(lambda a, fn: f"{fn}({a})", st.sampled_from(names),
                      st.sampled_from(["present", "absent", "count"])),
        )
    return st.recursive(leaf, grow, max_leaves=8)


PLAIN_CONSTANTS = ["0.5", "2", "1e-3", "1e6", "3", "0.05", "1e-18", "1e18"]


def arithmetic(numbers_: list[str], formula: bool) -> st.SearchStrategy[str]:
    """Well-typed arithmetic over numeric facts: mostly loads, and so reaches the engine."""
    leaf = st.one_of(st.sampled_from(numbers_), st.sampled_from(PLAIN_CONSTANTS))

    def grow(inner: st.SearchStrategy[str]) -> st.SearchStrategy[str]:
        two = st.tuples(inner, inner)
        ops, fns = st.sampled_from(["+", "-", "*", "/"]), st.sampled_from(["min", "max"])
        options = [st.builds(lambda ab, op: f"({ab[0]} {op} {ab[1]})", two, ops),
                   st.builds(lambda a: f"{a} ** 2", st.sampled_from(numbers_))]
        if formula:
            options.append(st.builds(lambda ab, fn: f"{fn}({ab[0]}, {ab[1]})", two, fns))
        return st.one_of(*options)
    return st.recursive(leaf, grow, max_leaves=5)


def conditions(numbers_: list[str], categories: dict[str, list[str]]) -> st.SearchStrategy[str]:
    math_ = arithmetic(numbers_, formula=False)
    test = st.one_of(
        st.builds(lambda a, op, b: f"{a} {op} {b}", math_,
                  st.sampled_from(["<", "<=", ">", ">=", "==", "!="]), math_),
        st.builds(lambda fn, n: f"{fn}({n})", st.sampled_from(["present", "absent"]),
                  st.sampled_from(numbers_)),
        *([st.sampled_from(sorted(categories)).flatmap(
            lambda c: st.sampled_from(categories[c]).map(lambda v: f"{c} == {v!r}"))] if categories else []),
    )
    return st.recursive(test, lambda inner: st.one_of(
        st.builds(lambda a, b, op: f"({a}) {op} ({b})", inner, inner, st.sampled_from(["and", "or"])),
        st.builds(lambda a: f"not ({a})", inner)), max_leaves=3)


def templates(names: list[str]) -> st.SearchStrategy[str]:
    field = st.builds(lambda n, s: "{" + n + s + "}", st.sampled_from(names),
                      st.sampled_from(["", "", ":.0f", ":.2%", ":,", ":g", "@-", "@GB/s", "@dB", ":x!r",
                                       "@%"]))
    piece = st.one_of(field, st.sampled_from(HOSTILE_TEXT), st.text(max_size=6), st.just("plain words"))
    return st.lists(piece, min_size=1, max_size=4).map(" ".join)


@st.composite
def fact_decls(draw) -> dict:
    decls: dict[str, Any] = {}
    for i in range(draw(st.integers(0, 3))):
        wild = draw(st.integers(0, 3)) == 2
        if draw(st.booleans()):
            units_ = UNITS if wild else ["1", "1", "fraction", "byte", "s"]
            ranges = ["(0, inf)", "[0, 1]", "(0, 1]", "(-inf, inf)", "[1, 1e7]"] + \
                (["(0, 1e-300]", "[5, 2]", "x", "(0, 1e400]"] if wild else [])
            decls[f"fz_f{i}"] = {"unit": draw(st.sampled_from(units_)),
                                 "range": draw(st.sampled_from(ranges)), "meaning": "m"}
        else:
            decls[f"fz_c{i}"] = {"kind": "category", "meaning": "m",
                                 "values": draw(st.lists(st.sampled_from([*HOSTILE_TEXT, "a", "b"]),
                                                         min_size=1, max_size=3, unique=True))}
    return decls


@st.composite
def fuzz_rules(draw, names: list[str], facts: dict) -> list:
    """Rules over the vocabulary and the pack's own facts: well typed three times in four."""
    plain = ("1", "fraction")  # well-typed arithmetic sticks to plain numbers, so units agree
    numeric = [n for n in names if (n in NUMBER_FACTS and VOCABULARY.specs[n].unit in plain)
               or (n in facts and facts[n].get("unit") in plain)]
    categories = {n: list(VOCABULARY.specs[n].values) for n in CATEGORY_FACTS}
    categories.update({n: list(d["values"]) for n, d in facts.items() if d.get("kind") == "category"})
    derivable = [n for n, d in facts.items() if d.get("kind") != "category"]
    rules: list[Any] = []
    for i in range(draw(st.integers(1, 5))):
        wild = draw(st.integers(0, 3)) == 2
        when = expressions(names) if wild else conditions(numeric, categories)
        formula = expressions(names) if wild else arithmetic(numeric, formula=True)
        rule: dict[str, Any] = {"id": f"fz_r{i}", "description": "d",
                                "because": draw(templates(names if wild else numeric))}
        kind = draw(st.sampled_from(["derive", "finding", "diagnose", "fix", "ask"]))
        if draw(st.integers(0, 9)) == 5:
            kind = "junk"
        if kind == "derive" and derivable:
            rule.update(derive=draw(st.sampled_from(derivable)), formula=draw(formula))
        elif kind == "diagnose":
            target = draw(st.sampled_from(sorted(c for c in categories if c.startswith("fz_")) or ["regime"]))
            rule.update(diagnose=target, value=draw(st.sampled_from(categories[target])))
        elif kind == "fix":
            priority = st.integers(-1, 100) if wild else st.integers(1, 99)
            rule.update(fix=draw(st.sampled_from(LEVERS if wild else TOY_LEVERS)), priority=draw(priority))
        elif kind == "ask":
            rule.update(ask=draw(st.sampled_from(numeric)), order=draw(st.integers(1, 3)))
        elif kind == "junk":
            rules.append(draw(values()))
            continue
        else:
            kind = "finding"
            rule.update(finding=f"fz_find_{i}")
        if kind != "derive" or draw(st.booleans()):
            rule["when"] = draw(when)
        rules.append(rule)
    return rules


@st.composite
def new_packs(draw) -> dict:
    """A new pack over the vocabulary, the toy pack's parameters and its own facts."""
    facts = draw(fact_decls())
    names = NUMBER_FACTS + CATEGORY_FACTS + list(facts) + ["threshold"]
    pack: dict[str, Any] = {"pack": "fz", "description": "fuzz pack", "facts": facts,
                            "rules": draw(fuzz_rules(names, facts))}
    if draw(st.booleans()):
        pack["parameters"] = {"fz_p": {"value": draw(numbers()), "unit": draw(st.sampled_from(UNITS)),
                                       "meaning": "m", "source": "s"}}
    if draw(st.integers(0, 9)) == 5:
        pack.pop(draw(st.sampled_from(sorted(pack))))
    return pack


@st.composite
def shipped_pack_mutations(draw) -> tuple[str, Any]:
    """One shipped pack with one of its rules, parameters or fact declarations changed."""
    name = draw(st.sampled_from(sorted(BASE_PACKS)))
    doc = yaml.safe_load(yaml.safe_dump(BASE_PACKS[name]))
    names = NUMBER_FACTS + CATEGORY_FACTS + PARAMETERS
    rules = doc.get("rules") or []
    what = draw(st.sampled_from(["when", "formula", "because", "value", "param", "fact", "rule"]))
    if what in ("when", "formula", "because", "value") and rules:
        rule = rules[draw(st.integers(0, len(rules) - 1))]
        rule[what] = draw(templates(names) if what == "because" else
                          st.one_of(st.sampled_from(HOSTILE_TEXT), expressions(names)))
    elif what == "param" and doc.get("parameters"):
        param = doc["parameters"][draw(st.sampled_from(sorted(doc["parameters"])))]
        key = draw(st.sampled_from(["value", "unit", "table", "list", "display"]))
        param[key] = draw(values())
    elif what == "fact" and doc.get("facts"):
        decl = doc["facts"][draw(st.sampled_from(sorted(doc["facts"])))]
        decl[draw(st.sampled_from(["unit", "range", "values", "kind", "display"]))] = draw(
            st.one_of(st.sampled_from(UNITS), values()))
    elif rules:
        rules[draw(st.integers(0, len(rules) - 1))] = draw(values())
    return name, doc


# ---- the property --------------------------------------------------------------------------

@dataclass(frozen=True)
class Verdict:
    kind: str          # "diagnosed", "refused" or "other" (a failure of the property)
    detail: str = ""
    fields: int = 0    # refusal lines that name a field (the rest name file and line only)
    lines: int = 0     # refusal lines


class _Hang(Exception):
    pass


@contextmanager
def time_limit(seconds: int) -> Iterator[None]:
    def stop(*_: object) -> None:
        raise _Hang(f"no answer within {seconds} s")
    previous = signal.signal(signal.SIGALRM, stop)
    signal.alarm(seconds)
    try:
        yield
    finally:
        signal.alarm(0)
        signal.signal(signal.SIGALRM, previous)


LOCATED = re.compile(r"^(?P<file>[^\n]+?):(?P<line>[1-9]\d*): (?P<rest>\S[^\n]*)$")
FAULTS = ("engine fault", "internal error", "please report", "Traceback")


def refusal(err: RegimeError, files: set[str]) -> Verdict:
    """Every error line must name one of the input files, a line, and say what is wrong."""
    errors = err.all()
    fields = 0
    for e in errors:
        text = str(e)
        m = LOCATED.match(text)
        if not m or m["file"] not in files or any(f in text for f in FAULTS):
            return Verdict("other", f"refusal not located or a fault: {text[:300]!r}")
        fields += e.field is not None
    return Verdict("refused", str(errors[0])[:200], fields, len(errors))


def diagnose_checked(path: Path, k: Knowledge) -> Verdict:
    """One case through both evaluators and every renderer; the two must agree exactly."""
    outcome, compiled = api.outcome(path, k), api.outcome(path, k, "compiled")
    if outcome.error is not None:
        same = compiled.error is not None and \
            [str(e) for e in compiled.error.all()] == [str(e) for e in outcome.error.all()]
        return refusal(outcome.error, {str(path)}) if same else \
            Verdict("other", f"evaluators disagree: durable {outcome.error}, compiled {compiled.error}")
    d = outcome.diagnosis
    text = output.to_json(output.entry(d, k, str(path)))
    if compiled.diagnosis is None or output.to_json(output.entry(compiled.diagnosis, k, str(path))) != text:
        return Verdict("other", f"evaluators disagree on {path.name}: compiled gave {compiled.error}")
    output.to_markdown(d, k)
    from rich.console import Console
    output.print_text(d, k, Console(file=io.StringIO(), width=100, force_terminal=True))
    return Verdict("diagnosed", d.case)


def guarded(fn, *args) -> Verdict:
    try:
        with time_limit(SECONDS):
            return fn(*args)
    except _Hang as err:
        return Verdict("other", f"hang: {err}")
    except Exception as err:
        return Verdict("other", f"{type(err).__name__}: {err}\n{traceback.format_exc(limit=-4)}")


@cache
def shipped_knowledge() -> Knowledge:
    return api.knowledge()


def check_case(data: bytes, workdir: Path, k: Knowledge) -> Verdict:
    path = workdir / "case.yaml"
    path.write_bytes(data)
    return guarded(diagnose_checked, path, k)


def _run_pack(dirs: list[Path], cases: list[Path]) -> Verdict:
    try:
        k = load_knowledge(VOCABULARY, dirs)
        api.runner(k)
    except RegimeError as err:  # the error may show in a pack that uses what the mutation broke
        return refusal(err, {str(p) for d in dirs for p in ([d] if d.is_file() else d.glob("*.yaml"))})
    verdicts = [diagnose_checked(c, k) for c in cases]
    bad = [v for v in verdicts if v.kind == "other"]
    return bad[0] if bad else Verdict("diagnosed", f"{len(cases)} case(s) on the pack")


def check_new_pack(data: bytes, workdir: Path) -> Verdict:
    """A generated pack beside the toy pack, then the toy case through both."""
    pack = workdir / "fz.yaml"
    pack.write_bytes(data)
    return guarded(_run_pack, [TOY / "toy_pack.yaml", pack], [TOY / "toy_case.yaml"])


def check_shipped_mutation(name: str, data: bytes, workdir: Path, cases: list[Path]) -> Verdict:
    """The shipped packs with one of them mutated, then a few cases through them."""
    rules = workdir / "rules"
    shutil.rmtree(rules, ignore_errors=True)
    rules.mkdir()
    for p in PACK_FILES:
        if p.name != name:
            shutil.copy(p, rules / p.name)
    (rules / name).write_bytes(data)
    return guarded(_run_pack, [rules], cases)

"""One rule prepared for running (`Plan`), and how a fact or a pack parameter reads in a rule's text.

A plan is made for every rule when the knowledge is first run, and most of it on first use: a
case fires a fraction of the rules and tests the conditions of few more (firing.py runs them).
"""

from __future__ import annotations

from collections.abc import Callable
from functools import cached_property
from typing import Any

from regime.core import units
from regime.core.record import Record, record
from regime.engine import lang
from regime.engine.knowledge.model import Knowledge, Rule
from regime.engine.lang.template import BARE, Field
from regime.facts.vocabulary import FactSpec, Interval


def fired_marker(rule_id: str) -> str:
    return f"_fired_{rule_id}"


@record
class Assumption(Record):
    """A pack parameter a firing uses: it becomes a fact with provenance 'assumed'."""

    name: str
    value: float
    unit: str
    origin: str
    layer: str



class Plan:
    """One rule, prepared for running once per knowledge set. What only a firing needs (its
    formula, texts and assumptions) and its compiled condition are made on first use: a case
    fires a fraction of the rules and tests the conditions of few more, and `regime diagnose`
    starts a process per case."""

    def __init__(self, k: Knowledge, rule: Rule) -> None:
        self.k = k
        self.rule = rule
        self.marker = fired_marker(rule.id)
        self.needs = tuple(rule.required())
        self.blockers = (self.marker,) if rule.target is None else (self.marker, rule.target)
        self.eligible = _eligibility(self.blockers, frozenset(self.needs), rule)

    @cached_property
    def formula(self) -> Callable[[lang.Facts], Any] | None:
        return lang.compile_value(self.rule.formula.tree) if self.rule.formula else None

    @cached_property
    def reads(self) -> tuple[str, ...]:
        return tuple(self.rule.reads())

    @cached_property
    def picks(self) -> tuple[lang.Pick, ...]:
        return tuple(lang.picks(self.rule.formula.tree)) if self.rule.formula else ()

    @cached_property
    def watch(self) -> frozenset[str]:
        """The fields whose arrival can change whether the rule may fire."""
        when = self.rule.when
        return frozenset({*self.blockers, *self.needs, *(when.facts() if when else ())})

    @cached_property
    def assumptions(self) -> tuple[Assumption, ...]:
        return _assumptions(self.k, self.rule)

    @cached_property
    def target(self) -> FactSpec | None:
        # mypy cannot see it: derive rules always name their target
        return self.k.vocabulary.get(self.rule.target) if self.rule.kind == "derive" else None  # type: ignore[arg-type]

    @property
    def valid(self) -> Interval | None:
        return self.target.interval if self.target else None

    @cached_property
    def because(self) -> tuple[tuple[str, Callable[[lang.Facts], str] | None], ...]:
        return _parts(self.k, self.rule.because)

    @cached_property
    def condition(self) -> tuple[tuple[str, Callable[[lang.Facts], str] | None], ...] | None:
        return _parts(self.k, self.rule.condition) if self.rule.condition is not None else None

    @cached_property
    def because_if(self) -> tuple[tuple[Callable[[lang.Facts], bool], tuple], ...]:
        return tuple((lang.compile_truth(w.tree), _parts(self.k, t)) for w, t in self.rule.because_if)

    def render(self, wm: lang.Facts) -> str:
        """The rule's `because` on these facts: the first `because_if` variant that holds, if any."""
        return _join(next((parts for holds, parts in self.because_if if holds(wm)), self.because), wm)

    def render_condition(self, wm: lang.Facts) -> str | None:
        """The verdict's `condition` on these facts, when the rule states one."""
        return None if self.condition is None else _join(self.condition, wm)


def _join(parts: tuple[tuple[str, Callable[[lang.Facts], str] | None], ...], wm: lang.Facts) -> str:
    return "".join([lit if show is None else lit + show(wm) for lit, show in parts])


def _eligibility(blockers: tuple[str, ...], needs: frozenset[str],
                 rule: Rule) -> Callable[[lang.Facts], bool]:
    """Not fired, target absent, formula inputs present, condition true: one closure per rule,
    its condition compiled the first time the other tests pass."""
    when = rule.when
    holds: Callable[[lang.Facts], bool] | None = None

    def eligible(wm: lang.Facts) -> bool:
        nonlocal holds
        for f in blockers:
            if f in wm:
                return False
        if not wm.keys() >= needs:
            return False
        if when is None:
            return True
        if holds is None:
            holds = lang.compile_truth(when.tree)
        return holds(wm)
    return eligible



def _parts(k: Knowledge, template) -> tuple[tuple[str, Callable[[lang.Facts], str] | None], ...]:
    return tuple((lit, None if f is None else _field_text(k, f)) for lit, f in template.parts)


def _field_text(k: Knowledge, f: Field) -> Callable[[lang.Facts], str]:
    """How one template field renders: the fact in its display (or asked) unit when known, else
    the pack parameter of that name, else '<name unknown>'."""
    key, unit, fallback = f.key, f.unit, ""

    def text(wm: lang.Facts) -> str:
        nonlocal fallback
        if key in wm:
            return show(k, key, wm[key], unit)
        if not fallback:
            fallback = _parameter_text(k, f)
        return fallback
    return text


def _parameter_text(k: Knowledge, f: Field) -> str:
    param = k.parameters.get(f.name)
    if param is not None and param.value is not None:
        display = param.display or _display(param.unit)
        if f.unit == BARE:
            return units.format_number(param.value * (100 if display == "%" else 1))
        return units.format_quantity(param.value, _unit(param.unit), f.unit or display)
    return f"<{f.key} unknown>"


def show(k: Knowledge, fieldname: str, value: Any, unit: str | None = None) -> str:
    """A working-memory value as text, in its fact's display unit (or `unit`)."""
    if isinstance(value, str | bool):
        return str(value)
    base = fieldname.split("__")[0]
    fact = k.vocabulary.specs.get(base) or k.vocabulary.get(base)
    if unit == BARE:
        shown = units.format_quantity(value, fact.unit, fact.display)
        return shown.split(" ")[0] if fact.display not in ("%",) else shown
    return units.format_quantity(value, fact.unit, unit or fact.display)


def _assumptions(k: Knowledge, rule: Rule) -> tuple[Assumption, ...]:
    used = [n for e in (rule.when, rule.formula) if e is not None for n in e.constants()]
    names = {f.name for f in rule.because.fields()}
    used += [lang.Num(p.value, p.unit, name) for name, p in k.parameters.items()
             if name in names and p.value is not None]
    out = []
    for num in used:
        # mypy cannot see it: named constants carry their parameter's name
        param = k.parameters[num.name.split("[")[0]]  # type: ignore[union-attr]
        # mypy cannot see it: named constants carry their parameter's name
        out.append(Assumption(num.name, num.value, _unit(num.unit or "1"),  # type: ignore[arg-type]
                              f"{param.pack}: {param.source}", param.layer))
    return tuple(out)



def _unit(unit: str) -> str:
    return units.FRACTION if unit == "%" else unit


def _display(unit: str) -> str | None:
    return "%" if unit in ("%", units.FRACTION) else None

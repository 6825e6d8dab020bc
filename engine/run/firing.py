"""Forward chaining as both evaluators run it: which rule may fire, what a firing concludes.

The durable-rules session (the engine of record) and the compiled evaluator differ only in how
they find the next rule to fire. Both fire it here, so a firing's conclusions, trace entry and
derived facts come from one piece of code; the differential test compares which rule fires when.

Semantics: working memory is one flat mapping (group members as `group__member`, a marker
field per group, `_fired_<rule>` per rule that concluded without setting a fact). A rule is
eligible when it has not fired, its target is absent, the fields its formula needs are
present, and its condition holds. The next rule to fire is the first eligible one in firing
order: stage (derive, diagnose, finding, fix/reject, ask) less the layer's precedence, then
load order (`priority`). Each fires once.
"""

from __future__ import annotations

import math
from typing import Any

from regime.core import units
from regime.core.errors import RegimeError
from regime.engine import lang
from regime.engine.knowledge.model import Knowledge, Rule
from regime.engine.run.diagnosis import Bound, Conclusion, Diagnosis, Firing
from regime.engine.run.plan import Plan, show
from regime.engine.run.settle import settle
from regime.facts.case import Case
from regime.facts.record import FactRecord

STAGE_PRI = {"derive": 100, "diagnose": 200, "finding": 300, "fix": 400, "reject": 400, "ask": 500}
OWED_PRI = 460  # a verdict testing judged() waits for every other verdict (precedence <= 50)
# Fields every working memory carries for durable (its anchor, session id, a constant zero to
# compare expressions against, two bucket fields for the alpha network).
SID = "sid"
ANCHOR = ("_t", "wm")
INTERNAL = {SID: "", ANCHOR[0]: ANCHOR[1], lang.ZERO_FIELD: 0.0, "_a": 0.0, "_b": 0.0}
# durable stores at most 255 properties per message (one is its id): the limits hold for both
# evaluators, so neither gives an answer the other cannot.
MAX_WM_FIELDS = 250
MAX_CASE_FIELDS = 150

NO_VERDICT = "no_verdict"  # the finding the engine itself concludes: a proposal nobody judged


class EngineFault(RuntimeError):
    """The evaluators disagreed with the rules' semantics, or a firing failed: a bug, not bad input."""


class Program:
    """Knowledge prepared for running: plans in firing order."""

    def __init__(self, k: Knowledge) -> None:
        self.k = k
        order = sorted(range(len(k.rules)), key=lambda i: (priority(k.rules[i]), i))
        self.plans = [Plan(k, k.rules[i]) for i in order]
        self.by_id = {p.rule.id: p for p in self.plans}
        self.flags = tuple(s.name for s in k.vocabulary.specs.values() if s.kind == "flags")


def priority(rule: Rule) -> int:
    """durable's priority for the rule (lower fires first): its stage, less its layer's precedence."""
    owed = rule.kind in ("fix", "reject") and rule.when is not None and lang.reads_verdicts(rule.when.tree)
    return (OWED_PRI if owed else STAGE_PRI[rule.kind]) - rule.precedence


class Run:
    """One case being diagnosed: its working memory, what fired, the Diagnosis so far."""

    def __init__(self, program: Program, case: Case, sid: str = "") -> None:
        self.p = program
        self.k = program.k
        self.case = case
        self.d = Diagnosis(case.id, case.title, case.path, facts=dict(case.facts),
                           layers=list(self.k.layers), amendments=[a.as_dict() for a in self.k.amendments],
                           summary=case.summary, hardware=case.hardware, model=case.model)
        self.wm = initial_memory(case, sid)
        self.fired: set[str] = set()
        self.step = 0

    # ---- one firing -------------------------------------------------------------------------

    def eligible(self, plan: Plan) -> bool:
        try:
            return plan.eligible(self.wm)
        except Exception as err:
            raise EngineFault(f"case {self.case.id}: {err!r}") from err

    def fire(self, plan: Plan) -> dict[str, Any]:
        """Conclude `plan`'s rule on the current facts; returns the fields it adds (already in wm).

        A failure that is not bad input becomes an EngineFault naming the case, the same
        whichever evaluator asked."""
        try:
            updates = self._fire(plan)
        except (RegimeError, EngineFault):
            raise
        except Exception as err:
            raise EngineFault(f"case {self.case.id}: {err!r}") from err
        if len(self.wm) + len(updates) > MAX_WM_FIELDS:
            raise RegimeError(
                f"rule '{plan.rule.id}' would make the case's working memory "
                f"{len(self.wm) + len(updates)} fields (its facts and what {self.step - 1} firings "
                f"concluded); durable-rules holds {MAX_WM_FIELDS}: give fewer facts or load "
                "fewer rules that conclude on one case", file=plan.rule.file, line=plan.rule.line,
                field=plan.rule.id)
        self.wm.update(updates)
        return updates

    def _fire(self, plan: Plan) -> dict[str, Any]:
        rule, wm = plan.rule, self.wm
        if rule.id in self.fired:
            raise EngineFault(f"rule '{rule.id}' fired twice")
        self.step += 1
        self.fired.add(rule.id)
        updates: dict[str, Any] = {} if rule.target else {plan.marker: True}
        matched = {f: wm[f] for f in plan.reads if f in wm}
        for pick in plan.picks:  # group members the formula picks by a category fact
            if pick.key.field in wm:
                member = lang.picked_member(pick, wm)
                if member in wm:
                    matched[member] = wm[member]
        d = self.d
        if rule.kind == "derive":
            updates.update(self._derive(plan, matched))
            if rule.target not in updates:
                updates[plan.marker] = True
        elif rule.kind == "diagnose":
            target = _target(rule)
            value = wm[rule.copy_from] if rule.copy_from else rule.value
            assert value is not None, f"diagnose rule {rule.id} names a value or a fact to copy"
            updates[target] = value
            d.facts[target] = FactRecord(target, value, "category", "derived", rule.id, rule=rule.id,
                                         inputs=tuple(matched), formula=rule.copy_from or repr(value),
                                         layer=rule.layer)
            self._conclude(plan, {**wm, **updates}, id=str(value), fact=target)
        else:
            self._conclude(plan, wm, id=rule.subject or rule.id)
            judged = lang.Ref(lang.JUDGED, rule.subject or "", kind="flags").field  # what judged() reads
            if rule.kind in ("fix", "reject") and rule.subject in self.k.levers and judged not in wm:
                updates[judged] = True
        for a in plan.assumptions:
            if a.name not in d.facts:
                d.facts[a.name] = FactRecord(a.name, a.value, a.unit, "assumed", a.origin, layer=a.layer)
        asserted = {k: v for k, v in updates.items() if not k.startswith("_")}
        d.trace.append(Firing(self.step, rule.id, rule.kind, rule.pack, matched, asserted, rule.layer))
        return updates

    def _derive(self, plan: Plan, matched: dict) -> dict[str, Any]:
        rule, spec, formula, valid = plan.rule, plan.target, plan.formula, plan.valid
        target = _target(rule)
        assert spec is not None and formula is not None and valid is not None and rule.formula is not None, \
            "a derive plan has its target's spec, a compiled formula and a valid range"
        try:
            value = formula(self.wm)
        except lang.Unlisted:
            return {}
        except (lang.Missing, KeyError) as err:
            return self._unusable(rule, f"could not evaluate: {err}")
        if isinstance(value, float) and (not units.plausible(value) or not valid.contains(value)):
            shown = units.format_quantity(value, spec.unit, spec.display) if math.isfinite(value) else value
            where = units.describe() if valid.contains(value) else spec.range
            return self._unusable(rule, f"gives {shown}, outside the valid range {where}")
        because = plan.render({**self.wm, target: value})
        self.d.facts[target] = FactRecord(
            target, value, spec.unit if spec.kind == "number" else "category", "derived",
            rule.id, rule=rule.id, formula=rule.formula.source, inputs=tuple(matched),
            layer=rule.layer, notes=(because,))
        return {target: value}

    def _unusable(self, rule: Rule, why: str) -> dict[str, Any]:
        """A derivation that fails on these facts is a finding about the data, not a crash."""
        # mypy cannot see it: only derive rules (target and formula set) get here
        text = f"{rule.target} = {rule.formula.source} {why}; inputs: " + ", ".join(  # type: ignore[union-attr]
            f"{f}={self._show(f, self.wm)}" for f in rule.reads() if f in self.wm)
        self.d.conclusions.append(Conclusion("finding", "derivation_failed", rule.id, text,
                                             self.step, rule.pack, refs=rule.refs))
        return {}

    def _conclude(self, plan: Plan, wm: dict, id: str, fact: str | None = None) -> None:
        rule, because, condition = plan.rule, plan.render(wm), plan.render_condition(wm)
        bounds = tuple(self._bound(b, wm) for b in rule.bound if b in wm)
        lever = rule.subject if rule.kind in ("fix", "reject") and rule.subject in self.k.levers else None
        claim = rule.subject if rule.kind == "reject" and lever is None else None
        self.d.conclusions.append(Conclusion(
            rule.kind, id, rule.id, because, self.step, rule.pack, lever=lever, claim=claim,
            priority=rule.priority, order=rule.order, bound=bounds, refs=rule.refs, fact=fact,
            holds=rule.holds, condition=condition, **_speedup(rule, wm)))

    def _bound(self, name: str, wm: dict) -> Bound:
        spec = self.k.vocabulary.get(name.split("__")[0])
        return Bound(name, wm[name], spec.unit, self._show(name, wm))

    def _show(self, fieldname: str, wm: dict) -> str:
        return show(self.k, fieldname, wm[fieldname])

    # ---- the end of a run -------------------------------------------------------------------

    def check_fixpoint(self, engine: str) -> None:
        """Every rule that may fire on the final facts must have fired: a rule left unfired is
        an evaluator bug, and we would rather stop than give a partial answer."""
        for plan in self.p.plans:
            if self.eligible(plan):
                raise EngineFault(f"rule '{plan.rule.id}' holds on the final facts but {engine} "
                                  "never fired it")

    def finish(self) -> Diagnosis:
        d = self.d
        d.memory = {k: v for k, v in self.wm.items() if not k.startswith("_") and k != SID}
        self._verdicts_owed()
        settle(d, self.k)
        return d

    def _verdicts_owed(self) -> None:
        """Every proposal and claim in the case must get a verdict; say so when none did."""
        d = self.d
        judged = {c.lever or c.claim for c in d.conclusions if c.kind in ("fix", "reject")}
        for name in sorted(self.wm):
            group, _, item = name.partition("__")
            if group in self.p.flags and item and item not in judged:
                d.conclusions.append(Conclusion(
                    "finding", NO_VERDICT, "(engine)",
                    f"{group} '{item}' in the case gets no verdict from any rule in the loaded packs",
                    self.step + 1))


def initial_memory(case: Case, sid: str = "") -> dict[str, Any]:
    """The case's facts as one flat working memory, group markers and durable's fields included."""
    wm: dict[str, Any] = {**INTERNAL, SID: sid}
    for name, rec in case.facts.items():
        wm[name] = rec.value
        if "__" in name:  # a group member: mark the group present
            group = name.split("__")[0]
            wm[group] = float(wm.get(group, 0.0)) + 1.0
    if len(wm) > MAX_CASE_FIELDS:
        raise RegimeError(f"the case gives {len(wm)} facts (group members count one each); "
                          f"at most {MAX_CASE_FIELDS} fit durable-rules' working memory",
                          file=case.path)
    return wm


def _speedup(rule: Rule, wm: dict) -> dict[str, Any]:
    """The fix's speedup figures: for each, the fact of the best basis the facts hold."""
    out: dict[str, Any] = {}
    bound = next(((b, f) for b, f in rule.speedup_bound if f in wm), None)
    if bound is not None:
        out.update(speedup_bound=float(wm[bound[1]]), speedup_basis=bound[0], speedup_fact=bound[1])
    expected = next((f for _, f in rule.speedup_expected if f in wm), None)
    if expected is not None:
        out["speedup_expected"] = float(wm[expected])
    return out


def _target(rule: Rule) -> str:
    """The fact a derive or diagnose rule sets (the loader requires one)."""
    assert rule.target is not None, f"rule {rule.id} sets no fact"
    return rule.target

"""Run one case through the compiled knowledge in its own durable-rules session.

Working memory is one durable fact per session: the case's facts as fields. A rule that
concludes something retracts that fact and asserts a successor with the new fields (and a
`_fired_<rule>` marker), so durable re-matches every rule against it: forward chaining to a
fixpoint, each rule firing at most once. Stage order comes from durable's `pri`: derive,
then diagnose, finding, fix/reject, ask, so `absent(x)` in an ask rule is judged after
everything derivable has been derived.
"""

from __future__ import annotations

import copy
import hashlib
import itertools
import math
import pickle
from dataclasses import dataclass, field
from typing import Any

from regime.core import units
from regime.core.errors import RegimeError
from regime.engine import durable_bridge, expr
from regime.engine.diagnosis import Bound, Conclusion, Diagnosis, Firing
from regime.engine.knowledge import Knowledge, Rule
from regime.engine.template import BARE, Field
from regime.facts.case import Case
from regime.facts.record import FactRecord

# durable walks its alpha network with a fixed stack of 64 nodes and pushes every matching
# child of a node at once, so ~70 rules hanging off one anchor overflow it (error 303).
# Two always-true tests per rule (`_a >= -group`, `_b >= -subgroup`, distinct nodes on two
# fields) give the network a fan-out of at most BUCKET per level below the first.
BUCKET = 8
MAX_RULES = BUCKET * BUCKET * 48
# durable stores at most 255 properties per fact; leave room for what the rules conclude.
MAX_WM_FIELDS = 250
MAX_CASE_FIELDS = 150
STAGE_PRI = {"derive": 100, "diagnose": 200, "finding": 300, "fix": 400, "reject": 400, "ask": 500}
CATCH_ALL_PRI = 65000
ANCHOR = {"_t": "wm"}
_SIDS = itertools.count(1)


class EngineFault(RuntimeError):
    """Durable and the Python evaluator disagreed, or an action failed: a bug, not bad input."""


@dataclass
class _State:
    diagnosis: Diagnosis
    wm: dict[str, Any]
    errors: list[BaseException] = field(default_factory=list)
    step: int = 0
    fired: set[str] = field(default_factory=set)


_ACTIVE: dict[str, _State] = {}


class Runner:
    """Compiles Knowledge to one durable ruleset (once) and diagnoses cases with it."""

    def __init__(self, knowledge: Knowledge) -> None:
        self.k = knowledge
        self.by_id = {r.id: r for r in knowledge.rules}
        if len(knowledge.rules) > MAX_RULES:
            raise RegimeError(f"{len(knowledge.rules)} rules loaded; at most {MAX_RULES} fit one "
                              "durable-rules ruleset")
        try:
            self.name = durable_bridge.register(self._definition(), salt=_fingerprint(knowledge))
        except durable_bridge.RulesetRejected as err:
            rid, why = next(iter(err.culprits.items()))
            rule = self.by_id.get(rid)
            raise RegimeError(f"rule '{rid}' is beyond what durable-rules can compile ({why}); "
                              "split its condition into smaller rules",
                              file=rule.file if rule else None, line=rule.line if rule else None,
                              field="when") from None

    def _definition(self) -> dict[str, dict]:
        rules: dict[str, dict] = {}
        for index, rule in enumerate(self.k.rules):
            rules[rule.id] = {"all": [{"m": self._condition(rule, index)}],
                              "pri": STAGE_PRI[rule.kind] - rule.precedence, "run": self._action(rule)}
        # A catch-all keeps durable from crashing on delete_state of a sid nothing matched.
        rules["_catch_all"] = {"all": [{"m": dict(ANCHOR)}], "pri": CATCH_ALL_PRI,
                               "run": lambda c: None}
        return copy.deepcopy(rules)

    def _condition(self, rule: Rule, index: int) -> dict:
        parts: list[dict] = [dict(ANCHOR), *_bucket_tests(index)]
        # A rule fires once: derive/diagnose rules because their target then exists, the
        # others (and derivations that could not be made) because they leave a marker.
        parts.append({"$nex": {_fired(rule.id): 1}})
        if rule.target:
            parts.append({"$nex": {rule.target: 1}})
        parts.extend({"$ex": {f: 1}} for f in rule.required())
        if rule.when is not None:
            parts.append(expr.to_durable(rule.when.tree))
        return {"$and": parts}

    def _action(self, rule: Rule):
        def act(c) -> None:
            wm = {k: v for k, v in c.m.items()}
            st = _ACTIVE.get(wm.get("sid", ""))
            if st is None:
                return
            try:
                updates = self._fire(rule, st, wm)
            except BaseException as err:
                st.errors.append(err)
                return
            successor = {**wm, **updates, "_v": wm["_v"] + 1}
            if len(successor) > MAX_WM_FIELDS:
                st.errors.append(RegimeError(
                    f"the case's facts and conclusions need {len(successor)} fields; durable-rules "
                    f"holds {MAX_WM_FIELDS}: give fewer facts (e.g. fewer kernel_share members)"))
                return
            c.retract_fact(wm)
            c.assert_fact(successor)
            st.wm = successor
        return act

    # ---- one firing ---------------------------------------------------------------------

    def _fire(self, rule: Rule, st: _State, wm: dict[str, Any]) -> dict[str, Any]:
        if rule.when is not None and not expr.truth(rule.when.tree, wm):
            raise EngineFault(f"durable fired '{rule.id}' but its condition is false in Python")
        if rule.id in st.fired:
            raise EngineFault(f"rule '{rule.id}' fired twice")
        st.step += 1
        st.fired.add(rule.id)
        updates: dict[str, Any] = {} if rule.target else {_fired(rule.id): True}
        reads = rule.reads() + (expr.picked(rule.formula.tree, wm) if rule.formula else [])
        matched = {f: wm[f] for f in reads if f in wm}
        d = st.diagnosis
        if rule.kind == "derive":
            updates.update(self._derive(rule, st, wm, matched))
            if rule.target not in updates:
                updates[_fired(rule.id)] = True
        elif rule.kind == "diagnose":
            value = wm[rule.copy_from] if rule.copy_from else rule.value
            updates[rule.target] = value  # type: ignore[index]
            d.facts[rule.target] = FactRecord(rule.target, value, "category", "derived",  # type: ignore[arg-type]
                                              rule.id, rule=rule.id, inputs=tuple(matched),
                                              formula=rule.copy_from or repr(value), layer=rule.layer)
            self._conclude(rule, st, {**wm, **updates}, id=str(value), fact=rule.target)
        else:
            self._conclude(rule, st, wm, id=rule.subject or rule.id)
        self._record_assumptions(rule, d)
        asserted = {k: v for k, v in updates.items() if not k.startswith("_")}
        d.trace.append(Firing(st.step, rule.id, rule.kind, rule.pack, matched, asserted, rule.layer))
        return updates

    def _record_assumptions(self, rule: Rule, d: Diagnosis) -> None:
        """Pack parameters a firing used become facts with provenance 'assumed' and their source."""
        used = [n for e in (rule.when, rule.formula) if e is not None for n in e.constants()]
        names = {f.name for f in rule.because.fields()}
        for name, param in self.k.parameters.items():
            if name in names and param.value is not None and name not in d.facts:
                used.append(expr.Num(param.value, param.unit, name))
        for num in used:
            base = num.name.split("[")[0]  # type: ignore[union-attr]
            param = self.k.parameters[base]
            if num.name not in d.facts:
                d.facts[num.name] = FactRecord(  # type: ignore[index]
                    num.name, num.value, _unit(num.unit or "1"), "assumed",  # type: ignore[arg-type]
                    f"{param.pack}: {param.source}", layer=param.layer)

    def _derive(self, rule: Rule, st: _State, wm: dict[str, Any], matched: dict) -> dict[str, Any]:
        spec = self.k.vocabulary.get(rule.target)  # type: ignore[arg-type]
        try:
            value = expr.value(rule.formula.tree, wm)  # type: ignore[union-attr]
        except expr.Unlisted:
            return {}
        except (expr.Missing, KeyError) as err:
            return self._unusable(rule, st, wm, f"could not evaluate: {err}")
        if isinstance(value, float) and (not units.plausible(value) or not spec.interval.contains(value)):
            shown = units.format_quantity(value, spec.unit, spec.display) if math.isfinite(value) else value
            where = units.describe() if spec.interval.contains(value) else spec.range
            return self._unusable(rule, st, wm, f"gives {shown}, outside the valid range {where}")
        because = rule.because.render(lambda f: self._render_field(f, {**wm, rule.target: value}))
        st.diagnosis.facts[rule.target] = FactRecord(  # type: ignore[index]
            rule.target, value, spec.unit if spec.kind == "number" else "category", "derived",  # type: ignore[arg-type]
            rule.id, rule=rule.id, formula=rule.formula.source, inputs=tuple(matched),  # type: ignore[union-attr]
            layer=rule.layer, notes=(because,))
        return {rule.target: value}  # type: ignore[dict-item]

    def _unusable(self, rule: Rule, st: _State, wm: dict, why: str) -> dict[str, Any]:
        """A derivation that fails on these facts is a finding about the data, not a crash."""
        text = f"{rule.target} = {rule.formula.source} {why}; inputs: " + ", ".join(  # type: ignore[union-attr]
            f"{f}={self._show(f, wm)}" for f in rule.reads() if f in wm)
        st.diagnosis.conclusions.append(Conclusion("finding", "derivation_failed", rule.id, text,
                                                   st.step, rule.pack, refs=rule.refs))
        return {}

    def _conclude(self, rule: Rule, st: _State, wm: dict, id: str, fact: str | None = None) -> None:
        because = rule.because.render(lambda f: self._render_field(f, wm))
        bounds = tuple(self._bound(b, wm) for b in rule.bound if b in wm)
        lever = rule.subject if rule.kind in ("fix", "reject") and rule.subject in self.k.levers else None
        claim = rule.subject if rule.kind == "reject" and lever is None else None
        st.diagnosis.conclusions.append(Conclusion(
            rule.kind, id, rule.id, because, st.step, rule.pack, lever=lever, claim=claim,
            priority=rule.priority, order=rule.order, bound=bounds, refs=rule.refs, fact=fact))

    def _bound(self, name: str, wm: dict) -> Bound:
        spec = self.k.vocabulary.get(name.split("__")[0])
        return Bound(name, wm[name], spec.unit, self._show(name, wm))

    def _render_field(self, f: Field, wm: dict) -> str:
        if f.key in wm:
            return self._show(f.key, wm, f.unit, f.spec)
        param = self.k.parameters.get(f.name)
        if param is not None and param.value is not None:
            display = param.display or _display(param.unit)
            if f.unit == BARE:
                return units.format_number(param.value * (100 if display == "%" else 1), f.spec)
            return units.format_quantity(param.value, _unit(param.unit), f.unit or display, f.spec)
        return f"<{f.key} unknown>"

    def _show(self, fieldname: str, wm: dict, unit: str | None = None, spec: str | None = None) -> str:
        value = wm[fieldname]
        if isinstance(value, str | bool):
            return str(value)
        fact = self.k.vocabulary.get(fieldname.split("__")[0])
        if unit == BARE:
            shown = units.format_quantity(value, fact.unit, fact.display, spec)
            return shown.split(" ")[0] if fact.display not in ("%",) else shown
        return units.format_quantity(value, fact.unit, unit or fact.display, spec)

    # ---- running a case -------------------------------------------------------------------

    def diagnose(self, case: Case) -> Diagnosis:
        sid = f"s{next(_SIDS)}"  # never contains 'e-': keeps durable_bridge.dumps on its fast path
        d = Diagnosis(case.id, case.title, case.path, facts=dict(case.facts), layers=list(self.k.layers),
                      amendments=[a.as_dict() for a in self.k.amendments])
        wm: dict[str, Any] = {"sid": sid, **ANCHOR, "_v": 1, expr.ZERO_FIELD: 0.0, **BUCKET_FIELDS}
        for name, rec in case.facts.items():
            wm[name] = rec.value
            if "__" in name:  # a group member: mark the group present
                group = name.split("__")[0]
                wm[group] = float(wm.get(group, 0.0)) + 1.0
        if len(wm) > MAX_CASE_FIELDS:
            raise RegimeError(f"the case gives {len(wm)} facts (group members count one each); "
                              f"at most {MAX_CASE_FIELDS} fit durable-rules' working memory",
                              file=case.path)
        st = _State(d, wm)
        _ACTIVE[sid] = st
        try:
            durable_bridge.run_session(self.name, sid, wm)
        finally:
            _ACTIVE.pop(sid, None)
        if st.errors:
            first = st.errors[0]
            if isinstance(first, RegimeError):
                raise first.located(file=case.path)
            raise EngineFault(f"case {case.id}: {first!r}") from first
        self._check_fixpoint(st)
        d.memory = {k: v for k, v in st.wm.items() if not k.startswith("_") and k != "sid"}
        self._verdicts_owed(d, st)
        return d

    def _check_fixpoint(self, st: _State) -> None:
        """Every rule that holds on the final working memory must have fired: a rule durable
        left unfired is a compiler bug, and we would rather stop than give a partial answer."""
        for rule in self.k.rules:
            if rule.id in st.fired or (rule.target and rule.target in st.wm):
                continue
            if any(f not in st.wm for f in rule.required()):
                continue
            if rule.when is None or expr.truth(rule.when.tree, st.wm):
                raise EngineFault(f"rule '{rule.id}' holds on the final facts but durable-rules "
                                  "never fired it")

    def _verdicts_owed(self, d: Diagnosis, st: _State) -> None:
        """Every proposal and claim in the case must get a verdict; say so when none did."""
        judged = {c.lever or c.claim for c in d.conclusions if c.kind in ("fix", "reject")}
        flags = [spec.name for spec in self.k.vocabulary.specs.values() if spec.kind == "flags"]
        for name in sorted(st.wm):
            group, _, item = name.partition("__")
            if group in flags and item and item not in judged:
                d.conclusions.append(Conclusion(
                    "finding", "no_verdict", "(engine)",
                    f"{group} '{item}' in the case gets no verdict from any rule in the loaded packs",
                    st.step + 1))


BUCKET_FIELDS = {"_a": 0.0, "_b": 0.0}


def _fingerprint(k: Knowledge) -> str:
    """What the actions close over, so a different knowledge set never reuses a ruleset."""
    parts = (k.rules, k.parameters, k.levers, k.claims, k.vocabulary.specs)
    return hashlib.sha256(pickle.dumps(parts)).hexdigest()


def _bucket_tests(index: int) -> tuple[dict, dict]:
    return ({"$gte": {"_a": -1.0 - index // (BUCKET * BUCKET)}},
            {"$gte": {"_b": -1.0 - index // BUCKET}})


def _fired(rule_id: str) -> str:
    return f"_fired_{rule_id}"


def _unit(unit: str) -> str:
    return units.FRACTION if unit == "%" else unit


def _display(unit: str) -> str | None:
    return "%" if unit in ("%", units.FRACTION) else None

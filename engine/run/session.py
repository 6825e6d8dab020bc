"""The engine of record: run one case through the compiled knowledge in a durable-rules session.

Working memory is one durable *event* per step: the case's facts as fields. durable matches it
against every rule and starts the first action in priority order (stage, then load order);
the action fires that rule (engine.run.firing) and posts a successor event with the new fields.
When the action completes durable consumes the old event, dropping every other rule it had
matched, so the successor is matched afresh: forward chaining to a fixpoint, one firing per
event, each rule once. A catch-all rule at the lowest priority ends the chain.

Each firing is re-checked in Python, and after the run every rule that may still fire on the
final facts must have fired; otherwise the run stops with an engine fault, not a partial answer.
"""

from __future__ import annotations

import itertools

from regime.core.errors import RegimeError
from regime.engine import lang
from regime.engine.knowledge.model import Knowledge
from regime.engine.run import durable_bridge
from regime.engine.run.diagnosis import Diagnosis
from regime.engine.run.firing import ANCHOR, EngineFault, Plan, Program, Run, priority
from regime.facts.case import Case

__all__ = ["EngineFault", "Runner"]

# durable walks its alpha network with a fixed stack of 64 nodes and pushes every matching
# child of a node at once, so ~70 rules hanging off one anchor overflow it (error 303).
# Two always-true tests per rule (`_a >= -group`, `_b >= -subgroup`, distinct nodes on two
# fields) give the network a fan-out of at most BUCKET per level below the first.
BUCKET = 8
MAX_RULES = BUCKET * BUCKET * 48
CATCH_ALL = "_catch_all"
CATCH_ALL_PRI = 65000
_SIDS = itertools.count(1)
DEFINITION = "durable_definition"  # Knowledge.prepared: the ruleset's text, made when it is built


def prepare(k: Knowledge) -> None:
    """Work out the durable ruleset's text now, so the knowledge cache keeps it."""
    k.prepared[DEFINITION] = durable_bridge.dumps(definition(Program(k)))


class Runner:
    """Compiles Knowledge to one durable ruleset and diagnoses cases with it. The ruleset is
    deleted from durable when the Runner is dropped."""

    engine = "durable"

    def __init__(self, knowledge: Knowledge, program: Program | None = None) -> None:
        self.k = knowledge
        self.program = program or Program(knowledge)
        self.ruleset = compile_ruleset(self.program)

    def diagnose(self, case: Case) -> Diagnosis:
        run = Run(self.program, case, sid=f"s{next(_SIDS)}")
        memory = durable_bridge.Memory(run.wm)

        def fire(rule_id: str) -> str | None:
            if rule_id == CATCH_ALL:
                return None
            plan = self.program.by_id[rule_id]
            if not run.eligible(plan):
                raise EngineFault(f"durable fired '{rule_id}' but its condition is false in Python")
            return memory.extended(run.fire(plan))

        self.ruleset.run(run.wm["sid"], memory.text(), fire)
        run.check_fixpoint("durable-rules")
        return run.finish()


def compile_ruleset(program: Program) -> durable_bridge.Ruleset:
    """The program as one durable ruleset; what durable refuses becomes a located pack error."""
    rules = program.k.rules
    if len(rules) > MAX_RULES:
        raise RegimeError(f"{len(rules)} rules loaded; at most {MAX_RULES} fit one durable-rules ruleset")
    try:
        return durable_bridge.Ruleset(program.k.prepared.get(DEFINITION) or definition(program))
    except durable_bridge.RulesetRejected as err:
        rid, why = next(iter(err.culprits.items()))
        plan = program.by_id.get(rid)
        raise RegimeError(f"rule '{rid}' is beyond what durable-rules can compile ({why}); "
                          "split its condition into smaller rules",
                          file=plan.rule.file if plan else None,
                          line=plan.rule.line if plan else None, field="when") from None


def definition(program: Program) -> dict[str, dict]:
    """The ruleset as durable sees it: one rule per pack rule, in load order, plus a catch-all."""
    rules: dict[str, dict] = {}
    for index, rule in enumerate(program.k.rules):
        rules[rule.id] = {"all": [{"m": _condition(program.by_id[rule.id], index)}],
                          "pri": priority(rule)}
    # A catch-all consumes the last event, and keeps durable from crashing on delete_state
    # of a session nothing matched.
    rules[CATCH_ALL] = {"all": [{"m": dict([ANCHOR])}], "pri": CATCH_ALL_PRI}
    return rules


def _condition(plan: Plan, index: int) -> dict:
    rule = plan.rule
    parts: list[dict] = [dict([ANCHOR]), *_bucket_tests(index)]
    # A rule fires once: derive/diagnose rules because their target then exists, the
    # others (and derivations that could not be made) because they leave a marker.
    parts.append({"$nex": {plan.marker: 1}})
    if rule.target:
        parts.append({"$nex": {rule.target: 1}})
    parts.extend({"$ex": {f: 1}} for f in plan.needs)
    if rule.when is not None:
        parts.append(lang.to_durable(rule.when.tree))
    return {"$and": parts}


def _bucket_tests(index: int) -> tuple[dict, dict]:
    return ({"$gte": {"_a": -1.0 - index // (BUCKET * BUCKET)}},
            {"$gte": {"_b": -1.0 - index // BUCKET}})

"""The compiled evaluator: the same packs and firing semantics as durable, as a Python fixpoint.

For batch work (many cases, sweeps, grading). It fires rules through engine.run.firing exactly as
the durable session does, and picks the next rule the way durable does: the first eligible rule
in firing order (stage, then load order). It scans the rules in that order, remembering which
are known not to be eligible until a field they read arrives, so a rule is checked when the
scan reaches it, again only after such an arrival, and a rule that never fires costs about one
check per case. tests/test_differential.py holds it to
byte-identical output with durable.
"""

from __future__ import annotations

from regime.core.errors import RegimeError
from regime.engine.knowledge.model import Knowledge
from regime.engine.run import session
from regime.engine.run.diagnosis import Diagnosis
from regime.engine.run.firing import EngineFault, Plan, Program, Run
from regime.facts.case import Case


class CompiledRunner:
    """Diagnoses cases with the compiled evaluator; holds no outside resource.

    It refuses what durable refuses: building it compiles the durable ruleset once and drops
    it, so a pack durable cannot run is a pack error here too, never a different answer."""

    engine = "compiled"

    def __init__(self, knowledge: Knowledge) -> None:
        self.k = knowledge
        self.program = Program(knowledge)
        session.compile_ruleset(self.program)
        self._watchers = self._watchers_for(self.program.plans)

    @staticmethod
    def _watchers_for(plans: list[Plan]) -> dict[str, tuple[int, ...]]:
        """For each field, the plans (by position) whose eligibility its arrival can change."""
        watchers: dict[str, list[int]] = {}
        for i, plan in enumerate(plans):
            for f in plan.watch:
                watchers.setdefault(f, []).append(i)
        return {f: tuple(ix) for f, ix in watchers.items()}

    def diagnose(self, case: Case) -> Diagnosis:
        run = Run(self.program, case)
        try:
            self._fixpoint(run)
        except (RegimeError, EngineFault):
            raise
        except Exception as err:
            raise EngineFault(f"case {case.id}: {err!r}") from err
        return run.finish()

    def _fixpoint(self, run: Run) -> None:
        """Fire the first eligible plan in order until none is left."""
        plans, watchers, wm = self.program.plans, self._watchers, run.wm
        unknown = [True] * len(plans)  # False: known not eligible until a field it reads arrives
        start = 0  # every plan before it is known not eligible
        while True:
            try:
                i = unknown.index(True, start)
            except ValueError:
                return
            unknown[i], start = False, i + 1
            if plans[i].eligible(wm):
                for f in run.fire(plans[i]):
                    for j in watchers.get(f, ()):
                        unknown[j] = True
                        if j < start:
                            start = j

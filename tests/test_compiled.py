"""The compiled evaluator's own promises (equality with durable is tests/test_differential.py)."""

from __future__ import annotations

from regime.engine import api
from regime.engine.knowledge.paths import builtin_cases
from regime.facts.case import load_case

IDLE_RULES = 60


def _idle_pack(tmp_path):
    """Rules that never fire on the shipped cases: they read only facts the case gives."""
    rules = "".join(f"  - id: never_{i}\n    description: never fires\n"
                    f"    when: batch > 9999999 and flop_util > {i / 100}\n"
                    f"    finding: never_{i}\n    because: idle\n" for i in range(IDLE_RULES))
    (tmp_path / "idle.yaml").write_text(f"pack: idle\ndescription: d\nrules:\n{rules}", encoding="utf-8")
    return tmp_path


def test_a_rule_that_never_fires_is_checked_once_per_case(tmp_path):
    k = api.knowledge([_idle_pack(tmp_path)])
    compiled = api.runner(k, "compiled")
    checks: dict[str, int] = {}
    for plan in compiled.program.plans:
        def counted(wm, plan=plan, eligible=plan.eligible):
            checks[plan.rule.id] = checks.get(plan.rule.id, 0) + 1
            return eligible(wm)
        object.__setattr__(plan, "eligible", counted)
    for path in builtin_cases():
        checks.clear()
        d = compiled.diagnose(load_case(path, k.vocabulary, k.levers, k.claims, k.catalogue))
        assert not any(f.rule.startswith("never_") for f in d.trace)
        assert all(checks.get(f"never_{i}", 0) <= 1 for i in range(IDLE_RULES)), path.name
        assert sum(checks.values()) < len(k.rules) + 8 * len(d.trace)  # not rules × firings


def test_runner_is_built_once_per_knowledge_and_engine():
    k = api.knowledge()
    assert api.runner(k, "compiled") is api.runner(k, "compiled")
    assert api.runner(k, "durable") is not api.runner(k, "compiled")

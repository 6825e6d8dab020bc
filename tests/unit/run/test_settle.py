"""engine/run/settle.py: what verdicts mean together, from declarations alone."""

from __future__ import annotations

from regime.engine.knowledge.model import Knowledge, Lever
from regime.engine.run.diagnosis import Conclusion, Diagnosis
from regime.engine.run.settle import settle
from regime.facts.record import FactRecord
from regime.facts.vocabulary import FactSpec, Vocabulary

VOCABULARY = Vocabulary({"proposals": FactSpec("proposals", "levers proposed", kind="flags", of="levers")})
LEVERS = {"int8": Lever("int8", "int8 weights", ("bytes",), ()),
          "int4": Lever("int4", "int4 weights", ("bytes",), (), escalates="int8"),
          "batch": Lever("batch", "raise the batch", ("overhead",), ())}
K = Knowledge(VOCABULARY, levers=LEVERS)


def _verdict(kind: str, lever: str, step: int, priority: int | None = None) -> Conclusion:
    return Conclusion(kind, lever, f"r_{kind}_{lever}", "because", step, lever=lever, priority=priority)


def _settled(conclusions: list[Conclusion], proposed: tuple[str, ...] = ()) -> Diagnosis:
    d = Diagnosis("c", "case", "c.yaml", conclusions=conclusions)
    for lever in proposed:
        d.facts[f"proposals__{lever}"] = FactRecord(f"proposals__{lever}", True, "1", "measured", "c.yaml")
    settle(d, K)
    return d


def test_an_unproposed_escalation_stands_behind_the_milder_fix():
    d = _settled([_verdict("fix", "int8", 1), _verdict("fix", "int4", 2)])
    assert [(c.lever, c.folded_into) for c in d.conclusions] == [("int8", None), ("int4", "int8")]


def test_a_proposed_escalation_gets_its_own_fix():
    d = _settled([_verdict("fix", "int8", 1), _verdict("fix", "int4", 2)], proposed=("int4",))
    assert [c.folded_into for c in d.conclusions] == [None, None]


def test_a_shared_rejection_stands_on_the_proposed_lever():
    d = _settled([_verdict("reject", "int8", 1), _verdict("reject", "int4", 2)], proposed=("int4",))
    assert [(c.lever, c.folded_into) for c in d.conclusions] == [("int8", "int4"), ("int4", None)]
    neither = _settled([_verdict("reject", "int8", 1), _verdict("reject", "int4", 2)])
    assert [(c.lever, c.folded_into) for c in neither.conclusions] == [("int8", None), ("int4", "int8")]


def test_a_finding_that_holds_fixes_makes_them_conditional():
    holder = Conclusion("finding", "bad_data", "r_bad", "because", 1, holds=("fix",))
    d = _settled([holder, _verdict("fix", "batch", 2), _verdict("reject", "int8", 3)])
    fix, reject = d.conclusions[1], d.conclusions[2]
    assert fix.condition == "held back by finding 'bad_data' (r_bad): re-check the data first"
    assert reject.condition is None


def test_fixes_are_ranked_by_priority_then_step_and_folded_ones_get_no_rank():
    d = _settled([_verdict("fix", "batch", 1, priority=3), _verdict("fix", "int8", 2, priority=1),
                  _verdict("fix", "int4", 3, priority=1)])
    assert [(c.lever, c.rank) for c in d.conclusions] == [("batch", 2), ("int8", 1), ("int4", None)]

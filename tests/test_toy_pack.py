"""The engine on a toy pack: every conclusion kind, chaining, and the JSON trace."""

from __future__ import annotations

import json

from conftest import TOY

from regime.engine import api
from regime.engine.report import output


def _toy(toy_knowledge):
    return api.diagnose(TOY / "toy_case.yaml", toy_knowledge)


def test_every_conclusion_kind_fires(toy_knowledge):
    d = _toy(toy_knowledge)
    kinds = {c.kind for c in d.conclusions}
    assert kinds == {"diagnose", "finding", "fix", "reject", "ask"}
    assert d.fact_value("regime") == "bandwidth_bound"
    assert [c.lever or c.claim for c in d.of_kind("reject")] == ["raise_batch", "toy_claim"]
    assert [c.id for c in d.of_kind("ask")] == ["ttft"]


def test_chaining_derives_from_derived_facts(toy_knowledge):
    d = _toy(toy_knowledge)
    assert d.fact_value("toy_double") == 2.0
    assert d.fact_value("toy_next") == 3.0
    nxt = d.facts["toy_next"]
    assert (nxt.source, nxt.rule, nxt.formula, nxt.inputs) == ("derived", "toy_next", "toy_double + 1",
                                                                ("toy_double",))
    order = [f.rule for f in d.trace]
    assert order.index("toy_double") < order.index("toy_next") < order.index("toy_classify")


def test_table_lookup_group_total_and_alias(toy_knowledge):
    d = _toy(toy_knowledge)
    assert d.fact_value("toy_width") == 2.0
    assert abs(d.fact_value("toy_noise") - 0.13) < 1e-12
    fix = d.of_kind("fix")[0]
    assert fix.lever == "quantize_int8"  # the case said "eight bits", an alias
    assert fix.bound[0].fact == "toy_next" and fix.bound[0].value == 3.0


def test_json_trace_shows_each_firing_with_matched_facts(toy_knowledge):
    d = _toy(toy_knowledge)
    doc = json.loads(output.to_json(output.to_dict(d, toy_knowledge)))
    steps = {t["rule"]: t for t in doc["trace"]}
    assert steps["toy_next"]["matched"] == {"toy_double": 2.0}
    assert steps["toy_next"]["asserted"] == {"toy_next": 3.0}
    assert steps["toy_classify"]["matched"] == {"bw_util": 0.78, "toy_next": 3.0}
    assert [t["step"] for t in doc["trace"]] == list(range(1, len(doc["trace"]) + 1))
    assert "toy_ask_present" not in steps
    assert doc["facts"]["toy_next"] == {
        "formula": "toy_double + 1", "inputs": ["toy_double"], "origin": "toy_next", "rule": "toy_next",
        "source": "derived", "text": "3", "unit": "1", "value": 3.0, "layer": str(TOY / "toy_pack.yaml")}
    assert doc["facts"]["bw_util"]["source"] == "measured"


def test_each_case_runs_in_its_own_session(toy_knowledge):
    first = _toy(toy_knowledge)
    for _ in range(1100):  # more than durable's 1024 live sessions per ruleset
        again = _toy(toy_knowledge)
    assert [f.rule for f in again.trace] == [f.rule for f in first.trace]

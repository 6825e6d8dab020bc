"""Messages in the analyst's words: the five that leaked internals (issue 8), each pinned."""

from __future__ import annotations

import pytest
from conftest import write

from regime.core.errors import RegimeError
from regime.engine import api


def _error(tmp_path, rules: str) -> RegimeError:
    layer = tmp_path / "site"
    layer.mkdir(exist_ok=True)
    write(layer, "site.yaml", "pack: site\ndescription: d\nresources: {}\nrules:\n" + rules)
    with pytest.raises(RegimeError) as info:
        api.knowledge([layer])
    return info.value


def _rule(when: str = "batch > 1", conclusion: str = "finding: f", because: str = "b") -> str:
    return (f"  - id: r\n    description: d\n    when: {when}\n    {conclusion}\n"
            f"    because: \"{because}\"\n")


def test_unit_mismatch_names_the_comparison_and_units_as_people_write_them(tmp_path):
    err = _error(tmp_path, _rule("peak_bw > weight_bytes"))
    assert err.message == ("rule 'r': 'peak_bw > weight_bytes' compares bytes/s with bytes: these "
                           "quantities are in different units and cannot be compared or added")
    assert "Cmp" not in str(err) and "B / s" not in str(err)


def test_missing_priority_has_no_pydantic_prefix(tmp_path):
    err = _error(tmp_path, _rule(conclusion="fix: raise_batch"))
    assert err.message == "rule 'r': a fix rule needs 'priority'" and err.line == 5


def test_percent_in_a_condition_says_what_to_write(tmp_path):
    err = _error(tmp_path, _rule("bw_util > 50%"))
    assert err.message.startswith("rule 'r': cannot parse 'bw_util > 50%': invalid syntax")
    assert err.message.endswith("in a rule a share is a plain number (50% is 0.5), or name a parameter "
                                "declared with a unit")


def test_a_finding_in_a_condition_is_not_a_fact(tmp_path):
    err = _error(tmp_path, _rule("theory_agrees == 1", "finding: f2"))
    assert err.message == ("rule 'r': 'theory_agrees' is a finding, not a fact: conditions test facts; "
                           "test the facts that the rule concluding theory_agrees tests, or derive a "
                           "fact and test that")


def test_a_lever_in_a_condition_says_how_to_test_it(tmp_path):
    err = _error(tmp_path, _rule("quantize_int8 == 1"))
    assert err.message == "rule 'r': 'quantize_int8' is a lever, not a fact: test proposed[\"quantize_int8\"]"


def test_undeclared_lever_says_where_to_declare_it(tmp_path):
    err = _error(tmp_path, _rule(conclusion="fix: quantise_int8\n    priority: 3"))
    assert err.message.startswith("rule 'r': unknown lever 'quantise_int8' (did you mean 'quantize_int8'")
    assert err.message.endswith("; a new lever is declared under 'levers:' in a pack "
                                "(see regime list levers)")

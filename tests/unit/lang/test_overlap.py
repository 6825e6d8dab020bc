"""engine/lang/overlap.py: can two conditions hold at once? Boundaries decide it exactly."""

from __future__ import annotations

import pytest
from langkit import cond

from regime.engine.lang import overlap


@pytest.mark.parametrize("a, b, disjoint", [
    ("batch > 8", "batch < 4", True),
    ("batch > 8", "batch <= 8", True),        # the boundary belongs to one side only
    ("batch >= 8", "batch <= 8", False),      # both hold at 8
    ("batch > 8", "batch >= 8", False),
    ("batch == 8", "batch != 8", True),
    ('phase == "decode"', 'phase == "prefill"', True),
    ('phase == "decode"', 'phase != "prefill"', False),
    ("batch > 8 and share > 0.5", "share < 0.5", True),
    ("batch > 8 or share > 0.5", "share < 0.5", False),
    ("present(batch)", "absent(batch)", True),
    ("not (batch > 8)", "batch > 8", True),
])
def test_disjoint_is_proved_only_when_no_value_satisfies_both(a, b, disjoint):
    assert overlap.disjoint(cond(a).tree, cond(b).tree) is disjoint
    assert overlap.disjoint(cond(b).tree, cond(a).tree) is disjoint


@pytest.mark.parametrize("text, never", [
    ("batch > 8 and batch < 4", True),
    ("batch > 8 and batch <= 8", True),
    ("batch >= 8 and batch <= 8", False),
    ("batch >= 8 and batch <= 8 and batch != 8", True),
    ('phase == "decode" and phase == "prefill"', True),
    ("batch > 8 or batch < 4", False),
])
def test_never_true(text, never):
    assert overlap.never_true(cond(text).tree) is never


def test_guaranteed_fields_are_those_every_branch_reads():
    assert overlap.guaranteed(cond("batch > 8 and share > 0").tree) == {"batch", "share"}
    assert overlap.guaranteed(cond("batch > 8 or share > 0").tree) == set()
    assert overlap.guaranteed(cond("batch > 8 or batch < 2").tree) == {"batch"}
    assert overlap.guaranteed(cond("absent(batch)").tree) == set()
    assert overlap.guaranteed(None) == set()


def test_a_condition_too_big_to_expand_is_never_called_disjoint():
    wide = " and ".join(f"(batch > {i} or share > 0.{i})" for i in range(1, 9))  # 2**8 terms
    assert overlap.terms(cond(wide).tree) is None
    assert overlap.disjoint(cond(wide).tree, cond("batch < 0.5").tree) is False


def test_presence_atoms_make_a_needed_fact_contradict_its_absence():
    needs = overlap.presence_atoms(["batch"])
    assert overlap.disjoint(cond("absent(batch)").tree, None, needs)
    assert not overlap.disjoint(cond("present(batch)").tree, None, needs)

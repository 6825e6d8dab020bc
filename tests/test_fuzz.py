"""Property-based fuzzing, bounded for CI (a fixed seed, ~15 s): every case or pack, however
mangled, ends as a diagnosis or as one-line `FILE:LINE: FIELD: message` errors.

The long profile, with fresh seeds and many more inputs, is `make fuzz` (bench/fuzz.py).
"""

from __future__ import annotations

import tempfile
from pathlib import Path

import fuzzing
import pytest
import yaml
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

pytestmark = pytest.mark.slow

CI = settings(derandomize=True, deadline=None, database=None, print_blob=True,
              suppress_health_check=list(HealthCheck))
WORK = Path(tempfile.mkdtemp(prefix="regime-fuzz-"))


def holds(verdict: fuzzing.Verdict) -> None:
    assert verdict.kind in ("diagnosed", "refused"), verdict.detail


@settings(CI, max_examples=120)
@given(data=fuzzing.yaml_text(fuzzing.case_docs()))
def test_any_case_is_diagnosed_or_refused_with_a_line(data):
    holds(fuzzing.check_case(data, WORK, fuzzing.shipped_knowledge()))


@settings(CI, max_examples=25)
@given(data=fuzzing.yaml_text(fuzzing.new_packs()))
def test_any_new_pack_loads_and_runs_or_is_refused_with_a_line(data):
    holds(fuzzing.check_new_pack(data, WORK))


@settings(CI, max_examples=4)
@given(mutation=fuzzing.shipped_pack_mutations(), case=st.sampled_from(fuzzing.CASE_FILES))
def test_any_change_to_a_shipped_pack_runs_or_is_refused_with_a_line(mutation, case):
    name, doc = mutation
    data = yaml.safe_dump(doc, allow_unicode=True, sort_keys=False).encode("utf-8")
    holds(fuzzing.check_shipped_mutation(name, data, WORK, [case]))

"""One reviewed JSON snapshot per shipped case pins its whole reasoning chain.

When one changes, read the diff against the solution and say in the commit why the new
reasoning is right; never update a snapshot just to make the test pass.
"""

from __future__ import annotations

import pytest
from syrupy.extensions.json import JSONSnapshotExtension

from regime.engine import api
from regime.engine.knowledge.paths import CASES_DIR
from regime.engine.report import output

# Every shipped case: the solution's (a_..e_), generalization (g_), knowledge beyond the solution
# (k_: KV, MoE, TP, quantized checkpoints, TTFT, thin data), traces (t_) and real H200 runs (r_).
CASES = sorted(p.stem for p in CASES_DIR.glob("*.yaml"))
SOLUTION_CASES = [n for n in CASES if n[0] in "abcde" and n[1] == "_"]


@pytest.fixture
def snapshot_json(snapshot):
    return snapshot.use_extension(JSONSnapshotExtension)


@pytest.mark.parametrize("name", CASES)
def test_reasoning_chain(name, knowledge, snapshot_json):
    d = api.diagnose(CASES_DIR / f"{name}.yaml", knowledge)
    assert output.to_dict(d, knowledge) == snapshot_json

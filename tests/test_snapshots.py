"""One reviewed JSON snapshot per solution case pins its whole reasoning chain.

When one changes, read the diff against the solution and say in the commit why the new
reasoning is right; never update a snapshot just to make the test pass.
"""

from __future__ import annotations

import pytest
from syrupy.extensions.json import JSONSnapshotExtension

from regime.engine import api, report
from regime.engine.paths import CASES_DIR

SOLUTION_CASES = ["a_chatbot", "b_training_run", "c_document_summarizer", "d_high_throughput_api",
                  "e_doesnt_add_up"]
# Knowledge beyond the worked solution (KV, MoE, TP, quantized checkpoints, TTFT, thin data).
KNOWLEDGE_CASES = sorted(p.stem for p in CASES_DIR.glob("k_*.yaml"))


@pytest.fixture
def snapshot_json(snapshot):
    return snapshot.use_extension(JSONSnapshotExtension)


@pytest.mark.parametrize("name", SOLUTION_CASES + KNOWLEDGE_CASES)
def test_reasoning_chain(name, knowledge, snapshot_json):
    d = api.diagnose(CASES_DIR / f"{name}.yaml", knowledge)
    assert report.to_dict(d, knowledge) == snapshot_json

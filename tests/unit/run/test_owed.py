"""judged(): a verdict owed to a proposal fires only where no other verdict on its lever did,
whatever the load order and precedences, in both evaluators; and only verdicts and asks may ask."""

from __future__ import annotations

import pytest

from regime.core.errors import RegimeError
from regime.engine import api

LAYER = """
pack: site_owed
description: A lever, a verdict on it defined after the owed one, and the owed one.
levers:
  site_lever:
    meaning: a change only this layer knows
    attacks: [bytes]
rules:
  - id: site_owed_reject
    description: Owed; defined first and with the highest precedence, it still waits.
    when: proposed["site_lever"] and not judged("site_lever") and present(phase)
    reject: site_lever
    precedence: 50
    because: "no other rule judged it"
  - id: site_fix
    description: The verdict that decides where it holds.
    when: phase == "decode" and proposed["site_lever"]
    fix: site_lever
    priority: 3
    because: "it helps a decode"
"""
CASE = """title: owed
hardware: H100
facts: {{phase: {phase}, batch: 1, weight_dtype: bf16, compute_dtype: bf16, weight_bytes: 16 GB}}
proposals: [site_lever]
"""


@pytest.fixture(scope="module")
def layered(tmp_path_factory):
    folder = tmp_path_factory.mktemp("owed")
    (folder / "site.yaml").write_text(LAYER)
    return api.knowledge([folder]), folder


@pytest.mark.parametrize("engine", ["durable", "compiled"])
@pytest.mark.parametrize("phase, expected", [("decode", ("fix", "site_fix")),
                                             ("prefill", ("reject", "site_owed_reject"))])
def test_the_owed_verdict_waits_for_every_other_verdict(layered, engine, phase, expected):
    k, folder = layered
    case = folder / f"case_{phase}.yaml"
    case.write_text(CASE.format(phase=phase))
    d = api.diagnose(case, k, engine=engine)
    verdicts = [(c.kind, c.rule) for c in d.conclusions if c.lever == "site_lever"]
    assert verdicts == [expected]
    assert not any(name.startswith("_") for name in d.memory)
    assert all(not f.startswith("_") for firing in d.trace for f in (*firing.matched, *firing.asserted))


@pytest.mark.parametrize("kind", ["finding: site_note", "derive: ridge_point\n    formula: 1"])
def test_only_verdicts_and_asks_may_test_judged(tmp_path, kind):
    (tmp_path / "bad.yaml").write_text(f"""
pack: bad
description: x
rules:
  - id: too_early
    description: fires before any verdict
    when: not judged("cuda_graphs")
    {kind}
    because: "x"
""")
    with pytest.raises(RegimeError, match="judged\\(\\) is for verdicts and asks"):
        api.knowledge([tmp_path])

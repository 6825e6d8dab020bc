"""because_if: a rule's text variants, each said only where its facts hold (issue 28: fix texts
say only what the case supports). The first variant whose condition holds replaces `because`."""

from __future__ import annotations

import pytest

from regime.core.errors import RegimeError
from regime.engine import api

LAYER = """
pack: site_words
description: One finding worded by what the case gives.
rules:
  - id: site_words
    description: A finding whose wording depends on the traffic.
    when: phase == "decode"
    finding: site_worded
    because: "plain words"
    because_if:
      - when: traffic == "bursty_low_volume" and present(batch)
        because: "bursty words at batch {batch}"
      - when: present(traffic)
        because: "{traffic} words"
"""
CASE = """title: t
hardware: H100
facts: {{phase: decode, batch: 2, weight_dtype: bf16, compute_dtype: bf16, weight_bytes: 16 GB{extra}}}
"""


@pytest.fixture(scope="module")
def k(tmp_path_factory):
    folder = tmp_path_factory.mktemp("words")
    (folder / "site.yaml").write_text(LAYER)
    return api.knowledge([folder])


@pytest.mark.parametrize("engine", ["durable", "compiled"])
@pytest.mark.parametrize("extra, words", [("", "plain words"),
                                          (", traffic: bursty_low_volume", "bursty words at batch 2"),
                                          (", traffic: single_stream", "single_stream words")])
def test_the_first_variant_that_holds_gives_the_text(k, tmp_path, engine, extra, words):
    case = tmp_path / "c.yaml"
    case.write_text(CASE.format(extra=extra))
    d = api.diagnose(case, k, engine=engine)
    assert [c.because for c in d.conclusions if c.id == "site_worded"] == [words]


def test_a_variant_names_only_facts_its_conditions_guarantee(tmp_path):
    (tmp_path / "bad.yaml").write_text(LAYER.replace('when: present(traffic)', 'when: phase == "decode"'))
    with pytest.raises(RegimeError, match="does not guarantee") as info:
        api.knowledge([tmp_path])
    assert info.value.field == "because_if[1]"

"""Numbers rounded for people in the text, Markdown and HTML renderings (JSON keeps them exact)."""

from __future__ import annotations

import pytest

from regime.core import units
from regime.engine import api
from regime.engine.knowledge.paths import CASES_DIR
from regime.engine.report import display, model


@pytest.mark.parametrize(("raw", "shown"), [
    ("1.67555%", "1.68%"), ("0.0000%", "0%"), ("98.3276 %", "98.3%"), ("0.134 GB", "0.134 GB"),
    ("1234.5678 tokens", "1235 tokens"), ("6.123-30.456 us", "6.12-30.5 us"), ("HTA 0.5", "HTA 0.5"),
    ("bf16", "bf16"),
])
def test_a_value_as_written_is_compared_by_the_one_rule(raw, shown):
    """A written value is shown beside its figure only where it says more than more digits."""
    assert units.format_written(raw) == shown


def test_a_sentence_and_the_inputs_table_show_a_figure_alike(knowledge):
    """The fix's sentence and the inputs table read one share the same (no 59% beside 59.3%)."""
    m = model.build(api.diagnose(CASES_DIR / "r_decode_b256.yaml", knowledge), knowledge)
    shares = [f for f in m.inputs.measured if f.name.startswith("kernel_share[")]
    texts = " ".join(i.text for s in (m.fixes, m.findings) for i in s)
    assert shares and all(f.text in texts for f in shares if f.value > 0.5)
    idle = next(f for f in m.inputs.measured if f.name == "gpu_idle_share")
    assert idle.text in texts


@pytest.mark.parametrize(("shares", "terms", "total"), [
    ([0.144146, 0.0, 0.181938], "14.4% + 18.2%", "32.6%"),     # a zero category is left out
    ([0.08, 0.09, 0.05], "8% + 9% + 5%", "22%"),
    ([0.1444, 0.1444, 0.1444], "14.44% + 14.44% + 14.44%", "43.32%"),  # 14.4 × 3 would not be 43.3
])
def test_a_shown_sum_adds_up_as_shown(shares, terms, total, knowledge):
    facts = {f"kernel_share__k{i}": v for i, v in enumerate(shares)}
    got_terms, got_total = display.sum_text(list(facts), facts, knowledge)
    assert (got_terms, got_total) == (terms, total)
    assert round(sum(float(t.rstrip("%")) for t in got_terms.split(" + ")), 6) == float(got_total.rstrip("%"))


def test_trace_case_shows_rounded_values_and_no_zero_categories(knowledge):
    m = model.build(api.diagnose(CASES_DIR / "t_v100_training_trace.yaml", knowledge), knowledge)
    shown = {f.name: f.shown() for f in m.inputs.measured}
    assert shown["gpu_idle_share"] == "1.68%"   # written 1.67555% by the trace reader
    assert "kernel_share[attention]" not in shown  # 0% of kernel time: nothing to show
    assert {f.name: f.value for f in m.inputs.measured}["gpu_idle_share"] == pytest.approx(0.0167555)

"""The roofline chart (numbers from YAML, byte-stable SVG), what-if and sweep on the same engine."""

from __future__ import annotations

import importlib.util
import math
import re
import subprocess
import sys
from pathlib import Path

import pytest
from conftest import ROOT, run_cli, write

from regime.engine import api, sweep, whatif
from regime.engine.knowledge.paths import CASES_DIR
from regime.engine.report import chart, model
from regime.facts.vocabulary import load_vocabulary


@pytest.fixture(scope="module")
def model_of(knowledge):
    def build(name: str):
        return model.build(api.diagnose(CASES_DIR / f"{name}.yaml", knowledge), knowledge)
    return build


@pytest.mark.e2e
def test_chart_svg_is_byte_stable_in_and_across_processes(model_of):
    m = model_of("e_doesnt_add_up")
    first = chart.render(m.chart, "e", "svg")
    assert first == chart.render(m.chart, "e", "svg")
    # dotted module paths, so that a module move's rewrite of imports reaches this code too
    code = ("import sys; import regime.engine.api as api; import regime.engine.report.chart as charts; "
            "import regime.engine.report.model as models; "
            "from regime.engine.knowledge.paths import CASES_DIR; "
            "k = api.knowledge(); m = models.build(api.diagnose(CASES_DIR / 'e_doesnt_add_up.yaml', k), k); "
            "sys.stdout.buffer.write(charts.render(m.chart, 'e', 'svg'))")
    other = subprocess.run([sys.executable, "-c", code], capture_output=True, timeout=300, cwd=ROOT)
    assert other.returncode == 0, other.stderr
    assert other.stdout == first
    text = first.decode("utf-8")
    assert "<dc:date>" not in text and "Matplotlib v" not in text


def test_chart_numbers_follow_the_yaml_roles(model_of, knowledge):
    a = model_of("a_chatbot").chart
    facts = api.diagnose(CASES_DIR / "a_chatbot.yaml", knowledge).facts
    assert math.isclose(a["ridge"], facts["ridge_point"].value)
    assert a["workload"]["x"] == facts["arithmetic_intensity"].value
    assert a["workload"]["y"] <= a["nominal"]["y"]  # the weight GEMMs sit under the bandwidth roof
    batching = next(mv for mv in a["moves"] if mv["lever"] == "continuous_batching")
    assert math.isclose(batching["x"], a["ridge"])  # batching to ridge_batch reaches the ridge
    assert [r["name"] for r in a["roofs"]][1:] == ["the fp8, int8 peak FLOP rate"]  # equal peaks: one roof
    assert model_of("e_doesnt_add_up").chart["overhead"]["bars"][1]["label"] == "gap time"
    assert model_of("b_training_run").chart["overhead"] is None


def test_no_fact_name_is_hard_coded_in_the_report_code():
    contract = {"nominal_regime"}  # the engine's output contract, as in the JSON (report.to_dict)
    names = [n for n in load_vocabulary().specs if "_" in n and n not in contract]
    modules = """regime.engine.report.chart regime.engine.report.chart_data
                 regime.engine.report.model regime.engine.report.render_text
                 regime.engine.report.render_markdown regime.engine.report.render_html
                 regime.engine.sweep regime.engine.whatif regime.engine.cli.review
                 regime.engine.cli.report_files regime.engine.knowledge.spec regime.engine.report.display"""
    for module in modules.split():
        code = Path(importlib.util.find_spec(module).origin).read_text(encoding="utf-8")  # wherever it moves
        for name in names:
            assert not re.search(rf"\b{name}\b", code), f"{module} names the fact {name}"


@pytest.mark.e2e
def test_a_broken_chart_section_is_a_located_pack_error(tmp_path):
    site = write(tmp_path, "site.yaml", "pack: site\ndescription: x\nreport:\n  sweep:\n"
                 "    ceiling: ceiling_tokens_per_sec\n")
    done = run_cli("check", "--rules", str(site))
    assert done.returncode == 2
    assert re.match(r"error: .*site\.yaml:4: report\.sweep: .*ceiling_tokens_per_sec.*did you mean",
                    done.stderr), done.stderr


def test_what_if_drops_stale_measurements_and_rederives(knowledge):
    _, w, diff = whatif.compare(CASES_DIR / "a_chatbot.yaml", ["batch=64", "weight_dtype=int8"], knowledge)
    assert {"throughput", "flop_util", "bw_util", "weight_bytes"} <= set(w.dropped)
    facts = w.diagnosis.facts
    given = api.diagnose(CASES_DIR / "a_chatbot.yaml", knowledge).facts["weight_bytes"].value
    assert facts["weight_bytes"].source == "derived"  # from params in int8, not the fp16 figure
    assert facts["weight_bytes"].value < 0.6 * given
    assert "quantize_int8" in diff["fixes"]["removed"]
    assert diff["figures"]["tokens_per_pass"] == ["1 token", "64 tokens"]


@pytest.mark.e2e
def test_what_if_cli_and_its_errors():
    done = run_cli("diagnose", str(CASES_DIR / "d_high_throughput_api.yaml"), "--set", "batch=32")
    assert done.returncode == 0, done.stderr
    assert done.stdout.startswith("What-if batch=32")
    assert "regime: compute-bound → bandwidth-bound" in done.stdout
    bad = run_cli("diagnose", str(CASES_DIR / "a_chatbot.yaml"), "--set", "batchh=3")
    assert bad.returncode == 2 and bad.stderr.count("\n") == 1
    assert "--set batchh=3: 'batchh' is not a fact a what-if can set (did you mean 'batch'" in bad.stderr


def test_sweep_finds_where_int4_stops_paying_on_case_d(knowledge):
    path = CASES_DIR / "d_high_throughput_api.yaml"
    result = sweep.run(whatif.load(path, knowledge), "batch=1..512", knowledge)
    flip = next(f for f in result.flips if "quantize_int4 stops being a fix" in f.what)
    int4_ridge = api.diagnose(path, knowledge).facts["int4_ridge_batch"].value
    assert flip.before.value == math.floor(int4_ridge) and flip.after.value == math.floor(int4_ridge) + 1
    ceilings = [p.ceiling for p in result.points]
    assert ceilings == sorted(ceilings)  # the ceiling rises with batch, then flattens on the compute roof


@pytest.mark.e2e
def test_sweep_finds_where_batching_reaches_the_ridge_on_case_a(tmp_path, knowledge):
    svg = tmp_path / "a.svg"
    done = run_cli("sweep", str(CASES_DIR / "a_chatbot.yaml"), "--vary", "batch=1..512", "--chart", str(svg))
    assert done.returncode == 0, done.stderr
    # With the KV cache counted, batch × KV reaches the weight read (kv_weight_ratio) before the
    # GEMMs reach the ridge (ridge_batch): that is where batching stops being the fix.
    facts = api.diagnose(CASES_DIR / "a_chatbot.yaml", knowledge).facts
    at = math.ceil(facts["kv_weight_ratio"].value)
    assert at < facts["ridge_batch"].value
    assert re.search(rf"batch {at - 1} → {at}: continuous_batching stops being a fix",
                     " ".join(done.stdout.split())), done.stdout
    assert svg.read_text(encoding="utf-8").count("<svg") == 1


def clashes(fig) -> list[str]:
    """Texts of a drawn figure that lie partly outside it or overlap another text."""
    from matplotlib.backends.backend_agg import FigureCanvasAgg
    canvas = FigureCanvasAgg(fig)
    canvas.draw()
    renderer = canvas.get_renderer()
    frame = fig.bbox
    boxes = [(t.get_text(), t.get_window_extent(renderer)) for t in chart.texts(fig)]
    out = [f"outside: {s!r}" for s, b in boxes if b.x0 < frame.x0 - 0.5 or b.y0 < frame.y0 - 0.5
           or b.x1 > frame.x1 + 0.5 or b.y1 > frame.y1 + 0.5]
    for i, (s, a) in enumerate(boxes):
        for t, b in boxes[i + 1:]:
            if min(a.x1, b.x1) - max(a.x0, b.x0) > 0.5 and min(a.y1, b.y1) - max(a.y0, b.y0) > 0.5:
                out.append(f"overlap: {s!r} / {t!r}")
    return out


@pytest.mark.parametrize("name", sorted(p.stem for p in CASES_DIR.glob("*.yaml")))
def test_roofline_text_is_inside_the_figure_and_never_overlaps(name, model_of):
    m = model_of(name)
    if m.chart is None:
        return
    assert clashes(chart.figure(m.chart, f"{m.case}: {m.verdict.regime}")) == []


@pytest.mark.parametrize(("name", "vary"), [
    ("a_chatbot", "batch=1..512"), ("e_doesnt_add_up", "batch=1..1024"), ("b_training_run", "batch=1..64")])
def test_sweep_chart_text_is_inside_the_figure_and_never_overlaps(name, vary, knowledge):
    data = sweep.run(whatif.load(CASES_DIR / f"{name}.yaml", knowledge), vary, knowledge).to_dict()
    fig = chart.sweep_figure(data)
    assert clashes(fig) == []
    axes = fig.axes[0].get_position()
    assert axes.width > 0.8  # the plot uses the width of the image


def test_the_clash_check_can_fail():
    from matplotlib.figure import Figure
    fig = Figure(figsize=(3, 2))
    fig.text(0.5, 0.5, "one label")
    fig.text(0.52, 0.5, "another label")
    fig.text(0.95, 0.1, "runs off the edge")
    found = clashes(fig)
    assert any(x.startswith("overlap") for x in found) and any(x.startswith("outside") for x in found)

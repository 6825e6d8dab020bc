"""Plain words for every fact a person reads in a sentence, and one value per figure on a page.

A bound, a verdict's figure, a chart's roof, point or move, a sweep's axes: each names its fact
by the words its declaration gives (`say:` in facts/vocabulary.yaml or a pack's `facts:`),
the words grading feedback uses too; JSON keeps the ids. Whatever the chart shows of a fact
reads exactly as the report's text gives the same fact, and a speedup reads as its bound fact.
"""

from __future__ import annotations

import io
import re

import pytest
from rich.console import Console

from regime.engine import api, sweep
from regime.engine.grading.concepts import load_concepts
from regime.engine.knowledge.paths import CASES_DIR, RULES_DIR
from regime.engine.report import display, model, render_markdown, render_text
from regime.facts.case import load_case

CASES = sorted(p.stem for p in CASES_DIR.glob("*.yaml"))
BOUND_ID = re.compile(r"(?:bound: |_Bound: |\()([a-z0-9]+_[a-z0-9_]+) = ")


def _read_in_words(k) -> dict[str, str]:
    """Each fact a report can name in a sentence, with where it can appear."""
    where: dict[str, str] = {}
    for r in k.rules:
        for b in r.bound or ():
            where.setdefault(b, f"a bound of rule {r.id}")
        fields = [f.key for f in r.because.fields()]
        if r.kind == "finding" and fields:
            where.setdefault(fields[-1], f"the figure of finding rule {r.id}")
    chart = k.report.chart
    if chart is not None:
        for fact in chart.moves:
            where.setdefault(fact, "a move on the roofline chart")
        for e in (chart.compute_roof, chart.bandwidth_roof, chart.ridge, chart.workload.x,
                  chart.workload.y):
            if hasattr(e.tree, "field"):
                where.setdefault(e.tree.field, "the roofline chart")
        if chart.extra_roofs is not None:
            for m in chart.extra_roofs.members:
                where.setdefault(f"{chart.extra_roofs.group}__{m}", "a roof on the chart")
    if k.report.ceiling is not None and hasattr(k.report.ceiling.tree, "field"):
        where.setdefault(k.report.ceiling.tree.field, "the sweep chart's axis")
    return where


def test_every_fact_read_in_a_sentence_has_words(knowledge):
    missing = [f"{fact} ({why})" for fact, why in sorted(_read_in_words(knowledge).items())
               if not display.say(fact, knowledge)]
    assert not missing, "add `say:` to these facts' declarations: " + "; ".join(missing)


def test_grading_feedback_names_a_figure_as_reports_do(knowledge):
    concepts = load_concepts(knowledge, [RULES_DIR / "grading" / "concepts.yaml"])
    for fact in _read_in_words(knowledge):
        if fact not in concepts.figure_say:  # the concepts file overrides only what has no declaration
            assert concepts.say(fact) == display.say(fact, knowledge), fact


@pytest.fixture(scope="module")
def models(knowledge):
    return {n: model.build(api.diagnose(CASES_DIR / f"{n}.yaml", knowledge), knowledge) for n in CASES}


def _texts(m: model.ReportModel) -> dict[str, str]:
    """Every fact's text as the report gives it (bounds, figures, inputs, derivations, appendix)."""
    out: dict[str, str] = {}
    facts = [*m.inputs.measured, *m.inputs.catalogue, *m.inputs.assumed, *m.appendix]
    for _, items in m.sections():
        for it in items:
            facts += [*it.bounds, *([it.figure] if it.figure else [])]
    stack = list(m.derivations)
    while stack:
        node = stack.pop()
        facts.append(node.fact)
        stack += node.children
    for f in facts:
        out.setdefault(f.field, f.text)
    return out


@pytest.mark.parametrize("name", CASES)
def test_no_bound_or_verdict_names_a_fact_by_its_id(name, models):
    m = models[name]
    buf = io.StringIO()
    render_text.print_report(m, Console(file=buf, width=100, highlight=False, color_system=None))
    for text in (buf.getvalue(), render_markdown.to_markdown(m), m.verdict.line):
        assert not BOUND_ID.findall(text), BOUND_ID.findall(text)


@pytest.mark.parametrize("name", CASES)
def test_the_chart_shows_each_figure_as_the_text_does(name, models, knowledge):
    m = models[name]
    chart, texts = m.chart, _texts(m)
    if chart is None:
        pytest.skip(f"{name}: no roofline chart (the roofs cannot be drawn for this case)")
    spec = knowledge.report.chart
    shown = {spec.compute_roof.tree.field: chart["roofs"][0]["text"],
             spec.bandwidth_roof.tree.field: chart["bandwidth"]["text"],
             spec.ridge.tree.field: chart["ridge_text"]}
    for point, p in (("workload", spec.workload), ("nominal", spec.nominal)):
        for axis in ("x", "y"):
            e = getattr(p, axis)
            if chart[point] is not None and hasattr(e.tree, "field"):
                shown[e.tree.field] = chart[point][f"{axis}_text"]
                assert chart[point][f"{axis}_name"] == knowledge.vocabulary.say(e.tree.field)
    compared = 0
    for fact, text in shown.items():
        if fact in texts:
            assert text == texts[fact], f"{fact}: the chart shows {text}, the text {texts[fact]}"
            compared += 1
    assert compared, "the chart and the text share no figure: nothing was compared"
    for move in chart["moves"]:
        fix = next(it for it in m.fixes if it.title == move["lever"])
        assert move["bound"] in [b.said() for b in fix.bounds]


@pytest.mark.parametrize("name", CASES)
def test_a_speedup_reads_as_its_bound_fact(name, models, knowledge):
    """`at most 2.46× faster`, not `2.5×` beside the fact's 2.46: one rounding for both."""
    d = api.diagnose(CASES_DIR / f"{name}.yaml", knowledge)
    texts = _texts(models[name])
    fixes = {it.id: it for it in models[name].fixes}
    for c in d.of_kind("fix"):
        if c.speedup_fact in texts and c.speedup_bound is not None:
            assert fixes[c.id].speedup.startswith(f"at most {texts[c.speedup_fact]}×"), c.id


def test_the_sweep_names_its_axes_in_words_and_marks_the_case(knowledge):
    case = load_case(CASES_DIR / "a_chatbot.yaml", knowledge.vocabulary, knowledge.levers,
                     knowledge.claims)
    s = sweep.run(case, "batch=1..64", knowledge, engine="compiled").to_dict()
    assert s["fact_name"] == knowledge.vocabulary.say("batch")
    assert s["ceiling_name"] == knowledge.vocabulary.say(knowledge.report.ceiling.tree.field)
    assert s["measured"]["value"] == case.facts["batch"].value
    assert s["measured"]["ceiling"] is not None

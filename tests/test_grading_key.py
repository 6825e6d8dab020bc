"""The key's decisive evidence is derived from the rules that fired, never listed per case: each
pack rule says what its conclusion turns on (`decides:`), and a case, or a student's variant of
it whose verdict flips, is asked the figures of the rules it fires."""

from __future__ import annotations

from pathlib import Path

import pytest
import yaml
from conftest import write

from regime.core.errors import RegimeError
from regime.engine import api
from regime.engine.grading.grader import Grader
from regime.engine.grading.key import Decisive, Key
from regime.engine.knowledge.paths import CASES_DIR
from regime.facts.case import load_case

EXERCISE = ["a_chatbot", "b_training_run", "c_document_summarizer", "d_high_throughput_api",
            "e_doesnt_add_up"]


@pytest.fixture(scope="module")
def grader() -> Grader:
    return Grader()


def _fired(grader: Grader, path: Path) -> set[str]:
    case = load_case(path, grader.k.vocabulary, grader.k.levers, grader.k.claims)
    d = api.runner(grader.k, engine="compiled").diagnose(case)
    return {c.rule for kind in ("diagnose", "finding", "fix", "reject") for c in d.of_kind(kind)}


@pytest.mark.parametrize("case", sorted(p.stem for p in CASES_DIR.glob("*.yaml")))
def test_every_decisive_figure_comes_from_a_rule_that_fired(grader, case):
    path = CASES_DIR / f"{case}.yaml"
    try:
        key = grader.key_for_case(path)
    except RegimeError:
        pytest.skip("a case the engine refuses has no key")
    fired = _fired(grader, path)
    rules = {r.id: r for r in grader.k.rules}
    for item in key.decisive:
        assert item.rule in fired, f"{item.rule} did not fire on {case}"
        said = {n for alternatives in rules[item.rule].deciding() for n in alternatives}
        assert set(item.names) <= said, f"{item.names} is not what {item.rule} decides on"
        assert all(n in key.figures for n in item.names)
    regime_rules = [r for r in key.regime_rules if rules[r].target == "regime" and rules[r].deciding()]
    if regime_rules:   # the regime's deciding pair is always asked where its rule names one
        assert any(x.kind == "regime" for x in key.decisive), case


def _asked(grader: Grader, key: Key) -> list[set[str]]:
    return [set(names) for names in key.decided(grader.rubric.evidence.decided_by)]


def test_the_exercise_keys_ask_what_the_worked_solution_asks(grader):
    asked = {c: _asked(grader, grader.key_for_case(CASES_DIR / f"{c}.yaml")) for c in EXERCISE}
    # A: the measured pair, the intensity against the ridge, the batch-1 ceiling, int8's ceiling
    assert {"flop_util"} in asked["a_chatbot"] and {"bw_util"} in asked["a_chatbot"]
    assert any("weight_ceiling_tokens_per_s" in x for x in asked["a_chatbot"])
    assert any("ridge_point" in x for x in asked["a_chatbot"])
    # B: the tokens per pass that set the regime and the crossover are one point, not two
    b = [x for x in asked["b_training_run"] if "tokens_per_pass" in x]
    assert len(b) == 1 and "elementwise_crossover_tokens" in b[0]
    assert {"zero_flop_share"} in asked["b_training_run"]
    # C: the score matrix and the attention crossover; E: the idle share, or the slowdown it explains
    assert {"score_matrix_bytes"} in asked["c_document_summarizer"]
    assert any("attention_crossover_tokens" in x for x in asked["c_document_summarizer"])
    assert {"gap_fraction", "idle_slowdown"} in asked["e_doesnt_add_up"]
    # E's verdict contradicts the theory: the nominal pair is not what it rests on
    assert not any("ridge_point" in x for x in asked["e_doesnt_add_up"])


def test_a_variant_whose_verdict_flips_is_asked_its_own_figures(grader, tmp_path):
    """Case A with the bandwidth dropped to an idle GPU's (12%, throughput with it): the verdict
    becomes overhead-bound, the ceiling and the roofline comparison no longer decide it, and the
    key asks for the measured pair alone."""
    base = grader.key_for_case(CASES_DIR / "a_chatbot.yaml")
    raw = yaml.safe_load((CASES_DIR / "a_chatbot.yaml").read_text(encoding="utf-8"))
    raw["facts"].update({"bw_util": "12%", "throughput": "25 tokens/s"})
    path = write(tmp_path, "a_chatbot_idle.yaml", yaml.safe_dump(raw))
    flipped = grader.key_for_case(path)
    assert (base.regime, flipped.regime) == ("bandwidth_bound", "overhead_bound")
    assert _asked(grader, flipped) == [{"flop_util"}, {"bw_util"}]
    assert len(_asked(grader, base)) > 2
    fired = _fired(grader, path)
    assert all(x.rule in fired for x in flipped.decisive)


def _answer(tmp_path: Path, name: str, evidence: str) -> Path:
    return write(tmp_path, name, "---\ncase: e_doesnt_add_up\nstudent: s\n---\n## Regime\n"
                 "Overhead-bound (nominally bandwidth-bound).\n\n## Evidence\n"
                 f"14% of bandwidth and 3% of compute. {evidence}\n")


def test_an_alternative_that_carries_the_same_argument_earns_the_item(grader, tmp_path):
    def evidence(text: str, name: str) -> float:
        r = grader.grade(_answer(tmp_path, name, text))
        return next(p.points for p in r.parts if p.part == "evidence")

    share = evidence("Idle gaps between kernels take about 38% of wall time.", "share.md")
    slowdown = evidence("Idle gaps between kernels alone explain a 1.61× slowdown.", "slowdown.md")
    neither = evidence("Idle gaps between kernels.", "neither.md")
    assert share == slowdown > neither


def test_items_that_share_a_figure_are_one_item():
    key = Key("c", "t", None, None, decisive=[
        Decisive(("a", "b"), "r1", "regime"), Decisive(("c",), "r2", "finding"),
        Decisive(("b", "d"), "r3", "finding"), Decisive(("e",), "r4", "nominal_regime")])
    assert key.decided(["regime", "finding"]) == [("a", "b", "d"), ("c",)]
    assert key.decided(["nominal_regime"]) == [("e",)]


def test_a_key_round_trips_with_its_decisive_items(grader):
    key = grader.key_for_case(CASES_DIR / "b_training_run.yaml")
    again = Key.from_dict(key.to_dict())
    assert again.decisive == key.decisive and again.decisive

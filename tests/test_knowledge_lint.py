"""Knowledge lives in YAML: no case-specific rules, no copied figures, no domain in Python."""

from __future__ import annotations

import re

import pytest
from conftest import ROOT

from regime.core.yamlsrc import load_yaml
from regime.engine.knowledge.paths import builtin_cases
from regime.engine.lang import parser

RULE_FILES = sorted((ROOT / "rules").glob("*.yaml"))

# Figures the solution derives (and the case inputs that are only inputs). None may appear as a
# literal in a rule pack: packs must compute them.
SOLUTION_FIGURES = {204, 408, 0.78, 78, 32768, 14, 22, 0.22, 61, 0.61, 28, 0.28, 40, 1.28, 160, 26624,
                    48, 0.48, 256, 247, 51, 38, 0.38, 1.6, 215, 1307.4, 5.3, 5300, 0.04, 0.55, 0.71,
                    0.3, 0.14, 0.03, 450, 11, 18, 25000, 13, 26, 68, 16, 0.6, 0.64}
# Named parameters whose value the solution quotes as an assumption, with their source.
ALLOWED_PARAMETERS = {"elementwise_crossover_tokens"}


def _numbers_in_expression(source: str) -> list[float]:
    return [float(m) for m in re.findall(r"(?<![\w.])\d+(?:\.\d+)?(?![\w.])", source)]


def _rules():
    for path in RULE_FILES:
        doc = load_yaml(path)
        for rule in doc.get("rules", []):
            yield path, rule


def test_no_rule_tests_a_case_id():
    ids = {p.stem for p in builtin_cases()}
    for path, rule in _rules():
        text = " ".join(str(rule.get(k, "")) for k in ("when", "formula"))
        for case_id in ids:
            assert case_id not in text, f"{path.name}: rule {rule['id']} names case {case_id}"


def test_no_solution_figure_is_a_literal_in_the_packs():
    for path, rule in _rules():
        for key in ("when", "formula"):
            for n in _numbers_in_expression(str(rule.get(key, ""))):
                assert n not in SOLUTION_FIGURES, f"{path.name}: rule {rule['id']} {key} uses {n}"
    for path in RULE_FILES:
        for name, param in (load_yaml(path).get("parameters") or {}).items():
            values = [param.get("value"), *(param.get("table") or {}).values()]
            for v in values:
                if v is not None and float(v) in SOLUTION_FIGURES:
                    assert name in ALLOWED_PARAMETERS, f"{path.name}: parameter {name} = {v}"
                    assert "Solution 3" in param["source"] or "README" in param["source"]


def test_every_rule_has_reasons_and_every_parameter_a_source():
    for path, rule in _rules():
        assert rule.get("description") and rule.get("because"), f"{path.name}: {rule.get('id')}"
    for path in RULE_FILES:
        for name, param in (load_yaml(path).get("parameters") or {}).items():
            assert param.get("source") and param.get("meaning"), f"{path.name}: {name}"


KNOWLEDGE_WORDS = re.compile(  # a method of the same name (msgspec's Decoder.decode) is not the phase
    r"(?<!\.)\b(bandwidth_bound|compute_bound|overhead_bound|balanced|continuous_batching|quantize_int[48]|"
    r"fp8_gemm|torch_compile|flash_attention|cuda_graphs|chunked_prefill|speculative_decoding|"
    r"fuse_elementwise|buy_more_flops|decode|prefill|MI300X|a_chatbot)\b|"
    r"\b(204|408|2300|26624|1307\.4|5300|247|0\.78|215)\b")


PY_FILES = sorted(p for d in ("engine", "facts", "core", "regime") for p in (ROOT / d).rglob("*.py"))


@pytest.mark.parametrize("path", PY_FILES,
                         ids=lambda p: p.name)
def test_python_holds_no_domain_knowledge(path):
    for lineno, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
        code = line.split("#")[0]
        hit = KNOWLEDGE_WORDS.search(code)
        assert hit is None, f"{path.name}:{lineno}: {hit.group(0)!r} belongs in rules/ or a catalogue"


def test_expression_whitelist_is_small():
    # The builder accepts exactly these ast node types; anything else is rejected.
    accepted = {name[1:] for name in dir(parser.Builder) if name.startswith("_") and name[1].isupper()}
    assert accepted == {"BinOp", "BoolOp", "Call", "Compare", "Constant", "Name", "Subscript", "UnaryOp"}

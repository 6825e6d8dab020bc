"""Every YAML pack test is its own pytest id, run in-process; and what an expectation means.

`regime test` runs the same files; here a failure names the one case (rules/<pack>.test.yaml,
test name) and shows expected against actual with the why / why-not trace.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from regime.core.errors import RegimeError
from regime.core.yamlsrc import load_yaml
from regime.engine import api
from regime.engine.authoring import packtest
from regime.engine.knowledge.paths import RULES_DIR, builtin_cases

FILES = packtest.test_files(packtest.default_dirs())
CASES = [(path, body, test) for path in FILES for body, test in packtest.read_file(path)]


@pytest.fixture(scope="module")
def k():
    knowledge = api.knowledge([])
    api.runner(knowledge)
    return knowledge


@pytest.mark.parametrize("path, body, test", CASES,
                         ids=[f"{p.stem.removesuffix('.test')}:{b.line}:{t.name}" for p, b, t in CASES])
def test_pack_case(path, body, test, k):
    result = packtest.run_one(path, body, test, k)
    assert result.ok, "\n".join(result.failures)


def test_no_pack_test_is_named_only_by_its_case():
    """A failing id says what broke: the case, then the verdicts it pins with the rules that
    conclude them, or the rules it expects to fire; a bare case id says none of that."""
    case_ids = {p.stem for p in builtin_cases()}
    bare = [f"{p.name}:{b.line}: {t.name}" for p, b, t in CASES if t.name in case_ids or t.name == t.case]
    assert bare == []


def _run(text: str, k, tmp_path: Path) -> packtest.Result:
    path = tmp_path / "t.test.yaml"
    path.write_text(text)
    [(body, test)] = packtest.read_file(path)
    return packtest.run_one(path, body, test, k)


@pytest.mark.parametrize("expect", ["fixes: []", "rejections: []", "findings: []", "fixes: null",
                                    "regime: null"])
def test_empty_or_null_means_exactly_none(expect, k, tmp_path):
    result = _run(f"tests:\n  - name: t\n    case: a_chatbot\n    expect:\n      {expect}\n", k, tmp_path)
    assert not result.ok and ("exactly" in result.failures[0] or "regime" in result.failures[0])


def test_an_absent_key_is_unchecked(k, tmp_path):
    assert _run("tests:\n  - name: t\n    case: a_chatbot\n    expect: {}\n", k, tmp_path).ok


def test_a_spurious_extra_passes_by_default_and_fails_when_exact(k, tmp_path):
    text = "tests:\n  - name: t\n    case: a_chatbot\n    expect:\n      rejections: [buy_more_flops]\n"
    assert _run(text, k, tmp_path).ok
    exact = _run(text + "      exact: true\n", k, tmp_path)
    assert not exact.ok and "rejections (exactly)" in exact.failures[0]
    assert "fuse_elementwise" in exact.failures[0]


def test_exact_fixes_compare_the_whole_ordered_list(k, tmp_path):
    text = "tests:\n  - name: t\n    case: a_chatbot\n    expect:\n      exact: true\n      fixes: [{}]\n"
    assert not _run(text.format("continuous_batching"), k, tmp_path).ok
    assert _run(text.format("continuous_batching, quantize_int8"), k, tmp_path).ok
    assert not _run(text.format("quantize_int8, continuous_batching"), k, tmp_path).ok


@pytest.mark.parametrize("key, typo, close", [
    ("regime", "bandwdith_bound", "bandwidth_bound"),
    ("fixes", "[continous_batching]", "continuous_batching"),
    ("rejections", "[buy_more_flop]", "buy_more_flops"),
    ("findings", "[near_cieling]", "near_ceiling"),
    ("asks", "[bw_utl]", "bw_util"),
    ("not_fired", "[batch_past_the_rigde]", "batch_past_the_ridge"),
    ("figures", "{ridge_pont: 1 FLOP/byte}", "ridge_point"),
    ("because", "{quantize_int9: x}", "quantize_int8"),
])
def test_a_typo_in_an_expected_name_fails_with_did_you_mean(key, typo, close, k, tmp_path):
    with pytest.raises(RegimeError) as err:
        _run(f"tests:\n  - name: t\n    case: a_chatbot\n    expect:\n      {key}: {typo}\n", k, tmp_path)
    assert f"expect.{key}" in str(err.value) and f"did you mean '{close}'" in str(err.value)


def test_every_pack_with_rules_has_its_tests_beside_it():
    packs = {p.stem for p in RULES_DIR.glob("*.yaml") if not p.name.endswith(".test.yaml")
             and load_yaml(p).get("rules")}
    assert packs <= {p.name.removesuffix(".test.yaml") for p in FILES}

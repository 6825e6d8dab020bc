"""Hostile packs and cases: every one is rejected with a clear error before durable-rules sees
it, or (for legitimate extreme values) handled correctly; the process never crashes."""

from __future__ import annotations

import json

import pytest
from conftest import ROOT, run_cli

from regime.core.errors import RegimeError
from regime.engine import api, lang
from regime.engine.knowledge.load import load_knowledge
from regime.engine.run import durable_bridge
from regime.facts.vocabulary import load_vocabulary

HOSTILE_CONDITIONS = [
    "__import__('os').system('touch /tmp/pwned') == 0",
    "eval('1') == 1",
    "exec('x') == 1",
    "open('/etc/passwd') == 1",
    "().__class__.__bases__[0].__subclasses__() == 1",
    "bw_util.__class__ == 1",
    "globals() == 1",
    "[c for c in ()] == 1",
    "{'a': 1} == 1",
    "(lambda: 1)() == 1",
    "bw_util if bw_util else 1 > 0",
    "bw_util @ bw_util > 0",
    "bw_util ** bw_util > 0",
    "bw_util ** 100 > 0",
    "bw_util // 2 > 0",
    "bw_util % 2 > 0",
    "bw_util << 2 > 0",
    "bw_util in (1, 2)",
    "bw_util is None",
    "True == 1",
    "None == bw_util",
    "bw_util > 1e400",
    "bw_util > 10 ** 30",
    "flop_util / (bw_util - bw_util) > 1",
    "flop_util / 0 > 1",
    "x" * 3000,
    "bw_util > 0; import os",
    "f'{bw_util}' == 'x'",
    "b'x' == bw_util",
]


@pytest.mark.parametrize("condition", HOSTILE_CONDITIONS, ids=range(len(HOSTILE_CONDITIONS)))
def test_hostile_conditions_are_rejected_at_load(tmp_path, condition):
    pack = tmp_path / "hostile.yaml"
    pack.write_text("pack: hostile\ndescription: d\nrules:\n  - id: r1\n    description: d\n"
                    f"    when: {json.dumps(condition)}\n    finding: f\n    because: x\n", encoding="utf-8")
    with pytest.raises(RegimeError) as info:
        load_knowledge(load_vocabulary(), [pack])
    assert info.value.file == str(pack) and info.value.line == 6 and info.value.field == "when"


HOSTILE_VALUES = [
    ("flop_util", "true"), ("flop_util", "'4%; rm -rf /'"), ("flop_util", "[1, 2]"),
    ("flop_util", "{a: 1}"), ("flop_util", "'__import__(\"os\")'"), ("batch", "1e400"),
    ("batch", "'10**10**10'"), ("weight_bytes", "'1e30 GB'"), ("weight_bytes", "'-5 GB'"),
    ("peak_bw", "'nan TB/s'"), ("throughput", "'inf tokens/s'"), ("phase", "3"),
    ("phase", "'!!python/object/apply:os.system [ls]'"), ("kernel_share", "'8%'"),
    ("bw_util", "'78 % %'"), ("batch", "'one'"), ("weight_bytes", "'26 GB/s'"),
]


@pytest.mark.parametrize(("field", "value"), HOSTILE_VALUES, ids=[f"{f}={v}" for f, v in HOSTILE_VALUES])
def test_hostile_values_are_rejected_before_the_engine(tmp_path, knowledge, field, value):
    case = tmp_path / "hostile.yaml"
    case.write_text(f"title: t\nhardware: MI300X\nfacts:\n  phase: decode\n  {field}: {value}\n",
                    encoding="utf-8")
    with pytest.raises(RegimeError) as info:
        api.diagnose(case, knowledge)
    assert info.value.file == str(case) and info.value.line in (4, 5)


def test_python_tags_are_refused_by_the_safe_loader(tmp_path, knowledge):
    case = tmp_path / "tag.yaml"
    case.write_text("title: !!python/object/apply:os.system ['echo pwned']\nfacts: {}\n", encoding="utf-8")
    with pytest.raises(RegimeError, match=r"malformed YAML|cannot read|not supported"):
        api.diagnose(case, knowledge)


def test_tiny_values_reach_durable_safely(tmp_path, knowledge):
    # 1e-07 is a legitimate utilization; durable's parser would reject its JSON spelling
    # ("1e-07"), so it must be serialized with a dot and still compare correctly.
    assert durable_bridge.dumps(1e-07) == "1.0e-07"
    assert durable_bridge.dumps({"a": [1e16, -2e-09, 0.5]}) == '{"a": [1.0e+16, -2.0e-09, 0.5]}'
    text = {"s": 'one-e-shot 1e-5 "NaN"', "x": 1.5e-05}
    assert durable_bridge.dumps(text) == json.dumps(text, ensure_ascii=False)  # strings untouched
    with pytest.raises(ValueError, match="non-finite"):
        durable_bridge.dumps({"x": float("inf")})
    case = tmp_path / "tiny.yaml"
    case.write_text("title: t\nhardware: MI300X\nfacts:\n  phase: decode\n  batch: 1\n"
                    "  weight_dtype: fp16\n  compute_dtype: fp16\n  weight_bytes: 26 GB\n"
                    "  flop_util: 0.00001%\n  bw_util: 1e-07\n", encoding="utf-8")
    d = api.diagnose(case, knowledge)
    assert d.fact_value("regime") == "overhead_bound"
    assert d.fact_value("bw_util") == 1e-07


def test_huge_and_boolean_constants_in_conditions_are_refused():
    ctx = lang.Context(load_vocabulary())
    for text in ("bw_util > 1e300", "bw_util > True", "bw_util == None"):
        with pytest.raises(lang.ExprError):
            lang.parse(text, ctx, "condition")


@pytest.mark.e2e
def test_process_survives_a_batch_of_hostile_cases(tmp_path):
    paths = []
    for i, (field, value) in enumerate(HOSTILE_VALUES):
        p = tmp_path / f"h{i}.yaml"
        p.write_text(f"title: t\nhardware: MI300X\nfacts:\n  {field}: {value}\n", encoding="utf-8")
        paths.append(str(p))
    done = run_cli("diagnose", *paths, str(ROOT / "cases" / "a_chatbot.yaml"), "--format", "json")
    assert done.returncode == 2 and "Traceback" not in done.stderr
    assert done.stderr.count("error: ") == len(HOSTILE_VALUES)
    results = json.loads(done.stdout)["results"]
    assert [r["case"] for r in results if "error" not in r] == ["a_chatbot"]
    assert [r["file"] for r in results if "error" in r] == paths  # each refusal in its place


@pytest.mark.e2e
def test_durable_limits_become_pack_errors(tmp_path):
    # durable-rules allows ~31 expressions in one join (its error 113); the rule is named
    many = " and ".join(f"bw_util > flop_util * {i}" for i in range(1, 15))
    pack = tmp_path / "big.yaml"
    pack.write_text("pack: big\ndescription: d\nrules:\n  - id: too_big\n    description: d\n"
                    f"    when: {json.dumps(many)}\n    finding: f\n    because: x\n", encoding="utf-8")
    done = run_cli("check", "--rules", str(pack))
    assert done.returncode == 2 and "Traceback" not in done.stderr
    assert f"{pack}:4: when: rule 'too_big' is beyond what durable-rules can compile" in done.stderr


def test_constant_arithmetic_overflow_is_refused(tmp_path):
    pack = tmp_path / "inf.yaml"
    pack.write_text("pack: inf\ndescription: d\nrules:\n  - id: r1\n    description: d\n"
                    "    when: bw_util > 1e18 * 1e18\n    finding: f\n    because: x\n", encoding="utf-8")
    with pytest.raises(RegimeError, match="out of range"):
        load_knowledge(load_vocabulary(), [pack])

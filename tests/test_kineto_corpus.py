"""The public Kineto corpus (tests/data/kineto_corpus/README.md): HTA's test traces, param's,
pytorch/kineto's tb_plugin sample and TraceLens's, measured to HTA 0.5's own figures where HTA
is right and to figures computed from the same file with `json` alone."""

from __future__ import annotations

import gzip
import json
import statistics

import pytest
from conftest import TESTS

from regime.engine.trace import case_out
from regime.engine.trace.kernels import load_classifier
from regime.engine.trace.profilers.detect import measure_any
from regime.engine.trace.settings import settings
from regime.engine.trace.source import TraceError

CORPUS = TESTS / "data" / "kineto_corpus"
TB_2020 = CORPUS / "tb_plugin_2020_resnet50_num_workers_0.pt.trace.json.gz"


def _independent(path):
    """Kernels launched (Runtime event, same correlation) before the last ProfilerStep starts,
    the step annotations, and all kernel events: the file read with json, nothing shared."""
    events = json.loads(gzip.decompress(path.read_bytes()))
    steps = sorted((e["ts"], e["dur"], e["name"]) for e in events
                   if str(e.get("name", "")).startswith("ProfilerStep#"))
    cut = steps[-1][0]
    launched = {e["args"]["correlation"] for e in events if e.get("cat") == "Runtime" and e["ts"] < cut}
    kernels = [e for e in events if e.get("cat") == "Kernel"]
    kept = sum(1 for e in kernels if e["args"]["correlation"] in launched)
    return len(kernels), kept, steps


def test_a_bare_array_trace_with_operator_steps_is_read_as_hta_reads_it():
    in_file, kept, steps = _independent(TB_2020)
    m = measure_any(TB_2020, load_classifier(), settings())
    assert m.kernels_in_file == in_file == 9538
    assert m.kernels == kept == 7335
    assert [st.number for st in m.steps] == [int(n.split("#")[1]) for _, _, n in steps] == [5, 6, 7, 8, 9, 10]
    assert m.excluded_step == 10
    facts = case_out.case_mapping(m)["facts"]
    assert facts["step_time"] == "211206 us"   # median of #5–#9's durations
    assert facts["kernel_count"] == 7335


def test_a_trace_that_names_no_device_says_so():
    from regime.engine import api
    from regime.engine.trace.merge import measured_case
    measured = measured_case(TB_2020, api.knowledge([]))
    assert [f.id for f in measured.findings] == ["device_unnamed"]


# AMD-AGI/TraceLens test traces (README.md): file -> (kernels, device names, the finding about them)
TRACELENS = {
    "tracelens_b200_eager_trace.json.gz": (768, ["NVIDIA B200"], None),
    "tracelens_h100_gaunernst_bert-small-uncased__1016001.json.gz": (60, ["NVIDIA H100 80GB HBM3"], None),
    "tracelens_inference_sglang_decode_sglang_Qwen3-8B_decode.json.gz": (555, [None], "device_unnamed"),
    "tracelens_mi210_gpu_only_trace_gpu_only_trace.json.gz": (562, ["AMD Instinct MI210"],
                                                             "device_not_in_catalogue"),
    "tracelens_mi300_gaunernst_bert-small-uncased__1016001.json.gz": (60, [None], "device_unnamed"),
    "tracelens_torch_compile_triton_trace.json.gz": (12, [None], "device_unnamed"),
}


def _union_idle(path):
    """Kernels, and 1 − (union of kernel, copy and fill intervals per device) / (first start to
    last end per device), read with json alone; these traces have fewer than two ProfilerSteps,
    so nothing is left out."""
    doc = json.loads(gzip.decompress(path.read_bytes()))
    events = doc["traceEvents"] if isinstance(doc, dict) else doc
    per: dict = {}
    kernels = 0
    for e in events:
        cat = str(e.get("cat", "")).lower()
        if e.get("ph") == "X" and cat in ("kernel", "gpu_memcpy", "gpu_memset"):
            kernels += cat == "kernel"
            per.setdefault((e.get("args") or {}).get("device"), []).append((e["ts"], e["ts"] + e["dur"]))
    busy = window = 0.0
    for ivs in per.values():
        ivs.sort()
        lo, hi = ivs[0]
        for a, b in ivs[1:]:
            if a > hi:
                busy, lo, hi = busy + hi - lo, a, b
            else:
                hi = max(hi, b)
        busy += hi - lo
        window += max(b for _, b in ivs) - ivs[0][0]
    return kernels, 1 - busy / window


@pytest.mark.parametrize("name", sorted(TRACELENS))
def test_tracelens_traces_read_to_the_independent_union(name, knowledge):
    from regime.engine.trace.merge import measured_case
    path = CORPUS / name
    kernels, idle = _union_idle(path)
    want_kernels, names, finding = TRACELENS[name]
    m = measure_any(path, load_classifier(), settings())
    assert m.kernels == m.kernels_in_file == kernels == want_kernels
    assert m.idle_share == pytest.approx(idle, abs=1e-9)
    assert [d.name or None for d in m.devices] == names
    assert [f.id for f in measured_case(path, knowledge).findings] == ([finding] if finding else [])


# The whole corpus (SOURCES.json: origin, commit, licence of each file) against HTA 0.5's own
# figures and the ProfilerStep annotations read with json (EXPECTED.json, by hta_expected.py).
SOURCES = json.loads((CORPUS / "SOURCES.json").read_text())
FIGURES = json.loads((CORPUS / "EXPECTED.json").read_text())
GPU_CATS = ("kernel", "gpu_memcpy", "gpu_memset", "mtia_ccp_events")


def _gpu_events(path):
    """Complete events of a GPU category, read with json; None when there is no event list."""
    raw = gzip.decompress(path.read_bytes()) if path.name.endswith(".gz") else path.read_bytes()
    doc = json.loads(raw)
    events = doc.get("traceEvents") if isinstance(doc, dict) else doc
    if not isinstance(events, list):
        return None
    return [e for e in events if e.get("ph") == "X" and str(e.get("cat", "")).lower() in GPU_CATS]


def test_every_corpus_file_has_its_origin_and_figures():
    files = {p.name for p in CORPUS.iterdir() if p.name.endswith((".json", ".json.gz"))} - {
        "SOURCES.json", "EXPECTED.json"}
    assert files == set(SOURCES) == set(FIGURES)
    for src in SOURCES.values():
        assert {"repo", "commit", "path", "licence"} <= set(src) and len(src["commit"]) == 40


@pytest.mark.parametrize("name", sorted(FIGURES))
def test_corpus_trace_reads_to_htas_figures(name):
    path, fig, src = CORPUS / name, FIGURES[name], SOURCES[name]
    events = _gpu_events(path)
    if not events:   # no event list or no GPU activity: HTA fails on these too
        assert "error" in fig["hta"]
        with pytest.raises(TraceError):
            measure_any(path, load_classifier(), settings())
        return
    m = measure_any(path, load_classifier(), settings())
    hta, numbers = fig["hta"], fig["steps"]["numbers"]
    if "error" in hta:   # HTA fails on it; without two steps nothing is left out
        kernels = sum(e["cat"].lower() == "kernel" for e in events)
        assert len(numbers) >= 2 or m.kernels == kernels
    else:
        assert m.kernels == hta["kernels"]
        if "hta_wrong" not in src:
            assert m.hta_idle_share == pytest.approx(hta["idle_us"] / hta["window_us"], abs=1e-12)
    assert [st.number for st in m.steps] == numbers
    assert m.excluded_step == (numbers[-1] if len(numbers) >= 2 else None)
    done = [st for st in m.steps if st.number != m.excluded_step and st.gpu_events]
    if numbers:
        assert len(done) == len(numbers) - (len(numbers) >= 2)
        assert statistics.median(st.dur for st in done) == pytest.approx(fig["steps"]["median_us"], rel=1e-12)

"""Public Kineto traces of shapes older readers refused (tests/data/kineto_corpus/README.md),
measured to figures computed from the same file with `json` alone."""

from __future__ import annotations

import gzip
import json

from conftest import TESTS

from regime.engine.trace import case_out
from regime.engine.trace.kernels import load_classifier
from regime.engine.trace.profilers.detect import measure_any
from regime.engine.trace.settings import settings

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

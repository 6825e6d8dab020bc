"""Classes from the sealed241-256 sets, now development data (issue 27), each with the student's
own sentences: a step "starved by kernel launches" and a GPU "waiting on the host" are
overhead-bound while one "waiting on memory" is not; "the one saying ..." reports a claim; agreeing
with the first engineer does not endorse the second engineer's claim; "Then when ..." defers."""

from __future__ import annotations

from conftest import lever_statuses, read_body


def _regime(grader, tmp_path, case: str, body: str) -> str | None:
    return read_body(grader, tmp_path, case, body).regime


def _reasons(grader, tmp_path, case: str, body: str) -> dict[str, str]:
    """How the grader judges the reason each of the key's levers was given with."""
    from regime.engine.grading import reasons
    a = read_body(grader, tmp_path, case, body)
    key = grader.key(a, None)[0]
    return reasons.states(a, key, grader.concepts, grader.rubric.evidence.relative_tolerance)


def test_starved_by_kernel_launches_is_overhead_bound(grader, tmp_path):
    """sealed251 e.s2538 (instructor 80, graded 46 with no regime): a memo's diagnosis in words."""
    said = ("Diagnosis: the loop is starved by kernel launches, not by bandwidth or compute. Both "
            "utilisations are low (14% BW, 3% FLOPs).\n")
    assert _regime(grader, tmp_path, "e_doesnt_add_up", said) == "overhead_bound"


def test_waiting_on_memory_is_bandwidth_not_overhead(grader, tmp_path):
    """sealed236 a.s2390 (instructor 67, graded 35 as overhead-bound): 'the GPU is waiting' alone
    named the overhead regime, so 'the GPU is waiting on memory, not on math' read as idle."""
    said = ("Dana, the short answer is that the GPU is waiting on memory, not on math. The profiler "
            "has HBM at 78% of its peak and the FLOP rate at 4%.\n")
    assert _regime(grader, tmp_path, "a_chatbot", said) == "bandwidth_bound"
    said = ("## Regime\nNot bandwidth-bound and not compute-bound: the GPU is waiting on the host "
            "between kernels.\n")
    assert _regime(grader, tmp_path, "e_doesnt_add_up", said) == "overhead_bound"


def test_the_one_saying_reports_a_claim(grader, tmp_path):
    """sealed253 b.s2551 (instructor 100, graded 72 for endorsing the second engineer)."""
    a = read_body(grader, tmp_path, "b_training_run",
                  "Bottom line: the step is compute-bound overall, and the engineer asking to fuse is "
                  "right about the problem; the one saying memory-bound ops can be ignored is not.\n")
    assert not a.endorsed


def test_agreeing_with_the_first_engineer_endorses_no_claim(grader, tmp_path):
    """sealed253 b.s2552 (instructor 93, graded 67): the agreement is with what the first engineer
    says, not with the claim the paragraph's words are nearest to; agreeing with the second
    engineer and then stating the claim still endorses it (sealed173 b.s1756, instructor 1)."""
    a = read_body(grader, tmp_path, "b_training_run",
                  "## Who is right?\nThe first engineer says the memory-bound ops are worth fusing. I agree "
                  "with that part.\n")
    assert not a.endorsed
    a = read_body(grader, tmp_path, "b_training_run",
                  "I agree with the second engineer. At 61% of peak FLOPs this step is compute-bound, and "
                  "layer_norm and the pointwise ops run in the shadow of the compute, so hand-fusing them "
                  "is two weeks for nothing.\n")
    assert a.endorsed == ["memory_ops_irrelevant_when_compute_bound"]


def test_then_when_defers(grader):
    """sealed253 e.s2559 ('Then, when it's fast enough, add batching.', instructor: batching deferred)."""
    statuses = lever_statuses(grader, "Then when it's fast enough, add batching.")
    assert set(statuses.values()) == {"deferred"}


def _levers(mentions) -> set[str]:
    return {c for m in mentions for c in m.concepts}


def test_bracketed_step_numbers_split_a_plan(grader, tmp_path):
    """sealed243 e.s2455 (instructor 100, graded 70): 'fixes: (1) ... (2) ... (3) ...' on one line
    is three steps in order, not a list of names."""
    a = read_body(grader, tmp_path, "e_doesnt_add_up",
                  "regime: launch-overhead bound\n"
                  "fixes: (1) hip/cuda graph of the decode step - kills per-launch latency + python gaps "
                  "(2) torch.compile to fuse the small elementwise kernels -> fewer gaps (3) re-measure\n")
    assert [m.concepts for m in a.fixes][:2] == [("cuda_graphs",), ("torch_compile",)]
    assert not a.listed


def test_a_premise_denied_before_so_opens_fixes(grader, tmp_path):
    """sealed251 a.s2531 (instructor 100, graded 70): the "can't" is the premise's; what follows
    ', so' introduces the plan, not refusals."""
    a = read_body(grader, tmp_path, "a_chatbot",
                  "The weights stream at 78% of peak bandwidth, so this is bandwidth-bound.\n\n"
                  "So what now? One stream can't beat ~204 tok/s, so we either make more tokens share "
                  "each weight read or we make the weights smaller:\n\n"
                  "1. Continuous batching first. Each new request joins the running decode batch.\n"
                  "2. Then int8 weights: 26 -> 13 GB doubles the ceiling.\n")
    assert {"continuous_batching", "quantize_int8"} <= _levers(a.fixes)
    assert not {"continuous_batching", "quantize_int8"} & _levers(a.rejects)


def test_amortised_weights_argue_for_batching(grader, tmp_path):
    """sealed233 a.s2354 (instructor 100): 'merge incoming reqs into running batch, weights
    amortised over all seqs' is the key's argument (the weight read reused), not another one."""
    got = _reasons(grader, tmp_path, "a_chatbot",
                   "regime: BW bound (decode, bs=1)\n\nfixes: (1) continous batching - merge incoming "
                   "reqs into running batch, weights amortised over all seqs, kv small. (2) int8 weigths\n")
    assert got["continuous_batching"] == "right"


def test_a_dashed_status_label_refuses_every_lever_after_it(grader):
    """sealed247 e.s2494 (instructor 95, graded 65 with int8 recommended): 'no - batching, int8:
    they fix bytes ...' refuses both; a dash after a lever is no label ('int8 - halves the bytes')."""
    said = "no - batching, int8: they fix bytes, but GPU is idle not bandwidth starved"
    assert set(lever_statuses(grader, said).values()) == {"negated"}
    assert set(lever_statuses(grader, "int8 - halves the bytes").values()) == {"affirmed"}


def test_negligible_bytes_argue_against_fusion(grader, tmp_path):
    """sealed248 a.s2509 (instructor 88): 'Skip the elementwise fusion (negligible bytes)' is the
    key's argument that a perfect fusion would be invisible, not another one."""
    got = _reasons(grader, tmp_path, "a_chatbot",
                   "## Regime\nbandwidth-bound\n\n## Reject\n"
                   "- Skip the elementwise fusion (negligible bytes).\n")
    assert got["fuse_elementwise"] == "right"


def test_turning_the_vendor_down_refuses(grader, tmp_path):
    """sealed246 d.s2483 (instructor 70, graded 47 with int4 recommended): under '## On int4',
    "I'd turn the vendor down." refuses int4, as 'turn it down' does anywhere."""
    a = read_body(grader, tmp_path, "d_high_throughput_api",
                  "## Regime\nCompute-bound.\n\n## On int4\nI'd turn the vendor down. It costs accuracy.\n")
    assert "quantize_int4" in _levers(a.rejects) and "quantize_int4" not in _levers(a.fixes)
    assert lever_statuses(grader, "Int4? I would turn it down.") == {"quantize_int4": "negated"}


def test_the_main_levers_are_recommended(grader, tmp_path):
    """sealed251 d.s2537 (instructor 74, graded 50): 'So the main throughput levers are on the
    compute side: fp8 matmuls and better-tuned GEMM kernels.' recommends both."""
    a = read_body(grader, tmp_path, "d_high_throughput_api",
                  "Looking at the profile this workload is compute-bound at batch 256. So the main "
                  "throughput levers are on the compute side: fp8 matmuls and better-tuned GEMM kernels.\n")
    assert {"fp8_gemm", "better_gemm_tiling"} <= _levers(a.fixes)


def test_what_a_deferral_waits_for_is_not_refused_with_it(grader, tmp_path):
    """sealed224 e.s2266 (instructor 97, graded 62): 'Batching / int8: only if, after graphs and
    compile, the loop is actually bandwidth-bound. ... so I'm not doing them yet.' refuses batching
    and int8 for now, not the graphs and compile they wait for."""
    a = read_body(grader, tmp_path, "e_doesnt_add_up",
                  "**Regime:** launch/overhead-bound.\n\n**Fixes:**\n1. HIP/CUDA graphs around the decode "
                  "step.\n2. torch.compile, fusing the tiny kernels.\n\n**Batching / int8:** only if, after "
                  "graphs and compile, the loop is actually bandwidth-bound. Right now they'd shave bytes "
                  "off a step whose problem is idle time, so I'm not doing them yet.\n")
    assert not {"cuda_graphs", "torch_compile"} & _levers(a.rejects)
    assert {"cuda_graphs", "torch_compile"} <= _levers(a.fixes)


def test_a_numbered_label_glued_to_its_word(grader, tmp_path):
    """sealed218 a.s2209 (instructor 100, graded 70): 'fix1 continous batching - ...' and 'fix2
    int8 weigths, ...' are the fixes, in order."""
    a = read_body(grader, tmp_path, "a_chatbot",
                  "regime: bandwith bound, decode bs=1\n"
                  "fix1 continous batching - bursty traffic, merge arrivals into running batch\n"
                  "fix2 int8 weigths, 13GB -> 408 tok/s\n")
    assert [m.concepts for m in a.fixes] == [("continuous_batching",), ("quantize_int8",)]


def test_leaning_against_and_likely_not_refuse(grader):
    """sealed209 c.s2114 (instructor 90, graded 53 with both recommended): '**Batching the
    prefills:** I'd lean against it.' and 'Weight quantization: likely not worth it here either'."""
    assert lever_statuses(grader, "Batching the prefills: I'd lean against it.") == {"raise_batch": "negated"}
    said = "Weight quantization: likely not worth it here either; the 16 GB read is amortised."
    assert set(lever_statuses(grader, said).values()) == {"negated"}


def test_a_concluding_verdict_after_the_kinds_it_sets_aside(grader, tmp_path):
    """sealed215 e.s2171 (instructor 100, graded 64 with no regime): the nominal regime and the two
    a workload could be, then 'So this is launch-overhead-bound.'; a later sentence that names no
    regime of its own does not undo it."""
    a = read_body(grader, tmp_path, "e_doesnt_add_up",
                  "## What's going on\n\nOn paper this is a batch-1 decode loop, so it \"should\" be "
                  "bandwidth-bound. The profiler shows 14% of peak bandwidth and 3% of peak FLOP rate, and "
                  "a workload that is truly memory- or compute-bound always pins one of the two. So this is "
                  "launch-overhead-bound.\n\n## Not yet\n\nRaising the batch and quantizing the weights are "
                  "the right tools for a loop that is genuinely limited by bandwidth, but here they'd be "
                  "wasted.\n")
    assert a.regime == "overhead_bound"


def test_the_side_taken_is_the_party_before_the_cue(grader, tmp_path):
    """sealed205 b.s2071 (instructor 100, graded 72 for endorsing the second engineer): 'the first
    engineer has a point and the second one does not' sides with the first, who holds no claim."""
    a = read_body(grader, tmp_path, "b_training_run",
                  "**Regime.** The step is compute-bound overall. Even so, the first engineer has a point "
                  "and the second one does not.\n\n**The second engineer's view.** His line is that since "
                  "we are compute-bound, the memory-bound kernels cannot matter. That mixes up two things.\n")
    assert "memory_ops_irrelevant_when_compute_bound" not in a.endorsed


def test_a_dont_line_after_a_fixes_label_is_its_own_item(grader, tmp_path):
    """sealed179 d.s1818 (instructor 95, graded 55): 'dont go past bs 256 - past ridge, ...' under
    'fix: fp8 gemms ..., better gemm tiling' refuses the bigger batch and leaves the fixes a plan,
    not a list of five names."""
    a = read_body(grader, tmp_path, "d_high_throughput_api",
                  "regime: compute bound.\n"
                  "fix: fp8 gemms (raises compute ceiling), spec decoding / smaller model to cut flops, "
                  "better gemm tiling\n"
                  "dont go past bs 256 - past ridge, more batch = more latency for ~proportional time\n")
    assert {"fp8_gemm", "better_gemm_tiling"} <= _levers(a.fixes)
    assert "raise_batch" in _levers(a.rejects) and not a.listed


def test_fix_space_number_period_labels_a_step(grader, tmp_path):
    """sealed163 e.s1654 (instructor 95, graded 70): 'fix 1. hip/cuda graphs - ...'."""
    a = read_body(grader, tmp_path, "e_doesnt_add_up",
                  "regime: launch overhead bound (nominaly bw bound, batch 1 decode)\n"
                  "evidence: 14% bw + 3% flops = nothing saturated. 450 kernels/step, gaps 8-15us\n"
                  "fix 1. hip/cuda graphs - whole step in one launch, shapes are static\n"
                  "fix 2. torch.compile - fuse the tiny kernels, less gaps\n")
    assert [m.concepts for m in a.fixes] == [("cuda_graphs",), ("torch_compile",)]


def test_each_step_waits_on_memory(grader, tmp_path):
    """sealed158 a.s1603 (instructor 100, graded 65 with no regime): 'That combination means each
    step waits on memory.' names the bandwidth regime by what limits the step."""
    said = ("Here is why I say that. The profile shows the matrix cores busy only 4% of the time while HBM "
            "moves data at 78% of its peak. That combination means each step waits on memory.\n")
    assert _regime(grader, tmp_path, "a_chatbot", said) == "bandwidth_bound"


def test_two_things_i_would_not_do(grader, tmp_path):
    """sealed174 c.s1762 (instructor 92, graded 46): 'Two things I would not do.' announces the
    refusals after it; 'That memory-bound stretch is why attention eats 55%' describes a part of
    the step, not the verdict."""
    a = read_body(grader, tmp_path, "c_document_summarizer",
                  "Prefill of a long prompt is a compute-bound phase, so the question is why it reaches "
                  "only 20% of peak FLOPs. That memory-bound stretch is why attention eats 55% of prefill "
                  "time.\n\n"
                  "So the fix is FlashAttention.\n\n"
                  "Two things I would not do. Batching prefills together: one long prompt already keeps the "
                  "compute busy. And quantizing the weights: the weight read is 16 GB over 25,000 tokens.\n")
    assert a.regime == "compute_bound"
    assert {"raise_batch", "quantize_int8"} <= _levers(a.rejects) and "raise_batch" not in _levers(a.fixes)


def test_a_memory_bound_hole_is_a_part_of_the_step(grader, tmp_path):
    """sealed214 c.s2163 (instructor 100, graded 72 as bandwidth-bound)."""
    said = ("A 25,000-token prefill has an enormous number of tokens per pass, so on paper it is deep in "
            "compute-bound territory. Yet it only reaches 20% of peak. The naive attention writes the scores "
            "out and reads them back. That's the memory-bound hole the FLOP rate falls into.\n")
    assert _regime(grader, tmp_path, "c_document_summarizer", said) == "compute_bound"


def test_a_label_with_an_equals_sign(grader, tmp_path):
    """sealed267 e.s2696 (instructor 92, graded 62): 'regime = overhead bound ..., NOT really bw
    bound' is the Regime label, not a paragraph whose 'NOT' turns the lists after it into refusals."""
    a = read_body(grader, tmp_path, "e_doesnt_add_up",
                  "regime = overhead bound (kernel launch), NOT really bw bound even tho its bs1 decode\n"
                  "evidence:\n - 14% BW, 3% FLOPs -> nothing saturated, gpu idling\n"
                  "fixes:\n 1. hip/cuda graphs for the whole step (static shapes in decode)\n"
                  "reject: bigger batch, int8 -> both target bytes, the gpu is idle between kernels\n")
    assert a.regime == "overhead_bound"
    assert "cuda_graphs" in _levers(a.fixes) and "cuda_graphs" not in _levers(a.rejects)


def test_a_bold_label_with_a_bracketed_qualifier(grader, tmp_path):
    """sealed260 e.s2626 (instructor 100, graded 70 as a keyword list): '**Rejections (for now).**
    Raising the batch and quantizing: ...' heads refusals, not more of the fixes."""
    a = read_body(grader, tmp_path, "e_doesnt_add_up",
                  "**Regime.** Overhead-bound.\n\n**Fixes.**\n1. HIP/CUDA graph capture of the decode step.\n"
                  "2. torch.compile to merge small elementwise kernels.\n\n"
                  "**Rejections (for now).** Raising the batch and quantizing: they reduce or share bytes, "
                  "but the GPU is idle for over a third of each step.\n")
    assert {"cuda_graphs", "torch_compile"} <= _levers(a.fixes)
    assert "raise_batch" in _levers(a.rejects) and not a.stuffed

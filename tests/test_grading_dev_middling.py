"""Readings and scoring rules from the middling answers of the dev pool (instructor 50-84, off
by more than 10; issue 27), kept as the sentences students wrote them."""

from __future__ import annotations

from conftest import answer_file, lever_statuses

# sealed12 c.s149 (instructor 55: "-4: unsupported recommendation: CUDA graphs for a 25k-token
# prefill", "-4: unsupported recommendation: fp8 KV cache, not the problem"; graded 69.0)
EXTRAS = """regime: compute_bound
evidence:
  - {figure: transient_memory, value: 40 GB}
  - {figure: flop_util, value: 20%}
fixes:
  - {lever: flash_attention, bound: "removes the 40 GB score matrix"}
  - {lever: chunked_prefill, bound: "keeps other users' decode moving"}
  - {lever: cuda_graphs, bound: "cut launch overhead"}
  - {lever: quantize_kv_fp8, bound: "halves KV memory"}
reject:
  - {lever: raise_batch, reason: "TTFT is per prompt, batching makes it worse"}
"""


def _penalties(grader, tmp_path, case: str, body: str, name: str = "x.md") -> list[str]:
    return [p.id for p in grader.grade(answer_file(tmp_path, case, body, name)).penalties]


def test_a_fix_the_key_does_not_name_is_an_unsupported_extra(grader, tmp_path):
    """A recommended lever no key item names, in an item of its own, costs what the blind sets
    charge an unsupported extra; the key's own fixes cost nothing."""
    got = _penalties(grader, tmp_path, "c_document_summarizer", EXTRAS, "x.yaml")
    assert got == ["unsupported_fix", "unsupported_fix"]
    keyed = EXTRAS.replace('  - {lever: cuda_graphs, bound: "cut launch overhead"}\n', "") \
                  .replace('  - {lever: quantize_kv_fp8, bound: "halves KV memory"}\n', "")
    assert _penalties(grader, tmp_path, "c_document_summarizer", keyed, "x.yaml") == []


def test_a_lever_named_as_a_key_fix_s_how_is_no_extra(grader, tmp_path):
    """ "torch.compile to fuse the elementwise ops" names a second lever as the first's means
    (sealed128 e.s1301, instructor 100): not an extra fix."""
    body = ("## Regime\nOverhead-bound; nominally bandwidth-bound.\n## Fixes\n"
            "1. CUDA graphs: capture the decode step, one submission instead of 450 launches.\n"
            "2. torch.compile to fuse the small elementwise kernels: fewer kernels, fewer gaps.\n")
    assert "unsupported_fix" not in _penalties(grader, tmp_path, "e_doesnt_add_up", body)


def test_an_extra_after_a_trap_is_not_charged_again(grader, tmp_path):
    """sealed42 b.s442 (instructor 10): "fp8 GEMMs" follow from endorsing "memory ops don't
    matter"; the blind grades charge the trap, not each lever its argument brings."""
    body = ("## Regime\nCompute-bound.\n## Fixes\n1. fp8 GEMMs to raise the compute ceiling.\n"
            "## Reject\n- torch.compile: memory ops don't matter because we're compute-bound.\n")
    got = _penalties(grader, tmp_path, "b_training_run", body)
    assert got and "unsupported_fix" not in got


def test_a_lever_a_key_fix_carries_out_is_no_extra(grader, tmp_path):
    """corpus b.s08 (instructor 15): "Fuse the elementwise ops." is what the key's torch.compile
    and hand-written kernels do (concepts.yaml `done_by`); an fp8 KV cache is an extra there."""
    body = ("## Regime\nCompute-bound.\n## Fixes\n1. torch.compile first.\n"
            "2. Fuse the elementwise ops.\n")
    assert "unsupported_fix" not in _penalties(grader, tmp_path, "b_training_run", body)
    extra = body + "3. An fp8 KV cache to halve the KV memory.\n"
    assert _penalties(grader, tmp_path, "b_training_run", extra) == ["unsupported_fix"]


def test_a_lever_that_has_done_its_work_is_in_place(grader):
    """sealed109 d.s1111 (instructor 100): "Continuous batching has pushed this decode past the
    ridge" says what is in place (ConText's historical), not a fix to make."""
    said = "Continuous batching has pushed this decode past the ridge; it is compute-bound."
    assert lever_statuses(grader, said) == {"continuous_batching": "historical"}
    assert lever_statuses(grader, "CUDA graphs have closed the gaps.") == {"cuda_graphs": "historical"}

"""Classes from the sealed401-416 sets, development data once measured (issue 27), each with the
student's own sentences."""

from __future__ import annotations

from conftest import answer_file, lever_statuses, read_body


def _evidence_feedback(grader, path) -> str:
    return " ".join(next(p for p in grader.grade(path).parts if p.part == "evidence").feedback)


def test_a_bare_figure_in_a_table_is_said_of_its_column(grader, tmp_path):
    """sealed411 d.s4137 (instructor 95: both utilizations given): '| | FLOP rate | Bandwidth |
    Reading |' over '| measured | 71% | 30% | compute-bound |'. The 30% is the bandwidth's; in a
    lever's row ('| layer_norm | 8% |') a bare share stays the lever's."""
    said = ("|          | FLOP rate | Bandwidth | Reading       |\n"
            "|----------|-----------|-----------|---------------|\n"
            "| measured | 71%       | 30%       | compute-bound |\n")
    assert "bandwidth as a share of peak" not in _evidence_feedback(
        grader, answer_file(tmp_path, "d_high_throughput_api", said))


def test_a_reason_in_place_after_a_named_verdict_keeps_the_verdict(grader):
    """sealed407 b.s4096 (instructor 97: attention fusion refused): '| flash-attention | 7% | don't
    fuse further | already fused; the most it could give is <7% |' under a verdict column. "already
    fused" gives the refusal's reason; the lever is not merely in place."""
    said = "Flash-attention: don't fuse further, already fused."
    assert lever_statuses(grader, said).get("flash_attention") == "negated"
    assert lever_statuses(grader, "Flash-attention: already fused.").get("flash_attention") == "historical"


def test_a_mapping_under_a_key_the_format_lacks_states_its_figures(grader, tmp_path):
    """sealed408 d.s4102 (instructor 93: the int4 capacity point credited): 'int4_note: {dequant:
    ..., capacity: frees about 51 GB for longer contexts}' was left out whole; its texts' figures
    are read as a scalar key's are, and the key is still named as outside the format."""
    yaml_answer = ("case: d_high_throughput_api\nstudent: x\nregime: compute_bound\n"
                   "int4_note: {dequant: adds compute on the busy axis, capacity: frees about 51 GB}\n")
    path = tmp_path / "x.yaml"
    path.write_text(yaml_answer)
    assert "memory int4 would free" not in _evidence_feedback(grader, path)
    r = grader.grade(path)
    assert any("'int4_note' is not one of the answer's keys" in n and "figures were read" in n
               for n in r.notes)


def test_english_words_near_an_alias_word_are_not_corrected_into_it(grader):
    """The typo reader read 'until' as 'util', 'having' as 'halving', 'throughout' as 'throughput',
    'unfused' as 'unused' and 'deciding' as 'decoding' (every answer through sealed416, 670 times
    for 'until' alone): "I'm setting that aside until step 3 shows ..." lost its deferral."""
    said = "until having throughout unfused deciding setting"
    assert grader.concepts.words(said) == said.split()
    assert grader.concepts.words("bandwith compiel") == ["bandwidth", "compile"]   # typos still read


def test_a_refusal_pointing_back_that_waits_for_something_puts_it_off(grader):
    """sealed410 e.s4128 (instructor 100: int8 named only to be set aside until step 3): "We could
    also quantize the weights to int8; I'm setting that aside until step 3 shows the loop is truly
    bandwidth-bound". Without its condition it is refused; "read once" is no condition."""
    said = "We could also quantize the weights to int8. I'm setting that aside until step 3 shows it."
    assert lever_statuses(grader, said).get("quantize_int8") == "deferred"
    said = "We could also quantize the weights to int8. I'm setting that aside."
    assert lever_statuses(grader, said).get("quantize_int8") == "negated"


def test_a_sentence_opening_on_it_keeps_what_the_one_before_named(grader):
    """sealed401 d.s4033 (instructor 97: int4 refused): "Here int4 only shrinks a resource we use
    30% of ... It could easily come out slower. So: not for throughput on this endpoint." The
    'It' sentence names nothing and goes on about int4; the refusal after it still reaches int4,
    as it would with "on this endpoint" left off."""
    said = ("Here int4 only shrinks a resource we use 30% of. It could easily come out slower. "
            "So: not for throughput on this endpoint.")
    assert lever_statuses(grader, said).get("quantize_int4") == "negated"
    said = "Here int4 only shrinks a resource we use 30% of. The GPU is busy. So: not for throughput."
    assert lever_statuses(grader, said).get("quantize_int4") != "negated"


def test_a_reason_after_an_offer_is_not_its_condition(grader):
    """sealed415 e.s4177 (instructor 79: "raising the batch proposed under a condition", the item
    and 3 more): "If users are waiting in a queue, raise the batch as well, since that spreads the
    launch cost over more tokens." The condition is the queue; 'launch' is in the reason, and is
    no sign of the key's own wait (the launch gaps gone)."""
    from regime.engine.grading.offers import waits_elsewhere
    fixes = {"cuda_graphs", "torch_compile"}
    said = ("If users are waiting in a queue, raise the batch as well, since that spreads the launch "
            "cost over more tokens.")
    assert waits_elsewhere(grader.concepts, said, "raise_batch", fixes)
    said = "If the launch gaps are gone and users are waiting, raise the batch as well."
    assert not waits_elsewhere(grader.concepts, said, "raise_batch", fixes)


def test_not_addressing_the_gaps_argues_a_rejection_as_not_filling_them(grader, tmp_path):
    """sealed403 e.s4059 (instructor 80: batching and quantization refused for the gaps, with full
    reasons): "Batching and quantization don't address the idle gaps, so not now." """
    said = "## Regime\nOverhead-bound.\n\n## Reject\nBatching doesn't address the idle gaps, so not now.\n"
    r = grader.grade(answer_file(tmp_path, "e_doesnt_add_up", said))
    feedback = " ".join(next(p for p in r.parts if p.part == "rejections").feedback)
    assert "Right rejection, not its reason: raise batch" not in feedback


def test_nothing_to_give_refuses_what_it_says_it_of(grader):
    """sealed404 b.s4066 (instructor 100: attention fusion dismissed): "... so fusing it more has
    nothing much to give"; and "has little to gain" as its own predicate."""
    assert lever_statuses(grader, "Fusing attention more has nothing much to give.").get(
        "fuse_attention") == "negated"
    assert lever_statuses(grader, "Fusing attention has little to gain.").get("fuse_attention") == "negated"


def test_a_purpose_set_against_another_refuses_nothing(grader, tmp_path):
    """sealed421 e.s4231 (instructor 100, graded 86 once 'on this endpoint' counted as elliptical):
    "2. torch.compile to merge the many small elementwise kernels ... (Fusion for kernel count here,
    not for bytes as in a chatbot.)" compares; it does not refuse the compile."""
    said = ("## Fixes\n1. CUDA graphs: one submission for the step.\n2. torch.compile to merge the many "
            "small elementwise kernels: fewer kernels, fewer gaps. (Fusion for kernel count here, not "
            "for bytes as in a chatbot.)\n")
    a = read_body(grader, tmp_path, "e_doesnt_add_up", said)
    assert any("torch_compile" in m.concepts for m in a.fixes)
    assert not any("torch_compile" in m.concepts for m in a.rejects)


def test_a_quotation_after_a_possessive_is_someone_elses(grader, tmp_path):
    """sealed428 e.s4304 (instructor 95: the director's idea refuted): 'The director's "just quantize
    it" has the same problem; smaller weights make the busy part shorter ...' was read as the
    student quantizing. A regime inside such a quotation is still read as before (sealed213 b.s2156:
    'the second engineer's "it doesn't matter because we're compute-bound" mixes up ...')."""
    said = "The director's \"just quantize it\" has the same problem."   # theirs, and refused by likeness
    assert lever_statuses(grader, said).get("quantize_int8") == "negated"   # (sealed703 e.s7060)
    said = "The director's \"just quantize it\" came up in the meeting."
    assert lever_statuses(grader, said).get("quantize_int8") == "attributed"
    body = ("Regime: compute-bound, but the 22% in layer_norm, add/mul/silu and to_copy is overhead worth "
            "removing — the second engineer's \"it doesn't matter because we're compute-bound\" mixes up "
            "where the bottleneck is with where the time goes.")
    assert read_body(grader, tmp_path, "b_training_run", body).regime == "compute_bound"


def test_nothing_saturated_names_no_limit(grader, tmp_path):
    """sealed426 e.s4287 (instructor 95: launch-bound): "Both counters are low (14% of peak bandwidth,
    3% of peak FLOPs), and when nothing on the GPU is saturated, the GPU is simply waiting." was read
    as compute-bound: 'is saturated' took the nearest resource before it, though its subject is
    'nothing'."""
    said = ("Both counters are low (14% of peak bandwidth, 3% of peak FLOPs), and when nothing on the GPU "
            "is saturated, the GPU is simply waiting.")
    assert read_body(grader, tmp_path, "e_doesnt_add_up", said).regime is None
    said = "At 71% of peak FLOPs the matrix cores are the busy side; compute is saturated."
    assert read_body(grader, tmp_path, "d_high_throughput_api", said, "y.md").regime == "compute_bound"

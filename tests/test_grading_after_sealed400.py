"""Classes from the sealed369-400 sets, development data once measured (issue 27), each with the
student's own sentences."""

from __future__ import annotations

from conftest import answer_file, lever_statuses, read_body


def test_wouldnt_hurt_leans_toward_it(grader):
    """sealed399 d.s4015 (instructor 4: "int4 'wouldn't hurt': verdict items lost and 3 more
    (hedged)"); sealed107 a.s1097 "Fusing the elementwise kernels probably wouldn't hurt" (-13 and
    -4 for leaning toward it). The 'not' in "wouldn't hurt" refuses nothing: the lever is hedged."""
    assert lever_statuses(grader, "Int4 would not hurt either.").get("quantize_int4") == "possible"
    assert lever_statuses(grader, "It can't hurt to try int4 as well.").get("quantize_int4") == "possible"
    said = "No harm in fusing the elementwise ops."
    assert lever_statuses(grader, said).get("fuse_elementwise") == "possible"


def test_a_keyword_list_with_a_regime_among_its_terms_commits_to_none_of_its_levers(grader, tmp_path):
    """sealed395 e.s3980 (instructor 0, graded 28.8 with both fixes in order): 'Possible factors:
    launch overhead, CUDA graphs, HIP graphs, torch.compile, kernel fusion, bandwidth-bound, ...'.
    Four levers are not too many for a sentence of prose, but a bare regime among bare lever names
    makes it a list of terms; sealed114 b.s1169 (instructor 0) is one the key's menu rule took."""
    said = ("Possible factors: launch overhead, CUDA graphs, HIP graphs, torch.compile, kernel fusion, "
            "bandwidth-bound, compute-bound, batch size, int8 quantization, 215 tok/s, 14%, 3%, gaps.")
    a = read_body(grader, tmp_path, "e_doesnt_add_up", said)
    assert not a.fixes and a.regime is None
    assert grader.grade(answer_file(tmp_path, "e_doesnt_add_up", said)).score == 0
    terms = ("torch.compile, fusion, hand kernels, flash attention, compute-bound, memory-bound, to_copy, "
             "layer norm, MFU, roofline, crossover")
    assert grader.grade(answer_file(tmp_path, "b_training_run", terms, "y.md")).score == 0



def test_a_limit_under_a_condition_is_not_the_steps(grader, tmp_path):
    """sealed387 d.s3900 (instructor 95, graded 49 as bandwidth-bound): 'Verdict: compute-bound in
    principle, but only just. ... If the batch dropped much below ~250 we would slide back toward
    the bandwidth side'. The bandwidth side is where a smaller batch would go, not where it is."""
    said = ("Verdict: compute-bound in principle, but only just. The profiler agrees, 71% of the FLOP "
            "peak versus 30% of bandwidth. If the batch dropped much below ~250 we would slide back toward "
            "the bandwidth side, so this is worth keeping an eye on.")
    assert read_body(grader, tmp_path, "d_high_throughput_api", said).regime == "compute_bound"


def test_what_stops_being_true_is_denied(grader, tmp_path):
    """sealed398 d.s4001 (instructor 100, graded 57 as bandwidth-bound): '... so we are just past the
    point where decode stops being bandwidth-bound. Two separate measurements agree: we are
    compute-bound.'"""
    said = ("At batch 256 each weight byte is used for roughly 256 FLOPs against a ridge of 247, so we are "
            "just past the point where decode stops being bandwidth-bound. Two separate measurements "
            "agree: we are compute-bound.")
    a = read_body(grader, tmp_path, "d_high_throughput_api", said)
    assert a.regime == "compute_bound" and "bandwidth_bound" in a.regimes_denied


def test_a_doubt_of_the_proposals_merit_under_its_topic_refuses_it(grader):
    """sealed387 d.s3900: 'On int4. I'm not sure the vendor's offer is wise for this endpoint.' The
    offer is the topic's lever, as 'I'm not sure it is wise' would be."""
    said = "On int4. I'm not sure the vendor's offer is wise for this endpoint."
    assert lever_statuses(grader, said).get("quantize_int4") == "negated"


def test_and_set_it_aside_after_a_comma_refuses_what_came_before(grader):
    """sealed379 e.s3819 (instructor 100): 'I looked at quantizing first, as asked, and set it aside:
    it moves fewer bytes per step, but no bytes move in a gap.' The refusal holds the word that
    points back; the commas before 'and' do not end its reach (sealed377 d.s3799 likewise)."""
    said = "I looked at quantizing first, as asked, and set it aside: it moves fewer bytes per step."
    assert lever_statuses(grader, said).get("quantize_int8") == "negated"


def test_so_the_problem_is_concludes_over_a_regime_reported_earlier(grader, tmp_path):
    """sealed381 e.s3832 (instructor 100, graded 66 as bandwidth-bound): the director's reason,
    'since batch-1 decode is bandwidth-bound', then after the evidence 'So the problem is launch
    overhead.' The conclusion is the student's verdict."""
    said = ("You suggested we simply batch more requests, since batch-1 decode is bandwidth-bound and "
            "batching is the standard cure. That is true on paper, but it isn't what limits this loop.\n\n"
            "Both utilizations are low: 14% of bandwidth and 3% of FLOPs.\n\n"
            "So the problem is launch overhead.")
    assert read_body(grader, tmp_path, "e_doesnt_add_up", said).regime == "overhead_bound"


def test_what_a_pairing_of_figures_says_is_the_students_own_reading(grader, tmp_path):
    """sealed378 a.s3801 (instructor 100, graded 65 with no regime): 'The profiler has the matrix
    units at 4% ... while HBM bandwidth sits at 78% of peak. That pairing says we are limited by
    memory bandwidth'. A pairing of figures is no speaker."""
    said = "That pairing says we are limited by memory bandwidth."
    assert read_body(grader, tmp_path, "a_chatbot", said).regime == "bandwidth_bound"


def test_someone_is_wrong_that_a_claim_refutes_the_claim(grader, tmp_path):
    """sealed369 b.s3717 (instructor 52, graded 23 with the claim endorsed): '5. The second engineer
    is wrong that memory ops don't matter; 22% of the step is wall-clock time whatever the regime.'
    As a label, 'Engineer 2 is wrong:' still refuses its own subject, not what follows its colon
    (sealed14 b.s166: the regime after it stands)."""
    said = "The second engineer is wrong that memory ops don't matter; 22% of the step is wall-clock time."
    a = read_body(grader, tmp_path, "b_training_run", said)
    claim = "memory_ops_irrelevant_when_compute_bound"
    assert claim not in a.endorsed and claim in {c for m in a.rejects for c in m.concepts}
    label = 'Engineer 2 says "memory ops don\'t matter." Engineer 2 is wrong: the run is compute-bound.'
    assert read_body(grader, tmp_path, "b_training_run", label).regime == "compute_bound"


def test_a_limit_said_of_a_phase_is_not_the_steps(grader, tmp_path):
    """sealed372 c.s3742 (instructor 92, graded 66 as bandwidth-bound): '... a prefill of this size
    should be compute-bound. ... moving several terabytes for the whole prompt, and during that time
    the GPU is waiting on memory rather than computing.' What limits one phase of the prefill."""
    said = ("So this is a prefill problem, and a prefill of this size should be compute-bound. Writing "
            "that matrix means moving several terabytes for the whole prompt, and during that time the GPU "
            "is waiting on memory rather than computing.")
    assert read_body(grader, tmp_path, "c_document_summarizer", said).regime == "compute_bound"

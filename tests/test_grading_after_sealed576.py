"""Classes from the development pool through sealed576 (issue 27), each with the student's own
sentences."""

from __future__ import annotations

from conftest import answer_file, lever_statuses, read_body


def test_after_each_kernel_places_a_gap_not_a_step(grader):
    """sealed574 e.s5769 (instructor 79: graphs recommended first): "with 450 kernels per step and
    a gap of 8-15 us after nearly every one, ..., and the obvious cure for that, recording the step
    once as a CUDA graph and replaying it, is what I'd put in first" was read as graphs deferred,
    since "after" ("after that" less its filler) puts off what follows. "after" before a
    quantifier says where in the timeline; "after" before a step still defers."""
    for said in ("There is a gap after each kernel, and a CUDA graph is what I'd put in first.",
                 "A gap of 8-15 us after nearly every one, so I'd put in a CUDA graph first.",
                 "Idle time after every launch: capture the step as a CUDA graph."):
        assert lever_statuses(grader, said)["cuda_graphs"] != "deferred", said
    assert lever_statuses(grader, "After the graphs are in, raise the batch.")["raise_batch"] == "deferred"


def test_a_lever_reason_under_reject_refuses_no_claim(grader, tmp_path):
    """sealed566 b.s5684 (instructor 5: the second engineer agreed with) and sealed532 b.s5344
    (10): a Reject item's second sentence giving the refused lever's reason ("Those kernels are
    memory-bound and we are not, so speeding them up would not change the step time") argues the
    claim; read by meaning it had rejected it, worth 10 points. A sentence that refutes someone,
    or names the speaker, still answers the claim."""
    claim = "memory_ops_irrelevant_when_compute_bound"
    reason = ("## Reject\n- Two weeks of hand-fusing layer_norm and silu. Those kernels are memory-bound "
              "and we are not, so speeding them up would not change the step time.\n")
    read = read_body(grader, tmp_path, "b_training_run", reason)
    assert not any(claim in m.concepts for m in read.rejects)
    assert any("hand_fused_kernels" in m.concepts for m in read.rejects)
    for answers in ("The second engineer has it backwards: the 22% is real time whether or not the "
                    "GEMMs are compute-bound.",
                    "That view is wrong: compute-bound describes the matmuls, not the 22% of time in "
                    "kernels with no FLOPs."):
        said = f"## Reject\n- Hand-fusing before torch.compile. {answers}\n"
        read = read_body(grader, tmp_path, "b_training_run", said)
        assert any(claim in m.concepts for m in read.rejects), answers


def _offered_and_kept(grader, tmp_path, case: str, body: str, offered: str, kept: str):
    """The rejections part and the penalties of `body` with the offer, then with the other line."""
    out = []
    for n, line in enumerate((offered, kept)):
        r = grader.grade(answer_file(tmp_path, case, body.format(offer=line), f"{case}{n}.md"))
        out.append((next(p for p in r.parts if p.part == "rejections").points, {p.id for p in r.penalties}))
    return out


def test_a_rejected_lever_offered_on_a_condition_is_left_open(grader, tmp_path):
    """sealed552 c.s5546 (instructor 74: "-16: batching recommended under a condition") and
    sealed542 e.s5448 (76: "raising the batch recommended under a condition instead of rejected"):
    an offer opening on "And if ..." or written under Reject, and one whose purpose names the
    key's own wait ("to put the idle GPU to work") while its condition is traffic, were credited
    as rejections. They leave the lever open; a refusal, or the key's own condition, does not."""
    c = ("Regime: prefill, compute-bound.\n\nFixes: FlashAttention first, then chunked prefill. "
         "{offer}\n\nReject: weight quantization: 16 GB over 25k tokens is negligible per token.\n")
    e = ("Regime: launch-overhead-bound; nothing is saturated.\n\nFixes: CUDA graphs, then torch.compile.\n\n"
         "Reject: quantizing the weights: fewer bytes do nothing for idle time.\n\n{offer}\n")
    for case, body, offered, kept in (
            ("c_document_summarizer", c, "And if a lot of documents arrive at the same moment, batching "
             "their prefills would be worth turning on.",
             "Batching the prefills would not help TTFT: one prompt already saturates compute."),
            ("e_doesnt_add_up", e, "If traffic picks up, raising the batch would be worth doing right away "
             "to put the idle GPU to work.",
             "If a re-measure after the graphs shows it bandwidth-bound, raise the batch.")):
        (left, pens), (refused, kept_pens) = _offered_and_kept(grader, tmp_path, case, body, offered, kept)
        assert left < refused and "leans_to_a_rejected_lever" in pens, case
        assert "leans_to_a_rejected_lever" not in kept_pens, case


def test_a_doubt_of_its_merit_after_a_quotation_refuses_it(grader, tmp_path):
    """sealed562 d.s5643 and sealed488 d.s4903 (instructors 100: int4 refused softly): 'The vendor
    told the director that "int4 will give you up to 4x throughput." I'm not sure that's wise to act
    on here.' was read as the vendor's words and nothing more. A doubt with a merit after it and
    nothing named refuses what came before, as "I'm not sure int4 is wise" does; a bare doubt
    ("I'm not sure how much that buys") still refuses nothing."""
    said = ('## The vendor\nThe vendor told the director that "int4 will give you up to 4x throughput." '
            "I'm not sure {doubt} here.\n")
    def rejects(doubt: str) -> bool:
        read = read_body(grader, tmp_path, "d_high_throughput_api", said.format(doubt=doubt))
        return any("quantize_int4" in m.concepts for m in read.rejects)
    assert rejects("that's wise to act on") and rejects("it's a good idea")
    assert not rejects("how much that buys")


def test_the_most_productive_thing_recommends(grader, tmp_path):
    """sealed551 d.s5536 (instructor 90: fp8 and tiling recommended, buried in a paragraph): in prose
    without template headings an affirmed lever is a fix only with a recommending cue (context.yaml
    `recommend`); "the most productive thing here would be to move the matrix multiplies to fp8" had
    none, and the answer got no fixes."""
    said = ("Compute-bound: 71% of peak FLOPs against 30% of bandwidth.\n\nOn the GEMM headroom, the team "
            "has been going back and forth on kernel libraries, and honestly the most productive thing "
            "here would be to move the matrix multiplies to fp8 on the matrix cores.\n")
    read = read_body(grader, tmp_path, "d_high_throughput_api", said)
    assert any("fp8_gemm" in m.concepts for m in read.fixes)

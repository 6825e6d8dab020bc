"""Classes from the development pool through sealed552 (issue 27), each with the student's own
sentences."""

from __future__ import annotations

from conftest import answer_file, read_body

VERDICT = ("Regime: compute-bound. At batch 256 the intensity is about 256 FLOP/byte, past the 247 ridge.\n\n"
           "Evidence: 71% of peak FLOP rate and 30% of peak bandwidth{reading}\n\n"
           "Fixes: fp8 GEMMs to raise the compute ceiling.\n")


def _evidence(grader, tmp_path, case: str, reading: str, name: str):
    r = grader.grade(answer_file(tmp_path, case, VERDICT.format(reading=reading), name))
    return next(p for p in r.parts if p.part == "evidence")


def test_idle_bandwidth_read_as_headroom_reads_the_pair_the_wrong_way(grader, tmp_path):
    """sealed532 d.s5345 ("there's plenty of bandwidth headroom to exploit"), sealed488 d.s4905
    ("Raise the batch to use the spare bandwidth"): under the key's own verdict, the idle 30% taken
    for room to grow; the blind grades take the 71%/30% item ("-15: 71%/30% read the wrong way"),
    where the grader had given full evidence. Said the right way round, or denied, it keeps it."""
    plain = _evidence(grader, tmp_path, "d_high_throughput_api", ".", "a.md")
    misread = _evidence(grader, tmp_path, "d_high_throughput_api",
                        ", so there's plenty of bandwidth headroom to exploit.", "b.md")
    assert misread.points < plain.points
    assert any("Read the wrong way" in line and "headroom" in line for line in misread.feedback)
    for right in (": the 70% of bandwidth headroom is irrelevant while compute binds.",
                  ": bandwidth is 70% idle, so int4 attacks the idle resource."):
        kept = _evidence(grader, tmp_path, "d_high_throughput_api", right, "c.md")   # 70% idle supports
        assert kept.points >= plain.points and not any("Read the wrong way" in x for x in kept.feedback)


def test_headroom_reads_the_wrong_way_only_where_compute_binds(grader, tmp_path):
    """The phrases are the compute-bound verdict's (rubric.yaml `read_wrong_way.misreads`): in a
    bandwidth-bound decode the same words judge nothing about its figures."""
    said = "Regime: bandwidth-bound decode, 78% of peak bandwidth and 4% of FLOPs{reading}\n"
    def ev(reading: str, name: str):
        r = grader.grade(answer_file(tmp_path, "a_chatbot", said.format(reading=reading), name))
        return next(p for p in r.parts if p.part == "evidence").points
    assert ev(", so there is little bandwidth headroom left.", "a.md") == ev(".", "b.md")


def test_a_resource_at_its_level_is_no_verdict(grader, tmp_path):
    """sealed476 d.s4786 (instructor: "regime: neither resource is maxed out (wrong)", graded
    compute-bound): "## Regime / Neither resource is maxed out. Compute is at 71%, ..." says how
    busy each resource is; the one word a Regime section shortens its verdict to still reads."""
    levels = ("## Regime\nNeither resource is maxed out. Compute is at 71%, so there's still ~30% left; "
              "bandwidth is at 30%, so there's a lot of room there.\n")
    assert read_body(grader, tmp_path, "d_high_throughput_api", levels).regime is None
    for word, regime in (("Compute.", "compute_bound"), ("Prefill-bound (compute).", "compute_bound"),
                         ("Memory (78% of peak).", "bandwidth_bound")):
        assert read_body(grader, tmp_path, "d_high_throughput_api", f"## Regime\n{word}\n").regime == regime

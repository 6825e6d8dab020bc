"""Classes from the development pool through sealed552 (issue 27), each with the student's own
sentences."""

from __future__ import annotations

import pytest
from conftest import answer_file, read_body

from regime.core.errors import RegimeError
from regime.core.yamlsrc import load_yaml

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


def test_a_rejection_naming_neither_lever_nor_claim_costs_that_item(grader, tmp_path):
    """sealed529 d.s5315 (instructor 80, not graded at all): a '{note: ...}' entry among the
    rejections refused the whole answer, where one bad item costs only that item."""
    said = ("regime: compute-bound\nfixes:\n  - {lever: fp8_gemm, reason: raises the compute ceiling}\n"
            "reject:\n  - {lever: quantize_int4, reason: bandwidth is only 30% used}\n"
            "  - {note: int4 also has to be dequantized before the matmul}\n")
    r = grader.grade(answer_file(tmp_path, "d_high_throughput_api", said, "x.yaml"))
    assert r.graded and r.score > 0
    rejections = next(p for p in r.parts if p.part == "rejections")
    assert rejections.points > 0 and any("names exactly one of" in x for x in rejections.feedback)


def test_a_word_repeated_in_split_text_is_no_duplicate_key(grader, tmp_path):
    """sealed520 c.s5223 (instructor 90, not graded at all): '{figure: ..., note: write, read,
    write, read}' repeats bare words YAML took for keys; an answer's flow mapping keeps the first
    (the reader joins them back onto the text), where a pack or a case still refuses a repeat."""
    said = ("regime: compute_bound\nevidence:\n  - {figure: score-matrix HBM traffic, value: 1.6 TB per "
            "prefill, note: write, read, write, read}\n"
            "fixes:\n  - {lever: flash_attention, bound: scores stay on chip}\n")
    assert grader.grade(answer_file(tmp_path, "c_document_summarizer", said, "x.yaml")).graded
    with pytest.raises(RegimeError, match="duplicate key 'read'"):
        load_yaml(tmp_path / "pack.yaml", text="note: {a: write, read, write, read}\n")
    with pytest.raises(RegimeError, match="duplicate key 'lever'"):
        load_yaml(tmp_path / "x.yaml", text="fixes:\n  - {lever: a, lever: b}\n", answer=True)


def test_supposed_to_be_names_the_nominal_regime(grader, tmp_path):
    """sealed545 e.s5473 and sealed544 e.s5469 (instructors 100, graded 38.5 and 63.5 as
    bandwidth-bound): "supposed to be bandwidth-bound ..., but ... It's bound by launch overhead"
    sets the regime the batch predicts beside the verdict, as "nominally" does."""
    said = ("This decode loop is supposed to be bandwidth-bound (batch 1), but right now it isn't bound by "
            "bandwidth or by compute. It's bound by launch overhead.")
    a = read_body(grader, tmp_path, "e_doesnt_add_up", said)
    assert (a.regime, a.nominal_regime) == ("overhead_bound", "bandwidth_bound")

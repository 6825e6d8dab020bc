"""Classes from the development pool through sealed656 (issue 27), each with the student's own
sentences."""

from __future__ import annotations

from conftest import read_body


def test_an_outline_with_numbered_items_under_numbered_headings(grader, tmp_path):
    """sealed594 e.s5961 (instructor 100, graded 45): "3. Fixes, in order" over three numbered
    steps, then "4. Reject (for now)" over two: the steps ran on through the Reject heading (its
    "4." went on from their "3.") and the refused levers were read as five listed fixes. A numbered
    step list ends at an item outdented from it, and a heading qualified after a comma or in
    brackets introduces the items under it as a bare one does."""
    body = ("1. Regime\n   1. Launch-overhead-bound: neither bandwidth nor compute is saturated.\n"
            "2. {fixes}\n   1. Capture the decode step as a CUDA graph: one submission per step.\n"
            "   2. torch.compile to merge the many small elementwise kernels.\n"
            "   3. Re-measure against 215 tok/s.\n"
            "3. {reject}\n   1. Raising the batch: nothing is saturated, so more sequences fill no gap.\n"
            "   2. Quantizing the weights: fewer bytes cannot fill gaps in which no kernel runs.\n")
    for fixes, reject in (("Fixes, in order", "Reject (for now)"), ("Fixes", "Reject")):
        read = read_body(grader, tmp_path, "e_doesnt_add_up", body.format(fixes=fixes, reject=reject))
        assert {c for m in read.fixes for c in m.concepts} >= {"cuda_graphs", "torch_compile"}, fixes
        assert {c for m in read.rejects for c in m.concepts} >= {"raise_batch", "quantize_int8"}, reject
        assert not {c for m in read.fixes for c in m.concepts} & {"raise_batch", "quantize_int8"}

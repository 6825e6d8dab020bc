"""Classes from the sealed297-304 sets, now development data (issue 27), each with the student's
own sentences."""

from __future__ import annotations

from conftest import read_body

from regime.engine.grading.reading import read_against


def _read(grader, tmp_path, case: str, body: str):
    a = read_body(grader, tmp_path, case, body)
    return read_against(a, grader.key(a, None)[0], grader.concepts.context.menu_share, grader.concepts)


def test_a_lever_refused_for_now_offered_on_another_condition(grader, tmp_path):
    """sealed297 e.s2998, sealed303 e.s3058 (instructors 69 and 74, graded 84 and 92 with batching
    read as refused for now): 'If users are queueing at peak times, also raise the batch so more
    requests share each step.' The key refuses batching until the overhead is gone; a condition
    about traffic is not that wait, so the lever is left open. A condition that is the key's wait
    (a regime, one of its fixes, a re-measure) still defers it in the solution's order."""
    head = ("Regime: launch-overhead-bound, 14% bandwidth and 3% FLOPs.\n\n1. CUDA graphs, so the ~450 "
            "launches become one submission.\n2. torch.compile to fuse small kernels.\n")
    offered = head + ("3. If users are queueing at peak times, also raise the batch so more requests share "
                      "each step.\n")
    read = _read(grader, tmp_path, "e_doesnt_add_up", offered)
    assert "raise_batch" in read.leans and "raise_batch" not in read.rejects
    for wait in ("3. If it is truly bandwidth-bound after that, raise the batch.\n",
                 "3. If the re-measure shows the gaps are gone, raise the batch.\n"):
        read = _read(grader, tmp_path, "e_doesnt_add_up", head + wait)
        assert "raise_batch" not in read.leans and "raise_batch" in read.rejects

"""Classes from the sealed369-400 sets, development data once measured (issue 27), each with the
student's own sentences."""

from __future__ import annotations

from conftest import lever_statuses


def test_wouldnt_hurt_leans_toward_it(grader):
    """sealed399 d.s4015 (instructor 4: "int4 'wouldn't hurt': verdict items lost and 3 more
    (hedged)"); sealed107 a.s1097 "Fusing the elementwise kernels probably wouldn't hurt" (-13 and
    -4 for leaning toward it). The 'not' in "wouldn't hurt" refuses nothing: the lever is hedged."""
    assert lever_statuses(grader, "Int4 would not hurt either.").get("quantize_int4") == "possible"
    assert lever_statuses(grader, "It can't hurt to try int4 as well.").get("quantize_int4") == "possible"
    said = "No harm in fusing the elementwise ops."
    assert lever_statuses(grader, said).get("fuse_elementwise") == "possible"

"""Reading rules found in case E's disagreements over the dev pool (issue 27), each with the
answer that showed it."""

from __future__ import annotations

from conftest import read_body


def _fixes(a) -> set[str]:
    return {c for m in a.fixes for c in m.concepts}


def _rejected(a) -> set[str]:
    return {c for m in a.rejects for c in m.concepts}


def test_a_pronoun_after_a_premise_is_the_reasons_own_subject(grader, tmp_path):
    """sealed100 e.s1021 (instructor 100, graded 85.5): 'Second, torch.compile to fuse the small
    elementwise kernels ... (In the chatbot case fusion was pointless because it was about bytes;
    here it's about the kernel count.)' The 'it' after 'because' is the chatbot case's, so the
    aside refuses nothing the sentence before named: torch.compile stays a fix."""
    body = ("So the regime is launch-overhead-bound.\n\nFirst, capture the decode step as a CUDA graph. "
            "Second, torch.compile to fuse the small elementwise kernels — fewer, larger kernels mean fewer "
            "gaps. (In the chatbot case fusion was pointless because it was about bytes; here it's about "
            "the kernel count.)\n")
    a = read_body(grader, tmp_path, "e_doesnt_add_up", body)
    assert "torch_compile" in _fixes(a) and "torch_compile" not in _rejected(a)


def test_a_refusal_pointing_back_still_refuses(grader, tmp_path):
    """The premise ends the words a refusal may point back with only after it: 'Batch 8. That is
    pointless, because the GPU is idle.' still refuses the batch."""
    body = ("## Regime\nLaunch-overhead-bound.\n\n## Fixes\nCUDA graphs.\n\n"
            "## Other\nRaise the batch to 8. I'd skip it, because the GPU is idle.\n")
    assert "raise_batch" in _rejected(read_body(grader, tmp_path, "e_doesnt_add_up", body))


def test_a_template_heading_with_a_qualifier_names_its_section(grader, tmp_path):
    """sealed149 e.s1511 (instructor 100, graded 85.5): '## Fixes, in order' over '2. torch.compile
    to merge the many little elementwise kernels ...' was read as prose, where a bare name
    recommends nothing; the qualifier after the comma leaves the heading the template's."""
    body = ("## Regime\nLaunch-overhead-bound.\n\n## Fixes, in order\n"
            "1. Capture the decode step as a CUDA graph.\n"
            "2. torch.compile to merge the many little elementwise kernels into fewer, bigger ones.\n")
    assert {"cuda_graphs", "torch_compile"} <= _fixes(read_body(grader, tmp_path, "e_doesnt_add_up", body))


def test_a_heading_joining_two_sections_is_not_qualified(grader, tmp_path):
    """'## Fixes, Reject' over a table of verdicts names two sections; the comma does not make
    the second a qualifier of the first."""
    from regime.engine.grading.openers import qualified
    assert qualified(grader.concepts, "Fixes, Reject") is None
    assert qualified(grader.concepts, "Reject (for now)") == "reject"

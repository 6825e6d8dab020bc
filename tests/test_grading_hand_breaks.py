"""Lines an author broke by hand (issue 27, dev sets sealed225-240): terse notes written one
thought per line with no blank line between them are separate statements, while prose wrapped to
a width stays one paragraph; a label numbered without a space ('fix1:') names its section; a
shortened word ('prob.') neither ends a sentence nor a clause."""

from __future__ import annotations

from conftest import read_body

from regime.engine.grading.breaks import hand_broken
from regime.engine.grading.context import judge
from regime.engine.grading.labels import section
from regime.engine.grading.sentences import sentences

NOTES = """regime: launch overhead bound (nominaly bw bound, batch 1)
both utils low: 14% bw / 3% flops -> nothing saturated, gpu idle
fix1: hip graph capture of the decode step (shapes static, one launch from host)
fix2: torch.compile to cut the kernel count
fix3: remeasure vs 215 tok/s; only then batch / quant
dont batch, dont quantize now - fewer bytes doesnt fill idle gaps"""


def _broken(text: str) -> list[int]:
    return sorted(hand_broken(text.splitlines(), 0))


def test_notes_with_no_sentence_ended_are_one_statement_per_line():
    """sealed232 e.s2343 (instructor 100, graded 35): nine lines read as one sentence."""
    assert _broken(NOTES) == [2, 3, 4, 5, 6]   # the first opens one anyway


def test_wrapped_prose_stays_one_paragraph():
    """sealed109 d.s1111: lines that end on 'of a', 'is', 'point of' go on into the next line,
    and a full stop somewhere in the block marks prose, not notes."""
    prose = ("The profile shows 71% of peak FLOP rate against 30% of peak HBM bandwidth, the opposite of a\n"
             "bandwidth-bound decode loop. The back-of-envelope agrees: each weight byte is\n"
             "used for about 256 FLOPs, so arithmetic intensity sits against a ridge point of\n"
             "about the same size. It is compute-bound.")
    assert _broken(prose) == []


def test_a_line_wrapped_on_a_word_that_cannot_end_a_sentence_goes_on():
    """sealed224 e.s2262: '... GPU sits idle ~38% of' over 'each step, ...' is one statement, as
    is 'gaps 8-15 us' over '(~11us). idle ...'."""
    text = ("evidence: both low -> GPU idle. ~450 kernels/step, gaps 8-15 us\n"
            "(~11us). idle is about 38% of the step\n"
            "my colleague says just batch it - no, not yet: GPU sits idle ~38% of\n"
            "each step, more batch doesnt fill gaps\n"
            "int8 weights: same, not now")
    assert _broken(text) == [3, 5]


def test_a_short_line_with_no_sentence_ended_was_broken_by_hand():
    """sealed210 b.s2128: 'fix 3) hand fusion - only if compile leaves a gap' over '2nd engineer:
    prob not right, ...' is two statements though other lines of the block end with a stop; a
    label alone over its text ('Regime' over ': compute-bound', sealed153 c.s1560) is not."""
    text = ("regime: compute bound (61% MFU). but 22% of kernel time has no flops at all, none.\n"
            "fix 3) hand fusion - only if compile leaves a gap\n"
            "2nd engineer: prob not right, i'd lean against that view, those ops are 22% of time.")
    assert _broken(text) == [3]
    assert _broken("Regime\n: compute-bound prefill, the TTFT complaint is about prefill; decode is fine.\n"
                   "and more words here") == []


def test_a_list_items_wrapped_lines_are_the_items_own():
    text = "1. Capture the decode step as a graph\n   replays hundreds of launches in one call\n" \
           "   shapes are static\n   so capture works"
    assert _broken(text) == []


def test_terse_notes_are_graded_line_by_line(grader, tmp_path):
    a = read_body(grader, tmp_path, "e_doesnt_add_up", NOTES + "\n")
    assert a.regime == "overhead_bound"
    fixes = {c for m in a.fixes for c in m.concepts}
    assert {"cuda_graphs", "torch_compile"} <= fixes
    assert not fixes & {"raise_batch", "quantize_int8"}
    assert {"raise_batch", "quantize_int8"} <= {c for m in a.rejects for c in m.concepts}


def test_a_label_numbered_without_a_space_names_its_section(grader):
    c = grader.concepts
    assert section(c, "fix1") == section(c, "fix 1") == "fixes"
    assert section(c, "int4") is None and section(c, "fp8") is None   # a lever, not a numbered label


def test_prob_is_probably_and_its_stop_ends_no_sentence(grader):
    """sealed179 e.s1819 ('batching: prob not worth it yet', instructor: a hedged refusal) and
    sealed201 b.s2033 ('(5%, prob. a dtype upcast)': the hedge is the aside's, not the plan's)."""
    c = grader.concepts
    [j] = judge(c, c.context, ("claim", "lever"), "batching: prob not worth it yet, gpu is idle anyway")
    assert j.status == "negated"
    plan = "fix order: torch.compile → check the casts (5%, prob. a dtype upcast) → then more"
    assert len(sentences(plan)) == 1
    judged = judge(c, c.context, ("claim", "lever"), plan)
    first = next(j for j in judged if j.match.concepts == ("torch_compile",))
    assert first.status == "affirmed"

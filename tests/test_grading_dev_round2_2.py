"""Reading rules for a suggestion quoted or reported, and refuted, that was charged as the
student's own recommendation (issue 27, development round 2), each with the answer that showed it."""

from __future__ import annotations

from conftest import read_body


def _rejected(a) -> set[str]:
    return {c for m in a.rejects for c in m.concepts}


def _fixes(a) -> set[str]:
    return {c for m in a.fixes for c in m.concepts}


def test_a_quoted_suggestion_is_someone_elses(grader, tmp_path):
    """sealed156 c.s1589 (instructor 92, graded 63) and sealed122 c.s1250 (87, 66): 'Product's
    suggestion was "just batch the prefills ...". That would be a mistake here': a noun of
    proposing before the quotation reports it, as 'suggested "' does; the refusal after it stands."""
    body = ("Regime: prefill, compute-bound.\n\n"
            "Product's suggestion was \"just batch the prefills to use the GPU better\". That would be a "
            "mistake here: adding sequences adds time in proportion.\n\n"
            "Fix: FlashAttention, so the 40 GB score matrix is never written.\n")
    a = read_body(grader, tmp_path, "c_document_summarizer", body)
    assert "raise_batch" not in _fixes(a)


def test_same_objection_carries_the_verdict_before_it(grader, tmp_path):
    """sealed142 e.s1445 (instructor 85, graded 65.5): '"Just raise the batch" (proposal 1):
    disagree. ...' then '"Quantize the weights" (proposal 2): same objection, ...': the second
    item refuses as the first did."""
    body = ("## Regime\nOverhead-bound.\n\n## On the proposals\n"
            "- \"Just raise the batch\" (proposal 1): disagree. Batching helps when HBM is the limiter; "
            "here the GPU is idle between launches.\n"
            "- \"Quantize the weights\" (proposal 2): same objection, fewer bytes don't shorten the gaps.\n\n"
            "## Fixes\n1. CUDA graph capture of the whole decode step.\n")
    a = read_body(grader, tmp_path, "e_doesnt_add_up", body)
    assert "quantize_int8" in _rejected(a) and "quantize_int8" not in _fixes(a)


def test_same_for_carries_the_verdict_across_sentences_of_an_item(grader, tmp_path):
    """sealed170 e.s1724 (instructor 93, graded 57.5): 'On the colleague's "just batch it": no.
    Batching is a cure for a saturated memory system; ... Same for quantizing the weights — ...'."""
    body = ("1. **Regime.** Overhead-bound.\n2. **Fix 1.** Graph capture of the whole decode step.\n"
            "3. **On the colleague's \"just batch it\":** no. Batching is a cure for a saturated memory "
            "system; here it sits at 14%. Same for quantizing the weights — fewer bytes per step don't "
            "shrink a gap where nothing runs.\n")
    a = read_body(grader, tmp_path, "e_doesnt_add_up", body)
    assert "quantize_int8" in _rejected(a) and "quantize_int8" not in _fixes(a)


def test_same_after_a_recommendation_recommends(grader, tmp_path):
    """'Same for' after an affirmed fix leaves the lever affirmed: only a refusal or deferral is
    carried on."""
    body = ("## Regime\nOverhead-bound.\n\n## Fixes\n1. CUDA graph capture of the decode step.\n"
            "2. Same for torch.compile: fuse the small kernels.\n")
    a = read_body(grader, tmp_path, "e_doesnt_add_up", body)
    assert "torch_compile" in _fixes(a)


ESSAY_WHAT = ("**Regime.** On paper a batch-1 decode; in practice it is launch-overhead-bound, the GPU idle "
              "between kernels.\n\n"
              "**Plan.** Capture the decode step as a CUDA graph, then re-measure against the 215 tok/s "
              "ceiling.\n\n"
              "**What I'd say no to, for now.** Raising the batch and quantizing the weights. They are "
              "the right medicine for a real bandwidth-bound decode, but this GPU sits idle ~38% of the "
              "time.\n")


def test_a_refusing_free_relative_announces_the_levers_after_it(grader, tmp_path):
    """sealed168 e.s1701 (instructor 100, graded 55): '**What I'd say no to, for now.** Raising
    the batch and quantizing the weights.' A label ending in a period, not a colon: the next
    sentence, opening on levers, is what it refuses."""
    a = read_body(grader, tmp_path, "e_doesnt_add_up", ESSAY_WHAT)
    assert {"raise_batch", "quantize_int8"} <= _rejected(a)
    assert not {"raise_batch", "quantize_int8"} & _fixes(a)


def test_a_refusing_what_sentence_before_argument_announces_nothing(grader, tmp_path):
    """Only when the next sentence opens on a lever: 'What we would not do is guess. Measure
    first, then capture a CUDA graph.' refuses no lever."""
    body = ("Overhead-bound: the GPU idles between launches.\n\n"
            "What we would not do is guess. We would capture the decode step as a CUDA graph first.\n")
    a = read_body(grader, tmp_path, "e_doesnt_add_up", body)
    assert "cuda_graphs" in _fixes(a) and "cuda_graphs" not in _rejected(a)


def test_what_anyone_would_do_for_another_regime_is_not_recommended(grader, tmp_path):
    """sealed116 e.s1184 (instructor 97, graded 75): 'the obvious proposals — raise the batch,
    quantize the weights — are the ones you'd make for that regime. But the numbers do not fit':
    a predicate of what anyone would do in the case the step is not, not the student's own fix."""
    body = ("On paper this is a batch-1 decode loop, so it should be bandwidth-bound, and the obvious "
            "proposals — raise the batch, quantize the weights — are the ones you'd make for that regime. "
            "But it uses 14% of bandwidth and 3% of FLOPs: the loop is launch-overhead-bound.\n\n"
            "First capture the decode step as a CUDA graph, then re-measure.\n")
    a = read_body(grader, tmp_path, "e_doesnt_add_up", body)
    assert not {"raise_batch", "quantize_int8"} & _fixes(a)
    assert "cuda_graphs" in _fixes(a)


def test_what_another_wants_is_theirs_and_a_which_clause_refutes_it(grader, tmp_path):
    """sealed98 a.s1003 (instructor 96, graded 74.4): 'The other wants a bigger-FLOPs GPU, which
    makes no sense when we're using 4% of the FLOPs we already have.' The other engineer's wish,
    as 'engineer wants' is, and the relative clause after it is its predicate: refused."""
    body = ("This is a bandwidth-bound decode loop: MFU about 4%, MBU about 78%.\n\n"
            "One engineer wants to fuse the elementwise ops. I wouldn't: at batch 1 they are a rounding "
            "error next to the weight read. The other wants a bigger-FLOPs GPU, which makes no sense when "
            "we're using 4% of the FLOPs we already have.\n\n"
            "The biggest win is continuous batching, so one weight read serves many sequences.\n")
    a = read_body(grader, tmp_path, "a_chatbot", body)
    assert "buy_more_flops" in _rejected(a) and "buy_more_flops" not in _fixes(a)


def test_a_reported_suggestion_called_a_mistake_is_refused(grader, tmp_path):
    """sealed156 c.s1589 (instructor 92, graded 63 -> 73 once attributed): 'Product's suggestion
    was "just batch the prefills ...". That would be a mistake here: ...' refutes what it reports."""
    body = ("Regime: prefill, compute-bound.\n\n"
            "Product's suggestion was \"just batch the prefills to use the GPU better\". That would be a "
            "mistake here: TTFT is a single long prompt, and adding sequences adds time in proportion.\n\n"
            "Fix: FlashAttention, so the 40 GB score matrix is never written.\n")
    a = read_body(grader, tmp_path, "c_document_summarizer", body)
    assert "raise_batch" in _rejected(a) and "raise_batch" not in _fixes(a)

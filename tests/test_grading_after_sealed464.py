"""Classes from the development pool through sealed464 (issue 27), each with the student's own
sentences."""

from __future__ import annotations

from conftest import answer_file, lever_statuses, read_body


def _regime(grader, tmp_path, case: str, body: str) -> str | None:
    return read_body(grader, tmp_path, case, body).regime


def test_a_regime_in_name_is_the_nominal_one(grader, tmp_path):
    """sealed457 e.s4599 (instructor 95, graded 62 as bandwidth-bound): "bandwidth-bound in name —
    it's batch-1 decode — but actually it is overhead-bound" commits to overhead-bound."""
    said = ("Regime: bandwidth-bound in name — it's batch-1 decode — but actually it is overhead-bound: "
            "the GPU is starved by kernel launches.")
    assert _regime(grader, tmp_path, "e_doesnt_add_up", said) == "overhead_bound"
    plain = "Regime: bandwidth-bound — it's batch-1 decode — and the launches add to it."
    assert _regime(grader, tmp_path, "e_doesnt_add_up", plain) == "bandwidth_bound"


def test_a_rollout_after_an_accuracy_check_is_adopted_not_deferred(grader):
    """sealed460 d.s4624 (instructor 7: int4 adopted as the main fix): "My recommendation is to adopt
    int4 for this endpoint and roll it out after a short accuracy check" was read as deferred. The
    check is what the rollout passes, not a step the lever waits for; "only after" still defers."""
    said = ("My recommendation is to adopt int4 for this endpoint and roll it out after a short "
            "accuracy check.")
    assert lever_statuses(grader, said).get("quantize_int4") == "affirmed"
    waits = "int4 might be worth trying, but only after an accuracy check."
    assert lever_statuses(grader, waits).get("quantize_int4") == "deferred"
    later = "Adopt int4 for this endpoint after graph capture."
    assert lever_statuses(grader, later).get("quantize_int4") == "deferred"


def test_a_condition_after_a_lead_in_offers_the_lever(grader, tmp_path):
    """sealed460 c.s4627 (instructor 84: "batching recommended under a condition ... item 13 + 3"):
    "Along the same lines, if several documents come in together, batch their prefills" opens on
    its condition after a lead-in naming no lever, as "If several documents ..." does (graded 100,
    the batching read as refused for now). A lead-in that names a lever is no lead-in."""
    def left_open(said: str) -> bool:
        body = f"## Fixes\n1. FlashAttention.\n2. {said}\n"
        r = grader.grade(answer_file(tmp_path, "c_document_summarizer", body))
        return "leans_to_a_rejected_lever" in {p.id for p in r.penalties}
    assert left_open("If several documents come in together, batch their prefills.")
    assert left_open("Along the same lines, if several documents come in together, batch their prefills.")
    assert not left_open("Not batching, if several documents come in together: it makes TTFT worse.")


def test_what_really_matters_recommends_the_lever_it_names(grader, tmp_path):
    """sealed456 a.s4589 (instructor 100: batching recommended, buried in a paragraph): "what
    really matters is that we stop sending one request at a time — fold arriving requests into the
    decode batch that is already in flight (continuous batching)" was read as a mention, and the
    int8 placed after it as a hedge (graded 78). 'Fold' opening its clause is an imperative, as
    'merge' and 'pack' are; a lever only described is still no fix."""
    def fixes(said: str) -> set[str]:
        return {c for m in read_body(grader, tmp_path, "a_chatbot", said).fixes for c in m.concepts}
    said = ("Honestly the loop is doing fine, and what really matters is that we stop sending one request "
            "at a time — fold arriving requests into the decode batch that is already in flight "
            "(continuous batching).")
    assert "continuous_batching" in fixes(said)
    fold = "Fold arriving requests into the running batch (continuous batching)."
    assert "continuous_batching" in fixes(fold)
    told = "Continuous batching folds arriving requests into the running batch."
    assert "continuous_batching" not in fixes(told)

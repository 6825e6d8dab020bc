"""A long answer costs work linear in its length (tests/fuzz_corpus/grade-long-item-quadratic: one
Fixes item of 2,000 words had crept back to 14.5 s). Work is counted in profiler events (calls,
returns, generator resumptions), not timed, so a loaded machine cannot move it: twice the words may
cost at most 2.5 times the events, where work quadratic in the length costs four times."""

from __future__ import annotations

import sys
from collections.abc import Callable

import pytest
from conftest import answer_file

LINEAR: dict[str, Callable[[int], str]] = {
    "one Fixes item of one lever's name": lambda n: "## Fixes\n1. " + "batching " * n + "x\n",
    "one Fixes item of a verb": lambda n: "## Fixes\n1. " + "quantize " * n + "x\n",
    "prose of short sentences": lambda n: "The bandwidth is 5 GB/s. " * n + "\n",
    "prose naming levers with statuses": lambda n: "I would fuse the ops, but not yet, and batch " * (n // 9),
    # both quadratic until stop 59: the primary-regime filter read each mention's whole clause, and
    # the deferral and label checks (and nested triggers) compared each match with the clause
    "a Regime section of regime names": lambda n: "## Regime\n" + "bandwidth-bound compute-bound " * (n // 2),
    "a Reject item of refusals": lambda n: "## Reject\n- " + "not int4 " * (n // 2) + "\n",
}


def _events(grader, tmp_path, body: str) -> int:
    path = answer_file(tmp_path, "a_chatbot", body)
    grader.grade(path)   # keys and caches built: only the reading is counted
    seen = [0]

    def count(frame, event, arg) -> None:
        seen[0] += 1

    sys.setprofile(count)
    try:
        grader.grade(path)
    finally:
        sys.setprofile(None)
    return seen[0]


def _growth(grader, tmp_path, body: Callable[[int], str], n: int) -> float:
    return _events(grader, tmp_path, body(2 * n)) / _events(grader, tmp_path, body(n))


@pytest.mark.parametrize("kind", sorted(LINEAR))
def test_twice_the_words_cost_about_twice_the_work(grader, tmp_path, kind):
    assert _growth(grader, tmp_path, LINEAR[kind], 200) < 2.5

"""Classes from the sealed401-416 sets, development data once measured (issue 27), each with the
student's own sentences."""

from __future__ import annotations

from conftest import answer_file


def _evidence_feedback(grader, path) -> str:
    return " ".join(next(p for p in grader.grade(path).parts if p.part == "evidence").feedback)


def test_a_bare_figure_in_a_table_is_said_of_its_column(grader, tmp_path):
    """sealed411 d.s4137 (instructor 95: both utilizations given): '| | FLOP rate | Bandwidth |
    Reading |' over '| measured | 71% | 30% | compute-bound |'. The 30% is the bandwidth's; in a
    lever's row ('| layer_norm | 8% |') a bare share stays the lever's."""
    said = ("|          | FLOP rate | Bandwidth | Reading       |\n"
            "|----------|-----------|-----------|---------------|\n"
            "| measured | 71%       | 30%       | compute-bound |\n")
    assert "bandwidth as a share of peak" not in _evidence_feedback(
        grader, answer_file(tmp_path, "d_high_throughput_api", said))

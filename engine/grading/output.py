"""Grading results as text, JSON, CSV with a class summary, Gradescope and PrairieLearn JSON.

Every format is deterministic: no times, results in input order, sorted keys, the fingerprint
of rubric, packs and engine version in each result.
"""

from __future__ import annotations

import csv
import io
import json
from collections import Counter
from pathlib import Path
from typing import Any

from regime.core.escape import csv_cell, markdown_inline, terminal_text
from regime.engine.grading.grader import Result
from regime.engine.grading.rubric import PARTS

TITLES = {"regime": "Regime", "evidence": "Evidence (key figures)", "fixes": "Fixes",
          "order": "Fix order (pairwise agreement)", "rejections": "Rejections",
          "proposals": "Verdicts on proposals and claims", "asks": "What to measure next"}


def _dumps(payload: Any) -> str:
    return json.dumps(payload, indent=2, sort_keys=True, ensure_ascii=False) + "\n"


# ---- text -----------------------------------------------------------------------------------------

def text(r: Result) -> str:
    """For a terminal: what the student wrote (quoted in feedback, ids, file names) can carry no
    control or bidi character."""
    return terminal_text(_text(r))


def _text(r: Result) -> str:
    who = " / ".join(x for x in (r.student, r.case) if x)
    if not r.graded:
        return f"{r.submission}{f' ({who})' if who else ''}: NOT GRADED\n" + "".join(
            f"  error: {e}\n" for e in r.errors)
    lines = [f"{r.submission} ({who}): {r.score:g} / {r.max_score:g}   [fingerprint {r.fingerprint}]"]
    lines += [f"  {w}" for w in weights_line(r)]
    for p in r.parts:
        if p.max_points == 0:
            continue
        lines.append(f"  {TITLES[p.part]}: {p.points:g} / {p.max_points:g}")
        lines += [f"    - {f}" for f in p.feedback]
    for pen in r.penalties:
        lines.append(f"  Penalty {pen.id}: -{pen.points:g}")
        lines.append(f"    - {pen.feedback}")
    lines += [f"  note: {n}" for n in r.notes]
    lines += [f"  needs review: {x}" for x in r.review]
    return "\n".join(lines) + "\n"


def weights_line(r: Result) -> list[str]:
    """The rubric's weights as the instructor wrote them, and why the points differ from them."""
    written = [p for p in r.parts if p.weight]
    if not written:
        return []
    shown = ", ".join(f"{p.part} {p.weight:g}" for p in written)
    idle = [p.part for p in written if not p.max_points]
    if not idle:
        return [f"Weights as written: {shown} (scaled to {r.max_score:g})"]
    return [f"Weights as written: {shown}; nothing to grade in {', '.join(idle)} for this case, so the "
            f"other parts share that weight (scaled to {r.max_score:g})"]


def markdown(r: Result) -> str:
    """The feedback a student reads (Gradescope and PrairieLearn show it as Markdown): every
    line that quotes the submission is escaped, so it renders as the text written."""
    if not r.graded:
        errors = "".join(f"- {markdown_inline(e)}\n" for e in r.errors)
        return "**Not graded.** Fix these problems and resubmit:\n\n" + errors
    out = [f"**Score: {r.score:g} / {r.max_score:g}**", "", *weights_line(r), ""]
    for p in r.parts:
        if p.max_points:
            out.append(f"- {TITLES[p.part]}: {p.points:g} / {p.max_points:g}")
    for pen in r.penalties:
        out.append(f"- Penalty ({said(pen.id)}): −{pen.points:g} — {markdown_inline(pen.feedback)}")
    if r.review:
        out += ["", "**Needs review:** your instructor will check how these sentences were read:", "",
                *(f"- {markdown_inline(x)}" for x in r.review)]
    return "\n".join(out) + f"\n\n_fingerprint {r.fingerprint}_\n"


def said(penalty_id: str) -> str:
    """A penalty's name as words for students ('int4 past the ridge'), never the rubric's id."""
    return penalty_id.replace("_", " ")


def _part_output(feedback: list[str]) -> str:
    return "\n".join(f"- {markdown_inline(f)}" for f in feedback) if feedback else "Full marks."


# ---- JSON -----------------------------------------------------------------------------------------

def to_json(results: list[Result]) -> str:
    return _dumps({"results": [r.to_dict() for r in results], "summary": summary(results)})


# ---- CSV and class summary ------------------------------------------------------------------------

CSV_COLUMNS = ["submission", "student", "case", "format", "status", *PARTS, "penalties", "total", "max",
               "wrong_levers", "errors", "fingerprint", "needs_review"]


def to_csv(results: list[Result]) -> str:
    buf = io.StringIO()
    w = csv.writer(buf, lineterminator="\n")
    w.writerow(CSV_COLUMNS)
    for r in results:
        points = {p.part: f"{p.points:g}" for p in r.parts if p.max_points}
        w.writerow([*map(csv_cell, (r.submission, r.student or "", r.case or "", r.format or "")),
                     "graded" if r.graded else "not graded", *(points.get(p, "") for p in PARTS),
                     f"{sum(x.points for x in r.penalties):g}", f"{r.score:g}" if r.graded else "",
                     f"{r.max_score:g}", csv_cell(" ".join(r.wrong_levers)), csv_cell(" | ".join(r.errors)),
                     r.fingerprint, csv_cell(" | ".join(r.review))])
    return buf.getvalue()


def summary(results: list[Result]) -> dict[str, Any]:
    """Per case: submissions, not graded, mean score, and per part its own figures (success rate
    = share with full marks, mean points, points available); the wrong levers by count."""
    cases: dict[str, dict[str, Any]] = {}
    for r in results:
        c = cases.setdefault(r.case or "(unknown)", {"submissions": 0, "not_graded": 0, "scores": [],
                                                     "parts": {}, "wrong": Counter()})
        c["submissions"] += 1
        if not r.graded:
            c["not_graded"] += 1
            continue
        c["scores"].append(r.score / r.max_score if r.max_score else 0.0)
        c.setdefault("points", []).append((r.score, r.max_score))
        for p in r.parts:
            if p.max_points:
                c["parts"].setdefault(p.part, []).append((p.points, p.max_points))
        c["wrong"].update(r.wrong_levers)
    out = {}
    for name in sorted(cases):
        c = cases[name]
        wrong = sorted(c["wrong"].items(), key=lambda kv: (-kv[1], kv[0]))
        out[name] = {
            "submissions": c["submissions"], "not_graded": c["not_graded"],
            "mean_score": round(sum(c["scores"]) / len(c["scores"]), 4) if c["scores"] else None,
            "mean_points": _mean([g for g, _ in c.get("points", [])]),
            "max_points": _mean([m for _, m in c.get("points", [])]),
            "success_rate": {p: round(sum(g >= m - 1e-9 for g, m in v) / len(v), 4)
                             for p, v in sorted(c["parts"].items())},
            "parts": {p: {"graded": len(v), "mean_points": round(sum(g for g, _ in v) / len(v), 2),
                          "max_points": round(sum(m for _, m in v) / len(v), 2)}
                      for p, v in sorted(c["parts"].items())},
            "most_common_wrong_lever": {"lever": wrong[0][0], "count": wrong[0][1]} if wrong else None,
            "wrong_levers": dict(wrong),
        }
    return out


def _mean(xs: list[float]) -> float | None:
    return round(sum(xs) / len(xs), 2) if xs else None


SUMMARY_COLUMNS = ["case", "row", "submissions", "graded", "success_rate", "mean_points", "max_points",
                   "count"]


def summary_csv(results: list[Result]) -> str:
    """One row per case total, per part and per wrong lever, each with its own figures: a part's
    row shows that part's mean points, not the case's; a wrong lever's row its own count."""
    buf = io.StringIO()
    w = csv.writer(buf, lineterminator="\n")
    w.writerow(SUMMARY_COLUMNS)
    for case, s in summary(results).items():
        cell = csv_cell(case)  # the case name comes from the submission
        graded = s["submissions"] - s["not_graded"]
        mean, top = ("", "") if s["mean_points"] is None else (f"{s['mean_points']:g}",
                                                               f"{s['max_points']:g}")
        full = sum(1 for r in results
                   if r.graded and (r.case or "(unknown)") == case and r.score >= r.max_score)
        rate = f"{full / graded:.4g}" if graded else ""
        w.writerow([cell, "total", s["submissions"], graded, rate, mean, top, ""])
        w.writerow([cell, "not graded", s["submissions"], graded, "", "", "", s["not_graded"]])
        for part, fig in s["parts"].items():
            w.writerow([cell, f"part: {part}", s["submissions"], fig["graded"],
                        f"{s['success_rate'][part]:g}", f"{fig['mean_points']:g}",
                        f"{fig['max_points']:g}", ""])
        for lever, count in s["wrong_levers"].items():
            w.writerow([cell, csv_cell(f"wrong lever: {lever}"), s["submissions"], graded, "", "", "", count])
    return buf.getvalue()


# ---- Gradescope and PrairieLearn ------------------------------------------------------------------

def gradescope(r: Result) -> dict[str, Any]:
    """Gradescope autograder results.json (score, output, tests: name/score/max_score/status/output)."""
    tests = []
    if not r.graded:
        tests.append({"name": "Submission format", "score": 0.0, "max_score": r.max_score,
                      "status": "failed", "output": markdown(r), "output_format": "md"})
    for i, p in enumerate(p for p in r.parts if p.max_points):
        tests.append({"name": TITLES[p.part], "number": str(i + 1), "score": p.points,
                      "max_score": p.max_points,
                      "status": "passed" if p.points >= p.max_points - 1e-9 else "failed",
                      "output": _part_output(p.feedback), "output_format": "md"})
    for pen in r.penalties:
        tests.append({"name": f"Penalty: {said(pen.id)}", "score": 0.0, "max_score": 0.0, "status": "failed",
                      "output": f"−{pen.points:g} points. {markdown_inline(pen.feedback)}",
                      "output_format": "md"})
    return {"score": r.score if r.graded else 0.0, "output": markdown(r), "output_format": "md",
            "tests": tests, "extra_data": _extra(r)}


def prairielearn(r: Result) -> dict[str, Any]:
    """PrairieLearn external-grader results.json (gradable, score in [0, 1], message, tests)."""
    if not r.graded:
        return {"gradable": False, "score": 0.0, "message": "Not graded: the submission has format errors.",
                "format_errors": list(r.errors), "output": markdown(r), "tests": []}
    tests = [{"name": TITLES[p.part], "points": p.points, "max_points": p.max_points,
              "message": "Full marks." if p.points >= p.max_points - 1e-9 else "See the feedback.",
              "output": _part_output(p.feedback)} for p in r.parts if p.max_points]
    tests += [{"name": f"Penalty: {said(pen.id)}", "points": 0.0, "max_points": 0.0,
               "message": f"−{pen.points:g} points", "output": markdown_inline(pen.feedback)}
              for pen in r.penalties]
    score = round(r.score / r.max_score, 6) if r.max_score else 0.0
    review = " Needs review by the instructor." if r.needs_review else ""
    return {"gradable": True, "score": score, "message": f"Score {r.score:g} / {r.max_score:g} "
            f"(fingerprint {r.fingerprint}).{review}", "output": markdown(r), "tests": tests}


def _extra(r: Result) -> dict[str, Any]:
    return {"case": r.case, "student": r.student, "variant": r.variant, "fingerprint": r.fingerprint}


def write_per_submission(results: list[Result], out: Path, fmt: str) -> list[Path]:
    """One results.json per submission: DIR/results.json for one, DIR/<submission>/results.json for many."""
    make = gradescope if fmt == "gradescope" else prairielearn
    written = []
    names = _unique_names(results)
    for r, name in zip(results, names, strict=True):
        folder = out if len(results) == 1 else out / name
        folder.mkdir(parents=True, exist_ok=True)
        path = folder / "results.json"
        path.write_text(_dumps(make(r)), encoding="utf-8")
        written.append(path)
    return written


def _unique_names(results: list[Result]) -> list[str]:
    names: list[str] = []
    seen: Counter[str] = Counter()
    for r in results:
        p = Path(r.submission)
        base = "_".join([*p.parent.parts[-1:], p.name]).replace(".", "_").lstrip("_") or "submission"
        seen[base] += 1
        names.append(base if seen[base] == 1 else f"{base}_{seen[base]}")
    return names

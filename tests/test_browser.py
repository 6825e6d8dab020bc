"""Each seed case's HTML report in a real browser: Debian's headless Chromium, fresh profile.

Checks the title, the verdict line and the chart in the rendered DOM, that the page logs
nothing to the console, and saves a screenshot (build/browser/CASE.png, or $REGIME_SCREENSHOTS).
Skipped, saying why, when Chromium is not installed (.ci/run installs it with apt).
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest
from conftest import ROOT
from regime.engine import api
from regime.engine.cli import report_files
from regime.engine.paths import CASES_DIR
from test_snapshots import SOLUTION_CASES

CHROMIUM = shutil.which("chromium") or shutil.which("chromium-browser")
pytestmark = pytest.mark.skipif(
    CHROMIUM is None, reason="Chromium is not installed (.ci/run installs Debian's chromium with apt-get; "
                             "here it is missing or could not be installed)")
FLAGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
         "--disable-background-networking", "--disable-component-update", "--disable-sync",
         "--enable-logging=stderr", "--v=0", "--window-size=1280,1800", "--hide-scrollbars"]
SHOTS = Path(os.environ.get("REGIME_SCREENSHOTS", ROOT / "build" / "browser"))


def render(page: Path, profile: Path, shot: Path) -> tuple[str, list[str]]:
    """Load `page` in headless Chromium; returns the DOM after load and the console lines it logged."""
    args = [CHROMIUM, *FLAGS, f"--user-data-dir={profile}", "--dump-dom", f"--screenshot={shot}",
            page.as_uri()]
    done = subprocess.run(args, capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr[-2000:]
    console = [line for line in done.stderr.splitlines() if ":CONSOLE" in line]
    return done.stdout, console


@pytest.fixture(scope="module")
def rendered(tmp_path_factory, knowledge) -> dict[str, tuple[str, list[str]]]:
    """Every seed case's page, rendered by one browser per core at once, each with a fresh profile."""
    out = tmp_path_factory.mktemp("reports")
    report_files.write_all(api.diagnose_all([CASES_DIR / f"{n}.yaml" for n in SOLUTION_CASES], knowledge),
                         knowledge, out)
    SHOTS.mkdir(parents=True, exist_ok=True)
    for name in SOLUTION_CASES:
        (SHOTS / f"{name}.png").unlink(missing_ok=True)
    with ThreadPoolExecutor(min(len(SOLUTION_CASES), os.cpu_count() or 1)) as pool:
        jobs = {n: pool.submit(render, out / f"{n}.html", out / f"profile-{n}", SHOTS / f"{n}.png")
                for n in SOLUTION_CASES}
        return {n: job.result() for n, job in jobs.items()}


@pytest.mark.parametrize("name", SOLUTION_CASES)
def test_report_renders_in_chromium(name, rendered):
    dom, console = rendered[name]
    shot = SHOTS / f"{name}.png"
    assert console == []
    title = re.search(r"<title>(.*?)</title>", dom)
    assert title and title.group(1).startswith(f"{name} — ")
    verdict = re.search(r'<p class="verdict" id="verdict">(.*?)</p>', dom)
    assert verdict and verdict.group(1).startswith("Verdict: ") and "top fix: " in verdict.group(1)
    chart = re.search(r'<figure class="chart" id="chart">(.*?)</figure>', dom, re.S)
    assert chart and "<svg" in chart.group(1) and "<path" in chart.group(1)
    assert shot.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n" and shot.stat().st_size > 10_000


def test_console_errors_are_caught(tmp_path):
    """The check above can fail: a page that logs an error is seen to."""
    page = tmp_path / "bad.html"
    page.write_text("<!DOCTYPE html><title>bad</title><p>x</p><script>console.error('boom')</script>",
                    encoding="utf-8")
    _, console = render(page, tmp_path / "profile", tmp_path / "bad.png")
    assert any("boom" in line for line in console)

"""Each seed case's HTML report in a real browser: Debian's headless Chromium, fresh profile.

Checks the title, the verdict line and the chart in the rendered DOM, that the page logs
nothing to the console, that the first fix and its bound are on the first screen of a
1280×800 window, and saves that first screen (build/browser/CASE.png, or $REGIME_SCREENSHOTS).
Skipped, saying why, when Chromium is not installed (.ci/run installs it with apt).
"""

from __future__ import annotations

import html
import json
import os
import re
import shutil
import subprocess
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest
from conftest import ROOT
from test_snapshots import SOLUTION_CASES

from regime.engine import api
from regime.engine.cli import report_files
from regime.engine.knowledge.paths import CASES_DIR

CHROMIUM = shutil.which("chromium") or shutil.which("chromium-browser")
pytestmark = [pytest.mark.e2e, pytest.mark.skipif(
    CHROMIUM is None, reason="Chromium is not installed (.ci/run installs Debian's chromium with apt-get; "
                             "here it is missing or could not be installed)")]
FLAGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
         "--disable-background-networking", "--disable-component-update", "--disable-sync",
         "--enable-logging=stderr", "--v=0", "--window-size=1280,800", "--hide-scrollbars"]
SHOTS = Path(os.environ.get("REGIME_SCREENSHOTS", ROOT / "build" / "browser"))
FOLD = 800
# Appended to a copy of the page only (the page itself has no script): where the first fix and
# its bound lie in the window, written into the DOM that --dump-dom returns.
PROBE = """<script>
const box = e => e ? (r => [r.top, r.bottom])(e.getBoundingClientRect()) : null;
const fix = document.querySelector("li.fix");
document.body.dataset.fold = JSON.stringify({fix: box(fix), bound: box(fix && fix.querySelector(".bound"))});
</script>"""


def render(page: Path, profile: Path, shot: Path) -> tuple[str, list[str]]:
    """Load `page` in headless Chromium; returns the DOM after load and the console lines it logged."""
    args = [CHROMIUM, *FLAGS, f"--user-data-dir={profile}", "--dump-dom", f"--screenshot={shot}",
            page.as_uri()]
    done = subprocess.run(args, capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr[-2000:]
    console = [line for line in done.stderr.splitlines() if ":CONSOLE" in line]
    return done.stdout, console


@pytest.fixture(scope="module")
def rendered_dir(tmp_path_factory) -> Path:
    return tmp_path_factory.mktemp("reports")


@pytest.fixture(scope="module")
def rendered(rendered_dir, knowledge) -> dict[str, tuple[str, list[str]]]:
    """Every seed case's page, rendered by one browser per core at once, each with a fresh profile."""
    out = rendered_dir
    report_files.write_all(api.diagnose_all([CASES_DIR / f"{n}.yaml" for n in SOLUTION_CASES], knowledge),
                         knowledge, out)
    with ThreadPoolExecutor(min(len(SOLUTION_CASES), os.cpu_count() or 1)) as pool:
        jobs = {n: pool.submit(render, out / f"{n}.html", out / f"profile-{n}", out / f"{n}.png")
                for n in SOLUTION_CASES}
        pages = {n: job.result() for n, job in jobs.items()}
    _publish(out)
    return pages


def _publish(out: Path) -> None:
    """Copy the screenshots where people look (SHOTS). Each test reads its own copy under `out`:
    under pytest-xdist two workers can render this module at once, and a file replaced in place
    (os.replace is atomic) never shows a reader half a PNG."""
    SHOTS.mkdir(parents=True, exist_ok=True)
    for name in SOLUTION_CASES:
        part = SHOTS / f".{name}.{os.getpid()}.png"
        shutil.copyfile(out / f"{name}.png", part)
        os.replace(part, SHOTS / f"{name}.png")


@pytest.fixture(scope="module")
def fold(tmp_path_factory, knowledge) -> dict[str, dict]:
    """Where each seed case's first fix and its bound lie in a 1280×800 window."""
    out = tmp_path_factory.mktemp("probed")
    report_files.write_all(api.diagnose_all([CASES_DIR / f"{n}.yaml" for n in SOLUTION_CASES], knowledge),
                         knowledge, out)
    for n in SOLUTION_CASES:
        page = out / f"{n}.html"
        text = page.read_text(encoding="utf-8")
        page.write_text(text.replace("</body>", PROBE + "</body>"), encoding="utf-8")
    with ThreadPoolExecutor(min(len(SOLUTION_CASES), os.cpu_count() or 1)) as pool:
        jobs = {n: pool.submit(render, out / f"{n}.html", out / f"profile-{n}", out / f"{n}.png")
                for n in SOLUTION_CASES}
        doms = {n: job.result()[0] for n, job in jobs.items()}
    return {n: _where(dom) for n, dom in doms.items()}


def _where(dom: str) -> dict:
    return json.loads(html.unescape(re.search(r'data-fold="(.*?)"', dom).group(1)))


@pytest.mark.parametrize("name", SOLUTION_CASES)
def test_first_fix_and_its_bound_are_above_the_fold(name, fold):
    where = fold[name]
    assert where["fix"] is not None and where["bound"] is not None, where
    assert where["fix"][0] >= 0 and where["bound"][1] <= FOLD, where


@pytest.mark.parametrize("name", SOLUTION_CASES)
def test_report_renders_in_chromium(name, rendered, rendered_dir):
    dom, console = rendered[name]
    shot = rendered_dir / f"{name}.png"
    assert console == []
    title = re.search(r"<title>(.*?)</title>", dom)
    assert title and title.group(1).startswith(f"{name} — ")
    verdict = re.search(r'<p class="verdict" id="verdict">(.*?)</p>', dom)
    assert verdict and verdict.group(1).startswith("Verdict: ") and "top fix: " in verdict.group(1)
    chart = re.search(r'<figure class="chart" id="chart">(.*?)</figure>', dom, re.S)
    assert chart and "<svg" in chart.group(1) and "<path" in chart.group(1)
    assert shot.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n" and shot.stat().st_size > 10_000


def test_the_fold_check_can_fail(tmp_path):
    """A page whose first fix lies below 800 px is seen to."""
    page = tmp_path / "low.html"
    page.write_text('<!DOCTYPE html><title>low</title><div style="height:900px"></div><ol><li class="fix">x'
                    '<span class="bound">b</span></li></ol>' + PROBE, encoding="utf-8")
    dom, _ = render(page, tmp_path / "profile", tmp_path / "low.png")
    assert _where(dom)["bound"][1] > FOLD


def test_console_errors_are_caught(tmp_path):
    """The check above can fail: a page that logs an error is seen to."""
    page = tmp_path / "bad.html"
    page.write_text("<!DOCTYPE html><title>bad</title><p>x</p><script>console.error('boom')</script>",
                    encoding="utf-8")
    _, console = render(page, tmp_path / "profile", tmp_path / "bad.png")
    assert any("boom" in line for line in console)

"""The Rashomon explorer in a real browser: the small configuration's page (built by the `explorer`
rule of the suite's small run) opened from file:// in headless Chromium (Debian's package, driven
by Playwright through `executable_path`). Every view draws without a console error or a network
request; the ε slider and a brush recompute the member count and the MCR bounds the way Python
computes them from the result tables. Screenshots are kept under logs/explorer_browser/.

Skipped, with the reason, where Playwright or Chromium is missing or Chromium cannot start (as the
SLURM tests are where no cluster answers); .ci/run installs both.

The tests live here, not in tests/report, to reuse the session's small run (`small_run`)."""

from __future__ import annotations

import json
import os
import re
import shutil
from pathlib import Path

import pandas as pd
import pytest

from tests.conftest import REPO

pytestmark = pytest.mark.integration

#: Launch flags that work in containers without a GPU or a user namespace.
CHROMIUM_ARGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
]
ARTIFACTS = REPO / "logs" / "explorer_browser"
SCOPE = "cross_family"  # rashomon.figure_scope
ESTIMATOR = "permutation"  # the first of rashomon.estimators: the page's default


def chromium_path() -> str | None:
    """Chromium: $XAIPIPE_CHROMIUM, else `chromium` on PATH, else Debian's /usr/bin/chromium."""
    for cand in (os.environ.get("XAIPIPE_CHROMIUM"), shutil.which("chromium"), "/usr/bin/chromium"):
        if cand and Path(cand).is_file():
            return cand
    return None


@pytest.fixture(scope="module")
def browser():
    try:
        from playwright.sync_api import sync_playwright
    except ImportError:
        pytest.skip("skipping: Playwright for Python is not installed (pip install -r requirements.txt)")
    exe = chromium_path()
    if exe is None:
        pytest.skip("skipping: no Chromium (apt-get install chromium; .ci/run does), or set XAIPIPE_CHROMIUM")
    pw = sync_playwright().start()
    try:
        b = pw.chromium.launch(executable_path=exe, args=CHROMIUM_ARGS, timeout=60_000)
    except Exception as err:  # noqa: BLE001 - any launch failure is a reason to skip
        pw.stop()
        pytest.skip(f"skipping: Chromium at {exe} cannot start: {str(err).splitlines()[0]}")
    yield b
    b.close()
    pw.stop()


@pytest.fixture(scope="module")
def results(request) -> Path:
    """The small run's results/test; $XAIPIPE_EXPLORER_RESULTS: an existing results/<version> of the
    small configuration instead (a developer's, after `snakemake results/test/explorer/index.html`)."""
    given = os.environ.get("XAIPIPE_EXPLORER_RESULTS")
    if given:
        return Path(given).resolve()
    return request.getfixturevalue("small_run") / "results" / "test"


def _open(browser, page_path: Path, dataset: str | None = None):
    """A page of the explorer with its console errors and non-file requests recorded."""
    page = browser.new_page(viewport={"width": 1500, "height": 1900})
    page.errors, page.requests = [], []
    page.on("console", lambda m: page.errors.append(m.text) if m.type == "error" else None)
    page.on("pageerror", lambda e: page.errors.append(str(e)))
    page.on("request", lambda r: None if r.url.startswith(("file:", "data:")) else page.requests.append(r.url))
    page.goto(page_path.as_uri())
    page.wait_for_function("document.body.dataset.shown !== undefined", timeout=60_000)
    if dataset is not None and page.evaluate("document.body.dataset.shown") != dataset:
        page.select_option("#dataset", dataset)
        page.wait_for_function(f"document.body.dataset.shown === {dataset!r}", timeout=60_000)
    return page


def _texts(page) -> list[str]:
    return page.eval_on_selector_all("svg text", "els => els.map(e => e.textContent)")


def _set_epsilon(page, eps: float) -> None:
    page.eval_on_selector(
        ".vega-bind input[type=range]",
        "(el, v) => { el.value = v; el.dispatchEvent(new Event('input', {bubbles: true})); }",
        str(eps),
    )
    page.evaluate("explorerView.runAsync().then(() => true)")


def _count(page, prefix: str) -> tuple[int, int]:
    line = next(t for t in _texts(page) if t.startswith(prefix))
    n, f = re.search(r": (\d+) members, (\d+) distinct functions", line).groups()
    return int(n), int(f)


def _mcr_line(page, feature: str) -> tuple[float, float, float, int]:
    line = next(t for t in _texts(page) if t.startswith(f"{feature}:  MCR⁻"))
    lo, ref, hi, n = re.search(r"MCR⁻ (\S+)  ·  MR\(ref\) (\S+)  ·  MCR⁺ (\S+)  \((\d+) members\)", line).groups()
    return float(lo), float(ref), float(hi), int(n)


def _members(results: Path, dataset: str) -> pd.DataFrame:
    return pd.read_csv(results / "rashomon" / dataset / "members.csv")


def _expected(members: pd.DataFrame, eps: float, feature: str, keep=None) -> tuple[int, float, float]:
    """From members.csv alone: the members with gap_cross_family <= ε (and in `keep`), their MCR of
    `feature` (permutation, mr_ratio) at the page's 6 significant digits."""
    rows = members[(members["estimator"] == ESTIMATOR) & (members["feature"] == feature)]
    sel = rows[rows["gap_cross_family"] <= eps]
    if keep is not None:
        sel = sel[[keep(r) for _, r in sel.iterrows()]]
    mr = sel["mr_ratio"].map(lambda v: float(f"{v:.6g}"))
    return len(sel), float(mr.min()), float(mr.max())


def test_every_view_draws_offline_without_errors(browser, results):
    page_path = results / "explorer" / "index.html"
    assert page_path.stat().st_size < 20e6
    datasets = sorted(p.name for p in (results / "rashomon").iterdir() if (p / "member_effects.csv").is_file())
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    page = _open(browser, page_path)
    options = page.eval_on_selector_all("#dataset option", "els => els.map(e => e.value)")
    assert sorted(options) == datasets
    for dataset in options:
        page.select_option("#dataset", dataset)
        page.wait_for_function(f"document.body.dataset.shown === {dataset!r}", timeout=60_000)
        texts = _texts(page)
        for title in (
            "The set: test loss",
            "Importance: MCR⁻ to MCR⁺",
            "Variable importance cloud",
            "PD: band of the other selected members",
            "ALE: band of the other selected members",
            "Rows: the 25 test rows",
            "The picked row",
            "Its feature values",
        ):
            assert any(t.startswith(title) for t in texts), (dataset, title)
        assert any("coverage rate: " in t for t in texts), dataset
        # marks drawn, not only titles: the set's points, the MCR bars, the rows' ranges
        assert page.eval_on_selector_all("g.set_points_marks path", "els => els.length") > 0, dataset
        assert page.eval_on_selector_all("g.rows_bars_marks line, g.rows_bars_marks path", "els => els.length") > 0
        page.screenshot(path=str(ARTIFACTS / f"{dataset}.png"), full_page=True)
    assert page.errors == [], page.errors
    assert page.requests == [], page.requests
    page.close()


@pytest.mark.parametrize("dataset", ["abalone", "breast_cancer"])
def test_epsilon_slider_recomputes_count_and_mcr_as_python(browser, results, dataset):
    members = _members(results, dataset)
    sets = pd.read_csv(results / "rashomon" / dataset / "sets.csv")
    feature = members["feature"].iloc[0]
    page = _open(browser, results / "explorer" / "index.html", dataset)
    # at the configured ε the page shows exactly the members of sets.csv
    configured = sets[(sets["scope"] == SCOPE) & (sets["epsilon"] == 1.0)]
    n, n_functions = _count(page, "R(ε = 1) of cross_family")
    assert n == int(configured["size"].iloc[0]) and n_functions == int(configured["n_distinct_functions"].iloc[0])
    # and the coverage rates of the first variable's PD and ALE that coverage.csv holds
    coverage = pd.read_csv(results / "explorer" / "coverage.csv")
    for kind, label in (("pd", "PD"), ("ale", "ALE")):
        row = coverage[(coverage["dataset"] == dataset) & (coverage["kind"] == kind)].iloc[0]
        line = next(t for t in _texts(page) if t.startswith(f"{label} coverage rate: "))
        assert f"({row['n_covered']} of {row['n_grid']} grid points)" in line, (line, row.to_dict())
    _check_a_picked_row(page, results, dataset, n)
    for eps in (0.0, 0.37, 1.0, 1.61, 2.0):
        _set_epsilon(page, eps)
        assert page.evaluate("explorerView.signal('eps')") == eps  # the slider took the value (step 0.01)
        n, _ = _count(page, "R(ε = ")
        want_n, lo, hi = _expected(members, eps, feature)
        assert n == want_n, (dataset, eps)
        got_lo, _, got_hi, got_n = _mcr_line(page, feature)
        assert got_n == want_n
        assert got_lo == float(f"{lo:.4f}") and got_hi == float(f"{hi:.4f}"), (dataset, eps, got_lo, lo, got_hi, hi)
    assert page.errors == []
    page.close()


def _check_a_picked_row(page, results: Path, dataset: str, n_members: int) -> None:
    """Click the 4th row of the rows view: the detail shows every selected member's prediction of
    that row, and the feature values are the row's in prepared.csv."""
    bars = page.eval_on_selector_all(
        "g.rows_bars_marks line",
        "els => els.map(e => { const b = e.getBoundingClientRect(); return [b.x + b.width / 2, b.y + b.height / 2]; })",
    )
    page.mouse.click(*bars[min(3, len(bars) - 1)])
    page.evaluate("explorerView.runAsync().then(() => true)")
    row = page.evaluate("explorerView.signal('pick').row[0]")
    assert page.eval_on_selector_all("g.row_detail_marks path", "els => els.length") == n_members
    split = json.loads((results / "data" / dataset / "split.json").read_text())
    prepared = pd.read_csv(results / "data" / dataset / "prepared.csv").iloc[split["test"][row]]
    shown = dict(t.split(" = ") for t in _texts(page) if re.fullmatch(r"[^=]+ = \S+", t))
    assert shown and set(shown) <= set(prepared.index)
    for name, value in shown.items():
        assert float(value) == pytest.approx(float(prepared[name]), rel=1e-4, abs=1e-12), (row, name)


def test_brush_recomputes_the_importance_of_the_group(browser, results):
    dataset = "abalone"  # 14 members at ε = 2 in the small configuration
    members = _members(results, dataset)
    feature = members["feature"].iloc[0]
    page = _open(browser, results / "explorer" / "index.html", dataset)
    _set_epsilon(page, 2.0)
    frame = page.eval_on_selector(
        "g.set_frame_marks path", "e => { const b = e.getBoundingClientRect(); return [b.x, b.y, b.width, b.height]; }"
    )
    xs = sorted(
        page.eval_on_selector_all(
            "g.set_points_marks path",
            "els => els.map(e => { const b = e.getBoundingClientRect(); return b.x + b.width / 2; })",
        )
    )
    # brush the left half of the candidates (the reference's side), the whole height: start inside the plot
    x1 = (xs[len(xs) // 2 - 1] + xs[len(xs) // 2]) / 2
    page.mouse.move(x1, frame[1] + 2)
    page.mouse.down()
    page.mouse.move(frame[0] - 10, frame[1] + frame[3] + 10, steps=8)
    page.mouse.up()
    page.evaluate("explorerView.runAsync().then(() => true)")
    brush = page.evaluate("explorerView.signal('brush')")
    (g0, g1), (t0, t1) = brush["gap"], brush["test_loss"]
    loss = members.groupby(["family", "config_id"])["e_orig"].first().map(lambda v: float(f"{v:.6g}"))

    def inside(row):
        return g0 <= row["gap_cross_family"] <= g1 and t0 <= loss[(row["family"], row["config_id"])] <= t1

    want_n, lo, hi = _expected(members, 2.0, feature, keep=inside)
    assert 0 < want_n < _expected(members, 2.0, feature)[0]  # a real group, not the whole set
    n, _ = _count(page, "selected (set ∩ brush)")
    assert n == want_n
    got_lo, _, got_hi, got_n = _mcr_line(page, feature)
    assert (got_n, got_lo, got_hi) == (want_n, float(f"{lo:.4f}"), float(f"{hi:.4f}"))
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    page.screenshot(path=str(ARTIFACTS / "abalone_brushed.png"), full_page=True)
    assert page.errors == []
    page.close()

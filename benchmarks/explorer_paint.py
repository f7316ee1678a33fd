"""First paint of the Rashomon explorer in headless Chromium, its size, and a screenshot of each view.

    python -m benchmarks.explorer_paint results/v1/explorer/index.html --loads 5 --screenshots docs/
    python -m benchmarks.explorer_paint --tiny

Each load opens the page from ``file://`` in a fresh browser context and measures the time from
navigation to the first view drawn (vega-embed resolved and the set view's points in the SVG);
prints every load and the median (the issue's target: <= 2 s for the default study, whose page
must be <= 20 MB). ``--screenshots DIR`` writes ``explorer_page.png`` (the whole first dataset) and
one PNG per view (``explorer_set.png``, ``explorer_importance.png``, ``explorer_effects.png``,
``explorer_rows.png``), cut at the views' titles. Chromium: ``$XAIPIPE_CHROMIUM`` or
``/usr/bin/chromium`` (Debian's package, driven by Playwright through ``executable_path``).
``--tiny``: the page of a synthetic set of seven members built by the package's own functions,
one load; without Chromium it says so and exits 0.
"""

from __future__ import annotations

import argparse
import os
import shutil
import statistics
import sys
import tempfile
import time
from pathlib import Path

ARGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
]
VIEWS = {
    "set": "R(ε = ",
    "importance": "Importance: MCR",
    "effects": "PD: band of the other",
    "rows": "Rows: the 25 test rows",
}


def chromium() -> str | None:
    for cand in (os.environ.get("XAIPIPE_CHROMIUM"), shutil.which("chromium"), "/usr/bin/chromium"):
        if cand and Path(cand).is_file():
            return cand
    return None


def tiny_page(folder: Path) -> Path:
    """A page of seven synthetic members (two families, three variables) built by the package."""
    from types import SimpleNamespace

    import numpy as np
    import pandas as pd

    from xaipipe.report.explorer.charts import dataset_spec
    from xaipipe.report.explorer.data import dataset_view
    from xaipipe.report.explorer.page import page_html

    rng = np.random.default_rng(0)
    fams, cids = ["ridge"] * 3 + ["xgboost"] * 4, [f"c{i}" for i in range(7)]
    gap_f, gap_c = [0, 0.5, 1.7, 0, 0.2, 0.9, 1.9], [0.3, 0.8, np.nan, 0, 0.2, 1.2, 1.9]
    rows = [
        {
            "family": f,
            "config_id": c,
            "cv_loss": 1.0 + i,
            "gap_family": gap_f[i],
            "gap_cross_family": gap_c[i],
            "is_reference_family": gap_f[i] == 0,
            "is_reference_cross_family": gap_c[i] == 0,
            "feature": v,
            "estimator": "permutation",
            "e_orig": 1 + 0.1 * i,
            "mr_ratio": 1 + rng.random(),
            "mr_difference": rng.random(),
        }
        for i, (f, c) in enumerate(zip(fams, cids))
        for v in "abc"
    ]
    effects = pd.DataFrame(
        [
            {"scope": "cross_family", "feature": v, "kind": k, "family": f, "config_id": c, "grid_index": g}
            | {"x": g / 2, "level": "", "value": g / 10 + rng.random() / 5}
            for f, c in zip(fams, cids)
            for k in ("pd", "ale")
            for v in "abc"
            for g in range(5)
        ]
    )
    data = SimpleNamespace(
        y_test=rng.random(20), test_rows=np.arange(20), X_test_raw=rng.random((20, 3)), features=list("abc")
    )
    data.task = "regression"
    view = dataset_view(
        "tiny",
        members=pd.DataFrame(rows),
        predictions=rng.random((7, 20)),
        prediction_index=pd.DataFrame({"member": range(7), "family": fams, "config_id": cids}),
        effects=effects,
        data=data,
        epsilon=1.0,
        epsilon_max=2.0,
        scope="cross_family",
    )
    path = folder / "index.html"
    path.write_text(page_html({"tiny": dataset_spec(view)}), encoding="utf-8")
    return path


def load_once(browser, page_path: Path) -> tuple[float, float, list[str]]:
    """Seconds from navigation to the first view drawn, the renderer's main-thread busy seconds in
    that time (Chrome's ``TaskDuration``: less sensitive to other load on the machine than the wall
    time), and the console errors."""
    context = browser.new_context(viewport={"width": 1500, "height": 1900})
    page = context.new_page()
    cdp = context.new_cdp_session(page)
    cdp.send("Performance.enable")
    errors: list[str] = []
    page.on("console", lambda m: errors.append(m.text) if m.type == "error" else None)
    page.on("pageerror", lambda e: errors.append(str(e)))
    t0 = time.perf_counter()
    page.goto(page_path.resolve().as_uri())
    page.wait_for_function(
        "document.body.dataset.shown !== undefined && document.querySelectorAll('g.set_points_marks path').length > 0",
        timeout=120_000,
    )
    elapsed = time.perf_counter() - t0
    metrics = {m["name"]: m["value"] for m in cdp.send("Performance.getMetrics")["metrics"]}
    context.close()
    return elapsed, float(metrics.get("TaskDuration", float("nan"))), errors


def screenshots(browser, page_path: Path, folder: Path, dataset: str | None) -> None:
    page = browser.new_page(viewport={"width": 1500, "height": 1900})
    page.goto(page_path.resolve().as_uri())
    page.wait_for_function("document.body.dataset.shown !== undefined", timeout=120_000)
    if dataset:
        page.select_option("#dataset", dataset)
        page.wait_for_function(f"document.body.dataset.shown === {dataset!r}", timeout=120_000)
    folder.mkdir(parents=True, exist_ok=True)
    page.screenshot(path=str(folder / "explorer_page.png"), full_page=True)
    tops = page.evaluate(
        """(titles) => { const out = {}; const texts = [...document.querySelectorAll('svg text')];
        for (const [k, t] of Object.entries(titles)) { const e = texts.find(x => x.textContent.startsWith(t));
          if (e) out[k] = e.getBoundingClientRect().top + window.scrollY; } return out; }""",
        VIEWS,
    )
    height = page.evaluate("document.documentElement.scrollHeight")
    width = page.evaluate("document.querySelector('#explorer svg').getBoundingClientRect().right + 10")
    order = sorted(tops.items(), key=lambda kv: kv[1])
    for i, (name, top) in enumerate(order):
        bottom = order[i + 1][1] - 8 if i + 1 < len(order) else height
        clip = {"x": 0, "y": max(0, top - 30), "width": width, "height": bottom - max(0, top - 30)}
        page.screenshot(path=str(folder / f"explorer_{name}.png"), clip=clip, full_page=True)
    page.close()


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("page", nargs="?", type=Path, help="results/<version>/explorer/index.html")
    ap.add_argument("--loads", type=int, default=5)
    ap.add_argument("--screenshots", type=Path, help="folder for the screenshots of the first dataset's views")
    ap.add_argument("--dataset", help="the dataset of the screenshots (default: the first)")
    ap.add_argument("--tiny", action="store_true", help="a synthetic page, one load")
    args = ap.parse_args(argv)
    if not args.tiny and args.page is None:
        ap.error("give the page, or --tiny")
    exe = chromium()
    try:
        from playwright.sync_api import sync_playwright
    except ImportError:
        exe = None
    if exe is None:
        print("first paint: skipped (no Chromium or no Playwright; apt-get install chromium, pip install playwright)")
        return 0
    with tempfile.TemporaryDirectory() as tmp:
        page_path = tiny_page(Path(tmp)) if args.tiny else args.page
        loads = 1 if args.tiny else args.loads
        print(f"page: {page_path.stat().st_size / 1e6:.2f} MB")
        with sync_playwright() as pw:
            browser = pw.chromium.launch(executable_path=exe, args=ARGS)
            times, busy = [], []
            for i in range(loads):
                t, task, errors = load_once(browser, page_path)
                times.append(t)
                busy.append(task)
                print(
                    f"load {i + 1}: first view drawn after {t:.3f} s (main thread busy {task:.3f} s), "
                    f"{len(errors)} console errors"
                )
            print(
                f"first paint: median {statistics.median(times):.3f} s over {loads} loads "
                f"(main thread busy: median {statistics.median(busy):.3f} s)"
            )
            if args.screenshots:
                screenshots(browser, page_path, args.screenshots, args.dataset)
                print(f"screenshots: {args.screenshots}")
            browser.close()
    return 0


if __name__ == "__main__":
    sys.exit(main())

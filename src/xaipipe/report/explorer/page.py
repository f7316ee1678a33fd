"""The explorer page: one self-contained HTML file of every dataset, and the coverage-rate table.

The page holds one Vega-Lite specification per dataset (:func:`xaipipe.report.explorer.charts.dataset_spec`,
data embedded as CSV text) in ``<script type="application/json">`` blocks and the Vega, Vega-Lite and
vega-embed bundle of ``vl-convert-python`` (the one Altair inlines with ``chart.save(...,
inline=True)``): it opens from ``file://`` with no server and no network request. The only script
of its own selects the dataset (an HTML ``<select>``) and hands its specification to ``vegaEmbed``;
everything else is Vega-Lite.
"""

from __future__ import annotations

import html
import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

import numpy as np
import pandas as pd

from ...data.prepare import load_prepared
from ...io import read_csv
from .charts import dataset_spec
from .data import DatasetView, coverage_rates, dataset_view

__all__ = ["ExplorerPage", "explorer_page", "page_html", "load_views"]

#: Columns of ``explorer/coverage.csv``.
COVERAGE_COLUMNS = [
    "dataset",
    "scope",
    "epsilon",
    "kind",
    "feature",
    "n_members",
    "n_band",
    "n_grid",
    "n_covered",
    "coverage_rate",
]

_TEMPLATE = """<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
<title>{title}</title>
<style>
body {{ font-family: sans-serif; margin: 1em 2em; }}
header {{ display: flex; gap: 1.5em; align-items: baseline; flex-wrap: wrap; }}
#explorer.vega-embed {{ display: flex; flex-direction: column; }}
#explorer .vega-bindings {{ order: -1; margin-bottom: 0.8em; position: sticky; top: 0; background: white; z-index: 1; padding: 0.3em 0; }}
#explorer .vega-bind {{ display: inline-block; margin: 0 1.2em 0.4em 0; font-size: 13px; }}
.about {{ color: #555; font-size: 13px; max-width: 75em; }}
</style>
<script>
// Vega {vega}, Vega-Lite {vegalite}, vega-embed {embed}: the bundle of vl-convert-python {vlc}
{bundle}
</script>
</head>
<body>
<header>
<h2>{title}</h2>
<label>dataset <select id="dataset">{options}</select></label>
</header>
<p class="about">{about}</p>
<div id="explorer"></div>
{specs}
<script>
const picker = document.getElementById("dataset");
function show(name) {{
  const spec = JSON.parse(document.getElementById("spec-" + name).textContent);
  return vegaEmbed("#explorer", spec, {{renderer: "svg", actions: false}}).then((result) => {{
    window.explorerView = result.view;
    document.body.dataset.shown = name;
  }});
}}
picker.addEventListener("change", () => show(picker.value));
show(picker.value);
</script>
</body>
</html>
"""

_ABOUT = (
    "Every member of the dataset's Rashomon sets up to the largest ε of the grid, from the study's "
    "tables. The ε slider re-selects the members (gap to the reference ≤ ε: the pipeline's rule, ε in "
    "the unit of rashomon.epsilon_mode, standard errors of the reference's CV loss by default); a brush "
    "on the set view selects a group; importance, "
    "effects and rows follow both. Hover for values."
)


@dataclass(frozen=True)
class ExplorerPage:
    """The ``explorer`` rule's outputs: ``html`` (the page) and ``coverage`` (:data:`COVERAGE_COLUMNS`)."""

    html: str
    coverage: pd.DataFrame


def _json_block(name: str, spec: dict) -> str:
    text = json.dumps(spec, separators=(",", ":"), ensure_ascii=False).replace("</", "<\\/")
    return f'<script type="application/json" id="spec-{html.escape(name)}">{text}</script>'


def page_html(specs: Mapping[str, dict], *, title: str = "Rashomon explorer") -> str:
    """The page of several datasets' specifications (the first is shown first).

    Raises
    ------
    ValueError
        No specification, or a dataset name that is not a plain identifier.
    """
    import altair as alt
    import vl_convert as vlc
    from altair.utils._importers import vl_version_for_vl_convert

    if not specs:
        raise ValueError("no dataset to show")
    bad = [n for n in specs if not n.replace("_", "").replace("-", "").isalnum()]
    if bad:
        raise ValueError(f"dataset names must be letters, digits, '_' or '-': {bad}")
    options = "".join(f'<option value="{html.escape(n)}">{html.escape(n)}</option>' for n in specs)
    return _TEMPLATE.format(
        title=html.escape(title),
        vega=vlc.get_vega_version(),
        vegalite=alt.VEGALITE_VERSION,
        embed=vlc.get_vega_embed_version(),
        vlc=getattr(vlc, "__version__", ""),
        bundle=vlc.javascript_bundle(vl_version=vl_version_for_vl_convert()),
        options=options,
        about=html.escape(_ABOUT),
        specs="\n".join(_json_block(n, s) for n, s in specs.items()),
    )


def load_views(datasets: Sequence[str], inputs, *, epsilon: float, scope: str) -> list[DatasetView]:
    """Each dataset's :class:`DatasetView` from the ``explorer`` rule's inputs (lists in ``datasets``
    order: ``sets``, ``members``, ``predictions``, ``index``, ``effects``, ``tables``, ``infos``,
    ``splits``; optional ``intervals``: the ``prediction_interval_rows.csv`` of some of them, matched
    by their ``dataset`` column).

    Raises
    ------
    ValueError
        An input list of another length than ``datasets``.
    """

    n = len(datasets)
    for key in ("sets", "members", "predictions", "index", "effects", "tables", "infos", "splits"):
        if len(inputs[key]) != n:
            raise ValueError(f"input {key!r} has {len(inputs[key])} files for {n} datasets")
    intervals = {}
    for path in inputs.get("intervals", []):
        frame = read_csv(path)
        if len(frame):
            intervals[str(frame["dataset"].iloc[0])] = frame
    views = []
    for i, d in enumerate(datasets):
        sets = read_csv(inputs["sets"][i])
        views.append(
            dataset_view(
                d,
                members=read_csv(inputs["members"][i]),
                predictions=np.load(inputs["predictions"][i], allow_pickle=False),
                prediction_index=read_csv(inputs["index"][i]),
                effects=read_csv(inputs["effects"][i], keep_default_na=False, na_values=[""]),
                data=load_prepared(inputs["tables"][i], inputs["infos"][i], inputs["splits"][i]),
                epsilon=epsilon,
                epsilon_max=float(sets["epsilon"].max()),
                scope=scope,
                intervals=intervals.get(d),
            )
        )
    return views


def _coverage(view: DatasetView) -> pd.DataFrame:
    cov = coverage_rates(view, view.effects_scope, view.epsilon)
    if cov.empty:
        return pd.DataFrame(columns=COVERAGE_COLUMNS)
    cov.insert(0, "epsilon", view.epsilon)
    cov.insert(0, "scope", view.effects_scope)
    cov.insert(0, "dataset", view.dataset)
    return cov[COVERAGE_COLUMNS]


def with_notes(page: str, notes: Mapping[str, Sequence[str]]) -> str:
    """``page`` with a paragraph under the picker that shows the chosen dataset's ``notes`` (the
    coverage of its intervals on the dataset's twin; a dataset without notes: "coverage not
    measured")."""
    data = json.dumps({k: list(v) for k, v in notes.items()}, ensure_ascii=False).replace("</", "<\\/")
    block = (
        '<div class="about" id="twin-coverage"></div>\n'
        f'<script type="application/json" id="twin-notes">{data}</script>\n'
        "<script>\n"
        'const twinNotes = JSON.parse(document.getElementById("twin-notes").textContent);\n'
        "function showNotes(name) {\n"
        '  const lines = twinNotes[name] || ["coverage not measured (run `snakemake twins`)"];\n'
        '  const box = document.getElementById("twin-coverage");\n'
        '  box.replaceChildren(...lines.map((t) => Object.assign(document.createElement("div"), {textContent: t})));\n'
        "}\n"
        'document.getElementById("dataset").addEventListener("change", (e) => showNotes(e.target.value));\n'
        'showNotes(document.getElementById("dataset").value);\n'
        "</script>\n"
    )
    anchor = '<div id="explorer"></div>\n'
    return page.replace(
        anchor, '<p class="about"><b>Coverage on the twin</b> (docs/coverage.md):</p>\n' + block + anchor, 1
    )


def explorer_page(
    datasets: Sequence[str],
    inputs,
    *,
    epsilon: float,
    scope: str,
    title: str = "Rashomon explorer",
    notes: Mapping[str, Sequence[str]] | None = None,
) -> ExplorerPage:
    """The ``explorer`` rule: the page of every dataset and the coverage rates at the configured ε.

    Parameters
    ----------
    datasets : sequence of str
    inputs : mapping
        The rule's input lists (:func:`load_views`).
    epsilon : float
        ``rashomon.epsilon``: the slider's start and the ε of the coverage table.
    scope : str
        ``rashomon.figure_scope``: the scope shown first.
    title : str
    notes : mapping dataset -> lines, optional
        The coverage of the dataset's intervals on its twin (:func:`xaipipe.studies.twin_table.explorer_coverage_lines`),
        shown under the picker where the twin audit has run; None: the page as before.

    Returns
    -------
    ExplorerPage
        ``coverage``: per dataset, PD / ALE and variable, the coverage rate of the reference
        model's curve by the other members' band (:func:`coverage_rates`) in the scope that has
        curves, at ``epsilon``.
    """
    views = load_views(datasets, inputs, epsilon=epsilon, scope=scope)
    specs = {v.dataset: dataset_spec(v) for v in views}
    coverage = pd.concat([_coverage(v) for v in views], ignore_index=True)
    page = page_html(specs, title=title)
    return ExplorerPage(html=page if notes is None else with_notes(page, notes), coverage=coverage)

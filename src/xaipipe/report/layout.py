"""Where the Snakemake report (``snakemake --report``) shows what, and the captions' per-dataset sentences.

* The sidebar has one category per concept: one per dataset (its figures, by method), ``tables``
  (the tables of every dataset), ``thesis`` (the theses' figures and tables and the seed-003 rerun,
  one subcategory per seed document: :func:`thesis_subcategory`), ``Coverage audit``; the truth of
  the simulated data is in the simulated dataset's category.
* The figure rules pass :func:`missing_values_note` as a param, and the captions under
  ``workflow/report/`` print it (``{{ snakemake.params.missing_note }}``), so the caption of a figure
  of a dataset with dropped rows or imputed cells says so.
"""

from __future__ import annotations

__all__ = ["DATA_SUMMARY_TABLE", "THESES", "missing_values_note", "thesis_subcategory"]

#: Report subcategory (in category ``thesis``) of each seed document, by the prefix of a thesis
#: figure's or table's name (config ``thesis.figures`` / ``thesis.tables``: ``001_fig_5_2``).
THESES = {
    "000": "000: SHAP (Blázquez 2024)",
    "001": "001: tree ensembles (Cargnel 2025)",
    "003": "003: model comparison (seed 003)",
}


def thesis_subcategory(name: str) -> str:
    """The report subcategory of a thesis figure or table: :data:`THESES` of its name's prefix
    (``"001_fig_5_2"`` -> ``"001: tree ensembles (Cargnel 2025)"``); an unknown prefix is its own."""
    prefix = str(name).split("_", 1)[0]
    return THESES.get(prefix, prefix)


#: The per-dataset data summary table (rows read, rows dropped, cells imputed per column, policy).
DATA_SUMMARY_TABLE = "tables/data_summary.csv"


def missing_values_note(dataset: str, policy: str) -> str:
    """The caption's sentence on the missing values of ``dataset`` (reStructuredText; "" for none).

    Parameters
    ----------
    dataset : str
        The dataset's identifier.
    policy : {"error", "drop_rows", "impute"}
        Its ``missing`` policy (registry / ``datasets.<d>.missing``; :func:`xaipipe.data.preparation.prepare_table`).
        ``error`` stops the run on a missing value, so its results hold none and the note is empty.

    Returns
    -------
    str

    Raises
    ------
    ValueError
        An unknown policy.
    """
    where = (
        f"rows read, rows dropped and cells imputed per column are in the data summary table "
        f"(``{DATA_SUMMARY_TABLE}``) and in ``data/{dataset}/prepared.json`` (key ``missing``)"
    )
    if policy == "error":
        return ""
    if policy == "impute":
        return (
            f"**Missing values imputed.** Dataset ``{dataset}`` has the missing-value policy ``impute``: "
            "missing feature values are filled inside every fit (the median of a numeric column's training "
            "values, the most frequent level of a categorical one; ``xaipipe.data.impute``), so this is the "
            "model fitted on imputed data, explained on test rows whose missing values it imputes, and rows "
            f"with a missing target were dropped; {where}."
        )
    if policy == "drop_rows":
        return (
            f"**Rows with missing values dropped.** Dataset ``{dataset}`` has the missing-value policy "
            f"``drop_rows``: every row with a missing feature or target value was removed before the split; "
            f"{where}."
        )
    raise ValueError(f"unknown missing-value policy {policy!r} of dataset {dataset!r}")

"""Figure of the coverage audit: nominal against empirical coverage, MCR apart.

Input: the coverage table of :func:`xaipipe.studies.coverage.coverage_table`
(``tables/coverage.csv``). Draws with the current matplotlib style (wrap calls in
:func:`xaipipe.plots.style.figure_style`) and returns the Figure; callers save it
with :func:`xaipipe.plots.style.save_figure`.

Encoding. Learner panels (one row per learner family; columns learner-PD,
learner-PFI ratio, learner-PFI difference, and learner-SHAP importance and learner-ALE where the
table has them; those have no f* target for SHAP): x the nominal level, y the empirical
coverage; blue = corrected interval (1/K + n_2/n_1), orange = naive; solid line and
filled circle = coverage of f*'s value, dashed line and open square = coverage of
the learner's expected value (the intervals' own estimand); error bars ±
``band`` Monte-Carlo standard errors; the dotted diagonal is exact calibration.
MCR panels (bottom row; ratio and difference): MCR has no nominal level, so its
empirical coverage of MR(f*) is drawn per variable and scope at one ε: filled
marker = the test-split interval [MCR-, MCR+], open marker = the same Rashomon set's
members evaluated on a fresh large sample.
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from ..studies.coverage_table import COVERAGE_COLUMNS
from ._common import check_table

__all__ = ["plot_coverage", "plot_twin_coverage"]

CORRECTED_COLOUR = "#0072B2"  # Okabe-Ito blue
NAIVE_COLOUR = "#E69F00"  # Okabe-Ito orange
SCOPE_COLOURS = ["#009E73", "#D55E00", "#CC79A7", "#56B4E9", "#000000", "#F0E442"]
#: One colour per twin: the scopes' six, then the Okabe-Ito palette's other two (eight twins before a
#: colour repeats: the seven built-in tables and a user's).
TWIN_COLOURS = [*SCOPE_COLOURS, "#E69F00", "#0072B2"]

#: The columns the figure reads: the coverage table's but the ε mode, the counts of intervals, the
#: sample size and the widths and errors.
_NEEDED = [c for c in COVERAGE_COLUMNS if c not in ("epsilon_mode", "n_intervals", "n", "mean_width", "mean_error")]
_LEARNER = {
    "learner_pd": "learner-PD (pointwise)",
    "learner_mr_ratio": "learner-PFI, ratio $e_{switch}/e_{orig}$",
    "learner_mr_difference": "learner-PFI, difference $e_{switch}-e_{orig}$",
}
#: Learner-SHAP importance and learner-ALE (issue 45): panels after the three above, where the table has them.
_EFFECTS = {"learner_shap": "learner-SHAP importance", "learner_ale": "learner-ALE (pointwise)"}
_MCR = {"mcr_ratio": "MCR, ratio", "mcr_difference": "MCR, difference"}
_AGGREGATES = ("active", "irrelevant", "all")


def _check(table) -> pd.DataFrame:
    frame = check_table(table, _NEEDED, "coverage table", frame_name="coverage").copy()
    for col in ("family", "scope"):
        frame[col] = frame[col].fillna("").astype(str)
    return frame


def _mcr_at(mcr: pd.DataFrame, epsilon: float | None) -> tuple[pd.DataFrame, float | None]:
    """The MCR rows at ``epsilon`` and that ε (the table's only one when ``epsilon`` is None)."""
    if mcr.empty:
        return mcr, epsilon
    values = sorted(pd.unique(mcr["epsilon"].astype(float)))
    if epsilon is None:
        if len(values) > 1:
            raise ValueError(f"the table has MCR rows at several epsilons {values}; give epsilon")
        epsilon = values[0]
    if not np.isclose(values, float(epsilon)).any():
        raise ValueError(f"epsilon {epsilon!r} is not in the table (epsilons: {values})")
    return mcr[np.isclose(mcr["epsilon"].astype(float), float(epsilon))], epsilon


def _learner_panel(ax, q: pd.DataFrame, band: float) -> None:
    """One learner panel: the diagonal and, per interval and target, coverage against the nominal level."""
    ax.plot([0, 1], [0, 1], linestyle=":", color="0.4", linewidth=1)
    for interval, colour in (("corrected", CORRECTED_COLOUR), ("naive", NAIVE_COLOUR)):
        for target, style, marker, face in (("f_star", "-", "o", colour), ("learner", "--", "s", "none")):
            s = q[(q["interval"] == interval) & (q["target"] == target)].sort_values("nominal")
            if s.empty:
                continue
            ax.errorbar(
                s["nominal"],
                s["coverage"],
                yerr=band * s["coverage_se"],
                color=colour,
                linestyle=style,
                marker=marker,
                markerfacecolor=face,
                markersize=4,
                capsize=2,
                linewidth=1,
                label=f"{interval}, {'f*' if target == 'f_star' else 'learner'}",
            )
    ax.set_xlim(0.4, 1.02)
    ax.set_ylim(-0.02, 1.02)


def _mcr_panel(ax, q: pd.DataFrame, scopes: list, band: float) -> None:
    """One MCR panel: coverage per variable (the aggregates last), one colour per scope, filled the
    test-split interval and open the population members'."""
    feats = [f for f in pd.unique(q["feature"]) if f not in _AGGREGATES] + [
        f for f in _AGGREGATES if f in set(q["feature"])
    ]
    x = np.arange(len(feats), dtype=float)
    width = 0.8 / max(len(scopes), 1)
    for j, scope in enumerate(scopes):
        colour = SCOPE_COLOURS[j % len(SCOPE_COLOURS)]
        for interval, face in (("mcr", colour), ("population_members", "none")):
            s = q[(q["scope"] == scope) & (q["interval"] == interval)].set_index("feature")
            if s.empty:
                continue
            s = s.reindex(feats)
            xs = x - 0.4 + width * (j + (0.3 if interval == "mcr" else 0.7))
            ax.errorbar(
                xs,
                s["coverage"],
                yerr=band * s["coverage_se"],
                fmt="o",
                color=colour,
                markerfacecolor=face,
                markersize=4,
                capsize=2,
                linewidth=1,
                label=scope if interval == "mcr" else None,
            )
    ax.set_xticks(x, feats, rotation=45, fontsize="x-small")
    ax.set_ylim(-0.02, 1.02)


def plot_coverage(
    coverage: pd.DataFrame,
    *,
    epsilon: float | None = None,
    feature: str = "all",
    band: float = 1.96,
    title: str | None = None,
):
    """Nominal against empirical coverage of the learner intervals; MCR coverage per variable.

    Parameters
    ----------
    coverage : DataFrame
        :data:`xaipipe.studies.coverage.COVERAGE_COLUMNS`.
    epsilon : float, optional
        ε of the MCR panels; required when the table holds several.
    feature : str, default "all"
        Reporting level of the learner panels (``all``, ``active``,
        ``irrelevant`` or a variable); always over the grid points of the PD.
    band : float, default 1.96
        Half-length of the error bars in Monte-Carlo standard errors.
    title : str, optional

    Returns
    -------
    matplotlib.figure.Figure
        One row of three learner panels (five with learner-SHAP / ALE rows) per
        learner family, then (when the table has MCR rows) one row of two MCR panels.

    Raises
    ------
    ValueError, TypeError
        Missing columns, an empty table, no rows for ``feature``, an ε that is
        not in the table or a missing ε when there are several.
    """
    import matplotlib.pyplot as plt

    frame = _check(coverage)
    panels = {**_LEARNER, **{q: label for q, label in _EFFECTS.items() if q in set(frame["quantity"])}}
    learner = frame[frame["quantity"].isin(list(panels)) & frame["grid_value"].isna()]
    learner = learner[learner["feature"] == feature]
    families = list(pd.unique(learner["family"]))
    mcr = frame[frame["quantity"].isin(list(_MCR))]
    if not families and mcr.empty:
        raise ValueError(f"no learner rows at reporting level {feature!r} and no MCR rows")
    mcr, epsilon = _mcr_at(mcr, epsilon)
    nrows = len(families) + (0 if mcr.empty else 1)
    L = len(panels)  # learner panels of 2 grid columns; the two MCR panels share the row
    fig = plt.figure(figsize=(3.5 * L, 3.2 * nrows))
    grid = fig.add_gridspec(nrows, 2 * L)
    n_rep = int(frame["n_repetitions"].max())
    for i, fam in enumerate(families):
        part = learner[learner["family"] == fam]
        for k, (quantity, label) in enumerate(panels.items()):
            ax = fig.add_subplot(grid[i, 2 * k : 2 * k + 2])
            _learner_panel(ax, part[part["quantity"] == quantity], band)
            ax.set_title(f"{label}\n{fam}" if len(families) > 1 else label, fontsize="small")
            ax.set_xlabel("nominal level")
            if k == 0:
                ax.set_ylabel(f"empirical coverage ({feature})")
            if i == 0 and k == 0:
                ax.legend(loc="upper left", fontsize="x-small", title="interval, target", title_fontsize="x-small")
    if not mcr.empty:
        scopes = list(pd.unique(mcr["scope"]))
        for k, (quantity, label) in enumerate(_MCR.items()):
            ax = fig.add_subplot(grid[nrows - 1, L * k : L * k + L])
            _mcr_panel(ax, mcr[mcr["quantity"] == quantity], scopes, band)
            ax.set_title(f"{label}: coverage of MR(f*) at ε = {float(epsilon):g} (no nominal level)", fontsize="small")
            if k == 0:
                ax.set_ylabel("empirical coverage")
                ax.legend(loc="best", fontsize="x-small", title="scope (open: population MR)", title_fontsize="x-small")
    n = frame["n"].iloc[0] if "n" in frame else None
    info = f"R = {n_rep} repetitions" + (f", n = {int(n)}" if n is not None and np.isfinite(n) else "")
    info += f"; error bars ±{band:g} Monte-Carlo SE"
    fig.suptitle((title + "\n" if title else "") + info, fontsize="small")
    fig.tight_layout()
    return fig


#: The panels of :func:`plot_twin_coverage`: (kind, quantity, interval) -> title.
_TWIN_PANELS = {
    ("learner", "pd", "corrected"): "learner-PD (corrected)",
    ("learner", "mr_difference", "corrected"): "learner-PFI difference (corrected)",
    ("learner", "shap", "corrected"): "learner-SHAP importance (corrected)",
    ("learner", "ale", "corrected"): "learner-ALE (corrected)",
    ("mr", "mr_difference", "se"): "MR difference ± t / z SE",
    ("test_loss", "test_loss", "se"): "test loss ± z bootstrap SE",
    ("ols", "coefficient", "se"): "OLS coefficients (sanity)",
    ("logit", "coefficient", "se"): "logit coefficients (sanity)",
    ("sage", "sage", "se"): "SAGE ± z SE",
    ("h2", "h2_total", "se"): "H² total ± z bootstrap SE",
    ("h2", "h2_pairwise", "se"): "H² pairwise ± z bootstrap SE",
}


def plot_twin_coverage(coverage: pd.DataFrame, *, band: float = 1.96, title: str | None = None):
    """Coverage against nominal level of every interval kind on every twin (issue 51).

    One panel per interval kind (:data:`_TWIN_PANELS`, those the table has): x the nominal level, y the
    empirical coverage pooled over variables and grid points, one line per dataset; solid = the
    estimand the interval claims, dashed = the planted truth (f*'s value); error bars ±``band``
    Monte-Carlo SE; the dotted diagonal is exact calibration. MR rows pool both estimators
    (``permutation``, ``e_divide``) per line style by estimator (circle / square).

    Parameters
    ----------
    coverage : DataFrame
        :data:`xaipipe.studies.twin_table.TWIN_COVERAGE_COLUMNS` (``tables/coverage_twins.csv``).
    band : float, default 1.96
    title : str, optional

    Returns
    -------
    matplotlib.figure.Figure

    Raises
    ------
    ValueError
        An empty table or one without the columns.
    """
    import matplotlib.pyplot as plt

    from ..studies.twin_table import TWIN_COVERAGE_COLUMNS

    frame = check_table(coverage, TWIN_COVERAGE_COLUMNS, "twin coverage table")
    frame = frame[(frame["feature"] == "all") & frame["nominal"].notna()]
    panels = [
        k
        for k in _TWIN_PANELS
        if ((frame["kind"] == k[0]) & (frame["quantity"] == k[1]) & (frame["interval"] == k[2])).any()
    ]
    if not panels:
        raise ValueError("the twin coverage table has no row with a nominal level")
    datasets = list(pd.unique(frame["dataset"]))
    colours = {d: TWIN_COLOURS[i % len(TWIN_COLOURS)] for i, d in enumerate(datasets)}
    ncols = min(4, len(panels))
    nrows = int(np.ceil(len(panels) / ncols))
    fig, axes = plt.subplots(nrows, ncols, figsize=(3.4 * ncols, 3.2 * nrows), squeeze=False)
    for ax, key in zip(axes.ravel(), panels):
        kind, quantity, interval = key
        part = frame[(frame["kind"] == kind) & (frame["quantity"] == quantity) & (frame["interval"] == interval)]
        # dropna=False: test loss, OLS and logit rows have no estimator
        for (dataset, target, estimator), rows in part.groupby(
            ["dataset", "target", "estimator"], sort=False, dropna=False
        ):
            rows = rows.groupby("nominal", as_index=False)[["coverage", "coverage_se"]].mean()
            ax.errorbar(
                rows["nominal"],
                rows["coverage"],
                yerr=band * rows["coverage_se"],
                color=colours[dataset],
                linestyle="-" if target == "claimed" else "--",
                marker="s" if estimator == "e_divide" else "o",
                markersize=3,
                linewidth=1,
                capsize=2,
                label=dataset if target == "claimed" and estimator != "e_divide" else None,
            )
        ax.plot([0, 1], [0, 1], ":", color="grey", linewidth=1)
        ax.set_xlim(0.45, 1.0)
        ax.set_ylim(0.0, 1.02)
        ax.set_title(_TWIN_PANELS[key], fontsize="small")
        ax.set_xlabel("nominal level")
        ax.set_ylabel("empirical coverage")
    for ax in axes.ravel()[len(panels) :]:
        ax.set_visible(False)
    handles, labels = axes.ravel()[0].get_legend_handles_labels()
    if handles:
        axes.ravel()[0].legend(
            handles, labels, loc="upper left", fontsize="x-small", title="twin", title_fontsize="x-small"
        )
    n_rep = int(frame["n_repetitions"].max())
    fig.suptitle(
        title
        or f"Coverage on the twins (R ≤ {n_rep}): solid = claimed estimand, dashed = planted truth; ±{band:g} MC SE",
        fontsize="small",
    )
    fig.tight_layout()
    return fig

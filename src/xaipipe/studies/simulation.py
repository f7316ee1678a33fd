"""The truth of a simulated data set, and the pipeline's estimates placed beside it.

For a DGP of :mod:`xaipipe.data.simulated` (:math:`Y = f^*(X) + \\sigma\\varepsilon`,
:math:`X \\sim \\mathcal U(-1, 1)^p` independent) this module computes the
population quantities that the pipeline's interpretation methods estimate:

* **Partial dependence** of :math:`f^*` (Friedman 2001, Ann. Statist. 29(5), §8.2),
  :math:`\\mathrm{PD}_j(z) = E_{X_C}[f^*(z, X_C)]`, and its derivative
  :math:`\\mathrm{PD}_j'(z) = E_{X_C}[\\partial_j f^*(z, X_C)]` (the mean of the
  d-ICE curves of :math:`f^*`): :func:`partial_dependence_truth`.
* **Model reliance** of :math:`f^*` under squared loss (Fisher, Rudin & Dominici
  2019, JMLR 20(177), §3, population versions): :math:`e_{orig} = \\sigma^2`,
  :math:`e_{switch} = \\sigma^2 + D_j`, ratio :math:`1 + D_j/\\sigma^2`, difference
  :math:`D_j = E[(f^*(X) - f^*(\\tilde X^{(j)}))^2]`, with :math:`\\tilde X^{(j)}` equal
  to :math:`X` but for an independent copy of :math:`X_j`:
  :func:`model_reliance_truth`.
* **ICE and derivative ICE** of :math:`f^*` at given rows (Goldstein et al. 2015):
  :math:`f^*(z, x_C^{(i)})` and :math:`\\partial_j f^*(z, x_C^{(i)})`:
  :func:`ice_truth`, :func:`ice_derivative_truth`.

How (``method=``): ``"closed_form"`` uses the DGP's analytic expressions (the
closed forms are written out in :mod:`xaipipe.data.simulated`); ``"monte_carlo"``
estimates the same expectations on a fresh sample of ``n_mc`` rows drawn from
the input distribution with ``numpy.random.default_rng(random_state)``, and
reports the Monte-Carlo standard error ``sd / sqrt(n_mc)`` (``ddof = 1``) in the
``*_se`` columns. For PD every grid point uses the same sample (common random
numbers), and an irrelevant variable leaves :math:`f^*` bitwise unchanged, so
its MC PD is exactly constant and its MC :math:`D_j` exactly 0. For MR the MC
estimate uses :math:`D_j` directly (the noise term is known:
:math:`e_{orig} = \\sigma^2`), which has a smaller variance than simulating
:math:`Y`. ``"auto"`` (default) takes the closed form where the DGP has one and
Monte Carlo otherwise; the ``method`` column says which was used. A DGP without
an analytic gradient gets central differences with step ``1e-5``.

What the comparison means (:func:`truth_table`)
-----------------------------------------------
The pipeline explains a *fitted* model :math:`\\hat f`, estimated from the
training split, on the test split. Its PD, ICE and MR are those of
:math:`\\hat f`, which differ from :math:`f^*`'s even without sampling error.
``error = estimate - truth`` is therefore the total error of reading the
pipeline's output as a statement about the data-generating process: (i) model
error (:math:`\\hat f \\ne f^*`: bias of the family, variance of the fit),
(ii) Monte-Carlo / sampling error of the estimator (PD averaged over the test
rows; MR computed on them) and (iii) for d-ICE, the numerical differentiation
of the ICE curves on the grid. For MR in particular:

* the denominator of the pipeline's ratio is :math:`\\hat e_{orig}(\\hat f)`,
  the *test* MSE of :math:`\\hat f`, which exceeds :math:`\\sigma^2` by the excess
  risk of :math:`\\hat f` (and the ``e_orig`` rows show it), so the pipeline's ratio
  is typically *below* the ratio of :math:`f^*` even for a good model;
* the difference :math:`e_{switch} - e_{orig}` of :math:`\\hat f` equals
  :math:`E[(f^*(X) - \\hat f(\\tilde X^{(j)}))^2] - E[(f^*(X) - \\hat f(X))^2]`: it
  is close to :math:`D_j` when :math:`\\hat f \\approx f^*`, smaller when
  :math:`\\hat f` smooths the effect of :math:`x_j` out, and can be positive for an
  irrelevant variable the fit happened to use;
* learner-PFI (Molnar et al. 2023) averages the model MR over refits: its
  estimand, :math:`E_{D}[\\mathrm{PFI}(\\hat f_D)]`, is not the DGP-PFI
  :math:`D_j` either (it carries the learner's bias and variance), so a corrected
  interval that misses the truth does not by itself mean under-coverage of the
  interval's own estimand.

``truth_se`` is the Monte-Carlo standard error of the truth (0 for closed forms),
*not* the uncertainty of the estimate; ``ci_low`` / ``ci_high`` are copied from
the pipeline's tables where they have intervals (learner-PD/PFI) for a later
coverage audit.
"""

from __future__ import annotations

import numbers
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
import pandas as pd

from ..data.simulated import DEFAULT_DGP, DGP, feature_index, feature_names, get_dgp

__all__ = [
    "QUANTITIES",
    "TRUTH_COLUMNS",
    "ice_derivative_truth",
    "ice_truth",
    "model_reliance_truth",
    "partial_dependence_truth",
    "truth_table",
]

#: ``method=`` options.
METHODS = ("auto", "closed_form", "monte_carlo")

#: Columns of :func:`truth_table` (``tables/simulation_truth.csv``).
TRUTH_COLUMNS = [
    "dataset",
    "family",
    "quantity",
    "estimator",
    "loss",
    "feature",
    "grid_value",
    "row",
    "estimate",
    "truth",
    "truth_se",
    "error",
    "ci_low",
    "ci_high",
    "method",
    "source",
]

#: Quantities of :func:`truth_table` and the pipeline table each one comes from.
QUANTITIES = {
    "e_orig": "model_reliance",
    "mr_ratio": "model_reliance",
    "mr_difference": "model_reliance",
    "pd": "pd_ice",
    "d_pd": "pd_ice",
    "ice": "pd_ice",
    "d_ice": "pd_ice",
    "learner_pd": "learner_pd",
    "learner_mr_ratio": "learner_pfi",
    "learner_mr_difference": "learner_pfi",
}

_FD_STEP = 1e-5


# ----------------------------------------------------------------------------- helpers
def _check_method(method: str) -> str:
    if method not in METHODS:
        raise ValueError(f"method must be one of {METHODS}, got {method!r}")
    return method


def _check_n_mc(n_mc) -> int:
    if not isinstance(n_mc, (numbers.Integral, np.integer)) or isinstance(n_mc, bool) or n_mc < 2:
        raise ValueError(f"n_mc must be an integer >= 2, got {n_mc!r}")
    return int(n_mc)


def _features(model: DGP, features, p: int) -> list[str]:
    if features is None:
        return feature_names(p)
    if isinstance(features, (str, numbers.Integral)):
        features = [features]
    return [f"x{feature_index(f, p) + 1}" for f in features]


def _grid_for(name: str, grid, resolution: int, model: DGP) -> np.ndarray:
    if grid is None:
        return np.linspace(model.low, model.high, int(resolution))
    g = grid.get(name) if isinstance(grid, Mapping) else grid
    if g is None:
        raise ValueError(f"grid has no values for feature {name!r}")
    z = np.asarray(g, dtype=np.float64).reshape(-1)
    if z.size == 0 or not np.all(np.isfinite(z)):
        raise ValueError(f"grid of feature {name!r} must be a non-empty finite 1-D array")
    return z


def _partial_gradient(model: DGP, X: np.ndarray, j: int) -> np.ndarray:
    """:math:`\\partial_j f^*` at the rows of X: analytic, else central differences."""
    try:
        return model.gradient(X)[:, j]
    except NotImplementedError:
        up, down = X.copy(), X.copy()
        up[:, j] += _FD_STEP
        down[:, j] -= _FD_STEP
        return (model.f(up) - model.f(down)) / (2 * _FD_STEP)


def _has_gradient(model: DGP, p: int) -> bool:
    try:
        model.gradient(np.zeros((1, p)))
    except NotImplementedError:
        return False
    return True


def _required_grid(grid) -> np.ndarray:
    z = np.asarray(grid if grid is not None else [], dtype=np.float64).reshape(-1)
    if z.size == 0 or not np.all(np.isfinite(z)):
        raise ValueError("grid must be a non-empty finite 1-D array")
    return z


def _check_rows(model: DGP, X) -> np.ndarray:
    A = np.asarray(X.to_numpy(dtype=np.float64) if hasattr(X, "to_numpy") else X, dtype=np.float64)
    if A.ndim != 2:
        raise ValueError(f"X must be 2-D (n, p), got shape {A.shape}")
    model.check_p(A.shape[1])
    return A


# ----------------------------------------------------------------------------- PD
def partial_dependence_truth(
    dgp: str | DGP = DEFAULT_DGP,
    features: Sequence[str] | str | None = None,
    grid: Sequence[float] | Mapping[str, Sequence[float]] | None = None,
    *,
    p: int = 10,
    resolution: int = 21,
    method: str = "auto",
    n_mc: int = 100_000,
    random_state: int = 0,
) -> pd.DataFrame:
    """Partial dependence of :math:`f^*` and its derivative, per feature and grid value.

    Parameters
    ----------
    dgp : str or DGP, default "friedman1"
    features : sequence of str, str or None
        Feature names (``"x1"``, ...) or 0-based indices; None: all ``p``.
    grid : array-like, mapping feature -> array-like, or None
        Values of the feature; one array for every feature or one per feature.
        None: ``resolution`` equally spaced points on the input's support [-1, 1].
    p : int, default 10
        Number of inputs (only the Monte-Carlo sample depends on it).
    resolution : int, default 21
    method : {"auto", "closed_form", "monte_carlo"}
    n_mc : int, default 100000
        Monte-Carlo sample size.
    random_state : int, default 0
        Seed of the Monte-Carlo sample (one sample for every feature and grid point).

    Returns
    -------
    DataFrame
        Columns ``feature``, ``grid_value``, ``pd`` (response units), ``pd_se``
        (Monte-Carlo standard error, 0 for a closed form), ``d_pd`` (derivative
        of the PD, response units per input unit), ``d_pd_se``, ``method``
        (``closed_form`` or ``monte_carlo``), ``n_mc`` (0 for a closed form).

    Raises
    ------
    ValueError
        Bad ``method``, feature, grid or ``n_mc``; ``method="closed_form"`` for a
        DGP without one.
    """
    model = get_dgp(dgp)
    p = model.check_p(p)
    method = _check_method(method)
    n_mc = _check_n_mc(n_mc)
    X_mc = None
    parts = []
    for name in _features(model, features, p):
        j = feature_index(name, p)
        z = _grid_for(name, grid, resolution, model)
        block = None
        if method != "monte_carlo":
            try:
                block = {
                    "pd": model.partial_dependence(j, z),
                    "pd_se": np.zeros(z.size),
                    "d_pd": model.partial_dependence_derivative(j, z),
                    "d_pd_se": np.zeros(z.size),
                    "method": "closed_form",
                    "n_mc": 0,
                }
            except NotImplementedError as exc:
                if method == "closed_form":
                    raise ValueError(f"DGP {model.name!r}: no closed-form PD for {name!r} ({exc})") from None
        if block is None:
            if X_mc is None:
                X_mc = model.sample_X(np.random.default_rng(random_state), n_mc, p)
            stats = np.empty((4, z.size))
            for k, value in enumerate(z):
                Xz = X_mc.copy()
                Xz[:, j] = value
                v, g = model.f(Xz), _partial_gradient(model, Xz, j)
                stats[:, k] = [v.mean(), v.std(ddof=1) / np.sqrt(n_mc), g.mean(), g.std(ddof=1) / np.sqrt(n_mc)]
            block = {
                "pd": stats[0],
                "pd_se": stats[1],
                "d_pd": stats[2],
                "d_pd_se": stats[3],
                "method": "monte_carlo",
                "n_mc": n_mc,
            }
        parts.append(pd.DataFrame({"feature": name, "grid_value": z, **block}))
    return pd.concat(parts, ignore_index=True)


# ----------------------------------------------------------------------------- MR
def model_reliance_truth(
    dgp: str | DGP = DEFAULT_DGP,
    features: Sequence[str] | str | None = None,
    *,
    p: int = 10,
    noise_sd: float = 1.0,
    method: str = "auto",
    n_mc: int = 200_000,
    random_state: int = 0,
) -> pd.DataFrame:
    """Population model reliance of :math:`f^*` under squared loss (Fisher et al. 2019).

    Parameters
    ----------
    dgp : str or DGP, default "friedman1"
    features : sequence of str, str or None
        None: all ``p`` inputs.
    p : int, default 10
    noise_sd : float > 0, default 1.0
        :math:`\\sigma`; :math:`e_{orig}(f^*) = \\sigma^2`.
    method : {"auto", "closed_form", "monte_carlo"}
    n_mc : int, default 200000
        Monte-Carlo pairs :math:`(X, \\tilde X^{(j)})`.
    random_state : int, default 0

    Returns
    -------
    DataFrame
        One row per feature: ``feature``, ``loss`` (``squared_error``),
        ``e_orig`` (:math:`\\sigma^2`), ``e_switch`` (:math:`\\sigma^2 + D_j`),
        ``mr_ratio`` (:math:`e_{switch}/e_{orig}`, 1 for an irrelevant variable),
        ``mr_difference`` (:math:`D_j`, squared response units, 0 for an
        irrelevant variable), ``mr_ratio_se`` and ``mr_difference_se``
        (Monte-Carlo standard errors, 0 for closed forms), ``method``, ``n_mc``.

    Raises
    ------
    ValueError
        ``noise_sd <= 0`` (the ratio divides by :math:`\\sigma^2`), bad
        ``method``, feature or ``n_mc``.
    """
    model = get_dgp(dgp)
    p = model.check_p(p)
    method = _check_method(method)
    n_mc = _check_n_mc(n_mc)
    if not isinstance(noise_sd, numbers.Real) or not np.isfinite(noise_sd) or noise_sd <= 0:
        raise ValueError(f"noise_sd must be > 0 (the MR ratio divides by e_orig = noise_sd^2), got {noise_sd!r}")
    s2 = float(noise_sd) ** 2
    X_mc = f_mc = donor = None
    rows = []
    for name in _features(model, features, p):
        j = feature_index(name, p)
        d = se = None
        used, size = "closed_form", 0
        if method != "monte_carlo":
            try:
                d, se = model.mr_difference(j), 0.0
            except NotImplementedError as exc:
                if method == "closed_form":
                    raise ValueError(f"DGP {model.name!r}: no closed-form MR for {name!r} ({exc})") from None
        if d is None:
            if X_mc is None:
                rng = np.random.default_rng(random_state)
                X_mc = model.sample_X(rng, n_mc, p)
                donor = model.sample_X(rng, n_mc, p)  # independent copies of every column
                f_mc = model.f(X_mc)
            Xs = X_mc.copy()
            Xs[:, j] = donor[:, j]
            sq = (f_mc - model.f(Xs)) ** 2
            d, se = float(sq.mean()), float(sq.std(ddof=1) / np.sqrt(n_mc))
            used, size = "monte_carlo", n_mc
        rows.append(
            {
                "feature": name,
                "loss": "squared_error",
                "e_orig": s2,
                "e_switch": s2 + d,
                "mr_ratio": (s2 + d) / s2,
                "mr_difference": d,
                "mr_ratio_se": se / s2,
                "mr_difference_se": se,
                "method": used,
                "n_mc": size,
            }
        )
    return pd.DataFrame(rows)


# ----------------------------------------------------------------------------- ICE
def ice_truth(dgp: str | DGP, X, feature: str | int, grid) -> np.ndarray:
    """ICE curves of :math:`f^*`: :math:`f^*(z_k, x_C^{(i)})` for every row ``i`` of X and grid value ``z_k``.

    Parameters
    ----------
    dgp : str or DGP
    X : array-like of shape (n, p)
        Rows whose other features :math:`x_C^{(i)}` are kept.
    feature : str or int
    grid : array-like of shape (K,)

    Returns
    -------
    ndarray of shape (n, K)
    """
    model = get_dgp(dgp)
    A = _check_rows(model, X)
    j = feature_index(feature, A.shape[1])
    z = _required_grid(grid)
    stacked = np.repeat(A, z.size, axis=0)
    stacked[:, j] = np.tile(z, A.shape[0])
    return model.f(stacked).reshape(A.shape[0], z.size)


def ice_derivative_truth(dgp: str | DGP, X, feature: str | int, grid=None) -> np.ndarray:
    """Derivative-ICE truth: :math:`\\partial f^*/\\partial x_j`.

    Parameters
    ----------
    dgp : str or DGP
    X : array-like of shape (n, p)
    feature : str or int
    grid : array-like of shape (K,), optional
        None: the derivative at each row itself, :math:`\\partial_j f^*(x^{(i)})`.
        Given: along each ICE curve, :math:`\\partial_j f^*(z_k, x_C^{(i)})`.

    Returns
    -------
    ndarray of shape (n,) (no grid) or (n, K)
        Analytic where the DGP has a gradient, else central differences.
    """
    model = get_dgp(dgp)
    A = _check_rows(model, X)
    j = feature_index(feature, A.shape[1])
    if grid is None:
        return _partial_gradient(model, A, j)
    z = _required_grid(grid)
    stacked = np.repeat(A, z.size, axis=0)
    stacked[:, j] = np.tile(z, A.shape[0])
    return _partial_gradient(model, stacked, j).reshape(A.shape[0], z.size)


# ----------------------------------------------------------------------------- comparison
def _need(table: pd.DataFrame, columns: Sequence[str], what: str) -> None:
    if not isinstance(table, pd.DataFrame):
        raise TypeError(f"{what} must be a DataFrame, got {type(table).__name__}")
    missing = [c for c in columns if c not in table.columns]
    if missing:
        raise ValueError(f"{what} lacks columns {missing}")


def _for_dataset(table: pd.DataFrame, dataset: str) -> pd.DataFrame:
    if "dataset" in table.columns:
        table = table[table["dataset"].astype(str) == dataset]
    return table.reset_index(drop=True)


def _family(table: pd.DataFrame) -> pd.Series:
    for col in ("family", "model"):
        if col in table.columns:
            return table[col].astype(str)
    return pd.Series("", index=table.index)


def _rows(table, dataset, quantity, estimate, truth, truth_se, method, **extra) -> pd.DataFrame:
    n = len(table)
    out = pd.DataFrame(
        {
            "dataset": dataset,
            "family": _family(table).to_numpy(),
            "quantity": quantity,
            "estimator": extra.get("estimator", np.full(n, "", dtype=object)),
            "loss": extra.get("loss", np.full(n, "", dtype=object)),
            "feature": extra.get("feature", table["feature"].astype(str).to_numpy() if n else []),
            "grid_value": extra.get("grid_value", np.full(n, np.nan)),
            "row": extra.get("row", np.full(n, -1, dtype=np.int64)),
            "estimate": np.asarray(estimate, dtype=np.float64),
            "truth": np.asarray(truth, dtype=np.float64),
            "truth_se": np.asarray(truth_se, dtype=np.float64),
            "ci_low": extra.get("ci_low", np.full(n, np.nan)),
            "ci_high": extra.get("ci_high", np.full(n, np.nan)),
            "method": method,
            "source": QUANTITIES[quantity],
        }
    )
    out["error"] = out["estimate"] - out["truth"]
    return out[TRUTH_COLUMNS]


@dataclass(frozen=True, eq=False)
class _TruthContext:
    """What :func:`truth_table`'s row builders share: the DGP, ``p``, how the truth is computed,
    the dataset, ``noise_sd``, the data matrix (or None) and the MR truth by feature (or None)."""

    model: Any
    p: int
    method: str
    n_mc: int
    random_state: int
    dataset: str
    noise_sd: float
    X: np.ndarray | None
    mr: pd.DataFrame | None


def _data_matrix(data):
    """The ``x1 .. xp`` columns of a simulated (or prepared) table as float64, None without data."""
    if data is None:
        return None
    cols = [c for c in data.columns if c not in ("y", "row_id")]
    X = data[feature_names(len(cols))].to_numpy(dtype=np.float64) if cols else None
    if X is None or cols != feature_names(len(cols)):
        raise ValueError(f"data must have columns x1..xp (and y, row_id), got {list(data.columns)}")
    return X


def _truth_p(model, X, tables, dataset) -> int:
    """``p`` of the truth: the data's, else enough for the DGP's active inputs and every feature named."""
    seen = []
    for what, t in tables.items():
        if t is not None:
            _need(t, ["feature"], what)
            seen += [feature_index(f) for f in _for_dataset(t, dataset)["feature"].astype(str).unique()]
    p = X.shape[1] if X is not None else max([model.n_active - 1] + seen) + 1
    if seen and max(seen) >= p:
        raise ValueError(f"feature x{max(seen) + 1} is not an input of the data (p = {p})")
    return model.check_p(p)


def _pd_truth(ctx: _TruthContext, frame: pd.DataFrame, value_col: str = "grid_value"):
    """PD and PD-derivative truths (with their Monte-Carlo errors and method) of ``frame``'s rows."""
    grid = {f: np.unique(part[value_col].to_numpy(dtype=np.float64)) for f, part in frame.groupby("feature")}
    if not grid:
        return np.empty(0), np.empty(0), np.empty(0), np.empty(0), ""
    truth = partial_dependence_truth(
        ctx.model, list(grid), grid, p=ctx.p, method=ctx.method, n_mc=ctx.n_mc, random_state=ctx.random_state
    ).set_index(["feature", "grid_value"])
    key = pd.MultiIndex.from_arrays([frame["feature"].astype(str), frame[value_col].astype(np.float64)])
    t = truth.loc[key]
    return (
        t["pd"].to_numpy(),
        t["pd_se"].to_numpy(),
        t["d_pd"].to_numpy(),
        t["d_pd_se"].to_numpy(),
        t["method"].to_numpy(),
    )


def _reliance_rows(ctx: _TruthContext, reliance: pd.DataFrame) -> list[pd.DataFrame]:
    """The ``e_orig``, ``mr_ratio`` and ``mr_difference`` rows of ``model_reliance.csv``."""
    dataset, noise_sd = ctx.dataset, ctx.noise_sd
    out = []
    rel = _for_dataset(reliance, dataset)
    _need(rel, ["feature", "estimator", "loss", "e_orig", "mr_ratio", "mr_difference"], "reliance")
    rel = rel[rel["loss"] == "squared_error"].reset_index(drop=True)
    if len(rel):
        t = ctx.mr.loc[rel["feature"].astype(str)]
        common = {"estimator": rel["estimator"].astype(str).to_numpy(), "loss": rel["loss"].to_numpy()}
        first = rel.assign(_fam=_family(rel)).drop_duplicates(["_fam", "estimator"]).reset_index(drop=True)
        out.append(
            _rows(
                first,
                dataset,
                "e_orig",
                first["e_orig"],
                np.full(len(first), noise_sd**2),
                np.zeros(len(first)),
                "closed_form",
                feature=np.full(len(first), "", dtype=object),
                estimator=first["estimator"].astype(str).to_numpy(),
                loss=first["loss"].to_numpy(),
            )
        )
        for q in ("mr_ratio", "mr_difference"):
            out.append(_rows(rel, dataset, q, rel[q], t[q], t[f"{q}_se"], t["method"].to_numpy(), **common))
    return out


def _curve_rows(ctx: _TruthContext, curves: pd.DataFrame) -> list[pd.DataFrame]:
    """The ``pd``, ``d_pd``, ``ice`` and ``d_ice`` rows of ``pd_ice.csv``."""
    dataset = ctx.dataset
    out = []
    cur = _for_dataset(curves, dataset)
    _need(cur, ["feature", "grid_value", "kind", "row", "value"], "curves")
    lines = cur[cur["kind"].isin(["pd", "d_pd"])].reset_index(drop=True)
    if len(lines):
        pdv, pdse, dpd, dpdse, how = _pd_truth(ctx, lines)
        is_pd = (lines["kind"] == "pd").to_numpy()
        for q, mask in (("pd", is_pd), ("d_pd", ~is_pd)):
            if mask.any():
                sub = lines[mask].reset_index(drop=True)
                truth, se = (pdv, pdse) if q == "pd" else (dpd, dpdse)
                out.append(
                    _rows(
                        sub,
                        dataset,
                        q,
                        sub["value"],
                        truth[mask],
                        se[mask],
                        how[mask],
                        grid_value=sub["grid_value"].to_numpy(dtype=np.float64),
                    )
                )
    for q in ("ice", "d_ice"):
        sub = cur[cur["kind"] == q].reset_index(drop=True)
        if not sub.empty:
            out.append(_ice_rows(ctx, sub, q))
    return out


def _ice_rows(ctx: _TruthContext, sub: pd.DataFrame, q: str) -> pd.DataFrame:
    """The ``ice`` or ``d_ice`` rows (``q``) of ``pd_ice.csv``: the truth at each curve's data row."""
    X, model, p = ctx.X, ctx.model, ctx.p
    if X is None:
        raise ValueError(f"curves has {q!r} rows: pass data (the simulated table) to look up their rows")
    rows = sub["row"].to_numpy(dtype=np.int64)
    if rows.min() < 0 or rows.max() >= len(X):
        raise ValueError(f"curves has {q!r} rows outside the data's {len(X)} rows")
    truth = np.empty(len(sub))
    for name, idx in sub.groupby(sub["feature"].astype(str)).indices.items():
        j = feature_index(name, p)
        A = X[rows[idx]].copy()
        A[:, j] = sub["grid_value"].to_numpy(dtype=np.float64)[idx]
        truth[idx] = model.f(A) if q == "ice" else _partial_gradient(model, A, j)
    how = "closed_form" if q == "ice" or _has_gradient(model, p) else "finite_difference"
    return _rows(
        sub,
        ctx.dataset,
        q,
        sub["value"],
        truth,
        np.zeros(len(sub)),
        how,
        grid_value=sub["grid_value"].to_numpy(dtype=np.float64),
        row=rows,
    )


def _learner_pd_rows(ctx: _TruthContext, learner_pd: pd.DataFrame) -> list[pd.DataFrame]:
    """The ``learner_pd`` rows of ``learner_pd.csv``."""
    lpd = _for_dataset(learner_pd, ctx.dataset)
    _need(lpd, ["feature", "grid_value", "mean", "ci_low", "ci_high"], "learner_pd")
    if not len(lpd):
        return []
    pdv, pdse, _, _, how = _pd_truth(ctx, lpd)
    return [
        _rows(
            lpd,
            ctx.dataset,
            "learner_pd",
            lpd["mean"],
            pdv,
            pdse,
            how,
            grid_value=lpd["grid_value"].to_numpy(dtype=np.float64),
            ci_low=lpd["ci_low"].to_numpy(dtype=np.float64),
            ci_high=lpd["ci_high"].to_numpy(dtype=np.float64),
        )
    ]


def _learner_pfi_rows(ctx: _TruthContext, learner_pfi: pd.DataFrame) -> list[pd.DataFrame]:
    """The ``learner_mr_ratio`` and ``learner_mr_difference`` rows of ``learner_pfi.csv``."""
    lpf = _for_dataset(learner_pfi, ctx.dataset)
    need = ["feature", "estimator", "loss"] + [
        f"{m}_{s}" for m in ("mr_ratio", "mr_difference") for s in ("mean", "ci_low", "ci_high")
    ]
    _need(lpf, need, "learner_pfi")
    lpf = lpf[lpf["loss"] == "squared_error"].reset_index(drop=True)
    out = []
    if len(lpf):
        t = ctx.mr.loc[lpf["feature"].astype(str)]
        for m in ("mr_ratio", "mr_difference"):
            out.append(
                _rows(
                    lpf,
                    ctx.dataset,
                    f"learner_{m}",
                    lpf[f"{m}_mean"],
                    t[m],
                    t[f"{m}_se"],
                    t["method"].to_numpy(),
                    estimator=lpf["estimator"].astype(str).to_numpy(),
                    loss=lpf["loss"].to_numpy(),
                    ci_low=lpf[f"{m}_ci_low"].to_numpy(dtype=np.float64),
                    ci_high=lpf[f"{m}_ci_high"].to_numpy(dtype=np.float64),
                )
            )
    return out


def truth_table(
    dgp: str | DGP = DEFAULT_DGP,
    *,
    dataset: str = "simulated",
    data: pd.DataFrame | None = None,
    noise_sd: float = 1.0,
    reliance: pd.DataFrame | None = None,
    curves: pd.DataFrame | None = None,
    learner_pd: pd.DataFrame | None = None,
    learner_pfi: pd.DataFrame | None = None,
    method: str = "auto",
    n_mc: int = 100_000,
    random_state: int = 0,
) -> pd.DataFrame:
    """The pipeline's estimates for a simulated data set beside the truth of its DGP.

    Parameters
    ----------
    dgp : str or DGP, default "friedman1"
        The DGP the data set was drawn from (its sidecar's ``dgp``).
    dataset : str, default "simulated"
        Dataset identifier; rows of other datasets in the tables are ignored.
    data : DataFrame, optional
        The simulated table (columns ``x1 .. xp`` [, ``y``]) or its prepared
        table (also ``row_id``), whose row *positions* the ``row`` column of
        ``curves`` refers to (``split.json`` positions; preparation keeps every
        simulated row in order). Needed for ``ice`` / ``d_ice`` rows; gives ``p``.
    noise_sd : float > 0, default 1.0
        :math:`\\sigma` the data were drawn with (the truth of ``e_orig``).
    reliance : DataFrame, optional
        ``model_reliance.csv`` rows: ``feature``, ``estimator``, ``loss``,
        ``e_orig``, ``mr_ratio``, ``mr_difference`` (+ ``dataset``,
        ``model``/``family``). Only ``loss == "squared_error"`` is compared.
    curves : DataFrame, optional
        ``pd_ice.csv`` rows: ``feature``, ``grid_value``, ``kind``, ``row``,
        ``value``. Kinds ``pd``, ``d_pd``, ``ice`` and ``d_ice`` are compared
        (``c_ice``, ``pd_centered``, ``d_ice_sd`` and ``decile`` are not).
    learner_pd : DataFrame, optional
        ``learner_pd.csv``: ``feature``, ``grid_value``, ``mean``, ``ci_low``, ``ci_high``.
    learner_pfi : DataFrame, optional
        ``learner_pfi.csv``: ``feature``, ``estimator``, ``loss``,
        ``mr_ratio_mean``, ``mr_ratio_ci_low``, ``mr_ratio_ci_high`` and the
        same for ``mr_difference``.
    method, n_mc, random_state
        How the truth is computed (:func:`partial_dependence_truth`,
        :func:`model_reliance_truth`).

    Returns
    -------
    DataFrame
        :data:`TRUTH_COLUMNS`: ``dataset``, ``family``, ``quantity`` (a key of
        :data:`QUANTITIES`), ``estimator`` and ``loss`` (MR rows), ``feature``
        (``""`` for ``e_orig``), ``grid_value`` (PD / ICE rows, NaN otherwise),
        ``row`` (ICE rows, -1 otherwise), ``estimate``, ``truth``, ``truth_se``
        (Monte-Carlo error of the truth), ``error = estimate - truth``,
        ``ci_low`` / ``ci_high`` (the estimate's interval where the table has
        one, NaN otherwise), ``method`` (how the truth was computed), ``source``
        (pipeline table). Rows in the order reliance, curves, learner-PD,
        learner-PFI, each in its table's order.

    Raises
    ------
    ValueError
        No table given, a table without its columns, a feature that is not an
        input of the DGP, ICE rows without ``data`` or with rows out of range.
    """
    model = get_dgp(dgp)
    method = _check_method(method)
    tables = {"reliance": reliance, "curves": curves, "learner_pd": learner_pd, "learner_pfi": learner_pfi}
    if all(t is None for t in tables.values()):
        raise ValueError("truth_table needs at least one of reliance, curves, learner_pd, learner_pfi")
    X = _data_matrix(data)
    p = _truth_p(model, X, tables, dataset)
    mr = None
    if reliance is not None or learner_pfi is not None:
        mr = model_reliance_truth(
            model, p=p, noise_sd=noise_sd, method=method, n_mc=n_mc, random_state=random_state
        ).set_index("feature")
    ctx = _TruthContext(model, p, method, n_mc, random_state, dataset, noise_sd, X, mr)
    out = []
    if reliance is not None:
        out += _reliance_rows(ctx, reliance)
    if curves is not None:
        out += _curve_rows(ctx, curves)
    if learner_pd is not None:
        out += _learner_pd_rows(ctx, learner_pd)
    if learner_pfi is not None:
        out += _learner_pfi_rows(ctx, learner_pfi)
    if not out:
        return pd.DataFrame(
            {
                c: pd.Series(
                    dtype=object
                    if c in ("dataset", "family", "quantity", "estimator", "loss", "feature", "method", "source")
                    else (np.int64 if c == "row" else float)
                )
                for c in TRUTH_COLUMNS
            }
        )
    return pd.concat(out, ignore_index=True)

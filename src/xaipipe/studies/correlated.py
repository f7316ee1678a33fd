"""A correlated variant of a simulated data set: marginal and conditional model reliance beside their
truth (issue 35; rows of ``tables/simulation_truth.csv``).

Why
---
The simulated DGPs of :mod:`xaipipe.data.simulated` have independent inputs, where marginal and
conditional MR coincide. Under dependence they answer different questions: marginal MR (the
``permutation`` estimator, Fisher, Rudin & Dominici 2019) replaces :math:`X_j` by an independent draw
of its *marginal*, so with :math:`x_2 \\approx x_1` the model is evaluated at rows that do not occur;
conditional MR replaces it by a draw of :math:`X_j \\mid X_{-j}`, "how much does :math:`x_j` add
beyond the other variables" (Fisher et al. 2019 §8.1; Strobl et al. 2008; cs-PFI of Molnar, König,
Bischl & Casalicchio 2023, the ``conditional_permutation`` estimator).

The variant
-----------
Draw :math:`n` rows of the DGP's inputs (independent :math:`\\mathcal U(-1, 1)`), then replace
:math:`x_2` by :math:`x_1 + \\tau Z`, :math:`Z \\sim \\mathcal N(0, 1)` (``coupling_sd`` :math:`= \\tau`;
:math:`\\tau = 0.1` gives :math:`r(x_1, x_2) \\approx 0.985`); :math:`Y = f^*(X) + \\sigma \\varepsilon`
with the DGP's :math:`f^*` and the simulated data set's :math:`\\sigma`. The rows are split as the
pipeline splits (:func:`xaipipe.data.split.make_split`), each listed family's *best configuration on
the simulated data set* (its ``best/<family>.json``) is refitted on the training split
(:func:`xaipipe.models.fitting.fit_best`), and the pipeline's estimators run on the test split with
the pipeline's settings: ``permutation`` (marginal), ``conditional_permutation`` (strata learned on
the training split) and ``grouped_permutation`` (clusters of :math:`|r| \\ge` threshold on the
training split).

The truth (of the fitted model, from the DGP, not estimated from data)
----------------------------------------------------------------------
MR is a property of a fixed model :math:`\\hat f` and a population (Fisher et al. 2019 §3). For the
refitted :math:`\\hat f` and squared loss, with :math:`\\tilde X^{(j)}` equal to :math:`X` but for
:math:`X_j` replaced by an independent draw -- from the marginal of :math:`X_j` (marginal MR) or
from :math:`X_j \\mid X_{-j}` (conditional MR) -- the noise cancels:

.. math:: D_j = E[(f^*(X) - \\hat f(\\tilde X^{(j)}))^2] - E[(f^*(X) - \\hat f(X))^2],
          \\qquad e_{orig} = \\sigma^2 + E[(f^*(X) - \\hat f(X))^2].

Both expectations are Monte-Carlo means over ``n_mc`` fresh rows of the *known* distribution (the
paired difference, its SE ``sd / sqrt(n_mc)`` in ``truth_se``), with the exact conditional
samplers of the variant: :math:`x_2 \\mid x_{-2} \\sim \\mathcal N(x_1, \\tau^2)`;
:math:`x_1 \\mid x_{-1}` has density :math:`\\propto \\mathbf 1[-1, 1](x_1)\\,
\\varphi((x_2 - x_1)/\\tau)`, a normal :math:`\\mathcal N(x_2, \\tau^2)` truncated to
:math:`[-1, 1]` (``scipy.stats.truncnorm``); every other input is independent of the rest, so its
conditional is its marginal. A cluster of variables (grouped MR) is replaced jointly by the
cluster's columns of an independent row (their joint marginal).

Rows (:data:`xaipipe.studies.simulation.TRUTH_COLUMNS`; ``dataset`` = ``<dataset>_correlated``,
``source`` = ``correlated_variant``, ``method`` = ``monte_carlo``): per family ``e_orig``; per
variable ``mr_difference`` of ``permutation`` (marginal truth), ``conditional_mr_difference`` of
``conditional_permutation`` (conditional truth) and of ``permutation`` (the marginal estimate beside
the conditional truth: the answer a user of marginal MR under dependence reads off), and per
cluster of two or more variables ``mr_difference`` of ``grouped_permutation`` (joint marginal truth).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from types import SimpleNamespace
from typing import Any

import numpy as np
import pandas as pd

from ..config.models import CVSettings
from ..config.studies import CorrelatedSettings
from ..data.simulated import feature_names, get_dgp
from .simulation import TRUTH_COLUMNS

__all__ = ["correlated_sample", "correlated_truth_table"]


def correlated_sample(dgp, rng: np.random.Generator, n: int, p: int, coupling_sd: float) -> np.ndarray:
    """``n`` rows of the variant's inputs: the DGP's independent inputs with
    :math:`x_2 = x_1 + \\tau Z`.

    Raises
    ------
    ValueError
        ``p < 2`` or ``coupling_sd <= 0``.
    """
    model = get_dgp(dgp)
    if p < 2:
        raise ValueError("the correlated variant needs p >= 2 (x2 = x1 + noise)")
    if not np.isfinite(coupling_sd) or coupling_sd <= 0:
        raise ValueError(f"coupling_sd must be > 0, got {coupling_sd!r}")
    X = model.sample_X(rng, n, p)
    X[:, 1] = X[:, 0] + coupling_sd * rng.standard_normal(n)
    return X


def _replace(model, X: np.ndarray, cols: Sequence[int], kind: str, rng, coupling_sd: float) -> np.ndarray:
    """``X`` with columns ``cols`` redrawn from their marginal (jointly) or, for one column, from its
    conditional given the rest."""
    from scipy.stats import truncnorm

    Z = X.copy()
    n, p = X.shape
    if kind == "marginal":
        fresh = correlated_sample(model, rng, n, p, coupling_sd)
        Z[:, list(cols)] = fresh[:, list(cols)]
        return Z
    (j,) = cols
    if j == 1:
        Z[:, 1] = X[:, 0] + coupling_sd * rng.standard_normal(n)
    elif j == 0:
        lo, hi = (model.low - X[:, 1]) / coupling_sd, (model.high - X[:, 1]) / coupling_sd
        Z[:, 0] = truncnorm.rvs(lo, hi, loc=X[:, 1], scale=coupling_sd, random_state=rng)
    else:
        Z[:, j] = rng.uniform(model.low, model.high, size=n)
    return Z


def _truth(model, fhat, X: np.ndarray, f_star: np.ndarray, resid2: np.ndarray, cols, kind, rng, coupling_sd):
    d = (f_star - fhat(_replace(model, X, cols, kind, rng, coupling_sd))) ** 2 - resid2
    return float(d.mean()), float(d.std(ddof=1) / np.sqrt(d.size))


def correlated_truth_table(
    simulation: Mapping[str, Any], settings: CorrelatedSettings, *, dataset: str, best_params: Mapping[str, Mapping]
) -> pd.DataFrame:
    """Marginal, conditional and grouped MR of refitted models on the correlated variant, beside the truth.

    Parameters
    ----------
    simulation : mapping
        The simulated data set's sidecar ``simulation`` record: ``dgp`` (name or DGP), ``p``
        (inputs), ``noise_sd`` (:math:`\\sigma`).
    settings : CorrelatedSettings
        :meth:`xaipipe.config.CorrelatedSettings.from_config`: ``n`` (rows) and ``coupling_sd``
        (:math:`\\tau`) of the variant, ``n_mc`` (Monte-Carlo rows of each truth), the pipeline's
        split (``split``: ``test_size``, ``cv_folds``), the estimators' settings (``n_repeats``,
        ``dependent``: ``max_depth``, ``min_samples_leaf``, ``correlation_threshold``,
        ``linkage``), ``options`` (``estimator_options``) and ``seed`` (the draw, the split, the
        fits, the permutations and the Monte Carlo).
    dataset : str
        The simulated data set; the rows are labelled ``<dataset>_correlated``.
    best_params : mapping family -> params
        The families to refit and their configurations (``best/<family>.json``'s ``params``).

    Returns
    -------
    DataFrame
        :data:`~xaipipe.studies.simulation.TRUTH_COLUMNS` (module docstring).

    Raises
    ------
    ValueError
        Invalid sizes or settings (as the functions called).
    """
    from ..data.split import make_split
    from ..explain.reliance import (
        RelianceOptions,
        conditional_model_reliance,
        correlation_groups,
        grouped_model_reliance,
        model_reliance,
    )
    from ..models.fitting import fit_best

    dgp, p, noise_sd = simulation["dgp"], simulation["p"], simulation["noise_sd"]
    n, coupling_sd, n_mc, n_repeats = settings.n, settings.coupling_sd, settings.n_mc, settings.n_repeats
    test_size, n_folds = settings.split["test_size"], settings.split["cv_folds"]
    dep, options, random_state = settings.dependent, settings.options, settings.seed
    max_depth, min_samples_leaf = dep["max_depth"], dep["min_samples_leaf"]
    correlation_threshold, linkage = dep["correlation_threshold"], dep["linkage"]
    model = get_dgp(dgp)
    p = model.check_p(p)
    names = feature_names(p)
    x_seq, e_seq, mc_seq = np.random.SeedSequence(int(random_state)).spawn(3)
    X = correlated_sample(model, np.random.default_rng(x_seq), int(n), p, float(coupling_sd))
    y = model.f(X) + float(noise_sd) * np.random.default_rng(e_seq).standard_normal(int(n))
    split = make_split(y, "regression", test_size=test_size, n_folds=n_folds, random_state=int(random_state))
    tr, te = np.asarray(split["train"]), np.asarray(split["test"])
    clusters = correlation_groups(X[tr], correlation_threshold, feature_names=names, linkage=linkage)
    multi = {k: v for k, v in clusters.items() if len(v) > 1}
    mc_rng = np.random.default_rng(mc_seq)
    X_mc = correlated_sample(model, mc_rng, int(n_mc), p, float(coupling_sd))
    f_star = model.f(X_mc)
    label = f"{dataset}_correlated"
    common = {"n_repeats": n_repeats, "random_state": int(random_state), "loss": "squared_error"}
    rows = []

    def add(family, quantity, estimator, feature, estimate, truth, se):
        rows.append(
            {
                "dataset": label,
                "family": family,
                "quantity": quantity,
                "estimator": estimator,
                "loss": "squared_error",
                "feature": feature,
                "grid_value": np.nan,
                "row": -1,
                "estimate": float(estimate),
                "truth": truth,
                "truth_se": se,
                "error": float(estimate) - truth,
                "ci_low": np.nan,
                "ci_high": np.nan,
                "method": "monte_carlo",
                "source": "correlated_variant",
            }
        )

    split_data = SimpleNamespace(X_train=X[tr], y_train=y[tr], X_test=X[te], y_test=y[te], test_rows=te, dataset="")
    for family, params in best_params.items():
        fit_settings = CVSettings(  # the fit rule's settings of the family (grid, search, selection: unused)
            task="regression",
            family=family,
            grid=None,
            sample=None,
            options=(options or {}).get(family) or {},
            selection="rmse",
            seed=int(random_state),
        )
        fitted = fit_best(split_data, fit_settings, dict(params)).model

        def fhat(A, _m=fitted):
            return np.asarray(_m.predict(A), dtype=np.float64)

        resid2 = (f_star - fhat(X_mc)) ** 2
        marg = model_reliance(
            fitted, X[te], y[te], options=RelianceOptions(feature_names=names), estimator="permutation", **common
        ).to_frame()
        cond = conditional_model_reliance(
            fitted,
            X[te],
            y[te],
            X[tr],
            options=RelianceOptions(feature_names=names),
            max_depth=max_depth,
            min_samples_leaf=min_samples_leaf,
            **common,
        ).to_frame()
        e_orig = float(marg["e_orig"].iloc[0])
        add(
            family,
            "e_orig",
            "permutation",
            "",
            e_orig,
            float(noise_sd) ** 2 + float(resid2.mean()),
            float(resid2.std(ddof=1) / np.sqrt(resid2.size)),
        )
        m_est = marg.set_index("feature")["mr_difference"]
        c_est = cond.set_index("feature")["mr_difference"]
        for j, name in enumerate(names):
            t_m, s_m = _truth(model, fhat, X_mc, f_star, resid2, [j], "marginal", mc_rng, coupling_sd)
            t_c, s_c = _truth(model, fhat, X_mc, f_star, resid2, [j], "conditional", mc_rng, coupling_sd)
            add(family, "mr_difference", "permutation", name, m_est[name], t_m, s_m)
            add(family, "conditional_mr_difference", "conditional_permutation", name, c_est[name], t_c, s_c)
            add(family, "conditional_mr_difference", "permutation", name, m_est[name], t_c, s_c)
        if multi:
            grouped = grouped_model_reliance(
                fitted,
                X[te],
                y[te],
                X[tr],
                threshold=correlation_threshold,
                linkage=linkage,
                feature_names=names,
                **common,
            ).to_frame()
            g_est = grouped.set_index("feature")["mr_difference"]
            for cname, cols in multi.items():
                t_g, s_g = _truth(model, fhat, X_mc, f_star, resid2, cols, "marginal", mc_rng, coupling_sd)
                add(family, "mr_difference", "grouped_permutation", cname, g_est[cname], t_g, s_g)
    if not rows:
        return pd.DataFrame(columns=TRUTH_COLUMNS)
    return pd.DataFrame(rows)[TRUTH_COLUMNS]

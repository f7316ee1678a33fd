"""KernelSHAP against exact TreeSHAP on the same game, and config selection of KernelSHAP.

Seed 000 (§3.3.4, Teorema 3.14) presents KernelSHAP: the SHAP values are the
coefficients of a weighted linear regression of the model output on coalition
indicators ``z' in {0, 1}^M`` with the Shapley kernel
``pi(z') = (M - 1) / (C(M, |z'|) |z'| (M - |z'|))`` (Lundberg & Lee 2017, NeurIPS,
Theorem 2), estimated from a sample of coalitions.  :func:`kernel_vs_tree_shap`
measures how close that estimate is, as the number of sampled coalitions
(``nsamples``) grows, to the exact values of the same game computed by TreeSHAP.

The same quantity
    KernelSHAP (``shap.KernelExplainer(f, background)``) explains the
    interventional game ``v(S) = mean_b f(x_S, b_notS)`` over the background rows
    ``b``.  ``shap.TreeExplainer(model, data=background,
    feature_perturbation="interventional")`` computes the exact Shapley values of
    *that* game for a tree ensemble (Lundberg et al. 2020, Nat. Mach. Intell.
    2:56-67, "Interventional Tree SHAP").  Only with the same background and the
    interventional mode do the two estimate the same numbers; the pipeline's
    default TreeSHAP (``tree_path_dependent``, no background) explains a
    different game (expectations under the training cover of the trees) and
    would differ from KernelSHAP at any sample size.

Output space: log-odds
    Classifiers are explained in the log-odds of class 1 (the raw margin:
    ``decision_function`` of gradient boosting, ``output_margin`` of XGBoost), the
    space in which the pipeline reports their SHAP values (``ShapResult.output ==
    "log_odds"``) and in which the model is a sum of trees, the output that
    TreeSHAP is exact for.  Regressors are explained in their prediction.
    Random forests / single trees, whose pipeline SHAP values are probabilities,
    are explained in the class-1 probability (TreeSHAP's raw output for them).

KernelSHAP settings: ``l1_reg=False`` (the plain Shapley-kernel regression of
Theorem 2; shap's default ``"auto"`` adds an AIC feature selection below 20 % of
the coalition space), ``link="identity"`` on the output above.  With
``nsamples >= 2^M - 2`` shap enumerates every coalition and the estimate is the
exact Shapley value (up to the linear solve).  shap samples coalitions with
NumPy's *global* random state; it is seeded per ``nsamples`` value and restored
afterwards.

Config hook
    :func:`shapley.shap_values <xaipipe.explain.shapley.shap_values>` already
    implements ``algorithm="kernel"`` (with ``n_coalitions``), but the rule
    ``shap`` always passes ``"auto"`` (``auto_algorithm``: XGBoost ->
    ``xgboost_pred_contribs``, scikit-learn trees -> ``tree_explainer``,
    linear -> ``linear_explainer``, anything else -> ``permutation``).
    :func:`xaipipe.config.shap.shap_algorithm` maps a config entry ``explain.shap.algorithm``
    (``{family: algorithm}``, default empty = ``"auto"``) to the ``algorithm``
    argument; see docs/shap_lime.md for the schema lines and the one-line change
    of workflow/scripts/shap.py.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
import pandas as pd

from ...models.forest_store import LazyTrees, iter_forest_blocks
from ...validation import check_matrix
from ..reliance import features_from_groups
from ._algorithms import _boosting_class_model, _global_numpy_seed

__all__ = ["ShapCheck", "kernel_vs_tree_shap"]


@dataclass(frozen=True)
class ShapCheck:
    """KernelSHAP against interventional TreeSHAP (:func:`kernel_vs_tree_shap`).

    Attributes
    ----------
    summary : DataFrame
        One row per ``n_samples``: ``n_samples`` (requested), ``n_coalitions``
        (used: ``min(n_samples, 2^M - 2)``), ``exhaustive`` (every coalition
        enumerated), ``max_abs_difference`` and ``mean_abs_difference`` over rows x
        features, ``rmse``, ``max_relative_difference`` (max |diff| / max |TreeSHAP
        value|), ``kernel_local_accuracy_gap`` and ``tree_local_accuracy_gap``
        (max over rows of ``|base + sum(phi) - f(x)|``), ``output``.
    by_row : DataFrame
        Per ``n_samples`` x row: ``row``, ``max_abs_difference``,
        ``mean_abs_difference``, both local-accuracy gaps, ``model_output``.
    by_feature : DataFrame
        Per ``n_samples`` x feature (x variable, one-hot groups summed, when
        ``feature_groups`` are given): ``feature``, ``max_abs_difference``,
        ``mean_abs_difference``, ``mean_abs_tree_shap``.
    values : DataFrame
        Long table: ``n_samples``, ``row``, ``feature``, ``kernel_shap``,
        ``tree_shap``, ``difference`` (kernel - tree).
    base_value : float
        The common base value ``mean_b f(b)`` (TreeSHAP's expected value).
    details : dict
        Background size and positions, seed, model, output space.
    """

    summary: pd.DataFrame
    by_row: pd.DataFrame
    by_feature: pd.DataFrame
    values: pd.DataFrame
    base_value: float
    details: dict


def _final(model):
    from sklearn.pipeline import Pipeline

    if isinstance(model, Pipeline):
        raise ValueError("kernel_vs_tree_shap needs the tree model itself, not a Pipeline")
    return model


def _class_output_function(model, k: int) -> tuple[Any, str, Any]:
    """Class ``k`` of a multiclass tree model: ``f(Z)``, its space and the model TreeSHAP reads
    (XGBoost and gradient boosting: the class's margin; trees and forests: its probability)."""
    from sklearn.ensemble import GradientBoostingClassifier, RandomForestClassifier
    from sklearn.tree import DecisionTreeClassifier

    try:
        import xgboost as xgb
    except ImportError:  # pragma: no cover - hard dependency
        xgb = None
    classes = getattr(model, "classes_", None)
    if classes is None or len(classes) <= 2 or not 0 <= k < len(classes):
        raise ValueError(f"class_index={k} needs a multiclass classifier, got classes_={classes!r}")
    if xgb is not None and isinstance(model, xgb.XGBClassifier):
        return (lambda Z: np.asarray(model.predict(Z, output_margin=True), dtype=np.float64)[:, k]), "margin", model
    if isinstance(model, GradientBoostingClassifier):
        f = lambda Z: np.asarray(model.decision_function(Z), dtype=np.float64)[:, k]  # noqa: E731
        return f, "margin", _boosting_class_model(model, k)
    if isinstance(model, (RandomForestClassifier, DecisionTreeClassifier)):
        return (lambda Z: np.asarray(model.predict_proba(Z)[:, k], dtype=np.float64)), "probability", model
    raise ValueError(
        f"kernel_vs_tree_shap supports scikit-learn trees, forests, gradient boosting and XGBoost; "
        f"got the classifier {type(model).__name__}"
    )


def _output_function(model) -> tuple[Any, str]:
    """``f(Z)`` in the space TreeSHAP's raw output explains, and its name."""
    from sklearn.base import is_classifier
    from sklearn.ensemble import (
        GradientBoostingClassifier,
        GradientBoostingRegressor,
        RandomForestClassifier,
        RandomForestRegressor,
    )
    from sklearn.tree import DecisionTreeClassifier, DecisionTreeRegressor

    try:
        import xgboost as xgb
    except ImportError:  # pragma: no cover - hard dependency
        xgb = None
    if xgb is not None and isinstance(model, xgb.XGBClassifier):
        return (lambda Z: np.asarray(model.predict(Z, output_margin=True), dtype=np.float64).reshape(-1)), "log_odds"
    if isinstance(model, GradientBoostingClassifier):
        return (lambda Z: np.asarray(model.decision_function(Z), dtype=np.float64).reshape(-1)), "log_odds"
    if isinstance(model, (RandomForestClassifier, DecisionTreeClassifier)):
        return (lambda Z: np.asarray(model.predict_proba(Z)[:, 1], dtype=np.float64)), "probability"
    regressors = (GradientBoostingRegressor, RandomForestRegressor, DecisionTreeRegressor)
    if isinstance(model, regressors) or (xgb is not None and isinstance(model, xgb.XGBRegressor)):
        return (lambda Z: np.asarray(model.predict(Z), dtype=np.float64).reshape(-1)), "prediction"
    kind = "classifier" if is_classifier(model) else "model"
    raise ValueError(
        f"kernel_vs_tree_shap supports scikit-learn trees, forests, gradient boosting and XGBoost; "
        f"got the {kind} {type(model).__name__}"
    )


def _interventional_tree_shap(
    model, background: np.ndarray, Xe: np.ndarray
) -> tuple[np.ndarray, np.ndarray, int | None]:
    """shap's interventional TreeSHAP of ``model`` on the rows ``Xe``: raw SHAP values, expected
    value(s) and the number of blocks of trees (None: the whole model at once).

    A random forest opened lazily from a forest store (:func:`xaipipe.io.open_model`, the ``fit``
    rule's ``model.joblib`` above ``large_data.forest_block_rows``) is explained one stored block
    of trees at a time: a forest's output is the mean of its trees', and interventional TreeSHAP
    (Lundberg et al. 2020) is linear in the model, so the forest's values are the block values
    weighted by ``trees in block / n_trees``, as the ``shap`` rule combines its sub-forests
    (:func:`xaipipe.explain.shapley._algorithms._forest_tree_shap`). shap's explainer copies
    every tree it explains into padded arrays, so the whole forest would be held twice; per block,
    one block is. The values are not bitwise the whole forest's: shap sums in another order (per
    row and background row, every tree) and its interventional values carry float32-level error
    (against a brute-force Shapley sum: ~5e-9 for an 11-tree forest, ~2e-7 relative for its
    3-tree blocks), so they agree to ~1e-7 relative (``tests/explain/shapley/test_check.py``: within
    2e-6 of the largest value), far below the KernelSHAP differences the check reports.
    """
    import copy

    import shap

    def explain(m):
        tree = shap.TreeExplainer(m, data=background, feature_perturbation="interventional", model_output="raw")
        values = np.asarray(tree.shap_values(Xe, check_additivity=False), dtype=np.float64)
        return values, np.asarray(tree.expected_value, dtype=np.float64)

    trees = getattr(model, "estimators_", None)
    if not isinstance(trees, LazyTrees):
        return (*explain(model), None)
    n_trees = len(trees)
    values = expected = None
    n_blocks = 0
    for _, block in iter_forest_blocks(trees.path):
        sub = copy.copy(model)  # the forest's shell holding this block's trees only
        sub.estimators_, sub.n_estimators = list(block), len(block)
        v, e = explain(sub)
        w = len(block) / n_trees
        values, expected = (w * v, w * e) if values is None else (values + w * v, expected + w * e)
        n_blocks += 1
        del sub, block
    return values, expected, n_blocks


def kernel_vs_tree_shap(
    model,
    X: Any,
    X_background: Any,
    *,
    n_samples: Sequence[int] = (64, 256, 1024, 4096),
    background_size: int = 50,
    feature_names: Sequence[str] | None = None,
    feature_groups: Mapping[str, Sequence[str]] | None = None,
    random_state: int = 0,
    class_index: int | None = None,
) -> ShapCheck:
    """KernelSHAP values for a grid of ``nsamples`` against exact interventional TreeSHAP.

    Parameters
    ----------
    model : fitted tree model
        scikit-learn decision tree, random forest or gradient boosting, or XGBoost
        (classifiers binary), not wrapped in a Pipeline.
    X : array-like of shape (n, p)
        Rows to explain.
    X_background : array-like of shape (m, p)
        Rows the background is drawn from (the training rows).
    n_samples : sequence of int, default=(64, 256, 1024, 4096)
        ``nsamples`` of ``KernelExplainer.shap_values`` (coalitions per row).
    background_size : int, default=50
        Background rows drawn without replacement (seeded); the *same* rows for
        both explainers.
    feature_names : sequence of str, optional
    feature_groups : mapping of str -> sequence of str, optional
        One-hot groups (``prepared.json``): ``by_feature`` is then per variable, a
        group's KernelSHAP and TreeSHAP values being the sums of its columns'
        (the values the SHAP tables report; :func:`xaipipe.explain.shapley.group_shap_result`).
        The game's players stay the columns, so ``summary``, ``by_row`` and
        ``values`` (the estimator's accuracy per player) are per column.
    random_state : int, default=0
        Seeds the background draw and KernelSHAP's coalition sampling.
    class_index : int, optional
        Multiclass classifiers: the class ``k`` compared, in the space of its SHAP
        values (XGBoost and gradient boosting: the class's margin; trees and forests:
        its probability); recorded in ``details["class_index"]``.

    Returns
    -------
    ShapCheck

    Raises
    ------
    ValueError
        Unsupported model, malformed arrays, bad ``n_samples`` / ``background_size``.
    RuntimeError
        If TreeSHAP's values do not add up to the model output (local accuracy
        gap above 1e-5 relative to ``max(1, |phi_0| + sum |phi| + |f(x)|)``).
    """
    import shap

    model = _final(model)
    if class_index is None:
        f, output = _output_function(model)
        explained = model
    else:
        f, output, explained = _class_output_function(model, int(class_index))
    Xe = check_matrix(X, "X")
    p = Xe.shape[1]
    B_all = check_matrix(X_background, "X_background", n_features=p)
    names = [f"x{j}" for j in range(p)] if feature_names is None else [str(c) for c in feature_names]
    if len(names) != p:
        raise ValueError(f"feature_names has {len(names)} names but X has {p} columns")
    grid = [int(n) for n in n_samples]
    if not grid or any(n < 2 for n in grid) or len(set(grid)) != len(grid):
        raise ValueError(f"n_samples must be distinct integers >= 2, got {list(n_samples)!r}")
    if isinstance(background_size, bool) or not isinstance(background_size, (int, np.integer)) or background_size < 1:
        raise ValueError(f"background_size must be a positive integer, got {background_size!r}")

    variables = features_from_groups(names, feature_groups)  # every column its own variable without groups

    def by_variable(v: np.ndarray) -> np.ndarray:
        if not feature_groups:
            return v
        return np.column_stack([v[:, cols].sum(axis=1) for cols in variables.values()])

    rng = np.random.default_rng([5, int(random_state)])
    idx = (
        np.arange(B_all.shape[0])
        if background_size >= B_all.shape[0]
        else np.sort(rng.choice(B_all.shape[0], size=background_size, replace=False))
    )
    background = B_all[idx]

    fx = f(Xe)
    tree_values, tree_expected, n_blocks = _interventional_tree_shap(explained, background, Xe)
    if class_index is not None:  # per-class output of a multiclass model: class k
        if tree_values.ndim == 3:
            tree_values = tree_values[..., class_index]
        # the interventional base value is by definition the background mean of the output; shap 0.51
        # reports class 0's base score for every class of a multiclass XGBoost 3 model (a vector
        # base_score), so it is computed here
        tree_base = float(np.mean(f(background)))
    else:
        if tree_values.ndim == 3:  # per-class output (forest / tree classifiers): class 1
            tree_values = tree_values[..., 1]
        tree_base = float(tree_expected.reshape(-1)[-1])
    tree_gap = np.abs(tree_base + tree_values.sum(axis=1) - fx)
    # relative to the magnitude of the terms, as shapley.shap_values checks it (XGBoost adds in float32);
    # a wrong output space gives gaps of the order of the output itself
    terms = np.abs(tree_base) + np.abs(tree_values).sum(axis=1) + np.abs(fx)
    if np.any(tree_gap > 1e-5 * np.maximum(1.0, terms)):
        raise RuntimeError(
            f"interventional TreeSHAP does not add up to the model output of "
            f"{type(model).__name__} (max gap {tree_gap.max():.3g}): output space mismatch"
        )

    kernel = shap.KernelExplainer(f, background, link="identity")
    kernel_base = float(np.asarray(kernel.expected_value).reshape(-1)[0])
    max_coalitions = 2**p - 2 if p <= 30 else np.inf
    rows, summary, by_row, by_feature = [], [], [], []
    scale = max(float(np.abs(tree_values).max()), np.finfo(float).tiny)
    for n in grid:
        with _global_numpy_seed(int(np.random.SeedSequence([6, int(random_state), n]).generate_state(1)[0])):
            kv = np.asarray(kernel.shap_values(Xe, nsamples=n, l1_reg=False, silent=True), dtype=np.float64)
        kv = kv.reshape(Xe.shape)
        diff = kv - tree_values
        kernel_gap = np.abs(kernel_base + kv.sum(axis=1) - fx)
        summary.append(
            {
                "n_samples": n,
                "n_coalitions": int(min(n, max_coalitions)),
                "exhaustive": bool(n >= max_coalitions),
                "max_abs_difference": float(np.abs(diff).max()),
                "mean_abs_difference": float(np.abs(diff).mean()),
                "rmse": float(np.sqrt(np.mean(diff**2))),
                "max_relative_difference": float(np.abs(diff).max() / scale),
                "kernel_local_accuracy_gap": float(kernel_gap.max()),
                "tree_local_accuracy_gap": float(tree_gap.max()),
                "output": output,
            }
        )
        by_row.append(
            pd.DataFrame(
                {
                    "n_samples": n,
                    "row": np.arange(Xe.shape[0]),
                    "max_abs_difference": np.abs(diff).max(axis=1),
                    "mean_abs_difference": np.abs(diff).mean(axis=1),
                    "kernel_local_accuracy_gap": kernel_gap,
                    "tree_local_accuracy_gap": tree_gap,
                    "model_output": fx,
                }
            )
        )
        diff_v, tree_v = by_variable(kv) - by_variable(tree_values), by_variable(tree_values)
        by_feature.append(
            pd.DataFrame(
                {
                    "n_samples": n,
                    "feature": list(variables) if feature_groups else names,
                    "max_abs_difference": np.abs(diff_v).max(axis=0),
                    "mean_abs_difference": np.abs(diff_v).mean(axis=0),
                    "mean_abs_tree_shap": np.abs(tree_v).mean(axis=0),
                }
            )
        )
        rows.append(
            pd.DataFrame(
                {
                    "n_samples": n,
                    "row": np.repeat(np.arange(Xe.shape[0]), p),
                    "feature": np.tile(names, Xe.shape[0]),
                    "kernel_shap": kv.reshape(-1),
                    "tree_shap": tree_values.reshape(-1),
                    "difference": diff.reshape(-1),
                }
            )
        )
    return ShapCheck(
        summary=pd.DataFrame(summary),
        by_row=pd.concat(by_row, ignore_index=True),
        by_feature=pd.concat(by_feature, ignore_index=True),
        values=pd.concat(rows, ignore_index=True),
        base_value=tree_base,
        details={
            "model": type(model).__name__,
            "output": output,
            "background_size": int(background.shape[0]),
            "background_index": [int(i) for i in idx],
            "random_state": int(random_state),
            "kernel_base_value": kernel_base,
            "feature_perturbation": "interventional",
            "l1_reg": False,
            **({} if n_blocks is None else {"tree_shap_blocks": int(n_blocks)}),
            **({} if class_index is None else {"class_index": int(class_index)}),
        },
    )

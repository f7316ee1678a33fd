"""The exact Rashomon set of sparse decision trees (TreeFARMS) of a binary classification dataset,
its members' model reliance and MCR, beside the grid's ``decision_tree`` family.

The grid scopes are the configurations someone chose to try. TreeFARMS (Xin, Zhong, Chen, Takagi,
Seltzer & Rudin 2022, "Exploring the whole Rashomon set of sparse decision trees", NeurIPS 35; the
``treefarms`` package) enumerates *every* tree on binary features whose objective

.. math:: \\text{obj}(t) = \\frac{1}{n} \\sum_i 1[t(x_i) \\ne y_i] + \\lambda \\cdot \\text{leaves}(t)

on the training split is within a bound of the optimum (depth at most ``depth_budget - 1``; trees
that split a node into two leaves of the same label, "trivial extensions", are not counted).

Mapping to the study (departures, stated in the tables)
------------------------------------------------------
* *Features*: each variable is binarised at thresholds of its training values (the
  ``n_thresholds`` inner quantiles; one threshold for a variable of two values), columns
  ``x ≤ t``; a tree is a function of the original variables, and MR permutes an original variable
  (every one of its binary columns with it).
* *Loss and ε*: TreeFARMS' objective is the training misclassification plus ``λ`` per leaf, not the
  CV log loss of the grid's sets; the study's rule "within ε standard errors of the reference" is
  carried to it as the bound ``obj* + ε · SE``, with ``SE = √(p̂(1 - p̂)/n)`` the standard error of
  the optimal tree's training error rate ``p̂`` (the one-SE rule at ε = 1 on TreeFARMS' own loss).
* *MR*: ``permutation`` MR with the zero-one loss on the test split (the trees predict labels: a log
  loss of 0/1 probabilities is infinite), compared with the members of the grid's ``decision_tree``
  set at the same ε, refitted and measured with the same estimator, loss and permutations.

Tested against TreeFARMS' own predictions and counts, and the count against a brute-force
enumeration of every tree on a tiny table (``tests/rashomon/test_treefarms.py``).
"""

from __future__ import annotations

import contextlib
import math
import os
from collections.abc import Sequence
from typing import NamedTuple

import numpy as np
import pandas as pd

from ..explain import model_reliance
from ..models.families import make_estimator
from ..validation import check_int
from .refit import params_from_config_id

__all__ = ["TreeFarmsScope", "binarize", "treefarms_scope", "tree_predict"]

SCOPE = "treefarms"


def binarize(X_train, X, feature_names: Sequence[str], n_thresholds: int = 3) -> tuple[pd.DataFrame, pd.DataFrame]:
    """Binary features ``x_j ≤ t`` at the inner quantiles of each variable's training values.

    Parameters
    ----------
    X_train : array-like of shape (n, p)
        The rows whose values give the thresholds.
    X : array-like of shape (k, p)
        The rows to binarise (the training rows themselves, the test rows, a permuted copy).
    feature_names : sequence of str of length p
    n_thresholds : int, default 3
        Thresholds per variable: the ``i / (n_thresholds + 1)`` quantiles (``i = 1..n_thresholds``),
        distinct values only; a variable with two values gets one (its smaller value), a constant
        none.

    Returns
    -------
    (binary, thresholds)
        ``binary``: int8 DataFrame of shape ``(k, columns)``, column ``"<feature> <= <t>"``;
        ``thresholds``: ``feature``, ``threshold``, ``column``, ``feature_index``.

    Raises
    ------
    ValueError
        Mismatched shapes or names, ``n_thresholds < 1``.
    """
    check_int(n_thresholds, "n_thresholds", minimum=1)
    A, Q = np.asarray(X_train, dtype=float), np.asarray(X, dtype=float)
    names = [str(n) for n in feature_names]
    if A.ndim != 2 or Q.ndim != 2 or A.shape[1] != Q.shape[1] or A.shape[1] != len(names):
        raise ValueError(f"X_train {A.shape}, X {Q.shape} and {len(names)} feature names do not match")
    rows, cols = [], {}
    for j, name in enumerate(names):
        values = np.unique(A[:, j])
        if values.size < 2:
            continue
        if values.size == 2:
            cuts = values[:1]
        else:
            qs = np.arange(1, int(n_thresholds) + 1) / (int(n_thresholds) + 1)
            cuts = np.unique(np.quantile(A[:, j], qs, method="lower"))
            cuts = cuts[cuts < values[-1]]
        for t in cuts:
            column = f"{name} <= {t:.6g}"
            cols[column] = (Q[:, j] <= t).astype(np.int8)
            rows.append({"feature": name, "threshold": float(t), "column": column, "feature_index": j})
    return pd.DataFrame(cols), pd.DataFrame(rows, columns=["feature", "threshold", "column", "feature_index"])


def tree_predict(tree: dict, B) -> np.ndarray:
    """Labels of a TreeFARMS tree (its raw dict: ``{"feature": j, "true": …, "false": …}`` nodes,
    ``{"prediction": v}`` leaves) on binary rows, evaluated here (not by ``treefarms``).

    Parameters
    ----------
    tree : dict
        ``model_set.get_tree_at_idx_raw(i)``.
    B : array-like of shape (k, columns)
        Binary features in the columns' order of the training frame.

    Returns
    -------
    ndarray of shape (k,), int
    """
    Z = np.asarray(B)
    out = np.empty(Z.shape[0], dtype=np.int64)

    def walk(node, rows):
        if "prediction" in node:
            out[rows] = int(node["prediction"])
            return
        on = Z[rows, int(node["feature"])] == 1
        walk(node["true"], rows[on])
        walk(node["false"], rows[~on])

    walk(tree, np.arange(Z.shape[0]))
    return out


def _leaves(tree: dict) -> int:
    return 1 if "prediction" in tree else _leaves(tree["true"]) + _leaves(tree["false"])


@contextlib.contextmanager
def _quiet():
    """TreeFARMS' native code prints every tree to the process's standard output: silence file
    descriptor 1 while it runs (the job's log keeps the pipeline's own lines)."""
    import sys

    sys.stdout.flush()
    saved = os.dup(1)
    try:
        with open(os.devnull, "w") as null, contextlib.redirect_stdout(null):
            os.dup2(null.fileno(), 1)
            yield
    finally:
        sys.stdout.flush()
        os.dup2(saved, 1)
        os.close(saved)


def _fit(B: pd.DataFrame, y: np.ndarray, regularization: float, adder: float, depth_budget: int):
    from treefarms import TREEFARMS  # native extension + timbertrek/ipython: imported by the rule only

    config = {
        "regularization": float(regularization),
        "rashomon": True,
        "rashomon_bound_adder": max(float(adder), 1e-6),  # 0 finds no tree (float32 objectives, a strict bound)
        "depth_budget": int(depth_budget),
        "verbose": False,
    }
    with _quiet():
        model = TREEFARMS(config).fit(B.reset_index(drop=True), pd.Series(np.asarray(y, dtype=int), name="y"))
    return model


class TreeFarmsScope(NamedTuple):
    """The tables of the ``treefarms`` rule (:func:`treefarms_scope`).

    Attributes
    ----------
    summary : DataFrame
        One row per ε: ``epsilon``, ``regularization``, ``depth_budget``, ``objective_min`` (the
        optimum), ``bound`` (the objective bound), ``n_trees`` (TreeFARMS' count), ``n_evaluated``
        (trees whose MR was computed: all, or ``max_trees`` drawn at random), ``n_distinct_functions``
        (distinct test predictions among them), ``n_binary_features``, ``note`` (why a dataset has
        no set; empty otherwise).
    mcr : DataFrame
        Per ε and variable: ``mcr_minus`` / ``mcr_plus`` over the evaluated trees and, beside them,
        ``grid_mcr_minus`` / ``grid_mcr_plus`` over the grid's ``decision_tree`` set at the same ε
        (its ``grid_n_members`` refitted, the same estimator, loss and permutations),
        ``width_ratio`` (exact / grid width; NaN where the grid's width is 0), for ``mr_ratio`` and
        ``mr_difference``.
    members : DataFrame
        Per ε and evaluated tree: ``tree``, ``objective``, ``train_error``, ``leaves``, ``test_error``
        and its MR per variable (long: ``feature``, ``mr_ratio``, ``mr_difference``).
    thresholds : DataFrame
        The binarisation (:func:`binarize`).
    decision_paths : dict
        The set at the default ε as TimberTrek's widget reads it (``TREEFARMS.get_decision_paths``:
        the trie of the trees' decision paths over the binary columns, with each tree's accuracy and
        size); ``{"note": ...}`` when the set holds more than ``max_trees`` trees.
    """

    summary: pd.DataFrame
    mcr: pd.DataFrame
    members: pd.DataFrame
    thresholds: pd.DataFrame
    decision_paths: dict

    def to_frames(self) -> dict[str, pd.DataFrame]:
        """The tables by the rule's output names."""
        return {"summary": self.summary, "mcr": self.mcr, "members": self.members, "thresholds": self.thresholds}


def _grid_reliance(grid_members, data, names, *, n_repeats, seed, options) -> pd.DataFrame:
    """Zero-one ``permutation`` MR of every member of the grid's ``decision_tree`` set (refitted on the
    training split, as the ``rashomon`` rule refits them; the same permutations as the exact set's
    trees): ``config_id``, ``min_epsilon``, ``feature``, ``mr_ratio``, ``mr_difference``."""
    cols = ["config_id", "min_epsilon", "feature", "mr_ratio", "mr_difference"]
    if grid_members is None or not len(grid_members):
        return pd.DataFrame(columns=cols)
    trees = grid_members[grid_members["family"].astype(str) == "decision_tree"]
    trees = trees.drop_duplicates("config_id")
    trees = trees[np.isfinite(trees["min_epsilon_family"].to_numpy(dtype=float))]
    frame = pd.DataFrame(np.asarray(data.X_test, dtype=float), columns=names)
    out = []
    for cid, entry in zip(trees["config_id"].astype(str), trees["min_epsilon_family"].astype(float)):
        model = make_estimator(
            "decision_tree", "classification", params_from_config_id(cid), random_state=seed, options=options
        ).fit(np.asarray(data.X_train, dtype=float), np.asarray(data.y_train, dtype=int))
        mr = model_reliance(
            model,
            frame.to_numpy(),
            data.y_test,
            loss="zero_one",
            n_repeats=n_repeats,
            random_state=seed,
            options=None,
        ).to_frame()
        mr["feature"] = [
            names[int(f[1:])] if str(f).startswith("x") and str(f)[1:].isdigit() else f for f in mr["feature"]
        ]
        out.append(mr.assign(config_id=cid, min_epsilon=entry)[cols])
    return pd.concat(out, ignore_index=True) if out else pd.DataFrame(columns=cols)


SUMMARY_COLUMNS = (
    "dataset",
    "scope",
    "epsilon",
    "regularization",
    "depth_budget",
    "objective_min",
    "bound",
    "n_trees",
    "n_evaluated",
    "n_distinct_functions",
    "n_binary_features",
    "note",
)


def _not_binary(data) -> TreeFarmsScope:
    """The tables of a classification dataset of more than two classes: one summary row that says
    why there is no set (TreeFARMS' trees are binary classifiers), the other tables empty."""
    k = len(getattr(data, "classes", None) or np.unique(data.y_train))
    note = f"{k} classes: TreeFARMS enumerates binary classification trees, so no set"
    summary = pd.DataFrame([{"dataset": data.dataset, "scope": SCOPE, "note": note}], columns=list(SUMMARY_COLUMNS))
    empty = pd.DataFrame(columns=["dataset", "epsilon", "quantity", "feature", "mcr_minus", "mcr_plus"])
    return TreeFarmsScope(
        summary=summary,
        mcr=empty,
        members=pd.DataFrame(columns=["dataset", "epsilon", "tree", "feature", "mr_ratio", "mr_difference"]),
        thresholds=pd.DataFrame(columns=["feature", "threshold", "column", "feature_index"]),
        decision_paths={"note": note},
    )


def treefarms_scope(
    data,
    *,
    epsilons: Sequence[float],
    regularization: float = 0.01,
    depth_budget: int = 4,
    n_thresholds: int = 3,
    max_trees: int = 2000,
    n_repeats: int = 5,
    seed: int = 0,
    default_epsilon: float | None = None,
    grid_members: pd.DataFrame | None = None,
    options: dict | None = None,
) -> TreeFarmsScope:
    """The ``treefarms`` rule: the exact sparse-tree Rashomon set of a binary classification dataset
    at each ε, its members' MR and MCR beside the grid's ``decision_tree`` set.

    Parameters
    ----------
    data : PreparedData
        ``X_train``, ``y_train`` (0/1), ``X_test``, ``y_test``, ``features``, ``task``, ``dataset``.
    epsilons : sequence of float
        The study's ε (``rashomon.epsilons``; ``se`` mode carried to TreeFARMS' objective, module
        docstring).
    regularization : float, default 0.01
        ``λ``, TreeFARMS' penalty per leaf.
    depth_budget : int, default 4
        TreeFARMS' ``depth_budget`` (depth at most ``depth_budget - 1``).
    n_thresholds : int, default 3
        Thresholds per variable (:func:`binarize`).
    max_trees : int, default 2000
        Trees whose MR is computed; a larger set is sampled uniformly (seeded).
    n_repeats : int, default 5
        Permutations per variable of the ``permutation`` MR.
    seed : int
    default_epsilon : float, optional
        The ε whose set is exported for TimberTrek (``rashomon.epsilon``; default: the largest of
        ``epsilons``).
    grid_members : DataFrame, optional
        ``members.csv`` of the dataset: the grid's ``decision_tree`` configurations and their entry
        ε (``min_epsilon_family``), refitted here for their zero-one MR (``mcr.csv`` holds the
        first MR loss only, the log loss).
    options : mapping, optional
        ``estimator_options`` (the refits' fixed arguments).

    Returns
    -------
    TreeFarmsScope

    A classification dataset of more than two classes gets one summary row whose ``note`` says
    why it has no set, and empty tables (the rule runs on every classification dataset; whether a
    user's table is binary is known only once it is prepared).

    Raises
    ------
    ValueError
        A regression dataset (naming it), bad counts.
    """
    if data.task != "classification":
        raise ValueError(f"dataset {data.dataset!r}: the TreeFARMS scope is for binary classification only")
    if getattr(data, "multiclass", False) or len(np.unique(data.y_train)) != 2:
        return _not_binary(data)
    check_int(max_trees, "max_trees", minimum=1)
    names = list(data.features)
    Xtr, Xte = np.asarray(data.X_train, dtype=float), np.asarray(data.X_test, dtype=float)
    ytr, yte = np.asarray(data.y_train, dtype=int), np.asarray(data.y_test, dtype=int)
    Btr, thresholds = binarize(Xtr, Xtr, names, n_thresholds)
    Bte, _ = binarize(Xtr, Xte, names, n_thresholds)
    n = len(ytr)
    best = _fit(Btr, ytr, regularization, 0.0, depth_budget)
    if not best.get_tree_count():  # pragma: no cover - TreeFARMS always returns its optimum
        raise ValueError(f"dataset {data.dataset!r}: TreeFARMS returned no tree (regularization {regularization})")
    # the optimum: the lowest objective of the set at a zero bound (its trees tie; the set is unordered)
    optimum = min(
        (best.model_set.get_tree_metric_at_idx(i) for i in range(best.get_tree_count())), key=lambda m: m["objective"]
    )
    p_hat = float(optimum["loss"])
    se = math.sqrt(max(p_hat * (1 - p_hat), 0.0) / n)
    summaries, mcrs, members = [], [], []
    rng = np.random.default_rng(seed)
    grid_mr = _grid_reliance(grid_members, data, names, n_repeats=n_repeats, seed=seed, options=options)
    export = max(float(e) for e in epsilons) if default_epsilon is None else float(default_epsilon)
    decision_paths: dict = {"note": f"no set at epsilon {export:g} among {sorted(float(e) for e in epsilons)}"}
    for eps in sorted({float(e) for e in epsilons}):
        model = best if eps == 0 else _fit(Btr, ytr, regularization, eps * se, depth_budget)
        count = int(model.get_tree_count())
        if eps == export:
            decision_paths = (
                model.get_decision_paths()
                if count <= max_trees
                else {"note": f"{count} trees at epsilon {eps:g}: more than max_trees = {max_trees}, not exported"}
            )
        pick = np.arange(count) if count <= max_trees else np.sort(rng.choice(count, int(max_trees), replace=False))
        trees = [model.model_set.get_tree_at_idx_raw(int(i)) for i in pick]
        metrics = [model.model_set.get_tree_metric_at_idx(int(i)) for i in pick]

        def predict_many(Z, trees=trees):
            Bz, _ = binarize(Xtr, Z, names, n_thresholds)
            labels = np.stack([tree_predict(t, Bz.to_numpy()) for t in trees]).astype(float)
            return np.stack([1.0 - labels, labels], axis=-1)

        test_labels = predict_many(Xte)[:, :, 1]
        frame = pd.DataFrame(Xte, columns=names)
        mr = model_reliance(
            predict_many, frame, yte, loss="zero_one", n_repeats=n_repeats, random_state=seed
        ).to_frame()
        mr["tree"] = pick[mr["member"].to_numpy()]
        info = pd.DataFrame(
            {
                "tree": pick,
                "objective": [m["objective"] for m in metrics],
                "train_error": [m["loss"] for m in metrics],
                "leaves": [_leaves(t) for t in trees],
                "test_error": np.mean(test_labels != yte[None, :], axis=1),
            }
        )
        part = info.merge(mr[["tree", "feature", "mr_ratio", "mr_difference"]], on="tree")
        part.insert(0, "epsilon", eps)
        members.append(part)
        _, first = np.unique(test_labels, axis=0, return_index=True)
        summaries.append(
            {
                "dataset": data.dataset,
                "scope": SCOPE,
                "epsilon": eps,
                "regularization": float(regularization),
                "depth_budget": int(depth_budget),
                "objective_min": float(optimum["objective"]),
                "bound": float(optimum["objective"]) + eps * se,
                "n_trees": count,
                "n_evaluated": int(pick.size),
                "n_distinct_functions": int(first.size),
                "n_binary_features": int(Btr.shape[1]),
                "note": "",
            }
        )
        in_grid = grid_mr[grid_mr["min_epsilon"] <= eps + 1e-12]
        for quantity in ("mr_ratio", "mr_difference"):
            grid = in_grid.groupby("feature", sort=False)[quantity].agg(grid_mcr_minus="min", grid_mcr_plus="max")
            grid = grid.reset_index().assign(quantity=quantity, grid_n_members=in_grid["config_id"].nunique())
            agg = part.groupby("feature", sort=False)[quantity].agg(mcr_minus="min", mcr_plus="max").reset_index()
            agg.insert(0, "quantity", quantity)
            agg.insert(0, "epsilon", eps)
            agg = agg.merge(grid, on=["feature", "quantity"], how="left")
            exact_w = agg["mcr_plus"] - agg["mcr_minus"]
            grid_w = agg["grid_mcr_plus"] - agg["grid_mcr_minus"]
            agg["width_ratio"] = np.where(grid_w > 0, exact_w / grid_w.where(grid_w > 0), np.nan)
            mcrs.append(agg)
    out_mcr = pd.concat(mcrs, ignore_index=True)
    out_mcr.insert(0, "dataset", data.dataset)
    out_members = pd.concat(members, ignore_index=True)
    out_members.insert(0, "dataset", data.dataset)
    return TreeFarmsScope(
        summary=pd.DataFrame(summaries),
        mcr=out_mcr,
        members=out_members,
        thresholds=thresholds,
        decision_paths=decision_paths,
    )

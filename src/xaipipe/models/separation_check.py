"""The logit table's separation and rare-level risk, found at the split, before any fit.

The logistic-regression coefficient table (:func:`xaipipe.models.logit.logit_inference`,
:func:`xaipipe.models.mnlogit.mnlogit_inference`; rule ``logit``) is unpenalised maximum likelihood
on the training split. Under (quasi-)complete separation that estimate does not exist (Albert &
Anderson 1984) and every unpenalised coefficient of the table is NaN. The most common cause in a
user's table is a *rare level*: a level of a categorical column with a handful of training rows,
all of one class, whose reference-coded coefficient then diverges. :func:`logit_risks` finds both
on the rows and the design the table will use, at the ``split`` rule (before any model is fitted),
and words one line per risk with its remedies, which the split rule logs and writes to
``data/<d>/checks.json`` (read into ``tables/data_summary.csv`` and ``manifest.json``). It is a
warning, not an error: the study's models, MR, PD and SHAP do not need the unpenalised fit, the
table marks the separation itself (columns ``separation``, ``identified``, ``direction``), and the
pipeline's L2-penalised fit is reported beside it.

Remedies, in the order a researcher would try them (``docs/own_data.md``, "Separation in the logit
table"):

1. merge the rare level into a neighbouring level in the source data (or with a ``variant``-style
   recoding of the column) so that both classes occur in it;
2. drop the column (``datasets.<d>.drop``);
3. read the penalised coefficients the table reports beside the unpenalised ones
   (``penalized_coefficient``, ``penalized_odds_ratio`` / ``penalized_rrr``, with ``C``): the
   pipeline's own L2-penalised ``logistic_regression`` (``C`` chosen by cross-validation), finite
   under separation, labelled *penalized* and without standard errors; they exist when
   ``logistic_regression`` is one of the dataset's families.

Detection: the rare-level scan counts each level's training rows per class (a level whose rows are
all one class separates by itself); the linear programs of
:func:`xaipipe.models.logit.separation` / :func:`xaipipe.models.mnlogit.multinomial_separation`
(Konis 2007) on the reference-coded design with the intercept decide whether the estimate exists
and which terms diverge, exactly as the table will (constant and aliased columns left out, as the
table leaves them out).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np

from .logit import _aliased_terms, reference_coding, separation

__all__ = ["RARE_LEVEL_ROWS", "logit_risks"]

#: a level with fewer training rows than this is *rare* (reported even when it does not separate)
RARE_LEVEL_ROWS = 5
#: at most this many terms named in a line
MAX_NAMED = 5


def _design(X: np.ndarray, names: list[str], coding: dict) -> tuple[np.ndarray, list[str]]:
    """Intercept + reference-coded terms (numeric ones standardised), constant and aliased terms out."""
    terms = [t for t in names if t not in coding or coding[t]["reference_level"] != t]
    Z = X[:, [names.index(t) for t in terms]].copy()
    numeric = [k for k, t in enumerate(terms) if t not in coding]
    if numeric:
        sd = Z[:, numeric].std(axis=0)
        Z[:, numeric] = (Z[:, numeric] - Z[:, numeric].mean(axis=0)) / np.where(sd > 0, sd, 1.0)
    design = np.column_stack([np.ones(len(Z)), Z])
    constant = {j + 1 for j in range(len(terms)) if np.ptp(Z[:, j]) == 0}
    aliased = _aliased_terms(design, terms, [j for j in range(1, design.shape[1]) if j not in constant])
    kept = [j for j in range(design.shape[1]) if j not in constant and j not in aliased]
    labels = ["const", *terms]
    return np.ascontiguousarray(design[:, kept]), [labels[j] for j in kept]


def _level_counts(X, y, names, groups, class_names) -> list[dict]:
    """Training rows and classes of each level of each one-hot group."""
    out = []
    for group, members in groups.items():
        for member in members:
            rows = X[:, names.index(member)] == 1
            n = int(rows.sum())
            present = sorted({class_names[int(c)] for c in np.unique(y[rows])})
            level = member[len(group) + 1 :] if member.startswith(f"{group}_") else member
            out.append({"column": group, "level": level, "term": member, "rows": n, "classes": present})
    return out


def _named(items: Sequence[str]) -> str:
    more = f" and {len(items) - MAX_NAMED} more" if len(items) > MAX_NAMED else ""
    return ", ".join(repr(t) for t in items[:MAX_NAMED]) + more


def logit_risks(
    X: np.ndarray,
    y: np.ndarray,
    feature_names: Sequence[str],
    *,
    dataset: str,
    feature_groups: Mapping[str, Sequence[str]] | None = None,
    classes: Sequence[str] | None = None,
    penalized: bool = True,
) -> dict[str, Any]:
    """Separation and rare levels of the logit table's design, with their remedies.

    Parameters
    ----------
    X : ndarray of shape (n, p)
        The training split's features as the logit table reads them (``PreparedData.X_train``:
        imputed where values are missing).
    y : ndarray of shape (n,)
        Class codes ``0 .. K-1`` (binary: 0 / 1).
    feature_names : sequence of str, length p
    dataset : str
        Named in the messages (and in the config keys of the remedies).
    feature_groups : mapping group -> member columns, optional
        One-hot groups (``prepared.json``), reference-coded as the table codes them.
    classes : sequence of str, optional
        Class labels in code order, for the messages (default: the codes).
    penalized : bool, default True
        Whether the table will report the penalised coefficients beside (``logistic_regression`` is
        one of the dataset's families); otherwise the remedy says how to get them.

    Returns
    -------
    dict
        ``separation`` (``"none"``, ``"quasi-complete"``, ``"complete"``), ``not_identified`` (terms
        whose coefficient diverges, the intercept left out), ``levels`` (each level's training rows
        and classes: ``column``, ``level``, ``term`` (its one-hot column), ``rows``, ``classes``), ``rare_levels`` (the levels with
        fewer than :data:`RARE_LEVEL_ROWS` rows or a single class) and ``warnings`` (one line per
        risk, naming the dataset, the column or terms and the remedies; empty when there is none).
    """
    from .mnlogit import multinomial_separation

    X = np.asarray(X, dtype=float)
    y = np.asarray(y).astype(np.int64)
    names = [str(c) for c in feature_names]
    K = int(y.max()) + 1
    class_names = [str(c) for c in (classes if classes is not None else range(K))]
    coding = reference_coding(names, feature_groups)
    D, terms = _design(X, names, coding)
    sep = separation(D, y) if K == 2 else multinomial_separation(D, y)
    identified = np.asarray(sep["identified"]).reshape(-1, len(terms)).all(axis=0)
    diverging = [t for t, ok in zip(terms, identified) if not ok and t != "const"]
    levels = _level_counts(X, y, names, dict(feature_groups or {}), class_names)
    rare = [lv for lv in levels if lv["rows"] < RARE_LEVEL_ROWS or len(lv["classes"]) == 1]
    where = f"dataset {dataset!r}: the logit table (logit_inference.csv)"
    read_penalized = (
        "read the penalised coefficients beside (penalized_coefficient and its odds ratio: the pipeline's "
        "L2-penalised logistic_regression, C chosen by CV; labelled penalized, no standard errors)"
        if penalized
        else f"add logistic_regression to datasets.{dataset}.families to get penalised coefficients beside"
    )
    warnings = []
    single = [lv for lv in levels if len(lv["classes"]) == 1]  # each separates by itself
    if sep["separated"]:
        causes = [
            f"level {lv['level']!r} of {lv['column']!r} ({lv['rows']} training rows, all class {lv['classes'][0]!r})"
            for lv in single
        ]
        columns = sorted({lv["column"] for lv in single})
        members = {m for c in columns for m in (feature_groups or {})[c]}
        rest = [t for t in diverging if t not in members]
        if rest:
            causes.append(f"the terms {_named(rest)} together")
        fixes = []
        if columns:
            fixes.append(
                f"merge the level(s) into another level of {_named(columns)} in the source, or drop the column "
                f"(datasets.{dataset}.drop: [{', '.join(columns)}])"
            )
        if rest:
            fixes.append(f"drop separating columns (datasets.{dataset}.drop)")
        warnings.append(
            f"{where}: {sep['kind']} separation of the training split ({len(y)} rows): the unpenalised "
            f"maximum-likelihood estimate does not exist and its coefficients will be NaN; cause: "
            f"{'; '.join(causes) or 'the intercept'}; remedies: {'; '.join(fixes) or 'none of the columns'}; "
            f"or {read_penalized}"
        )
    for lv in rare:
        if sep["separated"] and lv in single:
            continue  # named above
        warnings.append(
            f"dataset {dataset!r}: column {lv['column']!r}: level {lv['level']!r} is rare ({lv['rows']} training "
            f"rows, classes {lv['classes']}): its logit coefficient rests on {lv['rows']} rows and a CV fold or "
            f"resample may see it in one class only; merge it into another level in the source or drop the column "
            f"(datasets.{dataset}.drop)"
        )
    return {
        "separation": sep["kind"],
        "not_identified": diverging,
        "levels": levels,
        "rare_levels": rare,
        "warnings": warnings,
    }

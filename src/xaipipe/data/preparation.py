"""Preparation of a canonical table into a model-ready table (the thesis' choices).

The choices come from the dataset's registry entry (``config/datasets.yaml``,
recorded in the canonical sidecar) and its options in the ``datasets`` config
section:

* ``drop``: columns removed (thesis: ``attack-angle`` for Airfoil,
  ``free_sulfur_dioxide`` for Wine Quality; 001 §5.1, §5.3);
* ``categorical`` (registry) / ``one_hot`` (option, overrides the list):
  categorical columns expanded to one 0/1 column per level, recorded as a
  *feature group* so that model reliance can permute them together (thesis:
  Abalone's ``Sex`` -> ``Sex_F``, ``Sex_I``, ``Sex_M``);
* ``variant``: one of the entry's declared ``variants`` (Wine Quality: ``white``,
  the thesis' 4898 wines, ``red``, or ``both`` with a ``color_red`` 0/1 feature);
* ``groups`` (the user's feature groups, ``{name: [columns...]}``): each group is one
  variable of MR, MCR, conditional MR, SHAP (summed) and SAGE, recorded in
  ``prepared.json`` as ``user_groups`` (only when declared) beside the one-hot
  ``feature_groups`` (:func:`resolve_user_groups` checks them; :func:`variable_groups`
  merges the two);
* ``positive_class`` (binary classification): the target value coded 1 (Breast
  Cancer: ``M``, malignant);
* ``class_order`` (classification with more than two classes): the target's
  labels in the order coded ``0 .. K-1`` (default: the labels sorted as text).
  A multiclass target is coded ``0 .. K-1`` and ``prepared.json`` records the
  labels (``classes``) and their codes (``class_coding``); a binary target keeps
  its 0/1 coding by ``positive_class`` and its record is unchanged
  (``docs/multiclass.md``).

The correlation matrix (Pearson) is computed on the numeric columns *before*
``drop`` (the thesis chose the drops from it: Figs 5.1, 5.4, 5.7).

The prepared table's readers (:func:`xaipipe.data.prepare.load_prepared`, the variable groups)
are in :mod:`xaipipe.data.prepare`, apart from this step and its data checks
(:mod:`xaipipe.data.checks`), so that the rules that only read a prepared table do not hash them.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import numpy as np
import pandas as pd

from .checks import raise_problems, table_problems
from .registry import MISSING_POLICIES

__all__ = ["correlation_matrix", "prepare_table", "resolve_user_groups"]


_DEFAULT_POSITIVE = ({"0", "1"}, "1"), ({"False", "True"}, "True"), ({"false", "true"}, "true")


def _encode_target(frame: pd.DataFrame, dataset: str, target: str, positive: Any, order: Any = None) -> tuple:
    """Code a classification target in place: 0/1 for two classes, ``0 .. K-1`` for more.

    Returns ``(positive class or None, class counts, class labels or None)``: a binary
    target gives its positive class and ``None`` labels; a multiclass target gives
    ``None`` and its labels in code order (``order``, default sorted as text).
    """
    if frame[target].isna().any():
        raise ValueError(
            f"dataset {dataset!r}: the target {target!r} has {int(frame[target].isna().sum())} missing values; "
            f"set datasets.{dataset}.missing to drop_rows or impute to remove those rows"
        )
    levels = sorted(frame[target].astype(str).unique())
    if len(levels) < 2:
        raise ValueError(
            f"dataset {dataset!r}: the classification target {target!r} has a single class {levels}; "
            "a classifier needs two or more"
        )
    if len(levels) > 2:
        return (None, *_encode_multiclass(frame, dataset, target, levels, positive, order))
    if order is not None:
        raise ValueError(
            f"datasets.{dataset}.class_order is only defined for targets with more than two classes; "
            f"{target!r} has two {levels}: give datasets.{dataset}.positive_class instead"
        )
    if positive is None:
        positive = next((p for lv, p in _DEFAULT_POSITIVE if set(levels) == lv), None)
        if positive is None:
            raise ValueError(
                f"dataset {dataset!r}: give datasets.{dataset}.positive_class, the class of "
                f"{target!r} coded 1: one of {levels}"
            )
    positive = str(positive)
    if positive not in levels:
        raise ValueError(f"datasets.{dataset}.positive_class {positive!r} is not a level of {target!r} {levels}")
    frame[target] = (frame[target].astype(str) == positive).astype(np.int64)
    counts = {str(k): int(v) for k, v in frame[target].value_counts().sort_index().items()}
    return positive, counts, None


def _encode_multiclass(frame, dataset, target, levels, positive, order) -> tuple[dict, list[str]]:
    """``0 .. K-1`` coding of a target with ``K > 2`` classes (in place): counts by code and labels."""
    if positive is not None:
        raise ValueError(
            f"datasets.{dataset}.positive_class is only defined for binary targets; {target!r} has "
            f"{len(levels)} classes {levels[:10]}: remove the key (datasets.{dataset}.class_order orders the classes)"
        )
    if order is None:
        labels = levels
    else:
        labels = [str(c) for c in order]
        if sorted(labels) != levels or len(set(labels)) != len(labels):
            raise ValueError(
                f"datasets.{dataset}.class_order {labels} must list each class of {target!r} once: {levels}"
            )
    code = {label: k for k, label in enumerate(labels)}
    frame[target] = frame[target].astype(str).map(code).astype(np.int64)
    counts = {str(k): int(v) for k, v in frame[target].value_counts().sort_index().items()}
    return counts, labels


def prepare_table(
    canonical: pd.DataFrame, sidecar: Mapping[str, Any], options: Mapping[str, Any] | None = None
) -> tuple[pd.DataFrame, dict, pd.DataFrame]:
    """Apply the preparation choices of ``options`` to a canonical table.

    Parameters
    ----------
    canonical : DataFrame
        Output of :func:`xaipipe.data.sources.load_canonical`.
    sidecar : mapping
        Its sidecar: task, target, column roles, and the registry's declared
        ``categorical_columns``, ``positive_class``, ``variants``.
    options : mapping
        Keys ``drop``, ``one_hot`` (overrides the sidecar's categorical
        columns), ``groups`` (the user's feature groups), ``variant``, ``positive_class`` (overrides the sidecar's),
        ``class_order`` (multiclass), ``missing`` (``error``, the default,
        ``drop_rows`` or ``impute``); all optional
        (:func:`xaipipe.data.registry.preparation_options`).

    Returns
    -------
    prepared : DataFrame
        Columns ``row_id`` (row of the canonical table), the features (float64)
        and the target (float64 for regression, int 0/1 for binary and
        ``0 .. K-1`` for multiclass classification).
        With ``missing: impute`` the features keep their missing values (NaN; every
        column of a one-hot group is NaN where the categorical value is missing): the
        fits impute them (:mod:`xaipipe.data.impute`).
    info : dict
        ``dataset``, ``task``, ``target``, ``features``, ``feature_groups``
        (group name -> member columns, one-hot groups only), ``user_groups``
        (the user's groups, name -> member columns in column order; only when
        ``groups`` are given), ``dropped``,
        ``one_hot``, ``variant``, ``positive_class``, ``n_rows``, ``class_counts``
        (by code); multiclass targets also ``n_classes``, ``classes`` (labels in
        code order) and ``class_coding`` (label -> code);
        with a ``missing`` policy other than ``error`` also ``missing``: ``policy``,
        ``missing_values`` (column -> missing entries, features and target, before
        anything is removed), ``rows_dropped`` (rows removed: any missing feature or
        target value under ``drop_rows``, a missing target under ``impute``),
        ``rows_imputed`` (rows left with a missing feature value) and ``imputed``
        (variable -> rows where it is missing, filled inside every fit; a categorical
        counts once for its one-hot group).
    correlation_input : DataFrame
        Numeric columns before ``drop`` (target included), for
        :func:`correlation_matrix` (after the rows of ``drop_rows`` are removed;
        pairwise-complete with ``impute``).

    Raises
    ------
    ValueError
        Naming the dataset and the column or config key: unknown columns in
        ``drop`` / ``one_hot``, an unknown ``variant``, ``positive_class`` or
        ``missing`` policy, a ``class_order`` that does not list every class once,
        ``positive_class`` on a multiclass target, a classification target with one
        class or with missing values (policy ``error``), a constant regression
        target, non-numeric features not declared categorical, NaN (policy
        ``error``) or constant columns, a one-hot column whose name is taken
        (``region`` level ``north`` next to a column ``region_north``), a feature
        called ``row_id``, no row left; the checks of :func:`resolve_user_groups`.
    """
    options = dict(options or {})
    dataset = sidecar["dataset"]
    task = sidecar["task"]
    target = sidecar["target"]
    features = list(sidecar["feature_columns"])
    policy = options.get("missing") or "error"
    if policy not in MISSING_POLICIES:
        raise ValueError(
            f"datasets.{dataset}.missing must be one of {list(MISSING_POLICIES)}, got {policy!r}"
            f"{_did_you_mean(policy, MISSING_POLICIES)}"
        )
    if "row_id" in features or target == "row_id":
        raise ValueError(
            f"dataset {dataset!r}: column 'row_id' is reserved for the prepared table's row numbers; rename it "
            f"in the source, or list it in datasets.{dataset}.columns.id"
        )
    frame = canonical.copy()
    frame.insert(0, "row_id", np.arange(len(frame), dtype=np.int64))
    frame, features, variant = _apply_variant(frame, features, sidecar, options.get("variant"))
    drop, kept, one_hot = _kept_columns(features, sidecar, options)
    missing_info = None
    if policy != "error":
        frame = _infinite_as_missing(frame, kept + [target])
        frame, missing_info = _remove_missing_rows(frame, dataset, target, kept, policy)
    # every problem of the table's columns at once, one line each (xaipipe.data.checks)
    problems = table_problems(
        frame,
        dataset,
        target=target,
        task=task,
        features=kept,
        categorical=one_hot,
        policy=policy,
        source_kind=sidecar.get("source_kind", "file"),
    )
    raise_problems(problems + _one_hot_collisions(frame, dataset, target, kept, one_hot))

    positive = options.get("positive_class", sidecar.get("positive_class"))
    class_counts = classes = None
    if task == "classification":
        positive, class_counts, classes = _encode_target(frame, dataset, target, positive, options.get("class_order"))
    elif positive is not None:
        raise ValueError(f"datasets.{dataset}.positive_class is only defined for classification datasets")
    elif options.get("class_order") is not None:
        raise ValueError(f"datasets.{dataset}.class_order is only defined for classification datasets")

    numeric_before_drop = [c for c in features + [target] if pd.api.types.is_numeric_dtype(frame[c])]
    correlation_input = frame[numeric_before_drop].reset_index(drop=True)
    features, groups = _expand_one_hot(frame, kept, one_hot)
    prepared = frame[["row_id"] + features + [target]].reset_index(drop=True)
    prepared[features] = prepared[features].astype(np.float64)
    if task == "regression":
        prepared[target] = prepared[target].astype(np.float64)
    info = {
        "dataset": dataset,
        "task": task,
        "target": target,
        "features": features,
        "feature_groups": groups,
        "dropped": drop,
        "one_hot": one_hot,
        "variant": variant,
        "positive_class": positive,
        "n_rows": int(len(prepared)),
        "class_counts": class_counts,
    }
    if options.get("groups"):  # only when declared: the thesis datasets' prepared.json unchanged
        info["user_groups"] = resolve_user_groups(
            options["groups"], dataset=dataset, features=features, one_hot=groups, dropped=drop, target=target
        )
    if classes is not None:  # multiclass only: a binary record keeps its keys
        info["n_classes"] = len(classes)
        info["classes"] = classes
        info["class_coding"] = {label: k for k, label in enumerate(classes)}
    if missing_info is not None:  # only with a policy other than `error` (the thesis datasets' files unchanged)
        info["missing"] = _imputed_record(missing_info, prepared, features, groups)
    return prepared, info, correlation_input


def _apply_variant(frame: pd.DataFrame, features: list[str], sidecar: Mapping[str, Any], variant):
    """The rows and indicator features of the chosen variant (default the registry's) of a dataset
    with ``variants``; ``(frame, features, variant)``."""
    dataset = sidecar["dataset"]
    variants = sidecar.get("variants")
    if variants:
        choices = variants["options"]
        variant = variant or variants["default"]
        if variant not in choices:
            raise ValueError(f"datasets.{dataset}.variant must be one of {list(choices)}, got {variant!r}")
        column = variants["column"]
        rows = choices[variant].get("rows")
        if rows is not None:
            frame = frame[frame[column].isin(rows)]
        for name, level in (choices[variant].get("indicators") or {}).items():
            frame[name] = (frame[column] == level).astype(float)
            features = features + [name]
    elif variant is not None:
        raise ValueError(
            f"datasets.{dataset}.variant is only defined for datasets whose registry entry declares variants"
        )
    return frame, features, variant


def _kept_columns(features: list[str], sidecar: Mapping[str, Any], options: Mapping[str, Any]):
    """``(drop, kept, one_hot)``: the dropped features, the others, and the categorical ones among
    them (``one_hot`` option, else the registry's ``categorical_columns``)."""
    dataset = sidecar["dataset"]
    drop = list(options.get("drop") or [])
    unknown = [c for c in drop if c not in features]
    if unknown:
        raise ValueError(f"datasets.{dataset}.drop names unknown column(s) {unknown}; features are {features}")
    kept = [c for c in features if c not in drop]
    if options.get("one_hot") is not None:
        one_hot = list(options["one_hot"])
        unknown = [c for c in one_hot if c not in kept]
        if unknown:
            raise ValueError(f"datasets.{dataset}.one_hot names unknown column(s) {unknown}; features are {kept}")
    else:
        one_hot = [c for c in sidecar.get("categorical_columns") or [] if c in kept]
    return drop, kept, one_hot


def _expand_one_hot(frame: pd.DataFrame, kept: list[str], one_hot: list[str]):
    """Add the 0/1 columns of every categorical to ``frame`` (NaN where the value is missing);
    ``(features with each categorical replaced by its columns, one-hot groups)``."""
    features = kept
    groups: dict[str, list[str]] = {}
    for col in one_hot:
        levels, members = _one_hot_levels(frame, col)
        values, absent = frame[col].astype(str), frame[col].isna()
        for lvl, name in zip(levels, members):
            dummy = (values == lvl).astype(float)
            if absent.any():
                dummy[absent] = np.nan  # the level is unknown: every column of the group is missing
            frame[name] = dummy
        pos = features.index(col)
        features = features[:pos] + members + features[pos + 1 :]
        groups[col] = members
    return features, groups


def _imputed_record(missing_info: dict, prepared: pd.DataFrame, features: list[str], groups) -> dict:
    """``info["missing"]``: the policy's record with ``rows_imputed`` and ``imputed`` (variable ->
    rows where it is missing; a one-hot group counts once)."""
    left = prepared[features].isna()
    missing_info["rows_imputed"] = int(left.any(axis=1).sum())
    member = {c: g for g, cols in groups.items() for c in cols}
    variables = dict.fromkeys(member.get(c, c) for c in features)  # a one-hot group counts once
    counts = {v: int(left[groups[v]].any(axis=1).sum()) if v in groups else int(left[v].sum()) for v in variables}
    missing_info["imputed"] = {v: n for v, n in counts.items() if n}
    return missing_info


def resolve_user_groups(
    groups: Mapping[str, Any],
    *,
    dataset: str,
    features: list[str],
    one_hot: Mapping[str, list[str]],
    dropped: list[str] = (),
    target: str | None = None,
) -> dict[str, list[str]]:
    """The user's feature groups (``datasets.<d>.groups``) as prepared columns, checked.

    A member is a prepared column (a numeric feature or one level column of a one-hot group) or
    the name of a one-hot encoded categorical, which stands for all its level columns. A group
    may hold whole one-hot groups beside numeric columns; it is then one variable and the one-hot
    groups it holds are not variables of their own.

    Parameters
    ----------
    groups : mapping group name -> sequence of str
    dataset : str
        For the messages.
    features : list of str
        The prepared feature columns, in order.
    one_hot : mapping categorical -> level columns
        The one-hot groups (``prepared.json``'s ``feature_groups``).
    dropped : list of str
        Columns removed by ``datasets.<d>.drop`` (named in the message when a group lists one).
    target : str, optional

    Returns
    -------
    dict of str -> list of str
        Group name -> member columns in column order, groups in the order given.

    Raises
    ------
    ValueError
        Naming the dataset, the group and the column: an empty group, an unknown or dropped
        column, the target, a column in two groups, a one-hot group split (some but not all
        levels of a categorical), a group named like a column, a categorical or ``row_id``.
    """
    position = {c: j for j, c in enumerate(features)}
    owner: dict[str, str] = {}
    out: dict[str, list[str]] = {}
    for name, members in groups.items():
        key = f"datasets.{dataset}.groups.{name}"
        if name in position or name in one_hot or name in ("row_id", target):
            what = "a categorical" if name in one_hot else "a column"
            raise ValueError(
                f"dataset {dataset!r}: {key}: the group name {name!r} is {what} name of the prepared table; "
                "give the group a name of its own"
            )
        if not members:
            raise ValueError(f"dataset {dataset!r}: {key} is empty")
        cols: list[str] = []
        for member in members:
            if member in one_hot:
                cols.extend(one_hot[member])
            elif member in position:
                cols.append(member)
            elif member in dropped:
                raise ValueError(
                    f"dataset {dataset!r}: {key} lists column {member!r}, which datasets.{dataset}.drop removes"
                )
            elif member == target:
                raise ValueError(f"dataset {dataset!r}: {key} lists the target {member!r}")
            else:
                raise ValueError(
                    f"dataset {dataset!r}: {key} lists unknown column {member!r}"
                    f"{_did_you_mean(str(member), list(position) + list(one_hot))}; the prepared features are "
                    f"{features} and the categoricals {list(one_hot)}"
                )
        for col in cols:
            if col in owner and owner[col] != name:
                raise ValueError(
                    f"dataset {dataset!r}: column {col!r} is in two groups, datasets.{dataset}.groups.{owner[col]} "
                    f"and {key}"
                )
            owner[col] = name
        held = set(cols)
        for cat, levels in one_hot.items():
            part = [c for c in levels if c in held]
            if part and len(part) < len(levels):
                raise ValueError(
                    f"dataset {dataset!r}: {key} splits the one-hot group of categorical {cat!r}: it holds "
                    f"{part} but not {[c for c in levels if c not in held]}; list {cat!r} itself (all its levels) "
                    "or every level column"
                )
        out[str(name)] = sorted(held, key=position.__getitem__)
    return out


def _one_hot_levels(frame: pd.DataFrame, col: str) -> tuple[list[str], list[str]]:
    """The observed levels of categorical ``col`` (sorted as text) and their one-hot column names."""
    values = frame[col].astype(str)
    absent = frame[col].isna()
    levels = sorted(values[~absent].unique()) if absent.any() else sorted(values.unique())
    return levels, [f"{col}_{lvl}" for lvl in levels]


def _one_hot_collisions(frame: pd.DataFrame, dataset: str, target: str, features: list[str], one_hot: list[str]):
    """One line per one-hot column whose name is taken (a column, the target, ``row_id``, another dummy)."""
    taken = {c: f"column {c!r}" for c in features}
    taken[target] = f"the target {target!r}"
    taken["row_id"] = "the prepared table's row numbers 'row_id'"
    problems = []
    for col in one_hot:
        for lvl, name in zip(*_one_hot_levels(frame, col)):
            if name in taken:
                problems.append(
                    f"dataset {dataset!r}: the one-hot column {name!r} of categorical {col!r} (level {lvl!r}) "
                    f"collides with {taken[name]}; rename that column or the level in the source, or drop one "
                    f"of them with datasets.{dataset}.drop"
                )
            taken[name] = f"the one-hot column {name!r} of categorical {col!r}"
    return problems


def _did_you_mean(word: str, choices) -> str:
    from ..schema import did_you_mean

    return did_you_mean(word, choices)


def _infinite_as_missing(frame: pd.DataFrame, columns: list[str]) -> pd.DataFrame:
    """``inf`` / ``-inf`` in the numeric ``columns`` as NaN (the ``drop_rows`` and ``impute`` policies
    count them as missing); ``frame`` itself when it has none."""
    numeric = [c for c in columns if pd.api.types.is_numeric_dtype(frame[c])]
    infinite = np.isinf(frame[numeric].to_numpy(dtype=np.float64)) if numeric else np.zeros((0, 0), bool)
    if not infinite.any():
        return frame
    frame = frame.copy()
    for j, column in enumerate(numeric):
        if infinite[:, j].any():
            frame[column] = frame[column].astype(np.float64).where(~infinite[:, j])
    return frame


def _remove_missing_rows(
    frame: pd.DataFrame, dataset: str, target: str, features: list[str], policy: str
) -> tuple[pd.DataFrame, dict]:
    """Rows removed by a missing-value policy: any missing feature or target value (``drop_rows``)
    or a missing target (``impute``; a row without a response cannot be fitted or scored).

    Returns
    -------
    (frame, info)
        The kept rows and ``{"policy", "missing_values", "rows_dropped"}``.

    Raises
    ------
    ValueError
        No row is left (the message names the columns with most missing values).
    """
    na = frame[features + [target]].isna()
    counts = {c: int(n) for c, n in na.sum().items() if n}
    remove = na.any(axis=1) if policy == "drop_rows" else na[target]
    kept = frame[~remove.to_numpy()]
    if len(kept) == 0:
        if na[target].all():
            raise ValueError(
                f"dataset {dataset!r}: the target {target!r} is missing in every one of the {len(frame)} rows; "
                f"datasets.{dataset}.target must name the column of the response (the table's columns: "
                f"{_quoted_columns(frame)}), and datasets.{dataset}.drop: [{target}] drop the empty column"
            )
        worst = sorted((c for c in counts if c != target), key=counts.get, reverse=True)[:5]
        impute = (
            "; or set datasets.{d}.missing: impute (it keeps rows with missing features)"
            if policy == "drop_rows"
            else ""
        )
        raise ValueError(
            f"dataset {dataset!r}: datasets.{dataset}.missing: {policy} leaves no row (missing values per "
            f"column: {dict((c, counts[c]) for c in worst)}); drop the emptiest feature column(s) with "
            f"datasets.{dataset}.drop{impute.format(d=dataset)}"
        )
    return kept, {"policy": policy, "missing_values": counts, "rows_dropped": int(remove.sum())}


def _quoted_columns(frame: pd.DataFrame) -> str:
    columns = [c for c in frame.columns if c != "row_id"]
    return ", ".join(repr(c) for c in columns[:8]) + (", ..." if len(columns) > 8 else "")


def correlation_matrix(frame: pd.DataFrame) -> pd.DataFrame:
    """Pearson correlation matrix (``pandas.DataFrame.corr``), variables in column order.

    Returns a square DataFrame with a leading ``variable`` column so that it
    round-trips through CSV.
    """
    corr = frame.corr(method="pearson")
    corr.insert(0, "variable", corr.index)
    return corr.reset_index(drop=True)

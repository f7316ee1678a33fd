"""Checks of a table's columns before preparation: every problem at once, one line each.

A user's table can have several problems (missing values in the target and in two features, a
constant column, a text column, a date column); a check that stops at the first makes the user
run the workflow once per problem. :func:`table_problems` looks at every column the preparation
will use and returns one line per problem, each naming the dataset, the column and the fix (the
config key that resolves it); :func:`xaipipe.data.preparation.prepare_table` raises them together as a
:class:`DataCheckError`.

What is told apart (a non-numeric column that is not declared categorical):

* *constant*: one distinct value in the rows kept (whatever its type): drop it;
* *dates*: every non-missing value parses as a date (``pandas.to_datetime``, ISO or day-first /
  month-first forms): keep it out of the features with ``columns.other`` (or drop it); a date is
  not a numeric feature (derive one in the source, e.g. days since a reference day);
* *identifiers*: text with a different value in every row: ``columns.other`` (or ``columns.id``
  for integer ids);
* *text*: anything else: declare it categorical (one-hot), keep it out with ``columns.other``, or
  drop it.
"""

from __future__ import annotations

import warnings
from collections.abc import Sequence

import pandas as pd

__all__ = ["DataCheckError", "table_problems", "raise_problems"]

#: at most this many levels / values quoted in a message
MAX_QUOTED = 3


class DataCheckError(ValueError):
    """Every problem found in a table, one per line (``problems``; the message joins them)."""

    def __init__(self, problems: Sequence[str]):
        self.problems = list(problems)
        super().__init__("\n".join(self.problems))


def raise_problems(problems: Sequence[str]) -> None:
    """Raise :class:`DataCheckError` with ``problems`` when there are any."""
    if problems:
        raise DataCheckError(problems)


def _quoted(values) -> str:
    values = [v.item() if hasattr(v, "item") else v for v in values]  # numpy scalars as Python's
    more = "" if len(values) <= MAX_QUOTED else ", ..."
    return ", ".join(repr(v) for v in values[:MAX_QUOTED]) + more


def _looks_like_dates(values: pd.Series) -> bool:
    """True when every non-missing text value parses as a date (and they are not plain numbers)."""
    text = values.dropna().astype(str).str.strip()
    if text.empty or pd.to_numeric(text, errors="coerce").notna().all():
        return False
    if not text.str.contains(r"\d", regex=True).all():
        return False
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # pandas warns when it infers the format element by element
        for dayfirst in (False, True):
            try:
                parsed = pd.to_datetime(text, errors="coerce", dayfirst=dayfirst, format="mixed")
            except (ValueError, TypeError):
                continue
            if parsed.notna().all():
                return True
    return False


def _column_problem(
    frame: pd.DataFrame, dataset: str, column: str, *, categorical: bool, allow_missing: bool
) -> str | None:
    """The problem of one feature column, or None."""
    values = frame[column]
    where = f"dataset {dataset!r}: column {column!r}"
    n, missing = len(values), int(values.isna().sum())
    if missing == n:
        return f"{where} is empty ({n} missing values in {n} rows); drop it with datasets.{dataset}.drop"
    levels = values.dropna().unique()
    if len(levels) <= 1:
        return (
            f"{where} is constant (every value {_quoted(levels)}) and carries no information; drop it with "
            f"datasets.{dataset}.drop"
        )
    if missing and not allow_missing:
        return (
            f"{where} has {missing} missing value(s) in {n} rows; set datasets.{dataset}.missing to drop_rows "
            f"or impute (config/README.md), or drop the column with datasets.{dataset}.drop"
        )
    if categorical or pd.api.types.is_numeric_dtype(values):
        return None
    keep_out = f"list it in datasets.{dataset}.columns.other to keep it beside the data, not as a feature"
    if _looks_like_dates(values):
        return (
            f"{where} holds dates ({_quoted(levels)}), not a numeric feature; {keep_out}, drop it with "
            f"datasets.{dataset}.drop, or derive a number from it in the source (e.g. days since a reference day)"
        )
    if len(levels) == n - missing and n - missing > 2 * MAX_QUOTED:
        return (
            f"{where} is text with a different value in every row ({_quoted(levels)}), an identifier; {keep_out} "
            f"(datasets.{dataset}.columns.id for integer ids) or drop it with datasets.{dataset}.drop"
        )
    return (
        f"{where} is text ({len(levels)} levels: {_quoted(sorted(map(str, levels)))}); declare it categorical "
        f"(datasets.{dataset}.categorical, one-hot encoded), {keep_out}, or drop it with datasets.{dataset}.drop"
    )


def _target_problem(frame: pd.DataFrame, dataset: str, target: str, task: str, policy: str) -> str | None:
    values = frame[target]
    where = f"dataset {dataset!r}: the target {target!r}"
    missing = int(values.isna().sum())
    if missing and policy == "error":
        return (
            f"{where} has {missing} missing value(s) in {len(values)} rows; set datasets.{dataset}.missing to "
            f"drop_rows or impute (both remove the rows without a target)"
        )
    levels = values.dropna().unique()
    if task == "regression" and len(levels) <= 1:
        return f"dataset {dataset!r}: the regression target {target!r} is constant ({_quoted(levels)}); it must vary"
    if task == "classification" and len(levels) < 2:
        return (
            f"dataset {dataset!r}: the classification target {target!r} has a single class {_quoted(levels)}; "
            "a classifier needs two or more"
        )
    return None


def table_problems(
    frame: pd.DataFrame,
    dataset: str,
    *,
    target: str,
    task: str,
    features: Sequence[str],
    categorical: Sequence[str] = (),
    policy: str = "error",
) -> list[str]:
    """Every problem of the columns a preparation uses, one line each.

    Parameters
    ----------
    frame : DataFrame
        The rows the preparation keeps (after a variant's row selection and the rows a missing-value
        policy removes), with the target and the ``features`` columns (as read: text or numeric).
    dataset : str
    target : str
    task : {"regression", "classification"}
    features : sequence of str
        The feature columns, after ``drop`` and before one-hot encoding.
    categorical : sequence of str
        The features that are one-hot encoded.
    policy : {"error", "drop_rows", "impute"}
        The missing-value policy: under ``error`` every missing value is a problem; under
        ``impute`` a column is constant when its observed values are.

    Returns
    -------
    list of str
        The target's problem first (missing values under ``error``, a constant regression target, a
        single class), then each feature's in column order: empty (all missing), constant, missing
        values (``error``), and, for a non-numeric column not declared categorical, dates,
        identifier or text. Each line names the dataset, the column and the config key of the fix.
    """
    problems = []
    target_problem = _target_problem(frame, dataset, target, task, policy)
    if target_problem:
        problems.append(target_problem)
    cats = set(categorical)
    for column in features:
        problem = _column_problem(frame, dataset, column, categorical=column in cats, allow_missing=policy == "impute")
        if problem:
            problems.append(problem)
    return problems

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
* *numbers read as text*: at least :data:`MOSTLY_NUMERIC` of the values parse as numbers once
  the file is read with the right ``read_options`` (a thousands separator ``'1,001.5'``, a decimal
  comma ``'3,25'``, missing-value markers such as ``'?'``): the exact keys that parse it
  (:func:`numeric_reading`), not "declare it categorical", which would one-hot encode a number;
* *text*: anything else: declare it categorical (one-hot), keep it out with ``columns.other``, or
  drop it.

A numeric column with ``inf`` / ``-inf`` is a problem under ``missing: error`` (no estimator fits
on it); ``drop_rows`` and ``impute`` count infinite values as missing. A classification target
whose classes are many numbers that look continuous, and a regression target that is text, are told
to change ``task``.
"""

from __future__ import annotations

import warnings
from collections.abc import Sequence

import numpy as np
import pandas as pd

__all__ = ["DataCheckError", "table_problems", "raise_problems", "numeric_reading", "reading_advice"]

#: at most this many levels / values quoted in a message
MAX_QUOTED = 3
#: a text column is "numbers read as text" when at least this share of its values parse as numbers
#: once the file is read with the ``read_options`` of :func:`numeric_reading`
MOSTLY_NUMERIC = 0.9
#: a classification target with more numeric classes than this, some not integers, is told that it
#: looks like a regression target
MAX_CLASSES_BEFORE_ASKING = 20

# numbers pandas reads as text without read_options: '1,001.5' (thousands ','), '1.001,5' (thousands
# '.', decimal ','), '3,25' (decimal ',')
_THOUSANDS_COMMA = r"[+-]?\d{1,3}(?:,\d{3})+(?:\.\d*)?"
_THOUSANDS_DOT = r"[+-]?\d{1,3}(?:\.\d{3})+(?:,\d*)?"
_DECIMAL_COMMA = r"[+-]?\d*,\d+"


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


def numeric_reading(values: pd.Series) -> tuple[dict, list[str], float] | None:
    """The ``read_options`` under which a column of text reads as numbers, or None.

    Parameters
    ----------
    values : Series
        One column as read (text; missing values as NaN).

    Returns
    -------
    (options, markers, share) or None
        ``options``: the pandas ``read_csv`` keywords that parse the numbers written with separators
        (``{"thousands": ","}``, ``{"thousands": ".", "decimal": ","}``, ``{"decimal": ","}`` or
        ``{}``); ``markers``: the entries left that are not numbers (sorted; missing-value markers
        such as ``'?'``, for ``na_values``); ``share``: the fraction of non-missing values that are
        numbers under ``options``. None when that fraction is below :data:`MOSTLY_NUMERIC` or
        nothing needs reading differently (the column is text).
    """
    text = values.dropna().astype(str).str.strip()
    if text.empty:
        return None
    plain = pd.to_numeric(text, errors="coerce").notna().to_numpy()
    rest = text[~plain]
    t_comma = rest.str.fullmatch(_THOUSANDS_COMMA).to_numpy()
    t_dot = rest.str.fullmatch(_THOUSANDS_DOT).to_numpy()
    d_comma = rest.str.fullmatch(_DECIMAL_COMMA).to_numpy()
    options: dict = {}
    parsed_rest = np.zeros(len(rest), dtype=bool)
    if t_comma.sum() and t_comma.sum() >= (t_dot | d_comma).sum():
        options, parsed_rest = {"thousands": ","}, t_comma
    elif t_dot.sum():
        options, parsed_rest = {"thousands": ".", "decimal": ","}, t_dot | d_comma
    elif d_comma.sum():
        options, parsed_rest = {"decimal": ","}, d_comma
    markers = sorted(set(rest[~parsed_rest]))
    share = (plain.sum() + parsed_rest.sum()) / len(text)
    if share < MOSTLY_NUMERIC or (not options and not markers):
        return None
    return options, markers, float(share)


def reading_advice(values: pd.Series, dataset: str, *, source_kind: str = "file", policy: str = "error") -> str | None:
    """What parses a column of numbers read as text (:func:`numeric_reading`), as a message tail.

    Returns None when the column is text. Otherwise e.g. ``"100% of its 60 values are numbers: 60
    are written with a thousands separator ('1,000.0', ...); read them as numbers with
    datasets.<d>.source.read_options.thousands: ','"``. For a source other than a file the tail names
    pandas' ``read_csv`` keywords and says to convert the column in the source.
    """
    return _advice(values, numeric_reading(values), dataset, source_kind=source_kind, policy=policy)


def _advice(values: pd.Series, reading, dataset: str, *, source_kind: str, policy: str) -> str | None:
    """:func:`reading_advice` from a :func:`numeric_reading` already made."""
    if reading is None:
        return None
    options, markers, share = reading
    text = values.dropna().astype(str).str.strip()
    key = f"datasets.{dataset}.source.read_options." if source_kind == "file" else "read_csv's "
    parts = []
    if options:
        kind = {
            ("thousands",): "a thousands separator",
            ("decimal",): "a decimal comma",
            ("decimal", "thousands"): "a thousands separator '.' and a decimal comma",
        }[tuple(sorted(options))]
        pattern = {",": _THOUSANDS_COMMA, ".": _THOUSANDS_DOT}.get(options.get("thousands"), _DECIMAL_COMMA)
        written = text[text.str.fullmatch(pattern)]
        keys = " and ".join(f"{key}{k}: {v!r}" for k, v in options.items())
        parts.append(
            f"{len(written)} are written with {kind} ({_quoted(written.unique())}); read them as numbers with {keys}"
        )
    if markers:
        n_markers = int(text.isin(markers).sum())
        fix = f"{key}na_values: {markers[: MAX_QUOTED * 2]!r}"
        if policy == "error":
            fix += f" and set datasets.{dataset}.missing to drop_rows or impute"
        parts.append(
            f"{n_markers} {'is' if n_markers == 1 else 'are'} {_quoted(markers)}, a missing-value marker; read them as missing with {fix}"
        )
    tail = "; ".join(parts)
    if source_kind != "file":
        tail += (
            f" (datasets.{dataset}.source.kind {source_kind!r} takes no read_options: convert the column in the source)"
        )
    return f"{share:.0%} of its {len(text)} values are numbers: {tail}"


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


def _infinite_problem(values: pd.Series, where: str, dataset: str, fix_drop: bool = True) -> str | None:
    if not pd.api.types.is_numeric_dtype(values):
        return None
    numbers = values.to_numpy(dtype=np.float64)
    infinite = np.isinf(numbers)
    if not infinite.any():
        return None
    signs = sorted({"inf" if v > 0 else "-inf" for v in numbers[infinite]}, reverse=True)
    drop = f", or drop the column with datasets.{dataset}.drop" if fix_drop else ""
    return (
        f"{where} has {int(infinite.sum())} infinite value(s) ({', '.join(signs)}) in {len(values)} rows, which no "
        f"model fits on; set datasets.{dataset}.missing to drop_rows or impute (infinite values then count as "
        f"missing){drop}"
    )


def _column_problem(
    frame: pd.DataFrame,
    dataset: str,
    column: str,
    *,
    categorical: bool,
    policy: str = "error",
    source_kind: str = "file",
) -> str | None:
    """The problem of one feature column, or None."""
    allow_missing = policy == "impute"
    values = frame[column]
    where = f"dataset {dataset!r}: column {column!r}"
    if policy == "error":
        infinite = _infinite_problem(values, where, dataset)
        if infinite:
            return infinite
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
    if pd.api.types.is_numeric_dtype(values):
        return None
    reading = numeric_reading(values)
    advice = _advice(values, reading, dataset, source_kind=source_kind, policy=policy)
    if categorical:
        if advice and reading[0]:  # numbers with separators, declared categorical
            return (
                f"{where} is declared categorical (datasets.{dataset}.categorical) but {advice}; take it out of "
                f"datasets.{dataset}.categorical (one-hot encoding would make {len(levels)} columns of a number)"
            )
        return None
    if advice:
        return f"{where} is text, but {advice}"
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


def _looks_continuous(levels) -> bool:
    """True for more than :data:`MAX_CLASSES_BEFORE_ASKING` classes that are all numbers, some of
    them not integers."""
    if len(levels) <= MAX_CLASSES_BEFORE_ASKING:
        return False
    numbers = pd.to_numeric(pd.Series([str(v) for v in levels]), errors="coerce")
    if numbers.isna().any():
        return False
    return bool((numbers != np.round(numbers)).any())


def _target_problem(frame: pd.DataFrame, dataset: str, target: str, task: str, policy: str) -> str | None:
    values = frame[target]
    where = f"dataset {dataset!r}: the target {target!r}"
    if policy == "error":
        infinite = _infinite_problem(values, where, dataset, fix_drop=False)
        if infinite:
            return infinite
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
    if task == "classification" and _looks_continuous(levels):
        return (
            f"dataset {dataset!r}: the classification target {target!r} has {len(levels)} classes in "
            f"{int(values.notna().sum())} rows, numbers that are not all integers ({_quoted(levels)}): a "
            f"continuous response; set datasets.{dataset}.task: regression"
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
    source_kind: str = "file",
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
    source_kind : str
        ``datasets.<d>.source.kind``: for ``file`` the advice names ``source.read_options`` keys.

    Returns
    -------
    list of str
        The target's problem first (infinite or missing values under ``error``, a constant
        regression target, a single class, many classes that look continuous), then each
        feature's in column order: infinite values (``error``), empty (all missing), constant,
        missing values (``error``), and, for a non-numeric column, numbers read as text (also when
        declared categorical), dates, identifier or text. Each line names the dataset, the column and the config key of the fix.
    """
    problems = []
    target_problem = _target_problem(frame, dataset, target, task, policy)
    if target_problem:
        problems.append(target_problem)
    cats = set(categorical)
    for column in features:
        problem = _column_problem(
            frame, dataset, column, categorical=column in cats, policy=policy, source_kind=source_kind
        )
        if problem:
            problems.append(problem)
    return problems

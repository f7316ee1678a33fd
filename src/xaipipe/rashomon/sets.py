"""Empirical Rashomon sets of a hyperparameter grid, from cross-validation summaries.

Definitions
-----------
Fisher, Rudin & Dominici (2019), JMLR 20(177), §4 (the Rashomon set and its
empirical analogue): for a model class :math:`\\mathcal F`, a loss with expected
value :math:`e(f)` and a *reference model* :math:`f_{ref}`, the Rashomon set is

.. math:: \\mathcal R(\\epsilon) = \\{ f \\in \\mathcal F : e(f) \\le e(f_{ref}) + \\epsilon \\},

the models whose loss is at most :math:`\\epsilon` above the reference's
(:math:`\\epsilon \\ge 0`, in loss units; seed 001 §4.1.3). The empirical set
:math:`\\hat{\\mathcal R}(\\epsilon)` replaces :math:`e` by an estimate
:math:`\\hat e`. Here :math:`\\mathcal F` is the finite grid of configurations
that was cross-validated (one or several model families) and :math:`\\hat e(f)`
is the configuration's mean K-fold CV loss, the ``<metric>_mean`` column of
:func:`xaipipe.models.cv.summarize_cv` (``rmse`` for regression, ``log_loss`` for
classification in the pipeline). Because the loss is estimated on validation
folds, not on the data the models were fitted to, the set is not biased towards
over-fitted configurations.

Three ways to give :math:`\\epsilon` (``mode``):

* ``"se"`` (the pipeline's default): in units of the reference model's CV
  standard error, :math:`\\hat e(f) \\le \\hat e(f_{ref}) + \\epsilon\\,
  \\widehat{SE}(f_{ref})` with :math:`\\widehat{SE} = s_K / \\sqrt K`, :math:`s_K`
  the sample standard deviation (``ddof=1``) of the reference's :math:`K` fold
  losses. :math:`\\epsilon = 1` is the one-standard-error rule (Breiman, Friedman,
  Olshen & Stone 1984, CART §3.4.3; Hastie, Tibshirani & Friedman 2009, ESL
  §7.10): the models cross-validation cannot tell apart from the best. The
  absolute bound it gives (``loss_bound``) is recorded with every set;
* ``"absolute"``: :math:`\\hat e(f) - \\hat e(f_{ref}) \\le \\epsilon` (loss units,
  Fisher et al.'s form);
* ``"relative"``: :math:`(\\hat e(f) - \\hat e(f_{ref})) / \\hat e(f_{ref}) \\le
  \\epsilon`, i.e. :math:`\\hat e(f) \\le (1 + \\epsilon)\\, \\hat e(f_{ref})`
  (unit free, comparable across datasets: the multiplicative form
  :math:`L(f) \\le (1+\\epsilon) L(f^*)` of Dong & Rudin 2020, "Exploring the cloud
  of variable importance for the set of all good models", Nat. Mach. Intell. 2;
  Semenova et al. 2022 use the additive form). With ``rmse`` as loss, a relative
  :math:`\\epsilon` on the RMSE is :math:`(1+\\epsilon)^2 - 1` on the MSE.

All are decided through the *gap* column (``(loss - loss_ref) / SE_ref``,
``loss - loss_ref`` or ``(loss - loss_ref) / loss_ref``): a configuration is in
:math:`\\hat{\\mathcal R}(\\epsilon)` iff ``gap <= epsilon``. Hence the sets are nested in
:math:`\\epsilon` exactly (no rounding can break it) and the reference (gap 0) is
always a member.

Reference model. Fisher et al. take :math:`f_{ref}` *prespecified*; the default
here is the grid's best configuration (lowest CV loss, first in table order on
ties, as :func:`xaipipe.models.cv.select_best`), the usual choice in practice and
the seed's. Another configuration can be given.

Cross-family sets. Concatenating the summaries of several families gives one
class :math:`\\mathcal F = \\bigcup_k \\mathcal F_k`; with the default reference
(the global best) a configuration of family :math:`k` is in the cross-family set
iff its loss is within :math:`\\epsilon` of the global best. Configurations are
identified by ``(family, config_id)``.

Rashomon ratio (Semenova, Rudin & Parr 2022, FAccT, "On the existence of simpler
machine learning models"):
the volume of the Rashomon set divided by that of the hypothesis space; for a
finite grid (the counting measure) it is ``|R(ε)| / |F|``. The denominator is the
whole grid, failed configurations included (they are part of the searched class
but can never be members); ``n_failed`` reports them.

Failed configurations (``status != "ok"``, e.g. QDA with a singular covariance)
have no loss and are never members.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
import pandas as pd

__all__ = [
    "EPSILON_MODES",
    "RashomonSet",
    "rashomon_set",
    "rashomon_path",
    "rashomon_scopes",
    "set_sizes",
    "cv_standard_error",
    "configuration_key",
    "hyperparameter_setting_key",
    "epsilon_min",
    "check_epsilons",
    "scope_name",
    "CROSS_FAMILY",
    "QUANTITIES",
    "SCOPES",
    "select_set",
]

#: Allowed values of ``mode``.
EPSILON_MODES = ("se", "relative", "absolute")
#: Scope label of a set built from several families.
CROSS_FAMILY = "cross_family"

#: Scope kinds: each family's own set, and the set over all families together.
SCOPES = ("family", CROSS_FAMILY)

#: MR quantities summarised by MCR (Fisher et al.'s ratio first).
QUANTITIES = ("mr_ratio", "mr_difference")

_KEY = ["family", "config_id"]


@dataclass(frozen=True)
class RashomonSet:
    """An empirical Rashomon set :math:`\\hat{\\mathcal R}(\\epsilon)` of a finite grid.

    Attributes
    ----------
    table : DataFrame
        One row per configuration of the grid (input order), with the input
        columns plus ``loss`` (the CV loss used), ``gap`` (distance to the
        reference in the units of ``mode``; NaN for failed configurations),
        ``in_set`` (bool) and ``is_reference`` (bool).
    epsilon : float
    mode : {"relative", "absolute"}
    metric : str
        Loss column stem (``<metric>_mean`` was read).
    reference : pandas.Series
        The reference configuration's row of ``table``.
    threshold : float
        Largest loss admitted, ``loss_ref + ε`` or ``loss_ref (1 + ε)``
        (informative; membership is decided on ``gap``).
    scope : str
        The family name for a one-family grid, :data:`CROSS_FAMILY` otherwise.
    """

    table: pd.DataFrame
    epsilon: float
    mode: str
    metric: str
    reference: pd.Series
    threshold: float
    scope: str

    @property
    def members(self) -> pd.DataFrame:
        """Rows of the configurations in the set, in table order."""
        return self.table[self.table["in_set"]]

    @property
    def size(self) -> int:
        """``|R(ε)|``, the number of member configurations."""
        return int(self.table["in_set"].sum())

    @property
    def grid_size(self) -> int:
        """``|F|``, every configuration of the grid (failed ones included)."""
        return int(len(self.table))

    @property
    def n_failed(self) -> int:
        """Configurations with ``status != "ok"``."""
        return int((~self._ok()).sum())

    @property
    def ratio(self) -> float:
        """Rashomon ratio ``|R(ε)| / |F|`` (Semenova et al. 2022, counting measure)."""
        return self.size / self.grid_size

    def _ok(self) -> pd.Series:
        return self.table["status"].astype(str) == "ok"

    @property
    def reference_se(self) -> float:
        """CV standard error of the reference loss (:func:`cv_standard_error`; NaN
        without the ``<metric>_std`` / ``n_folds`` columns): the scale on which an ε
        is "within CV noise" (the one-standard-error rule)."""
        return cv_standard_error(self.reference, self.metric)

    @property
    def loss_bound(self) -> float:
        """The absolute loss bound of the set, ``loss_ref + ε_abs`` (= :attr:`threshold`)."""
        return self.threshold

    def threshold_at(self, epsilon: float) -> float:
        """The loss bound of this scope's set at another ``epsilon`` (same reference and mode)."""
        ref = float(self.reference["loss"])
        eps = float(epsilon)
        return {"absolute": ref + eps, "relative": ref * (1.0 + eps), "se": ref + eps * self.reference_se}[self.mode]

    @property
    def n_configurations(self) -> int:
        """Distinct configurations among the members: ensemble prefixes of one
        configuration (values of ``n_estimators``) count once (:func:`configuration_key`)."""
        return self._n_distinct(configuration_key)

    @property
    def n_hyperparameter_settings(self) -> int:
        """Distinct hyperparameter settings among the members: as
        :attr:`n_configurations`, and the ``random_state`` replicates of one setting
        also count once (:func:`hyperparameter_setting_key`)."""
        return self._n_distinct(hyperparameter_setting_key)

    def _n_distinct(self, key) -> int:
        m = self.members
        return len({key(f, c) for f, c in zip(m["family"], m["config_id"])})

    @property
    def families(self) -> list[str]:
        """Families with at least one member, in table order."""
        return list(pd.unique(self.members["family"].astype(str)))

    def summary(self) -> dict:
        """Scalar description: scope, epsilon, mode, metric, reference, threshold
        (= ``loss_bound``, the absolute bound actually used) and ``epsilon_abs``
        (``loss_bound - reference_loss``), size, distinct configurations, distinct
        hyperparameter settings (``random_state`` replicates count once), families,
        grid_size, n_failed, ratio, and the reference's CV standard error (absolute
        and relative to its loss)."""
        se = self.reference_se
        loss = float(self.reference["loss"])
        return {
            "scope": self.scope,
            "epsilon": self.epsilon,
            "epsilon_mode": self.mode,
            "metric": self.metric,
            "reference_family": str(self.reference["family"]),
            "reference_config_id": str(self.reference["config_id"]),
            "reference_loss": float(self.reference["loss"]),
            "threshold": self.threshold,
            "loss_bound": self.loss_bound,
            "epsilon_abs": self.loss_bound - loss,
            "size": self.size,
            "n_configurations": self.n_configurations,
            "n_families": len(self.families),
            "families": ";".join(self.families),
            "grid_size": self.grid_size,
            "n_failed": self.n_failed,
            "ratio": self.ratio,
            "reference_se": se,
            "reference_se_relative": se / loss if loss > 0 else float("nan"),
            "n_hyperparameter_settings": self.n_hyperparameter_settings,
        }


def scope_name(summary: pd.DataFrame) -> str:
    """The family name if ``summary`` holds one family, else :data:`CROSS_FAMILY`."""
    fams = pd.unique(summary["family"].astype(str))
    return str(fams[0]) if len(fams) == 1 else CROSS_FAMILY


def _check_epsilon(epsilon: Any, name: str = "epsilon") -> float:
    if isinstance(epsilon, (bool, np.bool_)):
        raise ValueError(f"{name} must be a number >= 0, got {epsilon!r}")
    try:
        eps = float(epsilon)
    except (TypeError, ValueError):
        raise ValueError(f"{name} must be a number >= 0, got {epsilon!r}") from None
    if not np.isfinite(eps) or eps < 0:
        raise ValueError(f"{name} must be a finite number >= 0, got {epsilon!r}")
    return eps


def check_epsilons(epsilons: Sequence[float]) -> list[float]:
    """Validate an ε grid: a non-empty sequence of finite numbers >= 0, returned
    sorted ascending without duplicates.

    Raises
    ------
    ValueError
        Empty grid, a scalar, or an invalid value.
    """
    if isinstance(epsilons, (str, bytes)) or np.ndim(epsilons) != 1:
        raise ValueError(f"epsilons must be a 1-D sequence of numbers, got {epsilons!r}")
    values = [_check_epsilon(e, "each epsilon") for e in epsilons]
    if not values:
        raise ValueError("epsilons is empty")
    return sorted(set(values))


def _check_mode(mode: str) -> str:
    if mode not in EPSILON_MODES:
        raise ValueError(f"mode must be one of {EPSILON_MODES}, got {mode!r}")
    return mode


def _check_summary(summary: pd.DataFrame, metric: str) -> pd.DataFrame:
    if not isinstance(summary, pd.DataFrame):
        raise TypeError(f"summary must be a pandas DataFrame, got {type(summary).__name__}")
    if summary.empty:
        raise ValueError("summary has no rows")
    from ..models.metrics import LOWER_IS_BETTER

    if metric not in LOWER_IS_BETTER:
        raise ValueError(f"metric {metric!r} is not a loss; choose one of {sorted(LOWER_IS_BETTER)}")
    column = f"{metric}_mean"
    missing = [c for c in ["family", "config_id", "status", column] if c not in summary.columns]
    if missing:
        raise ValueError(
            f"summary lacks column(s) {missing}; expected the output of "
            f"xaipipe.models.cv.summarize_cv with metric {metric!r}"
        )
    keys = summary[_KEY].astype(str)
    dup = keys.duplicated(keep=False)
    if dup.any():
        first = keys[dup].iloc[0].tolist()
        raise ValueError(f"summary has duplicate (family, config_id) rows, e.g. {first}")
    table = summary.reset_index(drop=True).copy()
    ok = table["status"].astype(str) == "ok"
    loss = pd.to_numeric(table[column], errors="coerce").to_numpy(dtype=float)
    bad = ok.to_numpy() & ~np.isfinite(loss)
    if bad.any():
        cid = table.loc[bad, "config_id"].iloc[0]
        raise ValueError(f"configuration {cid!r} has status 'ok' but a non-finite {column}")
    if (loss[ok.to_numpy()] < 0).any():
        raise ValueError(f"{column} has negative values; a loss must be >= 0")
    if not ok.any():
        raise ValueError("every configuration failed; no Rashomon set can be formed")
    table["loss"] = np.where(ok.to_numpy(), loss, np.nan)
    return table


def _reference_index(table: pd.DataFrame, reference) -> int:
    ok = (table["status"].astype(str) == "ok").to_numpy()
    if reference is None:
        loss = np.where(ok, table["loss"].to_numpy(dtype=float), np.inf)
        return int(np.argmin(loss))
    if isinstance(reference, str):
        hit = np.flatnonzero(table["config_id"].astype(str).to_numpy() == reference)
        if len(hit) > 1:
            raise ValueError(
                f"reference {reference!r} matches configurations of several families; give (family, config_id)"
            )
        label = reference
    elif isinstance(reference, Mapping):
        fam, cid = reference.get("family"), reference.get("config_id")
        hit = np.flatnonzero(
            (table["family"].astype(str).to_numpy() == str(fam))
            & (table["config_id"].astype(str).to_numpy() == str(cid))
        )
        label = (fam, cid)
    elif isinstance(reference, (tuple, list)) and len(reference) == 2:
        fam, cid = reference
        hit = np.flatnonzero(
            (table["family"].astype(str).to_numpy() == str(fam))
            & (table["config_id"].astype(str).to_numpy() == str(cid))
        )
        label = tuple(reference)
    else:
        raise ValueError(f"reference must be None, a config_id, (family, config_id) or a mapping; got {reference!r}")
    if len(hit) == 0:
        raise ValueError(f"reference {label!r} is not a configuration of the summary")
    if not ok[hit[0]]:
        raise ValueError(f"reference {label!r} failed in cross-validation; it has no loss")
    return int(hit[0])


def cv_standard_error(row, metric: str) -> float:
    """Standard error of a configuration's mean K-fold CV loss.

    ``s_K / sqrt(K)`` with ``s_K`` the sample standard deviation (``ddof=1``) of
    the K fold losses, recovered from the summary's ``<metric>_std`` (``ddof=0``,
    as ``GridSearchCV``) as ``std * sqrt(K / (K - 1))``; i.e. ``std / sqrt(K - 1)``.
    Hastie, Tibshirani & Friedman (2009), ESL §7.10, the standard error of the CV
    estimate used by the one-standard-error rule. NaN without the columns or
    with ``K < 2``.
    """
    std, folds = f"{metric}_std", "n_folds"
    if std not in row or folds not in row:
        return float("nan")
    k = float(row[folds])
    if not k >= 2:
        return float("nan")
    return float(row[std]) / float(np.sqrt(k - 1.0))


def configuration_key(family: str, config_id: str) -> str:
    """``family:config_id`` without ``n_estimators``: the key under which the ensemble
    prefixes of one configuration are one configuration."""
    return _key_without(family, config_id, ())


def hyperparameter_setting_key(family: str, config_id: str) -> str:
    """``family:config_id`` without ``n_estimators`` and ``random_state``: the key under
    which the ensemble prefixes *and* the ``random_state`` replicates of one
    hyperparameter setting (``rashomon.sample`` ``replicates``) are one setting.

    Replicates are different fitted models (row subsampling, bootstrap), hence distinct
    members and distinct configurations; this key tells how many of them differ in
    something other than the seed of the learner."""
    return _key_without(family, config_id, ("random_state",))


def _key_without(family: str, config_id: str, drop: tuple[str, ...]) -> str:
    from ..models.families import PREFIX_PARAM
    from ..models.grid import config_id as make_id
    from ..models.grid import params_from_config_id

    params = params_from_config_id(str(config_id))
    for name in (PREFIX_PARAM, *drop):
        params.pop(name, None)
    return f"{family}:{make_id(params)}"


def _gap(loss: np.ndarray, ref: float, mode: str, se: float = float("nan")) -> np.ndarray:
    if mode == "absolute":
        return loss - ref
    if mode == "se":
        if not (np.isfinite(se) and se > 0):
            raise ValueError(
                f"epsilon mode 'se' needs the reference's CV standard error > 0 (columns <metric>_std, n_folds); "
                f"got {se!r}; use mode='relative' or 'absolute'"
            )
        return (loss - ref) / se
    if ref <= 0:
        raise ValueError(f"relative epsilon needs a reference loss > 0, got {ref!r}; use mode='absolute'")
    return (loss - ref) / ref


def rashomon_set(
    summary: pd.DataFrame,
    *,
    metric: str,
    epsilon: float,
    mode: str = "relative",
    reference=None,
) -> RashomonSet:
    """The empirical Rashomon set :math:`\\hat{\\mathcal R}(\\epsilon)` of a CV grid.

    Fisher, Rudin & Dominici (2019) §4: ``{f : ê(f) <= ê(f_ref) + ε}``; see the
    module docstring for the relative form and the choices made.

    Parameters
    ----------
    summary : DataFrame
        One row per configuration: the output of
        :func:`xaipipe.models.cv.summarize_cv` for one family, or several
        families' summaries concatenated (a cross-family set). Needs ``family``,
        ``config_id``, ``status`` and ``<metric>_mean``; ``(family, config_id)``
        must be unique.
    metric : str
        Loss whose CV mean defines the set (``rmse``, ``mse``, ``mae``,
        ``log_loss``, ``error_rate``, ``brier``).
    epsilon : float
        Tolerance ``>= 0``: CV standard errors of the reference (``mode="se"``; 1 =
        the one-standard-error rule), loss units (``mode="absolute"``) or a
        fraction of the reference loss (``mode="relative"``; 0.05 = within 5 %).
    mode : {"se", "relative", "absolute"}, default "relative"
    reference : None, str, (family, config_id) or mapping, optional
        The reference model :math:`f_{ref}`. Default: the configuration with the
        lowest CV loss (first in row order on ties). A bare ``config_id`` is
        accepted when it is unambiguous.

    Returns
    -------
    RashomonSet
        ``.table`` (every configuration with ``loss``, ``gap``, ``in_set``,
        ``is_reference``), ``.members``, ``.size``, ``.grid_size``, ``.ratio``
        (Rashomon ratio ``size / grid_size``), ``.reference``, ``.threshold``.

    Raises
    ------
    TypeError
        ``summary`` is not a DataFrame.
    ValueError
        Missing columns, a metric that is not a loss, duplicate configurations,
        negative or non-finite losses of ``ok`` rows, every configuration failed,
        an invalid ``epsilon`` / ``mode`` / ``reference``, or ``mode="relative"``
        with a reference loss of 0.

    Examples
    --------
    >>> import pandas as pd
    >>> s = pd.DataFrame({"family": "gb", "config_id": ["a", "b", "c"],
    ...                   "status": "ok", "rmse_mean": [1.0, 1.04, 1.2]})
    >>> r = rashomon_set(s, metric="rmse", epsilon=0.05)
    >>> r.members["config_id"].tolist(), r.size, round(r.ratio, 3)
    (['a', 'b'], 2, 0.667)
    """
    eps = _check_epsilon(epsilon)
    mode = _check_mode(mode)
    table = _check_summary(summary, metric)
    ref_i = _reference_index(table, reference)
    ref_loss = float(table["loss"].iloc[ref_i])
    se = cv_standard_error(table.iloc[ref_i], metric)
    gap = _gap(table["loss"].to_numpy(dtype=float), ref_loss, mode, se)
    gap[ref_i] = 0.0
    table["gap"] = gap
    with np.errstate(invalid="ignore"):
        table["in_set"] = np.nan_to_num(gap, nan=np.inf) <= eps
    table["is_reference"] = np.arange(len(table)) == ref_i
    threshold = {"absolute": ref_loss + eps, "relative": ref_loss * (1.0 + eps), "se": ref_loss + eps * se}[mode]
    return RashomonSet(
        table=table,
        epsilon=eps,
        mode=mode,
        metric=metric,
        reference=table.iloc[ref_i],
        threshold=float(threshold),
        scope=scope_name(table),
    )


def epsilon_min(gap, epsilons: Sequence[float]) -> np.ndarray:
    """Smallest ε of a grid whose Rashomon set contains each configuration.

    Parameters
    ----------
    gap : array-like of shape (n,)
        ``RashomonSet.table["gap"]`` (NaN for failed configurations).
    epsilons : sequence of float
        The ε grid (any order).

    Returns
    -------
    ndarray of shape (n,)
        ``min{ε in grid : gap <= ε}``; NaN when no grid value admits the
        configuration. A configuration is in ``R(ε_k)`` iff ``epsilon_min <= ε_k``.
    """
    grid = np.asarray(check_epsilons(epsilons))
    g = np.asarray(gap, dtype=float)
    pos = np.searchsorted(grid, np.nan_to_num(g, nan=np.inf), side="left")
    out = np.full(g.shape, np.nan)
    ok = pos < grid.size
    out[ok] = grid[pos[ok]]
    return out


def rashomon_path(
    summary: pd.DataFrame,
    *,
    metric: str,
    epsilons: Sequence[float],
    mode: str = "relative",
    reference=None,
) -> tuple[pd.DataFrame, pd.DataFrame]:
    """ε-sensitivity of the Rashomon set: the nested sets for a grid of ε.

    Parameters
    ----------
    summary, metric, mode, reference
        As :func:`rashomon_set`.
    epsilons : sequence of float
        ε grid (sorted ascending, duplicates dropped).

    Returns
    -------
    sizes : DataFrame
        One row per ε: ``scope``, ``epsilon``, ``epsilon_mode``, ``metric``,
        ``reference_family``, ``reference_config_id``, ``reference_loss``,
        ``threshold``, ``size``, ``grid_size``, ``n_failed``, ``ratio`` and one
        ``size_<family>`` column per family (members of each family).
    membership : DataFrame
        The configurations of the largest set, columns ``family``,
        ``config_id``, ``loss``, ``gap``, ``epsilon_min`` (see
        :func:`epsilon_min`) and one boolean column per ε (named by
        ``repr(ε)``): ``R(ε)`` membership.

    Raises
    ------
    ValueError
        As :func:`rashomon_set`, or an invalid ε grid.
    """
    grid = check_epsilons(epsilons)
    sets = [rashomon_set(summary, metric=metric, epsilon=e, mode=mode, reference=reference) for e in grid]
    families = list(pd.unique(sets[0].table["family"].astype(str)))
    rows = []
    for rs in sets:
        rec = rs.summary()
        fam = rs.members["family"].astype(str)
        for f in families:
            rec[f"size_{f}"] = int((fam == f).sum())
        rows.append(rec)
    largest = sets[-1]
    memb = largest.members[["family", "config_id", "loss", "gap"]].copy()
    memb["epsilon_min"] = epsilon_min(memb["gap"], grid)
    for e, rs in zip(grid, sets):
        memb[repr(e)] = rs.table.loc[memb.index, "in_set"].to_numpy()
    return pd.DataFrame(rows), memb.reset_index(drop=True)


def select_set(members: pd.DataFrame, scope: str, epsilon: float, *, allow_empty: bool = False) -> pd.DataFrame:
    """Rows of a :func:`~xaipipe.rashomon.members.member_table` in the Rashomon set of ``scope`` at ``epsilon``.

    Parameters
    ----------
    members : DataFrame
        :func:`~xaipipe.rashomon.members.member_table` output.
    scope : str
        A family name or ``"cross_family"``.
    epsilon : float
        Must not exceed the largest ε of the grid the table was built for (larger
        sets were not refitted).
    allow_empty : bool, default False
        Return an empty selection instead of raising (e.g. the rows of one
        ``rashomon_refit`` job's families).

    Returns
    -------
    DataFrame
        The member rows with ``min_epsilon_<scope kind> <= epsilon`` (for a family
        scope, only that family's rows).

    Raises
    ------
    ValueError
        Unknown scope, or an empty selection unless ``allow_empty``.
    """
    if scope == CROSS_FAMILY:
        part, col = members, f"min_epsilon_{CROSS_FAMILY}"
    else:
        if scope not in set(members["family"].astype(str)):
            raise ValueError(f"scope {scope!r} is neither 'cross_family' nor a family of the table")
        part, col = members[members["family"].astype(str) == scope], "min_epsilon_family"
    out = part[part[col] <= float(epsilon)]
    if out.empty and not allow_empty:
        raise ValueError(f"no members of scope {scope!r} at epsilon={epsilon}")
    return out


def rashomon_scopes(
    summary: pd.DataFrame,
    *,
    metric: str,
    epsilon: float,
    mode: str = "relative",
    scopes: Sequence[str] = SCOPES,
    references: Mapping[str, Any] | None = None,
) -> dict:
    """Rashomon sets of every scope at one ε.

    Parameters
    ----------
    summary : DataFrame
        CV summaries of one dataset, one or several families concatenated.
    scopes : sequence of {"family", "cross_family"}
        ``"family"``: one set per family (its own reference); ``"cross_family"``:
        one set over all rows (skipped when there is only one family).
    references : mapping scope -> reference, optional
        Reference per scope name (a family name or ``"cross_family"``), as
        :func:`~xaipipe.rashomon.sets.rashomon_set`'s ``reference``.

    Returns
    -------
    dict scope name -> RashomonSet
    """
    bad = [s for s in scopes if s not in SCOPES]
    if bad or not scopes:
        raise ValueError(f"scopes must be a non-empty subset of {list(SCOPES)}, got {list(scopes)}")
    references = dict(references or {})
    out = {}
    fams = list(pd.unique(summary["family"].astype(str)))
    if "family" in scopes:
        for fam in fams:
            part = summary[summary["family"].astype(str) == fam]
            out[fam] = rashomon_set(part, metric=metric, epsilon=epsilon, mode=mode, reference=references.get(fam))
    if CROSS_FAMILY in scopes and (len(fams) > 1 or "family" not in scopes):
        out[CROSS_FAMILY] = rashomon_set(
            summary, metric=metric, epsilon=epsilon, mode=mode, reference=references.get(CROSS_FAMILY)
        )
    return out


def set_sizes(
    summary: pd.DataFrame,
    *,
    metric: str,
    epsilons: Sequence[float],
    mode: str = "relative",
    scopes: Sequence[str] = SCOPES,
) -> pd.DataFrame:
    """ε-sensitivity of the set sizes of every scope (the ``sets.csv`` table).

    The scopes are those of :func:`rashomon_scopes` (the same rule decides which
    exist: a cross-family set needs several families unless it is the only scope
    asked for), family scopes in alphabetical order, then ``cross_family``.

    Returns
    -------
    DataFrame
        :func:`rashomon_path`'s ``sizes`` table of every scope, stacked, with its
        ``scope`` column.

    Raises
    ------
    ValueError
        As :func:`rashomon_scopes` / :func:`rashomon_path`.
    """
    names = list(
        rashomon_scopes(summary, metric=metric, epsilon=check_epsilons(epsilons)[-1], mode=mode, scopes=scopes)
    )
    order = sorted(n for n in names if n != CROSS_FAMILY) + [n for n in names if n == CROSS_FAMILY]
    tables = []
    for name in order:
        part = summary if name == CROSS_FAMILY else summary[summary["family"].astype(str) == name]
        table, _ = rashomon_path(part, metric=metric, epsilons=epsilons, mode=mode)
        tables.append(table.assign(scope=name))
    return pd.concat(tables, ignore_index=True)

"""PD and ALE curves of every Rashomon-set member, for every variable (the explorer's effects view).

The ``rashomon`` rule stores the PD curves of the envelope's ``top_k`` variables only
(``pd_curves.csv``) and no fitted models. :func:`member_effects` refits the members of the
``figure_scope`` set at the largest ε of the grid (the ε range of the explorer's slider), exactly as
the ``rashomon`` rule refits them (:func:`xaipipe.rashomon.refit.fit_member_groups`: the same
settings and seed, hence the same models; tested against ``pd_curves.csv``), and evaluates on the
test rows:

* PD (Friedman 2001, §8.2) on the grid of :func:`xaipipe.rashomon.envelope.members_curves`
  (``rashomon.pd.resolution`` quantiles, or the levels of a one-hot group), one batched pass per
  fitted group;
* first-order ALE (Apley & Zhu 2020; :func:`xaipipe.explain.pdp.accumulated_local_effects`:
  ``explain.ale.n_bins`` quantile bins or the ordered levels of a one-hot group, the configured
  centering). The bins depend on the data only, so every member's ALE is on the same grid; the
  ensemble prefixes of one fitted group share one prediction pass per stacked data set.
"""

from __future__ import annotations

import hashlib
from collections.abc import Sequence

import numpy as np
import pandas as pd

from ..explain.pdp import accumulated_local_effects
from ..explain.reliance import features_from_groups
from ..models.prefix import member_predictor
from .envelope import members_curves, variable_grid
from .linear import LINEAR_EXACT
from .members import _member_base
from .refit import FittedGroup, refit_members
from .sets import check_epsilons, rashomon_scopes, select_set

__all__ = ["EFFECT_COLUMNS", "member_effects", "members_ale"]

#: Columns of ``member_effects.csv``.
EFFECT_COLUMNS = ["feature", "kind", "family", "config_id", "grid_index", "x", "level", "value"]


class _PrefixOutputs:
    """All prefixes' outputs of one fitted group on every data set asked for so far (ALE asks each
    member in turn for the same stacked data sets: one prediction pass serves every prefix). One
    instance per variable and group: it holds ``(prefixes, rows)`` outputs of that variable's data
    sets only."""

    def __init__(self, group: FittedGroup, class_index: int):

        self._predict = member_predictor(group.model, group.n_estimators or None)
        self._class_index = class_index
        self._outputs: dict[tuple, np.ndarray] = {}

    def member(self, i: int):
        def f(X) -> np.ndarray:
            Xv = np.ascontiguousarray(X, dtype=np.float64)
            key = (Xv.shape, hashlib.blake2b(Xv.tobytes(), digest_size=16).digest())
            if key not in self._outputs:
                out = np.asarray(self._predict(Xv), dtype=np.float64)
                self._outputs[key] = out[..., self._class_index] if out.ndim == 3 else out
            return self._outputs[key][i]

        return f


def members_ale(
    groups: Sequence[FittedGroup],
    X,
    *,
    feature_names: Sequence[str],
    feature_groups=None,
    n_bins: int = 20,
    centering: str = "ale_plot",
    class_index: int = 1,
) -> pd.DataFrame:
    """First-order ALE of every member of ``groups`` for every variable.

    Parameters
    ----------
    groups : sequence of FittedGroup
    X : array-like of shape (n, p)
        The rows defining the bins and the local effects (the test split).
    feature_names, feature_groups
        Variables (a one-hot group is one variable, its levels in ALE order).
    n_bins, centering
        :func:`xaipipe.explain.pdp.accumulated_local_effects`.
    class_index : int, default 1
        Probability column of classifiers.

    Returns
    -------
    DataFrame
        :data:`EFFECT_COLUMNS` with ``kind = "ale"``: ``x`` the bin edge (numeric variable) or the
        level's position in ALE order, ``level`` its label (empty for a numeric variable),
        ``value`` the centred ALE (model output units). A variable whose ALE is undefined (constant
        on the rows, a group that is not one-hot) is left out.
    """

    Xv = np.asarray(X.to_numpy() if hasattr(X, "to_numpy") else X, dtype=np.float64)
    spec = features_from_groups(feature_names, feature_groups)
    rows = []
    for feature in spec:
        for grp in groups:
            cache = _PrefixOutputs(grp, class_index)
            for i, cid in enumerate(grp.config_ids):
                try:
                    res = accumulated_local_effects(
                        cache.member(i),
                        Xv,
                        feature,
                        feature_names=feature_names,
                        feature_groups=feature_groups,
                        n_bins=n_bins,
                        centering=centering,
                    )
                except ValueError:
                    break  # the variable has no ALE on these rows: the same for every member
                levels = list(res.levels) if res.levels is not None else [""] * len(res.ale)
                for k, (x, value) in enumerate(zip(res.values, res.ale)):
                    rows.append((feature, "ale", grp.family, str(cid), k, float(x), levels[k], float(value)))
            else:
                continue
            break
    return pd.DataFrame(rows, columns=EFFECT_COLUMNS)


def _pd_rows(groups, Xv, feature_names, feature_groups, resolution, class_index) -> pd.DataFrame:
    """:func:`members_curves` (the ``rashomon`` rule's grids) with ``kind``, ``x``, ``level``."""
    curves = members_curves(
        groups,
        Xv,
        feature_names=feature_names,
        feature_groups=feature_groups,
        resolution=resolution,
        percentiles=(0.0, 1.0),
        skip_invalid=True,
        class_index=class_index,
    )
    spec = features_from_groups(feature_names, feature_groups)
    xs, levels = [], []
    for feature, part in curves.groupby("feature", sort=False):
        cols = spec[feature]
        grid, labels = variable_grid(Xv, cols, feature_names, resolution=resolution, percentiles=(0.0, 1.0))
        idx = part["grid_index"].to_numpy()
        if len(cols) > 1:
            xs.append(idx.astype(float))
            levels.append(np.asarray(labels, dtype=object)[idx])
        else:
            xs.append(np.asarray(grid, dtype=float)[idx])
            levels.append(np.full(len(idx), "", dtype=object))
    out = curves.rename(columns={"pd": "value"})
    out["kind"] = "pd"
    out["x"] = np.concatenate(xs) if xs else []
    out["level"] = np.concatenate(levels) if levels else []
    return out[EFFECT_COLUMNS]


def member_effects(
    data,
    settings,
    summary: pd.DataFrame,
    *,
    n_bins: int = 20,
    centering: str = "ale_plot",
    class_index: int = 1,
    n_jobs: int = 1,
) -> pd.DataFrame:
    """The ``rashomon_effects`` rule: PD and ALE of every member of the figure scope's largest set.

    Parameters
    ----------
    data : PreparedData
        The dataset's split (:func:`xaipipe.data.prepare.load_prepared`).
    settings : RashomonSettings
        The ``rashomon`` rule's settings (ε grid and rule, scopes, ``figure_scope``, seed,
        estimator options, ``pd["resolution"]``).
    summary : DataFrame
        The dataset's CV summaries, every family of the model class, concatenated.
    n_bins, centering
        ALE bins and centering (config ``explain.ale``).
    class_index : int, default 1
        Probability column of classifiers (as the ``rashomon`` rule's ``pd_class_index``).
    n_jobs : int
        Processes of the refits.

    Returns
    -------
    DataFrame
        :data:`EFFECT_COLUMNS`: the PD rows (``kind = "pd"``, every variable with a grid) then the
        ALE rows (``kind = "ale"``), members in refit-group order.

    Raises
    ------
    ValueError
        As :func:`xaipipe.rashomon.sets.rashomon_scopes`.
    """

    grid = check_epsilons(settings.epsilons)
    scopes = [s for s in settings.scopes if s != LINEAR_EXACT]
    sets = rashomon_scopes(summary, metric=settings.metric, epsilon=grid[-1], mode=settings.epsilon_mode, scopes=scopes)
    scope = settings.figure_scope if settings.figure_scope in sets else next(iter(sets))
    chosen = select_set(_member_base(sets, grid, None), scope, grid[-1])
    groups = refit_members(data, settings, chosen[["family", "config_id"]], n_jobs)
    Xv = np.asarray(data.X_test.to_numpy() if hasattr(data.X_test, "to_numpy") else data.X_test, dtype=np.float64)
    names, fgroups = list(data.features), data.feature_groups
    pd_rows = _pd_rows(groups, Xv, names, fgroups, settings.pd["resolution"], class_index)
    ale_rows = members_ale(
        groups,
        Xv,
        feature_names=names,
        feature_groups=fgroups,
        n_bins=n_bins,
        centering=centering,
        class_index=class_index,
    )
    out = pd.concat([pd_rows, ale_rows], ignore_index=True)
    out.insert(0, "scope", scope)
    return out

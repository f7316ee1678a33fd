"""PD / ICE tables: long CSV round-trips of the effects (private; see :mod:`xaipipe.explain.pdp`)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import NamedTuple

import numpy as np
import pandas as pd

from ...config.pd_ice import PdIceSettings
from ..reliance import ranked_features
from ._effects import FeatureEffect, PairEffect
from ._grid import _check_int

_TABLE_COLUMNS = ["feature", "grid_value", "level", "kind", "row", "value"]
_PAIR_COLUMNS = ["feature_1", "feature_2", "value_1", "value_2", "pd"]
#: Columns of a pair table with a one-hot group: the level names after the values.
_PAIR_LEVEL_COLUMNS = ["feature_1", "feature_2", "value_1", "value_2", "level_1", "level_2", "pd"]


#: Fields of :class:`~xaipipe.config.pd_ice.PdIceSettings` that :func:`pd_ice_tables` passes on
#: under their own names (``grid`` goes as ``kind``).
_PLAN_SETTINGS = ("resolution", "percentiles", "anchor", "smooth", "max_curves", "pair_resolution", "max_batch_rows")


def _curve_subset(n: int, max_curves: int | None, random_state) -> np.ndarray:
    if max_curves is not None:
        max_curves = _check_int(max_curves, "max_curves", 1)
    if max_curves is None or n <= max_curves:
        return np.arange(n)
    rng = np.random.default_rng(random_state)
    return np.sort(rng.choice(n, size=max_curves, replace=False))


def _each(items, cls: type):
    """The elements of ``items`` (one ``cls`` instance or a sequence of them) one by one.

    Raises
    ------
    TypeError
        An element is not a ``cls`` (raised when the iteration reaches it).
    """
    for item in [items] if isinstance(items, cls) else items:
        if not isinstance(item, cls):
            raise TypeError(f"expected {cls.__name__}, got {type(item).__name__}")
        yield item


def effects_table(
    effects: FeatureEffect | Sequence[FeatureEffect],
    *,
    max_curves: int | None = 1000,
    random_state: int = 0,
) -> pd.DataFrame:
    """Long table of PD / ICE / c-ICE / d-ICE curves for the pipeline.

    Parameters
    ----------
    effects : FeatureEffect or sequence of FeatureEffect
    max_curves : int or None, default 1000
        Keep at most this many ICE / c-ICE / d-ICE curves per feature (a random
        subset of rows drawn with ``random_state``, the same rows for the three
        kinds; all rows when ``n_rows <= max_curves`` or None). PD, centred PD,
        d-PD and d-ICE s.d. always use every row.
    random_state : int, default 0

    Returns
    -------
    DataFrame
        Columns ``feature`` (str), ``grid_value`` (float; level index for a
        one-hot group), ``level`` (level name for a group, "" otherwise),
        ``kind`` (one of :data:`TABLE_KINDS`), ``row`` (observation identifier
        for ice / c_ice / d_ice, -1 otherwise), ``value`` (float; for
        ``kind == "decile"`` the quantile level, with ``grid_value`` the decile).

    Raises
    ------
    TypeError
        An element is not a FeatureEffect.
    """
    parts = []
    for eff in _each(effects, FeatureEffect):
        k = eff.grid.size
        level = np.array(eff.levels, dtype=object) if eff.levels is not None else np.full(k, "", dtype=object)
        keep = _curve_subset(eff.ice.shape[0], max_curves, random_state)

        def curves(kind, mat):
            m = mat[keep]
            return pd.DataFrame(
                {
                    "grid_value": np.tile(eff.grid, m.shape[0]),
                    "level": np.tile(level, m.shape[0]),
                    "kind": kind,
                    "row": np.repeat(np.asarray(eff.rows)[keep], k).astype(np.int64),
                    "value": m.ravel(),
                }
            )

        def line(kind, vec):
            return pd.DataFrame(
                {
                    "grid_value": eff.grid,
                    "level": level,
                    "kind": kind,
                    "row": np.full(k, -1, dtype=np.int64),
                    "value": np.asarray(vec, dtype=np.float64),
                }
            )

        blocks = [
            line("pd", eff.pd),
            curves("ice", eff.ice),
            curves("c_ice", eff.c_ice),
            line("pd_centered", eff.pd_centered),
        ]
        if eff.d_ice is not None:
            blocks += [curves("d_ice", eff.d_ice), line("d_pd", eff.d_pd), line("d_ice_sd", eff.d_ice_sd)]
        if eff.deciles.size:
            blocks.append(
                pd.DataFrame(
                    {
                        "grid_value": eff.deciles,
                        "level": "",
                        "kind": "decile",
                        "row": np.full(eff.deciles.size, -1, dtype=np.int64),
                        "value": np.arange(1, eff.deciles.size + 1) / (eff.deciles.size + 1),
                    }
                )
            )
        block = pd.concat(blocks, ignore_index=True)
        block.insert(0, "feature", eff.feature)
        parts.append(block)
    if not parts:
        return pd.DataFrame(
            {c: pd.Series(dtype=t) for c, t in zip(_TABLE_COLUMNS, [object, float, object, object, np.int64, float])}
        )
    return pd.concat(parts, ignore_index=True)[_TABLE_COLUMNS]


def pair_table(pairs: PairEffect | Sequence[PairEffect]) -> pd.DataFrame:
    """Long table of two-way PDs.

    Parameters
    ----------
    pairs : PairEffect or sequence of PairEffect

    Returns
    -------
    DataFrame
        Columns ``feature_1``, ``feature_2``, ``value_1``, ``value_2``, ``pd``;
        one row per grid cell, ``value_2`` varying fastest. When a pair has a
        one-hot group, ``level_1`` and ``level_2`` follow ``value_2``: the level
        name where ``value_*`` is a group's level index, ``""`` for a numeric
        feature (as ``grid_value`` and ``level`` of :func:`effects_table`).
    """
    parts = []
    for p in _each(pairs, PairEffect):
        n1, n2 = p.values_1.size, p.values_2.size
        part = pd.DataFrame(
            {
                "feature_1": p.feature_1,
                "feature_2": p.feature_2,
                "value_1": np.repeat(p.values_1, n2),
                "value_2": np.tile(p.values_2, n1),
                "pd": np.asarray(p.pd, dtype=np.float64).ravel(),
            }
        )
        levels_1 = np.full(n1, "", dtype=object) if p.levels_1 is None else np.asarray(p.levels_1, dtype=object)
        levels_2 = np.full(n2, "", dtype=object) if p.levels_2 is None else np.asarray(p.levels_2, dtype=object)
        part["level_1"] = np.repeat(levels_1, n2)
        part["level_2"] = np.tile(levels_2, n1)
        parts.append((part, p.levels_1 is not None or p.levels_2 is not None))
    if not parts:
        return pd.DataFrame(
            {c: pd.Series(dtype=t) for c, t in zip(_PAIR_COLUMNS, [object, object, float, float, float])}
        )
    columns = _PAIR_LEVEL_COLUMNS if any(grouped for _, grouped in parts) else _PAIR_COLUMNS
    return pd.concat([part for part, _ in parts], ignore_index=True)[columns]


def effect_from_table(table: pd.DataFrame, feature: str) -> FeatureEffect:
    """Rebuild a :class:`FeatureEffect` (for plotting) from :func:`effects_table` output.

    The ICE curves are those kept in the table (possibly a subset); ``output``
    is not stored in the table and is set to ``""``.

    Raises
    ------
    ValueError
        Missing columns, unknown ``feature`` or an incomplete table.
    """
    missing = [c for c in _TABLE_COLUMNS if c not in table.columns]
    if missing:
        raise ValueError(f"table lacks columns {missing}")
    t = table[table["feature"] == feature]
    if t.empty:
        raise ValueError(f"feature {feature!r} not in table (has {sorted(table['feature'].unique())})")

    def line(kind):
        s = t[t["kind"] == kind]
        return None if s.empty else s

    pd_rows = line("pd")
    if pd_rows is None:
        raise ValueError(f"table has no 'pd' rows for {feature!r}")
    grid = pd_rows["grid_value"].to_numpy(dtype=np.float64)
    levels_col = ["" if pd.isna(v) else str(v) for v in pd_rows["level"]]
    levels = tuple(levels_col) if any(levels_col) else None

    def matrix(kind):
        s = line(kind)
        if s is None:
            return None, None
        rows = pd.unique(s["row"].to_numpy())
        return s["value"].to_numpy(dtype=np.float64).reshape(rows.size, grid.size), rows

    def vector(kind):
        s = line(kind)
        return None if s is None else s["value"].to_numpy(dtype=np.float64)

    ice, rows = matrix("ice")
    c_ice, _ = matrix("c_ice")
    d_ice, _ = matrix("d_ice")
    if ice is None or c_ice is None:
        raise ValueError(f"table has no ICE curves for {feature!r}")
    pdc = vector("pd_centered")
    zero = np.flatnonzero((pdc == 0) & np.all(c_ice == 0, axis=0))
    dec = line("decile")
    return FeatureEffect(
        feature=feature,
        grid=grid,
        levels=levels,
        rows=rows,
        ice=ice,
        pd=pd_rows["value"].to_numpy(dtype=np.float64),
        c_ice=c_ice,
        pd_centered=pdc,
        anchor=int(zero[0]) if zero.size else 0,
        d_ice=d_ice,
        d_pd=vector("d_pd"),
        d_ice_sd=vector("d_ice_sd"),
        deciles=np.empty(0) if dec is None else dec["grid_value"].to_numpy(dtype=np.float64),
        output="",
    )


def pair_from_table(table: pd.DataFrame, feature_1: str, feature_2: str) -> PairEffect:
    """Rebuild a :class:`PairEffect` from :func:`pair_table` output (no deciles).

    Raises
    ------
    ValueError
        Missing columns, unknown pair, or a table that is not a full grid.
    """
    missing = [c for c in _PAIR_COLUMNS if c not in table.columns]
    if missing:
        raise ValueError(f"table lacks columns {missing}")
    t = table[(table["feature_1"] == feature_1) & (table["feature_2"] == feature_2)]
    if t.empty:
        raise ValueError(f"pair ({feature_1!r}, {feature_2!r}) not in table")
    v1 = pd.unique(t["value_1"].to_numpy(dtype=np.float64))
    v2 = pd.unique(t["value_2"].to_numpy(dtype=np.float64))
    if len(t) != v1.size * v2.size:
        raise ValueError(f"pair ({feature_1!r}, {feature_2!r}) is not a full {v1.size} x {v2.size} grid")

    def levels(column: str, size: int, every: int):
        if column not in t.columns:
            return None
        names = ["" if pd.isna(v) else str(v) for v in t[column].to_numpy()[::every][:size]]
        return tuple(names) if any(names) else None

    return PairEffect(
        feature_1=feature_1,
        feature_2=feature_2,
        values_1=v1,
        values_2=v2,
        pd=t["pd"].to_numpy(dtype=np.float64).reshape(v1.size, v2.size),
        output="",
        levels_1=levels("level_1", v1.size, v2.size),
        levels_2=levels("level_2", v2.size, 1),
    )


class PdIceTables(NamedTuple):
    """The outputs of the ``pd_ice`` rule (:func:`pd_ice_tables`); a named pair, so that
    ``curves, pairs = pd_ice_tables(...)`` unpacks it.

    Attributes
    ----------
    curves : DataFrame
        :func:`effects_table` with a leading ``rank`` column (``pd_ice.csv`` without its ids).
    pairs : DataFrame
        :func:`pair_table` of the top pair (``pd_2d.csv`` without its ids).
    """

    curves: pd.DataFrame
    pairs: pd.DataFrame

    def to_frames(self) -> dict[str, pd.DataFrame]:
        """The tables by the rule's output names (``curves``, ``pairs``)."""
        return {"curves": self.curves, "pairs": self.pairs}


def pd_ice_tables(
    model,
    data,
    settings: PdIceSettings,
    *,
    reliance: pd.DataFrame | None = None,
    top: Sequence[str] | None = None,
    extra: Sequence[str] = (),
    pair: Sequence[str] | None = None,
) -> PdIceTables:
    """The ``pd_ice`` rule: effects of the top variables (and extra ones) and the 2-D PD of a pair.

    Parameters
    ----------
    model : fitted estimator
        A forest store (:func:`xaipipe.io.open_model`) predicts one block of trees at a time, and
        all of this function's predictions come from one pass over its blocks
        (:func:`xaipipe.models.forest_store.predict_in_one_pass`; the tables are bitwise the same).
    data : PreparedData
        The dataset's split (:func:`xaipipe.data.prepare.load_prepared`; any object with these
        attributes): ``X_test`` (the rows whose ICE curves are drawn), ``features``,
        ``feature_groups``, ``test_rows`` (the ``row`` ids of the ICE curves; None: positions),
        ``task`` (regression explains ``predict``, classification
        ``settings.classification_output``) and ``classes`` (labels of a multiclass model in code
        order: the effects of every class ``k``, its probability or its one-vs-rest log-odds,
        stacked with a ``class`` column after ``rank`` (curves) or first (pairs), the same ICE rows
        for every class; None otherwise).
    settings : PdIceSettings
        :meth:`xaipipe.config.PdIceSettings.from_config` (config section ``explain.pd``):
        ``resolution``, ``grid`` (the grid ``kind``), ``percentiles``, ``anchor``, ``smooth``,
        ``pair_resolution``, ``max_batch_rows`` as :func:`explain_feature` /
        :func:`explain_pair`; ``max_curves`` (ICE curves kept in the table,
        :func:`effects_table`, seed 0); ``seed`` and the large-data group ``large_data``: where the
        test split has more than ``large_data.min_rows`` rows
        (:meth:`~xaipipe.config.PdIceSettings.large_data_rows`, ``m = large_data.pd_rows``) and
        ``n > m``, every curve and the 2-D PD are averaged over a seeded subsample of ``m`` rows
        (``np.sort(np.random.default_rng(seed).choice(n, m, replace=False))``; ICE rows are drawn
        from it), on the grid of *all* rows (numeric variables), and ``curves`` gets, per
        variable, rows of ``kind`` ``"pd_se"``: the Monte-Carlo SE of the PD at each grid point as
        an estimate of the all-rows PD, ``sd_i ICE_i(v) / sqrt(m) * sqrt(1 - m/n)`` (simple random
        sampling without replacement, finite-population correction; Cochran 1977, eq. 2.12). The
        2-D PD's SE is not reported. Off: unchanged tables.
    reliance : DataFrame, optional
        The model's MR table (``model_reliance.csv``): the variables are its top
        ``settings.top_k`` by the settings' ranking (:func:`xaipipe.explain.reliance.ranked_features`).
    top : sequence of str, optional
        The ranked variables instead (rank 1 first); give exactly one of ``reliance`` and ``top``.
    extra : sequence of str
        Further variables (e.g. those of thesis figures), rank 0 in the table.
    pair : (str, str), optional
        The variables of the 2-D PD (the rule: the pair of largest H² among the top variables,
        :func:`xaipipe.explain.pdp.strongest_h2_pair`); None: the first two of ``top``.

    Returns
    -------
    PdIceTables
        ``curves``: :func:`effects_table` with a leading ``rank`` column (1 = largest MR, 0 for
        ``extra``); ``pairs``: :func:`pair_table` of ``pair`` (default the two first top variables),
        numeric or one-hot groups (:func:`explain_pair`; empty, with its columns, when there are
        fewer than two top variables and no ``pair``).
    """
    from ...models.forest_store import plans_predictions, predict_in_one_pass

    if (reliance is None) == (top is None):
        raise ValueError("give exactly one of reliance (the model's MR table) and top")
    if reliance is not None:
        top = ranked_features(reliance, settings, settings.top_k)
    if plans_predictions(model):  # a forest store: every prediction in one pass over its blocks
        return predict_in_one_pass(model, lambda m: pd_ice_tables(m, data, settings, top=top, extra=extra, pair=pair))
    X, classes, random_state = data.X_test, data.classes, settings.seed
    kwargs = dict(
        top=top,
        extra=extra,
        pair=None if pair is None else tuple(pair),
        feature_names=data.features,
        feature_groups=data.feature_groups,
        row_ids=data.test_rows,
        output=settings.output(data.task),
        kind=settings.grid,
        **{key: getattr(settings, key) for key in _PLAN_SETTINGS},
    )
    # -- large-data inputs (settings.large_data): None at or below large_data.min_rows test rows --
    large_data_rows = settings.large_data_rows(len(X))
    if large_data_rows is not None:
        X, kwargs = _large_data_subsample(X, kwargs, int(large_data_rows), random_state)
    if classes is not None:
        curves, pairs = [], []
        for k, label in enumerate(classes):
            c, p = _pd_ice_class(model, X, kwargs, class_index=k)
            c.insert(1, "class", str(label))
            p.insert(0, "class", str(label))
            curves.append(c)
            pairs.append(p)
        return PdIceTables(pd.concat(curves, ignore_index=True), pd.concat(pairs, ignore_index=True))
    return PdIceTables(*_pd_ice_class(model, X, kwargs))


def _large_data_subsample(X, kwargs: dict, m: int, random_state) -> tuple:
    """The rows and arguments of :func:`pd_ice_tables` under the large-data policy: ``X`` restricted
    to the seeded subsample, its ``row_ids``, the all-rows grid of each numeric variable (``grids``)
    and ``n_total`` (the SE rows); unchanged where ``n <= m``."""
    from ._grid import _check_X, feature_grid

    Xv, _, _ = _check_X(X)
    n = Xv.shape[0]
    if n <= m:
        return X, kwargs
    rows = np.sort(np.random.default_rng(random_state).choice(n, m, replace=False))
    names = list(kwargs["feature_names"])
    groups = dict(kwargs["feature_groups"] or {})
    grids = {
        name: feature_grid(
            Xv[:, names.index(name)],
            resolution=kwargs["resolution"],
            kind=kwargs["kind"],
            percentiles=tuple(kwargs["percentiles"]),
        )
        for name in list(kwargs["top"]) + list(kwargs["extra"])
        if name not in groups
    }
    ids = np.arange(n) if kwargs["row_ids"] is None else np.asarray(kwargs["row_ids"])
    sub = X.iloc[rows] if hasattr(X, "iloc") else Xv[rows]
    return sub, {**kwargs, "row_ids": ids[rows], "grids": grids, "n_total": n}


def _pd_se_rows(eff: FeatureEffect, n_total: int) -> pd.DataFrame:
    """Rows of ``kind`` ``"pd_se"``: the SE of the subsample PD at each grid point (see
    :func:`pd_ice_tables`, ``large_data_rows``)."""
    m = eff.ice.shape[0]
    se = eff.ice.std(axis=0, ddof=1) / np.sqrt(m) * np.sqrt(max(1.0 - m / n_total, 0.0))
    k = eff.grid.size
    return pd.DataFrame(
        {
            "feature": eff.feature,
            "grid_value": eff.grid,
            "level": np.array(eff.levels, dtype=object) if eff.levels is not None else np.full(k, "", dtype=object),
            "kind": "pd_se",
            "row": np.full(k, -1, dtype=np.int64),
            "value": se,
        }
    )


def _pd_ice_class(model, X, plan: Mapping, class_index: int | None = None) -> tuple[pd.DataFrame, pd.DataFrame]:
    """:func:`pd_ice_tables` of one output (``class_index``: a class of a multiclass model).

    ``plan``: the keywords :func:`pd_ice_tables` builds (``top``, ``extra``, ``pair``,
    ``feature_names``, ``feature_groups``, ``row_ids``, ``output``, ``resolution``, ``kind``,
    ``percentiles``, ``anchor``, ``smooth``, ``max_curves``, ``pair_resolution``,
    ``max_batch_rows``; under the large-data policy ``grids`` and ``n_total`` too).
    """
    from ._effects import EffectOptions, explain_feature, explain_pair

    top = list(plan["top"])
    extra = [f for f in plan["extra"] if f not in top]
    groups = dict(plan["feature_groups"] or {})
    pair, grids, n_total = plan["pair"], plan.get("grids"), plan.get("n_total")
    common = dict(feature_names=list(plan["feature_names"]), output=plan["output"])
    if class_index is not None:
        common["class_index"] = class_index
    grid_options = dict(
        kind=plan["kind"], percentiles=tuple(plan["percentiles"]), max_batch_rows=plan["max_batch_rows"]
    )
    options = EffectOptions(smooth=plan["smooth"], **grid_options)
    effects = [
        explain_feature(
            model,
            X,
            name,
            feature_groups=groups,
            resolution=plan["resolution"],
            anchor=plan["anchor"],
            row_ids=plan["row_ids"],
            grid=(grids or {}).get(name),
            options=options,
            **common,
        )
        for name in top + extra
    ]
    curves = effects_table(effects, max_curves=plan["max_curves"], random_state=0)
    if n_total is not None:  # large-data policy: the SE of each subsample PD, after the curves
        curves = pd.concat([curves] + [_pd_se_rows(e, n_total) for e in effects], ignore_index=True)
    curves.insert(0, "rank", curves["feature"].map({name: i + 1 for i, name in enumerate(top)}).fillna(0).astype(int))
    if pair is None and len(top) >= 2:
        pair = tuple(top[:2])
    if pair is not None:
        pairs = pair_table(
            explain_pair(
                model, X, pair, feature_groups=groups, resolution=plan["pair_resolution"], **common, **grid_options
            )
        )
    else:
        pairs = pd.DataFrame(columns=_PAIR_COLUMNS)
    return curves, pairs

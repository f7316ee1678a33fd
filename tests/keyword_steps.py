"""The rule entries called with arrays and keywords, as before their settings objects.

The rule entries take ``(model, data, settings, ...)`` (``data``: :class:`PreparedData` or any object
with its attributes; ``settings``: :mod:`xaipipe.settings`): the explain steps (SHAP, PD / ICE, MR,
ALE, H²), the refit (``fit_best``), the coverage audit and the correlated variant's truth table. The
tests use small arrays; these helpers build the data object and the settings from the keywords the
entries took before, so that a test reads as it did and checks the entry itself (no step logic here).
"""

from __future__ import annotations

from types import SimpleNamespace

import numpy as np

from xaipipe.explain.dependence import DEPENDENT_ESTIMATORS, ale_tables, dependent_reliance_rows, h_statistic_table
from xaipipe.explain.pdp import pd_ice_tables
from xaipipe.explain.pdp._grid import DEFAULT_MAX_BATCH_ROWS
from xaipipe.explain.shapley import shap_tables
from xaipipe.explain.summary import reliance_tables
from xaipipe.models.fitting import fit_best
from xaipipe.settings import (
    AleSettings,
    CorrelatedSettings,
    CoverageSettings,
    CVSettings,
    HStatisticSettings,
    LargeDataSettings,
    PdIceSettings,
    RelianceSettings,
    ShapSettings,
)
from xaipipe.studies.correlated import correlated_truth_table
from xaipipe.studies.coverage import DEFAULT_NOMINAL, coverage_audit


def large_data(*, shap_rows=None, pd_rows=None, reliance_rows=None, shap_trees=None) -> LargeDataSettings | None:
    """A large-data group whose policies apply above their smallest cap (None: no policy): the
    policy with cap ``m`` subsamples where the test rows are more than ``m``, as the keyword
    ``large_data_rows=m`` did; a tree sample alone (``shap_trees``, the keyword
    ``large_data_trees=``) applies from 2 test rows on."""
    caps = [c for c in (shap_rows, pd_rows, reliance_rows) if c is not None]
    if not caps and shap_trees is None:
        return None
    return LargeDataSettings(
        min_rows=min(caps) if caps else 1,
        reliance_rows=reliance_rows,
        shap_rows=shap_rows,
        pd_rows=pd_rows,
        shap_trees=shap_trees,
    )


def shap_tables_kw(
    model,
    X_test,
    X_train,
    *,
    test_rows,
    feature_names,
    dataset,
    family,
    feature_groups=None,
    max_rows=None,
    max_rows_forest=None,
    background_size=None,
    interactions=True,
    algorithm="auto",
    n_jobs=1,
    random_state=0,
    classes=None,
    large_data_rows=None,
    large_data_trees=None,
):
    """:func:`xaipipe.explain.shapley.shap_tables` of arrays (its keywords before :class:`ShapSettings`)."""
    data = SimpleNamespace(
        X_test=X_test,
        X_train=X_train,
        test_rows=np.asarray(test_rows),
        features=list(feature_names),
        feature_groups=feature_groups,
        classes=classes,
        dataset=dataset,
    )
    settings = ShapSettings(
        family=family,
        seed=random_state,
        max_rows=max_rows,
        max_rows_random_forest=max_rows_forest,
        background_size=background_size,
        interactions=interactions,
        algorithm=algorithm,
        large_data=large_data(shap_rows=large_data_rows, shap_trees=large_data_trees),
    )
    return shap_tables(model, data, settings, n_jobs=n_jobs)


def pd_ice_tables_kw(
    model,
    X,
    *,
    top,
    extra=(),
    feature_names,
    feature_groups=None,
    row_ids=None,
    output="auto",
    resolution=50,
    kind="uniform",
    percentiles=(0.0, 1.0),
    anchor="min",
    smooth=0,
    max_curves=1000,
    pair_resolution=20,
    max_batch_rows=100_000,
    classes=None,
    large_data_rows=None,
    random_state=0,
    pair=None,
):
    """:func:`xaipipe.explain.pdp.pd_ice_tables` of arrays (its keywords before :class:`PdIceSettings`):
    ``output="predict"`` is a regression dataset, any other a classification one with that
    ``classification_output``."""
    data = SimpleNamespace(
        X_test=X,
        features=list(feature_names),
        feature_groups=feature_groups,
        test_rows=row_ids,
        task="regression" if output == "predict" else "classification",
        classes=classes,
    )
    settings = PdIceSettings(
        seed=random_state,
        loss="squared_error",
        ranking={"estimator": "permutation", "quantity": "mr_difference"},
        top_k=len(top),
        resolution=resolution,
        grid=kind,
        percentiles=tuple(percentiles),
        anchor=anchor,
        smooth=smooth,
        max_curves=max_curves,
        pair_resolution=pair_resolution,
        max_batch_rows=max_batch_rows,
        classification_output=output,
        large_data=large_data(pd_rows=large_data_rows),
    )
    return pd_ice_tables(model, data, settings, top=top, extra=extra, pair=pair)


def _reliance_settings(*, estimators, losses, n_repeats, e_switch_max_rows, random_state, reliance_rows, dependent):
    return RelianceSettings(
        task_losses=tuple(losses),
        seed=random_state,
        estimators=tuple(estimators),
        n_repeats=n_repeats,
        e_switch_max_rows=e_switch_max_rows,
        losses={},
        ranking={"estimator": "permutation", "quantity": "mr_difference"},
        dependent=dependent,
        large_data=large_data(reliance_rows=reliance_rows),
    )


def reliance_tables_kw(
    model,
    X,
    y,
    *,
    dataset,
    family,
    feature_names,
    feature_groups=None,
    estimators=("permutation", "e_divide", "e_switch"),
    losses=("squared_error",),
    n_repeats=20,
    e_switch_max_rows=400,
    random_state=0,
    n_jobs=1,
    reliance_rows=None,
):
    """:func:`xaipipe.explain.summary.reliance_tables` of arrays (its keywords before
    :class:`RelianceSettings`; no dependent-feature rows)."""
    data = SimpleNamespace(
        X_test=X, y_test=y, features=list(feature_names), feature_groups=feature_groups, dataset=dataset
    )
    settings = _reliance_settings(
        estimators=estimators,
        losses=losses,
        n_repeats=n_repeats,
        e_switch_max_rows=e_switch_max_rows,
        random_state=random_state,
        reliance_rows=reliance_rows,
        dependent={"estimators": []},
    )
    return reliance_tables(model, data, settings, family=family, n_jobs=n_jobs)


def dependent_reliance_rows_kw(
    model,
    X,
    y,
    X_train,
    *,
    dataset,
    family,
    feature_names,
    feature_groups=None,
    estimators=DEPENDENT_ESTIMATORS,
    losses=("squared_error",),
    n_repeats=20,
    random_state=0,
    max_depth=5,
    min_samples_leaf=0.02,
    correlation_threshold=0.9,
    linkage="single",
    n_jobs=1,
    columns=None,
    reliance_rows=None,
):
    """:func:`xaipipe.explain.dependence.dependent_reliance_rows` of arrays (its keywords before
    :class:`RelianceSettings`)."""
    data = SimpleNamespace(
        X_test=X,
        y_test=y,
        X_train=X_train,
        features=list(feature_names),
        feature_groups=feature_groups,
        dataset=dataset,
    )
    dependent = {
        "estimators": list(estimators),
        "max_depth": max_depth,
        "min_samples_leaf": min_samples_leaf,
        "correlation_threshold": correlation_threshold,
        "linkage": linkage,
    }
    settings = _reliance_settings(
        estimators=(),
        losses=losses,
        n_repeats=n_repeats,
        e_switch_max_rows=None,
        random_state=random_state,
        reliance_rows=reliance_rows,
        dependent=dependent,
    )
    return dependent_reliance_rows(model, data, settings, family=family, columns=columns, n_jobs=n_jobs)


def _class_data(X, feature_names, feature_groups, class_index):
    """The data object of the ALE / H-statistic entries: a classifier's class ``class_index`` other
    than the binary default 1 is a multiclass dataset's ``explain.figure_class`` (labels ``"0"``,
    ``"1"``, ...); returns ``(data, figure_class)``."""
    classes = None if class_index == 1 else [str(k) for k in range(max(class_index + 1, 3))]
    data = SimpleNamespace(X_test=X, features=list(feature_names), feature_groups=feature_groups, classes=classes)
    return data, None if classes is None else str(class_index)


def _drop_class(frame):
    """A table without the ``class`` column the entries add for a multiclass dataset (the keyword
    entries of before left it to the script)."""
    return frame.drop(columns="class") if "class" in frame.columns else frame


def ale_tables_kw(
    model,
    X,
    *,
    feature_names,
    feature_groups=None,
    ranking=(),
    pair=None,
    output="auto",
    class_index=1,
    n_bins=20,
    pair_bins=10,
    centering="ale_plot",
    max_batch_rows=DEFAULT_MAX_BATCH_ROWS,
    large_data_rows=None,
    random_state=0,
):
    """:func:`xaipipe.explain.dependence.ale_tables` of arrays (its keywords before :class:`AleSettings`):
    ``(ale, ale_2d, skipped)`` as it returned them."""
    data, figure_class = _class_data(X, feature_names, feature_groups, class_index)
    settings = AleSettings(
        seed=random_state,
        loss="unused",
        ranking={},
        output=output,
        max_batch_rows=max_batch_rows,
        figure_class=figure_class,
        n_bins=n_bins,
        pair_bins=pair_bins,
        centering=centering,
        figure_features=4,
        large_data=large_data(pd_rows=large_data_rows),
    )
    out = ale_tables(model, data, settings, ranking=ranking, pair=pair)
    return _drop_class(out.ale), _drop_class(out.ale_2d), out.skipped


def h_statistic_table_kw(
    model,
    X,
    *,
    feature_names,
    feature_groups=None,
    top=(),
    output="auto",
    class_index=1,
    n_rows=300,
    n_bootstrap=50,
    random_state=0,
    max_batch_rows=DEFAULT_MAX_BATCH_ROWS,
):
    """:func:`xaipipe.explain.dependence.h_statistic_table` of arrays (its keywords before
    :class:`HStatisticSettings`; ``family=None``: the subsample of ``n_rows`` rows)."""
    data, figure_class = _class_data(X, feature_names, feature_groups, class_index)
    settings = HStatisticSettings(
        seed=random_state,
        loss="unused",
        ranking={},
        output=output,
        max_batch_rows=max_batch_rows,
        figure_class=figure_class,
        top_k=max(len(top), 2),
        n_rows=n_rows,
        n_rows_random_forest=n_rows,
        n_bootstrap=n_bootstrap,
        max_display=15,
        family=None,
    )
    return _drop_class(h_statistic_table(model, data, settings, top=top))


def fit_best_kw(
    family,
    task,
    params,
    X_train,
    y_train,
    X_test,
    y_test,
    *,
    test_rows,
    random_state,
    options=None,
    dataset="",
    n_jobs=1,
    beta=1.0,
    forest_store=None,
):
    """:func:`xaipipe.models.fitting.fit_best` of arrays (its arguments before :class:`CVSettings`)."""
    data = SimpleNamespace(
        X_train=X_train, y_train=y_train, X_test=X_test, y_test=y_test, test_rows=test_rows, dataset=dataset
    )
    settings = CVSettings(
        task=task,
        family=family,
        grid=None,
        sample=None,
        options=options or {},
        selection="unused",
        seed=random_state,
        beta=beta,
    )
    return fit_best(data, settings, params, n_jobs=n_jobs, forest_store=forest_store)


def coverage_audit_kw(
    *,
    dgp="friedman1",
    n=500,
    p=10,
    noise_sd=1.0,
    n_repetitions=100,
    test_size=0.2,
    cv_folds=5,
    learners=None,
    learner_config=None,
    rashomon_config=None,
    options=None,
    nominal=DEFAULT_NOMINAL,
    random_state=0,
    n_jobs=1,
):
    """:func:`xaipipe.studies.coverage.coverage_audit` of keywords (its keywords and defaults before
    :class:`CoverageSettings`; ``epsilon``, the figure's, unused)."""
    settings = CoverageSettings(
        dgp=dgp,
        n=n,
        p=p,
        noise_sd=noise_sd,
        n_repetitions=n_repetitions,
        test_size=test_size,
        cv_folds=cv_folds,
        learners=learners,
        learner_config=learner_config,
        rashomon_config=rashomon_config,
        options=options,
        nominal=nominal,
        random_state=random_state,
        epsilon=None,
    )
    return coverage_audit(settings, n_jobs=n_jobs)


def correlated_truth_table_kw(
    dgp,
    *,
    dataset,
    best_params,
    n=2000,
    p=10,
    noise_sd=1.0,
    coupling_sd=0.1,
    test_size=0.2,
    n_folds=5,
    n_repeats=20,
    max_depth=5,
    min_samples_leaf=0.02,
    correlation_threshold=0.9,
    linkage="single",
    n_mc=20_000,
    options=None,
    random_state=0,
):
    """:func:`xaipipe.studies.correlated.correlated_truth_table` of keywords (its keywords and
    defaults before :class:`CorrelatedSettings`)."""
    settings = CorrelatedSettings(
        seed=random_state,
        n_repeats=n_repeats,
        dependent={
            "max_depth": max_depth,
            "min_samples_leaf": min_samples_leaf,
            "correlation_threshold": correlation_threshold,
            "linkage": linkage,
        },
        split={"test_size": test_size, "cv_folds": n_folds},
        options=options or {},
        enabled=True,
        families=tuple(best_params),
        n=n,
        coupling_sd=coupling_sd,
        n_mc=n_mc,
    )
    simulation = {"dgp": dgp, "p": p, "noise_sd": noise_sd}
    return correlated_truth_table(simulation, settings, dataset=dataset, best_params=best_params)

"""The ``learner`` rule's tables: learner-PD / PFI (and learner-SHAP / ALE) of one family's best
configuration (:func:`learner_tables`), from the refits of :mod:`._refits`."""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import pandas as pd

from ...config.learner import LearnerEffectsSettings, LearnerSettings
from ...data.prepare import expand_user_groups, importance_groups
from ...io import with_ids
from ..classes import class_choice
from ..reliance import features_from_groups, top_features
from ._effects import refit_effects_of
from ._estimators import estimator_factory
from ._refits import learner_pd_pfi, refit_design

__all__ = ["LearnerTables", "learner_tables"]


@dataclass(frozen=True)
class LearnerTables:
    """The tables of the ``learner`` rule (:func:`learner_tables`).

    Attributes
    ----------
    pd, pfi, pd_refits, pfi_refits, shap, ale, shap_refits, ale_refits : DataFrame
        :class:`LearnerResult`'s tables, each with ``dataset`` and ``model`` (the family) first;
        a multiclass model's PD, SHAP and ALE tables have a ``class`` column third.
    pd_features : list of str
        The variables of the learner-PD.
    """

    pd: pd.DataFrame
    pfi: pd.DataFrame
    pd_refits: pd.DataFrame
    pfi_refits: pd.DataFrame
    shap: pd.DataFrame
    ale: pd.DataFrame
    shap_refits: pd.DataFrame
    ale_refits: pd.DataFrame
    pd_features: list

    #: The tables, in the order the rule writes them.
    FRAMES = ("pd", "pfi", "pd_refits", "pfi_refits", "shap", "ale", "shap_refits", "ale_refits")

    def to_frames(self) -> dict[str, pd.DataFrame]:
        """The tables by name (:data:`FRAMES`)."""
        return {name: getattr(self, name) for name in self.FRAMES}


def learner_tables(
    data,
    settings: LearnerSettings,
    family: str,
    params: Mapping[str, Any],
    *,
    reliance: pd.DataFrame | None = None,
    pd_features: Sequence[str] | None = None,
    options: Mapping[str, Any] | None = None,
    n_jobs: int = 1,
    effects: LearnerEffectsSettings | None = None,
) -> LearnerTables:
    """The ``learner`` rule: learner-PD / learner-PFI (and learner-SHAP / ALE) of one family's best
    configuration.

    :func:`learner_pd_pfi` of :func:`estimator_factory` ``(family, settings.task, params,
    options=options)`` on the training rows, the variables being one-hot groups
    (:func:`xaipipe.explain.reliance.features_from_groups`), with the refits, grid, PFI and
    interval of ``settings``. The training rows keep their missing values (``data.X_train_raw``):
    each refit imputes from its own training rows with a clone of ``data.imputer``
    (:func:`learner_refits`).

    A multiclass target (``data.classes``: its labels in code order): the subsamples are
    stratified by class (:func:`subsample_splits`), the learner-PFI uses the multiclass loss and
    the learner-PD is the probability of class ``settings.figure_class`` (config key
    ``explain.figure_class``; default the first class), named in a ``class`` column of the PD
    tables.

    Parameters
    ----------
    data : PreparedData
        The dataset's split (:func:`xaipipe.data.prepare.load_prepared`): ``X_train_raw``,
        ``y_train``, ``features``, ``feature_groups``, ``classes``, ``imputer``, ``dataset``.
    settings : LearnerSettings
        :meth:`xaipipe.config.LearnerSettings.from_config` (the refits: :func:`refit_design`).
    family : str
    params : mapping
        The family's best configuration (``best.json``'s ``params``).
    reliance : DataFrame, optional
        The model's MR table (``model_reliance.csv``): the learner-PD's variables are its top
        ``settings.top_k`` by ``settings.ranking_quantity`` of ``settings.ranking_estimator`` and
        ``settings.loss`` (:func:`xaipipe.explain.reliance.top_features`).
    pd_features : sequence of str, optional
        The learner-PD's variables instead (give exactly one of ``reliance`` and ``pd_features``).
    options : mapping, optional
        The family's ``estimator_options``; default ``settings.options``.
    n_jobs : int, default 1
        Worker processes over refits; results do not depend on it.
    effects : LearnerEffectsSettings, optional
        Learner-SHAP importance and learner-ALE from the same refits
        (:class:`xaipipe.config.LearnerEffectsSettings`, made a
        :class:`~xaipipe.explain.learner.RefitEffects` by
        :func:`~xaipipe.explain.learner.refit_effects_of`); a multiclass model's are of the
        learner-PD's class. Default ``settings.effects`` (config keys ``explain.learner.effects``,
        ``explain.learner.shap_max_rows``); neither effect: those tables are empty.

    Returns
    -------
    LearnerTables

    Raises
    ------
    ValueError
        Both or neither of ``reliance`` and ``pd_features``; no MR rows of the ranking's
        estimator and loss; as :func:`learner_refits`.
    """
    if (reliance is None) == (pd_features is None):
        raise ValueError("give exactly one of reliance (the model's MR table) and pd_features")
    if reliance is not None:
        pd_features = top_features(
            expand_user_groups(reliance, data.feature_groups, getattr(data, "user_groups", None)),
            settings.top_k,
            estimator=settings.ranking_estimator,
            loss=settings.loss,
            quantity=settings.ranking_quantity,
        )
    classes = data.classes
    multi = {}
    design = refit_design(settings, stratify=classes is not None)
    if classes is not None:
        multi = {"pd_class_index": class_choice(classes, settings.figure_class)["class_index"]}
        design = dataclasses.replace(design, **multi)
    feature_names = list(data.features)
    groups = importance_groups(data)
    # PFI plays the user's groups as one variable each (PD explains their columns); without user
    # groups both use the one-hot groups (the call of before)
    pfi = {} if groups is data.feature_groups else {"pfi_features": features_from_groups(feature_names, groups)}
    result = learner_pd_pfi(
        estimator_factory(family, settings.task, params, options=settings.options if options is None else options),
        data.X_train_raw,
        data.y_train,
        design,
        feature_names=feature_names,
        features=features_from_groups(feature_names, data.feature_groups),  # PD: columns and one-hot groups
        pd_features=list(pd_features),
        confidence=settings.confidence,
        n_jobs=n_jobs,
        imputer=data.imputer,
        **pfi,
        effects=refit_effects_of(settings.effects if effects is None else effects),
    )
    ids = {"dataset": data.dataset, "model": family}
    out = {name: with_ids(getattr(result, name), **ids) for name in LearnerTables.FRAMES}
    if multi:
        for name in ("pd", "pd_refits", "shap", "ale", "shap_refits", "ale_refits"):
            out[name].insert(2, "class", str(classes[multi["pd_class_index"]]))
    return LearnerTables(**out, pd_features=list(pd_features))

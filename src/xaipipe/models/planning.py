"""The jobs of a study's model steps, planned at parse time (``workflow/rules/common.smk``):
how many ``cv_shard`` jobs a family's CV is split into (:func:`cv_shard_count`) and what the
``split`` job of a dataset checks before any fit (:func:`sample_size_checks`)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from ..config._base import check_task
from ..config.models import CVSettings
from .cv import fit_configurations, n_fit_units

__all__ = ["cv_shard_count", "sample_size_checks"]


def cv_shard_count(settings: CVSettings, wanted: int, n_folds: int = 1) -> int:
    """Jobs the CV of ``settings.family`` is split into (rules ``cv_shard``).

    ``wanted`` (config key ``cv_shards.<family>``, default 1), at most the CV's fit units (prefix
    groups, depth chains or configurations: :func:`xaipipe.models.cv.n_fit_units`) times
    ``n_folds`` (config key ``split.cv_folds``): whole units while there are enough, else
    (unit, fold) pairs (:func:`xaipipe.models.cv.cross_validate_grid`, ``shard=``); 1 where
    ``wanted <= 1``.
    """
    if wanted <= 1:
        return 1
    units = n_fit_units(settings.family, settings.grid, sample=settings.sample, random_state=settings.seed)
    return min(wanted, units * max(int(n_folds), 1))


def sample_size_checks(
    config: Mapping[str, Any], task: str, families: list[str], sampled: list[str] | tuple[str, ...] = ()
) -> dict[str, Any]:
    """What the split job of a dataset checks beyond the folds and the test split (the ``split``
    rule's ``params.checks``: the keywords of :func:`xaipipe.data.split.check_sample_size`).

    The Rashomon bootstrap's resamples (``rashomon.bootstrap``: when enabled and one of its
    ``families`` runs on the dataset), the learner refits (``explain.learner``: when one of its
    ``families`` runs on it) and the largest ``n_neighbors`` of a family's configurations (kNN: each
    CV fold must train on that many rows; the config key it comes from: the grid's
    ``grids.<task>.<family>.n_neighbors`` or the random search's
    ``rashomon.sample.families.<task>.<family>``).

    Parameters
    ----------
    config : mapping
        A schema-validated configuration.
    task : {"regression", "classification"}
        The dataset's task.
    families : list of str
        The families run on the dataset (``datasets.<d>.families`` or every family of the task's
        grid).
    sampled : sequence of str
        The families of the task that are only sampled (no grid): Rashomon-set members only.

    Returns
    -------
    dict
        ``bootstrap`` (``n_bootstrap``, ``random_state``), ``learner`` (``n_refits``, ``fraction``,
        ``random_state``) and ``min_fit_rows`` (``"n_neighbors = k of <config key>"`` -> ``k``), each
        only where it applies.

    Raises
    ------
    ValueError
        As :meth:`xaipipe.config.CVSettings.from_config` (a family without a grid or random search).
    """
    check_task(task)
    out: dict[str, Any] = {}
    boot = config["rashomon"]["bootstrap"]
    if boot["enabled"] and any(f in families for f in boot["families"]):
        out["bootstrap"] = {"n_bootstrap": boot["n_bootstrap"], "random_state": config["seed"]}
    learner = config["explain"]["learner"]
    if any(f in learner["families"] for f in families):
        out["learner"] = {
            "n_refits": learner["n_refits"],
            "fraction": learner["fraction"],
            "random_state": config["seed"],
        }
    rows = {}
    for family in dict.fromkeys(list(families) + list(sampled)):
        cv = CVSettings.from_config(config, task, family)
        configs = fit_configurations(family, cv.grid, sample=cv.sample, random_state=cv.seed)
        n_grid = len(fit_configurations(family, cv.grid)) if cv.grid is not None else 0
        default = cv.options.get("n_neighbors")
        values = [(c.get("n_neighbors", default), i < n_grid) for i, c in enumerate(configs)]
        values = [(int(v), from_grid) for v, from_grid in values if v is not None]
        if values:
            largest, from_grid = max(values)
            key = f"grids.{task}.{family}.n_neighbors" if from_grid else f"rashomon.sample.families.{task}.{family}"
            rows[f"n_neighbors = {largest} of {key}"] = largest
    if rows:
        out["min_fit_rows"] = rows
    return out

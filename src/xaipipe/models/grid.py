"""Hyperparameter grids from the config, and their shared-prefix groups.

A grid is a mapping ``parameter -> values`` (values in the order given); the
configurations are the Cartesian product in the order of the keys, as in
:class:`sklearn.model_selection.ParameterGrid` but without sorting the keys. A
value list may be written as a range object ``{start, stop, step}`` with an
inclusive ``stop`` (``{start: 100, stop: 2000, step: 100}`` is 100, 200, ..., 2000).
"""

from __future__ import annotations

import itertools
import json
from collections.abc import Mapping, Sequence
from typing import Any

from .families import PREFIX_PARAM

__all__ = ["expand_values", "expand_grid", "config_id", "params_from_config_id", "prefix_groups", "depth_chains"]


def expand_values(spec: Any, *, name: str = "value") -> list:
    """Turn one grid entry into a list of values.

    Parameters
    ----------
    spec : list or mapping with keys ``start``, ``stop``, ``step``
        Explicit values, or an inclusive integer/float range.
    name : str
        Parameter name, used in error messages.

    Raises
    ------
    ValueError
        If the list is empty or the range is malformed.
    """
    if isinstance(spec, Mapping):
        missing = {"start", "stop", "step"} - set(spec)
        if missing:
            raise ValueError(f"grid entry {name!r}: range needs keys start, stop, step (missing {sorted(missing)})")
        start, stop, step = spec["start"], spec["stop"], spec["step"]
        if step <= 0 or stop < start:
            raise ValueError(f"grid entry {name!r}: empty range {dict(spec)}")
        n = int(round((stop - start) / step)) + 1
        values = [start + i * step for i in range(n)]
        if all(isinstance(v, int) for v in (start, stop, step)):
            values = [int(v) for v in values]
        return values
    if isinstance(spec, (list, tuple)):
        if len(spec) == 0:
            raise ValueError(f"grid entry {name!r} is an empty list")
        return list(spec)
    return [spec]


def expand_grid(grid: Mapping[str, Any] | None) -> list[dict]:
    """All configurations of ``grid`` (a single empty configuration when empty).

    Examples
    --------
    >>> expand_grid({"max_depth": [2, 3], "loss": ["huber"]})
    [{'max_depth': 2, 'loss': 'huber'}, {'max_depth': 3, 'loss': 'huber'}]
    """
    if not grid:
        return [{}]
    names = list(grid)
    values = [expand_values(grid[n], name=n) for n in names]
    return [dict(zip(names, combo)) for combo in itertools.product(*values)]


def config_id(params: Mapping[str, Any]) -> str:
    """Stable text identifier of a configuration, e.g. ``learning_rate=0.1;n_estimators=300``.

    Keys are sorted so that the identifier does not depend on grid key order;
    ``"default"`` for an empty configuration.
    """
    if not params:
        return "default"
    return ";".join(f"{k}={json.dumps(params[k])}".replace('"', "") for k in sorted(params))


def params_from_config_id(cid: str) -> dict:
    """Hyperparameters of a configuration from its :func:`config_id`.

    Values are parsed as JSON (``2`` -> int, ``0.1`` -> float, ``null`` -> None,
    ``true`` -> True) and kept as text otherwise (``huber``). The result is checked
    to give back the same identifier.

    Raises
    ------
    ValueError
        A malformed identifier, or one that does not round-trip.
    """
    if not isinstance(cid, str) or not cid:
        raise ValueError(f"config_id must be a non-empty string, got {cid!r}")
    if cid == "default":
        return {}
    params = {}
    for part in cid.split(";"):
        key, sep, text = part.partition("=")
        if not sep or not key:
            raise ValueError(f"malformed config_id {cid!r} (part {part!r})")
        try:
            value = json.loads(text)
        except json.JSONDecodeError:
            value = text
        if isinstance(value, (list, dict)):
            value = text
        params[key] = value
    if config_id(params) != cid:
        raise ValueError(f"config_id {cid!r} does not round-trip (parsed {params})")
    return params


def prefix_groups(
    configs: Sequence[Mapping[str, Any]], prefix_param: str = PREFIX_PARAM
) -> list[tuple[dict, list[int]]]:
    """Group configurations that differ only in ``prefix_param``.

    Returns
    -------
    list of (base_params, sorted prefix values)
        ``base_params`` excludes ``prefix_param``. Configurations without
        ``prefix_param`` form groups with an empty value list. Groups keep the
        order of their first appearance.
    """
    groups: dict[str, tuple[dict, list[int]]] = {}
    for cfg in configs:
        base = {k: v for k, v in cfg.items() if k != prefix_param}
        key = config_id(base)
        if key not in groups:
            groups[key] = (base, [])
        if prefix_param in cfg:
            groups[key][1].append(int(cfg[prefix_param]))
    return [(base, sorted(set(ks))) for base, ks in groups.values()]


def _effective_tree_params(cfg: Mapping[str, Any]) -> dict:
    """``cfg`` with an integer ``min_samples_split`` raised to ``2 * min_samples_leaf``.

    scikit-learn's ``BaseDecisionTree._fit`` uses
    ``max(min_samples_split, 2 * min_samples_leaf)`` as the split threshold, so two
    configurations with the same effective value build the same tree. Fractional
    values depend on the number of rows and, like invalid ones, are left as given.
    """
    out = dict(cfg)
    mss, msl = out.get("min_samples_split", 2), out.get("min_samples_leaf", 1)
    valid = isinstance(mss, int) and isinstance(msl, int) and not isinstance(mss, bool) and mss >= 2 and msl >= 1
    if valid:  # an invalid value keeps its own configuration, whose fit raises as it would alone
        out["min_samples_split"] = max(mss, 2 * msl)
    return out


def depth_chains(configs: Sequence[Mapping[str, Any]]) -> list[list[tuple[float, list[dict]]]]:
    """Group single-tree configurations whose fits can be shared exactly.

    Two rules, both exact for scikit-learn's depth-first tree builder
    (``DecisionTreeRegressor`` / ``DecisionTreeClassifier``, ``splitter="best"``):

    1. configurations with the same *effective* parameters
       (``min_samples_split`` replaced by ``max(min_samples_split,
       2 * min_samples_leaf)`` for integers, as in ``BaseDecisionTree._fit``)
       are the same estimator and need one fit;
    2. configurations that differ only in ``max_depth`` form a *chain*, deepest
       first. A node becomes a leaf because of ``max_depth`` only when its depth
       is ``>= max_depth``, and the splitter (and its random number stream) is
       never called for such a node. So if the tree fitted with the larger depth
       limit has actual depth (``get_depth()``) *strictly below* a smaller limit
       ``d``, every node was built with the same test outcomes and the same
       random draws as under ``max_depth=d``: the two trees are identical. The
       caller fits the deepest configuration and refits only where this check
       fails (:func:`xaipipe.models.cv.cross_validate_grid`).

    Parameters
    ----------
    configs : sequence of mapping
        Configurations of one decision-tree grid (:func:`expand_grid`).

    Returns
    -------
    list of chains
        A chain is a list of ``(max_depth, configs)`` steps sorted by
        ``max_depth`` descending (``None``, i.e. unlimited, is ``inf`` and comes
        first); ``configs`` are the original configurations (copies) with that
        effective estimator. Chains keep the order of their first appearance.
    """
    chains: dict[str, dict[float, list[dict]]] = {}
    for cfg in configs:
        eff = _effective_tree_params(cfg)
        depth = eff.pop("max_depth", None)
        depth = float("inf") if depth is None else float(depth)
        steps = chains.setdefault(config_id(eff), {})
        steps.setdefault(depth, []).append(dict(cfg))
    return [sorted(steps.items(), key=lambda kv: -kv[0]) for steps in chains.values()]

"""Rashomon sets from CV summaries: membership against a brute-force oracle,
reference choice, Rashomon ratio, nesting in ε and the cross-family union logic."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from xaipipe.rashomon.sets import (
    CROSS_FAMILY,
    check_epsilons,
    epsilon_min,
    rashomon_path,
    rashomon_scopes,
    rashomon_set,
    scope_name,
    set_sizes,
)


def _summary(family="gb", losses=(1.0, 1.04, 1.2, 0.98, 1.5), status=None):
    n = len(losses)
    return pd.DataFrame(
        {
            "dataset": "toy",
            "family": family,
            "config_id": [f"c={i}" for i in range(n)],
            "config_index": np.arange(n),
            "status": status or ["ok"] * n,
            "rmse_mean": list(losses),
            "rmse_std": 0.1,
        }
    )


def _brute(losses, ok, eps, mode, ref_loss):
    """Membership written out from the definition, one configuration at a time."""
    out = []
    for loss, good in zip(losses, ok):
        if not good:
            out.append(False)
        elif mode == "absolute":
            out.append(loss - ref_loss <= eps)
        else:
            out.append((loss - ref_loss) / ref_loss <= eps)
    return out


@pytest.mark.parametrize("mode", ["relative", "absolute"])
@pytest.mark.parametrize("eps", [0.0, 0.03, 0.05, 0.25, 10.0])
def test_membership_matches_definition(mode, eps):
    rng = np.random.default_rng(7)
    losses = rng.uniform(1.0, 2.0, 40)
    status = ["ok"] * 40
    status[3] = status[11] = "failed"
    s = _summary(losses=losses, status=status)
    s.loc[[3, 11], "rmse_mean"] = np.nan
    r = rashomon_set(s, metric="rmse", epsilon=eps, mode=mode)
    ok = np.array([st == "ok" for st in status])
    ref_loss = np.min(losses[ok])
    assert r.reference["loss"] == ref_loss
    assert r.table["in_set"].tolist() == _brute(losses, ok, eps, mode, ref_loss)
    assert r.size == sum(_brute(losses, ok, eps, mode, ref_loss))
    assert r.grid_size == 40 and r.n_failed == 2
    assert r.ratio == pytest.approx(r.size / 40)
    assert not r.table.loc[[3, 11], "in_set"].any()
    assert r.reference["in_set"] and r.table["is_reference"].sum() == 1
    assert (r.members["loss"] <= r.threshold * (1 + 1e-12)).all()


def test_reference_default_first_on_ties_and_explicit():
    s = _summary(losses=(1.1, 1.0, 1.0, 1.2))
    assert rashomon_set(s, metric="rmse", epsilon=0).reference["config_id"] == "c=1"
    r = rashomon_set(s, metric="rmse", epsilon=0.1, reference="c=0")
    # relative to 1.1: 1.0, 1.0, 1.1 are within 10 %, 1.2 is not (1.2/1.1 - 1 = 0.0909 <= 0.1 -> in)
    assert r.table["in_set"].tolist() == [True, True, True, True]
    r = rashomon_set(s, metric="rmse", epsilon=0.05, reference=("gb", "c=3"))
    assert r.reference["config_id"] == "c=3" and r.size == 4
    r = rashomon_set(s, metric="rmse", epsilon=0.0, reference={"family": "gb", "config_id": "c=0"})
    assert r.members["config_id"].tolist() == ["c=0", "c=1", "c=2"]


def test_nested_sets_and_epsilon_min():
    rng = np.random.default_rng(1)
    s = _summary(losses=rng.uniform(0.5, 0.7, 30))
    grid = [0.2, 0.0, 0.01, 0.05, 0.1, 0.05]
    sizes, memb = rashomon_path(s, metric="rmse", epsilons=grid)
    assert sizes["epsilon"].tolist() == [0.0, 0.01, 0.05, 0.1, 0.2]
    assert np.all(np.diff(sizes["size"]) >= 0)
    prev = set()
    for e in sizes["epsilon"]:
        cur = set(rashomon_set(s, metric="rmse", epsilon=e).members["config_id"])
        assert prev <= cur
        # epsilon_min reproduces every set of the grid
        assert cur == set(memb.loc[memb["epsilon_min"] <= e, "config_id"])
        assert cur == set(memb.loc[memb[repr(e)], "config_id"])
        prev = cur
    assert sizes["size_gb"].tolist() == sizes["size"].tolist()


def test_cross_family_set_is_within_epsilon_of_global_best():
    rng = np.random.default_rng(3)
    a = _summary("gradient_boosting", rng.uniform(1.0, 1.3, 25))
    b = _summary("random_forest", rng.uniform(1.05, 1.4, 25))
    c = _summary("linear_regression", [1.6])
    both = pd.concat([a, b, c], ignore_index=True)
    best = both["rmse_mean"].min()
    assert scope_name(both) == CROSS_FAMILY and scope_name(a) == "gradient_boosting"
    for eps in (0.0, 0.02, 0.1, 0.5):
        cross = rashomon_set(both, metric="rmse", epsilon=eps)
        expect = {
            (f, c)
            for f, c, loss in zip(both["family"], both["config_id"], both["rmse_mean"])
            if (loss - best) / best <= eps
        }
        assert set(zip(cross.members["family"], cross.members["config_id"])) == expect
        union = set()
        for part in (a, b, c):
            union |= set(zip(*rashomon_set(part, metric="rmse", epsilon=eps).members[["family", "config_id"]].T.values))
        # a member of the cross-family set is within eps of its family's best too
        assert expect <= union
        assert cross.scope == CROSS_FAMILY
    # the linear model (60 % worse) joins only at large epsilon
    assert ("linear_regression", "c=0") not in set(
        zip(*rashomon_set(both, metric="rmse", epsilon=0.3).members[["family", "config_id"]].T.values)
    )


def test_real_cv_summary():
    from xaipipe.models.cv import cross_validate_grid, summarize_cv

    rng = np.random.default_rng(0)
    X = rng.normal(size=(90, 3))
    y = X[:, 0] + 0.3 * rng.normal(size=90)
    folds = [(np.flatnonzero(np.arange(90) % 3 != k), np.flatnonzero(np.arange(90) % 3 == k)) for k in range(3)]
    s = summarize_cv(
        cross_validate_grid("decision_tree", "regression", {"max_depth": [1, 2, 3, 5]}, X, y, folds, random_state=0),
        "regression",
    )
    r = rashomon_set(s, metric="mse", epsilon=0.5, mode="absolute")
    best = s["mse_mean"].min()
    assert set(r.members["config_id"]) == set(s.loc[s["mse_mean"] <= best + 0.5, "config_id"])
    summ = r.summary()
    assert summ["reference_loss"] == best
    ref = s.loc[s["mse_mean"].idxmin()]
    # s_K / sqrt(K) with the sample standard deviation (ddof=1) of the K = 3 fold losses; the
    # summary's mse_std is ddof=0
    fold_sd = ref["mse_std"] * np.sqrt(3 / 2)
    assert summ["reference_se"] == pytest.approx(fold_sd / np.sqrt(3))
    assert summ["reference_se_relative"] == pytest.approx(fold_sd / np.sqrt(3) / best)


@pytest.mark.parametrize(
    "kwargs, match",
    [
        ({"epsilon": -0.1}, "epsilon"),
        ({"epsilon": float("nan")}, "epsilon"),
        ({"epsilon": True}, "epsilon"),
        ({"epsilon": 0.1, "mode": "ratio"}, "mode"),
        ({"epsilon": 0.1, "metric": "r2"}, "not a loss"),
        ({"epsilon": 0.1, "metric": "mae"}, "lacks column"),
        ({"epsilon": 0.1, "reference": "c=99"}, "not a configuration"),
        ({"epsilon": 0.1, "reference": 3}, "reference must be"),
    ],
)
def test_invalid_arguments(kwargs, match):
    kwargs = {"metric": "rmse", **kwargs}
    with pytest.raises(ValueError, match=match):
        rashomon_set(_summary(), **kwargs)


def test_invalid_tables():
    s = _summary()
    with pytest.raises(ValueError, match="duplicate"):
        rashomon_set(pd.concat([s, s.iloc[:1]]), metric="rmse", epsilon=0.1)
    with pytest.raises(ValueError, match="every configuration failed"):
        rashomon_set(_summary(status=["failed"] * 5), metric="rmse", epsilon=0.1)
    bad = s.copy()
    bad.loc[2, "rmse_mean"] = np.nan
    with pytest.raises(ValueError, match="non-finite"):
        rashomon_set(bad, metric="rmse", epsilon=0.1)
    with pytest.raises(ValueError, match="reference loss > 0"):
        rashomon_set(_summary(losses=(0.0, 0.1)), metric="rmse", epsilon=0.1)
    assert rashomon_set(_summary(losses=(0.0, 0.1)), metric="rmse", epsilon=0.1, mode="absolute").size == 2
    failed = _summary(status=["ok", "failed", "ok", "ok", "ok"])
    with pytest.raises(ValueError, match="failed"):
        rashomon_set(failed, metric="rmse", epsilon=0.1, reference="c=1")
    two = pd.concat([_summary("a"), _summary("b")], ignore_index=True)
    with pytest.raises(ValueError, match="several families"):
        rashomon_set(two, metric="rmse", epsilon=0.1, reference="c=0")
    with pytest.raises(TypeError):
        rashomon_set(s.to_dict(), metric="rmse", epsilon=0.1)


def test_check_epsilons_and_epsilon_min():
    assert check_epsilons([0.1, 0, 0.1]) == [0.0, 0.1]
    for bad in ([], 0.1, "0.1", [-1], [np.inf]):
        with pytest.raises(ValueError):
            check_epsilons(bad)
    got = epsilon_min([0.0, 0.03, 0.05, 0.5, np.nan], [0.05, 0.0, 0.1])
    np.testing.assert_array_equal(got, [0.0, 0.05, 0.05, np.nan, np.nan])


def _sizes_oracle(summary, scope, eps_grid, mode="relative"):
    """Set size per ε written out from the definition (gap to the scope's best)."""
    part = summary if scope == CROSS_FAMILY else summary[summary["family"] == scope]
    ok = part["status"] == "ok"
    best = part.loc[ok, "rmse_mean"].min()
    gap = (part["rmse_mean"] - best) / best if mode == "relative" else part["rmse_mean"] - best
    return [int(((gap <= e) & ok).sum()) for e in eps_grid]


def test_set_sizes_of_every_scope():
    summary = pd.concat(
        [
            _summary("gb"),
            _summary("rf", losses=(0.99, 1.3, 1.01)),
            _summary("dt", losses=(1.1, 1.2), status=["ok", "failed"]),
        ],
        ignore_index=True,
    )
    eps = [0.1, 0.0, 0.02]
    sizes = set_sizes(summary, metric="rmse", epsilons=eps)
    grid = [0.0, 0.02, 0.1]
    # family scopes in alphabetical order, then the cross-family set
    assert sizes["scope"].tolist() == [s for s in ("dt", "gb", "rf", CROSS_FAMILY) for _ in grid]
    assert sizes["epsilon"].tolist() == grid * 4
    for scope, part in sizes.groupby("scope", sort=False):
        assert part["size"].tolist() == _sizes_oracle(summary, scope, grid), scope
        path, _ = rashomon_path(
            summary if scope == CROSS_FAMILY else summary[summary["family"] == scope], metric="rmse", epsilons=eps
        )
        # rashomon_path's table of that scope (size_<family> columns of other scopes' families are NaN)
        pd.testing.assert_frame_equal(part[list(path.columns)].reset_index(drop=True), path, check_dtype=False)
        others = [c for c in part.columns if c.startswith("size_") and c not in path.columns]
        assert part[others].isna().all().all()
    cross = sizes[sizes["scope"] == CROSS_FAMILY]
    assert (cross["grid_size"] == 10).all() and (cross["n_failed"] == 1).all()
    assert (cross[["size_gb", "size_rf", "size_dt"]].sum(axis=1) == cross["size"]).all()
    only = set_sizes(summary, metric="rmse", epsilons=eps, scopes=["family"])
    assert CROSS_FAMILY not in set(only["scope"])
    pd.testing.assert_frame_equal(only, sizes[sizes["scope"] != CROSS_FAMILY].reset_index(drop=True))
    absolute = set_sizes(summary, metric="rmse", epsilons=eps, mode="absolute", scopes=[CROSS_FAMILY])
    assert absolute["size"].tolist() == _sizes_oracle(summary, CROSS_FAMILY, grid, mode="absolute")
    with pytest.raises(ValueError, match="scopes"):
        set_sizes(summary, metric="rmse", epsilons=eps, scopes=["global"])
    with pytest.raises(ValueError):
        set_sizes(summary, metric="rmse", epsilons=[])


def test_set_sizes_cross_family_scope_with_one_family():
    # scopes=["cross_family"] with a single family (the workflow script used to fail on it)
    summary = _summary("gb")
    sizes = set_sizes(summary, metric="rmse", epsilons=[0.0, 0.05, 0.3])
    assert sizes["scope"].tolist() == ["gb"] * 3  # "family" and "cross_family": the family's set only
    cross = set_sizes(summary, metric="rmse", epsilons=[0.0, 0.05, 0.3], scopes=[CROSS_FAMILY])
    assert cross["scope"].tolist() == [CROSS_FAMILY] * 3
    assert cross["size"].tolist() == _sizes_oracle(summary, "gb", [0.0, 0.05, 0.3]) == [1, 2, 4]
    assert (cross["size_gb"] == cross["size"]).all() and (cross["reference_config_id"] == "c=3").all()
    assert set(rashomon_scopes(summary, metric="rmse", epsilon=0.3, scopes=[CROSS_FAMILY])) == {CROSS_FAMILY}
    assert set(rashomon_scopes(summary, metric="rmse", epsilon=0.3)) == {"gb"}

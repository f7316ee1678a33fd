"""The explorer's Python side, on a real (small) Rashomon study computed here: membership at any ε is
the rule of `rashomon_set` on the CV summaries, MCR at a grid ε is mcr.csv's, the members' PD from
`rashomon_effects` equals the rashomon rule's curves (the same refits), their ALE equals that of a
separately fitted model, coverage rates equal a brute-force count, and the page is self-contained."""

from __future__ import annotations

import io
import json
import re
from types import SimpleNamespace

import numpy as np
import pandas as pd
import pytest

from xaipipe.config import RashomonSettings
from xaipipe.explain.pdp import accumulated_local_effects
from xaipipe.models.cv import cross_validate_grid, summarize_cv
from xaipipe.models.families import make_estimator
from xaipipe.rashomon.effects import member_effects
from xaipipe.rashomon.multiplicity import n_distinct_functions
from xaipipe.rashomon.refit import params_from_config_id
from xaipipe.rashomon.sets import rashomon_set
from xaipipe.rashomon.study import mcr_study
from xaipipe.report.explorer.charts import dataset_spec
from xaipipe.report.explorer.data import (
    compact_csv,
    coverage_rates,
    dataset_view,
    function_ids,
    mcr_at,
    members_at,
    packed_effects,
    packed_predictions,
    scope_gap,
)
from xaipipe.report.explorer.page import page_html

SEED = 3
EPS = (0.0, 0.5, 1.0, 4.0)
GRIDS = {
    "gradient_boosting": {"n_estimators": [20, 30, 40], "max_depth": [1, 2]},
    "xgboost": {"n_estimators": [5, 10], "max_depth": [2]},
    "linear_regression": {},
}
NAMES = ["a", "b", "c_x", "c_y", "d"]
GROUPS = {"c": ["c_x", "c_y"]}


@pytest.fixture(scope="module")
def study():
    rng = np.random.default_rng(7)
    n = 180
    X = rng.normal(size=(n, 5))
    level = rng.integers(0, 3, n)  # a one-hot group with three levels (the third: both columns 0)
    X[:, 2], X[:, 3] = level == 1, level == 2
    y = 2 * X[:, 0] + X[:, 1] ** 2 + 0.8 * X[:, 2] - 0.5 * X[:, 3] + 0.4 * rng.normal(size=n)
    Xtr, ytr, Xte, yte = X[:130], y[:130], X[130:], y[130:]
    folds = [(np.flatnonzero(np.arange(130) % 4 != k), np.flatnonzero(np.arange(130) % 4 == k)) for k in range(4)]
    summary = pd.concat(
        [
            summarize_cv(cross_validate_grid(f, "regression", g, Xtr, ytr, folds, random_state=SEED), "regression")
            for f, g in GRIDS.items()
        ],
        ignore_index=True,
    )
    summary.insert(0, "dataset", "toy")
    data = SimpleNamespace(
        X_train=Xtr,
        y_train=ytr,
        X_test=Xte,
        y_test=yte,
        X_test_raw=Xte,
        features=NAMES,
        feature_groups=GROUPS,
        dataset="toy",
        task="regression",
        test_rows=np.arange(130, n),
    )
    settings = RashomonSettings(
        task="regression",
        metric="rmse",
        seed=SEED,
        options={},
        loss="squared_error",
        epsilon_mode="se",
        epsilon=1.0,
        epsilons=EPS,
        scopes=("family", "cross_family"),
        estimators=("permutation", "e_divide"),
        n_repeats=3,
        e_switch_max_rows=400,
        figure_scope="cross_family",
        pd={"top_k": 2, "resolution": 6},
    )
    out = mcr_study(data, settings, summary)
    effects = member_effects(data, settings, summary, n_bins=5)
    view = dataset_view(
        "toy",
        members=out.members,
        predictions=out.predictions,
        prediction_index=out.prediction_index,
        effects=effects,
        data=data,
        epsilon=1.0,
        epsilon_max=EPS[-1],
        scope="cross_family",
    )
    return SimpleNamespace(data=data, settings=settings, summary=summary, out=out, effects=effects, view=view)


def test_membership_is_the_rule_of_rashomon_set_at_every_epsilon(study):
    """At the grid ε it gives sets.csv's sizes; at any ε ≤ the largest, the members of rashomon_set
    recomputed from the CV summaries (an independent path: no members.csv column)."""
    view, summary = study.view, study.summary
    sets = study.out.sets
    for scope in view.scopes:
        for eps in EPS:
            size = sets.loc[(sets["scope"] == scope) & (sets["epsilon"] == eps), "size"]
            assert len(members_at(view.members, scope, eps)) == int(size.iloc[0]), (scope, eps)
        part = summary if scope == "cross_family" else summary[summary["family"] == scope]
        for eps in np.linspace(0, EPS[-1], 41):
            want = rashomon_set(part, metric="rmse", epsilon=eps, mode="se").members
            got = members_at(view.members, scope, eps)
            assert sorted(zip(got["family"], got["config_id"])) == sorted(zip(want["family"], want["config_id"]))
    assert set(view.scopes) == {"gradient_boosting", "xgboost", "linear_regression", "cross_family"}
    assert np.isnan(scope_gap(view.members, "xgboost")[view.members["family"] != "xgboost"]).all()


def test_mcr_at_grid_epsilon_equals_mcr_csv(study):
    mcr = study.out.mcr
    for scope in study.view.scopes:
        for est in ("permutation", "e_divide"):
            for quantity in ("mr_ratio", "mr_difference"):
                got = mcr_at(study.view, scope, 1.0, estimator=est, quantity=quantity).set_index("feature")
                want = mcr[
                    (mcr["scope"] == scope)
                    & (mcr["epsilon"] == 1.0)
                    & (mcr["estimator"] == est)
                    & (mcr["quantity"] == quantity)
                ].set_index("feature")
                assert len(want) == len(got) == 4
                np.testing.assert_array_equal(got["mcr_minus"], want.loc[got.index, "mcr_minus"])
                np.testing.assert_array_equal(got["mcr_plus"], want.loc[got.index, "mcr_plus"])
                np.testing.assert_array_equal(got["mr_reference"], want.loc[got.index, "mr_reference"])
                np.testing.assert_array_equal(got["n_members"], want.loc[got.index, "n_members"])


def test_member_pd_equals_the_rashomon_rules_curves(study):
    """The effects rule refits the same models: its PD of the envelope's variables is bitwise the
    rashomon rule's pd_curves for every member of the envelope's set."""
    curves = study.out.curves
    pd_rows = study.effects[study.effects["kind"] == "pd"]
    merged = curves.merge(pd_rows, on=["feature", "family", "config_id", "grid_index"], how="left")
    assert len(merged) == len(curves) > 0
    np.testing.assert_array_equal(merged["pd"].to_numpy(), merged["value"].to_numpy())
    # every variable has curves, beyond the envelope's top 2, and the members of the largest set
    assert set(pd_rows["feature"]) == {"a", "b", "c", "d"}
    largest = members_at(study.view.members, "cross_family", EPS[-1])
    assert set(zip(pd_rows["family"], pd_rows["config_id"])) == set(zip(largest["family"], largest["config_id"]))


def test_member_ale_equals_a_separately_fitted_model(study):
    """ALE of an ensemble prefix (one pass for all prefixes) equals the ALE of the model refitted with
    that n_estimators alone, for a numeric variable and the one-hot group."""
    ale = study.effects[study.effects["kind"] == "ale"]
    gb = ale[ale["family"] == "gradient_boosting"]
    assert not gb.empty
    assert gb["config_id"].nunique() > 1  # several prefixes of one fit: the shared prediction pass is tested
    for cid in gb["config_id"].unique():
        model = make_estimator("gradient_boosting", "regression", params_from_config_id(cid), random_state=SEED)
        model.fit(study.data.X_train, study.data.y_train)
        for feature in ("a", "c"):
            want = accumulated_local_effects(
                model, study.data.X_test, feature, feature_names=NAMES, feature_groups=GROUPS, n_bins=5
            )
            got = gb[(gb["config_id"] == cid) & (gb["feature"] == feature)].sort_values("grid_index")
            np.testing.assert_allclose(got["value"], want.ale, rtol=0, atol=1e-12)
            np.testing.assert_allclose(got["x"], want.values)
    cid = gb["config_id"].iloc[0]
    levels = gb[(gb["config_id"] == cid) & (gb["feature"] == "c")]["level"].tolist()
    assert sorted(levels) == ["(none)", "c_x", "c_y"]


def test_coverage_rate_equals_a_brute_force_count(study):
    view = study.view
    eff, m = view.effects, view.members
    ref = int(m.loc[m["is_reference_cross_family"], "member"].iloc[0])
    for eps in (0.0, 1.0, 2.0):
        chosen = set(members_at(m, "cross_family", eps)["member"])
        cov = coverage_rates(view, "cross_family", eps).set_index(["kind", "feature"])
        for (kind, feature), part in eff.groupby(["kind", "feature"]):
            wide = part.pivot(index="grid_index", columns="member", values="value")
            others = [c for c in wide.columns if c in chosen and c != ref]
            row = cov.loc[(kind, feature)]
            if not others:
                assert np.isnan(row["coverage_rate"]) and row["n_band"] == 0
                continue
            lo, hi, r = wide[others].min(axis=1), wide[others].max(axis=1), wide[ref]
            covered = sum(lo[k] <= r[k] <= hi[k] for k in wide.index)
            assert row["n_covered"] == covered and row["coverage_rate"] == covered / len(wide)
    # the band of a brushed group without the reference
    group = [int(i) for i in members_at(m, "cross_family", 2.0)["member"] if i != ref][:2]
    cov = coverage_rates(view, "cross_family", 2.0, members=group)
    assert (cov["n_band"] == len(group)).all()


def test_function_ids_count_distinct_functions(study):
    P = study.out.predictions
    ids = function_ids(P)
    assert len(set(ids)) == n_distinct_functions(P)
    dup = np.vstack([P, P[:2]])
    ids2 = function_ids(dup)
    assert ids2[-2:].tolist() == ids2[:2].tolist() and len(set(ids2)) == len(set(ids))


def test_compact_csv_keeps_the_gaps_exact_and_rounds_the_rest(study):
    m = study.view.members
    back = pd.read_csv(io.StringIO(compact_csv(m, exact=("gap_family", "gap_cross_family"))))
    np.testing.assert_array_equal(back["gap_family"].to_numpy(), m["gap_family"].to_numpy())
    np.testing.assert_array_equal(back["gap_cross_family"].to_numpy(), m["gap_cross_family"].to_numpy())
    np.testing.assert_allclose(back["test_loss"], m["test_loss"], rtol=5e-6)


def test_packed_tables_unpack_to_the_long_tables(study):
    """What the page's split / flatten / lookup transforms rebuild equals the long tables at 6
    significant digits."""
    view = study.view
    lines = pd.read_csv(io.StringIO(packed_predictions(view.predictions)))
    unpacked = np.array([[float(v) for v in s.split(" ")] for s in lines["values"]])
    want = view.predictions.pivot(index="member", columns="row", values="prediction").loc[lines["member"]]
    np.testing.assert_allclose(unpacked, want.to_numpy(), rtol=5e-6)
    curves, grid = packed_effects(view.effects)
    curves, grid = pd.read_csv(io.StringIO(curves)), pd.read_csv(io.StringIO(grid), keep_default_na=False)
    grid = grid.set_index("key")
    rows = []
    for _, line in curves.iterrows():
        for k, v in enumerate(line["values"].split(" ")):
            key = f"{line['kind']}|{line['feature']}|{k}"
            rows.append((line["member"], line["kind"], line["feature"], k, float(grid.loc[key, "x"]), float(v)))
    back = pd.DataFrame(rows, columns=["member", "kind", "feature", "grid_index", "x", "value"])
    merged = view.effects.merge(back, on=["member", "kind", "feature", "grid_index"], suffixes=("", "_page"))
    assert len(merged) == len(view.effects) == len(back)
    np.testing.assert_allclose(merged["value_page"], merged["value"], rtol=5e-6, atol=1e-300)
    np.testing.assert_allclose(merged["x_page"], merged["x"], rtol=5e-6)


def test_page_is_self_contained(study):
    html = page_html({"toy": dataset_spec(study.view)})
    assert not re.search(r"<script[^>]+src=", html) and "cdn.jsdelivr" not in html.split("<body>")[1]
    block = re.search(r'<script type="application/json" id="spec-toy">(.*?)</script>', html, re.S).group(1)
    spec = json.loads(block)
    assert set(spec["datasets"]) == {"members", "reliance", "predictions", "rows", "values", "effects", "grid"}
    eps = next(p for p in spec["params"] if p["name"] == "eps")
    assert eps["value"] == 1.0 and eps["bind"]["max"] == EPS[-1]


def test_a_set_of_one_member_says_so(study):
    view = study.view
    one = members_at(view.members, "linear_regression", 1.0)
    assert len(one) == 1  # the only linear_regression configuration
    narrow = dataset_view(
        "toy",
        members=study.out.members,
        predictions=study.out.predictions,
        prediction_index=study.out.prediction_index,
        effects=study.effects,
        data=study.data,
        epsilon=1.0,
        epsilon_max=EPS[-1],
        scope="linear_regression",
    )
    assert narrow.notes and "one member" in narrow.notes[0]
    spec = dataset_spec(narrow)
    assert "one member" in spec["vconcat"][0]["data"]["values"][0]["label"]


def _layers(spec: dict) -> list[str]:
    """Names of every layer of a specification (recursively)."""
    out = []
    if isinstance(spec, dict):
        if "name" in spec and "mark" in spec:
            out.append(spec["name"])
        for value in spec.values():
            out += _layers(value)
    elif isinstance(spec, list):
        for value in spec:
            out += _layers(value)
    return out


def test_the_rows_view_draws_the_rashomon_prediction_interval(study):
    """Issue 53: with the prediction_intervals rule's rows, each scope's interval at the configured ε
    joins the rows table by the prepared row and is drawn behind the members' range; without them the
    specification is the one before (classification datasets, the rule switched off)."""
    from xaipipe.rashomon.prediction_intervals import prediction_interval_tables

    out = study.out
    pi = prediction_interval_tables(
        study.data, out.predictions, out.prediction_index, out.members, epsilons=EPS, default_epsilon=1.0, n_splits=2
    ).rows
    kwargs = dict(
        members=out.members,
        predictions=out.predictions,
        prediction_index=out.prediction_index,
        effects=study.effects,
        data=study.data,
        epsilon=1.0,
        epsilon_max=EPS[-1],
        scope="cross_family",
    )
    view = dataset_view("toy", intervals=pi.sample(frac=1.0, random_state=0), **kwargs)  # any row order
    for scope in view.scopes:
        want = pi[pi["scope"] == scope].set_index("row")
        got = view.rows.set_index("prepared_row")
        np.testing.assert_array_equal(got[f"pi_lower_{scope}"], want.loc[got.index, "lower"])
        np.testing.assert_array_equal(got[f"pi_upper_{scope}"], want.loc[got.index, "upper"])
    assert "pi_lower_linear_exact" not in view.rows  # the explorer's scopes are the grid's
    assert "rows_intervals" in _layers(dataset_spec(view))
    plain = dataset_view("toy", **kwargs)
    assert "rows_intervals" not in _layers(dataset_spec(plain))
    assert dataset_spec(plain) == dataset_spec(study.view)

"""An EBM's own explanation (xaipipe.explain.glassbox) against interpret-core's public API, Shapley's
additivity (SHAP of an EBM without pairs = its centred terms) and its own predictions."""

import io

import numpy as np
import pytest

from xaipipe.explain import ebm_terms, term_contributions
from xaipipe.explain.shapley import shap_values
from xaipipe.models.families import get_family, make_estimator

pytest.importorskip("interpret")


def _regression(n=300, seed=0):
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, 4))
    y = 2.0 * X[:, 0] + np.sin(2 * X[:, 1]) + 0.5 * X[:, 2] ** 2 + rng.normal(scale=0.3, size=n)
    order = np.argsort(X[:, 0])  # rows sorted by the strongest variable: not a random order
    return X[order], y[order]


def _ebm(task, X, y, **params):
    options = {"interactions": 0, "outer_bags": 4, "max_rounds": 300, **params}
    return make_estimator("ebm", task, {}, random_state=3, options=options).fit(X, y)


@pytest.fixture(scope="module")
def regressor():
    X, y = _regression()
    return _ebm("regression", X, y), X


@pytest.fixture(scope="module")
def classifier():
    X, y = _regression(seed=1)
    return _ebm("classification", X, (y > np.median(y)).astype(int)), X


def test_the_family_pins_n_jobs_and_declares_its_terms():
    fam = get_family("ebm")
    assert fam.terms == "interpret" and fam.output_degree == 2 and fam.log_odds == "decision_function"
    est = make_estimator("ebm", "classification", {"learning_rate": 0.04}, random_state=7, n_jobs=4)
    params = est.get_params()
    assert params["n_jobs"] == 1 and params["random_state"] == 7 and params["learning_rate"] == 0.04


def test_term_contributions_add_up_to_the_prediction_and_the_log_odds(regressor, classifier):
    model, X = regressor
    values, names = term_contributions(model, X)
    assert values.shape == (len(X), 4) and names == list(model.term_names_)
    np.testing.assert_allclose(model.intercept_ + values.sum(axis=1), model.predict(X), rtol=0, atol=1e-10)
    model, X = classifier
    values, _ = term_contributions(model, X)
    p = model.predict_proba(X)[:, 1]
    np.testing.assert_allclose(model.intercept_[0] + values.sum(axis=1), np.log(p / (1 - p)), atol=1e-8)


def test_shap_values_of_an_ebm_without_pairs_are_its_centred_terms(regressor, classifier):
    """Shapley additivity: phi_j(x) = f_j(x_j) - mean_b f_j(b_j), for the prediction and the log-odds."""
    for model, X in (regressor, classifier):
        rows, background = X[::37], X[1::10]
        result = shap_values(model, rows, X_background=background, background_size=len(background), random_state=2)
        terms, _ = term_contributions(model, rows)
        centre = term_contributions(model, background)[0].mean(axis=0)
        assert result.algorithm == "permutation"
        np.testing.assert_allclose(result.values, terms - centre, rtol=0, atol=1e-8)


def test_shapes_are_interprets_own_scores_and_error_bars(regressor):
    model, X = regressor
    out = ebm_terms(model, X, feature_names=["a", "b", "c", "d"])
    assert list(out.to_frames()) == ["terms", "shapes"]
    glob = model.explain_global()
    for t, feature in enumerate("abcd"):
        rows = out.shapes[out.shapes["feature"] == feature]
        data = glob.data(t)
        np.testing.assert_allclose(rows["score"], data["scores"], rtol=0, atol=0)
        np.testing.assert_allclose(rows["upper"], data["upper_bounds"], rtol=0, atol=1e-12)
        np.testing.assert_allclose(rows["lower"], data["lower_bounds"], rtol=0, atol=1e-12)
        # the error bars are the outer bags' standard deviation (population SD, ddof 0)
        np.testing.assert_allclose(rows["sd"], np.asarray(model.bagged_scores_[t])[:, 1:-1].std(axis=0), atol=1e-12)
        np.testing.assert_allclose(rows["se_subsampling"], rows["sd"] * np.sqrt(0.85 / 0.15))
        # bins tile the training range, in order
        lower, upper = rows["x_lower"].to_numpy(), rows["x_upper"].to_numpy()
        assert lower[0] == X[:, t].min() and upper[-1] == X[:, t].max()
        np.testing.assert_array_equal(lower[1:], upper[:-1])
    assert set(out.shapes["n_bags"]) == {4} and set(out.shapes["output"]) == {"prediction"}


def test_term_importances_rank_the_planted_effects(regressor):
    model, X = regressor
    terms = ebm_terms(model, X, feature_names=["a", "b", "c", "d"]).terms
    np.testing.assert_allclose(terms["importance"], model.term_importances("avg_weight"))
    values, _ = term_contributions(model, X)
    np.testing.assert_allclose(terms["test_importance"], np.abs(values).mean(axis=0))
    assert terms.sort_values("rank")["term"].tolist()[0] == "a"  # 2 x_0: the largest term
    assert terms.loc[terms["features"] == "d", "rank"].item() == 4  # the noise variable: last
    assert terms["share"].sum() == pytest.approx(1.0)


def test_a_multiclass_ebm_has_one_shape_per_class():
    X, y = _regression(seed=2)
    labels = np.digitize(y, np.quantile(y, [1 / 3, 2 / 3]))
    model = _ebm("classification", X, labels)
    out = ebm_terms(model, X)
    assert sorted(set(out.shapes["class"])) == ["0", "1", "2"]
    one = out.shapes[(out.shapes["feature"] == "feature_0000") & (out.shapes["class"] == "2")]
    np.testing.assert_allclose(one["score"], np.asarray(model.term_scores_[0])[1:-1, 2])
    assert set(out.shapes["output"]) == {"log_odds"}


def test_a_model_without_terms_is_refused_by_name():
    from sklearn.linear_model import LinearRegression

    X, y = _regression(n=50)
    with pytest.raises(ValueError, match="LinearRegression has no additive terms"):
        ebm_terms(LinearRegression().fit(X, y), X)
    unfitted = make_estimator("ebm", "regression", {}, random_state=0)
    with pytest.raises(ValueError, match="not fitted"):
        term_contributions(unfitted, X)
    model = _ebm("regression", X, y)
    with pytest.raises(ValueError, match="feature_names has 2 names"):
        ebm_terms(model, X, feature_names=["a", "b"])


def test_the_figure_draws_the_shapes_and_the_band_label(regressor):
    from xaipipe.plots.ebm import plot_ebm_terms

    model, X = regressor
    out = ebm_terms(model, X, feature_names=["a", "b", "c", "d"])
    from xaipipe.io import read_csv

    # read back as the rule reads it (the empty class / level cells become NaN)
    shapes = read_csv(io.StringIO(out.shapes.to_csv(index=False)), keep_default_na=False, na_values=[""])
    fig = plot_ebm_terms(out.terms, shapes, title="t", target_unit="dB", coverage="covers 0.33 ± 0.02")
    assert "± 1 SD over 4 outer bags" in fig._suptitle.get_text() and "covers 0.33" in fig._suptitle.get_text()
    assert len([ax for ax in fig.axes if ax.axison]) == 5  # importances + four main terms
    assert fig.axes[1].get_ylabel() == "score (dB)"
    top = out.terms.sort_values("rank")["term"].iloc[0]
    assert top == "a" and fig.axes[1].get_xlabel() == "a"
    # every shape panel draws its step function and its band over the variable's range
    for ax in fig.axes[1:5]:
        (line,) = [ln for ln in ax.get_lines() if len(ln.get_xdata()) > 2]
        assert np.isfinite(line.get_ydata()).all() and len(ax.collections) == 1
        lo, hi = ax.get_ylim()
        assert hi - lo > 0.2  # scaled to the data, not matplotlib's empty default
    labels = [t.get_text() for t in fig.axes[0].get_yticklabels()]
    assert set(labels) == {"a", "b", "c", "d"}


def test_the_pd_band_is_the_ebm_s_brute_force_pd_on_its_training_rows(regressor):
    """intercept + f_j(z) equals the PD computed by predicting with x_j set to z on every training row
    (the other terms are centred there); the band's SD is the bin's; cuts go to the bin above."""
    from xaipipe.explain import ebm_pd_band

    model, X = regressor
    cuts = np.asarray(model.bins_[1][0])
    grid = np.r_[X[:, 1].min() - 1.0, np.quantile(X[:, 1], [0.1, 0.5, 0.9]), cuts[3], X[:, 1].max() + 1.0]
    pd_, sd = ebm_pd_band(model, 1, grid)
    for z, value in zip(grid, pd_):
        Z = X.copy()
        Z[:, 1] = z
        assert value == pytest.approx(model.predict(Z).mean(), abs=1e-9)
    scores = np.asarray(model.term_scores_[1])
    bins = [int(np.flatnonzero(scores == model.eval_terms(np.c_[X[:1, :1], [[z]], X[:1, 2:]])[0, 1])[0]) for z in grid]
    np.testing.assert_array_equal(sd, np.asarray(model.standard_deviations_[1])[bins])
    with pytest.raises(ValueError, match="no main term of variable 9"):
        ebm_pd_band(model, 9, grid)


def test_the_bagging_factor_is_the_subsampling_correction(regressor):
    from xaipipe.explain import bagging_se_factor

    model, X = regressor
    assert bagging_se_factor(model) == pytest.approx(np.sqrt(0.85 / 0.15))
    counted = _ebm("regression", X, model.predict(X), validation_size=60)
    assert bagging_se_factor(counted, n_rows=len(X)) == pytest.approx(np.sqrt(240 / 60))
    with pytest.raises(ValueError, match="give n_rows"):
        bagging_se_factor(counted)

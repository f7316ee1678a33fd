"""Model reliance (MR): permutation feature importance as defined by Fisher, Rudin &
Dominici (2019), evaluated for one model or many models at once.

One public function, :func:`model_reliance` (like ``sklearn.inspection``'s
``permutation_importance``), chooses the fastest exact path inside (``method=``):
the generic path (:mod:`._generic`), the tree engine (:mod:`._engine`, its numba
kernels in :mod:`._kernels`) or the linear closed form (:mod:`._linear`); shared
input checks, designs and the result type live in :mod:`._base`, the losses in :mod:`xaipipe.losses`.

Definitions (Fisher, Rudin & Dominici 2019, "All Models are Wrong, but Many are
Useful", JMLR 20(177), §3 and §3.1)
-----------------------------------------------------------------------------
Split the covariates into the variable of interest ``X1`` (one column or a group
of columns) and the rest ``X2``. For a *fixed* prediction model ``f`` and a loss
``L``, on a sample of ``n`` observations ``(y_i, X1_i, X2_i)``:

* ``e_orig(f) = (1/n) Σ_i L{f, (y_i, X1_i, X2_i)}`` -- the model's empirical loss.
* ``e_switch(f) = 1/(n(n-1)) Σ_i Σ_{j≠i} L{f, (y_j, X1_i, X2_j)}`` -- the loss when
  observation ``j`` keeps its response and ``X2`` but receives ``X1`` from another
  observation ``i`` (a U-statistic; every ordered pair once).
* ``e_divide(f) = 1/(2h) Σ_{k=1}^{h} [L{f, (y_{a_k}, X1_{b_k}, X2_{a_k})}
  + L{f, (y_{b_k}, X1_{a_k}, X2_{b_k})}]`` with ``h = ⌊n/2⌋`` -- the sample is
  divided into two halves ``a_1..a_h`` and ``b_1..b_h`` that swap ``X1`` pairwise
  (Fisher et al. 2019, §3.1: the halves are a *random* split of i.i.d. rows; with
  ``n`` odd one row is left out).
* ``MR(f) = e_switch(f) / e_orig(f)`` (the paper's model reliance, a ratio;
  ``MR > 1`` means the model relies on ``X1``) and the difference
  ``e_switch(f) - e_orig(f)`` (the scale of scikit-learn's
  ``permutation_importance`` with a ``neg_*`` loss scorer).

Estimators (``estimator=`` option, recorded in the ``estimator`` column)
-------------------------------------------------------------------------
``"permutation"``
    Breiman's (2001) permutation importance as generalised by Fisher et al.:
    ``R`` random row permutations ``π_r``; repeat ``r`` evaluates
    ``(1/n) Σ_j L{f, (y_j, X1_{π_r(j)}, X2_j)}``. The reported ``e_switch`` is the
    mean over repeats; ``*_std`` is the standard deviation across repeats
    (``ddof=1``) and ``*_se = std / sqrt(R)`` the Monte-Carlo standard error of
    the mean. Because a random permutation keeps each row in place with
    probability ``1/n``, ``E_π[repeat] = (1/n) e_orig + (1 - 1/n) e_switch``
    exactly (``tests/explain/reliance/test_model_reliance.py`` checks this identity by
    enumerating all ``n!`` permutations of a small sample): as an estimate of
    ``ê_switch`` it is biased towards ``ê_orig`` by ``(ê_orig - ê_switch) / n``.
``"e_divide"``
    The half-swap estimator above on ``R`` seeded random halvings: halving ``r``
    takes a uniform random permutation ``π_r`` of the rows, ``a = π_r[:h]``,
    ``b = π_r[h:2h]`` (the same machinery and seeds as the permutation estimator,
    an independent stream of ``random_state``). The reported ``e_switch`` is the
    mean over halvings, ``*_std`` / ``*_se`` as above. Every ordered pair
    ``(i, j), i ≠ j`` is equally likely to be swapped, so each halving is
    *unbiased* for ``ê_switch``: ``E_π[e_divide] = ê_switch`` exactly
    (``tests/explain/reliance/test_e_divide.py`` checks it by enumeration and on
    rows sorted by the variable of interest). A halving in *file order*
    (``permutations`` = the identity, the estimator as the seed and the previous
    pipeline computed it) is biased whenever the rows are ordered: UCI files come
    sorted in blocks (Airfoil by chord length), where it was 20-29 % away from the
    exact linear-model ``e_switch`` on Airfoil and Concrete.
``"e_switch"``
    All ``n(n-1)`` ordered pairs, evaluated in chunks of donor rows so that no
    single ``predict`` call sees more than ``max_rows_per_batch`` rows (memory is
    ``O(max_rows_per_batch · p)``, time ``O(n²)`` predictions). For a linear model
    ``f(x) = b0 + Σ_j b_j x_j`` with squared loss there is an exact ``O(n)``
    closed form (``method="linear"`` / automatic for fitted linear models): with residuals
    ``r_k = y_k - f(x_k)``, ``c_k = Σ_{j∈G} b_j x_kj`` and ``a_k = r_k + c_k``, the
    pair term is ``(a_j - c_i)²`` and

    ``Σ_j Σ_{i≠j} (a_j - c_i)² = n Σa² - 2 Σa Σc + n Σc² - Σ_k r_k²``
    ``= n Σ(a-ā)² + n Σ(c-c̄)² + n² (ā-c̄)² - Σ_k r_k²``

    (the centred second form is used; it avoids cancellation), divided by
    ``n(n-1)``. Deterministic.

Honest Monte-Carlo error (:mod:`._mc_error`)
--------------------------------------------
The reported ``*_se = sd / sqrt(R)`` is unbiased in variance but unreliable for ``R = 20`` draws of a
skewed variable; :func:`exact_monte_carlo_se` computes the exact SE of the ``permutation`` and
``e_divide`` estimates from the ``n × n`` switched losses (Hoeffding 1951; the matching formula in
:mod:`._mc_error`). :meth:`RelianceResult.to_frame` reports ``sd / sqrt(R)``; ``model_reliance.csv``
(:func:`reliance_report`) reports for ``e_divide`` the exact SE from the
switched losses its ``e_switch`` estimate keeps (``RelianceOptions(switch_matrix=True)``,
:func:`matching_draw_variance`: exact on all rows, a U-statistic estimate from the ``e_switch``
subsample).

Under dependent features (:mod:`._conditional`)
-----------------------------------------------
:func:`conditional_model_reliance` permutes the variable within the leaves of a tree fitted on the
training split to predict it from the others (cs-PFI, Molnar et al. 2023; estimator label
``"conditional_permutation"``); :func:`grouped_model_reliance` permutes clusters of features with
``|r| >= threshold`` jointly (:func:`correlation_groups`; label ``"grouped_<estimator>"``). Both
return a :class:`RelianceResult` and go through :func:`model_reliance`.

Multi-member evaluation
-----------------------
Every estimator evaluates ``m`` models at once: all ``n_estimators`` prefixes of one
fitted ensemble (``n_estimators=``; :func:`xaipipe.models.prefix.member_predictor`,
:func:`xaipipe.models.prefix.prefix_predictions`) or any *predict-many* callable
``predict(X) -> (m, n)`` (regression) / ``(m, n, n_classes)`` (classification).
Each permuted / switched data set is built once (one fancy-indexed copy of ``X``
per feature group and repeat), and passed through ``predict`` once for all
members; several small data sets are stacked into one call up to
``max_rows_per_batch`` rows. Per-data-set loss sums do not depend on the batching.

Departures from the seed (001 §4.1)
-----------------------------------
1. Its all-pairs formula indexes ``X2`` by the donor: ``L{f, y_j, X1[i], X2[i]}``.
   That scores the prediction at the *whole* covariate vector of ``i`` against
   the response of ``j`` -- it permutes the response, i.e. measures reliance on
   all covariates jointly, not on ``X1``. The paper's ``ê_switch`` is
   ``1/(n(n-1)) Σ_i Σ_{j≠i} L{f, (y_j, X1_i, X2_j)}`` (only ``X1`` comes from the
   other observation); implemented here.
2. It describes Breiman's permutation importance as *re-training* a model on the
   permuted data and comparing out-of-bag errors. Neither Breiman's importance
   (the permuted OOB data are passed through the *same* trees) nor Fisher et
   al.'s MR re-train: MR is a property of one fixed model ``f``. Nothing is
   re-fitted here. (Re-fitting after permuting gives a different quantity, the
   *learner*-level importance.)
3. (split importance, see :mod:`xaipipe.explain.reliance`) Eq. 4.1 is written
   with ``1(v_t = 1)`` and a sum to ``j-1``; Friedman's (2001, eq. 44) is
   ``Σ_{t=1}^{J-1} î_t² 1(v_t = j)`` over the ``J-1`` internal nodes of a
   ``J``-leaf tree.
4. The seed calls the all-pairs estimator ``ê_perm``; the paper calls it
   ``ê_switch`` (and its population version ``e_switch``). The pipeline uses the
   paper's names.

Losses
------
``squared_error`` (regression), ``log_loss`` and ``zero_one`` (binary
classification, labels 0/1). The binary log loss is ``-log(p)`` for ``y = 1`` and
``-log(1 - p)`` for ``y = 0`` with ``p`` the probability of class 1, clipped to
``[eps, 1 - eps]`` after forming ``1 - p`` (``eps`` = machine epsilon of the
dtype), exactly as scikit-learn's ``neg_log_loss`` scorer does (it passes the
class-1 column of ``predict_proba`` to ``log_loss``). The zero-one loss uses the
hard label ``argmax`` of the two class probabilities (class 0 on ties), as
``predict`` does. With ``K > 2`` classes (labels ``0 .. K-1``, output ``(m, n, K)``)
both losses are the multiclass ones: ``-log clip(p(y))`` (the multinomial log
loss of ``sklearn.metrics.log_loss``) and ``1(argmax_k p_k != y)``; MR, MCR and
every estimator are defined on them unchanged (``docs/multiclass.md``).

References
----------
Fisher, A., Rudin, C. & Dominici, F. (2019). All models are wrong, but many are
useful: learning a variable's importance by studying an entire class of
prediction models simultaneously. JMLR 20(177), 1-81.
Breiman, L. (2001). Random forests. Machine Learning 45(1), 5-32.
"""

from ..._lazy import attach

#: Entry point -> the submodule that defines it (imported on first use, PEP 562; :mod:`xaipipe._lazy`).
ENTRY_POINTS = {
    # The estimators (one public function), their options, results and designs
    "model_reliance": "_model_reliance",
    "METHODS": "_model_reliance",
    "RelianceOptions": "_base",
    "RelianceResult": "_base",
    "RELIANCE_COLUMNS": "_base",
    "ESTIMATORS": "_base",
    "DEFAULT_MAX_ROWS": "_base",
    "e_switch_rows": "_base",
    "estimator_stream": "_base",
    "features_from_groups": "_base",
    "resolve_features": "_base",
    "random_permutations": "_base",
    "sklearn_permutations": "_base",
    "conditional_permutations": "_base",
    "linear_coefficients": "_linear",
    "draw_variance": "_mc_error",
    "exact_monte_carlo_se": "_mc_error",
    "matching_draw_variance": "_mc_error",
    "switch_loss_matrix": "_mc_error",
    # Under dependent features
    "conditional_model_reliance": "_conditional",
    "conditional_strata": "_conditional",
    "correlation_groups": "_conditional",
    "grouped_model_reliance": "_conditional",
    "DEPENDENT_ESTIMATORS": "_dependent",
    "dependent_reliance_rows": "_dependent",
    "dependent_ranking_agreement": "_dependent",
    # Split gain, the MR ranking, the tables of the model_reliance and ranking_agreement rules
    "split_gain_columns": "_split_gain",
    "split_gain_importance": "_split_gain",
    "ranked_features": "_ranking",
    "top_features": "_ranking",
    "RELIANCE_FIRST": "_tables",
    "RANKING_MEASURES": "_tables",
    "RelianceTables": "_tables",
    "reliance_report": "_tables",
    "reliance_tables": "_tables",
    "ranking_tables": "_tables",
    "split_gain_or_nan": "_tables",
    "grouped_mean_abs_shap": "_tables",
    "ranking_agreement": "_tables",
}

__getattr__, __dir__, __all__ = attach(__name__, ENTRY_POINTS)

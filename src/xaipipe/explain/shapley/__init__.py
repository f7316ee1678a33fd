"""SHAP values of fitted models: one entry point, honest output spaces.

:func:`shap_values` explains a fitted model of any family of
:mod:`xaipipe.models.families` on rows ``X`` (the test rows) and returns a
:class:`ShapResult`: one SHAP value per row and feature plus the base value, such
that, for every explained row ``i`` (*local accuracy*, Lundberg & Lee 2017,
NeurIPS, Property 1 / eq. 5; *eficiencia* in 000 §3.2)::

    base_values[i] + values[i].sum() == model_output[i]

``model_output`` is computed directly from the model (not from the SHAP values)
and every call checks the identity above, raising :class:`RuntimeError` when it
fails; the largest error is kept in ``details["max_abs_additivity_error"]``.

Algorithms (``algorithm="auto"`` takes the family's ``shap_algorithm``, :mod:`xaipipe.models.families`)
------------------------------------------------------
``"xgboost_pred_contribs"`` (XGBoost)
    Exact path-dependent TreeSHAP computed by XGBoost itself,
    ``Booster.predict(DMatrix, pred_contribs=True)`` (last column = bias = base
    value), in float32; interaction values with ``pred_interactions=True``
    (Lundberg et al. 2020, Nat. Mach. Intell. 2:56-67, "Tree SHAP" and "SHAP
    interaction values").  Output: the margin, i.e. the prediction for
    identity-link regression objectives and the log-odds for
    ``binary:logistic``.
``"tree_explainer"`` (scikit-learn decision tree, random forest, gradient boosting)
    ``shap.TreeExplainer(model, feature_perturbation="tree_path_dependent")``:
    exact path-dependent TreeSHAP, no background data (the expectation uses the
    training cover stored in the trees).  Output spaces:

    * regressors: the prediction;
    * ``GradientBoostingClassifier``: the raw score, which is the log-odds of
      class 1 (binary deviance loss);
    * ``DecisionTreeClassifier`` / ``RandomForestClassifier``: the class-1
      probability. A forest's probability is the *average of the trees'
      probabilities*; its log-odds ``logit(mean_b p_b(x))`` is not a sum over
      trees, so no exact tree-wise algorithm gives log-odds SHAP values for it
      (path-dependent TreeSHAP is exact only for outputs that are sums of
      per-tree leaf values). For a single tree ``logit(p_leaf)`` would be a
      leaf value, but grown trees have pure leaves (``p`` = 0 or 1, infinite
      log-odds). We therefore report these values with
      ``output="probability"`` rather than approximate a log-odds version;
      ``algorithm="permutation"`` gives (clipped) log-odds SHAP values of
      either model when they are needed.

    Random forests are explained in chunks of trees (``chunk_size``), in
    parallel processes (``n_jobs``): the forest output is the mean of its trees,
    so by the additivity axiom (000 §3.2, *aditividad*) its SHAP values are
    ``sum_c (n_c / n_trees) * phi(sub-forest c)``, exactly.  This bounds memory
    (shap densifies all trees of a model at once) and spreads the cost over
    cores.
``"linear_explainer"`` (linear and logistic regression)
    ``shap.LinearExplainer`` with an explicit background (masker) and
    interventional expectations: ``phi_j = w_j (x_j - mean_background_j)``
    (Lundberg & Lee 2017, Corollary 1, "Linear SHAP"; 000 §3.2).  For the
    ``StandardScaler -> LogisticRegression`` pipeline the scaled model is
    explained; since ``z_j = (x_j - mu_j) / s_j`` is affine per feature,
    ``w_j (z_j - mean z_j) = (w_j / s_j)(x_j - mean x_j)``: the values equal
    those of the equivalent unscaled linear form (verified in the tests).
    Logistic models are explained in log-odds.
``"permutation"`` (default for any other model: naive Bayes, QDA, kNN)
    ``shap.PermutationExplainer`` (antithetic permutation sampling; Strumbelj &
    Kononenko 2014, Knowl. Inf. Syst. 41:647-665) with an independent masker on
    an explicit background sample drawn with a seed from ``X_background``.
    Local accuracy holds exactly (each permutation telescopes from the base
    value to ``f(x)``). The values are exact when the explained output has no
    interactions of order > 2 - naive Bayes log-odds (additive), QDA log-odds
    (quadratic) - with a single antithetic pair, which is then the default
    (``n_permutations=None``), and for ``p <= 2``; otherwise (kNN) they are a
    Monte Carlo estimate from ``n_permutations`` pairs.
``"kernel"``
    ``shap.KernelExplainer`` (Kernel SHAP, Lundberg & Lee 2017, Theorem 2; 000
    §3.3.4, Teorema 3.14) on the same background, without L1 feature
    selection; exact when ``n_coalitions >= 2**p - 2``.

The game of the model-agnostic explainers
-----------------------------------------
Both ``"permutation"`` and ``"kernel"`` explain the interventional game
``v(S) = mean_b f(x_S, b_notS)`` over the background rows ``b`` (000 §3.2,
"Función característica": the prediction integrated over the features not in
``S``), where ``f`` is the model output in the reported space.  For
classifiers ``f`` defaults to the log-odds of class 1 (``link="logit"``), so
the base value is the background mean of the log-odds, ``E_b[logit p(b)]`` -
the same convention as TreeSHAP on a margin and Linear SHAP on a logistic
model (a logistic model explained by ``"permutation"`` gives exactly its
Linear SHAP values).  This differs from ``shap``'s own ``link=shap.links.logit``,
which explains ``logit(E_b[p])`` (and, by default, a linearised version of it).
The log-odds are exact where the model provides them (logistic regression,
LDA/QDA decision function, naive Bayes joint log-likelihoods); otherwise (kNN,
whose probabilities are fractions of neighbours and hit 0 and 1) they are
``logit(clip(p, eps, 1 - eps))`` with ``eps = proba_clip`` (recorded in
``details["log_odds_source"]``); ``link="identity"`` explains the probability
instead.

Multiclass models
-----------------
A classifier with ``K > 2`` classes (coded ``0 .. K-1``) has one output per class and is explained
one class at a time (``class_index=k``; :func:`shap_tables` with ``classes`` does every class).
The explained output of class ``k`` is the one the model computes: XGBoost's margin of class ``k``
(``pred_contribs``), gradient boosting's raw score ``init_k + lr * sum_t tree_{t,k}(x)`` (shap reads
binary gradient boosting only, so the class's trees are handed to TreeSHAP as their own ensemble,
exactly), a tree's or forest's probability of class ``k``, the multinomial score ``w_k . z + b_k``
of logistic regression (Linear SHAP), and for the model-agnostic explainers the one-vs-rest
log-odds ``logit(clip(p_k))`` (or ``p_k`` with ``link="identity"``). Those log-odds are not of
degree 2 in the features for naive Bayes or QDA (a log-sum-exp over the classes), so the
permutation explainer uses :data:`DEFAULT_N_PERMUTATIONS` pairs. ``details["class_index"]``
records the class (``docs/multiclass.md``).

Feature groups (one-hot encoded categorical variables)
-----------------------------------------------------
The models see a categorical variable as its 0/1 columns (Abalone's ``Sex`` ->
``Sex_F``, ``Sex_I``, ``Sex_M``; ``prepared.json``'s ``feature_groups``), and every
algorithm above gives one SHAP value per column. :func:`group_shap_result` (and
:func:`shap_tables` with ``data.feature_groups``, the pipeline's tables and figures) reports a
group as one variable ``G`` with the value

    phi_G(x) = sum_{j in G} phi_j(x),

so that local accuracy still holds over the variables, ``base + sum_G phi_G = f(x)``
(the columns are partitioned, nothing is added or lost). This is the grouping shap itself
uses: its plots merge clustered features by adding their values
(``shap.plots.bar`` / ``beeswarm`` with ``clustering``), Lundberg recommends the sum for
one-hot columns (shap issues #397 and #679), and the interaction value of two groups is
the sum over their block of the interaction matrix (shap issue #1342). The mean |SHAP|
of a group is the mean over rows of ``|phi_G(x)|``, taken after summing.

What the sum is *not*, in general: the Shapley value of the game in which the group is
one player (the quotient game ``v_P(T) = v(union of the groups in T)``, whose
coalitions switch all of a group's columns together, so that no row with two levels
set is ever evaluated). That value is also the group's total of the Owen value for
the coalition structure of the groups (Owen 1977, "Values of games with a priori
unions"; the quotient-game property), which shap's ``PartitionExplainer`` computes for
a partition tree. Writing the game through its Harsanyi dividends ``d_T``, the sum is
``sum_T d_T |T & G| / |T|`` and the quotient-game value ``sum_{T meets G} d_T / (number
of groups T meets)``. The two agree when every coalition with a dividend either lies
inside one group or takes at most one column of each group it meets (then both
fractions are ``1 / |T|``, or 1) - in particular for additive games (Linear SHAP of a
linear or logistic model, ``phi_G = sum_{j in G} w_j (x_j - mean_b x_j)``) - and
differ in general otherwise (a tree whose paths split on two of the group's columns
and on another feature: its dividend on ``{Sex_F, Sex_M, Length}`` gives the group
2/3 in the sum and 1/2 in the quotient game). The tests show both cases against
brute-force Shapley values.

:class:`GroupedShapResult` keeps the per-column result in ``columns`` (nothing is
lost), the groups and the level labels; its ``data`` holds a one-hot group's level
code (the position of the row's level in ``levels[group]``).

Departures from the seed (000, ch. 3)
-------------------------------------
000 §3.3.3 defines SHAP values with conditional expectations ``E[f(z) | z_S]``;
all explainers here use either the interventional (marginal) expectation of 000
§3.2 (linear, permutation, kernel) or the tree-path-dependent approximation of
the conditional expectation (TreeSHAP).  ``feature_perturbation`` records which.

Also here: the KernelSHAP-against-TreeSHAP check of the ``shap_check`` rule (:mod:`._check`) and the
summary of the SHAP interaction values with the ``shap_interaction_summary`` rule's tables
(:mod:`._interactions`).
"""

from ..._lazy import attach

#: Entry point -> the submodule that defines it (imported on first use, PEP 562; :mod:`xaipipe._lazy`).
ENTRY_POINTS = {
    # The explainers, their results and the shap rule's tables
    "ALGORITHMS": "_algorithms",
    "auto_algorithm": "_algorithms",
    "forest_chunks": "_algorithms",
    "ShapOptions": "_values",
    "shap_values": "_values",
    "group_shap_result": "_groups",
    "ShapClasses": "_result",
    "GroupedShapResult": "_result",
    "ShapResult": "_result",
    "class_result": "_result",
    "global_importance": "_result",
    "interaction_frame": "_result",
    "level_labels": "_result",
    "result_metadata": "_result",
    "row_frame": "_result",
    "tidy_frame": "_result",
    "ShapTables": "_tables",
    "shap_tables": "_tables",
    # KernelSHAP against TreeSHAP (the shap_check rule)
    "ShapCheck": "_check",
    "kernel_vs_tree_shap": "_check",
    # SHAP interaction values (the shap_interaction_summary rule)
    "ShapInteractionSummary": "_interactions",
    "shap_interaction_summary": "_interactions",
    "shap_interaction_tables": "_interactions",
}

__getattr__, __dir__, __all__ = attach(__name__, ENTRY_POINTS)

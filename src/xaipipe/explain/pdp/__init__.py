"""Partial dependence (PD), ICE, centered ICE and derivative ICE curves; ALE and H² beside them.

Layers: grids and input checks (:mod:`._grid`), the curves of a model
(:mod:`._curves`), the effects of one variable or pair (:mod:`._effects`) and
their long tables / CSV round-trips and the ``pd_ice`` rule's tables
(:mod:`._tables`). The other effects read off the same grids and model calls
live beside them: accumulated local effects (ALE, Apley & Zhu 2020;
:mod:`._ale`) and the ``ale`` rule's tables (:mod:`._ale_tables`), Friedman's H²
and the ``h_statistic`` rule's table (:mod:`._h_statistic`), and the choice of
the 2-D PD's pair by H² (:mod:`._pair_choice`), and the regional PD of the variables whose ICE
curves fan out most (``effector``; :mod:`._regional`).

Methods
-------
Notation: a fitted model :math:`\\hat f`, the feature (or one-hot group) of
interest :math:`x_S`, the other features :math:`x_C`, observations
:math:`i = 1..N` and a grid :math:`z_1 < \\dots < z_K` of values of :math:`x_S`.

* **Partial dependence** (Friedman 2001, Ann. Statist. 29(5), §8.2; thesis 001
  eq. 4.2): :math:`\\bar f_S(x_S) = E_{x_C}[\\hat f(x_S, x_C)]
  = \\int \\hat f(x_S, x_C)\\, p_C(x_C)\\, dx_C`, the expectation over the
  *marginal* distribution of :math:`x_C`, estimated by
  :math:`\\bar f_S(z_k) \\approx \\frac1N \\sum_i \\hat f(z_k, x_C^{(i)})`
  (Goldstein et al. 2015, eqs. 1-2). :func:`partial_dependence`,
  :func:`partial_dependence_2d` (a pair of features on a 2-D grid);
  :func:`explain_pair` also takes a one-hot group on either axis (its levels as
  grid: category x numeric gives one PD curve per level, category x category a
  table of level pairs).
* **ICE** (Goldstein, Kapelner, Bleich & Pitkin 2015, JCGS 24(1), section
  "The ICE toolbox"): one curve per observation,
  :math:`\\hat f_S^{(i)}(z_k) = \\hat f(z_k, x_C^{(i)})`; the PD is their
  pointwise mean. :func:`ice_curves`.
* **Centered ICE** (Goldstein et al. 2015, c-ICE, eq. 4):
  :math:`\\hat f^{(i)}_{\\mathrm{cent}} = \\hat f^{(i)} - \\mathbf 1\\,
  \\hat f(x^*, x_C^{(i)})`, with :math:`\\mathbf 1` a vector of ones of the grid's
  length and :math:`x^*` the anchor (grid minimum by default, or maximum, or a
  quantile); every curve is 0 at :math:`x^*`. The centered PD is the mean of the
  c-ICE curves. :func:`centered_ice`, :func:`anchor_index`.
* **Derivative ICE** (Goldstein et al. 2015, section "Derivative ICE plot",
  and ICEbox's ``dice``): each ICE curve is smoothed and differentiated
  numerically with respect to :math:`x_S` on the grid; if :math:`\\hat f(x) = g(x_S) + h(x_C)` (no
  interaction of :math:`x_S` in the *model*) all derivative curves equal
  :math:`g'(x_S)`, so the standard deviation of the derivatives across curves
  at each grid point is the interaction indicator. :func:`ice_derivatives`,
  :func:`derivative_sd`.

  *Smoother.* ICEbox smoothed with ``supsmu`` then took difference quotients
  (``sfsmisc::D1tr``); later versions use a Savitzky-Golay filter. Here the
  derivative at :math:`z_k` is the slope of a least-squares polynomial of
  degree ``polyorder`` (default 2) fitted to the ``2 * smooth + 1`` grid points
  nearest :math:`z_k` (window shifted inwards at the ends of the grid), i.e. a
  Savitzky & Golay (1964, Anal. Chem. 36(8)) filter generalised to a
  non-uniform grid; the window is counted in grid points, so it adapts to
  quantile grids. ``smooth = 0`` gives raw finite differences
  (``numpy.gradient``: second-order central differences inside the grid,
  one-sided first-order differences at its ends). The filter is linear and the
  same for every curve, so the derivative of the PD equals the mean of the
  d-ICE curves (``d_pd``), as ICEbox's ``dpdp``, and curves that differ only by
  a constant (an additive model) have identical derivatives: their standard
  deviation is 0 up to rounding for any ``smooth``.
* **Decile rug**: the deciles of the observed feature values, drawn as ticks on
  the x axis (as scikit-learn's ``PartialDependenceDisplay``, thesis Figs 5.3,
  5.6, 5.9). :func:`deciles`.

Grids (:func:`feature_grid`): ``kind="uniform"`` is scikit-learn's grid
(``resolution`` equally spaced points between the ``percentiles`` of the
feature); ``kind="quantile"`` places the points at equally spaced quantile
levels between the same percentiles (duplicates removed). Either way a feature
with fewer than ``resolution`` distinct values uses those values. All quantiles
are ``scipy.stats.mstats.mquantiles`` with its defaults (as scikit-learn), so
the default grid is exactly ``sklearn.inspection.partial_dependence``'s. A
one-hot *group* (e.g. Abalone's ``Sex_F``, ``Sex_I``, ``Sex_M``) has as grid
the set of its level vectors (:func:`onehot_grid`): each ICE point sets the
whole group to one level, so no impossible "two levels at once" rows are made.

Computation: the stacked data set (every observation at every grid point) is
built and predicted in chunks of at most ``max_batch_rows`` rows, one call of
the model per chunk, so the number of calls is
``ceil(n_rows * n_grid / max_batch_rows)`` (:func:`ice_curves`).

Departures from the seed (thesis 001 §4.2) and why
--------------------------------------------------
* The seed defines ICE as :math:`f_i(x_z) = E[Y \\mid X_z = x_z, X_{-z} =
  x^i_{-z}]`, a conditional expectation of the *data*. Goldstein et al. define
  the ICE curve as the *fitted model* evaluated along :math:`x_S` with
  :math:`x_C^{(i)}` fixed, :math:`\\hat f(x_S, x_C^{(i)})`; that is what is
  computed here (it equals the seed's expression only if :math:`\\hat f` were
  the true regression function). Likewise the seed's statement that the PD uses
  the marginal distribution and ICE the *conditional* distribution is not right:
  neither conditions on :math:`x_S`; ICE uses no distribution at all (one
  :math:`x_C^{(i)}` per curve) and PD averages them over the marginal of
  :math:`x_C` (the conditional version would be the M-plot of Apley & Zhu).
* The seed says the PD "assumes" that :math:`x_S` is independent of the other
  features, and that PD and ICE "should be similar when the variables are
  independent". The PD estimator assumes nothing: it is the average of the
  ICE curves whatever the dependence. Dependence matters for *interpretation*
  (the grid combines :math:`x_S` with :math:`x_C^{(i)}` values that may be
  unrealistic, so :math:`\\hat f` is extrapolated). ICE curves are parallel to
  the PD when :math:`x_S` does not *interact* with :math:`x_C` in :math:`\\hat f`
  (additivity), not when the features are independent. The same correction
  applies to the seed's d-ICE paragraph, which derives
  :math:`\\hat f = g(x_S) + h(x_C)` from "independence"; Goldstein et al. assume
  *no interaction*, which is what the derivative plot tests.
* c-ICE notation: the seed writes the anchor as "(x^*, x_{ci})"; it is the model
  evaluated at :math:`(x^*, x_C^{(i)})`, subtracted from every point of curve
  :math:`i` (the :math:`\\mathbf 1` is a vector of ones). Here :math:`x^*` is
  snapped to the nearest grid point so that every c-ICE curve is exactly 0 there.
* The seed's eq. 4.2 calls :math:`p(x_l)` "the joint distribution of all the
  other variables"; it is their joint *marginal* density
  :math:`p_C(x_C) = \\int p(x)\\, dx_S` (not the conditional
  :math:`p(x_C \\mid x_S)`), and mixes :math:`\\hat f` and :math:`\\hat F`
  for the same fitted model.
"""

from ..._lazy import attach

#: Entry point -> the submodule that defines it (imported on first use, PEP 562; :mod:`xaipipe._lazy`).
ENTRY_POINTS = {
    # PD / ICE / c-ICE / d-ICE: grids, curves, effects, tables (the pd_ice rule)
    "TABLE_KINDS": "_grid",
    "NO_LEVEL": "_grid",
    "feature_grid": "_grid",
    "onehot_grid": "_grid",
    "deciles": "_grid",
    "effect_function": "_curves",
    "ice_curves": "_curves",
    "partial_dependence": "_curves",
    "partial_dependence_2d": "_curves",
    "anchor_index": "_curves",
    "centered_ice": "_curves",
    "ice_derivatives": "_curves",
    "derivative_sd": "_curves",
    "EffectOptions": "_effects",
    "FeatureEffect": "_effects",
    "PairEffect": "_effects",
    "explain_feature": "_effects",
    "explain_pair": "_effects",
    "effects_table": "_tables",
    "pair_table": "_tables",
    "effect_from_table": "_tables",
    "pair_from_table": "_tables",
    "pd_ice_tables": "_tables",
    "PdIceTables": "_tables",
    # ALE and the ale rule's tables
    "ALE_COLUMNS": "_ale",
    "ALEResult": "_ale",
    "ALE2DResult": "_ale",
    "accumulated_local_effects": "_ale",
    "accumulated_local_effects_2d": "_ale",
    "ale_bin_edges": "_ale",
    "order_levels": "_ale",
    "ALE_TABLE_COLUMNS": "_ale_tables",
    "ALE_2D_COLUMNS": "_ale_tables",
    "AleTables": "_ale_tables",
    "ale_tables": "_ale_tables",
    # Friedman's H², the h_statistic rule's table, the 2-D PD's pair
    "H_COLUMNS": "_h_statistic",
    "HStatisticResult": "_h_statistic",
    "h_statistic": "_h_statistic",
    "h_statistic_table": "_h_statistic",
    "H2_ZERO": "_pair_choice",
    "strongest_h2_pair": "_pair_choice",
    # regional effects: the regional PD of the most heterogeneous variables (effector)
    "RegionalEffects": "_regional",
    "regional_effects": "_regional",
    "regional_effects_tables": "_regional",
}

__getattr__, __dir__, __all__ = attach(__name__, ENTRY_POINTS)

"""Interaction strength from partial dependence: Friedman's H-statistic, and the ``h_statistic`` rule's
table (:func:`h_statistic_table`).

Friedman's H² (Friedman, J. H. & Popescu, B. E. 2008, "Predictive learning via rule ensembles",
Ann. Appl. Stat. 2(3), 916-954, §8.1, eqs. (44)-(45))
------------------------------------------------------------------------------------------
Let :math:`F` be the model output and, for a variable (or one-hot group) :math:`S`, :math:`F_S`
its partial dependence function :math:`F_S(x_S) = \\frac1n \\sum_l F(x_S, x_{l,\\setminus S})`
and :math:`F_{\\setminus S}(x_{\\setminus S}) = \\frac1n \\sum_l F(x_{l,S}, x_{\\setminus S})`, every
function *centred* to mean zero over the rows (:math:`F` too). Evaluated at the rows
:math:`x_1, \\dots, x_n`:

* pairwise (eq. 44): :math:`H^2_{jk} = \\sum_i [F_{jk}(x_{ij}, x_{ik}) - F_j(x_{ij})
  - F_k(x_{ik})]^2 \\,/\\, \\sum_i F^2_{jk}(x_{ij}, x_{ik})`, the share of the variance of the
  joint effect of ``j`` and ``k`` that is not the sum of their separate effects;
* total (eq. 45): :math:`H^2_j = \\sum_i [F(x_i) - F_j(x_{ij}) - F_{\\setminus j}(x_{i\\setminus j})]^2
  \\,/\\, \\sum_i F^2(x_i)`, the share of the variance of :math:`F` due to interactions of ``j``
  with any other variables.

Both are 0 when the model is additive in the variable (exactly, up to rounding: the numerator is a
sum of squares of float differences), and 1 at most for the pairwise statistic on a pure product
of independent variables.
The *unnormalised* statistic (``h2_unnormalised``; the ``normalize = FALSE`` option of the R package
``hstats``, Mayer 2023) is the numerator divided by ``n``, in squared output units: H² is a ratio and
unstable when its denominator (the variance of the joint effect) is tiny, and the unnormalised
version ranks interactions by their absolute size.

*Analytic value on a product.* For :math:`F = x_1 x_2` with independent :math:`x_1, x_2`,
:math:`F_{12} = x_1 x_2 - \\mu_1 \\mu_2`, :math:`F_1 = \\mu_2 (x_1 - \\mu_1)`, :math:`F_2 =
\\mu_1 (x_2 - \\mu_2)`, so the numerator is :math:`(x_1 - \\mu_1)^2 (x_2 - \\mu_2)^2` and

.. math:: H^2_{12} = \\frac{\\sigma_1^2 \\sigma_2^2}{E[x_1^2] E[x_2^2] - \\mu_1^2 \\mu_2^2},

which is :math:`(1/12)^2 / (1/9 - 1/16) = 1/7` for two uniforms on (0, 1). On a sample whose
empirical distribution is a product (a full factorial design) the estimator equals this formula
with the sample moments exactly (``tests/explain/pdp/test_h_statistic.py``).

Computation: the statistic needs the PD functions *at the rows*, :math:`n^2` model evaluations per
variable and per pair. On a random subsample of ``n_rows`` rows (default 300, hstats' ``n_max``):
for variable :math:`S` the matrix :math:`M_S[i, l] = F(x_{i,S}, x_{l,\\setminus S})` gives both
:math:`F_S` (row means) and :math:`F_{\\setminus S}` (column means), so the total statistic of every
variable costs :math:`p n^2` evaluations and each pair :math:`n^2` more. The Monte-Carlo standard
error is a *bootstrap over the subsample's rows* (``n_bootstrap`` resamples with replacement,
:math:`M` re-weighted, no new model calls): it estimates the sampling SE of an ``n_rows``-row
estimate, which is the subsampling error when ``n_rows`` is small against the data.

*H² above 1* (column ``h2_exceeds_1``). The pairwise H² exceeds 1 exactly when
:math:`\\sum_i (F_j + F_k)^2 > 2 \\sum_i F_{jk} (F_j + F_k)`: when the separate effects are larger
than the joint effect, or point against it. That cannot happen when the centred PD components are
orthogonal over the rows (:math:`F_{jk} = F_j + F_k + I` with :math:`I` orthogonal to
:math:`F_j + F_k`, the functional ANOVA decomposition of independent variables, for which Friedman
& Popescu 2008, §8.1, define the statistic as the share of the joint effect's variance due to the
interaction), and so H² is a share at most 1 there. Under dependent variables each PD averages the
model over combinations of values that do not occur together (the PD's extrapolation; Friedman &
Popescu 2008 §8.1; Hooker 2007, JCGS 16(3)), the components are correlated, and the separate PDs
can dwarf a joint effect that is small on the data: e.g. :math:`F = (x_1 - x_2)^2` on
:math:`x_2 \\approx x_1` is near 0 on the rows while :math:`F_1` and :math:`F_2` are large
(``tests/explain/pdp/test_h_statistic.py``). H² > 1 then says that the PD decomposition does not
describe the model on the data, not that more than all of the variance is interaction; read the
unnormalised statistic, the 2-D ALE (which stays on the data) or the SHAP interaction values. The
table flags such rows (``h2_exceeds_1``) rather than clipping them (hstats, Mayer 2023, reports
them unclipped too).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from itertools import combinations

import numpy as np
import pandas as pd

from ...config.dependence import HStatisticSettings
from ...models import forest_store  # the module: benchmarks/store_one_pass.py swaps plans_predictions
from ...validation import check_int
from ..classes import class_choice
from ..reliance import features_from_groups, ranked_features
from ._curves import effect_function
from ._effects import _output_label, _resolve_feature
from ._grid import DEFAULT_MAX_BATCH_ROWS, _check_X

__all__ = ["H_COLUMNS", "HStatisticResult", "h_statistic", "h_statistic_table"]

#: Columns of :meth:`HStatisticResult.to_frame`.
H_COLUMNS = [
    "kind",
    "feature",
    "feature_1",
    "feature_2",
    "h2",
    "h2_se",
    "h2_unnormalised",
    "h2_unnormalised_se",
    "h",
    "h2_exceeds_1",
    "n_rows",
    "n_bootstrap",
    "se_method",
    "output",
]


@dataclass(frozen=True)
class HStatisticResult:
    """Friedman's H² of every variable (total) and of pairs.

    Attributes
    ----------
    features : list of str
        Variables with a total statistic, length ``G``.
    pairs : list of (str, str)
    total : ndarray of shape (G, 2)
        ``[h2, h2_unnormalised]`` per variable (unitless; squared output units).
    total_se : ndarray of shape (G, 2)
        Bootstrap standard errors (NaN with ``n_bootstrap = 0``).
    pairwise, pairwise_se : ndarray of shape (n_pairs, 2)
    rows : ndarray of int
        Positions in ``X`` of the rows used (the subsample, sorted).
    n_bootstrap : int
    output : str
    """

    features: list
    pairs: list
    total: np.ndarray
    total_se: np.ndarray
    pairwise: np.ndarray
    pairwise_se: np.ndarray
    rows: np.ndarray
    n_bootstrap: int
    output: str

    def to_frame(self) -> pd.DataFrame:
        """One row per variable (``kind = "total"``, ``feature``) and per pair (``"pairwise"``,
        ``feature_1``, ``feature_2``), columns :data:`H_COLUMNS`; ``h = sqrt(h2)``;
        ``h2_exceeds_1`` is True where ``h2 > 1``: then the statistic is not a share of the joint
        effect's variance (module docstring, "H² above 1")."""
        n = int(self.rows.size)
        recs = []
        for g, name in enumerate(self.features):
            recs.append(("total", name, "", "", *self.total[g], self.total_se[g]))
        for q, (a, b) in enumerate(self.pairs):
            recs.append(("pairwise", f"{a}:{b}", a, b, *self.pairwise[q], self.pairwise_se[q]))
        frame = pd.DataFrame(
            {
                "kind": [r[0] for r in recs],
                "feature": [r[1] for r in recs],
                "feature_1": [r[2] for r in recs],
                "feature_2": [r[3] for r in recs],
                "h2": [r[4] for r in recs],
                "h2_se": [r[6][0] for r in recs],
                "h2_unnormalised": [r[5] for r in recs],
                "h2_unnormalised_se": [r[6][1] for r in recs],
            }
        )
        frame["h"] = np.sqrt(np.clip(frame["h2"].to_numpy(dtype=float), 0.0, None))
        frame["h2_exceeds_1"] = frame["h2"].to_numpy(dtype=float) > 1.0
        frame["n_rows"] = n
        frame["n_bootstrap"] = int(self.n_bootstrap)
        frame["se_method"] = "bootstrap_rows" if self.n_bootstrap else "none"
        frame["output"] = self.output
        return frame[H_COLUMNS]


def _evaluate(f, wrap, Xs: np.ndarray, cols: list[int], max_batch_rows: int) -> np.ndarray:
    """``M[i, l] = F(x_l with columns cols taken from x_i)``, shape (n, n)."""
    n = Xs.shape[0]
    total = n * n
    out = np.empty(total, dtype=np.float64)
    for start in range(0, total, max_batch_rows):
        stop = min(start + max_batch_rows, total)
        t = np.arange(start, stop)
        i, l_ = np.divmod(t, n)
        Z = Xs[l_]
        Z[:, cols] = Xs[i][:, cols]
        y = np.asarray(f(wrap(Z)), dtype=np.float64).reshape(-1)
        if y.shape != (stop - start,) or not np.all(np.isfinite(y)):
            raise ValueError(f"model output must be finite with shape ({stop - start},), got {y.shape}")
        out[start:stop] = y
    return out.reshape(n, n)


def _h2(num: np.ndarray, den: np.ndarray, w: np.ndarray) -> tuple[float, float]:
    a = float(w @ num**2)
    b = float(w @ den**2)
    return (a / b if b > 0 else float("nan")), a


def _centre(v: np.ndarray, w: np.ndarray) -> np.ndarray:
    return v - w @ v


def h_statistic(
    model,
    X,
    features=None,
    *,
    pairs: Sequence[tuple] | None = None,
    feature_names: Sequence[str] | None = None,
    feature_groups: Mapping[str, Sequence] | None = None,
    output: str = "auto",
    class_index: int = 1,
    n_rows: int | None = 300,
    n_bootstrap: int = 50,
    random_state=0,
    max_batch_rows: int = DEFAULT_MAX_BATCH_ROWS,
) -> HStatisticResult:
    """Friedman's H² (total of each variable and pairwise) on a row subsample, with a bootstrap SE.

    Parameters
    ----------
    model : callable or fitted estimator
        As :func:`xaipipe.explain.pdp.effect_function` (``output``, ``class_index``).
    X : array-like or DataFrame of shape (n, p)
    features : sequence, optional
        Variables with a total statistic: column indices / names, names of ``feature_groups``
        (one-hot groups are one variable). Default: every column, one-hot groups whole.
    pairs : sequence of (variable, variable), optional
        Pairs with a pairwise statistic. Default: every pair of ``features``; ``[]`` for none.
    feature_names, feature_groups
        As :func:`xaipipe.explain.pdp.explain_feature`.
    n_rows : int or None, default 300
        Rows of the random subsample (all rows if ``None`` or ``n <= n_rows``).
    n_bootstrap : int, default 50
        Bootstrap resamples of the subsample's rows for the standard errors (0: none).
    random_state : int, Generator or None
        Seed of the subsample and of the bootstrap (``np.random.default_rng``).
    max_batch_rows : int
        Most rows per model call (``n_rows²`` rows per variable and pair in all).

    Returns
    -------
    HStatisticResult
        ``.to_frame()``: H², its SE, the unnormalised H² and its SE, ``h``, the rows used.

    Raises
    ------
    ValueError
        Invalid ``X``, variables or pairs, fewer than 2 rows, a model output that is not finite.
    TypeError
        Non-integer ``n_rows`` / ``n_bootstrap``.
    """
    Xv, wrap, x_names = _check_X(X)
    names = list(feature_names) if feature_names is not None else x_names
    if names is not None and len(names) != Xv.shape[1]:
        raise ValueError(f"feature_names has {len(names)} names for {Xv.shape[1]} columns")
    n_all, p = Xv.shape
    B = check_int(n_bootstrap, "n_bootstrap", minimum=0)
    batch = check_int(max_batch_rows, "max_batch_rows", minimum=1)
    if features is None:
        grouped = {c for cols in (feature_groups or {}).values() for c in cols}
        features = list(feature_groups or {}) + [
            (names[j] if names else j) for j in range(p) if (names[j] if names else j) not in grouped
        ]
        features = sorted(features, key=lambda v: _resolve_feature(v, p, names, feature_groups)[1][0])
    resolved = {}
    for v in features:
        name, cols, _ = _resolve_feature(v, p, names, feature_groups)
        if name in resolved:
            raise ValueError(f"variable {name!r} given twice")
        resolved[name] = cols
    if pairs is None:
        pair_list = list(combinations(resolved, 2))
    else:
        pair_list = []
        for a, b in pairs:
            na, ca, _ = _resolve_feature(a, p, names, feature_groups)
            nb, cb, _ = _resolve_feature(b, p, names, feature_groups)
            if set(ca) & set(cb):
                raise ValueError(f"pair ({na!r}, {nb!r}) shares columns")
            resolved.setdefault(na, ca)
            resolved.setdefault(nb, cb)
            pair_list.append((na, nb))
    rng = np.random.default_rng(random_state)
    if n_rows is not None:
        n_rows = check_int(n_rows, "n_rows", minimum=2)
    rows = np.arange(n_all) if n_rows is None or n_all <= n_rows else np.sort(rng.choice(n_all, n_rows, replace=False))
    if rows.size < 2:
        raise ValueError("the H-statistic needs at least 2 rows")
    Xs = Xv[rows]
    n = rows.size
    f = effect_function(model, output, class_index)
    F = np.asarray(f(wrap(Xs.copy())), dtype=np.float64).reshape(-1)
    mats = {name: _evaluate(f, wrap, Xs, cols, batch) for name, cols in resolved.items()}
    pair_mats = [_evaluate(f, wrap, Xs, resolved[a] + resolved[b], batch) for a, b in pair_list]
    total_names = [_resolve_feature(v, p, names, feature_groups)[0] for v in features]

    def stats(w: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        Fc = _centre(F, w)
        pd_s = {k: _centre(M @ w, w) for k, M in mats.items()}
        tot = np.array([_h2(Fc - pd_s[k] - _centre(w @ mats[k], w), Fc, w) for k in total_names]).reshape(-1, 2)
        pw = []
        for (a, b), M in zip(pair_list, pair_mats):
            joint = _centre(M @ w, w)
            pw.append(_h2(joint - pd_s[a] - pd_s[b], joint, w))
        return tot, np.array(pw).reshape(-1, 2)

    w0 = np.full(n, 1.0 / n)
    total, pairwise = stats(w0)
    if B:
        draws_t, draws_p = [], []
        for _ in range(B):
            w = np.bincount(rng.integers(0, n, size=n), minlength=n) / n
            t, q = stats(w)
            draws_t.append(t)
            draws_p.append(q)
        total_se = np.std(draws_t, axis=0, ddof=1)
        pairwise_se = np.std(draws_p, axis=0, ddof=1) if pair_list else np.empty((0, 2))
    else:
        total_se = np.full(total.shape, np.nan)
        pairwise_se = np.full(pairwise.shape, np.nan)
    return HStatisticResult(
        features=total_names,
        pairs=pair_list,
        total=total,
        total_se=total_se,
        pairwise=pairwise,
        pairwise_se=pairwise_se,
        rows=rows,
        n_bootstrap=B,
        output=_output_label(model, output),
    )


def h_statistic_table(
    model, data, settings: HStatisticSettings, *, reliance: pd.DataFrame | None = None, top: Sequence[str] = ()
) -> pd.DataFrame:
    """The ``h_statistic`` rule: Friedman's H² of every variable and of every pair of ``top``.

    :func:`xaipipe.explain.pdp.h_statistic` with ``features`` = every variable (one-hot
    groups whole) and ``pairs`` = the pairs of ``top`` (the top variables by MR), on a seeded
    subsample of the test rows with bootstrap resamples of it for the SE.

    Parameters
    ----------
    model : fitted estimator or callable
        A forest store: as :func:`ale_tables` (one pass over its blocks).
    data : PreparedData
        As :func:`ale_tables`: ``X_test``, ``features``, ``feature_groups``, ``classes``.
    settings : HStatisticSettings
        :meth:`xaipipe.config.HStatisticSettings.from_config` (config section
        ``explain.interactions``): :attr:`~xaipipe.config.HStatisticSettings.rows` (``n_rows``, a
        forest family's ``n_rows_random_forest``; None: all rows), ``n_bootstrap``, ``seed``,
        ``output``, ``max_batch_rows`` and ``figure_class`` (as :func:`ale_tables`: a classifier's
        output is the probability or log-odds of that class; a multiclass table gets a first
        column ``class``).
    reliance : DataFrame, optional
        The model's MR table (``model_reliance.csv``): ``top`` is then its ``settings.top_k``
        variables by the settings' ranking (:func:`xaipipe.explain.reliance.ranked_features`).
    top : sequence of str
        The top variables by MR instead.

    Returns
    -------
    DataFrame
        :data:`xaipipe.explain.pdp.H_COLUMNS` with ``rank`` (the MR rank of a total row's
        variable, 1 = largest, 0 = not in ``top``; pairwise rows: 0) first.

    Raises
    ------
    ValueError
        ``figure_class`` not a class; as :func:`~xaipipe.explain.pdp.h_statistic`; both
        ``reliance`` and ``top``.
    """
    if reliance is not None:
        if len(top):
            raise ValueError("give at most one of reliance (the model's MR table) and top")
        top = ranked_features(reliance, settings, settings.top_k)
    if forest_store.plans_predictions(model):  # a forest store: every prediction in one pass over its blocks
        return forest_store.predict_in_one_pass(model, lambda m: h_statistic_table(m, data, settings, top=top))
    choice = class_choice(data.classes, settings.figure_class)
    feature_names, feature_groups = list(data.features), data.feature_groups
    variables = list(features_from_groups(feature_names, feature_groups))
    pairs = list(combinations([t for t in top if t in variables], 2))
    res = h_statistic(
        model,
        data.X_test,
        features=variables,
        pairs=pairs,
        feature_names=feature_names,
        feature_groups=feature_groups,
        output=settings.output,
        class_index=choice.get("class_index", 1),
        n_rows=settings.rows,
        n_bootstrap=settings.n_bootstrap,
        random_state=settings.seed,
        max_batch_rows=settings.max_batch_rows,
    )
    table = res.to_frame()
    rank = {v: i + 1 for i, v in enumerate(top)}
    table.insert(0, "rank", [rank.get(f, 0) if k == "total" else 0 for k, f in zip(table["kind"], table["feature"])])
    if data.classes is not None:  # multiclass: the explained class, first column
        table.insert(0, "class", str(data.classes[choice["class_index"]]))
    return table

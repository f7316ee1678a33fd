"""Coverage of every interval kind on the twins: the truths joined to the replicates, the coverage
table with its Monte-Carlo error, and the sentence a caption shows (issue 51, items 2-3).

The method of :mod:`xaipipe.studies.coverage` ("Coverage and its Monte-Carlo error"): an interval
covers when ``ci_low <= target <= ci_high``; the coverage of a group of intervals is the mean over
replicates of the share covered in each, its SE the sd of those shares over replicates /
:math:`\\sqrt R` (the replicate is the unit: intervals of one replicate are correlated). An
interval given as ``estimate`` and ``se`` (and ``df``: Student's *t*, else normal) is rebuilt at
every nominal level; one given as ``[ci_low, ci_high]`` counts at its own ``level`` (NaN for a range
that claims none: MCR).

Targets: ``claimed`` -- the estimand the interval is built for (:data:`KINDS`, docs/coverage.md);
``planted`` -- :math:`f^*`'s value, what a reader takes most intervals for. Each truth computed by
Monte Carlo carries its SE; ``truth_se_ratio`` (the mean truth SE / the mean interval width) says whether
the truth's own error is below a tenth of the widths.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass

import numpy as np
import pandas as pd
from scipy import stats

from ..validation import check_confidence

__all__ = [
    "CALIBRATED_KINDS",
    "KINDS",
    "TwinCoverage",
    "combine_twin_coverage",
    "ebm_caption",
    "explorer_coverage_lines",
    "importance_captions",
    "learner_captions",
    "reliance_captions",
    "twin_coverage_tables",
    "TWIN_COVERAGE_COLUMNS",
    "calibrated_multiplier",
    "coverage_phrase",
    "twin_coverage",
    "twin_repetitions",
]

#: Every interval kind the study prints and audits: where it is printed and what it claims to cover.
KINDS: dict[str, dict[str, str]] = {
    "learner": {
        "printed": "explain/<d>/<f>/learner_pd.csv, learner_pfi.csv, learner_shap.csv, learner_ale.csv",
        "claimed": "the learner's expectation over training sets of n_1 rows (Molnar et al. 2023)",
        "intervals": "corrected (Nadeau & Bengio), naive; calibrated: estimate ± q se (corrected se), q the twin's "
        "quantile of |estimate - estimand| / se (Loh 1987), its coverage cross-fitted over replicate halves",
    },
    "mr": {
        "printed": "explain/<d>/<f>/model_reliance.csv (permutation, e_divide: *_se)",
        "claimed": "the estimator's expectation over its permutations given the model and test rows",
        "intervals": "permutation: estimate ± t_{n_repeats-1} se (under zero-one loss not a 95 % interval: the SE is 0 "
        "when every repeat flips the same predictions); e_divide: estimate ± z se; calibrated: estimate ± q se, q "
        "the twin's quantile of |estimate - estimand| / se per estimator and loss, cross-fitted over replicate halves",
    },
    "test_loss": {
        "printed": "comparison/<d>/test_loss.csv (se_bootstrap, ci_low / ci_high)",
        "claimed": "the fitted model's expected loss on the population",
        "intervals": "bootstrap percentile, estimate ± z se_bootstrap; calibrated: estimate ± q se_bootstrap, q "
        "the twin's quantile of |estimate - estimand| / se, cross-fitted over replicate halves",
    },
    "mcr": {
        "printed": "rashomon/<d>/mcr.csv (mcr_minus, mcr_plus)",
        "claimed": "none: a range over the empirical Rashomon set, not a confidence interval",
        "intervals": "mcr (test split), population_members (members' MR on a fresh sample)",
    },
    "ols": {
        "printed": "tables/ols_inference.csv (ci_low, ci_high)",
        "claimed": "the linear model's coefficient (sanity: f* is that linear model)",
        "intervals": "estimate ± t se",
    },
    "logit": {
        "printed": "tables/logit_inference.csv (ci_low, ci_high)",
        "claimed": "the logistic model's coefficient per SD (sanity: p* is that logistic model)",
        "intervals": "estimate ± z se",
    },
    "sage": {
        "printed": "explain/<d>/<f>/sage.csv (sage_se)",
        "claimed": "the exact SAGE values of the fitted model on the test rows and background explained",
        "intervals": "estimate ± z sage_se",
    },
    "ebm": {
        "printed": "explain/<d>/<f>/ebm_shapes.csv (sd, lower / upper) of a family with Family.terms (EBM)",
        "claimed": "none (interpret #204: not confidence intervals); measured against the EBM's own expectation "
        "over training sets of the replicate's size (the leave-one-out mean over the other replicates) and f*'s PD",
        "intervals": "reported: interpret's bar, PD ± 1 SD of the outer bags (normal level 0.683); naive: PD ± z SD; "
        "corrected: PD ± z sqrt(m / (n - m)) SD, the subsampling correction of bags of m of n rows",
    },
    "h2": {
        "printed": "explain/<d>/<f>/h_statistic.csv (h2_se, h2_unnormalised_se)",
        "claimed": "the fitted model's H² on the population (the twin's rows)",
        "intervals": "estimate ± z se (bootstrap over the subsample's rows); calibrated: estimate ± q se, q the "
        "twin's quantile of |estimate - estimand| / se, cross-fitted over replicate halves",
    },
}

#: Nominal level of a ± 1 SD bar read as a normal interval (2 Phi(1) - 1): the ``ebm`` kind's
#: ``reported`` interval.
ONE_SD_LEVEL = float(2.0 * stats.norm.cdf(1.0) - 1.0)
#: Kinds that also get the twin-calibrated interval ``estimate ± q se`` (:func:`calibrated_multiplier`):
#: those whose ``se`` interval falls short of its own estimand on some twin (docs/coverage.md, "Repairs"):
#: the learner intervals, the MR SEs (Grunfeld's permutation MR; not the zero-one permutation MR,
#: whose zero SEs no multiplier widens), the test loss's bootstrap (small test splits, heavy tails),
#: H²'s bootstrap SE and an EBM's subsampling-corrected bag SD (docs/ebm.md).
CALIBRATED_KINDS = ("learner", "mr", "test_loss", "h2", "ebm")

#: Columns of :func:`twin_coverage` (``tables/coverage_twins.csv``).
TWIN_COVERAGE_COLUMNS = [
    "dataset",
    "kind",
    "quantity",
    "family",
    "estimator",
    "loss",
    "scope",
    "epsilon",
    "feature",
    "interval",
    "target",
    "nominal",
    "coverage",
    "coverage_se",
    "mean_width",
    "mean_error",
    "truth_se_ratio",
    "n_intervals",
    "n_repetitions",
    "multiplier",
]

#: The learner / MCR quantity -> the f* truth quantity it is compared with.
_PLANTED_OF = {"mcr_ratio": "mr_ratio", "mcr_difference": "mr_difference"}


def twin_repetitions(
    shards: Sequence[pd.DataFrame],
    f_star: pd.DataFrame,
    learner: pd.DataFrame | None = None,
    importance_truth: pd.DataFrame | None = None,
) -> pd.DataFrame:
    """The replicates of every shard with their truths: ``claimed`` / ``claimed_se`` (the learner's
    expectation for the ``learner`` kind; per replicate for the others) and ``planted`` /
    ``planted_se`` (:math:`f^*`'s value), sorted by replicate.

    Parameters
    ----------
    shards : sequence of DataFrame
        :func:`xaipipe.studies.twin_audit.audit_shard` tables.
    f_star : DataFrame
        :func:`xaipipe.studies.twin_audit.f_star_truth`.
    learner : DataFrame, optional
        :func:`xaipipe.studies.twin_audit.learner_truth`.
    importance_truth : DataFrame, optional
        :func:`xaipipe.studies.twin_importance.importance_truth` (f*'s SAGE and H²), the planted
        truths of the ``sage`` and ``h2`` rows (whose shards carry their own ``claimed_se``).
    """
    reps = pd.concat(list(shards), ignore_index=True).sort_values(["repetition"], kind="stable")
    reps = reps.reset_index(drop=True)
    for col in ("family", "estimator", "loss", "scope", "feature"):
        reps[col] = reps[col].astype(object).where(reps[col].notna(), "").astype(str)
    own_se = reps["claimed_se"].astype(float) if "claimed_se" in reps else pd.Series(np.nan, index=reps.index)
    reps["claimed_se"] = np.where(own_se.notna(), own_se, np.where(reps["claimed"].notna(), 0.0, np.nan))
    key_g = reps["grid_value"].astype(float).fillna(-1e300)
    # the planted truth: f*'s value of the quantity (MR: of the interval's loss)
    if importance_truth is not None and len(importance_truth):
        f_star = pd.concat([f_star, importance_truth], ignore_index=True)
    truth = f_star.assign(_g=f_star["grid_value"].astype(float).fillna(-1e300))
    truth = truth.assign(loss=truth["loss"].fillna("").astype(str))
    lookup = {
        (q, lo, f, g): (v, s)
        for q, lo, f, g, v, s in truth[["quantity", "loss", "feature", "_g", "planted", "planted_se"]].itertuples(
            index=False
        )
    }
    planted, planted_se = np.full(len(reps), np.nan), np.full(len(reps), np.nan)
    for i, (kind, q, loss, f, g) in enumerate(
        zip(reps["kind"], reps["quantity"], reps["loss"], reps["feature"], key_g)
    ):
        if kind in ("ols", "logit", "test_loss"):
            continue
        q = _PLANTED_OF.get(q, q)
        hit = lookup.get((q, loss if q.startswith("mr_") else "", f, g))
        if hit is not None:
            planted[i], planted_se[i] = hit
    reps["planted"], reps["planted_se"] = planted, planted_se
    sanity = reps["kind"].isin(["ols", "logit"])
    reps.loc[sanity, "planted"] = reps.loc[sanity, "claimed"]
    reps.loc[sanity, "planted_se"] = 0.0
    if learner is not None and len(learner):
        lt = learner.assign(_g=learner["grid_value"].astype(float).fillna(-1e300))
        lk = {
            (fa, q, f, g): (v, s)
            for fa, q, f, g, v, s in lt[["family", "quantity", "feature", "_g", "claimed", "claimed_se"]].itertuples(
                index=False
            )
        }
        sel = (reps["kind"] == "learner").to_numpy()
        for i in np.flatnonzero(sel):
            hit = lk.get((reps.at[i, "family"], reps.at[i, "quantity"], reps.at[i, "feature"], key_g.iat[i]))
            if hit is not None:
                reps.at[i, "claimed"], reps.at[i, "claimed_se"] = hit
    _leave_one_out_claims(reps)
    return reps


def _leave_one_out_claims(reps: pd.DataFrame) -> None:
    """The ``ebm`` rows' claimed truth, in place: the mean of the same estimate over the *other*
    replicates (the EBM's expectation over training sets, by Monte Carlo independent of the row's own
    fit), with its SE (the others' SD / sqrt(R - 1)); NaN below three replicates."""
    sel = (reps["kind"] == "ebm").to_numpy()
    if not sel.any():
        return
    part = reps.loc[sel]
    est = part["estimate"].astype(float)
    keys = [part[k] for k in ("dataset", "family", "feature")] + [part["grid_value"].astype(float)]
    total = est.groupby(keys).transform("sum")
    total_sq = (est**2).groupby(keys).transform("sum")
    m = est.groupby(keys).transform("count") - 1.0  # the other replicates
    with np.errstate(divide="ignore", invalid="ignore"):
        loo = (total - est) / m
        var = ((total_sq - est**2) - m * loo**2) / (m - 1.0)
        se = np.sqrt(np.maximum(var, 0.0) / m)
    enough = m >= 2
    reps.loc[sel, "claimed"] = np.where(enough, loo, np.nan)
    reps.loc[sel, "claimed_se"] = np.where(enough, se, np.nan)


def _aggregate(rep, covered, width, error, truth_se) -> dict:
    _, inv = np.unique(rep, return_inverse=True)
    per_rep = np.bincount(inv, weights=covered.astype(float)) / np.bincount(inv)
    # mean truth SE / mean width: a mean of per-interval ratios is ruled by near-zero widths
    # (MCR ranges of one member, zero-one MR differences of 0)
    ok = np.isfinite(truth_se) & np.isfinite(width)
    mean_width = float(np.mean(width[ok])) if ok.any() else np.nan
    ratio = float(np.mean(truth_se[ok])) / mean_width if ok.any() and mean_width > 0 else np.nan
    return {
        "coverage": float(per_rep.mean()),
        "coverage_se": float(per_rep.std(ddof=0) / np.sqrt(per_rep.size)),
        "mean_width": float(np.mean(width)),
        "mean_error": float(np.mean(error)),
        "truth_se_ratio": ratio,
        "n_intervals": int(rep.size),
        "n_repetitions": int(per_rep.size),
    }


def calibrated_multiplier(z, level: float) -> float:
    """The multiplier of ``se`` whose interval covers the estimand at ``level`` on the twin: the
    ``ceil((m + 1) level)``-th smallest of the ``m`` finite ``|estimate - estimand| / se`` over a
    twin's replicates.

    Loh (1987), "Calibrating confidence coefficients" (JASA 82:155-162) and Beran (1987)
    "Prepivoting": a nominal construction whose coverage is off is calibrated on a population that
    stands in for the real one (here the dataset's twin, whose estimand is known), and the
    calibrated multiplier is used on the real data. The order statistic is split conformal
    prediction's (Vovk et al. 2005; Lei et al. 2018, JASA 113:1094): a new exchangeable ``z`` falls
    below it with probability at least ``level``, where the plain empirical quantile falls short on
    few replicates (one test loss per replicate: 50 per half at R = 100). Returns NaN without a
    finite ``z``, ``inf`` when ``m < level / (1 - level)`` (19 at 0.95: too few to calibrate).
    """
    z = np.asarray(z, dtype=float)
    z = np.sort(z[np.isfinite(z)])
    if not z.size:
        return np.nan
    rank = int(np.ceil((z.size + 1) * level - 1e-9))
    return float(z[rank - 1]) if rank <= z.size else np.inf


def _calibrated(part: pd.DataFrame, levels: Sequence[float]):
    """The twin-calibrated learner interval ``estimate ± q se`` (``se`` the corrected one), ``q`` by
    :func:`calibrated_multiplier` on the *other* half of the replicates (even / odd): its coverage
    is measured out of sample. Yields (``"calibrated"``, nominal, low, high, q of every replicate)."""
    est = part["estimate"].to_numpy(dtype=float)
    se = part["se"].to_numpy(dtype=float)
    truth = part["claimed"].to_numpy(dtype=float)
    if not (np.isfinite(se).all() and np.isfinite(truth).any()):
        return
    with np.errstate(divide="ignore", invalid="ignore"):
        z = np.abs(est - truth) / se
    z[~np.isfinite(z)] = np.nan
    odd = part["repetition"].to_numpy() % 2 == 1
    for c in levels:
        q_even, q_odd = calibrated_multiplier(z[odd], c), calibrated_multiplier(z[~odd], c)
        q = np.where(odd, q_odd, q_even)  # an odd replicate's multiplier from the even ones, and back
        if not np.isfinite(q).all():
            continue
        yield "calibrated", c, est - q * se, est + q * se, calibrated_multiplier(z, c)


def _intervals(part: pd.DataFrame, levels: Sequence[float]):
    """(interval name, nominal, low, high) of every interval construction the rows carry."""
    est = part["estimate"].to_numpy(dtype=float)
    df = part["df"].to_numpy(dtype=float)
    kind = part["kind"].iloc[0]
    se_cols = [("corrected", "se"), ("naive", "se_naive")] if kind in ("learner", "ebm") else [("se", "se")]
    for name, col in se_cols:
        se = part[col].to_numpy(dtype=float)
        if not np.isfinite(se).all():
            continue
        for c in levels:
            q = np.where(
                np.isfinite(df),
                stats.t.ppf(0.5 + c / 2.0, np.where(np.isfinite(df), df, 1.0)),
                stats.norm.ppf(0.5 + c / 2.0),
            )
            yield name, c, est - q * se, est + q * se
    if kind in ("ols", "logit"):
        return
    ranges = [("reported", "ci_low", "ci_high")]
    if kind == "mcr":
        ranges = [("mcr", "ci_low", "ci_high"), ("population_members", "population_low", "population_high")]
    for name, lo_col, hi_col in ranges:
        lo, hi = part[lo_col].to_numpy(dtype=float), part[hi_col].to_numpy(dtype=float)
        if np.isfinite(lo).all() and np.isfinite(hi).all():
            yield name, float(part["level"].iloc[0]), lo, hi


_GROUP = ["dataset", "kind", "quantity", "family", "estimator", "loss", "scope", "epsilon"]


def twin_coverage(
    repetitions: pd.DataFrame, *, nominal: Sequence[float] = (0.5, 0.8, 0.9, 0.95, 0.99), per_feature: bool = True
) -> pd.DataFrame:
    """Coverage of every interval kind, quantity, interval construction, target and level.

    Parameters
    ----------
    repetitions : DataFrame
        :func:`twin_repetitions`.
    nominal : sequence of float in (0, 1)
        Levels at which intervals given by a standard error are rebuilt.
    per_feature : bool, default True
        Besides the pooled row (``feature`` ``"all"``: every variable and grid point), one row per
        variable.

    Returns
    -------
    DataFrame
        :data:`TWIN_COVERAGE_COLUMNS`.
    """
    levels = [check_confidence(c, "nominal") for c in nominal]
    reps = repetitions.copy()
    reps["epsilon"] = reps["epsilon"].astype(float).fillna(-1.0)
    out = []
    for key, part in reps.groupby(_GROUP, sort=False, dropna=False):
        rep = part["repetition"].to_numpy()
        est = part["estimate"].to_numpy(dtype=float)
        feats = part["feature"].to_numpy()
        for target in ("claimed", "planted"):
            tv = part[target].to_numpy(dtype=float)
            ok = np.isfinite(tv)
            if not ok.any():
                continue
            tse = part[f"{target}_se"].to_numpy(dtype=float)
            constructions = [(*iv, np.nan) for iv in _intervals(part, levels)]
            if key[1] in CALIBRATED_KINDS:
                constructions += list(_calibrated(part, levels))
            for interval, c, lo, hi, multiplier in constructions:
                covered = (lo <= tv) & (tv <= hi)
                masks = [("all", ok)]
                if per_feature and len(set(feats)) > 1:
                    masks += [(f, ok & (feats == f)) for f in pd.unique(feats)]
                for feature, m in masks:
                    if not m.any():
                        continue
                    rec = dict(zip(_GROUP, key))
                    rec.update({"feature": feature, "interval": interval, "target": target, "nominal": c})
                    rec.update(_aggregate(rep[m], covered[m], (hi - lo)[m], (est - tv)[m], tse[m]))
                    rec["multiplier"] = multiplier
                    out.append(rec)
    table = pd.DataFrame(out, columns=TWIN_COVERAGE_COLUMNS)
    table["epsilon"] = table["epsilon"].where(table["epsilon"] >= 0)
    return table


def coverage_phrase(
    table: pd.DataFrame | None,
    dataset: str,
    kind: str,
    *,
    quantity: str | None = None,
    interval: str | None = None,
    target: str = "claimed",
    nominal: float = 0.95,
    **match: object,
) -> str:
    """The sentence beside a printed interval: ``"covers 0.91 ± 0.02 of the truth on the twin of
    airfoil at nominal 0.95"``, or ``"coverage not measured"`` where the audit did not run (``table``
    None) or holds no such row.

    Parameters
    ----------
    table : DataFrame or None
        :func:`twin_coverage` (``tables/coverage_twins.csv``).
    dataset, kind, quantity, interval, target, nominal
        The row (pooled over variables, ``feature == "all"``); ``interval`` None: the kind's first.
    **match
        Further columns to match (``estimator``, ``loss``, ``family``, ``scope``, ``epsilon``).
    """
    if table is None or table.empty:
        return "coverage not measured"
    sel = (table["dataset"] == dataset) & (table["kind"] == kind) & (table["feature"] == "all")
    sel &= table["target"] == target
    if quantity is not None:
        sel &= table["quantity"] == quantity
    if interval is not None:
        sel &= table["interval"] == interval
    nominal_col = table["nominal"].astype(float)
    sel &= np.isclose(nominal_col, nominal) | (nominal_col.isna() & (kind == "mcr"))
    for col, value in match.items():
        sel &= table[col] == value
    rows = table[sel]
    if rows.empty:
        return "coverage not measured"
    row = rows.iloc[0]
    what = "the truth"
    if target == "claimed" and kind in ("learner", "ebm"):
        what = "the learner's expectation" if kind == "learner" else "the EBM's expectation"
    level = "" if not np.isfinite(float(row["nominal"])) else f" at nominal {float(row['nominal']):.2f}"
    return f"covers {row['coverage']:.2f} ± {row['coverage_se']:.2f} of {what} on the twin of {dataset}{level}"


def summary_table(
    table: pd.DataFrame, *, nominal: float = 0.95, kinds: Mapping[str, str] | None = None
) -> pd.DataFrame:
    """One row per dataset x kind x quantity x interval x target at ``nominal`` (MCR: its range),
    pooled over variables: the table of docs/coverage.md."""
    t = table[(table["feature"] == "all")]
    t = t[np.isclose(t["nominal"].astype(float), nominal) | t["nominal"].isna()]
    cols = ["dataset", "kind", "quantity", "estimator", "loss", "scope", "epsilon", "interval", "target"]
    return t[cols + ["coverage", "coverage_se", "mean_width", "n_repetitions"]].reset_index(drop=True)


@dataclass(frozen=True)
class TwinCoverage:
    """The ``twin_coverage`` rule's tables: the replicates with their truths, the coverage table."""

    repetitions: pd.DataFrame
    coverage: pd.DataFrame

    FRAMES = ("repetitions", "coverage")

    def to_frames(self) -> dict[str, pd.DataFrame]:
        """The tables by the rule's output names."""
        return {name: getattr(self, name) for name in self.FRAMES}


def twin_coverage_tables(
    shards: Sequence[pd.DataFrame],
    f_star: pd.DataFrame,
    learner: pd.DataFrame | None,
    *,
    nominal: Sequence[float] = (0.5, 0.8, 0.9, 0.95, 0.99),
    importance_truth: pd.DataFrame | None = None,
) -> TwinCoverage:
    """The ``twin_coverage`` rule: :func:`twin_repetitions` and its :func:`twin_coverage`."""
    reps = twin_repetitions(shards, f_star, learner, importance_truth)
    return TwinCoverage(reps, twin_coverage(reps, nominal=nominal))


def combine_twin_coverage(tables: Sequence[pd.DataFrame]) -> pd.DataFrame:
    """The ``twins_table`` rule: every twin's coverage table in one (``tables/coverage_twins.csv``)."""
    frames = [t for t in tables if len(t)]
    if not frames:
        return pd.DataFrame(columns=TWIN_COVERAGE_COLUMNS)
    return pd.concat(frames, ignore_index=True)[TWIN_COVERAGE_COLUMNS]


#: The learner figures' kinds -> the coverage rows of their intervals (quantity of the ``learner`` kind).
_LEARNER_FIGURES = {
    "learner_pd": "pd",
    "learner_pfi": "mr_difference",
    "learner_shap": "shap",
    "learner_ale": "ale",
}


def learner_captions(table: pd.DataFrame | None, dataset: str, family: str, *, nominal: float = 0.95) -> dict:
    """One caption line per learner figure (``learner_pd``, ``learner_pfi``, ``learner_shap``,
    ``learner_ale``): the corrected interval's coverage of the learner's expectation (its estimand)
    and of f*'s value on the dataset's twin, e.g. ``"corrected 95 % interval on the twin of airfoil:
    covers 0.93 ± 0.02 of the learner's expectation, 0.71 ± 0.04 of f*'s value"``; an empty dict when
    the audit has not run (``table`` None) and ``"coverage not measured"`` for a figure without rows.
    """
    if table is None:
        return {}
    out = {}
    for kind, quantity in _LEARNER_FIGURES.items():
        common = dict(quantity=quantity, interval="corrected", nominal=nominal, family=family)
        claimed = coverage_phrase(table, dataset, "learner", target="claimed", **common)
        planted = coverage_phrase(table, dataset, "learner", target="planted", **common)
        if claimed == "coverage not measured":
            out[kind] = f"coverage on the twin of {dataset}: not measured"
            continue
        out[kind] = _both_targets(
            f"corrected {round(100 * nominal)} % interval: ", claimed, planted, "f*'s value", dataset
        )
        calibrated = _calibrated_phrase(table, dataset, quantity, nominal, family=family)
        if calibrated:
            out[kind] += f"; {calibrated}"
    return out


def ebm_caption(table: pd.DataFrame | None, dataset: str, family: str) -> str | None:
    """The EBM term plot's caption line: how often interpret's bar (PD ± 1 SD of the outer bags, read
    as a normal interval of level 0.683) covers the EBM's own expectation over training sets and
    f*'s PD on the dataset's twin; None when the audit has not run, ``"... not measured"`` without
    ``ebm`` rows (a classification twin: its bars are in log-odds)."""
    if table is None:
        return None
    common = dict(quantity="pd", interval="reported", nominal=ONE_SD_LEVEL, family=family)
    claimed = coverage_phrase(table, dataset, "ebm", target="claimed", **common)
    planted = coverage_phrase(table, dataset, "ebm", target="planted", **common)
    if claimed == "coverage not measured":
        return f"the bars' coverage on the twin of {dataset}: not measured"
    return _both_targets(
        "± 1 SD bar (nominal 0.68 if read as a normal interval): ", claimed, planted, "f*'s PD", dataset
    )


def _both_targets(label: str, claimed: str, planted: str, truth: str, dataset: str) -> str:
    """One caption line from the two :func:`coverage_phrase` sentences of an interval: ``label``, the
    coverage of its claimed estimand, that of the planted truth (called ``truth``) where measured."""
    head = label + claimed.split(" on the twin")[0]
    if planted == "coverage not measured":
        return f"{head} (twin of {dataset})"
    tail = planted.split(" on the twin")[0].replace("covers ", "").replace("the truth", truth)
    return f"{head}, {tail} (twin of {dataset})"


#: The SAGE and H² figures -> (kind, quantity, what the claimed estimand is called, f*'s value).
_IMPORTANCE_FIGURES = {
    "sage": ("sage", "sage", "the exact SAGE of the rows explained", "f*'s SAGE"),
    "h_statistic": ("h2", "h2_total", "the model's H² on the population", "f*'s H²"),
    "h_statistic_pairs": ("h2", "h2_pairwise", "the model's H² on the population", "f*'s H²"),
}


def importance_captions(table: pd.DataFrame | None, dataset: str, family: str, *, nominal: float = 0.95) -> dict:
    """One caption line per SAGE / H² figure (``sage``, ``h_statistic``, ``h_statistic_pairs``): how
    often ``estimate ± z se`` at ``nominal`` covers its estimand and f*'s value on the dataset's
    twin, e.g. ``"± z SE (95 %) on the twin of airfoil (xgboost): covers 0.94 ± 0.01 of the exact
    SAGE of the rows explained, 0.10 ± 0.02 of f*'s SAGE"``. The audit explains one family per twin
    (f*'s); another family's figure names the family it was measured on (the same construction of
    the SE). An empty dict when the audit has not run (``table`` None); ``"... not measured"`` for a
    kind the audit has no row of."""
    if table is None:
        return {}
    return {
        fig: _audited_caption(
            table, dataset, family, kind, quantity, nominal=nominal, label=f"± z SE ({round(100 * nominal)} %)",
            claimed_name=claimed_name, planted_name=planted_name, missing="",
        )
        for fig, (kind, quantity, claimed_name, planted_name) in _IMPORTANCE_FIGURES.items()
    }  # fmt: skip


def _audited_caption(
    table: pd.DataFrame,
    dataset: str,
    family: str,
    kind: str,
    quantity: str,
    *,
    nominal: float,
    label: str,
    claimed_name: str,
    planted_name: str,
    missing: str,
    **match: object,
) -> str:
    """The caption line of a figure whose SE interval the audit measured on one family per twin:
    ``"<label>: covers ... of <claimed_name>, ... of <planted_name> (twin of <dataset>, <family>)"``
    and the calibrated phrase where the kind has one; the audited family is named when ``family``
    was not audited; ``"coverage on the twin of <dataset>: not measured<missing>"`` without rows
    (``match``: further columns, as :func:`coverage_phrase`'s)."""
    sel = (table["dataset"] == dataset) & (table["kind"] == kind) & (table["quantity"] == quantity)
    for col, value in match.items():
        sel &= table[col] == value
    audited = list(pd.unique(table.loc[sel, "family"].astype(str)))
    if not audited:
        return f"coverage on the twin of {dataset}: not measured{missing}"
    on = family if family in audited else audited[0]
    common = dict(quantity=quantity, interval="se", nominal=nominal, family=on, **match)
    claimed = coverage_phrase(table, dataset, kind, target="claimed", **common)
    planted = coverage_phrase(table, dataset, kind, target="planted", **common)
    line = f"{label}: " + claimed.split(" on the twin")[0].replace("the truth", claimed_name)
    if planted != "coverage not measured":
        line += ", " + planted.split(" on the twin")[0].replace("covers ", "").replace("the truth", planted_name)
    where = f"twin of {dataset}, {on}" if on == family else f"measured on the twin of {dataset}'s {on}"
    line = f"{line} ({where})"
    calibrated = _calibrated_phrase(table, dataset, quantity, nominal, kind=kind, family=on, **match)
    return f"{line}; {calibrated}" if calibrated else line


#: The MR figures of the ``reliance_figures`` rule -> the estimator whose SE their bars draw (None:
#: the rule's ranking estimator).
_RELIANCE_FIGURES = {"model_reliance": None, "reliance_vs_split_gain": None, "model_reliance_dependent": "permutation"}


def reliance_captions(
    table: pd.DataFrame | None,
    dataset: str,
    family: str,
    *,
    estimator: str,
    loss: str,
    quantity: str,
    nominal: float = 0.95,
) -> dict:
    """One caption line per MR figure (``model_reliance``, ``reliance_vs_split_gain``: the rule's
    ``estimator``; ``model_reliance_dependent``: ``permutation``): how often the MR interval built
    from the printed Monte-Carlo SE (``± t SE`` for ``permutation``, ``± z SE`` otherwise) at
    ``nominal`` covers its estimand (the estimator's expectation over its permutations given the
    model and rows) and f*'s population MR on the dataset's twin, of ``quantity`` under ``loss``, e.g.
    ``"± t SE (95 %, permutation, log_loss): covers 0.95 ± 0.00 of the estimator's expectation,
    0.10 ± 0.02 of f*'s MR (twin of breast_cancer, logistic_regression)"``, with the calibrated
    interval where the table has it. The audit explains f*'s family; another family's figure names
    the family it was measured on. An empty dict when the audit has not run (``table`` None).
    """
    if table is None:
        return {}
    out = {}
    for fig, fixed in _RELIANCE_FIGURES.items():
        est = fixed or estimator
        out[fig] = _audited_caption(
            table, dataset, family, "mr", quantity, nominal=nominal,
            label=f"± {'t' if est == 'permutation' else 'z'} SE ({round(100 * nominal)} %, {est}, {loss})",
            claimed_name="the estimator's expectation", planted_name="f*'s MR", missing=f" ({est}, {loss})",
            estimator=est, loss=loss,
        )  # fmt: skip
    return out


def _calibrated_phrase(
    table: pd.DataFrame, dataset: str, quantity: str, nominal: float, kind: str = "learner", **match: object
) -> str:
    """``"calibrated on the twin: estimate ± 3.10 se covers 0.95 ± 0.01 (out of sample)"``, or ''
    (``match``: further columns, as :func:`coverage_phrase`'s)."""
    if "multiplier" not in table:
        return ""
    sel = (table["dataset"] == dataset) & (table["kind"] == kind) & (table["feature"] == "all")
    sel &= (table["quantity"] == quantity) & (table["interval"] == "calibrated") & (table["target"] == "claimed")
    sel &= np.isclose(table["nominal"].astype(float), nominal)
    for col, value in match.items():
        sel &= table[col] == value
    rows = table[sel]
    if rows.empty or not np.isfinite(float(rows["multiplier"].iloc[0])):
        return ""
    row = rows.iloc[0]
    return (
        f"calibrated on the twin: estimate ± {float(row['multiplier']):.2f} se covers {row['coverage']:.2f} ± "
        f"{row['coverage_se']:.2f} (out of sample)"
    )


def explorer_coverage_lines(
    table: pd.DataFrame | None, dataset: str, *, epsilon: float, nominal: float = 0.95
) -> list[str]:
    """The explorer's lines for one dataset: how often each interval kind the page draws or the study
    prints covers its estimand and the planted truth on the dataset's twin (MCR of the cross-family
    set at ``epsilon``; the learner's, the MR SEs', the test loss's at ``nominal``); empty where the
    audit has not run (``table`` None)."""
    if table is None:
        return []
    lines = []
    for scope in ("cross_family", "family", "linear_exact"):
        for quantity in ("mcr_difference", "mcr_ratio"):
            phrase = coverage_phrase(
                table, dataset, "mcr", quantity=quantity, interval="mcr", target="planted", scope=scope,
                epsilon=float(epsilon),
            )  # fmt: skip
            if phrase != "coverage not measured":
                name = quantity.replace("mcr_", "MR ")
                lines.append(
                    f"[MCR⁻, MCR⁺] of {name} ({scope}, ε = {epsilon:g}, no nominal level): {phrase.replace('the truth', 'MR(f*)')}"
                )
    for label, kind, quantity, interval, extra in (
        ("learner-PD, corrected", "learner", "pd", "corrected", {}),
        ("learner-PFI difference, corrected", "learner", "mr_difference", "corrected", {}),
        ("MR difference ± z SE, e_divide", "mr", "mr_difference", "se", {"estimator": "e_divide"}),
        ("MR difference ± t SE, permutation", "mr", "mr_difference", "se", {"estimator": "permutation"}),
        ("test loss, bootstrap percentile", "test_loss", "test_loss", "reported", {}),
        ("SAGE ± z SE", "sage", "sage", "se", {}),
        ("H² (total) ± z bootstrap SE", "h2", "h2_total", "se", {}),
        ("H² (pairwise) ± z bootstrap SE", "h2", "h2_pairwise", "se", {}),
    ):
        claimed = coverage_phrase(table, dataset, kind, quantity=quantity, interval=interval, nominal=nominal, **extra)
        if claimed == "coverage not measured":
            continue
        planted = coverage_phrase(
            table, dataset, kind, quantity=quantity, interval=interval, target="planted", nominal=nominal, **extra
        )
        line = f"{label}: {claimed}"
        if planted != "coverage not measured":
            line += f"; of f*'s value: {planted.split(' of ')[0].replace('covers ', '')}"
        calibrated = _calibrated_phrase(table, dataset, quantity, nominal, kind=kind, **extra)  # '' if none
        if calibrated:
            line += f"; {calibrated}"
        lines.append(line)
    return lines

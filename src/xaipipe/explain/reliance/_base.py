"""Shared pieces of model reliance: input checks, variables, switch designs, the result.

Private to :mod:`xaipipe.explain.reliance`; the definitions are in that package's
docstring (Fisher, Rudin & Dominici 2019, §3).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass

import numpy as np
import pandas as pd

from ...validation import check_finite, check_int

#: Estimator options of :func:`~xaipipe.explain.reliance.model_reliance`.
ESTIMATORS = ("permutation", "e_divide", "e_switch")

#: Columns of the tidy result, in order (``n_estimators`` follows ``member`` when
#: the members are ensemble prefixes).
RELIANCE_COLUMNS = [
    "member",
    "feature",
    "estimator",
    "algorithm",
    "loss",
    "e_orig",
    "e_switch",
    "mr_ratio",
    "mr_difference",
    "mr_ratio_std",
    "mr_difference_std",
    "mr_ratio_se",
    "mr_difference_se",
    "n_repeats",
    "n_samples",
]

#: Default upper bound on the rows passed to one ``predict`` call.
DEFAULT_MAX_ROWS = 1 << 16

# the losses live in xaipipe.losses (one registry of the pipeline's losses)


@dataclass(frozen=True)
class RelianceOptions:
    """The rarely used options of :func:`~xaipipe.explain.reliance.model_reliance`, in one keyword.

    ``model_reliance(model, X, y, ..., options=RelianceOptions(permutations=perms))``; every field
    at its default gives the plain estimate (the call without ``options``).

    Parameters
    ----------
    feature_names : sequence of str, optional
        Column names (default: DataFrame columns, else ``x0, x1, ...``).
    feature_groups : mapping name -> column names, optional
        Alternative to ``features``: one-hot groups permuted jointly, every other column its own
        variable (:func:`features_from_groups`; e.g. ``{"Sex": ["Sex_F", "Sex_I", "Sex_M"]}``, as
        recorded in ``prepared.json``). Not with ``features``.
    permutations : int array of shape (R, n) or (G, R, n), optional
        Precomputed row permutations, shared by all variables or one set per variable (common
        random numbers across models; :func:`sklearn_permutations` reproduces
        ``sklearn.inspection.permutation_importance``). For ``"e_divide"``, permutation ``p``
        defines the halves ``p[:h]`` and ``p[h:2h]`` (the identity gives the file-order halves).
    max_rows_per_batch : int, default 65536
        Maximum rows per ``predict`` call (``e_switch`` chunks of donor rows; permuted data sets
        are stacked up to this size). A data set of ``n`` rows is never split.
    max_samples : int or None, default None
        ``e_switch`` only: the all-pairs estimate uses at most this many rows, a subsample drawn
        without replacement by
        ``np.sort(np.random.default_rng(random_state).choice(n, max_samples, replace=False))``
        (:func:`e_switch_rows`; ``O(max_samples²)`` predictions instead of ``O(n²)``); ``e_orig``
        and ``n_samples`` are then those of the subsample. Not applied where the exact linear
        closed form is used (all rows, ``O(n)``). None: all rows. The config key
        ``explain.reliance.e_switch_max_rows``.
    subsample_rows : int or None, default None
        ``permutation`` / ``e_divide`` only, the large-data policy (config
        ``large_data.reliance_rows``): where ``n > subsample_rows``, each of the ``R`` repeats runs
        on its own seeded subsample of ``subsample_rows`` rows (one permutation / halving of them;
        :func:`._subsample.subsample_design`), ``e_orig`` on all rows, and the repeat's switched
        loss is ``e_orig`` plus its paired difference on the subsample (:mod:`._subsample`):
        ``*_se`` is then the Monte-Carlo SE of subsample and permutation together,
        ``n_samples = subsample_rows``, ``algorithm`` ``"subsampled_permutations"`` /
        ``"subsampled_halvings"``. ``O(R · subsample_rows)`` predictions per variable instead of
        ``O(R · n)``, always on the generic path (``method`` other than ``"linear"`` is not used).
        Not with ``permutations``. None, or ``n <= subsample_rows``: the estimate on all rows
        (bitwise as without it).
    subsample_se : bool, default False
        With ``max_samples`` applied (``e_switch`` on a subsample of ``m < n`` rows): also the
        Monte-Carlo SE of the subsample's estimate as an estimate of the all-rows value, the
        result's :attr:`RelianceResult.subsample_se` and ``*_se`` columns (U-statistic projection,
        :meth:`._subsample.PairSums.standard_errors`), from the row and column sums of the very
        losses the estimate is formed from: no further predictions; the estimate is bitwise the
        same. The large-data policy turns it on (``large_data.reliance_rows``).
    switch_matrix : bool, default False
        ``estimator="e_switch"`` only: keep the ``n x n`` matrix of switched losses per member and
        variable that the estimate is formed from, on its rows (all rows, or the ``max_samples``
        subsample), in :attr:`RelianceResult.switch_losses` (shape ``(m, G, n, n)``, ``8 m G n²``
        bytes): no further predictions, the estimate bitwise the same (the linear closed form,
        which forms no switched loss, evaluates them with ``n²`` predictions per variable). For
        the exact Monte-Carlo SE of ``e_divide``
        (:func:`xaipipe.explain.reliance.matching_draw_variance`; ``model_reliance.csv``). Not with
        ``subsample_se``.
    """

    feature_names: Sequence[str] | None = None
    feature_groups: Mapping[str, Sequence[str]] | None = None
    permutations: object = None
    max_rows_per_batch: int = DEFAULT_MAX_ROWS
    max_samples: int | None = None
    subsample_rows: int | None = None
    subsample_se: bool = False
    switch_matrix: bool = False


def e_switch_rows(n: int, max_samples: int, random_state) -> np.ndarray | None:
    """The seeded ``e_switch`` subsample: sorted row positions, or None where ``n <= max_samples``.

    ``np.sort(np.random.default_rng(random_state).choice(n, max_samples, replace=False))`` (the one
    definition of the ``e_switch`` row cap: config ``explain.reliance.e_switch_max_rows``,
    :class:`RelianceOptions` ``max_samples``).

    Raises
    ------
    ValueError
        ``max_samples`` not an integer >= 2 (TypeError for a non-integer).
    """
    cap = check_int(max_samples, "max_samples", minimum=2)
    if n <= cap:
        return None
    return np.sort(np.random.default_rng(random_state).choice(n, cap, replace=False))


# ----------------------------------------------------------------------------- inputs


def check_X(X) -> tuple[np.ndarray, list[str] | None]:
    """The data of model reliance in the input's dtype (bool, integer or float; NaN allowed) and a
    DataFrame's column names: ``sklearn.utils.check_array(X, dtype=None)`` with at least 2 rows."""
    from sklearn.utils import check_array

    names = None
    if hasattr(X, "columns") and hasattr(X, "to_numpy"):
        names = [str(c) for c in X.columns]
        X = X.to_numpy()
    try:
        X = check_array(X, dtype=None, ensure_all_finite=False, ensure_min_samples=2, input_name="X")
    except (TypeError, ValueError) as exc:
        raise ValueError(f"model reliance needs X 2-D (n_samples, n_features) with at least 2 samples: {exc}") from None
    if X.dtype.kind not in "biuf":  # check_array(dtype=None) passes object and string arrays through
        raise ValueError(f"X must be numeric, got dtype {X.dtype}")
    return X, names


def check_y(y, n: int) -> np.ndarray:
    y = np.asarray(y)
    if y.ndim != 1 or y.shape[0] != n:
        raise ValueError(f"y must have shape ({n},) to match X, got {y.shape}")
    if y.dtype.kind not in "biuf":
        raise ValueError(f"y must be numeric (encode classes as 0/1), got dtype {y.dtype}")
    check_finite(y, "y")
    return y


def resolve_features(
    features: Mapping[str, Sequence[int | str]] | Sequence[int | str] | None,
    n_features: int,
    feature_names: Sequence[str] | None = None,
) -> dict[str, np.ndarray]:
    """Normalise a feature specification to ``{name: column indices}``.

    Parameters
    ----------
    features : mapping, sequence or None
        ``None``: one group per column, named by ``feature_names`` (or
        ``"x0", "x1", ...``). A sequence of column indices / names: one group per
        entry. A mapping ``name -> columns``: each value lists the columns
        (indices, or names from ``feature_names``) permuted jointly, e.g.
        ``{"Sex": ["Sex_F", "Sex_I", "Sex_M"]}``.
    n_features : int
        Number of columns of ``X``.
    feature_names : sequence of str, optional
        Column names of ``X``.

    Returns
    -------
    dict of str -> ndarray of int
        In the given order.

    Raises
    ------
    ValueError
        On an empty specification or group, an index out of range, an unknown or
        duplicated column name, or a column listed twice in one group.
    """
    feature_names = _checked_names(feature_names, n_features)
    lookup = {name: j for j, name in enumerate(feature_names or [])}

    def index(c) -> int:
        return _column_index(c, lookup, n_features)

    def label(j: int) -> str:
        return feature_names[j] if feature_names is not None else f"x{j}"

    if features is None:
        return {label(j): np.array([j]) for j in range(n_features)}
    if isinstance(features, Mapping):
        items = list(features.items())
    else:
        if isinstance(features, (str, bytes)):
            raise ValueError("features must be a mapping or a sequence, not a string")
        items = []
        for c in features:
            j = index(c)
            items.append((label(j), [j]))
    if not items:
        raise ValueError("no features given")
    out: dict[str, np.ndarray] = {}
    for name, cols in items:
        if isinstance(cols, (str, int, np.integer)):
            cols = [cols]
        idx = [index(c) for c in cols]
        _check_group(name, cols, idx, out)
        out[str(name)] = np.asarray(idx, dtype=np.intp)
    return out


def _checked_names(feature_names, n_features: int) -> list[str] | None:
    """``feature_names`` as strings, one per column and unique (:func:`resolve_features`)."""
    if feature_names is not None:
        feature_names = [str(c) for c in feature_names]
        if len(feature_names) != n_features:
            raise ValueError(f"{len(feature_names)} feature names for {n_features} columns")
        if len(set(feature_names)) != n_features:
            raise ValueError("feature names are not unique")
    return feature_names


def _column_index(c, lookup: Mapping[str, int], n_features: int) -> int:
    """The column index of ``c``, a name in ``lookup`` or an index below ``n_features``."""
    if isinstance(c, (str, np.str_)):
        if c not in lookup:
            raise ValueError(f"unknown feature name {c!r}; known: {list(lookup)}")
        return lookup[c]
    if isinstance(c, (bool, np.bool_)) or not isinstance(c, (int, np.integer)):
        raise ValueError(f"feature columns must be int indices or names, got {c!r}")
    if not 0 <= int(c) < n_features:
        raise ValueError(f"column index {c} out of range for {n_features} columns")
    return int(c)


def _check_group(name, cols, idx: list[int], out: Mapping) -> None:
    """Raise on an empty group, a column listed twice, or a name already in ``out``."""
    if not idx:
        raise ValueError(f"feature group {name!r} has no columns")
    if len(set(idx)) != len(idx):
        raise ValueError(f"feature group {name!r} lists a column twice: {list(cols)}")
    if str(name) in out:
        raise ValueError(f"duplicate feature name {name!r}")


def resolve_variables(X, features, feature_names=None, feature_groups=None):
    """``(X as an array, its column names, the variables {name: columns})`` of a reliance call.

    ``feature_names`` default to the DataFrame's columns; ``feature_groups`` (one-hot groups, every
    other column its own variable; :func:`features_from_groups`) replace ``features``.

    Raises
    ------
    ValueError
        Both ``features`` and ``feature_groups``, or as :func:`check_X` / :func:`resolve_features`.
    """
    Xv, names = check_X(X)
    if feature_names is None:
        feature_names = names
    if feature_groups is not None:
        if features is not None:
            raise ValueError("give either features or feature_groups, not both")
        cols = list(feature_names) if feature_names is not None else [f"x{j}" for j in range(Xv.shape[1])]
        features = features_from_groups(cols, feature_groups)
    return Xv, feature_names, resolve_features(features, Xv.shape[1], feature_names)


def features_from_groups(
    columns: Sequence[str], groups: Mapping[str, Sequence[str]] | None = None
) -> dict[str, list[int]]:
    """Feature specification from column names and one-hot groups.

    Each column not in a group is its own feature; a group (e.g. ``"Sex"`` ->
    ``["Sex_F", "Sex_I", "Sex_M"]``, as recorded in ``prepared.json``) becomes one
    feature at the position of its first member.

    Parameters
    ----------
    columns : sequence of str
        Column names of ``X`` in order.
    groups : mapping of str -> sequence of str, optional

    Returns
    -------
    dict of str -> list of int

    Raises
    ------
    ValueError
        If a group member is not a column, a column is in two groups, or a group
        name collides with an ungrouped column.
    """
    columns = [str(c) for c in columns]
    pos = {c: j for j, c in enumerate(columns)}
    owner: dict[str, str] = {}
    for gname, members in (groups or {}).items():
        if not members:
            raise ValueError(f"group {gname!r} is empty")
        for c in members:
            if c not in pos:
                raise ValueError(f"group {gname!r} member {c!r} is not a column of X")
            if c in owner:
                raise ValueError(f"column {c!r} is in groups {owner[c]!r} and {gname!r}")
            owner[c] = gname
    out: dict[str, list[int]] = {}
    for c in columns:
        g = owner.get(c)
        if g is None:
            if c in out:
                raise ValueError(f"feature name {c!r} is used twice")
            out[c] = [pos[c]]
        elif g not in out:
            if g in pos and owner.get(g) is None:
                raise ValueError(f"group name {g!r} collides with a column name")
            out[g] = [pos[m] for m in groups[g]]
    return out


# ----------------------------------------------------------------------------- permutations


def random_permutations(n_samples: int, n_repeats: int, n_groups: int = 1, random_state=None) -> np.ndarray:
    """Independent uniform row permutations, as drawn by the default estimator.

    ``rng = np.random.default_rng(random_state)`` then
    ``rng.permuted(np.tile(np.arange(n_samples), (n_groups * n_repeats, 1)), axis=1)``
    reshaped group-major.

    Returns
    -------
    ndarray of int, shape (n_groups, n_repeats, n_samples)
    """
    n_samples, n_repeats, n_groups = int(n_samples), int(n_repeats), int(n_groups)
    if n_samples < 1 or n_repeats < 1 or n_groups < 1:
        raise ValueError("n_samples, n_repeats and n_groups must be >= 1")
    rng = np.random.default_rng(random_state)
    base = np.tile(np.arange(n_samples), (n_groups * n_repeats, 1))
    return rng.permuted(base, axis=1).reshape(n_groups, n_repeats, n_samples)


def sklearn_permutations(n_samples: int, n_repeats: int, random_state=None) -> np.ndarray:
    """The row permutations ``sklearn.inspection.permutation_importance`` applies.

    scikit-learn draws ``seed = check_random_state(random_state).randint(2**31)``
    once; for *every* feature it creates ``RandomState(seed)`` and, per repeat,
    shuffles an index array *in place* and re-permutes the already permuted
    column (``X[:, j] = X[idx, j]``). Repeat ``r`` therefore shows rows
    ``p_r = p_{r-1}[idx_r]`` (``p_0`` the identity); the same ``p_r`` are used for
    all features. Passing the result as ``permutations=`` reproduces its
    ``importances`` (with ``max_samples=1.0``) up to float rounding.

    Returns
    -------
    ndarray of int, shape (n_repeats, n_samples)
    """
    from sklearn.utils import check_random_state

    rs = check_random_state(random_state)
    seed = rs.randint(np.iinfo(np.int32).max + 1)
    local = np.random.RandomState(seed)
    idx = np.arange(n_samples)
    current = np.arange(n_samples)
    out = np.empty((int(n_repeats), int(n_samples)), dtype=np.intp)
    for r in range(int(n_repeats)):
        local.shuffle(idx)
        current = current[idx]
        out[r] = current
    return out


def check_permutations(perms, n_groups: int, n: int, n_repeats: int | None) -> np.ndarray:
    p = np.asarray(perms)
    if p.dtype.kind not in "iu":
        raise ValueError(f"permutations must be integer row indices, got dtype {p.dtype}")
    if p.ndim == 2:
        p = np.broadcast_to(p, (n_groups,) + p.shape)
    if p.ndim != 3 or p.shape[0] != n_groups or p.shape[2] != n or p.shape[1] < 1:
        raise ValueError(
            f"permutations must have shape (n_repeats, {n}) or ({n_groups}, n_repeats, {n}); got {np.shape(perms)}"
        )
    if n_repeats is not None and p.shape[1] != n_repeats:
        raise ValueError(f"n_repeats={n_repeats} but permutations hold {p.shape[1]} repeats")
    if not (np.sort(p, axis=-1) == np.arange(n)).all():
        raise ValueError(f"each row of permutations must be a permutation of range({n})")
    return p


#: Algorithm labels of the randomised estimators: (drawn here, given by the caller).
_ALGORITHMS = {
    "permutation": ("random_permutations", "given_permutations"),
    "e_divide": ("random_halvings", "given_halvings"),
}


def estimator_stream(estimator: str, random_state):
    """The seed of an estimator's random draws: ``random_state`` itself for
    ``"permutation"``; an independent stream of it for ``"e_divide"`` (so that the
    two estimators computed with one seed do not share their permutations)."""
    if estimator != "e_divide" or random_state is None or isinstance(random_state, np.random.Generator):
        return random_state
    if isinstance(random_state, np.random.SeedSequence):
        return np.random.SeedSequence(random_state.entropy, spawn_key=(*random_state.spawn_key, 0xD1))
    return np.random.SeedSequence([int(random_state), 0xD1])


def conditional_permutations(strata, n_repeats: int = 20, random_state=None) -> np.ndarray:
    """Uniform random permutations within strata, independent per variable and repeat.

    Parameters
    ----------
    strata : array-like of int, shape (G, n) or (n,)
        Stratum of each row per variable.
    n_repeats : int, default 20
    random_state : int, Generator, SeedSequence or None
        Seed of ``np.random.default_rng``.

    Returns
    -------
    ndarray of int, shape (G, n_repeats, n)
        ``perm[g, r, j]`` is the row whose variable row ``j`` receives; always in ``j``'s stratum.
    """
    S = np.atleast_2d(np.asarray(strata))
    if S.dtype.kind not in "iu":
        raise ValueError(f"strata must be integer labels, got dtype {S.dtype}")
    R = check_int(n_repeats, "n_repeats", minimum=1)
    G, n = S.shape
    rng = np.random.default_rng(random_state)
    out = np.empty((G, R, n), dtype=np.intp)
    for g in range(G):
        base = np.argsort(S[g], kind="stable")  # rows grouped by stratum
        for r in range(R):
            order = np.lexsort((rng.random(n), S[g]))  # same blocks, random order inside each
            out[g, r, base] = order
    return out


def resolve_permutations(estimator: str, permutations, n_repeats, n: int, n_groups: int, random_state):
    """The row permutations of an MR estimator: ``(perms of shape (G, R, n) or None, R, algorithm)``.

    ``"permutation"``: repeat ``r`` of variable ``g`` shows rows ``perms[g, r]``;
    ``"e_divide"``: halving ``r`` swaps ``perms[g, r][:h]`` with
    ``perms[g, r][h:2h]``. Either the given ``permutations`` (checked) or ``R``
    fresh uniform ones (:func:`random_permutations` of :func:`estimator_stream`,
    ``R = n_repeats``, default 10). ``"e_switch"`` takes neither.

    Raises
    ------
    ValueError
        ``n_repeats`` / ``permutations`` given for ``e_switch``, invalid
        permutations. ``TypeError``: a non-integer ``n_repeats``.
    """
    if estimator not in _ALGORITHMS:
        if permutations is not None or n_repeats not in (None, 1):
            raise ValueError(
                f"n_repeats / permutations apply to estimator='permutation' or 'e_divide', not {estimator!r}"
            )
        return None, 1, "all_pairs"
    drawn, given = _ALGORITHMS[estimator]
    if permutations is None:
        R = 10 if n_repeats is None else check_int(n_repeats, "n_repeats", minimum=1)
        return random_permutations(n, R, n_groups, estimator_stream(estimator, random_state)), R, drawn
    if n_repeats is not None:
        check_int(n_repeats, "n_repeats", minimum=1)
    p = check_permutations(permutations, n_groups, n, n_repeats)
    return p, p.shape[1], given


def switch_designs(
    estimator: str,
    n: int,
    n_groups: int,
    *,
    permutations: np.ndarray | None = None,
    max_rows_per_batch: int = DEFAULT_MAX_ROWS,
) -> list[list[tuple[int, np.ndarray, np.ndarray]]]:
    """The switched data sets of an MR estimator, as ``(repeat, recipients, donors)``.

    Row ``q`` of a switched data set takes ``y`` and the other columns from row
    ``recipients[q]`` and the variable's columns from row ``donors[q]``
    (Fisher et al. 2019, §3):

    * ``"permutation"``: repeat ``r`` of group ``g`` is ``(arange(n), perms[g, r])``;
    * ``"e_divide"``: halving ``r`` of group ``g``: with ``p = perms[g, r]`` and
      ``h = n // 2``, ``recipients = p[:2h]`` and ``donors`` the other half,
      ``concatenate([p[h:2h], p[:h]])``;
    * ``"e_switch"``: all ordered pairs ``j != i``, in chunks of donor rows of at
      most ``max_rows_per_batch`` rows (both the generic path and the tree engine
      add the chunks' partial sums in this order).

    Returns
    -------
    list (one per group) of lists of ``(repeat, recipients, donors)``
    """
    sets: list[list[tuple[int, np.ndarray, np.ndarray]]] = []
    everyone = np.arange(n)
    for g in range(n_groups):
        if estimator == "permutation":
            sets.append([(r, everyone, permutations[g, r]) for r in range(permutations.shape[1])])
        elif estimator == "e_divide":
            h = n // 2
            halvings = []
            for r in range(permutations.shape[1]):
                p = permutations[g, r]
                halvings.append((r, p[: 2 * h], np.concatenate([p[h : 2 * h], p[:h]])))
            sets.append(halvings)
        elif estimator == "e_switch":
            per_chunk = max(1, int(max_rows_per_batch) // (n - 1))
            chunk = []
            for a in range(0, n, per_chunk):
                d = np.arange(a, min(a + per_chunk, n))
                donors = np.repeat(d, n - 1)
                recip = np.tile(np.arange(n - 1), d.size)
                recip += recip >= donors
                chunk.append((0, recip, donors))
            sets.append(chunk)
        else:
            raise ValueError(f"unknown estimator {estimator!r}; choose one of {list(ESTIMATORS)}")
    return sets


def divisor(estimator: str, n: int) -> int:
    """Rows behind one switched loss sum: ``n``, ``2 (n // 2)`` or ``n (n - 1)``."""
    return {"permutation": n, "e_divide": 2 * (n // 2), "e_switch": n * (n - 1)}[estimator]


@dataclass(frozen=True)
class RelianceResult:
    """Model-reliance estimates for ``m`` members and ``G`` variables (feature groups).

    Returned by :func:`~xaipipe.explain.reliance.model_reliance`.

    Attributes
    ----------
    features : list of str
        Variable names, length ``G``.
    e_orig : ndarray of shape (m,)
        ``ê_orig`` per member (mean loss on the unchanged data; loss units).
    e_switch : ndarray of shape (m, G, R)
        Estimate of the switched loss per member, variable and repeat (random
        permutation or halving; ``R = 1`` for the deterministic ``e_switch``).
    estimator : str
        ``"permutation"``, ``"e_divide"`` or ``"e_switch"``.
    algorithm : str
        ``"random_permutations"``, ``"given_permutations"``, ``"random_halvings"``,
        ``"given_halvings"``, ``"all_pairs"`` or ``"linear_closed_form"``.
    loss : str
    n_samples : int
    n_estimators : list of int or None
        The ensemble prefix of each member, when members are prefixes.
    method : str
        The path that computed it: ``"generic"``, ``"engine"`` or ``"linear"``.
    subsample_se : tuple of two ndarrays of shape (m, G), or None
        ``(mr_ratio_se, mr_difference_se)`` of ``e_switch`` on a subsample of the rows as an
        estimate of the all-rows value (``model_reliance(..., max_samples=, subsample_se=True)``;
        :class:`._subsample.PairSums`); :meth:`to_frame` reports them as the ``*_se`` columns.
    switch_losses : ndarray of shape (m, G, n, n), or None
        ``e_switch`` with ``switch_matrix=True``: the switched losses ``M[i, g, r, d]`` the
        estimate is formed from (:class:`._mc_error.SwitchLosses`; ``n = n_samples``), for the
        exact Monte-Carlo SE of ``e_divide`` (:func:`._mc_error.matching_draw_variance`).
    """

    features: list
    e_orig: np.ndarray
    e_switch: np.ndarray
    estimator: str
    algorithm: str
    loss: str
    n_samples: int
    n_estimators: list | None = None
    method: str = "generic"
    subsample_se: tuple | None = None
    switch_losses: np.ndarray | None = None

    @property
    def deterministic(self) -> bool:
        """True for ``e_switch`` (all pairs): no Monte-Carlo error."""
        return self.estimator == "e_switch"

    def mr_ratio(self) -> np.ndarray:
        """Per-repeat ``e_switch / e_orig``, shape (m, G, R); inf/NaN where ``e_orig = 0``."""
        with np.errstate(divide="ignore", invalid="ignore"):
            return self.e_switch / self.e_orig[:, None, None]

    def mr_difference(self) -> np.ndarray:
        """Per-repeat ``e_switch - e_orig``, shape (m, G, R)."""
        return self.e_switch - self.e_orig[:, None, None]

    def to_frame(self) -> pd.DataFrame:
        """Tidy table: one row per member x variable (member-major).

        Columns are :data:`RELIANCE_COLUMNS` (plus ``n_estimators`` after
        ``member`` when the members are prefixes). ``e_switch`` is the mean
        switched loss over repeats, ``mr_ratio = e_switch / e_orig`` (Fisher et
        al.'s ``M̂R``; inf/NaN when ``e_orig = 0``) and ``mr_difference =
        e_switch - e_orig`` (loss units); ``*_std`` (across repeats, ``ddof=1``)
        and ``*_se`` (``std / sqrt(R)``, the Monte-Carlo standard error of the
        mean) are NaN for ``e_switch`` and for ``R = 1``; ``*_se`` is
        :attr:`subsample_se` where that is set.
        """
        ratio, diff = self.mr_ratio(), self.mr_difference()
        m, G, R = self.e_switch.shape
        nan = np.full((m, G), np.nan)

        def spread(v):
            if self.deterministic or R < 2:
                return nan, nan
            sd = v.std(axis=2, ddof=1)
            return sd, sd / np.sqrt(R)

        rs, rse = spread(ratio)
        ds, dse = spread(diff)
        if self.subsample_se is not None:
            rse, dse = (np.asarray(v, dtype=np.float64).reshape(m, G) for v in self.subsample_se)
        with np.errstate(divide="ignore", invalid="ignore"):
            mean_ratio = ratio.mean(axis=2)
        frame = pd.DataFrame(
            {
                "member": np.repeat(np.arange(m), G),
                "feature": np.tile(np.asarray(self.features, dtype=object), m),
                "estimator": self.estimator,
                "algorithm": self.algorithm,
                "loss": self.loss,
                "e_orig": np.repeat(self.e_orig, G),
                "e_switch": self.e_switch.mean(axis=2).ravel(),
                "mr_ratio": mean_ratio.ravel(),
                "mr_difference": diff.mean(axis=2).ravel(),
                "mr_ratio_std": rs.ravel(),
                "mr_difference_std": ds.ravel(),
                "mr_ratio_se": rse.ravel(),
                "mr_difference_se": dse.ravel(),
                "n_repeats": R,
                "n_samples": self.n_samples,
            }
        )[RELIANCE_COLUMNS]
        if self.n_estimators is not None:
            ks = np.asarray([int(k) for k in self.n_estimators])
            frame.insert(1, "n_estimators", ks[frame["member"].to_numpy()])
        return frame

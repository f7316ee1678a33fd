"""The accumulation kernels of the tree engine (numba): the interval search of a subtree, one
block of trees for one recipient's switched rows, and the loop over recipients and blocks.

Private to :mod:`xaipipe.explain.reliance._kernels` (its module docstring: the walks, the
signatures, the pieces and the lock step; :func:`~xaipipe.explain.reliance._kernels.accumulate`
validates the inputs and calls :data:`_acc_serial` / :data:`_acc_parallel`). Kept apart from the
walk and signature kernels only for size; the code is that of the one module it came from.
"""

from __future__ import annotations

import types

import numpy as np

try:  # numba ships with shap (a hard dependency); keep a clear error otherwise
    import numba
    from numba import njit, prange
except ImportError:  # pragma: no cover - exercised only without numba
    numba = None

__all__ = ["AVAILABLE"]

#: True when numba imports (the engine falls back to scikit-learn's loops otherwise).
AVAILABLE = numba is not None


def _variant(fn, suffix):
    """A copy of ``fn`` under its own ``__qualname__``: numba names the on-disk cache
    of a function after its qualified name and line, not after the compile options,
    so a serial and a ``parallel=True`` dispatcher of the *same* function share one
    cache entry and load each other's machine code (measured: ``n_jobs=2`` ran on
    one thread, ``n_jobs=1`` on two, whichever variant compiled first)."""
    out = types.FunctionType(fn.__code__, fn.__globals__, fn.__name__ + suffix, fn.__defaults__, fn.__closure__)
    out.__qualname__ = fn.__qualname__ + suffix
    out.__doc__ = fn.__doc__
    return out


if AVAILABLE:

    def _intervals_impl(
        child, feature, threshold, key, vcol, X, j, e, lo0, hi0, stack_v, stack_lo, stack_hi, leaves, ubs
    ):
        # The leaves reached from node e as the value x of column vcol varies over
        # (lo0, hi0] with every other column fixed at row j's: a node testing vcol
        # sends x <= key[v] left, so it splits an interval (lo, hi] at key[v]; any
        # other node sends the whole interval row j's way. Left-first search: the
        # leaves come in increasing x, leaf r on (ubs[r - 1], ubs[r]] (ubs[-1] = lo0),
        # every interval non-empty. Returns their number P. Value space: key =
        # threshold, (-inf, inf]. Bin space of a signature table: key = rank, and
        # bin b is the value b + 1 (x <= tau_{r-1}  <=>  b < r  <=>  b + 1 <= r), so
        # (0, nsig] gives leaf r on the bins ubs[r - 1] .. ubs[r] - 1.
        P = 0
        stack_v[0] = e
        stack_lo[0] = lo0
        stack_hi[0] = hi0
        sp = 1
        while sp > 0:
            sp -= 1
            v = stack_v[sp]
            lo = stack_lo[sp]
            hi = stack_hi[sp]
            while feature[v] >= 0:
                f = feature[v]
                if f == vcol:
                    k = key[v]
                    if hi <= k:  # every x in (lo, hi] goes left
                        v = child[v, 0]
                    elif lo >= k:  # every x in (lo, hi] goes right
                        v = child[v, 1]
                    else:
                        stack_v[sp] = child[v, 1]
                        stack_lo[sp] = k
                        stack_hi[sp] = hi
                        sp += 1
                        v = child[v, 0]
                        hi = k
                elif X[j, f] <= threshold[v]:
                    v = child[v, 0]
                else:
                    v = child[v, 1]
            leaves[P] = v
            ubs[P] = hi
            P += 1
        return P

    def _accumulate_impl(
        child,
        feature,
        threshold,
        step,
        step_feature,
        height,
        max_lockstep,
        table,
        column,
        snapshot,
        entry,
        term,
        Xs,
        order,
        ptr,
        start,
        X,
        donors,
        sig,
        nsig,
        rank,
        radix,
        base,
        single,
        hmax,
        vcol,
        lmax,
        piece_rows,
        piece_height,
        blocks,
        out,
    ):
        # Rows are processed per recipient j (ptr[j]:ptr[j+1] of the sorted order), all
        # its switched rows side by side: a tree whose entry node is -1 for j adds the
        # same stored term to every one of them (one vectorised loop); otherwise the
        # rows' leaves come from a walk per distinct signature of the variable in that
        # tree (few thresholds: at most nsig < m walks, in bin space), from the
        # intervals of a single column's value (rows sorted by donor value), or each
        # row resumes its own walk at the entry node. Trees are taken in blocks
        # (blocks[b]:blocks[b + 1], a few MB of nodes) and every recipient goes through
        # a block before the next, so the block's nodes stay in cache. Every row's sum
        # is formed tree by tree in the ensemble's order.
        n = ptr.shape[0] - 1
        T = entry.shape[1]
        D = start.shape[1]
        rows = Xs.shape[0]
        smax = 1
        for t in range(T):
            smax = max(smax, nsig[t])
        # recipient j's running sums: acc[D * a : D * (a + m)] as a (D, m) block
        acc = np.empty(D * rows, dtype=np.float64)
        # interval path: each recipient's rows sorted by donor value (positions in
        # perm_all, values in dv_all); ties in any order (each row gets one term per tree)
        dv_all = np.empty(rows if single else 0, dtype=np.float64)
        perm_all = np.empty(rows if single else 0, dtype=np.int64)
        # scratch of every recipient (views taken per recipient, no allocation per block)
        if hmax < piece_height:
            # no subtree is high enough for the interval path (shallow boosting
            # trees): no recipient sorts its rows
            piece_rows = rows + 1
        many = 0
        if single:
            for j in range(n):
                if ptr[j + 1] - ptr[j] >= piece_rows:
                    many += 1
        np_ = n if many > 0 else 1
        nodes_all = np.empty(rows, dtype=np.int64)
        tab_all = np.empty((n, smax), dtype=np.int64)
        tabv_all = np.empty((n, smax), dtype=np.float64)
        bins_all = np.empty((n, 2, smax), dtype=np.int64)  # one column: leaves and upper bins
        stk_i = np.empty((n, 3, hmax + 2), dtype=np.int64)
        stk_f = np.empty((np_, 2, hmax + 2), dtype=np.float64)
        pleaf_all = np.empty((np_, lmax if many > 0 else 1), dtype=np.int64)
        pub_all = np.empty((np_, lmax if many > 0 else 1), dtype=np.float64)
        if many > 0:
            for j in prange(n):
                a = ptr[j]
                m = ptr[j + 1] - a
                if m < piece_rows:
                    continue
                vals = np.empty(m, dtype=np.float64)
                for i in range(m):
                    vals[i] = np.float64(X[donors[a + i], vcol])
                srt = np.argsort(vals)
                for i in range(m):
                    perm_all[a + i] = srt[i]
                    dv_all[a + i] = vals[srt[i]]
        for b in range(blocks.shape[0] - 1):
            t0 = blocks[b]
            t1 = blocks[b + 1]
            for j in prange(n):
                a = ptr[j]
                m = ptr[j + 1] - a
                if m == 0:
                    continue
                _accumulate_block(
                    child,
                    feature,
                    threshold,
                    step,
                    step_feature,
                    height,
                    max_lockstep,
                    table,
                    column,
                    snapshot,
                    entry,
                    term,
                    Xs,
                    order,
                    start,
                    X,
                    donors,
                    sig,
                    nsig,
                    rank,
                    radix,
                    base,
                    single,
                    hmax,
                    vcol,
                    lmax,
                    piece_rows,
                    piece_height,
                    out,
                    acc,
                    dv_all,
                    perm_all,
                    nodes_all,
                    tab_all,
                    tabv_all,
                    bins_all,
                    stk_i,
                    stk_f,
                    pleaf_all,
                    pub_all,
                    j,
                    a,
                    m,
                    t0,
                    t1,
                )

    def _accumulate_block_impl(
        child,
        feature,
        threshold,
        step,
        step_feature,
        height,
        max_lockstep,
        table,
        column,
        snapshot,
        entry,
        term,
        Xs,
        order,
        start,
        X,
        donors,
        sig,
        nsig,
        rank,
        radix,
        base,
        single,
        hmax,
        vcol,
        lmax,
        piece_rows,
        piece_height,
        out,
        acc_all,
        dv_all,
        perm_all,
        nodes_all,
        tab_all,
        tabv_all,
        bins_all,
        stk_i,
        stk_f,
        pleaf_all,
        pub_all,
        j,
        a,
        m,
        t0,
        t1,
    ):
        # trees t0..t1-1 for the m switched rows a..a+m-1 of recipient j, whose running
        # sums are the contiguous (D, m) block acc_all[D * a : D * (a + m)]
        W = table.shape[1]
        D = start.shape[1]
        acc = acc_all[D * a : D * (a + m)].reshape((D, m))
        if t0 == 0:
            for i in range(m):
                for d in range(D):
                    acc[d, i] = start[a + i, d]
        # scratch: views of per-recipient rows allocated once per call
        nodes = nodes_all[a : a + m]
        tab = tab_all[j]
        tabv = tabv_all[j]
        bleaf = bins_all[j, 0]
        bub = bins_all[j, 1]
        stack_v = stk_i[j, 0]
        stack_lo = stk_i[j, 1]
        stack_hi = stk_i[j, 2]
        # interval path: the pieces' leaves and upper bounds, and the recipient's
        # rows sorted by donor value (values dv, positions srt)
        pieces = single and m >= piece_rows
        pleaf = pleaf_all[j] if pieces else pleaf_all[0, :0]
        pub = pub_all[j] if pieces else pub_all[0, :0]
        stack_x = stk_f[j, 0] if pieces else stk_f[0, 0, :0]
        stack_y = stk_f[j, 1] if pieces else stk_f[0, 1, :0]
        dv = dv_all[a : a + m] if pieces else dv_all[:0]
        srt = perm_all[a : a + m] if pieces else perm_all[:0]
        for t in range(t0, t1):
            e = entry[j, t]
            c = column[t]
            ns = nsig[t]
            if e < 0:
                for w in range(W):
                    v = term[j, t, w]
                    row = acc[c + w]
                    for i in range(m):
                        row[i] += v
            elif ns > 0 and ns < m:
                # leaf of each signature: walk from the entry node; nodes that
                # test the variable compare the signature's bin with the rank of
                # their threshold (x <= tau_r  <=>  bin < r), the others the
                # recipient's own value
                if single:
                    # one column: the leaves on consecutive runs of bins
                    P = _intervals(
                        child, feature, threshold, rank, vcol, X, j, e, 0, ns, stack_v, stack_lo, stack_hi, bleaf, bub
                    )
                    lo = 0
                    for r in range(P):
                        for s_ in range(lo, bub[r]):
                            tab[s_] = bleaf[r]
                        lo = bub[r]
                else:
                    for s_ in range(ns):
                        v = e
                        while feature[v] >= 0:
                            bv = base[v]
                            if bv > 0:
                                if (s_ // radix[v]) % bv < rank[v]:
                                    v = child[v, 0]
                                else:
                                    v = child[v, 1]
                            elif X[j, feature[v]] <= threshold[v]:
                                v = child[v, 0]
                            else:
                                v = child[v, 1]
                        tab[s_] = v
                sg = sig[t]
                dons = donors[a : a + m]
                for w in range(W):
                    for s_ in range(ns):
                        tabv[s_] = table[tab[s_], w]
                    row = acc[c + w]
                    for i in range(m):
                        row[i] += tabv[sg[dons[i]]]
            elif pieces and height[e] >= piece_height:
                # one column with too many thresholds for a signature table (deep
                # trees): as the column's value x varies with the other columns
                # fixed at the recipient's, the walk from the entry node reaches
                # a sequence of leaves on consecutive intervals (lo, hi] of x
                # (left-first search: increasing x). Each switched row takes the
                # leaf of the interval holding its donor's value.
                P = _intervals(
                    child,
                    feature,
                    threshold,
                    threshold,
                    vcol,
                    X,
                    j,
                    e,
                    -np.inf,
                    np.inf,
                    stack_v,
                    stack_x,
                    stack_y,
                    pleaf,
                    pub,
                )
                # in the recipient's rows sorted by donor value (dv, with positions
                # srt), piece r takes a contiguous range: ub_{r-1} < x <= ub_r
                lo = 0
                for r in range(P):
                    if r == P - 1:
                        hi = m
                    else:
                        ub = pub[r]
                        hi = lo
                        top = m
                        while hi < top:  # first row with x > ub
                            mid = (hi + top) // 2
                            if dv[mid] <= ub:
                                hi = mid + 1
                            else:
                                top = mid
                    if hi > lo:
                        leafv = pleaf[r]
                        for w in range(W):
                            v = table[leafv, w]
                            row = acc[c + w]
                            for i in range(lo, hi):
                                row[srt[i]] += v
                    lo = hi
            elif height[e] <= max_lockstep:
                # shallow subtree: all rows step down together, branch-free
                # (index = x > threshold, i.e. not x <= threshold for finite x)
                for i in range(m):
                    nodes[i] = e
                for _ in range(height[e]):
                    for i in range(m):
                        v = nodes[i]
                        nodes[i] = step[2 * v + (Xs[a + i, step_feature[v]] > threshold[v])]
                for i in range(m):
                    for w in range(W):
                        acc[c + w, i] += table[nodes[i], w]
            else:
                for i in range(m):
                    node = e
                    while feature[node] >= 0:
                        if Xs[a + i, feature[node]] <= threshold[node]:
                            node = child[node, 0]
                        else:
                            node = child[node, 1]
                    for w in range(W):
                        acc[c + w, i] += table[node, w]
            s = snapshot[t]
            if s >= 0:
                for i in range(m):
                    q = order[a + i]
                    for d in range(D):
                        out[s, q, d] = acc[d, i]

    _intervals = njit(cache=True, nogil=True)(_intervals_impl)
    _accumulate_block = njit(cache=True, nogil=True)(_accumulate_block_impl)
    _acc_serial = njit(cache=True, nogil=True)(_variant(_accumulate_impl, "_serial"))
    _acc_parallel = njit(cache=True, nogil=True, parallel=True)(_variant(_accumulate_impl, "_parallel"))

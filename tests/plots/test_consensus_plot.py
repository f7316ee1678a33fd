"""The Hasse diagram of the consensus order (xaipipe.plots.consensus): the figure's bytes do not depend
on the process's string-hash seed (networkx's transitive reduction yields its edges in set order)."""

from __future__ import annotations

import os
import subprocess
import sys

CODE = """
import hashlib, io, itertools
import matplotlib
matplotlib.use("Agg")
import pandas as pd
from xaipipe.plots.consensus import plot_hasse

# a lattice: t over x0..x5, each x over b (and t over b, implied); the x's pairwise incomparable
xs = [f"x{i}" for i in range(6)]
rows = [("t", x, "a_over_b") for x in xs] + [(x, "b", "a_over_b") for x in xs] + [("t", "b", "a_over_b")]
rows += [(a, c, "incomparable") for a, c in itertools.combinations(xs, 2)]
fig = plot_hasse(pd.DataFrame(rows, columns=["feature_a", "feature_b", "relation"]))
buf = io.BytesIO()
fig.savefig(buf, format="png")
print(hashlib.sha256(buf.getvalue()).hexdigest())
"""


def _digest(seed: int) -> str:
    env = {"PYTHONHASHSEED": str(seed), "MPLBACKEND": "Agg"}
    out = subprocess.run(
        [sys.executable, "-c", CODE], capture_output=True, text=True, check=True, env={**os.environ, **env}
    )
    return out.stdout.strip()


def test_the_hasse_figure_does_not_follow_the_hash_seed():
    digests = {_digest(seed) for seed in (0, 1, 2, 3)}
    assert len(digests) == 1, digests


def test_a_scope_the_class_lacks_falls_back_to_the_first_members_scope():
    """One family: no cross_family rows; the figure draws the family scope (as the Rashomon figures),
    and a figure ε without any members' rows is refused naming it."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    import pandas as pd
    import pytest

    from xaipipe.plots.consensus import consensus_figures

    common = {"scope": "linear_regression", "epsilon": 0.05, "estimator": "permutation", "method": "all_members"}
    pairs = pd.DataFrame([{"feature_a": "x1", "feature_b": "x2", "relation": "a_over_b", **common}])
    summary = pd.DataFrame(
        [{**common, "n_pairs": 1, "n_ordered": 1, "n_ties": 0, "n_incomparable": 0, "share_ordered": 1.0,
          "n_members": 1, "n_functions": 1, "reference_ranking": "x1 > x2", "reference_n_ordered": 1}]
    )  # fmt: skip
    fig = consensus_figures(pairs, summary, scope="cross_family", epsilon=0.05, estimator="permutation")
    assert "linear_regression" in fig.axes[0].get_title()
    plt.close(fig)
    with pytest.raises(ValueError, match="epsilon 1"):
        consensus_figures(pairs, summary, scope="cross_family", epsilon=1.0, estimator="permutation")

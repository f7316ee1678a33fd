"""The ``large_data`` rule: which large-data policies apply to a dataset, and the rows they use.

The policies themselves are the settings :class:`xaipipe.config.LargeDataSettings` (config section
``large_data``, :data:`xaipipe.config.large_data.LARGE_DATA_POLICIES`); each explain step applies
its own (``docs/performance.md``).
"""

from __future__ import annotations

from typing import Any

import pandas as pd

from ..config.large_data import LARGE_DATA_POLICIES, LargeDataSettings

__all__ = ["large_data_rows_table", "large_data_table"]


def large_data_table(settings: LargeDataSettings, dataset: str, n_rows: int) -> pd.DataFrame:
    """``explain/<dataset>/large_data.csv``: ``dataset`` then :func:`large_data_rows_table`, one row
    per policy.

    Parameters
    ----------
    settings : LargeDataSettings
    dataset : str
    n_rows : int
        The dataset's test rows (the policies are decided on them).
    """
    frame = pd.DataFrame(large_data_rows_table(settings, n_rows))
    frame.insert(0, "dataset", dataset)
    return frame


def large_data_rows_table(settings: LargeDataSettings, n_rows: int) -> list[dict[str, Any]]:
    """One row per policy for ``large_data.csv``: ``policy``, ``config_key``, ``min_rows``, ``cap``,
    ``n_rows`` (test rows), ``applied``, ``rows_used`` (``n_rows`` where not applied), ``work`` (what
    is subsampled) and ``error_reported`` (where the Monte-Carlo error appears)."""
    out = []
    for name, (key, what, error) in LARGE_DATA_POLICIES.items():
        used = settings.rows(name, n_rows)
        out.append(
            {
                "policy": name,
                "config_key": f"large_data.{key}",
                "min_rows": settings.min_rows,
                "cap": getattr(settings, key),
                "n_rows": int(n_rows),
                "applied": used is not None,
                "rows_used": int(n_rows) if used is None else used,
                "work": what,
                "error_reported": error if used is not None else "",
            }
        )
    return out

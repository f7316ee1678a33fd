"""The canonical CSV serialization of a dataset table and its SHA-256.

Shared by :mod:`xaipipe.data.sources` (tables read from a source) and
:mod:`xaipipe.data.simulated` (tables generated from a DGP), which cannot import
each other (the source readers dispatch to the simulator).
"""

from __future__ import annotations

import pandas as pd

from ..io import sha256_bytes

__all__ = ["canonical_sha256", "canonical_to_csv_bytes"]


def canonical_to_csv_bytes(frame: pd.DataFrame) -> bytes:
    """The canonical CSV serialization (exact float round trip, LF line ends)."""
    return frame.to_csv(index=False, float_format="%.17g", lineterminator="\n").encode("utf-8")


def canonical_sha256(frame: pd.DataFrame) -> str:
    """SHA-256 of :func:`canonical_to_csv_bytes`."""
    return sha256_bytes(canonical_to_csv_bytes(frame))

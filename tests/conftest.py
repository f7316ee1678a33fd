"""Shared fixtures: repository paths, the offline UCI mirror, canonical tables."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[1]
#: the six datasets of the theses (entries of config/datasets.yaml)
THESIS_DATASETS = ("airfoil", "concrete", "wine_quality", "abalone", "diabetes", "breast_cancer")


def mirror_path() -> Path:
    """The offline UCI mirror: $XAIPIPE_UCI_MIRROR or ../shared/data/uci beside the repo."""
    env = os.environ.get("XAIPIPE_UCI_MIRROR")
    return Path(env) if env else REPO.parent / "shared" / "data" / "uci"


@pytest.fixture(scope="session")
def repo() -> Path:
    return REPO


@pytest.fixture(scope="session")
def mirror() -> Path:
    path = mirror_path()
    if not (path / "MANIFEST.tsv").is_file():
        pytest.skip(f"UCI mirror not found at {path} (set XAIPIPE_UCI_MIRROR)")
    return path


@pytest.fixture(scope="session")
def registry():
    """The entries of config/datasets.yaml."""
    from xaipipe.data.registry import load_registry

    return load_registry(REPO / "config" / "datasets.yaml")


@pytest.fixture(scope="session")
def canonical(mirror, registry):
    """Canonical tables and sidecars of all six datasets, read from the mirror."""
    from xaipipe.data.sources import load_canonical

    return {d: load_canonical(registry[d], mirror=mirror) for d in THESIS_DATASETS}


@pytest.fixture(autouse=True)
def _tmp_for_atomic_writes(tmp_path, monkeypatch):
    """Keep atomic-write temporary files out of the repository."""
    monkeypatch.setenv("XAIPIPE_TMPDIR", str(tmp_path / ".atomic"))

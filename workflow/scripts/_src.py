"""Make the package in ``src/`` importable from the workflow scripts.

Snakemake puts this folder on ``sys.path`` for local scripts; importing this
module puts ``<repo>/src`` first, so the scripts run the package of this
checkout even when it is not pip-installed (conda envs, cluster nodes).
"""
import sys
from pathlib import Path

SRC = Path(__file__).resolve().parents[2] / "src"
if SRC.is_dir() and str(SRC) not in sys.path:
    sys.path.insert(0, str(SRC))

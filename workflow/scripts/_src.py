"""Make the package in ``src/`` of this checkout the one the workflow scripts import.

Snakemake puts this folder on ``sys.path`` for local scripts; importing this
module moves ``<repo>/src`` to the front of ``sys.path``, so the scripts run the
package of this checkout even when it is not pip-installed (conda envs, cluster
nodes) and even when another copy of ``xaipipe`` is installed (a ``pip install
.`` of an older commit, an editable install of another checkout).

It must *move* the folder, not only add it when missing: Snakemake's script
preamble appends the ``sys.path`` of the main process, where the Snakefile has
put ``<repo>/src``, behind the job's own site-packages, so the folder is already
on the path, but after any installed ``xaipipe``.
"""
import sys
from pathlib import Path

SRC = Path(__file__).resolve().parents[2] / "src"
if SRC.is_dir():
    sys.path[:] = [str(SRC)] + [p for p in sys.path if p != str(SRC)]

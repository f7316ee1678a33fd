"""The figure rules' modules load without scikit-learn, numba or shap (each figure job is a fresh process)."""

from __future__ import annotations

import subprocess
import sys

import pytest

FIGURE_MODULES = [
    "xaipipe.plots.shap",
    "xaipipe.plots.pdp",
    "xaipipe.plots.reliance",
    "xaipipe.plots.learner",
    "xaipipe.plots.rashomon",
    "xaipipe.plots.bootstrap",
    "xaipipe.plots.data",
    "xaipipe.plots.catalog",
    "xaipipe.report.thesis",
]


@pytest.mark.parametrize("module", FIGURE_MODULES)
def test_figure_module_does_not_import_the_analysis_stack(module):
    code = (
        f"import sys, {module}\n"
        "heavy = sorted(m for m in ('sklearn', 'numba', 'shap', 'xgboost') if m in sys.modules)\n"
        "print(','.join(heavy))\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "", f"{module} imports {out.stdout.strip()}"

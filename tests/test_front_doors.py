"""Each sub-package's front door (its __init__, xaipipe._lazy): at most 10 entry points, each
defined where the table says, loaded on first use only."""

from __future__ import annotations

import importlib
import subprocess
import sys

import pytest

PACKAGES = ["data", "models", "explain", "rashomon", "report", "studies"]


@pytest.mark.parametrize("package", PACKAGES)
def test_every_entry_point_is_the_object_of_its_module(package):
    pkg = importlib.import_module(f"xaipipe.{package}")
    assert 1 <= len(pkg.__all__) <= 10
    assert dir(pkg) == sorted(pkg.__all__)
    for name, module in pkg.ENTRY_POINTS.items():
        mod = importlib.import_module(f"xaipipe.{package}.{module}")
        assert getattr(pkg, name) is getattr(mod, name)
        assert name in getattr(mod, "__all__", [name]), f"{package}.{module} does not list {name} in __all__"
    with pytest.raises(AttributeError, match="no attribute 'not_an_entry'"):
        pkg.not_an_entry  # noqa: B018


def test_importing_the_data_package_imports_no_heavy_library():
    code = (
        "import sys, xaipipe.data, xaipipe.models, xaipipe.rashomon;"
        "print(sorted(m for m in ('shap', 'xgboost', 'statsmodels') if m in sys.modules))"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert out.strip() == "[]"

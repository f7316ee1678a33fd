"""The sub-packages' front doors (their ``__init__``, xaipipe._lazy): each entry point is defined where
the table says and loaded on first use only; the workflow's scripts import the package through the
doors only; each door's ``RULES`` is exactly what the rules' scripts import (the one rule -> entry
map, printed in docs/layout.md)."""

from __future__ import annotations

import ast
import importlib
import re
import subprocess
import sys

import pytest

from tests.conftest import REPO
from xaipipe._lazy import DOORS, rule_table

#: Package modules a script may import besides the doors: the writers and the script runner.
SHARED = ("xaipipe.io", "xaipipe.runner")


def rule_scripts() -> dict[str, str]:
    """Rule -> its script's stem, from workflow/rules/*.smk (``use rule A as B`` inherits A's)."""
    rules, uses = {}, []
    for smk in sorted((REPO / "workflow" / "rules").glob("*.smk")):
        text = smk.read_text(encoding="utf-8")
        for m in re.finditer(r"^rule (\w+):\n(.*?)(?=^(?:use )?rule |\Z)", text, flags=re.M | re.S):
            script = re.search(r'^    script:\s*\n\s*"\.\./scripts/(\w+)\.py"', m.group(2), flags=re.M)
            if script:
                rules[m.group(1)] = script.group(1)
        uses += re.findall(r"^use rule (\w+) as (\w+)", text, flags=re.M)
    for base, name in uses:
        if base in rules:
            rules[name] = rules[base]
    return rules


def script_imports(stem: str) -> list[tuple[str, str]]:
    """(module, name) of every import of the package in ``workflow/scripts/<stem>.py``; a bare
    ``import xaipipe...`` gives (module, "")."""
    tree = ast.parse((REPO / "workflow" / "scripts" / f"{stem}.py").read_text(encoding="utf-8"))
    out = []
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom) and (node.module or "").split(".")[0] == "xaipipe":
            out += [(node.module, alias.name) for alias in node.names]
        elif isinstance(node, ast.Import):
            out += [(alias.name, "") for alias in node.names if alias.name.split(".")[0] == "xaipipe"]
    return out


@pytest.mark.parametrize("package", DOORS)
def test_every_entry_point_is_the_object_of_its_module(package):
    pkg = importlib.import_module(f"xaipipe.{package}")
    assert dir(pkg) == sorted(pkg.__all__) and set(pkg.__all__) == set(pkg.ENTRY_POINTS)
    for name, module in pkg.ENTRY_POINTS.items():
        mod = importlib.import_module(f"xaipipe.{package}.{module}")
        assert getattr(pkg, name) is getattr(mod, name)
        assert name in getattr(mod, "__all__", [name]), f"{package}.{module} does not list {name} in __all__"
    with pytest.raises(AttributeError, match="no attribute 'not_an_entry'"):
        pkg.not_an_entry  # noqa: B018


def test_scripts_import_the_package_through_its_front_doors_only():
    """A rule's script imports ``from xaipipe.<door> import <entry point>``, ``xaipipe.io`` and
    ``xaipipe.runner``: nothing below a door, no name a door does not name."""
    doors = {f"xaipipe.{d}": importlib.import_module(f"xaipipe.{d}").ENTRY_POINTS for d in DOORS}
    bad = []
    for script in sorted((REPO / "workflow" / "scripts").glob("*.py")):
        for module, name in script_imports(script.stem):
            if module in SHARED:
                continue
            if module not in doors or name not in doors[module]:
                bad.append(f"{script.name}: from {module} import {name or '*'}")
    assert not bad, "imports past the front doors:\n" + "\n".join(bad)


def test_the_rules_map_is_what_the_scripts_import():
    """Each door's RULES holds exactly the rules whose scripts import from it, with exactly those
    names; every entry point is used by a rule or is a library entry named in the door's docstring."""
    scripts = rule_scripts()
    assert len(scripts) >= 60 and scripts["comparison_figures_regression"] == "comparison_figures"
    for door in DOORS:
        pkg = importlib.import_module(f"xaipipe.{door}")
        expected = {}
        for rule, stem in scripts.items():
            names = sorted(n for m, n in script_imports(stem) if m == f"xaipipe.{door}")
            if names:
                expected[rule] = names
        assert {rule: sorted(names) for rule, names in pkg.RULES.items()} == expected, door
        used = {name for names in pkg.RULES.values() for name in names}
        for name in set(pkg.ENTRY_POINTS) - used:
            assert f"``{name}``" in (pkg.__doc__ or ""), f"xaipipe.{door}.{name}: no rule uses it, no library entry"


def test_the_layout_doc_prints_the_map():
    """docs/layout.md's rule table is ``python -m xaipipe._lazy`` (the doors' RULES), not a copy."""
    assert rule_table() in (REPO / "docs" / "layout.md").read_text(encoding="utf-8")
    out = subprocess.run([sys.executable, "-m", "xaipipe._lazy"], capture_output=True, text=True, check=True).stdout
    assert out == rule_table() and "| `cv_shard` | `data.load_prepared`" in out


def test_importing_the_data_package_imports_no_heavy_library():
    code = (
        "import sys, xaipipe.data, xaipipe.models, xaipipe.rashomon, xaipipe.config, xaipipe.plots;"
        "print(sorted(m for m in ('shap', 'xgboost', 'statsmodels', 'matplotlib') if m in sys.modules))"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert out.strip() == "[]"

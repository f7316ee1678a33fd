"""The code a rule runs, as a content hash (xaipipe.report.code_version): which modules a script
reaches, and that the hash moves with the code of exactly those files -- not with their docstrings,
comments or formatting."""

from __future__ import annotations

from pathlib import Path

import pytest

import xaipipe
from xaipipe.report import code_version
from xaipipe.report.code_version import code_fingerprint, code_text, package_modules

REPO = Path(__file__).resolve().parents[2]


def _package(root: Path) -> Path:
    """pkg/__init__, pkg/sub/__init__, pkg/sub/a (imports .b at top, ..c inside a function),
    pkg/sub/b, pkg/c, pkg/unused."""
    files = {
        "pkg/__init__.py": "",
        "pkg/sub/__init__.py": "",
        "pkg/sub/a.py": "from . import b\n\ndef f():\n    from ..c import g\n    return g()\n",
        "pkg/sub/b.py": "X = 1\n",
        "pkg/c.py": "def g():\n    return 2\n",
        "pkg/unused.py": "Y = 3\n",
        "script.py": "from pkg.sub.a import f\nimport numpy\n",
    }
    for name, text in files.items():
        (root / name).parent.mkdir(parents=True, exist_ok=True)
        (root / name).write_text(text)
    return root / "pkg"


def test_the_closure_follows_relative_and_deferred_imports_and_parent_packages(tmp_path):
    pkg = _package(tmp_path)
    assert list(package_modules(tmp_path / "script.py", pkg)) == [
        "pkg",
        "pkg.c",
        "pkg.sub",
        "pkg.sub.a",
        "pkg.sub.b",
    ]


@pytest.mark.parametrize(
    "edited, changes",
    [
        ("pkg/sub/b.py", True),
        ("pkg/c.py", True),
        ("pkg/__init__.py", True),
        ("script.py", True),
        ("pkg/unused.py", False),
    ],
)
def test_the_hash_moves_with_the_code_of_the_files_reached_only(tmp_path, edited, changes):
    pkg = _package(tmp_path)
    before = code_fingerprint(tmp_path / "script.py", pkg)
    with open(tmp_path / edited, "a") as fh:
        fh.write("\n# a comment and a string that is no docstring\n\nEDITED = 'yes'\n")
    assert (code_fingerprint(tmp_path / "script.py", pkg) != before) is changes


C_BEFORE = '''\
def g():
    """Two."""
    return 2


class K:
    """A class."""

    def f(self):
        return [1, 2]
'''
#: the same code: a module docstring, other docstrings (other quotes too), comments, blank lines, line breaks
C_DOCS = """\
'''Module docstring.'''


# a comment
def g():
    'Two, the number (edited).'

    return (2)  # why


class K:
    '''Another text.'''

    def f(self):
        'A method docstring.'
        return [
            1,
            2,
        ]
"""


def test_documentation_comments_and_formatting_move_no_hash(tmp_path):
    """Docstrings (module, class, function, method), comments, blank lines, line breaks and quotes
    are no code: the hash stays; a changed constant, or a string that is not a docstring, is code."""
    pkg = _package(tmp_path)
    c = tmp_path / "pkg" / "c.py"
    c.write_text(C_BEFORE)
    before = code_fingerprint(tmp_path / "script.py", pkg)
    c.write_text(C_DOCS)
    assert code_fingerprint(tmp_path / "script.py", pkg) == before
    c.write_text(C_DOCS.replace("return (2)", "return 3"))
    assert code_fingerprint(tmp_path / "script.py", pkg) != before
    only_doc = tmp_path / "pkg" / "unused.py"
    only_doc.write_text('def h():\n    """Only a docstring."""\n')
    assert code_text(only_doc) == "def h():\n    pass"
    only_doc.write_text('def h():\n    "Only a docstring."\n    x = "not a docstring"\n')
    assert "not a docstring" in code_text(only_doc) and "Only" not in code_text(only_doc)


def test_the_hash_does_not_depend_on_where_the_code_lies(tmp_path):
    a, b = tmp_path / "a", tmp_path / "b"
    a.mkdir(), b.mkdir()
    assert code_fingerprint(a / "script.py", _package(a)) == code_fingerprint(b / "script.py", _package(b))


def test_missing_files_are_named(tmp_path):
    pkg = _package(tmp_path)
    with pytest.raises(FileNotFoundError, match="nope.py"):
        code_fingerprint(tmp_path / "nope.py", pkg)
    with pytest.raises(FileNotFoundError, match="not a package"):
        package_modules(tmp_path / "script.py", tmp_path)


def test_the_workflow_scripts_reach_what_they_run():
    pkg = Path(xaipipe.__file__).resolve().parent
    scripts = REPO / "workflow" / "scripts"
    cv = package_modules(scripts / "cv.py", pkg)
    assert "xaipipe.models.cv" in cv and not any(m.startswith("xaipipe.rashomon") for m in cv)
    assert "xaipipe.rashomon.sets" in package_modules(scripts / "rashomon.py", pkg)
    # every script of the workflow parses and reaches the package through its runner
    for script in scripts.glob("*.py"):
        assert "xaipipe.runner" in package_modules(script, pkg), script.name


def test_a_figure_script_reaches_its_plot_functions_through_the_catalog():
    """The figure scripts call their plot functions through xaipipe.plots.catalog ("module:function"),
    not an import statement: the workflow passes those modules (plot_modules), and the closure then
    holds them and what they import, and no other group's plot module."""
    from xaipipe.plots.catalog import plot_modules

    pkg = Path(xaipipe.__file__).resolve().parent
    scripts = REPO / "workflow" / "scripts"
    bare = package_modules(scripts / "rashomon_figures.py", pkg)
    assert "xaipipe.plots.catalog" in bare and "xaipipe.plots.rashomon" not in bare
    full = package_modules(scripts / "rashomon_figures.py", pkg, plot_modules("rashomon_figures"))
    assert {"xaipipe.plots.rashomon", "xaipipe.rashomon.sets"} <= set(full)
    assert "xaipipe.plots.shap" not in full
    assert code_fingerprint(scripts / "rashomon_figures.py", pkg) != code_fingerprint(
        scripts / "rashomon_figures.py", pkg, plot_modules("rashomon_figures")
    )
    # a rule that draws no catalog figure: no extra module, the same hash as before the catalog
    assert plot_modules("cv") == ()
    assert code_fingerprint(scripts / "cv.py", pkg, plot_modules("cv")) == code_fingerprint(scripts / "cv.py", pkg)


def test_a_front_door_import_reaches_the_entry_points_module_only(tmp_path):
    """``from xaipipe.rashomon import mcr_study`` (a lazy front door, xaipipe._lazy) reaches the
    module that defines ``mcr_study`` and what it imports, not every module of the package."""
    pkg = Path(xaipipe.__file__).resolve().parent
    (tmp_path / "door.py").write_text("from xaipipe.rashomon import mcr_study\n")
    (tmp_path / "deep.py").write_text("from xaipipe.rashomon.study import mcr_study\n")
    door = package_modules(tmp_path / "door.py", pkg)
    assert "xaipipe.rashomon.study" in door and "xaipipe.rashomon.bootstrap" not in door
    assert set(door) == set(package_modules(tmp_path / "deep.py", pkg))
    (tmp_path / "cv_door.py").write_text(
        "from xaipipe.models import cv_tables\nfrom xaipipe.data import load_prepared\n"
    )
    cv = package_modules(tmp_path / "cv_door.py", pkg)
    assert "xaipipe.models.cv" in cv and not any(m.startswith("xaipipe.rashomon") for m in cv)


def _door(root: Path, entries: str, rules: str) -> Path:
    """pkg/ with a lazy door (its ENTRY_POINTS and RULES literals), two entry modules, a script."""
    files = {
        "pkg/__init__.py": "",
        "pkg/door/__init__.py": (
            "from .._lazy import attach\n"
            f"ENTRY_POINTS = {entries}\n"
            f"RULES = {rules}\n"
            "__getattr__, __dir__, __all__ = attach(__name__, ENTRY_POINTS)\n"
        ),
        "pkg/_lazy.py": "def attach(name, table):\n    return None, None, list(table)\n",
        "pkg/door/a.py": "def f():\n    return 1\n",
        "pkg/door/b.py": "def g():\n    return 2\n",
        "pkg/door/c.py": "def f():\n    return 3\n",
        "script.py": "from pkg.door import f\n",
    }
    for name, text in files.items():
        (root / name).parent.mkdir(parents=True, exist_ok=True)
        (root / name).write_text(text)
    return root / "pkg"


def test_a_door_s_new_rule_or_entry_point_moves_no_hash_a_re_pointed_one_does(tmp_path):
    """A door's RULES and ENTRY_POINTS literals are left out of its code text (code_version.DOOR_TABLES):
    a new rule or entry point (a new step's settings class in xaipipe.config) reruns no finished job
    of the other entries, while re-pointing the script's entry point to another module changes the
    modules it reaches, and so its hash."""
    pkg = _door(tmp_path, "{'f': 'a'}", "{'r': ('f',)}")
    before = code_fingerprint(tmp_path / "script.py", pkg)
    _door(tmp_path, "{'f': 'a', 'g': 'b'}", "{'r': ('f',), 's': ('g',)}")
    assert code_fingerprint(tmp_path / "script.py", pkg) == before
    _door(tmp_path, "{'f': 'c', 'g': 'b'}", "{'r': ('f',), 's': ('g',)}")
    code_version._imports.cache_clear()  # the closure is cached per file for one workflow parse
    code_version._entry_points.cache_clear()
    moved = package_modules(tmp_path / "script.py", pkg)
    assert "pkg.door.c" in moved and "pkg.door.a" not in moved
    assert code_fingerprint(tmp_path / "script.py", pkg) != before
    repointed = code_fingerprint(tmp_path / "script.py", pkg)
    door = tmp_path / "pkg/door/__init__.py"
    door.write_text(door.read_text() + "EXTRA = 1\n")  # any other statement of the door still counts
    assert code_fingerprint(tmp_path / "script.py", pkg) != repointed

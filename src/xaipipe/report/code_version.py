"""Which package code a rule runs, as a content hash: results follow the code.

Snakemake reruns a job when its inputs, parameters or software environment change,
and its ``code`` trigger compares the *modification times* of a rule's script (a
fresh clone would rerun every script rule) and ignores the package the script
imports. A result therefore goes stale when a function of :mod:`xaipipe` changes
and nobody remembers ``--forcerun``.

:func:`code_fingerprint` closes that gap by content: it follows the script's
imports of the package, transitively (every ``import`` statement of every module
reached, deferred imports inside functions and ``if TYPE_CHECKING:`` ones included, and
the ``__init__`` of each package on the way, which Python runs on import), and hashes
the *code* of the script and of every module reached: each file's syntax tree
without its docstrings (:func:`code_text`), so an edit of documentation, comments or
formatting reruns nothing, and any edit of what runs reruns the jobs that reach it.
The workflow passes the hash to every script rule as the parameter ``code``
(``workflow/rules/code.smk``), so Snakemake's ``params`` trigger reruns a job when
the code it runs changes, and its dependents follow through the ``mtime`` trigger; a
clone of the same commit has the same hashes and reruns nothing. The granularity is
the module: editing one function of ``rashomon/sets.py`` reruns the jobs whose
scripts reach that module, and no job that does not reach it (``cv`` does not).

The code text is :func:`ast.unparse` of the tree, which depends on the Python version
only where the language's syntax tree does (a new minor version may print some
constructs differently): a study moved to another Python minor version may rerun once.

A sub-package's front door (its ``__init__``, :mod:`xaipipe._lazy`) imports nothing: it names
its entry points in a literal ``ENTRY_POINTS`` table, which is read here, so
``from xaipipe.rashomon import mcr_study`` reaches ``xaipipe.rashomon.study`` (and what that
imports), not every module of the package.

What it does not see: third-party libraries (their versions are in
``manifest.json``; ``software-env`` covers conda environments), data files the
code reads outside its inputs, and code reached without an import statement
(``importlib.import_module`` with a computed name, e.g. a family's estimator
class ``"module:Class"``, which names third-party classes). Package modules a
script reaches that way are passed as ``modules`` (the figure rules: the modules of
their plot functions, :func:`xaipipe.plots.catalog.plot_modules`).
"""

from __future__ import annotations

import ast
import hashlib
from collections.abc import Sequence
from functools import lru_cache
from pathlib import Path

__all__ = ["code_fingerprint", "code_text", "package_modules"]


def _module_file(package_dir: Path, module: str) -> Path | None:
    """File of ``module`` (dotted, starting with the package's name) inside ``package_dir``."""
    parts = module.split(".")[1:]
    base = package_dir.joinpath(*parts)
    if (base / "__init__.py").is_file():
        return base / "__init__.py"
    if base.with_suffix(".py").is_file():
        return base.with_suffix(".py")
    return None


def _with_parents(module: str) -> list[str]:
    parts = module.split(".")
    return [".".join(parts[: i + 1]) for i in range(len(parts))]


@lru_cache(maxsize=4096)
def _imports(path: Path, module: str, package: str, package_dir: Path) -> tuple[str, ...]:
    """Modules of ``package`` that the file ``path`` (module ``module``) imports."""
    tree = ast.parse(path.read_bytes(), filename=str(path))
    is_package = path.name == "__init__.py"
    found: list[str] = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            found += [a.name for a in node.names if a.name == package or a.name.startswith(package + ".")]
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                anchor = module.split(".") if is_package else module.split(".")[:-1]
                anchor = anchor[: len(anchor) - (node.level - 1)]
                base = ".".join(anchor + ([node.module] if node.module else []))
            else:
                base = node.module or ""
            if base != package and not base.startswith(package + "."):
                continue
            found.append(base)
            lazy = _entry_points(_module_file(package_dir, base))
            for alias in node.names:  # `from pkg.sub import module`
                if _module_file(package_dir, f"{base}.{alias.name}") is not None:
                    found.append(f"{base}.{alias.name}")
                elif alias.name in lazy:  # `from pkg.sub import entry_point` of a front door
                    found.append(f"{base}.{lazy[alias.name]}")
    return tuple(found)


@lru_cache(maxsize=256)
def _entry_points(init: Path | None) -> dict[str, str]:
    """The literal ``ENTRY_POINTS`` table of a package's ``__init__`` (:mod:`xaipipe._lazy`): entry
    point -> submodule; empty for a module or a package without one."""
    if init is None or init.name != "__init__.py":
        return {}
    for node in ast.parse(init.read_bytes(), filename=str(init)).body:
        target = node.targets[0] if isinstance(node, ast.Assign) and len(node.targets) == 1 else None
        if isinstance(node, ast.AnnAssign):
            target = node.target
        if isinstance(target, ast.Name) and target.id == "ENTRY_POINTS" and node.value is not None:
            return dict(ast.literal_eval(node.value))
    return {}


def package_modules(script: str | Path, package_dir: str | Path, modules: Sequence[str] = ()) -> dict[str, Path]:
    """Modules of a package that a script reaches through import statements, transitively.

    Parameters
    ----------
    script : path
        A Python file outside (or inside) the package, e.g. a rule's script.
    package_dir : path
        The package's folder (``Path(xaipipe.__file__).parent``); its name is the
        package's import name.
    modules : sequence of str, optional
        Dotted names of package modules the script reaches without an import
        statement (``importlib``): followed as if the script imported them.

    Returns
    -------
    dict
        Dotted module name -> source file, sorted by name; each imported module
        brings the ``__init__`` of every package above it.

    Raises
    ------
    FileNotFoundError
        If ``script`` or ``package_dir`` does not exist.
    SyntaxError
        If a file reached cannot be parsed.
    """
    script, package_dir = Path(script), Path(package_dir)
    if not script.is_file():
        raise FileNotFoundError(f"script {script} not found")
    if not (package_dir / "__init__.py").is_file():
        raise FileNotFoundError(f"{package_dir} is not a package folder (no __init__.py)")
    package = package_dir.name
    seen: dict[str, Path] = {}
    todo = [*_imports(script.resolve(), "__main__", package, package_dir.resolve()), *modules]
    while todo:
        for name in _with_parents(todo.pop()):
            if name in seen:
                continue
            path = _module_file(package_dir, name)
            if path is None:  # a name imported from a module, not a module
                continue
            seen[name] = path
            todo += _imports(path.resolve(), name, package, package_dir.resolve())
    return dict(sorted(seen.items()))


def _without_docstrings(tree: ast.AST) -> ast.AST:
    """``tree`` with the docstring of the module and of every class and function removed (a body's
    first statement when it is a string constant; an emptied body gets ``pass``)."""
    for node in ast.walk(tree):
        if isinstance(node, ast.Module | ast.ClassDef | ast.FunctionDef | ast.AsyncFunctionDef):
            body = node.body
            if body and isinstance(body[0], ast.Expr) and isinstance(body[0].value, ast.Constant):
                if isinstance(body[0].value.value, str):
                    node.body = body[1:] or [ast.Pass()]
    return tree


#: The literal tables of a front door (:mod:`xaipipe._lazy`), left out of its code text: ``RULES`` is a
#: declared map that nothing runs, and ``ENTRY_POINTS`` is followed by :func:`package_modules` (an
#: entry point re-pointed to another module changes the modules a script reaches, so its hash).
DOOR_TABLES = ("ENTRY_POINTS", "RULES")


def _without_door_tables(tree: ast.Module) -> ast.Module:
    """``tree`` without its top-level ``ENTRY_POINTS = {...}`` and ``RULES = {...}`` assignments: a
    new rule or entry point of a door reruns none of the jobs that reach the door for other entries."""

    def table(node) -> bool:
        targets = node.targets if isinstance(node, ast.Assign) else [getattr(node, "target", None)]
        return any(isinstance(t, ast.Name) and t.id in DOOR_TABLES for t in targets)

    tree.body = [node for node in tree.body if not (isinstance(node, ast.Assign | ast.AnnAssign) and table(node))]
    return tree


@lru_cache(maxsize=4096)
def _code_text(path: Path, stamp: tuple[int, int]) -> str:
    tree = _without_docstrings(ast.parse(path.read_bytes(), filename=str(path)))
    if path.name == "__init__.py":
        tree = _without_door_tables(tree)
    return ast.unparse(tree)


def code_text(path: str | Path) -> str:
    """The code of a Python file: :func:`ast.unparse` of its syntax tree without docstrings (module,
    class and function), so that comments, formatting, quotes and docstrings do not count and every
    change of what runs does; a package ``__init__`` also without its door tables
    (:data:`DOOR_TABLES`: a door's entry points count through the modules they reach).

    Raises
    ------
    SyntaxError
        If the file cannot be parsed.
    """
    path = Path(path).resolve()
    stat = path.stat()
    return _code_text(path, (stat.st_mtime_ns, stat.st_size))


def code_fingerprint(script: str | Path, package_dir: str | Path, modules: Sequence[str] = ()) -> str:
    """SHA-256 of the code of a script and of every package module it reaches
    (:func:`package_modules`; ``modules``: those it reaches through ``importlib``).

    The hash covers the code of each file (:func:`code_text`: the syntax tree without docstrings,
    comments and formatting) and its path relative to the package, in sorted order, so it changes
    when the code of any of those files changes or a file is added to or leaves the import closure,
    not when only their documentation does, and is the same in any clone of the same code.

    Returns
    -------
    str
        64 hexadecimal digits.
    """
    digest = hashlib.sha256()
    digest.update(b"script\0" + code_text(script).encode() + b"\0")
    root = Path(package_dir)
    for name, path in package_modules(script, root, modules).items():
        digest.update(name.encode() + b"\0" + code_text(path).encode() + b"\0")
    return digest.hexdigest()

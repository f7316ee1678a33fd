"""The package has no import cycle, the settings are a leaf, and no module edits sys.path.

The import graph is built from the source (``ast``): an edge ``a -> b`` for every
``import`` / ``from ... import`` of a ``xaipipe`` module in ``a``, at module level, inside
functions (a deferred import is still a dependency) and inside ``if TYPE_CHECKING:`` (never
executed, but the per-rule code hash, :mod:`xaipipe.report.code_version`, follows it like any
other: a cycle hidden there still makes a rule's results follow code it does not run). A cycle
anywhere in ``src/`` fails the test with the cycle printed.
"""

from __future__ import annotations

import ast
from pathlib import Path

from tests.conftest import REPO

SRC = REPO / "src"


def _module_name(path: Path) -> str:
    rel = path.relative_to(SRC).with_suffix("")
    parts = list(rel.parts)
    if parts[-1] == "__init__":
        parts = parts[:-1]
    return ".".join(parts)


def _resolve(module: str, is_package: bool, level: int, target: str | None) -> str:
    if level == 0:
        return target or ""
    base = module.split(".") if is_package else module.split(".")[:-1]
    base = base[: len(base) - (level - 1)]
    return ".".join(base + ([target] if target else []))


def import_graph() -> dict[str, set[str]]:
    modules = {_module_name(p): p for p in SRC.rglob("*.py")}
    graph: dict[str, set[str]] = {m: set() for m in modules}
    for mod, path in modules.items():
        tree = ast.parse(path.read_text(encoding="utf-8"))
        is_package = path.name == "__init__.py"
        for node in ast.walk(tree):
            targets = []
            if isinstance(node, ast.Import):
                targets = [a.name for a in node.names]
            elif isinstance(node, ast.ImportFrom):
                base = _resolve(mod, is_package, node.level, node.module)
                targets = [base] + [f"{base}.{a.name}" for a in node.names]
            for t in targets:
                # the deepest module of the package that the name refers to
                while t and t not in modules:
                    t = t.rpartition(".")[0]
                if t and t != mod and t.startswith("xaipipe"):
                    graph[mod].add(t)
    return graph


def _parents(module: str) -> set[str]:
    parts = module.split(".")
    return {".".join(parts[:i]) for i in range(1, len(parts))}


def test_no_import_cycle_in_src():
    graph = import_graph()
    # importing a submodule runs its parent packages first: a package's __init__ that imports one
    # of its own submodules is not a cycle, so edges to one's own parents are dropped
    graph = {m: {t for t in ts if t not in _parents(m)} for m, ts in graph.items()}
    state: dict[str, int] = {}
    stack: list[str] = []

    def visit(m):
        state[m] = 1
        stack.append(m)
        for t in sorted(graph[m]):
            if state.get(t) == 1:
                cycle = stack[stack.index(t) :] + [t]
                raise AssertionError("import cycle: " + " -> ".join(cycle))
            if t not in state:
                visit(t)
        stack.pop()
        state[m] = 2

    for m in sorted(graph):
        if m not in state:
            visit(m)


def test_graph_sees_deferred_imports():
    graph = import_graph()
    # xaipipe.explain.reliance._model_reliance imports member_predictor inside the function
    assert "xaipipe.models.prefix" in graph["xaipipe.explain.reliance._model_reliance"]


def test_graph_counts_type_checking_imports():
    graph = import_graph()
    # sources imports DatasetEntry from registry for annotations only: an edge all the same
    assert "xaipipe.data.registry" in graph["xaipipe.data.sources"]
    assert "xaipipe.data.parsers" in graph["xaipipe.data.registry"]


#: What the settings (xaipipe.config) may import: themselves, the registries and the checks.
CONFIG_MAY_IMPORT = (
    "xaipipe.config",
    "xaipipe._lazy",
    "xaipipe.models.families",
    "xaipipe.losses",
    "xaipipe.validation",
)


def test_the_settings_are_a_leaf():
    """xaipipe.config imports nothing but itself, the families registry, the losses and the checks
    (and those import nothing of the package but what they import here): a rule's code hash that
    reaches a settings class reaches no step."""
    graph = import_graph()
    closure, todo = set(), [m for m in graph if m.startswith("xaipipe.config")]
    while todo:
        m = todo.pop()
        if m not in closure:
            closure.add(m)
            todo += [t for t in graph[m] if t not in _parents(m)]
    allowed = {m for m in closure if m.startswith(CONFIG_MAY_IMPORT)} | {"xaipipe", "xaipipe.models"}
    assert closure <= allowed, sorted(closure - allowed)


def _package_imports(deferred: bool) -> int:
    """Import statements of package modules in src/: inside functions (``deferred``) or in an
    ``if TYPE_CHECKING:`` block."""
    count = 0
    for path in SRC.rglob("*.py"):
        tree = ast.parse(path.read_text(encoding="utf-8"))
        blocks = [n for n in ast.walk(tree) if isinstance(n, ast.FunctionDef | ast.AsyncFunctionDef)]
        if not deferred:
            blocks = [n for n in ast.walk(tree) if isinstance(n, ast.If) and "TYPE_CHECKING" in ast.unparse(n.test)]
        for node in {id(n): n for b in blocks for n in ast.walk(b)}.values():
            if isinstance(node, ast.ImportFrom) and (node.level or (node.module or "").startswith("xaipipe")):
                count += 1
            elif isinstance(node, ast.Import) and any(a.name.startswith("xaipipe") for a in node.names):
                count += 1
    return count


def test_deferred_and_type_checking_imports_do_not_grow():
    """A ratchet (issue 42): 204 function-local and 14 TYPE_CHECKING imports of package modules at
    6567bf0, 183 and 1 after the settings became a leaf, 182 after the merge of main's issues 43-45
    (their new modules import the package at module level); lower the bounds as they go."""
    assert _package_imports(deferred=True) <= 182
    assert _package_imports(deferred=False) <= 1


def test_no_sys_path_edits():
    offenders = []
    for root in ("src", "workflow", "benchmarks"):
        for path in (REPO / root).rglob("*"):
            if path.suffix in (".py", ".smk") or path.name == "Snakefile":
                text = path.read_text(encoding="utf-8")
                if "sys.path.insert" in text or "sys.path.append" in text or "sys.path[:]" in text:
                    offenders.append(str(path.relative_to(REPO)))
    assert not offenders, f"sys.path edited in {offenders}"


def test_long_modules_say_why_in_their_docstring():
    """Issue 22: no module over ~800 lines without a reason given in its docstring."""
    import ast

    unexplained = []
    for path in sorted((REPO / "src").rglob("*.py")):
        text = path.read_text(encoding="utf-8")
        if text.count("\n") > 800:
            doc = ast.get_docstring(ast.parse(text)) or ""
            if "Why one module of this size" not in doc:
                unexplained.append(f"{path.relative_to(REPO)} ({text.count(chr(10))} lines)")
    assert not unexplained, f"modules over 800 lines without 'Why one module of this size': {unexplained}"

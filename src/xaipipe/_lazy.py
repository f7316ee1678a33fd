"""Front doors of the sub-packages: entry points named in the package, imported on first use.

Each sub-package's ``__init__`` declares ``ENTRY_POINTS`` (a literal ``dict``: entry-point name ->
the submodule, relative to the package, that defines it) and calls :func:`attach`, which returns
the module-level ``__getattr__`` and ``__dir__`` of PEP 562 and the ``__all__`` list. Nothing is
imported until a name is used, so ``import xaipipe.data`` imports neither shap, xgboost nor
statsmodels, and the ``__init__`` holds no import statement of its submodules:
:func:`xaipipe.report.code_version.package_modules` (the per-rule code hash) reads the literal
``ENTRY_POINTS`` instead and follows ``from xaipipe.rashomon import mcr_study`` to
``xaipipe.rashomon.study`` alone, so a rule's hash does not cover the whole package.

The workflow's scripts import the package through these doors only (and :mod:`xaipipe.io`,
:mod:`xaipipe.runner`; ``tests/test_front_doors.py``). Each door's ``RULES`` (a literal ``dict``:
rule -> the entry points its script imports from the door) is its part of the one rule -> entry
map, checked against ``workflow/`` by the same test; :func:`rule_table` joins the doors' parts
(``python -m xaipipe._lazy`` prints it: the table of ``docs/layout.md``).
"""

from __future__ import annotations

import argparse
import importlib
from collections.abc import Callable, Mapping, Sequence

from .config_files import refuse_config_option

__all__ = ["DOORS", "attach", "rule_table"]

#: The sub-packages with a front door.
DOORS = ("data", "models", "explain", "rashomon", "studies", "plots", "report", "config")


def attach(package: str, entry_points: Mapping[str, str]) -> tuple[Callable, Callable, list[str]]:
    """``(__getattr__, __dir__, __all__)`` of a package whose entry points load lazily (PEP 562).

    Parameters
    ----------
    package : str
        The package's ``__name__``.
    entry_points : mapping str -> str
        Entry-point name -> submodule (relative to ``package``) that defines it.

    Returns
    -------
    (__getattr__, __dir__, __all__)
        ``__getattr__(name)`` imports the submodule of ``name`` and returns the attribute; it
        raises :class:`AttributeError` for any other name.
    """
    table = dict(entry_points)

    def __getattr__(name: str):
        try:
            module = table[name]
        except KeyError:
            raise AttributeError(f"module {package!r} has no attribute {name!r}") from None
        return getattr(importlib.import_module(f"{package}.{module}"), name)

    def __dir__() -> list[str]:
        return sorted(table)

    return __getattr__, __dir__, list(table)


def rule_table(doors: tuple[str, ...] = DOORS) -> str:
    """The rule -> entry map of every door as a Markdown table: one row per rule, its entry points as
    ``door.name`` in the order of ``doors`` (the ``RULES`` of ``xaipipe.<door>``)."""
    rows: dict[str, list[str]] = {}
    for door in doors:
        for rule, names in importlib.import_module(f"xaipipe.{door}").RULES.items():
            rows.setdefault(rule, []).extend(f"`{door}.{name}`" for name in names)
    lines = ["| rule | entry points (`xaipipe.<door>.<name>`) |", "|---|---|"]
    lines += [f"| `{rule}` | {', '.join(entries)} |" for rule, entries in sorted(rows.items())]
    return "\n".join(lines) + "\n"


def main(argv: Sequence[str] | None = None) -> int:
    """``python -m xaipipe._lazy``: print the table of docs/layout.md."""
    parser = argparse.ArgumentParser(
        prog="python -m xaipipe._lazy",
        description="Print the table of the front doors' rule entries (docs/layout.md).",
        allow_abbrev=False,
    )
    refuse_config_option(parser, "the table is the package's, whatever the config")
    parser.parse_args(argv)
    print(rule_table(), end="")
    return 0


if __name__ == "__main__":  # python -m xaipipe._lazy: the table of docs/layout.md
    raise SystemExit(main())

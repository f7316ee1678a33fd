"""Report: tables of the theses, test metrics, provenance, version diffs, CPU profiles, code hashes.

A front door (:mod:`xaipipe._lazy`): ``from xaipipe.report import <entry point>``; :data:`RULES` is
its part of the rule -> entry map.
``code_fingerprint`` is every rule's ``code`` param (``workflow/rules/code.smk``).
``python -m xaipipe.report.diff`` compares two result folders from the command line.
"""

from .._lazy import attach

#: Entry point -> the submodule that defines it (imported on first use, PEP 562).
ENTRY_POINTS = {
    "test_metric_tables": "tables",
    "test_metrics_table": "tables",
    "thesis_comparison": "tables",
    "render_table": "thesis",
    "render_figure": "thesis",
    "build_manifest": "provenance",
    "profile_tables": "profiling",
    "diff_versions": "diff",
    "code_fingerprint": "code_version",
    "explorer_page": "explorer",
    "RUN_RECORD_ENV": "provenance",
    "invocation_info": "provenance",
}

#: The rule -> entry map: each rule whose script imports from this door, with the entry points it
#: imports (tests/test_front_doors.py checks it against workflow/; docs/layout.md prints it).
RULES = {
    "dataset_test_metrics": ("test_metrics_table",),
    "diff_versions": ("diff_versions",),
    "explorer": ("explorer_page",),
    "manifest": (
        "RUN_RECORD_ENV",
        "build_manifest",
        "invocation_info",
    ),
    "profile": ("profile_tables",),
    "test_metrics": ("test_metric_tables",),
    "thesis_comparison": ("thesis_comparison",),
    "thesis_figure": ("render_figure",),
    "thesis_table": ("render_table",),
}

__getattr__, __dir__, __all__ = attach(__name__, ENTRY_POINTS)

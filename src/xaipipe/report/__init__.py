"""Report: tables of the theses, test metrics, provenance, version diffs, CPU profiles, code hashes.

Entry points (``from xaipipe.report import ...``, imported on first use):

===========================  ============================  ========================================
entry point                  rule                          what
===========================  ============================  ========================================
``test_metric_tables``       ``test_metrics``              test metrics of all datasets
``test_metrics_table``       ``dataset_test_metrics``      test metrics of one dataset
``thesis_comparison``        ``thesis_comparison``         the theses' numbers beside ours
``render_table``             ``thesis_table``              a thesis table (LaTeX)
``render_figure``            ``thesis_figure``             a thesis figure
``build_manifest``           ``manifest``                  the provenance manifest
``profile_tables``           ``profile_table``             CPU profile tables
``diff_versions``            ``diff_versions``             two result versions compared
``code_fingerprint``         (every rule's ``code``)       hash of the package code a rule runs
===========================  ============================  ========================================

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
}

__getattr__, __dir__, __all__ = attach(__name__, ENTRY_POINTS)

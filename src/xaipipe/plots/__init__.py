"""Figures: every plotting function of the pipeline, drawn from stored results.

The figure rules draw through the figure catalog (:mod:`xaipipe.plots.catalog`: every figure kind
declared once, ``docs/layout.md`` "How to add a figure"): its :func:`~xaipipe.plots.catalog.draw_figures`
and :func:`~xaipipe.plots.catalog.save_figures` are this front door's entry points, with the style
(:func:`~xaipipe.plots.style.figure_style`, :func:`~xaipipe.plots.style.save_figure`) and the
figures of the two rules that draw beside their tables (``lime``, ``shap_force_html``). The plot
functions themselves are reached through the catalog (``"module:function"``), and the per-rule
code hash adds their modules (:func:`xaipipe.plots.catalog.plot_modules`).
"""

from .._lazy import attach

#: Entry point -> the submodule that defines it (imported on first use, PEP 562).
ENTRY_POINTS = {
    "draw_figures": "catalog",
    "save_figures": "catalog",
    "figure_style": "style",
    "save_figure": "style",
    "plot_lime_vs_shap": "lime",
    "force_rows": "shap_force",
    "save_force_html": "shap_force",
    "with_unit": "units",
}

#: The rule -> entry map: each rule whose script imports from this door, with the entry points it
#: imports (tests/test_front_doors.py checks it against workflow/; docs/layout.md prints it).
RULES = {
    "abalone_study_figures": (
        "draw_figures",
        "figure_style",
        "save_figures",
    ),
    "comparison_figures_classification": (
        "draw_figures",
        "figure_style",
        "save_figures",
    ),
    "comparison_figures_regression": (
        "draw_figures",
        "figure_style",
        "save_figures",
    ),
    "consensus_figures": (
        "draw_figures",
        "figure_style",
        "save_figures",
    ),
    "correlation_figure": (
        "draw_figures",
        "figure_style",
        "save_figures",
    ),
    "coverage_figure": (
        "draw_figures",
        "figure_style",
        "save_figures",
    ),
    "dependence_figures": (
        "draw_figures",
        "figure_style",
        "save_figures",
    ),
    "learner_figures": (
        "draw_figures",
        "figure_style",
        "save_figures",
    ),
    "lime": (
        "figure_style",
        "force_rows",
        "plot_lime_vs_shap",
        "save_figure",
    ),
    "multiplicity_figures": (
        "draw_figures",
        "figure_style",
        "save_figures",
    ),
    "regional_figures": (
        "draw_figures",
        "figure_style",
        "save_figures",
    ),
    "ebm_figures": (
        "draw_figures",
        "figure_style",
        "save_figures",
    ),
    "treefarms_figures": (
        "draw_figures",
        "figure_style",
        "save_figures",
    ),
    "prediction_interval_figures": (
        "draw_figures",
        "figure_style",
        "save_figures",
    ),
    "pd_figures": (
        "draw_figures",
        "figure_style",
        "save_figures",
    ),
    "rashomon_figures": (
        "draw_figures",
        "figure_style",
        "save_figures",
    ),
    "reliance_figures": (
        "draw_figures",
        "figure_style",
        "save_figures",
    ),
    "rid_figures": (
        "draw_figures",
        "figure_style",
        "save_figures",
    ),
    "sage_figures": (
        "draw_figures",
        "figure_style",
        "save_figures",
    ),
    "seed003": (
        "figure_style",
        "save_figure",
    ),
    "shap_figures": (
        "draw_figures",
        "figure_style",
        "save_figures",
    ),
    "shap_force_html": ("save_force_html",),
    "shap_interaction_summary": (
        "draw_figures",
        "figure_style",
        "save_figures",
        "with_unit",
    ),
    "twins_figure": (
        "draw_figures",
        "figure_style",
        "save_figures",
    ),
    "thesis_figure": (
        "figure_style",
        "save_figure",
    ),
}

__getattr__, __dir__, __all__ = attach(__name__, ENTRY_POINTS)

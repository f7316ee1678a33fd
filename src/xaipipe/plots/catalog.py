"""Every figure of the pipeline, declared once: the figure catalog (like the path catalog :mod:`xaipipe.paths`).

A figure *kind* (the file stem, e.g. ``shap_bar``) belongs to one *group*: the rule that
draws it (``shap_figures``) and the inputs that rule loads. Its :class:`Figure` entry names
the plot function that draws it, its report caption, category / subcategory and label, whether
the default target asks for it and for which tasks it is drawn. From this catalog come

* the rules' figure outputs (``output: **figure_outputs("pd_figures")`` in
  ``workflow/rules/*.smk``: the PDF and the ``report()``-wrapped PNG of every kind),
* the default target's figures (``figure_targets()`` in ``workflow/rules/targets.smk``),
* each figure script's kind -> function mapping (:func:`draw_figures` and
  :func:`save_figures`),
* the kind lists other code reads (``RASHOMON_FIGURES``, ``COMPARISON_FIGURES``).

A plot function is a ``"module:function"`` string (imported when drawn). It is called with
the group's loaded inputs (:data:`GROUPS` lists their names) as keyword arguments, only those
that its signature names, and returns a matplotlib Figure, or a dict key -> Figure when it
draws several kinds of the group at once (each such kind's entry gives its ``key``). A new
per-model figure is one :class:`Figure` entry in :data:`FIGURES` plus one plot function
(docs/layout.md, "How to add a figure").
"""

from __future__ import annotations

import importlib
import inspect
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from matplotlib.figure import Figure

__all__ = [
    "CONDITIONS",
    "FIGURES",
    "GROUPS",
    "TASKS",
    "Figure",
    "FigureGroup",
    "draw_figures",
    "figures_of",
    "kinds",
    "output_names",
    "plot_function",
    "plot_modules",
    "save_figures",
]

TASKS = ("classification", "regression")

#: Conditions a figure's ``default`` may name besides True / False: the default target then
#: asks for the figure only where the condition holds (implemented in workflow/rules/figures.smk).
CONDITIONS = {
    "learner": "the model's family is in explain.learner.families",
    "shap_interactions": "the model's SHAP job computes interaction values (explain.shap.interactions, XGBoost)",
    "bootstrap": "rashomon.bootstrap is enabled and bootstraps a family run on the dataset",
    "study": "the Table 4.1 study runs (rashomon.abalone_study enabled, its dataset run)",
    "sage": "the model's family is in explain.sage.families (null: every family)",
    "prediction_intervals": "a regression dataset, rashomon.prediction_intervals enabled",
    "regional": "the model's family is in explain.regional.families",
    "treefarms": "a binary classification dataset, rashomon.treefarms enabled",
    "terms": "the model's family explains itself by additive terms (Family.terms: EBM)",
}


@dataclass(frozen=True)
class FigureGroup:
    """The rule(s) drawing a set of figure kinds and what they share.

    Attributes
    ----------
    name : str
        The rule that draws the group (with ``per_task``: rules ``<name>_<task>``).
    path : str
        Path key of :data:`xaipipe.paths.PATHS` (``model_figure``, ``rashomon_figure``, ...).
    category, subcategory : str or None
        Report category / default subcategory (wildcards such as ``{dataset}`` allowed).
    inputs : tuple of str
        Names of the loaded inputs the group's script passes to the plot functions.
    wildcards : dict
        Wildcards of ``path`` the group fixes (the Table 4.1 study: ``dataset="abalone_study"``).
    kinds_from : str, optional
        Another group whose kinds this group draws too (its own path, caption and category).
    caption : str, optional
        Caption file (under ``workflow/report/``) replacing the kinds' own.
    default : bool or str
        Condition of the whole group in the default target (a key of :data:`CONDITIONS`);
        each kind's ``default`` applies as well.
    per_task : bool
        One rule per task (``<name>_classification``, ``<name>_regression``), each drawing the
        kinds of its task.
    """

    name: str
    path: str
    category: str
    subcategory: str | None = None
    inputs: tuple[str, ...] = ()
    wildcards: Mapping[str, str] = field(default_factory=dict)
    kinds_from: str | None = None
    caption: str | None = None
    default: bool | str = True
    per_task: bool = False

    @property
    def rules(self) -> tuple[str, ...]:
        """The rules drawing the group."""
        return tuple(f"{self.name}_{t}" for t in TASKS) if self.per_task else (self.name,)


@dataclass(frozen=True)
class Figure:
    """One figure kind.

    Attributes
    ----------
    kind : str
        File stem (``figures/<dataset>/<family>/<kind>.pdf`` for a per-model figure).
    group : str
        Key of :data:`GROUPS`.
    plot : str
        ``"module:function"`` drawing it from the group's loaded inputs: a Figure, or a dict
        ``key`` -> Figure (several kinds at once).
    caption : str or None
        Caption file under ``workflow/report/``; None: the PNG is not in the report.
    label : str, optional
        The report's ``figure`` label (default: the kind).
    subcategory : str, optional
        Report subcategory (default: the group's).
    key : str, optional
        The key of the kind in the dict the plot function returns (default: the kind).
    default : bool or str
        In the default target: True, False, or a condition (a key of :data:`CONDITIONS`).
    tasks : tuple of str
        Tasks of the datasets it is drawn for.
    """

    kind: str
    group: str
    plot: str
    caption: str | None
    label: str | None = None
    subcategory: str | None = None
    key: str | None = None
    default: bool | str = False
    tasks: tuple[str, ...] = TASKS

    @property
    def dict_key(self) -> str:
        return self.key or self.kind


_MODEL = "{dataset}"

GROUPS: dict[str, FigureGroup] = {
    g.name: g
    for g in (
        FigureGroup("correlation_figure", "dataset_figure", _MODEL, "data", inputs=("corr", "title")),
        FigureGroup(
            "reliance_figures",
            "model_figure",
            _MODEL,
            "model reliance",
            inputs=("table", "split_gain", "estimator", "loss", "quantity", "title", "coverage"),
        ),
        FigureGroup(
            "pd_figures",
            "model_figure",
            _MODEL,
            "PD / ICE",
            inputs=("curves", "pairs", "figure_class", "target_unit", "output"),
        ),
        FigureGroup(
            "shap_figures",
            "model_figure",
            _MODEL,
            "SHAP",
            inputs=("result", "top_k", "title", "figure_class", "target_unit"),
        ),
        FigureGroup("lime", "model_figure", _MODEL, "SHAP", inputs=("comparison", "rows", "title")),
        FigureGroup(
            "learner_figures",
            "model_figure",
            _MODEL,
            "learner-PD/PFI",
            inputs=("pd_table", "pfi", "shap", "ale", "title", "coverage"),
        ),
        FigureGroup(
            "sage_figures",
            "model_figure",
            _MODEL,
            "SAGE",
            inputs=("sage", "reliance", "estimator", "quantity", "title", "coverage"),
            default="sage",
        ),
        FigureGroup(
            "dependence_figures",
            "model_figure",
            _MODEL,
            inputs=("ale", "ale_2d", "table", "max_features", "max_display", "title", "target_unit", "coverage"),
        ),
        FigureGroup(
            "regional_figures",
            "model_figure",
            _MODEL,
            "PD / ICE",
            inputs=("regions", "curves", "title", "target_unit"),
            default="regional",
        ),
        FigureGroup(
            "ebm_figures",
            "model_figure",
            _MODEL,
            "EBM terms",
            inputs=("terms", "shapes", "title", "target_unit", "coverage"),
            default="terms",
        ),
        FigureGroup(
            "shap_interaction_summary",
            "model_figure",
            _MODEL,
            "interactions",
            inputs=("summary", "max_display", "output_label", "title"),
        ),
        FigureGroup(
            "rashomon_figures",
            "rashomon_figure",
            _MODEL,
            "Rashomon set / MCR",
            inputs=("members", "mcr", "envelope", "curves", "path", "scope", "epsilon", "quantity"),
        ),
        FigureGroup(
            "consensus_figures",
            "rashomon_figure",
            _MODEL,
            "Rashomon set / MCR",
            inputs=("pairs", "summary", "scope", "epsilon", "estimator", "title"),
        ),
        FigureGroup(
            "multiplicity_figures",
            "rashomon_figure",
            _MODEL,
            "Rashomon set / MCR",
            inputs=("rows", "summary", "path", "scope", "max_rows", "title", "epsilon_mode", "metric", "target_unit"),
        ),
        FigureGroup(
            "treefarms_figures",
            "rashomon_figure",
            _MODEL,
            "Rashomon set / MCR",
            inputs=("summary", "mcr", "epsilon", "title"),
            default="treefarms",
        ),
        FigureGroup(
            "prediction_interval_figures",
            "rashomon_figure",
            _MODEL,
            "Rashomon set / MCR",
            inputs=("intervals", "title", "target_unit"),
            default="prediction_intervals",
        ),
        FigureGroup(
            "rid_figures",
            "rashomon_figure",
            _MODEL,
            "Rashomon set / MCR",
            inputs=("reliance", "mcr", "sizes", "confidence", "title"),
        ),
        FigureGroup(
            "abalone_study_figures",
            "study_figure",
            "abalone",
            "Table 4.1 study",
            inputs=("members", "mcr", "envelope", "curves", "path", "scope", "epsilon", "quantity"),
            wildcards={"dataset": "abalone_study"},
            kinds_from="rashomon_figures",
            caption="abalone_study.rst",
            default="study",
        ),
        FigureGroup(
            "comparison_figures",
            "comparison_figure",
            _MODEL,
            "model comparison",
            inputs=("predictions", "pairs", "test_loss", "n_bootstrap", "random_state", "dataset", "classes"),
            per_task=True,
        ),
        # seed 003's Figs 3.1-3.4: under their source document (xaipipe.report.layout.THESES)
        FigureGroup("seed003", "seed003_figure", "thesis", "003: model comparison (seed 003)", inputs=("rerun",)),
        FigureGroup("coverage_figure", "coverage_figure", "Coverage audit", inputs=("coverage", "epsilon")),
        FigureGroup("twins_figure", "coverage_figure", "Coverage audit", inputs=("coverage",)),
    )
}

_CLS, _REG = ("classification",), ("regression",)

FIGURES: tuple[Figure, ...] = (
    # data
    Figure("correlation", "correlation_figure", "xaipipe.plots.data:plot_correlation", "correlation.rst", default=True),
    # explain: every fitted model
    Figure(
        "model_reliance",
        "reliance_figures",
        "xaipipe.plots.reliance:reliance_figures",
        "model_reliance.rst",
        label="model reliance",
        default=True,
    ),
    Figure(
        "reliance_vs_split_gain",
        "reliance_figures",
        "xaipipe.plots.reliance:reliance_figures",
        "reliance_vs_split_gain.rst",
        label="MR vs split gain",
        default=True,
    ),
    Figure(
        "model_reliance_dependent",
        "reliance_figures",
        "xaipipe.plots.reliance:dependent_reliance_figure",
        "model_reliance_dependent.rst",
        label="marginal vs conditional vs grouped MR",
        default=True,
    ),
    Figure("ice", "pd_figures", "xaipipe.plots.pdp:pd_ice_figures", "ice.rst", default=True),
    Figure("c_ice", "pd_figures", "xaipipe.plots.pdp:pd_ice_figures", "c_ice.rst"),
    Figure("d_ice", "pd_figures", "xaipipe.plots.pdp:pd_ice_figures", "d_ice.rst"),
    Figure("pd_2d", "pd_figures", "xaipipe.plots.pdp:pd_ice_figures", "pd_2d.rst", default=True),
    *(
        Figure(
            f"shap_{key}",
            "shap_figures",
            "xaipipe.plots.shap:shap_figures",
            "shap.rst",
            label=f"SHAP {key}",
            key=key,
            default=key == "bar",
        )
        for key in ("bar", "beeswarm", "dependence", "waterfall_high", "waterfall_low", "waterfall_near_base")
    ),
    Figure(
        "shap_interaction_dependence",
        "shap_figures",
        "xaipipe.plots.interactions:plot_shap_interaction_dependence",
        "shap_interaction_dependence.rst",
        label="SHAP main effect vs interaction",
        subcategory="interactions",
        default="shap_interactions",
    ),
    Figure("lime_vs_shap", "lime", "xaipipe.plots.lime:plot_lime_vs_shap", "lime.rst", label="LIME vs SHAP"),
    Figure(
        "learner_pd",
        "learner_figures",
        "xaipipe.plots.learner:learner_figures",
        "learner.rst",
        label="learner-PD",
        default="learner",
    ),
    Figure(
        "learner_pfi", "learner_figures", "xaipipe.plots.learner:learner_figures", "learner.rst", label="learner-PFI"
    ),
    Figure("sage", "sage_figures", "xaipipe.plots.sage:plot_sage", "sage.rst", label="SAGE beside MR", default=True),
    # learner-SHAP importance and learner-ALE from the same refits (issue 45)
    *(
        Figure(
            kind,
            "learner_figures",
            "xaipipe.plots.learner_effects:learner_effect_figures",
            "learner_effects.rst",
            label=label,
            default="learner",
        )
        for kind, label in (("learner_shap", "learner-SHAP importance"), ("learner_ale", "learner-ALE"))
    ),
    # under dependent features and interactions (issue 35)
    Figure(
        "ale",
        "dependence_figures",
        "xaipipe.plots.ale:ale_figures",
        "ale.rst",
        label="PD and ALE",
        subcategory="PD / ICE",
        default=True,
    ),
    Figure(
        "ale_2d",
        "dependence_figures",
        "xaipipe.plots.ale:ale_figures",
        "ale_2d.rst",
        label="second-order ALE",
        subcategory="PD / ICE",
    ),
    Figure(
        "h_statistic",
        "dependence_figures",
        "xaipipe.plots.interactions:h_statistic_figures",
        "h_statistic.rst",
        label="H-statistic (total)",
        subcategory="interactions",
        default=True,
    ),
    Figure(
        "h_statistic_pairs",
        "dependence_figures",
        "xaipipe.plots.interactions:h_statistic_figures",
        "h_statistic.rst",
        label="H-statistic (pairs)",
        subcategory="interactions",
    ),
    Figure(
        "shap_interaction_matrix",
        "shap_interaction_summary",
        "xaipipe.plots.interactions:shap_interaction_figures",
        "shap_interactions.rst",
        label="SHAP interaction matrix",
        key="matrix",
        default="shap_interactions",
    ),
    Figure(
        "shap_interaction_summary",
        "shap_interaction_summary",
        "xaipipe.plots.interactions:shap_interaction_figures",
        "shap_interactions.rst",
        label="SHAP interaction pairs",
        key="summary",
    ),
    # rashomon: one model class per dataset (and the Table 4.1 study: abalone_study_figures)
    *(
        Figure(kind, "rashomon_figures", "xaipipe.plots.rashomon:rashomon_figures", "rashomon.rst", default=i == 0)
        for i, kind in enumerate(
            ("member_reliance", "rank_heatmap", "mcr_intervals", "epsilon_sensitivity", "pd_envelope")
        )
    ),
    Figure(
        "consensus_hasse",
        "consensus_figures",
        "xaipipe.plots.consensus:consensus_figures",
        "consensus.rst",
        label="consensus order (Hasse diagram)",
        default=True,
    ),
    Figure(
        "multiplicity",
        "multiplicity_figures",
        "xaipipe.plots.multiplicity:plot_multiplicity",
        "multiplicity.rst",
        label="predictive multiplicity",
        default=True,
    ),
    Figure(
        "regional_effects",
        "regional_figures",
        "xaipipe.plots.regional:plot_regional_effects",
        "regional_effects.rst",
        label="regional effects",
        default=True,
    ),
    Figure(
        "ebm_terms",
        "ebm_figures",
        "xaipipe.plots.ebm:plot_ebm_terms",
        "ebm_terms.rst",
        label="EBM term plots",
        default=True,
    ),
    Figure(
        "treefarms",
        "treefarms_figures",
        "xaipipe.plots.treefarms:plot_treefarms",
        "treefarms.rst",
        label="TreeFARMS: the exact set of sparse trees",
        default=True,
        tasks=("classification",),
    ),
    Figure(
        "prediction_intervals",
        "prediction_interval_figures",
        "xaipipe.plots.prediction_intervals:plot_prediction_intervals",
        "prediction_intervals.rst",
        label="Rashomon prediction intervals",
        default=True,
        tasks=("regression",),
    ),
    Figure(
        "rid",
        "rid_figures",
        "xaipipe.plots.bootstrap:rid_figures",
        "rid.rst",
        label="Rashomon importance distribution",
        default="bootstrap",
    ),
    Figure("bootstrap_set_sizes", "rid_figures", "xaipipe.plots.bootstrap:rid_figures", None, key="set_sizes"),
    # model comparison (seed 003) and ROC / PR curves (seed 004), per dataset
    *(
        Figure(
            kind,
            "comparison_figures",
            "xaipipe.plots.comparison:comparison_figures",
            "comparison.rst",
            default=True,
            **kw,
        )
        for kind, kw in (
            ("reject_option", {"tasks": _CLS}),
            ("error_bootstrap", {"tasks": _CLS}),
            ("loss_difference", {}),
            ("roc", {"tasks": _CLS}),
            ("precision_recall", {"tasks": _CLS}),
            ("predicted_vs_observed", {"tasks": _REG}),
        )
    ),
    # the seed-003 rerun (its Figs 3.1-3.4); the coverage audit
    *(
        Figure(kind, "seed003", "xaipipe.studies.seed003:seed003_figures", "seed003.rst")
        for kind in (
            "fig3_1_reject_option",
            "fig3_2_error_distribution",
            "fig3_3_difference",
            "fig3_4_predicted_vs_observed",
        )
    ),
    Figure("coverage", "coverage_figure", "xaipipe.plots.coverage:plot_coverage", "coverage.rst"),
    Figure("twins", "twins_figure", "xaipipe.plots.coverage:plot_twin_coverage", "coverage_twins.rst"),
)


def figures_of(group: str, task: str | None = None) -> tuple[Figure, ...]:
    """The kinds a group draws (in catalog order), those of ``task`` only when given.

    Raises
    ------
    KeyError
        Unknown group.
    """
    if group not in GROUPS:
        raise KeyError(f"unknown figure group {group!r}; known: {sorted(GROUPS)}")
    source = GROUPS[group].kinds_from or group
    return tuple(f for f in FIGURES if f.group == source and (task is None or task in f.tasks))


def kinds(group: str, task: str | None = None) -> tuple[str, ...]:
    """The kind names of :func:`figures_of`."""
    return tuple(f.kind for f in figures_of(group, task))


def output_names(group: str, kind: str) -> tuple[str, str]:
    """The rule's output names of a figure's PDF and PNG: ``pdf`` / ``png`` in a group of one
    figure, ``<kind>_pdf`` / ``<kind>_png`` otherwise."""
    if len(figures_of(group)) == 1:
        return "pdf", "png"
    return f"{kind}_pdf", f"{kind}_png"


def plot_function(spec: str) -> Callable:
    """The function a ``"module:function"`` string names.

    Raises
    ------
    ValueError
        Not of the form ``module:function``.
    ImportError, AttributeError
        No such module or function.
    """
    module, sep, name = spec.partition(":")
    if not sep or not module or not name:
        raise ValueError(f"a plot function is 'module:function', got {spec!r}")
    return getattr(importlib.import_module(module), name)


def plot_modules(rule: str) -> tuple[str, ...]:
    """The modules of the plot functions a rule draws with (sorted; empty for a rule that draws no
    catalog figure): the figure scripts reach them through :func:`plot_function`, not through an
    import statement, so the workflow adds them to the rule's code fingerprint
    (:func:`xaipipe.report.code_version.code_fingerprint`, ``workflow/rules/code.smk``)."""
    return tuple(
        sorted({f.plot.partition(":")[0] for g in GROUPS.values() if rule in g.rules for f in figures_of(g.name)})
    )


def _call(function: Callable, inputs: Mapping):
    params = inspect.signature(function).parameters
    if any(p.kind is inspect.Parameter.VAR_KEYWORD for p in params.values()):
        return function(**inputs)
    return function(**{k: v for k, v in inputs.items() if k in params})


def draw_figures(group: str, inputs: Mapping, *, task: str | None = None) -> dict[str, Figure]:
    """Draw the figures of ``group`` (of ``task`` only, when given) from its loaded inputs.

    Each distinct plot function of the group's kinds is called once, in catalog order, with
    the inputs its signature names.

    Returns
    -------
    dict
        kind -> Figure, in the order drawn.

    Raises
    ------
    ValueError
        A plot function returned a figure no kind of the group declares, or a kind of the
        group was not drawn.
    """
    import matplotlib.pyplot as plt

    specs = figures_of(group, task)
    figures: dict = {}
    called = set()
    for spec in specs:
        if spec.plot in called:
            continue
        called.add(spec.plot)
        result = _call(plot_function(spec.plot), inputs)
        if not isinstance(result, Mapping):
            figures[spec.kind] = result
            continue
        by_key = {s.dict_key: s.kind for s in figures_of(group) if s.plot == spec.plot}
        unknown = [k for k in result if k not in by_key]
        if unknown:
            for fig in result.values():
                plt.close(fig)
            raise ValueError(
                f"{spec.plot} drew {unknown}, which no figure of group {group!r} declares "
                "(add them to xaipipe.plots.catalog.FIGURES)"
            )
        figures.update({by_key[k]: fig for k, fig in result.items()})
    missing = [s.kind for s in specs if s.kind not in figures]
    if missing:
        raise ValueError(f"the plot functions of group {group!r} drew no {missing}")
    return figures


def save_figures(group: str, figures: Mapping, output) -> None:
    """Save each figure to its PDF and PNG output of the rule (``output[name]``, names from
    :func:`output_names`), then close it."""
    from .style import save_figure

    for kind, fig in figures.items():
        pdf, png = output_names(group, kind)
        save_figure(fig, output[pdf], output[png])

# Figures from the figure catalog (src/xaipipe/plots/catalog.py): each figure kind is declared
# there once; the rules' figure outputs and the default target's figures come from it.
from xaipipe.plots.catalog import (
    CONDITIONS,
    GROUPS,
    figures_of,
    output_names,
)
from xaipipe.report.layout import missing_values_note, thesis_subcategory


def target_unit(wildcards):
    """The dataset's `target_unit` (registry, config/datasets.yaml): the unit on its effect axes."""
    return REGISTRY[wildcards.dataset].target_unit


def data_summary_report():
    """The data summary table (rows read, rows dropped, cells imputed per column, policy; issue 43
    item 2) as a report entry: its rule's output is `table=data_summary_report()`, which is
    P("table", name="data_summary") = results/<version>/tables/data_summary.csv in category `tables`.
    """
    return report(
        P("table", name="data_summary"),
        caption="../report/data_summary.rst",
        category="tables",
        labels={"table": "data summary"},
    )


def thesis_target_unit(entry):
    """The `target_unit` of a thesis figure's dataset (None: no dataset, e.g. an illustration)."""
    dataset = entry.get("dataset")
    return REGISTRY[dataset].target_unit if dataset in REGISTRY else None


def thesis_output(entry):
    """The output a thesis figure's PD tables explain (`predict` / explain.pd.classification_output)."""
    dataset = entry.get("dataset")
    if dataset not in REGISTRY:
        return None
    return PD_ICE_SETTINGS[task_of(dataset)].output(task_of(dataset))


def missing_note(wildcards):
    """The captions' sentence on the dataset's missing values (its `missing` policy; "" for `error`)."""
    return missing_values_note(wildcards.dataset, REGISTRY[wildcards.dataset].missing)


def figure_outputs(group, task=None):
    """The outputs of a group's figures (of `task` only, when given): each kind's PDF and its PNG,
    registered in the report with the catalog's caption, category, subcategory and labels.
    """
    g = GROUPS[group]
    out = {}
    for fig in figures_of(group, task):
        pdf, png = output_names(group, fig.kind)
        out[pdf] = P(g.path, **g.wildcards, kind=fig.kind, ext="pdf")
        path = P(g.path, **g.wildcards, kind=fig.kind, ext="png")
        caption = g.caption or fig.caption
        if caption is None:
            out[png] = path
            continue
        labels = {"model": "{family}"} if "{family}" in path else {}
        labels["figure"] = fig.label or fig.kind
        out[png] = report(
            path,
            caption=f"../report/{caption}",
            category=g.category,
            subcategory=fig.subcategory or g.subcategory,
            labels=labels,
        )
    return out


# the conditions a catalog entry's `default` may name, on the free wildcards of its path
FIGURE_CONDITIONS = {
    "learner": lambda dataset, family: family
    in config["explain"]["learner"]["families"],
    "shap_interactions": lambda dataset, family: family
    in shap_interaction_families(dataset),
    "bootstrap": lambda dataset: RASHOMON["bootstrap"]["enabled"]
    and bool(bootstrap_families(dataset)),
    "study": lambda: bool(STUDIES),
    "sage": lambda dataset, family: family in sage_families(dataset),
    "regional": lambda dataset, family: family in regional_families(dataset),
    "treefarms": lambda dataset: dataset in TREEFARMS_DATASETS,
    "terms": lambda dataset, family: family in term_families(dataset),
    "prediction_intervals": lambda dataset: task_of(dataset) == "regression"
    and RASHOMON["prediction_intervals"]["enabled"],
}
if set(FIGURE_CONDITIONS) != set(CONDITIONS):
    raise ValueError(
        f"figure conditions of workflow/rules/figures.smk {sorted(FIGURE_CONDITIONS)} differ from "
        f"xaipipe.plots.catalog.CONDITIONS {sorted(CONDITIONS)}"
    )


def _holds(default, **wildcards):
    if default is True:
        return True
    if default is False:
        return False
    return FIGURE_CONDITIONS[default](**wildcards)


def figure_targets(group):
    """The PDFs of a group's figures that the default target asks for (catalog: `default` of the
    group and of each kind), per dataset and model where its path has those wildcards.
    """
    g = GROUPS[group]
    template = P(g.path, **g.wildcards)
    out = []
    for fig in figures_of(group):
        for task in fig.tasks if g.per_task else (None,):
            for wildcards in _free_wildcards(template, task):
                if _holds(g.default, **wildcards) and _holds(fig.default, **wildcards):
                    out.append(
                        P(g.path, **g.wildcards, **wildcards, kind=fig.kind, ext="pdf")
                    )
    return out


def _free_wildcards(template, task=None):
    """Every value of the dataset / family wildcards a path template leaves open (datasets of
    `task` only, when given)."""
    datasets = [d for d in DATASETS if task is None or task_of(d) == task]
    if "{family}" in template:
        return [dict(dataset=d, family=f) for d in datasets for f in families_of(d)]
    if "{dataset}" in template:
        return [dict(dataset=d) for d in datasets]
    return [{}]

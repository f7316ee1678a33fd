"""The figure catalog (xaipipe.plots.catalog): every kind declared once, with a caption file that
exists, a plot function that imports and takes the group's inputs, a path key of the path
catalog; drawing a group through the catalog gives the bytes of the plot function called directly."""

from __future__ import annotations

import dataclasses
import inspect
import string

import matplotlib

matplotlib.use("Agg")

import numpy as np  # noqa: E402
import pandas as pd  # noqa: E402
import pytest  # noqa: E402

from tests.conftest import REPO  # noqa: E402
from xaipipe.paths import PATHS  # noqa: E402
from xaipipe.plots import catalog  # noqa: E402
from xaipipe.plots.catalog import (  # noqa: E402
    CONDITIONS,
    FIGURES,
    GROUPS,
    TASKS,
    Figure,
    FigureGroup,
    draw_figures,
    figures_of,
    kinds,
    output_names,
    plot_function,
    save_figures,
)
from xaipipe.plots.style import figure_style, save_figure  # noqa: E402

REPORT = REPO / "workflow" / "report"


def test_no_kind_declared_twice():
    names = [f.kind for f in FIGURES]
    assert len(names) == len(set(names)), sorted({n for n in names if names.count(n) > 1})
    # and no two groups write the same file: (path key, fixed wildcards, kind) unique over the groups
    files = [(g.path, tuple(sorted(g.wildcards.items())), k) for g in GROUPS.values() for k in kinds(g.name)]
    assert len(files) == len(set(files))


@pytest.mark.parametrize("figure", FIGURES, ids=lambda f: f.kind)
def test_every_kind_has_a_group_a_caption_and_a_condition(figure):
    assert figure.group in GROUPS
    assert not GROUPS[figure.group].kinds_from, "a kind belongs to the group that draws it first"
    if figure.caption is not None:
        assert (REPORT / figure.caption).is_file(), figure.caption
    assert figure.default in (True, False) or figure.default in CONDITIONS
    assert figure.tasks and set(figure.tasks) <= set(TASKS)
    assert figure.kind.isidentifier()


@pytest.mark.parametrize("group", GROUPS.values(), ids=lambda g: g.name)
def test_every_group_has_a_path_key_and_captions(group):
    template = PATHS[group.path]
    fields = {f for _, f, _, _ in string.Formatter().parse(template) if f}
    assert {"kind", "ext"} <= fields, template
    assert set(group.wildcards) <= fields - {"kind", "ext"}
    assert group.default in (True, False) or group.default in CONDITIONS
    if group.caption is not None:
        assert (REPORT / group.caption).is_file()
    if group.kinds_from is not None:
        assert group.kinds_from in GROUPS
    assert figures_of(group.name), f"group {group.name} draws no figure"


@pytest.mark.parametrize("figure", FIGURES, ids=lambda f: f.kind)
def test_plot_function_imports_and_takes_the_group_inputs(figure):
    function = plot_function(figure.plot)
    assert callable(function)
    required = [
        name
        for name, p in inspect.signature(function).parameters.items()
        if p.default is inspect.Parameter.empty and p.kind not in (p.VAR_POSITIONAL, p.VAR_KEYWORD)
    ]
    missing = set(required) - set(GROUPS[figure.group].inputs)
    assert not missing, f"{figure.plot} needs {sorted(missing)}, not inputs of group {figure.group}"


def test_plot_function_spec_errors():
    with pytest.raises(ValueError, match="module:function"):
        plot_function("xaipipe.plots.data.plot_correlation")
    with pytest.raises(AttributeError):
        plot_function("xaipipe.plots.data:no_such_function")


def test_kind_lists_of_the_plot_modules_come_from_the_catalog():
    from xaipipe.plots.comparison import COMPARISON_FIGURES
    from xaipipe.plots.rashomon import RASHOMON_FIGURES

    assert RASHOMON_FIGURES == kinds("rashomon_figures") == kinds("abalone_study_figures")
    assert COMPARISON_FIGURES == {t: kinds("comparison_figures", t) for t in TASKS}
    assert COMPARISON_FIGURES["regression"] == ("loss_difference", "predicted_vs_observed")


def test_output_names():
    assert output_names("correlation_figure", "correlation") == ("pdf", "png")
    assert output_names("pd_figures", "d_ice") == ("d_ice_pdf", "d_ice_png")
    with pytest.raises(KeyError, match="unknown figure group"):
        figures_of("no_such_group")


def _correlation():
    rng = np.random.default_rng(0)
    frame = pd.DataFrame(rng.normal(size=(50, 3)), columns=["a", "b", "c"])
    return frame.corr().reset_index(names="variable")


def test_drawing_a_group_gives_the_bytes_of_its_plot_function(tmp_path):
    """Oracle: xaipipe.plots.data.plot_correlation called directly and saved as the rule did before."""
    from xaipipe.plots.data import plot_correlation

    corr = _correlation()
    with figure_style():
        save_figure(plot_correlation(corr, title="t"), tmp_path / "direct.pdf", tmp_path / "direct.png")
        figs = draw_figures("correlation_figure", {"corr": corr, "title": "t", "unused": 1})
        assert list(figs) == ["correlation"]
        save_figures("correlation_figure", figs, {"pdf": tmp_path / "c.pdf", "png": tmp_path / "c.png"})
    for ext in ("pdf", "png"):
        assert (tmp_path / f"c.{ext}").read_bytes() == (tmp_path / f"direct.{ext}").read_bytes()


def _dummy_plot(corr, *, title=None):
    import matplotlib.pyplot as plt

    fig, ax = plt.subplots()
    ax.plot(corr.select_dtypes("number").to_numpy().ravel())
    ax.set_title(title or "")
    return fig


@pytest.fixture
def with_dummy(monkeypatch):
    """A test-only catalog: one more per-dataset figure in the correlation group."""
    import sys
    import types

    module = types.ModuleType("xaipipe_test_dummy_plots")
    module.plot = _dummy_plot
    monkeypatch.setitem(sys.modules, module.__name__, module)
    dummy = Figure("dummy", "correlation_figure", f"{module.__name__}:plot", "correlation.rst", default=True)
    monkeypatch.setattr(catalog, "FIGURES", (*catalog.FIGURES, dummy))
    return dummy


def test_a_new_kind_is_one_entry_and_one_function(with_dummy, tmp_path):
    assert kinds("correlation_figure") == ("correlation", "dummy")
    # the group now has two figures: outputs named by kind
    assert output_names("correlation_figure", "correlation") == ("correlation_pdf", "correlation_png")
    corr = _correlation()
    with figure_style():
        figs = draw_figures("correlation_figure", {"corr": corr, "title": "t"})
        assert list(figs) == ["correlation", "dummy"]
        out = {f"{k}_{e}": tmp_path / f"{k}.{e}" for k in figs for e in ("pdf", "png")}
        save_figures("correlation_figure", figs, out)
    assert all(p.stat().st_size > 0 for p in out.values())


def test_a_plot_function_drawing_an_undeclared_kind_is_an_error(monkeypatch):
    import matplotlib.pyplot as plt

    group = FigureGroup("two_figures", "dataset_figure", "{dataset}", inputs=("x",))
    draw = "xaipipe_test_two:draw"

    def two(x):
        return {"a": plt.figure(), "b": plt.figure()}

    import sys
    import types

    module = types.ModuleType("xaipipe_test_two")
    module.draw = two
    monkeypatch.setitem(sys.modules, module.__name__, module)
    monkeypatch.setitem(catalog.GROUPS, group.name, group)
    monkeypatch.setattr(catalog, "FIGURES", (*catalog.FIGURES, Figure("a", group.name, draw, None)))
    with pytest.raises(ValueError, match=r"drew \['b'\], which no figure of group 'two_figures' declares"):
        draw_figures(group.name, {"x": 1})
    monkeypatch.setattr(
        catalog,
        "FIGURES",
        (*catalog.FIGURES, Figure("b", group.name, draw, None), Figure("c", group.name, draw, None)),
    )
    with pytest.raises(ValueError, match=r"drew no \['c'\]"):
        draw_figures(group.name, {"x": 1})


def test_comparison_kinds_per_task_and_study_kinds_shared():
    assert GROUPS["comparison_figures"].rules == ("comparison_figures_classification", "comparison_figures_regression")
    cls = kinds("comparison_figures", "classification")
    assert cls == ("reject_option", "error_bootstrap", "loss_difference", "roc", "precision_recall")
    study = GROUPS["abalone_study_figures"]
    assert study.caption == "abalone_study.rst" and study.wildcards == {"dataset": "abalone_study"}
    assert dataclasses.asdict(figures_of("abalone_study_figures")[0])["group"] == "rashomon_figures"


def test_plot_modules_of_a_rule():
    from xaipipe.plots.catalog import plot_modules

    assert plot_modules("dependence_figures") == ("xaipipe.plots.ale", "xaipipe.plots.interactions")
    assert plot_modules("comparison_figures_regression") == ("xaipipe.plots.comparison",)
    assert plot_modules("abalone_study_figures") == plot_modules("rashomon_figures") == ("xaipipe.plots.rashomon",)
    assert plot_modules("model_reliance") == ()

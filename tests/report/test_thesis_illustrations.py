"""Thesis figures of kind `illustration` (seed 001 chapters 2-3): sources, availability, rendering."""

from __future__ import annotations

import matplotlib

matplotlib.use("Agg")

import pytest  # noqa: E402

from xaipipe.data.simulated import simulate  # noqa: E402
from xaipipe.io import write_csv, write_joblib  # noqa: E402
from xaipipe.report.thesis import ILLUSTRATION_PLOTS, available, check_mapping, figure_sources, render_figure  # noqa: E402
from xaipipe.studies.illustrations import fit_diabetes_tree, illustration_table  # noqa: E402


def test_sources_come_from_the_catalog():
    assert figure_sources({"kind": "illustration", "illustration": "pruning_path"}, "results/v1") == {
        "table": "results/v1/illustrations/pruning_path.csv"
    }
    assert figure_sources({"kind": "illustration", "illustration": "diabetes_tree"}, "results/v1") == {
        "model": "results/v1/illustrations/diabetes_tree.joblib"
    }
    with pytest.raises(ValueError, match="unknown illustration 'pie'"):
        figure_sources({"kind": "illustration", "illustration": "pie"}, "results/v1")
    with pytest.raises(ValueError, match=r"thesis.figures.f: kind 'illustration' needs key\(s\) \['illustration'\]"):
        check_mapping({"figures": {"f": {"kind": "illustration"}}})


def test_available_only_when_illustrations_are_on():
    entry = {"kind": "illustration", "illustration": "oob_curve"}
    assert available(entry, ["airfoil"], lambda d: [])
    assert not available(entry, ["airfoil"], lambda d: [], illustrations=False)


@pytest.mark.parametrize("name", sorted(ILLUSTRATION_PLOTS))
def test_render_each_from_its_stored_table(name, tmp_path):
    entry = {"kind": "illustration", "illustration": name, "title": "t"}
    sources = {k: str(tmp_path / v.rsplit("/", 1)[1]) for k, v in figure_sources(entry, "r").items()}
    if name == "diabetes_tree":
        write_joblib(sources["model"], fit_diabetes_tree(max_depth=2))
    else:
        small = {
            "pruning_path": {"max_alphas": 5},
            "oob_curve": {"n_estimators": 5},
            "boosting_depth": {"depths": [1, 2], "n_estimators": 5},
            "boosting_staged": {"learning_rates": [0.5], "n_estimators": 30, "n_iter_no_change": 3},
            "loss_functions": {},
        }[name]
        frame = simulate(n=120, random_state=1)
        write_csv(sources["table"], illustration_table(name, frame, random_state=1, **small))
    fig = render_figure(entry, sources)
    assert fig.axes and fig._suptitle is not None and fig._suptitle.get_text() == "t"
    matplotlib.pyplot.close(fig)

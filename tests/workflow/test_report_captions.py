"""Every report caption (``workflow/report/*.rst``) renders through Jinja and docutils as Snakemake's
``--report`` does, without an error or a warning (issue 43: a caption logged a docutils error), and
the report's front page lists the configuration's datasets and methods."""

from __future__ import annotations

import io
import textwrap
from pathlib import Path
from types import SimpleNamespace

import pytest
import yaml

REPO = Path(__file__).resolve().parents[2]
REPORT = REPO / "workflow" / "report"

# Snakemake appends these link targets to every caption and to the front page (snakemake.report)
RST_LINKS = textwrap.dedent("""

    .. _Workflow: javascript:show_panel('workflow')
    .. _Statistics: javascript:show_panel('statistics')
    {% for cat, catresults in categories|dictsort %}
    .. _{{ cat.name }}: javascript:app.showCategory('{{ cat.name|urlencode }}')
    {% endfor %}
    {% for res in files %}
    .. _{{ res.target }}: javascript:app.showResultInfo('{{ res.path|urlencode }}')
    {% endfor %}
    """)


def _config(*files: str) -> dict:
    """The configuration Snakemake sees: the files merged in order, then the schema's defaults."""
    from snakemake.utils import update_config, validate

    config: dict = {}
    for name in files:
        update_config(config, yaml.safe_load((REPO / name).read_text()))
    validate(config, str(REPO / "workflow" / "schemas" / "config.schema.yaml"))
    return config


def _docutils_messages(rst: str) -> str:
    """What docutils reports at level warning or above while publishing ``rst`` as Snakemake does."""
    from docutils.core import publish_parts

    stream = io.StringIO()
    publish_parts(rst, writer="html", settings_overrides={"warning_stream": stream, "report_level": 2})
    return stream.getvalue()


def _render(template: str, **context) -> str:
    from jinja2 import Environment, StrictUndefined

    env = Environment(trim_blocks=True, lstrip_blocks=True, undefined=StrictUndefined)
    return env.from_string(template + RST_LINKS).render(categories={}, files=[], **context)


def _snakemake(config: dict, missing_note: str, kind: str) -> SimpleNamespace:
    from xaipipe.report.layout import missing_values_note

    return SimpleNamespace(
        config=config,
        wildcards=SimpleNamespace(dataset="abalone", family="gradient_boosting", name="001_fig_5_2"),
        params=SimpleNamespace(
            missing_note=missing_values_note("abalone", missing_note),
            entry={"kind": kind, "illustration": "fig_2_2"},
            metric="rmse",
            loss="squared_error",
        ),
        output=["results/v1/tables/model_reliance.csv"],
    )


CAPTIONS = sorted(p.name for p in REPORT.glob("*.rst") if p.name != "workflow.rst")


@pytest.mark.parametrize("caption", CAPTIONS)
def test_caption_renders_without_a_docutils_message(caption):
    template = (REPORT / caption).read_text()
    modes = ("se", "relative", "absolute") if "epsilon_mode" in template else ("se",)
    for mode in modes:
        config = _config("config/config.yaml")
        config["rashomon"]["epsilon_mode"] = mode
        for policy, kind in (("error", "ice"), ("impute", "illustration"), ("drop_rows", "ice")):
            rst = _render(template, snakemake=_snakemake(config, policy, kind))
            assert _docutils_messages(rst) == "", f"{caption} ({mode}, {policy}, {kind}):\n{rst}"
            if policy != "error" and "missing_note" in template:
                assert "Missing values imputed" in rst or "missing values dropped" in rst


def test_a_broken_caption_is_caught():
    """The check finds what it exists for: a bare |...| is an undefined substitution (the lime.rst error)."""
    assert "Undefined substitution" in _docutils_messages("gap |g(x) − f(x)| of LIME's surrogate")
    assert _docutils_messages("gap ``|g(x) − f(x)|`` of LIME's surrogate") == ""


@pytest.mark.parametrize(
    "files", [("config/config.yaml",), ("config/config.yaml", "tests/configs/small.yaml")], ids=["default", "small"]
)
def test_front_page_lists_the_datasets_and_methods_of_the_config(files):
    config = _config(*files)
    rst = _render((REPORT / "workflow.rst").read_text(), snakemake=SimpleNamespace(config=config))
    assert _docutils_messages(rst) == ""
    enabled = [d for d, o in config["datasets"].items() if o.get("enabled", True)]
    disabled = [d for d in config["datasets"] if d not in enabled]
    for name in enabled:
        assert f"``{name}``" in rst
    for name in disabled:
        assert f"``{name}``" not in rst
    for estimator in (
        config["explain"]["reliance"]["estimators"] + config["explain"]["reliance"]["dependent"]["estimators"]
    ):
        assert estimator in rst
    assert "MCR" in rst and "SHAP" in rst and "ALE" in rst and "H²" in rst
    assert f"version ``{config['version']}``" in rst


def test_front_page_leaves_out_what_does_not_run():
    """A method whose dataset is switched off is not listed (the LIME step's Breast Cancer, the Table 4.1
    study's Abalone, OLS inference of Diabetes)."""
    config = _config("config/config.yaml", "tests/configs/small.yaml")
    rst = _render((REPORT / "workflow.rst").read_text(), snakemake=SimpleNamespace(config=config))
    assert "LIME" in rst and "Table 4.1 study" in rst and "OLS inference" in rst
    for name in ("breast_cancer", "abalone", "diabetes"):
        config["datasets"][name]["enabled"] = False
    rst = _render((REPORT / "workflow.rst").read_text(), snakemake=SimpleNamespace(config=config))
    assert "LIME" not in rst and "KernelSHAP" not in rst and "Table 4.1 study" not in rst and "OLS inference" not in rst
    assert "``airfoil``" in rst and "``breast_cancer``" not in rst

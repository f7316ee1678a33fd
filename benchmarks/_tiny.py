"""Tiny self-made inputs for the ``--tiny`` modes of the benchmark scripts (not a benchmark).

Every script in ``benchmarks/`` has a ``--tiny`` mode that runs its real code path end to end
in a few seconds (``tests/test_benchmarks.py`` runs each one). The scripts that read a
dataset or the results of a workflow run build, in that mode, a stand-in with the functions
of this module, which go through the pipeline's own code (the registry's ``file`` source,
:func:`~xaipipe.data.preparation.prepare_table`, :func:`~xaipipe.data.split.make_split`,
:func:`~xaipipe.models.fitting.fit_best`, the writers of :mod:`xaipipe.io` and the path
catalog :func:`xaipipe.paths.result_path`), as the ``canonical``, ``prepare``, ``split`` and
``fit`` rules do:

* :func:`tiny_table` / :func:`tiny_datasets`: a small synthetic table (``n`` rows, ``p``
  uniform features and a three-level categorical column ``region``; a Friedman-like
  regression target, or its median split for classification) written as CSV and declared
  as an inline ``datasets`` entry of the configuration (``source: {kind: file}``);
* :func:`standin_results`: a ``results/<version>`` folder holding, per dataset, the
  ``data/<dataset>/`` files (prepared table, its JSON, split) and the fitted models
  ``models/<dataset>/fitted/<family>.joblib`` of the families asked for.

Load it by path (``benchmarks/`` is no package)::

    spec = importlib.util.spec_from_file_location("_tiny", Path(__file__).parent / "_tiny.py")
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path

import numpy as np
import pandas as pd

REPO = Path(__file__).resolve().parents[1]

#: Values of the categorical column of the tiny tables (one feature group of three 0/1 columns).
REGIONS = ("north", "south", "west")


def tiny_table(task: str, *, n: int = 120, p: int = 4, seed: int = 0) -> pd.DataFrame:
    """A synthetic table: features ``x1 .. xp`` (U(-1, 1)), ``region`` (categorical) and target ``y``.

    ``y = x1 + x2^2 - 0.5 x3 + 0.5 [region = south] + N(0, 0.3^2)`` (regression), or whether
    that lies above its 60th percentile (classification: ``"yes"`` / ``"no"``, ``"yes"`` coded 1).
    The classes are unbalanced on purpose: with balanced training folds a boosting model's
    initial log-odds are exactly 0 and a few stumps can leave rows at probability exactly 0.5,
    where scikit-learn's ``GradientBoostingClassifier.predict`` says class 1 and the
    pipeline's hard labels (argmax of the probabilities) class 0, so ``benchmarks/run.py``'s
    bitwise accuracy check would compare a tie-break.
    """
    if task not in ("regression", "classification"):
        raise ValueError(f"task must be 'regression' or 'classification', got {task!r}")
    if p < 3:
        raise ValueError(f"p must be >= 3 (the target uses x1, x2, x3), got {p}")
    rng = np.random.default_rng(seed)
    X = rng.uniform(-1.0, 1.0, size=(n, p))
    region = rng.choice(REGIONS, size=n)
    y = X[:, 0] + X[:, 1] ** 2 - 0.5 * X[:, 2] + 0.5 * (region == "south") + 0.3 * rng.normal(size=n)
    frame = pd.DataFrame(X, columns=[f"x{j + 1}" for j in range(p)])
    frame["region"] = region
    frame["y"] = np.where(y > np.quantile(y, 0.6), "yes", "no") if task == "classification" else y
    return frame


def tiny_datasets(folder: str | Path, specs: Mapping[str, str], *, n: int = 120, p: int = 4) -> dict:
    """Write one tiny table per ``{dataset: task}`` under ``folder``; return their inline
    ``datasets`` config entries (merge them into a configuration's ``datasets`` section)."""
    folder = Path(folder)
    folder.mkdir(parents=True, exist_ok=True)
    entries = {}
    for i, (name, task) in enumerate(specs.items()):
        path = folder / f"{name}.csv"
        tiny_table(task, n=n, p=p, seed=i).to_csv(path, index=False)
        entry = {"source": {"kind": "file", "path": str(path)}, "task": task, "target": "y", "categorical": ["region"]}
        if task == "classification":
            entry["positive_class"] = "yes"
        entries[name] = entry
    return entries


def load_config() -> dict:
    """``config/config.yaml`` (the defaults every run starts from)."""
    import yaml

    with open(REPO / "config" / "config.yaml", encoding="utf-8") as fh:
        return yaml.safe_load(fh)


def prepare(name: str, entries: Mapping[str, Mapping], cfg: Mapping) -> tuple[pd.DataFrame, dict, dict]:
    """(prepared table, its info, split) of dataset ``name``, as the canonical, prepare and split rules."""
    from xaipipe.data.preparation import prepare_table
    from xaipipe.data.registry import load_registry, preparation_options
    from xaipipe.data.sources import load_canonical
    from xaipipe.data.split import make_split

    entry = load_registry(REPO / "config" / "datasets.yaml", entries)[name]
    frame, sidecar = load_canonical(entry)
    prepared, info, _ = prepare_table(frame, sidecar, preparation_options(entry, entries[name]))
    y = prepared[info["target"]].to_numpy()
    split = make_split(
        y, info["task"], test_size=cfg["split"]["test_size"], n_folds=cfg["split"]["cv_folds"], random_state=cfg["seed"]
    )
    return prepared, info, split


def standin_results(
    root: str | Path,
    datasets: Mapping[str, str],
    families: Mapping[str, Mapping[str, Mapping]],
    *,
    n: int = 120,
    p: int = 4,
) -> Path:
    """A stand-in ``results/<version>`` folder at ``root``.

    Parameters
    ----------
    datasets : mapping dataset -> task
    families : mapping task -> {family: params}
        The fitted models to write for each dataset of that task (``params``: the
        hyperparameters ``fit_best`` refits, as a ``best/<family>.json`` would give them).

    Returns
    -------
    Path
        ``root``, holding ``data/<dataset>/{prepared.csv, prepared.json, split.json}`` and
        ``models/<dataset>/fitted/<family>.joblib`` (paths from :func:`xaipipe.paths.result_path`).
    """
    from xaipipe.config import CVSettings
    from xaipipe.data.prepare import load_prepared
    from xaipipe.io import write_csv, write_joblib, write_json
    from xaipipe.models.fitting import fit_best
    from xaipipe.paths import result_path

    root = Path(root)
    cfg = load_config()
    entries = tiny_datasets(root / "sources", datasets, n=n, p=p)
    for name, task in datasets.items():
        prepared, info, split = prepare(name, entries, cfg)
        files = {key: Path(result_path(key, str(root), dataset=name)) for key in ("prepared", "prepared_info", "split")}
        write_csv(files["prepared"], prepared)
        write_json(files["prepared_info"], info)
        write_json(files["split"], split)
        data = load_prepared(files["prepared"], files["prepared_info"], files["split"])
        for family, params in families.get(task, {}).items():
            settings = CVSettings(  # the fit rule's (no grid: the families' own hyperparameters)
                task=task,
                family=family,
                grid=None,
                sample=None,
                options=cfg["estimator_options"].get(family, {}),
                selection=cfg["selection"][task],
                seed=int(cfg["seed"]),
                beta=cfg["metrics"]["beta"] if task == "classification" else None,
            )
            model = fit_best(data, settings, dict(params)).model
            write_joblib(result_path("model", str(root), dataset=name, family=family), model)
    return root


# ----------------------------------------------------------------------------- a toy Snakemake workflow

#: A workflow of four rules laid out like the pipeline's (``results/<version>/``, benchmark files under
#: ``logs/<version>/benchmarks/<rule>/``): ``a`` -> ``b`` (two jobs of two threads; each writes its
#: output in two steps, so that a kill leaves a partial file) -> ``summary``, and the target rule ``all``.
TOY_SNAKEFILE = """\
VERSION = "tiny"


rule all:
    input:
        f"results/{VERSION}/summary.txt",


rule a:
    output:
        f"results/{VERSION}/a.txt",
    benchmark:
        f"logs/{VERSION}/benchmarks/a/run.tsv"
    shell:
        "sleep {SLEEP}; echo a > {output}"


rule b:
    input:
        f"results/{VERSION}/a.txt",
    output:
        f"results/{VERSION}/b/{{i}}.txt",
    threads: 2
    benchmark:
        f"logs/{VERSION}/benchmarks/b/{{i}}.tsv"
    shell:
        "echo start {wildcards.i} > {output}; sleep {SLEEP}; echo end >> {output}"


rule summary:
    input:
        expand(f"results/{VERSION}/b/{{i}}.txt", i=[1, 2]),
    output:
        f"results/{VERSION}/summary.txt",
    benchmark:
        f"logs/{VERSION}/benchmarks/summary/run.tsv"
    shell:
        "cat {input} > {output}"
"""


def toy_workflow(folder: str | Path, *, sleep_s: float = 0.5) -> Path:
    """Write :data:`TOY_SNAKEFILE` (each ``a`` and ``b`` job sleeping ``sleep_s``) to ``folder/Snakefile``."""
    folder = Path(folder)
    folder.mkdir(parents=True, exist_ok=True)
    text = TOY_SNAKEFILE.replace("{SLEEP}", f"{float(sleep_s):g}")
    (folder / "Snakefile").write_text(text)
    return folder


def run_toy(folder: str | Path, *args: str, cores: int = 2) -> Path:
    """Run the toy workflow in ``folder`` to the end (``python -m snakemake --cores cores *args``);
    return its Snakemake log. Raises RuntimeError, with Snakemake's output, when it fails."""
    import subprocess
    import sys

    folder = Path(folder)
    cmd = [sys.executable, "-m", "snakemake", "--cores", str(cores), *args]
    proc = subprocess.run(cmd, cwd=folder, capture_output=True, text=True)
    if proc.returncode != 0:
        raise RuntimeError(f"{' '.join(cmd)} failed in {folder}:\n{proc.stdout[-3000:]}\n{proc.stderr[-3000:]}")
    return sorted((folder / ".snakemake" / "log").glob("*.snakemake.log"))[-1]

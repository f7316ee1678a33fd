"""Prepared, split data of a registry dataset without running the workflow (benchmarks only).

The same functions as the ``canonical``, ``prepare`` and ``split`` rules, with the default
configuration's options and seed: ``prepared_data("diabetes", mirror="../shared/data/uci")``.
"""

from __future__ import annotations

import json
import tempfile
from pathlib import Path

import yaml

from xaipipe.data.preparation import prepare_table
from xaipipe.data.prepare import load_prepared
from xaipipe.data.registry import load_registry, preparation_options
from xaipipe.data.sources import load_canonical
from xaipipe.data.split import make_split

ROOT = Path(__file__).resolve().parents[1]


def prepared_data(dataset: str, mirror: str | None = None):
    """:class:`xaipipe.data.prepare.PreparedData` of ``dataset`` as the default study prepares it."""
    config = yaml.safe_load((ROOT / "config" / "config.yaml").read_text())
    registry = load_registry(ROOT / "config" / "datasets.yaml", config.get("datasets"))
    entry = registry[dataset]
    canonical, sidecar = load_canonical(entry, mirror=mirror)
    options = preparation_options(entry, (config.get("datasets") or {}).get(dataset))
    prepared, info, _ = prepare_table(canonical, sidecar, options)
    split = make_split(
        prepared[info["target"]].to_numpy(),
        info["task"],
        test_size=config["split"]["test_size"],
        n_folds=config["split"]["cv_folds"],
        random_state=config["seed"],
    )
    with tempfile.TemporaryDirectory() as tmp:
        t = Path(tmp)
        prepared.to_csv(t / "prepared.csv", index=False)
        (t / "prepared.json").write_text(json.dumps(info))
        (t / "split.json").write_text(json.dumps(split))
        return load_prepared(t / "prepared.csv", t / "prepared.json", t / "split.json")

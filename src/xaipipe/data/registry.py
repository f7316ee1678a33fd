"""The dataset registry: every dataset declared as data, none hard-coded.

``config/datasets.yaml`` declares each dataset the workflow knows (the six of the
theses); an entry of the ``datasets`` section of the configuration may carry the
same keys inline, so that a user adds a dataset with one config entry::

    datasets:
      my_data:
        source: {kind: file, path: data/my.csv}
        task: regression
        target: y
        categorical: [region]

:func:`load_registry` merges the two (the configuration's keys replace the
registry's, key by key), checks every entry against
``workflow/schemas/datasets.schema.yaml`` (JSON Schema draft 2020-12) and
against the parser registry, and returns one :class:`DatasetEntry` per dataset.

Registry keys (see config/README.md): ``name``, ``task`` (``regression`` |
``classification``), ``target``, ``columns`` (``id`` / ``features`` /
``other``), ``categorical``, ``groups``, ``drop``, ``missing``, ``positive_class``, ``variants``,
``order_by``, ``doi``, ``citation``, ``target_unit``, ``source`` (``kind``: ``uci``, ``sklearn``,
``file``, ``openml``, ``simulated``). Options that only the configuration has: ``enabled``,
``families``, ``one_hot``, ``variant``, ``class_order``.
"""

from __future__ import annotations

import os
import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import yaml

from .parsers import PARSERS

__all__ = [
    "MISSING_POLICIES",
    "SOURCE_KINDS",
    "DatasetEntry",
    "RegistryError",
    "load_registry",
    "validate_entry",
    "preparation_options",
    "input_files",
    "check_ols_inference",
]

#: keys of a registry entry (also accepted inline in the configuration)
ENTRY_KEYS = (
    "name",
    "task",
    "target",
    "columns",
    "categorical",
    "groups",
    "drop",
    "missing",
    "positive_class",
    "variants",
    "order_by",
    "doi",
    "citation",
    "target_unit",
    "source",
)
#: keys that only the configuration's ``datasets.<d>`` entries have
OPTION_KEYS = ("enabled", "families", "one_hot", "variant", "class_order")
#: missing-value policies (``missing:``; :func:`xaipipe.data.preparation.prepare_table`)
MISSING_POLICIES = ("error", "drop_rows", "impute")
#: source kinds
SOURCE_KINDS = ("uci", "sklearn", "file", "openml", "simulated")
#: default schema: <repo>/workflow/schemas/datasets.schema.yaml
REGISTRY_SCHEMA = Path(__file__).resolve().parents[3] / "workflow" / "schemas" / "datasets.schema.yaml"


class RegistryError(ValueError):
    """A registry entry (or a ``datasets`` config entry) is invalid; the message names the
    dataset, the key and where the entry was declared."""


@dataclass(frozen=True)
class DatasetEntry:
    """One dataset of the registry (merged with its config entry).

    Attributes
    ----------
    dataset : str
        Identifier (``results/<version>/data/<dataset>/``).
    task : {"regression", "classification"}
    target : str
        Target column.
    source : dict
        ``{"kind": "uci" | "sklearn" | "file" | "openml" | "simulated", ...}`` (see the schema).
    name : str
        Human-readable name (default: the identifier).
    id_columns, other_columns : tuple of str
        Identifier columns (kept in the canonical table, never features) and other
        columns (kept, never features; e.g. Wine Quality's ``color``).
    feature_columns : tuple of str or None
        Features in canonical order; ``None``: every column of the source that is
        not an id, the target or an other column, in source order.
    categorical : tuple of str
        Categorical features: kept as text, one-hot encoded in preparation (one
        feature group each, so that model reliance permutes them together).
    groups : dict of str -> tuple of str
        The user's feature groups (``groups: {name: [columns...]}``): each group is one variable
        of model reliance, MCR, SHAP (summed) and SAGE; a categorical's name stands for all its
        one-hot columns. Checked against the prepared columns by
        :func:`xaipipe.data.preparation.prepare_table`.
    drop : tuple of str
        Features removed in preparation (after the correlation matrix).
    missing : {"error", "drop_rows", "impute"}
        What preparation does with missing feature or target values (default ``error``;
        :func:`xaipipe.data.preparation.prepare_table`).
    positive_class : str or None
        Classification: the target value coded 1.
    variants : dict or None
        ``{"column", "default", "options": {name: {"rows": [...], "indicators": {feature: value}}}}``.
    order_by : dict or None
        ``{"column", "levels"}``: canonical rows stably sorted by these levels.
    doi, citation : str or None
    target_unit : str or None
        What one unit of the explained output is, for the axes of the effect figures (PD, ICE,
        ALE, SHAP): regression, the target's unit (Concrete ``"MPa"``; axes read
        ``"prediction (MPa)"``); classification, what class 1 is (Breast Cancer ``"malignant"``;
        axes read ``"probability of malignant"`` or ``"log-odds of malignant"`` after the
        explained output). None: the axes name the output only (:mod:`xaipipe.plots.units`).
    """

    dataset: str
    task: str
    target: str
    source: dict
    name: str = ""
    id_columns: tuple = ()
    feature_columns: tuple | None = None
    other_columns: tuple = ()
    categorical: tuple = ()
    groups: dict = field(default_factory=dict)
    drop: tuple = ()
    missing: str = "error"
    positive_class: Any = None
    variants: dict | None = None
    order_by: dict | None = None
    doi: str | None = None
    citation: str | None = None
    target_unit: str | None = None
    origin: str = field(default="", compare=False)

    # ------------------------------------------------------------------ #
    @property
    def kind(self) -> str:
        """Source kind: ``uci``, ``sklearn``, ``file``, ``openml`` or ``simulated``."""
        return self.source["kind"]

    @property
    def uci_id(self) -> int | None:
        return self.source.get("uci_id") if self.kind == "uci" else None

    @property
    def files(self) -> tuple:
        """``source.files`` (mirror or bundled files: ``path``, ``sha256``, ``bytes``)."""
        return tuple(dict(f) for f in self.source.get("files") or ())

    @classmethod
    def from_mapping(cls, dataset: str, mapping: Mapping[str, Any], origin: str = "") -> DatasetEntry:
        """Entry from its registry form (no validation: see :func:`validate_entry`)."""
        columns = mapping.get("columns") or {}
        features = columns.get("features")
        citation = mapping.get("citation")
        return cls(
            dataset=dataset,
            task=mapping["task"],
            target=str(mapping["target"]),
            source=dict(mapping["source"]),
            name=str(mapping.get("name") or dataset),
            id_columns=tuple(columns.get("id") or ()),
            feature_columns=None if features is None else tuple(features),
            other_columns=tuple(columns.get("other") or ()),
            categorical=tuple(mapping.get("categorical") or ()),
            groups={str(g): tuple(map(str, cols)) for g, cols in (mapping.get("groups") or {}).items()},
            drop=tuple(mapping.get("drop") or ()),
            missing=str(mapping.get("missing") or "error"),
            positive_class=mapping.get("positive_class"),
            variants=dict(mapping["variants"]) if mapping.get("variants") else None,
            order_by=dict(mapping["order_by"]) if mapping.get("order_by") else None,
            doi=mapping.get("doi"),
            citation=" ".join(str(citation).split()) if citation is not None else None,
            target_unit=None if mapping.get("target_unit") is None else str(mapping["target_unit"]),
            origin=origin,
        )

    def to_mapping(self, *, preparation: bool = True) -> dict:
        """Registry form (JSON/YAML-ready). ``preparation=False`` leaves out ``drop``, ``missing`` and
        ``groups``, which change the prepared table but not the canonical one (the ``canonical`` rule's
        params), and ``target_unit``, which changes only figure labels; ``missing`` appears only when it
        is not the default ``error``, ``groups`` only when some are declared."""
        columns = {"id": list(self.id_columns), "other": list(self.other_columns)}
        if self.feature_columns is not None:
            columns["features"] = list(self.feature_columns)
        out = {
            "name": self.name,
            "task": self.task,
            "target": self.target,
            "columns": columns,
            "categorical": list(self.categorical),
            "positive_class": self.positive_class,
            "variants": self.variants,
            "order_by": self.order_by,
            "doi": self.doi,
            "citation": self.citation,
            "source": dict(self.source),
        }
        if preparation:
            out["drop"] = list(self.drop)
            if self.missing != "error":
                out["missing"] = self.missing
            if self.groups:
                out["groups"] = {g: list(cols) for g, cols in self.groups.items()}
            out["target_unit"] = self.target_unit
        return {k: v for k, v in out.items() if v is not None}


# --------------------------------------------------------------------------- #
# Loading and validation
# --------------------------------------------------------------------------- #
def _read_yaml(path: Path) -> Any:
    try:
        return yaml.safe_load(path.read_text(encoding="utf-8"))
    except FileNotFoundError:
        raise RegistryError(f"dataset registry {path} does not exist") from None
    except yaml.YAMLError as exc:
        raise RegistryError(f"dataset registry {path} is not valid YAML: {exc}") from None


_SCHEMAS: dict[str, Any] = {}


def _schema(schema: str | os.PathLike | None) -> dict:
    from ..schema import load_schema

    path = Path(schema) if schema is not None else REGISTRY_SCHEMA
    key = str(path.resolve())
    if key not in _SCHEMAS:
        if not path.is_file():
            raise RegistryError(f"registry schema {path} does not exist")
        _SCHEMAS[key] = load_schema(path)
    return _SCHEMAS[key]


def _where(dataset: str, origin: str) -> str:
    return f"dataset {dataset!r} ({origin})" if origin else f"dataset {dataset!r}"


def validate_entry(
    dataset: str, mapping: Mapping[str, Any], *, origin: str = "", schema: str | os.PathLike | None = None
) -> DatasetEntry:
    """Check one (merged) registry entry and build its :class:`DatasetEntry`.

    Parameters
    ----------
    dataset : str
    mapping : mapping
        The entry's registry keys.
    origin : str
        Where the entry was declared, for messages (``config/datasets.yaml``,
        ``config key datasets.my_data``).
    schema : path, optional
        Registry schema (default :data:`REGISTRY_SCHEMA`).

    Raises
    ------
    RegistryError
        Unknown source kind or parser, a schema violation (the message gives the
        key path ``datasets.<dataset>.<key>``), a column with two roles, a
        target listed among the features, categorical or dropped columns, a
        ``positive_class`` on a regression dataset, an inconsistent ``variants``
        or ``order_by``.
    """
    where = _where(dataset, origin)
    if not re.fullmatch(r"[A-Za-z][A-Za-z0-9_]*", str(dataset)):
        raise RegistryError(f"{where}: invalid identifier {dataset!r}: a letter, then letters, digits or _")
    if not isinstance(mapping, Mapping):
        raise RegistryError(f"{where}: the entry must be a mapping, got {type(mapping).__name__}")
    missing = [k for k in ("task", "target", "source") if k not in mapping]
    if missing:
        raise RegistryError(
            f"{where}: datasets.{dataset} lacks registry key(s) {missing} (a dataset needs task, target and "
            "source; see config/README.md)"
        )
    _check_source(mapping["source"], dataset, where)
    from ..schema import schema_problems

    problems, _ = schema_problems({dataset: dict(mapping)}, _schema(schema), root="datasets")
    if problems:
        raise RegistryError("\n".join(f"{where}: {line}" for line in problems))

    entry = DatasetEntry.from_mapping(dataset, mapping, origin)
    seen = _column_roles(entry, where)
    _check_feature_lists(entry, seen, where)
    _check_groups(entry, seen, where)
    if entry.positive_class is not None and entry.task != "classification":
        raise RegistryError(
            f"{where}: datasets.{dataset}.positive_class is only defined for classification "
            f"datasets (task is {entry.task!r})"
        )
    _check_variants(entry, seen, where)
    declared = set(seen) | {entry.target}
    if entry.order_by and entry.feature_columns is not None and entry.order_by["column"] not in declared:
        raise RegistryError(
            f"{where}: datasets.{dataset}.order_by.column {entry.order_by['column']!r} is not a declared column"
        )
    return entry


def _check_source(source, dataset: str, where: str) -> None:
    """The checks of ``datasets.<d>.source`` before the schema: a known kind, parser and DGP; a URL
    with its SHA-256."""
    if not isinstance(source, Mapping):
        return
    kind = source.get("kind")
    if kind not in SOURCE_KINDS:
        raise RegistryError(
            f"{where}: unknown source kind {kind!r} (datasets.{dataset}.source.kind); known kinds: {list(SOURCE_KINDS)}"
        )
    parser = source.get("parser")
    if parser is not None and parser not in PARSERS:
        raise RegistryError(
            f"{where}: unknown parser {parser!r} (datasets.{dataset}.source.parser); known parsers: {sorted(PARSERS)}"
        )
    if kind == "simulated" and "dgp" in source:
        from .simulated import DGPS

        if source["dgp"] not in DGPS:
            raise RegistryError(
                f"{where}: unknown DGP {source['dgp']!r} (datasets.{dataset}.source.dgp); known DGPs: {sorted(DGPS)}"
            )
    if kind == "file" and "url" in source and "sha256" not in source:
        raise RegistryError(
            f"{where}: datasets.{dataset}.source.url needs source.sha256 (the SHA-256 of the file, "
            "so that a changed download is detected)"
        )


def _column_roles(entry: DatasetEntry, where: str) -> dict[str, str]:
    """Column -> its role key (``columns.id`` / ``columns.other`` / ``columns.features``); a column
    with two roles or the target with one is refused."""
    dataset = entry.dataset
    roles = {"columns.id": entry.id_columns, "columns.other": entry.other_columns}
    if entry.feature_columns is not None:
        roles["columns.features"] = entry.feature_columns
    seen: dict[str, str] = {}
    for role, cols in roles.items():
        for col in cols:
            if col in seen:
                raise RegistryError(
                    f"{where}: column {col!r} is in datasets.{dataset}.{seen[col]} and datasets.{dataset}.{role}"
                )
            seen[col] = role
    if entry.target in seen:
        raise RegistryError(f"{where}: the target {entry.target!r} is also in datasets.{dataset}.{seen[entry.target]}")
    return seen


def _check_feature_lists(entry: DatasetEntry, seen: Mapping[str, str], where: str) -> None:
    """``categorical`` and ``drop``: neither the target nor an id / other column; categorical
    columns among the declared features."""
    dataset = entry.dataset
    for key in ("categorical", "drop"):
        cols = getattr(entry, key)
        if entry.target in cols:
            raise RegistryError(f"{where}: datasets.{dataset}.{key} lists the target {entry.target!r}")
        not_features = [c for c in cols if seen.get(c) in ("columns.id", "columns.other")]
        if not_features:
            raise RegistryError(
                f"{where}: datasets.{dataset}.{key} lists {not_features}, which are id or other columns, not features"
            )
        if entry.feature_columns is not None and key == "categorical":
            unknown = [c for c in cols if c not in entry.feature_columns]
            if unknown:
                raise RegistryError(
                    f"{where}: datasets.{dataset}.categorical names unknown column(s) {unknown}; "
                    f"features are {list(entry.feature_columns)}"
                )


def _check_variants(entry: DatasetEntry, seen: Mapping[str, str], where: str) -> None:
    """``variants``: its default among its options, its column an id or other column."""
    dataset = entry.dataset
    if not entry.variants:
        return
    v = entry.variants
    if v["default"] not in v["options"]:
        raise RegistryError(
            f"{where}: datasets.{dataset}.variants.default {v['default']!r} is not one of "
            f"variants.options {list(v['options'])}"
        )
    if v["column"] == entry.target or v["column"] in (entry.feature_columns or ()):
        raise RegistryError(
            f"{where}: datasets.{dataset}.variants.column {v['column']!r} must be an id or "
            "other column (not the target or a feature)"
        )
    if v["column"] not in seen:
        raise RegistryError(
            f"{where}: datasets.{dataset}.variants.column {v['column']!r} must be declared in columns.other"
        )


def _check_groups(entry: DatasetEntry, roles: Mapping[str, str], where: str) -> None:
    """The checks of ``datasets.<d>.groups`` that need no data: a column in two groups, a group
    named like a declared column, a member that is the target or an id / other column. Unknown
    columns and split one-hot groups are checked on the prepared columns
    (:func:`xaipipe.data.preparation.prepare_table`)."""
    dataset = entry.dataset
    owner: dict[str, str] = {}
    for name, cols in entry.groups.items():
        key = f"datasets.{dataset}.groups.{name}"
        if name == entry.target or name in roles or name in (entry.feature_columns or ()):
            raise RegistryError(
                f"{where}: {key}: the group name {name!r} is a column name of dataset {dataset!r}; "
                "give the group a name of its own"
            )
        for col in cols:
            if col == entry.target:
                raise RegistryError(f"{where}: {key} lists the target {col!r}")
            if roles.get(col) in ("columns.id", "columns.other"):
                raise RegistryError(f"{where}: {key} lists {col!r}, an id or other column, not a feature")
            if col in owner:
                raise RegistryError(
                    f"{where}: column {col!r} of dataset {dataset!r} is in two groups, "
                    f"datasets.{dataset}.groups.{owner[col]} and {key}"
                )
            owner[col] = name


def load_registry(
    path: str | os.PathLike,
    config_datasets: Mapping[str, Mapping[str, Any]] | None = None,
    *,
    schema: str | os.PathLike | None = None,
) -> dict[str, DatasetEntry]:
    """Read the dataset registry and merge the configuration's inline entries.

    Parameters
    ----------
    path : path
        ``config/datasets.yaml``: ``{dataset: entry}``.
    config_datasets : mapping, optional
        The configuration's ``datasets`` section. Registry keys of an entry
        (:data:`ENTRY_KEYS`) replace those of the registry's entry of the same
        identifier, or declare a new dataset; option keys (:data:`OPTION_KEYS`,
        plus ``drop`` and ``positive_class``, which are both) are checked here too
        (``variant`` must name one of the entry's ``variants.options``).
    schema : path, optional
        Registry schema (default :data:`REGISTRY_SCHEMA`).

    Returns
    -------
    dict
        ``{dataset: DatasetEntry}``: every registry entry, then every dataset that
        only the configuration declares, in declaration order.

    Raises
    ------
    RegistryError
        A ``datasets`` config entry whose identifier is not in the registry and
        that declares no registry keys, an unknown key, and every error of
        :func:`validate_entry`; the message names the dataset and the key.
    """
    path = Path(path)
    raw = _read_yaml(path) or {}
    if not isinstance(raw, Mapping):
        raise RegistryError(f"dataset registry {path}: expected a mapping dataset -> entry, got {type(raw).__name__}")
    merged: dict[str, dict] = {}
    origins: dict[str, str] = {}
    for dataset, entry in raw.items():
        if not isinstance(entry, Mapping):
            raise RegistryError(f"{_where(str(dataset), str(path))}: the entry must be a mapping")
        merged[str(dataset)] = dict(entry)
        origins[str(dataset)] = str(path)
    for dataset, options in (config_datasets or {}).items():
        options = dict(options or {})
        unknown = [k for k in options if k not in ENTRY_KEYS and k not in OPTION_KEYS]
        if unknown:
            from ..schema import did_you_mean

            raise RegistryError(
                "\n".join(
                    f"datasets.{dataset}: unknown key {k!r}{did_you_mean(k, ENTRY_KEYS + OPTION_KEYS)}" for k in unknown
                )
            )
        inline = {k: v for k, v in options.items() if k in ENTRY_KEYS}
        if dataset in merged:
            if inline:
                merged[dataset].update(inline)
                origins[dataset] = f"{path} merged with config key datasets.{dataset}"
        elif {"task", "target", "source"} & set(inline):
            merged[dataset] = inline
            origins[dataset] = f"config key datasets.{dataset}"
        else:
            raise RegistryError(
                f"config key datasets.{dataset}: unknown dataset {dataset!r}: it is not in {path} and its config "
                f"entry declares no source (give source, task and target to add it); known datasets: {list(merged)}"
            )
    out = {d: validate_entry(d, m, origin=origins[d], schema=schema) for d, m in merged.items()}
    for dataset, options in (config_datasets or {}).items():
        variant = (options or {}).get("variant")
        if variant is None:
            continue
        entry = out[dataset]
        if not entry.variants:
            raise RegistryError(
                f"config key datasets.{dataset}.variant: dataset {dataset!r} declares no variants "
                f"(variant is only defined for datasets whose registry entry has `variants`)"
            )
        if variant not in entry.variants["options"]:
            raise RegistryError(
                f"config key datasets.{dataset}.variant must be one of "
                f"{list(entry.variants['options'])}, got {variant!r}"
            )
    return out


# --------------------------------------------------------------------------- #
# Helpers for the workflow
# --------------------------------------------------------------------------- #
def preparation_options(entry: DatasetEntry, config_options: Mapping[str, Any] | None = None) -> dict:
    """Options of :func:`xaipipe.data.preparation.prepare_table` for one dataset.

    ``drop`` (registry and configuration merged), ``missing`` when it is not the
    default ``error``, ``groups`` when some are declared (so that the thesis datasets' params, and their reruns, do not
    change), and when the configuration gives them ``one_hot``, ``variant`` and
    ``class_order`` (the coding of a multiclass target). The other choices (categorical
    columns, positive class, variant definitions) travel in the canonical
    sidecar. ``enabled`` and ``families`` change no data and are left out.
    """
    options = dict(config_options or {})
    out: dict[str, Any] = {"drop": list(entry.drop)}
    if entry.missing != "error":
        out["missing"] = entry.missing
    if entry.groups:  # only when declared: the thesis datasets' params (and reruns) do not change
        out["groups"] = {g: list(cols) for g, cols in entry.groups.items()}
    for key in ("one_hot", "variant", "class_order"):
        if options.get(key) is not None:
            out[key] = list(options[key]) if key in ("one_hot", "class_order") else options[key]
    return out


def input_files(entry: DatasetEntry, mirror: str | os.PathLike | None = None) -> list[str]:
    """Local files the ``canonical`` rule reads (Snakemake inputs, so that a change reruns it):
    the mirror files of a ``uci`` source when ``mirror`` is set, the ``path`` of a local ``file``
    source; nothing for downloads and bundled data."""
    if entry.kind == "uci" and mirror:
        return [os.path.join(str(mirror), f["path"]) for f in entry.files]
    if entry.kind == "file" and "path" in entry.source:
        return [str(entry.source["path"])]
    return []


def check_ols_inference(
    names: Iterable[str], registry: Mapping[str, DatasetEntry], datasets: Iterable[str]
) -> list[str]:
    """Validate the ``ols_inference`` config key; return the listed datasets that are run.

    Raises
    ------
    RegistryError
        A listed dataset that is unknown or not a regression dataset (the message names
        the key ``ols_inference``).
    """
    run = list(datasets)
    out = []
    for name in names:
        if name not in registry:
            raise RegistryError(
                f"config key ols_inference lists {name!r}, which is not a known dataset (known: {list(registry)})"
            )
        if registry[name].task != "regression":
            raise RegistryError(
                f"config key ols_inference lists {name!r}, a {registry[name].task} dataset; "
                "OLS inference needs a regression dataset"
            )
        if name in run:
            out.append(name)
    return out

"""Rashomon sets and model class reliance (MCR) over them.

Modules by concept: :mod:`.sets` (sets, scopes, the ε rule), :mod:`.refit` (member refits),
:mod:`.members` (member MR, member table), :mod:`.mcr` (MCR interval, MCR table, ε-path),
:mod:`.envelope` (PD envelope), :mod:`.linear` (exact MCR of all linear models), :mod:`.bootstrap`,
:mod:`.multiplicity` (predictive multiplicity), :mod:`.prediction_intervals` (Rashomon prediction
intervals), :mod:`.treefarms` (the exact sparse-tree set), :mod:`.rid`, and :mod:`.study` (the rule entries).

A front door (:mod:`xaipipe._lazy`): ``from xaipipe.rashomon import <entry point>``; :data:`RULES` is
its part of the rule -> entry map.
Library entries (no rule): ``rashomon_scopes``, ``members_reliance``, ``mcr_table``, ``mcr_path``,
``linear_exact_scope``; ``BootstrapReliance`` and ``BootstrapEngine`` (the option objects of
:func:`xaipipe.rashomon.bootstrap.bootstrap_rashomon`), ``CurveOptions`` (of
:func:`xaipipe.rashomon.envelope.pd_envelope_table`).
"""

from .._lazy import attach

#: Entry point -> the submodule that defines it (imported on first use, PEP 562).
ENTRY_POINTS = {
    "mcr_study": "study",
    "rashomon_refit": "study",
    "bootstrap_shard": "bootstrap",
    "BootstrapReliance": "bootstrap",
    "BootstrapEngine": "bootstrap",
    "combine_bootstrap_shards": "bootstrap",
    "multiplicity_tables": "multiplicity",
    "prediction_interval_tables": "prediction_intervals",
    "treefarms_scope": "treefarms",
    "rashomon_scopes": "sets",
    "members_reliance": "members",
    "mcr_table": "mcr",
    "mcr_path": "mcr",
    "linear_exact_scope": "linear",
    "consensus_study": "consensus",
    "default_summary": "consensus",
    "member_effects": "effects",
    "CurveOptions": "envelope",
}

#: The rule -> entry map: each rule whose script imports from this door, with the entry points it
#: imports (tests/test_front_doors.py checks it against workflow/; docs/layout.md prints it).
RULES = {
    "abalone_study_mcr": ("mcr_study",),
    "consensus": ("consensus_study",),
    "consensus_table": ("default_summary",),
    "multiplicity": ("multiplicity_tables",),
    "prediction_intervals": ("prediction_interval_tables",),
    "rashomon": ("mcr_study",),
    "rashomon_bootstrap": ("combine_bootstrap_shards",),
    "rashomon_bootstrap_shard": ("bootstrap_shard",),
    "rashomon_effects": ("member_effects",),
    "rashomon_refit": ("rashomon_refit",),
    "treefarms": ("treefarms_scope",),
}

__getattr__, __dir__, __all__ = attach(__name__, ENTRY_POINTS)

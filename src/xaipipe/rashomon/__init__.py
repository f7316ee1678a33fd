"""Rashomon sets and model class reliance (MCR) over them.

Modules by concept: :mod:`.sets` (sets, scopes, the ε rule), :mod:`.refit` (member refits),
:mod:`.members` (member MR, member table), :mod:`.mcr` (MCR interval, MCR table, ε-path),
:mod:`.envelope` (PD envelope), :mod:`.linear` (exact MCR of all linear models), :mod:`.bootstrap`,
:mod:`.multiplicity` (predictive multiplicity), :mod:`.rid`, and :mod:`.study` (the rule entries).

Entry points (``from xaipipe.rashomon import ...``, imported on first use):

================================  ============================  =====================================
entry point                       rule                          what
================================  ============================  =====================================
``mcr_study``                     ``rashomon``                  sets, member MR, MCR, ε-path, envelope
``rashomon_refit``                ``rashomon_refit``            member refits / MR of some families
``bootstrap_shard``               ``rashomon_bootstrap_shard``  bootstrap replicates of the MCR
``combine_bootstrap_shards``      ``rashomon_bootstrap``        bootstrap tables from the shards
``multiplicity_tables``           ``multiplicity``              predictive multiplicity of the set
``rashomon_scopes``               (library)                     the Rashomon sets of every scope
``members_reliance``              (library)                     MR of members, common random numbers
``mcr_table``                     (library)                     MCR intervals over the ε grid
``mcr_path``                      (library)                     the exact ε-path of MCR
``linear_exact_scope``            (library)                     exact MCR of all linear models
================================  ============================  =====================================
"""

from .._lazy import attach

#: Entry point -> the submodule that defines it (imported on first use, PEP 562).
ENTRY_POINTS = {
    "mcr_study": "study",
    "rashomon_refit": "study",
    "bootstrap_shard": "bootstrap",
    "combine_bootstrap_shards": "bootstrap",
    "multiplicity_tables": "multiplicity",
    "rashomon_scopes": "sets",
    "members_reliance": "members",
    "mcr_table": "mcr",
    "mcr_path": "mcr",
    "linear_exact_scope": "linear",
}

__getattr__, __dir__, __all__ = attach(__name__, ENTRY_POINTS)

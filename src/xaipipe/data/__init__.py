"""Data: the dataset registry, canonical tables, preparation and the train/test split.

Entry points (``from xaipipe.data import ...``; each defined in the submodule named in
:data:`ENTRY_POINTS`, imported on first use):

========================  ==========================  ======================================
entry point               rule                        what
========================  ==========================  ======================================
``DatasetEntry``          ``canonical``               one dataset of ``config/datasets.yaml``
``load_canonical``        ``canonical``               download / mirror -> canonical table
``read_canonical``        ``prepare``                 read a canonical table and its sidecar
``prepare_table``         ``prepare``                 encode, one-hot groups, missing values
``correlation_matrix``    ``prepare``                 correlations of the prepared columns
``make_checked_split``    ``split``                   train/test split and CV folds, checked
``load_prepared``         every model/explain rule    the prepared split of one dataset
``simulate``              ``illustration``            the simulated data sets
========================  ==========================  ======================================

Everything else (resampling indices, imputation, parsers) is in its submodule.
"""

from .._lazy import attach

#: Entry point -> the submodule that defines it (imported on first use, PEP 562).
ENTRY_POINTS = {
    "DatasetEntry": "registry",
    "load_canonical": "sources",
    "read_canonical": "sources",
    "prepare_table": "prepare",
    "correlation_matrix": "prepare",
    "make_checked_split": "split",
    "load_prepared": "prepare",
    "simulate": "simulated",
}

__getattr__, __dir__, __all__ = attach(__name__, ENTRY_POINTS)

"""The Rashomon explorer (issue 44): every Rashomon result of a study in one static page.

:mod:`.data` builds each dataset's compact tables and defines, in Python, every number the page
recomputes in the browser (members at an ε, MCR, coverage rates); :mod:`.charts` builds the
Vega-Lite specification of one dataset (through Altair); :mod:`.page` writes the self-contained
HTML page (the Vega / Vega-Lite / vega-embed bundle inlined from ``vl-convert-python``: it opens
from ``file://`` offline). ``docs/explorer.md`` describes the views.

Entry points (``from xaipipe.report.explorer import ...``, imported on first use):

==================  ============  ====================================================
entry point         rule          what
==================  ============  ====================================================
``explorer_page``   ``explorer``  the page of every dataset and the coverage-rate table
``dataset_view``    (library)     one dataset's tables for the page
``members_at``      (library)     the members of R(ε) of a scope (the page's rule)
``mcr_at``          (library)     MCR over R(ε) or a group of members
``coverage_rates``  (library)     coverage rate of the reference's PD / ALE
==================  ============  ====================================================
"""

from ..._lazy import attach

#: Entry point -> the submodule that defines it (imported on first use, PEP 562).
ENTRY_POINTS = {
    "explorer_page": "page",
    "dataset_view": "data",
    "members_at": "data",
    "mcr_at": "data",
    "coverage_rates": "data",
}

__getattr__, __dir__, __all__ = attach(__name__, ENTRY_POINTS)

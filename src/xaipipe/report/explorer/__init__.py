"""The Rashomon explorer (issue 44): every Rashomon result of a study in one static page.

:mod:`.data` builds each dataset's compact tables and defines, in Python, every number the page
recomputes in the browser (members at an ε, MCR, coverage rates); :mod:`.charts` builds the
Vega-Lite specification of one dataset (through Altair); :mod:`.page` writes the self-contained
HTML page (the Vega / Vega-Lite / vega-embed bundle inlined from ``vl-convert-python``: it opens
from ``file://`` offline). ``docs/explorer.md`` describes the views.
"""

from .data import DatasetView, coverage_rates, dataset_view, mcr_at, members_at
from .page import ExplorerPage, explorer_page

__all__ = ["DatasetView", "ExplorerPage", "coverage_rates", "dataset_view", "explorer_page", "mcr_at", "members_at"]

"""Models: families, grids, cross-validation, refits, test comparisons and inference tables.

Entry points (``from xaipipe.models import ...``, imported on first use):

===============================  ====================  =============================================
entry point                      rule                  what
===============================  ====================  =============================================
``FAMILIES``                     (registry)            the model families and what each can do
``cross_validate_grid``          ``cv_shard``          CV of one family's grid (``cv.cv_shard_table``)
``cv_tables``                    ``cv``                CV of a grid, its summary tables
``fit_best``                     ``fit``               refit of the selected configuration
``comparison_tables``            ``model_comparison``  paired bootstrap of test losses, test loss
``read_test_predictions``        ``model_comparison``  the fitted families' test predictions
``ols_inference``                ``ols``               OLS coefficients and tests (statsmodels)
``squared_terms_comparison``     ``squared_terms``     OLS with squared terms vs without
``logit_inference``              ``logit``             binary logit inference (statsmodels)
``mnlogit_inference``            ``logit``             multinomial logit inference (statsmodels)
===============================  ====================  =============================================
"""

from .._lazy import attach

#: Entry point -> the submodule that defines it (imported on first use, PEP 562).
ENTRY_POINTS = {
    "FAMILIES": "families",
    "cross_validate_grid": "cv",
    "cv_tables": "cv",
    "fit_best": "fitting",
    "comparison_tables": "comparison",
    "read_test_predictions": "comparison",
    "ols_inference": "ols",
    "squared_terms_comparison": "ols",
    "logit_inference": "logit",
    "mnlogit_inference": "mnlogit",
}

__getattr__, __dir__, __all__ = attach(__name__, ENTRY_POINTS)

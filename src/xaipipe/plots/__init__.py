"""Figures: every plotting function of the pipeline, drawn from stored results."""

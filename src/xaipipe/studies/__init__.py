"""Studies: analyses that combine several steps (thesis studies, simulation, seed 003)."""

#!/usr/bin/env bash
# Snakemake (--sdm conda) runs this inside the environment it has just created:
# install the package `xaipipe` of this checkout (its dependencies come from the
# environment file), so that the workflow scripts import it without any sys.path edit.
set -euo pipefail
repo="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
[ -f "$repo/pyproject.toml" ] || repo="$PWD"
python -m pip install --no-deps --no-build-isolation --editable "$repo"

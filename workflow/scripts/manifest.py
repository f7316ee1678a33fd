"""Rule manifest: provenance of results/<version>/."""

from pathlib import Path

import pandas as pd

from xaipipe.io import read_json, write_json
from xaipipe.report import build_manifest, snakemake_run_info
from xaipipe.runner import run


def main(smk):
    sidecars = [read_json(p) for p in smk.input.sidecars]
    splits = {Path(p).parent.name: read_json(p) for p in smk.input.splits}
    # scriptdir may hold ".." (workflow/rules/../scripts): resolve it before going up to the checkout
    repo = Path(smk.scriptdir).resolve().parents[1]
    run_info = snakemake_run_info(".")
    run_info["finished_at"] = pd.Timestamp.now().isoformat(timespec="seconds")
    write_json(
        smk.output.manifest,
        build_manifest(smk.config, repo=repo, sidecars=sidecars, splits=splits, extra={"run": run_info}).to_dict(),
    )


run(snakemake, main)  # noqa: F821

"""Rule manifest: provenance of results/<version>/."""

import os
from pathlib import Path

import pandas as pd

from xaipipe.data import data_summary_record
from xaipipe.io import read_csv, read_json, write_json
from xaipipe.report import RUN_RECORD_ENV, build_manifest, invocation_info
from xaipipe.runner import run


def main(smk):
    sidecars = [read_json(p) for p in smk.input.sidecars]
    splits = {Path(p).parent.name: read_json(p) for p in smk.input.splits}
    # scriptdir may hold ".." (workflow/rules/../scripts): resolve it before going up to the checkout
    repo = Path(smk.scriptdir).resolve().parents[1]
    # the invocation that runs this job (its onstart hook's record), not the newest Snakemake log
    run_info = invocation_info(os.environ.get(RUN_RECORD_ENV))
    run_info["finished_at"] = pd.Timestamp.now().isoformat(timespec="seconds")
    table = read_csv(smk.input.data_summary, keep_default_na=False, na_values=[""])  # a column may be "NA"
    summary = data_summary_record(table, [read_json(p) for p in smk.input.checks])
    manifest = build_manifest(
        smk.config, repo=repo, sidecars=sidecars, splits=splits, data_summary=summary, extra={"run": run_info}
    )
    write_json(smk.output.manifest, manifest.to_dict())


run(snakemake, main)  # noqa: F821

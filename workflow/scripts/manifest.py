"""Rule manifest: provenance of results/<version>/."""
import _src  # noqa: F401  (puts the package in src/ on sys.path)
from pathlib import Path

from xaipipe.io import read_json, write_json
from xaipipe.report.provenance import build_manifest
from xaipipe.runner import run


def main(smk):
    sidecars = [read_json(p) for p in smk.input.sidecars]
    splits = {Path(p).parent.name: read_json(p) for p in smk.input.splits}
    repo = Path(smk.scriptdir).parents[1]
    write_json(smk.output.manifest, build_manifest(smk.config, repo=repo, sidecars=sidecars, splits=splits))


run(snakemake, main)  # noqa: F821

"""Rule canonical: one dataset's canonical table and JSON sidecar."""
from xaipipe.data.sources import load_canonical, load_sources
from xaipipe.io import atomic_path, write_json
from xaipipe.runner import get_logger, run


def main(smk):
    source = load_sources(smk.input.sources)[smk.wildcards.dataset]
    frame, sidecar = load_canonical(source, mirror=smk.params.mirror, download=smk.config["download"])
    get_logger().info("%s: %d rows x %d columns from %s", source.dataset, *frame.shape, sidecar["source"])
    with atomic_path(smk.output.table) as tmp:
        frame.to_csv(tmp, index=False, float_format="%.17g", lineterminator="\n")
    write_json(smk.output.sidecar, sidecar)


run(snakemake, main)  # noqa: F821

"""Rule canonical: one dataset's canonical table and JSON sidecar."""

from xaipipe.data import DatasetEntry, canonical_to_csv_bytes, load_canonical
from xaipipe.io import atomic_path, write_json
from xaipipe.runner import get_logger, run


def main(smk):
    entry = DatasetEntry.from_mapping(smk.wildcards.dataset, smk.params.entry)
    frame, sidecar = load_canonical(entry, mirror=smk.params.mirror, download=smk.config["download"])
    get_logger().info("%s: %d rows x %d columns from %s", entry.dataset, *frame.shape, sidecar["source"])
    with atomic_path(smk.output.table) as tmp:
        tmp.write_bytes(canonical_to_csv_bytes(frame))
    write_json(smk.output.sidecar, sidecar)


run(snakemake, main)  # noqa: F821

"""Rule prepare: thesis preparation choices and the correlation matrix."""

from xaipipe.data import correlation_matrix, prepare_table, read_canonical
from xaipipe.io import read_json, write_csv, write_json
from xaipipe.runner import get_logger, run


def main(smk):
    sidecar = read_json(smk.input.sidecar)
    canonical = read_canonical(smk.input.table, sidecar)
    prepared, info, corr_input = prepare_table(canonical, sidecar, smk.params.options)
    missing = info.get("missing")
    if missing:
        get_logger().info(
            "%s: missing: %s removed %d row(s) (%d left); %d row(s) keep missing feature values, imputed inside "
            "every fit: %s (missing values before: %s)",
            info["dataset"],
            missing["policy"],
            missing["rows_dropped"],
            info["n_rows"],
            missing["rows_imputed"],
            missing["imputed"],
            missing["missing_values"],
        )
    write_csv(smk.output.table, prepared)
    write_json(smk.output.info, info)
    write_csv(smk.output.correlation, correlation_matrix(corr_input))


run(snakemake, main)  # noqa: F821

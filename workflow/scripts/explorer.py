"""Rule explorer: every dataset's Rashomon results in one static interactive page, and the coverage rates."""

from xaipipe.io import atomic_path, read_csv, write_csv
from xaipipe.report import explorer_page
from xaipipe.runner import get_logger, run
from xaipipe.studies import explorer_coverage_lines


def main(smk):
    twins = read_csv(smk.input.twins[0]) if len(smk.input.twins) else None  # where `snakemake twins` ran
    notes = (
        None
        if twins is None
        else {d: explorer_coverage_lines(twins, d, epsilon=smk.params.epsilon) for d in smk.params.datasets}
    )
    page = explorer_page(
        smk.params.datasets,
        {key: list(getattr(smk.input, key)) for key in smk.input.keys() if key != "twins"},
        epsilon=smk.params.epsilon,
        scope=smk.params.scope,
        title=f"Rashomon explorer: study {smk.params.version}",
        notes=notes,
    )
    with atomic_path(smk.output.page) as tmp:
        tmp.write_text(page.html, encoding="utf-8")
    write_csv(smk.output.coverage, page.coverage)
    get_logger().info("explorer: %d datasets, %.1f MB", len(smk.params.datasets), len(page.html.encode()) / 1e6)


run(snakemake, main)  # noqa: F821

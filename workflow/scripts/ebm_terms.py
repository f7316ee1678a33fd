"""Rule ebm_terms: an EBM's terms, their importances and main-term shapes with bagged error bars."""

from xaipipe.data import load_prepared
from xaipipe.explain import ebm_terms_tables
from xaipipe.io import open_model, with_ids, write_csv
from xaipipe.runner import get_logger, run


def main(smk):
    data = load_prepared(smk.input.table, smk.input.info, smk.input.split)
    out = ebm_terms_tables(open_model(smk.input.model), data)
    top = out.terms.sort_values("rank")["term"].head(3).tolist()
    get_logger().info("%d terms; most important on the test rows: %s", len(out.terms), top)
    ids = {"dataset": data.dataset, "model": smk.wildcards.family}
    for name, frame in out.to_frames().items():
        write_csv(smk.output[name], with_ids(frame, **ids))


run(snakemake, main)  # noqa: F821
